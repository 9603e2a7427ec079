package io.vecflow.hsflowd.vpp;

import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.hsflowd.datagram.PendingDatagram;
import io.vecflow.hsflowd.datagram.SamplerState;
import io.vecflow.hsflowd.datagram.Samplers;
import io.vecflow.netlink.vpp.VppIfCounters;
import io.vecflow.netlink.vpp.VppStatus;
import io.vecflow.netlink.vpp.VppUsersock;
import io.vecflow.sflow.CounterRecords;
import io.vecflow.sflow.CounterSample;
import io.vecflow.sflow.LbDecisionRecord;
import io.vecflow.sflow.SflowFormats;
import io.vecflow.sflow.XdrWriter;

/**
 * The vpp module ({@code vpp { ifOffset= osIndex= }}, {@link #onIfCounters}, {@link #onStatus}): VPP's
 * groups 3 (ingress) and 4 (egress) are taken whenever the block is present (even without {@code psample {}},
 * docs/netlink.md §6 rule 8), their hw_if_index mapped through {@link VppPorts} (hsflowd's mapping, the ports' active
 * rule and osIndex=off export numbering: see there). Each IF_COUNTERS message that names its port (IFINDEX non-zero
 * and PORTNAME, as hsflowd requires) sends at once, into the pending datagram, one expanded counters
 * sample 0:4 for source 0:ifIndex with, in hsflowd's wire order, port name (0:1005) then generic interface counters
 * (0:1) — hsflowd's sFlow library prepends each record it adds, so its records leave in reverse order of addition
 * (host-sflow {@code sflow_api.h} {@code SFLADD_ELEMENT}). The 0:1 counters are hsflowd's: totals since the port was
 * first seen ({@link io.vecflow.hsflowd.counters.CounterAccumulator}; the first sample of a port carries zeros),
 * ifType 6, ifStatus from ADMIN_UP/OPER_UP, promiscuous 0, InUnknownProtos 0, multicast and broadcast as VPP counts
 * them, and — where vecflow departs from hsflowd, which reports RX_PKTS (all received packets) as InUcastPkts —
 * InUcast = packets − multicast − broadcast (RFC 2863's ifInUcastPkts), and ifSpeed as VPP sends it. STATUS DROPS
 * (cumulative: PSAMPLE send failures + worker FIFO drops) is turned into increments against a
 * baseline taken at the first STATUS (reset when VPP restarts); since a failed PSAMPLE send also shows as a GROUP_SEQ
 * gap, drops already counted from gaps are subtracted, and what remains is added once, to the next VPP flow sample's
 * sampler — never re-added per sample as hsflowd does (docs/netlink.md §6 rule 13).
 *
 * <p>Also the vecflow LB_COUNTERS messages ({@link #onLbCounters}), and what the psample module asks of VPP's
 * groups: whether a group is VPP's ({@link #isVppGroup}), the port mapping ({@link #map}), whether a port's samples
 * are exported ({@link #active}) and the STATUS drops owed to the next VPP flow sample ({@link #takeOwedDrops}). Not
 * thread-safe: the agent calls it under its lock.
 */
public final class VppModule {
    private static final long U32 = 0xFFFFFFFFL;

    /** VPP's PSAMPLE group of ingress samples (FDio/vpp sflow.h SFLOW_VPP_PSAMPLE_GROUP_INGRESS). */
    public static final int GROUP_INGRESS = 3;
    /** VPP's PSAMPLE group of egress samples. */
    public static final int GROUP_EGRESS = 4;

    /** Indexes of a port's counters in its {@link io.vecflow.hsflowd.counters.CounterAccumulator} readings. */
    static final int IN_OCTETS = 0, IN_PKTS = 1, IN_MCAST = 2, IN_BCAST = 3, IN_DISCARDS = 4, IN_ERRORS = 5,
            OUT_OCTETS = 6, OUT_PKTS = 7, OUT_MCAST = 8, OUT_BCAST = 9, OUT_DISCARDS = 10, OUT_ERRORS = 11,
            COUNTERS = 12;
    /** The 64-bit octet counters. */
    static final int[] OCTET_COUNTERS = {IN_OCTETS, OUT_OCTETS};
    /** The packet counters hsflowd checks for discontinuities. */
    static final int[] PACKET_COUNTERS = {IN_PKTS, OUT_PKTS};
    /** IF_COUNTERS attribute of each counter index. */
    private static final int[] ATTRS = {VppUsersock.ATTR_RX_OCTETS, VppUsersock.ATTR_RX_PKTS,
        VppUsersock.ATTR_RX_MCASTS, VppUsersock.ATTR_RX_BCASTS, VppUsersock.ATTR_RX_DISCARDS,
        VppUsersock.ATTR_RX_ERRORS, VppUsersock.ATTR_TX_OCTETS, VppUsersock.ATTR_TX_PKTS, VppUsersock.ATTR_TX_MCASTS,
        VppUsersock.ATTR_TX_BCASTS, VppUsersock.ATTR_TX_DISCARDS, VppUsersock.ATTR_TX_ERRORS};

