package io.vecflow.collector.sink.kafka;

import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.sink.FlowSink;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The optional decoded Kafka topic (default {@value #DEFAULT_TOPIC}): one record per flow sample and per discard,
 * value = a protobuf {@code vecflow.flow.v1.FlowMessage} ({@code collector/src/main/proto/vecflow/flow/v1/flow.proto},
 * encoded by {@link FlowProtobuf}), key = the 16-byte agent address (IPv4 mapped; so one agent's records stay in one
 * partition, in order), record timestamp = receive time in ms, no headers. A derived stream: everything in it can be
 * rebuilt from the raw topic ({@code KafkaRawSink}). See docs/storage.md §2.
 *
 * <p>Producer: idempotent, acks=all, zstd, linger 20 ms, 256 KiB batches, 64 MiB buffer, {@code max.block.ms}
 * {@value #MAX_BLOCK_MS} ms — an inlet thread calling {@link #accept} waits at most that long when the producer's
 * buffer is full or metadata is missing, then the row is counted in {@link #rowsFailed()} and dropped. Any of these can
 * be overridden with the {@code producerOverrides} constructor. The topic is created at start when missing (retention
 * one day, {@code compression.type=producer}).
 *
 * <p>Allocation per row: the record value (a new array of the message's exact length, which the producer keeps until
 * the batch is sent) and the {@link ProducerRecord}, plus what kafka-clients allocates inside {@code send}. Encoding
 * itself reuses a per-thread {@link FlowProtobuf}; the key array is reused while an inlet thread sees the same agent.
 *
 * <p>Thread-safe: several inlet threads may call {@link #accept} at once.
 */
public final class KafkaDecodedSink implements FlowSink {
    /** Default topic name (versioned with the protobuf package: bump both on an incompatible schema change). */
    public static final String DEFAULT_TOPIC = "vecflow-flows-v1";
    /** Longest wait in {@link #accept} for buffer space or metadata (ms) before the row is counted as failed. */
    public static final int MAX_BLOCK_MS = 100;

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final KafkaConnection bootstrap;
    private final AtomicLong written = new AtomicLong(), failed = new AtomicLong();
    private volatile Exception lastError;
    private long failedReported; // guarded by this (flush)
    private final ThreadLocal<PerThread> perThread = ThreadLocal.withInitial(PerThread::new);
    private final Callback callback = (md, e) -> {
        if (e == null) {
            written.incrementAndGet();
        } else {
            lastError = e;
            failed.incrementAndGet();
        }
    };

    /** Per inlet thread: the encoder and the key of the last agent seen (never mutated once sent). */
    private static final class PerThread {
        final FlowProtobuf encoder = new FlowProtobuf();
        byte[] key = new byte[16];
    }

    /**
     * Creates the topic when missing and a producer with the settings above.
     *
     * @param bootstrap Kafka bootstrap servers, {@code host:port[,host:port]}
     * @param topic topic name, e.g. {@link #DEFAULT_TOPIC}
     * @param partitions partitions when the topic has to be created (at least 1)
     * @throws IllegalStateException if the broker cannot be reached, the topic cannot be created or its metadata does
     *     not arrive (the message names the topic and the bootstrap; after at most about 35 s)
     * @throws IllegalArgumentException if {@code partitions} is below 1
     */
    public KafkaDecodedSink(String bootstrap, String topic, int partitions) {
        this(bootstrap, topic, partitions, Map.of());
    }

    /**
     * As {@link #KafkaDecodedSink(String, String, int)}, with producer settings that replace the defaults (keys of
     * {@link ProducerConfig}, e.g. {@code compression.type=lz4}, {@code linger.ms}); the serializers cannot be
     * replaced.
     *
     * @param producerOverrides producer properties applied last
     * @throws IllegalStateException as the 3-argument constructor, or if the producer rejects the settings
     */
    public KafkaDecodedSink(String bootstrap, String topic, int partitions, Map<String, ?> producerOverrides) {
        this(KafkaConnection.plaintext(bootstrap), topic, partitions, producerOverrides);
    }

    /**
     * @param bootstrap the bootstrap servers and the client security settings ({@code kafka.security})
     * @param topic the decoded topic
     * @param partitions partitions when the topic has to be created
     * @param producerOverrides producer properties put last (tests)
     * @throws IllegalStateException as the 3-argument constructor (a refused login or an untrusted certificate
     *     included)
     */
    public KafkaDecodedSink(KafkaConnection bootstrap, String topic, int partitions,
            Map<String, ?> producerOverrides) {
        if (partitions < 1) {
            throw new IllegalArgumentException("Kafka topic " + topic + ": partitions must be at least 1, got "
                    + partitions);
        }
        this.topic = topic;
        this.bootstrap = bootstrap;
        KafkaTopics.create(bootstrap, topic, partitions);
        Properties p = new Properties();
        bootstrap.applyTo(p);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 64L * 1024 * 1024);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, MAX_BLOCK_MS);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "vecflow-decoded");
        p.putAll(producerOverrides);
        try {
            this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        } catch (RuntimeException e) {
            throw new IllegalStateException("Kafka producer for " + topic + " at " + bootstrap + ": "
                    + KafkaTopics.reason(e) + " (check kafka.security)", e);
        }
        KafkaTopics.awaitMetadata(producer, topic, bootstrap.toString());
    }

    /**
     * Encodes the row and hands it to the producer. Never throws: a row the producer refuses (buffer still full after
     * {@value #MAX_BLOCK_MS} ms, record too large, sink closed) is counted in {@link #rowsFailed()}, and the next
     * {@link #flush()} reports it.
     */
    @Override
    public void accept(FlowRow row) {
        PerThread t = perThread.get();
        byte[] value = t.encoder.encodeToArray(row);
        if (!Arrays.equals(t.key, row.agentAddress)) {
            t.key = row.agentAddress.clone(); // the previous key may still be referenced by queued records
        }
        try {
            producer.send(new ProducerRecord<>(topic, null, Math.floorDiv(row.timeReceivedNanos, 1_000_000L), t.key,
                    value), callback);
        } catch (RuntimeException e) {
            lastError = e;
            failed.incrementAndGet();
        }
    }

    /**
     * Waits until every row accepted so far is acknowledged or has failed.
     *
     * @throws IOException if rows failed since the previous flush (they are counted in {@link #rowsFailed()}); the
     *     message gives their number, the topic, the bootstrap and the last error
     */
    @Override
    public synchronized void flush() throws IOException {
        producer.flush();
        long f = failed.get();
        if (f > failedReported) {
            long n = f - failedReported;
            failedReported = f;
            Exception e = lastError;
            throw new IOException(n + " rows could not be written to Kafka topic " + topic + " at " + bootstrap + ": "
                    + (e == null ? "unknown error" : e.getMessage()), e);
        }
    }

    /** @return rows acknowledged by the broker (acks=all). */
    @Override
    public long rowsWritten() {
        return written.get();
    }

    /** @return rows refused by the producer or failed after retries. */
    @Override
    public long rowsFailed() {
        return failed.get();
    }

    /** @return {@code kafka:<topic>}, as {@code KafkaRawSink#name()} spells it. */
    @Override
    public String name() {
        return "kafka:" + topic;
    }

    /** @return the topic name. */
    public String topic() {
        return topic;
    }

    /** Sends what is queued (waiting at most 10 s) and closes the producer; later rows count as failed. */
    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
    }
}
