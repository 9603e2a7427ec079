package io.vecflow.collector.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.TestSupport;
import io.vecflow.collector.sink.clickhouse.ClickHouseSink;
import io.vecflow.collector.sink.clickhouse.ClickHouseSinkTestSupport;
import io.vecflow.collector.sink.clickhouse.RowBinaryWriterTest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The flow sample's direction (issue 17): the rule over the data source ({@link FlowRow#direction}), the
 * {@code Direction} column's DEFAULT on the real server (the same rule in SQL), and the migration of a database
 * created before the column existed — flows and drops get it by ADD COLUMN (old rows computed by the DEFAULT), the
 * rollups in their SummingMergeTree key — without losing a row. What vecflow's own agent sends for ingress and egress
 * PSAMPLE groups is tested in the it module ({@code AgentDirectionTest}).
 */
public class DirectionTest {
    /** Cases: source type, source index, input format, input, output format, output → expected direction. */
    private static final long[][] CASES = {
        {0, 5, 0, 5, 0, 6, FlowRow.INGRESS},
        {0, 6, 0, 5, 0, 6, FlowRow.EGRESS},
        {0, 5, 0, 5, 0, 5, FlowRow.INGRESS},              // hairpin: ingress
        {0, 0, 0, 0, 0, 6, FlowRow.DIRECTION_UNDEFINED},   // source 0:0 (e.g. dropmon, port unknown)
        {0, 0, 0, 5, 0, 0, FlowRow.DIRECTION_UNDEFINED},
        {1, 5, 0, 5, 0, 6, FlowRow.DIRECTION_UNDEFINED},   // VLAN data source
        {2, 6, 0, 5, 0, 6, FlowRow.DIRECTION_UNDEFINED},   // entity data source
        {0, 7, 0, 5, 0, 6, FlowRow.DIRECTION_UNDEFINED},   // neither interface (LAG or bridge sampler)
        {0, 7, 2, 7, 0, 6, FlowRow.DIRECTION_UNDEFINED},   // input is a count (format 2), not an ifIndex
        {0, 7, 0, 5, 2, 7, FlowRow.DIRECTION_UNDEFINED},   // output is a count
        {0, 7, 0, 5, 1, 7, FlowRow.DIRECTION_UNDEFINED},   // output is a discard reason (format 1)
        {0, 0x3FFF_FFFFL, 0, 0x3FFF_FFFFL, 0, 2, FlowRow.INGRESS},
        {0, 0xFFFF_FFFEL, 0, 1, 0, 0xFFFF_FFFEL, FlowRow.EGRESS}, // u32 above 2^31
    };

    private static int rule(long[] c) {
        return FlowRow.direction((int) c[0], c[1], (int) c[2], c[3], (int) c[4], c[5]);
    }

    @Test
    void theRuleFollowsTheDataSource() {
        for (long[] c : CASES) {
            assertThat(rule(c)).as(Arrays.toString(c)).isEqualTo((int) c[6]);
        }
    }

    /** The DEFAULT of flows.Direction, on the server, gives what the Java rule gives for every case. */
    @Test
    void theColumnDefaultIsTheSameRuleOnTheServer() throws Exception {
        String db = "dir_rule_" + TestSupport.suffix();
        FlowSchema.ServerFeatures f = features();
        ClickHouseSinkTestSupport.query("CREATE DATABASE " + db);
        try {
            ClickHouseSinkTestSupport.query(FlowSchema.createFlows(db, f, 15));
            List<String> values = new ArrayList<>();
            List<String> want = new ArrayList<>();
            for (int i = 0; i < CASES.length; i++) {
                long[] c = CASES[i];
                values.add("(now(), " + i + ", " + c[0] + ", " + c[1] + ", " + c[2] + ", " + c[3] + ", " + c[4] + ", "
                        + c[5] + ")");
                want.add(FlowSchema.DIRECTIONS.get(rule(c)));
            }
            ClickHouseSinkTestSupport.query("INSERT INTO " + db + ".flows (TimeReceived, SampleSequence, SourceIdType, "
                    + "SourceIdIndex, InIfFormat, InIf, OutIfFormat, OutIf) VALUES " + String.join(", ", values));
            assertThat(q("SELECT Direction FROM " + db + ".flows ORDER BY SampleSequence FORMAT TSV").lines())
                    .containsExactlyElementsOf(want);
        } finally {
            ClickHouseSinkTestSupport.query("DROP DATABASE IF EXISTS " + db);
        }
    }

