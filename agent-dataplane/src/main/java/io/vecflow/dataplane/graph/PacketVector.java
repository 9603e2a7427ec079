package io.vecflow.dataplane.graph;

/**
 * A vector (VPP "frame") of up to {@link #CAPACITY} buffer indices handed from one node to the next. The packet
 * metadata lives in the {@link BufferPool}'s arrays, indexed by these buffer indices.
 */
public final class PacketVector {
    /** Maximum packets per vector (VPP's VLIB_FRAME_SIZE). */
    public static final int CAPACITY = 256;

    /**
     * Buffer indices; valid from 0 to {@link #count} − 1. Not final: {@link Worker#enqueueAll} hands a whole vector to
     * an empty pending vector by exchanging the arrays, so read it from the vector, not from a copy kept across an
     * {@code enqueueAll}.
     */
    public int[] buffers = new int[CAPACITY];
    /** Number of packets in the vector. */
    public int count;

    /** @return true when no more packets fit. */
    public boolean isFull() {
        return count == CAPACITY;
    }

    /** Appends a buffer index; the caller checks {@link #isFull()} first. */
    public void add(int buffer) {
        buffers[count++] = buffer;
    }
}
