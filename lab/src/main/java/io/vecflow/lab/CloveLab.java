package io.vecflow.lab;

import io.vecflow.lab.fabric.FabricSim;
import io.vecflow.lab.fabric.FabricSim.Scheme;
import io.vecflow.lab.fabric.FlowSizeCdf;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The CLOVE-vs-ECMP experiment (issue 8 part 2; docs/load-balancing.md §6 "CLOVE vs ECMP") on {@link FabricSim}: fabric
 * (symmetric, asymmetric) × workload × load × scheme, each over several seeds (seeds 21.. as docs/load-balancing.md's
 * runs; the same seed gives every scheme the same flows), FCT normalised to ECMP per seed and then averaged.
 */
public final class CloveLab {
    private CloveLab() {}

    /** What to run; {@link #quick()} and {@link #full()} are the CLI's presets. */
    public static final class Options {
        public int spines = 4;
        public int hostsPerLeaf = 8;
        /** Capacity factor of the degraded leaf0↔spine0 link in the asymmetric fabric. */
        public double degradedFactor = 0.2;
        public List<String> fabrics = List.of("symmetric", "asymmetric");
        public List<String> workloads = List.of("web-search", "data-mining");
        public List<Double> loads = List.of(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9);
        public List<Scheme> schemes = List.of(Scheme.values());
        public int seeds = 5;
        public long seed0 = 21;
        public double warmupS = 0.05;
        /** Seconds of measured arrivals per run, per workload (data-mining's heavy tail needs longer). */
        public double durationS = 1.0;
        public double flowletTimeoutUs = 500;
        public double flowletGapMeanUs = 500;
        public int threads = Parallel.defaultThreads();

        /** @return the full sweep */
        public static Options full() {
            return new Options();
        }

        /** @return {@code --quick}: web-search, loads 0.3/0.5/0.7, 2 seeds × 0.25 s */
        public static Options quick() {
            Options o = new Options();
            o.workloads = List.of("web-search");
            o.loads = List.of(0.3, 0.5, 0.7);
            o.seeds = 2;
            o.durationS = 0.25;
            return o;
        }

        void validate() {
            if (fabrics.isEmpty() || workloads.isEmpty() || loads.isEmpty() || schemes.isEmpty()) {
                throw new IllegalArgumentException("fabrics, workloads, loads and schemes must be non-empty");
            }
            for (String f : fabrics) {
                if (!f.equals("symmetric") && !f.equals("asymmetric")) {
                    throw new IllegalArgumentException("fabric '" + f + "': want symmetric or asymmetric");
                }
            }
            for (String w : workloads) {
                FlowSizeCdf.byName(w);
            }
            if (seeds < 1 || seeds > 1000) {
                throw new IllegalArgumentException("--seeds must be in [1, 1000], got " + seeds);
            }
            if (!(durationS > 0 && durationS <= 100)) {
                throw new IllegalArgumentException("--duration must be in (0, 100] s, got " + durationS);
            }
            if (!schemes.contains(Scheme.ECMP)) {
                throw new IllegalArgumentException("--schemes must include ecmp (the normalisation baseline)");
            }
        }
    }

    /**
     * One cell over its seeds. FCTs in ms; {@code norm*} = the scheme's value / ECMP's on the same seed, averaged.
     *
     * @param fabric symmetric or asymmetric
     * @param workload web-search or data-mining
     * @param scheme scheme label
     * @param load offered load
     * @param seeds replications
     * @param flows measured flows completed (sum over seeds)
     * @param unfinished measured flows unfinished at the drain cap (sum over seeds)
     * @param meanFct mean FCT
     * @param p99Fct p99 FCT
     * @param smallMean mean FCT of flows < 100 KB
     * @param smallP99 p99 FCT of flows < 100 KB
     * @param largeMean mean FCT of flows > 10 MB
     * @param normMean mean FCT / ECMP's
     * @param normP99 p99 FCT / ECMP's
     * @param normSmallP99 small-flow p99 / ECMP's
     * @param normLargeMean large-flow mean / ECMP's
     * @param flowletsPerFlow flowlets per flow
     */
    public record Row(String fabric, String workload, String scheme, double load, int seeds, long flows,
            long unfinished, Stats meanFct, Stats p99Fct, Stats smallMean, Stats smallP99, Stats largeMean,
            Stats normMean, Stats normP99, Stats normSmallP99, Stats normLargeMean, double flowletsPerFlow) {}

    /**
     * Everything a run produced.
     *
     * @param rows cells
     * @param summary headline figures: per fabric at load 0.7 (web-search), CLOVE-ECN's and the others' mean FCT
     *     relative to ECMP, ECMP/CLOVE-ECN speed-up, and CLOVE-ECN's share of the oracle's gain
     *     (ECMP − CLOVE-ECN)/(ECMP − oracle)
     */
    public record Result(List<Row> rows, Map<String, Map<String, Object>> summary) {}

