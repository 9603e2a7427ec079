package io.vecflow.collector.query;

import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.schema.FlowSchema.Column;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A source the console queries (docs/console-api.md, "Sources, dimensions, metrics"): its raw table, the columns one
 * may filter on and group by (from {@link FlowSchema}), its metrics, and for {@code flows} the rollups.
 *
 * @param name {@code flows}, {@code drops}, {@code lb_decisions} or {@code agents}
 * @param table the raw table
 * @param columns the queryable columns by lower-case name, in table order
 * @param metrics the metric names, the default first
 * @param defaultDimension the dimension the UI starts with
 * @param countOnce true when each packet is counted once by direction ({@code Direction != 'egress'} unless the
 *     filter names Direction)
 * @param rowsColumns the columns of the "latest rows" listing
 * @param rollups true when the {@code flows_1m}/{@code 5m}/{@code 1h} rollups may answer
 */
public record Source(String name, String table, Map<String, QueryColumn> columns, List<String> metrics,
        String defaultDimension, boolean countOnce, List<String> rowsColumns, boolean rollups) {

    /** Columns that are never dimensions: times, sampling, counters that are metrics, ingest bookkeeping. */
    private static final Set<String> NOT_DIMENSIONS = Set.of("TimeReceivedNanos", "SamplingRate", "SamplePool",
            "Bytes", "Packets", "Samples", "Flows", "IngestStream", "IngestOffset", "DatagramSequence",
            "SampleSequence", "Datagrams", "DatagramsLost", "DatagramsReordered", "Resets", "SamplesLost",
            "SamplesReordered", "ReportedDrops", "DatagramsDuplicated", "Drops", "TimeReceived", "PolicyMetric",
            "PathWeight", "SRv6Segments", "Candidates");

    /** The rollups' columns (what {@code flows_1m}/{@code 5m}/{@code 1h} keep), from {@link FlowSchema#ROLLUP}. */
    public static final Set<String> ROLLUP_COLUMNS = Set.copyOf(FlowSchema.ROLLUP.stream().map(Column::name)
            .toList());

    /** Every source, by name. */
    public static final Map<String, Source> ALL = catalogue();

    private static Map<String, Source> catalogue() {
        Map<String, Source> m = new LinkedHashMap<>();
        m.put("flows", new Source("flows", "flows", columns(FlowSchema.FLOWS), List.of("bps", "pps", "samples"),
                "SrcAS", true, List.of("TimeReceived", "AgentAddress", "InIfName", "OutIfName", "SrcAddr", "DstAddr",
                        "Proto", "SrcPort", "DstPort", "Bytes", "Packets", "SamplingRate"), true));
        m.put("drops", new Source("drops", "drops", columns(FlowSchema.DROPS), List.of("pps", "samples"),
                "DiscardReasonName", true, List.of("TimeReceived", "AgentAddress", "DiscardReasonName", "InIfName",
                        "SrcAddr", "DstAddr", "Proto", "SrcPort", "DstPort", "FrameLength"), false));
        m.put("lb_decisions", new Source("lb_decisions", "lb_decisions", columns(FlowSchema.LB_DECISIONS),
                List.of("flows", "samples"), "Backend", false, List.of("TimeReceived", "AgentAddress", "Algorithm",
                        "VIP", "VIPPort", "Proto", "Backend", "Decision", "Policy", "ChoiceIndex", "Flows"), false));
        m.put("agents", new Source("agents", "agents", columns(FlowSchema.AGENTS), List.of("samples", "samples_lost",
                "datagrams", "datagrams_lost", "reported_drops"), "AgentAddress", false, List.of("TimeReceived",
                        "AgentAddress", "SubAgentId", "SourceIdType", "SourceIdIndex", "SampleFamily", "Datagrams",
                        "DatagramsLost", "Samples", "SamplesLost", "ReportedDrops"), false));
        return Map.copyOf(m);
    }

    private static Map<String, QueryColumn> columns(List<Column> schema) {
        Map<String, QueryColumn> out = new LinkedHashMap<>();
        for (Column c : schema) {
            if (c.name().equals("TimeReceived")) {
                continue;
            }
            out.put(c.name().toLowerCase(Locale.ROOT), new QueryColumn(c.name(), kind(c),
                    c.type(), !NOT_DIMENSIONS.contains(c.name())));
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    private static ColumnKind kind(Column c) {
        return switch (c.type()) {
            case IP -> ColumnKind.IP;
            case ARRAY_IP -> ColumnKind.IP_ARRAY;
            case STRING, LC_STRING -> ColumnKind.STRING;
            case FLOAT64 -> ColumnKind.FLOAT;
            case ARRAY_UINT32 -> ColumnKind.ASN_ARRAY;
            case BOUNDARY -> ColumnKind.BOUNDARY;
            case DIRECTION -> ColumnKind.DIRECTION;
            case DATETIME -> ColumnKind.UINT;
            case UINT8, UINT16, UINT32, UINT64 -> switch (c.name()) {
                case "SrcAS", "DstAS", "SrcPeerAS" -> ColumnKind.ASN;
                case "Proto", "InnerProto" -> ColumnKind.PROTO;
                case "EType" -> ColumnKind.ETYPE;
                case "SrcMAC", "DstMAC" -> ColumnKind.MAC;
                default -> ColumnKind.UINT;
            };
        };
    }

    /**
     * @param name a source name, any case
     * @return the source, or null when there is none of that name
     */
    public static Source named(String name) {
        return name == null ? null : ALL.get(name.toLowerCase(Locale.ROOT));
    }

    /** @return the source names in API order ({@code flows}, {@code drops}, {@code lb_decisions}, {@code agents}) */
    public static List<String> names() {
        return List.of("flows", "drops", "lb_decisions", "agents");
    }

    /**
     * @param name a column name, any case
     * @return the column, or null when the source has none of that name (TimeReceived is not queryable)
     */
    public QueryColumn column(String name) {
        return name == null ? null : columns.get(name.toLowerCase(Locale.ROOT));
    }

    /**
     * The column of the reverse direction (Src↔Dst, In↔Out), for bidirectional graphs.
     *
     * @param c a column of this source
     * @return its reverse, or the column itself when it has none
     */
    public QueryColumn reverse(QueryColumn c) {
        String n = c.name();
        String r = n;
        for (String[] p : new String[][] {{"InnerSrc", "InnerDst"}, {"InnerDst", "InnerSrc"}, {"Src", "Dst"},
                {"Dst", "Src"}, {"In", "Out"}, {"Out", "In"}}) {
            if (n.startsWith(p[0])) {
                r = p[1] + n.substring(p[0].length());
                break;
            }
        }
        QueryColumn rc = column(r);
        return rc == null || rc.kind() != c.kind() ? c : rc;
    }
}
