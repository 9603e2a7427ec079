package io.vecflow.collector.outlet;

import io.vecflow.collector.decode.DatagramDecoder;
import io.vecflow.collector.decode.LossTracker;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.collector.sink.RateLimitedLog;
import io.vecflow.collector.sink.StreamOffsets;
import io.vecflow.collector.sink.clickhouse.ClickHouseSink;
import io.vecflow.collector.sink.clickhouse.LossRecorder;
import io.vecflow.collector.sink.kafka.KafkaConnection;
import io.vecflow.collector.sink.kafka.KafkaTopics;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
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
 * The outlet role: consumes the raw topic (the inlet's {@code KafkaRawSink} records) in a consumer group, so several
 * outlets share its partitions, and runs every datagram through a {@link DatagramDecoder} into the row sinks.
 *
 * <p><b>Offsets are committed only after the rows are stored</b>: when the ClickHouse sink {@linkplain
 * ClickHouseSink#wantsFlush() wants a flush} (a table holds batch-rows rows or half its max-pending-bytes — rows, not
 * records, so a backlog of large datagrams cannot overrun the cap), or every {@code flushMs}, the outlet flushes every
 * row sink, writes the {@code agents} rows, then commits. A crash (even SIGKILL) therefore replays from the last
 * commit instead of losing; the replayed rows that ClickHouse already holds are skipped by the sink's per-partition
 * watermarks, and the datagrams the {@code agents} table already counted are not counted again, both loaded when
 * partitions are assigned — so every datagram's rows end up stored exactly once and counted once.
 *
 * <p><b>Back-pressure, never loss</b>: when a flush fails (ClickHouse away, a table refusing inserts) the outlet
 * pauses its partitions, keeps what it holds, and retries with capped backoff (0.5 s doubling to 30 s) for as long
 * as it takes, polling meanwhile so that it stays in the group; records fetched but not processed are sought back.
 * It does not exit: a restart would lose nothing either, but would cost a rebalance and a replay, while retrying in
 * place keeps the batch and keeps the lag and readiness metrics true ({@link #lag()}, {@link #state()}). While
 * partitions wait for their watermarks (ClickHouse away at assignment) they stay paused the same way. Single-threaded
 * (a Kafka consumer is not thread-safe); run several outlets for more throughput.
 */
public final class KafkaOutlet implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KafkaOutlet.class);
    private static final byte[] ZERO16 = new byte[16];

    /** What the outlet is doing. */
    public enum State {
        /** Consuming and storing. */
        CONSUMING,
        /** A flush failed: partitions paused, the held rows retried with backoff. */
        RETRYING,
        /** Partitions assigned, waiting to read what ClickHouse holds before consuming them. */
        LOADING_WATERMARKS,
        /**
         * The broker has not answered for {@value #BROKER_GRACE_S} s (no lag reading, no metadata): nothing can be
         * consumed; the lag metric keeps its last reading, whose age {@link #lagAgeSeconds()} tells.
         */
        BROKER_UNREACHABLE
    }

    /** Seconds without an answer from the broker before the outlet says {@link State#BROKER_UNREACHABLE}. */
    public static final int BROKER_GRACE_S = 5;

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String topic;
    private final DatagramDecoder decoder;
    private final List<FlowSink> sinks;
    private final ClickHouseSink clickhouse;
    private final LossRecorder loss;
    private final LossTracker tracker;
    private final long flushNanos;
    private final Thread thread;
    private final Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();
    private final Map<TopicPartition, Long> committed = new HashMap<>(); // next offset after what is stored
    private final Map<TopicPartition, Long> processedNext = new HashMap<>();
    private final Set<TopicPartition> needWatermarks = new HashSet<>();
    private final byte[] peer16 = new byte[16];
    private final RateLimitedLog warn = new RateLimitedLog(log, 60_000);
    private volatile boolean running = true;
    private volatile long recordsConsumed, commits, flushFailures, badRecords;
    private volatile double lag, maxLag;
    private volatile Map<Integer, Long> partitionLag = Map.of();
    private volatile boolean lagKnown;
    private volatile long lagReadNanos = System.nanoTime(); // the grace period runs from the start
    private final KafkaConnection bootstrap;
    private volatile boolean consumerAssignmentEmpty = true;
    private volatile State state = State.CONSUMING;
    private volatile long lastCommitNanos = System.nanoTime(), stateSinceNanos = System.nanoTime();
    private boolean retrying;
    private long backoffNanos, nextRetryNanos, nextWatermarkNanos, watermarkBackoffNanos, nextLagNanos;
    private int sinceFlush;
    private long lastFlush = System.nanoTime();

    /**
     * Subscribes and starts the consuming thread.
     *
     * @param bootstrap Kafka bootstrap servers and client security settings
     * @param topic the raw topic
     * @param group consumer group id (outlets with the same group share partitions)
     * @param decoder the decoder into the row sinks
     * @param sinks the row sinks the decoder writes to (flushed before each commit)
     * @param clickhouse the ClickHouse sink among them, built with {@code autoFlush = false}, or null
     * @param loss the agents-table recorder, written after the sinks flush and before each commit (built without a
     *     timer), or null
     * @param tracker the loss accounting the decoder feeds (re-baselined for partitions that move here), or null
     * @param flushMs longest time between commits, ms
     * @param offsetReset where a group without committed offsets starts: {@code earliest} or {@code latest}
     */
    public KafkaOutlet(KafkaConnection bootstrap, String topic, String group, DatagramDecoder decoder,
            List<FlowSink> sinks, ClickHouseSink clickhouse, LossRecorder loss, LossTracker tracker, long flushMs,
            String offsetReset) {
        this.loss = loss;
        this.tracker = tracker;
        this.topic = topic;
        this.bootstrap = bootstrap;
        this.decoder = decoder;
        this.sinks = List.copyOf(sinks);
        this.clickhouse = clickhouse;
        this.flushNanos = flushMs * 1_000_000L;
        Properties p = new Properties();
        bootstrap.applyTo(p);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, offsetReset);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "vecflow-outlet");
        // A crashed outlet's partitions move to the others after 10 s (the default 45 s stalls a restart as long).
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 3_000);
        try {
            this.consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        } catch (org.apache.kafka.common.KafkaException e) {
            throw new IllegalStateException("Kafka consumer for " + topic + " at " + bootstrap + ": "
                    + KafkaTopics.reason(e) + " (check kafka.security)", e);
        }
        this.thread = new Thread(this::run, "kafka-outlet");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> parts) {
                    revoked(parts);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> parts) {
                    assigned(parts);
                }
            });
            while (running) {
                try {
                    step();
                } catch (WakeupException e) {
                    throw e;
                } catch (RuntimeException e) {
                    // Anything unexpected (a broker error in commit or lag, a bug): logged, retried, never fatal.
                    warn.warn("step", "Kafka outlet on {}: {} (retrying)", topic, e.toString());
                    sleep(500);
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

    private void step() {
        long now = System.nanoTime();
        if (!needWatermarks.isEmpty() && now - nextWatermarkNanos >= 0) {
            loadWatermarks();
        }
        if (retrying && now - nextRetryNanos >= 0) {
            if (flushAndCommit()) {
                log.info("outlet on {}: stored and committed again after {} s; consuming", topic,
                        (now - stateSinceNanos) / 1_000_000_000L);
                retrying = false;
                backoffNanos = 0;
                resumeWhatCan();
            } else {
                backoff();
            }
        }
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(retrying ? 100 : 200));
        for (ConsumerRecord<byte[], byte[]> r : records) {
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            process(r);
            processedNext.put(tp, r.offset() + 1);
            pending.put(tp, new OffsetAndMetadata(r.offset() + 1));
            recordsConsumed++;
            sinceFlush++;
            if (clickhouse != null && clickhouse.wantsFlush() && !flushAndCommit()) {
                // The rest of this batch was fetched but not processed: fetch it again after the retry.
                for (TopicPartition t : records.partitions()) {
                    long first = records.records(t).getFirst().offset();
                    consumer.seek(t, Math.max(first, processedNext.getOrDefault(t, -1L)));
                }
                enterRetry();
                break;
            }
        }
        if (!retrying && sinceFlush > 0 && System.nanoTime() - lastFlush >= flushNanos && !flushAndCommit()) {
            enterRetry();
        }
        if (sinceFlush == 0 && !retrying) {
            lastFlush = System.nanoTime();
        }
        if (System.nanoTime() - nextLagNanos >= 0) {
            updateLag();
            nextLagNanos = System.nanoTime() + 500_000_000L;
        }
        updateState();
    }

    private void enterRetry() {
        retrying = true;
        consumer.pause(consumer.assignment());
        backoff();
        updateState();
    }

    private void backoff() {
        backoffNanos = backoffNanos == 0 ? 500_000_000L : Math.min(backoffNanos * 2, 30_000_000_000L);
        nextRetryNanos = System.nanoTime() + backoffNanos;
    }

    private void resumeWhatCan() {
        Set<TopicPartition> go = new HashSet<>(consumer.assignment());
        go.removeAll(needWatermarks);
        consumer.resume(go);
    }

    private void updateState() {
        boolean noBroker = !lagKnown && System.nanoTime() - lagReadNanos > BROKER_GRACE_S * 1_000_000_000L;
        State s = retrying ? State.RETRYING : noBroker ? State.BROKER_UNREACHABLE
                : !needWatermarks.isEmpty() ? State.LOADING_WATERMARKS : State.CONSUMING;
        if (s != state) {
            if (s == State.BROKER_UNREACHABLE) {
                log.warn("outlet on {}: the Kafka broker at {} has not answered for {} s: nothing is consumed until "
                        + "it does; the lag metric holds its last reading ({} records)", topic, bootstrap,
                        lagAgeSeconds() >= 1 ? (long) lagAgeSeconds() : BROKER_GRACE_S, (long) lag);
            } else if (state == State.BROKER_UNREACHABLE) {
                log.info("outlet on {}: the Kafka broker at {} answers again after {} s", topic, bootstrap,
                        (System.nanoTime() - stateSinceNanos) / 1_000_000_000L);
            }
            state = s;
            stateSinceNanos = System.nanoTime();
        }
    }

    private void revoked(Collection<TopicPartition> parts) {
        if (parts.isEmpty()) {
            return;
        }
        if (!flushAndCommit()) {
            // What we hold cannot be stored now, and the partitions go elsewhere: their new owner replays it from
            // the committed offsets (and counts it). Keeping it would store and count it twice.
            if (clickhouse != null) {
                clickhouse.release();
            }
            for (TopicPartition tp : parts) {
                decoder.forgetCounted(tp.partition());
            }
            long[] streams = parts.stream().mapToLong(TopicPartition::partition).toArray();
            if (loss != null) {
                loss.discardUnrecorded(streams);
            }
            if (tracker != null) {
                tracker.rebaseline(streams);
            }
            log.warn("outlet on {}: partitions {} revoked while a flush fails: the rows held are left to their next "
                    + "owner, which replays them from the committed offsets", topic, parts);
            retrying = false;
            backoffNanos = 0;
        }
        pending.clear();
        sinceFlush = 0;
        for (TopicPartition tp : parts) {
            needWatermarks.remove(tp);
            processedNext.remove(tp);
            committed.remove(tp);
        }
        updateState();
    }

    private void assigned(Collection<TopicPartition> parts) {
        if (parts.isEmpty()) {
            return;
        }
        needWatermarks.addAll(parts);
        consumer.pause(parts);
        nextWatermarkNanos = System.nanoTime();
        watermarkBackoffNanos = 0;
        updateState();
    }

    /** Reads what ClickHouse holds for the partitions waiting; resumes them, or backs off if it is away. */
    private void loadWatermarks() {
        long[] streams = needWatermarks.stream().mapToLong(TopicPartition::partition).toArray();
        try {
            java.util.List<Long> moved = new java.util.ArrayList<>();
            if (clickhouse != null) {
                clickhouse.loadWatermarks(streams);
                if (loss != null) {
                    StreamOffsets counted = clickhouse.storedOffsets("agents", streams);
                    for (long s : streams) {
                        long o = counted.get(s);
                        if (o > decoder.countedOffset(s)) {
                            moved.add(s); // another outlet counted this partition after us: no continuity
                            decoder.countedThrough(s, o);
                        }
                    }
                }
            }
            if (tracker != null && !moved.isEmpty()) {
                tracker.rebaseline(moved.stream().mapToLong(Long::longValue).toArray());
            }
            for (FlowSink s : sinks) {
                s.assigned(streams);
            }
            for (TopicPartition tp : needWatermarks) {
                OffsetAndMetadata o = consumer.committed(Set.of(tp)).get(tp);
                if (o != null) {
                    committed.put(tp, o.offset());
                }
            }
            Set<TopicPartition> done = new HashSet<>(needWatermarks);
            needWatermarks.clear();
            if (!retrying) {
                consumer.resume(done);
            }
            warn.reset("watermarks");
        } catch (Exception e) {
            watermarkBackoffNanos = watermarkBackoffNanos == 0 ? 1_000_000_000L
                    : Math.min(watermarkBackoffNanos * 2, 30_000_000_000L);
            nextWatermarkNanos = System.nanoTime() + watermarkBackoffNanos;
            warn.warn("watermarks", "outlet on {}: cannot read what ClickHouse holds for partitions {} yet; they stay "
                    + "paused (retrying, at most every 30 s): {}", topic, needWatermarks, e.getMessage());
        }
        updateState();
    }

    private void process(ConsumerRecord<byte[], byte[]> r) {
        long receivedNanos = r.timestamp() * 1_000_000L;
        int port = 0;
        System.arraycopy(ZERO16, 0, peer16, 0, 16);
        for (Header h : r.headers()) {
            byte[] v = h.value();
            if (KafkaTopics.HEADER_RECEIVED_NS.equals(h.key()) && v != null && v.length == 8) {
                receivedNanos = ByteBuffer.wrap(v).getLong();
            } else if (KafkaTopics.HEADER_SOURCE.equals(h.key()) && v != null && v.length == 18) {
                System.arraycopy(v, 0, peer16, 0, 16);
                port = (v[16] & 0xFF) << 8 | (v[17] & 0xFF);
            }
        }
        byte[] value = r.value();
        if (value == null) {
            badRecords++;
            return;
        }
        decoder.process(value, 0, value.length, receivedNanos, peer16, port, r.partition(), r.offset());
    }

    /** Flushes every sink and the agents rows, then commits; false (nothing committed, nothing lost) on failure. */
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
            warn.warn("flush", "outlet on {}: storing failed; consumption paused, the rows held are retried (at most "
                    + "every 30 s; nothing is dropped): {}", topic, e.getMessage());
            return false;
        }
        if (!pending.isEmpty()) {
            try {
                consumer.commitSync(pending, Duration.ofSeconds(10));
            } catch (RuntimeException e) {
                if (e instanceof WakeupException) {
                    throw e;
                }
                flushFailures++;
                // The rows are stored; a replay of them after a restart is skipped by the watermarks.
                warn.warn("commit", "outlet on {}: offset commit failed (retrying): {}", topic, e.toString());
                return false;
            }
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : pending.entrySet()) {
                committed.put(e.getKey(), e.getValue().offset());
            }
            pending.clear();
            commits++;
            lastCommitNanos = System.nanoTime();
        }
        sinceFlush = 0;
        lastFlush = System.nanoTime();
        warn.reset("flush");
        return true;
    }

    /**
     * The lag over the assigned partitions: per partition, log end offset minus the next offset after what is stored
     * and committed — the records not yet in ClickHouse, true also while consumption is paused; their sum and the
     * largest.
     */
    private void updateLag() {
        Set<TopicPartition> parts = consumer.assignment();
        consumerAssignmentEmpty = parts.isEmpty() || !needWatermarks.isEmpty();
        if (parts.isEmpty()) {
            // No partitions (joining the group, more outlets than partitions, or no broker): lag 0 is true only if
            // the broker answers, so ask it for the topic's metadata.
            try {
                consumer.partitionsFor(topic, Duration.ofSeconds(2));
                lag = 0;
                maxLag = 0;
                partitionLag = Map.of();
                lagKnown = true;
                lagReadNanos = System.nanoTime();
            } catch (RuntimeException e) {
                lagKnown = false;
            }
            return;
        }
        try {
            Map<TopicPartition, Long> end = consumer.endOffsets(parts, Duration.ofSeconds(2));
            long sum = 0, max = 0;
            Map<Integer, Long> per = new java.util.TreeMap<>();
            for (TopicPartition tp : parts) {
                Long e = end.get(tp);
                if (e == null) {
                    continue;
                }
                Long c = committed.get(tp);
                if (c == null) {
                    c = consumer.committed(Set.of(tp), Duration.ofSeconds(2)).get(tp) instanceof OffsetAndMetadata o
                            ? o.offset() : beginning(tp);
                    committed.put(tp, c);
                }
                long l = Math.max(0, e - c);
                per.put(tp.partition(), l);
                sum += l;
                max = Math.max(max, l);
            }
            lag = sum;
            maxLag = max;
            partitionLag = per;
            lagKnown = true;
            lagReadNanos = System.nanoTime();
        } catch (RuntimeException e) {
            lagKnown = false; // the broker is away: the last value stays, marked unknown
        }
    }

    private long beginning(TopicPartition tp) {
        Long b = consumer.beginningOffsets(Set.of(tp), Duration.ofSeconds(2)).get(tp);
        return b == null ? 0 : b;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return raw records consumed. */
    public long recordsConsumed() {
        return recordsConsumed;
    }

    /** @return offset commits (each after a successful flush of every sink). */
    public long commits() {
        return commits;
    }

    /** @return flushes or commits that failed (the rows held are retried). */
    public long flushFailures() {
        return flushFailures;
    }

    /** @return records without a value (skipped). */
    public long badRecords() {
        return badRecords;
    }

    /**
     * @return the lag summed over the assigned partitions: records in the topic not yet stored and committed (log
     *     end offset minus committed offset), refreshed every 0.5 s, also while paused
     */
    public double lag() {
        return lag;
    }

    /** @return the largest lag of one assigned partition, records. */
    public double maxPartitionLag() {
        return maxLag;
    }

    /** @return the lag per assigned partition (partition → records), as of the last reading. */
    public Map<Integer, Long> partitionLag() {
        return partitionLag;
    }

    /**
     * Waits until every record written to the topic before the call is stored and committed: a lag reading taken
     * after the call shows 0 for the partitions this outlet owns (those another outlet of the group owns are its own).
     *
     * @return true if caught up within {@code timeoutMs}
     */
    public boolean awaitCaughtUp(long timeoutMs) throws InterruptedException {
        long t0 = System.nanoTime(), deadline = t0 + timeoutMs * 1_000_000L;
        while (System.nanoTime() < deadline) {
            if (lagReadNanos - t0 > 0 && lagKnown && lag == 0 && state == State.CONSUMING
                    && !consumerAssignmentEmpty) {
                return true;
            }
            Thread.sleep(10);
        }
        return false;
    }

    /** @return whether partitions are assigned to this outlet (it joined its group). */
    public boolean hasPartitions() {
        return !consumerAssignmentEmpty;
    }

    /**
     * @return seconds since the broker last answered a lag reading (or, with no partitions, a metadata request); it
     *     grows while the broker is away, so a frozen {@link #lag()} shows as stale
     */
    public double lagAgeSeconds() {
        return (System.nanoTime() - lagReadNanos) / 1e9;
    }

    /** @return whether the last lag reading reached the broker. */
    public boolean lagKnown() {
        return lagKnown;
    }

    /** @return what the outlet is doing. */
    public State state() {
        return state;
    }

    /** @return seconds in the current state. */
    public double stateSeconds() {
        return (System.nanoTime() - stateSinceNanos) / 1e9;
    }

    /** @return seconds since the last offset commit (or since start). */
    public double secondsSinceCommit() {
        return (System.nanoTime() - lastCommitNanos) / 1e9;
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
