package io.vecflow.collector;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.vecflow.collector.enrich.Classifier;
import io.vecflow.collector.enrich.ClassifierRule;
import io.vecflow.collector.enrich.Enricher;
import io.vecflow.collector.enrich.Enrichment;
import io.vecflow.collector.enrich.EnrichmentSettings;
import io.vecflow.collector.enrich.MetadataCache;
import io.vecflow.collector.enrich.StaticExporter;
import io.vecflow.collector.enrich.geoip.StaticNetwork;
import io.vecflow.collector.schema.InterfaceInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The collector configuration's {@code enrichment} section (README "Enrichment"; docs/enrichment.md): exporter and
 * interface metadata (static entries, SNMP), classifier rules, GeoIP databases, networks and the AS order, as YAML
 * binds it, and its conversion into the enrichment stage's settings with every value checked. Entries remember the
 * line they were written on, so that errors name it.
 */
public final class EnrichmentConfig {
    /** Off: rows are stored as decoded. */
    public boolean enabled = true;
    /** Exporter and interface metadata. */
    public Metadata metadata = new Metadata();
    /** Classifier rules. */
    public Classifiers classifiers = new Classifiers();
    /** MaxMind DB files. */
    public GeoIp geoip = new GeoIp();
    /** Networks: prefix → attributes. */
    public List<NetworkEntry> networks = new ArrayList<>();
    /** A CSV of networks ({@code prefix,name,role,site,region,tenant,country,asn}), empty = none. */
    public String networksFile = "";
    /** AS order: flow, flow-except-private, geoip. */
    public List<String> asSources = new ArrayList<>(List.of("flow", "geoip"));

    /** Replaces sections written with no value (YAML null) by their defaults. @return this */
    EnrichmentConfig withDefaults() {
        metadata = metadata == null ? new Metadata() : metadata;
        metadata.snmp = metadata.snmp == null ? new Snmp() : metadata.snmp;
        classifiers = classifiers == null ? new Classifiers() : classifiers;
        geoip = geoip == null ? new GeoIp() : geoip;
        networks = networks == null ? new ArrayList<>() : networks;
        networksFile = networksFile == null ? "" : networksFile;
        return this;
    }

    /** The configuration's value check (throws naming the source, the key's line, the value and what is allowed). */
    interface Checker {
        void check(String source, boolean ok, String key, Object value, String allowed);
    }

