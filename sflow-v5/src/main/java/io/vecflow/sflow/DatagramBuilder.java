package io.vecflow.sflow;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Assembles one sFlow v5 datagram at a time under a byte budget (sFlow v5 "sample_datagram_v5"; XDR, RFC 4506),
 * on an {@link XdrWriter} whose capacity is the budget.
 *
 * <p>Samples are appended after the space reserved for the header; the header (sequence number and uptime) is
 * written by {@link #finish(long, long)} at send time. A sample that does not fit the remaining budget is refused
 * with nothing written. Nothing is allocated per sample or per datagram. Not thread-safe.
 *
 * <p>Usage: {@code if (!b.fits(b.flowSampleExpandedBytes(h))) send(b.finish(seq, uptime));
 * b.addFlowSampleExpanded(...)}, or for a whole {@link FlowSample} holder: {@code if (!b.addFlowSample(s)) {
 * send(b.finish(seq, uptime)); b.reset(); b.addFlowSample(s); }} (check {@link
 * FlowSampleEncoder#encodedBytes(FlowSample)} first when the sample may be refused or may not fit even an empty
 * datagram).
 */
public final class DatagramBuilder {
    /** Fixed bytes of an expanded flow sample with one sampled_header record, excluding the header bytes: 8 (sample
     * tag) + 44 (0:3 fixed part) + 8 (record tag) + 16 (sampled_header fixed part). */
    public static final int FLOW_SAMPLE_EXPANDED_OVERHEAD = 8 + 44 + 8 + 16;

    private final XdrWriter w;
    private final int maxBytes;
    private final byte[] agentAddress;
    private final int headerBytes;
    private final long subAgentId;
    private int samples;

    /**
     * @param maxDatagramBytes budget for one datagram in bytes (hsflowd {@code datagramBytes}: 200..65507)
     * @param agentAddress 4 bytes (IPv4 agent) or 16 bytes (IPv6 agent)
     * @param subAgentId sub_agent_id (u32; hsflowd's default is 100000)
     * @throws IllegalArgumentException for a bad budget or address length
     */
    public DatagramBuilder(int maxDatagramBytes, byte[] agentAddress, long subAgentId) {
        if (maxDatagramBytes < 200 || maxDatagramBytes > 65507) {
            throw new IllegalArgumentException("datagramBytes must be 200..65507, got " + maxDatagramBytes);
        }
        if (agentAddress.length != 4 && agentAddress.length != 16) {
            throw new IllegalArgumentException("agent address must be 4 or 16 bytes, got " + agentAddress.length);
        }
        this.maxBytes = maxDatagramBytes;
        this.w = new XdrWriter(maxDatagramBytes);
        this.agentAddress = agentAddress.clone();
        this.headerBytes = agentAddress.length == 4 ? SflowFormats.HEADER_BYTES_IPV4 : SflowFormats.HEADER_BYTES_IPV6;
        this.subAgentId = subAgentId;
        reset();
    }

    /** Empties the builder (the header space stays reserved). */
    public void reset() {
        w.reset(headerBytes);
        samples = 0;
    }

    /** @return number of samples added since the last reset. */
    public int sampleCount() {
        return samples;
    }

    /** @return true when no sample has been added. */
    public boolean isEmpty() {
        return samples == 0;
    }

    /** @return bytes used so far, header included. */
    public int size() {
        return w.position();
    }

    /** @return the budget in bytes. */
    public int maxBytes() {
        return maxBytes;
    }

    /**
     * @param bytes bytes about to be added (e.g. {@link #flowSampleExpandedBytes(int)} or
     *     {@link FlowSampleEncoder#encodedBytes(FlowSample)})
     * @return true if {@code bytes} more fit under the budget
     */
    public boolean fits(int bytes) {
        return w.position() + bytes <= maxBytes;
    }

    /**
     * @param headerLength captured header bytes
     * @return the bytes an expanded flow sample with a sampled_header of {@code headerLength} bytes takes
     */
    public static int flowSampleExpandedBytes(int headerLength) {
        return FLOW_SAMPLE_EXPANDED_OVERHEAD + SflowFormats.pad4(headerLength);
    }

    /** @return the largest sampled_header length in bytes that fits an otherwise empty datagram. */
    public int maxHeaderLength() {
        return (maxBytes - headerBytes - FLOW_SAMPLE_EXPANDED_OVERHEAD) & ~3;
    }

    /**
     * Appends a whole flow sample — flow_sample (0:1), flow_sample_expanded (0:3) or discarded_packet (0:5), as
     * {@code s.kind} says — with all its records, through {@link FlowSampleEncoder#encode(FlowSample, XdrWriter)}.
     * Allocation-free.
     *
     * @param s the sample (its views must still point at valid bytes)
     * @return false, with nothing written, if the sample does not fit the remaining budget or the encoder refuses
     *         it ({@link FlowSampleEncoder#encodedBytes(FlowSample)} is -1 then)
     */
    public boolean addFlowSample(FlowSample s) {
        if (!FlowSampleEncoder.encode(s, w)) {
            return false;
        }
        samples++;
        return true;
    }

    /**
     * Appends a counters sample (0:2 or 0:4, as {@code s.kind} says) with every record it lists
     * ({@link CounterSampleEncoder}).
     *
     * @return false, with nothing written, if the sample does not fit the remaining budget or cannot be encoded
     *         faithfully
     */
    public boolean addCounterSample(CounterSample s) {
        if (!CounterSampleEncoder.encode(s, w)) {
            return false;
        }
        samples++;
        return true;
    }

    /**
     * Appends an expanded flow sample (0:3) carrying one sampled_header record (0:1).
     *
     * @param sequenceNumber sample sequence number for this source (u32)
     * @param sourceIdType source_id type (0 = ifIndex)
     * @param sourceIdIndex source_id index (u32)
     * @param samplingRate N of 1-in-N (u32)
     * @param samplePool packets that could have been sampled (u32, wraps)
     * @param drops samples lost so far (u32, wraps)
     * @param inputFormat input interface format (0 single)
     * @param input input ifIndex (u32; 0 unknown, 0x3FFFFFFF internal)
     * @param outputFormat output interface format
     * @param output output ifIndex
     * @param headerProtocol sampled_header header_protocol (1 Ethernet)
     * @param frameLength original frame length in bytes, FCS included for Ethernet
     * @param stripped bytes removed before capture (4 for the FCS)
     * @param header captured bytes
     * @param headerOffset offset of the captured bytes in {@code header}
     * @param headerLength number of captured bytes
     * @return false (and nothing written) if the sample does not fit the remaining budget
     */
    public boolean addFlowSampleExpanded(long sequenceNumber, int sourceIdType, long sourceIdIndex, long samplingRate,
            long samplePool, long drops, int inputFormat, long input, int outputFormat, long output,
            int headerProtocol, long frameLength, long stripped, MemorySegment header, long headerOffset,
            int headerLength) {
        if (!beginFlowSampleExpanded(sequenceNumber, sourceIdType, sourceIdIndex, samplingRate, samplePool, drops,
                inputFormat, input, outputFormat, output, headerProtocol, frameLength, stripped, headerLength, 0, null,
                0, 0)) {
            return false;
        }
        // XdrWriter has no MemorySegment source: copy straight into its buffer (room was checked), pad, move on.
        int pos = w.position();
        byte[] buf = w.buffer();
        MemorySegment.copy(header, ValueLayout.JAVA_BYTE, headerOffset, buf, pos, headerLength);
        int end = pos + SflowFormats.pad4(headerLength);
        for (int i = pos + headerLength; i < end; i++) {
            buf[i] = 0;
        }
        w.seek(end);
        samples++;
        return true;
    }

    /**
     * Same as {@link #addFlowSampleExpanded(long, int, long, long, long, long, int, long, int, long, int, long, long,
     * MemorySegment, long, int)} with the header bytes in an array.
     *
     * @return false (and nothing written) if the sample does not fit the remaining budget
     */
    public boolean addFlowSampleExpanded(long sequenceNumber, int sourceIdType, long sourceIdIndex, long samplingRate,
            long samplePool, long drops, int inputFormat, long input, int outputFormat, long output,
            int headerProtocol, long frameLength, long stripped, byte[] header, int headerOffset, int headerLength) {
        return addFlowSampleExpanded(sequenceNumber, sourceIdType, sourceIdIndex, samplingRate, samplePool, drops,
                inputFormat, input, outputFormat, output, headerProtocol, frameLength, stripped, header, headerOffset,
                headerLength, 0, null, 0);
    }

    /**
     * Appends an expanded flow sample (0:3) carrying a sampled_header record (0:1) and, when {@code extraLength > 0},
     * one more flow record after it: {@code extraFormat}, {@code extraLength}, the body bytes (already XDR, a multiple
     * of 4 bytes) — e.g. the "vecflow LB decision" record ({@link LbDecisionRecord}). Allocation-free.
     *
     * @param extraFormat the extra record's data_format ({@code enterprise << 12 | format})
     * @param extra the extra record's body (XDR), or null when {@code extraLength} is 0
     * @param extraLength body bytes, 0 for none; a multiple of 4
     * @return false (and nothing written) if the sample does not fit the remaining budget
     * @throws IllegalArgumentException an extra body length that is negative or not a multiple of 4
     */
    public boolean addFlowSampleExpanded(long sequenceNumber, int sourceIdType, long sourceIdIndex, long samplingRate,
            long samplePool, long drops, int inputFormat, long input, int outputFormat, long output,
            int headerProtocol, long frameLength, long stripped, byte[] header, int headerOffset, int headerLength,
            int extraFormat, byte[] extra, int extraLength) {
        return addFlowSampleExpanded(sequenceNumber, sourceIdType, sourceIdIndex, samplingRate, samplePool, drops,
                inputFormat, input, outputFormat, output, headerProtocol, frameLength, stripped, header, headerOffset,
                headerLength, null, 0, 0, extraFormat, extra, extraLength);
    }

    /**
     * As {@link #addFlowSampleExpanded(long, int, long, long, long, long, int, long, int, long, int, long, long,
     * byte[], int, int, int, byte[], int)}, with whole records written ahead of the sampled_header: {@code leading}
     * holds {@code leadingRecords} records already in XDR, each with its data_format and length words (e.g.
     * hsflowd's 0:1043 extended_timestamp, which it sends before the header). Allocation-free.
     *
     * @param leading the leading records (tags included), or null when {@code leadingBytes} is 0
     * @param leadingBytes their bytes, a multiple of 4
     * @param leadingRecords how many records they are
     * @return false (and nothing written) if the sample does not fit the remaining budget
     * @throws IllegalArgumentException a body length that is negative or not a multiple of 4
     */
    public boolean addFlowSampleExpanded(long sequenceNumber, int sourceIdType, long sourceIdIndex, long samplingRate,
            long samplePool, long drops, int inputFormat, long input, int outputFormat, long output,
            int headerProtocol, long frameLength, long stripped, byte[] header, int headerOffset, int headerLength,
            byte[] leading, int leadingBytes, int leadingRecords, int extraFormat, byte[] extra, int extraLength) {
        if (extraLength < 0 || (extraLength & 3) != 0 || leadingBytes < 0 || (leadingBytes & 3) != 0) {
            throw new IllegalArgumentException("extra record body of " + extraLength + " bytes, leading records of "
                    + leadingBytes + " bytes: XDR bodies are multiples of 4");
        }
        if (!beginFlowSampleExpanded(sequenceNumber, sourceIdType, sourceIdIndex, samplingRate, samplePool, drops,
                inputFormat, input, outputFormat, output, headerProtocol, frameLength, stripped, headerLength,
                extraLength == 0 ? 0 : 8 + extraLength, leading, leadingBytes, leadingRecords)) {
            return false;
        }
        w.fixed(header, headerOffset, headerLength);
        if (extraLength > 0) {
            w.u32(extraFormat & 0xFFFFFFFFL);
            w.u32(extraLength);
            w.fixed(extra, 0, extraLength);
        }
        samples++;
        return true;
    }

    /**
     * @param headerLength captured header bytes
     * @param extraRecordBytes a second record's bytes with its 8-byte tag, 0 for none
     * @return the bytes an expanded flow sample with a sampled_header and the extra record takes
     */
    public static int flowSampleExpandedBytes(int headerLength, int extraRecordBytes) {
        return flowSampleExpandedBytes(headerLength) + extraRecordBytes;
    }

    /**
     * Checks the room, then writes everything up to the header bytes (the sampled_header length word included).
     *
     * @param extraRecordBytes bytes of a record that follows the sampled_header (tag included), 0 for none
     * @param leading records written before the sampled_header (tags included), or null
     */
    private boolean beginFlowSampleExpanded(long sequenceNumber, int sourceIdType, long sourceIdIndex,
            long samplingRate, long samplePool, long drops, int inputFormat, long input, int outputFormat,
            long output, int headerProtocol, long frameLength, long stripped, int headerLength,
            int extraRecordBytes, byte[] leading, int leadingBytes, int leadingRecords) {
        int recordBody = 16 + SflowFormats.pad4(headerLength);
        int sampleBody = 44 + leadingBytes + 8 + recordBody + extraRecordBytes;
        if (headerLength < 0 || !fits(8 + sampleBody)) {
            return false;
        }
        w.u32(SflowFormats.FLOW_SAMPLE_EXPANDED);
        w.u32(sampleBody);
        w.u32(sequenceNumber);
        w.u32(sourceIdType);
        w.u32(sourceIdIndex);
        w.u32(samplingRate);
        w.u32(samplePool);
        w.u32(drops);
        w.u32(inputFormat);
        w.u32(input);
        w.u32(outputFormat);
        w.u32(output);
        w.u32(leadingRecords + (extraRecordBytes == 0 ? 1 : 2)); // flow_records
        if (leadingBytes > 0) {
            w.fixed(leading, 0, leadingBytes);
        }
        w.u32(SflowFormats.SAMPLED_HEADER);
        w.u32(recordBody);
        w.u32(headerProtocol);
        w.u32(frameLength);
        w.u32(stripped);
        w.u32(headerLength);
        return true;
    }

    /**
     * Writes the datagram header and returns the finished datagram's length; the bytes are in {@link #buffer()}
     * from offset 0. Call {@link #reset()} after sending.
     *
     * @param datagramSequence sequence_number, +1 per datagram (u32)
     * @param uptimeMs ms since the agent started (u32, wraps)
     * @return datagram length in bytes
     */
    public int finish(long datagramSequence, long uptimeMs) {
        int end = w.position();
        w.seek(0);
        w.u32(SflowFormats.VERSION_5);
        w.u32(agentAddress.length == 4 ? SflowFormats.ADDRESS_IPV4 : SflowFormats.ADDRESS_IPV6);
        w.fixed(agentAddress, 0, agentAddress.length);
        w.u32(subAgentId);
        w.u32(datagramSequence);
        w.u32(uptimeMs);
        w.u32(samples);
        w.seek(end);
        return end;
    }

    /** @return the backing buffer (valid up to the length {@link #finish} returned); the same array for the
     *  builder's whole life. */
    public byte[] buffer() {
        return w.buffer();
    }
}
