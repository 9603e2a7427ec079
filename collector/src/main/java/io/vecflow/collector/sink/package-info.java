/**
 * The sink contracts: {@link io.vecflow.collector.sink.FlowSink} (decoded rows) and
 * {@link io.vecflow.collector.sink.RawSink} (datagrams unchanged), the per-stream ingest offsets sinks and the
 * decoder keep ({@link io.vecflow.collector.sink.StreamOffsets}), and the rate-limited log every stage uses.
 * The sinks themselves are in the sub-packages.
 *
 * <p>May depend on {@code schema} only.
 */
package io.vecflow.collector.sink;
