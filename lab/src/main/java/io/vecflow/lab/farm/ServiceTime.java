package io.vecflow.lab.farm;

import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * Service-time distributions for the server-farm simulation, all with mean 1 (the time unit of the simulation is
 * the mean service time, as in docs/load-balancing.md §5). Shapes from docs/load-balancing.md §6 "SRLB vs Maglev":
 * exponential, lognormal with a coefficient of variation (CV) of 2–4, bounded Pareto with α = 1.1–1.5.
 */
public sealed interface ServiceTime {
    /** @return one service requirement (work, in mean service times; > 0) */
    double sample(RandomGenerator rng);

    /** @return the short name used in CSV/JSON/ClickHouse rows, e.g. {@code exp}, {@code lognormal-cv3} */
    String name();

    /** Exponential with mean 1 (CV 1): the M/M/1 case of docs/load-balancing.md §5. */
    record Exponential() implements ServiceTime {
        @Override
        public double sample(RandomGenerator rng) {
            return -Math.log(1.0 - rng.nextDouble());
        }

        @Override
        public String name() {
            return "exp";
        }
    }

    /**
     * Lognormal with mean 1 and coefficient of variation {@code cv}: σ² = ln(1 + cv²), μ = −σ²/2.
     *
     * @param cv coefficient of variation (standard deviation / mean), in (0, 100]
     */
    record Lognormal(double cv) implements ServiceTime {
        public Lognormal {
            if (!(cv > 0 && cv <= 100)) {
                throw new IllegalArgumentException("lognormal cv must be in (0, 100], got " + cv);
            }
        }

        @Override
        public double sample(RandomGenerator rng) {
            double s2 = Math.log(1 + cv * cv);
            return Math.exp(-s2 / 2 + Math.sqrt(s2) * rng.nextGaussian());
        }

        @Override
        public String name() {
            return String.format(Locale.ROOT, "lognormal-cv%s", trim(cv));
        }
    }

    /**
     * Bounded Pareto with shape α on [L, H], H = ratio·L, L chosen so that the mean is 1. Sampled by inversion:
     * x = L·(1 − u·(1 − (L/H)^α))^(−1/α).
     *
     * @param alpha shape α in (0, 10], α ≠ 1
     * @param ratio H/L, in (1, 1e9]
     */
    record BoundedPareto(double alpha, double ratio) implements ServiceTime {
        public BoundedPareto {
            if (!(alpha > 0 && alpha <= 10) || alpha == 1) {
                throw new IllegalArgumentException("bounded-Pareto alpha must be in (0, 10] and not 1, got " + alpha);
            }
            if (!(ratio > 1 && ratio <= 1e9)) {
                throw new IllegalArgumentException("bounded-Pareto H/L ratio must be in (1, 1e9], got " + ratio);
            }
        }

        /** @return the lower bound L that makes the mean 1 */
        public double lower() {
            // mean of BP(α, L, H) = L·α/(α−1)·(1 − r^(1−α))/(1 − r^(−α)), r = H/L
            double m = alpha / (alpha - 1) * (1 - Math.pow(ratio, 1 - alpha)) / (1 - Math.pow(ratio, -alpha));
            return 1 / m;
        }

        @Override
        public double sample(RandomGenerator rng) {
            double l = lower();
            double u = rng.nextDouble();
            return l * Math.pow(1 - u * (1 - Math.pow(ratio, -alpha)), -1 / alpha);
        }

        @Override
        public String name() {
            return String.format(Locale.ROOT, "pareto-a%s", trim(alpha));
        }
    }

    /**
     * Parses {@code exp}, {@code lognormal:CV} (e.g. {@code lognormal:3}) or {@code pareto:ALPHA} (H/L = 10⁴).
     *
     * @throws IllegalArgumentException naming the text when it is none of these
     */
    static ServiceTime parse(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.equals("exp") || t.equals("exponential")) {
                return new Exponential();
            }
            if (t.startsWith("lognormal:")) {
                return new Lognormal(Double.parseDouble(t.substring(10)));
            }
            if (t.startsWith("pareto:")) {
                return new BoundedPareto(Double.parseDouble(t.substring(7)), 1e4);
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("service time '" + s + "': bad number (" + e.getMessage() + ")");
        }
        throw new IllegalArgumentException("service time '" + s + "': want exp, lognormal:CV or pareto:ALPHA");
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
