package io.vecflow.collector.decode;

import com.fasterxml.jackson.core.JsonGenerator;
import io.vecflow.common.IpAddresses;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import io.vecflow.sflow.ByteView;
import io.vecflow.sflow.CounterRecords;
import io.vecflow.sflow.CounterSample;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.DecodeStats;
import io.vecflow.sflow.DiscardReasons;
import io.vecflow.sflow.FlowRecords;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.RecordedSample;
import io.vecflow.sflow.SflowAddress;
import io.vecflow.sflow.SflowDecodeException;
import io.vecflow.sflow.SflowDecoder;
import io.vecflow.sflow.SflowFormats;
import io.vecflow.sflow.SflowVisitor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HexFormat;

/**
 * Writes what vecflow understood of one sFlow datagram as one JSON object: the datagram header, then every sample
 * and every record in wire order with the field names of the sFlow specs (sflow_version_5.txt, sflow_drops.txt,
 * sflow_host.txt), unknown samples and records with their ids and raw bytes, the decoded sampled headers, and the
 * error that stopped decoding, if any. For operators ({@code vecflow decode}) and judge tests; not a hot path.
 * Counters are written as unsigned decimal numbers (u64 values above 2^63 included). A decoded sampled header shows
 * the fields of the layers it holds only: ports, TCP flags, ICMP type/code, MACs and EtherType of a header cut before
 * them are left out, not written as 0. A sample that failed inside its own length is written as
 * {@code {"sample_type","data_format","offset","length",["sequence_number","source_id_type","source_id_index"],
 * "error":{"kind","field","offset"[,"value"]}}} and the samples after it follow; the datagram object has
 * {@code "incomplete":true} when its sample structure fails before its end (then "error" closes it).
 *
 * <p>Every {@code offset} (samples, record errors, the datagram error) counts bytes from the start of the sFlow
 * datagram (the UDP payload). The decoder keeps one holder per known record type, so each listed record is written
 * from what the sample says about it: a record that failed to decode within its own length is written as
 * {@code {"data_format","record_type","error":{"kind","field","offset"}}} with no fields (its holder holds nothing of
 * it); an earlier copy of a record type whose holder a later copy took over is written as
 * {@code {"data_format","record_type","superseded":true}}; the last copy is written with its fields.
 */
public final class DatagramJsonWriter implements SflowVisitor {
    private static final HexFormat HEX = HexFormat.of();
    private final SflowDecoder decoder = new SflowDecoder(new DecodeStats());
    private final ParsedPacket parsed = new ParsedPacket();
    private JsonGenerator g;
    private boolean samplesOpen;
    /** Index of the datagram in the buffer: offsets are written relative to it. */
    private int base;
    /** Samples of the last datagram written that failed inside their own length. */
    private int sampleErrors;

    /**
     * Decodes one datagram and writes it as a JSON object.
     *
     * @param g where to write
     * @param data buffer
     * @param off payload offset
     * @param len payload length in bytes
     * @param context extra leading fields (e.g. frame number, source), written first; may be null
     * @return the decode failure, or null
     * @throws IOException if writing fails
     */
    public SflowDecodeException write(JsonGenerator g, byte[] data, int off, int len, Context context)
            throws IOException {
        this.g = g;
        this.samplesOpen = false;
        this.base = off;
        this.sampleErrors = 0;
        g.writeStartObject();
        if (context != null) {
            context.write(g);
        }
        g.writeNumberField("length", len);
        SflowDecodeException e;
        try {
            e = decoder.decode(data, off, len, this);
        } catch (UncheckedIOException x) {
            throw x.getCause();
        }
        if (samplesOpen) {
            g.writeEndArray();
        }
        if (e != null) {
            g.writeObjectFieldStart("error");
            g.writeStringField("kind", e.kind().name());
            g.writeStringField("field", e.field());
            g.writeNumberField("offset", e.offset());
            if (e.value() >= 0) {
                g.writeNumberField("value", e.value());
            }
            g.writeEndObject();
        }
        g.writeEndObject();
        return e;
    }

