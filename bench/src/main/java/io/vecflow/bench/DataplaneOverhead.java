package io.vecflow.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Sampling overhead measured so that machine noise cancels and a 1 % difference is resolved. One
 * {@link DataplaneBenchmark} set-up per family (l2: the capture cross-connected; ip4: 1,000 routed destinations) runs
 * every mode by switching its own sampling between slices, as an operator would ({@code sflow enable|disable in},
 * {@code sflow sampling-rate N}): "off" is the {@code sflow} feature disabled on the port, so on and off run on the
 * same graph, buffers and memory. (Separate set-ups per mode, as before, differed by up to 2.6 % with identical
 * configurations — placement in memory, not sampling.) One slice = {@code vectors} dispatch rounds of 256 packets,
 * ~1 ms; a round runs every mode once, in a fresh random order, and each mode's ratio in that round is its packets/s
 * over its family's off-mode's in the same round, ~10 ms apart at most. Every mode runs equally often (a design in
 * which the off-mode ran between every on-slice read 2.5 % slower for an identical mode). {@code l2-off A/A} is the
 * off-mode measured a second time as if it were another mode: its ratio is 1 for an unbiased method, and its interval
 * is the method's resolution.
 *
 * <p>Three clocks per slice: wall time; the thread's CPU time ({@code CLOCK_THREAD_CPUTIME_ID}: time the thread was
 * preempted does not count); and CPU cycles of the thread from a hardware counter ({@code perf_event_open}
 * {@code PERF_COUNT_HW_CPU_CYCLES}) where the machine exposes one — {@link PerfCycles} says why not otherwise (a VM
 * without a virtual PMU has none). The report's main figure uses the best clock there is (cycles, else CPU time).
 *
 * <p>Per mode: median packets/s and ns (or cycles) per packet; the paired ratios' median with its 95 % confidence
 * interval (bootstrap of the median over rounds, 2,000 resamples) and 10th–90th percentiles of single rounds. With
 * {@code --forks F} the measurement runs in F fresh JVMs one after the other (JIT decisions differ from JVM to JVM,
 * which one JVM cannot show) and the report adds each fork's median and the median and range over forks: the figure
 * resolves 1 % when the confidence interval is narrower than ±0.5 % and the forks agree within 1 %.
 *
 * <p>Run: {@code java --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar
 * io.vecflow.bench.DataplaneOverhead [--rounds 1000] [--vectors 200] [--forks 3] [--warmup-s 5]}.
 */
public final class DataplaneOverhead {
    /** Modes: family set-up (0 = l2, 1 = ip4) and sampling rate (0 = the sflow feature disabled). */
    private static final String[] NAMES = {"l2-off", "l2-off A/A", "l2-10000", "l2-1000", "l2-100", "ip4-1k-off",
        "ip4-1k-1000"};
    private static final int[] FAMILY = {0, 0, 0, 0, 0, 1, 1};
    private static final int[] RATE = {0, 0, 10000, 1000, 100, 0, 1000};
    private static final String[] SETUPS = {"l2-100", "ip4-1k-1000"}; // built with sampling, then switched
    private static final int[][] FAMILIES = {{0, 1, 2, 3, 4}, {5, 6}}; // first = the family's sampling-off mode
    private static final String[] CLOCKS = {"wall", "cpu", "cycles"};

    private DataplaneOverhead() {}