    /**
     * Runs the sweep.
     *
     * @param o options (validated here)
     * @param progress receives one line per finished cell
     * @return the results
     */
    public static Result run(Options o, Consumer<String> progress) {
        o.validate();
        List<Row> rows = new ArrayList<>();
        for (String fabric : o.fabrics) {
            double factor = fabric.equals("symmetric") ? 1.0 : o.degradedFactor;
            for (String wl : o.workloads) {
                FlowSizeCdf cdf = FlowSizeCdf.byName(wl);
                double dur = wl.equals("data-mining") ? o.durationS * 2 : o.durationS;
                for (double load : o.loads) {
                    FabricSim.Config cfg = new FabricSim.Config(o.spines, o.hostsPerLeaf, 10, 10, factor, cdf, load,
                            o.warmupS, dur, Math.max(2.0, 4 * dur), o.flowletTimeoutUs, o.flowletGapMeanUs, 20);
                    List<Supplier<FabricSim.Result>> tasks = new ArrayList<>();
                    for (Scheme s : o.schemes) {
                        for (int i = 0; i < o.seeds; i++) {
                            long seed = o.seed0 + i;
                            tasks.add(() -> FabricSim.run(cfg, s, seed));
                        }
                    }
                    List<FabricSim.Result> rs = Parallel.run(o.threads, tasks);
                    int ecmp = o.schemes.indexOf(Scheme.ECMP);
                    for (int si = 0; si < o.schemes.size(); si++) {
                        List<FabricSim.Result> mine = rs.subList(si * o.seeds, (si + 1) * o.seeds);
                        List<FabricSim.Result> base = rs.subList(ecmp * o.seeds, (ecmp + 1) * o.seeds);
                        Row r = row(fabric, wl, o.schemes.get(si).label(), load, mine, base);
                        rows.add(r);
                        progress.accept(String.format(Locale.ROOT,
                                "clove %-10s %-11s %-12s load %.2f mean %.3f ms (x%.3f ECMP) p99 %.2f small-p99 %.3f"
                                        + " unfinished %d",
                                fabric, wl, r.scheme(), load, r.meanFct().mean(), r.normMean().mean(),
                                r.p99Fct().mean(), r.smallP99().mean(), r.unfinished()));
                    }
                }
            }
        }
        return new Result(rows, summarise(rows));
    }

    static Row row(String fabric, String wl, String scheme, double load, List<FabricSim.Result> mine,
            List<FabricSim.Result> base) {
        int n = mine.size();
        double[] mean = new double[n], p99 = new double[n], sm = new double[n], sp = new double[n], lm = new double[n],
                nm = new double[n], np = new double[n], nsp = new double[n], nlm = new double[n];
        long flows = 0, unf = 0;
        double fl = 0;
        for (int i = 0; i < n; i++) {
            FabricSim.Result r = mine.get(i), b = base.get(i);
            mean[i] = r.meanFct();
            p99[i] = r.p99Fct();
            sm[i] = r.smallMean();
            sp[i] = r.smallP99();
            lm[i] = r.largeMean();
            nm[i] = r.meanFct() / b.meanFct();
            np[i] = r.p99Fct() / b.p99Fct();
            nsp[i] = r.smallP99() / b.smallP99();
            nlm[i] = r.largeMean() / b.largeMean();
            flows += r.flows();
            unf += r.unfinished();
            fl += r.flowletsPerFlow() / n;
        }
        return new Row(fabric, wl, scheme, load, n, flows, unf, finite(mean), finite(p99), finite(sm), finite(sp),
                finite(lm), finite(nm), finite(np), finite(nsp), finite(nlm), fl);
    }

    /** Stats over the finite values (a seed without large flows has NaN there); NaN if none. */
    static Stats finite(double[] v) {
        double[] f = java.util.Arrays.stream(v).filter(Double::isFinite).toArray();
        return f.length == 0 ? new Stats(Double.NaN, Double.NaN, 0) : Stats.of(f);
    }

    static Map<String, Map<String, Object>> summarise(List<Row> rows) {
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        for (String fabric : List.of("symmetric", "asymmetric")) {
            Row ecmp = find(rows, fabric, "ecmp"), clove = find(rows, fabric, "clove-ecn"),
                    oracle = find(rows, fabric, "oracle");
            if (ecmp == null || clove == null) {
                continue;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("workload", ecmp.workload());
            m.put("load", ecmp.load());
            for (Row r : rows) {
                if (r.fabric().equals(fabric) && r.workload().equals(ecmp.workload()) && r.load() == ecmp.load()) {
                    m.put(r.scheme() + "MeanFctVsEcmp", r.normMean().mean());
                    m.put(r.scheme() + "SmallP99VsEcmp", r.normSmallP99().mean());
                    m.put(r.scheme() + "LargeMeanVsEcmp", r.normLargeMean().mean());
                }
            }
            m.put("ecmpOverCloveEcnMeanFct", 1 / clove.normMean().mean());
            m.put("ecmpUnfinished", ecmp.unfinished());
            if (oracle != null) {
                double gain = 1 - oracle.normMean().mean();
                m.put("cloveEcnShareOfOracleGain", gain == 0 ? Double.NaN : (1 - clove.normMean().mean()) / gain);
            }
            out.put(fabric, m);
        }
        return out;
    }

    /** The row at load 0.7 (or the load closest to it) for web-search (or the first workload). */
    private static Row find(List<Row> rows, String fabric, String scheme) {
        Row best = null;
        for (Row r : rows) {
            if (!r.fabric().equals(fabric) || !r.scheme().equals(scheme)) {
                continue;
            }
            if (best == null || (r.workload().equals("web-search") && !best.workload().equals("web-search"))
                    || (r.workload().equals(best.workload())
                            && Math.abs(r.load() - 0.7) < Math.abs(best.load() - 0.7))) {
                best = r;
            }
        }
        return best;
    }
}