    /**
     * A database created before Direction existed — flows, drops and rollups without it, the rollups keyed without
     * it, the old views, migrations 1–3 applied — holding an ingress, an egress and an undefined flow sample and one
     * discard; flows_1h already altered by a start that stopped there (its old view left in place). The sink's start
     * migrates it: flows and drops rows get their direction from the DEFAULT, the rollups keep their sums (old rows:
     * undefined) with Direction appended to the key, and the re-created views pass new rows on with their direction,
     * which the rollups no longer merge across. A second start changes nothing.
     */
    @Test
    void aDatabaseFromBeforeDirectionMigratesWithoutLosingARow() throws Exception {
        String db = "dir_migrate_" + TestSupport.suffix();
        FlowSchema.ServerFeatures f = features();
        ClickHouseSinkTestSupport.query("CREATE DATABASE " + db);
        try {
            // The schema of then: no Direction and no enrichment columns (migration 5 came later).
            java.util.Set<String> later = new java.util.HashSet<>(FlowSchema.ROLLUP_ENRICHMENT);
            FlowSchema.ENRICHMENT.forEach(c -> later.add(c.name()));
            later.add("Direction");
            for (FlowSchema.Table t : FlowSchema.TABLES) {
                if (t.name().equals("asns")) {
                    continue;
                }
                List<FlowSchema.Column> cols = t.columns().stream().filter(c -> !later.contains(c.name())).toList();
                String key = t.orderBy().replace(", " + String.join(", ", FlowSchema.ROLLUP_ENRICHMENT), "")
                        .replace(", Direction", "");
                ClickHouseSinkTestSupport.query(FlowSchema.createTable(db, new FlowSchema.Table(t.name(), cols,
                        t.engine(), t.partitionBy(), key, t.ttlDays()), f, t.ttlDays()));
            }
            for (FlowSchema.View v : FlowSchema.VIEWS) {
                ClickHouseSinkTestSupport.query(FlowSchema.createView(db, new FlowSchema.View(v.name(), v.target(),
                        beforeMigration6(v.select()).replace(" Direction, "
                                + String.join(", ", FlowSchema.ROLLUP_ENRICHMENT) + ",", ""))));
            }
            ClickHouseSinkTestSupport.query("CREATE TABLE " + db + ".schema_migrations (Version UInt32, Description "
                    + "String, AppliedAt DateTime) ENGINE = MergeTree ORDER BY Version");
            ClickHouseSinkTestSupport.query("INSERT INTO " + db + ".schema_migrations VALUES (1, 'a', now()), "
                    + "(2, 'b', now()), (3, 'c', now())");
            String cols = "(TimeReceived, SampleSequence, SourceIdType, SourceIdIndex, InIfFormat, InIf, OutIfFormat, "
                    + "OutIf, Bytes, Packets, SamplingRate)";
            ClickHouseSinkTestSupport.query("INSERT INTO " + db + ".flows " + cols + " VALUES "
                    + "(now(), 1, 0, 1, 0, 1, 0, 2, 100, 1, 10), (now(), 2, 0, 2, 0, 1, 0, 2, 100, 1, 10), "
                    + "(now(), 3, 0, 0, 0, 1, 0, 2, 100, 1, 10)");
            ClickHouseSinkTestSupport.query("INSERT INTO " + db + ".drops " + cols + " VALUES "
                    + "(now(), 1, 0, 7, 0, 7, 0, 0, 60, 1, 1)");
            assertThat(q("SELECT sum(Bytes), sum(Samples) FROM " + db + ".flows_1h")).isEqualTo("3000\t3");
            // A start cut short after altering flows_1h: it has Direction, its old view (without it) is still there.
            ClickHouseSinkTestSupport.query(FlowSchema.addRollupDirection(db, "flows_1h", f));

            try (ClickHouseSink sink = new ClickHouseSink(TestSupport.clickhouseUrl(), "default", "", db, 1000,
                    3_600_000)) {
                assertThat(q("SELECT groupArray(Version) FROM (SELECT Version FROM " + db
                        + ".schema_migrations ORDER BY Version)")).isEqualTo("[1,2,3,4,5,6]");
                assertThat(q("SELECT groupArray(toString(Direction)) FROM (SELECT Direction FROM " + db
                        + ".flows ORDER BY SampleSequence)")).isEqualTo("['ingress','egress','undefined']");
                assertThat(q("SELECT Direction FROM " + db + ".drops")).isEqualTo("ingress");
                for (String r : List.of("flows_1m", "flows_5m", "flows_1h")) {
                    assertThat(q("SHOW CREATE TABLE " + db + "." + r)).as(r)
                            .contains("ORDER BY (TimeReceived, AgentAddress, SubAgentId, InIf, OutIf, Vlan, EType, "
                                    + "Proto, SrcAS, DstAS, ForwardingStatus, Direction, ExporterName, InIfName, "
                                    + "OutIfName, InIfBoundary, OutIfBoundary, InIfProvider, OutIfProvider, "
                                    + "SrcCountry, DstCountry)");
                    assertThat(q("SELECT toString(Direction), sum(Bytes), sum(Samples) FROM " + db + "." + r
                            + " GROUP BY Direction")).as(r).isEqualTo("undefined\t3000\t3");
                }
                assertThat(sink.columnsOf("flows")).containsAll(FlowSchema.columnNames());
                // New rows: the same packet sampled on ingress and on egress (all other rollup dimensions equal).
                for (int i = 0; i < 2; i++) {
                    FlowRow row = RowBinaryWriterTest.sampleRow();
                    row.sampleType = FlowRow.FLOW;
                    row.timeReceivedNanos = System.currentTimeMillis() * 1_000_000L;
                    row.sourceIdType = 0;
                    row.sourceIdIndex = i == 0 ? 1 : 2;
                    row.inIfFormat = 0;
                    row.inIf = 1;
                    row.outIfFormat = 0;
                    row.outIf = 2;
                    row.direction = FlowRow.direction(row.sourceIdType, row.sourceIdIndex, row.inIfFormat, row.inIf,
                            row.outIfFormat, row.outIf);
                    row.samplingRate = 10;
                    row.bytes = 100;
                    row.ingestStream = 0x8000_0100L;
                    row.ingestOffset = i + 1;
                    sink.accept(row);
                }
                sink.flush();
            }
            for (String r : List.of("flows_1m", "flows_5m", "flows_1h")) {
                ClickHouseSinkTestSupport.query("OPTIMIZE TABLE " + db + "." + r + " FINAL");
                assertThat(q("SELECT toString(Direction), count(), sum(Bytes), sum(Samples) FROM " + db + "." + r
                        + " WHERE InIf = 1 AND OutIf = 2 AND Vlan = 809 GROUP BY Direction ORDER BY Direction FORMAT "
                                + "TSV"))
                        .as(r).isEqualTo("ingress\t1\t1000\t1\negress\t1\t1000\t1");
                assertThat(q("SELECT sum(Samples) FROM " + db + "." + r)).as(r)
                        .isEqualTo(q("SELECT count() FROM " + db + ".flows"));
            }
            // A second start does nothing more.
            try (ClickHouseSink sink = new ClickHouseSink(TestSupport.clickhouseUrl(), "default", "", db, 1000,
                    3_600_000)) {
                assertThat(q("SELECT count() FROM " + db + ".schema_migrations")).isEqualTo("6");
                assertThat(q("SELECT sum(Samples) FROM " + db + ".flows_1h")).isEqualTo("5");
            }
        } finally {
            ClickHouseSinkTestSupport.query("DROP DATABASE IF EXISTS " + db);
        }
    }

    private static FlowSchema.ServerFeatures features() throws Exception {
        return FlowSchema.ServerFeatures.fromVersion(q("SELECT version()"));
    }

    private static String q(String sql) throws Exception {
        return ClickHouseSinkTestSupport.query(sql).trim();
    }

    /** A rollup view's SELECT as it was before migration 6: one row per flow sample, no GROUP BY. */
    static String beforeMigration6(String select) {
        int g = select.indexOf(" GROUP BY ");
        return (g < 0 ? select : select.substring(0, g)).replace("sum(Bytes * SamplingRate)", "Bytes * SamplingRate")
                .replace("sum(Packets * SamplingRate)", "Packets * SamplingRate")
                .replace("count() AS Samples", "toUInt64(1) AS Samples");
    }
}