    private final HsflowdConfig config;
    private final Samplers samplers;
    private final PendingDatagram counters;
    /** The port table, or null without a {@code vpp {}} block. */
    private final VppPorts ports;
    private final CounterSample counterSample = new CounterSample();
    private long vppDropsReported, vppGapDrops, vppDropsCharged;
    private long vppLastDrops = -1, vppLastUptime = -1;
    private long counterSamplesDropped, vppStatusMessages, vppCountersIgnored, inactiveSamples;
    private final long[] raw = new long[COUNTERS];
    private final int lbCountersDataFormat;
    private final CounterSample lbSample = new CounterSample();
    private final io.vecflow.sflow.LbCountersRecord lbCountersRecord = new io.vecflow.sflow.LbCountersRecord();
    private final XdrWriter lbCountersBody = new XdrWriter(io.vecflow.sflow.LbCountersRecord.MAX_BYTES);
    private long lbCountersSent, lbCountersIgnored;
    private final byte[] lbAddr4 = new byte[4];
    private final byte[] lbAddr16 = new byte[16];

    /**
     * @param config the parsed hsflowd.conf (its {@code vpp} block, if any, and {@code psample { lbEnterprise }})
     * @param samplers the agent's per-source state
     * @param pending the datagram being filled (IF_COUNTERS and LB_COUNTERS samples go there)
     */
    public VppModule(HsflowdConfig config, Samplers samplers, PendingDatagram pending) {
        this.config = config;
        this.samplers = samplers;
        this.counters = pending;
        this.ports = config.vpp != null ? new VppPorts(config.vpp) : null;
        this.lbCountersDataFormat = io.vecflow.sflow.LbCountersRecord.dataFormat(config.psample != null
                ? config.psample.lbEnterprise : LbDecisionRecord.DEFAULT_ENTERPRISE);
    }

    /** @return whether {@code group} is one of VPP's (3, 4) and a {@code vpp {}} block takes them */
    public boolean isVppGroup(int group) {
        return ports != null && (group == GROUP_INGRESS || group == GROUP_EGRESS);
    }

    /** @return the sFlow ifIndex of a VPP interface index in a sample of VPP's groups ({@link VppPorts#map}) */
    public long map(long vppIndex) {
        return ports.map(vppIndex);
    }

    /**
     * Whether a VPP port's packet samples are exported ({@link VppPorts}: known from IF_COUNTERS and active); a
     * sample of an inactive port is counted in {@link #inactiveSamples()} and not sent, as hsflowd's mod_vpp
     * ({@code evt_psample}: {@code if(active) takeSample(...)}).
     *
     * @param vppIndex the sampling port's VPP index (IIFINDEX of an ingress sample, OIFINDEX of an egress one)
     * @return true when the sample may be exported
     */
    public boolean active(long vppIndex) {
        if (ports.active(vppIndex)) {
            return true;
        }
        inactiveSamples++;
        return false;
    }

    /**
     * Whether packet samples from outside VPP (another PSAMPLE group, e.g. the kernel's tc sampling of Linux
     * interfaces) are exported: not with {@code vpp { osIndex = off }}, where hsflowd's mod_vpp suppresses every
     * packet sample whose sampler is not a VPP port ({@code evt_flow_sample}: "suppress packet sample from non-vpp
     * port"); such a sample is counted in {@link #inactiveSamples()}.
     *
     * @return true when a non-VPP sample may be exported
     */
    public boolean exportsNonVppSamples() {
        if (ports == null || config.vpp.osIndex) {
            return true;
        }
        inactiveSamples++;
        return false;
    }

