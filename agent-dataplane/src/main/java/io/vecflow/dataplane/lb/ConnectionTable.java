package io.vecflow.dataplane.lb;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * A worker's Maglev connection-tracking table (Eisenbud et al., NSDI'16 §3.3): 5-tuple → backend id, fixed capacity,
 * idle timeouts, lazy expiry. One per worker thread; <b>not thread-safe</b> (only {@link #counter} may be read from
 * other threads). Nothing is allocated after construction.
 *
 * <p><b>Rules</b> (paper §3.3, lb.md §1): a packet of a tracked flow goes to the backend recorded for it, even when
 * the Maglev table has changed since; if that backend has been removed or is unhealthy, the flow is re-selected
 * through the Maglev table and the entry updated; an untracked flow is looked up in the Maglev table and inserted; if
 * there is no room, the packet is forwarded with the Maglev choice <em>without</em> inserting ("table full",
 * counted), so the next packet of that flow is selected again. Entries leave only by expiry (idle longer than the
 * timeout: TCP 40 s, any other protocol 30 s by default — VPP lb's 40 s flow timeout and Katran's 30 s UDP
 * re-selection), unless the FIN/RST option removes a TCP entry on its first FIN or RST (off by default; a FIN or RST of
 * an untracked flow is then not inserted either, as Katran does not insert for RSTs).
 *
 * <p><b>Backend usability.</b> The caller passes {@code generation[]}, indexed by backend id: {@code generation[id]
 * ≥ 0} is the id's current generation, {@code < 0} means removed or unhealthy. An entry records the generation of its
 * backend at insert time; it is used only while {@code generation[id]} still equals it. Bump the generation when an
 * id is re-used for a different backend or when a backend comes back after a failure during which its flows should
 * have moved for good. The Maglev table passed in must contain usable backends only.
 *
 * <p><b>Layout</b> (justification). Two-choice, 4-way set-associative buckets: a flow may sit in one of the 4 slots
 * of bucket {@code b1 = hash & mask} or of bucket {@code b2 = (b1 ^ tag·0x5bd1e995) & mask} (the cuckoo-filter
 * partial-key trick: {@code b2} depends only on {@code b1} and the tag), without cuckoo displacement; a new flow goes
 * to the bucket with more free slots (empty or expired), the "power of two choices". As in VPP lb's sticky table
 * (lb.md §2), a bucket's metadata is one 64-byte group — for each of its 4 slots the tag (the hash's high 32 bits,
 * never 0; 0 = empty) and the idle deadline — scanned first; only on a tag match is the full key compared (5 longs in a
 * separate 64-byte entry; VPP keeps only the hash and accepts collisions, we keep the key). Slots are independent, so
 * removal and expiry just clear or overwrite a slot — no tombstones or backward shifting as open addressing with
 * bounded probing needs — and a packet reads at most two metadata groups plus, usually, one entry: bounded work. The
 * second choice cuts "table full" by orders of magnitude at a given load: at 50 % load, a single 4-way bucket per flow
 * turns away about 3.8 % of new flows, two choices about 0.002 % ({@code ConnectionTableTest} measures both, 2<sup>19</sup>
 * random flows in 2<sup>20</sup> slots). Under steady churn (flows arriving and expiring, JMH
 * {@code MaglevPathBenchmark.newFlow}) the rate is higher: 0.1–0.16 % at 48 % live load, 0.004 % at 38 % — size the
 * table at ≥ 2.5 × the flows a worker must track for "full" to stay in the 10<sup>−5</sup> range.
 * Memory: 16 + 64 = 80 bytes per slot (5 MiB per 65,536 slots; 160 MiB for 2<sup>21</sup>).
 *
 * <p><b>Time</b> is the caller's {@code nowNanos} (e.g. {@code System.nanoTime()} once per vector), compared with
 * wrap-safe subtraction; an entry is expired when {@code now − lastSeen ≥ timeout}.
 */
