package io.vecflow.collector.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.schema.FlowSchema.ServerFeatures;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The flows DDL per server version: a golden file for a modern server, the 18.16 fallbacks, version parsing. */
class FlowSchemaTest {
    private static String golden(String name) throws IOException {
        try (InputStream in = FlowSchemaTest.class.getResourceAsStream(name)) {
            assertThat(in).as("test resource " + name).isNotNull();
            String s = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            // The file is the exact statement; tolerate only the one final newline an editor may add.
            return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
        }
    }

    private static String schema(ServerFeatures f) {
        return String.join(";\n\n", FlowSchema.ddl("vecflow", f, java.util.Map.of())) + ";";
    }

    @Test
    void modernServerDdlMatchesGoldenFile() throws IOException {
        ServerFeatures f = ServerFeatures.fromVersion("25.8.2.29");
        assertThat(f).isEqualTo(new ServerFeatures(25, 8, true, true, true, true, true));
        assertThat(schema(f)).isEqualTo(golden("schema-ddl-25.8.sql"));
    }

    @Test
    void clickHouse1816DdlMatchesGoldenFile() throws IOException {
        ServerFeatures f = ServerFeatures.fromVersion("18.16.1");
        assertThat(f).isEqualTo(new ServerFeatures(18, 16, false, false, false, false, false));
        assertThat(schema(f)).isEqualTo(golden("schema-ddl-18.16.sql"));
    }

    @Test
    void clickHouse1816DdlHasFixedStringAddressesNoCodecNoTtl() {
        ServerFeatures f = ServerFeatures.fromVersion("18.16.1");
        String all = schema(f);
        assertThat(all).doesNotContain("IPv6").doesNotContain("CODEC").doesNotContain("\nTTL ")
                .doesNotContain("LowCardinality").doesNotContain("INDEX ");
        String ddl = FlowSchema.createFlows("vf_old", f, 15);
        assertThat(ddl).startsWith("CREATE TABLE IF NOT EXISTS vf_old.flows\n(\n");
        for (String c : List.of("AgentAddress", "PeerAddress", "SrcAddr", "DstAddr")) {
            assertThat(ddl).contains("\n    " + c + " FixedString(16),\n");
        }
        assertThat(ddl).contains("\n    TimeReceived DateTime,\n")
                .contains("\n    SRv6Segments Array(FixedString(16)),\n")
                .endsWith("ENGINE = MergeTree\nPARTITION BY toYYYYMMDD(TimeReceived)\n"
                        + "ORDER BY (TimeReceived, AgentAddress, InIf, OutIf)");
    }

    @Test
    void modernDdlHasNativeTypesCodecsTtlAndIndexes() {
        ServerFeatures f = ServerFeatures.fromVersion("24.3.1");
        String flows = FlowSchema.createFlows("db", f, 15);
        assertThat(flows).contains("\n    SrcAddr IPv6 CODEC(ZSTD(1)),\n")
                .contains("\n    INDEX SrcAddr_idx SrcAddr TYPE bloom_filter(0.001) GRANULARITY 4")
                .endsWith("TTL TimeReceived + INTERVAL 15 DAY");
        String drops = FlowSchema.createTable("db", FlowSchema.table("drops"), f, 30);
        assertThat(drops).contains("\n    DiscardReasonName LowCardinality(String)");
    }

    @Test
    void ddlListsEveryColumnOnceInRowBinaryOrder() {
        for (FlowSchema.Table t : FlowSchema.TABLES) {
            String ddl = FlowSchema.createTable("db", t, ServerFeatures.fromVersion("25.8.2.29"), 7);
            List<String> lines = ddl.lines().filter(l -> l.startsWith("    ") && !l.startsWith("    INDEX "))
                    .map(l -> l.trim().split(" ")[0]).toList();
            assertThat(lines).as(t.name()).isEqualTo(t.columnNames());
            assertThat(new HashSet<>(lines)).as(t.name()).hasSize(t.columns().size());
            assertThat(ddl).endsWith("TTL TimeReceived + INTERVAL 7 DAY");
        }
    }