    /**
     * Puts a discarded_packet sample (0:5) into VPP's numbers when {@code vpp { osIndex = off }}, as hsflowd's
     * mod_vpp {@code evt_discard_sample}: a source 0:N that is a VPP port's internal number ({@code ifOffset +}
     * index) becomes 0:index (any other stays); input and output become the VPP index of their port, or 0 (unknown)
     * when they are not a VPP port's; 0, 0x3FFFFFFF (internal) and, for output, the multiple-interfaces format are
     * kept. Does nothing in the other modes. Allocation-free.
     *
     * @param s the sample to change in place
     */
    public void mapDiscard(io.vecflow.sflow.FlowSample s) {
        if (ports == null || config.vpp.osIndex) {
            return;
        }
        if (s.sourceIdType == SflowFormats.SOURCE_IFINDEX && s.sourceIdIndex != 0) {
            VppPorts.Port p = ports.byOffsetIndex(s.sourceIdIndex);
            if (p != null) {
                s.sourceIdIndex = p.vppIndex;
            }
        }
        s.input = vppIndexOf(s.input);
        if ((s.output & 0x80000000L) == 0) {
            s.output = vppIndexOf(s.output);
        }
    }

    /** An internal ifIndex ({@code ifOffset +} index) → the VPP index; 0 when not a VPP port's; 0 and internal kept. */
    private long vppIndexOf(long ifIndex) {
        if (ifIndex == 0 || ifIndex == INTERNAL_INTERFACE) {
            return ifIndex;
        }
        VppPorts.Port p = ports.byOffsetIndex(ifIndex);
        return p != null ? p.vppIndex : 0;
    }

    /** sFlow "internal" interface (0x3FFFFFFF). */
    private static final long INTERNAL_INTERFACE = 0x3FFFFFFFL;

    /**
     * @param group a PSAMPLE group
     * @param iif the sample's IIFINDEX
     * @param oif the sample's OIFINDEX
     * @return true when the sample is in one of VPP's groups and its sampling port (IIFINDEX for ingress, OIFINDEX
     *     for egress) has not been named by IF_COUNTERS yet
     */
    public boolean unknownSampler(int group, long iif, long oif) {
        return isVppGroup(group) && !ports.known(group == GROUP_INGRESS ? iif : oif);
    }

    /** @return VPP packet samples not exported because their port was unknown or inactive ({@link #active}). */
    public long inactiveSamples() {
        return inactiveSamples;
    }

    /** Counts drops seen as GROUP_SEQ gaps in VPP's groups (subtracted from what STATUS reports). */
    public void gapDrops(long gap) {
        vppGapDrops += gap;
    }

    /**
     * @return VPP's STATUS drops not already seen as gaps nor charged yet, now charged (added once, to the next VPP
     *     flow sample's sampler), or 0
     */
    public long takeOwedDrops() {
        long owed = vppDropsReported - vppGapDrops - vppDropsCharged;
        if (owed > 0) {
            vppDropsCharged += owed;
            return owed;
        }
        return 0;
    }

    /**
     * Takes one VPP STATUS message: DROPS becomes an increment (see the class comment) owed to the next VPP flow
     * sample. Messages without DROPS are ignored. Allocation-free.
     */
    public void onStatus(VppStatus st) {
        vppStatusMessages++;
        if (!st.hasDrops()) {
            return;
        }
        long d = st.drops();
        boolean restart = st.hasUptimeS() && vppLastUptime >= 0 && st.uptimeS() < vppLastUptime;
        if (st.hasUptimeS()) {
            vppLastUptime = st.uptimeS();
        }
        if (vppLastDrops < 0) {
            vppLastDrops = d; // baseline: drops before this agent listened are not in its samples
            return;
        }
        long delta = restart || d < vppLastDrops ? d : d - vppLastDrops;
        vppLastDrops = d;
        vppDropsReported += delta;
    }

    /**
     * Takes one VPP IF_COUNTERS message: updates the port table and appends one expanded counters sample (0:4 with
     * records 0:1005, 0:1) to the pending datagram. A message without IFINDEX, with IFINDEX 0 or without
     * PORTNAME is ignored and counted (hsflowd: "port struct seems complete" needs both). Without a {@code vpp {}}
     * block every message is ignored. Allocation-free after the port's first message.
     */
    public void onIfCounters(VppIfCounters c) {
        if (ports == null || !c.has(VppUsersock.ATTR_IFINDEX) || c.ifIndex() == 0
                || !c.has(VppUsersock.ATTR_PORTNAME)) {
            vppCountersIgnored++;
            return;
        }
        VppPorts.Port p = ports.update(c);
        if (p.previousDsIndex >= 0 && p.previousDsIndex != p.dsIndex) {
            SamplerState was = samplers.get(p.previousDsIndex); // the port moved (OSINDEX learned or changed)
            was.vppPort = false;
            was.vppCounters = false;
        }
        SamplerState st = samplers.get(p.dsIndex);
        st.vppPort = p.hasOsIndex && p.osIndex != 0 && config.vpp.osIndex;
        st.vppCounters = true;
        st.counterSequence = (st.counterSequence + 1) & U32;
        fillCounterSample(c, p, st);
        if (!counters.addCounterSampleOrFlush(counterSample)) {
            counterSamplesDropped++;
        }
    }

