package io.vecflow.collector.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * vecflow's ClickHouse schema, defined once: tables (columns with logical types, engine, partitioning, order key,
 * retention, skip indexes) and the materialized views that feed rollups and inventory, rendered to DDL for what the
 * server supports (probed with {@code SELECT version()}; see {@link ServerFeatures}).
 *
 * <p>Modern servers (≥ 20.1) get native {@code IPv6} columns, {@code LowCardinality(String)}, column codecs, a
 * {@code TTL} per table and bloom-filter skip indexes. ClickHouse 18.16 (Debian 12) gets the nearest equivalents:
 * {@code FixedString(16)} addresses (IPv4 mapped as {@code ::ffff:a.b.c.d}), plain {@code String}, no codecs, no
 * indexes, and retention by dropping whole daily/monthly partitions ({@code Retention}). Column order is the
 * RowBinary order of {@code RowBinaryWriter}. Names follow Akvorado's where they overlap (docs/storage.md §4).
 *
 * <p>Tables: {@code flows} (one row per flow sample 0:1/0:3), {@code drops} (one row per discarded_packet 0:5),
 * {@code if_counters} (generic + ethernet counters, port name), {@code agents} (loss accounting per reporting
 * interval), {@code lb_decisions} (load-balancer decisions), {@code lb_counters} (load-balancer counters per VIP and
 * backend), inventory {@code exporters} / {@code interfaces}
 * (ReplacingMergeTree fed by views), rollups {@code flows_1m}, {@code flows_5m}, {@code flows_1h}
 * (SummingMergeTree fed by views; Bytes and Packets already multiplied by sampling_rate, Samples = raw rows).
 *
 * <p>{@code Direction} (flows, drops and the rollups' key) is where the agent sampled the packet, from the data source
 * ({@link FlowRow#direction(int, long, int, long, int, long)}): {@code ingress}, {@code egress} or {@code undefined};
 * on flows and drops its {@code DEFAULT} is the same rule in SQL ({@link #DIRECTION_RULE}), so rows stored before
 * the column existed, and inserts that leave it out, get it from the row's own source and interfaces.
 *
 * <p>Every row that comes from a datagram carries {@code IngestStream}/{@code IngestOffset}: the Kafka partition and
 * offset of the raw record (outlet role), or a per-process stream id with bit 31 set and a per-stream datagram counter
 * (in-process role). Offsets rise within a stream, so the greatest offset stored per stream is a watermark: a
 * retried insert or a replay after a crash skips what the table already holds (see {@code ClickHouseSink}).
 */
public final class FlowSchema {
    private FlowSchema() {}

    /** Logical column types; {@link #type} renders them per server. */
    public enum Type {
        DATETIME, UINT8, UINT16, UINT32, UINT64, FLOAT64, IP, STRING, LC_STRING, ARRAY_UINT32, ARRAY_IP,
        /** {@code Enum8} of {@link #DIRECTIONS}, numbered as {@link FlowRow#direction}; the same on every server. */
        DIRECTION,
        /** {@code Enum8} of {@link InterfaceInfo#BOUNDARIES}, numbered as {@link InterfaceInfo#boundary}. */
        BOUNDARY
    }

    /**
     * Names of the {@code Direction} values, indexed by {@link FlowRow#direction} ({@link FlowRow#DIRECTION_UNDEFINED}
     * 0, {@link FlowRow#INGRESS} 1, {@link FlowRow#EGRESS} 2). 0 first: it is the Enum's default, the value of a
     * rollup row stored before the column existed.
     */
    public static final List<String> DIRECTIONS = List.of("undefined", "ingress", "egress");

    /**
     * The direction rule of {@link FlowRow#direction(int, long, int, long, int, long)} in ClickHouse SQL over the
     * flows columns: the {@code DEFAULT} of {@code Direction} in flows and drops (18.16 and current servers alike).
     */
    public static final String DIRECTION_RULE = "multiIf(SourceIdType = 0 AND SourceIdIndex != 0 AND InIfFormat = 0 "
            + "AND SourceIdIndex = InIf, '" + DIRECTIONS.get(FlowRow.INGRESS) + "', SourceIdType = 0 AND "
            + "SourceIdIndex != 0 AND OutIfFormat = 0 AND SourceIdIndex = OutIf, '" + DIRECTIONS.get(FlowRow.EGRESS)
            + "', '" + DIRECTIONS.get(FlowRow.DIRECTION_UNDEFINED) + "')";

    /**
     * A column.
     *
     * @param name column name (CamelCase, Akvorado's where it has one)
     * @param type logical type
     * @param codec codec for modern servers, or null
     * @param index skip index type for modern servers (e.g. {@code bloom_filter(0.001)}), or null
     * @param defaultExpression the column's {@code DEFAULT} expression over other columns (every server), or null
     */
    public record Column(String name, Type type, String codec, String index, String defaultExpression) {
        /** A column without codec, index or default. */
        public Column(String name, Type type) {
            this(name, type, null, null, null);
        }

        /** A column with a codec for modern servers, without index or default. */
        public Column(String name, Type type, String codec) {
            this(name, type, codec, null, null);
        }

        /** A column with a codec and a skip index for modern servers, without default. */
        public Column(String name, Type type, String codec, String index) {
            this(name, type, codec, index, null);
        }
    }

    /**
     * A table.
     *
     * @param name table name without database
     * @param columns columns in RowBinary order
     * @param engine engine clause, e.g. {@code MergeTree} or {@code SummingMergeTree((Bytes, Packets))}
     * @param partitionBy partition expression over {@code TimeReceived} (days or months: {@code Retention} parses
     *     the partition id as {@code yyyymmdd} or {@code yyyymm})
     * @param orderBy order key (without {@code ORDER BY})
     * @param ttlDays default retention in days
     */
    public record Table(String name, List<Column> columns, String engine, String partitionBy, String orderBy,
            int ttlDays) {
        /** @return the column names in RowBinary order (the insert's column list). */
        public List<String> columnNames() {
            return columns.stream().map(Column::name).toList();
        }

        /** @return true when partitions are months ({@code toYYYYMM}), false for days. */
        public boolean monthlyPartitions() {
            return partitionBy.startsWith("toYYYYMM(");
        }
    }

    /**
     * A materialized view writing into a table.
     *
     * @param name view name
     * @param target table the view writes into
     * @param select the SELECT, with {@code {db}} standing for the database; an aggregating one ends in its
     *               {@code GROUP BY}
     */
    public record View(String name, String target, String select) {
        /**
         * The SELECT restricted to rows matching a condition (the backfill of a rollup from rows already stored).
         *
         * @param condition a WHERE condition over the source table's columns
         * @return the SELECT with {@code WHERE condition} before its GROUP BY, if any
         */
        public String selectWhere(String condition) {
            int g = select.indexOf(" GROUP BY ");
            return g < 0 ? select + " WHERE " + condition
                    : select.substring(0, g) + " WHERE " + condition + select.substring(g);
        }
    }

    /** Columns that locate a row's datagram in its ingest stream (see the class comment). */
    private static final List<Column> INGEST = List.of(
            new Column("IngestStream", Type.UINT32),
            new Column("IngestOffset", Type.UINT64, "DoubleDelta, LZ4"));

    /**
     * The enrichment columns of flows and drops (after the decoded ones, in RowBinary order), Akvorado's names
     * (docs/enrichment.md §1): the exporter's name and classification, each interface's name, description, speed
     * (Mb/s), boundary, provider and connectivity, each address's country and network attributes. AS numbers are the
     * decoded SrcAS/DstAS columns, which the enricher may fill; AS names live in {@code asns}, once per AS. Empty
     * (and {@code undefined}, 0) when nothing is known, which is what rows stored before enrichment get.
     */
    public static final List<Column> ENRICHMENT = enrichmentColumns();

    private static List<Column> enrichmentColumns() {
        List<Column> c = new ArrayList<>();
        for (String f : List.of("Name", "Group", "Role", "Site", "Region", "Tenant")) {
            c.add(new Column("Exporter" + f, Type.LC_STRING));
        }
        for (String d : List.of("InIf", "OutIf")) {
            c.add(new Column(d + "Name", Type.LC_STRING));
            c.add(new Column(d + "Description", Type.LC_STRING));
            c.add(new Column(d + "Speed", Type.UINT32));
            c.add(new Column(d + "Boundary", Type.BOUNDARY));
            c.add(new Column(d + "Provider", Type.LC_STRING));
            c.add(new Column(d + "Connectivity", Type.LC_STRING));
        }
        for (String d : List.of("Src", "Dst")) {
            c.add(new Column(d + "Country", Type.LC_STRING));
            for (String f : List.of("Name", "Role", "Site", "Region", "Tenant")) {
                c.add(new Column(d + "Net" + f, Type.LC_STRING));
            }
        }
        return List.copyOf(c);
    }

    /**
     * The flows columns, in RowBinary order ({@code RowBinaryWriter#writeFlow}). {@code DatagramIncomplete} is 1 on
     * every row of a datagram that stopped decoding part-way — a sample header or length past the datagram before its
     * last declared sample — so later samples of that datagram are lost ({@link FlowRow#datagramIncomplete}).
     */
    public static final List<Column> FLOWS = concat(List.of(
            new Column("TimeReceived", Type.DATETIME, "DoubleDelta, LZ4"),
            new Column("TimeReceivedNanos", Type.UINT64),
            new Column("AgentAddress", Type.IP),
            new Column("PeerAddress", Type.IP),
            new Column("SubAgentId", Type.UINT32),
            new Column("DatagramSequence", Type.UINT32),
            new Column("SampleSequence", Type.UINT32),
            new Column("SourceIdType", Type.UINT8),
            new Column("SourceIdIndex", Type.UINT32),
            new Column("SampleType", Type.UINT8),
            new Column("Direction", Type.DIRECTION, null, null, DIRECTION_RULE),
            new Column("DiscardReason", Type.UINT32),
            new Column("ForwardingStatus", Type.UINT8),
            new Column("SamplingRate", Type.UINT32),
            new Column("SamplePool", Type.UINT32),
            new Column("Drops", Type.UINT32),
            new Column("InIfFormat", Type.UINT8),
            new Column("InIf", Type.UINT32),
            new Column("OutIfFormat", Type.UINT8),
            new Column("OutIf", Type.UINT32),
            new Column("HeaderProtocol", Type.UINT32),
            new Column("FrameLength", Type.UINT32),
            new Column("SrcMAC", Type.UINT64),
            new Column("DstMAC", Type.UINT64),
            new Column("Vlan", Type.UINT16),
            new Column("InVlan", Type.UINT16),
            new Column("OutVlan", Type.UINT16),
            new Column("EType", Type.UINT16),
            new Column("MPLSLabels", Type.UINT8),
            new Column("MPLSTopLabel", Type.UINT32),
            new Column("SrcAddr", Type.IP, "ZSTD(1)", "bloom_filter(0.001)"),
            new Column("DstAddr", Type.IP, "ZSTD(1)", "bloom_filter(0.001)"),
            new Column("Proto", Type.UINT8),
            new Column("SrcPort", Type.UINT16, null, "bloom_filter(0.001)"),
            new Column("DstPort", Type.UINT16, null, "bloom_filter(0.001)"),
            new Column("TCPFlags", Type.UINT8),
            new Column("IPTos", Type.UINT8),
            new Column("IPTTL", Type.UINT8),
            new Column("NextHop", Type.IP),
            new Column("SrcNetMask", Type.UINT8),
            new Column("DstNetMask", Type.UINT8),
            new Column("SrcAS", Type.UINT32, null, "bloom_filter(0.001)"),
            new Column("DstAS", Type.UINT32, null, "bloom_filter(0.001)"),
            new Column("SrcPeerAS", Type.UINT32),
            new Column("DstASPath", Type.ARRAY_UINT32),
            new Column("Encapsulation", Type.UINT8),
            new Column("TunnelId", Type.UINT32),
            new Column("InnerSrcAddr", Type.IP),
            new Column("InnerDstAddr", Type.IP),
            new Column("InnerProto", Type.UINT8),
            new Column("InnerSrcPort", Type.UINT16),
            new Column("InnerDstPort", Type.UINT16),
            new Column("Bytes", Type.UINT64, "T64, LZ4"),
            new Column("Packets", Type.UINT64, "T64, LZ4"),
            new Column("SRv6SegmentsLeft", Type.UINT8),
            new Column("SRv6Segments", Type.ARRAY_IP),
            INGEST.get(0), INGEST.get(1),
            new Column("DatagramIncomplete", Type.UINT8)), ENRICHMENT);

    /** The drops columns: the flows columns, then the discard reason's name (sFlow discard codes). */
    public static final List<Column> DROPS = concat(FLOWS, List.of(new Column("DiscardReasonName", Type.LC_STRING)));

    /** The if_counters columns, in {@code RowBinaryWriter#writeCounters} order (sFlow counters 0:1, 0:2, 0:1005). */
    public static final List<Column> IF_COUNTERS = concat(List.of(
            new Column("TimeReceived", Type.DATETIME, "DoubleDelta, LZ4"),
            new Column("AgentAddress", Type.IP),
            new Column("SubAgentId", Type.UINT32),
            new Column("SampleSequence", Type.UINT32),
            new Column("SourceIdType", Type.UINT8),
            new Column("SourceIdIndex", Type.UINT32),
            new Column("IfIndex", Type.UINT32),
            new Column("IfName", Type.LC_STRING),
            new Column("IfType", Type.UINT32),
            new Column("IfSpeed", Type.UINT64),
            new Column("IfDirection", Type.UINT8),
            new Column("IfAdminUp", Type.UINT8),
            new Column("IfOperUp", Type.UINT8),
            new Column("InOctets", Type.UINT64, "T64, LZ4"),
            new Column("InUcastPkts", Type.UINT64, "T64, LZ4"),
            new Column("InMulticastPkts", Type.UINT64, "T64, LZ4"),
            new Column("InBroadcastPkts", Type.UINT64, "T64, LZ4"),
            new Column("InDiscards", Type.UINT64, "T64, LZ4"),
            new Column("InErrors", Type.UINT64, "T64, LZ4"),
            new Column("InUnknownProtos", Type.UINT64, "T64, LZ4"),
            new Column("OutOctets", Type.UINT64, "T64, LZ4"),
            new Column("OutUcastPkts", Type.UINT64, "T64, LZ4"),
            new Column("OutMulticastPkts", Type.UINT64, "T64, LZ4"),
            new Column("OutBroadcastPkts", Type.UINT64, "T64, LZ4"),
            new Column("OutDiscards", Type.UINT64, "T64, LZ4"),
            new Column("OutErrors", Type.UINT64, "T64, LZ4"),
            new Column("Promiscuous", Type.UINT8),
            new Column("HasEthernet", Type.UINT8),
            new Column("Dot3AlignmentErrors", Type.UINT64, "T64, LZ4"),
            new Column("Dot3FCSErrors", Type.UINT64, "T64, LZ4"),
            new Column("Dot3SingleCollisionFrames", Type.UINT64, "T64, LZ4"),
            new Column("Dot3MultipleCollisionFrames", Type.UINT64, "T64, LZ4"),
            new Column("Dot3LateCollisions", Type.UINT64, "T64, LZ4"),
            new Column("Dot3ExcessiveCollisions", Type.UINT64, "T64, LZ4"),
            new Column("Dot3InternalMacTransmitErrors", Type.UINT64, "T64, LZ4"),
            new Column("Dot3CarrierSenseErrors", Type.UINT64, "T64, LZ4"),
            new Column("Dot3FrameTooLongs", Type.UINT64, "T64, LZ4"),
            new Column("Dot3InternalMacReceiveErrors", Type.UINT64, "T64, LZ4"),
            new Column("Dot3SymbolErrors", Type.UINT64, "T64, LZ4")), INGEST);

    /**
     * The agents columns (loss accounting): one row per (agent, sub-agent, data source, sample family) per reporting
     * interval, with the increase of each {@code LossTracker} counter in that interval (SampleFamily 0 flow, 1
     * counters, 2 discards, 255 = the agent's datagram-level counters). Sum over time for totals.
     */
    public static final List<Column> AGENTS = List.of(
            new Column("TimeReceived", Type.DATETIME, "DoubleDelta, LZ4"),
            new Column("AgentAddress", Type.IP),
            new Column("SubAgentId", Type.UINT32),
            new Column("SourceIdType", Type.UINT8),
            new Column("SourceIdIndex", Type.UINT32),
            new Column("SampleFamily", Type.UINT8),
            new Column("Datagrams", Type.UINT64),
            new Column("DatagramsLost", Type.UINT64),
            new Column("DatagramsReordered", Type.UINT64),
            new Column("Resets", Type.UINT64),
            new Column("Samples", Type.UINT64),
            new Column("SamplesLost", Type.UINT64),
            new Column("SamplesReordered", Type.UINT64),
            new Column("ReportedDrops", Type.UINT64),
            new Column("DatagramsDuplicated", Type.UINT64),
            new Column("IngestStream", Type.UINT32),
            new Column("IngestOffset", Type.UINT64));

    /**
     * The lb_decisions columns: one row per load-balancer decision (new flow placed, SRLB candidate accepted or
     * passed, flow torn down), written for each flow sample that carries a "vecflow LB decision" record
     * ({@link io.vecflow.sflow.LbDecisionRecord}, README "Load-balancer decisions"). ChoiceIndex is the SRLB candidate
     * that accepted (1 first, 2 second; 0 = Maglev or CLOVE), Decision one of {@code new, accept, pass, sticky, hunt,
     * teardown}, PolicyMetric the policy's input at the decision (busy workers, active connections, CPU share; the
     * record's ×1000 value divided back), Flows the decisions the row stands for (the sample's sampling_rate, ≥ 1).
     * Candidates are the SRLB candidates in hunting order; FlowletId, PathWeight (1.0 = the initial weight) and
     * PathId (the outer UDP source port) are CLOVE's, 0 otherwise.
     */
    public static final List<Column> LB_DECISIONS = concat(List.of(
            new Column("TimeReceived", Type.DATETIME, "DoubleDelta, LZ4"),
            new Column("AgentAddress", Type.IP),
            new Column("Algorithm", Type.LC_STRING),
            new Column("VIP", Type.IP),
            new Column("VIPPort", Type.UINT16),
            new Column("Proto", Type.UINT8),
            new Column("Backend", Type.IP),
            new Column("ChoiceIndex", Type.UINT8),
            new Column("Decision", Type.LC_STRING),
            new Column("Policy", Type.LC_STRING),
            new Column("PolicyMetric", Type.FLOAT64),
            new Column("Flows", Type.UINT64),
            new Column("Candidates", Type.ARRAY_IP),
            new Column("FlowletId", Type.UINT32),
            new Column("PathWeight", Type.FLOAT64),
            new Column("PathId", Type.UINT16),
            new Column("SubAgentId", Type.UINT32)), INGEST);

    /**
     * The lb_counters columns: one row per "vecflow LB counters" record ({@link io.vecflow.sflow.LbCountersRecord},
     * README "Load-balancer counters") — a load-balancer VIP's totals (BackendIndex 0, Backend zeros) or one VIP
     * backend's (BackendIndex = slot + 1) at one polling interval. Role is {@code maglev}, {@code srlb} (the LB) or
     * {@code srlb-agent} (a server's agent). The six counters are cumulative since the VIP / backend was added (take
     * differences over time; a drop is a reset): NewFlows, FirstChoiceAccepts, SecondChoiceAccepts, Rejects in flows,
     * StickyHits and TableFull in packets. SourceIdIndex is the counters sample's data source.
     */
    public static final List<Column> LB_COUNTERS = concat(List.of(
            new Column("TimeReceived", Type.DATETIME, "DoubleDelta, LZ4"),
            new Column("AgentAddress", Type.IP),
            new Column("SubAgentId", Type.UINT32),
            new Column("SampleSequence", Type.UINT32),
            new Column("SourceIdIndex", Type.UINT32),
            new Column("Role", Type.LC_STRING),
            new Column("VIPIndex", Type.UINT32),
            new Column("VIP", Type.IP),
            new Column("VIPPort", Type.UINT16),
            new Column("Proto", Type.UINT8),
            new Column("BackendIndex", Type.UINT32),
            new Column("Backend", Type.IP),
            new Column("NewFlows", Type.UINT64, "T64, LZ4"),
            new Column("FirstChoiceAccepts", Type.UINT64, "T64, LZ4"),
            new Column("SecondChoiceAccepts", Type.UINT64, "T64, LZ4"),
            new Column("Rejects", Type.UINT64, "T64, LZ4"),
            new Column("StickyHits", Type.UINT64, "T64, LZ4"),
            new Column("TableFull", Type.UINT64, "T64, LZ4")), INGEST);

    /**
     * The asns columns: AS number → name (organisation), written by the collector from its AS databases when it loads
     * them (ReplacingMergeTree by ASN: the latest TimeReceived wins when parts merge; read with
     * {@code argMax(Name, TimeReceived) ... GROUP BY ASN}). Names are kept here once per AS instead of on every row.
     */
    public static final List<Column> ASNS = List.of(
            new Column("TimeReceived", Type.DATETIME),
            new Column("ASN", Type.UINT32),
            new Column("Name", Type.STRING));

    /**
     * Rollup columns: the dimensions kept (the order key, {@link #ROLLUP_KEY}), then the sums. Direction is a
     * dimension: a packet sampled on ingress and on egress has a row for each, which the dashboards never add.
     */
    public static final List<Column> ROLLUP = List.of(
            new Column("TimeReceived", Type.DATETIME, "DoubleDelta, LZ4"),
            new Column("AgentAddress", Type.IP),
            new Column("SubAgentId", Type.UINT32),
            new Column("InIf", Type.UINT32),
            new Column("OutIf", Type.UINT32),
            new Column("Vlan", Type.UINT16),
            new Column("EType", Type.UINT16),
            new Column("Proto", Type.UINT8),
            new Column("SrcAS", Type.UINT32),
            new Column("DstAS", Type.UINT32),
            new Column("ForwardingStatus", Type.UINT8),
            new Column("Direction", Type.DIRECTION),
            new Column("ExporterName", Type.LC_STRING),
            new Column("InIfName", Type.LC_STRING),
            new Column("OutIfName", Type.LC_STRING),
            new Column("InIfBoundary", Type.BOUNDARY),
            new Column("OutIfBoundary", Type.BOUNDARY),
            new Column("InIfProvider", Type.LC_STRING),
            new Column("OutIfProvider", Type.LC_STRING),
            new Column("SrcCountry", Type.LC_STRING),
            new Column("DstCountry", Type.LC_STRING),
            new Column("Bytes", Type.UINT64, "T64, LZ4"),
            new Column("Packets", Type.UINT64, "T64, LZ4"),
            new Column("Samples", Type.UINT64, "T64, LZ4"));

    /**
     * The rollups' order key, which SummingMergeTree sums by. Direction is last: a rollup created before it existed
     * gets it with {@code ADD COLUMN ... MODIFY ORDER BY}, which may only append a new column to the key
     * ({@link #addRollupDirection}).
     */
    static final String ROLLUP_KEY_V4 = "TimeReceived, AgentAddress, SubAgentId, InIf, OutIf, Vlan, EType, Proto, "
            + "SrcAS, DstAS, ForwardingStatus, Direction";

    /**
     * The enrichment dimensions the rollups keep (what operators group by: exporter and interface names, boundary,
     * provider, country; AS numbers are already in the key), appended to the order key after Direction.
     */
    public static final List<String> ROLLUP_ENRICHMENT = List.of("ExporterName", "InIfName", "OutIfName",
            "InIfBoundary", "OutIfBoundary", "InIfProvider", "OutIfProvider", "SrcCountry", "DstCountry");

    /** The rollups' order key: {@link #ROLLUP_KEY_V4} (schema until migration 4), then {@link #ROLLUP_ENRICHMENT}. */
    static final String ROLLUP_KEY = ROLLUP_KEY_V4 + ", " + String.join(", ", ROLLUP_ENRICHMENT);

    /** Tables, in creation order (views need their source and target). */
    public static final List<Table> TABLES = List.of(
            new Table("flows", FLOWS, "MergeTree", "toYYYYMMDD(TimeReceived)",
                    "(TimeReceived, AgentAddress, InIf, OutIf)", 15),
            new Table("drops", DROPS, "MergeTree", "toYYYYMMDD(TimeReceived)",
                    "(TimeReceived, AgentAddress, DiscardReason, InIf)", 30),
            new Table("if_counters", IF_COUNTERS, "MergeTree", "toYYYYMMDD(TimeReceived)",
                    "(AgentAddress, IfIndex, TimeReceived)", 30),
            new Table("agents", AGENTS, "MergeTree", "toYYYYMMDD(TimeReceived)",
                    "(AgentAddress, SubAgentId, SourceIdType, SourceIdIndex, SampleFamily, TimeReceived)", 90),
            new Table("lb_decisions", LB_DECISIONS, "MergeTree", "toYYYYMMDD(TimeReceived)",
                    "(TimeReceived, VIP, VIPPort, Backend)", 30),
            new Table("lb_counters", LB_COUNTERS, "MergeTree", "toYYYYMMDD(TimeReceived)",
                    "(AgentAddress, VIP, VIPPort, BackendIndex, TimeReceived)", 30),
            new Table("exporters", List.of(
                    new Column("TimeReceived", Type.DATETIME),
                    new Column("AgentAddress", Type.IP),
                    new Column("SubAgentId", Type.UINT32),
                    new Column("Datagrams", Type.UINT64)),
                    "ReplacingMergeTree(TimeReceived)", "toYYYYMM(TimeReceived)", "(AgentAddress, SubAgentId)", 31),
            new Table("interfaces", List.of(
                    new Column("TimeReceived", Type.DATETIME),
                    new Column("AgentAddress", Type.IP),
                    new Column("SubAgentId", Type.UINT32),
                    new Column("IfIndex", Type.UINT32),
                    new Column("IfName", Type.STRING),
                    new Column("IfSpeed", Type.UINT64),
                    new Column("IfType", Type.UINT32),
                    new Column("IfOperUp", Type.UINT8)),
                    "ReplacingMergeTree(TimeReceived)", "toYYYYMM(TimeReceived)", "(AgentAddress, SubAgentId, IfIndex)",
                            31),
            new Table("asns", ASNS, "ReplacingMergeTree(TimeReceived)", "toYYYYMM(TimeReceived)", "ASN", 3650),
            new Table("flows_1m", ROLLUP, "SummingMergeTree((Bytes, Packets, Samples))", "toYYYYMMDD(TimeReceived)",
                    "(" + ROLLUP_KEY + ")", 7),
            new Table("flows_5m", ROLLUP, "SummingMergeTree((Bytes, Packets, Samples))", "toYYYYMM(TimeReceived)",
                    "(" + ROLLUP_KEY + ")", 90),
            new Table("flows_1h", ROLLUP, "SummingMergeTree((Bytes, Packets, Samples))", "toYYYYMM(TimeReceived)",
                    "(" + ROLLUP_KEY + ")", 365));

    private static String rollupSelect(String bucket) {
        // Aggregated per insert block (GROUP BY the rollup's key): one row per key and block instead of one per flow
        // sample, which on 18.16 took the insert's CPU from 6.1 to 3.5 µs per flows row (bench/results/2026-12-06-e2e);
        // SummingMergeTree still sums equal keys across blocks when it merges parts (queries sum() anyway). Each alias
        // that shadows a source column (TimeReceived, Bytes, Packets) is used only in its own expression, which both
        // 18.16 and current servers (with or without the analyzer) resolve to the column; GROUP BY TimeReceived names
        // the bucket. 18.16 runs a view's SELECT on each inserted block but cannot take one with a subquery.
        return "SELECT " + bucket + " AS TimeReceived, " + ROLLUP_KEY.substring("TimeReceived, ".length()) + ", "
                + "sum(Bytes * SamplingRate) AS Bytes, sum(Packets * SamplingRate) AS Packets, count() AS Samples "
                + "FROM {db}.flows GROUP BY " + ROLLUP_KEY;
    }

    /** Materialized views, created after every table. */
    public static final List<View> VIEWS = List.of(
            new View("flows_1m_mv", "flows_1m", rollupSelect("toStartOfMinute(TimeReceived)")),
            new View("flows_5m_mv", "flows_5m", rollupSelect("toStartOfFiveMinute(TimeReceived)")),
            new View("flows_1h_mv", "flows_1h", rollupSelect("toStartOfHour(TimeReceived)")),
            new View("exporters_mv", "exporters",
                    "SELECT TimeReceived, AgentAddress, SubAgentId, Datagrams FROM {db}.agents "
                            + "WHERE SampleFamily = 255"),
            new View("interfaces_mv", "interfaces",
                    "SELECT TimeReceived, AgentAddress, SubAgentId, IfIndex, toString(IfName) AS IfName, IfSpeed, "
                            + "IfType, "
                            + "IfOperUp "
                            + "FROM {db}.if_counters"));

    /** @return the table of that name. @throws IllegalArgumentException if there is none */
    public static Table table(String name) {
        for (Table t : TABLES) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("no table " + name + " in the vecflow schema");
    }

    /**
     * What a server supports, from its version.
     *
     * @param major major version
     * @param minor minor version
     * @param ipv6Type the {@code IPv6} domain type (19.3)
     * @param codecs column codecs (19.3)
     * @param ttl column and table TTL (19.6)
     * @param lowCardinality {@code LowCardinality} without the experimental setting (19.9; used from 20.1)
     * @param skipIndexes data skipping indexes without the experimental setting (20.1)
     */
    public record ServerFeatures(int major, int minor, boolean ipv6Type, boolean codecs, boolean ttl,
            boolean lowCardinality, boolean skipIndexes) {
        private static final Pattern VERSION = Pattern.compile("(\\d{1,9})\\.(\\d{1,9})(?:\\..*)?");

        /**
         * Whether the server knows the {@code async_insert} setting (21.11 on; 26.3 made async inserts the default,
         * so the sink turns them off explicitly). An older server refuses a query that names a setting it does not
         * know ("Unknown setting"), so the setting is sent only when this is true.
         *
         * @return true from 21.11
         */
        public boolean asyncInsertSetting() {
            return major > 21 || (major == 21 && minor >= 11);
        }

        /**
         * Whether users, roles and grants are managed in SQL ({@code CREATE USER}, {@code GRANT}; 20.5 on). Older
         * servers define users only in {@code users.xml} and its {@code users.d/} files, where a profile's
         * {@code readonly} and a user's {@code allow_databases} stand for grants ({@link ClickHouseUsers}).
         *
         * @return true from 20.5
         */
        public boolean sqlAccessControl() {
            return major > 20 || (major == 20 && minor >= 5);
        }

        /**
         * Parses the text of {@code SELECT version()}: {@code major.minor} then optional further parts, e.g.
         * {@code 18.16.1}, {@code 25.8.2.29}, {@code 24.3.12.76.altinitystable}.
         *
         * @param version the text of {@code SELECT version()} (surrounding whitespace ignored)
         * @return the features of that version
         * @throws IllegalArgumentException if it is null or not a version (e.g. an error page); the message quotes it
         */
        public static ServerFeatures fromVersion(String version) {
            Matcher m = version == null ? null : VERSION.matcher(version.trim());
            if (m == null || !m.matches()) {
                throw new IllegalArgumentException("not a ClickHouse version: "
                        + (version == null ? "null" : "'" + version + "'")
                        + " (expected the text of SELECT version(), e.g. 25.8.2.29)");
            }
            int major = Integer.parseInt(m.group(1));
            int minor = Integer.parseInt(m.group(2));
            boolean v193 = major > 19 || (major == 19 && minor >= 3);
            boolean v196 = major > 19 || (major == 19 && minor >= 6);
            boolean v20 = major >= 20;
            return new ServerFeatures(major, minor, v193, v193, v196, v20, v20);
        }
    }

    /**
     * Renders {@code CREATE TABLE IF NOT EXISTS db.table} for a server.
     *
     * @param database database name
     * @param t the table
     * @param f server features
     * @param ttlDays retention in days (modern servers: a TTL clause; old ones: {@code Retention} drops partitions)
     * @return the DDL statement
     */
    public static String createTable(String database, Table t, ServerFeatures f, int ttlDays) {
        StringBuilder b = new StringBuilder("CREATE TABLE IF NOT EXISTS ").append(database).append('.')
                .append(t.name()).append("\n(\n");
        List<String> lines = new ArrayList<>();
        for (Column c : t.columns()) {
            lines.add("    " + columnDefinition(c, f));
        }
        if (f.skipIndexes()) {
            for (Column c : t.columns()) {
                if (c.index() != null) {
                    lines.add("    INDEX " + c.name() + "_idx " + c.name() + " TYPE " + c.index() + " GRANULARITY 4");
                }
            }
        }
        b.append(String.join(",\n", lines)).append("\n)\nENGINE = ").append(t.engine())
                .append("\nPARTITION BY ").append(t.partitionBy()).append("\nORDER BY ").append(t.orderBy());
        if (f.ttl()) {
            b.append("\nTTL TimeReceived + INTERVAL ").append(ttlDays).append(" DAY");
        }
        return b.toString();
    }

    /** @return {@code CREATE TABLE IF NOT EXISTS db.flows} with the default retention of 15 days (tests, docs). */
    public static String createFlows(String database, ServerFeatures f, int ttlDays) {
        return createTable(database, table("flows"), f, ttlDays);
    }

    /** @return {@code CREATE MATERIALIZED VIEW IF NOT EXISTS db.view TO db.target AS SELECT …}. */
    public static String createView(String database, View v) {
        return "CREATE MATERIALIZED VIEW IF NOT EXISTS " + database + "." + v.name() + " TO " + database + "."
                + v.target() + "\nAS " + v.select().replace("{db}", database);
    }

    /**
     * The whole schema for a server: every table, then every view.
     *
     * @param database database name
     * @param f server features
     * @param ttlDays retention per table name; tables not in the map get their default
     * @return the statements in order
     */
    public static List<String> ddl(String database, ServerFeatures f, Map<String, Integer> ttlDays) {
        List<String> out = new ArrayList<>();
        for (Table t : TABLES) {
            out.add(createTable(database, t, f, ttlDays.getOrDefault(t.name(), t.ttlDays())));
        }
        for (View v : VIEWS) {
            out.add(createView(database, v));
        }
        return out;
    }

    /** @return the flows column names in RowBinary order. */
    public static List<String> columnNames() {
        return table("flows").columnNames();
    }

    /**
     * The additive migration from an older table: one {@code ALTER TABLE ... ADD COLUMN} per column the table
     * lacks, placed after its predecessor. Existing rows get the column's default (0, empty), nothing is dropped or
     * rewritten, so a schema change never loses data.
     *
     * @param database database name
     * @param t the table as vecflow defines it now
     * @param existing names of the table's columns on the server
     * @param f server features
     * @return the statements, in order (empty when the table is current)
     */
    public static List<String> addMissingColumns(String database, Table t, Set<String> existing, ServerFeatures f) {
        List<String> out = new ArrayList<>();
        String prev = null;
        for (Column c : t.columns()) {
            if (!existing.contains(c.name())) {
                StringBuilder b = new StringBuilder("ALTER TABLE ").append(database).append('.').append(t.name())
                        .append(" ADD COLUMN ").append(columnDefinition(c, f));
                if (prev != null) {
                    b.append(" AFTER ").append(prev);
                }
                out.add(b.toString());
            }
            prev = c.name();
        }
        return out;
    }

    /** @return the flows migration (kept for callers that only know flows). */
    public static List<String> addMissingColumns(String database, Set<String> existing, ServerFeatures f) {
        return addMissingColumns(database, table("flows"), existing, f);
    }

    /**
     * The migration of a rollup created before {@code Direction} existed: one {@code ALTER} that adds the column
     * after ForwardingStatus and appends it to the order key ({@link #ROLLUP_KEY}; the primary key stays as it was).
     * Existing rows get {@code undefined}; nothing is rewritten. Runs on 18.16 and current servers.
     *
     * @param database database name
     * @param rollup rollup table name ({@code flows_1m}, {@code flows_5m}, {@code flows_1h})
     * @param f server features
     * @return the statement
     */
    public static String addRollupDirection(String database, String rollup, ServerFeatures f) {
        Column direction = rollupColumn(rollup, "Direction");
        return "ALTER TABLE " + database + "." + rollup + " ADD COLUMN " + columnDefinition(direction, f)
                + " AFTER ForwardingStatus, MODIFY ORDER BY (" + ROLLUP_KEY_V4 + ")";
    }

    /**
     * The migration of a rollup keyed as until migration 4 ({@link #ROLLUP_KEY_V4}): one {@code ALTER} that adds the
     * {@link #ROLLUP_ENRICHMENT} columns after Direction and appends them to the order key. Existing rows get empty
     * names and {@code undefined} boundaries; nothing is rewritten. Runs on 18.16 and current servers.
     *
     * @param database database name
     * @param rollup rollup table name
     * @param f server features
     * @return the statement
     */
    public static String addRollupEnrichment(String database, String rollup, ServerFeatures f) {
        StringBuilder b = new StringBuilder("ALTER TABLE ").append(database).append('.').append(rollup);
        String prev = "Direction";
        for (String name : ROLLUP_ENRICHMENT) {
            b.append(prev.equals("Direction") ? " " : ", ").append("ADD COLUMN ")
                    .append(columnDefinition(rollupColumn(rollup, name), f)).append(" AFTER ").append(prev);
            prev = name;
        }
        return b.append(", MODIFY ORDER BY (").append(ROLLUP_KEY).append(')').toString();
    }

    private static Column rollupColumn(String rollup, String name) {
        return table(rollup).columns().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    private static String columnDefinition(Column c, ServerFeatures f) {
        String s = c.name() + " " + type(c.type(), f);
        if (c.defaultExpression() != null) {
            s += " DEFAULT " + c.defaultExpression();
        }
        if (f.codecs() && c.codec() != null) {
            s += " CODEC(" + c.codec() + ")";
        }
        return s;
    }

    /** @return the ClickHouse type of a logical type on a server. */
    public static String type(Type t, ServerFeatures f) {
        return switch (t) {
            case DATETIME -> "DateTime";
            case UINT8 -> "UInt8";
            case UINT16 -> "UInt16";
            case UINT32 -> "UInt32";
            case UINT64 -> "UInt64";
            case FLOAT64 -> "Float64";
            case IP -> f.ipv6Type() ? "IPv6" : "FixedString(16)";
            case STRING -> "String";
            case LC_STRING -> f.lowCardinality() ? "LowCardinality(String)" : "String";
            case ARRAY_UINT32 -> "Array(UInt32)";
            case ARRAY_IP -> "Array(" + (f.ipv6Type() ? "IPv6" : "FixedString(16)") + ")";
            case DIRECTION -> enum8(DIRECTIONS);
            case BOUNDARY -> enum8(InterfaceInfo.BOUNDARIES);
        };
    }

    private static String enum8(List<String> names) {
        StringBuilder b = new StringBuilder("Enum8(");
        for (int i = 0; i < names.size(); i++) {
            b.append(i == 0 ? "" : ", ").append('\'').append(names.get(i)).append("' = ").append(i);
        }
        return b.append(')').toString();
    }

    private static List<Column> concat(List<Column> a, List<Column> b) {
        List<Column> out = new ArrayList<>(a);
        out.addAll(b);
        return List.copyOf(out);
    }
}
