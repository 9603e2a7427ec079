package io.vecflow.collector.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import io.vecflow.collector.TestSupport;
import io.vecflow.collector.inlet.KafkaRawSinkTest;
import io.vecflow.collector.schema.FlowRow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link KafkaDecodedSink} against the real test broker ({@code VECFLOW_TEST_KAFKA}; fails when it is not set): rows
 * go in through the sink from several threads, come back through a {@link
 * org.apache.kafka.clients.consumer.KafkaConsumer} and are parsed with the descriptor read from {@code flow.proto}.
 * Each run uses its own topics, deleted at the end.
 */
class KafkaDecodedSinkTest {
    private static String bootstrap;
    private static String topic;
    private static Descriptor descriptor;

    @BeforeAll
    static void setUp() throws Exception {
        bootstrap = TestSupport.kafkaBootstrap();
        topic = "proto-vecflow-test-flows-" + TestSupport.suffix();
        descriptor = ProtoFile.flowMessage();
    }

    @AfterAll
    static void deleteTopic() throws Exception {
        if (topic != null) {
            try (Admin a = KafkaRawSinkTest.admin(bootstrap)) {
                a.deleteTopics(List.of(topic)).all().get(15, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void rowsFromFourThreadsArriveKeyedByAgentAndDecodeToTheSameValues() throws Exception {
        int threads = 4, perThread = 250, n = threads * perThread;
        Map<Long, FlowRow> sent = new HashMap<>();
        List<List<FlowRow>> batches = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            List<FlowRow> b = new ArrayList<>();
            for (int i = 0; i < perThread; i++) {
                int k = t * perThread + i;
                FlowRow r = FlowProtobufTest.fullRow(k, k % 5 == 0);
                r.sampleSequence = k; // unique: the row's identity on the way back
                b.add(r);
                sent.put((long) k, r);
            }
            batches.add(b);
        }
        try (KafkaDecodedSink sink = new KafkaDecodedSink(bootstrap, topic, 3)) {
            assertThat(sink.name()).isEqualTo("kafka:" + topic);
            assertThat(sink.topic()).isEqualTo(topic);
            List<Thread> ts = new ArrayList<>();
            for (List<FlowRow> b : batches) {
                ts.add(Thread.ofPlatform().start(() -> {
                    FlowRow reused = new FlowRow(); // the inlet reuses its row: the sink must not keep it
                    for (FlowRow r : b) {
                        sink.accept(reused.copyFrom(r));
                    }
                }));
            }
            for (Thread t : ts) {
                assertThat(t.join(Duration.ofSeconds(15))).as("sender thread finished").isTrue();
            }
            sink.flush();
            assertThat(sink.rowsWritten()).isEqualTo(n);
            assertThat(sink.rowsFailed()).isZero();
        }
        try (Admin a = KafkaRawSinkTest.admin(bootstrap)) {
            TopicDescription d = a.describeTopics(List.of(topic)).allTopicNames().get(15, TimeUnit.SECONDS).get(topic);
            assertThat(d.partitions()).hasSize(3);
        }
        List<ConsumerRecord<byte[], byte[]>> got = KafkaRawSinkTest.consumeAll(bootstrap, topic, n);
        assertThat(got).hasSize(n);
        Map<String, Integer> partitionOfAgent = new HashMap<>();
        Map<String, Long> lastSeqOfThreadAndAgent = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> rec : got) {
            DynamicMessage m = DynamicMessage.parseFrom(descriptor, rec.value());
            long seq = Integer.toUnsignedLong((Integer) m.getField(descriptor.findFieldByName("sample_sequence")));
            FlowRow r = sent.remove(seq);
            assertThat(r).as("record with sample_sequence " + seq + " sent once").isNotNull();
            FlowProtobufTest.assertMessage(descriptor, r, rec.value());
            assertThat(rec.key()).as("key = agent address").isEqualTo(r.agentAddress);
            assertThat(rec.timestamp()).isEqualTo(r.timeReceivedNanos / 1_000_000L);
            assertThat(rec.headers().toArray()).isEmpty();
            // One agent, one partition; within it, each sender thread's rows in the order it sent them.
            String agent = Arrays.toString(r.agentAddress);
            assertThat(partitionOfAgent.computeIfAbsent(agent, x -> rec.partition())).as("partition of " + agent)
                    .isEqualTo(rec.partition());
            String key = (seq / perThread) + "/" + agent;
            Long prev = lastSeqOfThreadAndAgent.put(key, seq);
            assertThat(prev == null || prev < seq).as("order of " + seq + " after " + prev).isTrue();
        }
        assertThat(sent).as("rows never received").isEmpty();
        assertThat(partitionOfAgent).hasSize(6);
    }

    @Test
    void aRowTheProducerRefusesIsCountedAndFlushReportsIt() throws Exception {
        String t = topic + "-refused";
        try (KafkaDecodedSink sink = new KafkaDecodedSink(bootstrap, t, 1,
                Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 1000))) {
            FlowRow big = FlowProtobufTest.fullRow(1, false);
            big.dstAsPathLength = 400; // about 2.3 KB encoded: above max.request.size, refused before it is sent
            Arrays.fill(big.dstAsPath, 0, 400, 4_200_000_000L);
            assertThat(new FlowProtobuf().encode(big)).isGreaterThan(2000);
            assertThat(new FlowProtobuf().encode(FlowProtobufTest.fullRow(2, true))).isLessThan(800);
            sink.accept(big);
            assertThatThrownBy(sink::flush).isInstanceOf(java.io.IOException.class)
                    .hasMessageContaining("1 rows could not be written to Kafka topic " + t + " at " + bootstrap);
            assertThat(sink.rowsFailed()).isEqualTo(1);
            assertThat(sink.rowsWritten()).isZero();
            // Reported once; a later small row flushes cleanly.
            sink.accept(FlowProtobufTest.fullRow(2, true));
            sink.flush();
            assertThat(sink.rowsWritten()).isEqualTo(1);
            assertThat(sink.rowsFailed()).isEqualTo(1);
            List<ConsumerRecord<byte[], byte[]>> got = KafkaRawSinkTest.consumeAll(bootstrap, t, 1);
            assertThat(got).hasSize(1);
            FlowProtobufTest.assertMessage(descriptor, FlowProtobufTest.fullRow(2, true), got.get(0).value());
        } finally {
            try (Admin a = KafkaRawSinkTest.admin(bootstrap)) {
                a.deleteTopics(List.of(t)).all().get(15, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void rowsAfterCloseAreCountedNotThrown() throws Exception {
        String t = topic + "-closed";
        try {
            KafkaDecodedSink sink = new KafkaDecodedSink(bootstrap, t, 1);
            sink.close();
            sink.accept(FlowProtobufTest.fullRow(0, false));
            assertThat(sink.rowsFailed()).isEqualTo(1);
            assertThat(sink.rowsWritten()).isZero();
        } finally {
            try (Admin a = KafkaRawSinkTest.admin(bootstrap)) {
                a.deleteTopics(List.of(t)).all().get(15, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aClosedPortFailsTheConstructorNamingTheBootstrap() throws Exception {
        String bad = "127.0.0.1:" + TestSupport.closedPort();
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> new KafkaDecodedSink(bad, topic + "-never", 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(bad)
                .hasMessageContaining(topic + "-never");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(22));
        assertThatThrownBy(() -> new KafkaDecodedSink(bootstrap, topic + "-zero", 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partitions must be at least 1");
    }
}