public final class ConnectionTable {
    /** "No backend" (no entry, or the Maglev table is empty). Equals {@link MaglevTable#EMPTY}. */
    public static final int NONE = -1;
    /** Default TCP idle timeout: 40 s (VPP lb {@code lb conf timeout}, SRLB active timeout; lb.md §2–§3). */
    public static final long DEFAULT_TCP_IDLE_NANOS = TimeUnit.SECONDS.toNanos(40);
    /** Default idle timeout for UDP and every other protocol: 30 s (Katran's UDP re-selection age; lb.md §1). */
    public static final long DEFAULT_UDP_IDLE_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** Slots per bucket. */
    public static final int WAYS = 4;
    /** Smallest capacity (slots): two buckets. */
    public static final int MIN_CAPACITY = 2 * WAYS;
    /** Largest capacity (slots): 2<sup>24</sup> (80 bytes each: 1.25 GiB). */
    public static final int MAX_CAPACITY = 1 << 24;

    /** Counter: calls of {@link #select} and {@link #lookup}. */
    public static final int LOOKUPS = 0;
    /** Counter: lookups that found a live entry whose backend is usable. */
    public static final int HITS = 1;
    /** Counter: entries written for a new flow. */
    public static final int INSERTS = 2;
    /** Counter: entries found idle past their timeout (on lookup, or reclaimed by an insert). */
    public static final int EXPIRED = 3;
    /** Counter: new flows not inserted because both of their buckets held only live entries ("table full"). */
    public static final int FULL = 4;
    /** Counter: live entries whose backend was removed or unhealthy, re-selected through the Maglev table. */
    public static final int RESELECTED = 5;
    /** Counter: entries removed by a TCP FIN or RST (FIN/RST option) or by {@link #remove}. */
    public static final int REMOVED = 6;
    private static final int COUNTERS = 7;
    private static final int PAD = 8; // longs of padding on each side: no false sharing with other workers' data

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    /** Longs per slot in {@link #meta}: tag (0 = empty), deadline; a bucket's 4 slots are 64 bytes. */
    private static final int M_STRIDE = 2;
    /** Longs per slot in {@link #entries}. */
    private static final int STRIDE = 8;
    private static final int E_SRC_HI = 0, E_SRC_LO = 1, E_DST_HI = 2, E_DST_LO = 3, E_PORTS = 4, E_BACKEND = 5,
            E_HASH = 6;

    private final int bucketMask;
    /** Per slot: [tag, deadline ns]. Scanned on every lookup; the entry line is read only on a tag match. */
    private final long[] meta;
    /** Per slot: the key, backend word and hash. */
    private final long[] entries;
    private final long tcpIdleNanos;
    private final long udpIdleNanos;
    private final boolean removeOnFinRst;
    private final long[] counters = new long[PAD + COUNTERS + PAD];
    /** What the last {@link #select} did: {@link #HITS}, {@link #RESELECTED}, {@link #INSERTS}, {@link #FULL}, or -1. */
    private int lastOutcome = -1;

    /**
     * A table with the default timeouts (TCP 40 s, others 30 s) and without FIN/RST removal.
     *
     * @param capacity slots: a power of two in [{@link #MIN_CAPACITY}, {@link #MAX_CAPACITY}]; size it ≥ 2.5 × the
     *                 flows a worker should track (then "full" is rare, see the class comment)
     * @throws IllegalArgumentException if {@code capacity} is out of range or not a power of two
     */
    public ConnectionTable(int capacity) {
        this(capacity, DEFAULT_TCP_IDLE_NANOS, DEFAULT_UDP_IDLE_NANOS, false);
    }

