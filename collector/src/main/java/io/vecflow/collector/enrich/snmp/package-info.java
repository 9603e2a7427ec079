/**
 * SNMP polling of exporters (SNMP4J; v2c and v3 USM): sysName and, per ifIndex, ifName, ifAlias, ifDescr and
 * ifHighSpeed, asynchronously, with timeouts and retries; the caller never waits.
 *
 * <p>Uses {@code schema} only.
 */
package io.vecflow.collector.enrich.snmp;
