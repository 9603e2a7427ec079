package io.vecflow.dataplane.plugins.srlb.state;

import io.vecflow.dataplane.plugins.lb.maglev.MaglevTable;
import io.vecflow.dataplane.plugins.lb.maglev.MurmurHash3;
import java.util.Arrays;
import java.util.List;

/**
 * SRLB's consistent-hash candidate table ("CHT"): {@code size} buckets (a power of two, default
 * {@value #DEFAULT_SIZE}), each holding one server per <em>choice</em>; a flow's candidates are the servers of bucket
 * {@code flowHash & (size − 1)}, in choice order (choice 0 = the first candidate the SYN visits).
 *
 * <p><b>Population</b> (docs/load-balancing.md §3 "Candidate table"; as Cisco's SRLB code builds it, Oryon/vpp-dev
 * {@code src/plugins/srlb/srlb-lb.c} {@code srlb_generate_consistent_hash_table}):
 * <ul>
 *   <li>Every server belongs to one or more <em>pools</em> (bits 0–31 of {@link Server#poolMask()}); each pool that
 *       has a member becomes one choice, in ascending bit order. The usual setup is 2 pools holding the same servers,
 *       giving 2 choices ({@link Server#of}).</li>
 *   <li>Servers are sorted (here: by identity hash, unsigned, then id — the SRLB code sorts by IPv6 address) and get
 *       a permutation of the buckets: {@code offset = h(server, 42) & (size−1)},
 *       {@code skip = (h(server, 0) & (size−1)) | 1} (odd, so coprime with the power-of-two size: every permutation
 *       {@code bucket_j = (offset + j·skip) & (size−1)}, j = 0..size−1, visits every bucket once).</li>
 *   <li>Servers take turns in sorted order. On its turn a server walks its permutation to the next bucket where one of
 *       its pools' choice slots is still empty and claims the lowest such slot; one claim per turn. A server whose
 *       permutation is exhausted drops out; filling ends when every server is out.</li>
 *   <li>Slots still empty (a bucket no member of that pool could fill, e.g. one server and 2 choices) are filled by
 *       copying the server of the earliest earlier choice of the same bucket that belongs to the slot's pool.</li>
 * </ul>
 * Because a server visits each bucket exactly once and claims at most one slot there, with k identical pools of
 * n ≥ k servers every bucket gets k distinct candidates (the hole-copying rule only acts when n < k or pools differ).
 *
 * <p><b>Hash.</b> The SRLB code uses VPP's {@code hash_memory(address, 16, seed)} with seeds 42 and 0; we use
 * Katran's {@link MurmurHash3#x64_64}{@code (serverHash, 42 | 0, seed 0)} over the server's u64 identity hash
 * (e.g. a hash of its address, as {@link MaglevTable.Endpoint#hash()}). Tables are therefore
 * not bit-identical to VPP's; every structural property (turn order, lowest empty choice, hole copying) is.
 *
 * <p><b>Memory and threads.</b> Each {@link #rebuild} allocates a new {@code int[size·k]} (control plane) and
 * publishes it through a volatile field, so a reader's {@link #candidates} call sees one whole table — never a mix
 * of two layouts even when k changes. Per-packet methods allocate nothing. Rebuilds must not run concurrently.
 */
public final class CandidateTable {
    /** The SRLB default number of buckets. */
    public static final int DEFAULT_SIZE = 256;
    /** Largest accepted number of buckets (2<sup>20</sup>). */
    public static final int MAX_SIZE = 1 << 20;
    /** Largest number of pools, hence of choices (SRLB: a u32 pool bitmask). */
    public static final int MAX_POOLS = 32;
    /** A candidate index meaning "no server" (empty table, or choice index out of range). */
    public static final int EMPTY = -1;

    static final long OFFSET_WORD = 42, SKIP_WORD = 0;

    /**
     * A server as the table sees it.
     *
     * @param id       the value returned as a candidate (≥ 0; e.g. the server's index in the VIP's server array)
     * @param hash     the server's identity hash, an unsigned u64 (e.g. of its SRv6 /80 prefix or address)
     * @param poolMask the pools it belongs to, bit i = pool i (non-zero)
     */
    public record Server(int id, long hash, int poolMask) {
        public Server {
            if (id < 0) {
                throw new IllegalArgumentException("SRLB server id must be >= 0, got " + id);
            }
            if (poolMask == 0) {
                throw new IllegalArgumentException("SRLB server " + id
                        + " must belong to at least one pool (poolMask 0)");
            }
        }

