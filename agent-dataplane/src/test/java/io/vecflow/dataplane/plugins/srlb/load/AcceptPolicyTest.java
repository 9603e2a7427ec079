package io.vecflow.dataplane.plugins.srlb.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Accept policies (docs/load-balancing.md §3 "Acceptance policies"; Oryon/vpp-dev srlb-sa.c, srlb-sa-apache.c). */
class AcceptPolicyTest {
    @Test
    void staticThresholdIsStrictAndTheLastAlwaysAccepts() {
        StaticThreshold p = new StaticThreshold(4);
        assertThat(p.accept(3, 1)).isTrue();
        assertThat(p.accept(4, 1)).as("busy == c refuses: strict, as the code").isFalse();
        assertThat(p.accept(5, 1)).isFalse();
        assertThat(p.accept(1000, 0)).as("last candidate").isTrue();
        assertThat(p.accept(Double.NaN, 1)).as("unknown load refuses unless last").isFalse();
        assertThat(p.accept(Double.NaN, 0)).isTrue();
        assertThat(p.name()).isEqualTo("static-threshold c=4");
        assertThat(new StaticThreshold(0.75).name()).isEqualTo("static-threshold c=0.75");
        assertThatThrownBy(() -> new StaticThreshold(Double.NaN)).hasMessageContaining("finite");
    }

    @Test
    void fixedPolicies() {
        for (int rem : new int[] {0, 1, 3}) {
            assertThat(AcceptPolicy.ALWAYS_ACCEPT.accept(99, rem)).isTrue();
            assertThat(AcceptPolicy.ALWAYS_REJECT.accept(0, rem)).as("even the last").isFalse();
            assertThat(AcceptPolicy.ONLY_LAST.accept(0, rem)).isEqualTo(rem == 0);
        }
        assertThat(List.of(AcceptPolicy.ALWAYS_ACCEPT.name(), AcceptPolicy.ALWAYS_REJECT.name(),
                AcceptPolicy.ONLY_LAST.name())).containsExactly("always-accept", "always-reject", "only-last");
    }

    /** Loads 0..9 in turn: acceptance at threshold c is exactly c/10, so the controller's walk is exact. */
    @Test
    void dynamicThresholdWalksIntoTheBand() {
        DynamicThreshold up = new DynamicThreshold(); // c = 2 → ratio .2 → 3 (.3) → 4 (.4, in band)
        List<Integer> cs = new ArrayList<>();
        for (int w = 0; w < 6; w++) {
            for (int i = 0; i < 100; i++) {
                up.accept(i % 10, 1);
            }
            cs.add(up.threshold());
        }
        assertThat(cs).containsExactly(3, 4, 4, 4, 4, 4);
        assertThat(up.raises()).isEqualTo(2);
        assertThat(up.lowers()).isZero();

        DynamicThreshold down = new DynamicThreshold(8, 1, 16, 100, 0.4, 0.6); // .8 → 7 (.7) → 6 (.6, in band)
        cs.clear();
        for (int w = 0; w < 4; w++) {
            for (int i = 0; i < 100; i++) {
                down.accept(i % 10, 1);
            }
            cs.add(down.threshold());
        }
        assertThat(cs).containsExactly(7, 6, 6, 6);
        assertThat(down.lowers()).isEqualTo(2);
    }

    @Test
    void dynamicThresholdDecidesWithTheCurrentCAndIgnoresTheLast() {
        DynamicThreshold p = new DynamicThreshold(2, 1, 3, 10, 0.4, 0.6);
        assertThat(p.accept(1, 1)).isTrue();
        assertThat(p.accept(2, 1)).isFalse();
        for (int i = 0; i < 1000; i++) {
            assertThat(p.accept(1e9, 0)).as("last candidate always accepts").isTrue();
        }
        assertThat(p.threshold()).as("last-candidate offers are not counted").isEqualTo(2);
        // constant load 5 with c capped at 3: ratio 0 each window, c climbs to cMax and stays
        for (int i = 0; i < 100; i++) {
            p.accept(5, 1);
        }
        assertThat(p.threshold()).isEqualTo(3);
        assertThat(p.raises()).isEqualTo(1);
    }

    @Test
    void dynamicThresholdValidatesParameters() {
        assertThatThrownBy(() -> new DynamicThreshold(2, 0, 4, 10, .4, .6)).hasMessageContaining("cMin");
        assertThatThrownBy(() -> new DynamicThreshold(5, 1, 4, 10, .4, .6)).hasMessageContaining("initial c");
        assertThatThrownBy(() -> new DynamicThreshold(2, 1, 4, 0, .4, .6)).hasMessageContaining("window");
        assertThatThrownBy(() -> new DynamicThreshold(2, 1, 4, 10, .6, .4)).hasMessageContaining("high");
    }
}
