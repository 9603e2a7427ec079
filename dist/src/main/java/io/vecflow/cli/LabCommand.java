package io.vecflow.cli;

import io.vecflow.lab.CloveFiles;
import io.vecflow.lab.CloveLab;
import io.vecflow.lab.LabDb;
import io.vecflow.lab.SrlbFiles;
import io.vecflow.lab.SrlbLab;
import io.vecflow.lab.fabric.FabricSim;
import io.vecflow.lab.farm.DispatcherSpec;
import io.vecflow.lab.out.LabClickHouse;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vecflow lab srlb|clove}: the load-balancing lab (issue 8) — simulations on vecflow's own LB code with
 * results as CSV, JSON and PNG in {@code --out}, and optionally rows in ClickHouse for the Load-balancer dashboard.
 */
@Command(name = "lab", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
        description = {"Load-balancing lab: reproduces the seeds' SRLB-vs-Maglev and CLOVE-vs-ECMP results with "
            + "vecflow's Maglev table, SRLB candidate table and accept policies, and CLOVE flowlet/path-weight code.",
            "Results: CSV + JSON + PNG plots in --out; with --clickhouse, rows in the lab_* tables that the "
            + "Load-balancer dashboard's Lab row reads."},
        subcommands = {LabCommand.Srlb.class, LabCommand.Clove.class})
