package io.vecflow.collector.inlet;

import io.vecflow.collector.sink.RateLimitedLog;
import io.vecflow.collector.sink.RawSink;
import io.vecflow.collector.sink.kafka.KafkaConnection;
import io.vecflow.collector.sink.kafka.KafkaTopics;
import io.vecflow.common.IpAddresses;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes every raw datagram to a Kafka topic (default {@code vecflow-raw-v1}), one record per UDP datagram:
 * the record value is the UDP payload unchanged (replayable, re-exportable byte for byte); headers
 * {@value KafkaTopics#HEADER_RECEIVED_NS} (receive time, ns since the epoch, 8 bytes big-endian) and
 * {@value KafkaTopics#HEADER_SOURCE} (UDP source, 16-byte IPv4-mapped address then 2-byte big-endian port); record
 * timestamp = receive time in ms; key = the sFlow agent address ({@link #agentKey}).
 *
 * <p><b>Never blocks the receive path.</b> Producer settings follow docs/storage.md §2 (idempotent,
 * acks=all, lz4, linger 20 ms, 256 KiB batches, 64 MiB buffer) with {@code max.block.ms=0} and an unbounded
 * {@code delivery.timeout.ms}: a record the producer took is retried until the broker takes it, and {@link #send}
 * never waits. {@link #ready()} says whether a send now would be taken: false until the topic exists and its
 * metadata is known (set up in the background, retried with capped backoff, when the collector starts while the
 * broker is away), while more than {@value #MAX_IN_FLIGHT_BYTES} bytes wait for acknowledgement, and while the
 * producer is stalled (records wait and none was acknowledged for {@value #STALL_MS} ms: the broker is unreachable).
 * The inlet's {@link Spooler} spools datagrams to disk meanwhile, and also those the producer refuses at once
 * ({@link #send} returns false). Records still unacknowledged when the sink closes go, in their order, to the
 * {@linkplain #onUndelivered undelivered target} (the spool's first queue); only records the broker refuses for good
 * (e.g. not authorised) are counted as {@link #failed()}.
 */
public final class KafkaRawSink implements RawSink, Spooler.Downstream {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(KafkaRawSink.class);
    /** Default topic name (versioned: bump on an incompatible envelope change). */
    public static final String DEFAULT_TOPIC = "vecflow-raw-v1";
    /** Most bytes of datagrams handed to the producer and not yet acknowledged before {@link #ready()} says no. */
    public static final long MAX_IN_FLIGHT_BYTES = 32L << 20;
    /** No acknowledgement for this long while records wait: the producer is stalled (broker away), ms. */
    public static final long STALL_MS = 2000;

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final KafkaConnection bootstrap;
    private final int partitions;
    private final AtomicLong written = new AtomicLong(), failed = new AtomicLong(), undelivered = new AtomicLong(),
            refusedAtOnce = new AtomicLong();
    private final AtomicLong inFlightBytes = new AtomicLong(), inFlightRecords = new AtomicLong();
    private volatile long lastProgressNanos = System.nanoTime();
    /** When the producer began refusing sends at once with no acknowledgement since (System.nanoTime()), 0 = not. */
    private volatile long refusingSinceNanos;
    private volatile boolean topicReady, closing;
    private volatile Exception lastError;
    private volatile Spooler.Target undeliveredTarget;
    private long failedReported; // guarded by this (flush)
    private final Thread setup;
    private final RateLimitedLog warn = new RateLimitedLog(log, 60_000);

    /**
     * Creates the topic if missing and waits for its metadata (the broker must be up).
     *
     * @param bootstrap Kafka bootstrap servers, {@code host:port[,host:port]}
     * @param topic topic name
     * @param partitions partitions when the topic has to be created
     * @throws IllegalStateException if the broker cannot be reached or the topic cannot be created, naming the
     *     topic and the bootstrap, after at most about 35 s
     */
    public KafkaRawSink(String bootstrap, String topic, int partitions) {
        this(bootstrap, topic, partitions, true);
    }

    /**
     * @param waitForBroker true: set up the topic now and throw if the broker is away; false: set it up in the
     *     background, retrying with capped backoff (1 s .. 30 s) until it works, {@link #ready()} false meanwhile
     * @throws IllegalStateException with {@code waitForBroker}, as the 3-argument constructor
     */
    public KafkaRawSink(String bootstrap, String topic, int partitions, boolean waitForBroker) {
        this(KafkaConnection.plaintext(bootstrap), topic, partitions, waitForBroker);
    }

    /**
     * @param connection the bootstrap servers and the client security settings ({@code kafka.security})
     * @param topic topic name
     * @param partitions partitions when the topic has to be created
     * @param waitForBroker as the 4-argument constructor with a bootstrap string
     * @throws IllegalStateException with {@code waitForBroker}, as the 3-argument constructor (a refused login or
     *     an untrusted certificate included, with the broker's or the TLS layer's reason)
     */
    public KafkaRawSink(KafkaConnection connection, String topic, int partitions, boolean waitForBroker) {
        KafkaConnection bootstrap = connection;
        this.topic = topic;
        this.bootstrap = bootstrap;
        this.partitions = partitions;
        Properties p = new Properties();
        bootstrap.applyTo(p);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 64L * 1024 * 1024);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 0);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.MAX_VALUE);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "vecflow-inlet");
        try {
            this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        } catch (org.apache.kafka.common.KafkaException e) {
            throw new IllegalStateException("Kafka producer for " + topic + " at " + bootstrap + ": "
                    + KafkaTopics.reason(e) + " (check kafka.security)", e);
        }
        if (waitForBroker) {
            try {
                KafkaTopics.create(bootstrap, topic, partitions);
                awaitMetadata(TimeUnit.SECONDS.toNanos(15));
            } catch (RuntimeException e) {
                producer.close(java.time.Duration.ZERO);
                throw e;
            }
            topicReady = true;
            setup = null;
        } else {
            setup = new Thread(this::setUp, "kafka-raw-setup");
            setup.setDaemon(true);
            setup.start();
        }
    }

    private void awaitMetadata(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            try {
                if (!producer.partitionsFor(topic).isEmpty()) {
                    return;
                }
            } catch (org.apache.kafka.common.errors.TimeoutException e) {
                // max.block.ms is 0: the metadata request is on its way
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no metadata for Kafka topic " + topic + " from " + bootstrap
                        + " in " + timeoutNanos / 1_000_000_000L + " s");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L);
        }
    }

    private void setUp() {
        long backoffMs = 1000;
        while (!closing) {
            try {
                KafkaTopics.create(bootstrap, topic, partitions);
                awaitMetadata(TimeUnit.SECONDS.toNanos(15));
                topicReady = true;
                log.info("Kafka topic {} at {} ready", topic, bootstrap);
                return;
            } catch (RuntimeException e) {
                lastError = e;
                warn.warn("setup", "Kafka topic {} at {} not ready (retrying every {} s at most): {}", topic,
                        bootstrap, 30, e.getMessage());
            }
            try {
                Thread.sleep(backoffMs);
            } catch (InterruptedException e) {
                return;
            }
            backoffMs = Math.min(backoffMs * 2, 30_000);
        }
    }

    /** One record in the producer: acknowledgement accounting, and its bytes for the spool if it is not delivered. */
    private final class Pending implements Callback {
        final byte[] value;
        final long receivedNanos;
        final byte[] src;
        /** The thread inside {@code producer.send} for this record, null once it returned. */
        volatile Thread sending;
        /** Set when the producer failed the record with a retriable error before {@code send} returned. */
        volatile boolean refusedInSend;

        Pending(byte[] value, long receivedNanos, byte[] src) {
            this.value = value;
            this.receivedNanos = receivedNanos;
            this.src = src;
            this.sending = Thread.currentThread();
        }

        @Override
        public void onCompletion(org.apache.kafka.clients.producer.RecordMetadata md, Exception e) {
            inFlightBytes.addAndGet(-value.length);
            inFlightRecords.decrementAndGet();
            if (e == null) {
                written.incrementAndGet();
                lastProgressNanos = System.nanoTime();
                refusingSinceNanos = 0;
                return;
            }
            boolean permanent = e instanceof org.apache.kafka.common.errors.ApiException
                    && !(e instanceof org.apache.kafka.common.errors.RetriableException);
            if (!permanent && sending == Thread.currentThread()) {
                // Failed inside producer.send (KafkaProducer reports e.g. "not present in metadata after 0 ms" to
                // the callback instead of throwing): send() refuses it, the caller keeps the datagram.
                lastError = e;
                refusedInSend = true;
                return;
            }
            if (!permanent && handOn(this)) {
                return;
            }
            lastError = e;
            failed.incrementAndGet();
            warn.warn("send", "Kafka topic {} at {} refused a datagram: {}", topic, bootstrap, e.toString());
        }
    }

    /** Gives an undelivered record to the undelivered target (the spool); false if there is none. */
    private boolean handOn(Pending r) {
        Spooler.Target t = undeliveredTarget;
        if (t == null) {
            return false;
        }
        undelivered.incrementAndGet();
        byte[] peer = java.util.Arrays.copyOf(r.src, 16);
        return t.deliver(r.value, 0, r.value.length, r.receivedNanos, peer,
                (r.src[16] & 0xFF) << 8 | (r.src[17] & 0xFF));
    }

    /**
     * Where records go that the producer still holds unacknowledged when it closes, or that fail with a retriable
     * error (the inlet sets {@link Spooler#returnUndelivered()} before {@link #close()}); without one they are
     * counted as failed.
     */
    public void onUndelivered(Spooler.Target target) {
        this.undeliveredTarget = target;
    }

    @Override
    public boolean ready() {
        if (!topicReady || closing) {
            return false;
        }
        if (inFlightBytes.get() >= MAX_IN_FLIGHT_BYTES) {
            return false;
        }
        return inFlightRecords.get() == 0 || System.nanoTime() - lastProgressNanos < STALL_MS * 1_000_000L;
    }

    /**
     * @return whether the producer is stalled (the broker is away): records wait and none was acknowledged for
     *     {@value #STALL_MS} ms, or it has refused sends at once for {@value #STALL_MS} ms with no acknowledgement
     *     since (a broker that went away while nothing was in flight: every send then fails inside
     *     {@code producer.send} and nothing waits)
     */
    public boolean stalled() {
        long now = System.nanoTime();
        long refusing = refusingSinceNanos;
        return inFlightRecords.get() > 0 && now - lastProgressNanos >= STALL_MS * 1_000_000L
                || refusing != 0 && now - refusing >= STALL_MS * 1_000_000L;
    }

    private void refusing() {
        if (refusingSinceNanos == 0) {
            refusingSinceNanos = System.nanoTime() | 1; // never 0
        }
    }

    /** @return whether the topic is set up (created and its metadata known). */
    public boolean topicReady() {
        return topicReady;
    }

    /** @return datagram bytes handed to the producer and not acknowledged yet. */
    public long inFlightBytes() {
        return inFlightBytes.get();
    }

    /** @return datagrams handed on to the undelivered target (unacknowledged at close). */
    public long undelivered() {
        return undelivered.get();
    }

    /** @return sends the producer refused at once (the caller kept the datagram, e.g. in the spool). */
    public long refusedAtOnce() {
        return refusedAtOnce.get();
    }

    /**
     * Hands one datagram to the producer without waiting.
     *
     * @return true if the producer took it (it is then delivered, or handed to the undelivered target when the sink
     *     closes first); false if the producer refused it at once — it threw, or failed the record with a retriable
     *     error before returning (no metadata for the topic yet, buffer exhausted, closed): nothing is kept, the
     *     caller still holds the datagram
     */
    public boolean send(byte[] data, int off, int len, long receivedNanos, byte[] peer16, int peerPort) {
        byte[] value = Arrays.copyOfRange(data, off, off + len);
        byte[] src = Arrays.copyOf(peer16, 18);
        src[16] = (byte) (peerPort >>> 8);
        src[17] = (byte) peerPort;
        RecordHeaders headers = new RecordHeaders();
        headers.add(new RecordHeader(KafkaTopics.HEADER_RECEIVED_NS,
                ByteBuffer.allocate(8).putLong(receivedNanos).array()));
        headers.add(new RecordHeader(KafkaTopics.HEADER_SOURCE, src));
        if (inFlightRecords.getAndIncrement() == 0) {
            lastProgressNanos = System.nanoTime(); // a stall is measured from the first record waiting
        }
        inFlightBytes.addAndGet(len);
        Pending pending = new Pending(value, receivedNanos, src);
        try {
            producer.send(new ProducerRecord<>(topic, null, receivedNanos / 1_000_000, agentKey(value), value, headers),
                    pending);
            pending.sending = null;
            if (pending.refusedInSend) {
                refusedAtOnce.incrementAndGet(); // the callback already gave back its in-flight accounting
                refusing();
                return false;
            }
            return true;
        } catch (RuntimeException e) {
            pending.sending = null;
            // Refused before it was taken: no callback will come.
            inFlightBytes.addAndGet(-len);
            inFlightRecords.decrementAndGet();
            lastError = e;
            refusedAtOnce.incrementAndGet();
            refusing();
            return false;
        }
    }

    /**
     * As {@link #send}, for callers without a {@link Spooler} (tests, tools): first waits up to 10 s for
     * {@link #ready()}.
     */
    @Override
    public void accept(byte[] data, int off, int len, long receivedNanos, byte[] peer16, int peerPort) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!ready() && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
        }
        if (!send(data, off, len, receivedNanos, peer16, peerPort)) {
            failed.incrementAndGet();
        }
    }

    /**
     * The record key: the sFlow agent address of the datagram header (version u32, address type u32 — 1 IPv4, 2
     * IPv6 — then the address), so one agent's datagrams stay in order on one partition and the outlet's loss
     * accounting sees them in sequence. Null (Kafka spreads them) when the header is too short or the type unknown.
     */
    static byte[] agentKey(byte[] datagram) {
        if (datagram.length < 12) {
            return null;
        }
        int type = datagram[7] & 0xFF | (datagram[4] | datagram[5] | datagram[6]) << 8;
        int n = type == 1 ? 4 : type == 2 ? 16 : 0;
        return n == 0 || datagram.length < 8 + n ? null : Arrays.copyOfRange(datagram, 8, 8 + n);
    }

    /**
     * Waits until every datagram accepted so far is acknowledged or has failed.
     *
     * @throws IOException if datagrams failed since the previous flush (they are counted in {@link #failed()}); the
     *     message gives their number, the topic, the bootstrap and the last error
     */
    @Override
    public synchronized void flush() throws IOException {
        if (!topicReady) {
            throw new IOException("Kafka topic " + topic + " at " + bootstrap + " is not set up yet"
                    + (lastError == null ? "" : ": " + lastError.getMessage()));
        }
        producer.flush();
        long f = failed.get();
        if (f > failedReported) {
            long n = f - failedReported;
            failedReported = f;
            Exception e = lastError;
            throw new IOException(n + " datagrams could not be written to Kafka topic " + topic + " at " + bootstrap
                    + ": " + (e == null ? "unknown error" : e.getMessage()), e);
        }
    }

    @Override
    public long written() {
        return written.get();
    }

    @Override
    public long failed() {
        return failed.get();
    }

    @Override
    public String name() {
        return "kafka:" + topic;
    }

    /**
     * Closes the producer, waiting up to 10 s for the broker to acknowledge what it holds; records still
     * unacknowledged then go to the undelivered target (set it first, e.g. to {@link Spooler#returnUndelivered()}).
     */
    @Override
    public void close() {
        closing = true;
        if (setup != null) {
            setup.interrupt();
        }
        producer.close(java.time.Duration.ofSeconds(inFlightRecords.get() > 0 && stalled() ? 2 : 10));
        long n = undelivered.get();
        if (n > 0) {
            log.info("Kafka topic {}: {} datagrams not acknowledged by the broker were handed to the spool", topic, n);
        }
    }

    /**
     * Decodes the {@value KafkaTopics#HEADER_SOURCE} header.
     *
     * @param header the header value: 16-byte address (IPv4 mapped) then 2-byte big-endian port
     * @return "a.b.c.d:port" for IPv4 (mapped) sources, "[v6]:port" (RFC 5952 text) for IPv6 ones
     * @throws IllegalArgumentException if the header is not 18 bytes
     */
    public static String sourceToString(byte[] header) {
        if (header == null || header.length != 18) {
            throw new IllegalArgumentException("a " + KafkaTopics.HEADER_SOURCE + " header has 18 bytes, got "
                    + (header == null ? "null" : header.length));
        }
        String host = IpAddresses.toString(header, 0, 16);
        int port = (header[16] & 0xFF) << 8 | (header[17] & 0xFF);
        return (host.contains(":") || host.isEmpty() ? "[" + (host.isEmpty() ? "::" : host) + "]" : host) + ":" + port;
    }
}
