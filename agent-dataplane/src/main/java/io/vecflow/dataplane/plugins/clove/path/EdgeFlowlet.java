package io.vecflow.dataplane.plugins.clove.path;

/**
 * Edge-Flowlet: each new flowlet takes a uniformly random path, with no feedback (docs/load-balancing.md §4; the ns-3
 * model's {@code CalPath} in {@code CLOVE_RUNMODE_EDGE_FLOWLET}: {@code paths[rand() % k]}).
 */
public final class EdgeFlowlet implements PathSelector {
    private final int k;
    private final SplitMix64 rng;

    /**
     * @param k   number of paths (≥ 1)
     * @param rng the random source (seeded by the caller)
     */
    public EdgeFlowlet(int k, SplitMix64 rng) {
        if (k < 1 || k > PathWeights.MAX_PATHS) {
            throw new IllegalArgumentException("paths must be in [1, " + PathWeights.MAX_PATHS + "], got " + k);
        }
        this.k = k;
        this.rng = rng;
    }

    @Override
    public int select() {
        return rng.nextInt(k);
    }

    @Override
    public int paths() {
        return k;
    }
}
