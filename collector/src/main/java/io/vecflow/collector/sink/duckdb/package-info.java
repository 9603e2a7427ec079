/**
 * The embedded store: {@link io.vecflow.collector.sink.duckdb.DuckDbStore}, a DuckDB file with the schema's tables
 * (rendered by {@code schema.DuckDbSchema}), written one transaction per batch with the batch's feeds, and read by
 * the console through further connections of the same process.
 *
 * <p>May depend on {@code schema} and {@code sink} (stream offsets) only; the batching sink of {@code sink.clickhouse}
 * writes through it.
 */
package io.vecflow.collector.sink.duckdb;