    @Test
    void viewsReadExistingColumnsAndWriteExistingTables() {
        Set<String> tables = new HashSet<>(FlowSchema.TABLES.stream().map(FlowSchema.Table::name).toList());
        for (FlowSchema.View v : FlowSchema.VIEWS) {
            assertThat(tables).as(v.name()).contains(v.target());
            // Every output column of the view is a column of its target.
            String select = v.select().substring("SELECT ".length(), v.select().indexOf(" FROM "));
            for (String expr : select.split(", (?![^(]*\\))")) {
                String[] parts = expr.trim().split(" AS ");
                String out = parts[parts.length - 1].trim();
                assertThat(FlowSchema.table(v.target()).columnNames()).as(v.name() + " writes " + out).contains(out);
            }
        }
    }

    @Test
    void migrationAddsMissingColumnsInPlace() {
        ServerFeatures f = ServerFeatures.fromVersion("18.16.1");
        Set<String> existing = new HashSet<>(FlowSchema.columnNames());
        existing.remove("SRv6Segments");
        existing.remove("IngestStream");
        assertThat(FlowSchema.addMissingColumns("db", FlowSchema.table("flows"), existing, f)).containsExactly(
                "ALTER TABLE db.flows ADD COLUMN SRv6Segments Array(FixedString(16)) AFTER SRv6SegmentsLeft",
                "ALTER TABLE db.flows ADD COLUMN IngestStream UInt32 AFTER SRv6Segments");
    }

    @Test
    void directionIsAnEnumWithTheRuleAsDefaultInFlowsAndDropsAndAKeyColumnOfEveryRollup() {
        String direction = "Direction Enum8('undefined' = 0, 'ingress' = 1, 'egress' = 2)";
        for (String v : List.of("18.16.1", "25.8.2.29")) {
            ServerFeatures f = ServerFeatures.fromVersion(v);
            for (String t : List.of("flows", "drops")) {
                assertThat(FlowSchema.createTable("db", FlowSchema.table(t), f, 15)).as(t + " on " + v)
                        .contains("\n    SampleType UInt8,\n    " + direction + " DEFAULT " + FlowSchema.DIRECTION_RULE
                                + ",\n    DiscardReason UInt32");
            }
            for (String t : List.of("flows_1m", "flows_5m", "flows_1h")) {
                assertThat(FlowSchema.createTable("db", FlowSchema.table(t), f, 7)).as(t + " on " + v)
                        .contains("\n    ForwardingStatus UInt8,\n    " + direction + ",\n")
                        .contains("\nORDER BY (TimeReceived, AgentAddress, SubAgentId, InIf, OutIf, Vlan, EType, "
                                + "Proto, "
                                + "SrcAS, DstAS, ForwardingStatus, Direction, ExporterName, InIfName, OutIfName, "
                                + "InIfBoundary, OutIfBoundary, InIfProvider, OutIfProvider, SrcCountry, DstCountry)");
            }
        }
        for (FlowSchema.View v : FlowSchema.VIEWS) {
            if (v.target().startsWith("flows_")) {
                assertThat(v.select()).as(v.name()).contains(" ForwardingStatus, Direction, ");
            }
        }
    }

    @Test
    void anOldRollupGetsDirectionAppendedToItsKeyInOneAlter() {
        assertThat(FlowSchema.addRollupDirection("db", "flows_5m", ServerFeatures.fromVersion("18.16.1")))
                .isEqualTo("ALTER TABLE db.flows_5m ADD COLUMN Direction Enum8('undefined' = 0, 'ingress' = 1, "
                        + "'egress' = 2) AFTER ForwardingStatus, MODIFY ORDER BY (TimeReceived, AgentAddress, "
                        + "SubAgentId, InIf, OutIf, Vlan, EType, Proto, SrcAS, DstAS, ForwardingStatus, Direction)");
        // flows and drops take the additive path: ADD COLUMN with the rule as DEFAULT (old rows get it computed).
        Set<String> existing = new HashSet<>(FlowSchema.table("drops").columnNames());
        existing.remove("Direction");
        assertThat(FlowSchema.addMissingColumns("db", FlowSchema.table("drops"), existing,
                ServerFeatures.fromVersion("25.8.2.29"))).containsExactly("ALTER TABLE db.drops ADD COLUMN Direction "
                        + "Enum8('undefined' = 0, 'ingress' = 1, 'egress' = 2) DEFAULT " + FlowSchema.DIRECTION_RULE
                        + " AFTER SampleType");
    }

