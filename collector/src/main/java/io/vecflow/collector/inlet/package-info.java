/**
 * The inlet: UDP receive ({@link io.vecflow.collector.inlet.UdpInlet}, socket drops), admission (allowlist and rate
 * per agent, {@link io.vecflow.collector.inlet.Admission}), the per-thread pipeline in front of the decoder
 * ({@link io.vecflow.collector.inlet.DatagramProcessor}), the spooler and its on-disk spool
 * ({@link io.vecflow.collector.inlet.Spooler}, {@link io.vecflow.collector.inlet.DatagramSpool}), and the producer of
 * the raw Kafka topic ({@link io.vecflow.collector.inlet.KafkaRawSink}).
 *
 * <p>May depend on {@code schema}, {@code sink}, {@code decode} and the sink implementations; not on {@code outlet}
 * or the root package.
 */
package io.vecflow.collector.inlet;
