package io.vecflow.collector.enrich;

import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.schema.NetworkInfo;
import io.vecflow.sflow.ByteView;
import io.vecflow.sflow.CounterRecords;
import io.vecflow.sflow.CounterSample;
import io.vecflow.collector.schema.Label;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.Locale;

/**
 * The enrichment step of the outlet (docs/enrichment.md §2, Akvorado's order): for each row, the exporter's and each
 * interface's metadata from the {@link MetadataCache}, then the network attributes, country and AS of both
 * addresses from the current {@link AddressLookup}, then the AS numbers by the configured order, and their names.
 * Shared by every decode thread; the row path reads immutable snapshots and allocates nothing on cache hits.
 *
 * <p>AS order ({@code enrichment.as-sources}, first non-zero wins): {@code flow} (the row's own SrcAS/DstAS, from the
 * sFlow extended_gateway record), {@code flow-except-private} (the same unless private: 0, 23456, 64496–65551,
 * 4200000000 and above, as Akvorado's rule), {@code geoip} (the networks list or the AS databases). Default
 * {@code [flow, geoip]}.
 *
 * <p>Interfaces are looked up when the row's interface is a single ifIndex (format 0) other than 0 and 0x3FFFFFFF
 * (the agent itself, sFlow v5 §5.1).
 */
public final class Enricher implements AutoCloseable {
    /** AS sources, by name. */
    public static final List<String> AS_SOURCES = List.of("flow", "flow-except-private", "geoip");
    private static final long INTERNAL_IFINDEX = 0x3FFF_FFFFL;
    private final MetadataCache metadata;
    private final NetworkSource networks;
    private final int[] asOrder;
    private final EnrichmentStats stats;
    private final AutoCloseable[] owned;

    /**
     * @param metadata exporter/interface metadata, or null (off)
     * @param networks the current address attributes, or null (off)
     * @param asSources AS order (names of {@link #AS_SOURCES})
     * @param stats counters
     * @param owned closed with this enricher (the cache, the databases)
     * @throws IllegalArgumentException for an unknown AS source
     */
    public Enricher(MetadataCache metadata, NetworkSource networks, List<String> asSources,
            EnrichmentStats stats, AutoCloseable... owned) {
        this.metadata = metadata;
        this.networks = networks;
        this.stats = stats;
        this.owned = owned.clone();
        this.asOrder = new int[asSources.size()];
        for (int i = 0; i < asOrder.length; i++) {
            asOrder[i] = AS_SOURCES.indexOf(asSources.get(i).toLowerCase(Locale.ROOT));
            if (asOrder[i] < 0) {
                throw new IllegalArgumentException("AS source '" + asSources.get(i) + "' is unknown (known: "
                        + AS_SOURCES + ")");
            }
        }
    }

    /**
     * Registers who writes AS names down (the ClickHouse sink's {@code asns}): called with every AS name the
     * databases hold, now if they are loaded and after each reload. Nothing happens without databases.
     *
     * @param listener the consumer of the AS number → name map
     */
    public void onAsNames(Consumer<Map<Long, Label>> listener) {
        if (networks != null) {
            networks.onAsNames(names -> {
                if (!names.isEmpty()) {
                    listener.accept(names);
                }
            });
        }
    }

    /** @return the counters. */
    public EnrichmentStats stats() {
        return stats;
    }

    /** @return successful loads of the GeoIP databases and networks (0 without). */
    public long databaseReloads() {
        return networks == null ? 0 : networks.reloads();
    }

    /** @return failed reloads of the GeoIP databases (the previous table was kept). */
    public long databaseReloadFailures() {
        return networks == null ? 0 : networks.reloadFailures();
    }

    /** @return intervals of the current networks table. */
    public long networkIntervals() {
        return networks == null ? 0 : networks.intervals();
    }

    /** @return the metadata cache, or null. */
    public MetadataCache metadata() {
        return metadata;
    }

