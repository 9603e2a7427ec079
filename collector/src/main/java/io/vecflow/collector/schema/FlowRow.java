package io.vecflow.collector.schema;

import io.vecflow.packet.ParsedPacket;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.DiscardReasons;
import io.vecflow.sflow.FlowRecords;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.LbDecisionRecord;
import io.vecflow.sflow.SflowAddress;
import java.util.Arrays;

/**
 * One flow sample or discard as stored: the sFlow datagram and sample fields plus what vecflow understood of the
 * packet, from the sampled header first and the decoded records (sampled_ethernet, sampled_ipv4/ipv6) when there is
 * no usable header. Mutable and reused per decode thread; sinks copy what they keep.
 *
 * <p><b>Bytes</b> (one rule, whatever optional records a vendor adds — docs/sflow.md §8, pitfall 20): the L3 length
 * of the packet — the IP total length parsed from the sampled header; else the {@code length} of sampled_ipv4 /
 * sampled_ipv6; else {@code frame_length − stripped −} the L2 header parsed from the sampled header (Ethernet, tags);
 * else sampled_ethernet {@code length −} 14; else 0. {@link #packets} = 1. Scaled values are these × sampling_rate.
 * {@link #frameLength} keeps the agent's L2 frame_length (FCS included) as reported.
 *
 * <p><b>AS numbers</b> (extended_gateway, pitfall 16): SrcAS = src_as, or the router's own AS when src_as is 0;
 * DstAS = the last ASN of dst_as_path, or the router's AS when the path is empty; 0 without extended_gateway.
 *
 * <p><b>Direction</b> ({@link #direction(int, long, int, long, int, long)}): sFlow v5 has no direction field; the data
 * source says where the sampler sits. hsflowd's mod_psample takes an ingress sample's source from its input port and
 * an egress sample's from its output port (VPP's sflow plugin sends them on PSAMPLE groups 3 and 4; vecflow's agent
 * does the same), so source_id ifIndex = input → ingress, = output → egress, anything else → undefined.
 */
public final class FlowRow {
    /** {@link #sampleType} of a flow sample (0:1, 0:3). */
    public static final int FLOW = 0;
    /** {@link #sampleType} of a discarded_packet (0:5). */
    public static final int DISCARD = 1;
    /** Capacity of {@link #dstAsPath}. */
    public static final int MAX_AS_PATH = FlowRecords.MAX_AS_PATH;
    /** {@link #direction}: the data source is not one of the sample's interfaces (or not an interface). */
    public static final int DIRECTION_UNDEFINED = 0;
    /** {@link #direction}: sampled as it entered the agent (data source = input interface). */
    public static final int INGRESS = 1;
    /** {@link #direction}: sampled as it left the agent (data source = output interface). */
    public static final int EGRESS = 2;

