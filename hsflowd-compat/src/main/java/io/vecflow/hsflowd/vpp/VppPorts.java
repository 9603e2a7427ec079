package io.vecflow.hsflowd.vpp;

import io.vecflow.common.LongObjectMap;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.hsflowd.counters.CounterAccumulator;
import io.vecflow.netlink.vpp.VppIfCounters;
import io.vecflow.netlink.vpp.VppUsersock;

/**
 * The vpp module's port table (hsflowd mod_vpp, docs/netlink.md §5 "mod_vpp"; {@code vpp { ifOffset= osIndex= }}): VPP
 * interface index → the sFlow ifIndex used for that port in flow and counter samples.
 *
 * <p>Mapping, as hsflowd's mod_vpp ({@code portSetOsIndex}, {@code evt_flow_sample}, {@code evt_cntr_sample} in
 * host-sflow {@code src/Linux/mod_vpp.c}): with {@code osIndex=on} (the default) and a non-zero OSINDEX in the port's
 * latest IF_COUNTERS, the Linux ifindex (docs/netlink.md §6 rule 7: samples and counters then use the same Linux
 * ifIndex), otherwise {@code ifOffset + vpp index}; with {@code osIndex=off}, the VPP index itself (hsflowd keeps
 * {@code ifOffset + index} inside and puts the VPP index back into every sample it exports: data source 0:N, ifIndex
 * N). A port is <em>active</em> — its packet samples are exported — when {@code ifOffset = 0}, or {@code osIndex=off},
 * or its IF_COUNTERS carried OSINDEX (hsflowd: this keeps a VPP restart from exporting samples before the mapping
 * is learned). A VPP index never seen in IF_COUNTERS is inactive, and as another port of a sample it maps to 0
 * (unknown), counted in {@link #unknownLookups}. Note
 * (docs/netlink.md §6 rule 12): PSAMPLE carries VPP's hw_if_index while IF_COUNTERS IFINDEX is the sw_if_index; both
 * are looked up in the same table, which is right for hardware interfaces (where VPP's sflow runs) whose sw and hw
 * indexes coincide.
 *
 * <p>Allocates only the first time a port is seen. Not thread-safe (the agent calls it under its lock).
 */
final class VppPorts {
    /** One VPP port. */
    static final class Port {
        final long vppIndex;
        long osIndex;
        boolean hasOsIndex;
        long dsIndex = -1;
        /** dsIndex before the latest update, −1 for a new port. */
        long previousDsIndex = -1;
        /** Whether its packet samples are exported (see the class comment). */
        boolean active;
        /** Its counters as totals since first seen (hsflowd's accumulateNioCounters). */
        final CounterAccumulator counters = new CounterAccumulator(VppModule.COUNTERS, VppModule.OCTET_COUNTERS,
                VppModule.PACKET_COUNTERS);
        final byte[] name = new byte[VppIfCounters.MAX_PORT_NAME];
        int nameLength;

        Port(long vppIndex) {
            this.vppIndex = vppIndex;
        }
    }

    private final long ifOffset;
    private final boolean useOsIndex;
    /** Ports without OSINDEX are active too ({@code ifOffset = 0} or {@code osIndex=off}). */
    private final boolean allActive;
    private final LongObjectMap<Port> ports = new LongObjectMap<>(64);
    long unknownLookups;

    VppPorts(HsflowdConfig.Vpp config) {
        this.ifOffset = config.ifOffset;
        this.useOsIndex = config.osIndex;
        this.allActive = config.ifOffset == 0 || !config.osIndex;
    }

    /** Updates (or creates) the port an IF_COUNTERS message describes; the caller checked IFINDEX is present. */
    Port update(VppIfCounters c) {
        Port p = ports.computeIfAbsent(c.ifIndex(), Port::new);
        p.previousDsIndex = p.dsIndex;
        p.hasOsIndex = c.has(VppUsersock.ATTR_OSINDEX);
        p.osIndex = c.osIndex();
        if (!useOsIndex) {
            p.dsIndex = p.vppIndex;
        } else {
            p.dsIndex = p.hasOsIndex && p.osIndex != 0 ? p.osIndex : (ifOffset + p.vppIndex) & 0xFFFFFFFFL;
        }
        p.active = allActive || p.hasOsIndex;
        if (c.has(VppUsersock.ATTR_PORTNAME)) {
            p.nameLength = c.portNameLength();
            System.arraycopy(c.portName(), 0, p.name, 0, p.nameLength);
        }
        return p;
    }

    /**
     * Maps a VPP interface index from a PSAMPLE message to the sFlow ifIndex; 0 (unknown) stays 0.
     *
     * @return the port's ifIndex, or 0 (unknown) for a port not seen yet in IF_COUNTERS
     */
    long map(long vppIndex) {
        if (vppIndex == 0) {
            return 0;
        }
        Port p = ports.get(vppIndex);
        if (p == null) {
            unknownLookups++;
            return 0;
        }
        return p.dsIndex;
    }

    /**
     * The port whose internal number is {@code ifIndex} when VPP indexes are exported unchanged ({@code osIndex=off}:
     * hsflowd numbers the port {@code ifOffset + index} inside, and its mod_dropmon reports IN_PORT that way;
     * {@code getPortByOsIndex} in host-sflow mod_vpp.c).
     *
     * @return the port, or null when {@code ifIndex} is below ifOffset or no port has that index
     */
    Port byOffsetIndex(long ifIndex) {
        if (ifIndex < ifOffset) {
            return null;
        }
        return ports.get(ifIndex - ifOffset);
    }

    /** @return whether IF_COUNTERS named the port with VPP index {@code vppIndex} */
    boolean known(long vppIndex) {
        return ports.get(vppIndex) != null;
    }

    /** @return whether the port with VPP index {@code vppIndex} is known and active (its samples are exported) */
    boolean active(long vppIndex) {
        Port p = ports.get(vppIndex);
        return p != null && p.active;
    }

    /** Ports known. */
    int size() {
        return ports.size();
    }
}
