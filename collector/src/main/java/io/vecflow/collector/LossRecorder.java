package io.vecflow.collector;

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
 * row per agent (SampleFamily 255: datagrams, lost, reordered, restarts) and one per data source and sample family
 * (samples, lost, reordered, agent-reported drops), each holding the increase since the previous row. Rows with no
 * change are not written.
 */
public final class LossRecorder implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LossRecorder.class);
    private static final List<String> COLUMNS = FlowSchema.table("agents").columnNames();

    private final LossTracker tracker;
    private final ClickHouseSink sink;
    private final Map<String, long[]> previous = new HashMap<>();
    private final ScheduledExecutorService timer;
    private long rowsWritten;

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
        } catch (Exception e) {
            log.warn("agents insert failed: {}", e.getMessage());
        }
    }

    /** Writes the increases since the last call. @throws java.io.IOException if the insert fails */
    public synchronized void record() throws java.io.IOException {
        long now = System.currentTimeMillis() / 1000;
        RowBinaryWriter w = new RowBinaryWriter(4096);
        long[] v = new long[8];
        for (LossTracker.AgentStats a : tracker.agents()) {
            v[0] = a.datagrams;
            v[1] = a.datagramsLost;
            v[2] = a.datagramsReordered;
            v[3] = a.resets;
            v[4] = v[5] = v[6] = v[7] = 0;
            if (delta(key(a.agent, a.subAgentId, 0, 0, 255), v)) {
                w.writeLoss(now, a.agent, a.subAgentId, 0, 0, 255, v);
            }
        }
        for (LossTracker.SourceStats s : tracker.sources()) {
            v[0] = v[1] = v[2] = v[3] = 0;
            v[4] = s.samples;
            v[5] = s.samplesLost;
            v[6] = s.samplesReordered;
            v[7] = s.reportedDrops;
            if (delta(key(s.agent, s.subAgentId, s.sourceIdType, s.sourceIdIndex, s.family), v)) {
                w.writeLoss(now, s.agent, s.subAgentId, s.sourceIdType, s.sourceIdIndex, s.family, v);
            }
        }
        sink.insertRows("agents", COLUMNS, w);
        rowsWritten += w.rows();
    }

    /** Replaces {@code v} by its increase over the previous values of {@code key}; false when nothing changed. */
    private boolean delta(String key, long[] v) {
        long[] prev = previous.put(key, v.clone());
        boolean changed = false;
        for (int i = 0; i < v.length; i++) {
            v[i] -= prev == null ? 0 : prev[i];
            changed |= v[i] != 0;
        }
        return changed;
    }

    private static String key(byte[] agent, long sub, int type, long index, int family) {
        return java.util.HexFormat.of().formatHex(agent) + "/" + sub + "/" + type + ":" + index + "/" + family;
    }

    /** @return agents rows written. */
    public synchronized long rowsWritten() {
        return rowsWritten;
    }

    @Override
    public void close() throws Exception {
        timer.shutdown();
        timer.awaitTermination(10, TimeUnit.SECONDS);
        record();
    }
}