    /**
     * @param args {@code --rounds N} (default 1000), {@code --vectors V} (200), {@code --forks F} (1: measure in this
     *             JVM; more: that many child JVMs in turn), {@code --warmup-s S} (5)
     * @throws Exception if a set-up or a fork fails
     */
    public static void main(String[] args) throws Exception {
        int rounds = 1000;
        int vectors = 200;
        int forks = 1;
        int warmupS = 5;
        boolean child = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--vectors" -> vectors = Integer.parseInt(args[++i]);
                case "--forks" -> forks = Integer.parseInt(args[++i]);
                case "--warmup-s" -> warmupS = Integer.parseInt(args[++i]);
                case "--child" -> child = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; usage: DataplaneOverhead [--rounds N] [--vectors V] [--forks F] [--warmup-s S]");
            }
        }
        if (forks <= 1 || child) {
            Result r = measure(rounds, vectors, warmupS);
            if (child) {
                System.out.println(r.encode());
            } else {
                report(List.of(r), rounds, vectors);
            }
            return;
        }
        List<Result> results = new ArrayList<>();
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> jvm = ManagementFactory.getRuntimeMXBean().getInputArguments();
        for (int f = 0; f < forks; f++) {
            List<String> cmd = new ArrayList<>();
            cmd.add(java);
            cmd.addAll(jvm);
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), DataplaneOverhead.class.getName(),
                    "--child", "--rounds", "" + rounds, "--vectors", "" + vectors, "--warmup-s", "" + warmupS));
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String line;
            String last = null;
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                while ((line = in.readLine()) != null) {
                    last = line;
                }
            }
            if (p.waitFor() != 0 || last == null) {
                throw new IllegalStateException("fork " + f + " failed (exit " + p.exitValue() + ")");
            }
            results.add(Result.decode(last));
            System.err.printf(Locale.ROOT, "fork %d of %d done%n", f + 1, forks);
        }
        report(results, rounds, vectors);
    }

    /** One JVM's measurement: per clock, per mode, per round: packets per unit (s, or per cycle). */
    record Result(String cyclesNote, double[][][] rate) {
        String encode() {
            StringBuilder b = new StringBuilder("R|").append(cyclesNote.replace('|', '/'));
            for (double[][] c : rate) {
                b.append('|');
                for (int m = 0; m < c.length; m++) {
                    if (m > 0) {
                        b.append(';');
                    }
                    for (int r = 0; r < c[m].length; r++) {
                        if (r > 0) {
                            b.append(',');
                        }
                        b.append(c[m][r]);
                    }
                }
            }
            return b.toString();
        }

        static Result decode(String s) {
            String[] parts = s.split("\\|", -1);
            if (!parts[0].equals("R") || parts.length != 2 + CLOCKS.length) {
                throw new IllegalStateException("fork output not understood: " + s.substring(0,
                        Math.min(80, s.length())));
            }
            double[][][] rate = new double[CLOCKS.length][][];
            for (int c = 0; c < CLOCKS.length; c++) {
                String[] modes = parts[2 + c].split(";", -1);
                rate[c] = new double[modes.length][];
                for (int m = 0; m < modes.length; m++) {
                    rate[c][m] = Arrays.stream(modes[m].split(",")).mapToDouble(Double::parseDouble).toArray();
                }
            }
            return new Result(parts[1], rate);
        }
    }

    static Result measure(int rounds, int vectors, int warmupS) throws Exception {
        DataplaneBenchmark[] b = new DataplaneBenchmark[SETUPS.length];
        for (int i = 0; i < SETUPS.length; i++) {
            b[i] = new DataplaneBenchmark();
            b[i].mode = SETUPS[i];
            b[i].setUp();
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        PerfCycles cycles = PerfCycles.open();
        long sink = 0;
        long warmEnd = System.nanoTime() + warmupS * 1_000_000_000L; // JIT warm-up over every mode
        while (System.nanoTime() < warmEnd) {
            for (int m = 0; m < NAMES.length; m++) {
                DataplaneBenchmark x = select(b, m);
                for (int v = 0; v < vectors; v++) {
                    sink += x.round();
                }
            }
        }
        double[][][] rate = new double[CLOCKS.length][NAMES.length][rounds]; // [clock][mode][round]
        double[][][] ratio = new double[CLOCKS.length][NAMES.length][rounds];
        SplittableRandom order = new SplittableRandom(7);
        int[] perm = new int[NAMES.length];
        double[][] slot = new double[CLOCKS.length][NAMES.length];
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < perm.length; i++) {
                perm[i] = i;
            }
            for (int i = perm.length - 1; i > 0; i--) { // a fresh random order each round (Fisher-Yates)
                int j = order.nextInt(i + 1);
                int t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            for (int m : perm) {
                slice(select(b, m), vectors, threads, cycles, slot, m);
            }
            for (int[] fam : FAMILIES) {
                for (int c = 0; c < CLOCKS.length; c++) {
                    for (int m : fam) {
                        rate[c][m][r] = slot[c][m];
                        ratio[c][m][r] = slot[c][m] / slot[c][fam[0]];
                    }
                }
            }
        }
        cycles.close();
        for (DataplaneBenchmark x : b) {
            x.tearDown();
        }
        System.err.printf(Locale.ROOT, "measured %d rounds; sink %d%n", rounds, sink);
        double[][][] out = new double[CLOCKS.length][NAMES.length * 2][]; // rates, then ratios
        for (int c = 0; c < CLOCKS.length; c++) {
            for (int m = 0; m < NAMES.length; m++) {
                out[c][m] = rate[c][m];
                out[c][NAMES.length + m] = ratio[c][m];
            }
        }
        return new Result(cycles.note(), out);
    }

    /** Switches mode {@code m}'s set-up to its sampling (outside the timed slice) and returns it. */
    private static DataplaneBenchmark select(DataplaneBenchmark[] b, int m) {
        DataplaneBenchmark x = b[FAMILY[m]];
        if (RATE[m] == 0) {
            x.dataplane().enableSflow("in", false);
        } else {
            x.dataplane().setSamplingRate(RATE[m]);
            x.dataplane().enableSflow("in", true);
        }
        return x;
    }

    private static void slice(DataplaneBenchmark x, int vectors, ThreadMXBean threads, PerfCycles cycles,
            double[][] into, int slot) {
        long packets = 0;
        long c0 = cycles.read();
        long cpu0 = threads.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        for (int v = 0; v < vectors; v++) {
            packets += x.round();
        }
        long t1 = System.nanoTime();
        long cpu1 = threads.getCurrentThreadCpuTime();
        long c1 = cycles.read();
        into[0][slot] = packets * 1e9 / (t1 - t0);
        into[1][slot] = packets * 1e9 / Math.max(1, cpu1 - cpu0);
        into[2][slot] = cycles.available() ? packets / (double) Math.max(1, c1 - c0) : Double.NaN;
    }

    static void report(List<Result> results, int rounds, int vectors) {
        int forks = results.size();
        boolean haveCycles = !Double.isNaN(results.get(0).rate()[2][0][0]);
        System.out.printf(Locale.ROOT, "rounds %d per fork, %d fork(s), slice %d vectors of 256 packets; a round "
                + "runs every mode once in a random order; ratio = a mode's packets/s over its family's off-mode's in "
                + "the same round%n", rounds, forks, vectors);
        System.out.println("hardware cycle counter: " + results.get(0).cyclesNote());
        for (int c = 0; c < CLOCKS.length; c++) {
            if (c == 2 && !haveCycles) {
                continue;
            }
            String unit = c == 2 ? "cycles/pkt" : "ns/pkt";
            System.out.printf(Locale.ROOT, "%nclock %s%n", CLOCKS[c]);
            System.out.printf(Locale.ROOT, "%-12s %14s %11s %8s %26s %18s%s%n", "mode", "median pkt/s", unit,
                    "ratio", "95% CI of the median", "p10..p90 (rounds)", forks > 1 ? "   per fork" : "");
            for (int m = 0; m < NAMES.length; m++) {
                List<double[]> rateF = new ArrayList<>();
                List<double[]> ratioF = new ArrayList<>();
                for (Result r : results) {
                    rateF.add(r.rate()[c][m]);
                    ratioF.add(r.rate()[c][NAMES.length + m]);
                }
                double[] rate = concat(rateF);
                double[] ratio = concat(ratioF);
                double med = pct(rate, 0.5);
                double perPkt = c == 2 ? 1 / med : 1e9 / med;
                double[] ci = bootstrapMedianCi(ratioF);
                StringBuilder perFork = new StringBuilder();
                if (forks > 1) {
                    double[] fm = new double[forks];
                    for (int f = 0; f < forks; f++) {
                        fm[f] = pct(ratioF.get(f), 0.5);
                        perFork.append(String.format(Locale.ROOT, " %.4f", fm[f]));
                    }
                    Arrays.sort(fm);
                    perFork.append(String.format(Locale.ROOT, "  (range %.4f)", fm[forks - 1] - fm[0]));
                }
                System.out.printf(Locale.ROOT, "%-12s %,14.0f %11.2f %8.4f %12s %18s%s%n", NAMES[m],
                        c == 2 ? Double.NaN : med, perPkt, pct(ratio, 0.5),
                        String.format(Locale.ROOT, "[%.4f, %.4f]", ci[0], ci[1]),
                        String.format(Locale.ROOT, "[%.4f, %.4f]", pct(ratio, 0.1), pct(ratio, 0.9)), perFork);
            }
        }
    }

    private static double[] concat(List<double[]> parts) {
        return parts.stream().flatMapToDouble(Arrays::stream).toArray();
    }

    /** 95 % bootstrap interval of the median, resampling rounds within each fork (forks kept apart). */
    static double[] bootstrapMedianCi(List<double[]> perFork) {
        SplittableRandom rnd = new SplittableRandom(42);
        int total = perFork.stream().mapToInt(a -> a.length).sum();
        double[] meds = new double[2000];
        double[] sample = new double[total];
        for (int k = 0; k < meds.length; k++) {
            int j = 0;
            for (double[] a : perFork) {
                for (int i = 0; i < a.length; i++) {
                    sample[j++] = a[rnd.nextInt(a.length)];
                }
            }
            meds[k] = pct(sample, 0.5);
        }
        return new double[] {pct(meds, 0.025), pct(meds, 0.975)};
    }

    static double pct(double[] a, double p) {
        double[] s = a.clone();
        Arrays.sort(s);
        return s[(int) Math.min(s.length - 1, Math.round(p * (s.length - 1)))];
    }
}