    /**
     * The enrichment stage's settings: rules compiled, prefixes, sources and files checked.
     *
     * @param source the configuration's name, for messages
     * @param check the configuration's check (names the key's line)
     * @param lineOf a dotted key's line in the configuration (0 unknown)
     * @return the settings
     * @throws IllegalArgumentException naming the source, the line and the key of what is wrong
     */
    EnrichmentSettings settings(String source, Checker check,
            java.util.function.ToIntFunction<String> lineOf) {
        EnrichmentConfig en = this;
        var out = new EnrichmentSettings();
        out.enabled = en.enabled;
        Metadata m = en.metadata;
        for (String s : m.sources) {
            check.check(source, MetadataCache.SOURCES.contains(s), "enrichment.metadata.sources",
                    s, "one of " + MetadataCache.SOURCES);
        }
        check.check(source, m.sources.stream().distinct().count() == m.sources.size(), "enrichment.metadata.sources",
                m.sources, "no source twice");
        check.check(source, m.refreshSeconds >= 10, "enrichment.metadata.refresh-seconds", m.refreshSeconds, ">= 10");
        check.check(source, m.expireSeconds >= 60, "enrichment.metadata.expire-seconds", m.expireSeconds, ">= 60");
        check.check(source, m.maxExporters >= 1 && m.maxExporters <= 1_000_000, "enrichment.metadata.max-exporters",
                m.maxExporters, "1..1000000");
        check.check(source, m.maxInterfaces >= 1 && m.maxInterfaces <= 1_000_000, "enrichment.metadata.max-interfaces",
                m.maxInterfaces, "1..1000000");
        out.metadata.sources = List.copyOf(m.sources);
        out.metadata.refreshMs = m.refreshSeconds * 1000;
        out.metadata.expireMs = m.expireSeconds * 1000;
        out.metadata.maxExporters = m.maxExporters;
        out.metadata.maxInterfaces = m.maxInterfaces;
        for (StaticEntry e : m.statics) {
            String where = source + " line " + e.line + ": enrichment.metadata.static";
            try {
                Enrichment.checkPrefix(e.exporter);
            } catch (IllegalArgumentException x) {
                throw new IllegalArgumentException(where + ".exporter: " + x.getMessage());
            }
            Map<Long, StaticExporter.Interface> ifs = new LinkedHashMap<>();
            for (Map.Entry<String, InterfaceEntry> i : e.interfaces.entrySet()) {
                long idx;
                try {
                    idx = Long.parseLong(i.getKey().strip());
                } catch (NumberFormatException x) {
                    idx = -1;
                }
                if (idx < 1 || idx > 0xFFFF_FFFFL) {
                    throw new IllegalArgumentException(where + ".interfaces: '" + i.getKey()
                            + "' is not an ifIndex (need 1..4294967295)");
                }
                ifs.put(idx, staticInterface(where + ".interfaces." + i.getKey(), i.getValue()));
            }
            out.statics.add(new StaticExporter(e.exporter,
                    new StaticExporter.Exporter(e.name, e.group, e.role, e.site, e.region,
                            e.tenant), ifs, e.defaultInterface == null ? null
                            : staticInterface(where + ".default-interface", e.defaultInterface), e.line));
        }
        Snmp sn = m.snmp;
        out.snmp = sn.enabled;
        check.check(source, sn.port >= 1 && sn.port <= 65535, "enrichment.metadata.snmp.port", sn.port, "1..65535");
        check.check(source, sn.timeoutMs >= 10 && sn.timeoutMs <= 60_000, "enrichment.metadata.snmp.timeout-ms",
                sn.timeoutMs, "10..60000");
        check.check(source, sn.retries >= 0 && sn.retries <= 10, "enrichment.metadata.snmp.retries", sn.retries,
                "0..10");
        check.check(source, !sn.enabled || !sn.user.isEmpty() || !sn.communities.isEmpty(),
                "enrichment.metadata.snmp.communities", sn.communities, "a community, or a v3 user");
        out.snmpCommunities = List.copyOf(sn.communities);
        out.snmpUser = sn.user;
        out.snmpAuthProtocol = sn.authProtocol;
        out.snmpAuthPassphrase = secret(sn.authPassphrase, source, "enrichment.metadata.snmp.auth-passphrase", lineOf);
        out.snmpPrivProtocol = sn.privProtocol;
        out.snmpPrivPassphrase = secret(sn.privPassphrase, source, "enrichment.metadata.snmp.priv-passphrase", lineOf);
        out.snmpPort = sn.port;
        out.snmpTimeoutMs = sn.timeoutMs;
        out.snmpRetries = sn.retries;
        out.snmpAgents = Map.copyOf(sn.agents);
        if (sn.enabled) {
            try {
                Enrichment.checkSnmp(out);
            } catch (IllegalArgumentException x) {
                String key = "enrichment.metadata.snmp." + snmpKey(x.getMessage());
                int line = lineOf.applyAsInt(key);
                throw new IllegalArgumentException(source + (line > 0 ? " line " + line : "") + ": " + key + ": "
                        + x.getMessage());
            }
        }
        List<ClassifierRule> rules = new ArrayList<>();
        for (RuleEntry r : en.classifiers.exporters) {
            rules.add(new ClassifierRule(r.match, r.set, r.line));
        }
        out.exporterRules = Classifier.exporters(rules, source);
        rules = new ArrayList<>();
        for (RuleEntry r : en.classifiers.interfaces) {
            rules.add(new ClassifierRule(r.match, r.set, r.line));
        }
        out.interfaceRules = Classifier.interfaces(rules, source);
        for (String f : en.geoip.asnDatabases) {
            check.check(source, Files.isReadable(Path.of(f)), "enrichment.geoip.asn-databases", f, "a readable file");
            out.asnDatabases.add(Path.of(f));
        }
        for (String f : en.geoip.geoDatabases) {
            check.check(source, Files.isReadable(Path.of(f)), "enrichment.geoip.geo-databases", f, "a readable file");
            out.geoDatabases.add(Path.of(f));
        }
        check.check(source, en.geoip.reloadCheckSeconds >= 1, "enrichment.geoip.reload-check-seconds",
                en.geoip.reloadCheckSeconds, ">= 1");
        out.reloadCheckSeconds = en.geoip.reloadCheckSeconds;
        for (NetworkEntry n : en.networks) {
            String where = source + " line " + n.line;
            try {
                Enrichment.checkPrefix(n.prefix);
            } catch (IllegalArgumentException x) {
                throw new IllegalArgumentException(where + ": enrichment.networks.prefix: " + x.getMessage());
            }
            if (!n.country.isEmpty() && !n.country.matches("[A-Za-z]{2}")) {
                throw new IllegalArgumentException(where + ": enrichment.networks.country '" + n.country
                        + "' (need an ISO 3166-1 alpha-2 code, e.g. FR)");
            }
            if (n.asn < 0 || n.asn > 0xFFFF_FFFFL) {
                throw new IllegalArgumentException(where + ": enrichment.networks.asn " + n.asn
                        + " (need 0..4294967295)");
            }
            out.networks.add(new StaticNetwork(n.prefix, n.name, n.role,
                    n.site, n.region, n.tenant, n.country.toUpperCase(Locale.ROOT), n.asn, where));
        }
        if (!en.networksFile.isEmpty()) {
            check.check(source, Files.isReadable(Path.of(en.networksFile)), "enrichment.networks-file", en.networksFile,
                    "a readable CSV file");
            try {
                out.networks.addAll(Enrichment.readNetworks(Path.of(en.networksFile)));
            } catch (IOException x) {
                throw new IllegalArgumentException(x.getMessage());
            }
        }
        for (String a : en.asSources) {
            check.check(source, Enricher.AS_SOURCES.contains(a), "enrichment.as-sources", a,
                    "one of " + Enricher.AS_SOURCES);
        }
        out.asSources = List.copyOf(en.asSources);
        return out;
    }

