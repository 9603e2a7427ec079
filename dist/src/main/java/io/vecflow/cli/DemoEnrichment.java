package io.vecflow.cli;

import io.vecflow.collector.enrich.Classifier;
import io.vecflow.collector.enrich.ClassifierRule;
import io.vecflow.collector.enrich.EnrichmentSettings;
import io.vecflow.collector.enrich.StaticExporter;
import io.vecflow.collector.enrich.geoip.StaticNetwork;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;

/**
 * What the demo's collector enriches rows with, so that its columns mean something on one box with no SNMP agent:
 * static metadata for the demo router (127.0.0.1: the replay port ifIndex 1 and its cross-connect ifIndex 2),
 * classifier rules over their descriptions, a networks list for the capture's private addresses, and the bundled
 * AS and country databases ({@code testdata/geoip}: small extracts of real data covering the capture's public
 * addresses, copied next to the demo's output so the collector can watch them as it would real files).
 */
final class DemoEnrichment {
    /** The bundled databases (resources of this jar, from testdata/geoip). */
    static final List<String> DATABASES = List.of("demo-asn.mmdb", "demo-country.mmdb");

    private DemoEnrichment() {}

    /**
     * @param out the demo's output folder (the databases are copied to {@code out/geoip})
     * @return the enrichment settings
     * @throws IOException if the bundled databases cannot be copied
     */
    static EnrichmentSettings settings(Path out) throws IOException {
        EnrichmentSettings s = new EnrichmentSettings();
        s.metadata.sources = List.of("static", "sflow");
        s.statics.add(new StaticExporter("127.0.0.1", new StaticExporter.Exporter("demo-router1.lab1", "", "", "",
                "eu-west", ""), Map.of(
                        1L, new StaticExporter.Interface("xe-0/0/1", "transit: Example Transit [AS64500]", 10_000, "",
                                "", ""),
                        2L, new StaticExporter.Interface("xe-0/0/2", "core: to demo-core1", 100_000, "", "", "")),
                null, 0));
        s.exporterRules = Classifier.exporters(List.of(
                new ClassifierRule(Map.of("name", "^[a-z]+-([a-z]+)\\d*\\.([a-z]+)\\d*$"),
                        Map.of("role", "$1", "site", "$2"), 0)), "demo");
        s.interfaceRules = Classifier.interfaces(List.of(
                new ClassifierRule(Map.of("description", "^(transit|pni|ix):\\s*(\\S+)"),
                        Map.of("connectivity", "$1", "provider", "$2", "boundary", "external"), 0),
                new ClassifierRule(Map.of(), Map.of("boundary", "internal"), 0)), "demo");
        s.networks.add(new StaticNetwork("10.0.0.0/8", "lan", "users", "lab", "eu-west", "", "", 0,
                "demo"));
        s.networks.add(new StaticNetwork("192.168.0.0/16", "lan", "users", "lab", "eu-west", "", "",
                0, "demo"));
        s.networks.add(new StaticNetwork("172.16.0.0/12", "lab", "servers", "lab", "eu-west", "", "",
                0, "demo"));
        Path dir = out.resolve("geoip");
        Files.createDirectories(dir);
        for (String name : DATABASES) {
            Path target = dir.resolve(name);
            try (InputStream in = DemoEnrichment.class.getResourceAsStream("/io/vecflow/demo/geoip/" + name)) {
                if (in == null) {
                    throw new IOException("the bundled database " + name + " is missing from the vecflow jar");
                }
                Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            }
            (name.contains("asn") ? s.asnDatabases : s.geoDatabases).add(target);
        }
        return s;
    }
}
