package io.vecflow.collector.enrich;

import io.vecflow.collector.enrich.geoip.StaticNetwork;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Everything the enrichment stage is built from ({@link Enrichment#open}), filled from the collector's
 * {@code enrichment:} configuration section (rules already compiled, prefixes already checked).
 */
public final class EnrichmentSettings {
    /** Off: rows are stored as decoded. */
    public boolean enabled = true;
    /** Metadata cache settings (source order, refresh, expiry, bounds). */
    public MetadataCache.Settings metadata = new MetadataCache.Settings();
    /** Static exporters. */
    public List<StaticExporter> statics = new ArrayList<>();
    /** Exporter classifier. */
    public Classifier exporterRules = Classifier.NONE;
    /** Interface classifier. */
    public Classifier interfaceRules = Classifier.NONE;
    /** SNMP polling on. */
    public boolean snmp;
    /** SNMP v2c communities, tried in order. */
    public List<String> snmpCommunities = List.of("public");
    /** SNMP v3 USM user (empty = v2c). */
    public String snmpUser = "";
    /** v3 authentication protocol and passphrase (empty = none). */
    public String snmpAuthProtocol = "", snmpAuthPassphrase = "";
    /** v3 privacy protocol and passphrase (empty = none). */
    public String snmpPrivProtocol = "", snmpPrivPassphrase = "";
    /** SNMP UDP port. */
    public int snmpPort = 161;
    /** SNMP timeout per request, ms. */
    public int snmpTimeoutMs = 1000;
    /** SNMP retries. */
    public int snmpRetries = 1;
    /** Exporter address → the address to poll instead (text). */
    public Map<String, String> snmpAgents = Map.of();
    /** AS databases (MaxMind DB format). */
    public List<Path> asnDatabases = new ArrayList<>();
    /** Geo (country) databases (MaxMind DB format). */
    public List<Path> geoDatabases = new ArrayList<>();
    /** How often the database files are checked for changes, seconds. */
    public long reloadCheckSeconds = 10;
    /** Networks: prefix → attributes (from the configuration and the networks file). */
    public List<StaticNetwork> networks = new ArrayList<>();
    /** AS order, names of {@link Enricher#AS_SOURCES}. */
    public List<String> asSources = List.of("flow", "geoip");
}
