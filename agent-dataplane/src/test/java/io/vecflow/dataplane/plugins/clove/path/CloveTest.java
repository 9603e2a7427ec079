package io.vecflow.dataplane.plugins.clove.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** CLOVE weights, selectors and flowlets (docs/load-balancing.md §4). */
class CloveTest {
    static final long US = 1_000;

    static PathWeights four() {
        return new PathWeights(new int[] {49152, 49153, 49154, 49155}, PathWeights.DEFAULT_WINDOW_NANOS,
                new SplitMix64(42));
    }

    @Test
    void ecnCutArithmetic() {
        PathWeights w = four();
        for (int p = 0; p < 4; p++) {
            assertThat(w.weight(p)).isEqualTo(1.0);
        }
        assertThat(w.onEcn(1, 1000 * US)).isTrue();
        assertThat(w.weight(1)).isCloseTo(0.67, within(1e-15));
        for (int p : new int[] {0, 2, 3}) {
            assertThat(w.weight(p)).isCloseTo(1.11, within(1e-15)); // 1 + 0.33/3
        }
        // inside the 40 µs window of path 1: ignored; path 2 has its own window
        assertThat(w.onEcn(1, 1039 * US)).isFalse();
        assertThat(w.weight(1)).isCloseTo(0.67, within(1e-15));
        assertThat(w.onEcn(2, 1010 * US)).isTrue(); // w2: 1.11 → 0.7437; others += 0.3663/3 = 0.1221
        assertThat(w.weight(2)).isCloseTo(0.67 * 1.11, within(1e-12));
        assertThat(w.weight(1)).isCloseTo(0.67 + 0.1221, within(1e-12));
        assertThat(w.weight(0)).isCloseTo(1.11 + 0.1221, within(1e-12));
        // exactly one window after the last cut: applied (now − last ≥ window)
        assertThat(w.onEcn(1, 1040 * US)).isTrue();
        double w1 = 0.67 + 0.1221;
        assertThat(w.weight(1)).isCloseTo(0.67 * w1, within(1e-12));
        assertThat(w.weight(3)).isCloseTo(1.11 + 0.1221 + 0.33 * w1 / 3, within(1e-12));
        double sum = 0;
        for (int p = 0; p < 4; p++) {
            sum += w.weight(p);
        }
        assertThat(sum).as("cuts move weight, never create it").isCloseTo(4.0, within(1e-12));
        assertThat(w.cuts()).isEqualTo(3);
        assertThat(w.ignoredMarks()).isEqualTo(1);
    }