    private static StaticExporter.Interface staticInterface(String where,
            InterfaceEntry i) {
        if (!i.boundary.isEmpty() && !InterfaceInfo.BOUNDARIES.contains(i.boundary)) {
            throw new IllegalArgumentException(where + ".boundary '" + i.boundary + "' (need one of "
                    + InterfaceInfo.BOUNDARIES + ")");
        }
        if (i.speed < 0 || i.speed > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(where + ".speed " + i.speed + " (Mb/s, need 0..4294967295)");
        }
        return new StaticExporter.Interface(i.name, i.description, i.speed, i.boundary,
                i.provider, i.connectivity);
    }

    /** A secret written as {@code env:NAME} or {@code file:PATH} is read from there; other text is itself. */
    /**
     * A secret's value: {@code env:NAME} (the environment variable), {@code file:PATH} (the file's text, stripped;
     * refused when every user may read the file), or the text itself.
     *
     * @throws IllegalArgumentException naming the source, line and key, never the value
     */
    static String secret(String v, String source, String key, java.util.function.ToIntFunction<String> lineOf) {
        if (!v.startsWith("env:") && !v.startsWith("file:")) {
            return v;
        }
        int line = lineOf.applyAsInt(key);
        String where = source + (line > 0 ? " line " + line : "") + ": " + key + ": ";
        if (v.startsWith("env:")) {
            String e = System.getenv(v.substring(4));
            if (e == null) {
                throw new IllegalArgumentException(where + "the environment variable " + v.substring(4)
                        + " (" + v + ") is not set");
            }
            return e;
        }
        try {
            Path f = Path.of(v.substring(5));
            if (Files.exists(f) && (!Files.isRegularFile(f) || Files.size(f) > 65_536)) {
                throw new IllegalArgumentException(where + "the secret file " + f + " is not a regular file of at "
                        + "most 64 KiB");
            }
            if (CollectorConfig.worldReadable(f)) {
                throw new IllegalArgumentException(where + "the secret file " + f + " is readable by every user: "
                        + "chmod o-rwx " + f);
            }
            return Files.readString(f, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new IllegalArgumentException(where + "cannot read the secret file " + v.substring(5) + ": " + e);
        }
    }

    /** The snmp key an SNMP credentials error is about, from its message (the block itself when it names none). */
    private static String snmpKey(String message) {
        String m = message == null ? "" : message;
        if (m.contains("authentication protocol")) {
            return "auth-protocol";
        }
        if (m.contains("privacy protocol")) {
            return "priv-protocol";
        }
        if (m.contains("authentication passphrase")) {
            return "auth-passphrase";
        }
        if (m.contains("privacy passphrase")) {
            return "priv-passphrase";
        }
        if (m.contains("community")) {
            return "communities";
        }
        return m.contains("user") ? "user" : "agents";
    }


    /** {@code enrichment.metadata}. */
    public static final class Metadata {
        /** Source order: static, snmp, sflow. */
        public List<String> sources = new ArrayList<>(MetadataCache.SOURCES);
        /** Re-poll interval, s. */
        public long refreshSeconds = 3600;
        /** Evict exporters not seen for this long, s. */
        public long expireSeconds = 7200;
        /** Most exporters cached. */
        public int maxExporters = 10_000;
        /** Most interfaces cached per exporter. */
        public int maxInterfaces = 65_536;
        /** Static exporters. */
        @JsonProperty("static")
        public List<StaticEntry> statics = new ArrayList<>();
        /** SNMP polling. */
        public Snmp snmp = new Snmp();
    }

    /** An entry of {@code enrichment.metadata.static}. */
    public static final class StaticEntry extends Located {
        /** Exporter address or prefix. */
        public String exporter = "";
        /** Exporter name and classification. */
        public String name = "", group = "", role = "", site = "", region = "", tenant = "";
        /** ifIndex → interface. */
        public Map<String, InterfaceEntry> interfaces = new LinkedHashMap<>();
        /** Interface metadata for ifIndexes not listed, or null. */
        public InterfaceEntry defaultInterface;
    }

    /** An interface of a static entry. */
    public static final class InterfaceEntry {
        /** ifName, description. */
        public String name = "", description = "";
        /** Speed, Mb/s. */
        public long speed;
        /** external, internal, undefined (or empty). */
        public String boundary = "";
        /** Provider, connectivity. */
        public String provider = "", connectivity = "";
    }

    /** {@code enrichment.metadata.snmp}. */
    public static final class Snmp {
        /** Poll exporters. */
        public boolean enabled;
        /** v2c communities, tried in order. */
        public List<String> communities = new ArrayList<>(List.of("public"));
        /** v3 USM user; empty = v2c. */
        public String user = "";
        /** v3 authentication protocol (MD5, SHA, SHA-224, SHA-256, SHA-384, SHA-512) and passphrase. */
        public String authProtocol = "", authPassphrase = "";
        /** v3 privacy protocol (DES, AES, AES-192, AES-256) and passphrase. */
        public String privProtocol = "", privPassphrase = "";
        /** UDP port. */
        public int port = 161;
        /** Timeout per request, ms. */
        public int timeoutMs = 1000;
        /** Retries. */
        public int retries = 1;
        /** Exporter address → the address to poll. */
        public Map<String, String> agents = new LinkedHashMap<>();
    }

    /** {@code enrichment.classifiers}. */
    public static final class Classifiers {
        /** Exporter rules. */
        public List<RuleEntry> exporters = new ArrayList<>();
        /** Interface rules. */
        public List<RuleEntry> interfaces = new ArrayList<>();
    }

    /** A classifier rule. */
    public static final class RuleEntry extends Located {
        /** Field → regular expression (or comparison for speed). */
        public Map<String, String> match = new LinkedHashMap<>();
        /** Output → template. */
        public Map<String, String> set = new LinkedHashMap<>();
    }

    /** {@code enrichment.geoip}. */
    public static final class GeoIp {
        /** AS databases (MaxMind DB files). */
        public List<String> asnDatabases = new ArrayList<>();
        /** Country databases (MaxMind DB files). */
        public List<String> geoDatabases = new ArrayList<>();
        /** Seconds between checks for changed files. */
        public long reloadCheckSeconds = 10;
    }

    /** An entry of {@code enrichment.networks}. */
    public static final class NetworkEntry extends Located {
        /** Prefix. */
        public String prefix = "";
        /** Attributes. */
        public String name = "", role = "", site = "", region = "", tenant = "", country = "";
        /** AS number override, 0 none. */
        public long asn;
    }

    /** A list entry that remembers the line it was written on (for messages). */
    public abstract static class Located {
        /** 1-based line in the configuration, 0 unknown. */
        @com.fasterxml.jackson.annotation.JsonIgnore
        public int line;
    }

    /** Sets {@link Located#line} from the parser's location as each such entry is read. */
    static final class LineModifier extends com.fasterxml.jackson.databind.deser.BeanDeserializerModifier {
        @Override
        public com.fasterxml.jackson.databind.JsonDeserializer<?> modifyDeserializer(
                com.fasterxml.jackson.databind.DeserializationConfig config,
                com.fasterxml.jackson.databind.BeanDescription desc,
                com.fasterxml.jackson.databind.JsonDeserializer<?> deserializer) {
            if (!Located.class.isAssignableFrom(desc.getBeanClass())) {
                return deserializer;
            }
            return new LineDeserializer(deserializer);
        }
    }

    private static final class LineDeserializer
            extends com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer {
        LineDeserializer(com.fasterxml.jackson.databind.JsonDeserializer<?> d) {
            super(d);
        }

        @Override
        protected com.fasterxml.jackson.databind.JsonDeserializer<?> newDelegatingInstance(
                com.fasterxml.jackson.databind.JsonDeserializer<?> d) {
            return new LineDeserializer(d);
        }

        @Override
        public Object deserialize(com.fasterxml.jackson.core.JsonParser p,
                com.fasterxml.jackson.databind.DeserializationContext ctx) throws IOException {
            int line = p.currentTokenLocation().getLineNr();
            Object o = super.deserialize(p, ctx);
            if (o instanceof Located l) {
                l.line = line;
            }
            return o;
        }
    }

}