    /**
     * @param capacity       slots: a power of two in [{@link #MIN_CAPACITY}, {@link #MAX_CAPACITY}]
     * @param tcpIdleNanos   idle timeout of TCP entries, ns, &gt; 0
     * @param udpIdleNanos   idle timeout of UDP and all other entries, ns, &gt; 0
     * @param removeOnFinRst remove a TCP entry on its first FIN or RST, and do not insert for one
     * @throws IllegalArgumentException naming the bad argument
     */
    public ConnectionTable(int capacity, long tcpIdleNanos, long udpIdleNanos, boolean removeOnFinRst) {
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("connection table capacity must be a power of two in [" + MIN_CAPACITY
                    + ", " + MAX_CAPACITY + "] slots, got " + capacity);
        }
        if (tcpIdleNanos <= 0 || udpIdleNanos <= 0) {
            throw new IllegalArgumentException("connection table idle timeouts must be > 0 ns, got tcp "
                    + tcpIdleNanos + ", udp " + udpIdleNanos);
        }
        this.bucketMask = capacity / WAYS - 1;
        this.meta = new long[capacity * M_STRIDE];
        this.entries = new long[capacity * STRIDE];
        this.tcpIdleNanos = tcpIdleNanos;
        this.udpIdleNanos = udpIdleNanos;
        this.removeOnFinRst = removeOnFinRst;
    }

    /** @return the capacity in slots */
    public int capacity() {
        return meta.length / M_STRIDE;
    }

    /**
     * Maglev's per-packet decision (paper §3.3; see the class comment): the tracked backend if it is still usable,
     * else the Maglev table's choice, inserted when there is room.
     *
     * @param k          the packet's 5-tuple ({@link FlowKey#tcpFlags} is read for the FIN/RST option)
     * @param hash       {@link FlowHash#hash} of {@code k} (also used for {@code ring.lookup})
     * @param nowNanos   current time, ns (any origin, as {@link System#nanoTime()})
     * @param ring       the VIP's Maglev table (usable backends only)
     * @param generation per backend id: current generation (≥ 0) or &lt; 0 when removed/unhealthy
     * @return the backend id, or {@link #NONE} when the Maglev table is empty
     */
    public int select(FlowKey k, long hash, long nowNanos, MaglevTable ring, int[] generation) {
        add(LOOKUPS);
        int tag = tag(hash);
        int b1 = (int) hash & bucketMask;
        int b2 = otherBucket(b1, tag);
        int s = find(k, tag, b1, b2);
        boolean finRst = removeOnFinRst && k.protocol == FlowKey.PROTO_TCP
                && (k.tcpFlags & (FlowKey.TCP_FIN | FlowKey.TCP_RST)) != 0;
        if (s >= 0) {
            int m = s * M_STRIDE;
            if (meta[m + 1] - nowNanos > 0) {
                int e = s * STRIDE;
                long bw = entries[e + E_BACKEND];
                int id = (int) bw;
                int backend;
                if (id < generation.length && generation[id] == (int) (bw >>> 32)) {
                    add(HITS);
                    lastOutcome = HITS;
                    backend = id;
                } else {
                    add(RESELECTED);
                    lastOutcome = RESELECTED;
                    backend = ring.lookup(hash);
                    if (backend < 0) {
                        meta[m] = 0;
                        lastOutcome = -1;
                        return NONE;
                    }
                    entries[e + E_BACKEND] = backendWord(backend, generation);
                }
                if (finRst) {
                    meta[m] = 0;
                    add(REMOVED);
                } else {
                    meta[m + 1] = nowNanos + idle(k.protocol);
                }
                return backend;
            }
            add(EXPIRED); // found but idle too long: a new flow, which re-uses this slot
            meta[m] = 0;
        }
        int backend = ring.lookup(hash);
        lastOutcome = -1;
        if (backend < 0 || finRst) {
            return backend;
        }
        if (s < 0) {
            s = freeSlot(b1, b2, nowNanos);
            if (s < 0) {
                add(FULL);
                lastOutcome = FULL;
                return backend;
            }
        }
        write(s, k, hash, tag, nowNanos, backendWord(backend, generation));
        add(INSERTS);
        lastOutcome = INSERTS;
        return backend;
    }

    /**
     * What the last {@link #select} call did, for per-VIP / per-backend counters kept by the caller: {@link #HITS}
     * (tracked flow, backend usable), {@link #RESELECTED} (tracked, backend gone, re-chosen), {@link #INSERTS} (new
     * flow, entry written), {@link #FULL} (new flow, not tracked: no room), or -1 (no backend, or a FIN/RST that was
     * not tracked under the FIN/RST option). Owner thread only.
     */
    public int lastOutcome() {
        return lastOutcome;
    }

    /**
     * Looks a flow up without consulting a Maglev table or backend state; a live entry's idle timer is refreshed.
     * Expired entries count as absent (and are counted {@link #EXPIRED} and freed).
     *
     * @return the recorded backend id, or {@link #NONE}
     */
    public int lookup(FlowKey k, long hash, long nowNanos) {
        add(LOOKUPS);
        int tag = tag(hash);
        int b1 = (int) hash & bucketMask;
        int s = find(k, tag, b1, otherBucket(b1, tag));
        if (s < 0) {
            return NONE;
        }
        int m = s * M_STRIDE;
        if (meta[m + 1] - nowNanos <= 0) {
            add(EXPIRED);
            meta[m] = 0;
            return NONE;
        }
        add(HITS);
        meta[m + 1] = nowNanos + idle(k.protocol);
        return (int) entries[s * STRIDE + E_BACKEND];
    }

    /**
     * Records (or overwrites) a flow's backend.
     *
     * @param backend    backend id ≥ 0
     * @param generation that backend's generation (see the class comment)
     * @return false when both buckets hold only live entries of other flows (counted {@link #FULL})
     * @throws IllegalArgumentException if {@code backend} &lt; 0
     */
    public boolean insert(FlowKey k, long hash, long nowNanos, int backend, int generation) {
        if (backend < 0) {
            throw new IllegalArgumentException("connection table backend id must be >= 0, got " + backend);
        }
        int tag = tag(hash);
        int b1 = (int) hash & bucketMask;
        int b2 = otherBucket(b1, tag);
        int s = find(k, tag, b1, b2);
        if (s < 0) {
            s = freeSlot(b1, b2, nowNanos);
            if (s < 0) {
                add(FULL);
                return false;
            }
        }
        write(s, k, hash, tag, nowNanos, (long) generation << 32 | (backend & 0xFFFF_FFFFL));
        add(INSERTS);
        return true;
    }

    /** Removes a flow's entry (live or expired). @return whether there was one */
    public boolean remove(FlowKey k, long hash) {
        int tag = tag(hash);
        int b1 = (int) hash & bucketMask;
        int s = find(k, tag, b1, otherBucket(b1, tag));
        if (s < 0) {
            return false;
        }
        meta[s * M_STRIDE] = 0;
        add(REMOVED);
        return true;
    }

    /** @return live entries at {@code nowNanos}; O(capacity), for the control plane ({@code show lb}) and tests */
    public int liveEntries(long nowNanos) {
        int n = 0;
        for (int m = 0; m < meta.length; m += M_STRIDE) {
            if (meta[m] != 0 && meta[m + 1] - nowNanos > 0) {
                n++;
            }
        }
        return n;
    }

    /** Receives live entries from {@link #forEachLive}. */
    @FunctionalInterface
    public interface EntryVisitor {
        /**
         * @param key           the flow (a scratch instance, valid during the call only)
         * @param backend       backend id
         * @param generation    the backend generation recorded
         * @param idleLeftNanos ns until the entry expires if no packet comes
         */
        void visit(FlowKey key, int backend, int generation, long idleLeftNanos);
    }

    /**
     * Visits every live entry (control plane: {@code show lb flows}); allocates one {@link FlowKey}. Must run on the
     * owning worker (or while it is stopped): the table is not thread-safe.
     *
     * @param limit stop after this many entries
     * @return entries visited
     */
    public int forEachLive(long nowNanos, int limit, EntryVisitor v) {
        FlowKey k = new FlowKey();
        int n = 0;
        for (int s = 0; s < capacity() && n < limit; s++) {
            long left = meta[s * M_STRIDE + 1] - nowNanos;
            if (meta[s * M_STRIDE] == 0 || left <= 0) {
                continue;
            }
            int e = s * STRIDE;
            long ports = entries[e + E_PORTS];
            k.setIpv6(entries[e + E_SRC_HI], entries[e + E_SRC_LO], entries[e + E_DST_HI], entries[e + E_DST_LO],
                    (int) (ports >>> 32), (int) (ports >>> 16) & 0xFFFF, (int) ports & 0xFFFF);
            if (k.srcHi == 0 && (k.srcLo >>> 32) == 0xFFFFL) {
                k.ipVersion = 4;
            }
            long bw = entries[e + E_BACKEND];
            v.visit(k, (int) bw, (int) (bw >>> 32), left);
            n++;
        }
        return n;
    }

    /**
     * Reads a counter; safe from any thread (opaque read of a value only the owner writes).
     *
     * @param which {@link #LOOKUPS}, {@link #HITS}, {@link #INSERTS}, {@link #EXPIRED}, {@link #FULL},
     *              {@link #RESELECTED} or {@link #REMOVED}
     * @return the count since construction
     * @throws IllegalArgumentException for another index
     */
    public long counter(int which) {
        if (which < 0 || which >= COUNTERS) {
            throw new IllegalArgumentException("connection table counter index must be in [0, " + COUNTERS
                    + "), got " + which);
        }
        return (long) LONGS.getOpaque(counters, PAD + which);
    }

    // ---- internals ---------------------------------------------------------------------------------------------

    private void add(int which) {
        int i = PAD + which;
        LONGS.setOpaque(counters, i, (long) LONGS.getOpaque(counters, i) + 1);
    }

    private static int tag(long hash) {
        int t = (int) (hash >>> 32);
        return t == 0 ? 1 : t;
    }

    private int otherBucket(int b1, int tag) {
        int b2 = (b1 ^ (tag * 0x5BD1E995)) & bucketMask;
        return b2 == b1 ? (b1 ^ 1) & bucketMask : b2;
    }

    private long idle(int protocol) {
        return protocol == FlowKey.PROTO_TCP ? tcpIdleNanos : udpIdleNanos;
    }

    private static long backendWord(int backend, int[] generation) {
        int gen = backend < generation.length ? generation[backend] : -1;
        return (long) gen << 32 | (backend & 0xFFFF_FFFFL);
    }

    /** @return the slot holding {@code k} (live or expired), or -1 */
    private int find(FlowKey k, int tag, int b1, int b2) {
        int s = scan(k, tag, b1 * WAYS);
        return s >= 0 ? s : scan(k, tag, b2 * WAYS);
    }

    private int scan(FlowKey k, int tag, int base) {
        long[] mt = meta;
        for (int w = 0; w < WAYS; w++) {
            int s = base + w;
            if (mt[s * M_STRIDE] == tag) {
                int e = s * STRIDE;
                long[] en = entries;
                if (en[e + E_SRC_LO] == k.srcLo && en[e + E_DST_LO] == k.dstLo && en[e + E_PORTS] == k.portsWord()
                        && en[e + E_SRC_HI] == k.srcHi && en[e + E_DST_HI] == k.dstHi) {
                    return s;
                }
            }
        }
        return -1;
    }

    /**
     * @return a free slot (empty, or expired — then counted) of the bucket with more free slots, b1 on a tie; -1 when
     *         all 8 are live
     */
    private int freeSlot(int b1, int b2, long nowNanos) {
        long[] mt = meta;
        int free1 = 0, free2 = 0, first1 = -1, first2 = -1;
        for (int w = 0; w < WAYS; w++) {
            int m = (b1 * WAYS + w) * M_STRIDE;
            if (mt[m] == 0 || mt[m + 1] - nowNanos <= 0) {
                if (first1 < 0) {
                    first1 = b1 * WAYS + w;
                }
                free1++;
            }
            m = (b2 * WAYS + w) * M_STRIDE;
            if (mt[m] == 0 || mt[m + 1] - nowNanos <= 0) {
                if (first2 < 0) {
                    first2 = b2 * WAYS + w;
                }
                free2++;
            }
        }
        int s = free1 >= free2 ? first1 : first2;
        if (s >= 0 && mt[s * M_STRIDE] != 0) {
            add(EXPIRED);
        }
        return s;
    }

    private void write(int s, FlowKey k, long hash, int tag, long nowNanos, long backendWord) {
        int e = s * STRIDE;
        long[] en = entries;
        en[e + E_SRC_HI] = k.srcHi;
        en[e + E_SRC_LO] = k.srcLo;
        en[e + E_DST_HI] = k.dstHi;
        en[e + E_DST_LO] = k.dstLo;
        en[e + E_PORTS] = k.portsWord();
        en[e + E_BACKEND] = backendWord;
        en[e + E_HASH] = hash;
        int m = s * M_STRIDE;
        meta[m] = tag;
        meta[m + 1] = nowNanos + idle(k.protocol);
    }
}
