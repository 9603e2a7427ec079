package io.vecflow.collector.inlet;

import java.time.Instant;

/** Wall-clock time in ns since the UNIX epoch without allocating: an epoch anchor plus the monotonic clock. */
public final class EpochNanos {
    private static final long ANCHOR_EPOCH;
    private static final long ANCHOR_NANO;

    static {
        Instant i = Instant.now();
        ANCHOR_NANO = System.nanoTime();
        ANCHOR_EPOCH = i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    private EpochNanos() {}

    /** @return ns since 1970-01-01T00:00Z. */
    public static long now() {
        return ANCHOR_EPOCH + (System.nanoTime() - ANCHOR_NANO);
    }
}
