package io.vecflow.collector.sink.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Topic set-up shared by the Kafka sinks: create if missing (1-day retention), then wait for producer metadata; and
 * the headers of the raw topic's records (written by the inlet, read by the outlet).
 */
public final class KafkaTopics {
    private KafkaTopics() {}

    /** Raw-topic header with the receive time in ns (8 bytes, big-endian). */
    public static final String HEADER_RECEIVED_NS = "received_ns";
    /** Raw-topic header with the UDP source: 16-byte IPv4-mapped address + 2-byte port, big-endian. */
    public static final String HEADER_SOURCE = "source";

    /**
     * The messages along a failure's cause chain, each once, joined by {@code ": "}: a TLS failure's top message
     * ("SSL handshake failed", "Failed to process post-handshake messages") says little, its causes say which side
     * refused what ("Received fatal alert: certificate_required", "PKIX path building failed").
     *
     * @param t a failure
     * @return its reason in one line
     */
    public static String reason(Throwable t) {
        StringBuilder b = new StringBuilder();
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Throwable x = t; x != null && seen.add(x); x = x.getCause()) {
            String m = x.getMessage();
            if (m != null && !m.isBlank() && b.indexOf(m) < 0) {
                b.append(b.isEmpty() ? "" : ": ").append(m);
            }
        }
        if (t instanceof org.apache.kafka.common.errors.SslAuthenticationException) {
            b.append(" (TLS: the broker's certificate must be signed by kafka.security.tls.ca-file or truststore and "
                    + "name the host dialled; a listener that requires client certificates needs tls.cert-file and "
                    + "tls.key-file or tls.keystore)");
        }
        return b.isEmpty() ? t.toString() : b.toString();
    }

    /**
     * Creates the topic with {@code partitions} partitions, replication 1, {@code retention.ms} one day and
     * {@code compression.type=producer} (docs/storage.md §2), unless it exists.
     *
     * @throws IllegalStateException naming the topic and bootstrap if the broker refuses or does not answer in 20 s
     */
    public static void create(String bootstrap, String topic, int partitions) {
        create(KafkaConnection.plaintext(bootstrap), topic, partitions);
    }

    /**
     * As {@link #create(String, String, int)}, over a connection with its security settings.
     *
     * @throws IllegalStateException naming the topic and bootstrap (a refused login or an untrusted certificate
     *     with the broker's or the TLS layer's reason)
     */
    public static void create(KafkaConnection bootstrap, String topic, int partitions) {
        Properties admin = bootstrap.applyTo(new Properties());
        admin.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15000);
        admin.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10000);
        try (Admin a = Admin.create(admin)) {
            NewTopic t = new NewTopic(topic, partitions, (short) 1)
                    .configs(Map.of("retention.ms", "86400000", "compression.type", "producer"));
            try {
                a.createTopics(List.of(t)).all().get(20, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException("cannot create Kafka topic " + topic + " at " + bootstrap + ": "
                            + reason(e.getCause()), e.getCause());
                }
            } catch (java.util.concurrent.TimeoutException e) {
                throw new IllegalStateException("cannot create Kafka topic " + topic + " at " + bootstrap
                        + ": no answer in 20 s", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted creating Kafka topic " + topic + " at " + bootstrap, e);
            }
        } catch (org.apache.kafka.common.KafkaException e) {
            throw new IllegalStateException("Kafka admin client for " + bootstrap + ": " + e.getMessage(), e);
        }
    }

    /**
     * Fetches the topic's metadata now, not on the first record. Each call waits at most the producer's
     * max.block.ms; a topic created a moment ago may need a few calls. Bounded to 15 s; closes the producer on
     * failure.
     *
     * @throws IllegalStateException naming the topic and bootstrap
     */
    public static void awaitMetadata(KafkaProducer<?, ?> producer, String topic, String bootstrap) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            try {
                producer.partitionsFor(topic);
                break;
            } catch (org.apache.kafka.common.errors.TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    producer.close(Duration.ZERO);
                    throw new IllegalStateException("no metadata for Kafka topic " + topic + " from " + bootstrap
                            + " in 15 s: " + e.getMessage(), e);
                }
            } catch (RuntimeException e) {
                producer.close(Duration.ZERO);
                throw new IllegalStateException("Kafka producer for " + topic + " at " + bootstrap + ": "
                        + e.getMessage(), e);
            }
        }
    }
}
