package io.vecflow.collector.sink.clickhouse;

import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.schema.Label;
import java.io.IOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The AS names waiting for the {@code asns} table: the latest map offered, written whole by the next flush. */
final class AsNames {
    private static final Logger log = LoggerFactory.getLogger(AsNames.class);
    private volatile Map<Long, Label> pending;

    void offer(Map<Long, Label> names) {
        pending = names;
    }

    /** Writes the pending map, if any and the sink is connected; kept for the next flush when the insert fails. */
    void write(ClickHouseSink sink) throws IOException {
        Map<Long, Label> names = pending;
        if (names == null || !sink.connected()) {
            return;
        }
        RowBinaryWriter w = new RowBinaryWriter(64 + names.size() * 24);
        long now = System.currentTimeMillis() / 1000;
        for (Map.Entry<Long, Label> e : names.entrySet()) {
            w.writeAsName(now, e.getKey(), e.getValue());
        }
        sink.insertRows("asns", FlowSchema.table("asns").columnNames(), w);
        if (pending == names) {
            pending = null;
        }
        log.info("{}.asns: {} AS names written", sink.database(), names.size());
    }
}