        /** A server in pools 0..choices−1: the usual setup, every server eligible for every choice. */
        public static Server of(int id, long hash, int choices) {
            if (choices < 1 || choices > MAX_POOLS) {
                throw new IllegalArgumentException("SRLB choices must be in [1, " + MAX_POOLS + "], got " + choices);
            }
            return new Server(id, hash, choices == 32 ? -1 : (1 << choices) - 1);
        }
    }

    private final int size;
    private final int mask;
    private final int log2Size;
    /** bucket b, choice c at {@code [b·k + c]}; k = length / size; length 0 = no server. */
    private volatile int[] slots = new int[0];

    /** A table of {@link #DEFAULT_SIZE} buckets with no servers. */
    public CandidateTable() {
        this(DEFAULT_SIZE);
    }

    /**
     * @param size number of buckets: a power of two in [1, {@link #MAX_SIZE}], well above the number of servers:
     *             each server's total slots differ by at most 2, and with ≥ 16 buckets per server its first-choice
     *             buckets stay within ±40 % of the mean (measured −25 %/+36 %; see CandidateTableTest)
     * @throws IllegalArgumentException if {@code size} is not a power of two in range
     */
    public CandidateTable(int size) {
        if (size < 1 || size > MAX_SIZE || Integer.bitCount(size) != 1) {
            throw new IllegalArgumentException("SRLB candidate table size must be a power of two in [1, " + MAX_SIZE
                    + "] (default " + DEFAULT_SIZE + "), got " + size);
        }
        this.size = size;
        this.mask = size - 1;
        this.log2Size = Integer.numberOfTrailingZeros(size);
    }

    /** @return the number of buckets */
    public int size() {
        return size;
    }

    /** @return the number of choices k (candidates per flow), 0 when the table has no server */
    public int choices() {
        return slots.length >>> log2Size;
    }

    /** @return the bucket of a flow: {@code flowHash & (size − 1)} (SRLB: {@code hash & cht->mask}) */
    public int bucket(long flowHash) {
        return (int) flowHash & mask;
    }

    /**
     * Copies a flow's candidates, in choice order, into {@code out}. Allocation-free; reads one published table.
     *
     * @param flowHash the flow's hash (over the 5-tuple, or over the VIP for SRLB's {@code hash vip} mode)
     * @param out      receives up to k server ids; needs length ≥ {@link #choices()} (extra slots untouched)
     * @return k, the number of candidates written (0 when there is no server)
     * @throws ArrayIndexOutOfBoundsException if {@code out} is shorter than k
     */
    public int candidates(long flowHash, int[] out) {
        int[] s = slots;
        int k = s.length >>> log2Size;
        int base = ((int) flowHash & mask) * k;
        for (int c = 0; c < k; c++) {
            out[c] = s[base + c];
        }
        return k;
    }

    /**
     * @param flowHash the flow's hash
     * @param choice   0-based choice index
     * @return the candidate for that choice, or {@link #EMPTY} if there is no such choice
     */
    public int candidate(long flowHash, int choice) {
        int[] s = slots;
        int k = s.length >>> log2Size;
        if (choice < 0 || choice >= k) {
            return EMPTY;
        }
        return s[((int) flowHash & mask) * k + choice];
    }

    /** @return the server in bucket {@code bucket} (0 ≤ bucket < size) for {@code choice}, or {@link #EMPTY} */
    public int slot(int bucket, int choice) {
        return candidate(bucket, choice);
    }

    /** @return a copy of the table, bucket-major ({@code [b·k + c]}), length size·k */
    public int[] copySlots() {
        return slots.clone();
    }

    /** The permutation offset of a server: {@code MurmurHash3_x64_64(hash, 42, 0) & (size − 1)}. */
    public static int offset(long serverHash, int size) {
        return (int) MurmurHash3.x64_64(serverHash, OFFSET_WORD, 0) & (size - 1);
    }

