package io.vecflow.sflow;

import static io.vecflow.sflow.SflowFormats.pad4;

import io.vecflow.sflow.FlowRecords.ExtendedGateway;
import io.vecflow.sflow.FlowRecords.SampledIp;

/**
 * Bounded, allocation-free sFlow v5 datagram decoder (sflow.org/sflow_version_5.txt, sflow_drops.txt).
 *
 * <p>Rules (docs/sflow.md §9 "Decoder pitfalls"): one UDP payload is exactly one datagram and bytes after the
 * declared samples are ignored; every sample and record is decoded inside its declared length and the decoder then
 * jumps to {@code start + pad4(length)} (vendors pad); unknown samples and records — any enterprise — are skipped by
 * length (records are kept raw); dispatch is on the full (enterprise, format) pair within its context; compact
 * interface words are split, expanded ones never masked; every count and length is checked against the bytes left
 * and a cap before use. A datagram whose sample structure fails part-way (a sample header or length past the datagram)
 * keeps the samples delivered before the failure, and a pre-pass over the sample headers marks it
 * {@link DatagramHeader#incomplete} before the first sample is delivered. A sample whose body fails inside its own
 * declared length (a record length or count that does not fit, fixed fields cut short) is counted at the sample level
 * and reported through {@link SflowVisitor#onSampleError}; decoding goes on with the next sample. A record that fails
 * inside its own length is counted and skipped, and its sample is kept. Every record read is bounded by the record's
 * own declared end (not the sample's).
 *
 * <p>One holder per known record type: when a type repeats in a sample the last copy fills the holder and the earlier
 * listed copies are marked in {@code recordSupersededMask}; a failed record clears its type's flag and is marked in
 * {@code recordErrorMask} with its error kind, field and offset (from the start of the datagram), plus the first
 * record error of the sample whether listed or not ({@link FlowSample}, {@link CounterSample}). No allocation.
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
    private final CounterSample counters = new CounterSample();
    private final XdrReader r = new XdrReader();
    private final DecodeStats stats;
    /** Index in the buffer of the datagram being decoded (record error offsets are made relative to it). */
    private int datagramStart;

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
     * @return null when the datagram's sample structure reached its end (samples that failed inside their own
     *         length were reported through {@link SflowVisitor#onSampleError}), or the (reused) failure describing the
     *         structural error that stopped it, with its offset relative to the start of the datagram; samples before
     *         it were delivered
     */
    public SflowDecodeException decode(byte[] data, int off, int len, SflowVisitor visitor) {
        r.buf = data;
        datagramStart = off;
        try {
            decodeDatagram(off, off + len, visitor);
            return null;
        } catch (SflowDecodeException e) {
            stats.error(e.kind());
            e.rebase(off);
            return e;
        } finally {
            r.buf = null;
            flow.buffer = null;
            counters.buffer = null;
        }
    }

    private void decodeDatagram(int start, int end, SflowVisitor visitor) throws SflowDecodeException {
        header.reset();
        if (end - start < SflowFormats.HEADER_BYTES_IPV4) {
            throw r.fail(DecodeError.TRUNCATED, "datagram (needs >= 28 bytes)", start, end - start);
        }
        int p = start;
        long version = r.u32(p, end, "version");
        if (version != SflowFormats.VERSION_5) {
            throw r.fail(DecodeError.NOT_SFLOW_V5, "version", p, version);
        }
        header.version = 5;
        p += 4;
        long addrType = r.u32(p, end, "agent_address.type");
        int addrLen;
        if (addrType == SflowFormats.ADDRESS_IPV4) {
            addrLen = 4;
        } else if (addrType == SflowFormats.ADDRESS_IPV6) {
            addrLen = 16;
        } else {
            throw r.fail(DecodeError.BAD_AGENT_ADDRESS_TYPE, "agent_address.type", p, addrType);
        }
        header.agentAddressType = (int) addrType;
        p += 4;
        r.need(p, addrLen + 16, end, "agent_address");
        System.arraycopy(r.buf, p, header.agentAddress, 0, addrLen);
        p += addrLen;
        header.subAgentId = r.u32(p, end, "sub_agent_id");
        header.sequenceNumber = r.u32(p + 4, end, "sequence_number");
        header.uptimeMs = r.u32(p + 8, end, "uptime");
        long n = r.u32(p + 12, end, "num_samples");
        p += 16;
        header.headerLength = p - start;
        if (n > MAX_SAMPLES || n * 8 > end - p) { // each sample needs >= 8 bytes (data_format + length)
            throw r.fail(DecodeError.COUNT_OUT_OF_BOUNDS, "num_samples", p - 4, n);
        }
        header.numSamples = n;
        header.incomplete = !samplesFit(p, end, (int) n);
        stats.datagram();
        visitor.onDatagram(header);
        for (int i = 0; i < n; i++) {
            int sampleStart = p;
            int format = r.i32(p, end, "sample.data_format");
            long length = r.u32(p + 4, end, "sample.length");
            int body = p + 8;
            if (length > end - body) {
                throw r.fail(DecodeError.LENGTH_OUT_OF_BOUNDS, "sample.length", p + 4, length);
            }
            int bodyEnd = body + (int) length;
            // The sample's length fits the datagram: whatever breaks inside its body costs this sample only.
            switch (format) {
                case SflowFormats.FLOW_SAMPLE, SflowFormats.FLOW_SAMPLE_EXPANDED, SflowFormats.DISCARDED_PACKET -> {
                    try {
                        decodeFlowSample(format, sampleStart, body, bodyEnd);
                    } catch (SflowDecodeException e) {
                        sampleError(flow, e, visitor);
                        break;
                    }
                    if (format == SflowFormats.DISCARDED_PACKET) {
                        stats.discardSample();
                        visitor.onDiscardSample(header, flow);
                    } else {
                        stats.flowSample();
                        visitor.onFlowSample(header, flow);
                    }
                }
                case SflowFormats.COUNTERS_SAMPLE, SflowFormats.COUNTERS_SAMPLE_EXPANDED -> {
                    try {
                        decodeCounterSample(format, sampleStart, body, bodyEnd);
                    } catch (SflowDecodeException e) {
                        sampleError(counters, e, visitor);
                        break;
                    }
                    stats.counterSample();
                    visitor.onCounterSample(header, counters);
                }
                default -> {
                    stats.skippedSample();
                    visitor.onSkippedSample(header, format, sampleStart, (int) length);
                }
            }
            // Jump to the declared end (padded), whatever the body held; bytes after the last sample are ignored.
            p = Math.min(end, body + pad4((int) length));
        }
    }

    /**
     * The pre-pass: whether the {@code n} sample headers (data_format, length) from {@code p} on and their declared
     * lengths fit in the datagram — the checks the sample loop makes, and the only ones that can stop it once sample
     * bodies fail on their own. Two word reads per sample, no allocation.
     */
    private boolean samplesFit(int p, int end, int n) {
        byte[] b = r.buf;
        for (int i = 0; i < n; i++) {
            if (p + 8 > end) {
                return false;
            }
            long length = (b[p + 4] & 0xFFL) << 24 | (b[p + 5] & 0xFF) << 16 | (b[p + 6] & 0xFF) << 8
                    | (b[p + 7] & 0xFF);
            int body = p + 8;
            if (length > end - body) {
                return false;
            }
            p = Math.min(end, body + pad4((int) length));
        }
        return true;
    }

    /** A sample whose body failed inside its declared length: counted, marked, handed over; the next one follows. */
    private void sampleError(RecordedSample s, SflowDecodeException e, SflowVisitor visitor) {
        stats.sampleError(e.kind());
        s.sampleFailed(e, datagramStart);
        visitor.onSampleError(header, s);
    }

    private void decodeFlowSample(int kind, int sampleStart, int p, int end) throws SflowDecodeException {
        FlowSample s = flow;
        s.reset();
        s.kind = kind;
        s.expanded = kind != SflowFormats.FLOW_SAMPLE;
        s.offset = sampleStart;
        s.length = end - p;
        s.buffer = r.buf;
        s.sequenceNumber = r.u32(p, end, "flow_sample.sequence_number");
        p += 4;
        if (s.expanded) {
            s.sourceIdType = r.i32(p, end, "flow_sample.source_id_type");
            s.sourceIdIndex = r.u32(p + 4, end, "flow_sample.source_id_index");
            p += 8;
        } else {
            long id = r.u32(p, end, "flow_sample.source_id");
            s.sourceIdType = (int) (id >>> 24);
            s.sourceIdIndex = id & 0x00FFFFFFL;
            p += 4;
        }
        s.sourceRead = true;
        if (kind == SflowFormats.DISCARDED_PACKET) {
            // sflow_drops.txt: drops, inputifindex, outputifindex (plain values), reason.
            s.drops = r.u32(p, end, "discarded_packet.drops");
            s.input = r.u32(p + 4, end, "discarded_packet.input");
            s.output = r.u32(p + 8, end, "discarded_packet.output");
            s.reason = r.u32(p + 12, end, "discarded_packet.reason");
            p += 16;
        } else {
            s.samplingRate = r.u32(p, end, "flow_sample.sampling_rate");
            s.samplePool = r.u32(p + 4, end, "flow_sample.sample_pool");
            s.drops = r.u32(p + 8, end, "flow_sample.drops");
            p += 12;
            if (s.expanded) {
                s.inputFormat = r.i32(p, end, "flow_sample.input.format");
                s.input = r.u32(p + 4, end, "flow_sample.input.value");
                s.outputFormat = r.i32(p + 8, end, "flow_sample.output.format");
                s.output = r.u32(p + 12, end, "flow_sample.output.value");
                p += 16;
            } else {
                long in = r.u32(p, end, "flow_sample.input");
                long out = r.u32(p + 4, end, "flow_sample.output");
                s.inputFormat = (int) (in >>> 30);
                s.input = in & 0x3FFFFFFFL;
                s.outputFormat = (int) (out >>> 30);
                s.output = out & 0x3FFFFFFFL;
                p += 8;
            }
        }
        long n = r.u32(p, end, "flow_sample.flow_records");
        p += 4;
        if (n > MAX_RECORDS || n * 8 > end - p) {
            throw r.fail(DecodeError.COUNT_OUT_OF_BOUNDS, "flow_sample.flow_records", p - 4, n);
        }
        s.recordCount = (int) n;
        decodeRecords(s, true, (int) n, p, end);
    }

    /** @return false for a format vecflow does not decode. */
    private boolean decodeFlowRecord(FlowSample s, int format, int p, int end) throws SflowDecodeException {
        switch (format) {
            case SflowFormats.SAMPLED_HEADER -> {
                s.duplicateRecords += s.hasSampledHeader ? 1 : 0;
                var h = s.sampledHeader;
                h.headerProtocol = r.i32(p, end, "sampled_header.header_protocol");
                h.frameLength = r.u32(p + 4, end, "sampled_header.frame_length");
                h.stripped = r.u32(p + 8, end, "sampled_header.stripped");
                r.opaque(p + 12, end, "sampled_header.header", end - p, h.header);
                s.hasSampledHeader = true;
            }
            case SflowFormats.SAMPLED_ETHERNET -> {
                s.duplicateRecords += s.hasSampledEthernet ? 1 : 0;
                var e = s.sampledEthernet;
                e.length = r.u32(p, end, "sampled_ethernet.length");
                if (end - p >= 24) { // MACs padded to 8 bytes (the standard layout)
                    e.srcMac = mac(p + 4, end, "sampled_ethernet.src_mac");
                    e.dstMac = mac(p + 12, end, "sampled_ethernet.dst_mac");
                    e.type = r.u32(p + 20, end, "sampled_ethernet.type");
                } else { // 20 bytes: MACs not padded (Huawei S6720, netsampler/goflow2#510)
                    e.srcMac = mac(p + 4, end, "sampled_ethernet.src_mac");
                    e.dstMac = mac(p + 10, end, "sampled_ethernet.dst_mac");
                    e.type = r.u32(p + 16, end, "sampled_ethernet.type");
                }
                s.hasSampledEthernet = true;
            }
            case SflowFormats.SAMPLED_IPV4 -> {
                s.duplicateRecords += s.hasSampledIpv4 ? 1 : 0;
                sampledIp(s.sampledIpv4, p, end, 4);
                s.hasSampledIpv4 = true;
            }
            case SflowFormats.SAMPLED_IPV6 -> {
                s.duplicateRecords += s.hasSampledIpv6 ? 1 : 0;
                sampledIp(s.sampledIpv6, p, end, 16);
                s.hasSampledIpv6 = true;
            }
            case SflowFormats.EXTENDED_SWITCH -> {
                s.duplicateRecords += s.hasExtendedSwitch ? 1 : 0;
                var w = s.extendedSwitch;
                w.srcVlan = r.u32(p, end, "extended_switch.src_vlan");
                w.srcPriority = r.u32(p + 4, end, "extended_switch.src_priority");
                w.dstVlan = r.u32(p + 8, end, "extended_switch.dst_vlan");
                w.dstPriority = r.u32(p + 12, end, "extended_switch.dst_priority");
                s.hasExtendedSwitch = true;
            }
            case SflowFormats.EXTENDED_ROUTER -> {
                s.duplicateRecords += s.hasExtendedRouter ? 1 : 0;
                var x = s.extendedRouter;
                int q = r.address(p, end, "extended_router.nexthop", x.nextHop);
                x.srcMaskLen = r.u32(q, end, "extended_router.src_mask_len");
                x.dstMaskLen = r.u32(q + 4, end, "extended_router.dst_mask_len");
                s.hasExtendedRouter = true;
            }
            case SflowFormats.EXTENDED_GATEWAY -> {
                s.duplicateRecords += s.hasExtendedGateway ? 1 : 0;
                gateway(s.extendedGateway, p, end);
                s.hasExtendedGateway = true;
            }
            case SflowFormats.EXTENDED_USER -> {
                s.duplicateRecords += s.hasExtendedUser ? 1 : 0;
                var u = s.extendedUser;
                u.srcCharset = r.u32(p, end, "extended_user.src_charset");
                int q = r.opaque(p + 4, end, "extended_user.src_user", FlowRecords.MAX_STRING, u.srcUser);
                u.dstCharset = r.u32(q, end, "extended_user.dst_charset");
                r.opaque(q + 4, end, "extended_user.dst_user", FlowRecords.MAX_STRING, u.dstUser);
                s.hasExtendedUser = true;
            }
            case SflowFormats.EXTENDED_URL -> {
                s.duplicateRecords += s.hasExtendedUrl ? 1 : 0;
                var u = s.extendedUrl;
                u.direction = r.u32(p, end, "extended_url.direction");
                int q = r.opaque(p + 4, end, "extended_url.url", FlowRecords.MAX_STRING, u.url);
                r.opaque(q, end, "extended_url.host", FlowRecords.MAX_STRING, u.host);
                s.hasExtendedUrl = true;
            }
            case SflowFormats.EXTENDED_MPLS -> {
                s.duplicateRecords += s.hasExtendedMpls ? 1 : 0;
                var m = s.extendedMpls;
                int q = r.address(p, end, "extended_mpls.nexthop", m.nextHop);
                m.inDepth = r.u32Array(q, end, "extended_mpls.in_stack", m.inStack);
                q += 4 + 4 * m.inDepth;
                m.outDepth = r.u32Array(q, end, "extended_mpls.out_stack", m.outStack);
                s.hasExtendedMpls = true;
            }
            case SflowFormats.EXTENDED_NAT -> {
                s.duplicateRecords += s.hasExtendedNat ? 1 : 0;
                int q = r.address(p, end, "extended_nat.src", s.extendedNat.src);
                r.address(q, end, "extended_nat.dst", s.extendedNat.dst);
                s.hasExtendedNat = true;
            }
            case SflowFormats.EXTENDED_VLAN_TUNNEL -> {
                s.duplicateRecords += s.hasExtendedVlanTunnel ? 1 : 0;
                var v = s.extendedVlanTunnel;
                v.depth = r.u32Array(p, end, "extended_vlantunnel.stack", v.stack);
                s.hasExtendedVlanTunnel = true;
            }
            case SflowFormats.EXTENDED_EGRESS_QUEUE -> {
                s.duplicateRecords += s.hasEgressQueue ? 1 : 0;
                s.egressQueue = r.u32(p, end, "extended_egress_queue.queue");
                s.hasEgressQueue = true;
            }
            case SflowFormats.EXTENDED_ACL -> {
                s.duplicateRecords += s.hasExtendedAcl ? 1 : 0;
                var a = s.extendedAcl;
                a.number = r.u32(p, end, "extended_acl.number");
                int q = r.opaque(p + 4, end, "extended_acl.name", FlowRecords.MAX_STRING, a.name);
                a.direction = r.u32(q, end, "extended_acl.direction");
                s.hasExtendedAcl = true;
            }
            case SflowFormats.EXTENDED_FUNCTION -> {
                s.duplicateRecords += s.hasFunction ? 1 : 0;
                r.opaque(p, end, "extended_function.symbol", FlowRecords.MAX_STRING, s.function);
                s.hasFunction = true;
            }
            case SflowFormats.EXTENDED_TRANSIT -> {
                s.duplicateRecords += s.hasTransitDelay ? 1 : 0;
                s.transitDelayNanos = r.u32(p, end, "extended_transit.delay");
                s.hasTransitDelay = true;
            }
            case SflowFormats.EXTENDED_QUEUE -> {
                s.duplicateRecords += s.hasQueueDepth ? 1 : 0;
                s.queueDepthBytes = r.u32(p, end, "extended_queue.depth");
                s.hasQueueDepth = true;
            }
            case SflowFormats.EXTENDED_HW_TRAP -> {
                s.duplicateRecords += s.hasHwTrap ? 1 : 0;
                int q = r.opaque(p, end, "extended_hw_trap.group", FlowRecords.MAX_STRING, s.hwTrap.group);
                r.opaque(q, end, "extended_hw_trap.trap", FlowRecords.MAX_STRING, s.hwTrap.trap);
                s.hasHwTrap = true;
            }
            case SflowFormats.EXTENDED_LINUX_DROP_REASON -> {
                s.duplicateRecords += s.hasLinuxDropReason ? 1 : 0;
                r.opaque(p, end, "extended_linux_drop_reason.reason", FlowRecords.MAX_STRING, s.linuxDropReason);
                s.hasLinuxDropReason = true;
            }
            case SflowFormats.EXTENDED_TIMESTAMP -> {
                s.duplicateRecords += s.hasTimestamp ? 1 : 0;
                s.timestampNanos = r.u64(p, end, "extended_timestamp.nanoseconds");
                s.hasTimestamp = true;
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    /**
     * Walks the {@code n} records of a sample (sFlow v5 §5: data_format, length, body padded to 4 bytes): lists each,
     * decodes the known ones into their holders, keeps unknown ones as raw views, and jumps to each record's declared
     * end. A record malformed inside its own bounds is counted by kind, reported absent (flow records: its flag
     * cleared; counter records clear their flag before decoding) and skipped; the sample is kept.
     *
     * @throws SflowDecodeException when a record's header or declared length does not fit the sample
     */
    private void decodeRecords(RecordedSample s, boolean flow, int n, int p, int end)
            throws SflowDecodeException {
        for (int i = 0; i < n; i++) {
            int format = r.i32(p, end, flow ? "flow_record.data_format" : "counter_record.data_format");
            long length = r.u32(p + 4, end, flow ? "flow_record.length" : "counter_record.length");
            int body = p + 8;
            if (length > end - body) {
                throw r.fail(DecodeError.LENGTH_OUT_OF_BOUNDS, flow ? "flow_record.length" : "counter_record.length",
                        p + 4, length);
            }
            int recEnd = body + (int) length;
            s.listRecord(format);
            try {
                boolean known = flow ? decodeFlowRecord((FlowSample) s, format, body, recEnd)
                        : ((CounterSample) s).records.decode(r, format, body, recEnd, (CounterSample) s);
                if (known) {
                    s.recordDecoded(i, format);
                } else {
                    s.unknownRecord(format, r.buf, body, (int) length);
                }
            } catch (SflowDecodeException e) {
                // Its holder may be half overwritten (also when an earlier good copy filled it): reported absent
                // rather than mixed, and the earlier copies are marked superseded.
                stats.recordError(e.kind());
                if (flow) {
                    clearRecord((FlowSample) s, format);
                }
                s.recordFailed(i, format, e, datagramStart);
            }
            p = Math.min(end, body + pad4((int) length));
        }
        stats.unknownRecords(s.unknownRecords);
    }

    /** Marks a known flow record absent (after it failed to decode). */
    private static void clearRecord(FlowSample s, int format) {
        switch (format) {
            case SflowFormats.SAMPLED_HEADER -> s.hasSampledHeader = false;
            case SflowFormats.SAMPLED_ETHERNET -> s.hasSampledEthernet = false;
            case SflowFormats.SAMPLED_IPV4 -> s.hasSampledIpv4 = false;
            case SflowFormats.SAMPLED_IPV6 -> s.hasSampledIpv6 = false;
            case SflowFormats.EXTENDED_SWITCH -> s.hasExtendedSwitch = false;
            case SflowFormats.EXTENDED_ROUTER -> s.hasExtendedRouter = false;
            case SflowFormats.EXTENDED_GATEWAY -> s.hasExtendedGateway = false;
            case SflowFormats.EXTENDED_USER -> s.hasExtendedUser = false;
            case SflowFormats.EXTENDED_URL -> s.hasExtendedUrl = false;
            case SflowFormats.EXTENDED_MPLS -> s.hasExtendedMpls = false;
            case SflowFormats.EXTENDED_NAT -> s.hasExtendedNat = false;
            case SflowFormats.EXTENDED_VLAN_TUNNEL -> s.hasExtendedVlanTunnel = false;
            case SflowFormats.EXTENDED_EGRESS_QUEUE -> s.hasEgressQueue = false;
            case SflowFormats.EXTENDED_ACL -> s.hasExtendedAcl = false;
            case SflowFormats.EXTENDED_FUNCTION -> s.hasFunction = false;
            case SflowFormats.EXTENDED_TRANSIT -> s.hasTransitDelay = false;
            case SflowFormats.EXTENDED_QUEUE -> s.hasQueueDepth = false;
            case SflowFormats.EXTENDED_HW_TRAP -> s.hasHwTrap = false;
            case SflowFormats.EXTENDED_LINUX_DROP_REASON -> s.hasLinuxDropReason = false;
            case SflowFormats.EXTENDED_TIMESTAMP -> s.hasTimestamp = false;
            default -> { }
        }
    }

    private long mac(int p, int end, String field) throws SflowDecodeException {
        r.need(p, 6, end, field);
        byte[] b = r.buf;
        long m = 0;
        for (int i = 0; i < 6; i++) {
            m = m << 8 | (b[p + i] & 0xFF);
        }
        return m;
    }

    /** Field names per record, as constants: building them per call would allocate on the hot path. */
    private static final String[] IPV4_FIELDS = {"sampled_ipv4.length", "sampled_ipv4.protocol",
        "sampled_ipv4.addresses", "sampled_ipv4.src_port", "sampled_ipv4.dst_port", "sampled_ipv4.tcp_flags",
        "sampled_ipv4.tos"};
    private static final String[] IPV6_FIELDS = {"sampled_ipv6.length", "sampled_ipv6.protocol",
        "sampled_ipv6.addresses", "sampled_ipv6.src_port", "sampled_ipv6.dst_port", "sampled_ipv6.tcp_flags",
        "sampled_ipv6.priority"};

    private void sampledIp(SampledIp ip, int p, int end, int addrLen) throws SflowDecodeException {
        String[] f = addrLen == 4 ? IPV4_FIELDS : IPV6_FIELDS;
        ip.length = r.u32(p, end, f[0]);
        ip.protocol = r.u32(p + 4, end, f[1]);
        r.need(p + 8, 2 * addrLen, end, f[2]);
        int type = addrLen == 4 ? SflowFormats.ADDRESS_IPV4 : SflowFormats.ADDRESS_IPV6;
        ip.src.type = type;
        ip.dst.type = type;
        java.util.Arrays.fill(ip.src.bytes, (byte) 0);
        java.util.Arrays.fill(ip.dst.bytes, (byte) 0);
        System.arraycopy(r.buf, p + 8, ip.src.bytes, 0, addrLen);
        System.arraycopy(r.buf, p + 8 + addrLen, ip.dst.bytes, 0, addrLen);
        int q = p + 8 + 2 * addrLen;
        ip.srcPort = r.u32(q, end, f[3]);
        ip.dstPort = r.u32(q + 4, end, f[4]);
        ip.tcpFlags = r.u32(q + 8, end, f[5]);
        ip.tos = r.u32(q + 12, end, f[6]);
    }

    private void gateway(ExtendedGateway g, int p, int end) throws SflowDecodeException {
        int q = r.address(p, end, "extended_gateway.nexthop", g.nextHop);
        g.as = r.u32(q, end, "extended_gateway.as");
        g.srcAs = r.u32(q + 4, end, "extended_gateway.src_as");
        g.srcPeerAs = r.u32(q + 8, end, "extended_gateway.src_peer_as");
        long segments = r.u32(q + 12, end, "extended_gateway.dst_as_path");
        q += 16;
        if (segments > FlowRecords.MAX_AS_SEGMENTS || segments * 8 > end - q) {
            throw r.fail(DecodeError.COUNT_OUT_OF_BOUNDS, "extended_gateway.dst_as_path", q - 4, segments);
        }
        g.segments = (int) segments;
        g.asPathLength = 0;
        for (int i = 0; i < segments; i++) { // every segment, not just the first (goflow2 PR #490)
            g.segmentType[i] = r.i32(q, end, "extended_gateway.dst_as_path.type");
            long n = r.u32(q + 4, end, "extended_gateway.dst_as_path.length");
            if (n > FlowRecords.MAX_AS_PATH - g.asPathLength || n * 4 > end - q - 8) {
                throw r.fail(DecodeError.COUNT_OUT_OF_BOUNDS, "extended_gateway.dst_as_path.length", q + 4, n);
            }
            g.segmentLength[i] = (int) n;
            for (int k = 0; k < n; k++) {
                g.asPath[g.asPathLength++] = r.u32(q + 8 + 4 * k, end, "extended_gateway.dst_as_path.as");
            }
            q += 8 + 4 * (int) n;
        }
        g.communityCount = r.u32Array(q, end, "extended_gateway.communities", g.communities);
        q += 4 + 4 * g.communityCount;
        g.localPref = r.u32(q, end, "extended_gateway.localpref");
    }

    private void decodeCounterSample(int kind, int sampleStart, int p, int end) throws SflowDecodeException {
        CounterSample s = counters;
        s.reset();
        s.kind = kind;
        s.expanded = kind == SflowFormats.COUNTERS_SAMPLE_EXPANDED;
        s.offset = sampleStart;
        s.length = end - p;
        s.buffer = r.buf;
        s.sequenceNumber = r.u32(p, end, "counters_sample.sequence_number");
        p += 4;
        if (s.expanded) {
            s.sourceIdType = r.i32(p, end, "counters_sample.source_id_type");
            s.sourceIdIndex = r.u32(p + 4, end, "counters_sample.source_id_index");
            p += 8;
        } else {
            long id = r.u32(p, end, "counters_sample.source_id");
            s.sourceIdType = (int) (id >>> 24);
            s.sourceIdIndex = id & 0x00FFFFFFL;
            p += 4;
        }
        s.sourceRead = true;
        long n = r.u32(p, end, "counters_sample.counter_records");
        p += 4;
        if (n > MAX_RECORDS || n * 8 > end - p) {
            throw r.fail(DecodeError.COUNT_OUT_OF_BOUNDS, "counters_sample.counter_records", p - 4, n);
        }
        s.recordCount = (int) n;
        decodeRecords(s, false, (int) n, p, end);
    }
}