    /** Receive time, ns since the UNIX epoch. */
    public long timeReceivedNanos;
    /** Agent address, 16 bytes (IPv4 mapped as ::ffff:a.b.c.d). */
    public final byte[] agentAddress = new byte[16];
    /** UDP source of the datagram, 16 bytes IPv4-mapped. */
    public final byte[] peerAddress = new byte[16];
    /** sub_agent_id, datagram sequence_number. */
    public long subAgentId, datagramSequence;
    /** Sample sequence_number, source_id index. */
    public long sampleSequence, sourceIdIndex;
    /** source_id type. */
    public int sourceIdType;
    /** {@link #FLOW} or {@link #DISCARD}. */
    public int sampleType;
    /** {@link #INGRESS}, {@link #EGRESS} or {@link #DIRECTION_UNDEFINED}, from the data source (class comment). */
    public int direction;
    /** Discard reason code (discards only; 0 otherwise — check {@link #sampleType}). */
    public long discardReason;
    /** IPFIX forwardingStatus: 64 (forwarded, unknown) for flow samples, 128..191 for discards. */
    public int forwardingStatus;
    /** sampling_rate, sample_pool, drops (u32). */
    public long samplingRate, samplePool, drops;
    /** Interface formats (0 single, 1 discard, 2 multiple) and values. */
    public int inIfFormat, outIfFormat;
    /** Interface values (ifIndex, reason or count according to the format). */
    public long inIf, outIf;
    /** sampled_header header_protocol, frame_length (bytes), header_length (bytes). */
    public long headerProtocol, frameLength, headerLength;
    /** MAC addresses as 48-bit values. */
    public long srcMac, dstMac;
    /** The flow's VLAN: {@link #inVlan}, else {@link #outVlan}; 0 none (pmacct's {@code vlan} primitive). */
    public int vlan;
    /**
     * Input VLAN: extended_switch src_vlan when the agent sent one, else the innermost tag of the sampled header
     * (for QinQ the inner tag is the flow's VLAN); output VLAN: extended_switch dst_vlan, else 0. 0 = none or
     * unknown (0xFFFFFFFF). Same as nfdump's SVlan/DVlan.
     */
    public int inVlan, outVlan;
    /** Ethertype after VLAN tags. */
    public int etherType;
    /** MPLS label stack depth and top label parsed from the header. */
    public int mplsLabels, mplsTopLabel;
    /** IP addresses, 16 bytes each (IPv4 mapped), zero when not IP. */
    public final byte[] srcAddr = new byte[16], dstAddr = new byte[16];
    /** IP protocol, ports, TCP flags, TOS, TTL. */
    public int protocol, srcPort, dstPort, tcpFlags, tos, ttl;
    /** Next hop (extended_router, else extended_gateway), 16 bytes mapped; zero when unknown. */
    public final byte[] nextHop = new byte[16];
    /** Source and destination prefix lengths (extended_router). */
    public int srcMask, dstMask;
    /** AS numbers per the class rule, and the source peer AS. */
    public long srcAs, dstAs, srcPeerAs;
    /** The destination AS path, all segments flattened. */
    public final long[] dstAsPath = new long[MAX_AS_PATH];
    /** Entries used in {@link #dstAsPath}. */
    public int dstAsPathLength;
    /** Encapsulation of the sampled packet (ParsedPacket.Encapsulation ordinal: 0 none, 1 GRE, 2 VXLAN, 3 Geneve,
     * 4 IP-in-IP, 5 SRv6) and its id (VXLAN/Geneve VNI, GRE key; 0 when none). */
    public int encapsulation;
    /** Tunnel id: VNI or GRE key (u32). */
    public long tunnelId;
    /** The innermost packet's addresses (16 bytes, IPv4 mapped), protocol and ports; zero without a tunnel. */
    public final byte[] innerSrcAddr = new byte[16], innerDstAddr = new byte[16];
    /** Inner protocol and ports. */
    public int innerProtocol, innerSrcPort, innerDstPort;
    /** Bytes (L3 length, see the class rule) and packets (1) this sample stands for, unscaled. */
    public long bytes, packets;
    /** Capacity of {@link #srv6Segments} in segments. */
    public static final int MAX_SRV6_SEGMENTS = 16;
    /** SRH Segments Left of the sampled packet's first SRH (RFC 8754 §2); 0 without one. */
    public int srv6SegmentsLeft;
    /** SRH Segment List[0..n) in wire order, 16 bytes each (Segment List[0] is the last segment of the path). */
    public final byte[] srv6Segments = new byte[16 * MAX_SRV6_SEGMENTS];
    /** Segments used in {@link #srv6Segments} (at most {@link #MAX_SRV6_SEGMENTS}). */
    public int srv6SegmentCount;
    /**
     * Where the datagram came from in its ingest stream: the Kafka partition (outlet role) or a per-process stream id
     * with bit 31 set (in-process role), as an unsigned 32-bit value; and the Kafka offset or the per-stream datagram
     * counter. Set by {@code DatagramProcessor}; see {@link FlowSchema}.
     */
    public long ingestStream, ingestOffset;
    /**
     * Whether the row's datagram stopped decoding part-way (column {@code DatagramIncomplete}): its sample structure
     * fails before the last declared sample — a sample header or length runs past the datagram — so this row's
     * sample decoded but later samples of the same datagram are lost (counted as a datagram-level decode error).
     * Known before the first row of the datagram ({@link io.vecflow.sflow.DatagramHeader#incomplete}, found by the
     * decoder's pre-pass); the same on every row of the datagram. A sample that failed inside its own length does
     * not set it (that sample is counted at the sample level; the others are whole).
     */
    public boolean datagramIncomplete;
    /**
     * Whether the sample carried a "vecflow LB decision" record (then {@link #lbDecision} holds it and the sink also
     * writes an {@code lb_decisions} row). Set by {@code DatagramProcessor}; {@link #set} clears it.
     */
    public boolean hasLbDecision;
    /** The decoded LB decision record, valid when {@link #hasLbDecision}. */
    public final LbDecisionRecord lbDecision = new LbDecisionRecord();
    /**
     * Enrichment (columns Exporter*, InIf*, OutIf*, Src/Dst{Country,Net*}; docs/enrichment.md): shared immutable
     * values the collector's enricher sets after {@link #set}, which resets them to "nothing known". Never null.
     */
    public ExporterInfo exporter = ExporterInfo.EMPTY;
    /** Metadata of the input and output interfaces (empty when not a single ifIndex, or not known yet). */
    public InterfaceInfo inIfInfo = InterfaceInfo.EMPTY, outIfInfo = InterfaceInfo.EMPTY;
    /** Network attributes, country and AS of the source and destination addresses. */
    public NetworkInfo srcNet = NetworkInfo.EMPTY, dstNet = NetworkInfo.EMPTY;
    /** Names of {@link #srcAs} and {@link #dstAs} (from the AS databases; empty when unknown). */
    public Label srcAsName = Label.EMPTY, dstAsName = Label.EMPTY;

