package io.vecflow.collector;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outlet role: consumes the raw topic ({@link KafkaRawSink}'s records) in a consumer group, so several outlets
 * share its partitions, and runs every datagram through a {@link DatagramProcessor} into the row sinks.
 *
 * <p><b>Offsets are committed only after the rows are stored</b>: every {@code flushMs} or {@code batchRows}
 * records the outlet flushes every row sink, then commits. A crash (even SIGKILL) therefore replays from the last
 * commit instead of losing; the replayed rows that ClickHouse already holds are skipped by the sink's per-partition
 * watermarks, loaded when partitions are assigned ({@link ClickHouseSink#loadWatermarks}), so every datagram's rows
 * end up stored exactly once. A failed flush seeks back to the committed offsets and retries after a pause.
 * Single-threaded (a Kafka consumer is not thread-safe); run several outlets for more throughput.
 */
public final class KafkaOutlet implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KafkaOutlet.class);
    private static final byte[] ZERO16 = new byte[16];

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String topic;
    private final DatagramProcessor processor;
    private final List<FlowSink> sinks;
    private final ClickHouseSink clickhouse;
    private final LossRecorder loss;
    private final int batchRecords;
    private final long flushNanos;
    private final Thread thread;
    private final Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();
    private final byte[] peer16 = new byte[16];
    private volatile boolean running = true;
    private volatile long recordsConsumed, commits, flushFailures, badRecords;
    private volatile double lag;

    /**
     * Subscribes and starts the consuming thread.
     *
     * @param bootstrap Kafka bootstrap servers
     * @param topic the raw topic
     * @param group consumer group id (outlets with the same group share partitions)
     * @param processor the pipeline (its raw sinks are not used: build it with none)
     * @param sinks the row sinks the processor writes to (flushed before each commit)
     * @param clickhouse the ClickHouse sink among them, built with {@code autoFlush = false}, or null
     * @param loss the agents-table recorder, written after the sinks flush and before each commit (built without a
     *     timer), or null
     * @param batchRecords records between commits at most
     * @param flushMs longest time between commits, ms
     */
    public KafkaOutlet(String bootstrap, String topic, String group, DatagramProcessor processor,
            List<FlowSink> sinks, ClickHouseSink clickhouse, LossRecorder loss, int batchRecords, long flushMs) {
        this.loss = loss;
        this.topic = topic;
        this.processor = processor;
        this.sinks = List.copyOf(sinks);
        this.clickhouse = clickhouse;
        this.batchRecords = batchRecords;
        this.flushNanos = flushMs * 1_000_000L;
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "vecflow-outlet");
        // A crashed outlet's partitions move to the others after 10 s (the default 45 s stalls a restart as long).
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 3_000);
        this.consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.thread = new Thread(this::run, "kafka-outlet");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> parts) {
                    flushAndCommit();
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> parts) {
                    loadWatermarks();
                }
            });
            long lastFlush = System.nanoTime();
            int sinceFlush = 0;
            while (running) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    process(r);
                    pending.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                    sinceFlush++;
                }
                recordsConsumed += records.count();
                updateLag();
                if (sinceFlush > 0 && (sinceFlush >= batchRecords || System.nanoTime() - lastFlush >= flushNanos)) {
                    if (!flushAndCommit()) {
                        rewind();
                    }
                    sinceFlush = 0;
                    lastFlush = System.nanoTime();
                } else if (sinceFlush == 0) {
                    lastFlush = System.nanoTime();
                }
            }
            flushAndCommit();
        } catch (WakeupException e) {
            if (running) {
                log.error("Kafka outlet woken up unexpectedly", e);
            } else {
                flushAndCommit();
            }
        } catch (RuntimeException e) {
            log.error("Kafka outlet on {} stopped: {}", topic, e.toString(), e);
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void process(ConsumerRecord<byte[], byte[]> r) {
        long receivedNanos = r.timestamp() * 1_000_000L;
        int port = 0;
        System.arraycopy(ZERO16, 0, peer16, 0, 16);
        for (Header h : r.headers()) {
            byte[] v = h.value();
            if (KafkaRawSink.HEADER_RECEIVED_NS.equals(h.key()) && v != null && v.length == 8) {
                receivedNanos = ByteBuffer.wrap(v).getLong();
            } else if (KafkaRawSink.HEADER_SOURCE.equals(h.key()) && v != null && v.length == 18) {
                System.arraycopy(v, 0, peer16, 0, 16);
                port = (v[16] & 0xFF) << 8 | (v[17] & 0xFF);
            }
        }
        byte[] value = r.value();
        if (value == null) {
            badRecords++;
            return;
        }
        processor.process(value, 0, value.length, receivedNanos, peer16, port, r.partition(), r.offset());
    }

    /** Flushes every sink, then commits; false (nothing committed) if a sink failed. */
    private boolean flushAndCommit() {
        try {
            for (FlowSink s : sinks) {
                s.flush();
            }
            if (loss != null) {
                loss.record();
            }
        } catch (Exception e) {
            flushFailures++;
            log.warn("outlet flush failed, will replay from the last commit: {}", e.getMessage());
            return false;
        }
        if (!pending.isEmpty()) {
            consumer.commitSync(pending);
            pending.clear();
            commits++;
        }
        return true;
    }

    /** After a failed flush: back to the committed offsets (the sinks skip what was stored meanwhile). */
    private void rewind() {
        pending.clear();
        Set<TopicPartition> assigned = consumer.assignment();
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(assigned);
        List<TopicPartition> none = new ArrayList<>();
        for (TopicPartition tp : assigned) {
            OffsetAndMetadata o = committed.get(tp);
            if (o == null) {
                none.add(tp);
            } else {
                consumer.seek(tp, o.offset());
            }
        }
        consumer.seekToBeginning(none);
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        loadWatermarks();
    }

    private void loadWatermarks() {
        if (clickhouse == null) {
            return;
        }
        long[] parts = consumer.assignment().stream().mapToLong(TopicPartition::partition).toArray();
        for (int attempt = 0; ; attempt++) {
            try {
                clickhouse.loadWatermarks(parts);
                return;
            } catch (Exception e) {
                if (attempt >= 30 || !running) {
                    throw new IllegalStateException("cannot read ClickHouse watermarks: " + e.getMessage(), e);
                }
                log.warn("reading ClickHouse watermarks failed (retrying in 1 s): {}", e.getMessage());
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** The largest current lag over the assigned partitions (consumer position to log end, records). */
    private void updateLag() {
        long max = 0;
        for (TopicPartition tp : consumer.assignment()) {
            java.util.OptionalLong l = consumer.currentLag(tp);
            if (l.isPresent()) {
                max = Math.max(max, l.getAsLong());
            }
        }
        lag = max;
    }

    /** @return raw records consumed. */
    public long recordsConsumed() {
        return recordsConsumed;
    }

    /** @return offset commits (each after a successful flush of every sink). */
    public long commits() {
        return commits;
    }

    /** @return flushes that failed (followed by a replay from the last commit). */
    public long flushFailures() {
        return flushFailures;
    }

    /** @return records without a value (skipped). */
    public long badRecords() {
        return badRecords;
    }

    /** @return the largest lag over the assigned partitions after the last poll, records (0 before the first). */
    public double lag() {
        return lag;
    }

    /** @return whether the consuming thread runs. */
    public boolean isAlive() {
        return thread.isAlive();
    }

    /** Stops consuming, flushes every sink and commits, then closes the consumer (waits up to 30 s). */
    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        thread.join(30_000);
    }
}
