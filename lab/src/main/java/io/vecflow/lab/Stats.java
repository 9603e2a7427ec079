package io.vecflow.lab;

/**
 * Mean and 95 % confidence half-width across independent replications (one per seed), with Student's t
 * quantile for n − 1 degrees of freedom.
 *
 * @param mean sample mean
 * @param half 95 % confidence half-width (t_{0.975, n−1} · s / √n); 0 for a single replication
 * @param n replications
 */
public record Stats(double mean, double half, int n) {
    private static final double[] T975 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060,
        2.056, 2.052, 2.048, 2.045, 2.042};

    /**
     * @param values one value per replication (non-empty)
     * @throws IllegalArgumentException if empty
     */
    public static Stats of(double[] values) {
        int n = values.length;
        if (n == 0) {
            throw new IllegalArgumentException("no replications");
        }
        double m = 0;
        for (double v : values) {
            m += v;
        }
        m /= n;
        if (n == 1) {
            return new Stats(m, 0, 1);
        }
        double ss = 0;
        for (double v : values) {
            ss += (v - m) * (v - m);
        }
        double s = Math.sqrt(ss / (n - 1));
        double t = n - 1 <= T975.length ? T975[n - 2] : 1.96;
        return new Stats(m, t * s / Math.sqrt(n), n);
    }
}
