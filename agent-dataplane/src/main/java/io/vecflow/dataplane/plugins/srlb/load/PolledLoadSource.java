package io.vecflow.dataplane.plugins.srlb.load;

/**
 * A load source whose value comes from I/O done off the packet path: {@link #refresh(long)} fetches and parses, and
 * publishes the metric to a volatile field that {@link #load()} reads. Errors (I/O, bad format) are counted and
 * remembered and the previous value is kept — SRLB keeps deciding on the last good reading rather than stalling.
 *
 * <p>{@link #refresh} takes the time as a parameter (nanoseconds, any fixed origin, e.g. {@link System#nanoTime()})
 * so rate-based sources ({@link CgroupCpuSource}) are testable without a clock. Refreshes of one source must not run
 * concurrently ({@link LoadSourcePoller} runs them on one thread); the counters are volatile for readers but written
 * by that one refreshing thread only.
 */
public abstract class PolledLoadSource implements LoadSource {
    private volatile double value = Double.NaN;
    private volatile long refreshes, errors;
    private volatile String lastError;
    private volatile long lastSuccessNanos = Long.MIN_VALUE;

    @Override
    public final double load() {
        return value;
    }

    /**
     * Fetches and parses once, updating {@link #load()} on success.
     *
     * @param nowNanos the current time in nanoseconds (monotonic)
     * @return true if a new value was published (a rate source returns false on its first sample)
     */
    public final boolean refresh(long nowNanos) {
        refreshes++;
        try {
            double v = fetch(nowNanos);
            if (Double.isNaN(v)) {
                return false;
            }
            value = v;
            lastSuccessNanos = nowNanos;
            return true;
        } catch (Exception e) { // I/O, format, interrupted HTTP: count and keep the previous value
            errors++;
            lastError = e.getClass().getSimpleName() + ": " + e.getMessage();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return false;
        }
    }

    /**
     * Does the I/O and parsing.
     *
     * @param nowNanos the current time in nanoseconds
     * @return the new metric, or NaN when there is none yet (not an error)
     * @throws Exception on I/O failure or a format error ({@link LoadSource.FormatException})
     */
    protected abstract double fetch(long nowNanos) throws Exception;

    /** @return refresh attempts so far */
    public final long refreshes() {
        return refreshes;
    }

    /** @return failed refreshes so far */
    public final long errors() {
        return errors;
    }

    /** @return the last failure as {@code ExceptionClass: message}, or null */
    public final String lastError() {
        return lastError;
    }

    /** @return the {@code nowNanos} of the last successful refresh, {@link Long#MIN_VALUE} if none */
    public final long lastSuccessNanos() {
        return lastSuccessNanos;
    }
}
