package io.vecflow.collector.schema;

import java.util.Objects;

/**
 * What the collector knows of an exporter (an sFlow agent) after enrichment: its name and the classification
 * Akvorado's exporter classifier sets (columns {@code ExporterName}, {@code ExporterGroup}, {@code ExporterRole},
 * {@code ExporterSite}, {@code ExporterRegion}, {@code ExporterTenant}; docs/enrichment.md). Immutable; shared by
 * every row of the exporter until its metadata changes.
 *
 * @param name exporter name (static config, SNMP sysName, or the agent's host_descr hostname)
 * @param group exporter group
 * @param role exporter role (e.g. edge, core)
 * @param site site
 * @param region region
 * @param tenant tenant
 */
public record ExporterInfo(Label name, Label group, Label role, Label site, Label region, Label tenant) {
    /** Nothing known. */
    public static final ExporterInfo EMPTY = new ExporterInfo(Label.EMPTY, Label.EMPTY, Label.EMPTY, Label.EMPTY,
            Label.EMPTY, Label.EMPTY);

    /** Null labels become {@link Label#EMPTY}. */
    public ExporterInfo {
        name = Objects.requireNonNullElse(name, Label.EMPTY);
        group = Objects.requireNonNullElse(group, Label.EMPTY);
        role = Objects.requireNonNullElse(role, Label.EMPTY);
        site = Objects.requireNonNullElse(site, Label.EMPTY);
        region = Objects.requireNonNullElse(region, Label.EMPTY);
        tenant = Objects.requireNonNullElse(tenant, Label.EMPTY);
    }
}
