package io.vecflow.dataplane.plugins.clove.path;

/**
 * Flowlet detection for CLOVE (docs/load-balancing.md §4 "Edge-Flowlet"): per flow, the time its last packet was seen
 * and its current path; a packet arriving more than {@code timeout} after the flow's previous one (default 500 µs, the
 * ns-3 model's default; swept 50–500 µs; "≈ 1 RTT") starts a new flowlet, whose path the destination's
 * {@link PathSelector} picks. Each flowlet gets an id from a table-wide counter (1, 2, ...), for telemetry.
 *
 * <p><b>Layout.</b> A direct-mapped table of {@code slots} entries (a power of two) indexed by
 * {@code flowHash & (slots − 1)}, storing the full 64-bit hash, last-seen nanos, path and flowlet id in primitive
 * arrays — as hardware flowlet tables are. A different flow landing on an occupied slot evicts it, which for the
 * evicted flow just means a new flowlet (and possibly a new path) on its next packet; such evictions are counted.
 * Memory: 24 bytes per slot. {@link #path} allocates nothing. Not thread-safe: one table per worker.
 */
public final class FlowletTable {
    /** Default flowlet gap: 500 µs. */
    public static final long DEFAULT_TIMEOUT_NANOS = 500_000;
    /** Largest table: 2<sup>24</sup> slots. */
    public static final int MAX_SLOTS = 1 << 24;

    private final int mask;
    private final long timeoutNanos;
    private final long[] keys;
    private final long[] lastSeen;
    private final long[] ids; // 0 = empty slot
    private final int[] paths;
    private long nextId = 1;
    private long newFlowlets, evictions;
    private long lastFlowletId;
    private boolean lastWasNew;

    /**
     * @param slots        number of entries, a power of two in [1, {@link #MAX_SLOTS}]
     * @param timeoutNanos the flowlet gap, ns (&gt; 0)
     * @throws IllegalArgumentException if either is out of range
     */
    public FlowletTable(int slots, long timeoutNanos) {
        if (slots < 1 || slots > MAX_SLOTS || Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("flowlet table slots must be a power of two in [1, " + MAX_SLOTS
                    + "], got " + slots);
        }
        if (timeoutNanos <= 0) {
            throw new IllegalArgumentException("flowlet timeout must be > 0 ns, got " + timeoutNanos);
        }
        this.mask = slots - 1;
        this.timeoutNanos = timeoutNanos;
        this.keys = new long[slots];
        this.lastSeen = new long[slots];
        this.ids = new long[slots];
        this.paths = new int[slots];
    }

    /**
     * The path for a packet of a flow: its flowlet's path, or a new flowlet's from {@code selector}.
     *
     * @param flowHash the flow's 64-bit hash (the inner 5-tuple)
     * @param nowNanos the packet's time, ns (monotonic)
     * @param selector the destination's path selector, asked only for a new flowlet
     * @return the path index; {@link #lastWasNew()} and {@link #lastFlowletId()} describe this call
     */
    public int path(long flowHash, long nowNanos, PathSelector selector) {
        int slot = (int) flowHash & mask;
        long id = ids[slot];
        if (id != 0 && keys[slot] == flowHash && nowNanos - lastSeen[slot] <= timeoutNanos) {
            lastSeen[slot] = nowNanos;
            lastFlowletId = id;
            lastWasNew = false;
            return paths[slot];
        }
        if (id != 0 && keys[slot] != flowHash) {
            evictions++;
        }
        int p = selector.select();
        keys[slot] = flowHash;
        lastSeen[slot] = nowNanos;
        paths[slot] = p;
        id = nextId++;
        ids[slot] = id;
        newFlowlets++;
        lastFlowletId = id;
        lastWasNew = true;
        return p;
    }

    /** @return true if the last {@link #path} call started a new flowlet */
    public boolean lastWasNew() {
        return lastWasNew;
    }

    /** @return the flowlet id of the last {@link #path} call (≥ 1), 0 before any call */
    public long lastFlowletId() {
        return lastFlowletId;
    }

    /** @return flowlets started so far */
    public long newFlowlets() {
        return newFlowlets;
    }

    /** @return flows evicted by another flow's hash landing on their slot */
    public long evictions() {
        return evictions;
    }

    /** @return the flowlet gap, ns */
    public long timeoutNanos() {
        return timeoutNanos;
    }
}
