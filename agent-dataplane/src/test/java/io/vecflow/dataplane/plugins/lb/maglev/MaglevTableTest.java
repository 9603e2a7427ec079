package io.vecflow.dataplane.plugins.lb.maglev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.dataplane.plugins.lb.maglev.MaglevTable.Endpoint;
import io.vecflow.dataplane.plugins.lb.maglev.MaglevTable.WeightMode;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Oracles: the Maglev paper's worked example (NSDI'16 §3.4, Table 1) and Katran's published test figures
 * (facebookincubator/katran {@code katran/lib/tests/CHHelpersTest.cpp}, {@code VipTest.cpp},
 * {@code MaglevHashTest.cpp}; ring 65537, endpoint hash = index), as tabulated in docs/load-balancing.md §1.
 */
class MaglevTableTest {
    private static final int M = MaglevTable.DEFAULT_SIZE;

    /** n endpoints with id = hash = i and the given weight (Katran's test setup). */
    private static List<Endpoint> reals(int n, int weight) {
        List<Endpoint> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(new Endpoint(i, weight, i));
        }
        return l;
    }

    private static int[] counts(MaglevTable t, int ids) {
        int[] c = new int[ids];
        for (int i = 0; i < t.size(); i++) {
            assertThat(t.slot(i)).as("slot %d filled", i).isNotNegative();
            c[t.slot(i)]++;
        }
        return c;
    }

    private static int[] ring(MaglevTable t) {
        return t.copyRing(new int[t.size()]);
    }

    // ---- paper §3.4, Table 1 ----

    @Test
    void paperTable1SevenSlots() {
        // paper: B0 (3,4), B1 (0,2), B2 (3,1); docs/load-balancing.md names them B1..B3. Ids 0..2 here.
        long[] offsets = {3, 0, 3}, skips = {4, 2, 1};
        int[][] perms = {{3, 0, 4, 1, 5, 2, 6}, {0, 2, 4, 6, 1, 3, 5}, {3, 4, 5, 6, 0, 1, 2}};
        for (int b = 0; b < 3; b++) {
            for (int j = 0; j < 7; j++) {
                assertThat((offsets[b] + j * skips[b]) % 7).isEqualTo(perms[b][j]);
            }
        }
        MaglevTable t = new MaglevTable(7, WeightMode.V1);
        assertThat(t.rebuildFromPermutations(new int[] {0, 1, 2}, new int[] {1, 1, 1}, offsets, skips)).isEqualTo(7);
        assertThat(ring(t)).containsExactly(1, 0, 1, 0, 2, 2, 0); // B1,B0,B1,B0,B2,B2,B0

        // remove B1: only its slots (0, 2) and one other (6: B0 -> B2) change
        int[] before = ring(t);
        int changed = t.rebuildFromPermutations(
                new int[] {0, 2}, new int[] {1, 1}, new long[] {3, 3}, new long[] {4, 1});
        assertThat(ring(t)).containsExactly(0, 0, 0, 0, 2, 2, 2); // B0,B0,B0,B0,B2,B2,B2
        assertThat(changed).isEqualTo(3);
        int othersMoved = 0;
        for (int i = 0; i < 7; i++) {
            if (before[i] != 1 && before[i] != t.slot(i)) {
                othersMoved++;
                assertThat(i).isEqualTo(6);
            }
        }
        assertThat(othersMoved).isEqualTo(1);
    }

    // ---- Katran oracles ----

    @Test
    void katran400EqualRealsDifferByAtMostOneSlot() {
        for (WeightMode mode : WeightMode.values()) {
            MaglevTable t = new MaglevTable(M, mode);
            t.rebuild(reals(400, 1));
            int[] c = counts(t, 400);
            int min = Arrays.stream(c).min().orElseThrow(), max = Arrays.stream(c).max().orElseThrow();
            assertThat(max - min).as("%s max-min", mode).isEqualTo(1);
            assertThat(min).as(mode.name()).isEqualTo(163);
            assertThat(max).as(mode.name()).isEqualTo(164);
        }
    }

    @Test
    void katranWeights211V1NotProportionalV2Proportional() {
        List<Endpoint> eps = List.of(new Endpoint(0, 2, 0), new Endpoint(1, 1, 1), new Endpoint(2, 1, 2));
        MaglevTable v1 = new MaglevTable(M, WeightMode.V1);
        v1.rebuild(eps);
        assertThat(counts(v1, 3)).containsExactly(21847, 21845, 21845);
        MaglevTable v2 = new MaglevTable(M, WeightMode.V2);
        v2.rebuild(eps);
        assertThat(counts(v2, 3)).containsExactly(32769, 16384, 16384);
    }

    @Test
    void katranSmallRingWeights21() {
        // MaglevHashTest: ring 7, weights [2,1], hashes 1000/2000
        List<Endpoint> eps = List.of(new Endpoint(0, 2, 1000), new Endpoint(1, 1, 2000));
        MaglevTable v1 = new MaglevTable(7, WeightMode.V1);
        v1.rebuild(eps);
        assertThat(counts(v1, 2)).containsExactly(4, 3);
        MaglevTable v2 = new MaglevTable(7, WeightMode.V2);
        v2.rebuild(eps);
        assertThat(counts(v2, 2)).containsExactly(5, 2);
        assertThat(ring(v1)).isNotEqualTo(ring(v2));
    }

    @Test
    void katranDeleteOneOfHundredReals() {
        int[][] expected = {{1009, 353}, {1020, 364}}; // V1, V2: changed (moved between survivors)
        for (WeightMode mode : WeightMode.values()) {
            MaglevTable t = new MaglevTable(M, mode);
            List<Endpoint> eps = reals(100, 10);
            assertThat(t.rebuild(eps)).as("first build replaces every slot").isEqualTo(M);
            assertThat(t.rebuild(eps)).as("same set, no delta").isZero();
            int[] before = ring(t);
            int changed = t.rebuild(eps.subList(1, 100));
            int survivors = 0, ofRemoved = 0;
            for (int i = 0; i < M; i++) {
                if (before[i] == 0) {
                    ofRemoved++;
                    assertThat(t.slot(i)).isNotZero();
                } else if (before[i] != t.slot(i)) {
                    survivors++;
                }
            }
            int[] e = expected[mode.ordinal()];
            assertThat(changed).as("%s slots changed", mode).isEqualTo(e[0]);
            assertThat(survivors).as("%s moved between survivors", mode).isEqualTo(e[1]);
            assertThat(ofRemoved).isEqualTo(656);
        }
    }

    @Test
    void katranWeightChanges() {
        int[][] expected = {{17, 109}, {0, 1013}}; // V1, V2: all 10 -> 13, then real 0 13 -> 26
        for (WeightMode mode : WeightMode.values()) {
            MaglevTable t = new MaglevTable(M, mode);
            t.rebuild(reals(100, 10));
            List<Endpoint> eps = reals(100, 13);
            assertThat(t.rebuild(eps)).as("%s 10 -> 13", mode).isEqualTo(expected[mode.ordinal()][0]);
            eps.set(0, new Endpoint(0, 26, 0));
            assertThat(t.rebuild(eps)).as("%s real 0 -> 26", mode).isEqualTo(expected[mode.ordinal()][1]);
        }
    }

    @Test
    void katranAddSecondRealMovesHalf() {
        MaglevTable t = new MaglevTable();
        assertThat(t.rebuild(List.of(new Endpoint(0, 1, 0)))).isEqualTo(M);
        assertThat(ring(t)).containsOnly(0);
        assertThat(t.rebuild(List.of(new Endpoint(0, 1, 0), new Endpoint(1, 1, 1)))).isEqualTo(32768);
        assertThat(t.rebuild(List.of(new Endpoint(0, 1, 0)))).isEqualTo(32768);
        assertThat(t.rebuild(List.of(new Endpoint(0, 1, 0)))).isZero();
    }

    @Test
    void katranV1HeavyWeightsFillInFirstRound() {
        int w = M * 2 / 400; // 327
        MaglevTable t = new MaglevTable(M, WeightMode.V1);
        t.rebuild(reals(400, w));
        int[] c = counts(t, 400);
        for (int i = 0; i < 200; i++) {
            assertThat(c[i]).as("real %d", i).isEqualTo(w);
        }
        assertThat(c[200]).isEqualTo(M - 200 * w); // 137, the partial share
        for (int i = 201; i < 400; i++) {
            assertThat(c[i]).as("real %d", i).isZero();
        }
    }

    // ---- edge cases and Katran's ring rules ----

    @Test
    void noEndpointsEmptiesTheRingOneEndpointFillsIt() {
        for (WeightMode mode : WeightMode.values()) {
            MaglevTable t = new MaglevTable(7, mode);
            assertThat(ring(t)).containsOnly(MaglevTable.EMPTY);
            t.rebuild(List.of(new Endpoint(5, 1, 42)));
            assertThat(ring(t)).containsOnly(5);
            assertThat(t.rebuild(List.of())).isEqualTo(7);
            assertThat(ring(t)).containsOnly(MaglevTable.EMPTY);
            assertThat(t.lookup(12345)).isEqualTo(MaglevTable.EMPTY);
            // weight 0 is left out: one live endpoint fills the ring, all-zero empties it
            t.rebuild(List.of(new Endpoint(3, 0, 1), new Endpoint(4, 7, 2)));
            assertThat(ring(t)).containsOnly(4);
            t.rebuild(List.of(new Endpoint(3, 0, 1), new Endpoint(4, 0, 2)));
            assertThat(ring(t)).containsOnly(MaglevTable.EMPTY);
        }
    }

    @Test
    void turnOrderIsByUnsignedHashNotInputOrder() {
        List<Endpoint> eps = new ArrayList<>(reals(50, 1));
        eps.add(new Endpoint(50, 1, -1L)); // 2^64 - 1: last when unsigned
        eps.add(new Endpoint(51, 1, Long.MIN_VALUE));
        MaglevTable a = new MaglevTable(M, WeightMode.V1);
        a.rebuild(eps);
        Collections.shuffle(eps, new Random(1));
        MaglevTable b = new MaglevTable(M, WeightMode.V1);
        b.rebuild(eps);
        assertThat(ring(b)).isEqualTo(ring(a));
        // V1 shares depend on turn order, which pins the comparison as unsigned: hash 2^64-1 goes after hash 1.
        // Unsigned: id1 1 pick, id0 3 picks; id1, id0; id1 -> id0 4, id1 3. (Signed order would give id0 5, id1 2.)
        MaglevTable v1 = new MaglevTable(7, WeightMode.V1);
        v1.rebuild(List.of(new Endpoint(0, 3, -1L), new Endpoint(1, 1, 1)));
        int[] c = counts(v1, 2);
        assertThat(c[0]).isEqualTo(4);
        assertThat(c[1]).isEqualTo(3);
    }

    @Test
    void lookupIsRingAtUnsignedRemainder() {
        MaglevTable t = new MaglevTable();
        t.rebuild(reals(10, 1));
        for (long h : new long[] {0, 1, M, M + 3, -1L, Long.MIN_VALUE, 0x9e3779b97f4a7c15L}) {
            assertThat(t.lookup(h)).isEqualTo(t.slot((int) Long.remainderUnsigned(h, M)));
        }
    }

    @Test
    void permutationParametersInRange() {
        for (int size : new int[] {2, 7, 65537, 655373}) {
            for (long h : new long[] {0, 1, 42, 1234567, -1L}) {
                assertThat(MaglevTable.offset(h, size)).isBetween(0L, size - 1L);
                assertThat(MaglevTable.skip(h, size)).isBetween(1L, size - 1L);
            }
        }
    }

    @Test
    void lookupAllocatesNothing() {
        MaglevTable t = new MaglevTable();
        t.rebuild(reals(100, 1));
        long sink = 0;
        for (int r = 0; r < 20; r++) {
            for (long h = 0; h < 100_000; h++) {
                sink += t.lookup(h * 0x9e3779b97f4a7c15L);
            }
        }
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long best = Long.MAX_VALUE;
        for (int r = 0; r < 5 && best > 0; r++) {
            long before = mx.getThreadAllocatedBytes(Thread.currentThread().threadId());
            for (long h = 0; h < 1_000_000; h++) {
                sink += t.lookup(h * 0x9e3779b97f4a7c15L);
            }
            best = Math.min(best, mx.getThreadAllocatedBytes(Thread.currentThread().threadId()) - before);
        }
        assertThat(best).as("bytes for 1M lookups").isLessThan(1024);
        assertThat(sink).isNotZero();
    }

    // ---- disruption (paper §3.4 property; docs/load-balancing.md §1 simulated figures for N = 1000, M = 65537) ----

    @Test
    void removingBackendsMovesTheirSlotsAndFewOthers() {
        // docs/load-balancing.md sim (V1, N = 1000, random hashes, one seed): removing 1/10/100 changes 0.72/3.32/13.55
        // % of slots,
        // of which 0.62/2.32/3.55 % move between survivors. Our hashes are Katran's test ones (hash = i) and we get
        // 0.69/3.33/13.55 % (0.59/2.33/3.55 %); bound at 1.1x the sim figures. Note that at M < 100·N a removal
        // moves more slots between survivors than the removed backend held (the paper's M > 100·N advice).
        int n = 1000;
        int[] removed = {1, 10, 100};
        double[] maxChanged = {0.0072 * 1.1, 0.0332 * 1.1, 0.1355 * 1.1};
        double[] maxSurvivorMoves = {0.0062 * 1.1, 0.0232 * 1.1, 0.0355 * 1.1};
        MaglevTable t = new MaglevTable(M, WeightMode.V1);
        List<Endpoint> all = reals(n, 1);
        for (int k = 0; k < removed.length; k++) {
            t.rebuild(all);
            int[] before = ring(t);
            int r = removed[k];
            // remove every (n/r)-th backend
            List<Endpoint> left = new ArrayList<>();
            boolean[] gone = new boolean[n];
            for (Endpoint e : all) {
                if (e.id() % (n / r) == 7 % (n / r)) {
                    gone[e.id()] = true;
                } else {
                    left.add(e);
                }
            }
            assertThat(n - left.size()).isEqualTo(r);
            int changed = t.rebuild(left);
            int ofRemoved = 0, survivorMoves = 0;
            for (int i = 0; i < M; i++) {
                if (gone[before[i]]) {
                    ofRemoved++;
                    assertThat(gone[t.slot(i)]).isFalse();
                } else if (before[i] != t.slot(i)) {
                    survivorMoves++;
                }
            }
            assertThat(changed).isEqualTo(ofRemoved + survivorMoves).isGreaterThanOrEqualTo(ofRemoved);
            System.out.printf("maglev N=%d M=%d remove %d: changed %.2f%% (removed backends' %.2f%%, between survivors"
                            + " %.2f%%)%n", n, M, r, 100.0 * changed / M, 100.0 * ofRemoved / M,
                    100.0 * survivorMoves / M);
            assertThat((double) changed / M).as("changed fraction, remove %d", r).isLessThan(maxChanged[k]);
            assertThat((double) survivorMoves / M).as("survivor moves, remove %d", r)
                    .isLessThan(maxSurvivorMoves[k]);
            // most slots keep their backend: never more moved between survivors than the removed ones held x 10
            assertThat(survivorMoves).isLessThan(10 * ofRemoved);
        }
    }

    @Test
    void largePaperSizeUsesExactPermutationAndBalances() {
        MaglevTable t = new MaglevTable(655373, WeightMode.V1);
        t.rebuild(reals(1000, 1));
        int[] c = counts(t, 1000);
        assertThat(Arrays.stream(c).min().orElseThrow()).isEqualTo(655);
        assertThat(Arrays.stream(c).max().orElseThrow()).isEqualTo(656);
    }

    // ---- bad input ----

    @Test
    void badSizesAreRejectedClearly() {
        for (int bad : new int[] {-5, 0, 1, 4, 9, 100, 65536, 65535, MaglevTable.MAX_SIZE + 1, Integer.MAX_VALUE}) {
            assertThatThrownBy(() -> new MaglevTable(bad, WeightMode.V1))
                    .as("size %d", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Maglev table size must be")
                    .hasMessageContaining(Integer.toString(bad));
        }
        assertThatThrownBy(() -> new MaglevTable(65535, WeightMode.V1)).hasMessageContaining("3 × 21845");
        assertThat(new MaglevTable(2, WeightMode.V2).size()).isEqualTo(2);
        assertThat(new MaglevTable(MaglevTable.MAX_SIZE, WeightMode.V2).size()).isEqualTo(MaglevTable.MAX_SIZE);
        assertThatThrownBy(() -> new MaglevTable(7, null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void badEndpointsAreRejectedClearly() {
        assertThatThrownBy(() -> new Endpoint(1, -1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("weight must be >= 0, got -1");
        assertThatThrownBy(() -> new Endpoint(-1, 1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("id must be >= 0");
        MaglevTable t = new MaglevTable(7, WeightMode.V1);
        assertThatThrownBy(() -> t.rebuildFromPermutations(new int[] {0}, new int[] {-2}, new long[] {0},
                new long[] {1}))
                .hasMessageContaining("weight must be >= 0");
        assertThatThrownBy(() -> t.rebuildFromPermutations(new int[] {0}, new int[] {1}, new long[] {7},
                new long[] {1}))
                .hasMessageContaining("offset must be in [0, 7)");
        assertThatThrownBy(() -> t.rebuildFromPermutations(new int[] {0}, new int[] {1}, new long[] {0},
                new long[] {7}))
                .hasMessageContaining("skip must be in [1, 6]");
        assertThatThrownBy(() -> t.rebuildFromPermutations(new int[] {0}, new int[] {1, 1}, new long[] {0},
                new long[] {1}))
                .hasMessageContaining("same length");
        List<Endpoint> withNull = new ArrayList<>();
        withNull.add(null);
        assertThatThrownBy(() -> t.rebuild(withNull)).hasMessageContaining("null");
    }
}
