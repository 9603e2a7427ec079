package io.vecflow.dataplane.lb.srlb;

/**
 * One worker's SRLB flow table, used by the LB ({@link LbFlowState}) and by the server agent
 * ({@link ServerAgentState}): key {client, VIP, client port, VIP port, protocol} → {state, expiry, server, a SID}
 * (shared/specs/lb.md §3 "Flow tables": per core, fixed entries, lazy expiry, key {client, VIP, ports}).
 *
 * <p>Layout: {@code capacity} slots (a power of two) in primitive arrays (structure of arrays); a flow lives in one
 * of the {@value #PROBE} slots after {@code hash & (capacity − 1)} (linear probing, wrapping). An expired slot
 * ({@code now − expires ≥ 0}) is free; there is no deletion. Where SRLB's code has 1024 cache-line entries plus 256
 * collision buckets of 16 per core, this is one open-addressed array probed over {@value #PROBE} slots (16, the size
 * of SRLB's collision buckets: at 50 % load a probe of 8 left 0.3–0.4 % of new flows without a slot, 16 leaves
 * 0.02 %, measured by LbGraphBenchmark's setup) — the same "lazy expiry, table full ⇒ no state" behaviour with one
 * code path. The slot index is the SID ENTRY hint (lb.md §3 "SID layout": bytes 12–15), checked against the key
 * before use ({@link #matches}).
 *
 * <p>Per slot the caller stores its state machine's state and expiry ({@link #state}, {@link #expires}), the server
 * (a backend slot at the LB; unused at the agent) and one SID as two longs: at the LB the accepting server agent's SID
 * (from the CREATE_STICKINESS signal), at the agent the LB SID of the hunting SYN. One writer thread; nothing is
 * allocated after construction. Memory: 92 bytes per slot.
 */
public final class SrlbFlowTable {
    /** Slots examined per lookup. */
    public static final int PROBE = 16;
    /** Smallest and largest capacity. */
    public static final int MIN_CAPACITY = 8, MAX_CAPACITY = 1 << 24;

    private final int mask;
    private final long[] srcHi, srcLo, dstHi, dstLo, ports;
    /** State machine state per slot (the caller's codes). */
    public final int[] state;
    /** Expiry per slot, ns on the caller's clock; a slot with {@code now − expires ≥ 0} is free. */
    public final long[] expires;
    /** Server (backend slot) per slot, −1 none. */
    public final int[] server;
    /** The stored SID per slot, bytes 0–7 and 8–15. */
    public final long[] sidHi, sidLo;
    private long inserts, full;

    /**
     * @param capacity slots, a power of two in [{@value #MIN_CAPACITY}, 2<sup>24</sup>]
     * @throws IllegalArgumentException otherwise
     */
    public SrlbFlowTable(int capacity) {
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("SRLB flow table slots must be a power of two in [" + MIN_CAPACITY
                    + ", " + MAX_CAPACITY + "], got " + capacity);
        }
        mask = capacity - 1;
        srcHi = new long[capacity];
        srcLo = new long[capacity];
        dstHi = new long[capacity];
        dstLo = new long[capacity];
        ports = new long[capacity];
        state = new int[capacity];
        expires = new long[capacity];
        server = new int[capacity];
        sidHi = new long[capacity];
        sidLo = new long[capacity];
        java.util.Arrays.fill(expires, Long.MIN_VALUE / 2);
    }

    /** @return number of slots */
    public int capacity() {
        return mask + 1;
    }

    /** @return the ports word of a key: {@code protocol << 32 | clientPort << 16 | vipPort} */
    public static long portsWord(int protocol, int clientPort, int vipPort) {
        return (long) protocol << 32 | (long) clientPort << 16 | vipPort;
    }

    /** @return whether slot {@code i} (any int) is in range and holds this key (live or not) */
    public boolean matches(int i, long cHi, long cLo, long vHi, long vLo, long portsWord) {
        return i >= 0 && i <= mask && srcLo[i] == cLo && srcHi[i] == cHi && dstLo[i] == vLo && dstHi[i] == vHi
                && ports[i] == portsWord;
    }

    /**
     * Finds the flow's slot, or claims a free one for it.
     *
     * @param hash   the flow's hash (any 64-bit hash of the key)
     * @param now    now, ns
     * @param insert claim a free (expired) slot when the key is not present
     * @return the slot — an existing key's slot even if expired (its state then reads as the machine's initial
     *         state), a newly claimed slot (state 0, expired), or −1 (not found; or no free slot among {@value #PROBE}:
     *         table full, counted)
     */
    public int slot(long cHi, long cLo, long vHi, long vLo, long portsWord, long hash, long now, boolean insert) {
        int free = -1;
        int h = (int) hash;
        for (int j = 0; j < PROBE; j++) {
            int i = (h + j) & mask;
            if (srcLo[i] == cLo && srcHi[i] == cHi && dstLo[i] == vLo && dstHi[i] == vHi && ports[i] == portsWord) {
                return i;
            }
            if (free < 0 && now - expires[i] >= 0) {
                free = i;
            }
        }
        if (!insert) {
            return -1;
        }
        if (free < 0) {
            full++;
            return -1;
        }
        srcHi[free] = cHi;
        srcLo[free] = cLo;
        dstHi[free] = vHi;
        dstLo[free] = vLo;
        ports[free] = portsWord;
        state[free] = 0;
        expires[free] = now;
        server[free] = -1;
        sidHi[free] = 0;
        sidLo[free] = 0;
        inserts++;
        return free;
    }

    /** @return slots claimed so far */
    public long inserts() {
        return inserts;
    }

    /** @return lookups that found no free slot */
    public long fullCount() {
        return full;
    }

    /** @return slots not expired at {@code now} (a scan; diagnostics) */
    public int live(long now) {
        int n = 0;
        for (int i = 0; i <= mask; i++) {
            if (now - expires[i] < 0) {
                n++;
            }
        }
        return n;
    }

    /** @return client address bytes 0–7 / 8–15, VIP, ports word of slot {@code i} (diagnostics) */
    public long clientHi(int i) {
        return srcHi[i];
    }

    /** @see #clientHi */
    public long clientLo(int i) {
        return srcLo[i];
    }

    /** @see #clientHi */
    public long vipHi(int i) {
        return dstHi[i];
    }

    /** @see #clientHi */
    public long vipLo(int i) {
        return dstLo[i];
    }

    /** @see #clientHi */
    public long portsOf(int i) {
        return ports[i];
    }
}
