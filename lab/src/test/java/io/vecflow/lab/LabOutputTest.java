package io.vecflow.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vecflow.collector.sink.clickhouse.ClickHouseSink;
import io.vecflow.lab.fabric.FabricSim.Scheme;
import io.vecflow.lab.out.LabClickHouse;
import io.vecflow.lab.out.LabTables;
import io.vecflow.lab.out.Plots;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lab outputs: CSV/JSON content, PNG plots that open and are not blank, and — against the dev/CI ClickHouse
 * ({@code VECFLOW_TEST_CLICKHOUSE_URL}, default http://127.0.0.1:18123; the test fails if it is unreachable) — rows
 * for every query of the Load-balancer dashboard's Lab panels after a lab run.
 */
class LabOutputTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static SrlbLab.Options tinySrlb() {
        SrlbLab.Options o = SrlbLab.Options.quick();
        o.servers = List.of(24);
        o.loads = List.of(0.7, 0.9);
        o.dispatchers = SrlbLab.Options.specs("maglev", "sr3", "srdyn");
        o.variantDispatchers = o.dispatchers;
        o.seeds = 2;
        o.jobs = 5000;
        o.slaDispatchers = SrlbLab.Options.specs("maglev", "sr3");
        o.slaDemand = 16;
        o.slaSeeds = 1;
        o.slaJobs = 5000;
        return o;
    }

    static CloveLab.Options tinyClove() {
        CloveLab.Options o = CloveLab.Options.quick();
        o.loads = List.of(0.5);
        o.schemes = List.of(Scheme.ECMP, Scheme.CLOVE_ECN, Scheme.ORACLE);
        o.seeds = 2;
        o.durationS = 0.03;
        return o;
    }

    @Test
    void srlbAndCloveWriteCsvJsonAndReadablePlots(@TempDir Path dir) throws IOException {
        SrlbLab.Result s = SrlbLab.run(tinySrlb(), line -> { });
        List<Path> sf = SrlbFiles.write(dir, "vecflow lab srlb (test)", tinySrlb(), s);
        assertThat(Files.readAllLines(dir.resolve("srlb.csv"))).hasSize(1 + 2 * 3)
                .first().isEqualTo(String.join(",", SrlbFiles.HEADER));
        assertThat(Files.readAllLines(dir.resolve("srlb-sla.csv"))).hasSize(1 + 2);
        JsonNode j = JSON.readTree(dir.resolve("srlb.json").toFile());
        assertThat(j.path("rows")).hasSize(6);
        assertThat(j.at("/summary/fewerServers/8.0/maglev").asInt()).isGreaterThan(16);
        assertThat(j.at("/summary/ratios/0.9/meanRatio").asDouble()).isGreaterThan(1.0);

        CloveLab.Result c = CloveLab.run(tinyClove(), line -> { });
        List<Path> cf = CloveFiles.write(dir, "vecflow lab clove (test)", tinyClove(), c);
        assertThat(Files.readAllLines(dir.resolve("clove.csv"))).hasSize(1 + 2 * 3);
        for (CloveLab.Row r : c.rows()) {
            if (r.scheme().equals("ecmp")) {
                assertThat(r.normMean().mean()).isEqualTo(1.0);
            }
            assertThat(r.flows()).isPositive();
        }
        List<Path> pngs = new ArrayList<>();
        for (Path p : concat(sf, cf)) {
            if (p.toString().endsWith(".png")) {
                pngs.add(p);
            }
        }
        assertThat(pngs).hasSize(3 + 4);
        for (Path p : pngs) {
            BufferedImage img = ImageIO.read(p.toFile());
            assertThat(img).as(p.toString()).isNotNull();
            assertThat(img.getWidth()).isEqualTo(Plots.WIDTH);
            assertThat(img.getHeight()).isEqualTo(Plots.HEIGHT);
            Set<Integer> colours = new HashSet<>();
            long nonWhite = 0;
            for (int y = 0; y < img.getHeight(); y += 2) {
                for (int x = 0; x < img.getWidth(); x += 2) {
                    int rgb = img.getRGB(x, y) & 0xFFFFFF;
                    colours.add(rgb);
                    if (rgb != 0xFFFFFF) {
                        nonWhite++;
                    }
                }
            }
            assertThat(colours.size()).as(p + " colours").isGreaterThan(20);
            assertThat(nonWhite).as(p + " non-white pixels").isGreaterThan(img.getWidth() * img.getHeight() / 4 / 10);
        }
    }

    private static List<Path> concat(List<Path> a, List<Path> b) {
        List<Path> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    static String clickhouseUrl() {
        String u = System.getenv("VECFLOW_TEST_CLICKHOUSE_URL");
        return u == null || u.isBlank() ? "http://127.0.0.1:18123" : u;
    }

    @Test
    void everyLabPanelQueryReturnsRowsAfterALabRun() throws Exception {
        String db = "lab_test_" + Long.toHexString(System.nanoTime() & 0xFFFFFFFL);
        LabClickHouse ch = new LabClickHouse(clickhouseUrl(), db);
        try {
            Instant start = Instant.now();
            assertThat(LabDb.writeSrlb(ch, start, LabClickHouse.newRunId(start), SrlbLab.run(tinySrlb(), l -> { })))
                    .isEqualTo(6 + 2);
            assertThat(LabDb.writeClove(ch, start, LabClickHouse.newRunId(start), CloveLab.run(tinyClove(), l -> { })))
                    .isEqualTo(6);
            JsonNode d = JSON.readTree(Path.of("..", "dashboards", "json", "vecflow", "load-balancer.json").toFile());
            int queries = 0;
            boolean inLab = false;
            for (JsonNode p : d.path("panels")) {
                if (p.path("type").asText().equals("row")) {
                    inLab = p.path("title").asText().startsWith("Lab");
                    continue;
                }
                if (!inLab) {
                    continue;
                }
                for (JsonNode t : p.path("targets")) {
                    String sql = t.path("rawSql").asText().replace("${database}", db);
                    assertThat(sql).as("only ${database} is used by the Lab panels").doesNotContain("$");
                    String out = ch.exec(sql + "\nFORMAT TabSeparated");
                    List<String> lines = out.lines().toList();
                    assertThat(lines).as(p.path("title").asText() + ": " + sql).isNotEmpty();
                    boolean nonZero = false;
                    for (String l : lines) {
                        for (String cell : l.split("\t")) {
                            if (cell.matches("-?[0-9.]+(e-?[0-9]+)?") && Double.parseDouble(cell) != 0) {
                                nonZero = true;
                            }
                        }
                    }
                    assertThat(nonZero).as(p.path("title").asText() + " has a non-zero number").isTrue();
                    queries++;
                }
            }
            assertThat(queries).as("Lab panel queries").isEqualTo(3);
            // the response-time panel shows one series per dispatcher of the primary configuration
            String series = ch.exec("SELECT count(DISTINCT Dispatcher) FROM " + db + ".lab_srlb WHERE IsPrimary = 1 "
                    + "FORMAT TabSeparated").strip();
            assertThat(series).isEqualTo("3");
        } finally {
            ch.exec("DROP DATABASE IF EXISTS " + URLEncoder.encode(db, StandardCharsets.UTF_8));
        }
    }

    /**
     * A collector started by the {@code vecflow} command creates the lab's tables next to its own (they are lab's,
     * handed to the collector as extra tables), so the Lab panels' queries run before any lab run.
     */
    @Test
    void aCollectorWithTheLabTablesCreatesThemSoTheLabPanelsRunBeforeALabRun() throws Exception {
        String db = "lab_coll_" + Long.toHexString(System.nanoTime() & 0xFFFFFFFL);
        ClickHouseSink.Settings s = ClickHouseSink.Settings.of(clickhouseUrl());
        s.database = db;
        s.extraTables = LabTables.TABLES;
        try (ClickHouseSink sink = new ClickHouseSink(s)) {
            assertThat(sink.connected()).isTrue();
            assertThat(query("SELECT name FROM system.tables WHERE database = '" + db + "' AND name LIKE 'lab_%' "
                    + "ORDER BY name FORMAT TabSeparated").lines().toList())
                    .containsExactly("lab_clove", "lab_sla", "lab_srlb");
            JsonNode d = JSON.readTree(Path.of("..", "dashboards", "json", "vecflow", "load-balancer.json").toFile());
            int queries = 0;
            boolean inLab = false;
            for (JsonNode p : d.path("panels")) {
                if (p.path("type").asText().equals("row")) {
                    inLab = p.path("title").asText().startsWith("Lab");
                    continue;
                }
                for (JsonNode t : inLab ? p.path("targets") : JSON.createArrayNode()) {
                    String sql = t.path("rawSql").asText().replace("${database}", db);
                    query(sql + "\nFORMAT TabSeparated"); // runs: its tables and columns exist
                    queries++;
                }
            }
            assertThat(queries).as("Lab panel queries").isEqualTo(3);
        } finally {
            query("DROP DATABASE IF EXISTS " + db);
        }
    }

    /** One statement over ClickHouse's HTTP interface; fails with the server's answer. */
    private static String query(String sql) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(clickhouseUrl()))
                .POST(HttpRequest.BodyPublishers.ofString(sql)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(sql + ": " + r.body()).isEqualTo(200);
        return r.body();
    }
}
