package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code kafka.security} section: what it renders into kafka-clients' keys and what it refuses, with where. */
class KafkaSecurityConfigTest {
    @TempDir
    Path tmp;

    private static CollectorConfig parse(String security) {
        return CollectorConfig.parse("kafka:\n  bootstrap: b1:9093\n  security:\n" + security.indent(4), "c.yaml");
    }

    private Path file(String name, String text, String mode) throws Exception {
        Path f = tmp.resolve(name);
        Files.writeString(f, text);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        return f;
    }

    @Test
    void saslSslScramRendersTheJaasLineWithQuotesEscapedAndTheCaAsPemTrust() throws Exception {
        Path ca = file("ca.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", "rw-r--r--");
        Map<String, Object> p = parse("""
                protocol: sasl_ssl
                sasl: {username: vecflow, password: 'pa"ss\\word'}
                tls: {ca-file: %s}
                """.formatted(ca)).toSettings().kafkaSecurity;
        assertThat(p).containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("ssl.truststore.type", "PEM").containsEntry("ssl.truststore.location", ca.toString())
                .containsEntry("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
                        + "username=\"vecflow\" password=\"pa\\\"ss\\\\word\";");
        assertThat(p).doesNotContainKey("ssl.endpoint.identification.algorithm");
    }

    @Test
    void plainUsesThePlainLoginModuleAndHostnameCheckCanBeTurnedOff() {
        Map<String, Object> p = parse("""
                protocol: SASL_SSL
                sasl: {mechanism: PLAIN, username: u, password: p}
                tls: {verify-hostname: false}
                """).toSettings().kafkaSecurity;
        assertThat((String) p.get("sasl.jaas.config")).startsWith(
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\"");
        assertThat(p).containsEntry("ssl.endpoint.identification.algorithm", "").doesNotContainKey(
                "ssl.truststore.location"); // the JVM's CAs
    }

    @Test
    void plaintextRendersNothing() {
        assertThat(parse("protocol: PLAINTEXT\n").toSettings().kafkaSecurity).isEmpty();
        assertThat(CollectorConfig.parse("", "c.yaml").toSettings().kafkaSecurity).isEmpty();
        assertThat(CollectorConfig.parse(CollectorConfig.example(), "example").kafka.security.protocol)
                .isEqualTo("PLAINTEXT");
    }

    @Test
    void saslPlaintextIsRefusedWithTheReason() {
        assertThatThrownBy(() -> parse("protocol: SASL_PLAINTEXT\n")).hasMessageContaining("c.yaml line 4")
                .hasMessageContaining("kafka.security.protocol").hasMessageContaining("would send flows in clear");
    }

    @Test
    void incompleteOrMisplacedSettingsAreRefusedNamingTheKey() throws Exception {
        assertThatThrownBy(() -> parse("protocol: SASL_SSL\nsasl: {username: u}\n"))
                .hasMessageContaining("kafka.security.sasl.password");
        assertThatThrownBy(() -> parse("protocol: SSL\nsasl: {username: u, password: p}\n"))
                .hasMessageContaining("kafka.security.sasl").hasMessageContaining("protocol SASL_SSL");
        assertThatThrownBy(() -> parse("tls: {ca-file: /nonexistent/ca.pem}\n"))
                .hasMessageContaining("kafka.security.tls").hasMessageContaining("protocol SSL or SASL_SSL");
        assertThatThrownBy(() -> parse("protocol: SSL\ntls: {ca-file: /nonexistent/ca.pem}\n"))
                .hasMessageContaining("kafka.security.tls.ca-file").hasMessageContaining("a readable file");
        Path cert = file("c.pem", "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n", "rw-r--r--");
        assertThatThrownBy(() -> parse("protocol: SSL\ntls: {cert-file: " + cert + "}\n"))
                .hasMessageContaining("kafka.security.tls.cert-file").hasMessageContaining("together");
        // a device is no certificate, and a secret read from one would never end
        assertThatThrownBy(() -> parse("protocol: SSL\ntls: {ca-file: /dev/zero}\n"))
                .hasMessageContaining("kafka.security.tls.ca-file").hasMessageContaining("a readable file");
        assertThatThrownBy(() -> parse("protocol: SASL_SSL\nsasl: {username: u, password: \"file:/dev/zero\"}\n")
                .toSettings()).hasMessageContaining("kafka.security.sasl.password")
                .hasMessageContaining("not a regular file");
        assertThatThrownBy(() -> parse("protocol: SSL\ntls: {mechanism: x}\n"))
                .hasMessageContaining("mechanism");
    }

