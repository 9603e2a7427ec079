package io.vecflow.collector.schema;

import io.vecflow.collector.schema.FlowSchema.Column;
import io.vecflow.collector.schema.FlowSchema.Table;
import io.vecflow.collector.schema.FlowSchema.Type;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@link FlowSchema} rendered for DuckDB, the embedded store of one box: the same tables, column names and
 * column order, with DuckDB types, and the materialized views replaced by {@link Feed}s that the sink runs in the
 * same transaction as each batch's insert (DuckDB has no insert-triggered views).
 *
 * <p>Types: {@code DateTime} → {@code TIMESTAMP} (UTC, no zone; second precision like ClickHouse's), unsigned
 * integers → {@code UTINYINT}/{@code USMALLINT}/{@code UINTEGER}/{@code UBIGINT}, addresses → {@code BLOB} of 16
 * bytes (IPv6, IPv4 mapped as {@code ::ffff:a.b.c.d}, the same bytes as the ClickHouse column, so ranges are byte
 * comparisons), enums ({@code Direction}, boundaries) and {@code LowCardinality(String)} → {@code VARCHAR} holding
 * the enum's name (DuckDB compresses repeated strings by dictionary), arrays → lists. Column {@code DEFAULT}s are
 * not rendered: every DuckDB row is written by vecflow with every column (there are no rows older than a column).
 *
 * <p>Rollups ({@code flows_1m}, {@code flows_5m}, {@code flows_1h}) get a row per key and batch, summed by the
 * feed's {@code GROUP BY} (ClickHouse's SummingMergeTree sums them later, when parts merge; queries {@code sum()}
 * in both stores). Inventory tables ({@code exporters}, {@code interfaces}, {@code asns}) have a primary key (their
 * ClickHouse order key) and are fed by {@code INSERT OR REPLACE}, the latest row of a key winning, as
 * ReplacingMergeTree's version column does.
 *
 * <p>Source: DuckDB's documentation (data types, {@code time_bucket}, {@code INSERT OR REPLACE}, {@code QUALIFY}).
 */
public final class DuckDbSchema {
    private DuckDbSchema() {}

    /**
     * An insert that derives one table's rows from another's: the DuckDB counterpart of a ClickHouse materialized
     * view.
     *
     * @param target the table written
     * @param source the table whose batch feeds it ({@code flows}, {@code agents}, {@code if_counters})
     * @param select the SELECT over {@code {src}} (the batch's relation), producing the target's columns in order
     */
    public record Feed(String target, String source, String select) {
        /**
         * @param sourceRelation the relation holding the batch (a staging table or the source table itself)
         * @return the INSERT statement
         */
        public String insert(String sourceRelation) {
            String verb = primaryKey(FlowSchema.table(target)) != null ? "INSERT OR REPLACE INTO " : "INSERT INTO ";
            return verb + target + " " + select.replace("{src}", sourceRelation);
        }
    }

    private static String rollupFeed(String width) {
        List<String> cols = new ArrayList<>();
        for (Column c : FlowSchema.ROLLUP) {
            switch (c.name()) {
                case "TimeReceived" -> cols.add("time_bucket(INTERVAL '" + width + "', TimeReceived) AS TimeReceived");
                case "Bytes" -> cols.add("CAST(sum(Bytes * SamplingRate) AS UBIGINT) AS Bytes");
                case "Packets" -> cols.add("CAST(sum(Packets * SamplingRate) AS UBIGINT) AS Packets");
                case "Samples" -> cols.add("CAST(count(*) AS UBIGINT) AS Samples");
                default -> cols.add(c.name());
            }
        }
        return "SELECT " + String.join(", ", cols) + " FROM {src} GROUP BY ALL";
    }

    /** Feeds in the order they run after a batch's insert. */
    public static final List<Feed> FEEDS = List.of(
            new Feed("flows_1m", "flows", rollupFeed("1 minute")),
            new Feed("flows_5m", "flows", rollupFeed("5 minutes")),
            new Feed("flows_1h", "flows", rollupFeed("1 hour")),
            new Feed("exporters", "agents", "SELECT TimeReceived, AgentAddress, SubAgentId, Datagrams FROM {src} "
                    + "WHERE SampleFamily = 255 QUALIFY row_number() OVER (PARTITION BY AgentAddress, SubAgentId "
                    + "ORDER BY TimeReceived DESC) = 1"),
            new Feed("interfaces", "if_counters", "SELECT TimeReceived, AgentAddress, SubAgentId, IfIndex, IfName, "
                    + "IfSpeed, IfType, IfOperUp FROM {src} QUALIFY row_number() OVER (PARTITION BY AgentAddress, "
                    + "SubAgentId, IfIndex ORDER BY TimeReceived DESC) = 1"));

    /** @return the feeds fed by a source table's batches (empty when none). */
    public static List<Feed> feedsOf(String source) {
        return FEEDS.stream().filter(f -> f.source().equals(source)).toList();
    }

    /**
     * The primary key of an inventory table (its ClickHouse order key), or null for an append-only table.
     *
     * @param t the table
     * @return the key's column list without parentheses, or null
     */
    public static String primaryKey(Table t) {
        if (!t.engine().startsWith("ReplacingMergeTree")) {
            return null;
        }
        String k = t.orderBy();
        return k.startsWith("(") && k.endsWith(")") ? k.substring(1, k.length() - 1) : k;
    }

    /**
     * Renders {@code CREATE TABLE IF NOT EXISTS name (...)} for DuckDB.
     *
     * @param t the table
     * @return the DDL statement
     */
    public static String createTable(Table t) {
        List<String> lines = new ArrayList<>();
        for (Column c : t.columns()) {
            lines.add("    " + c.name() + " " + type(c.type()));
        }
        String key = primaryKey(t);
        if (key != null) {
            lines.add("    PRIMARY KEY (" + key + ")");
        }
        return "CREATE TABLE IF NOT EXISTS " + t.name() + "\n(\n" + String.join(",\n", lines) + "\n)";
    }

    /** @return every table's DDL, in {@link FlowSchema#TABLES} order. */
    public static List<String> ddl() {
        return FlowSchema.TABLES.stream().map(DuckDbSchema::createTable).toList();
    }

    /** @return the DuckDB type of a logical type. */
    public static String type(Type t) {
        return switch (t) {
            case DATETIME -> "TIMESTAMP";
            case UINT8 -> "UTINYINT";
            case UINT16 -> "USMALLINT";
            case UINT32 -> "UINTEGER";
            case UINT64 -> "UBIGINT";
            case FLOAT64 -> "DOUBLE";
            case IP -> "BLOB";
            case STRING, LC_STRING, DIRECTION, BOUNDARY -> "VARCHAR";
            case ARRAY_UINT32 -> "UINTEGER[]";
            case ARRAY_IP -> "BLOB[]";
        };
    }
}
