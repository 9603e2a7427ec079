package io.vecflow.dataplane.plugins.srlb.load;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Refreshes {@link PolledLoadSource}s on fixed intervals from one daemon thread, so HTTP and file reads never happen
 * on a packet worker; workers only read the published value. Each source refreshes with fixed delay (a slow status
 * page delays its own next refresh, never piles up). Not for simulations — they use {@link SettableLoadSource}.
 */
public final class LoadSourcePoller implements AutoCloseable {
    private final ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "vecflow-srlb-load-poller");
        t.setDaemon(true);
        return t;
    });

    /**
     * Starts refreshing {@code source} now and every {@code interval} after the previous refresh ends.
     *
     * @param interval time between refreshes (≥ 1 ms); also the CPU-fraction window of {@link CgroupCpuSource}
     * @throws IllegalArgumentException if the interval is below 1 ms
     */
    public void add(PolledLoadSource source, Duration interval) {
        Objects.requireNonNull(source, "source");
        if (interval.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("load refresh interval must be >= 1 ms, got " + interval);
        }
        exec.scheduleWithFixedDelay(() -> source.refresh(System.nanoTime()), 0, interval.toNanos(),
                TimeUnit.NANOSECONDS);
    }

    /** Stops all refreshing and waits up to 1 s for a refresh in progress. */
    @Override
    public void close() {
        exec.shutdownNow();
        try {
            exec.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
