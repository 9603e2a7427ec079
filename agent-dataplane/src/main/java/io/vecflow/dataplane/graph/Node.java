package io.vecflow.dataplane.graph;

/**
 * A graph node: processes a vector of packets and hands each packet to one of its named next nodes through the
 * {@link Worker} ({@link Worker#enqueue(int, int, int)} or {@link Worker#enqueueAll}). One instance per worker, so node
 * state needs no synchronisation. Mirrors VPP's {@code vlib_node_registration_t} + node function.
 */
public abstract class Node {
    private final String name;
    private final String[] nextNames;
    private int[] nextIndex;
    private int index;
    /** Packets this node processed (vectors × their size). */
    protected long packets;
    /** Vectors this node processed (VPP's "calls"). */
    protected long vectors;
    /** Time spent in {@link #process}, ns. */
    protected long nanos;

    /**
     * @param name node name as shown by {@code show runtime} (e.g. {@code "ethernet-input"})
     * @param nextNames names of the nodes this one may hand packets to; next index i refers to nextNames[i]
     */
    protected Node(String name, String... nextNames) {
        this.name = name;
        this.nextNames = nextNames.clone();
    }

    /** @return the node name. */
    public final String name() {
        return name;
    }

    /** @return the names of the next nodes. */
    public final String[] nextNames() {
        return nextNames.clone();
    }

    final void bind(int index, int[] nextIndex) {
        this.index = index;
        this.nextIndex = nextIndex;
    }

    /** @return the graph index of next node {@code next} (an index into {@link #nextNames()}). */
    protected final int next(int next) {
        return nextIndex[next];
    }

    /** @return this node's graph index. */
    public final int index() {
        return index;
    }

    /** @return packets processed. */
    public long packets() {
        return packets;
    }

    /** @return vectors processed. */
    public long vectors() {
        return vectors;
    }

    /**
     * Processes one vector. The node must hand every packet on ({@link Worker#enqueue}) or free it
     * ({@link BufferPool#free}); the vector's indices are discarded after return.
     *
     * @param w the worker running this node (buffer pool, enqueue)
     * @param v the packets
     */
    protected abstract void process(Worker w, PacketVector v);

    /** @return nanoseconds spent processing vectors. */
    public long nanos() {
        return nanos;
    }

    /**
     * Runs {@link #process} and charges it the time from {@code t0} to now. One clock read per dispatch, as VPP's
     * dispatcher does: the end of one node's run is the start of the next (the worker's bookkeeping between two runs
     * is charged to the next node), which halves the clock reads that a start-and-end pair per node costs (~20 ns
     * each on a KVM clock source).
     *
     * @param t0 {@link System#nanoTime()} when this dispatch began (the previous dispatch's end)
     * @return {@link System#nanoTime()} at the end of this run
     */
    final long run(Worker w, PacketVector v, long t0) {
        vectors++;
        packets += v.count;
        process(w, v);
        long t1 = System.nanoTime();
        nanos += t1 - t0;
        return t1;
    }
}
