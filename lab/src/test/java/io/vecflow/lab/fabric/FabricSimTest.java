package io.vecflow.lab.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.vecflow.lab.fabric.FabricSim.Scheme;
import org.junit.jupiter.api.Test;

/** The CLOVE fabric model: transfer times, the workloads' means, and the ranking docs/load-balancing.md §6 expects. */
class FabricSimTest {
    /** 1 MB flows only. */
    private static final FlowSizeCdf ONE_MB = new FlowSizeCdf("1MB", new double[] {1e6, 1e6}, new double[] {0, 1});

    @Test
    void aLoneFlowTakesSizeOverLineRatePlusOneRtt() {
        // load 0.002: ~16 flows/s, so flows almost never overlap; 1 MB at 10 Gbit/s = 0.8 ms, plus RTT 8 × 10 µs
        FabricSim.Result r = FabricSim.run(FabricSim.Config.of(4, 1.0, ONE_MB, 0.002, 0, 2.0), Scheme.ECMP, 1);
        assertThat(r.flows()).isGreaterThan(10);
        assertThat(r.unfinished()).isZero();
        assertThat(r.meanFct()).isCloseTo(0.88, within(0.02));
        assertThat(r.flowletsPerFlow()).isEqualTo(1.0);
    }

    @Test
    void workloadMeansFollowTheirCdfs() {
        assertThat(FlowSizeCdf.WEB_SEARCH.mean()).isCloseTo(1.71e6, within(0.01e6));
        assertThat(FlowSizeCdf.DATA_MINING.mean()).isCloseTo(12.66e6, within(0.01e6));
        var rng = java.util.random.RandomGeneratorFactory.of("L64X128MixRandom").create(3);
        double sum = 0;
        int n = 400_000;
        for (int i = 0; i < n; i++) {
            sum += FlowSizeCdf.WEB_SEARCH.sample(rng);
        }
        assertThat(sum / n).isCloseTo(FlowSizeCdf.WEB_SEARCH.mean(), within(0.03 * FlowSizeCdf.WEB_SEARCH.mean()));
    }

    @Test
    void schemesRankAsExpectedOnTheAsymmetricFabric() {
        // docs/load-balancing.md §6: the oracle best, flowlet schemes well ahead of ECMP once a link is degraded
        FabricSim.Config cfg = FabricSim.Config.of(4, 0.2, FlowSizeCdf.WEB_SEARCH, 0.5, 0.02, 0.2);
        double ecmp = 0, edge = 0, clove = 0, oracle = 0;
        for (long seed = 21; seed <= 22; seed++) {
            ecmp += FabricSim.run(cfg, Scheme.ECMP, seed).meanFct();
            edge += FabricSim.run(cfg, Scheme.EDGE_FLOWLET, seed).meanFct();
            clove += FabricSim.run(cfg, Scheme.CLOVE_ECN, seed).meanFct();
            oracle += FabricSim.run(cfg, Scheme.ORACLE, seed).meanFct();
        }
        assertThat(oracle).isLessThan(clove);
        assertThat(clove).isLessThan(0.5 * ecmp);
        assertThat(edge).isLessThan(0.5 * ecmp);
    }
}