final class LabCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Options both experiments share. */
    static class Common {
        @Option(names = "--out", required = true, paramLabel = "DIR", description =
                "Folder for CSV, JSON and PNG results (created if missing).")
        Path out;

        @Option(names = "--quick", description = "A reduced sweep that runs in under a minute, for a first look.")
        boolean quick;

        @Option(names = "--seeds", paramLabel = "N", description =
                "Replications per cell (default: 10 srlb / 5 clove; --quick fewer).")
        Integer seeds;

        @Option(names = "--threads", paramLabel = "N", description = "Worker threads (default: available processors).")
        Integer threads;

        @Option(names = "--clickhouse", paramLabel = "URL", description =
                "Also write rows to ClickHouse at this HTTP URL (e.g. http://127.0.0.1:8123).")
        String clickhouse;

        @Option(names = "--clickhouse-database", paramLabel = "NAME", defaultValue = "vecflow", description =
                "ClickHouse database (default: ${DEFAULT-VALUE}).")
        String database;

        @Option(names = {"-q", "--quiet"}, description = "No per-cell progress lines on stderr.")
        boolean quiet;

        String command(CommandLine.Model.CommandSpec spec) {
            // originalArgs holds the whole command line from the top-level command on
            return "vecflow " + String.join(" ", spec.commandLine().getParseResult().originalArgs());
        }

        /** --threads checked (1..1024), or null when not given. */
        Integer checkedThreads() {
            if (threads != null) {
                VecflowCommand.require(threads >= 1 && threads <= 1024, "--threads", threads, "need 1..1024");
            }
            return threads;
        }

        /** Writes a lab's result files into {@code dir}; returns their paths. */
        interface FileWriter<R> {
            List<Path> write(Path dir, String command, R result) throws IOException;
        }

        /** Writes a lab's result rows to ClickHouse as run {@code runId}; returns the row count. */
        interface RowWriter<R> {
            int write(LabClickHouse ch, Instant start, String runId, R result) throws IOException;
        }

        /**
         * The part of a run both experiments share: runs {@code lab} (progress lines on stderr unless --quiet),
         * writes its files to --out and prints "wrote PATH" for each, with --clickhouse writes its rows and prints
         * "clickhouse: N rows in DATABASE{@code tables}, run ID", then prints "summary: …".
         *
         * @param tables the tables the rows go to, as printed after the database name (e.g. {@code .lab_clove})
         * @return 0, the exit code
         * @throws VecflowCommand.UsageException the lab rejected its options (an IllegalArgumentException)
         * @throws IOException writing the files or the rows failed
         */
        <R> Integer runAndReport(CommandLine.Model.CommandSpec spec, Function<Consumer<String>, R> lab,
                FileWriter<R> files, RowWriter<R> rows, String tables, Function<R, ?> summary)
                throws IOException {
            LabClickHouse ch = clickhouse == null ? null : new LabClickHouse(clickhouse, database);
            Instant start = Instant.now();
            R r;
            try {
                r = lab.apply(quiet ? s -> { } : s -> spec.commandLine().getErr().println(s));
            } catch (IllegalArgumentException e) {
                throw new VecflowCommand.UsageException(e.getMessage());
            }
            var pw = spec.commandLine().getOut();
            for (Path f : files.write(out, command(spec), r)) {
                pw.println("wrote " + f);
            }
            if (ch != null) {
                String id = LabClickHouse.newRunId(start);
                pw.println("clickhouse: " + rows.write(ch, start, id, r) + " rows in " + database + tables + ", run "
                        + id);
            }
            pw.println("summary: " + summary.apply(r));
            pw.flush();
            return 0;
        }
    }

    @Command(name = "srlb", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
            description = {"SRLB vs Maglev: server-farm discrete-event simulation (Poisson arrivals, PS or Apache-like "
                + "servers), dispatchers random, maglev, jsq2, jsq, srC (c = 1..64), srdyn, srmodelC; mean/p90/p99 "
                + "response time (in mean service times), first-choice share, Jain fairness, 95% CIs; and the "
                + "servers-needed search for p90 targets.",
                "Default: the full sweep (tens of minutes on 2 cores); --quick: N=100, PS, exp, loads 0.7/0.8/0.9."})
    static final class Srlb extends Common implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--servers", split = ",", paramLabel = "N", description =
                "Server counts (default 12,24,48,100).")
        List<Integer> servers;

        @Option(names = "--loads", split = ",", paramLabel = "RHO", description =
                "Per-server loads in (0,1) (default 0.5,0.6,0.7,0.8,0.85,0.9,0.95).")
        List<Double> loads;

        @Option(names = "--services", split = ",", paramLabel = "LAW", description =
                "Service laws: exp, lognormal:CV, pareto:ALPHA (default exp,lognormal:3,pareto:1.5; the first is the "
                        + "primary).")
        List<String> services;

        @Option(names = "--levels", split = ",", paramLabel = "LEVEL", description =
                "Server models: ps, apache (default ps,apache).")
        List<String> levels;

        @Option(names = "--dispatchers", split = ",", paramLabel = "D", description =
                "Dispatchers for the primary configuration.")
        List<String> dispatchers;

        @Option(names = "--jobs", paramLabel = "N", description = "Measured jobs per replication (default 200000).")
        Integer jobs;

        @Option(names = "--workers", paramLabel = "N", description = "Workers per Apache-like server (default 32).")
        Integer workers;

        @Option(names = "--cht-size", paramLabel = "BUCKETS", description =
                "SRLB candidate-table buckets, a power of two (default max(65536, 64·N)).")
        Integer chtSize;

        @Option(names = "--sla-p90", split = ",", paramLabel = "T", description =
                "p90 targets in mean service times for the servers-needed search (default 8; 0 = no search).")
        List<Double> slaP90;

        @Option(names = "--sla-demand", paramLabel = "JOBS", description =
                "Demand for the search, jobs per mean service time (default 80).")
        Double slaDemand;

        @Override
        public Integer call() throws Exception {
            SrlbLab.Options o = quick ? SrlbLab.Options.quick() : SrlbLab.Options.full();
            try {
                if (servers != null) {
                    o.servers = servers;
                }
                if (loads != null) {
                    o.loads = loads;
                }
                if (services != null) {
                    o.services = services;
                }
                if (levels != null) {
                    List<SrlbLab.Level> l = new ArrayList<>();
                    for (String s : levels) {
                        l.add(switch (s.trim().toLowerCase(Locale.ROOT)) {
                            case "ps" -> SrlbLab.Level.PS;
                            case "apache" -> SrlbLab.Level.APACHE;
                            default -> throw new IllegalArgumentException("--levels " + s + ": want ps or apache");
                        });
                    }
                    o.levels = l;
                }
                if (dispatchers != null) {
                    o.dispatchers = SrlbLab.Options.specs(dispatchers.toArray(String[]::new));
                    o.variantDispatchers = o.dispatchers;
                    List<DispatcherSpec> sla = new ArrayList<>();
                    for (DispatcherSpec d : o.slaDispatchers) {
                        if (o.dispatchers.contains(d)) {
                            sla.add(d);
                        }
                    }
                    o.slaDispatchers = sla;
                }
                if (seeds != null) {
                    o.seeds = seeds;
                    o.slaSeeds = Math.min(seeds, o.slaSeeds);
                }
                if (jobs != null) {
                    o.jobs = jobs;
                    o.slaJobs = Math.min(jobs, o.slaJobs);
                }
                if (workers != null) {
                    VecflowCommand.require(workers >= 1 && workers <= 100_000, "--workers", workers, "need 1..100000");
                    o.workers = workers;
                }
                if (chtSize != null) {
                    o.chtSize = chtSize;
                }
                if (slaP90 != null) {
                    o.slaP90 = slaP90.stream().filter(t -> t > 0).toList();
                }
                if (slaDemand != null) {
                    o.slaDemand = slaDemand;
                }
                if (checkedThreads() != null) {
                    o.threads = threads;
                }
            } catch (IllegalArgumentException e) {
                throw new VecflowCommand.UsageException(e.getMessage());
            }
            return runAndReport(spec, progress -> SrlbLab.run(o, progress),
                    (dir, command, r) -> SrlbFiles.write(dir, command, o, r), LabDb::writeSrlb, ".lab_srlb/lab_sla",
                    SrlbLab.Result::summary);
        }
    }

    @Command(name = "clove", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
            description = {"CLOVE vs ECMP: flowlet-level fluid simulation of a 2-leaf leaf-spine fabric (10G links; "
                + "asymmetric = leaf0-spine0 at --degraded of capacity), web-search and data-mining flow sizes; "
                + "schemes ecmp, edge-flowlet, clove-ecn, clove-int, oracle; FCT (ms) normalised to ECMP.",
                "Default: the full sweep; --quick: web-search, loads 0.3/0.5/0.7, 2 seeds."})
    static final class Clove extends Common implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = "--loads", split = ",", paramLabel = "LOAD", description =
                "Offered loads in (0,1] (default 0.1..0.9).")
        List<Double> loads;

        @Option(names = "--fabrics", split = ",", paramLabel = "F", description =
                "symmetric, asymmetric (default both).")
        List<String> fabrics;

        @Option(names = "--workloads", split = ",", paramLabel = "W", description =
                "web-search, data-mining (default both).")
        List<String> workloads;

        @Option(names = "--schemes", split = ",", paramLabel = "S", description =
                "ecmp, edge-flowlet, clove-ecn, clove-int, oracle (default all; ecmp required).")
        List<String> schemes;

        @Option(names = "--spines", paramLabel = "N", description = "Spines = paths (default 4).")
        Integer spines;

        @Option(names = "--degraded", paramLabel = "FACTOR", description =
                "Capacity factor of the degraded link (default 0.2).")
        Double degraded;

        @Option(names = "--duration", paramLabel = "SECONDS", description =
                "Simulated seconds of measured arrivals (default 1.0; data-mining runs twice as long).")
        Double duration;

        @Option(names = "--flowlet-timeout-us", paramLabel = "US", description = "Flowlet table timeout (default 500).")
        Double flowletTimeoutUs;

        @Option(names = "--flowlet-gap-us", paramLabel = "US", description =
                "Mean extra time between a flow's flowlet gaps (default 500).")
        Double flowletGapUs;

        @Override
        public Integer call() throws Exception {
            CloveLab.Options o = quick ? CloveLab.Options.quick() : CloveLab.Options.full();
            try {
                if (loads != null) {
                    o.loads = loads;
                }
                if (fabrics != null) {
                    o.fabrics = fabrics;
                }
                if (workloads != null) {
                    o.workloads = workloads;
                }
                if (schemes != null) {
                    o.schemes = schemes.stream().map(FabricSim.Scheme::of).toList();
                }
                if (spines != null) {
                    VecflowCommand.require(spines >= 2 && spines <= 64, "--spines", spines, "need 2..64");
                    o.spines = spines;
                }
                if (degraded != null) {
                    VecflowCommand.require(degraded > 0 && degraded <= 1, "--degraded", degraded, "need (0, 1]");
                    o.degradedFactor = degraded;
                }
                if (duration != null) {
                    o.durationS = duration;
                }
                if (flowletTimeoutUs != null) {
                    VecflowCommand.require(flowletTimeoutUs > 0, "--flowlet-timeout-us", flowletTimeoutUs, "need > 0");
                    o.flowletTimeoutUs = flowletTimeoutUs;
                }
                if (flowletGapUs != null) {
                    VecflowCommand.require(flowletGapUs >= 0, "--flowlet-gap-us", flowletGapUs, "need >= 0");
                    o.flowletGapMeanUs = flowletGapUs;
                }
                if (seeds != null) {
                    o.seeds = seeds;
                }
                if (checkedThreads() != null) {
                    o.threads = threads;
                }
            } catch (IllegalArgumentException e) {
                throw new VecflowCommand.UsageException(e.getMessage());
            }
            return runAndReport(spec, progress -> CloveLab.run(o, progress),
                    (dir, command, r) -> CloveFiles.write(dir, command, o, r), LabDb::writeClove, ".lab_clove",
                    CloveLab.Result::summary);
        }
    }
}
