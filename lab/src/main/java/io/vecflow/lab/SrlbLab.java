package io.vecflow.lab;

import io.vecflow.lab.farm.DispatcherSpec;
import io.vecflow.lab.farm.FarmSim;
import io.vecflow.lab.farm.MeanField;
import io.vecflow.lab.farm.ServiceTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The SRLB-vs-Maglev experiment (issue 8 part 1; docs/load-balancing.md §6 "SRLB vs Maglev"): a grid of server-farm
 * simulations (server level × service distribution × N × load × dispatcher, each over several seeds with 95 %
 * confidence intervals) and the "fewer servers for the same SLA" search.
 *
 * <p><b>Grid.</b> The <em>primary</em> configuration — the first level and first service listed — runs every N,
 * load and dispatcher. Every other (level, service) pair runs at the largest N with every load and the
 * {@link Options#variantDispatchers}, which keeps the full sweep to tens of minutes on two cores.
 *
 * <p><b>SLA search.</b> For a demand of Λ jobs per mean service time and a p90 target (in mean service times), the
 * smallest N whose p90 response time (mean over seeds) meets the target, per dispatcher, by bisection on N — p90
 * falls as N grows. Runs at a given N share seeds across dispatchers (common random numbers).
 */
public final class SrlbLab {
    private SrlbLab() {}

    /** Server levels of docs/load-balancing.md §6. */
    public enum Level {
        /** Processor sharing, μ = 1. */
        PS,
        /** Apache-like: {@link Options#workers} workers share the CPU, FIFO backlog beyond. */
        APACHE;

        /** @return {@code ps} or {@code apache} */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** What to run; {@link #quick()} and {@link #full()} are the CLI's presets. Times in mean service times. */
    public static final class Options {
        public List<Integer> servers = List.of(12, 24, 48, 100);
        public List<Double> loads = List.of(0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95);
        public List<String> services = List.of("exp", "lognormal:3", "pareto:1.5");
        public List<Level> levels = List.of(Level.PS, Level.APACHE);
        public List<DispatcherSpec> dispatchers = specs("random", "maglev", "jsq2", "jsq", "sr1", "sr2", "sr3", "sr4",
                "sr5", "sr6", "sr8", "srdyn", "srmodel3");
        public List<DispatcherSpec> variantDispatchers = specs("random", "maglev", "jsq2", "sr2", "sr3", "sr4",
                "srdyn");
        /** Replications (seeds) per grid cell. */
        public int seeds = 10;
        /** Measured jobs per replication (warm-up adds 1/9 of this). */
        public int jobs = 200_000;
        /** First seed; replication i uses seed0 + i. */
        public long seed0 = 1;
        /** Workers per Apache-like server. */
        public int workers = 32;
        /** SRLB candidate-table buckets; 0 = {@link DispatcherSpec#defaultChtSize}. */
        public int chtSize = 0;
        /** SLA search: p90 targets in mean service times (empty = no search). */
        public List<Double> slaP90 = List.of(8.0);
        /** SLA search: demand Λ in jobs per mean service time (= servers' worth of work). */
        public double slaDemand = 80;
        public List<DispatcherSpec> slaDispatchers = specs("random", "maglev", "jsq2", "sr2", "sr3", "sr4", "srdyn");
        public int slaSeeds = 5;
        public int slaJobs = 100_000;
        public int threads = Parallel.defaultThreads();

        /** @return the full sweep's defaults (the field initialisers) */
        public static Options full() {
            return new Options();
        }

        /** @return the {@code --quick} preset: N = 100, PS + exp, 3 loads, 8 dispatchers, 3 seeds (under a minute) */
        public static Options quick() {
            Options o = new Options();
            o.servers = List.of(100);
            o.loads = List.of(0.7, 0.8, 0.9);
            o.services = List.of("exp");
            o.levels = List.of(Level.PS);
            o.dispatchers = specs("random", "maglev", "jsq2", "sr2", "sr3", "sr4", "srdyn");
            o.variantDispatchers = o.dispatchers;
            o.seeds = 3;
            o.jobs = 40_000;
            o.slaDispatchers = specs("maglev", "sr3", "srdyn");
            o.slaSeeds = 2;
            o.slaJobs = 20_000;
            return o;
        }

        /** @return specs parsed from names */
        public static List<DispatcherSpec> specs(String... names) {
            List<DispatcherSpec> l = new ArrayList<>();
            for (String n : names) {
                l.add(new DispatcherSpec(n));
            }
            return List.copyOf(l);
        }

        void validate() {
            if (servers.isEmpty() || loads.isEmpty() || services.isEmpty() || levels.isEmpty()
                    || dispatchers.isEmpty()) {
                throw new IllegalArgumentException("servers, loads, services, levels and dispatchers must be "
                        + "non-empty");
            }
            for (int n : servers) {
                if (n < 1 || n > 10_000) {
                    throw new IllegalArgumentException("--servers " + n + " is out of range [1, 10000]");
                }
            }
            for (double l : loads) {
                if (!(l > 0 && l < 1)) {
                    throw new IllegalArgumentException("--loads " + l + " is out of range (0, 1)");
                }
            }
            if (seeds < 1 || seeds > 1000 || slaSeeds < 1 || slaSeeds > 1000) {
                throw new IllegalArgumentException("--seeds must be in [1, 1000], got " + seeds + "/" + slaSeeds);
            }
            if (jobs < 1000 || jobs > 50_000_000 || slaJobs < 1000 || slaJobs > 50_000_000) {
                throw new IllegalArgumentException("--jobs must be in [1000, 50000000], got " + jobs + "/" + slaJobs);
            }
            if (chtSize != 0 && (Integer.bitCount(chtSize) != 1 || chtSize > (1 << 20))) {
                throw new IllegalArgumentException("--cht-size " + chtSize + " must be a power of two <= 2^20");
            }
            if (!(slaDemand >= 1 && slaDemand <= 5000)) {
                throw new IllegalArgumentException("--sla-demand " + slaDemand + " is out of range [1, 5000]");
            }
            for (String s : services) {
                ServiceTime.parse(s);
            }
        }
    }

    /**
     * One grid cell over its seeds.
     *
     * @param level server level
     * @param service service distribution name ({@link ServiceTime#name()})
     * @param dispatcher dispatcher name
     * @param servers N
     * @param load ρ
     * @param chtSize SRLB candidate-table buckets used (0 for non-SRLB dispatchers)
     * @param seeds replications
     * @param jobs measured jobs per replication
     * @param mean mean response time (mean service times) across seeds, with 95 % CI
     * @param p90 90th percentile
     * @param p99 99th percentile
     * @param firstChoice share of connections accepted by the first candidate
     * @param jain Jain's index of per-server utilisation
     * @param theory docs/load-balancing.md §5 mean-field mean (random, JSQ(2), srC/srmodelC) or NaN
     * @param primary part of the primary configuration (the dashboard's and plots' curves)
     */
    public record Row(String level, String service, String dispatcher, int servers, double load, int chtSize,
            int seeds, int jobs, Stats mean, Stats p90, Stats p99, Stats firstChoice, Stats jain, double theory,
            boolean primary) {}

    /**
     * The SLA search's answer for one dispatcher.
     *
     * @param level server level
     * @param service service distribution name
     * @param dispatcher dispatcher name
     * @param demand Λ, jobs per mean service time
     * @param targetP90 the p90 target, mean service times
     * @param serversNeeded smallest N meeting it, or 0 if none up to the search's upper bound
     * @param achievedP90 p90 at that N (mean over seeds)
     * @param utilisation Λ / N at that N
     */
    public record SlaRow(String level, String service, String dispatcher, double demand, double targetP90,
            int serversNeeded, double achievedP90, double utilisation) {}

    /**
     * Headline figures for the primary configuration at its largest N.
     *
     * @param servers that N
     * @param ratios per load (0.8, 0.9 when run): maglev/best-SR mean and p90, best static c, srdyn ratios
     * @param fewerServers per p90 target: 1 − N(best SRLB)/N(maglev), and the N values
     */
    public record Summary(int servers, Map<String, Map<String, Object>> ratios,
            Map<String, Map<String, Object>> fewerServers) {}

    /**
     * Everything a run produced.
     *
     * @param rows grid cells
     * @param sla SLA search answers
     * @param summary headline figures
     */
    public record Result(List<Row> rows, List<SlaRow> sla, Summary summary) {}

    /**
     * Runs the grid and the SLA search.
     *
     * @param o options (validated here)
     * @param progress receives one line per finished cell (may be a no-op)
     * @return the results
     * @throws IllegalArgumentException on an option out of range, naming it
     */
    public static Result run(Options o, Consumer<String> progress) {
        o.validate();
        List<Row> rows = new ArrayList<>();
        int maxN = o.servers.stream().mapToInt(Integer::intValue).max().orElseThrow();
        boolean primaryDone = false;
        for (Level level : o.levels) {
            for (String svc : o.services) {
                boolean primary = !primaryDone;
                primaryDone = true;
                List<Integer> ns = primary ? o.servers : List.of(maxN);
                List<DispatcherSpec> ds = primary ? o.dispatchers : o.variantDispatchers;
                for (int n : ns) {
                    for (double load : o.loads) {
                        for (DispatcherSpec d : ds) {
                            Row r = cell(o, level, ServiceTime.parse(svc), d, n, load, primary && n == maxN);
                            rows.add(r);
                            progress.accept(String.format(java.util.Locale.ROOT,
                                    "srlb %s %s %-8s N=%-3d rho=%.2f mean %.3f ±%.3f p90 %.3f p99 %.3f first %.3f",
                                    r.level(), r.service(), r.dispatcher(), n, load, r.mean().mean(), r.mean().half(),
                                    r.p90().mean(), r.p99().mean(), r.firstChoice().mean()));
                        }
                    }
                }
            }
        }
        List<SlaRow> sla = new ArrayList<>();
        for (double target : o.slaP90) {
            for (DispatcherSpec d : o.slaDispatchers) {
                SlaRow s = slaSearch(o, o.levels.getFirst(), ServiceTime.parse(o.services.getFirst()), d, target);
                sla.add(s);
                progress.accept(String.format(java.util.Locale.ROOT,
                        "sla p90<=%.1f demand %.0f %-8s needs N=%d (p90 %.3f)",
                        target, o.slaDemand, d.name(), s.serversNeeded(), s.achievedP90()));
            }
        }
        return new Result(rows, sla, summarise(rows, sla, maxN));
    }

    private static int chtFor(Options o, int n) {
        return o.chtSize != 0 ? o.chtSize : DispatcherSpec.defaultChtSize(n);
    }

    /** Marks a replication that never finished its measured jobs (some server overloaded). */
    private static final FarmSim.Result UNSTABLE = new FarmSim.Result(Double.NaN, Double.NaN, Double.NaN, Double.NaN,
            Double.NaN, Double.NaN);

    /**
     * Runs one cell's seeds (in parallel) and aggregates them. A cell where a replication overloads a server for good
     * (e.g. SR_1 on a small candidate table at high load) gets NaN statistics ("unstable") instead of failing the run.
     */
    static Row cell(Options o, Level level, ServiceTime svc, DispatcherSpec d, int n, double load, boolean primary) {
        int workers = level == Level.PS ? Integer.MAX_VALUE : o.workers;
        FarmSim.Config cfg = FarmSim.Config.of(n, workers, load, svc, o.jobs);
        int cht = chtFor(o, n);
        List<Supplier<FarmSim.Result>> tasks = new ArrayList<>();
        for (int i = 0; i < o.seeds; i++) {
            long seed = o.seed0 + i;
            tasks.add(() -> {
                try {
                    return FarmSim.run(cfg, d.create(n, cht), seed);
                } catch (IllegalStateException e) { // a server overloaded for good: the cell has no steady state
                    return UNSTABLE;
                }
            });
        }
        List<FarmSim.Result> rs = Parallel.run(o.threads, tasks);
        if (rs.contains(UNSTABLE)) {
            Stats nan = new Stats(Double.NaN, Double.NaN, 0);
            return new Row(level.label(), svc.name(), d.name(), n, load, d.name().matches("sr[0-9]+|srdyn") ? cht : 0,
                    o.seeds, o.jobs, nan, nan, nan, nan, nan, theory(d, load, svc, level), primary);
        }
        return new Row(level.label(), svc.name(), d.name(), n, load, d.name().matches("sr[0-9]+|srdyn") ? cht : 0,
                o.seeds, o.jobs, stat(rs, FarmSim.Result::mean), stat(rs, FarmSim.Result::p90),
                stat(rs, FarmSim.Result::p99), stat(rs, FarmSim.Result::firstChoice), stat(rs, FarmSim.Result::jain),
                theory(d, load, svc, level), primary);
    }

    private static double theory(DispatcherSpec d, double load, ServiceTime svc, Level level) {
        // Mean-field values hold for PS; random's 1/(1−ρ) holds for any service law (PS is insensitive).
        if (level != Level.PS) {
            return Double.NaN;
        }
        if (d.name().equals("random")) {
            return MeanField.random(load);
        }
        if (!(svc instanceof ServiceTime.Exponential)) {
            return Double.NaN;
        }
        if (d.name().equals("jsq2")) {
            return MeanField.jsq2(load);
        }
        return d.threshold() > 0 ? MeanField.srlb(load, d.threshold()) : Double.NaN;
    }

    private static Stats stat(List<FarmSim.Result> rs, java.util.function.ToDoubleFunction<FarmSim.Result> f) {
        return Stats.of(rs.stream().mapToDouble(f).toArray());
    }

    /** Bisection on N for the smallest N with mean-over-seeds p90 ≤ target. */
    static SlaRow slaSearch(Options o, Level level, ServiceTime svc, DispatcherSpec d, double target) {
        int workers = level == Level.PS ? Integer.MAX_VALUE : o.workers;
        Map<Integer, Double> cache = new LinkedHashMap<>();
        java.util.function.IntToDoubleFunction p90 = n -> cache.computeIfAbsent(n, k -> {
            double load = o.slaDemand / k;
            FarmSim.Config cfg = FarmSim.Config.of(k, workers, load, svc, o.slaJobs);
            int cht = chtFor(o, k);
            List<Supplier<FarmSim.Result>> tasks = new ArrayList<>();
            for (int i = 0; i < o.slaSeeds; i++) {
                long seed = o.seed0 + 1000 + i;
                tasks.add(() -> {
                    try {
                        return FarmSim.run(cfg, d.create(k, cht), seed);
                    } catch (IllegalStateException e) { // overloaded: the target is not met at this N
                        return UNSTABLE;
                    }
                });
            }
            double p = Parallel.run(o.threads, tasks).stream().mapToDouble(FarmSim.Result::p90).average().orElseThrow();
            return Double.isNaN(p) ? Double.POSITIVE_INFINITY : p;
        });
        int lo = (int) Math.floor(o.slaDemand / 0.985) + 1; // ρ ≤ 0.985: beyond, runs are too noisy to rank
        int hi = (int) Math.ceil(o.slaDemand / 0.3);
        if (p90.applyAsDouble(hi) > target) {
            return new SlaRow(level.label(), svc.name(), d.name(), o.slaDemand, target, 0, p90.applyAsDouble(hi),
                    o.slaDemand / hi);
        }
        if (p90.applyAsDouble(lo) <= target) {
            hi = lo;
        }
        for (int guard = 0; hi - lo > 1 && guard < 64; guard++) { // invariant: p90(hi) ≤ target < p90(lo)
            int mid = (lo + hi) >>> 1;
            if (p90.applyAsDouble(mid) <= target) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        return new SlaRow(level.label(), svc.name(), d.name(), o.slaDemand, target, hi, p90.applyAsDouble(hi),
                o.slaDemand / hi);
    }

    static Summary summarise(List<Row> rows, List<SlaRow> sla, int maxN) {
        Map<String, Map<String, Object>> ratios = new LinkedHashMap<>();
        for (double load : new double[] {0.8, 0.9}) {
            Row maglev = find(rows, "maglev", maxN, load);
            Row best = null;
            for (Row r : rows) {
                if (r.primary() && r.servers() == maxN && r.load() == load && r.dispatcher().matches("sr[0-9]+")
                        && (best == null || r.mean().mean() < best.mean().mean())) {
                    best = r;
                }
            }
            if (maglev == null || best == null) {
                continue;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("bestStatic", best.dispatcher());
            m.put("maglevMean", maglev.mean().mean());
            m.put("bestStaticMean", best.mean().mean());
            m.put("meanRatio", maglev.mean().mean() / best.mean().mean());
            m.put("p90Ratio", maglev.p90().mean() / best.p90().mean());
            m.put("p99Ratio", maglev.p99().mean() / best.p99().mean());
            Row dyn = find(rows, "srdyn", maxN, load);
            if (dyn != null) {
                m.put("srdynMeanRatio", maglev.mean().mean() / dyn.mean().mean());
                m.put("srdynP90Ratio", maglev.p90().mean() / dyn.p90().mean());
            }
            ratios.put(String.valueOf(load), m);
        }
        Map<String, Map<String, Object>> fewer = new LinkedHashMap<>();
        for (SlaRow s : sla) {
            String key = String.valueOf(s.targetP90());
            Map<String, Object> m = fewer.computeIfAbsent(key, k -> new LinkedHashMap<>());
            m.put(s.dispatcher(), s.serversNeeded());
        }
        for (Map<String, Object> m : fewer.values()) {
            Object maglev = m.get("maglev");
            int bestSr = Integer.MAX_VALUE;
            String bestName = null;
            for (Map.Entry<String, Object> e : m.entrySet()) {
                int v = (Integer) e.getValue();
                if (e.getKey().startsWith("sr") && v > 0 && v < bestSr) {
                    bestSr = v;
                    bestName = e.getKey();
                }
            }
            if (maglev instanceof Integer mg && mg > 0 && bestName != null) {
                m.put("bestSrlb", bestName);
                m.put("fewerServersShare", 1 - (double) bestSr / mg);
            }
        }
        return new Summary(maxN, ratios, fewer);
    }

    private static Row find(List<Row> rows, String d, int n, double load) {
        for (Row r : rows) {
            if (r.primary() && r.servers() == n && r.load() == load && r.dispatcher().equals(d)) {
                return r;
            }
        }
        return null;
    }
}
