package io.vecflow.dataplane.vnet.interfaces;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Per-queue interface counters of one {@link Port}: each receive/transmit queue is owned by one worker thread, which
 * adds with opaque writes into its own cache-line-padded slots; any thread (the main thread polling IF_COUNTERS, the
 * control socket) reads sums with opaque reads. No allocation after construction, no locks, no false sharing.
 *
 * <p>Counter meanings follow the sFlow generic interface counters (sFlow v5 §5, counter record 0:1) so they map one to
 * one: octets and unicast packets per direction, {@code ifInDiscards} / {@code ifOutDiscards}, {@code ifInErrors} /
 * {@code ifOutErrors}.
 */
public final class PortCounters {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Longs per queue: 8 counters, padded to two cache lines. */
    private static final int STRIDE = 16;

    /** Received frames. */
    public static final int RX_PACKETS = 0;
    /** Received octets (frame bytes without FCS). */
    public static final int RX_OCTETS = 1;
    /** Received frames discarded before the graph (no free buffer, ring loss reported by the kernel). */
    public static final int RX_DISCARDS = 2;
    /** Received frames that could not be read (truncated, malformed ring slot). */
    public static final int RX_ERRORS = 3;
    /** Transmitted frames. */
    public static final int TX_PACKETS = 4;
    /** Transmitted octets. */
    public static final int TX_OCTETS = 5;
    /** Frames given to transmit that were not sent (ring full, send error). */
    public static final int TX_DISCARDS = 6;
    /** Transmit errors reported by the kernel. */
    public static final int TX_ERRORS = 7;

    private final long[] slots;
    private final int queues;

    /** @param queues number of queues (one per worker), ≥ 1 */
    public PortCounters(int queues) {
        if (queues < 1) {
            throw new IllegalArgumentException("queues must be >= 1, got " + queues);
        }
        this.queues = queues;
        this.slots = new long[(queues + 1) * STRIDE];
    }

    /** @return number of queues. */
    public int queues() {
        return queues;
    }

    /**
     * Adds to one counter of one queue; call only from the queue's owning worker.
     *
     * @param queue queue index
     * @param counter one of the counter constants
     * @param delta amount (packets or octets)
     */
    public void add(int queue, int counter, long delta) {
        int i = (queue + 1) * STRIDE + counter;
        LONGS.setOpaque(slots, i, (long) LONGS.getOpaque(slots, i) + delta);
    }

    /**
     * @param queue queue index
     * @param counter counter constant
     * @return one queue's value
     */
    public long get(int queue, int counter) {
        return (long) LONGS.getOpaque(slots, (queue + 1) * STRIDE + counter);
    }

    /**
     * @param counter counter constant
     * @return the sum over all queues
     */
    public long sum(int counter) {
        long s = 0;
        for (int q = 0; q < queues; q++) {
            s += get(q, counter);
        }
        return s;
    }
}
