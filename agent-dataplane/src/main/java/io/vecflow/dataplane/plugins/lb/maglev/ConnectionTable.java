package io.vecflow.dataplane.plugins.lb.maglev;

import io.vecflow.dataplane.graph.mem.HugePageMemory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * A worker's Maglev connection-tracking table (Eisenbud et al., NSDI'16 §3.3): 5-tuple → backend id, fixed capacity,
 * idle timeouts, lazy expiry. One per worker thread; <b>not thread-safe</b> (only {@link #counter} may be read from
 * other threads). Nothing is allocated after construction.
 *
 * <p><b>Rules</b> (paper §3.3, docs/load-balancing.md §1): a packet of a tracked flow goes to the backend recorded for
 * it, even when the Maglev table has changed since; if that backend has been removed or is unhealthy, the flow is
 * re-selected through the Maglev table and the entry updated; an untracked flow is looked up in the Maglev table and
 * inserted; if there is no room, the packet is forwarded with the Maglev choice <em>without</em> inserting ("table
 * full", counted), so the next packet of that flow is selected again. Entries leave only by expiry (idle longer than
 * the timeout: TCP 40 s, any other protocol 30 s by default — VPP lb's 40 s flow timeout and Katran's 30 s UDP
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
 * of bucket {@code b1 = hash & mask} or of bucket {@code b2 = (hash >>> 24) & mask} (another {@code b1 ^ 1} when
 * equal), without cuckoo displacement; a new flow goes to the bucket with more free slots (empty or expired), the
 * "power of two choices". Each slot is <b>one 64-byte record</b> — key (5 longs), backend word, hash — in one
 * 64-byte-aligned off-heap segment, so a record is exactly one cache line (array of structures). In a second segment
 * each bucket has <b>one 64-byte line</b>: a long holding its 4 slots' 16-bit tags (the hash's top 16 bits, never 0;
 * 0 = empty), 2 bytes per slot, as a SwissTable/F14 control word or VPP lb's sticky-table hash group
 * (docs/load-balancing.md §2), and the 4 slots' idle deadlines. A lookup reads the bucket line of {@code b1} (and of
 * {@code b2} when not found), then only the record(s) whose tag matches — a hit touches <b>one bucket line and one
 * record line</b>; a new flow touches the two bucket lines (whose deadlines say which slots are free) and writes one
 * record. With the deadlines in the records (until 2026-11-30), a new flow read up to 8 record lines; before that, a
 * 16-byte tag/deadline slot in a 64-byte group plus a 64-byte entry, both in {@code long[]} whose 16-byte array header
 * put every group and entry across two cache lines, touched 4–6 lines per hit, which cost the Maglev path 8–12×
 * l2-xconnect at 100k–1M flows in LbGraphBenchmark. Slots are independent, so removal and expiry just clear or
 * overwrite a slot — no tombstones or backward shifting as open addressing with bounded probing needs — and a packet
 * reads at most two bucket lines and, on a tag match, its records: bounded work. The second choice cuts
 * "table full" by orders of magnitude at a given load: at 50 % load, a single 4-way bucket per flow turns away about
 * 3.8 % of new flows, two choices about 0.002 % ({@code ConnectionTableTest} measures both, 2<sup>19</sup> random
 * flows in 2<sup>20</sup> slots). Under steady churn (flows arriving and expiring, JMH
 * {@code MaglevPathBenchmark.newFlow}) the rate is higher: 0.1–0.16 % at 48 % live load, 0.004 % at 38 % — size the
 * table at ≥ 2.5 × the flows a worker must track for "full" to stay in the 10<sup>−5</sup> range.
 * Memory: 64 + 16 = 80 bytes per slot (5 MiB per 65,536 slots; 160 MiB for 2<sup>21</sup>), off the Java heap, on
 * transparent huge pages where the kernel allows ({@link HugePageMemory}: at 1M flows the 128 MiB of records would
 * otherwise cost a TLB miss per lookup), committed at construction and released when the table becomes unreachable.
 *
 * <p>{@link #touch} reads the lines a lookup of a hash will need without doing anything else; {@code LbNode} calls it
 * for a whole vector before processing it, so that the cache misses of 256 packets overlap (memory-level parallelism)
 * instead of each packet waiting for its own — VPP's lb node prefetches its sticky-table bucket the same way.
 *
 * <p><b>Time</b> is the caller's {@code nowNanos} (e.g. {@code System.nanoTime()} once per vector), compared with
 * wrap-safe subtraction; an entry is expired when {@code now − lastSeen ≥ timeout}.
 */
public final class ConnectionTable {
    /** "No backend" (no entry, or the Maglev table is empty). Equals {@link MaglevTable#EMPTY}. */
    public static final int NONE = -1;
    /**
     * Default TCP idle timeout: 40 s (VPP lb {@code lb conf timeout}, SRLB active timeout; docs/load-balancing.md
     * §2–§3).
     */
    public static final long DEFAULT_TCP_IDLE_NANOS = TimeUnit.SECONDS.toNanos(40);
    /**
     * Default idle timeout for UDP and every other protocol: 30 s (Katran's UDP re-selection age;
     * docs/load-balancing.md §1).
     */
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

    /** Bytes per record: one cache line. */
    private static final int RECORD = 64;
    /** Byte offsets in a record (srcLo first: the word that differs most between flows is compared first). */
    private static final long R_SRC_LO = 0, R_DST_LO = 8, R_PORTS = 16, R_SRC_HI = 24, R_DST_HI = 32, R_BACKEND = 40,
            R_HASH = 56; // bytes 48–55 spare
    /** Bytes per bucket line: the tag word, then the 4 slots' deadlines (8 bytes each), then 24 spare bytes. */
    private static final int BUCKET = 64;
    private static final long B_DEADLINE = 8;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;

    private final int bucketMask;
    /**
     * Per bucket one {@value #BUCKET}-byte line (64-byte aligned): its 4 slots' 16-bit tags in one long, slot
     * {@code w} in bits {@code 16w..16w+15} (0 = empty), then each slot's idle deadline (ns) at {@code 8 + 8w}.
     */
    private final MemorySegment buckets;
    private final int bucketCount;
    /** Per slot one {@value #RECORD}-byte record (64-byte aligned): key, backend word, hash. */
    private final MemorySegment records;
    /** Whether the kernel took MADV_HUGEPAGE for {@link #records}. */
    private final boolean hugePages;
    private final long tcpIdleNanos;
    private final long udpIdleNanos;
    private final boolean removeOnFinRst;
    private final long[] counters = new long[PAD + COUNTERS + PAD];
    /**
     * What the last {@link #select} did: {@link #HITS}, {@link #RESELECTED}, {@link #INSERTS}, {@link #FULL}, or -1.
     */
    private int lastOutcome = -1;
    private int touchedSlot = NONE;

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
        this.bucketCount = capacity / WAYS;
        this.buckets = HugePageMemory.allocate((long) bucketCount * BUCKET).segment(); // zeroed: every slot empty
        HugePageMemory.Block block = HugePageMemory.allocate((long) capacity * RECORD); // zeroed, ≥ 64-byte aligned
        this.records = block.segment();
        this.hugePages = block.hugePagesAdvised();

        this.tcpIdleNanos = tcpIdleNanos;
        this.udpIdleNanos = udpIdleNanos;
        this.removeOnFinRst = removeOnFinRst;
    }

    /**
     * @return whether the records were mapped with {@code MADV_HUGEPAGE} accepted (tables of ≥ 2 MiB, i.e. ≥ 32,768
     *         slots, on a kernel with transparent huge pages enabled or on madvise; see {@link HugePageMemory})
     */
    public boolean hugePages() {
        return hugePages;
    }

    /** @return the capacity in slots */
    public int capacity() {
        return bucketCount * WAYS;
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
        return select(k, hash, NONE, nowNanos, ring, generation);
    }

    /**
     * {@link #select} with the slot {@link #touch} found for {@code hash} ({@link #touchedSlot}, read earlier in the
     * vector): when that slot still holds the flow (its tag and key match — a packet in between may have reused it),
     * the buckets are not searched again.
     *
     * @param hint a slot from {@link #touchedSlot}, or {@link #NONE}
     */
    public int select(FlowKey k, long hash, int hint, long nowNanos, MaglevTable ring, int[] generation) {
        add(LOOKUPS);
        int tag = tag(hash);
        int b1 = (int) hash & bucketMask;
        int b2 = otherBucket(b1, hash);
        int s = hint >= 0 && tagAt(hint) == tag && matches(k, hint) ? hint : find(k, tag, b1, b2);
        boolean finRst = removeOnFinRst && k.protocol == FlowKey.PROTO_TCP
                && (k.tcpFlags & (FlowKey.TCP_FIN | FlowKey.TCP_RST)) != 0;
        if (s >= 0) {
            long r = (long) s * RECORD;
            MemorySegment rec = records;
            if (deadline(s) - nowNanos > 0) {
                long bw = rec.get(WORD, r + R_BACKEND);
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
                        clear(s);
                        lastOutcome = -1;
                        return NONE;
                    }
                    rec.set(WORD, r + R_BACKEND, backendWord(backend, generation));
                }
                if (finRst) {
                    clear(s);
                    add(REMOVED);
                } else {
                    setDeadline(s, nowNanos + idle(k.protocol));
                }
                return backend;
            }
            add(EXPIRED); // found but idle too long: a new flow, which re-uses this slot
            clear(s);
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
     * The first of two prefetch stages ({@link #touch} is the second): reads the two tag words a lookup of
     * {@code hash} starts from, and nothing else. The loads of a loop over a vector are independent of each other, so
     * their cache misses overlap; {@link #touch} then finds the record lines behind tags already in cache.
     * Allocation-free, no side effects.
     *
     * @param hash {@link FlowHash#hash} of the flow
     * @return a value derived from the words read (for the caller to keep, so the reads are not optimised away)
     */
    public long touchTags(long hash) {
        int b1 = (int) hash & bucketMask;
        return tagWord(b1) ^ tagWord(otherBucket(b1, hash));
    }

    /**
     * Reads, and does nothing else with, the memory a lookup of {@code hash} will touch: the bucket lines of
     * {@code b1} and {@code b2} (tags and deadlines), and the record line of the first slot whose tag matches (of
     * {@code b1}, else of {@code b2}); a new flow (no match) needs nothing more, as the free-slot search reads only
     * the deadlines in the bucket lines. Called for every packet of a vector before the vector is processed, so that
     * the vector's cache misses are in flight together. Notes the slot found ({@link #touchedSlot}); allocation-free,
     * no other side effect.
     *
     * @param hash {@link FlowHash#hash} of the flow
     * @return a value derived from the words read (for the caller to keep, so the reads are not optimised away)
     */
    public long touch(long hash) {
        int tag = tag(hash);
        int b1 = (int) hash & bucketMask;
        int b2 = otherBucket(b1, hash);
        long t1 = tagWord(b1), t2 = tagWord(b2);
        int w = way(t1, tag);
        if (w >= 0) {
            touchedSlot = b1 * WAYS + w;
            return t2 ^ records.get(WORD, (long) touchedSlot * RECORD + R_SRC_LO);
        }
        w = way(t2, tag);
        if (w >= 0) {
            touchedSlot = b2 * WAYS + w;
            return t1 ^ records.get(WORD, (long) touchedSlot * RECORD + R_SRC_LO);
        }
        touchedSlot = NONE;
        return t1 ^ t2;
    }

    /**
     * @return the slot the last {@link #touch} found the hash's tag in (the flow's slot if the key matches too), or
     *         {@link #NONE} when no tag matched (a new flow); a hint for {@link #select}. Owner thread only.
     */
    public int touchedSlot() {
        return touchedSlot;
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
        int s = find(k, tag, b1, otherBucket(b1, hash));
        if (s < 0) {
            return NONE;
        }
        long r = (long) s * RECORD;
        if (deadline(s) - nowNanos <= 0) {
            add(EXPIRED);
            clear(s);
            return NONE;
        }
        add(HITS);
        setDeadline(s, nowNanos + idle(k.protocol));
        return (int) records.get(WORD, r + R_BACKEND);
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
        int b2 = otherBucket(b1, hash);
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
        int s = find(k, tag, b1, otherBucket(b1, hash));
        if (s < 0) {
            return false;
        }
        clear(s);
        add(REMOVED);
        return true;
    }

    /** @return live entries at {@code nowNanos}; O(capacity), for the control plane ({@code show lb}) and tests */
    public int liveEntries(long nowNanos) {
        int n = 0;
        for (int s = 0; s < capacity(); s++) {
            if (tagAt(s) != 0 && deadline(s) - nowNanos > 0) {
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
            long r = (long) s * RECORD;
            long left = deadline(s) - nowNanos;
            if (tagAt(s) == 0 || left <= 0) {
                continue;
            }
            long ports = records.get(WORD, r + R_PORTS);
            k.setIpv6(records.get(WORD, r + R_SRC_HI), records.get(WORD, r + R_SRC_LO),
                    records.get(WORD, r + R_DST_HI), records.get(WORD, r + R_DST_LO), (int) (ports >>> 32) & 0xFF,
                    (int) (ports >>> 16) & 0xFFFF, (int) ports & 0xFFFF);
            if (k.srcHi == 0 && (k.srcLo >>> 32) == 0xFFFFL) {
                k.ipVersion = 4;
            }
            long bw = records.get(WORD, r + R_BACKEND);
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

    /** @return the 16-bit tag of a hash: its top 16 bits, never 0 (0 marks an empty slot) */
    private static int tag(long hash) {
        int t = (int) (hash >>> 48);
        return t == 0 ? 1 : t;
    }

    /** @return the second bucket: hash bits 24.. (independent of b1's low bits and the tag's top 16) */
    private int otherBucket(int b1, long hash) {
        int b2 = (int) (hash >>> 24) & bucketMask;
        return b2 == b1 ? (b1 ^ 1) & bucketMask : b2;
    }

    /** @return the first way of a bucket's tag word holding {@code tag}, or -1 */
    private static int way(long tagWord, int tag) {
        for (int w = 0; w < WAYS; w++) {
            if ((tagWord >>> (16 * w) & 0xFFFF) == tag) {
                return w;
            }
        }
        return -1;
    }

    /** @return bucket {@code b}'s tag word */
    private long tagWord(int b) {
        return buckets.get(WORD, (long) b * BUCKET);
    }

    /** @return slot {@code s}'s idle deadline, ns */
    private long deadline(int s) {
        return buckets.get(WORD, (long) (s / WAYS) * BUCKET + B_DEADLINE + 8L * (s % WAYS));
    }

    private void setDeadline(int s, long deadlineNanos) {
        buckets.set(WORD, (long) (s / WAYS) * BUCKET + B_DEADLINE + 8L * (s % WAYS), deadlineNanos);
    }

    private int tagAt(int s) {
        return (int) (tagWord(s / WAYS) >>> (16 * (s % WAYS))) & 0xFFFF;
    }

    private void setTag(int s, int tag) {
        int sh = 16 * (s % WAYS);
        long at = (long) (s / WAYS) * BUCKET;
        buckets.set(WORD, at, buckets.get(WORD, at) & ~(0xFFFFL << sh) | (long) (tag & 0xFFFF) << sh);
    }

    private void clear(int s) {
        setTag(s, 0);
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
        int s = scan(k, tag, b1);
        return s >= 0 ? s : scan(k, tag, b2);
    }

    private int scan(FlowKey k, int tag, int bucket) {
        long t = tagWord(bucket);
        for (int w = 0; w < WAYS; w++) {
            if (((int) (t >>> (16 * w)) & 0xFFFF) == tag) {
                int s = bucket * WAYS + w;
                if (matches(k, s)) {
                    return s;
                }
            }
        }
        return -1;
    }

    /** @return whether slot {@code s}'s record holds key {@code k} (its tag is the caller's to check) */
    private boolean matches(FlowKey k, int s) {
        long r = (long) s * RECORD;
        MemorySegment rec = records;
        return rec.get(WORD, r + R_SRC_LO) == k.srcLo && rec.get(WORD, r + R_PORTS) == k.portsWord()
                && rec.get(WORD, r + R_DST_LO) == k.dstLo && rec.get(WORD, r + R_SRC_HI) == k.srcHi
                && rec.get(WORD, r + R_DST_HI) == k.dstHi;
    }

    /**
     * @return a free slot (empty, or expired — then counted) of the bucket with more free slots, b1 on a tie; -1 when
     *         all 8 are live
     */
    private int freeSlot(int b1, int b2, long nowNanos) {
        long t1 = tagWord(b1), t2 = tagWord(b2);
        int free1 = 0, free2 = 0, first1 = -1, first2 = -1;
        boolean expired1 = false, expired2 = false;
        for (int w = 0; w < WAYS; w++) {
            int s = b1 * WAYS + w;
            boolean empty = (t1 >>> (16 * w) & 0xFFFF) == 0;
            if (empty || deadline(s) - nowNanos <= 0) {
                if (first1 < 0) {
                    first1 = s;
                    expired1 = !empty;
                }
                free1++;
            }
            s = b2 * WAYS + w;
            empty = (t2 >>> (16 * w) & 0xFFFF) == 0;
            if (empty || deadline(s) - nowNanos <= 0) {
                if (first2 < 0) {
                    first2 = s;
                    expired2 = !empty;
                }
                free2++;
            }
        }
        boolean one = free1 >= free2;
        int s = one ? first1 : first2;
        if (s >= 0 && (one ? expired1 : expired2)) {
            add(EXPIRED);
        }
        return s;
    }

    private void write(int s, FlowKey k, long hash, int tag, long nowNanos, long backendWord) {
        long r = (long) s * RECORD;
        MemorySegment rec = records;
        rec.set(WORD, r + R_SRC_LO, k.srcLo);
        rec.set(WORD, r + R_DST_LO, k.dstLo);
        rec.set(WORD, r + R_PORTS, k.portsWord());
        rec.set(WORD, r + R_SRC_HI, k.srcHi);
        rec.set(WORD, r + R_DST_HI, k.dstHi);
        rec.set(WORD, r + R_BACKEND, backendWord);
        setDeadline(s, nowNanos + idle(k.protocol));
        rec.set(WORD, r + R_HASH, hash);
        setTag(s, tag);
    }
}
