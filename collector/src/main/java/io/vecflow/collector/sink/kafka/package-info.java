/**
 * The Kafka decoded-rows sink ({@link io.vecflow.collector.sink.kafka.KafkaDecodedSink}, protobuf rows by
 * {@link io.vecflow.collector.sink.kafka.FlowProtobuf}) and the topic set-up and raw-record headers shared with the
 * inlet's raw producer and the outlet ({@link io.vecflow.collector.sink.kafka.KafkaTopics}).
 *
 * <p>May depend on {@code schema} and {@code sink}.
 */
package io.vecflow.collector.sink.kafka;
