package io.vecflow.collector.inlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.TestSupport;
import io.vecflow.collector.sink.kafka.KafkaTopics;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link KafkaRawSink} against the real test broker ({@code VECFLOW_TEST_KAFKA}, a KRaft broker started by
 * scripts/test.sh). Each run uses its own topic, deleted at the end.
 */
public class KafkaRawSinkTest {
    private static String bootstrap;
    private static String topic;

    @BeforeAll
    static void names() {
        bootstrap = TestSupport.kafkaBootstrap();
        topic = "vecflow-test-raw-" + TestSupport.suffix();
    }

    @AfterAll
    static void deleteTopic() throws Exception {
        if (topic != null) {
            try (Admin a = admin(bootstrap)) {
                a.deleteTopics(List.of(topic)).all().get(15, TimeUnit.SECONDS);
            }
        }
    }

    public static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15000);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10000);
        return Admin.create(p);
    }

    /**
     * Reads the whole topic from the earliest offset with a fresh group, until {@code expected} records or 15 s.
     */
    public static List<ConsumerRecord<byte[], byte[]>> consumeAll(String bootstrap, String topic, int expected) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "vecflow-test-" + TestSupport.suffix());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (out.size() < expected && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
            // One more short poll: more records than expected must show up as a failure, not be missed.
            c.poll(Duration.ofMillis(200)).forEach(out::add);
        }
        return out;
    }

    public static byte[] header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header[] hs = r.headers().toArray();
        List<Header> matching = Arrays.stream(hs).filter(h -> h.key().equals(name)).toList();
        assertThat(matching).as("header " + name).hasSize(1);
        return matching.get(0).value();
    }

    @Test
    void fiveHundredDatagramsArriveByteForByteWithTheirEnvelope() throws Exception {
        Random rnd = new Random(42);
        int n = 500;
        List<byte[]> payloads = new ArrayList<>();
        long[] ns = new long[n];
        byte[][] peers = new byte[n][];
        int[] ports = new int[n];
        long base = EpochNanos.now();
        for (int i = 0; i < n; i++) {
            byte[] p = new byte[4 + rnd.nextInt(1400)];
            rnd.nextBytes(p);
            ByteBuffer.wrap(p).putInt(i); // distinct
            payloads.add(p);
            ns[i] = base + i * 1_000_003L + (i % 7);
            peers[i] = TestSupport.addr16(i % 2 == 0 ? "127.0.0." + (1 + i % 200) : "2001:db8::"
                    + Integer.toHexString(i));
            ports[i] = i == 0 ? 65535 : 1024 + i;
        }
        byte[] scratch = new byte[2048];
        try (KafkaRawSink sink = new KafkaRawSink(bootstrap, topic, 1)) {
            assertThat(sink.name()).isEqualTo("kafka:" + topic);
            for (int i = 0; i < n; i++) {
                // The sink must copy: the caller's buffer (as the inlet's) is overwritten right after accept().
                byte[] p = payloads.get(i);
                Arrays.fill(scratch, (byte) 0x55);
                System.arraycopy(p, 0, scratch, 100, p.length);
                sink.accept(scratch, 100, p.length, ns[i], peers[i], ports[i]);
                Arrays.fill(scratch, (byte) 0xAA);
            }
            sink.flush();
            assertThat(sink.written()).isEqualTo(n);
            assertThat(sink.failed()).isZero();
        }
        try (Admin a = admin(bootstrap)) {
            TopicDescription d = a.describeTopics(List.of(topic)).allTopicNames().get(15, TimeUnit.SECONDS).get(topic);
            assertThat(d.partitions()).hasSize(1);
        }
        List<ConsumerRecord<byte[], byte[]>> got = consumeAll(bootstrap, topic, n);
        assertThat(got).hasSize(n);
        for (int i = 0; i < n; i++) {
            ConsumerRecord<byte[], byte[]> r = got.get(i);
            assertThat(r.partition()).isZero();
            assertThat(r.offset()).isEqualTo(i);
            assertThat(r.key()).isNull();
            assertThat(r.value()).as("record " + i).isEqualTo(payloads.get(i));
            byte[] rx = header(r, KafkaTopics.HEADER_RECEIVED_NS);
            assertThat(rx).hasSize(8);
            assertThat(ByteBuffer.wrap(rx).getLong()).isEqualTo(ns[i]);
            byte[] src = header(r, KafkaTopics.HEADER_SOURCE);
            assertThat(src).hasSize(18);
            assertThat(Arrays.copyOf(src, 16)).isEqualTo(peers[i]);
            assertThat((src[16] & 0xFF) << 8 | (src[17] & 0xFF)).isEqualTo(ports[i]);
            assertThat(r.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
            assertThat(r.timestamp()).isEqualTo(ns[i] / 1_000_000L);
        }
        assertThat(KafkaRawSink.sourceToString(header(got.get(0), KafkaTopics.HEADER_SOURCE)))
                .isEqualTo("127.0.0.1:65535");
        assertThat(KafkaRawSink.sourceToString(header(got.get(1), KafkaTopics.HEADER_SOURCE)))
                .isEqualTo("[2001:db8::1]:1025");
        assertThatThrownBy(() -> KafkaRawSink.sourceToString(new byte[16]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("18 bytes, got 16");
    }

    /**
     * The README's claim: key = the sFlow agent address (4 bytes for IPv4, 16 for IPv6, from the datagram header),
     * so one agent's datagrams land on one partition in the order they were sent; a datagram too short for an
     * address, or with an unknown address type, has no key.
     */
    @Test
    void theKeyIsTheAgentAddressSoEachAgentKeepsOnePartitionInOrder() throws Exception {
        String t = topic + "-keys";
        String[] agents = {"192.0.2.1", "192.0.2.2", "198.51.100.7", "2001:db8::9", "2001:db8::a"};
        int perAgent = 40;
        try (KafkaRawSink sink = new KafkaRawSink(bootstrap, t, 4)) {
            for (int i = 0; i < perAgent; i++) {
                for (String a : agents) {
                    byte[] d = header(a, i);
                    sink.accept(d, 0, d.length, EpochNanos.now(), TestSupport.addr16("127.0.0.1"), 6343);
                }
            }
            byte[] shortOne = {0, 0, 0, 5, 0, 0, 0, 1, 10};
            byte[] unknownType = header("192.0.2.1", 0);
            unknownType[7] = 3;
            sink.accept(shortOne, 0, shortOne.length, EpochNanos.now(), TestSupport.addr16("127.0.0.1"), 6343);
            sink.accept(unknownType, 0, unknownType.length, EpochNanos.now(), TestSupport.addr16("127.0.0.1"), 6343);
            sink.flush();
            assertThat(sink.written()).isEqualTo(agents.length * perAgent + 2);
        }
        try {
            List<ConsumerRecord<byte[], byte[]>> got = consumeAll(bootstrap, t, agents.length * perAgent + 2);
            assertThat(got).hasSize(agents.length * perAgent + 2);
            Map<String, Integer> partitionOf = new HashMap<>();
            Map<String, List<Integer>> sequences = new HashMap<>();
            int unkeyed = 0;
            for (ConsumerRecord<byte[], byte[]> r : got) {
                if (r.key() == null) {
                    unkeyed++;
                    continue;
                }
                String agent = InetAddress.getByAddress(r.key()).getHostAddress();
                int addrLen = agent.contains(":") ? 16 : 4;
                assertThat(r.key()).as("key of %s", agent).hasSize(addrLen)
                        .isEqualTo(Arrays.copyOfRange(r.value(), 8, 8 + addrLen));
                assertThat(partitionOf.computeIfAbsent(agent, x -> r.partition())).as("partition of %s", agent)
                        .isEqualTo(r.partition());
                sequences.computeIfAbsent(agent, x -> new ArrayList<>())
                        .add(ByteBuffer.wrap(r.value()).getInt(8 + addrLen + 4));
            }
            assertThat(unkeyed).as("the short datagram and the unknown address type").isEqualTo(2);
            assertThat(sequences.keySet()).containsExactlyInAnyOrder("192.0.2.1", "192.0.2.2", "198.51.100.7",
                    "2001:db8:0:0:0:0:0:9", "2001:db8:0:0:0:0:0:a");
            List<Integer> inOrder = java.util.stream.IntStream.range(0, perAgent).boxed().toList();
            sequences.forEach((a, seqs) -> assertThat(seqs).as("sequence numbers of %s", a).isEqualTo(inOrder));
        } finally {
            try (Admin a = admin(bootstrap)) {
                a.deleteTopics(List.of(t)).all().get(15, TimeUnit.SECONDS);
            }
        }
    }

    /** An sFlow v5 datagram header (no samples) from {@code agent} with datagram sequence number {@code seq}. */
    private static byte[] header(String agent, int seq) throws Exception {
        byte[] addr = InetAddress.getByName(agent).getAddress();
        ByteBuffer b = ByteBuffer.allocate(8 + addr.length + 16);
        b.putInt(5).putInt(addr.length == 4 ? 1 : 2).put(addr).putInt(0).putInt(seq).putInt(1000).putInt(0);
        return b.array();
    }

    @Test
    void anExistingTopicIsReused() throws Exception {
        String t = topic + "-again";
        try {
            for (int round = 0; round < 2; round++) {
                try (KafkaRawSink sink = new KafkaRawSink(bootstrap, t, 1)) {
                    sink.accept(new byte[] {1, 2, 3, (byte) round}, 0, 4, 1_000_000_000L * (round + 1),
                            TestSupport.addr16("127.0.0.1"), 6343);
                    sink.flush();
                    assertThat(sink.written()).isEqualTo(1);
                }
            }
            assertThat(consumeAll(bootstrap, t, 2)).extracting(ConsumerRecord::value)
                    .containsExactly(new byte[] {1, 2, 3, 0}, new byte[] {1, 2, 3, 1});
        } finally {
            try (Admin a = admin(bootstrap)) {
                a.deleteTopics(List.of(t)).all().get(15, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aRecordTheProducerRefusesIsCountedAndFlushReportsIt() throws Exception {
        String t = topic + "-refused";
        try (KafkaRawSink sink = new KafkaRawSink(bootstrap, t, 1)) {
            byte[] huge = new byte[2 << 20]; // above max.request.size (1 MiB): refused before it is sent
            sink.accept(huge, 0, huge.length, EpochNanos.now(), TestSupport.addr16("127.0.0.1"), 6343);
            assertThatThrownBy(sink::flush).isInstanceOf(java.io.IOException.class)
                    .hasMessageContaining("1 datagrams could not be written to Kafka topic " + t + " at " + bootstrap);
            assertThat(sink.failed()).isEqualTo(1);
            assertThat(sink.written()).isZero();
            // Reported once; later good datagrams flush cleanly.
            sink.accept(new byte[] {9}, 0, 1, EpochNanos.now(), TestSupport.addr16("127.0.0.1"), 6343);
            sink.flush();
            assertThat(sink.written()).isEqualTo(1);
            assertThat(sink.failed()).isEqualTo(1);
        } finally {
            try (Admin a = admin(bootstrap)) {
                a.deleteTopics(List.of(t)).all().get(15, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * A send the producer fails inside {@code send} with a retriable error (no metadata for the topic yet, e.g.
     * while the broker is away or just back) is refused: the caller (the spooler) keeps the datagram. It used to be
     * taken and counted as failed, so the fault matrix's broker outage lost thousands of datagrams.
     */
    @Test
    void aSendFailingAtOnceWithARetriableErrorIsRefusedNotLost() throws Exception {
        String bad = "127.0.0.1:" + TestSupport.closedPort();
        try (KafkaRawSink sink = new KafkaRawSink(bad, topic + "-nometa", 1, false)) {
            byte[] d = {0, 0, 0, 5, 0, 0, 0, 1, 192 - 256, 0, 2, 1};
            boolean taken = sink.send(d, 0, d.length, EpochNanos.now(), TestSupport.addr16("127.0.0.1"), 6343);
            assertThat(taken).as("taken").isFalse();
            assertThat(sink.failed()).as("failed").isZero();
            assertThat(sink.refusedAtOnce()).as("refused at once").isEqualTo(1);
            assertThat(sink.inFlightBytes()).as("in flight").isZero();
            assertThat(sink.stalled()).as("stalled").isFalse();
        }
    }

    @Test
    void sendsRefusedAtOnceForTheStallTimeWithNoAcknowledgementAreAStall() throws Exception {
        // A broker that goes away while nothing is in flight: every send then fails inside producer.send, nothing
        // waits for an acknowledgement, and the stall must still show (vecflow_collector_ready{stage="kafka"}).
        String bad = "127.0.0.1:" + TestSupport.closedPort();
        try (KafkaRawSink sink = new KafkaRawSink(bad, topic + "-refusing", 1, false)) {
            byte[] d = {0, 0, 0, 5, 0, 0, 0, 1, 192 - 256, 0, 2, 1};
            assertThat(sink.send(d, 0, d.length, EpochNanos.now(), TestSupport.addr16("127.0.0.1"), 6343)).isFalse();
            assertThat(sink.stalled()).as("just refused once").isFalse();
            Thread.sleep(KafkaRawSink.STALL_MS + 200);
            assertThat(sink.send(d, 0, d.length, EpochNanos.now(), TestSupport.addr16("127.0.0.1"), 6343)).isFalse();
            assertThat(sink.refusedAtOnce()).isEqualTo(2);
            assertThat(sink.inFlightBytes()).as("nothing waits").isZero();
            assertThat(sink.stalled()).as("refusing for more than the stall time").isTrue();
        }
    }

    @Test
    void aClosedPortFailsTheConstructorNamingTheBootstrap() throws Exception {
        String bad = "127.0.0.1:" + TestSupport.closedPort();
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> new KafkaRawSink(bad, topic + "-never", 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(bad)
                .hasMessageContaining(topic + "-never");
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertThat(took).isLessThan(Duration.ofSeconds(22));
        System.out.println("closed-port KafkaRawSink constructor failed after " + took.toMillis() + " ms");
    }
}
