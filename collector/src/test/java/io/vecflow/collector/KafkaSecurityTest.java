package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.inlet.EpochNanos;
import io.vecflow.collector.inlet.KafkaRawSink;
import io.vecflow.collector.sink.kafka.KafkaConnection;
import io.vecflow.collector.sink.kafka.KafkaDecodedSink;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collector's Kafka clients against a real broker with TLS and SASL (issue "Let no one in who doesn't belong"):
 * a KRaft broker started here by {@code scripts/services/kafka.sh} with an SSL listener that requires a client
 * certificate and a SASL_SSL listener taking SCRAM-SHA-512 and PLAIN, on certificates this test makes with openssl
 * and keytool ({@link TlsFixture}). Asserted: a whole collector (inlet → raw topic → outlet) over SASL_SSL/SCRAM
 * stores every sample exactly once; mutual TLS with PEM files and with PKCS12 stores, and PLAIN, carry records
 * byte-exact; a wrong password, a missing client certificate and a broker signed by another CA are refused with
 * the broker's or the TLS layer's reason, quickly.
 */
class KafkaSecurityTest {
    private static final String SCRAM_USER = "vecflow", SCRAM_PASSWORD = "scram-pw_1";
    private static final String PLAIN_USER = "managed", PLAIN_PASSWORD = "plain-pw_2";

    @TempDir
    static Path tmp;

    private static TlsFixture tls, stranger;
    private static int plainPort, controllerPort, sslPort, saslSslPort;
    private static Path brokerDir;
    private static Path passwordFile;

    @BeforeAll
    static void broker() throws Exception {
        tls = TlsFixture.make(tmp.resolve("tls"));
        stranger = TlsFixture.make(tmp.resolve("stranger"));
        plainPort = ServiceScript.freePort();
        controllerPort = ServiceScript.freePort();
        sslPort = ServiceScript.freePort();
        saslSslPort = ServiceScript.freePort();
        brokerDir = tmp.resolve("kafka");
        passwordFile = tmp.resolve("kafka-password");
        Files.writeString(passwordFile, SCRAM_PASSWORD + "\n");
        Files.setPosixFilePermissions(passwordFile, PosixFilePermissions.fromString("rw-------"));
        script("start");
    }

    @AfterAll
    static void stop() throws Exception {
        if (brokerDir != null) {
            script("stop");
        }
    }

    private static void script(String action) throws IOException, InterruptedException {
        ServiceScript.run("kafka.sh", action, brokerDir, Map.of("VF_KAFKA_PORT", Integer.toString(plainPort),
                "VF_KAFKA_CONTROLLER_PORT", Integer.toString(controllerPort), "VF_KAFKA_SSL_PORT",
                Integer.toString(sslPort), "VF_KAFKA_SASL_SSL_PORT", Integer.toString(saslSslPort),
                "VF_KAFKA_TLS_DIR", tls.dir.toString(), "VF_KAFKA_TLS_PASSWORD", TlsFixture.PASSWORD,
                "VF_KAFKA_USERS", SCRAM_USER + ":" + SCRAM_PASSWORD + "," + PLAIN_USER + ":" + PLAIN_PASSWORD));
    }

    /** The kafka-clients properties a {@code kafka.security} YAML block renders to, through the real config. */
    private static KafkaConnection connection(int port, String securityYaml) {
        CollectorConfig c = CollectorConfig.parse("""
                kafka:
                  bootstrap: 127.0.0.1:%d
                  security:
                %s""".formatted(port, securityYaml.indent(4)), "test.yaml");
        Collector.Settings s = c.toSettings();
        return new KafkaConnection(s.kafkaBootstrap, s.kafkaSecurity);
    }

    private String scramYaml() {
        return """
                protocol: SASL_SSL
                sasl: {mechanism: SCRAM-SHA-512, username: %s, password: "file:%s"}
                tls: {ca-file: "%s"}
                """.formatted(SCRAM_USER, passwordFile, tls.path("ca.pem"));
    }

