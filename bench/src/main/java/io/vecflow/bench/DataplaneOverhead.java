package io.vecflow.bench;

import java.util.Arrays;
import java.util.Locale;

/**
 * Sampling overhead measured so that machine noise cancels: the {@link DataplaneBenchmark} set-ups for every mode live
 * in one JVM and run in short alternating slices (one slice = {@code vectors} dispatch rounds of 256 packets, ~5 ms),
 * the order rotated each round; each round gives every mode's packets/s and, per mode, the ratio to the
 * sampling-off mode of its own family measured in the same round (adjacent in time, so a load change hits both).
 * Reports the median packets/s and the median and 10th–90th percentile of the paired ratios.
 *
 * <p>Run: {@code java -cp bench/target/benchmarks.jar io.vecflow.bench.DataplaneOverhead [rounds] [vectors]}.
 */
public final class DataplaneOverhead {
    private DataplaneOverhead() {}

    /**
     * @param args rounds (default 300), vectors per slice (default 80)
     * @throws Exception if a set-up fails
     */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        int vectors = args.length > 1 ? Integer.parseInt(args[1]) : 80;
        String[] modes = {"l2-off", "l2-10000", "l2-1000", "l2-100", "ip4-1k-off", "ip4-1k-1000"};
        DataplaneBenchmark[] b = new DataplaneBenchmark[modes.length];
        for (int i = 0; i < modes.length; i++) {
            b[i] = new DataplaneBenchmark();
            b[i].mode = modes[i];
            b[i].setUp();
        }
        long sink = 0;
        long warmEnd = System.nanoTime() + 5_000_000_000L; // JIT warm-up over every mode
        while (System.nanoTime() < warmEnd) {
            for (DataplaneBenchmark x : b) {
                for (int v = 0; v < vectors; v++) {
                    sink += x.round();
                }
            }
        }
        double[][] pps = new double[modes.length][rounds];
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < modes.length; k++) {
                int i = (k + r) % modes.length;
                long packets = 0;
                long t0 = System.nanoTime();
                for (int v = 0; v < vectors; v++) {
                    packets += b[i].round();
                }
                pps[i][r] = packets * 1e9 / (System.nanoTime() - t0);
            }
        }
        for (DataplaneBenchmark x : b) {
            x.tearDown();
        }
        System.out.printf(Locale.ROOT, "rounds %d, slice %d vectors of 256 packets; sink %d%n", rounds, vectors, sink);
        System.out.printf(Locale.ROOT, "%-12s %14s %10s %22s%n", "mode", "median pkt/s", "ns/pkt",
                "ratio to off: median [p10, p90]");
        for (int i = 0; i < modes.length; i++) {
            int base = modes[i].startsWith("l2-") ? 0 : 4;
            double[] ratio = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                ratio[r] = pps[i][r] / pps[base][r];
            }
            double med = median(pps[i]);
            System.out.printf(Locale.ROOT, "%-12s %,14.0f %10.1f %10.4f [%.4f, %.4f]%n", modes[i], med, 1e9 / med,
                    median(ratio), pct(ratio, 0.1), pct(ratio, 0.9));
        }
    }

    private static double median(double[] a) {
        return pct(a, 0.5);
    }

    private static double pct(double[] a, double p) {
        double[] s = a.clone();
        Arrays.sort(s);
        return s[(int) Math.min(s.length - 1, Math.round(p * (s.length - 1)))];
    }
}
