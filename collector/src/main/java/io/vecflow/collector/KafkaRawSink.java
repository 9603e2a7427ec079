package io.vecflow.collector;

import io.vecflow.packet.IpAddresses;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes every raw datagram to a Kafka topic (default {@code vecflow-raw-v1}), one record per UDP datagram:
 * the record value is the UDP payload unchanged (replayable, re-exportable byte for byte); headers
 * {@value #HEADER_RECEIVED_NS} (receive time, ns since the epoch, 8 bytes big-endian) and {@value #HEADER_SOURCE}
 * (UDP source, 16-byte IPv4-mapped address then 2-byte big-endian port); record timestamp = receive time in ms; key = the sFlow agent address ({@link #agentKey}).
 *
 * <p>Producer settings follow the project's storage notes: idempotent, acks=all, lz4, linger 20 ms, 256 KiB batches,
 * 64 MiB buffer. The topic is created at start if missing.
 */
public final class KafkaRawSink implements RawSink {
    /** Default topic name (versioned: bump on an incompatible envelope change). */
    public static final String DEFAULT_TOPIC = "vecflow-raw-v1";
    /** Header with the receive time in ns (8 bytes, big-endian). */
    public static final String HEADER_RECEIVED_NS = "received_ns";
    /** Header with the UDP source: 16-byte IPv4-mapped address + 2-byte port, big-endian. */
    public static final String HEADER_SOURCE = "source";

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final String bootstrap;
    private final AtomicLong written = new AtomicLong(), failed = new AtomicLong();
    private volatile Exception lastError;
    private long failedReported; // guarded by this (flush)
    private final Callback callback = (md, e) -> {
        if (e == null) {
            written.incrementAndGet();
        } else {
            lastError = e;
            failed.incrementAndGet();
        }
    };

    /**
     * @param bootstrap Kafka bootstrap servers, {@code host:port[,host:port]}
     * @param topic topic name
     * @param partitions partitions when the topic has to be created
     * @throws Exception if the broker cannot be reached or the topic cannot be created (an
     *     {@link IllegalStateException} naming the topic and the bootstrap, after at most about 20 s)
     */
    public KafkaRawSink(String bootstrap, String topic, int partitions) throws Exception {
        this.topic = topic;
        this.bootstrap = bootstrap;
        KafkaTopics.create(bootstrap, topic, partitions);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 64L * 1024 * 1024);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 1000);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "vecflow-inlet");
        this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        KafkaTopics.awaitMetadata(producer, topic, bootstrap);
    }

    @Override
    public void accept(byte[] data, int off, int len, long receivedNanos, byte[] peer16, int peerPort) {
        byte[] value = Arrays.copyOfRange(data, off, off + len);
        byte[] src = Arrays.copyOf(peer16, 18);
        src[16] = (byte) (peerPort >>> 8);
        src[17] = (byte) peerPort;
        RecordHeaders headers = new RecordHeaders();
        headers.add(new RecordHeader(HEADER_RECEIVED_NS, ByteBuffer.allocate(8).putLong(receivedNanos).array()));
        headers.add(new RecordHeader(HEADER_SOURCE, src));
        try {
            producer.send(new ProducerRecord<>(topic, null, receivedNanos / 1_000_000, agentKey(value), value, headers),
                    callback);
        } catch (RuntimeException e) {
            lastError = e;
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

    @Override
    public void close() {
        producer.close(java.time.Duration.ofSeconds(10));
    }

    /**
     * Decodes the {@value #HEADER_SOURCE} header.
     *
     * @param header the header value: 16-byte address (IPv4 mapped) then 2-byte big-endian port
     * @return "a.b.c.d:port" for IPv4 (mapped) sources, "[v6]:port" (RFC 5952 text) for IPv6 ones
     * @throws IllegalArgumentException if the header is not 18 bytes
     */
    public static String sourceToString(byte[] header) {
        if (header == null || header.length != 18) {
            throw new IllegalArgumentException("a " + HEADER_SOURCE + " header has 18 bytes, got "
                    + (header == null ? "null" : header.length));
        }
        String host = IpAddresses.toString(header, 0, 16);
        int port = (header[16] & 0xFF) << 8 | (header[17] & 0xFF);
        return (host.contains(":") || host.isEmpty() ? "[" + (host.isEmpty() ? "::" : host) + "]" : host) + ":" + port;
    }
}