    /** The permutation skip of a server: {@code (MurmurHash3_x64_64(hash, 0, 0) & (size − 1)) | 1}, odd. */
    public static int skip(long serverHash, int size) {
        return ((int) MurmurHash3.x64_64(serverHash, SKIP_WORD, 0) & (size - 1)) | 1;
    }

    /**
     * Repopulates the table (control plane; allocates). See the class comment for the algorithm.
     *
     * @param servers the VIP's servers in any order; ids should be distinct; empty = no server
     * @return how many (bucket, choice) slots changed server, counting every slot when k changed
     * @throws IllegalArgumentException on a null entry
     */
    public int rebuild(List<Server> servers) {
        int n = servers.size();
        Server[] order = new Server[n];
        int union = 0;
        for (int i = 0; i < n; i++) {
            Server s = servers.get(i);
            if (s == null) {
                throw new IllegalArgumentException("SRLB server list contains null at index " + i);
            }
            order[i] = s;
            union |= s.poolMask();
        }
        Arrays.sort(order, (a, b) -> {
            int c = Long.compareUnsigned(a.hash(), b.hash());
            return c != 0 ? c : Integer.compare(a.id(), b.id());
        });
        int k = Integer.bitCount(union);
        int[] choiceOfPool = new int[MAX_POOLS];
        int[] poolOfChoice = new int[MAX_POOLS];
        for (int bit = 0, c = 0; bit < MAX_POOLS; bit++) {
            if ((union & (1 << bit)) != 0) {
                choiceOfPool[bit] = c;
                poolOfChoice[c++] = bit;
            }
        }
        int[] build = new int[size * k];
        Arrays.fill(build, EMPTY);
        if (n > 0) {
            fill(order, build, k, choiceOfPool);
            fillHoles(order, build, k, poolOfChoice);
        }
        int[] old = slots;
        int changed;
        if (old.length != build.length) {
            changed = build.length;
        } else {
            changed = 0;
            for (int i = 0; i < build.length; i++) {
                if (old[i] != build[i]) {
                    changed++;
                }
            }
        }
        slots = build;
        return changed;
    }

    private void fill(Server[] order, int[] build, int k, int[] choiceOfPool) {
        int n = order.length;
        int[] offsets = new int[n], skips = new int[n], next = new int[n];
        for (int i = 0; i < n; i++) {
            offsets[i] = offset(order[i].hash(), size);
            skips[i] = skip(order[i].hash(), size);
        }
        int active = n;
        // each round every active server makes at most one claim; a server leaves once it has walked all buckets
        while (active > 0) {
            for (int i = 0; i < n; i++) {
                if (next[i] >= size) {
                    continue;
                }
                int pools = order[i].poolMask();
                while (next[i] < size) {
                    int b = (offsets[i] + next[i] * skips[i]) & mask;
                    next[i]++;
                    int claimed = -1;
                    for (int p = pools; p != 0; p &= p - 1) { // pools in ascending bit order = choice order
                        int idx = b * k + choiceOfPool[Integer.numberOfTrailingZeros(p)];
                        if (build[idx] == EMPTY) {
                            claimed = idx;
                            break;
                        }
                    }
                    if (claimed >= 0) {
                        build[claimed] = order[i].id();
                        break;
                    }
                }
                if (next[i] >= size) {
                    active--;
                }
            }
        }
    }

    private void fillHoles(Server[] order, int[] build, int k, int[] poolOfChoice) {
        // pool membership by id, for the copy rule (ids are caller-chosen; look them up in the server list)
        for (int b = 0; b < size; b++) {
            for (int c = 0; c < k; c++) {
                if (build[b * k + c] != EMPTY) {
                    continue;
                }
                int poolBit = 1 << poolOfChoice[c];
                for (int e = 0; e < c; e++) {
                    int id = build[b * k + e];
                    if (id != EMPTY && (poolMaskOf(order, id) & poolBit) != 0) {
                        build[b * k + c] = id;
                        break;
                    }
                }
            }
        }
    }

    private static int poolMaskOf(Server[] order, int id) {
        for (Server s : order) {
            if (s.id() == id) {
                return s.poolMask();
            }
        }
        return 0;
    }
}