    /**
     * Enriches one decoded row in place (after {@link FlowRow#set}). Allocation-free when the exporter and its
     * interfaces are cached.
     *
     * @param r the row
     */
    public void enrich(FlowRow r) {
        stats.rows.increment();
        if (metadata != null) {
            MetadataCache.Exporter e = metadata.exporter(r.agentAddress, metadata.nowNanos);
            if (e != null) {
                r.exporter = e.info();
                if (r.exporter.name().isEmpty()) {
                    stats.exporterUnnamed.increment();
                }
                if (r.inIfFormat == 0 && r.inIf != 0 && r.inIf != INTERNAL_IFINDEX) {
                    r.inIfInfo = e.iface(r.inIf);
                    if (r.inIfInfo.name().isEmpty()) {
                        stats.interfaceUnknown.increment();
                    }
                }
                if (r.outIfFormat == 0 && r.outIf != 0 && r.outIf != INTERNAL_IFINDEX) {
                    r.outIfInfo = e.iface(r.outIf);
                    if (r.outIfInfo.name().isEmpty()) {
                        stats.interfaceUnknown.increment();
                    }
                }
            }
        }
        AddressLookup n = networks == null ? AddressLookup.NONE : networks.current();
        NetworkInfo src = n.lookup(r.srcAddr, 0);
        NetworkInfo dst = n.lookup(r.dstAddr, 0);
        r.srcNet = src;
        r.dstNet = dst;
        r.srcAs = chooseAs(r.srcAs, src.asn());
        r.dstAs = chooseAs(r.dstAs, dst.asn());
        r.srcAsName = r.srcAs == 0 ? r.srcAsName : r.srcAs == src.asn() && !src.asName().isEmpty() ? src.asName()
                : n.asName(r.srcAs);
        r.dstAsName = r.dstAs == 0 ? r.dstAsName : r.dstAs == dst.asn() && !dst.asName().isEmpty() ? dst.asName()
                : n.asName(r.dstAs);
    }

    private long chooseAs(long flow, long geo) {
        for (int s : asOrder) {
            long v = switch (s) {
                case 0 -> flow;
                case 1 -> isPrivateAs(flow) ? 0 : flow;
                default -> geo;
            };
            if (v != 0) {
                return v;
            }
        }
        return 0;
    }

    /**
     * Akvorado's private-AS rule: 0, 23456 (AS_TRANS), 64496–65551 (documentation, private, reserved, 4-byte
     * documentation) and from 4200000000 (private 4-byte).
     *
     * @param asn an AS number
     * @return true when private
     */
    public static boolean isPrivateAs(long asn) {
        return asn == 0 || asn == 23456 || (asn >= 64496 && asn <= 65551) || asn >= 4_200_000_000L;
    }

    /**
     * Learns from one counter sample (the {@code sflow} metadata source): port name, ifSpeed, hostname.
     * Allocation-free unless something changed.
     *
     * @param agent16 the agent address, 16 bytes
     * @param s the counter sample
     */
    public void learn(byte[] agent16, CounterSample s) {
        if (metadata == null) {
            return;
        }
        CounterRecords c = s.records;
        if (!c.hasIfCounters && !c.hasHostDescr) {
            return;
        }
        ByteView port = c.hasPortName ? c.portName.name : null;
        ByteView host = c.hasHostDescr ? c.hostDescr.hostname : null;
        metadata.learn(agent16, c.hasIfCounters ? c.ifCounters.ifIndex : 0, c.hasIfCounters ? c.ifCounters.ifSpeed
                : 0, port == null ? null : port.array, port == null ? 0 : port.offset, port == null ? 0 : port.length,
                host == null ? null : host.array, host == null ? 0 : host.offset, host == null ? 0 : host.length,
                metadata.nowNanos);
    }

    @Override
    public void close() {
        for (AutoCloseable c : owned) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // closing: nothing to do but go on with the others
            }
        }
    }
}
