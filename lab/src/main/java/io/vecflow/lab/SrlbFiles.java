package io.vecflow.lab;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.vecflow.lab.out.Csv;
import io.vecflow.lab.out.Plots;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes an SRLB lab run to a folder: {@code srlb.csv} (one line per grid cell), {@code srlb-sla.csv},
 * {@code srlb.json} (command, options, rows, SLA answers, summary) and PNG plots — mean and p90 response time
 * against load per dispatcher (primary configuration, largest N) and servers needed per SLA.
 */
public final class SrlbFiles {
    private SrlbFiles() {}

    /** Columns of {@code srlb.csv}; response times in mean service times, {@code *_ci95} = 95 % half-widths. */
    public static final List<String> HEADER = List.of("level", "service", "dispatcher", "servers", "load", "cht_size",
            "seeds", "jobs", "mean", "mean_ci95", "p90", "p90_ci95", "p99", "p99_ci95", "first_choice",
            "first_choice_ci95", "jain", "theory_mean", "primary");

    /** Columns of {@code srlb-sla.csv}. */
    public static final List<String> SLA_HEADER = List.of("level", "service", "dispatcher", "demand", "target_p90",
            "servers_needed", "achieved_p90", "utilisation");

    /**
     * @param dir output folder (created if missing)
     * @param command the command line that produced the run (recorded in the JSON)
     * @param o options
     * @param r results
     * @return the files written
     * @throws IOException on a write failure
     */
    public static List<Path> write(Path dir, String command, SrlbLab.Options o, SrlbLab.Result r) throws IOException {
        Files.createDirectories(dir);
        List<Path> files = new ArrayList<>();
        List<List<Object>> rows = new ArrayList<>();
        for (SrlbLab.Row x : r.rows()) {
            rows.add(List.of(x.level(), x.service(), x.dispatcher(), x.servers(), x.load(), x.chtSize(), x.seeds(),
                    x.jobs(), x.mean().mean(), x.mean().half(), x.p90().mean(), x.p90().half(), x.p99().mean(),
                    x.p99().half(), x.firstChoice().mean(), x.firstChoice().half(), x.jain().mean(), x.theory(),
                    x.primary() ? 1 : 0));
        }
        files.add(dir.resolve("srlb.csv"));
        Csv.write(files.getLast(), HEADER, rows);
        List<List<Object>> sla = new ArrayList<>();
        for (SrlbLab.SlaRow s : r.sla()) {
            sla.add(List.of(s.level(), s.service(), s.dispatcher(), s.demand(), s.targetP90(), s.serversNeeded(),
                    s.achievedP90(), s.utilisation()));
        }
        files.add(dir.resolve("srlb-sla.csv"));
        Csv.write(files.getLast(), SLA_HEADER, sla);

        Map<String, Object> json = new LinkedHashMap<>();
        json.put("experiment", "srlb");
        json.put("command", command);
        json.put("timeUnit", "mean service time");
        json.put("options", o);
        json.put("summary", r.summary());
        json.put("rows", r.rows());
        json.put("sla", r.sla());
        files.add(dir.resolve("srlb.json"));
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(files.getLast().toFile(), json);

        int n = r.summary().servers();
        Map<String, double[][]> mean = Plots.ordered(), p90 = Plots.ordered();
        List<String> order = new ArrayList<>();
        for (SrlbLab.Row x : r.rows()) {
            if (x.primary() && !order.contains(x.dispatcher())) {
                order.add(x.dispatcher());
            }
        }
        String svc = "", level = "";
        for (String d : order) {
            List<double[]> pm = new ArrayList<>(), pp = new ArrayList<>();
            for (SrlbLab.Row x : r.rows()) {
                if (x.primary() && x.dispatcher().equals(d)) {
                    pm.add(new double[] {x.load(), x.mean().mean()});
                    pp.add(new double[] {x.load(), x.p90().mean()});
                    svc = x.service();
                    level = x.level();
                }
            }
            mean.put(d, pm.toArray(double[][]::new));
            p90.put(d, pp.toArray(double[][]::new));
        }
        List<double[]> theory = new ArrayList<>();
        for (SrlbLab.Row x : r.rows()) {
            if (x.primary() && x.dispatcher().equals(order.getFirst())) {
                theory.add(new double[] {x.load(), 1 / (1 - x.load())});
            }
        }
        mean.put("theory 1/(1-rho)", theory.toArray(double[][]::new));
        String cfg = " (N = " + n + ", " + level + " servers, " + svc + " service)";
        files.add(dir.resolve("srlb-mean-vs-load.png"));
        Plots.lines(files.getLast(), "Mean response time vs load" + cfg, "load rho (per-server utilisation)",
                "mean response time (x mean service time, log)", mean, true);
        files.add(dir.resolve("srlb-p90-vs-load.png"));
        Plots.lines(files.getLast(), "p90 response time vs load" + cfg, "load rho (per-server utilisation)",
                "p90 response time (x mean service time, log)", p90, true);
        if (!r.sla().isEmpty()) {
            Map<String, Map<String, Double>> bars = Plots.ordered();
            for (SrlbLab.SlaRow s : r.sla()) {
                bars.computeIfAbsent(String.format(java.util.Locale.ROOT, "p90 <= %.3g", s.targetP90()),
                        k -> new LinkedHashMap<>()).put(s.dispatcher(),
                        s.serversNeeded() > 0 ? (double) s.serversNeeded() : Double.NaN);
            }
            files.add(dir.resolve("srlb-servers-for-sla.png"));
            Plots.bars(files.getLast(), String.format(java.util.Locale.ROOT,
                    "Servers needed for a p90 target (demand %.0f jobs per mean service time)",
                    r.sla().getFirst().demand()), "dispatcher", "servers needed", bars);
        }
        return files;
    }
}
