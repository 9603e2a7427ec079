package io.vecflow.collector.sink.clickhouse;

import io.vecflow.collector.decode.DatagramDecoder;
import io.vecflow.collector.decode.LossTracker;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.sink.RateLimitedLog;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores {@link LossTracker}'s counters in ClickHouse's {@code agents} table: every interval (and at close) one
 * row per agent (SampleFamily 255: datagrams, lost, reordered, restarts, duplicated) and one per data source and
 * sample family (samples, lost, reordered, agent-reported drops), each holding the increase since the previous row
 * that was <em>stored</em>: when an insert fails, the next one carries the increase over both periods, so no count is
 * lost to an outage. Rows with no change are not written. Each row carries the ingest stream and offset of the agent's
 * latest datagram counted, so the Kafka outlet, after a restart, does not count again what the table holds
 * ({@link DatagramDecoder#countedThrough}).
 */
public final class LossRecorder implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LossRecorder.class);
    private static final List<String> COLUMNS = FlowSchema.table("agents").columnNames();

    private final LossTracker tracker;
    private final ClickHouseSink sink;
    private final Map<String, long[]> stored = new HashMap<>(); // per key, the totals the table holds
    private final ScheduledExecutorService timer;
    private final RateLimitedLog warn = new RateLimitedLog(log, 60_000);
    private long rowsWritten, failures;

    /**
     * @param tracker the counters
     * @param sink the ClickHouse sink (its database holds agents)
     * @param intervalMs reporting interval in ms, or 0 when the caller calls {@link #record()} itself
     */
    public LossRecorder(LossTracker tracker, ClickHouseSink sink, long intervalMs) {
        this.tracker = tracker;
        this.sink = sink;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "agent-loss");
            t.setDaemon(true);
            return t;
        });
        if (intervalMs > 0) { // 0: the caller records (the Kafka outlet, at each commit)
            timer.scheduleWithFixedDelay(this::recordQuietly, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
        }
    }

    private void recordQuietly() {
        try {
            record();
            warn.reset("insert");
        } catch (Exception e) {
            warn.warn("insert", "agents insert failed, the counts wait for the next one: {}", e.getMessage());
        }
    }

    /**
     * Writes the increases since the last stored row of each key; on success they become the new baseline, on
     * failure nothing changes (the next call writes the increase over both periods).
     *
     * @throws java.io.IOException if the insert fails
     */
    public synchronized void record() throws java.io.IOException {
        resolveUnsure();
        long now = System.currentTimeMillis() / 1000;
        markAgent = null;
        RowBinaryWriter w = new RowBinaryWriter(4096);
        List<Object[]> next = new ArrayList<>(); // {key, totals} to store once the insert worked
        for (LossTracker.AgentStats a : tracker.agents()) {
            long[] v = new long[9];
            v[0] = a.datagrams;
            v[1] = a.datagramsLost;
            v[2] = a.datagramsReordered;
            v[3] = a.resets;
            v[8] = a.datagramsDuplicated;
            String k = key(a.agent, a.subAgentId, 0, 0, 255);
            long[] d = delta(k, v, next);
            if (d != null) {
                w.writeLoss(now, a.agent, a.subAgentId, 0, 0, 255, d, a.lastStream, a.lastOffset);
                if (markAgent == null) {
                    markAgent = a.agent.clone();
                    markStream = a.lastStream;
                    markOffset = a.lastOffset;
                }
            }
        }
        Map<String, long[]> streamOf = new HashMap<>();
        for (LossTracker.AgentStats a : tracker.agents()) {
            streamOf.put(java.util.HexFormat.of().formatHex(a.agent) + "/" + a.subAgentId,
                    new long[] {a.lastStream, a.lastOffset});
        }
        for (LossTracker.SourceStats s : tracker.sources()) {
            long[] v = new long[9];
            v[4] = s.samples;
            v[5] = s.samplesLost;
            v[6] = s.samplesReordered;
            v[7] = s.reportedDrops;
            long[] d = delta(key(s.agent, s.subAgentId, s.sourceIdType, s.sourceIdIndex, s.family), v, next);
            if (d != null) {
                long[] so = streamOf.getOrDefault(java.util.HexFormat.of().formatHex(s.agent) + "/" + s.subAgentId,
                        new long[] {0x8000_0000L, 0});
                w.writeLoss(now, s.agent, s.subAgentId, s.sourceIdType, s.sourceIdIndex, s.family, d, so[0], so[1]);
                if (markAgent == null) {
                    markAgent = s.agent.clone();
                    markStream = so[0];
                    markOffset = so[1];
                }
            }
        }
        try {
            sink.insertRows("agents", COLUMNS, w);
        } catch (java.io.IOException e) {
            failures++;
            // The insert may have landed anyway (an answer lost, a timeout after the server took it): remember one
            // of its rows, so that the next call asks the table before writing these increases again.
            unsure = w.rows() == 0 ? null : new Unsure(markAgent, markStream, markOffset, next, w.rows());
            throw e;
        }
        adopt(next, w.rows());
    }

    /**
     * A failed insert that may have stored its rows: one of them (agent, ingest stream and offset — unique, since
     * an agent's row is written only when its counts changed, which only a newer datagram does) and the totals to
     * adopt if it is there.
     */
    private record Unsure(byte[] agent, long stream, long offset, List<Object[]> next, int rows) {}

    private Unsure unsure;
    private byte[] markAgent;
    private long markStream, markOffset;

    private void adopt(List<Object[]> next, int rows) {
        for (Object[] kv : next) {
            stored.put((String) kv[0], (long[]) kv[1]);
        }
        rowsWritten += rows;
    }

    /** Before writing again after a failed insert: did it land? If so its increases are stored; then adopt them. */
    private void resolveUnsure() throws java.io.IOException {
        Unsure u = unsure;
        if (u == null) {
            return;
        }
        // (IngestStream, IngestOffset) names one datagram, so one agent: no other row carries it.
        if (sink.countAt("agents", u.stream(), u.offset()) > 0) {
            adopt(u.next(), u.rows()); // it landed: counted once, not again
            foundStored++;
        }
        unsure = null;
    }

    private long foundStored;

    /** @return failed agents inserts found stored anyway when asked (their increases were not written again). */
    public synchronized long foundStored() {
        return foundStored;
    }

    /** The increase of {@code v} over what is stored for {@code key}, or null when nothing changed. */
    private long[] delta(String key, long[] v, List<Object[]> next) {
        long[] prev = stored.get(key);
        long[] d = new long[v.length];
        boolean changed = false;
        for (int i = 0; i < v.length; i++) {
            d[i] = v[i] - (prev == null ? 0 : prev[i]);
            changed |= d[i] != 0;
        }
        if (!changed) {
            return null;
        }
        next.add(new Object[] {key, v});
        return d;
    }

    private static String key(byte[] agent, long sub, int type, long index, int family) {
        return java.util.HexFormat.of().formatHex(agent) + "/" + sub + "/" + type + ":" + index + "/" + family;
    }

    /**
     * Drops the increases not stored yet of the agents whose latest datagram came from one of {@code streams} (the
     * Kafka outlet, when those partitions go to another outlet that counts them again from what the table holds).
     *
     * @param streams ingest stream ids
     */
    public synchronized void discardUnrecorded(long[] streams) {
        java.util.Set<String> agents = new java.util.HashSet<>();
        for (LossTracker.AgentStats a : tracker.agents()) {
            for (long st : streams) {
                if (a.lastStream == st) {
                    long[] v = new long[9];
                    v[0] = a.datagrams;
                    v[1] = a.datagramsLost;
                    v[2] = a.datagramsReordered;
                    v[3] = a.resets;
                    v[8] = a.datagramsDuplicated;
                    stored.put(key(a.agent, a.subAgentId, 0, 0, 255), v);
                    agents.add(java.util.HexFormat.of().formatHex(a.agent) + "/" + a.subAgentId);
                    break;
                }
            }
        }
        for (LossTracker.SourceStats s : tracker.sources()) {
            if (agents.contains(java.util.HexFormat.of().formatHex(s.agent) + "/" + s.subAgentId)) {
                long[] v = new long[9];
                v[4] = s.samples;
                v[5] = s.samplesLost;
                v[6] = s.samplesReordered;
                v[7] = s.reportedDrops;
                stored.put(key(s.agent, s.subAgentId, s.sourceIdType, s.sourceIdIndex, s.family), v);
            }
        }
    }

    /** @return agents rows written. */
    public synchronized long rowsWritten() {
        return rowsWritten;
    }

    /** @return agents inserts that failed (their increases were carried into a later row). */
    public synchronized long failures() {
        return failures;
    }

    @Override
    public void close() throws Exception {
        timer.shutdown();
        timer.awaitTermination(10, TimeUnit.SECONDS);
        if (sink.connected()) {
            record();
        }
    }
}
