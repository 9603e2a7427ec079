package io.vecflow.sflow;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Assembles one sFlow v5 datagram at a time under a byte budget (sFlow v5 "sample_datagram_v5"; XDR, RFC 4506).
 *
 * <p>Samples are appended into a preallocated buffer; the header (sequence number and uptime) is written by
 * {@link #finish(long, long)} at send time. Nothing is allocated per sample. Not thread-safe.
 *
 * <p>Usage: {@code if (!b.fits(b.flowSampleExpandedBytes(h))) send(b.finish(seq, uptime)); b.addFlowSampleExpanded(...)}.
 */
public final class DatagramBuilder {
    /** Fixed bytes of an expanded flow sample with one sampled_header record, excluding the header bytes: 8 (sample
     * tag) + 44 (0:3 fixed part) + 8 (record tag) + 16 (sampled_header fixed part). */
    public static final int FLOW_SAMPLE_EXPANDED_OVERHEAD = 8 + 44 + 8 + 16;

    private final byte[] buf;
    private final int maxBytes;
    private final byte[] agentAddress;
    private final int headerBytes;
    private final long subAgentId;
    private int pos;
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
        this.buf = new byte[maxDatagramBytes];
        this.agentAddress = agentAddress.clone();
        this.headerBytes = agentAddress.length == 4 ? SflowFormats.HEADER_BYTES_IPV4 : SflowFormats.HEADER_BYTES_IPV6;
        this.subAgentId = subAgentId;
        reset();
    }

    /** Empties the builder (the header space stays reserved). */
    public void reset() {
        pos = headerBytes;
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
        return pos;
    }

    /** @return the budget in bytes. */
    public int maxBytes() {
        return maxBytes;
    }

    /** @return true if {@code bytes} more fit under the budget. */
    public boolean fits(int bytes) {
        return pos + bytes <= maxBytes;
    }

    /** @return the bytes an expanded flow sample with a sampled_header of {@code headerLength} bytes takes. */
    public static int flowSampleExpandedBytes(int headerLength) {
        return FLOW_SAMPLE_EXPANDED_OVERHEAD + SflowFormats.pad4(headerLength);
    }

    /** @return the largest sampled_header length in bytes that fits an otherwise empty datagram. */
    public int maxHeaderLength() {
        return (maxBytes - headerBytes - FLOW_SAMPLE_EXPANDED_OVERHEAD) & ~3;
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
                inputFormat, input, outputFormat, output, headerProtocol, frameLength, stripped, headerLength)) {
            return false;
        }
        MemorySegment.copy(header, ValueLayout.JAVA_BYTE, headerOffset, buf, pos, headerLength);
        endHeader(headerLength);
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
        if (!beginFlowSampleExpanded(sequenceNumber, sourceIdType, sourceIdIndex, samplingRate, samplePool, drops,
                inputFormat, input, outputFormat, output, headerProtocol, frameLength, stripped, headerLength)) {
            return false;
        }
        System.arraycopy(header, headerOffset, buf, pos, headerLength);
        endHeader(headerLength);
        return true;
    }

    private boolean beginFlowSampleExpanded(long sequenceNumber, int sourceIdType, long sourceIdIndex,
            long samplingRate, long samplePool, long drops, int inputFormat, long input, int outputFormat,
            long output, int headerProtocol, long frameLength, long stripped, int headerLength) {
        int recordBody = 16 + SflowFormats.pad4(headerLength);
        int sampleBody = 44 + 8 + recordBody;
        if (headerLength < 0 || !fits(8 + sampleBody)) {
            return false;
        }
        u32(SflowFormats.FLOW_SAMPLE_EXPANDED);
        u32(sampleBody);
        u32(sequenceNumber);
        u32(sourceIdType);
        u32(sourceIdIndex);
        u32(samplingRate);
        u32(samplePool);
        u32(drops);
        u32(inputFormat);
        u32(input);
        u32(outputFormat);
        u32(output);
        u32(1); // flow_records
        u32(SflowFormats.SAMPLED_HEADER);
        u32(recordBody);
        u32(headerProtocol);
        u32(frameLength);
        u32(stripped);
        u32(headerLength);
        return true;
    }

    private void endHeader(int headerLength) {
        pos += headerLength;
        while ((pos & 3) != 0) {
            buf[pos++] = 0;
        }
        samples++;
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
        int end = pos;
        pos = 0;
        u32(SflowFormats.VERSION_5);
        u32(agentAddress.length == 4 ? SflowFormats.ADDRESS_IPV4 : SflowFormats.ADDRESS_IPV6);
        System.arraycopy(agentAddress, 0, buf, pos, agentAddress.length);
        pos += agentAddress.length;
        u32(subAgentId);
        u32(datagramSequence);
        u32(uptimeMs);
        u32(samples);
        pos = end;
        return end;
    }

    /** @return the backing buffer (valid up to the length {@link #finish} returned). */
    public byte[] buffer() {
        return buf;
    }

    private void u32(long v) {
        buf[pos] = (byte) (v >>> 24);
        buf[pos + 1] = (byte) (v >>> 16);
        buf[pos + 2] = (byte) (v >>> 8);
        buf[pos + 3] = (byte) v;
        pos += 4;
    }
}
