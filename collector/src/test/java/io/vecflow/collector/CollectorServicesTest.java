package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.inlet.KafkaRawSink;
import io.vecflow.collector.inlet.KafkaRawSinkTest;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.collector.sink.clickhouse.ClickHouseSink;
import io.vecflow.collector.sink.kafka.KafkaTopics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole collector against both test services (ClickHouse 18.16 and a KRaft broker, started by scripts/test.sh):
 * real UDP in, rows in ClickHouse, every datagram byte for byte in the raw Kafka topic, rows in JSON lines. Captures:
 * tcpdump tests/sflow-print-v6.pcap (IPv6 agent 30::1:1:1, 25 datagrams, 13 flow samples) and goflow2
 * TestSFlowDecode (1 datagram, 1 flow sample).
 */
class CollectorServicesTest {
    private static String clickhouseUrl;
    private static String kafka;
    private static String db;
    private static String topic;

    @TempDir
    Path tmp;

    @BeforeAll
    static void names() {
        clickhouseUrl = TestSupport.clickhouseUrl();
        kafka = TestSupport.kafkaBootstrap();
        String sfx = TestSupport.suffix();
        db = "vecflow_svc_" + sfx;
        topic = "vecflow-test-svc-" + sfx;
    }

    @AfterAll
    static void cleanUp() throws Exception {
        if (db != null) {
            try (ClickHouseSink admin = new ClickHouseSink(clickhouseUrl, "default", "", db, 10, 3_600_000)) {
                admin.execute("DROP DATABASE IF EXISTS " + db);
            }
        }
        if (topic != null) {
            try (Admin a = KafkaRawSinkTest.admin(kafka)) {
                a.deleteTopics(List.of(topic, topic + "-decoded")).all().get(15, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void datagramsReachClickHouseKafkaAndJsonLines() throws Exception {
        List<byte[]> sent = new ArrayList<>(Captures.udpPayloads("tcpdump-sflow-print-v6.pcap"));
        assertThat(sent).hasSize(25);
        sent.addAll(Captures.udpPayloads("goflow2-TestSFlowDecode.pcap"));
        Path json = tmp.resolve("flows.jsonl");

        Collector.Settings s = new Collector.Settings();
        s.bindAddress = "127.0.0.1";
        s.port = 0;
        s.clickhouseUrl = clickhouseUrl;
        s.clickhouseDatabase = db;
        s.kafkaBootstrap = kafka;
        s.kafkaRawTopic = topic;
        s.kafkaConsumerGroup = "outlet-" + topic;
        s.kafkaDecodedTopic = topic + "-decoded";
        s.jsonLines = json;
        int senderPort;
        long t0 = System.nanoTime();
        try (Collector c = new Collector(s); TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            System.out.printf("collector with ClickHouse + Kafka started in %d ms%n",
                    (System.nanoTime() - t0) / 1_000_000);
            senderPort = tx.localPort();
            tx.sendPaced(sent, 8, () -> c.stats().datagramsReceived.sum());
            TestSupport.await("26 datagrams", Duration.ofSeconds(15), () -> c.stats().datagramsReceived.sum() >= 26);
            // With Kafka, role all decodes what the outlet consumes back from the raw topic.
            TestSupport.await("26 records consumed", Duration.ofSeconds(15),
                    () -> c.stats().datagramsConsumed.sum() >= 26);
            c.flush();
            assertThat(c.stats().datagramsConsumed.sum()).isEqualTo(26);
            // Caught up: the outlet's lag reads 0 (current, not a stale windowed maximum).
            TestSupport.await("outlet lag 0", Duration.ofSeconds(5), () -> c.outlet().lag() == 0);
            assertThat(c.stats().datagramsReceived.sum()).isEqualTo(26);
            assertThat(c.stats().flowRows.sum()).isEqualTo(14);
            assertThat(c.stats().decode.errorsByKind()).isEmpty();
            assertThat(c.rawSinks()).singleElement().satisfies(r -> {
                assertThat(r.written()).isEqualTo(26);
                assertThat(r.failed()).isZero();
            });
            assertThat(c.flowSinks()).extracting(FlowSink::name).containsExactly("clickhouse", "jsonl:" + json,
                    "kafka:" + topic + "-decoded");
            for (FlowSink f : c.flowSinks()) {
                assertThat(f.rowsWritten()).as(f.name()).isEqualTo(14);
                assertThat(f.rowsFailed()).as(f.name()).isZero();
            }
            ClickHouseSink ch = (ClickHouseSink) c.flowSinks().get(0);
            assertThat(ch.queryString("SELECT IPv6NumToString(AgentAddress), count(), min(SamplingRate), "
                    + "max(OutIfFormat), uniqExact(SampleSequence), IPv6NumToString(any(PeerAddress)) FROM " + db
                    + ".flows GROUP BY AgentAddress ORDER BY count() DESC FORMAT TabSeparated").lines().toList())
                    .containsExactly("30::1:1:1\t13\t1\t2\t13\t::ffff:127.0.0.1",
                            "::ffff:172.16.0.17\t1\t2048\t0\t1\t::ffff:127.0.0.1");
            assertThat(ch.queryString("SELECT IPv6NumToString(SrcAddr), IPv6NumToString(DstAddr), Vlan, InIf, OutIf "
                    + "FROM " + db + ".flows WHERE SamplingRate = 2048 FORMAT TabSeparated").trim())
                    .isEqualTo("::ffff:172.16.32.254\t::ffff:172.16.32.241\t32\t1194\t1043");
        }
        System.out.printf("services round trip (start, send, flush, check) took %d ms%n",
                (System.nanoTime() - t0) / 1_000_000);

        assertThat(Files.readAllLines(json)).hasSize(14);

        List<ConsumerRecord<byte[], byte[]>> records = KafkaRawSinkTest.consumeAll(kafka, topic, sent.size());
        assertThat(records).hasSize(sent.size());
        for (int i = 0; i < sent.size(); i++) {
            ConsumerRecord<byte[], byte[]> r = records.get(i);
            assertThat(r.value()).as("datagram " + i).isEqualTo(sent.get(i));
            byte[] src = KafkaRawSinkTest.header(r, KafkaTopics.HEADER_SOURCE);
            assertThat(KafkaRawSink.sourceToString(src)).isEqualTo("127.0.0.1:" + senderPort);
            long ns = java.nio.ByteBuffer.wrap(KafkaRawSinkTest.header(r, KafkaTopics.HEADER_RECEIVED_NS)).getLong();
            assertThat(r.timestamp()).isEqualTo(ns / 1_000_000);
        }
        // Counter-only datagrams are in the raw topic too: every one of the 25 v6 datagrams, not just the 13 samples.
        assertThat(records.stream().map(ConsumerRecord::value).filter(v -> Arrays.equals(v, sent.get(0))).count())
                .isEqualTo(1);
    }
}