    @Test
    void singlePathAndPortsAndValidation() {
        PathWeights one = new PathWeights(new int[] {5000}, 0, new SplitMix64(1));
        assertThat(one.onEcn(0, 0)).isFalse();
        assertThat(one.weight(0)).isEqualTo(1.0);
        assertThat(one.select()).isZero();
        PathWeights w = four();
        assertThat(w.pathOfPort(49154)).isEqualTo(2);
        assertThat(w.port(3)).isEqualTo(49155);
        assertThat(w.onEcnForPort(49154, 0)).isTrue();
        assertThat(w.onEcnForPort(1234, 0)).isFalse();
        assertThat(w.weight(2)).isCloseTo(0.67, within(1e-15));
        assertThatThrownBy(() -> w.onEcn(4, 0)).hasMessageContaining("[0, 4)");
        assertThatThrownBy(() -> new PathWeights(new int[] {1, 1}, 0, new SplitMix64(1)))
                .hasMessageContaining("given for paths 0 and 1")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PathWeights(new int[] {70000}, 0, new SplitMix64(1)))
                .hasMessageContaining("65535");
        assertThatThrownBy(() -> new PathWeights(new int[0], 0, new SplitMix64(1))).hasMessageContaining("[1, 256]");
    }

    @Test
    void weightedChoiceFrequencies() {
        PathWeights w = four();
        w.onEcn(0, 0);
        w.onEcn(0, 100 * US);
        w.onEcn(3, 200 * US);
        double total = 0;
        for (int p = 0; p < 4; p++) {
            total += w.weight(p);
        }
        int n = 200_000;
        int[] hits = new int[4];
        for (int i = 0; i < n; i++) {
            hits[w.select()]++;
        }
        for (int p = 0; p < 4; p++) {
            double expected = w.weight(p) / total; // ≈ 0.145, 0.328, 0.328, 0.198
            // σ ≤ sqrt(.25/200k) ≈ 0.0011: 0.006 is > 5σ
            assertThat((double) hits[p] / n).as("path %d share", p).isCloseTo(expected, within(0.006));
        }
        double w3BeforeCut = 1 + 0.33 / 3 + 0.33 * 0.67 / 3; // 1.1837
        assertThat(w.weight(0)).isCloseTo(0.67 * 0.67 + 0.33 * w3BeforeCut / 3, within(1e-12));
        assertThat(w.weight(3)).isCloseTo(0.67 * w3BeforeCut, within(1e-12));
        assertThat(total).isCloseTo(4.0, within(1e-12));
    }

    @Test
    void edgeFlowletIsUniformAndSeeded() {
        EdgeFlowlet e = new EdgeFlowlet(4, new SplitMix64(7));
        int[] hits = new int[4];
        for (int i = 0; i < 100_000; i++) {
            hits[e.select()]++;
        }
        for (int h : hits) {
            assertThat(h / 100_000.0).isCloseTo(0.25, within(0.01));
        }
        EdgeFlowlet a = new EdgeFlowlet(8, new SplitMix64(99)), b = new EdgeFlowlet(8, new SplitMix64(99));
        for (int i = 0; i < 1000; i++) {
            assertThat(a.select()).isEqualTo(b.select());
        }
        // SplitMix64 reference value: the first output for seed 0 (Steele et al.; as SplittableRandom's mix64)
        assertThat(new SplitMix64(0).nextLong()).isEqualTo(0xE220A8397B1DCDAFL);
    }

    @Test
    void cloveIntPicksTheLeastUtilisedPathAndSplitsTies() {
        LeastUtilisedPath s = new LeastUtilisedPath(3, new SplitMix64(3), 1_000 * US);
        int[] hits = new int[3];
        for (int i = 0; i < 30_000; i++) {
            hits[s.select()]++;
        }
        for (int h : hits) {
            assertThat(h / 30_000.0).as("no feedback: ties split evenly").isCloseTo(1 / 3.0, within(0.015));
        }
        s.onUtilisation(0, 0.9, 0);
        s.onUtilisation(1, 0.2, 0);
        s.onUtilisation(2, 0.5, 0);
        for (int i = 0; i < 100; i++) {
            assertThat(s.select()).isEqualTo(1);
        }
        s.now(1_001 * US); // all feedback stale: every path reads 0 again
        assertThat(s.utilisation(0)).isZero();
        s.onUtilisation(1, 0.95, 1_001 * US);
        int[] h2 = new int[3];
        for (int i = 0; i < 10_000; i++) {
            h2[s.select()]++;
        }
        assertThat(h2[1]).isZero();
        assertThat(h2[0]).isBetween(4_500, 5_500);
        assertThatThrownBy(() -> s.onUtilisation(3, 0.1, 0)).hasMessageContaining("[0, 3)");
        assertThatThrownBy(() -> s.onUtilisation(0, Double.NaN, 0)).hasMessageContaining("utilisation");
    }

    @Test
    void flowletsSplitOnGapsLongerThanTheTimeout() {
        FlowletTable t = new FlowletTable(1024, FlowletTable.DEFAULT_TIMEOUT_NANOS);
        int[] next = {0};
        PathSelector roundRobin = new PathSelector() {
            @Override
            public int select() {
                return next[0]++ % 4;
            }

            @Override
            public int paths() {
                return 4;
            }
        };
        long flow = 0x1234_5678_9ABC_DEF0L;
        assertThat(t.path(flow, 0, roundRobin)).isZero();
        assertThat(t.lastWasNew()).isTrue();
        assertThat(t.lastFlowletId()).isEqualTo(1);
        assertThat(t.path(flow, 400 * US, roundRobin)).isZero();
        assertThat(t.path(flow, 900 * US, roundRobin)).as("gap of exactly 500 µs continues").isZero();
        assertThat(t.lastWasNew()).isFalse();
        assertThat(t.path(flow, 1401 * US, roundRobin)).as("gap of 501 µs starts a flowlet").isEqualTo(1);
        assertThat(t.lastWasNew()).isTrue();
        assertThat(t.lastFlowletId()).isEqualTo(2);
        // another flow is independent
        assertThat(t.path(flow + 1, 1402 * US, roundRobin)).isEqualTo(2);
        assertThat(t.lastFlowletId()).isEqualTo(3);
        assertThat(t.path(flow, 1500 * US, roundRobin)).isEqualTo(1);
        assertThat(t.newFlowlets()).isEqualTo(3);
        assertThat(t.evictions()).isZero();
        // a configurable gap: 50 µs
        FlowletTable fast = new FlowletTable(1, 50 * US);
        fast.path(flow, 0, roundRobin);
        fast.path(flow, 51 * US, roundRobin);
        assertThat(fast.newFlowlets()).isEqualTo(2);
        fast.path(flow + 1, 52 * US, roundRobin); // one slot: the other flow evicts
        assertThat(fast.evictions()).isEqualTo(1);
        assertThatThrownBy(() -> new FlowletTable(1000, 1)).hasMessageContaining("power of two");
        assertThatThrownBy(() -> new FlowletTable(8, 0)).hasMessageContaining("> 0");
    }

    @Test
    void perPacketPathsAllocateNothing() {
        FlowletTable t = new FlowletTable(1 << 16, 50 * US);
        PathWeights w = four();
        EdgeFlowlet e = new EdgeFlowlet(4, new SplitMix64(5));
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (int round = 0; round < 2; round++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 1_000_000; i++) {
                long now = i * 10 * US;
                sum += t.path(i * 0x9E3779B97F4A7C15L & 0xFFFF_FFFFL, now, (i & 1) == 0 ? w : e);
                if ((i & 63) == 0) {
                    w.onEcn(i & 3, now);
                }
            }
            if (round == 1) {
                assertThat(mx.getCurrentThreadAllocatedBytes() - before).as("bytes for 1M packets")
                        .isLessThan(1024);
            }
        }
        assertThat(sum).isPositive();
    }
}