    @Test
    void aWholeCollectorOverSaslSslScramStoresEverySampleOnce() throws Exception {
        String topic = "sec-raw-" + TestSupport.suffix();
        CollectorConfig c = CollectorConfig.parse("""
                role: all
                listen: {address: 127.0.0.1}
                kafka:
                  bootstrap: 127.0.0.1:%d
                  raw-topic: %s
                  consumer-group: g-%s
                  partitions: 2
                  security:
                %s""".formatted(saslSslPort, topic, topic, scramYaml().indent(4)), "test.yaml");
        Collector.Settings s = c.toSettings();
        s.port = 0;
        s.clickhouseFlushMs = 200;
        s.spoolDirectory = null;
        TestSupport.CopyingSink copy = new TestSupport.CopyingSink();
        s.extraFlowSinks.add(copy);
        SyntheticAgents agents = new SyntheticAgents(3, 4);
        try (Collector col = new Collector(s);
                TestSupport.Sender tx = new TestSupport.Sender(new InetSocketAddress("127.0.0.1",
                        col.localAddress().getPort()))) {
            List<byte[]> d = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                d.add(agents.next(i % 3));
            }
            tx.sendPaced(d, 64, () -> col.stats().datagramsReceived.sum());
            TestSupport.await("every sample through Kafka over SASL_SSL", Duration.ofSeconds(15),
                    () -> copy.size() >= agents.samples(), () -> copy.size() + " of " + agents.samples());
            Thread.sleep(300); // a duplicate would arrive in this time
            Set<String> unique = new HashSet<>();
            for (var r : copy.rows()) {
                unique.add(TestSupport.addr(r.agentAddress) + "/" + r.sampleSequence);
            }
            assertThat(copy.size()).isEqualTo(1200);
            assertThat(unique).hasSize(1200);
        }
    }

    @Test
    void mutualTlsWithPemFilesCarriesRecordsByteExact() throws Exception {
        KafkaConnection k = connection(sslPort, """
                protocol: SSL
                tls: {ca-file: "%s", cert-file: "%s", key-file: "%s"}
                """.formatted(tls.path("ca.pem"), tls.path("client.pem"), tls.path("client.key")));
        assertThat(k.protocol()).isEqualTo("SSL");
        assertThat(k.toString()).isEqualTo("127.0.0.1:" + sslPort + " (SSL)").doesNotContain("PRIVATE");
        roundTrip(k, "sec-pem-" + TestSupport.suffix());
    }

    @Test
    void mutualTlsWithPkcs12StoresAndPasswordsFromFilesCarriesDecodedRows() throws Exception {
        Path storePw = tmp.resolve("store-password");
        Files.writeString(storePw, TlsFixture.PASSWORD);
        Files.setPosixFilePermissions(storePw, PosixFilePermissions.fromString("rw-------"));
        KafkaConnection k = connection(sslPort, """
                protocol: SSL
                tls:
                  truststore: "%s"
                  truststore-password: "file:%s"
                  keystore: "%s"
                  keystore-password: "file:%s"
                  key-password: "file:%s"
                """.formatted(tls.path("truststore.p12"), storePw, tls.path("client.p12"), storePw, storePw));
        String topic = "sec-p12-" + TestSupport.suffix();
        try (KafkaDecodedSink sink = new KafkaDecodedSink(k, topic, 1, Map.of())) {
            var row = new io.vecflow.collector.schema.FlowRow();
            row.sampleSequence = 77;
            row.bytes = 1500;
            sink.accept(row);
            sink.flush();
            assertThat(sink.rowsWritten()).isEqualTo(1);
            assertThat(sink.rowsFailed()).isZero();
        }
        assertThat(consume(k, topic, 1)).hasSize(1);
    }

    @Test
    void plainOverSaslSslForManagedServices() throws Exception {
        KafkaConnection k = connection(saslSslPort, """
                protocol: SASL_SSL
                sasl: {mechanism: PLAIN, username: %s, password: "%s"}
                tls: {ca-file: "%s"}
                """.formatted(PLAIN_USER, PLAIN_PASSWORD, tls.path("ca.pem")));
        roundTrip(k, "sec-plain-" + TestSupport.suffix());
    }

    @Test
    void aWrongPasswordIsRefusedWithTheBrokersReason() {
        KafkaConnection k = connection(saslSslPort, """
                protocol: SASL_SSL
                sasl: {username: %s, password: not-the-password}
                tls: {ca-file: "%s"}
                """.formatted(SCRAM_USER, tls.path("ca.pem")));
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> new KafkaRawSink(k, "sec-refused-" + TestSupport.suffix(), 1, true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("127.0.0.1:" + saslSslPort + " (SASL_SSL)")
                .hasMessageContaining("Authentication failed")
                .hasMessageNotContaining("not-the-password");
        assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(15));
    }

    @Test
    void noClientCertificateOnTheMutualTlsListenerIsRefused() {
        KafkaConnection k = connection(sslPort, """
                protocol: SSL
                tls: {ca-file: "%s"}
                """.formatted(tls.path("ca.pem")));
        assertThatThrownBy(() -> new KafkaRawSink(k, "sec-nocert-" + TestSupport.suffix(), 1, true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("certificate_required")
                .hasMessageContaining("needs tls.cert-file and tls.key-file");
    }

    @Test
    void aBrokerSignedByAnotherCaIsNotTrusted() {
        KafkaConnection k = connection(saslSslPort, """
                protocol: SASL_SSL
                sasl: {username: %s, password: "file:%s"}
                tls: {ca-file: "%s"}
                """.formatted(SCRAM_USER, passwordFile, stranger.path("ca.pem")));
        assertThatThrownBy(() -> new KafkaRawSink(k, "sec-stranger-" + TestSupport.suffix(), 1, true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("SSL handshake failed")
                .hasMessageContaining("PKIX path building failed")
                .hasMessageContaining("signed by kafka.security.tls.ca-file");
    }

    /** Writes distinct raw datagrams through a KafkaRawSink on {@code k} and reads them back byte-exact. */
    private static void roundTrip(KafkaConnection k, String topic) throws Exception {
        List<byte[]> sent = new ArrayList<>();
        try (KafkaRawSink sink = new KafkaRawSink(k, topic, 1, true)) {
            byte[] src = TestSupport.addr16("127.0.0.1");
            for (int i = 0; i < 50; i++) {
                byte[] d = ("datagram " + i + " over " + k.protocol()).getBytes(StandardCharsets.UTF_8);
                sent.add(d);
                sink.accept(d, 0, d.length, EpochNanos.now(), src, 6343);
            }
            sink.flush();
            assertThat(sink.failed()).isZero();
        }
        List<byte[]> got = consume(k, topic, sent.size());
        assertThat(got).hasSize(sent.size());
        for (int i = 0; i < sent.size(); i++) {
            assertThat(got.get(i)).isEqualTo(sent.get(i));
        }
    }

    private static List<byte[]> consume(KafkaConnection k, String topic, int n) {
        Properties p = k.applyTo(new Properties());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "sec-read-" + topic);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<byte[]> got = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (got.size() < n && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    got.add(r.value());
                }
            }
        }
        return got;
    }
}
