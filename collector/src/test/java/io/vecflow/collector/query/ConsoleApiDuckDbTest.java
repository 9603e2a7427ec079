package io.vecflow.collector.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vecflow.collector.ConsoleFixture;
import io.vecflow.collector.console.ApiHandler;
import io.vecflow.collector.sink.duckdb.DuckDbStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console API over a real embedded store: every capture of testdata/sflow through a real collector into DuckDB,
 * then the API's answers checked against SQL counted independently on the same file; malformed and hostile query
 * models get a 400 naming the field (and the filter position), never a stack trace.
 */
class ConsoleApiDuckDbTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    static Path dir;
    private static DuckDbStore store;
    private static JdbcQueryRunner runner;
    private static ConsoleApi api;
    private static String start;
    private static String end;

    @BeforeAll
    static void ingest() throws Exception {
        ConsoleFixture.replay(ConsoleFixture.embedded(dir.resolve("vecflow.duckdb")), ConsoleFixture.datagrams());
        store = new DuckDbStore(dir.resolve("vecflow.duckdb"), "vecflow");
        runner = store.queryRunner();
        api = new ConsoleApi(runner, SqlDialect.duckDb(), "vecflow test");
        List<String> r = store.query("SELECT CAST(epoch(min(TimeReceived)) AS BIGINT), "
                + "CAST(epoch(max(TimeReceived)) AS BIGINT) FROM flows").getFirst();
        start = Instant.ofEpochSecond(Long.parseLong(r.get(0))).toString();
        end = Instant.ofEpochSecond(Long.parseLong(r.get(1)) + 1).toString();
    }

    @AfterAll
    static void close() {
        runner.close();
        store.close();
    }

    private static JsonNode ok(String path, String body) throws Exception {
        ApiHandler.Response r = api.handle(body == null ? "GET" : "POST", path, body);
        assertThat(r.status()).as(path + " " + r.json()).isEqualTo(200);
        return JSON.readTree(r.json());
    }

    private static long sql(String q) throws Exception {
        return (long) Double.parseDouble(store.query(q).getFirst().getFirst());
    }

    @Test
    void configurationNamesTheStoreItsSourcesAndTheStoredRange() throws Exception {
        JsonNode c = ok("configuration", null);
        assertThat(c.path("store").asText()).isEqualTo("duckdb");
        assertThat(c.path("range").path("oldest").asText()).isEqualTo(start);
        assertThat(c.path("sources").path("flows").path("metrics").toString())
                .isEqualTo("[\"bps\",\"pps\",\"samples\"]");
        assertThat(c.path("sources").path("flows").path("dimensions").toString()).contains("\"SrcAddr\"")
                .doesNotContain("\"Bytes\"");
    }

    @Test
    void aLineGraphCountsEachSampleOnceByDirection() throws Exception {
        JsonNode g = ok("graph/line", "{\"source\":\"flows\",\"start\":\"" + start + "\",\"end\":\"" + end
                + "\",\"metric\":\"samples\",\"points\":10}");
        assertThat(g.path("rows").toString()).isEqualTo("[[\"Total\"]]");
        long expected = sql("SELECT count(*) FROM flows WHERE Direction != 'egress'");
        assertThat(expected).isPositive();
        assertThat(Math.round(g.path("total").get(0).asDouble())).isEqualTo(expected);
        // By protocol, top 2 and Other: the rows add up to the same total.
        JsonNode p = ok("graph/line", "{\"source\":\"flows\",\"start\":\"" + start + "\",\"end\":\"" + end
                + "\",\"metric\":\"pps\",\"dimensions\":[\"proto\"],\"limit\":2,\"points\":10}");
        double sum = 0;
        for (JsonNode t : p.path("total")) {
            sum += t.asDouble();
        }
        assertThat(Math.round(sum)).isEqualTo(sql(
                "SELECT sum(Packets * SamplingRate) FROM flows WHERE Direction != 'egress'"));
        assertThat(p.path("rows").get(0).get(0).asText()).isIn("TCP", "UDP", "ICMP", "ICMPV6", "ICMPv6");
        assertThat(p.path("t").size()).isEqualTo(p.path("points").get(0).size());
    }

    @Test
    void aFilterNarrowsTheGraphAndASankeyLinksTheDimensions() throws Exception {
        JsonNode g = ok("graph/line", "{\"source\":\"flows\",\"start\":\"" + start + "\",\"end\":\"" + end
                + "\",\"metric\":\"samples\",\"filter\":\"Proto = tcp AND SrcAddr << 0.0.0.0/0\"}");
        assertThat(Math.round(g.path("total").get(0).asDouble())).isEqualTo(sql(
                "SELECT count(*) FROM flows WHERE Direction != 'egress' AND Proto = 6 AND SrcAddr BETWEEN "
                        + "'\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\xFF\\xFF\\x00\\x00\\x00\\x00'::BLOB "
                        + "AND '\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\xFF\\xFF"
                        + "\\xFF\\xFF\\xFF\\xFF'::BLOB"));
        JsonNode s = ok("graph/sankey", "{\"source\":\"flows\",\"start\":\"" + start + "\",\"end\":\"" + end
                + "\",\"metric\":\"samples\",\"dimensions\":[\"EType\",\"Proto\"]}");
        assertThat(s.path("links").size()).isPositive();
        assertThat(s.path("nodes").get(0).asText()).startsWith("EType: ");
        JsonNode rows = ok("rows", "{\"source\":\"flows\",\"start\":\"" + start + "\",\"end\":\"" + end
                + "\",\"limit\":5}");
        assertThat(rows.path("rows").size()).isEqualTo(5);
        assertThat(rows.path("columns").get(0).asText()).isEqualTo("TimeReceived");
    }

    @Test
    void badQueryModelsAre400sNamingTheFieldNeverAStackTrace() {
        String range = "\"start\":\"" + start + "\",\"end\":\"" + end + "\"";
        String[][] cases = {
            {"graph/line", "{\"source\":\"flows\"," + range + ",\"filter\":\"Proto = tcp AND\"}", "filter: "},
            {"graph/line", "{\"source\":\"flows\"," + range + ",\"dimensions\":[\"Bytes\"]}", "dimensions: "},
            {"graph/line", "{\"source\":\"nope\"," + range + "}", "source: "},
            {"graph/line", "{\"source\":\"flows\"," + range + ",\"points\":1000000}", "points: "},
            {"graph/line", "{\"source\":\"flows\",\"start\":\"yesterday\",\"end\":\"" + end + "\"}", "start: "},
            {"graph/line", "[1,2,3]", "body: "},
            {"graph/line", "{\"source\":", "body: not valid JSON"},
            {"graph/line", "{\"source\":\"flows\"," + range
                + ",\"filter\":\"SrcAddr = '1' OR 1=1; DROP TABLE flows\"}", "filter: "},
        };
        for (String[] c : cases) {
            ApiHandler.Response r = api.handle("POST", c[0], c[1]);
            assertThat(r.status()).as(c[1]).isEqualTo(400);
            assertThat(r.json()).as(c[1]).contains("\"error\":\"" + c[2]).doesNotContain("Exception")
                    .doesNotContain("\tat ");
        }
        ApiHandler.Response r = api.handle("POST", "graph/line", cases[0][1]);
        assertThat(r.json()).contains("\"position\":15");
        assertThat(api.handle("GET", "graph/line", "").status()).isEqualTo(405);
        assertThat(api.handle("GET", "nothing", "").status()).isEqualTo(404);
    }
}
