package io.vecflow.collector;

import io.vecflow.packet.ParsedPacket;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.FlowSample;

/**
 * One flow sample as stored: the sFlow datagram and sample fields plus what the packet parser found in the sampled
 * header. Mutable and reused per decode thread; sinks copy what they keep.
 *
 * <p>Byte accounting rule (one rule, documented): {@link #bytes} = sampled_header frame_length (the L2 frame length as
 * the agent reports it, FCS included), {@link #packets} = 1; scale both by {@link #samplingRate} for estimates.
 */
public final class FlowRow {
    /** Receive time, ns since the UNIX epoch. */
    public long timeReceivedNanos;
    /** Agent address, 16 bytes (IPv4 mapped as ::ffff:a.b.c.d). */
    public final byte[] agentAddress = new byte[16];
    /** UDP source of the datagram, 16 bytes IPv4-mapped. */
    public final byte[] peerAddress = new byte[16];
    /** sub_agent_id, datagram sequence_number. */
    public long subAgentId, datagramSequence;
    /** Sample sequence_number, source_id type and index. */
    public long sampleSequence, sourceIdIndex;
    /** source_id type. */
    public int sourceIdType;
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
    /** Innermost VLAN id (0 none). */
    public int vlan;
    /** Ethertype after VLAN tags. */
    public int etherType;
    /** IP addresses, 16 bytes each (IPv4 mapped), zero when not IP. */
    public final byte[] srcAddr = new byte[16], dstAddr = new byte[16];
    /** IP protocol, ports, TCP flags, TOS, TTL. */
    public int protocol, srcPort, dstPort, tcpFlags, tos, ttl;
    /** Bytes and packets this sample stands for (unscaled): frame_length and 1. */
    public long bytes, packets;

    /** Fills the row from a decoded sample and its parsed header. */
    public void set(long timeReceivedNanos, byte[] peer16, DatagramHeader h, FlowSample s, ParsedPacket p) {
        this.timeReceivedNanos = timeReceivedNanos;
        System.arraycopy(peer16, 0, peerAddress, 0, 16);
        h.writeAgentAddress16(agentAddress, 0);
        subAgentId = h.subAgentId;
        datagramSequence = h.sequenceNumber;
        sampleSequence = s.sequenceNumber;
        sourceIdType = s.sourceIdType;
        sourceIdIndex = s.sourceIdIndex;
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
        if (p != null) {
            srcMac = p.srcMac();
            dstMac = p.dstMac();
            vlan = p.vlanId();
            etherType = p.etherType();
            if (p.ipVersion() != 0) {
                p.writeSrcAddr(srcAddr, 0);
                p.writeDstAddr(dstAddr, 0);
            } else {
                java.util.Arrays.fill(srcAddr, (byte) 0);
                java.util.Arrays.fill(dstAddr, (byte) 0);
            }
            protocol = p.protocol();
            srcPort = p.srcPort();
            dstPort = p.dstPort();
            tcpFlags = p.tcpFlags();
            tos = p.tos();
            ttl = p.ttl();
        } else {
            srcMac = dstMac = 0;
            vlan = etherType = protocol = srcPort = dstPort = tcpFlags = tos = ttl = 0;
            java.util.Arrays.fill(srcAddr, (byte) 0);
            java.util.Arrays.fill(dstAddr, (byte) 0);
        }
        if (s.hasExtendedSwitch && vlan == 0 && s.extendedSwitch.srcVlan < 4096) {
            vlan = (int) s.extendedSwitch.srcVlan;
        }
        bytes = frameLength;
        packets = 1;
    }
}
