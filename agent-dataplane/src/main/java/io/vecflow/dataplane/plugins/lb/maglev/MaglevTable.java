package io.vecflow.dataplane.plugins.lb.maglev;

import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.List;

/**
 * A Maglev lookup table ("ring"): {@code M} slots, each holding a backend id, filled exactly as Katran fills it, so
 * that Katran's published test figures are our oracles.
 *
 * <p><b>Population</b> (Eisenbud et al., "Maglev: A Fast and Reliable Software Network Load Balancer", NSDI'16
 * §3.4): every backend has a permutation of the slots, {@code perm[j] = (offset + j·skip) mod M}; backends take
 * turns, and on its turn a backend walks its own permutation to its most-preferred empty slot and claims it, until
 * all {@code M} slots are full. With {@code M} prime every {@code skip ∈ [1, M−1]} is coprime with {@code M}, so each
 * permutation visits every slot. Equal weights give every backend ⌊M/N⌋ or ⌈M/N⌉ slots.
 *
 * <p><b>Katran specifics</b> (facebookincubator/katran {@code katran/lib/MaglevBase.cpp}, {@code MaglevHash.cpp},
 * {@code MaglevHashV2.cpp}, {@code Vip.cpp}):
 * <ul>
 *   <li>{@code offset = MurmurHash3_x64_64(hash, 42, seed 0) mod M},
 *       {@code skip = MurmurHash3_x64_64(hash, 2718281828, seed 2307) mod (M−1) + 1} — see {@link MurmurHash3};
 *       the endpoint hash is an opaque u64 (Katran production: folly {@code IPAddress::hash()}; its tests: the
 *       real's index).</li>
 *   <li>Endpoints with weight 0 are left out; the rest are ordered by hash ascending (unsigned); turn order is that
 *       order. Equal hashes are ordered by id here (Katran's {@code std::sort} leaves them unspecified).</li>
 *   <li>0 endpoints: every slot is {@link #EMPTY} (−1); 1 endpoint: every slot is that endpoint.</li>
 *   <li>Slot arithmetic: Katran computes {@code (offset + next·skip) % M} in {@code uint32_t}. For
 *       M ≤ {@link #DEFAULT_SIZE} we reproduce that wrap-around, so tables are bit-identical to Katran's (below
 *       65536 it never wraps; at 65537 only when a walk has passed nearly every slot). Above 65537 the u32 product
 *       wraps routinely, the walk stops being a permutation and can even miss the last empty slot for good (a
 *       skip with a large power-of-two factor), so there we use exact arithmetic — the paper's permutation — and
 *       differ from Katran.</li>
 *   <li>Weights, {@link WeightMode#V1} (Katran's default {@code MaglevHash}): in the first round an endpoint makes
 *       {@code weight} consecutive picks, afterwards one per round — <em>not</em> proportional.
 *       {@link WeightMode#V2} ({@code MaglevHashV2}): each round adds {@code weight} to a per-endpoint credit; when
 *       the credit reaches the largest weight, it is reduced by that and the endpoint makes one pick —
 *       proportional.</li>
 * </ul>
 * Katran's {@code Vip} keeps its previous ring when the last real goes away; this class instead empties the ring
 * (the generator's own 0-endpoint behaviour), so that a VIP without backends answers "none".
 *
 * <p><b>Memory and threads.</b> The ring and a same-sized build buffer are allocated once (2 × 4·M bytes; 512 KiB at
 * the default M = 65537). {@link #rebuild} builds into the buffer and then copies into the ring in place — readers
 * on other threads see each slot holding its old or its new backend, never a hole that neither table has — and ends
 * with a release fence; handing the change to workers with a happens-before edge is the caller's job. Per-endpoint
 * scratch grows on rebuild (control plane) and is reused. {@link #lookup} allocates nothing. Rebuilds must not run
 * concurrently with each other.
 */
public final class MaglevTable {
    /** Katran's and the paper's default table size (a prime; > 100 × N keeps shares within 1 % up to N = 655). */
    public static final int DEFAULT_SIZE = 65537;
    /** Largest table size accepted: 16,777,213 slots (a prime just under 2<sup>24</sup>; 64 MiB per array). */
    public static final int MAX_SIZE = 16_777_213;
    /** The slot value when there is no backend. */
    public static final int EMPTY = -1;

    /** Katran's MurmurHash3 inputs: second word and seed for the offset hash, then for the skip hash. */
    static final long OFFSET_WORD = 42, SKIP_WORD = 2_718_281_828L;
    static final int OFFSET_SEED = 0, SKIP_SEED = 2307;

    /** How weights turn into turn frequency (the paper says only "vary turn frequency"). */
    public enum WeightMode {
        /**
         * Katran {@code MaglevHash}: {@code weight} consecutive picks in round 1, then 1 per round (not proportional).
         */
        V1,
        /** Katran {@code MaglevHashV2}: credit += weight per round, a pick per max-weight of credit (proportional). */
        V2
    }

