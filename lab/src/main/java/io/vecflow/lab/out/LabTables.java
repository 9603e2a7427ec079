package io.vecflow.lab.out;

import io.vecflow.collector.schema.FlowSchema.Column;
import io.vecflow.collector.schema.FlowSchema.Table;
import io.vecflow.collector.schema.FlowSchema.Type;
import java.util.List;

/**
 * The lab's ClickHouse tables, defined here with the collector's schema types ({@link Table}, {@link Column}) and
 * rendered per server by the collector's {@link io.vecflow.collector.schema.FlowSchema#createTable}: the collector's
 * own schema knows nothing of them. The Load-balancer dashboard's "Lab" row reads them.
 */
public final class LabTables {
    private LabTables() {}

    /**
     * The lab_srlb columns: one row per cell of a {@code vecflow lab srlb} run (server-farm simulation, issue 8):
     * server level ({@code ps}, {@code apache}), service law, dispatcher ({@code random}, {@code maglev},
     * {@code jsq2}, {@code srC}, {@code srdyn}, …), N, per-server load ρ; response times in mean service times over
     * {@code Seeds} replications ({@code *Ci} = 95 % half-width); FirstChoice = share accepted by the first SRLB
     * candidate; Jain = fairness of server utilisation; Theory = docs/load-balancing.md §5's mean-field mean (NaN where
     * none); IsPrimary = the run's headline configuration (largest N, first level and service). TimeReceived = run
     * start.
     */
    public static final List<Column> LAB_SRLB = List.of(
            new Column("TimeReceived", Type.DATETIME),
            new Column("RunId", Type.STRING),
            new Column("Level", Type.LC_STRING),
            new Column("Service", Type.LC_STRING),
            new Column("Dispatcher", Type.LC_STRING),
            new Column("Servers", Type.UINT32),
            new Column("Load", Type.FLOAT64),
            new Column("Seeds", Type.UINT32),
            new Column("Jobs", Type.UINT64),
            new Column("MeanResponse", Type.FLOAT64),
            new Column("MeanCi", Type.FLOAT64),
            new Column("P90Response", Type.FLOAT64),
            new Column("P90Ci", Type.FLOAT64),
            new Column("P99Response", Type.FLOAT64),
            new Column("FirstChoice", Type.FLOAT64),
            new Column("Jain", Type.FLOAT64),
            new Column("Theory", Type.FLOAT64),
            new Column("IsPrimary", Type.UINT8));

    /**
     * The lab_sla columns: per dispatcher of a {@code vecflow lab srlb} run, the smallest number of servers whose p90
     * response time (mean service times) meets TargetP90 for a demand of Demand jobs per mean service time (0 = not
     * met within the search range).
     */
    public static final List<Column> LAB_SLA = List.of(
            new Column("TimeReceived", Type.DATETIME),
            new Column("RunId", Type.STRING),
            new Column("Level", Type.LC_STRING),
            new Column("Service", Type.LC_STRING),
            new Column("Dispatcher", Type.LC_STRING),
            new Column("Demand", Type.FLOAT64),
            new Column("TargetP90", Type.FLOAT64),
            new Column("ServersNeeded", Type.UINT32),
            new Column("AchievedP90", Type.FLOAT64));

    /**
     * The lab_clove columns: one row per cell of a {@code vecflow lab clove} run (leaf–spine simulation): fabric
     * ({@code symmetric}, {@code asymmetric}), workload, scheme ({@code ecmp}, {@code edge-flowlet},
     * {@code clove-ecn}, {@code clove-int}, {@code oracle}), offered load; flow-completion times in ms
     * (small &lt; 100 KB, large &gt; 10 MB) and normalised to ECMP on the same seeds ({@code Norm*}).
     */
    public static final List<Column> LAB_CLOVE = List.of(
            new Column("TimeReceived", Type.DATETIME),
            new Column("RunId", Type.STRING),
            new Column("Fabric", Type.LC_STRING),
            new Column("Workload", Type.LC_STRING),
            new Column("Scheme", Type.LC_STRING),
            new Column("Load", Type.FLOAT64),
            new Column("Seeds", Type.UINT32),
            new Column("Flows", Type.UINT64),
            new Column("Unfinished", Type.UINT64),
            new Column("MeanFctMs", Type.FLOAT64),
            new Column("P99FctMs", Type.FLOAT64),
            new Column("SmallMeanMs", Type.FLOAT64),
            new Column("SmallP99Ms", Type.FLOAT64),
            new Column("LargeMeanMs", Type.FLOAT64),
            new Column("NormMean", Type.FLOAT64),
            new Column("NormP99", Type.FLOAT64),
            new Column("NormSmallP99", Type.FLOAT64),
            new Column("NormLargeMean", Type.FLOAT64));

    /** The lab tables, in creation order. */
    public static final List<Table> TABLES = List.of(
            new Table("lab_srlb", LAB_SRLB, "MergeTree", "toYYYYMM(TimeReceived)",
                    "(RunId, Level, Service, Dispatcher, Servers, Load)", 365),
            new Table("lab_sla", LAB_SLA, "MergeTree", "toYYYYMM(TimeReceived)", "(RunId, Dispatcher, TargetP90)", 365),
            new Table("lab_clove", LAB_CLOVE, "MergeTree", "toYYYYMM(TimeReceived)",
                    "(RunId, Fabric, Workload, Scheme, Load)", 365));

    /** @return the lab table of that name. @throws IllegalArgumentException if there is none */
    public static Table table(String name) {
        for (Table t : TABLES) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("no table " + name + " in the lab schema");
    }
}