    /** Fills the row from a decoded sample and its parsed header ({@code p} null when there was none). */
    public void set(long timeReceivedNanos, byte[] peer16, DatagramHeader h, FlowSample s, ParsedPacket p) {
        this.timeReceivedNanos = timeReceivedNanos;
        System.arraycopy(peer16, 0, peerAddress, 0, 16);
        h.writeAgentAddress16(agentAddress, 0);
        subAgentId = h.subAgentId;
        datagramSequence = h.sequenceNumber;
        datagramIncomplete = h.incomplete;
        sampleSequence = s.sequenceNumber;
        sourceIdType = s.sourceIdType;
        sourceIdIndex = s.sourceIdIndex;
        sampleType = s.isDiscard() ? DISCARD : FLOW;
        discardReason = s.isDiscard() ? s.reason : 0;
        forwardingStatus = s.isDiscard() ? DiscardReasons.forwardingStatus(s.reason) : 64;
        direction = direction(s.sourceIdType, s.sourceIdIndex, s.inputFormat, s.input, s.outputFormat, s.output);
        samplingRate = s.samplingRate;
        samplePool = s.samplePool;
        drops = s.drops;
        inIfFormat = s.inputFormat;
        inIf = s.input;
        outIfFormat = s.outputFormat;
        outIf = s.output;
        headerProtocol = s.hasSampledHeader ? s.sampledHeader.headerProtocol : 0;
        frameLength = s.hasSampledHeader ? s.sampledHeader.frameLength : 0;
        headerLength = s.hasSampledHeader ? s.sampledHeader.header.length : 0;

        srcMac = dstMac = 0;
        vlan = etherType = protocol = srcPort = dstPort = tcpFlags = tos = ttl = mplsLabels = mplsTopLabel = 0;
        Arrays.fill(srcAddr, (byte) 0);
        Arrays.fill(dstAddr, (byte) 0);
        long l3 = -1;
        int l2 = -1;
        if (p != null) {
            if (p.l2Offset() >= 0) {
                srcMac = p.srcMac();
                dstMac = p.dstMac();
            }
            vlan = p.vlanId();
            etherType = p.etherType();
            mplsLabels = p.mplsLabelCount();
            mplsTopLabel = p.mplsTopLabel();
            if (p.l3Offset() >= 0) {
                l2 = p.l3Offset();
            }
            if (p.ipVersion() != 0) {
                p.writeSrcAddr(srcAddr, 0);
                p.writeDstAddr(dstAddr, 0);
                protocol = p.protocol();
                srcPort = p.srcPort();
                dstPort = p.dstPort();
                tcpFlags = p.tcpFlags();
                tos = p.tos();
                ttl = p.ttl();
                if (p.ipTotalLength() > 0) {
                    l3 = p.ipTotalLength();
                }
            }
        }
        encapsulation = innerProtocol = innerSrcPort = innerDstPort = 0;
        tunnelId = 0;
        Arrays.fill(innerSrcAddr, (byte) 0);
        Arrays.fill(innerDstAddr, (byte) 0);
        if (p != null && p.encapsulation() != ParsedPacket.Encapsulation.NONE) {
            encapsulation = p.encapsulation().ordinal();
            tunnelId = p.vxlanVni() >= 0 ? p.vxlanVni() : p.geneveVni() >= 0 ? p.geneveVni()
                    : p.greKeyPresent() ? p.greKey() : 0;
            if (p.innerIpVersion() != 0) {
                p.writeInnerSrcAddr(innerSrcAddr, 0);
                p.writeInnerDstAddr(innerDstAddr, 0);
                innerProtocol = p.innerProtocol();
                innerSrcPort = p.innerSrcPort();
                innerDstPort = p.innerDstPort();
            }
        }
        if (s.hasSampledEthernet && srcMac == 0 && dstMac == 0) {
            srcMac = s.sampledEthernet.srcMac;
            dstMac = s.sampledEthernet.dstMac;
            if (etherType == 0) {
                etherType = (int) s.sampledEthernet.type;
            }
        }
        FlowRecords.SampledIp ip = s.hasSampledIpv4 ? s.sampledIpv4 : s.hasSampledIpv6 ? s.sampledIpv6 : null;
        if (ip != null) {
            if (p == null || p.ipVersion() == 0) {
                ip.src.writeMapped16(srcAddr, 0);
                ip.dst.writeMapped16(dstAddr, 0);
                protocol = (int) ip.protocol;
                srcPort = (int) ip.srcPort;
                dstPort = (int) ip.dstPort;
                tcpFlags = (int) ip.tcpFlags;
                tos = (int) ip.tos;
                if (etherType == 0) {
                    etherType = s.hasSampledIpv4 ? 0x0800 : 0x86DD;
                }
            }
            if (l3 < 0 && ip.length > 0) {
                l3 = ip.length;
            }
        }
        if (l3 < 0 && s.hasSampledHeader && s.sampledHeader.frameLength > 0 && l2 >= 0) {
            l3 = Math.max(0, s.sampledHeader.frameLength - s.sampledHeader.stripped - l2);
        }
        if (l3 < 0 && s.hasSampledEthernet && s.sampledEthernet.length >= 14) {
            l3 = s.sampledEthernet.length - 14;
        }
        bytes = Math.max(0, l3);
        packets = 1;

        int headerVlan = vlan;
        inVlan = headerVlan;
        outVlan = 0;
        if (s.hasExtendedSwitch) {
            inVlan = s.extendedSwitch.srcVlan < 4096 ? (int) s.extendedSwitch.srcVlan : 0;
            outVlan = s.extendedSwitch.dstVlan < 4096 ? (int) s.extendedSwitch.dstVlan : 0;
        }
        vlan = inVlan != 0 ? inVlan : outVlan;
        Arrays.fill(nextHop, (byte) 0);
        srcMask = dstMask = 0;
        SflowAddress nh = null;
        if (s.hasExtendedRouter) {
            nh = s.extendedRouter.nextHop;
            srcMask = (int) s.extendedRouter.srcMaskLen;
            dstMask = (int) s.extendedRouter.dstMaskLen;
        }
        srcAs = dstAs = srcPeerAs = 0;
        dstAsPathLength = 0;
        if (s.hasExtendedGateway) {
            FlowRecords.ExtendedGateway g = s.extendedGateway;
            if (nh == null || nh.length() == 0) {
                nh = g.nextHop;
            }
            srcAs = g.srcAs != 0 ? g.srcAs : g.as;
            dstAs = g.asPathLength > 0 ? g.lastAs() : g.as;
            srcPeerAs = g.srcPeerAs;
            dstAsPathLength = g.asPathLength;
            System.arraycopy(g.asPath, 0, dstAsPath, 0, g.asPathLength);
        }
        if (nh != null) {
            nh.writeMapped16(nextHop, 0);
        }
        hasLbDecision = false;
        exporter = ExporterInfo.EMPTY;
        inIfInfo = outIfInfo = InterfaceInfo.EMPTY;
        srcNet = dstNet = NetworkInfo.EMPTY;
        srcAsName = dstAsName = Label.EMPTY;
        srv6SegmentsLeft = srv6SegmentCount = 0;
        if (p != null && p.srhPresent()) {
            srv6SegmentsLeft = p.srhSegmentsLeft();
            srv6SegmentCount = Math.min(p.srhSegmentCount(), MAX_SRV6_SEGMENTS);
            for (int i = 0; i < srv6SegmentCount; i++) {
                p.writeSrhSegment(i, srv6Segments, 16 * i);
            }
        }
    }

