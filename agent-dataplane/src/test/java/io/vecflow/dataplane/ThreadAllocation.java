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
}