    @Test
    void anOldRollupGetsTheEnrichmentDimensionsAppendedToItsKeyInOneAlter() {
        String alter = FlowSchema.addRollupEnrichment("db", "flows_1h", ServerFeatures.fromVersion("18.16.1"));
        assertThat(alter).startsWith("ALTER TABLE db.flows_1h ADD COLUMN ExporterName String AFTER Direction, "
                + "ADD COLUMN InIfName String AFTER ExporterName, ")
                .contains("ADD COLUMN InIfBoundary Enum8('undefined' = 0, 'external' = 1, 'internal' = 2) AFTER "
                        + "OutIfName")
                .endsWith(", MODIFY ORDER BY (TimeReceived, AgentAddress, SubAgentId, InIf, OutIf, Vlan, EType, Proto, "
                        + "SrcAS, DstAS, ForwardingStatus, Direction, ExporterName, InIfName, OutIfName, InIfBoundary, "
                        + "OutIfBoundary, InIfProvider, OutIfProvider, SrcCountry, DstCountry)");
        assertThat(FlowSchema.addRollupEnrichment("db", "flows_1m", ServerFeatures.fromVersion("25.8.2.29")))
                .contains("ADD COLUMN ExporterName LowCardinality(String) AFTER Direction");
        // The Direction migration keeps the key it gave before the enrichment existed (migration 5 appends the rest).
        assertThat(FlowSchema.addRollupDirection("db", "flows_1m", ServerFeatures.fromVersion("18.16.1")))
                .endsWith("ForwardingStatus, Direction)");
    }

    /** {@code async_insert} exists from 21.11: an older server refuses a query naming it ("Unknown setting"). */
    @Test
    void asyncInsertSettingFrom2111Only() {
        for (String v : List.of("18.16.1", "20.8.3.18", "21.1.2.15", "21.8.15.7", "21.10.6.2")) {
            assertThat(ServerFeatures.fromVersion(v).asyncInsertSetting()).as(v).isFalse();
        }
        for (String v : List.of("21.11.1.8636", "21.12.4.1", "22.1.3.7", "24.3.12.76.altinitystable", "25.8.2.29",
                "26.3.1.896")) {
            assertThat(ServerFeatures.fromVersion(v).asyncInsertSetting()).as(v).isTrue();
        }
    }

    @Test
    void featureThresholds() {
        assertThat(ServerFeatures.fromVersion("19.1.6"))
                .isEqualTo(new ServerFeatures(19, 1, false, false, false, false, false));
        assertThat(ServerFeatures.fromVersion("19.3.4"))
                .isEqualTo(new ServerFeatures(19, 3, true, true, false, false, false));
        assertThat(ServerFeatures.fromVersion("19.6.2.11"))
                .isEqualTo(new ServerFeatures(19, 6, true, true, true, false, false));
        assertThat(ServerFeatures.fromVersion(" 26.3.1.896\n"))
                .isEqualTo(new ServerFeatures(26, 3, true, true, true, true, true));
        // Vendor builds append a tag after the numbers.
        assertThat(ServerFeatures.fromVersion("24.3.12.76.altinitystable"))
                .isEqualTo(new ServerFeatures(24, 3, true, true, true, true, true));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "abc", "v25.8", "25.x", "25..8", ".8.1", "-1.2", "+25.8", "25.-8",
            "Code: 516. DB::Exception: default: Authentication failed", "<html>", "99999999999.1"})
    void fromVersionRejectsJunkWithClearMessage(String junk) {
        assertThatThrownBy(() -> ServerFeatures.fromVersion(junk))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a ClickHouse version")
                .hasMessageContaining("'" + junk + "'");
    }

    @Test
    void fromVersionRejectsNull() {
        assertThatThrownBy(() -> ServerFeatures.fromVersion(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a ClickHouse version");
    }
}