    private void fillCounterSample(VppIfCounters c, VppPorts.Port p, SamplerState st) {
        for (int i = 0; i < COUNTERS; i++) {
            raw[i] = c.has(ATTRS[i]) ? c.counter(ATTRS[i]) : 0; // absent: 0, as hsflowd's zeroed struct
        }
        long[] t = p.counters.accumulate(raw);
        CounterSample cs = counterSample;
        cs.kind = SflowFormats.COUNTERS_SAMPLE_EXPANDED;
        cs.expanded = true;
        cs.sequenceNumber = st.counterSequence;
        cs.sourceIdType = SflowFormats.SOURCE_IFINDEX;
        cs.sourceIdIndex = p.dsIndex;
        cs.recordFormats[0] = CounterRecords.PORT_NAME;
        cs.recordFormats[1] = CounterRecords.IF_COUNTERS;
        cs.recordCount = cs.recordsListed = 2;
        CounterRecords r = cs.records;
        CounterRecords.IfCounters g = r.ifCounters;
        g.ifIndex = p.dsIndex;
        g.ifType = 6; // hsflowd: "assume ethernet"
        g.ifSpeed = c.ifSpeed();
        g.ifDirection = c.ifDirection();
        g.ifStatus = (c.adminUp() != 0 ? 1 : 0) | (c.operUp() != 0 ? 2 : 0);
        g.inOctets = t[IN_OCTETS];
        g.inUcastPkts = (t[IN_PKTS] - t[IN_MCAST] - t[IN_BCAST]) & U32;
        g.inMulticastPkts = t[IN_MCAST] & U32;
        g.inBroadcastPkts = t[IN_BCAST] & U32;
        g.inDiscards = t[IN_DISCARDS] & U32;
        g.inErrors = t[IN_ERRORS] & U32;
        g.inUnknownProtos = 0;
        g.outOctets = t[OUT_OCTETS];
        g.outUcastPkts = (t[OUT_PKTS] - t[OUT_MCAST] - t[OUT_BCAST]) & U32;
        g.outMulticastPkts = t[OUT_MCAST] & U32;
        g.outBroadcastPkts = t[OUT_BCAST] & U32;
        g.outDiscards = t[OUT_DISCARDS] & U32;
        g.outErrors = t[OUT_ERRORS] & U32;
        g.promiscuousMode = 0;
        r.hasIfCounters = true;
        r.hasEthernet = false;
        r.portName.name.set(p.name, 0, p.nameLength);
        r.hasPortName = true;
    }

    /** VIP index span per role in the LB data-source range: the LB's 256 slots, then an SRLB agent's 16 VIPs. */
    private static final int LB_AGENT_VIP_BASE = 256, LB_BACKEND_SPAN = 8192;

