package io.vecflow.collector;

import java.util.List;

/**
 * The ClickHouse {@code flows} table, defined once: columns with logical types, rendered to DDL for what the server
 * supports (probed with {@code SELECT version()}). Modern servers get native IPv6 columns, codecs and a
 * TTL; ClickHouse 18.16 (Debian 12) gets the nearest equivalents (FixedString(16) addresses, no codecs, no TTL).
 * Column order is the RowBinary order of {@link RowBinaryWriter#writeFlow}.
 */
public final class FlowSchema {
    private FlowSchema() {}

    /** Logical column types. */
    public enum Type {
        DATETIME, UINT8, UINT16, UINT32, UINT64, IP, ARRAY_UINT32
    }

    /** A column: name, logical type, and an optional codec for modern servers. */
    public record Column(String name, Type type, String codec) {}

    /** The flows columns, in RowBinary order. */
    public static final List<Column> FLOWS = List.of(
            new Column("TimeReceived", Type.DATETIME, "DoubleDelta, LZ4"),
            new Column("TimeReceivedNanos", Type.UINT64, null),
            new Column("AgentAddress", Type.IP, null),
            new Column("PeerAddress", Type.IP, null),
            new Column("SubAgentId", Type.UINT32, null),
            new Column("DatagramSequence", Type.UINT32, null),
            new Column("SampleSequence", Type.UINT32, null),
            new Column("SourceIdType", Type.UINT8, null),
            new Column("SourceIdIndex", Type.UINT32, null),
            new Column("SampleType", Type.UINT8, null),
            new Column("DiscardReason", Type.UINT32, null),
            new Column("ForwardingStatus", Type.UINT8, null),
            new Column("SamplingRate", Type.UINT32, null),
            new Column("SamplePool", Type.UINT32, null),
            new Column("Drops", Type.UINT32, null),
            new Column("InIfFormat", Type.UINT8, null),
            new Column("InIf", Type.UINT32, null),
            new Column("OutIfFormat", Type.UINT8, null),
            new Column("OutIf", Type.UINT32, null),
            new Column("HeaderProtocol", Type.UINT32, null),
            new Column("FrameLength", Type.UINT32, null),
            new Column("SrcMAC", Type.UINT64, null),
            new Column("DstMAC", Type.UINT64, null),
            new Column("Vlan", Type.UINT16, null),
            new Column("InVlan", Type.UINT16, null),
            new Column("OutVlan", Type.UINT16, null),
            new Column("EType", Type.UINT16, null),
            new Column("MPLSLabels", Type.UINT8, null),
            new Column("MPLSTopLabel", Type.UINT32, null),
            new Column("SrcAddr", Type.IP, "ZSTD(1)"),
            new Column("DstAddr", Type.IP, "ZSTD(1)"),
            new Column("Proto", Type.UINT8, null),
            new Column("SrcPort", Type.UINT16, null),
            new Column("DstPort", Type.UINT16, null),
            new Column("TCPFlags", Type.UINT8, null),
            new Column("IPTos", Type.UINT8, null),
            new Column("IPTTL", Type.UINT8, null),
            new Column("NextHop", Type.IP, null),
            new Column("SrcNetMask", Type.UINT8, null),
            new Column("DstNetMask", Type.UINT8, null),
            new Column("SrcAS", Type.UINT32, null),
            new Column("DstAS", Type.UINT32, null),
            new Column("SrcPeerAS", Type.UINT32, null),
            new Column("DstASPath", Type.ARRAY_UINT32, null),
            new Column("Encapsulation", Type.UINT8, null),
            new Column("TunnelId", Type.UINT32, null),
            new Column("InnerSrcAddr", Type.IP, null),
            new Column("InnerDstAddr", Type.IP, null),
            new Column("InnerProto", Type.UINT8, null),
            new Column("InnerSrcPort", Type.UINT16, null),
            new Column("InnerDstPort", Type.UINT16, null),
            new Column("Bytes", Type.UINT64, "T64, LZ4"),
            new Column("Packets", Type.UINT64, "T64, LZ4"));

    /** What the server supports, from its version. */
    public record ServerFeatures(int major, int minor, boolean ipv6Type, boolean codecs, boolean ttl) {
        private static final java.util.regex.Pattern VERSION =
                java.util.regex.Pattern.compile("(\\d{1,9})\\.(\\d{1,9})(?:\\..*)?");

        /**
         * Parses the text of {@code SELECT version()}: {@code major.minor} then optional further parts, e.g.
         * {@code 18.16.1}, {@code 25.8.2.29}, {@code 24.3.12.76.altinitystable}. Feature thresholds: IPv6 domain type
         * and column codecs from 19.3, column/table TTL from 19.6.
         *
         * @param version the text of {@code SELECT version()} (surrounding whitespace ignored)
         * @return the features of that version
         * @throws IllegalArgumentException if it is null or not a version (e.g. an error page); the message quotes it
         */
        public static ServerFeatures fromVersion(String version) {
            java.util.regex.Matcher m = version == null ? null : VERSION.matcher(version.trim());
            if (m == null || !m.matches()) {
                throw new IllegalArgumentException("not a ClickHouse version: "
                        + (version == null ? "null" : "'" + version + "'")
                        + " (expected the text of SELECT version(), e.g. 25.8.2.29)");
            }
            int major = Integer.parseInt(m.group(1));
            int minor = Integer.parseInt(m.group(2));
            // IPv6 domain type: 19.3; column codecs: 19.1; column/table TTL: 19.6.
            boolean v193 = major > 19 || (major == 19 && minor >= 3);
            boolean v196 = major > 19 || (major == 19 && minor >= 6);
            return new ServerFeatures(major, minor, v193, v193, v196);
        }
    }

