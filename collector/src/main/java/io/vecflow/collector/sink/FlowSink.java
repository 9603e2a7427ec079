package io.vecflow.collector.sink;

import io.vecflow.collector.schema.CounterRow;
import io.vecflow.collector.schema.FlowRow;

/** Where decoded flow rows go. Implementations are thread-safe: several inlet threads call {@link #accept}. */
public interface FlowSink extends AutoCloseable {
    /** Takes one row; the row object is reused by the caller after return. */
    void accept(FlowRow row);

    /**
     * Takes one interface counter sample (a counters sample with generic interface counters); the row is reused by
     * the caller after return. Default: ignored (sinks that store flows only).
     */
    default void acceptCounters(CounterRow row) {}

    /**
     * Takes one "vecflow LB counters" record ({@link CounterRow#lbCounters}, with the sample's time, agent and
     * source in the row); the row is reused after the call. The default ignores it.
     */
    default void acceptLbCounters(CounterRow row) {}

    /**
     * Called by the Kafka outlet when partitions (ingest streams) are assigned to it: the rows of these streams that
     * follow may repeat offsets this sink already took (a replay from the committed offsets after a rebalance), and
     * a sink that cannot ask its destination what it holds should skip offsets it already wrote. Default: nothing.
     *
     * @param streams the stream ids (Kafka partitions)
     */
    default void assigned(long[] streams) {}

    /**
     * Writes everything accepted so far to its destination and waits for it.
     *
     * @throws Exception if the destination failed (rows are counted as failed, not silently lost)
     */
    void flush() throws Exception;

    /** @return rows durably written. */
    long rowsWritten();

    /** @return rows that could not be written. */
    long rowsFailed();

    /** @return a short name for reports, e.g. {@code clickhouse}. */
    String name();

    @Override
    void close() throws Exception;
}
