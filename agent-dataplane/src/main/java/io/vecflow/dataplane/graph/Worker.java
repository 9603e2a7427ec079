package io.vecflow.dataplane.graph;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * One dataplane worker thread: owns a {@link BufferPool} and one instance of every graph node, and runs the VPP
 * dispatch loop — poll input nodes, then run pending vectors until none is left. A node hands packets on with
 * {@link #enqueue}; a full pending vector is dispatched at once.
 *
 * <p>Everything here is single-threaded except {@link #stop()} and the counters read by other threads (plain longs:
 * readers see eventually consistent values).
 */
public final class Worker implements Runnable {
    private final int index;
    private final BufferPool pool;
    private BufferHold hold;
    private final Node[] nodes;
    private final InputNode[] inputs;
    private final PacketVector[] pending;
    private PacketVector[] spare;
    private int spareCount;
    private PacketVector[] fullVectors = new PacketVector[16];
    private int[] fullNodes = new int[16];
    private int fullCount;
    private volatile boolean running = true;
    private volatile boolean finished;
    private long dispatchRounds;
    /** The clock at the end of the last node run of this drain (the next run's start), ns. */
    private long stamp;

    /**
     * @param index worker index (0..W-1)
     * @param graph the graph to instantiate for this worker
     * @param pool this worker's buffers
     */
    public Worker(int index, Graph graph, BufferPool pool) {
        this.index = index;
        this.pool = pool;
        this.nodes = graph.instantiate(index);
        List<InputNode> in = new ArrayList<>();
        for (Node n : nodes) {
            if (n instanceof InputNode i) {
                in.add(i);
            }
        }
        this.inputs = in.toArray(InputNode[]::new);
        this.pending = new PacketVector[nodes.length];
        for (int i = 0; i < nodes.length; i++) {
            pending[i] = new PacketVector();
        }
        this.spare = new PacketVector[nodes.length + 2];
        for (int i = 0; i < spare.length; i++) {
            spare[i] = new PacketVector();
        }
        spareCount = spare.length;
    }

    /** @return worker index. */
    public int index() {
        return index;
    }

    /** @return this worker's buffer pool. */
    public BufferPool pool() {
        return pool;
    }

    /** @return the per-buffer state held this round ({@link BufferHold}), or null when no node installed one. */
    public BufferHold bufferHold() {
        return hold;
    }

    /**
     * The worker's {@link BufferHold} of type {@code type}, installed on first use (worker thread, or the building
     * thread before the worker starts); allocation-free once installed.
     *
     * @param type the implementation the caller uses
     * @param make makes it from the worker's buffer count
     * @param <H> the implementation type
     * @return the hold
     * @throws IllegalStateException if a hold of another type is installed
     */
    public <H extends BufferHold> H bufferHold(Class<H> type, java.util.function.IntFunction<H> make) {
        BufferHold h = hold;
        if (h == null) {
            h = make.apply(pool.capacity());
            hold = h;
        }
        if (!type.isInstance(h)) {
            throw new IllegalStateException("worker " + index + " holds " + h.getClass().getName() + ", not "
                    + type.getName());
        }
        return type.cast(h);
    }

    /** @return the node instance with the given name, or null. */
    public Node node(String name) {
        for (Node n : nodes) {
            if (n.name().equals(name)) {
                return n;
            }
        }
        return null;
    }

    /** @return every node instance of this worker, in graph order. */
    public Node[] nodes() {
        return nodes.clone();
    }

    /**
     * Hands one buffer to a next node. When the next node's pending vector is full it is queued whole and a fresh one
     * started (VPP gets a new frame the same way); nodes never run inside another node, so per-node time in
     * {@code show runtime} is exact.
     *
     * @param next graph index of the next node (from {@link Node#next(int)} or a {@link FeatureArc})
     * @param buffer buffer index
     * @param unused reserved for per-packet next-node metadata; pass 0
     */
    public void enqueue(int next, int buffer, int unused) {
        PacketVector v = pending[next];
        if (v.count == PacketVector.CAPACITY) {
            park(next);
            v = pending[next];
        }
        v.add(buffer);
    }

    /**
     * Hands every buffer of {@code v} to next node {@code next} in one bulk copy (a node that sends a whole vector to
     * one next node pays per vector, not per packet), leaving {@code v} empty. When the next node's pending vector is
     * empty the two vectors exchange their index arrays instead (VPP hands a frame on the same way): no copy at all.
     */
    public void enqueueAll(int next, PacketVector v) {
        int n = v.count;
        PacketVector p = pending[next];
        if (p.count == 0) {
            int[] t = p.buffers;
            p.buffers = v.buffers;
            p.count = n;
            v.buffers = t;
            v.count = 0;
            return;
        }
        int room = PacketVector.CAPACITY - p.count;
        if (n <= room) {
            System.arraycopy(v.buffers, 0, p.buffers, p.count, n);
            p.count += n;
        } else {
            System.arraycopy(v.buffers, 0, p.buffers, p.count, room);
            p.count = PacketVector.CAPACITY;
            park(next);
            p = pending[next];
            System.arraycopy(v.buffers, room, p.buffers, 0, n - room);
            p.count = n - room;
        }
        v.count = 0;
    }

    private void park(int node) {
        if (fullCount == fullVectors.length) {
            // Grows only while buffers in flight exceed what was seen before; steady state allocates nothing.
            fullVectors = java.util.Arrays.copyOf(fullVectors, fullCount * 2);
            fullNodes = java.util.Arrays.copyOf(fullNodes, fullCount * 2);
        }
        fullVectors[fullCount] = pending[node];
        fullNodes[fullCount++] = node;
        pending[node] = takeSpare();
    }

    private PacketVector takeSpare() {
        if (spareCount == 0) {
            return new PacketVector();
        }
        return spare[--spareCount];
    }

    private void giveSpare(PacketVector v) {
        v.count = 0;
        if (spareCount == spare.length) {
            spare = java.util.Arrays.copyOf(spare, spare.length * 2);
        }
        spare[spareCount++] = v;
    }

    private void dispatch(int node) {
        PacketVector v = pending[node];
        if (v.count == 0) {
            return;
        }
        pending[node] = takeSpare();
        // The node hands every buffer on (enqueue) or frees it; the vector itself is only a list of indices.
        stamp = nodes[node].run(this, v, stamp);
        giveSpare(v);
    }

    /** Runs queued full vectors and pending vectors until the graph is idle. */
    void drain() {
        stamp = System.nanoTime();
        boolean any = true;
        while (any) {
            any = false;
            while (fullCount > 0) {
                PacketVector v = fullVectors[--fullCount];
                fullVectors[fullCount] = null;
                stamp = nodes[fullNodes[fullCount]].run(this, v, stamp);
                giveSpare(v);
            }
            for (int i = 0; i < pending.length; i++) {
                if (pending[i].count != 0) {
                    dispatch(i);
                    any = true;
                }
            }
        }
    }

    /**
     * Runs one dispatch round: polls every input node, drains the graph, then publishes the round's held ingress
     * samples with their packets' transmit ifIndex ({@link BufferHold#flush}).
     *
     * @return packets the inputs produced
     */
    public int runOnce() {
        int produced = 0;
        for (InputNode in : inputs) {
            produced += in.poll(this);
        }
        drain();
        BufferHold h = hold;
        if (h != null) {
            h.flush(pool);
        }
        dispatchRounds++;
        return produced;
    }

    /** @return true when every input node is exhausted. */
    public boolean inputsExhausted() {
        for (InputNode in : inputs) {
            if (!in.exhausted()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void run() {
        try {
            while (running) {
                if (runOnce() == 0) {
                    if (inputsExhausted()) {
                        break;
                    }
                    LockSupport.parkNanos(20_000);
                }
            }
        } finally {
            finished = true;
        }
    }

    /** Asks the loop to stop after the current round. */
    public void stop() {
        running = false;
    }

    /** @return true once {@link #run()} has returned. */
    public boolean finished() {
        return finished;
    }

    /** @return dispatch rounds run. */
    public long dispatchRounds() {
        return dispatchRounds;
    }
}