    /**
     * Where a sample was taken, from its data source (sFlow v5 carries no direction): source_id type 0 (ifIndex) with
     * a non-zero index equal to the input interface (format 0) → {@link #INGRESS}; else equal to the output interface
     * (format 0) → {@link #EGRESS}; else {@link #DIRECTION_UNDEFINED} — e.g. source 0:0, a VLAN (type 1) or entity
     * (type 2) source, or an ifIndex that is neither interface (a LAG or bridge sampler). When input and output are the
     * same port (hairpin), ingress. {@link FlowSchema#DIRECTION_RULE} is the same rule in SQL.
     *
     * @param sourceIdType source_id type (0 ifIndex, 1 smonVlanDataSource, 2 entPhysicalEntry)
     * @param sourceIdIndex source_id index
     * @param inputFormat input interface format (0 single ifIndex, 1 discarded, 2 multiple)
     * @param input input interface value
     * @param outputFormat output interface format, as inputFormat
     * @param output output interface value
     * @return {@link #INGRESS}, {@link #EGRESS} or {@link #DIRECTION_UNDEFINED}
     */
    public static int direction(int sourceIdType, long sourceIdIndex, int inputFormat, long input, int outputFormat,
            long output) {
        if (sourceIdType != 0 || sourceIdIndex == 0) {
            return DIRECTION_UNDEFINED;
        }
        if (inputFormat == 0 && sourceIdIndex == input) {
            return INGRESS;
        }
        if (outputFormat == 0 && sourceIdIndex == output) {
            return EGRESS;
        }
        return DIRECTION_UNDEFINED;
    }