    /** @return the counters of this writer's decoder over every datagram written (errors by kind and level). */
    public DecodeStats stats() {
        return decoder.stats();
    }

    /**
     * @return how many samples of the datagram last written failed inside their own declared length (each written
     *         with its {@code error}; the datagram went on), 0 when none did
     */
    public int sampleErrors() {
        return sampleErrors;
    }

    /** Leading fields of a datagram object. */
    @FunctionalInterface
    public interface Context {
        /** Writes fields into the open datagram object. */
        void write(JsonGenerator g) throws IOException;
    }

    /** @return "enterprise:format" for a data_format. */
    static String format(int dataFormat) {
        return SflowFormats.enterprise(dataFormat) + ":" + SflowFormats.format(dataFormat);
    }

    @Override
    public void onDatagram(DatagramHeader h) {
        io(() -> {
            g.writeObjectFieldStart("datagram");
            g.writeNumberField("version", h.version);
            g.writeNumberField("agent_address_type", h.agentAddressType);
            g.writeStringField("agent_address", h.agentAddressString());
            g.writeNumberField("sub_agent_id", h.subAgentId);
            g.writeNumberField("sequence_number", h.sequenceNumber);
            g.writeNumberField("uptime", h.uptimeMs);
            g.writeNumberField("num_samples", h.numSamples);
            if (h.incomplete) {
                g.writeBooleanField("incomplete", true); // the sample structure fails before its end: see "error"
            }
            g.writeEndObject();
            g.writeArrayFieldStart("samples");
            samplesOpen = true;
        });
    }

    @Override
    public void onFlowSample(DatagramHeader h, FlowSample s) {
        io(() -> flow(s));
    }

    @Override
    public void onDiscardSample(DatagramHeader h, FlowSample s) {
        io(() -> flow(s));
    }

    @Override
    public void onCounterSample(DatagramHeader h, CounterSample s) {
        io(() -> counters(s));
    }

    @Override
    public void onSampleError(DatagramHeader h, RecordedSample s) {
        sampleErrors++;
        io(() -> {
            g.writeStartObject();
            g.writeStringField("sample_type", sampleType(s.kind));
            g.writeStringField("data_format", format(s.kind));
            g.writeNumberField("offset", s.offset - base);
            g.writeNumberField("length", s.length);
            if (s.sourceRead) {
                g.writeNumberField("sequence_number", s.sequenceNumber);
                g.writeNumberField("source_id_type", s.sourceIdType);
                g.writeNumberField("source_id_index", s.sourceIdIndex);
            }
            g.writeObjectFieldStart("error");
            g.writeStringField("kind", s.sampleErrorKind.name());
            g.writeStringField("field", s.sampleErrorField());
            g.writeNumberField("offset", s.sampleErrorOffset);
            if (s.sampleErrorValue >= 0) {
                g.writeNumberField("value", s.sampleErrorValue);
            }
            g.writeEndObject();
            g.writeEndObject();
        });
    }

    /** @return the sFlow name of a known sample type. */
    private static String sampleType(int kind) {
        return switch (kind) {
            case SflowFormats.FLOW_SAMPLE -> "flow_sample";
            case SflowFormats.FLOW_SAMPLE_EXPANDED -> "flow_sample_expanded";
            case SflowFormats.DISCARDED_PACKET -> "discarded_packet";
            case SflowFormats.COUNTERS_SAMPLE -> "counters_sample";
            default -> "counters_sample_expanded";
        };
    }

    @Override
    public void onSkippedSample(DatagramHeader h, int dataFormat, int offset, int length) {
        io(() -> {
            g.writeStartObject();
            g.writeStringField("sample_type", "unknown");
            g.writeStringField("data_format", format(dataFormat));
            g.writeNumberField("offset", offset - base);
            g.writeNumberField("length", length);
            g.writeEndObject();
        });
    }

    private interface IoAction {
        void run() throws IOException;
    }

