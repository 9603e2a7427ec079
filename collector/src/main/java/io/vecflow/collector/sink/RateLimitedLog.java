package io.vecflow.collector.sink;

import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;

/**
 * Log lines that repeat, at most one per key and interval: the first occurrence is logged at once, later ones within
 * the interval are counted and the next line logged says how many were left out ("(N more since ...)"). For faults
 * that last (a store down, a full spool), so that an outage of an hour is a handful of lines, not one per second.
 * Thread-safe.
 */
public final class RateLimitedLog {
    private final Logger log;
    private final long intervalNanos;
    private final ConcurrentHashMap<String, long[]> state = new ConcurrentHashMap<>(); // {last nanos, suppressed}

    /**
     * @param log where lines go
     * @param intervalMs least time between two lines of one key, ms
     */
    public RateLimitedLog(Logger log, long intervalMs) {
        this.log = log;
        this.intervalNanos = intervalMs * 1_000_000L;
    }

    /** Logs at WARN unless a line of {@code key} was logged within the interval (then counts it). */
    public void warn(String key, String format, Object... args) {
        String suffix = admit(key);
        if (suffix != null) {
            log.warn(format + suffix, args);
        }
    }

    /** Logs at INFO unless a line of {@code key} was logged within the interval. */
    public void info(String key, String format, Object... args) {
        String suffix = admit(key);
        if (suffix != null) {
            log.info(format + suffix, args);
        }
    }

    /** Forgets {@code key}: its next line is logged at once (call when the fault is over). */
    public void reset(String key) {
        state.remove(key);
    }

    /** @return null to stay silent, else the suffix for the line ("" or " (N more like this in the last S s)"). */
    private String admit(String key) {
        long now = System.nanoTime();
        long[] s = state.computeIfAbsent(key, k -> new long[] {now - intervalNanos - 1, 0});
        synchronized (s) {
            if (now - s[0] < intervalNanos) {
                s[1]++;
                return null;
            }
            String suffix = s[1] == 0 ? "" : " (" + s[1] + " more like this in the last "
                    + (now - s[0]) / 1_000_000_000L + " s)";
            s[0] = now;
            s[1] = 0;
            return suffix;
        }
    }
}
