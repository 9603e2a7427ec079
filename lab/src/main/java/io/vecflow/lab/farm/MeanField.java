package io.vecflow.lab.farm;

/**
 * The analytical anchors of docs/load-balancing.md §5: mean response time (in mean service times) for N → ∞ PS servers
 * with μ = 1 at per-server load ρ.
 * <ul>
 *   <li>Random (Maglev): T = 1/(1 − ρ) (M/M/1-PS; also M/G/1-PS, PS being insensitive).</li>
 *   <li>JSQ(2) (Mitzenmacher's supermarket model): x_k = ρ^(2^k − 1), T = Σ_{k≥1} x_k / ρ.</li>
 *   <li>SR_c with 2 candidates drawn uniformly: with x_k the fraction of servers with ≥ k jobs, x_0 = 1,
 *       x_k = ρ·[(x_{k−1} − x_c) + x_c·x_{k−1}] for k ≤ c and x_k = ρ·x_c·x_{k−1} beyond; T = Σ x_k / ρ (Little).
 *       The fixed point in x_c is found by bisection.</li>
 * </ul>
 */
public final class MeanField {
    private MeanField() {}

    /** @return 1/(1 − ρ) */
    public static double random(double rho) {
        check(rho);
        return 1 / (1 - rho);
    }

    /** @return Σ_{k≥1} ρ^(2^k − 1) / ρ, summed until terms fall below 1e-15 */
    public static double jsq2(double rho) {
        check(rho);
        double sum = 0;
        for (int k = 1; k < 64; k++) {
            double x = Math.pow(rho, Math.pow(2, k) - 1);
            sum += x;
            if (x < 1e-15) {
                break;
            }
        }
        return sum / rho;
    }

    /**
     * @param rho load in (0, 1)
     * @param c static threshold ≥ 1
     * @return SR_c's mean response time
     */
    public static double srlb(double rho, int c) {
        check(rho);
        if (c < 1 || c > 1000) {
            throw new IllegalArgumentException("threshold c must be in [1, 1000], got " + c);
        }
        double lo = 0, hi = rho;
        for (int it = 0; it < 200; it++) {
            double xc = (lo + hi) / 2;
            if (levels(rho, c, xc)[c] > xc) {
                lo = xc;
            } else {
                hi = xc;
            }
        }
        double xc = (lo + hi) / 2;
        double[] x = levels(rho, c, xc);
        double sum = 0;
        for (int k = 1; k <= c; k++) {
            sum += x[k];
        }
        double r = rho * xc; // geometric tail ratio beyond c
        sum += x[c] * r / (1 - r);
        return sum / rho;
    }

    private static double[] levels(double rho, int c, double xc) {
        double[] x = new double[c + 1];
        x[0] = 1;
        for (int k = 1; k <= c; k++) {
            x[k] = rho * ((x[k - 1] - xc) + xc * x[k - 1]);
        }
        return x;
    }

    private static void check(double rho) {
        if (!(rho > 0 && rho < 1)) {
            throw new IllegalArgumentException("load rho must be in (0, 1), got " + rho);
        }
    }
}
