package io.vecflow.lab.kernel;

import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.SflowFormats;

/**
 * One flow (0:3) or discarded_packet (0:5) sample as the agent sent it, decoded from its datagram by sflow-v5's
 * {@code SflowDecoder} (copied out of the reused holder).
 *
 * @param discard          true for 0:5
 * @param sourceIdType     source_id type (0 = ifIndex)
 * @param sourceIdIndex    source_id index
 * @param sequence         sample sequence number (per source)
 * @param samplingRate     1-in-N (0 for discards)
 * @param samplePool       packets the source could have sampled (u32)
 * @param drops            the drops field (u32)
 * @param input            input ifIndex
 * @param output           output ifIndex
 * @param reason           discard reason code (sflow_drops.txt), -1 for flow samples
 * @param headerProtocol   sampled_header header_protocol (1 = Ethernet)
 * @param frameLength      sampled_header frame_length, bytes (FCS included)
 * @param stripped         sampled_header stripped, bytes
 * @param header           sampled_header header bytes
 * @param linuxDropReason  record 0:1042 text, or null
 * @param function         record 0:1038 text (kernel symbol), or null
 */
public record SeenSample(boolean discard, int sourceIdType, long sourceIdIndex, long sequence, long samplingRate,
        long samplePool, long drops, long input, long output, long reason, int headerProtocol, long frameLength,
        long stripped, byte[] header, String linuxDropReason, String function) {

    /** Copies what the checks need out of a decoded sample holder. */
    static SeenSample of(FlowSample s) {
        boolean discard = s.kind == SflowFormats.DISCARDED_PACKET;
        return new SeenSample(discard, s.sourceIdType, s.sourceIdIndex, s.sequenceNumber, s.samplingRate,
                s.samplePool, s.drops, s.input, s.output, s.reason, s.sampledHeader.headerProtocol,
                s.sampledHeader.frameLength, s.sampledHeader.stripped,
                s.hasSampledHeader ? s.sampledHeader.header.toArray() : new byte[0],
                s.hasLinuxDropReason ? s.linuxDropReason.asString() : null,
                s.hasFunction ? s.function.asString() : null);
    }
}
