package io.vecflow.sflow;

import io.vecflow.sflow.FlowRecords.ExtendedAcl;
import io.vecflow.sflow.FlowRecords.ExtendedGateway;
import io.vecflow.sflow.FlowRecords.ExtendedHwTrap;
import io.vecflow.sflow.FlowRecords.ExtendedMpls;
import io.vecflow.sflow.FlowRecords.ExtendedNat;
import io.vecflow.sflow.FlowRecords.ExtendedRouter;
import io.vecflow.sflow.FlowRecords.ExtendedSwitch;
import io.vecflow.sflow.FlowRecords.ExtendedUrl;
import io.vecflow.sflow.FlowRecords.ExtendedUser;
import io.vecflow.sflow.FlowRecords.ExtendedVlanTunnel;
import io.vecflow.sflow.FlowRecords.SampledEthernet;
import io.vecflow.sflow.FlowRecords.SampledHeader;
import io.vecflow.sflow.FlowRecords.SampledIp;

/**
 * One decoded flow sample — flow_sample (0:1), flow_sample_expanded (0:3) or discarded_packet (0:5) — with its flow
 * records. Mutable and reused by {@link SflowDecoder}: copy what must outlive the visitor call (views point into the
 * datagram). The encoder ({@link DatagramBuilder#addFlowSample}) writes the same holder back.
 *
 * <p>u32 values are longs (decoder pitfall 10). Interfaces keep format and value apart: compact words are split (top
 * 2 bits = format), expanded ones never masked (pitfall 7). Records are listed in wire order in
 * {@link #recordFormats}; each known record fills its holder and sets its {@code has…} flag; unknown records (any
 * enterprise, any format) are kept as raw views with their data_format (pitfalls 3, 4).
 */
public final class FlowSample extends RecordedSample {
    // kind (FLOW_SAMPLE, FLOW_SAMPLE_EXPANDED or DISCARDED_PACKET), expanded (0:3, 0:5), offset, length,
    // sequenceNumber, sourceIdType, sourceIdIndex and buffer: see RecordedSample.
    /** sampling_rate N of 1-in-N (u32); 0 for discards. Consumers flag 0 and never multiply by it. */
    public long samplingRate;
    /** sample_pool: packets that could have been sampled (u32); 0 for discards. */
    public long samplePool;
    /** drops: samples (or discard events) lost for lack of resources (u32). */
    public long drops;
    /** Input interface format (0 single, 1 discard, 2 multiple) and value; discards carry plain ifIndexes. */
    public int inputFormat;
    /** Input interface value (ifIndex when format 0; 0x3FFFFFFF or 0xFFFFFFFF = internal). */
    public long input;
    /** Output interface format (0 single, 1 discard with reason, 2 multiple with count). */
    public int outputFormat;
    /** Output interface value. */
    public long output;
    /** discarded_packet reason code (sflow_drops.txt), or -1 for flow samples. */
    public long reason = -1;

    /** sampled_header (0:1). */
    public final SampledHeader sampledHeader = new SampledHeader();
    /** sampled_ethernet (0:2). */
    public final SampledEthernet sampledEthernet = new SampledEthernet();
    /** sampled_ipv4 (0:3). */
    public final SampledIp sampledIpv4 = new SampledIp();
    /** sampled_ipv6 (0:4). */
    public final SampledIp sampledIpv6 = new SampledIp();
    /** extended_switch (0:1001). */
    public final ExtendedSwitch extendedSwitch = new ExtendedSwitch();
    /** extended_router (0:1002). */
    public final ExtendedRouter extendedRouter = new ExtendedRouter();
    /** extended_gateway (0:1003). */
    public final ExtendedGateway extendedGateway = new ExtendedGateway();
    /** extended_user (0:1004). */
    public final ExtendedUser extendedUser = new ExtendedUser();
    /** extended_url (0:1005). */
    public final ExtendedUrl extendedUrl = new ExtendedUrl();
    /** extended_mpls (0:1006). */
    public final ExtendedMpls extendedMpls = new ExtendedMpls();
    /** extended_nat (0:1007). */
    public final ExtendedNat extendedNat = new ExtendedNat();
    /** extended_vlantunnel (0:1012). */
    public final ExtendedVlanTunnel extendedVlanTunnel = new ExtendedVlanTunnel();
    /** extended_egress_queue (0:1036): queue number. */
    public long egressQueue;
    /** extended_acl (0:1037). */
    public final ExtendedAcl extendedAcl = new ExtendedAcl();
    /** extended_function (0:1038): the function (symbol) that dropped the packet. */
    public final ByteView function = new ByteView();
    /** extended_transit (0:1039): delay in ns. */
    public long transitDelayNanos;
    /** extended_queue (0:1040): queue depth in bytes. */
    public long queueDepthBytes;
    /** extended_hw_trap (0:1041). */
    public final ExtendedHwTrap hwTrap = new ExtendedHwTrap();
    /** extended_linux_drop_reason (0:1042): Linux drop-reason name. */
    public final ByteView linuxDropReason = new ByteView();
    /** extended_timestamp (0:1043): ns since the UNIX epoch (u64). */
    public long timestampNanos;

