package io.vecflow.lab;

import io.vecflow.lab.out.LabClickHouse;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Maps lab results to the rows of the {@code lab_*} ClickHouse tables (column order of {@code LabTables}). */
public final class LabDb {
    private LabDb() {}

    /**
     * Writes an SRLB run's grid cells and SLA answers.
     *
     * @param ch connection
     * @param start run start (TimeReceived)
     * @param runId run id
     * @param r results
     * @return rows written
     * @throws IOException when ClickHouse rejects an insert
     */
    public static int writeSrlb(LabClickHouse ch, Instant start, String runId, SrlbLab.Result r) throws IOException {
        long ts = start.getEpochSecond();
        List<List<Object>> rows = new ArrayList<>();
        for (SrlbLab.Row x : r.rows()) {
            rows.add(List.of(ts, runId, x.level(), x.service(), x.dispatcher(), x.servers(), x.load(), x.seeds(),
                    x.jobs(), x.mean().mean(), x.mean().half(), x.p90().mean(), x.p90().half(), x.p99().mean(),
                    x.firstChoice().mean(), x.jain().mean(), x.theory(), x.primary() ? 1 : 0));
        }
        ch.insert("lab_srlb", rows);
        List<List<Object>> sla = new ArrayList<>();
        for (SrlbLab.SlaRow s : r.sla()) {
            sla.add(List.of(ts, runId, s.level(), s.service(), s.dispatcher(), s.demand(), s.targetP90(),
                    s.serversNeeded(), s.achievedP90()));
        }
        ch.insert("lab_sla", sla);
        return rows.size() + sla.size();
    }

    /**
     * Writes a CLOVE run's cells.
     *
     * @param ch connection
     * @param start run start (TimeReceived)
     * @param runId run id
     * @param r results
     * @return rows written
     * @throws IOException when ClickHouse rejects the insert
     */
    public static int writeClove(LabClickHouse ch, Instant start, String runId, CloveLab.Result r)
            throws IOException {
        long ts = start.getEpochSecond();
        List<List<Object>> rows = new ArrayList<>();
        for (CloveLab.Row x : r.rows()) {
            rows.add(List.of(ts, runId, x.fabric(), x.workload(), x.scheme(), x.load(), x.seeds(), x.flows(),
                    x.unfinished(), x.meanFct().mean(), x.p99Fct().mean(), x.smallMean().mean(), x.smallP99().mean(),
                    x.largeMean().mean(), x.normMean().mean(), x.normP99().mean(), x.normSmallP99().mean(),
                    x.normLargeMean().mean()));
        }
        ch.insert("lab_clove", rows);
        return rows.size();
    }
}
