package io.vecflow.collector;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.vecflow.collector.console.ConsoleSettings;
import io.vecflow.collector.inlet.Admission;
import io.vecflow.collector.inlet.KafkaRawSink;
import io.vecflow.collector.inlet.UdpInlet;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.sink.forward.ForwardSink;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The collector's YAML configuration ({@code ./vecflow collector --config FILE}). Keys are kebab-case; every key is
 * optional and documented with its default in {@link #example()} (the resource {@code collector-example.yaml}).
 * Unknown keys and values out of range are errors that name the key and the line.
 */
public final class CollectorConfig {
    /** Role: inlet, outlet or all. */
    public String role = "all";
    /** UDP listener. */
    public Listen listen = new Listen();
    /** Kafka. */
    public Kafka kafka = new Kafka();
    /** ClickHouse. */
    public ClickHouse clickhouse = new ClickHouse();
    /** The embedded store (DuckDB), used when there is no ClickHouse. */
    public DuckDb duckdb = new DuckDb();
    /** JSON-lines file, empty = off. */
    @JsonProperty("json-lines")
    public String jsonLines = "";
    /** Forward targets host:port. */
    public List<String> forward = new ArrayList<>();
    /** Admission control. */
    public AdmissionConfig admission = new AdmissionConfig();
    /** Prometheus endpoint. */
    public Metrics metrics = new Metrics();
    /** The inlet's spool. */
    public Spool spool = new Spool();
    /** The web console. */
    public Console console = new Console();
    /** agents rows interval, ms. */
    @JsonProperty("loss-interval-ms")
    public long lossIntervalMs = 10_000;
    /**
     * Enterprise number of the "vecflow LB decision" flow record (1..2^20−1; the agents' hsflowd.conf
     * {@code psample { lbEnterprise }}); default {@value io.vecflow.sflow.LbDecisionRecord#DEFAULT_ENTERPRISE}.
     */
    @JsonProperty("lb-enterprise")
    public int lbEnterprise = io.vecflow.sflow.LbDecisionRecord.DEFAULT_ENTERPRISE;
    /** Enrichment (exporter/interface metadata, classifiers, networks, GeoIP). */
    public EnrichmentConfig enrichment = new EnrichmentConfig();

    /** The {@code listen} section. */
    public static final class Listen {
        /** Address to bind. */
        public String address = "0.0.0.0";
        /** UDP port. */
        public int port = 6343;
        /** Receive threads. */
        public int threads = 2;
        /** SO_RCVBUF, bytes. */
        public int receiveBufferBytes = 8 << 20;
        /** Largest datagram received whole, bytes. */
        public int maxDatagramBytes = UdpInlet.DEFAULT_MAX_DATAGRAM_BYTES;
        /** Datagrams per recvmmsg. */
        public int readBatch = UdpInlet.DEFAULT_BATCH;
    }

    /** The {@code kafka} section. */
    public static final class Kafka {
        /** Bootstrap servers, empty = off. */
        public String bootstrap = "";
        /** Raw topic. */
        public String rawTopic = KafkaRawSink.DEFAULT_TOPIC;
        /** Partitions when created. */
        public int partitions = 8;
        /** Outlet consumer group. */
        public String consumerGroup = "vecflow-outlet";
        /** Decoded topic, empty = off. */
        public String decodedTopic = "";
        /** TLS and SASL to the brokers (README "Security"). */
        public KafkaSecurityConfig security = new KafkaSecurityConfig();
    }

    /** The {@code clickhouse} section. */
    public static final class ClickHouse {
        /** HTTP URL, empty = off. */
        public String url = "";
        /** User. */
        public String user = "default";
        /**
         * Password: the text, {@code env:NAME} or {@code file:PATH} (empty: {@link #passwordFile}, else the
         * environment variable {@code VECFLOW_CLICKHOUSE_PASSWORD}).
         */
        public String password = "";
        /** A file holding the password (its text, stripped; refused when every user may read it), or empty. */
        public String passwordFile = "";
        /** PEM CA certificates that sign an {@code https://} server's certificate; empty = the JVM's CAs. */
        public String caFile = "";
        /** Database. */
        public String database = "vecflow";
        /** Rows per insert. */
        public int batchRows = 50_000;
        /** Flush interval, ms. */
        public long flushMs = 1000;
        /** Pending bytes per table. */
        public long maxPendingBytes = 64L << 20;
        /** Retention days per table. */
        public Map<String, Integer> retentionDays = new LinkedHashMap<>();
    }

    /**
     * The {@code duckdb} section: the embedded store of one box (README "Console"). With a {@code path} it takes the
     * place of ClickHouse (the two exclude each other); without one it is the collector's store when nothing else
     * is configured (no {@code clickhouse.url}, {@code json-lines}, {@code kafka}, {@code forward}) and the role is
     * not {@code inlet}. Batches and retention follow the {@code clickhouse} section's {@code batch-rows},
     * {@code flush-ms} and {@code retention-days}.
     */
    public static final class DuckDb {
        /** The database file; empty = {@link #defaultPath()}; {@code off} = no embedded store. */
        public String path = "";

        /**
         * @return {@code /var/lib/vecflow/vecflow.duckdb} for root (the packages' StateDirectory), else
         *     {@code $XDG_STATE_HOME/vecflow/vecflow.duckdb} ({@code ~/.local/state/vecflow/vecflow.duckdb})
         */
        public static Path defaultPath() {
            return Spool.defaultDirectory().resolveSibling("vecflow.duckdb");
        }
    }

    /** The {@code admission} section. */
    public static final class AdmissionConfig {
        /** Agent prefixes; empty = all. */
        public List<String> allow = new ArrayList<>();
        /** Datagrams/s per agent, 0 = none. */
        public long rateLimit;
        /** Burst in datagrams, 0 = rate. */
        public long burst;
    }

    /** The {@code spool} section: where the inlet keeps datagrams its downstream cannot take now. */
    public static final class Spool {
        /** On (default) or off (datagrams the downstream cannot take are then lost, counted). */
        public boolean enabled = true;
        /** Directory; empty = {@link #defaultDirectory()}{@code /udp-PORT} (one per listening port). */
        public String directory = "";
        /** Most bytes held. */
        public long maxBytes = 4L << 30;
        /** Bytes per segment file. */
        public int segmentBytes = 16 << 20;

        /**
         * @return {@code /var/lib/vecflow/spool} for root (the packages' StateDirectory), else
         *     {@code $XDG_STATE_HOME/vecflow/spool} ({@code ~/.local/state/vecflow/spool})
         */
        public static Path defaultDirectory() {
            if ("root".equals(System.getProperty("user.name"))) {
                return Path.of("/var/lib/vecflow/spool");
            }
            String xdg = System.getenv("XDG_STATE_HOME");
            Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg)
                    : Path.of(System.getProperty("user.home"), ".local", "state");
            return base.resolve("vecflow").resolve("spool");
        }
    }

    /**
     * The {@code console} section: the web console the collector serves over its store (README "Console",
     * docs/console-api.md). Off by default; the Debian package's configuration turns it on, on loopback.
     */
    public static final class Console {
        /** Serve the console. */
        public boolean enabled;
        /** {@code ADDR:PORT} to listen on ({@code [v6]:PORT} for IPv6). */
        public String listen = ConsoleSettings.DEFAULT_HOST + ":" + ConsoleSettings.DEFAULT_PORT;
        /** {@code none}, {@code basic} or {@code header}. */
        public String auth = "none";
        /** Basic users: name → PBKDF2 hash ({@code vecflow console --hash-password}). */
        public Map<String, String> users = new LinkedHashMap<>();
        /** The trusted proxy's user header (auth {@code header}). */
        public String header = ConsoleSettings.DEFAULT_HEADER;

        /**
         * @return the settings this section describes
         * @throws IllegalArgumentException if a value is invalid (the message names it, never a hash's value)
         */
        public ConsoleSettings settings() {
            int colon = listen.lastIndexOf(':');
            if (colon <= 0 || colon == listen.length() - 1) {
                throw new IllegalArgumentException("need ADDR:PORT, e.g. 127.0.0.1:8080");
            }
            String host = listen.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(listen.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("need ADDR:PORT, e.g. 127.0.0.1:8080");
            }
            return new ConsoleSettings(host, port, ConsoleSettings.Auth.parse(auth), users, header);
        }
    }

    /** The {@code metrics} section. */
    public static final class Metrics {
        /** Address of the endpoint. */
        public String listen = "127.0.0.1";
        /** TCP port, 0 = off. */
        public int port = 9477;
        /**
         * Basic-auth users of the endpoint: name → PBKDF2 hash ({@code vecflow console --hash-password}); empty =
         * no authentication (the endpoint is on loopback by default).
         */
        public Map<String, String> users = new LinkedHashMap<>();
    }

    private static final ObjectMapper YAML = yaml();

    /**
     * The mapper; a list or map key written with no value ("sources:") is YAML null and means the empty list or map,
     * never a null the code would trip on (found by ConfigFuzzTest); a null inside one ("as-sources: [flow, null]",
     * "interfaces: {eth0: }") is an error naming the key (found by ConfigFuzzTest too). Scalars keep null: an unset
     * metadata field.
     */
    private static ObjectMapper yaml() {
        ObjectMapper m = new ObjectMapper(new YAMLFactory());
        for (Class<?> c : new Class<?>[] {List.class, Map.class}) {
            m.configOverride(c).setSetterInfo(com.fasterxml.jackson.annotation.JsonSetter.Value.construct(
                    com.fasterxml.jackson.annotation.Nulls.AS_EMPTY, com.fasterxml.jackson.annotation.Nulls.FAIL));
        }
        return m.setPropertyNamingStrategy(PropertyNamingStrategies.KEBAB_CASE)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                .registerModule(new com.fasterxml.jackson.databind.module.SimpleModule("vecflow-lines")
                        .setDeserializerModifier(new EnrichmentConfig.LineModifier()));
    }

    /**
     * A text key written with no value ({@code url:}) is YAML null: in these sections it means the empty text, as if
     * not written (found by ConfigFuzzTest). The enrichment section keeps its nulls (an unset metadata field).
     */
    private static void emptyForNull(Object section) {
        for (java.lang.reflect.Field f : section.getClass().getFields()) {
            if (f.getType() == String.class && !java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                try {
                    if (f.get(section) == null) {
                        f.set(section, "");
                    }
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    /** The YAML text this configuration was parsed from (for line numbers in messages), or null. */
    @com.fasterxml.jackson.annotation.JsonIgnore
    private String text;

    /** Tables defined outside the collector that it creates too (the lab's, added by the {@code vecflow} command). */
    @com.fasterxml.jackson.annotation.JsonIgnore
    private List<FlowSchema.Table> extraTables = List.of();

    /**
     * Reads and validates a configuration file.
     *
     * @param file the YAML file
     * @return the configuration
     * @throws IllegalArgumentException for an unknown key, a wrong type or a value out of range; the message names the
     *     file, the key and the line
     * @throws IOException if the file cannot be read
     */
    public static CollectorConfig load(Path file) throws IOException {
        return load(file, List.of());
    }

    /**
     * Reads and validates a configuration file for a collector that also keeps tables defined outside the collector
     * (the lab's, which the {@code vecflow} command adds): their names are valid {@code retention-days} keys.
     *
     * @param file the YAML file
     * @param extraTables tables created and migrated next to the collector's own
     * @return the configuration
     * @throws IllegalArgumentException as {@link #load(Path)}
     * @throws IOException if the file cannot be read
     */
    public static CollectorConfig load(Path file, List<FlowSchema.Table> extraTables) throws IOException {
        CollectorConfig c = parse(Files.readString(file, StandardCharsets.UTF_8), file.toString(), extraTables);
        List<String> secrets = c.inlineSecrets();
        if (!secrets.isEmpty() && worldReadable(file)) {
            // Refused, not warned: a flow store's credentials in a file every local user can read.
            throw new IllegalArgumentException(file + " is readable by every user and holds " + String.join(", ",
                    secrets) + ": chmod o-rwx " + file + " (chgrp it to the collector's group, e.g. "
                    + "vecflow-collector), or move the secret out (clickhouse.password-file, env:NAME / file:PATH, "
                    + "VECFLOW_CLICKHOUSE_PASSWORD)");
        }
        return c;
    }

    /**
     * Parses and validates YAML text.
     *
     * @param yaml the text (empty = every default)
     * @param source name for messages (file name)
     * @return the configuration
     * @throws IllegalArgumentException as {@link #load}
     */
    public static CollectorConfig parse(String yaml, String source) {
        return parse(yaml, source, List.of());
    }

    /**
     * Parses and validates YAML text, with tables defined outside the collector (see {@link #load(Path, List)}).
     *
     * @throws IllegalArgumentException as {@link #load}
     */
    public static CollectorConfig parse(String yaml, String source, List<FlowSchema.Table> extraTables) {
        CollectorConfig c;
        try {
            c = yaml.isBlank() ? new CollectorConfig() : YAML.readValue(yaml, CollectorConfig.class);
            if (c == null) {
                c = new CollectorConfig();
            }
            // A section written with no value (e.g. "listen:") is YAML null: it means the defaults.
            c.listen = c.listen == null ? new Listen() : c.listen;
            c.kafka = c.kafka == null ? new Kafka() : c.kafka;
            c.kafka.security = (c.kafka.security == null ? new KafkaSecurityConfig() : c.kafka.security)
                    .withDefaults();
            c.clickhouse = c.clickhouse == null ? new ClickHouse() : c.clickhouse;
            c.clickhouse.caFile = c.clickhouse.caFile == null ? "" : c.clickhouse.caFile.strip();
            c.duckdb = c.duckdb == null ? new DuckDb() : c.duckdb;
            c.duckdb.path = c.duckdb.path == null ? "" : c.duckdb.path.strip();
            c.admission = c.admission == null ? new AdmissionConfig() : c.admission;
            c.metrics = c.metrics == null ? new Metrics() : c.metrics;
            c.metrics.users = c.metrics.users == null ? new LinkedHashMap<>() : c.metrics.users;
            c.spool = c.spool == null ? new Spool() : c.spool;
            c.console = c.console == null ? new Console() : c.console;
            c.console.users = c.console.users == null ? new LinkedHashMap<>() : c.console.users;
            for (Object section : new Object[] {c, c.listen, c.kafka, c.clickhouse, c.duckdb, c.admission, c.metrics,
                c.spool, c.console}) {
                emptyForNull(section);
            }
            c.spool.directory = c.spool.directory == null ? "" : c.spool.directory;
            c.forward = c.forward == null ? new ArrayList<>() : c.forward;
            c.jsonLines = c.jsonLines == null ? "" : c.jsonLines;
            c.enrichment = c.enrichment == null ? new EnrichmentConfig() : c.enrichment.withDefaults();
            c.text = yaml;
            c.extraTables = List.copyOf(extraTables);
        } catch (UnrecognizedPropertyException e) {
            throw new IllegalArgumentException(source + " line " + line(e.getLocation()) + ": unknown key '"
                    + path(e) + "' (known here: " + e.getKnownPropertyIds() + ")");
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(source + " line " + line(e.getLocation()) + ": "
                    + (e instanceof com.fasterxml.jackson.databind.JsonMappingException m && !m.getPath().isEmpty()
                            ? "key '" + path(m) + "': " : "")
                    + e.getOriginalMessage().lines().findFirst().orElse(""));
        }
        c.validate(source);
        return c;
    }

    private static int line(JsonLocation l) {
        return l == null ? 0 : l.getLineNr();
    }

    private static String path(com.fasterxml.jackson.databind.JsonMappingException e) {
        StringBuilder b = new StringBuilder();
        for (com.fasterxml.jackson.databind.JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                b.append(b.isEmpty() ? "" : ".").append(r.getFieldName());
            } else {
                b.append('[').append(r.getIndex()).append(']');
            }
        }
        return b.toString();
    }

    /** @return the documented example configuration (every key at its default). */
    public static String example() {
        try (InputStream in = CollectorConfig.class.getResourceAsStream("collector-example.yaml")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the role as an enum. */
    public Collector.Role roleEnum() {
        return Collector.Role.valueOf(role.toUpperCase(Locale.ROOT));
    }

    /**
     * Checks every value.
     *
     * @throws IllegalArgumentException naming the source, the key, the value and the allowed range
     */
    public void validate(String source) {
        check(source, List.of("inlet", "outlet", "all").contains(role), "role", role, "inlet, outlet or all");
        check(source, listen.port >= 1 && listen.port <= 65535, "listen.port", listen.port, "1..65535");
        check(source, listen.threads >= 1 && listen.threads <= 64, "listen.threads", listen.threads, "1..64");
        check(source, listen.receiveBufferBytes >= 65536, "listen.receive-buffer-bytes", listen.receiveBufferBytes,
                ">= 65536");
        check(source, listen.maxDatagramBytes >= 1500 && listen.maxDatagramBytes <= 65507,
                "listen.max-datagram-bytes", listen.maxDatagramBytes, "1500..65507");
        check(source, listen.readBatch >= 1 && listen.readBatch <= 1024, "listen.read-batch", listen.readBatch,
                "1..1024");
        try {
            InetAddress.getByName(listen.address);
        } catch (UnknownHostException e) {
            check(source, false, "listen.address", listen.address, "an address of this host");
        }
        check(source, kafka.partitions >= 1 && kafka.partitions <= 10_000, "kafka.partitions", kafka.partitions,
                "1..10000");
        check(source, kafka.rawTopic.matches("[A-Za-z0-9._-]{1,249}"), "kafka.raw-topic", kafka.rawTopic,
                "a Kafka topic name");
        check(source, kafka.decodedTopic.isEmpty() || kafka.decodedTopic.matches("[A-Za-z0-9._-]{1,249}"),
                "kafka.decoded-topic", kafka.decodedTopic, "a Kafka topic name or empty");
        check(source, !kafka.consumerGroup.isBlank(), "kafka.consumer-group", kafka.consumerGroup, "non-empty");
        kafka.security.validate(source, this::check);
        check(source, clickhouse.password.isEmpty() || clickhouse.passwordFile.isEmpty(), "clickhouse.password-file",
                clickhouse.passwordFile, "either clickhouse.password or clickhouse.password-file, not both");
        check(source, clickhouse.url.isEmpty()
                || clickhouse.url.matches("https?://([^/:\\s\\[\\]]+|\\[[0-9A-Fa-f:.]+\\]):\\d{1,5}/?"),
                "clickhouse.url", clickhouse.url, "http://host:port (https for TLS) or empty; the user and password "
                + "go in clickhouse.user and clickhouse.password-file, never in the URL");
        check(source, clickhouse.caFile.isEmpty() || clickhouse.url.startsWith("https://"), "clickhouse.ca-file",
                clickhouse.caFile, "an https:// clickhouse.url");
        check(source, clickhouse.caFile.isEmpty() || (Files.isRegularFile(Path.of(clickhouse.caFile))
                && Files.isReadable(Path.of(clickhouse.caFile)) && Path.of(clickhouse.caFile).toFile().length()
                <= 1 << 20), "clickhouse.ca-file", clickhouse.caFile, "a readable PEM file of at most 1 MiB");
        for (String b : kafka.bootstrap.isBlank() ? new String[0] : kafka.bootstrap.split(",")) {
            check(source, b.trim().matches("([^:\\s\\[\\]]+|\\[[0-9A-Fa-f:.]+\\]):\\d{1,5}"), "kafka.bootstrap",
                    kafka.bootstrap, "host:port[,host:port]");
        }
        if (console.enabled) {
            try {
                console.settings();
            } catch (IllegalArgumentException e) {
                String key = e.getMessage().contains("user") ? "console.users" : e.getMessage().contains("auth")
                        ? "console.auth" : "console.listen";
                check(source, false, key, key.equals("console.users") ? "(hidden)" : key.equals("console.auth")
                        ? console.auth : console.listen, e.getMessage());
            }
        }
        try {
            io.vecflow.common.BasicCredentials.checkUsers("metrics", metrics.users == null ? Map.of() : metrics.users);
        } catch (IllegalArgumentException e) {
            check(source, false, "metrics.users", "(hidden)", e.getMessage());
        }
        try {
            InetAddress.getByName(metrics.listen);
        } catch (UnknownHostException e) {
            check(source, false, "metrics.listen", metrics.listen, "an address of this host");
        }
        for (int i = 0; i < forward.size(); i++) {
            try {
                ForwardSink.parseTarget(forward.get(i));
            } catch (IllegalArgumentException e) {
                check(source, false, "forward", forward.get(i), e.getMessage());
            }
        }
        if (!admission.allow.isEmpty()) {
            try {
                new Admission(admission.allow, 0);
            } catch (IllegalArgumentException e) {
                check(source, false, "admission.allow", admission.allow, e.getMessage());
            }
        }
        check(source, clickhouse.database.matches("[A-Za-z_][A-Za-z0-9_]*"), "clickhouse.database",
                clickhouse.database, "letters, digits and _");
        check(source, clickhouse.batchRows >= 1 && clickhouse.batchRows <= 1_000_000, "clickhouse.batch-rows",
                clickhouse.batchRows, "1..1000000");
        check(source, clickhouse.flushMs >= 10 && clickhouse.flushMs <= 600_000, "clickhouse.flush-ms",
                clickhouse.flushMs, "10..600000");
        check(source, clickhouse.maxPendingBytes >= 1 << 20, "clickhouse.max-pending-bytes",
                clickhouse.maxPendingBytes, ">= 1048576");
        List<FlowSchema.Table> tables = new ArrayList<>(FlowSchema.TABLES);
        tables.addAll(extraTables);
        for (Map.Entry<String, Integer> e : clickhouse.retentionDays.entrySet()) {
            boolean known = tables.stream().anyMatch(t -> t.name().equals(e.getKey()));
            check(source, known, "clickhouse.retention-days." + e.getKey(), e.getKey(), "a vecflow table ("
                    + tables.stream().map(FlowSchema.Table::name).toList() + ")");
            check(source, e.getValue() != null && e.getValue() >= 1 && e.getValue() <= 36_500,
                    "clickhouse.retention-days." + e.getKey(), e.getValue(), "1..36500");
        }
        check(source, admission.rateLimit >= 0, "admission.rate-limit", admission.rateLimit, ">= 0");
        check(source, admission.burst >= 0, "admission.burst", admission.burst, ">= 0");
        check(source, metrics.port >= 0 && metrics.port <= 65535, "metrics.port", metrics.port, "0..65535");
        check(source, spool.segmentBytes >= 1 << 20 && spool.segmentBytes <= 1 << 30 && spool.segmentBytes % 8 == 0,
                "spool.segment-bytes", spool.segmentBytes, "1048576..1073741824, a multiple of 8");
        check(source, spool.maxBytes >= spool.segmentBytes, "spool.max-bytes", spool.maxBytes,
                ">= spool.segment-bytes");
        check(source, lossIntervalMs >= 100, "loss-interval-ms", lossIntervalMs, ">= 100");
        check(source, lbEnterprise >= 1 && lbEnterprise <= io.vecflow.sflow.LbDecisionRecord.MAX_ENTERPRISE,
                "lb-enterprise", lbEnterprise, "1..1048575");
        enrichmentSettings(source);
        Collector.Role r = roleEnum();
        check(source, r == Collector.Role.ALL || !kafka.bootstrap.isBlank(), "kafka.bootstrap", kafka.bootstrap,
                "set for role " + role);
        check(source, kafka.decodedTopic.isEmpty() || !kafka.bootstrap.isBlank(), "kafka.bootstrap",
                kafka.bootstrap, "set when kafka.decoded-topic is");
        check(source, duckdb.path.isEmpty() || duckdb.path.equals("off") || clickhouse.url.isEmpty(), "duckdb.path",
                duckdb.path, "empty or off when clickhouse.url is set: one store");
    }

    /**
     * The enrichment stage's settings from the {@code enrichment} section ({@link EnrichmentConfig#settings}).
     *
     * @param source the configuration's name, for messages
     * @return the settings
     * @throws IllegalArgumentException naming the source, the line and the key of what is wrong
     */
    public io.vecflow.collector.enrich.EnrichmentSettings enrichmentSettings(String source) {
        return enrichment.settings(source, this::check, key -> text == null ? 0 : lineOf(text, key));
    }

    /**
     * @return the embedded store's file this configuration writes, or null when it writes none (see {@link DuckDb})
     */
    public Path embeddedStore() {
        if (roleEnum() == Collector.Role.INLET || !clickhouse.url.isEmpty() || duckdb.path.equals("off")) {
            return null;
        }
        if (!duckdb.path.isEmpty()) {
            return Path.of(duckdb.path);
        }
        boolean other = !jsonLines.isEmpty() || !kafka.decodedTopic.isEmpty() || !kafka.bootstrap.isBlank()
                || !forward.isEmpty();
        return other ? null : DuckDb.defaultPath();
    }

    /**
     * Checks that the role has somewhere to put what it receives (a separate step from {@link #validate}, so the
     * documented defaults parse).
     *
     * @throws IllegalArgumentException naming the role and the keys that would give it a sink
     */
    public void requireSinks(String source) {
        Collector.Role r = roleEnum();
        boolean rowSink = !clickhouse.url.isEmpty() || !jsonLines.isEmpty() || !kafka.decodedTopic.isEmpty()
                || embeddedStore() != null;
        if (r == Collector.Role.OUTLET) {
            check(source, rowSink, "clickhouse.url", clickhouse.url,
                    "a row sink for role outlet (clickhouse.url, json-lines or kafka.decoded-topic)");
        } else if (r == Collector.Role.ALL) {
            check(source, rowSink || !kafka.bootstrap.isBlank() || !forward.isEmpty(), "clickhouse.url",
                    clickhouse.url,
                            "a sink (clickhouse.url, json-lines, kafka.bootstrap, kafka.decoded-topic or forward)");
        }
    }

    void check(String source, boolean ok, String key, Object value, String allowed) {
        if (!ok) {
            int line = text == null ? 0 : lineOf(text, key);
            // a URL's user:password is never echoed; a huge value is cut
            String v = String.valueOf(value).replaceAll("//[^/@\\s]*@", "//***@");
            v = v.length() > 200 ? v.substring(0, 200) + "... (" + v.length() + " characters)" : v;
            throw new IllegalArgumentException(source + (line > 0 ? " line " + line : "") + ": " + key + " = '" + v
                    + "' is invalid (" + (allowed.contains("need ") ? allowed : "need " + allowed) + ")");
        }
    }

    /**
     * The line of a dotted key ({@code listen.port}) in block-style YAML: each key is matched at a deeper indent
     * than its parent. Flow-style maps ({@code {a: 1}}) are matched on their parent's line.
     *
     * @return the 1-based line, or 0 when the key is not written (a default)
     */
    static int lineOf(String yaml, String dottedKey) {
        String[] parts = dottedKey.split("\\.");
        String[] lines = yaml.split("\n", -1);
        int part = 0;
        int parentIndent = -1;
        int found = 0;
        for (int i = 0; i < lines.length && part < parts.length; i++) {
            String l = lines[i];
            String t = l.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            int indent = l.indexOf(t.charAt(0));
            if (found > 0 && indent <= parentIndent) {
                return found; // left the parent's block without finding the child
            }
            if (indent > parentIndent && (t.startsWith(parts[part] + ":") || t.startsWith(parts[part] + " :"))) {
                found = i + 1;
                if (t.contains("{") && part + 1 < parts.length) {
                    return found;
                }
                parentIndent = indent;
                part++;
            }
        }
        return found;
    }

    /**
     * The settings this configuration gives.
     *
     * @return collector settings
     */
    public Collector.Settings toSettings() {
        Collector.Settings s = new Collector.Settings();
        s.role = roleEnum();
        s.bindAddress = listen.address;
        s.port = listen.port;
        s.threads = listen.threads;
        s.receiveBufferBytes = listen.receiveBufferBytes;
        s.maxDatagramBytes = listen.maxDatagramBytes;
        s.readBatch = listen.readBatch;
        s.kafkaBootstrap = kafka.bootstrap.isBlank() ? null : kafka.bootstrap;
        s.kafkaSecurity = kafka.security.properties("configuration");
        s.kafkaRawTopic = kafka.rawTopic;
        s.kafkaPartitions = kafka.partitions;
        s.kafkaConsumerGroup = kafka.consumerGroup;
        s.kafkaDecodedTopic = kafka.decodedTopic.isEmpty() ? null : kafka.decodedTopic;
        s.clickhouseUrl = clickhouse.url.isEmpty() ? null : clickhouse.url;
        s.duckdbPath = embeddedStore();
        s.clickhouseUser = clickhouse.user;
        s.clickhousePassword = clickhousePassword();
        s.clickhouseCaFile = clickhouse.caFile.isEmpty() ? null : Path.of(clickhouse.caFile);
        s.clickhouseDatabase = clickhouse.database;
        s.clickhouseBatchRows = clickhouse.batchRows;
        s.clickhouseFlushMs = clickhouse.flushMs;
        s.clickhouseMaxPendingBytes = clickhouse.maxPendingBytes;
        s.clickhouseTtlDays = new LinkedHashMap<>(clickhouse.retentionDays);
        s.clickhouseExtraTables = extraTables;
        s.jsonLines = jsonLines.isEmpty() ? null : Path.of(jsonLines);
        s.forwardTargets = List.copyOf(forward);
        s.allowPrefixes = List.copyOf(admission.allow);
        s.rateLimit = admission.rateLimit;
        s.burst = admission.burst;
        s.lossIntervalMs = lossIntervalMs;
        s.lbEnterprise = lbEnterprise;
        s.spoolDirectory = !spool.enabled ? null
                : spool.directory.isEmpty() ? Spool.defaultDirectory().resolve("udp-" + listen.port)
                : Path.of(spool.directory);
        s.spoolMaxBytes = spool.maxBytes;
        s.spoolSegmentBytes = spool.segmentBytes;
        s.enrichment = enrichmentSettings("configuration");
        return s;
    }

    /**
     * A secret read from a file a command-line option names ({@code --password-file}): its text, stripped, with the
     * checks of the configuration's {@code file:} secrets (a regular file of at most 64 KiB that not every user may
     * read).
     *
     * @param file the file
     * @param option the option, for messages ({@code --password-file})
     * @return the text
     * @throws IllegalArgumentException naming the option and the file when it cannot be read or is refused
     */
    public static String secretFile(Path file, String option) {
        return EnrichmentConfig.secret("file:" + file, option, "file", k -> 0);
    }

    /**
     * The ClickHouse password: {@code clickhouse.password-file}'s text, else {@code clickhouse.password} (its
     * {@code env:}/{@code file:} forms resolved), else {@code VECFLOW_CLICKHOUSE_PASSWORD}, else empty.
     *
     * @throws IllegalArgumentException a file that cannot be read or that every user may read, a variable not set
     */
    public String clickhousePassword() {
        if (!clickhouse.passwordFile.isEmpty()) {
            return EnrichmentConfig.secret("file:" + clickhouse.passwordFile, "configuration",
                    "clickhouse.password-file", k -> 0);
        }
        if (!clickhouse.password.isEmpty()) {
            return EnrichmentConfig.secret(clickhouse.password, "configuration", "clickhouse.password", k -> 0);
        }
        String env = System.getenv("VECFLOW_CLICKHOUSE_PASSWORD");
        return env == null ? "" : env;
    }

    /**
     * @param f a file
     * @return true when the file exists and its POSIX permissions let every user read it
     */
    static boolean worldReadable(Path f) {
        try {
            return Files.getPosixFilePermissions(f).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_READ);
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /** @return the keys that hold a secret written in the file itself (not an env:/file: reference) */
    List<String> inlineSecrets() {
        List<String> out = new ArrayList<>();
        if (!clickhouse.password.isEmpty() && !clickhouse.password.startsWith("env:")
                && !clickhouse.password.startsWith("file:")) {
            out.add("clickhouse.password");
        }
        out.addAll(kafka.security.inlineSecrets());
        EnrichmentConfig.Snmp sn = enrichment.metadata.snmp;
        for (String[] kv : new String[][] {{"auth-passphrase", sn.authPassphrase}, {"priv-passphrase",
            sn.privPassphrase}}) {
            if (!kv[1].isEmpty() && !kv[1].startsWith("env:") && !kv[1].startsWith("file:")) {
                out.add("enrichment.metadata.snmp." + kv[0]);
            }
        }
        if (sn.enabled && !sn.communities.isEmpty() && !sn.communities.equals(List.of("public"))) {
            out.add("enrichment.metadata.snmp.communities");
        }
        return out;
    }

    /** @return this configuration as YAML (passwords masked), for {@code --print-config}. */
    public String toYaml() {
        try {
            CollectorConfig copy = YAML.readValue(YAML.writeValueAsString(this), CollectorConfig.class);
            if (copy.inlineSecrets().contains("clickhouse.password")) {
                copy.clickhouse.password = "********";
            }
            copy.kafka.security.mask();
            copy.console.users.replaceAll((user, hash) -> "********");
            copy.metrics.users.replaceAll((user, hash) -> "********");
            EnrichmentConfig.Snmp sn = copy.enrichment.metadata.snmp;
            sn.authPassphrase = sn.authPassphrase.isEmpty() || sn.authPassphrase.startsWith("env:")
                    || sn.authPassphrase.startsWith("file:") ? sn.authPassphrase : "********";
            sn.privPassphrase = sn.privPassphrase.isEmpty() || sn.privPassphrase.startsWith("env:")
                    || sn.privPassphrase.startsWith("file:") ? sn.privPassphrase : "********";
            if (!sn.communities.equals(List.of("public"))) {
                sn.communities = sn.communities.stream().map(x -> "********").toList();
            }
            return YAML.writeValueAsString(copy);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
