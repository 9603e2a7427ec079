package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole chain on the real capture (tcpreplay's test capture, 179 packets), with real netlink, UDP, ClickHouse
 * and Kafka, judged by tshark.
 */
class DemoEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path out;

    private static Demo.Options options(Path out, long loops, int rate) {
        Demo.Options o = new Demo.Options();
        o.loops = loops;
        o.samplingRate = rate;
        o.out = out;
        o.collectorPort = 0; // tests never depend on 6343 being free
        return o;
    }

    private static Demo.Result run(Demo.Options o) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Demo.Result r = Demo.run(o, new PrintStream(log, true));
        Demo.printSummary(r, new PrintStream(log, true));
        System.out.println(log);
        return r;
    }

    /** (src, dst, protocol, src port, dst port) of each packet as tshark reads it; ports only for TCP/UDP. */
    static Map<String, Long> tsharkTuples(Path pcap) throws Exception {
        List<String> lines = TestEnv.run(List.of(TestEnv.tool("tshark", "tshark"), "-r", pcap.toString(), "-T",
                "fields", "-E", "occurrence=f", "-E", "separator=/t", "-e", "ip.src", "-e", "ip.dst", "-e",
                "ipv6.src", "-e", "ipv6.dst", "-e", "ip.proto", "-e", "ipv6.nxt", "-e", "tcp.srcport", "-e",
                "tcp.dstport", "-e", "udp.srcport", "-e", "udp.dstport"), 60);
        Map<String, Long> m = new HashMap<>();
        for (String l : lines) {
            String[] f = l.split("\t", -1);
            String src = !f[0].isEmpty() ? f[0] : f[2];
            String dst = !f[1].isEmpty() ? f[1] : f[3];
            String proto = !f[4].isEmpty() ? f[4] : !f[5].isEmpty() ? f[5] : "0";
            String sp = proto.equals("6") ? f[6] : proto.equals("17") ? f[8] : "0";
            String dp = proto.equals("6") ? f[7] : proto.equals("17") ? f[9] : "0";
            m.merge(String.join(" ", src, dst, proto, sp, dp), 1L, Long::sum);
        }
        return m;
    }

    private static String unmap(String a) {
        if (a.equals("::")) {
            return "";
        }
        return a.startsWith("::ffff:") && a.indexOf('.') > 0 ? a.substring(7) : a;
    }

    @Test
    void everyPacketOfThreeLoopsLandsInClickHouseAndEveryDatagramInKafka() throws Exception {
        String db = "e2e_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String topic = "vecflow-raw-e2e-" + UUID.randomUUID();
        Demo.Options o = options(out, 3, 1);
        o.clickhouse = TestEnv.clickhouseUrl();
        o.clickhouseDatabase = db;
        o.kafka = TestEnv.kafka();
        o.kafkaTopic = topic;
        try {
            Demo.Result r = run(o);
            assertThat(r.dataplane().packetsReplayed()).isEqualTo(3 * 179);
            assertThat(r.dataplane().fifoDrops()).isZero();
            assertThat(r.collectorFlowRows()).isEqualTo(3 * 179);

            // ClickHouse holds exactly 3 × 179 rows, and their 5-tuples are tshark's, three times over.
            assertThat(TestEnv.clickhouse("SELECT count() FROM " + db + ".flows FORMAT TabSeparated").trim())
                    .isEqualTo("537");
            // Enriched (DemoEnrichment): every row names the demo router and its classification, the replay port
            // and its classification; the bundled databases give countries and ASes, their names in asns.
            assertThat(TestEnv.clickhouse("SELECT countIf(ExporterName = 'demo-router1.lab1' AND ExporterRole = "
                    + "'router' AND ExporterSite = 'lab' AND ExporterRegion = 'eu-west'), countIf(InIfName = "
                    + "'xe-0/0/1' AND InIfSpeed = 10000 AND InIfBoundary = 'external' AND InIfProvider = 'example' AND "
                    + "InIfConnectivity = 'transit') FROM " + db + ".flows FORMAT TabSeparated").trim())
                    .isEqualTo("537\t537");
            String[] geo = TestEnv.clickhouse("SELECT countIf(SrcAS != 0 OR DstAS != 0), countIf(SrcCountry != '' "
                    + "OR DstCountry != ''), countIf(SrcNetName = 'lan' OR DstNetName = 'lan') FROM " + db
                    + ".flows FORMAT TabSeparated").trim().split("\t");
            assertThat(geo).allSatisfy(n -> assertThat(Long.parseLong(n)).isPositive());
            assertThat(Long.parseLong(TestEnv.clickhouse("SELECT count() FROM " + db + ".asns WHERE ASN IN (SELECT "
                    + "SrcAS FROM " + db + ".flows UNION ALL SELECT DstAS FROM " + db + ".flows) FORMAT TabSeparated")
                    .trim())).as("AS names of the ASes in the rows").isPositive();
            assertThat(r.topFlows()).as("the summary's top flows name ASes")
                    .anyMatch(f -> f.matches(".*AS\\d+ \\S.*"));
            // One path: every row came through the raw topic (its ingest stream is a Kafka partition, not the
            // in-process stream with bit 31 set), so a collector consuming the topic cannot store them a second time.
            assertThat(TestEnv.clickhouse("SELECT countIf(IngestStream >= 2147483648), uniqExact(IngestStream, "
                    + "IngestOffset) FROM " + db + ".flows FORMAT TabSeparated").trim())
                    .isEqualTo("0\t" + r.agentDatagramsSent());
            Map<String, Long> got = new HashMap<>();
            for (String l : TestEnv.clickhouse("SELECT IPv6NumToString(SrcAddr), IPv6NumToString(DstAddr), Proto, "
                    + "SrcPort, DstPort FROM " + db + ".flows FORMAT TabSeparated").split("\n")) {
                if (l.isEmpty()) {
                    continue;
                }
                String[] f = l.split("\t");
                got.merge(String.join(" ", unmap(f[0]), unmap(f[1]), f[2], f[3], f[4]), 1L, Long::sum);
            }
            Map<String, Long> expected = new HashMap<>();
            tsharkTuples(TestEnv.capture()).forEach((k, v) -> expected.put(k, 3 * v));
            assertThat(got).isEqualTo(expected);
            long minFrame = io.vecflow.packet.PcapReader.readAll(TestEnv.capture()).packets().stream()
                    .mapToLong(p -> p.data().length).min().orElseThrow() + 4; // frame_length includes the FCS
            assertThat(TestEnv.clickhouse("SELECT min(SamplingRate), max(SamplingRate), uniqExact(SampleSequence), "
                    + "max(SampleSequence), min(FrameLength) FROM " + db + ".flows FORMAT TabSeparated").trim())
                    .isEqualTo("1\t1\t537\t537\t" + minFrame);

            // The Kafka topic holds every datagram the agent sent, byte for byte.
            List<byte[]> sent = Datagrams.payloads(r.datagramsPcap());
            assertThat(sent).hasSize((int) r.agentDatagramsSent());
            Map<String, Long> sentHex = new HashMap<>();
            sent.forEach(d -> sentHex.merge(HexFormat.of().formatHex(d), 1L, Long::sum));
            Map<String, Long> inKafka = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> rec : consumeAll(topic, sent.size())) {
                inKafka.merge(HexFormat.of().formatHex(rec.value()), 1L, Long::sum);
                long ns = ByteBuffer.wrap(rec.headers().lastHeader("received_ns").value()).getLong();
                assertThat(ns / 1_000_000).isEqualTo(rec.timestamp());
                byte[] src = rec.headers().lastHeader("source").value();
                assertThat(src).hasSize(18);
                assertThat(src[12]).isEqualTo((byte) 127); // ::ffff:127.0.0.1
            }
            assertThat(inKafka).isEqualTo(sentHex);
        } finally {
            TestEnv.clickhouse("DROP DATABASE IF EXISTS " + db);
        }
    }

    private static List<ConsumerRecord<byte[], byte[]>> consumeAll(String topic, int expect) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestEnv.kafka());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "e2e-" + UUID.randomUUID());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            long end = System.currentTimeMillis() + 30_000;
            while (System.currentTimeMillis() < end) {
                c.poll(Duration.ofMillis(500)).forEach(all::add);
                if (all.size() >= expect) {
                    // one more poll proves nothing beyond what was sent arrives
                    c.poll(Duration.ofMillis(500)).forEach(all::add);
                    break;
                }
            }
        }
        return all;
    }

    @Test
    void oneInTenOverTwoHundredLoopsIsStatisticallyRight() throws Exception {
        String db = "e2e_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Demo.Options o = options(out, 200, 10);
        o.clickhouse = TestEnv.clickhouseUrl();
        o.clickhouseDatabase = db;
        try {
            Demo.Result r = run(o);
            long packets = 200L * 179;
            assertThat(r.dataplane().packetsReplayed()).isEqualTo(packets);
            String[] f = TestEnv.clickhouse("SELECT count(), min(SamplingRate), max(SamplingRate) FROM " + db
                    + ".flows FORMAT TabSeparated").trim().split("\t");
            long rows = Long.parseLong(f[0]);
            // 99.9 % binomial interval around 35,800 / 10: mean 3,580, sd sqrt(35,800·0.1·0.9) = 56.8, z = 3.29.
            double mean = packets / 10.0;
            double halfWidth = 3.29 * Math.sqrt(packets * 0.1 * 0.9);
            assertThat((double) rows).isBetween(mean - halfWidth, mean + halfWidth);
            assertThat(rows).isEqualTo(r.collectorFlowRows());
            assertThat(f[1]).isEqualTo("10");
            assertThat(f[2]).isEqualTo("10");
            // The last sample_pool of each source is within 10 % of the packets that source saw.
            String[] pool = TestEnv.clickhouse("SELECT SourceIdIndex, argMax(SamplePool, SampleSequence), count() FROM "
                    + db + ".flows GROUP BY SourceIdIndex FORMAT TabSeparated").trim().split("\n");
            assertThat(pool).hasSize(1); // the replay port, ifIndex 1
            String[] s = pool[0].split("\t");
            assertThat(s[0]).isEqualTo("1");
            assertThat(Double.parseDouble(s[1])).isBetween(packets * 0.9, packets * 1.1);
            assertThat(Long.parseLong(s[1])).isEqualTo(10 * Long.parseLong(s[2]));
        } finally {
            TestEnv.clickhouse("DROP DATABASE IF EXISTS " + db);
        }
    }

    @Test
    void tsharkDecodesEveryDatagramWithOurValues() throws Exception {
        Demo.Result r = run(options(out, 2, 1));
        String tshark = TestEnv.tool("tshark", "tshark");
        String decodeAs = "udp.port==" + r.collectorPort() + ",sflow";
        String pcap = r.datagramsPcap().toString();
        // The sFlow layer carries no expert information and nothing is malformed. (With the sampled headers
        // dissected too, tshark raises TCP/HTTP notes about the sampled traffic itself — truncated HTTP headers,
        // D-SACKs — so expert info is judged on the sFlow layer alone; malformed frames are judged on everything.)
        assertThat(TestEnv.run(List.of(tshark, "-r", pcap, "-d", decodeAs, "-o", "sflow.enable_dissection:FALSE",
                "-Y", "_ws.malformed || _ws.expert", "-T", "fields", "-e", "frame.number"), 60)).isEmpty();
        assertThat(TestEnv.run(List.of(tshark, "-r", pcap, "-d", decodeAs, "-Y", "_ws.malformed", "-T", "fields",
                "-e", "frame.number"), 60)).isEmpty();
        assertThat(TestEnv.run(List.of(tshark, "-r", pcap, "-d", decodeAs, "-Y", "sflow", "-T", "fields", "-e",
                "frame.number"), 60)).hasSize((int) r.agentDatagramsSent());

        // Per flow sample, tshark's fields equal the collector's rows (keyed by source and sample sequence).
        String[] fields = {"sflow.flow_sample.source_id_index", "sflow.flow_sample.sequence_number",
            "sflow.flow_sample.sampling_rate", "sflow.flow_sample.sample_pool", "sflow.flow_sample.dropped_packets",
            "sflow.flow_sample.input_interface_value", "sflow.flow_sample.output_interface_value",
            "sflow_245.header_protocol", "sflow_245.header.frame_length", "sflow_245.header.sampled_header_length"};
        List<String> cmd = new ArrayList<>(List.of(tshark, "-r", pcap, "-d", decodeAs, "-T", "fields", "-E",
                "aggregator=|", "-e", "sflow_245.agent", "-e", "sflow_245.sub_agent_id", "-e",
                "sflow_245.sequence_number"));
        for (String f : fields) {
            cmd.add("-e");
            cmd.add(f);
        }
        Map<String, String> fromTshark = new HashMap<>();
        for (String line : TestEnv.run(cmd, 60)) {
            String[] cols = line.split("\t", -1);
            assertThat(cols[0]).isEqualTo("127.0.0.1");
            assertThat(cols[1]).isEqualTo("100000");
            String datagramSeq = cols[2].split("\\|")[0];
            String[][] per = new String[fields.length][];
            for (int i = 0; i < fields.length; i++) {
                per[i] = cols[3 + i].split("\\|");
                assertThat(per[i]).hasSameSizeAs(per[0]);
            }
            for (int k = 0; k < per[0].length; k++) {
                StringBuilder v = new StringBuilder(datagramSeq);
                for (int i = 2; i < fields.length; i++) {
                    v.append(' ').append(per[i][k]);
                }
                fromTshark.put(per[0][k] + "/" + per[1][k], v.toString());
            }
        }
        Map<String, String> fromUs = new HashMap<>();
        for (String line : Files.readAllLines(out.resolve("flows.jsonl"))) {
            JsonNode j = JSON.readTree(line);
            assertThat(j.get("agent").asText()).isEqualTo("127.0.0.1");
            String key = j.get("source_id").asText().substring(2) + "/" + j.get("sample_sequence").asLong();
            String v = String.join(" ", j.get("datagram_sequence").asText(), j.get("sampling_rate").asText(),
                    j.get("sample_pool").asText(), j.get("drops").asText(), j.get("input").asText(),
                    j.get("output").asText(), j.get("header_protocol").asText(), j.get("frame_length").asText(),
                    Long.toString(Math.min(128, j.get("frame_length").asLong() - 4)));
            fromUs.put(key, v);
        }
        assertThat(fromUs).hasSize(2 * 179);
        assertThat(fromTshark).isEqualTo(fromUs);
    }
}
