package io.vecflow.collector;

import io.vecflow.collector.sink.kafka.KafkaConnection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The collector configuration's {@code kafka.security} section (README "Security"): how the inlet, the outlet and
 * the decoded sink authenticate to the brokers and what they trust, rendered into kafka-clients' settings (Kafka
 * documentation, "Security": {@code security.protocol}, {@code ssl.*}, {@code sasl.*}).
 *
 * <pre>
 * kafka:
 *   security:
 *     protocol: SASL_SSL            # PLAINTEXT (default) | SSL | SASL_SSL
 *     sasl:
 *       mechanism: SCRAM-SHA-512    # SCRAM-SHA-512 (default) | SCRAM-SHA-256 | PLAIN (managed services)
 *       username: vecflow
 *       password: env:KAFKA_PASSWORD   # or file:PATH; text in the file makes it refused when world-readable
 *     tls:
 *       ca-file: /etc/vecflow/kafka-ca.pem        # PEM CA certificates; or truststore (PKCS12 / JKS)
 *       cert-file: /etc/vecflow/kafka-client.pem  # mutual TLS: PEM chain + PKCS#8 key; or keystore
 *       key-file: /etc/vecflow/kafka-client.key
 * </pre>
 *
 * Neither {@code ca-file} nor {@code truststore}: the JVM's default CAs (managed services with public
 * certificates). Private keys and key stores must not be readable by every user.
 */
public final class KafkaSecurityConfig {
    /** {@code PLAINTEXT}, {@code SSL} or {@code SASL_SSL}. */
    public String protocol = "PLAINTEXT";
    /** SASL login (protocol SASL_SSL). */
    public Sasl sasl = new Sasl();
    /** TLS trust and client certificate (protocols SSL and SASL_SSL). */
    public Tls tls = new Tls();

    /** The SASL mechanisms the collector speaks. */
    public static final Set<String> MECHANISMS = Set.of("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN");

    /** The {@code sasl} block. */
    public static final class Sasl {
        /** SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN. */
        public String mechanism = "SCRAM-SHA-512";
        /** Login name. */
        public String username = "";
        /** Password: the text, {@code env:NAME} or {@code file:PATH}. */
        public String password = "";
    }

    /** The {@code tls} block. */
    public static final class Tls {
        /** PEM file of the CA certificates that sign the brokers' certificates, or empty. */
        public String caFile = "";
        /** A PKCS12 ({@code .p12}, {@code .pfx}) or JKS ({@code .jks}) trust store instead of {@code ca-file}. */
        public String truststore = "";
        /** The trust store's password (text, env:, file:). */
        public String truststorePassword = "";
        /** Client certificate chain (PEM) for mutual TLS, with {@code key-file}. */
        public String certFile = "";
        /** The client's private key: PEM PKCS#8 ({@code BEGIN PRIVATE KEY} or {@code BEGIN ENCRYPTED PRIVATE KEY}). */
        public String keyFile = "";
        /** The key's password when it is encrypted (text, env:, file:). */
        public String keyPassword = "";
        /** A PKCS12 / JKS key store instead of {@code cert-file} and {@code key-file}. */
        public String keystore = "";
        /** The key store's password (text, env:, file:). */
        public String keystorePassword = "";
        /** Check that the broker's certificate names the host dialled (default true; false only for IP-only labs). */
        public boolean verifyHostname = true;
    }

    /** Replaces blocks written with no value by their defaults. @return this */
    KafkaSecurityConfig withDefaults() {
        sasl = sasl == null ? new Sasl() : sasl;
        tls = tls == null ? new Tls() : tls;
        protocol = protocol == null ? "PLAINTEXT" : protocol.toUpperCase(Locale.ROOT);
        // A key written with no value ("password:") is YAML null: it means empty.
        sasl.mechanism = sasl.mechanism == null ? "SCRAM-SHA-512" : sasl.mechanism.toUpperCase(Locale.ROOT);
        sasl.username = orEmpty(sasl.username);
        sasl.password = orEmpty(sasl.password);
        tls.caFile = orEmpty(tls.caFile);
        tls.truststore = orEmpty(tls.truststore);
        tls.truststorePassword = orEmpty(tls.truststorePassword);
        tls.certFile = orEmpty(tls.certFile);
        tls.keyFile = orEmpty(tls.keyFile);
        tls.keyPassword = orEmpty(tls.keyPassword);
        tls.keystore = orEmpty(tls.keystore);
        tls.keystorePassword = orEmpty(tls.keystorePassword);
        return this;
    }

    private static String orEmpty(String v) {
        return v == null ? "" : v;
    }

    private boolean tlsSet() {
        return !tls.caFile.isEmpty() || !tls.truststore.isEmpty() || !tls.certFile.isEmpty() || !tls.keyFile.isEmpty()
                || !tls.keystore.isEmpty();
    }