    /**
     * A backend as the table sees it.
     *
     * @param id     the value stored in the slots (≥ 0; e.g. the backend's index in the VIP's backend array)
     * @param weight relative weight (≥ 0; 0 = left out of the table, i.e. drained)
     * @param hash   the backend's identity hash, an unsigned u64 (Katran: {@code IPAddress::hash()} of the real)
     */
    public record Endpoint(int id, int weight, long hash) {
        public Endpoint {
            if (id < 0) {
                throw new IllegalArgumentException("Maglev endpoint id must be >= 0 (-1 marks an empty slot), got "
                        + id);
            }
            if (weight < 0) {
                throw new IllegalArgumentException("Maglev endpoint weight must be >= 0, got " + weight + " for id "
                        + id);
            }
        }
    }

    private final int size;
    private final WeightMode mode;
    private final int[] ring;
    private final int[] build;
    // per-endpoint scratch, in turn order
    private int[] ids = new int[0];
    private int[] weights = new int[0];
    private long[] offsets = new long[0];
    private long[] skips = new long[0];
    private long[] next = new long[0];
    private long[] credit = new long[0];
    private Endpoint[] order = new Endpoint[0];

    /** A table of {@link #DEFAULT_SIZE} slots in {@link WeightMode#V1}, initially all {@link #EMPTY}. */
    public MaglevTable() {
        this(DEFAULT_SIZE, WeightMode.V1);
    }

    /**
     * @param size number of slots M: a prime in [2, {@link #MAX_SIZE}]; choose M > 100 × backends (paper §3.4)
     * @param mode how weights are applied
     * @throws IllegalArgumentException if {@code size} is out of range or not prime
     */
    public MaglevTable(int size, WeightMode mode) {
        checkSize(size);
        if (mode == null) {
            throw new IllegalArgumentException("Maglev weight mode must be V1 or V2, got null");
        }
        this.size = size;
        this.mode = mode;
        this.ring = new int[size];
        this.build = new int[size];
        Arrays.fill(ring, EMPTY);
    }

    /** @throws IllegalArgumentException unless {@code size} is a prime in [2, {@link #MAX_SIZE}] */
    public static void checkSize(int size) {
        if (size < 2 || size > MAX_SIZE) {
            throw new IllegalArgumentException(
                    "Maglev table size must be a prime in [2, " + MAX_SIZE + "] (default " + DEFAULT_SIZE + "), got "
                            + size);
        }
        if (!isPrime(size)) {
            throw new IllegalArgumentException("Maglev table size must be prime so that every skip is coprime with it"
                    + " (default " + DEFAULT_SIZE + "), got " + size + " = " + smallestFactor(size) + " × "
                    + size / smallestFactor(size));
        }
    }

    static boolean isPrime(int n) {
        return n >= 2 && smallestFactor(n) == n;
    }

    private static int smallestFactor(int n) {
        if (n % 2 == 0) {
            return 2;
        }
        for (int d = 3; (long) d * d <= n; d += 2) {
            if (n % d == 0) {
                return d;
            }
        }
        return n;
    }

    /** Katran's permutation offset for an endpoint hash: {@code MurmurHash3_x64_64(hash, 42, 0) mod M}, in [0, M). */
    public static long offset(long endpointHash, int size) {
        return Long.remainderUnsigned(MurmurHash3.x64_64(endpointHash, OFFSET_WORD, OFFSET_SEED), size);
    }

    /** Katran's permutation skip: {@code MurmurHash3_x64_64(hash, 2718281828, 2307) mod (M−1) + 1}, in [1, M−1]. */
    public static long skip(long endpointHash, int size) {
        return Long.remainderUnsigned(MurmurHash3.x64_64(endpointHash, SKIP_WORD, SKIP_SEED), size - 1) + 1;
    }

    /** @return M, the number of slots */
    public int size() {
        return size;
    }

    /** @return the weight mode fixed at construction */
    public WeightMode mode() {
        return mode;
    }

    /**
     * The backend for a flow: {@code ring[hash mod M]}, the hash taken as unsigned. Allocation-free.
     *
     * @param flowHash the flow's hash (u64, e.g. over the 5-tuple)
     * @return the backend id, or {@link #EMPTY} when the table has no backend
     */
    public int lookup(long flowHash) {
        return ring[(int) Long.remainderUnsigned(flowHash, size)];
    }

    /** @return the backend id in slot {@code i} (0 ≤ i < M), or {@link #EMPTY} */
    public int slot(int i) {
        return ring[i];
    }

    /** Copies the ring into {@code dst} (length ≥ M) and returns it; for inspection and tests. */
    public int[] copyRing(int[] dst) {
        System.arraycopy(ring, 0, dst, 0, size);
        return dst;
    }

