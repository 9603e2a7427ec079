package io.vecflow.collector.enrich;

import io.vecflow.collector.enrich.geoip.NetworksCsv;
import io.vecflow.collector.enrich.geoip.StaticNetwork;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Builds the enrichment stage from its settings, and the checks the configuration runs. */
public final class Enrichment {
    private Enrichment() {}

    /**
     * Opens the enrichment stage: the metadata cache (with an SNMP poller when on), the GeoIP databases and networks.
     *
     * @param s settings
     * @param stats counters
     * @return the enricher, or null when enrichment is off
     * @throws IOException if a database cannot be read
     */
    public static Enricher open(EnrichmentSettings s, EnrichmentStats stats) throws IOException {
        if (!s.enabled) {
            return null;
        }
        MetadataPoller poller = s.snmp && s.metadata.sources.contains("snmp") ? new SnmpMetadataPoller(s) : null;
        MetadataCache cache = new MetadataCache(s.metadata, s.statics, s.exporterRules, s.interfaceRules, poller,
                stats);
        NetworkSource networks = null;
        if (!s.asnDatabases.isEmpty() || !s.geoDatabases.isEmpty() || !s.networks.isEmpty()) {
            try {
                networks = new GeoIpSource(s);
            } catch (IOException | RuntimeException e) {
                cache.close();
                throw e;
            }
        }
        return new Enricher(cache, networks, s.asSources, stats, cache, networks);
    }

    /**
     * @param prefix an address or prefix
     * @throws IllegalArgumentException naming it when it is not one, or has host bits set
     */
    public static void checkPrefix(String prefix) {
        Prefixes.parse(prefix);
    }

    /**
     * Checks SNMP credentials (protocol names).
     *
     * @param s settings
     * @throws IllegalArgumentException naming the bad value and the allowed ones
     */
    public static void checkSnmp(EnrichmentSettings s) {
        SnmpMetadataPoller.credentials(s);
        for (Map.Entry<String, String> e : s.snmpAgents.entrySet()) {
            Prefixes.parse(e.getKey());
            Prefixes.parse(e.getValue());
        }
    }

    /**
     * Reads a networks CSV.
     *
     * @param file the file
     * @return its networks
     * @throws IOException if it cannot be read
     * @throws IllegalArgumentException naming the file, line and column of what is wrong
     */
    public static List<StaticNetwork> readNetworks(Path file) throws IOException {
        return NetworksCsv.parse(file);
    }
}