    /**
     * Checks the section: the protocol, a complete login for SASL_SSL and none otherwise, one trust source, a
     * whole client identity, readable files, keys not readable by every user.
     */
    void validate(String source, EnrichmentConfig.Checker c) {
        String k = "kafka.security.";
        c.check(source, KafkaConnection.PROTOCOLS.contains(protocol), k + "protocol", protocol,
                "PLAINTEXT, SSL or SASL_SSL (SASL_PLAINTEXT is refused: it would send flows in clear)");
        boolean saslSet = !sasl.username.isEmpty() || !sasl.password.isEmpty();
        if (protocol.equals("SASL_SSL")) {
            c.check(source, MECHANISMS.contains(sasl.mechanism), k + "sasl.mechanism", sasl.mechanism,
                    "SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN");
            c.check(source, !sasl.username.isEmpty(), k + "sasl.username", sasl.username,
                    "a user name with protocol SASL_SSL");
            c.check(source, !sasl.password.isEmpty(), k + "sasl.password", "", "a password (text, env:NAME or "
                    + "file:PATH) with protocol SASL_SSL");
        } else {
            c.check(source, !saslSet, k + "sasl", "username/password", "protocol SASL_SSL for a SASL login");
        }
        if (protocol.equals("PLAINTEXT")) {
            c.check(source, !tlsSet(), k + "tls", "(set)", "protocol SSL or SASL_SSL for TLS settings");
            return;
        }
        c.check(source, tls.caFile.isEmpty() || tls.truststore.isEmpty(), k + "tls.truststore", tls.truststore,
                "either tls.ca-file or tls.truststore, not both");
        c.check(source, tls.keystore.isEmpty() || (tls.certFile.isEmpty() && tls.keyFile.isEmpty()),
                k + "tls.keystore", tls.keystore, "either tls.keystore or tls.cert-file with tls.key-file, not both");
        c.check(source, tls.certFile.isEmpty() == tls.keyFile.isEmpty(), tls.certFile.isEmpty() ? k + "tls.key-file"
                : k + "tls.cert-file", tls.certFile.isEmpty() ? tls.keyFile : tls.certFile,
                "tls.cert-file and tls.key-file together");
        for (String[] f : new String[][] {{"tls.ca-file", tls.caFile}, {"tls.truststore", tls.truststore},
            {"tls.cert-file", tls.certFile}, {"tls.key-file", tls.keyFile}, {"tls.keystore", tls.keystore}}) {
            if (!f[1].isEmpty()) {
                Path path = Path.of(f[1]);
                c.check(source, Files.isRegularFile(path) && Files.isReadable(path), k + f[0], f[1],
                        "a readable file");
                c.check(source, size(path) <= MAX_FILE_BYTES, k + f[0], f[1], "a file of at most 1 MiB");
            }
        }
        for (String[] f : new String[][] {{"tls.key-file", tls.keyFile}, {"tls.keystore", tls.keystore}}) {
            if (!f[1].isEmpty()) {
                c.check(source, !CollectorConfig.worldReadable(Path.of(f[1])), k + f[0], f[1],
                        "a file not readable by every user (chmod o-rwx " + f[1] + ")");
            }
        }
        if (!tls.keyFile.isEmpty()) {
            String key = read(tls.keyFile);
            c.check(source, key.contains("-----BEGIN PRIVATE KEY-----")
                    || key.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----"), k + "tls.key-file", tls.keyFile,
                    "a PEM PKCS#8 key (BEGIN PRIVATE KEY); convert with: openssl pkcs8 -topk8 -nocrypt -in KEY");
            c.check(source, !key.contains("ENCRYPTED") || !tls.keyPassword.isEmpty(), k + "tls.key-password", "",
                    "the password of the encrypted key in tls.key-file");
        }
        if (!tls.certFile.isEmpty()) {
            c.check(source, read(tls.certFile).contains("-----BEGIN CERTIFICATE-----"), k + "tls.cert-file",
                    tls.certFile, "a PEM certificate chain (BEGIN CERTIFICATE)");
        }
        if (!tls.caFile.isEmpty()) {
            c.check(source, read(tls.caFile).contains("-----BEGIN CERTIFICATE-----"), k + "tls.ca-file", tls.caFile,
                    "PEM CA certificates (BEGIN CERTIFICATE)");
        }
    }

    /** @return the keys holding a secret written in the configuration file itself (not env:/file:) */
    List<String> inlineSecrets() {
        List<String> out = new ArrayList<>();
        for (String[] kv : new String[][] {{"sasl.password", sasl.password}, {"tls.truststore-password",
            tls.truststorePassword}, {"tls.keystore-password", tls.keystorePassword}, {"tls.key-password",
            tls.keyPassword}}) {
            if (!kv[1].isEmpty() && !kv[1].startsWith("env:") && !kv[1].startsWith("file:")) {
                out.add("kafka.security." + kv[0]);
            }
        }
        return out;
    }

    /** Masks the secrets written inline (for {@code --print-config}). */
    void mask() {
        sasl.password = masked(sasl.password);
        tls.truststorePassword = masked(tls.truststorePassword);
        tls.keystorePassword = masked(tls.keystorePassword);
        tls.keyPassword = masked(tls.keyPassword);
    }

