package io.vecflow.dataplane.plugins.srlb.state;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One worker's SRLB flow table, used by the LB ({@link LbFlowState}) and by the server agent
 * ({@link ServerAgentState}): key {client, VIP, client port, VIP port, protocol} → {state, expiry, server, a SID}
 * (docs/load-balancing.md §3 "Flow tables": per core, fixed entries, lazy expiry, key {client, VIP, ports}).
 *
 * <p>Layout: {@code capacity} slots (a power of two), each one record of {@value #STRIDE} longs (80 bytes: key,
 * expiry, state and server, SID, generation) in one {@code long[]} (array of structures: a hit touches one or two
 * cache lines; a structure of arrays touched nine, which cost SRLB 1.35–1.6× Maglev per packet at 100k–1M flows in
 * LbGraphBenchmark). A flow lives in one of the {@value #PROBE} slots after {@code hash & (capacity − 1)} (linear
 * probing, wrapping). An expired slot ({@code now − expires ≥ 0}) is free; there is no deletion. Where SRLB's code has
 * 1024 cache-line entries plus 256 collision buckets of 16 per core, this is one open-addressed array probed over
 * {@value #PROBE} slots (16, the size of SRLB's collision buckets: at 50 % load a probe of 8 left 0.3–0.4 % of new
 * flows without a slot, 16 leaves 0.02 %, measured by LbGraphBenchmark's setup) — the same "lazy expiry, table full ⇒
 * no state" behaviour with one code path. The slot index is the SID ENTRY hint (docs/load-balancing.md §3 "SID layout":
 * bytes 12–15), checked against the key before use ({@link #matches}).
 *
 * <p>Per slot the caller stores its state machine's state and expiry ({@link #set}), the server (a backend slot at
 * the LB; unused at the agent) and one SID as two longs ({@link #setServer}): at the LB the accepting server agent's
 * SID (from the CREATE_STICKINESS signal), at the agent the LB SID of the hunting SYN. One writer thread; nothing is
 * allocated after construction. Memory: 80 bytes per slot.
 *
 * <p><b>Generation.</b> Each new life of a slot — claimed for a key, or an expired key looked up again for
 * insertion — stamps it with a new generation ({@link #generation}, a per-table count), so that a change decided
 * from one life of a flow is not applied to a later flow with the same key in the same slot (the server agent's
 * handoff, {@code SrlbAgent}).
 *
 * <p><b>Reads by other threads.</b> The {@code shared*} methods let another worker read a slot while its one writer
 * changes it (the server agent with several workers, {@code SrlbAgent}): each word is read with an opaque access
 * ({@link VarHandle#getOpaque}: bitwise atomic, never a value that was not written); the writer's stores stay plain
 * (64-bit stores, atomic on a 64-bit JVM, JLS §17.7). They order nothing between words: a reader may see fields of two
 * consecutive versions of a slot. The caller orders them after a publication (the writer's release store after its
 * writes, the reader's acquire load before its reads) and tolerates the rest.
 */
public final class SrlbFlowTable {
    /** Slots examined per lookup. */
    public static final int PROBE = 16;
    /** Smallest and largest capacity. */
    public static final int MIN_CAPACITY = 8, MAX_CAPACITY = 1 << 24;
    /** Longs per slot. */
    public static final int STRIDE = 10;
    private static final int SRC_HI = 0, SRC_LO = 1, DST_HI = 2, DST_LO = 3, PORTS = 4, EXPIRES = 5, STATE = 6,
            SID_HI = 7, SID_LO = 8, GEN = 9;

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private final int mask;
    private final long[] e;
    private long inserts, full, generations;

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
        e = new long[capacity * STRIDE];
        for (int i = 0; i < capacity; i++) {
            e[i * STRIDE + EXPIRES] = Long.MIN_VALUE / 2;
            e[i * STRIDE + STATE] = -1L << 32; // state 0, server -1
        }
    }

    /**
     * Reads the lines a lookup of {@code hash} starts with — the first probed slot's record, 80 bytes over two cache
     * lines — so that a vector's lookups miss the cache together (the lb node touches every packet's slot before
     * deciding any). Changes nothing.
     *
     * @return a value derived from what was read (fold it into something the caller keeps, so the reads stay)
     */
    public long touch(long hash) {
        int o = ((int) hash & mask) * STRIDE;
        return e[o + SRC_LO] ^ e[o + SID_LO];
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
        if (i < 0 || i > mask) {
            return false;
        }
        int o = i * STRIDE;
        return e[o + SRC_LO] == cLo && e[o + SRC_HI] == cHi && e[o + DST_LO] == vLo && e[o + DST_HI] == vHi
                && e[o + PORTS] == portsWord;
    }

    /**
     * Finds the flow's slot, or claims a free one for it.
     *
     * @param hash   the flow's hash (any 64-bit hash of the key)
     * @param now    now, ns
     * @param insert claim a free (expired) slot when the key is not present; a present but expired key starts a new
     *               life (a new {@link #generation})
     * @return the slot — an existing key's slot even if expired (its state then reads as the machine's initial
     *         state), a newly claimed slot (state 0, expired), or −1 (not found; or no free slot among {@value #PROBE}:
     *         table full, counted)
     */
    public int slot(long cHi, long cLo, long vHi, long vLo, long portsWord, long hash, long now, boolean insert) {
        long[] t = e;
        int free = -1;
        int h = (int) hash;
        for (int j = 0; j < PROBE; j++) {
            int i = (h + j) & mask;
            int o = i * STRIDE;
            if (t[o + SRC_LO] == cLo && t[o + SRC_HI] == cHi && t[o + DST_LO] == vLo && t[o + DST_HI] == vHi
                    && t[o + PORTS] == portsWord) {
                if (insert && now - t[o + EXPIRES] >= 0) {
                    t[o + GEN] = ++generations; // the key of an expired flow is back: a new life of the slot
                }
                return i;
            }
            if (free < 0 && now - t[o + EXPIRES] >= 0) {
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
        int o = free * STRIDE;
        t[o + SRC_HI] = cHi;
        t[o + SRC_LO] = cLo;
        t[o + DST_HI] = vHi;
        t[o + DST_LO] = vLo;
        t[o + PORTS] = portsWord;
        t[o + EXPIRES] = now;
        t[o + STATE] = -1L << 32;
        t[o + SID_HI] = 0;
        t[o + SID_LO] = 0;
        t[o + GEN] = ++generations;
        inserts++;
        return free;
    }

    /**
     * The insertion side of {@link #slot} for a key the caller found by its slot index instead (a hint it checked with
     * {@link #matches}, e.g. the server agent's owner index or SID ENTRY): an expired entry starts a new life (a new
     * {@link #generation}), as in {@link #slot} with {@code insert}; a live one is left as it is.
     *
     * @param i   a slot holding the key, 0..capacity−1
     * @param now now, ns
     * @return {@code i}
     */
    public int renew(int i, long now) {
        int o = i * STRIDE;
        if (now - e[o + EXPIRES] >= 0) {
            e[o + GEN] = ++generations; // the key of an expired flow is back: a new life of the slot
        }
        return i;
    }

    /** @return the state machine state stored in slot {@code i} (the caller's codes) */
    public int state(int i) {
        return (int) e[i * STRIDE + STATE];
    }

    /**
     * @return the generation of slot {@code i}: the table's count of new lives when this one began (≥ 1), 0 for a
     *         slot never claimed
     */
    public long generation(int i) {
        return e[i * STRIDE + GEN];
    }

    /** Another thread's {@link #generation} (an opaque read). */
    public long sharedGeneration(int i) {
        return (long) LONGS.getOpaque(e, i * STRIDE + GEN);
    }

    /** @return the expiry of slot {@code i}, ns on the caller's clock; {@code now − expires ≥ 0} = free */
    public long expires(int i) {
        return e[i * STRIDE + EXPIRES];
    }

    /** Stores state and expiry (ns) of slot {@code i}. */
    public void set(int i, int state, long expiresNanos) {
        int o = i * STRIDE;
        e[o + STATE] = (e[o + STATE] & 0xFFFF_FFFF_0000_0000L) | (state & 0xFFFF_FFFFL);
        e[o + EXPIRES] = expiresNanos;
    }

    /** @return the server (a backend slot at the LB) of slot {@code i}, −1 none */
    public int server(int i) {
        return (int) (e[i * STRIDE + STATE] >> 32);
    }

    /** @return the stored SID of slot {@code i}, bytes 0–7 */
    public long sidHi(int i) {
        return e[i * STRIDE + SID_HI];
    }

    /** @return the stored SID of slot {@code i}, bytes 8–15 */
    public long sidLo(int i) {
        return e[i * STRIDE + SID_LO];
    }

    /** Stores the server (−1 none) and a SID in slot {@code i}. */
    public void setServer(int i, int server, long sidHi, long sidLo) {
        int o = i * STRIDE;
        e[o + STATE] = (long) server << 32 | (e[o + STATE] & 0xFFFF_FFFFL);
        e[o + SID_HI] = sidHi;
        e[o + SID_LO] = sidLo;
    }

    /**
     * Another thread's {@link #matches}: whether slot {@code i} (any int) holds this key, read with opaque accesses.
     */
    public boolean sharedMatches(int i, long cHi, long cLo, long vHi, long vLo, long portsWord) {
        if (i < 0 || i > mask) {
            return false;
        }
        int o = i * STRIDE;
        long[] t = e;
        return (long) LONGS.getOpaque(t, o + SRC_LO) == cLo && (long) LONGS.getOpaque(t, o + SRC_HI) == cHi
                && (long) LONGS.getOpaque(t, o + DST_LO) == vLo && (long) LONGS.getOpaque(t, o + DST_HI) == vHi
                && (long) LONGS.getOpaque(t, o + PORTS) == portsWord;
    }

    /**
     * Another thread's lookup: the slot holding the key among the {@value #PROBE} after {@code hash} (opaque reads;
     * claims nothing).
     *
     * @return the slot (live or not), or −1
     */
    public int sharedFind(long cHi, long cLo, long vHi, long vLo, long portsWord, long hash) {
        int h = (int) hash;
        for (int j = 0; j < PROBE; j++) {
            int i = (h + j) & mask;
            if (sharedMatches(i, cHi, cLo, vHi, vLo, portsWord)) {
                return i;
            }
        }
        return -1;
    }

    /** Another thread's {@link #state} (an opaque read). */
    public int sharedState(int i) {
        return (int) (long) LONGS.getOpaque(e, i * STRIDE + STATE);
    }

    /** Another thread's {@link #expires} (an opaque read), ns. */
    public long sharedExpires(int i) {
        return (long) LONGS.getOpaque(e, i * STRIDE + EXPIRES);
    }

    /** Another thread's {@link #sidHi} (an opaque read). */
    public long sharedSidHi(int i) {
        return (long) LONGS.getOpaque(e, i * STRIDE + SID_HI);
    }

    /** Another thread's {@link #sidLo} (an opaque read). */
    public long sharedSidLo(int i) {
        return (long) LONGS.getOpaque(e, i * STRIDE + SID_LO);
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
            if (now - e[i * STRIDE + EXPIRES] < 0) {
                n++;
            }
        }
        return n;
    }
}