    @Test
    void aKeyEveryUserCanReadOrAPkcs1KeyIsRefused() throws Exception {
        Path cert = file("c.pem", "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n", "rw-r--r--");
        Path open = file("open.key", "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n", "rw-r--r--");
        assertThatThrownBy(() -> parse("protocol: SSL\ntls: {cert-file: " + cert + ", key-file: " + open + "}\n"))
                .hasMessageContaining("kafka.security.tls.key-file").hasMessageContaining("chmod o-rwx " + open);
        Path rsa = file("rsa.key", "-----BEGIN RSA PRIVATE KEY-----\n-----END RSA PRIVATE KEY-----\n", "rw-------");
        assertThatThrownBy(() -> parse("protocol: SSL\ntls: {cert-file: " + cert + ", key-file: " + rsa + "}\n"))
                .hasMessageContaining("PKCS#8").hasMessageContaining("openssl pkcs8 -topk8");
        Path enc = file("enc.key", "-----BEGIN ENCRYPTED PRIVATE KEY-----\n-----END ENCRYPTED PRIVATE KEY-----\n",
                "rw-------");
        assertThatThrownBy(() -> parse("protocol: SSL\ntls: {cert-file: " + cert + ", key-file: " + enc + "}\n"))
                .hasMessageContaining("kafka.security.tls.key-password");
    }

    @Test
    void inlinePasswordsAreMaskedAndMakeAWorldReadableFileRefused() throws Exception {
        String yaml = """
                kafka:
                  bootstrap: b1:9093
                  security:
                    protocol: SASL_SSL
                    sasl: {username: u, password: hunter2}
                """;
        CollectorConfig c = CollectorConfig.parse(yaml, "c.yaml");
        assertThat(c.toYaml()).doesNotContain("hunter2").contains("********");
        Path open = file("open.yaml", yaml, "rw-r--r--");
        assertThatThrownBy(() -> CollectorConfig.load(open)).hasMessageContaining("kafka.security.sasl.password")
                .hasMessageContaining("chmod o-rwx");
        Path closed = file("closed.yaml", yaml, "rw-r-----");
        assertThat(CollectorConfig.load(closed).toSettings().kafkaSecurity.get("sasl.jaas.config").toString())
                .contains("password=\"hunter2\"");
        // env: and file: references are not secrets in the file: kept as written, the file may be world-readable
        Path pw = file("pw", "from-file\n", "rw-------");
        Path ref = file("ref.yaml", yaml.replace("hunter2", "\"file:" + pw + "\""), "rw-r--r--");
        CollectorConfig r = CollectorConfig.load(ref);
        assertThat(r.toYaml()).contains("file:" + pw);
        assertThat(r.toSettings().kafkaSecurity.get("sasl.jaas.config").toString())
                .contains("password=\"from-file\"");
    }

    @Test
    void aWrongStorePasswordAnEmptyPasswordFileAndAUrlPasswordAreRefusedNamingTheKey() throws Exception {
        TlsFixture tls = TlsFixture.make(tmp.resolve("tls"));
        Path wrong = file("wrong", "not-the-password", "rw-------");
        assertThatThrownBy(() -> parse("""
                protocol: SSL
                tls: {truststore: "%s", truststore-password: "file:%s"}
                """.formatted(tls.path("truststore.p12"), wrong)).toSettings())
                .hasMessageContaining("kafka.security.tls.truststore").hasMessageContaining("wrong password")
                .hasMessageNotContaining("not-the-password");
        Path empty = file("empty", "\n", "rw-------");
        assertThatThrownBy(() -> parse("protocol: SASL_SSL\nsasl: {username: u, password: \"file:" + empty
                + "\"}\n").toSettings()).hasMessageContaining("kafka.security.sasl.password").hasMessageContaining(
                        "holds no password");
        assertThatThrownBy(() -> CollectorConfig.parse("clickhouse:\n  url: https://w:Secret1@ch:8443\n", "c.yaml"))
                .hasMessageContaining("clickhouse.url").hasMessageContaining("https://***@ch:8443")
                .hasMessageNotContaining("Secret1");
        assertThatThrownBy(() -> CollectorConfig.parse("clickhouse:\n  url: https://ch:8443\n  ca-file: /dev/zero\n",
                "c.yaml")).hasMessageContaining("clickhouse.ca-file").hasMessageContaining("at most 1 MiB");
        assertThatThrownBy(() -> parse("protocol: " + "X".repeat(300_000) + "\n"))
                .hasMessageContaining("(300000 characters)").satisfies(e -> assertThat(e.getMessage().length())
                        .isLessThan(2000));
    }
}
