package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.inlet.DatagramProcessor;
import io.vecflow.collector.inlet.KafkaRawSink;
import io.vecflow.collector.query.JdbcQueryRunner;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.sink.FlowSink;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outlet role as its own process, killed with SIGKILL in the middle of a 100,000-datagram run and started again:
 * the store ends with every datagram's rows exactly once (offsets are committed only after the rows are stored; the
 * replay after the crash skips what the store already holds). Both stores: ClickHouse and the embedded DuckDB file
 * (which only one process may open: progress is read from the outlet's own metrics while it runs, the file after it
 * stopped). Real Kafka and ClickHouse.
 */
class OutletCrashTest {
    private static final int DATAGRAMS = 100_000;

    @TempDir
    Path dir;

    private static Process start(Path config, Path log) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-cp",
                System.getProperty("java.class.path"), VecflowCommand.class.getName(), "collector", "--config",
                config.toString()));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(
                java.lang.ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    /** The store's answer to a query of one number per column, tab-separated. */
    private static String sql(String store, Path duckdb, String db, String query) throws Exception {
        if (store.equals("clickhouse")) {
            return TestEnv.clickhouse(query.replace("{db}", db + ".") + " FORMAT TabSeparated").trim();
        }
        try (JdbcQueryRunner r = JdbcQueryRunner.readOnly(duckdb, "vecflow")) {
            List<String> row = r.query(query.replace("{db}", ""), Duration.ofSeconds(30)).getFirst();
            return String.join("\t", row.stream().map(v -> v == null ? "0" : v.replaceAll("\\.0$", "")).toList());
        }
    }

    /** Rows the running outlet has written so far (its metrics). */
    private static long written(int metricsPort, String sink) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + metricsPort + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        for (String line : r.body().split("\n")) {
            if (line.startsWith("vecflow_collector_sink_rows_total{") && line.contains("result=\"written\"")
                    && line.contains("sink=\"" + sink + "\"")) {
                return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return 0;
    }

    private static int freePort() throws Exception {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"clickhouse", "duckdb"})
    void sigkillMidRunThenRestartStoresEveryRowExactlyOnce(String store) throws Exception {
        List<byte[]> payloads = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(PeerJudges.DIR, "*.pcap")) {
            for (Path p : ds) {
                payloads.addAll(SflowCaptures.udpPayloads(p));
            }
        }
        // The rows each datagram gives, counted by the real decoder.
        CollectorStats st = new CollectorStats();
        long[] perDatagram = new long[payloads.size()];
        long[] n = new long[1];
        FlowSink count = new FlowSink() {
            @Override public void accept(FlowRow row) {
                if (row.sampleType == FlowRow.FLOW) {
                    n[0]++;
                }
            }
            @Override public void flush() {}
            @Override public long rowsWritten() { return 0; }
            @Override public long rowsFailed() { return 0; }
            @Override public String name() { return "count"; }
            @Override public void close() {}
        };
        DatagramProcessor dp = new DatagramProcessor(st.decode, st, List.of(), List.of(count));
        for (int i = 0; i < payloads.size(); i++) {
            long before = n[0];
            byte[] d = payloads.get(i);
            dp.process(d, 0, d.length, 1L, new byte[16], 6343);
            perDatagram[i] = n[0] - before;
        }
        long expected = 0;
        CollectorStats all = new CollectorStats();
        DatagramProcessor loss = new DatagramProcessor(all.decode, all, List.of(), List.of());
        List<byte[]> load = new ArrayList<>();
        for (int i = 0; i < DATAGRAMS; i++) {
            expected += perDatagram[i % payloads.size()];
            // Each copy a datagram of its own (rising sequence and uptime), not a duplicate the collector leaves out.
            byte[] d = payloads.get(i % payloads.size()).clone();
            io.vecflow.sflow.DatagramHeader.rewriteSequence(d, 0, d.length, 1 + i, 10L * (1 + i));
            load.add(d);
            loss.process(d, 0, d.length, 1L, new byte[16], 6343);
        }
        long expectedDatagrams = all.loss.totals()[0];
        assertThat(expected).isGreaterThan(20_000);

        String sfx = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        String topic = "vecflow-raw-crash-" + sfx;
        String db = "crash_" + sfx;
        try (KafkaRawSink raw = new KafkaRawSink(TestEnv.kafka(), topic, 4)) {
            byte[] src = new byte[16];
            long t0 = System.currentTimeMillis() * 1_000_000L;
            for (int i = 0; i < DATAGRAMS; i++) {
                byte[] d = load.get(i);
                raw.accept(d, 0, d.length, t0 + i, src, 6343);
            }
            raw.flush();
            assertThat(raw.written()).isEqualTo(DATAGRAMS);
        }
        Path config = dir.resolve("outlet.yaml");
        Path duckdb = dir.resolve("vecflow.duckdb");
        int metrics = freePort();
        String sink = store.equals("clickhouse")
                ? "clickhouse:\n  url: \"" + TestEnv.clickhouseUrl() + "\"\n  database: " + db
                        + "\n  batch-rows: 2000\n  flush-ms: 100"
                : "clickhouse:\n  batch-rows: 2000\n  flush-ms: 100\nduckdb:\n  path: \"" + duckdb + "\"";
        Files.writeString(config, String.join("\n",
                "role: outlet",
                "kafka:",
                "  bootstrap: \"" + TestEnv.kafka() + "\"",
                "  raw-topic: " + topic,
                "  consumer-group: outlet-" + sfx,
                sink,
                "metrics:",
                "  listen: 127.0.0.1",
                "  port: " + metrics,
                ""));
        Path log = dir.resolve("outlet.log");
        Process first = start(config, log);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (first.isAlive() && writtenQuietly(metrics, store) < expected / 4) {
                assertThat(System.nanoTime()).as("a quarter of the rows within 60 s: %s", Files.readString(log))
                        .isLessThan(deadline);
                Thread.sleep(20);
            }
            assertThat(first.isAlive()).as("outlet alive: %s", Files.readString(log)).isTrue();
        } finally {
            first.destroyForcibly(); // SIGKILL: no flush, no commit
            first.waitFor(10, TimeUnit.SECONDS);
        }
        long atKill = Long.parseLong(sql(store, duckdb, db, "SELECT count(*) FROM {db}flows"));
        System.out.printf("%s: outlet killed with %,d of %,d rows stored%n", store, atKill, expected);
        assertThat(atKill).isPositive().isLessThan(expected);

        Process second = start(config, log);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (writtenQuietly(metrics, store) < expected - atKill && System.nanoTime() < deadline
                    && second.isAlive()) {
                Thread.sleep(100);
            }
            Thread.sleep(1500); // anything beyond the expected count would show up now
        } finally {
            second.destroy(); // SIGTERM: flush, commit, counters
            assertThat(second.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        String out = Files.readString(log);
        System.out.println(out);
        assertThat(sql(store, duckdb, db, "SELECT count(*) FROM {db}flows")).as("rows after the restart; log: %s", out)
                .isEqualTo(Long.toString(expected));
        // Exactly once: no datagram's rows twice — (partition, offset, sample) is unique.
        assertThat(sql(store, duckdb, db, "SELECT count(*) FROM (SELECT DISTINCT IngestStream, IngestOffset, "
                + "SampleSequence, SourceIdIndex, SourceIdType FROM {db}flows) AS d"))
                .isEqualTo(Long.toString(expected));
        assertThat(out).contains("replays skipped");
        // The agents table (loss accounting) carries the offsets it counted: the replay after the kill counts each
        // datagram once, wherever the kill landed (between the agents insert and the commit too), and never as
        // reordering.
        assertThat(sql(store, duckdb, db, "SELECT sum(Datagrams), sum(DatagramsReordered), sum(DatagramsDuplicated) "
                + "FROM {db}agents WHERE SampleFamily = 255")).isEqualTo(expectedDatagrams + "\t0\t0");
        if (store.equals("clickhouse")) {
            TestEnv.clickhouse("DROP DATABASE IF EXISTS " + db);
        }
    }

    private static long writtenQuietly(int metricsPort, String store) {
        try {
            return written(metricsPort, store);
        } catch (Exception e) {
            return 0; // not listening yet
        }
    }
}