    /** Copies every field of another row into this one (for sinks that keep rows); returns this. */
    public FlowRow copyFrom(FlowRow r) {
        timeReceivedNanos = r.timeReceivedNanos;
        System.arraycopy(r.agentAddress, 0, agentAddress, 0, 16);
        System.arraycopy(r.peerAddress, 0, peerAddress, 0, 16);
        subAgentId = r.subAgentId;
        datagramSequence = r.datagramSequence;
        datagramIncomplete = r.datagramIncomplete;
        sampleSequence = r.sampleSequence;
        sourceIdIndex = r.sourceIdIndex;
        sourceIdType = r.sourceIdType;
        sampleType = r.sampleType;
        direction = r.direction;
        discardReason = r.discardReason;
        forwardingStatus = r.forwardingStatus;
        samplingRate = r.samplingRate;
        samplePool = r.samplePool;
        drops = r.drops;
        inIfFormat = r.inIfFormat;
        inIf = r.inIf;
        outIfFormat = r.outIfFormat;
        outIf = r.outIf;
        headerProtocol = r.headerProtocol;
        frameLength = r.frameLength;
        headerLength = r.headerLength;
        srcMac = r.srcMac;
        dstMac = r.dstMac;
        vlan = r.vlan;
        inVlan = r.inVlan;
        outVlan = r.outVlan;
        etherType = r.etherType;
        mplsLabels = r.mplsLabels;
        mplsTopLabel = r.mplsTopLabel;
        System.arraycopy(r.srcAddr, 0, srcAddr, 0, 16);
        System.arraycopy(r.dstAddr, 0, dstAddr, 0, 16);
        protocol = r.protocol;
        srcPort = r.srcPort;
        dstPort = r.dstPort;
        tcpFlags = r.tcpFlags;
        tos = r.tos;
        ttl = r.ttl;
        System.arraycopy(r.nextHop, 0, nextHop, 0, 16);
        srcMask = r.srcMask;
        dstMask = r.dstMask;
        srcAs = r.srcAs;
        dstAs = r.dstAs;
        srcPeerAs = r.srcPeerAs;
        dstAsPathLength = r.dstAsPathLength;
        System.arraycopy(r.dstAsPath, 0, dstAsPath, 0, r.dstAsPathLength);
        encapsulation = r.encapsulation;
        tunnelId = r.tunnelId;
        System.arraycopy(r.innerSrcAddr, 0, innerSrcAddr, 0, 16);
        System.arraycopy(r.innerDstAddr, 0, innerDstAddr, 0, 16);
        innerProtocol = r.innerProtocol;
        innerSrcPort = r.innerSrcPort;
        innerDstPort = r.innerDstPort;
        bytes = r.bytes;
        packets = r.packets;
        srv6SegmentsLeft = r.srv6SegmentsLeft;
        srv6SegmentCount = r.srv6SegmentCount;
        System.arraycopy(r.srv6Segments, 0, srv6Segments, 0, 16 * r.srv6SegmentCount);
        ingestStream = r.ingestStream;
        ingestOffset = r.ingestOffset;
        hasLbDecision = r.hasLbDecision;
        if (r.hasLbDecision) {
            lbDecision.copyFrom(r.lbDecision);
        }
        exporter = r.exporter;
        inIfInfo = r.inIfInfo;
        outIfInfo = r.outIfInfo;
        srcNet = r.srcNet;
        dstNet = r.dstNet;
        srcAsName = r.srcAsName;
        dstAsName = r.dstAsName;
        return this;
    }
}