    private static String masked(String v) {
        return v.isEmpty() || v.startsWith("env:") || v.startsWith("file:") ? v : "********";
    }

    /**
     * The kafka-clients properties of this section, secrets resolved (env:, file:).
     *
     * @param source the configuration's name, for errors
     * @return the properties (empty for PLAINTEXT)
     * @throws IllegalArgumentException a secret that cannot be resolved, naming its key
     */
    Map<String, Object> properties(String source) {
        Map<String, Object> p = new LinkedHashMap<>();
        if (protocol.equals("PLAINTEXT")) {
            return p;
        }
        p.put("security.protocol", protocol);
        if (!tls.caFile.isEmpty()) {
            p.put("ssl.truststore.type", "PEM");
            p.put("ssl.truststore.location", tls.caFile);
        } else if (!tls.truststore.isEmpty()) {
            p.put("ssl.truststore.type", storeType(tls.truststore));
            p.put("ssl.truststore.location", tls.truststore);
            if (!tls.truststorePassword.isEmpty()) {
                p.put("ssl.truststore.password", secret(tls.truststorePassword, source, "tls.truststore-password"));
            }
        }
        if (!tls.certFile.isEmpty()) {
            // Inline PEM: kafka-clients reads a PEM key store from one file holding both, ours are two files.
            p.put("ssl.keystore.type", "PEM");
            p.put("ssl.keystore.certificate.chain", read(tls.certFile));
            p.put("ssl.keystore.key", read(tls.keyFile));
        } else if (!tls.keystore.isEmpty()) {
            p.put("ssl.keystore.type", storeType(tls.keystore));
            p.put("ssl.keystore.location", tls.keystore);
            if (!tls.keystorePassword.isEmpty()) {
                p.put("ssl.keystore.password", secret(tls.keystorePassword, source, "tls.keystore-password"));
            }
        }
        if (!tls.keyPassword.isEmpty()) {
            p.put("ssl.key.password", secret(tls.keyPassword, source, "tls.key-password"));
        }
        for (String[] st : new String[][] {{"truststore", "ssl.truststore.location", "ssl.truststore.type",
            "ssl.truststore.password"}, {"keystore", "ssl.keystore.location", "ssl.keystore.type",
            "ssl.keystore.password"}}) {
            Object location = p.get(st[1]);
            Object password = p.get(st[3]);
            if (location != null && password != null && !"PEM".equals(p.get(st[2]))) {
                openStore(location.toString(), p.get(st[2]).toString(), password.toString(), source, st[0]);
            }
        }
        if (!tls.verifyHostname) {
            p.put("ssl.endpoint.identification.algorithm", "");
        }
        if (protocol.equals("SASL_SSL")) {
            String module = sasl.mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                    : "org.apache.kafka.common.security.scram.ScramLoginModule";
            p.put("sasl.mechanism", sasl.mechanism);
            String password = secret(sasl.password, source, "sasl.password");
            if (password.isEmpty()) {
                throw new IllegalArgumentException(source + ": kafka.security.sasl.password: " + sasl.password
                        + " holds no password (empty)");
            }
            p.put("sasl.jaas.config", module + " required username=\"" + jaasQuoted(sasl.username)
                    + "\" password=\"" + jaasQuoted(password) + "\";");
        }
        return p;
    }

    private static String secret(String v, String source, String key) {
        return EnrichmentConfig.secret(v, source, "kafka.security." + key, x -> 0);
    }

    /**
     * Opens a PKCS12 / JKS store with its password, so that a wrong password or a file of another kind is reported
     * with its key now, not as kafka-clients' "Failed to construct kafka producer" at start.
     */
    private static void openStore(String path, String type, String password, String source, String key) {
        try (var in = Files.newInputStream(Path.of(path))) {
            java.security.KeyStore.getInstance(type).load(in, password.toCharArray());
        } catch (IOException | java.security.GeneralSecurityException e) {
            throw new IllegalArgumentException(source + ": kafka.security.tls." + key + ": cannot open " + path
                    + " as a " + type + " store with tls." + key + "-password (wrong password, or not a " + type
                    + " file: " + e.getMessage() + ")");
        }
    }

    /** JAAS option values are double-quoted; a backslash or a quote inside is escaped. */
    static String jaasQuoted(String v) {
        return v.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private static String storeType(String path) {
        return path.toLowerCase(Locale.ROOT).endsWith(".jks") ? "JKS" : "PKCS12";
    }

    /** Largest key, certificate or store file read (a PEM chain is a few KiB). */
    private static final long MAX_FILE_BYTES = 1 << 20;

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return Long.MAX_VALUE;
        }
    }

    /** A checked file's text (regular, at most {@link #MAX_FILE_BYTES}), or empty when it cannot be read. */
    private static String read(String file) {
        Path p = Path.of(file);
        if (!Files.isRegularFile(p) || size(p) > MAX_FILE_BYTES) {
            return "";
        }
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
