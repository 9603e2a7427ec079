package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.vecflow.collector.GrafanaQueryExpander.Context;
import io.vecflow.collector.GrafanaQueryExpander.Variable;
import io.vecflow.collector.enrich.StaticExporter;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.sink.clickhouse.ClickHouseSink;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import io.vecflow.packet.PcapFile;
import io.vecflow.packet.PcapPacket;
import io.vecflow.packet.PcapReader;
import io.vecflow.sflow.DatagramBuilder;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.SflowFormats;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboards under {@code dashboards/json} against the real ClickHouse (18.16 in the test environment).
 *
 * <p>{@link #dashboardJsonIsValid}: every {@code *.json} there parses; uids are unique; every panel, target and query
 * variable uses the provisioned datasource ({@code dashboards/provisioning/datasources/clickhouse.yaml}); every
 * target is a SQL target with {@code rawSql}; grid positions fit the 24-column grid without overlapping; tables are
 * named {@code ${database}.table}; every variable a query names exists.
 *
 * <p>{@link #everyPanelQueryReturnsRowsOnClickHouse}: a collector with a ClickHouse sink (fresh database, schema
 * created by {@link ClickHouseSink}) and static exporter metadata for the agents ({@link #testExporters}) ingests every
 * capture in {@code testdata/sflow} plus datagrams from a synthetic agent (SRv6 flow samples from
 * {@code testdata/traffic/ipv6-srh-*.pcap}, discard samples, one lost datagram, rising sFlow drops counters), records
 * loss accounting, and the test inserts an {@code lb_decisions} fixture (no component writes that table yet) and an
 * enrichment fixture ({@link #enrichmentFixtures}: {@code asns} names and flow rows with AS numbers and countries,
 * which need databases the test does not have). Then every dashboard's variables and panel queries are expanded as
 * Grafana and grafana-clickhouse-datasource do ({@link GrafanaQueryExpander}) for a 1 h, a 2 d and a 30 d range ending
 * now, with every multi-value variable on "All" (custom variables at their saved default), and run: each must succeed,
 * return at least one row, not be all zeros in its numeric columns (an aggregate over nothing still returns one row),
 * and, for time-series targets, carry a DateTime column in ascending order. A second pass selects the first value of
 * every multi-value variable, a third each value of every custom variable (and All), and requires every query to run. A
 * panel added to any dashboard file is covered without changing this test; panels that read the lab module's
 * {@code lab_*} tables (the Load balancer dashboard's Lab row) are left to lab's LabOutputTest, which creates those
 * tables and runs them after a lab run. Then the enrichment panels are held to what the metadata and fixtures imply
 * ({@link #enrichedPanelsShowWhatTheDataImplies}).
 *
 * <p>{@link #aPacketSampledOnIngressAndEgressIsCountedOnceByDefault}: an agent sampling both directions; every Flows
 * panel counts each packet once by default. {@link #backendSharePerVipKeepsEveryBackendOfEveryBucket}: the join of the
 * load balancer's share panel keeps every backend. {@link #dashboardJsonIsValid} also refuses SQL whose meaning
 * depends on the server version ({@link #versionDependentConstructs}) and flows/rollup panels without the direction
 * filter.
 *
 * <p>Database name: the dashboards name tables as {@code ${database}.table}, {@code database} being a hidden constant
 * variable ({@code vecflow}, the provisioned {@code defaultDatabase}); the test sets that variable to its own
 * database. Fully qualified names are needed because ClickHouse 18.16 ignores the client's default database.
 * {@code -Dvecflow.test.keepDatabase=true} keeps the database for working on queries by hand;
 * {@code -Dvecflow.test.printResults=true} prints each query's first rows.
 */
class DashboardQueriesTest {
    static final String DATASOURCE_UID = "vecflow-clickhouse";
    static final String DATASOURCE_TYPE = "grafana-clickhouse-datasource";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(15);
    /** Lab agent of the synthetic datagrams. */
    private static final byte[] LAB_AGENT = {10, 9, 9, 9};
    private static final long LAB_SUB_AGENT = 100000;
    /** Final segment (Segment List[0]) of the SRH in ipv6-srh-insert-cksum.pcap; the fixture's SRLB VIP. */
    private static final String SRLB_VIP = "b2::2";

    static Path dashboardDir() {
        return Path.of("..", "dashboards", "json");
    }

    /** @return every {@code *.json} under dashboards/json (any depth up to 4), sorted. */
    static List<Path> dashboardFiles() throws IOException {
        try (Stream<Path> s = Files.walk(dashboardDir(), 4)) {
            List<Path> files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
            assertThat(files).as("dashboards under " + dashboardDir().toAbsolutePath()).isNotEmpty();
            return files;
        }
    }

    // ================================================================== structure

    @Test
    void dashboardJsonIsValid() throws Exception {
        JsonNode ds = new YAMLMapper().readTree(
                Path.of("..", "dashboards", "provisioning", "datasources", "clickhouse.yaml").toFile());
        assertThat(ds.at("/datasources/0/uid").asText()).isEqualTo(DATASOURCE_UID);
        assertThat(ds.at("/datasources/0/type").asText()).isEqualTo(DATASOURCE_TYPE);

        List<String> problems = new ArrayList<>();
        Set<String> uids = new HashSet<>();
        Set<String> titles = new HashSet<>();
        Map<String, JsonNode> variablesByName = new HashMap<>();
        Map<String, Boolean> conditionalAllUse = new HashMap<>();
        for (Path file : dashboardFiles()) {
            String f = dashboardDir().relativize(file).toString();
            JsonNode d;
            try {
                d = JSON.readTree(file.toFile());
            } catch (IOException e) {
                problems.add(f + ": not valid JSON: " + e.getMessage());
                continue;
            }
            String uid = d.path("uid").asText("");
            if (!uid.matches("[A-Za-z0-9_-]{1,40}")) {
                problems.add(f + ": uid '" + uid + "' must be 1-40 of [A-Za-z0-9_-]");
            }
            if (!uids.add(uid)) {
                problems.add(f + ": uid " + uid + " used twice");
            }
            if (d.path("title").asText("").isBlank() || !titles.add(d.path("title").asText())) {
                problems.add(f + ": title missing or used twice");
            }
            if (d.path("schemaVersion").asInt(0) < 36) {
                problems.add(f + ": schemaVersion " + d.path("schemaVersion") + " (want >= 36)");
            }
            Map<String, JsonNode> vars = new LinkedHashMap<>();
            for (JsonNode v : d.path("templating").path("list")) {
                String name = v.path("name").asText();
                vars.put(name, v);
                variablesByName.putIfAbsent(name, v);
                if (v.path("type").asText().equals("custom")) {
                    List<String> options = customOptions(v);
                    String current = customCurrent(v);
                    if (options.isEmpty()) {
                        problems.add(f + " variable " + name + ": custom variable without values");
                    } else if (!options.contains(current) && !(current.equals(GrafanaQueryExpander.ALL)
                            && v.path("includeAll").asBoolean())) {
                        problems.add(f + " variable " + name + ": current value '" + current + "' is not an option of "
                                + options);
                    }
                }
                if (v.path("type").asText().equals("query")) {
                    checkDatasource(f + " variable " + name, v.path("datasource"), problems);
                    if (variableSql(v).isBlank()) {
                        problems.add(f + " variable " + name + ": empty query");
                    }
                    int refresh = v.path("refresh").asInt(0);
                    if (refresh != 1 && refresh != 2) {
                        problems.add(f + " variable " + name + ": refresh " + refresh
                                + " (1 on load, 2 on time change)");
                    }
                }
            }
            if (!vars.containsKey("database") || !vars.get("database").path("type").asText().equals("constant")) {
                problems.add(f + ": needs the constant variable 'database'");
            }
            List<JsonNode> panels = panels(d);
            if (panels.isEmpty()) {
                problems.add(f + ": no panels");
            }
            Set<Integer> ids = new HashSet<>();
            Set<Long> cells = new HashSet<>();
            List<String> sqls = new ArrayList<>();
            for (JsonNode v : vars.values()) {
                if (v.path("type").asText().equals("query")) {
                    sqls.add(variableSql(v));
                }
            }
            for (JsonNode p : panels) {
                String where = f + " panel '" + p.path("title").asText() + "'";
                if (!ids.add(p.path("id").asInt(-1)) || p.path("id").asInt(-1) < 0) {
                    problems.add(where + ": id missing or duplicate");
                }
                JsonNode g = p.path("gridPos");
                int h = g.path("h").asInt(0), w = g.path("w").asInt(0), x = g.path("x").asInt(-1),
                        y = g.path("y").asInt(-1);
                if (h < 1 || w < 1 || x < 0 || y < 0 || x + w > 24) {
                    problems.add(where + ": gridPos " + g + " outside the 24-column grid");
                } else {
                    for (int r = y; r < y + h; r++) {
                        for (int c = x; c < x + w; c++) {
                            if (!cells.add((long) r * 24 + c)) {
                                problems.add(where + ": gridPos " + g + " overlaps another panel");
                                r = y + h;
                                break;
                            }
                        }
                    }
                }
                if (p.path("type").asText().equals("row") || p.path("type").asText().equals("text")) {
                    continue;
                }
                checkDatasource(where, p.path("datasource"), problems);
                if (!p.path("targets").isArray() || p.path("targets").isEmpty()) {
                    problems.add(where + ": no targets");
                }
                if (List.of("timeseries", "stat", "bargauge", "gauge").contains(p.path("type").asText())
                        && p.at("/fieldConfig/defaults/unit").asText("").isBlank()) {
                    problems.add(where + ": no unit");
                }
                Set<String> refIds = new HashSet<>();
                for (JsonNode t : p.path("targets")) {
                    if (!refIds.add(t.path("refId").asText(""))) {
                        problems.add(where + ": refId missing or duplicate");
                    }
                    checkDatasource(where + " target", t.path("datasource"), problems);
                    if (!t.path("editorType").asText().equals("sql")) {
                        problems.add(where + ": editorType " + t.path("editorType") + " (want sql)");
                    }
                    int format = t.path("format").asInt(-1);
                    if (format != 0 && format != 1) {
                        problems.add(where + ": format " + t.path("format") + " (0 time series, 1 table)");
                    }
                    String sql = t.path("rawSql").asText("");
                    if (sql.isBlank()) {
                        problems.add(where + ": no rawSql");
                    }
                    if (FLOW_TABLE.matcher(sql).find() && !sql.contains(DIRECTION_FILTER)
                            && !NOT_TRAFFIC.contains(f + ": " + p.path("title").asText())) {
                        problems.add(where + ": reads flows or a rollup without the direction filter (a packet sampled "
                                + "on ingress and egress would count twice): " + DIRECTION_FILTER);
                    }
                    if (sql.strip().endsWith(";") || Pattern.compile("(?i)\\bFORMAT\\s+\\w+\\s*$").matcher(sql)
                            .find()) {
                        problems.add(where + ": rawSql ends with ; or FORMAT (the plugin chooses the format)");
                    }
                    sqls.add(sql);
                }
            }
            Matcher cond = Pattern.compile("\\$__conditionalAll\\(").matcher("");
            for (String sql : sqls) {
                for (String problem : versionDependentConstructs(sql)) {
                    problems.add(f + ": " + problem + " in: " + sql);
                }
                Matcher m = Pattern.compile("(?i)\\b(FROM|JOIN)\\s+(?!\\(|\\$\\{database}\\.)(\\S+)").matcher(sql);
                while (m.find()) {
                    problems.add(f + ": table " + m.group(2) + " not named as ${database}.table in: " + sql);
                }
                for (String name : referencedVariables(sql)) {
                    if (!vars.containsKey(name)) {
                        problems.add(f + ": query names variable " + name + " the dashboard lacks: " + sql);
                    }
                }
                cond.reset(sql);
                while (cond.find()) {
                    List<String> args = GrafanaQueryExpander.macroArgs(sql, cond.end() - 1);
                    String var = args.size() == 2 ? args.get(1).strip().replaceAll("^\\$\\{?(\\w+)}?$", "$1") : "";
                    JsonNode v = vars.get(var);
                    if (v == null || !v.path("includeAll").asBoolean() || !v.path("multi").asBoolean()) {
                        problems.add(f + ": $__conditionalAll needs (condition, $var) with a multi-value variable "
                                + "that includes All: " + args);
                    } else {
                        conditionalAllUse.put(var, true);
                    }
                }
            }
        }
        for (String name : List.of("agent", "interface", "vip", "exporter", "boundary")) {
            JsonNode v = variablesByName.get(name);
            if (v == null || !v.path("multi").asBoolean() || !v.path("includeAll").asBoolean()
                    || !conditionalAllUse.getOrDefault(name, false)) {
                problems.add("variable " + name + " must exist with multi + includeAll and be used through "
                        + "$__conditionalAll");
            }
        }
        assertThat(problems).as("dashboard problems").isEmpty();
        assertThat(uids).contains("vecflow-flows", "vecflow-drops", "vecflow-load-balancer",
                "vecflow-pipeline-health");
    }

    /** Panel SQL that reads raw flows or a rollup: {@code ${database}.flows…} or {@code ${database}.${rollup}}. */
    static final Pattern FLOW_TABLE = Pattern.compile("\\$\\{database}\\.(flows\\b|flows_|\\$\\{rollup})");

    /**
     * The direction filter every flows/rollup panel carries, so that a packet an agent samples on ingress and on
     * egress is counted once by default (variable {@code direction}, README "Dashboards").
     */
    static final String DIRECTION_FILTER = "(toString(Direction) IN (${direction:singlequote}) OR ('once' IN "
            + "(${direction:singlequote}) AND (Direction != 'egress' OR (AgentAddress, SubAgentId, InIf) NOT IN "
                    + "(SELECT "
            + "AgentAddress, SubAgentId, InIf FROM ${database}.flows_1h WHERE TimeReceived >= "
                    + "toStartOfHour($__fromTime) "
            + "AND TimeReceived <= $__toTime AND Direction = 'ingress'))))";

    /**
     * Panels that read flows but add up no traffic: they count stored rows (a packet sampled twice is stored twice) or
     * only look names up (the exporter and interface names the enrichment stored in flows_1h).
     */
    static final Set<String> NOT_TRAFFIC = Set.of("vecflow/pipeline-health.json: Rows stored",
            "vecflow/drops.json: Interface discard and error counters");

    /**
     * SQL whose meaning depends on the server version, which a dashboard cannot render per server (the collector's
     * DDL can: {@link FlowSchema.ServerFeatures}): {@code ANY} joins (from 20.1, by default, {@code ANY INNER JOIN}
     * keeps one row per key on both sides, where 18.16 kept every left row), joins without an explicit {@code ALL}
     * strictness, {@code SEMI}/{@code ANTI}/{@code ASOF} joins and window functions (not on 18.16), {@code SETTINGS}
     * (settings come and go between versions), and what the README lists as missing on 18.16.
     *
     * @return one description per construct found (empty when none)
     */
    static List<String> versionDependentConstructs(String sql) {
        List<String> out = new ArrayList<>();
        Matcher join = Pattern.compile("(?i)\\bJOIN\\b").matcher(sql);
        Pattern strictness = Pattern.compile("(?is).*\\b(ALL\\s+(INNER|LEFT|RIGHT|FULL)(\\s+OUTER)?|CROSS)\\s+$");
        while (join.find()) {
            String before = sql.substring(Math.max(0, join.start() - 40), join.start());
            if (!strictness.matcher(before).matches()) {
                out.add("a JOIN without ALL strictness ('" + before.strip().replaceAll("\\s+", " ")
                        + " JOIN'; ANY joins changed meaning in 20.1, use ALL INNER/LEFT JOIN with a unique right "
                                + "side)");
            }
        }
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put("(?i)\\b(SEMI|ANTI|ASOF)\\b", "SEMI/ANTI/ASOF join (not on 18.16)");
        refused.put("(?i)\\bOVER\\s*\\(", "window function (not on 18.16)");
        refused.put("(?i)\\bSETTINGS\\b", "SETTINGS (settings differ by server version)");
        refused.put("(?i)\\bWITH\\s+FILL\\b", "WITH FILL (not on 18.16)");
        refused.put("toStartOfInterval|\\$__timeInterval", "toStartOfInterval / $__timeInterval (not on 18.16)");
        refused.put("topKWeighted", "topKWeighted (not on 18.16)");
        for (Map.Entry<String, String> e : refused.entrySet()) {
            if (Pattern.compile(e.getKey()).matcher(sql).find()) {
                out.add(e.getValue());
            }
        }
        return out;
    }

    @Test
    void versionDependentSqlIsRecognised() {
        assertThat(versionDependentConstructs("SELECT 1 FROM (SELECT 1) ANY INNER JOIN (SELECT 1) USING (t)"))
                .singleElement().asString().contains("ANY INNER JOIN");
        assertThat(versionDependentConstructs("SELECT 1 FROM a ANY LEFT JOIN b USING (t)")).hasSize(1);
        assertThat(versionDependentConstructs("SELECT 1 FROM a INNER JOIN b USING (t)")).hasSize(1);
        assertThat(versionDependentConstructs("SELECT 1 FROM a LEFT SEMI JOIN b USING (t)")).hasSize(2);
        assertThat(versionDependentConstructs("SELECT 1 FROM (SELECT 1)\nALL INNER JOIN (\n SELECT 1) USING (t)"))
                .isEmpty();
        assertThat(versionDependentConstructs("SELECT 1 FROM a ALL LEFT OUTER JOIN b USING (t) CROSS JOIN c"))
                .isEmpty();
        assertThat(versionDependentConstructs("SELECT sum(x) OVER (PARTITION BY y) FROM t SETTINGS max_threads = 1"))
                .hasSize(2);
    }

    /**
     * A custom variable's values, parsed as Grafana's custom variable does: the query split at commas (a {@code \,}
     * is a comma inside a value), each item {@code text : value} or a value that is its own text.
     */
    static List<String> customOptions(JsonNode v) {
        List<String> out = new ArrayList<>();
        Matcher item = Pattern.compile("(?:\\\\,|[^,])+").matcher(v.path("query").asText(""));
        Pattern pair = Pattern.compile("^\\s*(.+)\\s:\\s(.+)$");
        while (item.find()) {
            String text = item.group().replace("\\,", ",");
            Matcher kv = pair.matcher(text);
            out.add(kv.matches() ? kv.group(2).strip() : text.strip());
        }
        return out;
    }

    /**
     * A custom variable's saved current value: a string, or Grafana's list form for a multi-value variable (its first
     * element; {@link GrafanaQueryExpander#ALL} when All is among them).
     */
    static String customCurrent(JsonNode v) {
        JsonNode c = v.at("/current/value");
        if (!c.isArray()) {
            return c.asText("");
        }
        for (JsonNode e : c) {
            if (e.asText().equals(GrafanaQueryExpander.ALL)) {
                return GrafanaQueryExpander.ALL;
            }
        }
        return c.isEmpty() ? "" : c.get(0).asText();
    }

    private static void checkDatasource(String where, JsonNode ds, List<String> problems) {
        if (!ds.path("uid").asText().equals(DATASOURCE_UID) || !ds.path("type").asText().equals(DATASOURCE_TYPE)) {
            problems.add(where + ": datasource " + ds + " (want {type: " + DATASOURCE_TYPE + ", uid: " + DATASOURCE_UID
                    + "})");
        }
    }

    /** @return every panel, rows' nested panels included. */
    static List<JsonNode> panels(JsonNode dashboard) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode p : dashboard.path("panels")) {
            out.add(p);
            for (JsonNode q : p.path("panels")) {
                out.add(q);
            }
        }
        return out;
    }

    /** @return a query variable's SQL (a plain string, or the plugin's object form with rawSql). */
    static String variableSql(JsonNode v) {
        JsonNode q = v.path("query");
        return q.isTextual() ? q.asText() : q.path("rawSql").asText("");
    }

    private static final Pattern VAR_REF = Pattern.compile("\\$\\{(\\w+)[^}]*}|\\$(\\w+)|\\[\\[(\\w+)");

    /** @return names of dashboard variables a query references (macros and Grafana globals {@code __*} excluded). */
    static Set<String> referencedVariables(String sql) {
        Set<String> out = new HashSet<>();
        Matcher m = VAR_REF.matcher(sql);
        while (m.find()) {
            String n = m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3);
            if (!n.startsWith("__")) {
                out.add(n);
            }
        }
        return out;
    }

    // ================================================================== queries on ClickHouse

    @Test
    void everyPanelQueryReturnsRowsOnClickHouse() throws Exception {
        String url = TestSupport.clickhouseUrl();
        String db = "dash_" + TestSupport.suffix();
        Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        try {
            ingest(url, db);
            Instant to = Instant.now().plusSeconds(60);
            assertThat(rows(url, "SELECT count() FROM " + db + ".flows WHERE length(SRv6Segments) > 0"))
                    .as("SRv6 flow samples").isEqualTo(15);
            List<String> failures = new ArrayList<>();
            int queries = 0;
            Map<Duration, String> rollupFor = Map.of(Duration.ofHours(1), "flows_1m", Duration.ofDays(2), "flows_5m",
                    Duration.ofDays(30), "flows_1h");
            for (Path file : dashboardFiles()) {
                JsonNode d = JSON.readTree(file.toFile());
                String name = dashboardDir().relativize(file).toString();
                for (Duration range : List.of(Duration.ofHours(1), Duration.ofDays(2), Duration.ofDays(30))) {
                    Context ctx = new Context(to.minus(range), to, GrafanaQueryExpander.grafanaInterval(range, 1000));
                    assertThat(ctx.from()).isBefore(start);
                    Map<String, Variable> vars = resolveVariables(url, db, d, ctx, false, name + " " + range, failures);
                    if (vars == null) {
                        continue;
                    }
                    if (vars.containsKey("rollup")) {
                        assertThat(vars.get("rollup").selected()).as(name + " rollup for " + range)
                                .containsExactly(rollupFor.get(range));
                    }
                    queries += runPanels(url, d, vars, ctx, true, name + " " + range, failures);
                }
                Duration hour = Duration.ofHours(1);
                Context ctx = new Context(to.minus(hour), to, GrafanaQueryExpander.grafanaInterval(hour, 1000));
                Map<String, Variable> first = resolveVariables(url, db, d, ctx, true, name + " first values", failures);
                if (first != null) {
                    queries += runPanels(url, d, first, ctx, false, name + " first values", failures);
                }
                // Every value of every custom variable (and All) must run too.
                for (JsonNode v : d.path("templating").path("list")) {
                    if (!v.path("type").asText().equals("custom")) {
                        continue;
                    }
                    List<String> values = new ArrayList<>(customOptions(v));
                    if (v.path("includeAll").asBoolean()) {
                        values.add(GrafanaQueryExpander.ALL);
                    }
                    for (String value : values) {
                        String what = name + " " + v.path("name").asText() + "=" + value;
                        Map<String, Variable> vars = resolveVariables(url, db, d, ctx, false,
                                Map.of(v.path("name").asText(), value), what, failures);
                        if (vars != null) {
                            queries += runPanels(url, d, vars, ctx, false, what, failures);
                        }
                    }
                }
            }
            assertThat(failures).as("dashboard query failures").isEmpty();
            assertThat(queries).as("panel queries run").isGreaterThanOrEqualTo(4 * 4 * 4);
            enrichedPanelsShowWhatTheDataImplies(url, db);
        } finally {
            if (!Boolean.getBoolean("vecflow.test.keepDatabase")) {
                query(url, "DROP DATABASE IF EXISTS " + db);
            }
        }
    }

    /**
     * What the enrichment panels show for the data {@link #ingest} stored (1 h range, default variables unless said):
     * the AS panels label ASes "AS&lt;n&gt; &lt;latest name in asns&gt;" or "AS&lt;n&gt;", keep the 10 with most
     * bytes and add up the rest as Other; countries, boundaries and providers come from the rows; exporters and
     * interfaces are named by {@link #testExporters} (an agent without a name by its address, an interface without a
     * name by its ifIndex); the exporter and boundary variables filter as their descriptions say; the Drops
     * dashboard names exporters and interfaces too.
     */
    private static void enrichedPanelsShowWhatTheDataImplies(String url, String db) throws Exception {
        JsonNode flows = JSON.readTree(dashboardDir().resolve("vecflow").resolve("flows.json").toFile());
        JsonNode drops = JSON.readTree(dashboardDir().resolve("vecflow").resolve("drops.json").toFile());
        Instant to = Instant.now().plusSeconds(60);
        Duration hour = Duration.ofHours(1);
        Context ctx = new Context(to.minus(hour), to, GrafanaQueryExpander.grafanaInterval(hour, 1000));
        Map<String, String> none = Map.of();
        Map<String, List<String>> noSelection = Map.of();

        Result srcAs = panel(url, db, flows, "Traffic by source AS (top 10)", ctx, none, noSelection);
        assertThat(seriesTotals(srcAs).keySet()).as(srcAs.sql()).containsExactlyInAnyOrder("AS15169 Google LLC",
                "AS64500 Example Transit", "AS64501", "AS203476", "AS0 (unknown)");
        // 1 h range: buckets of max(5 s, flows_1m's 60 s); 10 minutes of rows j = 0, 3, 6, 9 scaled by 1000
        assertThat(seriesTotals(srcAs).get("AS15169 Google LLC") * 60 / 8).isCloseTo(
                10.0 * (12 + 9 + 6 + 3) * FIXTURE_BYTES * FIXTURE_RATE, Offset.offset(1e-3));
        Result dstAs = panel(url, db, flows, "Traffic by destination AS (top 10)", ctx, none, noSelection);
        List<String> dstAsSeries = new ArrayList<>(List.of("AS64496 Example Hosting", "Other"));
        for (int as = 64497; as <= 64505; as++) {
            dstAsSeries.add(as == 64500 ? "AS64500 Example Transit" : "AS" + as);
        }
        assertThat(seriesTotals(dstAs).keySet()).as(dstAs.sql()).containsExactlyInAnyOrderElementsOf(dstAsSeries);
        // Other: the two smallest fixture ASes, AS0 and AS203361 of the captures
        assertThat(seriesTotals(dstAs).get("Other") * 60 / 8).isCloseTo(10.0 * (2 + 1) * FIXTURE_BYTES * FIXTURE_RATE
                + rows(url, "SELECT sum(Bytes * SamplingRate) FROM " + db + ".flows WHERE DstAS IN (0, 203361)"),
                Offset.offset(1e-3));
        assertThat(series(url, db, flows, "Traffic by source country (top 10)", ctx, none, noSelection))
                .containsExactlyInAnyOrder("US", "FR", "DE", "unknown");
        List<String> dstCountries = new ArrayList<>(DST_COUNTRIES.subList(0, 10));
        dstCountries.add("Other");
        assertThat(series(url, db, flows, "Traffic by destination country (top 10)", ctx, none, noSelection))
                .containsExactlyInAnyOrderElementsOf(dstCountries);
        assertThat(series(url, db, flows, "Traffic by input boundary", ctx, none, noSelection))
                .containsExactlyInAnyOrder("external", "internal", "undefined");
        assertThat(series(url, db, flows, "Traffic by output boundary", ctx, none, noSelection))
                .containsExactlyInAnyOrder("internal", "undefined");
        assertThat(series(url, db, flows, "Traffic by input provider (top 10)", ctx, none, noSelection))
                .containsExactlyInAnyOrder("example-transit", "example-ix", "none");
        assertThat(series(url, db, flows, "Traffic by output provider (top 10)", ctx, none, noSelection))
                .containsExactly("none");
        assertThat(series(url, db, flows, "Traffic by input interface", ctx, none, noSelection)).contains(
                LAB_EXPORTER + " in Ethernet7", LAB_EXPORTER + " in Ethernet9", "goflow2-leaf in xe-0/0/0",
                "v6-core-1 in et-0/0/7", "49.49.49.49 in 29001");
        assertThat(series(url, db, flows, "Traffic by output interface", ctx, none, noSelection)).contains(
                LAB_EXPORTER + " out Ethernet8", "goflow2-leaf out xe-0/0/1", "49.49.49.49 out 182");

        // boundary: a sample counts when its input or its output interface has a chosen boundary
        Map<String, String> external = Map.of("boundary", "external");
        assertThat(series(url, db, flows, "Traffic by input boundary", ctx, external, noSelection))
                .containsExactly("external");
        assertThat(series(url, db, flows, "Traffic by output boundary", ctx, external, noSelection))
                .containsExactly("internal");
        assertThat(series(url, db, flows, "Traffic by input boundary", ctx, Map.of("boundary", "internal"),
                noSelection)).containsExactlyInAnyOrder("external", "internal");
        assertThat(series(url, db, flows, "Traffic by input boundary", ctx, Map.of("boundary", "undefined"),
                noSelection)).containsExactlyInAnyOrder("internal", "undefined");

        Result exporters = panel(url, db, flows, "Top exporters", ctx, none, noSelection);
        Map<String, List<Object>> byExporter = rowsBy(exporters, "exporter");
        assertThat(byExporter).containsKeys(LAB_EXPORTER, "v6-core-1", "goflow2-leaf", "49.49.49.49", "127.0.0.1");
        int agents = exporters.names().indexOf("agents");
        assertThat(byExporter.get(LAB_EXPORTER).get(agents)).isEqualTo("10.9.9.9");
        assertThat(byExporter.get("v6-core-1").get(agents)).isEqualTo("30::1:1:1");
        assertThat(byExporter.get("49.49.49.49").get(agents)).isEqualTo("49.49.49.49");
        assertThat(((Number) byExporter.get(LAB_EXPORTER).get(exporters.names().indexOf("bytes"))).longValue())
                .isEqualTo(rows(url, "SELECT sum(Bytes * SamplingRate) FROM " + db + ".flows WHERE AgentAddress = "
                        + "IPv6StringToNum('::ffff:10.9.9.9')"));
        Map<String, List<String>> labOnly = Map.of("exporter", List.of(LAB_EXPORTER));
        assertThat(rowsBy(panel(url, db, flows, "Top exporters", ctx, none, labOnly), "exporter").keySet())
                .containsExactly(LAB_EXPORTER);
        assertThat(series(url, db, flows, "Traffic by input interface", ctx, none, labOnly))
                .containsExactlyInAnyOrder(LAB_EXPORTER + " in Ethernet7", LAB_EXPORTER + " in Ethernet9");

        Result interfaces = panel(url, db, flows, "Top interfaces", ctx, none, noSelection);
        Map<String, List<Object>> byInterface = new LinkedHashMap<>();
        for (List<Object> row : interfaces.data()) {
            byInterface.put(row.get(interfaces.names().indexOf("exporter")) + "/" + row.get(
                    interfaces.names().indexOf("if_index")), row);
        }
        assertThat(named(interfaces, byInterface.get(LAB_EXPORTER + "/7"))).containsAllEntriesOf(Map.of(
                "interface", "Ethernet7", "description", "transit: Example Transit", "speed", 10000,
                "boundary", "external", "provider", "example-transit", "connectivity", "transit", "out_bps", 0));
        assertThat(named(interfaces, byInterface.get(LAB_EXPORTER + "/8"))).containsAllEntriesOf(Map.of(
                "interface", "Ethernet8", "speed", 100000, "boundary", "internal", "in_bps", 0));
        assertThat(named(interfaces, byInterface.get("49.49.49.49/29001"))).containsAllEntriesOf(Map.of(
                "interface", "29001", "description", "", "speed", 0, "boundary", "undefined"));
        assertThat(((Number) named(interfaces, byInterface.get(LAB_EXPORTER + "/7")).get("in_bps")).doubleValue())
                .isPositive();

        List<String> exporterValues = new ArrayList<>();
        for (JsonNode v : flows.path("templating").path("list")) {
            if (v.path("name").asText().equals("exporter")) {
                Map<String, Variable> vars = new LinkedHashMap<>();
                vars.put("database", Variable.single("database", db));
                vars.put("agent", Variable.all("agent", List.of()));
                for (List<Object> row : run(url, GrafanaQueryExpander.expand(variableSql(v), vars, ctx)).data()) {
                    exporterValues.add(String.valueOf(row.getFirst()));
                }
            }
        }
        assertThat(exporterValues).contains(LAB_EXPORTER, "v6-core-1", "goflow2-leaf", "49.49.49.49");

        // Drops: exporters and interfaces by name
        assertThat(series(url, db, drops, "Discards by agent", ctx, none, noSelection))
                .containsExactlyInAnyOrder(LAB_EXPORTER, "drop-sw1");
        assertThat(series(url, db, drops, "Discards by interface", ctx, none, noSelection))
                .containsExactlyInAnyOrder(LAB_EXPORTER + " in Ethernet7 out 0", "drop-sw1 in ge-0/0/1 out ge-0/0/2");
        Result latest = panel(url, db, drops, "Latest discarded packets", ctx, none, noSelection);
        assertThat(column(latest, "exporter")).containsOnly(LAB_EXPORTER, "drop-sw1").contains(LAB_EXPORTER,
                "drop-sw1");
        assertThat(column(latest, "in_if")).containsOnly("Ethernet7", "ge-0/0/1");
        Result counters = panel(url, db, drops, "Interface discard and error counters", ctx, none,
                Map.of("interface", List.of("7001")));
        assertThat(counters.data()).as(counters.sql()).hasSize(1);
        assertThat(named(counters, counters.data().getFirst())).containsAllEntriesOf(Map.of("agent", "30::1:1:1",
                "exporter", "v6-core-1", "if_index", 7001, "name", "et-0/0/7"));
    }

    /**
     * Runs the first target of one panel with the dashboard's variables resolved as Grafana does on load, custom ones
     * as chosen and the given query variables set to the given values.
     */
    private static Result panel(String url, String db, JsonNode d, String title, Context ctx,
            Map<String, String> custom, Map<String, List<String>> selected) throws Exception {
        List<String> failures = new ArrayList<>();
        Map<String, Variable> vars = resolveVariables(url, db, d, ctx, false, custom, title, failures);
        assertThat(failures).isEmpty();
        selected.forEach((k, v) -> vars.put(k, Variable.of(k, v, vars.get(k).options())));
        JsonNode p = panels(d).stream().filter(x -> x.path("title").asText().equals(title)).findFirst()
                .orElseThrow(() -> new AssertionError("no panel '" + title + "'"));
        return run(url, GrafanaQueryExpander.expand(p.at("/targets/0/rawSql").asText(), vars, ctx));
    }

    /** @return the distinct series names of one time-series panel */
    private static Set<String> series(String url, String db, JsonNode d, String title, Context ctx,
            Map<String, String> custom, Map<String, List<String>> selected) throws Exception {
        return seriesTotals(panel(url, db, d, title, ctx, custom, selected)).keySet();
    }

    /** @return series name → sum of the last column over its rows */
    private static Map<String, Double> seriesTotals(Result r) {
        int s = r.names().indexOf("series");
        assertThat(s).as("series column of " + r.sql()).isNotNegative();
        Map<String, Double> out = new LinkedHashMap<>();
        for (List<Object> row : r.data()) {
            out.merge(String.valueOf(row.get(s)), ((Number) row.getLast()).doubleValue(), Double::sum);
        }
        return out;
    }

    /** @return the rows keyed by one column's text (the last row wins) */
    private static Map<String, List<Object>> rowsBy(Result r, String column) {
        Map<String, List<Object>> out = new LinkedHashMap<>();
        for (List<Object> row : r.data()) {
            out.put(String.valueOf(row.get(r.names().indexOf(column))), row);
        }
        return out;
    }

    /** @return one column's values */
    private static List<Object> column(Result r, String column) {
        int c = r.names().indexOf(column);
        assertThat(c).as(column + " of " + r.sql()).isNotNegative();
        return r.data().stream().map(row -> row.get(c)).toList();
    }

    /** @return a row as column name → value (numbers as Integer when whole, as in the assertions) */
    private static Map<String, Object> named(Result r, List<Object> row) {
        assertThat(row).as("row of " + r.sql()).isNotNull();
        Map<String, Object> out = new LinkedHashMap<>();
        for (int c = 0; c < r.names().size(); c++) {
            Object v = row.get(c);
            if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
                    && Math.abs(n.doubleValue()) < Integer.MAX_VALUE) {
                v = n.intValue();
            }
            out.put(r.names().get(c), v);
        }
        return out;
    }

    /**
     * sFlow "direction both" (issue 17): an agent samples each packet it forwards from port 1 to port 2 as it enters
     * (data source 0:1) and as it leaves (0:2); packets entering port 3, which samples no ingress, are sampled only as
     * they leave port 2. The Flows dashboard with its default variables counts each packet once — 5 forwarded + 2
     * egress-only = 7 of the 12 samples — in every panel: each panel's bps, pps, bytes, packets and samples are 7/12 of
     * what the same panel shows with direction All (every sample has the same size and rate). "ingress samples" shows
     * 5, "egress samples" 7, All 12.
     */
    @Test
    void aPacketSampledOnIngressAndEgressIsCountedOnceByDefault() throws Exception {
        String url = TestSupport.clickhouseUrl();
        String db = "dash_dir_" + TestSupport.suffix();
        try {
            collect(url, db, bothDirectionsDatagrams());
            JsonNode d = JSON.readTree(dashboardDir().resolve("vecflow").resolve("flows.json").toFile());
            Instant to = Instant.now().plusSeconds(60);
            Duration hour = Duration.ofHours(1);
            Context ctx = new Context(to.minus(hour), to, GrafanaQueryExpander.grafanaInterval(hour, 1000));
            Map<String, Double> byDefault = trafficTotals(url, db, d, ctx, Map.of());
            assertThat(byDefault.get("Flow samples/samples")).as("samples counted by default").isEqualTo(7.0);
            Map<String, Double> all = trafficTotals(url, db, d, ctx, Map.of("direction", GrafanaQueryExpander.ALL));
            assertThat(all.get("Flow samples/samples")).isEqualTo(12.0);
            assertThat(query(url, "SELECT Direction, count() FROM " + db + ".flows GROUP BY Direction ORDER BY "
                    + "Direction FORMAT TabSeparated").strip()).isEqualTo("ingress\t5\negress\t7");
            assertThat(trafficTotals(url, db, d, ctx, Map.of("direction", "ingress")).get("Flow samples/samples"))
                    .isEqualTo(5.0);
            assertThat(trafficTotals(url, db, d, ctx, Map.of("direction", "egress")).get("Flow samples/samples"))
                    .isEqualTo(7.0);
            assertThat(byDefault.keySet()).isEqualTo(all.keySet());
            Set<String> panels = new HashSet<>();
            for (Map.Entry<String, Double> e : byDefault.entrySet()) {
                panels.add(e.getKey().substring(0, e.getKey().lastIndexOf('/')));
                assertThat(e.getValue()).as(e.getKey()).isPositive();
                assertThat(e.getValue() * 12).as(e.getKey() + " by default x 12 = with All x 7")
                        .isCloseTo(all.get(e.getKey()) * 7, org.assertj.core.data.Percentage.withPercentage(1e-6));
            }
            // Every Flows panel shows traffic (bps, pps, bytes, packets or samples), except the agent count.
            List<String> titles = new ArrayList<>();
            for (JsonNode p : panels(d)) {
                if (p.path("targets").isArray() && !p.path("targets").isEmpty()) {
                    titles.add(p.path("title").asText());
                }
            }
            assertThat(panels).containsExactlyInAnyOrderElementsOf(titles.stream().filter(t -> !t.equals("Agents"))
                    .toList());
        } finally {
            if (!Boolean.getBoolean("vecflow.test.keepDatabase")) {
                query(url, "DROP DATABASE IF EXISTS " + db);
            }
        }
    }

    private static final Set<String> TRAFFIC_COLUMNS = Set.of("bps", "pps", "bytes", "packets", "samples");

    /**
     * Runs every panel of a dashboard with its default variables (custom ones as chosen) and sums, per panel and
     * column, every traffic column (bps, pps, bytes, packets, samples) over the rows.
     *
     * @return "panel title/column" → sum
     */
    private static Map<String, Double> trafficTotals(String url, String db, JsonNode d, Context ctx,
            Map<String, String> custom) throws Exception {
        List<String> failures = new ArrayList<>();
        Map<String, Variable> vars = resolveVariables(url, db, d, ctx, false, custom, "totals " + custom, failures);
        assertThat(failures).isEmpty();
        Map<String, Double> out = new LinkedHashMap<>();
        for (JsonNode p : panels(d)) {
            for (JsonNode t : p.path("targets")) {
                Result r = run(url, GrafanaQueryExpander.expand(t.path("rawSql").asText(), vars, ctx));
                for (int c = 0; c < r.names().size(); c++) {
                    if (!TRAFFIC_COLUMNS.contains(r.names().get(c))) {
                        continue;
                    }
                    double sum = 0;
                    for (List<Object> row : r.data()) {
                        sum += ((Number) row.get(c)).doubleValue();
                    }
                    out.merge(p.path("title").asText() + "/" + r.names().get(c), sum, Double::sum);
                }
            }
        }
        return out;
    }

    /**
     * The load balancer's backend share per VIP keeps every backend of a VIP in each bucket (the fixture places
     * flows on two SRLB backends and four Maglev backends every minute), and the shares of a bucket add up to 1.
     * With {@code ANY INNER JOIN}, ClickHouse from 20.1 (default settings) keeps one row per key on both sides, so
     * one backend per VIP and bucket would be left, silently; the dashboards use {@code ALL} joins (checked in
     * {@link #dashboardJsonIsValid}).
     */
    @Test
    void backendSharePerVipKeepsEveryBackendOfEveryBucket() throws Exception {
        String url = TestSupport.clickhouseUrl();
        String db = "dash_lb_" + TestSupport.suffix();
        FlowSchema.ServerFeatures f = FlowSchema.ServerFeatures.fromVersion(query(url, "SELECT version()"));
        query(url, "CREATE DATABASE " + db);
        try {
            for (String ddl : FlowSchema.ddl(db, f, Map.of())) {
                query(url, ddl);
            }
            query(url, lbFixture(db));
            JsonNode d = JSON.readTree(dashboardDir().resolve("vecflow").resolve("load-balancer.json").toFile());
            JsonNode panel = panels(d).stream().filter(p -> p.path("title").asText().equals("Backend share per VIP"))
                    .findFirst().orElseThrow();
            Instant to = Instant.now().plusSeconds(60);
            Duration hour = Duration.ofHours(1);
            Context ctx = new Context(to.minus(hour), to, GrafanaQueryExpander.grafanaInterval(hour, 1000));
            Map<String, Variable> vars = new LinkedHashMap<>();
            vars.put("database", Variable.single("database", db));
            vars.put("agent", Variable.all("agent", List.of("::ffff:10.9.9.9")));
            vars.put("vip", Variable.all("vip", List.of("::ffff:192.0.2.10", SRLB_VIP)));
            vars.put("direction", Variable.single("direction", "once"));
            Result r = run(url, GrafanaQueryExpander.expand(panel.at("/targets/0/rawSql").asText(), vars, ctx));
            Map<String, Set<String>> backends = new LinkedHashMap<>();
            Map<String, Double> shares = new LinkedHashMap<>();
            for (List<Object> row : r.data()) {
                String series = (String) row.get(1);
                String bucket = row.get(0) + " " + series.substring(0, series.indexOf(" -> "));
                backends.computeIfAbsent(bucket, k -> new HashSet<>()).add(series);
                shares.merge(bucket, ((Number) row.get(2)).doubleValue(), Double::sum);
            }
            assertThat(backends).as("buckets of " + r.sql()).hasSize(2 * 10);
            backends.forEach((bucket, b) -> assertThat(b).as(bucket).hasSize(bucket.contains("192.0.2.10") ? 4 : 2));
            shares.forEach((bucket, sum) -> assertThat(sum).as(bucket).isCloseTo(1.0,
                    org.assertj.core.data.Offset.offset(1e-9)));
        } finally {
            query(url, "DROP DATABASE IF EXISTS " + db);
        }
    }

    /**
     * Resolves the dashboard's variables in order: constants (database = the test database), query variables run
     * expanded; a multi-value variable gets All (or its first option with {@code firstValues}), a single-value one its
     * first option, as Grafana selects on load; a custom variable its saved current value (its first value with
     * {@code firstValues}).
     *
     * @return the variables, or null after recording a failure
     */
    static Map<String, Variable> resolveVariables(String url, String db, JsonNode d, Context ctx,
            boolean firstValues, String where, List<String> failures) {
        return resolveVariables(url, db, d, ctx, firstValues, Map.of(), where, failures);
    }

    /**
     * As {@link #resolveVariables(String, String, JsonNode, Context, boolean, String, List)}, with chosen values for
     * custom variables ({@link GrafanaQueryExpander#ALL} for All).
     */
    static Map<String, Variable> resolveVariables(String url, String db, JsonNode d, Context ctx,
            boolean firstValues, Map<String, String> customChoice, String where, List<String> failures) {
        Map<String, Variable> vars = new LinkedHashMap<>();
        for (JsonNode v : d.path("templating").path("list")) {
            String name = v.path("name").asText();
            switch (v.path("type").asText()) {
                case "constant" -> vars.put(name, Variable.single(name, name.equals("database") ? db
                        : v.path("query").asText()));
                case "custom" -> {
                    List<String> options = customOptions(v);
                    String value = customChoice.getOrDefault(name, firstValues ? options.getFirst()
                            : customCurrent(v));
                    vars.put(name, value.equals(GrafanaQueryExpander.ALL) ? Variable.all(name, options)
                            : Variable.single(name, value));
                }
                case "query" -> {
                    String sql = variableSql(v);
                    Result r;
                    try {
                        r = run(url, GrafanaQueryExpander.expand(sql, vars, ctx));
                    } catch (Exception e) {
                        failures.add(where + " variable " + name + ": " + e.getMessage());
                        return null;
                    }
                    if (r.data().isEmpty()) {
                        failures.add(where + " variable " + name + " returned no rows: " + r.sql());
                        return null;
                    }
                    List<String> options = new ArrayList<>();
                    for (List<Object> row : r.data()) {
                        options.add(String.valueOf(row.getFirst()));
                    }
                    boolean multi = v.path("multi").asBoolean() || v.path("includeAll").asBoolean();
                    if (!multi) {
                        vars.put(name, Variable.single(name, options.getFirst()));
                    } else if (firstValues) {
                        vars.put(name, Variable.of(name, List.of(options.getFirst()), options));
                    } else {
                        vars.put(name, Variable.all(name, options));
                    }
                }
                default -> {
                    failures.add(where + " variable " + name + ": type " + v.path("type").asText()
                            + " is not emulated by this test");
                    return null;
                }
            }
        }
        return vars;
    }

    /** Runs every target of every panel; with {@code strict}, also checks rows, values and time order. */
    private static int runPanels(String url, JsonNode d, Map<String, Variable> vars, Context ctx, boolean strict,
            String where, List<String> failures) {
        int n = 0;
        for (JsonNode p : panels(d)) {
            for (JsonNode t : p.path("targets")) {
                if (readsLabTable(t.path("rawSql").asText())) {
                    continue; // the lab module's tables: LabOutputTest runs these after a lab run
                }
                String what = where + " panel '" + p.path("title").asText() + "' " + t.path("refId").asText();
                n++;
                Result r;
                try {
                    r = run(url, GrafanaQueryExpander.expand(t.path("rawSql").asText(), vars, ctx));
                } catch (Exception e) {
                    failures.add(what + ": " + e.getMessage());
                    continue;
                }
                if (Boolean.getBoolean("vecflow.test.printResults")) {
                    System.out.println(what + ": " + r.data().size() + " rows " + r.types() + " "
                            + r.data().subList(0, Math.min(4, r.data().size())));
                }
                if (!strict) {
                    continue;
                }
                if (r.data().isEmpty()) {
                    failures.add(what + ": no rows from " + r.sql());
                    continue;
                }
                if (!r.anyNonZeroNumber()) {
                    failures.add(what + ": only zeros/nulls in " + r.data() + " from " + r.sql());
                }
                if (t.path("format").asInt() == 0) {
                    String problem = r.timeColumnProblem();
                    if (problem != null) {
                        failures.add(what + ": " + problem + " in " + r.sql());
                    }
                }
            }
        }
        return n;
    }

    // ------------------------------------------------------------------ ClickHouse access

    /**
     * A query result.
     *
     * @param sql the SQL as run
     * @param types column types
     * @param data rows
     * @param names column names
     */
    record Result(String sql, List<String> types, List<List<Object>> data, List<String> names) {
        boolean anyNonZeroNumber() {
            boolean numeric = false;
            for (int c = 0; c < types.size(); c++) {
                if (!types.get(c).matches("(Nullable\\()?(U?Int\\d+|Float\\d+|Decimal.*)\\)?")) {
                    continue;
                }
                numeric = true;
                for (List<Object> row : data) {
                    if (row.get(c) instanceof Number num && num.doubleValue() != 0) {
                        return true;
                    }
                }
            }
            return !numeric;
        }

        /** @return null when a DateTime column exists and ascends, else what is wrong. */
        String timeColumnProblem() {
            int c = types.indexOf("DateTime");
            if (c < 0) {
                return "time series without a DateTime column (types " + types + ")";
            }
            String prev = "";
            for (List<Object> row : data) {
                String s = String.valueOf(row.get(c));
                if (s.compareTo(prev) < 0) {
                    return "time column not ascending (" + prev + " then " + s + ")";
                }
                prev = s;
            }
            return null;
        }
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * Runs one SELECT (the plugin adds no FORMAT; this adds JSONCompact).
     *
     * @throws IOException with ClickHouse's message and the SQL when the query fails
     */
    static Result run(String url, String sql) throws IOException, InterruptedException {
        if (sql.contains("$")) {
            throw new IOException("unexpanded $ left in: " + sql);
        }
        String body = query(url + "/?output_format_json_quote_64bit_integers=0", sql + "\nFORMAT JSONCompact");
        JsonNode j = JSON.readTree(body);
        List<String> types = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (JsonNode m : j.path("meta")) {
            types.add(m.path("type").asText());
            names.add(m.path("name").asText());
        }
        List<List<Object>> data = new ArrayList<>();
        for (JsonNode row : j.path("data")) {
            List<Object> r = new ArrayList<>();
            for (JsonNode cell : row) {
                r.add(cell.isNull() ? null : cell.isNumber() ? cell.numberValue() : cell.asText());
            }
            data.add(r);
        }
        return new Result(sql, types, data, names);
    }

    private static String query(String url, String sql) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url.contains("?") ? url : url + "/"))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(sql)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("ClickHouse " + r.statusCode() + ": " + r.body().strip() + "\n  for: " + sql);
        }
        return r.body();
    }

    private static long rows(String url, String sql) throws IOException, InterruptedException {
        return Long.parseLong(query(url, sql + " FORMAT TabSeparated").strip());
    }

    // ------------------------------------------------------------------ data

    /**
     * Fills {@code db}: every capture of testdata/sflow and the lab agent's datagrams through a real collector, loss
     * accounting recorded, then the lb_decisions fixture.
     */
    private static void ingest(String url, String db) throws Exception {
        List<byte[]> datagrams = new ArrayList<>();
        for (String capture : Captures.all()) {
            datagrams.addAll(Captures.udpPayloads(capture));
        }
        datagrams.addAll(labDatagrams());
        collect(url, db, datagrams);
        query(url, lbFixture(db));
        query(url, lbCountersFixture(db));
        for (String sql : enrichmentFixtures(db)) {
            query(url, sql);
        }
        assertThat(rows(url, "SELECT count() FROM " + db + ".flows")).isPositive();
        assertThat(rows(url, "SELECT count() FROM " + db + ".drops")).isEqualTo(2 + 5);
        assertThat(rows(url, "SELECT count() FROM " + db + ".if_counters")).isPositive();
        // lab agent: datagram 4 of 6 lost, flow drops counter 2 -> 12, discard drops counter 1 -> 36
        assertThat(query(url, "SELECT sum(Datagrams), sum(DatagramsLost) FROM " + db + ".agents WHERE SampleFamily = "
                + "255 AND AgentAddress = IPv6StringToNum('::ffff:10.9.9.9') FORMAT TabSeparated").strip())
                .isEqualTo("5\t1");
        assertThat(query(url, "SELECT SampleFamily, sum(Samples), sum(SamplesLost), sum(ReportedDrops) FROM " + db
                + ".agents WHERE SampleFamily IN (0, 2) AND AgentAddress = IPv6StringToNum('::ffff:10.9.9.9') "
                + "GROUP BY SampleFamily ORDER BY SampleFamily FORMAT TabSeparated").strip())
                .isEqualTo("0\t15\t3\t10\n2\t5\t1\t35");
    }

    /** Sends the datagrams through a real collector with a ClickHouse sink into {@code db}, then records loss. */
    private static void collect(String url, String db, List<byte[]> datagrams) throws Exception {
        Collector.Settings s = new Collector.Settings();
        s.bindAddress = "127.0.0.1";
        s.port = 0;
        s.threads = 1;
        s.clickhouseUrl = url;
        s.clickhouseDatabase = db;
        s.lossIntervalMs = 3_600_000; // only the explicit flush records loss
        s.enrichment.statics.addAll(testExporters());
        try (Collector c = new Collector(s); TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            tx.sendPaced(datagrams, 16, () -> c.stats().datagramsReceived.sum());
            final long n = datagrams.size();
            TestSupport.await("all datagrams processed", WAIT, () -> c.stats().datagramsReceived.sum() == n,
                    () -> "(received " + c.stats().datagramsReceived.sum() + " of " + n + ")");
            c.flush();
            assertThat(c.stats().sinkErrors.sum()).isZero();
            assertThat(c.clickhouse().rowsFailed()).isZero();
        }
    }

    /**
     * The lab agent (10.9.9.9, sub-agent 100000): datagrams 1..6, datagram 4 never sent (a sequence gap). Each holds
     * three expanded flow samples from source 0:7 (sampling 1-in-100, drops = 2 x datagram: the dataplane's FIFO
     * drops as the agent reports them) whose headers are the three SRv6 frames of {@code testdata/traffic}, and one
     * discarded_packet from source 0:7 (reason acl or no_buffer_space alternately, drops = datagram^2) whose header is
     * the first TCP frame of tcpreplay-test.pcap.
     */
    static List<byte[]> labDatagrams() throws IOException {
        List<byte[]> srh = new ArrayList<>();
        for (String name : List.of("ipv6-srh-ext-header.pcap", "ipv6-srh-insert-cksum.pcap",
                "ipv6-srh-tlv-pad1-padn-5.pcap")) {
            srh.add(PcapReader.readAll(Path.of("..", "testdata", "traffic", name)).packets().getFirst().data());
        }
        byte[] tcp = firstFrame("tcpreplay-test.pcap", 6);
        DatagramBuilder b = new DatagramBuilder(1400, LAB_AGENT, LAB_SUB_AGENT);
        List<byte[]> out = new ArrayList<>();
        long flowSeq = 0;
        for (int d = 1; d <= 6; d++) {
            b.reset();
            for (byte[] frame : srh) {
                flowSeq++;
                int len = Math.min(frame.length, 256);
                assertThat(b.addFlowSampleExpanded(flowSeq, 0, 7, 100, flowSeq * 100, 2L * d, 0, 7, 0, 8, 1,
                        frame.length + 4, 4, frame, 0, len)).isTrue();
            }
            FlowSample discard = new FlowSample();
            discard.kind = SflowFormats.DISCARDED_PACKET;
            discard.sequenceNumber = d;
            discard.sourceIdType = 0;
            discard.sourceIdIndex = 7;
            discard.drops = (long) d * d;
            discard.input = 7;
            discard.output = 0;
            discard.reason = d % 2 == 0 ? 258 : 259;
            discard.sampledHeader.headerProtocol = 1;
            discard.sampledHeader.frameLength = tcp.length + 4;
            discard.sampledHeader.stripped = 4;
            discard.sampledHeader.header.set(tcp, 0, Math.min(tcp.length, 128));
            discard.hasSampledHeader = true;
            discard.recordFormats[discard.recordsListed++] = SflowFormats.SAMPLED_HEADER;
            discard.recordCount = discard.recordsListed;
            assertThat(b.addFlowSample(discard)).isTrue();
            int len = b.finish(d, d * 1000L);
            if (d != 4) {
                out.add(Arrays.copyOf(b.buffer(), len));
            }
        }
        return out;
    }

    /**
     * The "direction both" agent (10.9.9.20, sub-agent 7): seven datagrams, one per packet, all of them the first TCP
     * frame of tcpreplay-test.pcap sampled 1 in 100. Packets 1–5 go from port 1 to port 2 and are sampled twice:
     * ingress (source 0:1) and egress (source 0:2); packets 6–7 enter port 3 (no ingress sampling) and are sampled on
     * egress only.
     */
    static List<byte[]> bothDirectionsDatagrams() throws IOException {
        byte[] tcp = firstFrame("tcpreplay-test.pcap", 6);
        int len = Math.min(tcp.length, 128);
        DatagramBuilder b = new DatagramBuilder(1400, new byte[] {10, 9, 9, 20}, 7);
        List<byte[]> out = new ArrayList<>();
        long ingressSeq = 0, egressSeq = 0;
        for (int k = 1; k <= 7; k++) {
            b.reset();
            long in = k <= 5 ? 1 : 3;
            if (k <= 5) {
                ingressSeq++;
                assertThat(b.addFlowSampleExpanded(ingressSeq, 0, 1, 100, ingressSeq * 100, 0, 0, in, 0, 2, 1,
                        tcp.length + 4, 4, tcp, 0, len)).isTrue();
            }
            egressSeq++;
            assertThat(b.addFlowSampleExpanded(egressSeq, 0, 2, 100, egressSeq * 100, 0, 0, in, 0, 2, 1,
                    tcp.length + 4, 4, tcp, 0, len)).isTrue();
            int n = b.finish(k, k * 1000L);
            out.add(Arrays.copyOf(b.buffer(), n));
        }
        return out;
    }

    private static byte[] firstFrame(String capture, int ipProtocol) throws IOException {
        PcapFile file = PcapReader.readAll(Path.of("..", "testdata", "traffic", capture));
        ParsedPacket pp = new ParsedPacket();
        for (PcapPacket p : file.packets()) {
            byte[] d = p.data();
            PacketParser.parse(d, 0, d.length, file.linkType(), pp);
            if (pp.protocol() == ipProtocol) {
                return d;
            }
        }
        throw new IllegalStateException("no IP protocol " + ipProtocol + " frame in " + capture);
    }

    /** The lab agent's (10.9.9.9) name in {@link #testExporters}. */
    static final String LAB_EXPORTER = "lab-edge-1";
    private static final StaticExporter.Interface LAB_TRANSIT = new StaticExporter.Interface("Ethernet7",
            "transit: Example Transit", 10_000, "external", "example-transit", "transit");
    private static final StaticExporter.Interface LAB_CORE = new StaticExporter.Interface("Ethernet8",
            "core: to v6-core-1", 100_000, "internal", "", "");
    private static final StaticExporter.Interface LAB_IX = new StaticExporter.Interface("Ethernet9",
            "peering: Example IX", 10_000, "external", "example-ix", "ix");
    /** Destination countries of the enrichment fixture, by falling bytes: the last two end up in Other. */
    static final List<String> DST_COUNTRIES = List.of("US", "DE", "FR", "GB", "NL", "JP", "BR", "IN", "AU", "CA",
            "SE", "CH");
    private static final long FIXTURE_BYTES = 1000;
    private static final long FIXTURE_RATE = 1000;

    /**
     * The collector's static exporter metadata ({@code enrichment.metadata.static}) for the agents of the captures
     * and the lab agent: names and classification, and per ifIndex the interfaces their samples name (MANIFEST.md).
     * 30::1:1:1's interface 7001 has no static speed: its counter samples give 400 Gb/s (the {@code sflow} source).
     * 49.49.49.49, 127.0.0.1, 172.16.0.3, 172.19.64.116 and the "direction both" agent get no entry, so the
     * dashboards' fallbacks (agent address, ifIndex) show as well.
     */
    static List<StaticExporter> testExporters() {
        return List.of(
                new StaticExporter("10.9.9.9", new StaticExporter.Exporter(LAB_EXPORTER, "lab", "edge", "lab-1",
                        "eu", ""), Map.of(7L, LAB_TRANSIT, 8L, LAB_CORE, 9L, LAB_IX), null, 1),
                new StaticExporter("30::1:1:1", new StaticExporter.Exporter("v6-core-1", "core", "core", "lab-1",
                        "eu", ""), Map.of(7001L, new StaticExporter.Interface("et-0/0/7", "to lab-edge-1", 0,
                                "internal", "", "")), null, 2),
                new StaticExporter("172.16.0.17", new StaticExporter.Exporter("goflow2-leaf", "dc", "leaf", "dc-1",
                        "eu", ""), Map.of(1194L, new StaticExporter.Interface("xe-0/0/0", "peering: Example IX",
                                10_000, "external", "example-ix", "ix"), 1043L, new StaticExporter.Interface(
                                        "xe-0/0/1", "servers", 10_000, "internal", "", "")), null, 3),
                new StaticExporter("192.168.119.184", new StaticExporter.Exporter("drop-sw1", "dc", "access", "dc-1",
                        "eu", ""), Map.of(1L, new StaticExporter.Interface("ge-0/0/1", "access", 1000, "external", "",
                                ""), 2L, new StaticExporter.Interface("ge-0/0/2", "uplink", 1000, "internal", "", "")),
                        null, 4));
    }

    /**
     * Fixtures for what the collector cannot fill in this test (no AS or GeoIP database): {@code asns} rows (AS 64500
     * renamed: the panels show its latest name; AS 64497–64507, 64501 and the captures' 203476 and 203361 have no
     * name) and ten minutes of enriched flow rows from the lab agent as the enrichment would store them: per minute
     * twelve rows j = 0..11 of {@value #FIXTURE_BYTES} × (12 − j) bytes sampled 1 in {@value #FIXTURE_RATE}, source
     * AS 15169 / 64500 / 64501 and country US / FR / DE by j mod 3, destination AS 64496 + j and country
     * {@link #DST_COUNTRIES}[j], in by Ethernet7 (even j) or Ethernet9 (odd j), out by Ethernet8 (metadata from
     * {@link #testExporters}). The materialized views fill the rollups.
     */
    static List<String> enrichmentFixtures(String db) {
        long now = Instant.now().getEpochSecond();
        String asns = "INSERT INTO " + db + ".asns (TimeReceived, ASN, Name) VALUES (toDateTime(" + (now - 7200)
                + "), 64500, 'Old Transit'), (toDateTime(" + (now - 60) + "), 64500, 'Example Transit'), (toDateTime("
                + (now - 60) + "), 15169, 'Google LLC'), (toDateTime(" + (now - 60) + "), 64496, 'Example Hosting')";
        StringBuilder flows = new StringBuilder("INSERT INTO " + db + ".flows (TimeReceived, TimeReceivedNanos, "
                + "AgentAddress, SubAgentId, SourceIdType, SourceIdIndex, SamplingRate, InIf, OutIf, EType, Proto, "
                + "SrcAddr, DstAddr, SrcPort, DstPort, Bytes, Packets, SrcAS, DstAS, SrcCountry, DstCountry, "
                + "ExporterName, ExporterGroup, ExporterRole, InIfName, InIfDescription, InIfSpeed, InIfBoundary, "
                + "InIfProvider, InIfConnectivity, OutIfName, OutIfDescription, OutIfSpeed, OutIfBoundary, "
                + "OutIfProvider, OutIfConnectivity) VALUES ");
        long[] srcAs = {15169, 64500, 64501};
        String[] srcCountry = {"US", "FR", "DE"};
        List<String> rows = new ArrayList<>();
        for (int k = 0; k < 10; k++) {
            long t = now - 60L * k - 5;
            for (int j = 0; j < 12; j++) {
                long in = j % 2 == 0 ? 7 : 9;
                StaticExporter.Interface i = j % 2 == 0 ? LAB_TRANSIT : LAB_IX;
                StaticExporter.Interface o = LAB_CORE;
                rows.add("(toDateTime(" + t + "), " + (t * 1_000_000_000L + j)
                        + ", IPv6StringToNum('::ffff:10.9.9.9'), " + LAB_SUB_AGENT + ", 0, " + in + ", " + FIXTURE_RATE
                        + ", " + in + ", 8, 2048, 6, "
                        + "IPv6StringToNum('::ffff:198.51.100." + (j + 1) + "'), IPv6StringToNum('::ffff:203.0.113."
                        + (j + 1) + "'), 443, " + (50000 + j) + ", " + FIXTURE_BYTES * (12 - j) + ", " + (12 - j) + ", "
                        + srcAs[j % 3] + ", " + (64496 + j) + ", '" + srcCountry[j % 3] + "', '" + DST_COUNTRIES.get(j)
                        + "', '" + LAB_EXPORTER + "', 'lab', 'edge', " + iface(i) + ", " + iface(o) + ")");
            }
        }
        return List.of(asns, flows.append(String.join(", ", rows)).toString());
    }

    private static String iface(StaticExporter.Interface i) {
        return "'" + i.name() + "', '" + i.description() + "', " + i.speedMbps() + ", '" + i.boundary() + "', '"
                + i.provider() + "', '" + i.connectivity() + "'";
    }

    /**
     * Test fixture for lb_decisions, which no component fills yet (the load-balancer feature will): ten minutes of
     * decisions by the lab agent for an SRLB VIP ({@value #SRLB_VIP} port 443, three backends; per minute one backend
     * accepts flows as first choice, for others the first candidate passes and the second accepts, flows are torn down)
     * and a Maglev VIP (192.0.2.10 port 80, four backends, 'new' placements). Every minute therefore places flows on
     * more than one backend of each VIP (two SRLB, four Maglev), which a join that keeps one row per key would lose.
     */
    static String lbFixture(String db) {
        StringBuilder sb = new StringBuilder("INSERT INTO " + db + ".lb_decisions (TimeReceived, AgentAddress, "
                + "Algorithm, VIP, VIPPort, Proto, Backend, ChoiceIndex, Decision, Policy, PolicyMetric, Flows) "
                        + "VALUES ");
        long now = Instant.now().getEpochSecond();
        String agent = "IPv6StringToNum('::ffff:10.9.9.9')";
        List<String> rows = new ArrayList<>();
        for (int k = 0; k < 10; k++) {
            long t = now - 60L * k - 5;
            String[] srlb = {"2001:db8:200::1", "2001:db8:200::2", "2001:db8:200::3"};
            String accepts = srlb[k % 3], passes = srlb[(k + 1) % 3], second = srlb[(k + 2) % 3];
            rows.add(lbRow(t, agent, "srlb", SRLB_VIP, 443, accepts, 1, "accept", "busy-workers", 2 + k % 3, 20 + k));
            rows.add(lbRow(t, agent, "srlb", SRLB_VIP, 443, passes, 1, "pass", "busy-workers", 8, 5));
            rows.add(lbRow(t, agent, "srlb", SRLB_VIP, 443, second, 2, "accept", "busy-workers", 3, 5));
            rows.add(lbRow(t, agent, "srlb", SRLB_VIP, 443, accepts, 0, "teardown", "busy-workers", 2, 18));
            for (int b = 1; b <= 4; b++) {
                rows.add(lbRow(t, agent, "maglev", "::ffff:192.0.2.10", 80, "::ffff:10.0.0." + b, 0, "new",
                        "consistent-hash", 0, 10 + 3L * b + k % 2));
            }
        }
        return sb.append(String.join(", ", rows)).toString();
    }

    /**
     * Test fixture for lb_counters (the LbCountersChainTest fills it from real components; here it only has to be
     * non-empty for the panels): ten polling intervals of rising counters for the SRLB VIP's totals and two of its
     * backends, and for the Maglev VIP.
     */
    static String lbCountersFixture(String db) {
        StringBuilder sb = new StringBuilder("INSERT INTO " + db + ".lb_counters (TimeReceived, AgentAddress, Role, "
                + "VIPIndex, VIP, VIPPort, Proto, BackendIndex, Backend, NewFlows, FirstChoiceAccepts, "
                + "SecondChoiceAccepts, Rejects, StickyHits, TableFull) VALUES ");
        long now = Instant.now().getEpochSecond();
        String agent = "IPv6StringToNum('::ffff:10.9.9.9')";
        List<String> rows = new ArrayList<>();
        for (int k = 0; k < 10; k++) {
            long t = now - 60L * k - 5;
            long n = 10 - k; // cumulative: older rows hold less
            rows.add("(toDateTime(" + t + "), " + agent + ", 'srlb', 0, IPv6StringToNum('" + SRLB_VIP
                    + "'), 443, 6, 0, "
                    + "IPv6StringToNum('::'), " + 30 * n + ", " + 20 * n + ", " + 10 * n + ", " + 10 * n + ", "
                    + 300 * n + ", 0)");
            for (int b = 1; b <= 2; b++) {
                rows.add("(toDateTime(" + t + "), " + agent + ", 'srlb', 0, IPv6StringToNum('" + SRLB_VIP + "'), 443, "
                        + "6, " + b + ", IPv6StringToNum('2001:db8:200::" + b + "'), " + 15 * n + ", " + 10 * n
                        + ", " + 5 * n + ", " + 5 * n + ", " + 150 * n + ", 0)");
            }
            rows.add("(toDateTime(" + t + "), " + agent + ", 'maglev', 1, IPv6StringToNum('::ffff:192.0.2.10'), 80, 6, "
                    + "0, IPv6StringToNum('::'), " + 40 * n + ", 0, 0, 0, " + 400 * n + ", " + n + ")");
        }
        return sb.append(String.join(", ", rows)).toString();
    }

    /**
     * @return true when the SQL reads a {@code lab_*} table: those are the lab module's ({@code LabTables}), created
     *     and filled by {@code vecflow lab}, not by the collector; the lab's own test runs the dashboard's Lab panels
     *     against them
     */
    static boolean readsLabTable(String sql) {
        return sql.contains("${database}.lab_");
    }

    private static String lbRow(long t, String agent, String algorithm, String vip, int port, String backend,
            int choice, String decision, String policy, double metric, long flows) {
        return "(toDateTime(" + t + "), " + agent + ", '" + algorithm + "', IPv6StringToNum('" + vip + "'), " + port
                + ", 6, IPv6StringToNum('" + backend + "'), " + choice + ", '" + decision + "', '" + policy + "', "
                + metric + ", " + flows + ")";
    }
}
