package io.vecflow.bench;

import io.vecflow.collector.console.ApiHandler;
import io.vecflow.collector.query.ClickHouseHttpQueryRunner;
import io.vecflow.collector.query.ConsoleApi;
import io.vecflow.collector.query.JdbcQueryRunner;
import io.vecflow.collector.query.QueryRunner;
import io.vecflow.collector.query.SqlDialect;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.sink.clickhouse.ClickHouseSink;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The console's Visualize query over {@code rows} flow rows (default 1,000,000) on each store: the rows (24 hours,
 * 20 agents × 48 interfaces, 10,000 source and 1,000 destination addresses, TCP/UDP/ICMP, ports, 64–1500 bytes,
 * sampling 1-in-1000) are written through the collector's own sink ({@link ClickHouseSink}: DuckDB's file with its
 * rollup feeds, or ClickHouse's tables and materialized views), then {@link ConsoleApi#handle} answers POST
 * graph/line as the browser sends it: 24 hours, 200 points, top 10 + Other, bps. One operation = one answered query
 * (the score is ms per query; goal < 1000 ms).
 *
 * <ul>
 *   <li>{@code query=rollup}: by Proto with {@code Proto != icmp} — the table choice picks {@code flows_5m};
 *   <li>{@code query=raw}: by SrcAddr, DstPort with {@code DstPort IN (80, 443, 53)} — the rollups lack the
 *       addresses, so the raw {@code flows} table (1 M rows) answers.
 *   <li>{@code query=sankey}: graph/sankey by Proto, SrcAddr, DstAddr (raw table).
 * </ul>
 *
 * <p>ClickHouse: {@code VECFLOW_BENCH_CLICKHOUSE_URL} (default {@code http://127.0.0.1:8123}), database
 * {@code vecflow_bench_console} (filled once and reused while it holds {@code rows} rows of this layout). DuckDB: a
 * file in a temporary directory, removed after the trial.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ConsoleQueryBenchmark extends QuietGate {
    /** The store: {@code duckdb} or {@code clickhouse}. */
    @Param({"duckdb", "clickhouse"})
    public String store;
    /** The query (see the class comment). */
    @Param({"rollup", "raw", "sankey"})
    public String query;
    /** Flow rows stored. */
    @Param({"1000000"})
    public int rows;

    private Path dir;
    private AutoCloseable runner;
    private ClickHouseSink duckSink;
    private ConsoleApi api;
    private String path;
    private String body;

    /** Writes the rows (unless ClickHouse holds them already) and checks that the query answers 200. */
    @Setup(Level.Trial)
    public void fill() throws Exception {
        // the rows end at the hour after the fill's start: 24 hours that every query range covers
        Instant end = Instant.now().truncatedTo(ChronoUnit.HOURS).plus(1, ChronoUnit.HOURS);
        Instant start = end.minus(24, ChronoUnit.HOURS);
        QueryRunner qr;
        SqlDialect dialect;
        if (store.equals("duckdb")) {
            dir = Files.createTempDirectory("vecflow-bench-console");
            duckSink = new ClickHouseSink(ClickHouseSink.Settings.duckDb(dir.resolve("vecflow.duckdb")));
            write(duckSink, start);
            JdbcQueryRunner j = duckSink.duckDb().queryRunner();
            runner = j;
            qr = j;
            dialect = SqlDialect.duckDb();
        } else {
            String url = System.getenv().getOrDefault("VECFLOW_BENCH_CLICKHOUSE_URL", "http://127.0.0.1:8123");
            String db = "vecflow_bench_console";
            ClickHouseHttpQueryRunner ch = new ClickHouseHttpQueryRunner(URI.create(url), db, null, null);
            ClickHouseSink.Settings s = ClickHouseSink.Settings.of(url);
            s.database = db;
            s.batchRows = 100_000;
            try (ClickHouseSink sink = new ClickHouseSink(s)) {
                String have = sink.queryString("SELECT count() FROM " + db + ".flows WHERE TimeReceived >= "
                        + "toDateTime(" + start.getEpochSecond() + ")").strip();
                if (!have.equals(Integer.toString(rows))) {
                    sink.execute("TRUNCATE TABLE IF EXISTS " + db + ".flows");
                    for (String t : new String[] {"flows_1m", "flows_5m", "flows_1h"}) {
                        sink.execute("TRUNCATE TABLE IF EXISTS " + db + "." + t);
                    }
                    write(sink, start);
                }
            }
            qr = ch;
            dialect = SqlDialect.clickHouse(FlowSchema.ServerFeatures.fromVersion(ch.serverVersion()));
        }
        api = new ConsoleApi(qr, dialect, "vecflow bench");
        String range = "\"start\":\"" + start + "\",\"end\":\"" + end + "\"";
        switch (query) {
            case "rollup" -> {
                path = "graph/line";
                body = "{\"source\":\"flows\"," + range + ",\"metric\":\"bps\",\"dimensions\":[\"Proto\"],"
                        + "\"filter\":\"Proto != icmp\",\"limit\":10,\"points\":200}";
            }
            case "raw" -> {
                path = "graph/line";
                body = "{\"source\":\"flows\"," + range + ",\"metric\":\"bps\",\"dimensions\":[\"SrcAddr\","
                        + "\"DstPort\"],\"filter\":\"DstPort IN (80, 443, 53)\",\"limit\":10,\"points\":200}";
            }
            case "sankey" -> {
                path = "graph/sankey";
                body = "{\"source\":\"flows\"," + range + ",\"metric\":\"bps\",\"dimensions\":[\"Proto\","
                        + "\"SrcAddr\",\"DstAddr\"],\"limit\":10}";
            }
            default -> throw new IllegalArgumentException("query " + query + ": rollup, raw or sankey");
        }
        ApiHandler.Response r = api.handle("POST", path, body);
        if (r.status() != 200) {
            throw new IllegalStateException(store + " " + query + ": " + r.json());
        }
        com.fasterxml.jackson.databind.JsonNode a = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(r.json());
        System.out.println("\n" + store + " " + query + ": table " + a.path("table").asText() + ", interval "
                + a.path("interval").asText() + " s, rows " + a.path("rows") + (a.has("total") ? ", total "
                + a.path("total") : ", links " + a.path("links").size()));
    }

    /** Writes {@link #rows} flow rows spread over the 24 hours from {@code start} and flushes. */
    private void write(ClickHouseSink sink, Instant start) throws Exception {
        SplittableRandom rnd = new SplittableRandom(42);
        FlowRow r = new FlowRow();
        long t0 = start.getEpochSecond() * 1_000_000_000L;
        long span = 24L * 3600 * 1_000_000_000L;
        int[] ports = {80, 443, 53, 22, 123, 8080, 3306, 5432};
        long began = System.nanoTime();
        for (int i = 0; i < rows; i++) {
            r.ingestStream = 1;
            r.ingestOffset = i + 1;
            r.timeReceivedNanos = t0 + span / rows * i;
            int agent = rnd.nextInt(20);
            mapped(r.agentAddress, 192, 0, 2, 1 + agent);
            mapped(r.peerAddress, 192, 0, 2, 1 + agent);
            r.sampleSequence = i;
            r.sourceIdIndex = 1 + rnd.nextInt(48);
            r.direction = FlowRow.INGRESS;
            r.samplingRate = 1000;
            r.inIf = r.sourceIdIndex;
            r.outIf = 1 + rnd.nextInt(48);
            r.headerProtocol = 1;
            r.etherType = 0x0800;
            int src = rnd.nextInt(10_000);
            mapped(r.srcAddr, 10, 1 + src / 256 % 200, src % 256, 1);
            int dst = rnd.nextInt(1_000);
            mapped(r.dstAddr, 198, 51, dst / 256, dst % 256);
            int p = rnd.nextInt(10);
            r.protocol = p < 6 ? 6 : p < 9 ? 17 : 1;
            r.srcPort = r.protocol == 1 ? 0 : 1024 + rnd.nextInt(60_000);
            r.dstPort = r.protocol == 1 ? 0 : ports[rnd.nextInt(ports.length)];
            r.frameLength = 64 + rnd.nextInt(1437);
            r.bytes = r.frameLength;
            r.packets = 1;
            sink.accept(r);
        }
        sink.flush();
        System.out.printf("%n%s: %,d rows written in %.1f s%n", sink.name(), rows,
                (System.nanoTime() - began) / 1e9);
    }

    private static void mapped(byte[] a16, int a, int b, int c, int d) {
        java.util.Arrays.fill(a16, (byte) 0);
        a16[10] = (byte) 0xFF;
        a16[11] = (byte) 0xFF;
        a16[12] = (byte) a;
        a16[13] = (byte) b;
        a16[14] = (byte) c;
        a16[15] = (byte) d;
    }

    /** Closes the store; removes DuckDB's file. */
    @TearDown(Level.Trial)
    public void close() throws Exception {
        if (runner != null) {
            runner.close();
        }
        if (duckSink != null) {
            duckSink.close();
        }
        if (dir != null) {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                System.err.println("could not remove " + dir + ": " + e.getMessage());
            }
        }
    }

    /** Answers the query. @return the response's JSON (consumed by JMH) */
    @Benchmark
    public String visualize() {
        return api.handle("POST", path, body).json();
    }
}
