package io.vecflow.lab.fabric;

import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * An empirical flow-size distribution given as CDF points (bytes, P), sampled by inverting the piecewise-linear CDF
 * (the convention of the ns-3 load-balancing scripts' CDF files). Sizes below {@link #MIN_BYTES} are raised to it
 * (one small packet). docs/load-balancing.md §6 gives the two workloads.
 */
public final class FlowSizeCdf {
    /** Smallest flow, bytes. */
    public static final double MIN_BYTES = 100;

    /** Web search (DCTCP paper), docs/load-balancing.md §6. */
    public static final FlowSizeCdf WEB_SEARCH = new FlowSizeCdf("web-search",
            new double[] {0, 10e3, 20e3, 30e3, 50e3, 80e3, 200e3, 1e6, 2e6, 5e6, 10e6, 30e6},
            new double[] {0, .15, .2, .3, .4, .53, .6, .7, .8, .9, .97, 1});
    /** Data mining (VL2 paper), docs/load-balancing.md §6. */
    public static final FlowSizeCdf DATA_MINING = new FlowSizeCdf("data-mining",
            new double[] {0, 180, 216, 560, 900, 1100, 1870, 3160, 10e3, 400e3, 3.16e6, 100e6, 1e9},
            new double[] {0, .1, .2, .3, .4, .5, .6, .7, .8, .9, .95, .98, 1});

    private final String name;
    private final double[] bytes;
    private final double[] p;

    /**
     * @param name workload name
     * @param bytes sizes, non-decreasing, ≥ 0
     * @param p cumulative probabilities, non-decreasing from 0 to 1
     * @throws IllegalArgumentException naming the first bad point
     */
    public FlowSizeCdf(String name, double[] bytes, double[] p) {
        if (bytes.length != p.length || bytes.length < 2) {
            throw new IllegalArgumentException(name + ": need >= 2 points with sizes and probabilities");
        }
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] < 0 || (i > 0 && (bytes[i] < bytes[i - 1] || p[i] < p[i - 1])) || p[i] < 0 || p[i] > 1) {
                throw new IllegalArgumentException(name + ": CDF point " + i + " (" + bytes[i] + ", " + p[i]
                        + ") is not non-decreasing within [0, 1]");
            }
        }
        if (p[0] != 0 || p[p.length - 1] != 1) {
            throw new IllegalArgumentException(name + ": CDF must start at P = 0 and end at P = 1");
        }
        this.name = name;
        this.bytes = bytes.clone();
        this.p = p.clone();
    }

    /** @return the workload name */
    public String name() {
        return name;
    }

    /** @return one flow size, bytes */
    public double sample(RandomGenerator rng) {
        double u = rng.nextDouble();
        for (int i = 1; i < p.length; i++) {
            if (u <= p[i]) {
                double span = p[i] - p[i - 1];
                double x = span == 0 ? bytes[i] : bytes[i - 1] + (u - p[i - 1]) / span * (bytes[i] - bytes[i - 1]);
                return Math.max(MIN_BYTES, x);
            }
        }
        return bytes[bytes.length - 1];
    }

    /** @return the mean size, bytes (exact for the piecewise-linear CDF, ignoring the small-size floor) */
    public double mean() {
        double m = 0;
        for (int i = 1; i < p.length; i++) {
            m += (p[i] - p[i - 1]) * (bytes[i - 1] + bytes[i]) / 2;
        }
        return m;
    }

    /** @return {@code web-search} or {@code data-mining} by name */
    public static FlowSizeCdf byName(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "web-search", "websearch" -> WEB_SEARCH;
            case "data-mining", "datamining" -> DATA_MINING;
            default -> throw new IllegalArgumentException("workload '" + s + "': want web-search or data-mining");
        };
    }
}
