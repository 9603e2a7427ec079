package io.vecflow.bench;

import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.sink.FlowSink;
import java.util.concurrent.atomic.LongAdder;

/**
 * A row sink that only counts rows and folds a few fields of each into a checksum (so the row fill cannot be
 * optimised away). Thread-safe, as {@link FlowSink} requires.
 */
public final class CountingFlowSink implements FlowSink {
    private final LongAdder rows = new LongAdder();
    private long checksum; // plain field: a checksum, not a counter (a volatile store would add a fence per row)

    @Override
    public void accept(FlowRow row) {
        rows.increment();
        checksum += row.bytes + row.srcPort + row.dstPort + row.protocol + row.sampleSequence;
    }

    @Override
    public void flush() {}

    @Override
    public long rowsWritten() {
        return rows.sum();
    }

    @Override
    public long rowsFailed() {
        return 0;
    }

    /** @return a value derived from every row accepted. */
    public long checksum() {
        return checksum;
    }

    @Override
    public String name() {
        return "counting";
    }

    @Override
    public void close() {}
}