    /**
     * Repopulates the table from the given backends, Katran's way: weight-0 endpoints dropped, the rest ordered by
     * hash (unsigned) ascending, permutations from {@link #offset}/{@link #skip}.
     *
     * @param endpoints the VIP's backends, in any order; ids should be distinct
     * @return how many slots changed owner (Katran's {@code Vip} delta size)
     */
    public int rebuild(List<Endpoint> endpoints) {
        int n = 0;
        ensureCapacity(endpoints.size());
        for (Endpoint e : endpoints) {
            if (e == null) {
                throw new IllegalArgumentException("Maglev endpoint list contains null");
            }
            if (e.weight() != 0) {
                order[n++] = e;
            }
        }
        Arrays.sort(order, 0, n, (a, b) -> {
            int c = Long.compareUnsigned(a.hash(), b.hash());
            return c != 0 ? c : Integer.compare(a.id(), b.id());
        });
        for (int i = 0; i < n; i++) {
            Endpoint e = order[i];
            order[i] = null;
            ids[i] = e.id();
            weights[i] = e.weight();
            offsets[i] = offset(e.hash(), size);
            skips[i] = skip(e.hash(), size);
        }
        return fillAndPublish(n);
    }

    /**
     * Repopulates the table from explicit permutations — the paper's formulation, for its worked example (§3.4,
     * Table 1) and for callers with their own hashing. Backends take turns in array order; nothing is sorted or
     * dropped here except weight-0 entries.
     *
     * @param ids     backend ids (≥ 0)
     * @param weights weights (≥ 0; 0 = left out)
     * @param offsets offsets in [0, M)
     * @param skips   skips in [1, M−1]
     * @return how many slots changed owner
     */
    public int rebuildFromPermutations(int[] ids, int[] weights, long[] offsets, long[] skips) {
        int count = ids.length;
        if (weights.length != count || offsets.length != count || skips.length != count) {
            throw new IllegalArgumentException("ids, weights, offsets and skips must have the same length");
        }
        ensureCapacity(count);
        int n = 0;
        for (int i = 0; i < count; i++) {
            new Endpoint(ids[i], weights[i], 0); // validates id and weight
            if (offsets[i] < 0 || offsets[i] >= size) {
                throw new IllegalArgumentException("Maglev offset must be in [0, " + size + "), got " + offsets[i]);
            }
            if (skips[i] < 1 || skips[i] >= size) {
                throw new IllegalArgumentException("Maglev skip must be in [1, " + (size - 1) + "], got " + skips[i]);
            }
            if (weights[i] == 0) {
                continue;
            }
            this.ids[n] = ids[i];
            this.weights[n] = weights[i];
            this.offsets[n] = offsets[i];
            this.skips[n] = skips[i];
            n++;
        }
        return fillAndPublish(n);
    }

    private void ensureCapacity(int n) {
        if (ids.length < n) {
            int c = Math.max(n, 2 * ids.length);
            ids = new int[c];
            weights = new int[c];
            offsets = new long[c];
            skips = new long[c];
            next = new long[c];
            credit = new long[c];
            order = new Endpoint[c];
        }
    }

    private int fillAndPublish(int n) {
        if (n == 0) {
            Arrays.fill(build, EMPTY);
        } else if (n == 1) {
            Arrays.fill(build, ids[0]);
        } else if (mode == WeightMode.V1) {
            fillV1(n);
        } else {
            fillV2(n);
        }
        int changed = 0;
        for (int i = 0; i < size; i++) {
            if (ring[i] != build[i]) {
                ring[i] = build[i];
                changed++;
            }
        }
        VarHandle.releaseFence();
        return changed;
    }

    /** The slot at step {@code j} of endpoint {@code i}'s walk (u32 wrap-around up to M = 65537, as Katran). */
    private int slotAt(int i, long j) {
        long v = offsets[i] + j * skips[i]; // < 2^48 for M ≤ MAX_SIZE: no long overflow
        return (int) ((size <= DEFAULT_SIZE ? v & 0xFFFF_FFFFL : v) % size);
    }

    /** Claims endpoint {@code i}'s most-preferred empty slot (the table is not full when this is called). */
    private void pick(int i) {
        long start = next[i];
        int cur = slotAt(i, next[i]);
        while (build[cur] >= 0) {
            next[i]++;
            if (next[i] - start > 2L * size) { // only reachable through a u32 wrap at M = 65537; Katran would spin
                throw new IllegalStateException("Maglev walk of endpoint " + ids[i] + " (offset " + offsets[i]
                        + ", skip " + skips[i] + ") finds no empty slot in a table of " + size);
            }
            cur = slotAt(i, next[i]);
        }
        build[cur] = ids[i];
        next[i]++;
    }

    private void fillV1(int n) {
        Arrays.fill(build, EMPTY);
        Arrays.fill(next, 0, n, 0);
        int filled = 0;
        boolean firstRound = true;
        while (true) {
            for (int i = 0; i < n; i++) {
                int picks = firstRound ? weights[i] : 1;
                for (int j = 0; j < picks; j++) {
                    pick(i);
                    if (++filled == size) {
                        return;
                    }
                }
            }
            firstRound = false;
        }
    }

    private void fillV2(int n) {
        Arrays.fill(build, EMPTY);
        Arrays.fill(next, 0, n, 0);
        Arrays.fill(credit, 0, n, 0);
        long max = 0;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, weights[i]);
        }
        int filled = 0;
        while (true) {
            for (int i = 0; i < n; i++) {
                credit[i] += weights[i];
                if (credit[i] >= max) {
                    credit[i] -= max;
                    pick(i);
                    if (++filled == size) {
                        return;
                    }
                }
            }
        }
    }
}
