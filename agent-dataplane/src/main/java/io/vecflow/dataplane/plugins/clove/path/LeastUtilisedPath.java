package io.vecflow.dataplane.plugins.clove.path;

/**
 * CLOVE-INT: switches stamp per-hop utilisation (in-band network telemetry), the destination reflects the path's
 * maximum back per outer source port, and the source sends each new flowlet on the least-utilised path
 * (docs/load-balancing.md §4 "CLOVE-INT"; Katta et al., CoNEXT 2017). Ties (including the initial all-unknown state)
 * are broken uniformly at random so that equal paths share flowlets. Feedback older than {@code maxAgeNanos} counts as
 * unknown (utilisation 0) so a path that stopped carrying traffic — and so stopped being measured — is tried again.
 */
public final class LeastUtilisedPath implements PathSelector {
    private final int k;
    private final SplitMix64 rng;
    private final long maxAgeNanos;
    private final double[] utilisation;
    private final long[] reportedAt;
    private long nowNanos;
    private long reports;

    /**
     * @param k           number of paths (≥ 1)
     * @param rng         tie-breaking random source
     * @param maxAgeNanos feedback lifetime in ns (&gt; 0)
     */
    public LeastUtilisedPath(int k, SplitMix64 rng, long maxAgeNanos) {
        if (k < 1 || k > PathWeights.MAX_PATHS) {
            throw new IllegalArgumentException("paths must be in [1, " + PathWeights.MAX_PATHS + "], got " + k);
        }
        if (maxAgeNanos <= 0) {
            throw new IllegalArgumentException("INT feedback lifetime must be > 0 ns, got " + maxAgeNanos);
        }
        this.k = k;
        this.rng = rng;
        this.maxAgeNanos = maxAgeNanos;
        this.utilisation = new double[k];
        this.reportedAt = new long[k];
        java.util.Arrays.fill(reportedAt, Long.MIN_VALUE);
    }

    /**
     * Feedback from the destination for one path.
     *
     * @param path        0..k−1
     * @param utilisation the path's bottleneck utilisation (fraction of link capacity, ≥ 0)
     * @param nowNanos    arrival time, ns
     * @throws IllegalArgumentException if the path is out of range or the utilisation is negative/NaN
     */
    public void onUtilisation(int path, double utilisation, long nowNanos) {
        if (path < 0 || path >= k) {
            throw new IllegalArgumentException("path must be in [0, " + k + "), got " + path);
        }
        if (!(utilisation >= 0)) {
            throw new IllegalArgumentException("utilisation must be >= 0, got " + utilisation + " for path " + path);
        }
        this.utilisation[path] = utilisation;
        this.reportedAt[path] = nowNanos;
        this.nowNanos = nowNanos;
        reports++;
    }

    /** Sets the time used to age feedback at the next {@link #select()} (ns). */
    public void now(long nowNanos) {
        this.nowNanos = nowNanos;
    }

    /** @return the utilisation used for {@code path} now: the last report, or 0 if none or older than the lifetime */
    public double utilisation(int path) {
        long at = reportedAt[path];
        return at == Long.MIN_VALUE || nowNanos - at > maxAgeNanos ? 0 : utilisation[path];
    }

    @Override
    public int select() {
        double best = Double.POSITIVE_INFINITY;
        int ties = 0, chosen = 0;
        for (int p = 0; p < k; p++) {
            double u = utilisation(p);
            if (u < best) {
                best = u;
                ties = 1;
                chosen = p;
            } else if (u == best && rng.nextInt(++ties) == 0) { // reservoir sampling over equal minima
                chosen = p;
            }
        }
        return chosen;
    }

    @Override
    public int paths() {
        return k;
    }

    /** @return feedback reports received */
    public long reports() {
        return reports;
    }
}