    private static void io(IoAction a) {
        try {
            a.run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void flow(FlowSample s) throws IOException {
        g.writeStartObject();
        g.writeStringField("sample_type", sampleType(s.kind));
        g.writeStringField("data_format", format(s.kind));
        g.writeNumberField("offset", s.offset - base);
        g.writeNumberField("length", s.length);
        g.writeNumberField("sequence_number", s.sequenceNumber);
        g.writeNumberField("source_id_type", s.sourceIdType);
        g.writeNumberField("source_id_index", s.sourceIdIndex);
        if (s.isDiscard()) {
            g.writeNumberField("drops", s.drops);
            g.writeNumberField("input", s.input);
            g.writeNumberField("output", s.output);
            g.writeNumberField("reason", s.reason);
            g.writeStringField("reason_name", DiscardReasons.name(s.reason));
        } else {
            g.writeNumberField("sampling_rate", s.samplingRate);
            g.writeNumberField("sample_pool", s.samplePool);
            g.writeNumberField("drops", s.drops);
            iface("input", s.inputFormat, s.input);
            iface("output", s.outputFormat, s.output);
        }
        g.writeNumberField("flow_records", s.recordCount);
        g.writeArrayFieldStart("records");
        int unknown = 0;
        for (int i = 0; i < s.recordsListed; i++) {
            int f = s.recordFormats[i];
            g.writeStartObject();
            g.writeStringField("data_format", format(f));
            String known = FlowRecords.name(f);
            if (s.recordFailed(i)) {
                recordError(known, s.recordErrorKinds[i].name(), s.recordErrorField(i), s.recordErrorOffsets[i]);
            } else if (known != null && (s.recordSuperseded(i) || !s.has(f))) {
                superseded(known);
            } else if (!flowRecord(s, f)) {
                g.writeStringField("record_type", "unknown");
                if (unknown < s.unknownKept()) {
                    ByteView v = s.unknownBodies[unknown];
                    g.writeNumberField("length", v.length);
                    g.writeStringField("data", HEX.formatHex(v.array, v.offset, v.offset + v.length));
                }
                unknown++;
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        if (s.recordErrors > 0) {
            g.writeNumberField("record_errors", s.recordErrors);
        }
        g.writeEndObject();
    }

    /** A listed record that failed to decode: its name and the error, no fields (its holder holds none of it). */
    private void recordError(String recordType, String kind, String field, int offset) throws IOException {
        g.writeStringField("record_type", recordType != null ? recordType : "unknown");
        g.writeObjectFieldStart("error");
        g.writeStringField("kind", kind);
        g.writeStringField("field", field);
        g.writeNumberField("offset", offset);
        g.writeEndObject();
    }

    /** An earlier copy of a known record whose holder a later copy of the same format took over. */
    private void superseded(String recordType) throws IOException {
        g.writeStringField("record_type", recordType);
        g.writeBooleanField("superseded", true);
    }

    private void iface(String name, int fmt, long value) throws IOException {
        g.writeObjectFieldStart(name);
        g.writeNumberField("format", fmt);
        g.writeNumberField("value", value);
        String meaning = fmt == SflowFormats.IF_FORMAT_DISCARD ? "discarded, reason " + value
                : fmt == SflowFormats.IF_FORMAT_MULTIPLE ? (value == 0 ? "multiple, count unknown"
                        : "multiple, " + value + " interfaces")
                : value == SflowFormats.IF_INTERNAL || value == 0xFFFFFFFFL ? "internal"
                : value == 0 ? "unknown" : null;
        if (meaning != null) {
            g.writeStringField("meaning", meaning);
        }
        g.writeEndObject();
    }

    private void address(String name, SflowAddress a) throws IOException {
        g.writeStringField(name, a.toString());
    }

    private void view(String name, ByteView v) throws IOException {
        g.writeStringField(name, v.asString());
    }

    /** Writes the fields of a known flow record; false for an unknown format. */
    private boolean flowRecord(FlowSample s, int f) throws IOException {
        switch (f) {
            case SflowFormats.SAMPLED_HEADER -> {
                FlowRecords.SampledHeader h = s.sampledHeader;
                g.writeStringField("record_type", "sampled_header");
                g.writeNumberField("header_protocol", h.headerProtocol);
                g.writeNumberField("frame_length", h.frameLength);
                g.writeNumberField("stripped", h.stripped);
                g.writeNumberField("header_length", h.header.length);
                g.writeStringField("header", HEX.formatHex(h.header.array, h.header.offset,
                        h.header.offset + h.header.length));
                LinkType lt = LinkType.fromSflowHeaderProtocol(h.headerProtocol);
                if (lt != null) {
                    PacketParser.parse(h.header.array, h.header.offset, h.header.length, lt, parsed);
                    writeParsed(parsed);
                }
            }
            case SflowFormats.SAMPLED_ETHERNET -> {
                g.writeStringField("record_type", "sampled_ethernet");
                g.writeNumberField("length", s.sampledEthernet.length);
                g.writeStringField("src_mac", mac(s.sampledEthernet.srcMac));
                g.writeStringField("dst_mac", mac(s.sampledEthernet.dstMac));
                g.writeNumberField("type", s.sampledEthernet.type);
            }
            case SflowFormats.SAMPLED_IPV4, SflowFormats.SAMPLED_IPV6 -> {
                FlowRecords.SampledIp ip = f == SflowFormats.SAMPLED_IPV4 ? s.sampledIpv4 : s.sampledIpv6;
                g.writeStringField("record_type", f == SflowFormats.SAMPLED_IPV4 ? "sampled_ipv4" : "sampled_ipv6");
                g.writeNumberField("length", ip.length);
                g.writeNumberField("protocol", ip.protocol);
                address("src_ip", ip.src);
                address("dst_ip", ip.dst);
                g.writeNumberField("src_port", ip.srcPort);
                g.writeNumberField("dst_port", ip.dstPort);
                g.writeNumberField("tcp_flags", ip.tcpFlags);
                g.writeNumberField(f == SflowFormats.SAMPLED_IPV4 ? "tos" : "priority", ip.tos);
            }
            case SflowFormats.EXTENDED_SWITCH -> {
                g.writeStringField("record_type", "extended_switch");
                g.writeNumberField("src_vlan", s.extendedSwitch.srcVlan);
                g.writeNumberField("src_priority", s.extendedSwitch.srcPriority);
                g.writeNumberField("dst_vlan", s.extendedSwitch.dstVlan);
                g.writeNumberField("dst_priority", s.extendedSwitch.dstPriority);
            }
            case SflowFormats.EXTENDED_ROUTER -> {
                g.writeStringField("record_type", "extended_router");
                address("nexthop", s.extendedRouter.nextHop);
                g.writeNumberField("src_mask_len", s.extendedRouter.srcMaskLen);
                g.writeNumberField("dst_mask_len", s.extendedRouter.dstMaskLen);
            }
            case SflowFormats.EXTENDED_GATEWAY -> {
                FlowRecords.ExtendedGateway x = s.extendedGateway;
                g.writeStringField("record_type", "extended_gateway");
                address("nexthop", x.nextHop);
                g.writeNumberField("as", x.as);
                g.writeNumberField("src_as", x.srcAs);
                g.writeNumberField("src_peer_as", x.srcPeerAs);
                g.writeArrayFieldStart("dst_as_path");
                int k = 0;
                for (int i = 0; i < x.segments; i++) {
                    g.writeStartObject();
                    g.writeStringField("type", x.segmentType[i] == 1 ? "as_set" : x.segmentType[i] == 2
                            ? "as_sequence" : Integer.toString(x.segmentType[i]));
                    g.writeArrayFieldStart("as_numbers");
                    for (int j = 0; j < x.segmentLength[i]; j++) {
                        g.writeNumber(x.asPath[k++]);
                    }
                    g.writeEndArray();
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeArrayFieldStart("communities");
                for (int i = 0; i < x.communityCount; i++) {
                    g.writeNumber(x.communities[i]);
                }
                g.writeEndArray();
                g.writeNumberField("localpref", x.localPref);
            }
            case SflowFormats.EXTENDED_USER -> {
                g.writeStringField("record_type", "extended_user");
                g.writeNumberField("src_charset", s.extendedUser.srcCharset);
                view("src_user", s.extendedUser.srcUser);
                g.writeNumberField("dst_charset", s.extendedUser.dstCharset);
                view("dst_user", s.extendedUser.dstUser);
            }
            case SflowFormats.EXTENDED_URL -> {
                g.writeStringField("record_type", "extended_url");
                g.writeNumberField("direction", s.extendedUrl.direction);
                view("url", s.extendedUrl.url);
                view("host", s.extendedUrl.host);
            }
            case SflowFormats.EXTENDED_MPLS -> {
                g.writeStringField("record_type", "extended_mpls");
                address("nexthop", s.extendedMpls.nextHop);
                labels("in_stack", s.extendedMpls.inStack, s.extendedMpls.inDepth);
                labels("out_stack", s.extendedMpls.outStack, s.extendedMpls.outDepth);
            }
            case SflowFormats.EXTENDED_NAT -> {
                g.writeStringField("record_type", "extended_nat");
                address("src", s.extendedNat.src);
                address("dst", s.extendedNat.dst);
            }
            case SflowFormats.EXTENDED_VLAN_TUNNEL -> {
                g.writeStringField("record_type", "extended_vlantunnel");
                labels("stack", s.extendedVlanTunnel.stack, s.extendedVlanTunnel.depth);
            }
            case SflowFormats.EXTENDED_EGRESS_QUEUE -> {
                g.writeStringField("record_type", "extended_egress_queue");
                g.writeNumberField("queue", s.egressQueue);
            }
            case SflowFormats.EXTENDED_ACL -> {
                g.writeStringField("record_type", "extended_acl");
                g.writeNumberField("number", s.extendedAcl.number);
                view("name", s.extendedAcl.name);
                g.writeNumberField("direction", s.extendedAcl.direction);
            }
            case SflowFormats.EXTENDED_FUNCTION -> {
                g.writeStringField("record_type", "extended_function");
                view("symbol", s.function);
            }
            case SflowFormats.EXTENDED_TRANSIT -> {
                g.writeStringField("record_type", "extended_transit");
                g.writeNumberField("delay", s.transitDelayNanos);
            }
            case SflowFormats.EXTENDED_QUEUE -> {
                g.writeStringField("record_type", "extended_queue");
                g.writeNumberField("depth", s.queueDepthBytes);
            }
            case SflowFormats.EXTENDED_HW_TRAP -> {
                g.writeStringField("record_type", "extended_hw_trap");
                view("group", s.hwTrap.group);
                view("trap", s.hwTrap.trap);
            }
            case SflowFormats.EXTENDED_LINUX_DROP_REASON -> {
                g.writeStringField("record_type", "extended_linux_drop_reason");
                view("reason", s.linuxDropReason);
            }
            case SflowFormats.EXTENDED_TIMESTAMP -> {
                g.writeStringField("record_type", "extended_timestamp");
                g.writeStringField("nanoseconds", Long.toUnsignedString(s.timestampNanos));
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    private void labels(String name, long[] values, int n) throws IOException {
        g.writeArrayFieldStart(name);
        for (int i = 0; i < n; i++) {
            g.writeNumber(values[i]);
        }
        g.writeEndArray();
    }

    /**
     * The parsed header, fields of the layers it holds only: a header cut short shows what was captured (the
     * {@code status} says where it stopped) and leaves out what was not, rather than printing 0 for it.
     */
    private void writeParsed(ParsedPacket p) throws IOException {
        g.writeObjectFieldStart("decoded");
        g.writeStringField("status", ParsedPacket.statusName(p.status()));
        boolean linkCut = p.status() == ParsedPacket.TRUNCATED && p.errorLayer() == ParsedPacket.Layer.LINK
                && p.errorDepth() == 0 && p.errorOffset() == 0; // the Ethernet / cooked header itself
        if (p.l2Offset() >= 0 && !linkCut) {
            if (p.linkType() != LinkType.LINUX_SLL) {
                g.writeStringField("src_mac", mac(p.srcMac()));
                g.writeStringField("dst_mac", mac(p.dstMac()));
            } else if (p.srcMac() != 0) { // cooked: the sender's address only, when it is a MAC
                g.writeStringField("src_mac", mac(p.srcMac()));
            }
        }
        if (p.vlanCount() > 0) {
            g.writeNumberField("outer_vlan", p.outerVlan());
            g.writeNumberField("vlan", p.vlanId());
        }
        if (p.llcSnap()) {
            g.writeBooleanField("llc_snap", true);
        }
        if (p.etherType() != 0 || p.l3Offset() >= 0) {
            g.writeNumberField("ethertype", p.etherType());
        }
        if (p.mplsLabelCount() > 0) {
            g.writeNumberField("mpls_labels", p.mplsLabelCount());
            g.writeNumberField("mpls_top_label", p.mplsTopLabel());
        }
        if (p.ipVersion() != 0) {
            g.writeNumberField("ip_version", p.ipVersion());
            g.writeStringField("src_ip", p.srcAddressString());
            g.writeStringField("dst_ip", p.dstAddressString());
            g.writeNumberField("ip_length", p.ipTotalLength());
            if (p.ipVersion() == 4 || p.l4Offset() >= 0) { // IPv6: unknown while the extension chain is cut
                g.writeNumberField("protocol", p.protocol());
            }
            g.writeNumberField("tos", p.tos());
            g.writeNumberField("ttl", p.ttl());
            if (p.portsPresent()) {
                g.writeNumberField("src_port", p.srcPort());
                g.writeNumberField("dst_port", p.dstPort());
            }
            if (p.tcpFlagsPresent()) {
                g.writeNumberField("tcp_flags", p.tcpFlags());
            }
            if (p.icmpPresent()) {
                g.writeNumberField("icmp_type", p.icmpType());
                g.writeNumberField("icmp_code", p.icmpCode());
            }
        }
        g.writeEndObject();
    }

    private void counters(CounterSample s) throws IOException {
        g.writeStartObject();
        g.writeStringField("sample_type", s.expanded ? "counters_sample_expanded" : "counters_sample");
        g.writeStringField("data_format", format(s.kind));
        g.writeNumberField("offset", s.offset - base);
        g.writeNumberField("length", s.length);
        g.writeNumberField("sequence_number", s.sequenceNumber);
        g.writeNumberField("source_id_type", s.sourceIdType);
        g.writeNumberField("source_id_index", s.sourceIdIndex);
        g.writeNumberField("counter_records", s.recordCount);
        g.writeArrayFieldStart("records");
        int unknown = 0;
        for (int i = 0; i < s.recordsListed; i++) {
            int f = s.recordFormats[i];
            g.writeStartObject();
            g.writeStringField("data_format", format(f));
            Object holder = s.records.holder(f);
            if (s.recordFailed(i)) {
                recordError(CounterRecords.name(f), s.recordErrorKinds[i].name(), s.recordErrorField(i),
                        s.recordErrorOffsets[i]);
            } else if (CounterRecords.isKnown(f) && (s.recordSuperseded(i) || holder == null)) {
                superseded(CounterRecords.name(f));
            } else if (holder != null) {
                g.writeStringField("record_type", CounterRecords.name(f));
                reflect(holder);
            } else {
                g.writeStringField("record_type", "unknown");
                if (unknown < s.unknownKept()) {
                    ByteView v = s.unknownBodies[unknown];
                    g.writeNumberField("length", v.length);
                    g.writeStringField("data", HEX.formatHex(v.array, v.offset, v.offset + v.length));
                }
                unknown++;
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        if (s.recordErrors > 0) {
            g.writeNumberField("record_errors", s.recordErrors);
        }
        g.writeEndObject();
    }

    /**
     * Writes a counter holder's public instance fields in declaration order, named in snake_case: numbers, strings
     * (views), addresses, and arrays paired with a count field named {@code <array>Count} or {@code <array>Length}.
     */
    private void reflect(Object holder) throws IOException {
        for (Field f : holder.getClass().getFields()) {
            if (Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            String name = snake(f.getName());
            try {
                Object v = f.get(holder);
                switch (v) {
                    case Long l -> unsigned(name, l); // u32 and u64 ("unsigned hyper") counters
                    case Integer n -> g.writeNumberField(name, n);
                    case Float x -> g.writeNumberField(name, x);
                    case Double x -> g.writeNumberField(name, x);
                    case Boolean b -> g.writeBooleanField(name, b);
                    case ByteView bv -> g.writeStringField(name, printable(bv) ? bv.asString()
                            : HEX.formatHex(bv.array, bv.offset, bv.offset + bv.length));
                    case SflowAddress a -> g.writeStringField(name, a.toString());
                    case byte[] b -> g.writeStringField(name, HEX.formatHex(b));
                    case long[] a -> writeArray(holder, f, name, a);
                    case Object[] a -> writeObjects(holder, f, name, a);
                    default -> { }
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * Writes a long field holding a u32 or u64 as an unsigned decimal number: a u64 with its top bit set (e.g. the
     * all-ones "unknown" counter, 18446744073709551615) is not negative.
     */
    private void unsigned(String name, long v) throws IOException {
        g.writeFieldName(name);
        unsigned(v);
    }

    private void unsigned(long v) throws IOException {
        if (v >= 0) {
            g.writeNumber(v);
        } else {
            g.writeNumber(new java.math.BigInteger(Long.toUnsignedString(v)));
        }
    }

    private int countFor(Object holder, Field arrayField) {
        for (String suffix : new String[] {"Count", "Length", "Depth"}) {
            try {
                Field c = holder.getClass().getField(arrayField.getName() + suffix);
                return ((Number) c.get(holder)).intValue();
            } catch (ReflectiveOperationException ignored) {
                // try the next naming convention
            }
        }
        for (String name : new String[] {"count", "length"}) {
            try {
                Field c = holder.getClass().getField(name);
                return ((Number) c.get(holder)).intValue();
            } catch (ReflectiveOperationException ignored) {
                // none
            }
        }
        return 0;
    }

    private void writeArray(Object holder, Field f, String name, long[] a) throws IOException {
        int n = Math.min(a.length, countFor(holder, f));
        g.writeArrayFieldStart(name);
        for (int i = 0; i < n; i++) {
            unsigned(a[i]);
        }
        g.writeEndArray();
    }

    private void writeObjects(Object holder, Field f, String name, Object[] a) throws IOException {
        int n = Math.min(a.length, countFor(holder, f));
        g.writeArrayFieldStart(name);
        for (int i = 0; i < n; i++) {
            g.writeStartObject();
            reflect(a[i]);
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static boolean printable(ByteView v) {
        for (int i = 0; i < v.length; i++) {
            int c = v.get(i);
            if (c < 0x20 || c == 0x7F) {
                return false;
            }
        }
        return true;
    }

    static String snake(String camel) {
        StringBuilder b = new StringBuilder(camel.length() + 4);
        for (int i = 0; i < camel.length(); i++) {
            char c = camel.charAt(i);
            if (Character.isUpperCase(c)) {
                if (i > 0 && !Character.isUpperCase(camel.charAt(i - 1))) {
                    b.append('_');
                }
                b.append(Character.toLowerCase(c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** @return the address text of 16 mapped bytes (for callers building rows). */
    static String mapped(byte[] a16) {
        return IpAddresses.toString(a16, 0, 16);
    }

    /**
     * @param m a MAC address in the low 48 bits
     * @return its text, six lower-case hex pairs separated by colons (e.g. {@code 00:fe:c8:99:05:47})
     */
    public static String mac(long m) {
        return String.format("%02x:%02x:%02x:%02x:%02x:%02x", m >>> 40 & 0xFF, m >>> 32 & 0xFF, m >>> 24 & 0xFF,
                m >>> 16 & 0xFF, m >>> 8 & 0xFF, m & 0xFF);
    }
}
