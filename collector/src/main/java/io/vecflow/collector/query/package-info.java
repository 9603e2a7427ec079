/**
 * The console's query layer (docs/console-api.md, docs/console-filter.md): the sources, their dimensions and metrics
 * as the schema defines them ({@link io.vecflow.collector.query.Source}), the filter language
 * ({@link io.vecflow.collector.query.FilterParser}), the query model and its validation
 * ({@link io.vecflow.collector.query.QueryModel}), SQL rendering for DuckDB and ClickHouse 18.16 / current
 * ({@link io.vecflow.collector.query.SqlDialect}, {@link io.vecflow.collector.query.SqlBuilder}), the choice of raw
 * table or rollup ({@link io.vecflow.collector.query.TableChooser}), the stores' query runners
 * ({@link io.vecflow.collector.query.QueryRunner}) and the JSON API over all of it
 * ({@link io.vecflow.collector.query.ConsoleApi}, the {@code console} server's handler). No HTTP server here: the
 * {@code console} package serves and hands requests to {@code ConsoleApi.handle}.
 *
 * <p>May depend on {@code schema} and {@code console} only (plus the JDK, Jackson and {@code common}); the sinks,
 * decoding and the roles are strangers to it.
 */
package io.vecflow.collector.query;
