/**
 * The outlet: the raw Kafka topic consumed in a consumer group, decoded into the row sinks, committed after them
 * ({@link io.vecflow.collector.outlet.KafkaOutlet}).
 *
 * <p>May depend on {@code schema}, {@code sink}, {@code decode} and the sink implementations; not on {@code inlet}
 * or the root package.
 */
package io.vecflow.collector.outlet;
