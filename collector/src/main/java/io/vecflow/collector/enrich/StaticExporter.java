package io.vecflow.collector.enrich;

import java.util.Map;

/**
 * An exporter's metadata written in the configuration ({@code enrichment.metadata.static[]}; Akvorado's static
 * provider): its name and optional classification, and per ifIndex an interface's name, description, speed and
 * optional classification. A classification given here is kept: the classifiers fill only what is left empty.
 *
 * @param prefix the exporter's address, or a prefix of exporters ({@code 192.0.2.0/24}); the longest match wins
 * @param exporter the exporter's name and classification (empty strings = not set)
 * @param interfaces ifIndex → interface
 * @param defaultInterface metadata for an ifIndex not in {@code interfaces}, or null
 * @param line the entry's line in the configuration (for messages)
 */
public record StaticExporter(String prefix, Exporter exporter, Map<Long, Interface> interfaces,
        Interface defaultInterface, int line) {
    /** Null maps become empty. */
    public StaticExporter {
        interfaces = interfaces == null ? Map.of() : Map.copyOf(interfaces);
        exporter = exporter == null ? new Exporter("", "", "", "", "", "") : exporter;
    }

    /**
     * An exporter's name and classification.
     *
     * @param name name
     * @param group group
     * @param role role
     * @param site site
     * @param region region
     * @param tenant tenant
     */
    public record Exporter(String name, String group, String role, String site, String region, String tenant) {}

    /**
     * An interface.
     *
     * @param name ifName
     * @param description description
     * @param speedMbps speed in Mb/s, 0 unknown
     * @param boundary external, internal, undefined or empty
     * @param provider provider
     * @param connectivity connectivity
     */
    public record Interface(String name, String description, long speedMbps, String boundary, String provider,
            String connectivity) {}
}