    /** Presence flags, one per known record. */
    public boolean hasSampledHeader, hasSampledEthernet, hasSampledIpv4, hasSampledIpv6, hasExtendedSwitch,
            hasExtendedRouter, hasExtendedGateway, hasExtendedUser, hasExtendedUrl, hasExtendedMpls, hasExtendedNat,
            hasExtendedVlanTunnel, hasEgressQueue, hasExtendedAcl, hasFunction, hasTransitDelay, hasQueueDepth,
            hasHwTrap, hasLinuxDropReason, hasTimestamp;

    /** Creates an empty holder. */
    public FlowSample() {}

    /** @return true for a discarded_packet (0:5) sample. */
    public boolean isDiscard() {
        return kind == SflowFormats.DISCARDED_PACKET;
    }

    /**
     * @param format a flow record data_format
     * @return the presence flag of that known record (false for a format vecflow does not decode)
     */
    public boolean has(int format) {
        return switch (format) {
            case SflowFormats.SAMPLED_HEADER -> hasSampledHeader;
            case SflowFormats.SAMPLED_ETHERNET -> hasSampledEthernet;
            case SflowFormats.SAMPLED_IPV4 -> hasSampledIpv4;
            case SflowFormats.SAMPLED_IPV6 -> hasSampledIpv6;
            case SflowFormats.EXTENDED_SWITCH -> hasExtendedSwitch;
            case SflowFormats.EXTENDED_ROUTER -> hasExtendedRouter;
            case SflowFormats.EXTENDED_GATEWAY -> hasExtendedGateway;
            case SflowFormats.EXTENDED_USER -> hasExtendedUser;
            case SflowFormats.EXTENDED_URL -> hasExtendedUrl;
            case SflowFormats.EXTENDED_MPLS -> hasExtendedMpls;
            case SflowFormats.EXTENDED_NAT -> hasExtendedNat;
            case SflowFormats.EXTENDED_VLAN_TUNNEL -> hasExtendedVlanTunnel;
            case SflowFormats.EXTENDED_EGRESS_QUEUE -> hasEgressQueue;
            case SflowFormats.EXTENDED_ACL -> hasExtendedAcl;
            case SflowFormats.EXTENDED_FUNCTION -> hasFunction;
            case SflowFormats.EXTENDED_TRANSIT -> hasTransitDelay;
            case SflowFormats.EXTENDED_QUEUE -> hasQueueDepth;
            case SflowFormats.EXTENDED_HW_TRAP -> hasHwTrap;
            case SflowFormats.EXTENDED_LINUX_DROP_REASON -> hasLinuxDropReason;
            case SflowFormats.EXTENDED_TIMESTAMP -> hasTimestamp;
            default -> false;
        };
    }

    /** Clears every field and flag (holders keep their arrays). */
    public void reset() {
        resetSample();
        samplingRate = samplePool = drops = input = output = 0;
        inputFormat = outputFormat = 0;
        reason = -1;
        resetRecords();
        hasSampledHeader = hasSampledEthernet = hasSampledIpv4 = hasSampledIpv6 = hasExtendedSwitch = false;
        hasExtendedRouter = hasExtendedGateway = hasExtendedUser = hasExtendedUrl = hasExtendedMpls = false;
        hasExtendedNat = hasExtendedVlanTunnel = hasEgressQueue = hasExtendedAcl = hasFunction = false;
        hasTransitDelay = hasQueueDepth = hasHwTrap = hasLinuxDropReason = hasTimestamp = false;
    }

    // Convenience accessors used by consumers that only need the classic fields.

    /** @return sampled_header header_protocol, or 0 without a sampled_header. */
    public int headerProtocol() {
        return hasSampledHeader ? sampledHeader.headerProtocol : 0;
    }

    /** @return sampled_header frame_length in bytes, or 0. */
    public long frameLength() {
        return hasSampledHeader ? sampledHeader.frameLength : 0;
    }
}
