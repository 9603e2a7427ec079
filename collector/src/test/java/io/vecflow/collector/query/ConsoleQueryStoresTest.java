package io.vecflow.collector.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vecflow.collector.Collector;
import io.vecflow.collector.ConsoleFixture;
import io.vecflow.collector.TestSupport;
import io.vecflow.collector.console.ApiHandler;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.sink.clickhouse.ClickHouseSinkTestSupport;
import io.vecflow.collector.sink.duckdb.DuckDbStore;
import java.math.BigDecimal;
import java.math.MathContext;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kind of console query gives the same answer on real DuckDB and real ClickHouse over the same rows:
 * {@link ConsoleFixture}'s datagrams go through a real inlet into a Kafka raw topic, and two outlets (consumer groups
 * of their own) decode the same records, one into the embedded store, one into the dev ClickHouse (database
 * {@code cq_…}); so the rows, their receive times included, are the same in both. Then each query model the
 * console's pages send (every source, line and sankey graphs, dimensions of every column kind, every filter
 * operator, rows, validation, table choice) is answered by both stores' {@link ConsoleApi}, and the answers compared
 * with the SQL text left out and numbers to 9 significant digits. Needs the dev ClickHouse and Kafka (fails loudly
 * without).
 */
class ConsoleQueryStoresTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(15);
    @TempDir
    static Path dir;
    private static String db;
    private static DuckDbStore duck;
    private static JdbcQueryRunner duckRunner;
    private static ConsoleApi duckApi;
    private static ConsoleApi chApi;
    private static String range;

    @BeforeAll
    static void ingest() throws Exception {
        String topic = "vecflow-cq-" + TestSupport.suffix();
        db = "cq_" + TestSupport.suffix();
        List<byte[]> datagrams = ConsoleFixture.datagrams();
        Collector.Settings in = new Collector.Settings();
        in.role = Collector.Role.INLET;
        in.bindAddress = "127.0.0.1";
        in.port = 0;
        in.threads = 1;
        in.kafkaBootstrap = TestSupport.kafkaBootstrap();
        in.kafkaRawTopic = topic;
        in.kafkaPartitions = 1;
        in.spoolDirectory = dir.resolve("spool");
        try (Collector c = new Collector(in); TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            tx.sendPaced(datagrams, 16, () -> c.stats().datagramsReceived.sum());
            TestSupport.await("the inlet took every datagram", WAIT,
                    () -> c.stats().datagramsReceived.sum() == datagrams.size());
            TestSupport.await("every datagram in Kafka", WAIT, () -> c.kafkaRaw().written() == datagrams.size());
        }
        Collector.Settings toDuck = outlet(topic, "duck");
        toDuck.duckdbPath = dir.resolve("vecflow.duckdb");
        Collector.Settings toCh = outlet(topic, "ch");
        toCh.clickhouseUrl = TestSupport.clickhouseUrl();
        toCh.clickhouseDatabase = db;
        for (Collector.Settings s : List.of(toDuck, toCh)) {
            try (Collector c = new Collector(s)) {
                TestSupport.await("the outlet joined", WAIT, () -> c.outlet().hasPartitions());
                assertThat(c.outlet().awaitCaughtUp(WAIT.toMillis())).as("outlet caught up").isTrue();
                c.flush();
            }
        }
        duck = new DuckDbStore(dir.resolve("vecflow.duckdb"), "vecflow");
        duckRunner = duck.queryRunner();
        duckApi = new ConsoleApi(duckRunner, SqlDialect.duckDb(), "vecflow test");
        ClickHouseHttpQueryRunner ch = new ClickHouseHttpQueryRunner(URI.create(TestSupport.clickhouseUrl()), db,
                null, null);
        chApi = new ConsoleApi(ch, SqlDialect.clickHouse(FlowSchema.ServerFeatures.fromVersion(ch.serverVersion())),
                "vecflow test");
        List<String> r = duck.query("SELECT CAST(epoch(min(TimeReceived)) AS BIGINT), "
                + "CAST(epoch(max(TimeReceived)) AS BIGINT) FROM flows").getFirst();
        Instant start = Instant.ofEpochSecond(Long.parseLong(r.get(0))).truncatedTo(ChronoUnit.MINUTES);
        Instant end = Instant.ofEpochSecond(Long.parseLong(r.get(1))).truncatedTo(ChronoUnit.MINUTES).plusSeconds(120);
        range = "\"start\":\"" + start + "\",\"end\":\"" + end + "\"";
    }

    private static Collector.Settings outlet(String topic, String name) {
        Collector.Settings s = new Collector.Settings();
        s.role = Collector.Role.OUTLET;
        s.kafkaBootstrap = TestSupport.kafkaBootstrap();
        s.kafkaRawTopic = topic;
        s.kafkaConsumerGroup = topic + "-" + name;
        s.kafkaOffsetReset = "earliest";
        s.clickhouseFlushMs = 200;
        return s;
    }

    @AfterAll
    static void close() throws Exception {
        if (duckRunner != null) {
            duckRunner.close();
            duck.close();
        }
        ClickHouseSinkTestSupport.query("DROP DATABASE IF EXISTS " + db);
    }

    /** Both stores' answers to one request (200 each), normalised: DuckDB's, then ClickHouse's. */
    private static JsonNode[] both(String path, String body) throws Exception {
        ApiHandler.Response d = duckApi.handle(body == null ? "GET" : "POST", path, body);
        ApiHandler.Response c = chApi.handle(body == null ? "GET" : "POST", path, body);
        assertThat(d.status()).as("DuckDB " + path + " " + body + ": " + d.json()).isEqualTo(200);
        assertThat(c.status()).as("ClickHouse " + path + " " + body + ": " + c.json()).isEqualTo(200);
        return new JsonNode[] {normal(JSON.readTree(d.json())), normal(JSON.readTree(c.json()))};
    }

    /** Both stores' answer to one request, compared; returns DuckDB's. */
    private static JsonNode same(String path, String body) throws Exception {
        JsonNode[] a = both(path, body);
        assertThat(a[1].toPrettyString()).as(path + " " + body).isEqualTo(a[0].toPrettyString());
        return a[0];
    }

    /** Drops {@code sql} and {@code store}/{@code version}; numbers to 9 significant digits; rows sorted. */
    private static JsonNode normal(JsonNode n) {
        if (n.isObject()) {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!List.of("sql", "store", "version").contains(e.getKey())) {
                    o.set(e.getKey(), normal(e.getValue()));
                }
            }
            return o;
        }
        if (n.isArray()) {
            ArrayNode a = JsonNodeFactory.instance.arrayNode();
            n.forEach(x -> a.add(normal(x)));
            return a;
        }
        if (n.isNumber()) {
            return JsonNodeFactory.instance.numberNode(new BigDecimal(n.asText()).round(new MathContext(9))
                    .stripTrailingZeros());
        }
        return n;
    }

    private static String line(String source, String metric, String dims, String filter, int limit) {
        return "{\"source\":\"" + source + "\"," + range + ",\"metric\":\"" + metric + "\",\"dimensions\":" + dims
                + ",\"filter\":" + JSON.valueToTree(filter) + ",\"limit\":" + limit + ",\"points\":20}";
    }

    @Test
    void flowGraphsByEveryColumnKindAndMetricAgree() throws Exception {
        JsonNode total = same("graph/line", line("flows", "samples", "[]", "", 10));
        assertThat(total.path("total").get(0).asDouble()).isPositive();
        for (String metric : List.of("bps", "pps", "samples")) {
            same("graph/line", line("flows", metric, "[\"Proto\"]", "", 3));
        }
        for (String dims : List.of("[\"SrcAddr\"]", "[\"DstAddr\",\"DstPort\"]", "[\"EType\"]",
                "[\"AgentAddress\",\"InIf\"]", "[\"Vlan\"]", "[\"SrcAS\"]", "[\"Direction\"]", "[\"DstASPath\"]",
                "[\"SrcMAC\"]", "[\"ForwardingStatus\"]", "[\"TCPFlags\",\"IPTos\"]")) {
            JsonNode g = same("graph/line", line("flows", "bps", dims, "", 5));
            assertThat(g.path("rows").size()).as(dims).isPositive();
        }
        JsonNode sankey = same("graph/sankey", line("flows", "pps", "[\"EType\",\"Proto\",\"DstPort\"]", "", 5));
        assertThat(sankey.path("links").size()).isPositive();
        same("graph/sankey", line("flows", "bps", "[\"SrcAddr\",\"DstAddr\"]", "", 10));
    }

    @Test
    void everyFilterOperatorSelectsTheSameRows() throws Exception {
        List<String> filters = List.of("Proto = tcp", "proto != UDP", "SrcPort < 1024", "SrcPort <= 1024",
                "DstPort > 1024", "DstPort >= 1024", "SrcAS = AS203476", "DstPort IN (22, 53, 443, 52237)",
                "DstPort NOTIN (53)", "EType = IPv6", "SrcAddr = 52.52.52.52", "SrcAddr << 50.0.0.0/7",
                "DstAddr !<< 2001:db8::/32", "AgentAddress << 30::/16", "InIfName LIKE 'eth%'",
                "InIfName ILIKE 'ETH%'", "InIfName UNLIKE 'x%'", "InIfName IUNLIKE 'X%'", "SrcPort = DstPort",
                "Direction = ingress",
                "Direction = egress OR Direction = undefined", "NOT (Proto = tcp AND SrcPort > 1000)",
                "(Proto = icmp OR Proto = icmpv6) AND -- a comment\n EType != 0", "DstASPath = 29605",
                "SrcMAC = 00:fe:c8:99:05:47", "DstMAC IN (01-00-5e-2a-aa-04, 00:00:00:00:00:01)",
                "Vlan >= 1 AND Vlan <= 4094", "SrcMAC != DstMAC");
        List<String> selecting = new ArrayList<>();
        for (String f : filters) {
            ApiHandler.Response v = duckApi.handle("POST", "filter/validate", "{\"source\":\"flows\",\"filter\":"
                    + JSON.valueToTree(f) + "}");
            assertThat(v.json()).as(f).contains("\"valid\":true");
            JsonNode g = same("graph/line", line("flows", "samples", "[\"Proto\"]", f, 5));
            if (g.path("rows").size() > 0) {
                selecting.add(f);
            }
        }
        // most filters select rows of the fixture (so the comparisons are not of empty answers)
        assertThat(selecting).hasSizeGreaterThan(filters.size() * 2 / 3).contains("Proto = tcp",
                "SrcAddr = 52.52.52.52", "SrcMAC != DstMAC", "DstASPath = 29605", "AgentAddress << 30::/16");
        same("filter/validate", "{\"source\":\"flows\",\"filter\":\"Proto = tcp AND\"}");
    }

    @Test
    void dropsLoadBalancerAndAgentsAgree() throws Exception {
        JsonNode drops = same("graph/line", line("drops", "pps", "[\"DiscardReasonName\"]", "", 10));
        assertThat(drops.path("rows").toString()).contains("host_unreachable");
        same("graph/line", line("drops", "pps", "[\"AgentAddress\",\"InIf\"]", "", 10));
        JsonNode lb = same("graph/line", line("lb_decisions", "flows", "[\"VIP\",\"Backend\"]", "", 20));
        assertThat(lb.path("rows").size()).isEqualTo(6);
        same("graph/sankey", line("lb_decisions", "flows", "[\"VIP\",\"Backend\"]", "", 20));
        JsonNode choice = same("graph/line", line("lb_decisions", "samples", "[\"ChoiceIndex\",\"Decision\"]",
                "Algorithm = 'srlb'", 5));
        assertThat(choice.path("total").toString()).isEqualTo("[" + ConsoleFixture.SRLB_FIRST + ","
                + ConsoleFixture.SRLB_SECOND + "]");
        // agents rows are written at each outlet's commit (its own clock): compare what they counted, not when
        for (String metric : List.of("samples", "samples_lost", "datagrams", "datagrams_lost", "reported_drops")) {
            String body = "{\"source\":\"agents\",\"start\":\"" + Instant.now().minusSeconds(3600) + "\",\"end\":\""
                    + Instant.now().plusSeconds(60) + "\",\"metric\":\"" + metric
                    + "\",\"dimensions\":[\"AgentAddress\"],\"limit\":50,\"points\":5}";
            JsonNode[] both = both("graph/line", body);
            JsonNode d = both[0];
            JsonNode c = both[1];
            assertThat(c.path("rows")).as(metric).isEqualTo(d.path("rows"));
            assertThat(c.path("total")).as(metric).isEqualTo(d.path("total"));
            assertThat(d.path("rows").size()).as(metric).isGreaterThanOrEqualTo(10);
        }
    }

    @Test
    void rowsConfigurationAndTableChoiceAgree() throws Exception {
        for (String source : List.of("flows", "drops", "lb_decisions")) {
            String body = "{\"source\":\"" + source + "\"," + range + ",\"limit\":500}";
            JsonNode[] both = both("rows", body);
            JsonNode d = both[0];
            JsonNode c = both[1];
            assertThat(c.path("columns")).isEqualTo(d.path("columns"));
            // newest first; rows of the same second in any order
            assertThat(sorted(c.path("rows"))).as(source).isEqualTo(sorted(d.path("rows")));
            assertThat(d.path("rows").size()).as(source).isPositive();
        }
        JsonNode[] cfg = both("configuration", null);
        assertThat(cfg[1].path("sources")).isEqualTo(cfg[0].path("sources"));
        assertThat(cfg[1].path("range")).isEqualTo(cfg[0].path("range"));
        same("graph/table-interval", "{\"source\":\"flows\"," + range + ",\"points\":20}");
    }

    private static List<String> sorted(JsonNode rows) {
        List<String> out = new ArrayList<>();
        rows.forEach(r -> out.add(r.toString()));
        out.sort(null);
        return out;
    }
}
