/**
 * vecflow's ClickHouse schema, defined once: tables, columns with logical types, views, rendered to DDL per server
 * version ({@link io.vecflow.collector.schema.FlowSchema}, {@code FlowSchema.ServerFeatures}), and the rows the
 * pipeline fills for them ({@link io.vecflow.collector.schema.FlowRow},
 * {@link io.vecflow.collector.schema.CounterRow}). Other modules (the lab) render their own tables with this API.
 *
 * <p>Depends on the codecs only ({@code sflow-v5}, {@code packet}, {@code common}); nothing else of the collector.
 */
package io.vecflow.collector.schema;
