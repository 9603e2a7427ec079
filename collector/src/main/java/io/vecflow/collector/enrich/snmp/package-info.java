/**
 * SNMP polling of exporters (SNMP4J; v2c and v3 USM): sysName and, per ifIndex, ifName, ifAlias, ifDescr and
 * ifHighSpeed, asynchronously, with timeouts and retries; the caller never waits. {@link
 * io.vecflow.collector.enrich.snmp.SnmpPoller} polls (one UDP socket, batched GETs, Akvorado's name and description
 * rules), {@link io.vecflow.collector.enrich.snmp.SnmpCredentials} reads and checks the credentials from configuration
 * strings, {@link io.vecflow.collector.enrich.snmp.SnmpException} says why a poll failed.
 *
 * <p>Uses {@code schema} only (and SNMP4J, slf4j).
 */
package io.vecflow.collector.enrich.snmp;
