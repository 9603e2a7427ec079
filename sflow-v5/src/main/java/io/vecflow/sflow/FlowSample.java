package io.vecflow.sflow;

/**
 * One decoded flow sample, compact (0:1) or expanded (0:3), with the flow records vecflow understands so far.
 * Mutable and reused by {@link SflowDecoder}: copy what must outlive the visitor call.
 *
 * <p>u32 values are held in longs (sFlow v5 §"flow_sample"; decoder pitfall 10). Interfaces keep their format and
 * value apart: compact values are split (top 2 bits = format), expanded values are never masked.
 */
public final class FlowSample {
    /** True for flow_sample_expanded (0:3), false for flow_sample (0:1). */
    public boolean expanded;
    /** Byte offset of the sample's data_format word in the datagram. */
    public int offset;
    /** sequence_number of this sample, per source_id (u32). */
    public long sequenceNumber;
    /** source_id type (0 ifIndex, 1 VLAN, 2 entPhysicalEntry). */
    public int sourceIdType;
    /** source_id index (24 bits compact, 32 bits expanded). */
    public long sourceIdIndex;
    /** sampling_rate N of 1-in-N (u32); 0 is flagged by consumers, never multiplied by. */
    public long samplingRate;
    /** sample_pool: packets that could have been sampled (u32). */
    public long samplePool;
    /** drops: samples lost for lack of resources (u32). */
    public long drops;
    /** Input interface format (0 single, 1 discard, 2 multiple) and value. */
    public int inputFormat;
    /** Input interface value (ifIndex when format 0; 0x3FFFFFFF or 0xFFFFFFFF = internal). */
    public long input;
    /** Output interface format (0 single, 1 discard with reason, 2 multiple with count). */
    public int outputFormat;
    /** Output interface value. */
    public long output;
    /** Number of flow records declared. */
    public int recordCount;
    /** Records skipped because vecflow does not decode their (enterprise, format) yet. */
    public int unknownRecords;

    /** True when a sampled_header (0:1) record was present. */
    public boolean hasSampledHeader;
    /** sampled_header header_protocol (1 Ethernet, 11 IPv4, 12 IPv6 ...). */
    public int headerProtocol;
    /** sampled_header frame_length in bytes (original length, FCS included for L2). */
    public long frameLength;
    /** sampled_header stripped: bytes removed before capture (FCS, tags). */
    public long stripped;
    /** Length in bytes of the captured header. */
    public int headerLength;
    /** Offset of the captured header bytes within {@link #buffer}. */
    public int headerOffset;
    /** The datagram buffer the header bytes live in (valid only during the visitor call). */
    public byte[] buffer;

    /** True when an extended_switch (0:1001) record was present. */
    public boolean hasExtendedSwitch;
    /** extended_switch src_vlan, src_priority, dst_vlan, dst_priority (u32; 0xFFFFFFFF = unknown). */
    public long srcVlan, srcPriority, dstVlan, dstPriority;

    void reset() {
        expanded = false;
        offset = 0;
        sequenceNumber = sourceIdIndex = samplingRate = samplePool = drops = input = output = 0;
        sourceIdType = inputFormat = outputFormat = recordCount = unknownRecords = 0;
        hasSampledHeader = hasExtendedSwitch = false;
        headerProtocol = headerLength = headerOffset = 0;
        frameLength = stripped = 0;
        srcVlan = srcPriority = dstVlan = dstPriority = 0;
        buffer = null;
    }
}
