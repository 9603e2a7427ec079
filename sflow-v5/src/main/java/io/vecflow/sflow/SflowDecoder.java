package io.vecflow.sflow;

import static io.vecflow.sflow.SflowFormats.pad4;

/**
 * Bounded, allocation-free sFlow v5 datagram decoder (sFlow v5, sflow.org/sflow_version_5.txt).
 *
 * <p>Rules (see the project's sFlow notes, "Decoder pitfalls"): one UDP payload is exactly one datagram and bytes
 * after the declared samples are ignored; every sample and record is decoded inside its declared length and the
 * decoder then jumps to {@code start + pad4(length)} (vendors pad); unknown samples and records are skipped by length;
 * dispatch is on the full (enterprise, format) pair; compact interface words are split, expanded ones never masked;
 * every count and length is checked against the bytes left and a cap before use. A datagram that fails part-way keeps
 * the samples delivered before the failure.
 *
 * <p>Not thread-safe: use one decoder per thread. The holders passed to the visitor are reused.
 */
public final class SflowDecoder {
    /** Sanity cap on samples per datagram (peers use 1000; netsampler/goflow2 PR #203). */
    public static final int MAX_SAMPLES = 1000;
    /** Sanity cap on records per sample. */
    public static final int MAX_RECORDS = 1000;

    private final DatagramHeader header = new DatagramHeader();
    private final FlowSample flow = new FlowSample();
    private final SflowDecodeException failure = new SflowDecodeException();
    private final DecodeStats stats;
    private byte[] buf;

    /** @param stats where counters go (shared between decoders is fine) */
    public SflowDecoder(DecodeStats stats) {
        this.stats = stats;
    }

    /** @return the counters this decoder updates. */
    public DecodeStats stats() {
        return stats;
    }

    /**
     * Decodes one datagram.
     *
     * @param data buffer holding the UDP payload
     * @param off offset of the payload in {@code data}
     * @param len payload length in bytes
     * @param visitor receives the header and each sample
     * @return null on success, or the (reused) failure describing the first error; samples before it were delivered
     */
    public SflowDecodeException decode(byte[] data, int off, int len, SflowVisitor visitor) {
        this.buf = data;
        try {
            decodeDatagram(off, off + len, visitor);
            return null;
        } catch (SflowDecodeException e) {
            stats.error(e.kind());
            // Report offsets relative to the start of the datagram.
            e.set(e.kind(), e.field(), e.offset() - off, e.value());
            return e;
        } finally {
            this.buf = null;
        }
    }

    private void decodeDatagram(int start, int end, SflowVisitor visitor) throws SflowDecodeException {
        header.reset();
        if (end - start < SflowFormats.HEADER_BYTES_IPV4) {
            throw fail(DecodeError.TRUNCATED, "datagram (needs >= 28 bytes)", start, end - start);
        }
        int p = start;
        long version = u32(p, end, "version");
        if (version != SflowFormats.VERSION_5) {
            throw fail(DecodeError.NOT_SFLOW_V5, "version", p, version);
        }
        header.version = 5;
        p += 4;
        long addrType = u32(p, end, "agent_address.type");
        int addrLen;
        if (addrType == SflowFormats.ADDRESS_IPV4) {
            addrLen = 4;
        } else if (addrType == SflowFormats.ADDRESS_IPV6) {
            addrLen = 16;
        } else {
            throw fail(DecodeError.BAD_AGENT_ADDRESS_TYPE, "agent_address.type", p, addrType);
        }
        header.agentAddressType = (int) addrType;
        p += 4;
        need(p, addrLen + 16, end, "agent_address");
        System.arraycopy(buf, p, header.agentAddress, 0, addrLen);
        p += addrLen;
        header.subAgentId = u32(p, end, "sub_agent_id");
        header.sequenceNumber = u32(p + 4, end, "sequence_number");
        header.uptimeMs = u32(p + 8, end, "uptime");
        long n = u32(p + 12, end, "num_samples");
        p += 16;
        header.headerLength = p - start;
        // Each sample needs at least 8 bytes (data_format + length).
        if (n > MAX_SAMPLES || n * 8 > end - p) {
            throw fail(DecodeError.COUNT_OUT_OF_BOUNDS, "num_samples", p - 4, n);
        }
        header.numSamples = n;
        stats.datagram();
        visitor.onDatagram(header);
        for (int i = 0; i < n; i++) {
            int sampleStart = p;
            int format = (int) u32(p, end, "sample.data_format");
            long length = u32(p + 4, end, "sample.length");
            int body = p + 8;
            if (length > end - body) {
                throw fail(DecodeError.LENGTH_OUT_OF_BOUNDS, "sample.length", p + 4, length);
            }
            int bodyEnd = body + (int) length;
            switch (format) {
                case SflowFormats.FLOW_SAMPLE -> decodeFlowSample(sampleStart, body, bodyEnd, false, visitor);
                case SflowFormats.FLOW_SAMPLE_EXPANDED -> decodeFlowSample(sampleStart, body, bodyEnd, true, visitor);
                default -> {
                    stats.skippedSample();
                    visitor.onSkippedSample(header, format, sampleStart, (int) length);
                }
            }
            // Jump to the declared end (padded), whatever the body held. Trailing bytes after the last sample are
            // ignored (one UDP payload is one datagram).
            p = Math.min(end, body + pad4((int) length));
        }
    }

