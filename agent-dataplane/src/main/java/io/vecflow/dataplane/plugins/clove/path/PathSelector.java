package io.vecflow.dataplane.plugins.clove.path;

/**
 * Chooses the path (index 0..k−1 into a destination's outer UDP source ports) for a new flowlet. Implementations:
 * {@link PathWeights} (CLOVE-ECN, weighted random), {@link EdgeFlowlet} (uniform random), {@link LeastUtilisedPath}
 * (CLOVE-INT). Allocation-free; not thread-safe (one per destination per worker, or per simulation).
 */
public interface PathSelector {
    /** @return the path for a new flowlet, in [0, {@link #paths()}) */
    int select();

    /** @return k, the number of paths */
    int paths();
}
