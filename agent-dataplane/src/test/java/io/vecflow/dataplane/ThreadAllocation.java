package io.vecflow.dataplane;

/**
 * Bytes the current thread has allocated so far ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}),
 * for the tests that prove a path allocates nothing per packet: read before and after a bounded run, compare.
 */
public final class ThreadAllocation {
    private ThreadAllocation() {}

    /** @return bytes allocated by the calling thread since it started */
    public static long bytes() {
        return ((com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().threadId());
    }

    /**
     * Runs {@code round} {@code warmups} times, then up to {@code tries} more times, and returns the fewest bytes one
     * of those measured rounds allocated (stopping at the first 0): the JIT and lazy initialisation are done by then,
     * and a stray allocation elsewhere on the thread (rare) does not fail a test whose path allocates nothing.
     */
    public static long leastPerRound(Runnable round, int warmups, int tries) {
        for (int i = 0; i < warmups; i++) {
            round.run();
        }
        long best = Long.MAX_VALUE;
        for (int i = 0; i < tries && best > 0; i++) {
            long before = bytes();
            round.run();
            best = Math.min(best, bytes() - before);
        }
        return best;
    }
}
