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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes a CLOVE lab run to a folder: {@code clove.csv}, {@code clove.json} (command, options, rows, summary) and,
 * per fabric and workload, PNG plots of mean FCT and small-flow p99 FCT normalised to ECMP against load, one line
 * per scheme.
 */
public final class CloveFiles {
    private CloveFiles() {}

    /** Columns of {@code clove.csv}; FCTs in ms, {@code norm_*} relative to ECMP on the same seeds. */
    public static final List<String> HEADER = List.of("fabric", "workload", "scheme", "load", "seeds", "flows",
            "unfinished", "mean_fct_ms", "mean_fct_ci95", "p99_fct_ms", "small_mean_ms", "small_p99_ms",
            "large_mean_ms", "norm_mean", "norm_mean_ci95", "norm_p99", "norm_small_p99", "norm_large_mean",
            "flowlets_per_flow");

    /**
     * @param dir output folder (created if missing)
     * @param command the command line (recorded in the JSON)
     * @param o options
     * @param r results
     * @return the files written
     * @throws IOException on a write failure
     */
    public static List<Path> write(Path dir, String command, CloveLab.Options o, CloveLab.Result r)
            throws IOException {
        Files.createDirectories(dir);
        List<Path> files = new ArrayList<>();
        List<List<Object>> rows = new ArrayList<>();
        for (CloveLab.Row x : r.rows()) {
            rows.add(List.of(x.fabric(), x.workload(), x.scheme(), x.load(), x.seeds(), x.flows(), x.unfinished(),
                    x.meanFct().mean(), x.meanFct().half(), x.p99Fct().mean(), x.smallMean().mean(),
                    x.smallP99().mean(), x.largeMean().mean(), x.normMean().mean(), x.normMean().half(),
                    x.normP99().mean(), x.normSmallP99().mean(), x.normLargeMean().mean(), x.flowletsPerFlow()));
        }
        files.add(dir.resolve("clove.csv"));
        Csv.write(files.getLast(), HEADER, rows);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("experiment", "clove");
        json.put("command", command);
        json.put("model", "flowlet-level fluid: max-min fair rates per flow, flowlet gaps modelled (see FabricSim)");
        json.put("fctUnit", "ms");
        json.put("options", o);
        json.put("summary", r.summary());
        json.put("rows", r.rows());
        files.add(dir.resolve("clove.json"));
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(files.getLast().toFile(), json);

        Set<String> groups = new LinkedHashSet<>();
        for (CloveLab.Row x : r.rows()) {
            groups.add(x.fabric() + "|" + x.workload());
        }
        for (String g : groups) {
            String[] fw = g.split("\\|");
            Map<String, double[][]> mean = Plots.ordered(), small = Plots.ordered();
            for (String scheme : schemes(r)) {
                List<double[]> pm = new ArrayList<>(), ps = new ArrayList<>();
                for (CloveLab.Row x : r.rows()) {
                    if (x.fabric().equals(fw[0]) && x.workload().equals(fw[1]) && x.scheme().equals(scheme)) {
                        pm.add(new double[] {x.load(), x.normMean().mean()});
                        ps.add(new double[] {x.load(), x.normSmallP99().mean()});
                    }
                }
                mean.put(scheme, pm.toArray(double[][]::new));
                small.put(scheme, ps.toArray(double[][]::new));
            }
            String what = " (" + fw[0] + " 2x" + o.spines + " leaf-spine, " + fw[1] + ")";
            files.add(dir.resolve("clove-mean-fct-" + fw[0] + "-" + fw[1] + ".png"));
            Plots.lines(files.getLast(), "Mean FCT relative to ECMP" + what,
                    "offered load (share of cross-rack capacity)",
                    "mean FCT / ECMP mean FCT", mean, false);
            files.add(dir.resolve("clove-small-p99-" + fw[0] + "-" + fw[1] + ".png"));
            Plots.lines(files.getLast(), "p99 FCT of flows < 100 KB relative to ECMP" + what,
                    "offered load (share of cross-rack capacity)", "small-flow p99 FCT / ECMP's", small, false);
        }
        return files;
    }

    private static List<String> schemes(CloveLab.Result r) {
        Set<String> s = new LinkedHashSet<>();
        for (CloveLab.Row x : r.rows()) {
            s.add(x.scheme());
        }
        return List.copyOf(s);
    }
}