    private void decodeFlowSample(int sampleStart, int p, int end, boolean expanded, SflowVisitor visitor)
            throws SflowDecodeException {
        FlowSample s = flow;
        s.reset();
        s.expanded = expanded;
        s.offset = sampleStart;
        s.buffer = buf;
        s.sequenceNumber = u32(p, end, "flow_sample.sequence_number");
        p += 4;
        if (expanded) {
            s.sourceIdType = (int) u32(p, end, "flow_sample.source_id_type");
            s.sourceIdIndex = u32(p + 4, end, "flow_sample.source_id_index");
            p += 8;
        } else {
            long id = u32(p, end, "flow_sample.source_id");
            s.sourceIdType = (int) (id >>> 24);
            s.sourceIdIndex = id & 0x00FFFFFFL;
            p += 4;
        }
        s.samplingRate = u32(p, end, "flow_sample.sampling_rate");
        s.samplePool = u32(p + 4, end, "flow_sample.sample_pool");
        s.drops = u32(p + 8, end, "flow_sample.drops");
        p += 12;
        if (expanded) {
            s.inputFormat = (int) u32(p, end, "flow_sample.input.format");
            s.input = u32(p + 4, end, "flow_sample.input.value");
            s.outputFormat = (int) u32(p + 8, end, "flow_sample.output.format");
            s.output = u32(p + 12, end, "flow_sample.output.value");
            p += 16;
        } else {
            long in = u32(p, end, "flow_sample.input");
            long out = u32(p + 4, end, "flow_sample.output");
            s.inputFormat = (int) (in >>> 30);
            s.input = in & 0x3FFFFFFFL;
            s.outputFormat = (int) (out >>> 30);
            s.output = out & 0x3FFFFFFFL;
            p += 8;
        }
        long n = u32(p, end, "flow_sample.flow_records");
        p += 4;
        if (n > MAX_RECORDS || n * 8 > end - p) {
            throw fail(DecodeError.COUNT_OUT_OF_BOUNDS, "flow_sample.flow_records", p - 4, n);
        }
        s.recordCount = (int) n;
        for (int i = 0; i < n; i++) {
            int format = (int) u32(p, end, "flow_record.data_format");
            long length = u32(p + 4, end, "flow_record.length");
            int body = p + 8;
            if (length > end - body) {
                throw fail(DecodeError.LENGTH_OUT_OF_BOUNDS, "flow_record.length", p + 4, length);
            }
            int recEnd = body + (int) length;
            switch (format) {
                case SflowFormats.SAMPLED_HEADER -> decodeSampledHeader(s, body, recEnd);
                case SflowFormats.EXTENDED_SWITCH -> {
                    s.hasExtendedSwitch = true;
                    s.srcVlan = u32(body, recEnd, "extended_switch.src_vlan");
                    s.srcPriority = u32(body + 4, recEnd, "extended_switch.src_priority");
                    s.dstVlan = u32(body + 8, recEnd, "extended_switch.dst_vlan");
                    s.dstPriority = u32(body + 12, recEnd, "extended_switch.dst_priority");
                }
                default -> s.unknownRecords++;
            }
            p = Math.min(end, body + pad4((int) length));
        }
        stats.unknownRecords(s.unknownRecords);
        stats.flowSample();
        visitor.onFlowSample(header, s);
    }

    private void decodeSampledHeader(FlowSample s, int p, int end) throws SflowDecodeException {
        s.headerProtocol = (int) u32(p, end, "sampled_header.header_protocol");
        s.frameLength = u32(p + 4, end, "sampled_header.frame_length");
        s.stripped = u32(p + 8, end, "sampled_header.stripped");
        long hl = u32(p + 12, end, "sampled_header.header_length");
        int data = p + 16;
        if (hl > end - data) {
            throw fail(DecodeError.LENGTH_OUT_OF_BOUNDS, "sampled_header.header_length", p + 12, hl);
        }
        s.headerLength = (int) hl;
        s.headerOffset = data;
        s.hasSampledHeader = true;
    }

    private long u32(int p, int end, String field) throws SflowDecodeException {
        if (p + 4 > end) {
            throw fail(DecodeError.TRUNCATED, field, p, -1);
        }
        return (buf[p] & 0xFFL) << 24 | (buf[p + 1] & 0xFF) << 16 | (buf[p + 2] & 0xFF) << 8 | (buf[p + 3] & 0xFF);
    }

    private void need(int p, int n, int end, String field) throws SflowDecodeException {
        if (p + n > end) {
            throw fail(DecodeError.TRUNCATED, field, p, -1);
        }
    }

    private SflowDecodeException fail(DecodeError kind, String field, int offset, long value) {
        return failure.set(kind, field, offset, value);
    }
}
