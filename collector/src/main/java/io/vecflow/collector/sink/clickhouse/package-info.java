/**
 * The ClickHouse sink: batched RowBinary inserts with retry and exactly-once by ingest offsets
 * ({@link io.vecflow.collector.sink.clickhouse.ClickHouseSink}), the row encoding
 * ({@link io.vecflow.collector.sink.clickhouse.RowBinaryWriter}), schema creation and migration on the server
 * ({@link io.vecflow.collector.sink.clickhouse.SchemaMigrator}), partition retention for servers without TTL, and the
 * {@code agents} loss rows ({@link io.vecflow.collector.sink.clickhouse.LossRecorder}).
 *
 * <p>May depend on {@code schema}, {@code sink} and {@code decode}.
 */
package io.vecflow.collector.sink.clickhouse;