    /**
     * Renders {@code CREATE TABLE IF NOT EXISTS db.flows} for a server.
     *
     * @param database database name
     * @param f server features
     * @param ttlDays retention in days (modern servers only; old ones drop partitions)
     * @return the DDL statement
     */
    public static String createFlows(String database, ServerFeatures f, int ttlDays) {
        return createTable(database, "flows", FLOWS, "ORDER BY (TimeReceived, AgentAddress, InIf, OutIf)", f, ttlDays);
    }

    /**
     * The {@code agent_loss} table: one row per (agent, sub-agent, data source, sample family) per reporting
     * interval, with the increase of each loss counter of {@link LossTracker} in that interval (SampleFamily 255 =
     * the agent's datagram-level counters). Sum over time for totals.
     */
    public static final List<Column> AGENT_LOSS = List.of(
            new Column("TimeReceived", Type.DATETIME, "DoubleDelta, LZ4"),
            new Column("AgentAddress", Type.IP, null),
            new Column("SubAgentId", Type.UINT32, null),
            new Column("SourceIdType", Type.UINT8, null),
            new Column("SourceIdIndex", Type.UINT32, null),
            new Column("SampleFamily", Type.UINT8, null),
            new Column("Datagrams", Type.UINT64, null),
            new Column("DatagramsLost", Type.UINT64, null),
            new Column("DatagramsReordered", Type.UINT64, null),
            new Column("Resets", Type.UINT64, null),
            new Column("Samples", Type.UINT64, null),
            new Column("SamplesLost", Type.UINT64, null),
            new Column("SamplesReordered", Type.UINT64, null),
            new Column("ReportedDrops", Type.UINT64, null));

    /** @return {@code CREATE TABLE IF NOT EXISTS db.agent_loss} for a server. */
    public static String createAgentLoss(String database, ServerFeatures f, int ttlDays) {
        return createTable(database, "agent_loss", AGENT_LOSS,
                "ORDER BY (AgentAddress, SubAgentId, SourceIdType, SourceIdIndex, SampleFamily, TimeReceived)", f,
                ttlDays);
    }

    private static String createTable(String database, String table, List<Column> cols, String orderBy,
            ServerFeatures f, int ttlDays) {
        StringBuilder b = new StringBuilder("CREATE TABLE IF NOT EXISTS ").append(database).append('.').append(table)
                .append("\n(\n");
        for (int i = 0; i < cols.size(); i++) {
            Column c = cols.get(i);
            b.append("    ").append(c.name()).append(' ').append(type(c.type(), f));
            if (f.codecs() && c.codec() != null) {
                b.append(" CODEC(").append(c.codec()).append(')');
            }
            b.append(i + 1 < cols.size() ? ",\n" : "\n");
        }
        b.append(")\nENGINE = MergeTree\nPARTITION BY toYYYYMMDD(TimeReceived)\n").append(orderBy);
        if (f.ttl()) {
            b.append("\nTTL TimeReceived + INTERVAL ").append(ttlDays).append(" DAY");
        }
        return b.toString();
    }

    /** @return the flows column names in RowBinary order (the insert's column list). */
    public static java.util.List<String> columnNames() {
        return FLOWS.stream().map(Column::name).toList();
    }

    /**
     * The additive migration from an older vecflow {@code flows} table: one {@code ALTER TABLE ... ADD COLUMN} per
     * column of {@link #FLOWS} the table lacks, placed after its predecessor. Existing rows get the column's default
     * (0, empty), nothing is dropped or rewritten, so a schema change never loses data.
     *
     * @param database database name
     * @param existing names of the table's columns now
     * @param f server features
     * @return the statements, in order (empty when the table is current)
     */
    public static java.util.List<String> addMissingColumns(String database, java.util.Set<String> existing,
            ServerFeatures f) {
        java.util.List<String> out = new java.util.ArrayList<>();
        String prev = null;
        for (Column c : FLOWS) {
            if (!existing.contains(c.name())) {
                StringBuilder b = new StringBuilder("ALTER TABLE ").append(database).append(".flows ADD COLUMN ")
                        .append(c.name()).append(' ').append(type(c.type(), f));
                if (f.codecs() && c.codec() != null) {
                    b.append(" CODEC(").append(c.codec()).append(')');
                }
                if (prev != null) {
                    b.append(" AFTER ").append(prev);
                }
                out.add(b.toString());
            }
            prev = c.name();
        }
        return out;
    }

    private static String type(Type t, ServerFeatures f) {
        return switch (t) {
            case DATETIME -> "DateTime";
            case UINT8 -> "UInt8";
            case UINT16 -> "UInt16";
            case UINT32 -> "UInt32";
            case UINT64 -> "UInt64";
            case IP -> f.ipv6Type() ? "IPv6" : "FixedString(16)";
            case ARRAY_UINT32 -> "Array(UInt32)";
        };
    }
}
