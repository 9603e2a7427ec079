/**
 * Enrichment of decoded rows (Akvorado's outlet core, docs/enrichment.md): exporter and interface metadata from
 * three sources (static configuration, SNMP polling, the agents' own sFlow records) in a bounded cache refreshed in
 * the background, the exporter and interface classifiers, and the network attributes, countries and AS numbers of
 * addresses. The row path only reads immutable snapshots: it never waits on SNMP or a database load.
 *
 * <p>Uses {@code schema} (the rows and their enrichment values), {@code enrich.geoip} and {@code enrich.snmp}.
 */
package io.vecflow.collector.enrich;