    /**
     * Takes one vecflow LB_COUNTERS message (the dataplane's per-VIP / per-backend load-balancer counters, README
     * "Load-balancer counters") and appends one expanded counters sample 0:4 for data source
     * {@code 0:(vpp.lbSourceBase + vipIndex × 8192 + backendIndex)} — an SRLB agent's (role 3) VIPs at vipIndex
     * 256 + n — carrying the single "vecflow LB counters" record ({@link io.vecflow.sflow.LbCountersRecord},
     * data_format = {@code psample { lbEnterprise }} &lt;&lt; 12 | 2) with the message's values. Each source has its
     * own sample sequence. Ignored and counted ({@link #lbCountersIgnored()}) without a {@code vpp {}} block, with
     * {@code vpp { lbCounters = off }}, or for a VIP index, role or backend index outside the range above.
     * Allocation-free after a source's first message.
     */
    public void onLbCounters(io.vecflow.netlink.vpp.LbCounters c) {
        HsflowdConfig.Vpp v = config.vpp;
        int vipSlot = c.role == io.vecflow.netlink.vpp.LbCounters.ROLE_SRLB_AGENT ? LB_AGENT_VIP_BASE + (int) c.vipIndex
                : (int) c.vipIndex;
        if (v == null || !v.lbCounters || c.role < 1 || c.role > 3 || c.vipIndex < 0
                || c.vipIndex >= (c.role == io.vecflow.netlink.vpp.LbCounters.ROLE_SRLB_AGENT ? 16 : 256)
                || c.backendIndex < 0 || c.backendIndex >= LB_BACKEND_SPAN) {
            lbCountersIgnored++;
            return;
        }
        long index = v.lbSourceBase + (long) vipSlot * LB_BACKEND_SPAN + c.backendIndex;
        io.vecflow.sflow.LbCountersRecord r = lbCountersRecord.clear();
        r.role = c.role;
        r.vipIndex = c.vipIndex;
        r.protocol = c.protocol;
        r.vipPort = c.port;
        address(r.vip, c.vip, 0, c.vipLength);
        r.backendIndex = c.backendIndex;
        if (c.backendLength > 0) {
            address(r.backend, c.backend, 0, c.backendLength);
        }
        long[] k = c.counters;
        r.newFlows = k[io.vecflow.netlink.vpp.LbCounters.NEW_FLOWS];
        r.firstChoiceAccepts = k[io.vecflow.netlink.vpp.LbCounters.FIRST_CHOICE];
        r.secondChoiceAccepts = k[io.vecflow.netlink.vpp.LbCounters.SECOND_CHOICE];
        r.rejects = k[io.vecflow.netlink.vpp.LbCounters.REJECTS];
        r.stickyHits = k[io.vecflow.netlink.vpp.LbCounters.STICKY_HITS];
        r.tableFull = k[io.vecflow.netlink.vpp.LbCounters.TABLE_FULL];
        lbCountersBody.reset(0);
        r.encode(lbCountersBody);
        SamplerState st = samplers.get(index);
        st.counterSequence = (st.counterSequence + 1) & U32;
        CounterSample cs = lbSample;
        cs.kind = SflowFormats.COUNTERS_SAMPLE_EXPANDED;
        cs.expanded = true;
        cs.sequenceNumber = st.counterSequence;
        cs.sourceIdType = SflowFormats.SOURCE_IFINDEX;
        cs.sourceIdIndex = index;
        cs.recordFormats[0] = lbCountersDataFormat;
        cs.recordCount = cs.recordsListed = 1;
        cs.unknownFormats[0] = lbCountersDataFormat;
        cs.unknownBodies[0].set(lbCountersBody.buffer(), 0, lbCountersBody.position());
        cs.unknownRecords = 1;
        if (counters.addCounterSample(cs)) {
            lbCountersSent++;
        }
    }

    /** @return LB counters samples put into datagrams. */
    public long lbCountersSent() {
        return lbCountersSent;
    }

    /** @return LB_COUNTERS messages ignored (no vpp block, lbCounters off, or indexes out of range). */
    public long lbCountersIgnored() {
        return lbCountersIgnored;
    }

    /** Sets an sFlow address from {@code n} (4 or 16) bytes without allocating. */
    private void address(io.vecflow.sflow.SflowAddress a, byte[] src, int off, int n) {
        byte[] tmp = n == 4 ? lbAddr4 : lbAddr16;
        System.arraycopy(src, off, tmp, 0, n);
        a.set(tmp);
    }

    /**
     * Whether a VPP port's IF_COUNTERS already report {@code ifIndex} (see the agent's {@code vppCountsInterface}).
     *
     * @param ifIndex an interface's ifIndex (u32)
     * @return true when the vpp module owns the interface's counters
     */
    public boolean countsInterface(long ifIndex) {
        if (ports == null) {
            return false;
        }
        SamplerState s = samplers.find(ifIndex);
        return s != null && s.vppCounters;
    }

    /** @return counter samples that could not be encoded (e.g. larger than an empty datagram). */
    public long counterSamplesDropped() {
        return counterSamplesDropped;
    }

    /** @return IF_COUNTERS messages ignored (no vpp block, or no / zero IFINDEX). */
    public long countersIgnored() {
        return vppCountersIgnored;
    }

    /** @return STATUS messages taken. */
    public long statusMessages() {
        return vppStatusMessages;
    }

    /** @return drops VPP reported in STATUS since the baseline (increments summed). */
    public long dropsReported() {
        return vppDropsReported;
    }

    /** @return VPP-reported drops added to flow samples beyond those already seen as sequence gaps. */
    public long dropsCharged() {
        return vppDropsCharged;
    }

    /** @return VPP sample indexes that were not (yet) in the port table (mapped to 0, unknown). */
    public long unknownPorts() {
        return ports == null ? 0 : ports.unknownLookups;
    }
}
