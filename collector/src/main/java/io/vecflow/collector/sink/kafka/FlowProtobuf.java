package io.vecflow.collector.sink.kafka;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.vecflow.collector.schema.ExporterInfo;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.schema.InterfaceInfo;
import io.vecflow.collector.schema.Label;
import io.vecflow.collector.schema.NetworkInfo;
import io.vecflow.sflow.DiscardReasons;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Encodes a {@link FlowRow} as a {@code vecflow.flow.v1.FlowMessage} (protobuf wire format; the schema is
 * {@code collector/src/main/proto/vecflow/flow/v1/flow.proto}, documented in {@code
 * collector/src/main/proto/README.md}), the value of each record on the decoded Kafka topic. Written with
 * protobuf-java's {@link CodedOutputStream}: no generated classes (the build has no protoc), the field numbers are the
 * constants below and must match the {@code .proto} (FlowProtobufTest parses the file and fails when they disagree).
 *
 * <p>Proto3 rules: a field whose value is 0 (or an empty AS path, or no discard reason name) is not written; fields
 * are written in field-number order, the AS path packed, so the output is byte for byte what protobuf-java itself
 * serializes for the same message. Addresses are always written as their 16 bytes (IPv4 mapped), all-zero included
 * (16 zero bytes are not a proto3 default). u32 values held in {@code long} fields are written modulo 2^32, as the
 * ClickHouse UInt32 columns store them.
 *
 * <p>Allocation: {@link #encode} writes into a reusable buffer owned by this object and allocates nothing once warm
 * (discard reason names are pre-encoded; unassigned codes are formatted into a scratch array). {@link #toByteArray}
 * then makes the one array a Kafka record needs as its value. Not thread-safe: use one instance per thread.
 */
public final class FlowProtobuf {
    /** Field numbers of {@code vecflow.flow.v1.FlowMessage}. Stable: never reuse or renumber (see the .proto). */
    public static final int TIME_RECEIVED = 1, TIME_RECEIVED_NANOS = 2, AGENT_ADDRESS = 3, PEER_ADDRESS = 4,
            SUB_AGENT_ID = 5, DATAGRAM_SEQUENCE = 6, SAMPLE_SEQUENCE = 7, SOURCE_ID_TYPE = 8, SOURCE_ID_INDEX = 9,
            SAMPLE_TYPE = 10, DISCARD_REASON = 11, DISCARD_REASON_NAME = 12, FORWARDING_STATUS = 13,
            SAMPLING_RATE = 14, SAMPLE_POOL = 15, DROPS = 16, IN_IF_FORMAT = 17, IN_IF = 18, OUT_IF_FORMAT = 19,
            OUT_IF = 20, HEADER_PROTOCOL = 21, FRAME_LENGTH = 22, HEADER_LENGTH = 23, SRC_MAC = 24, DST_MAC = 25,
            VLAN = 26, IN_VLAN = 27, OUT_VLAN = 28, ETYPE = 29, MPLS_LABELS = 30, MPLS_TOP_LABEL = 31, SRC_ADDR = 32,
            DST_ADDR = 33, PROTO = 34, SRC_PORT = 35, DST_PORT = 36, TCP_FLAGS = 37, IP_TOS = 38, IP_TTL = 39,
            NEXT_HOP = 40, SRC_NET_MASK = 41, DST_NET_MASK = 42, SRC_AS = 43, DST_AS = 44, SRC_PEER_AS = 45,
            DST_AS_PATH = 46, ENCAPSULATION = 47, TUNNEL_ID = 48, INNER_SRC_ADDR = 49, INNER_DST_ADDR = 50,
            INNER_PROTO = 51, INNER_SRC_PORT = 52, INNER_DST_PORT = 53, BYTES = 54, PACKETS = 55,
            SRV6_SEGMENTS_LEFT = 56, SRV6_SEGMENTS = 57, INGEST_STREAM = 58, INGEST_OFFSET = 59, DIRECTION = 60,
            DATAGRAM_INCOMPLETE = 61,
            EXPORTER_NAME = 62, EXPORTER_GROUP = 63, EXPORTER_ROLE = 64, EXPORTER_SITE = 65, EXPORTER_REGION = 66,
            EXPORTER_TENANT = 67, IN_IF_NAME = 68, IN_IF_DESCRIPTION = 69, IN_IF_SPEED = 70, IN_IF_BOUNDARY = 71,
            IN_IF_PROVIDER = 72, IN_IF_CONNECTIVITY = 73, OUT_IF_NAME = 74, OUT_IF_DESCRIPTION = 75,
            OUT_IF_SPEED = 76, OUT_IF_BOUNDARY = 77, OUT_IF_PROVIDER = 78, OUT_IF_CONNECTIVITY = 79,
            SRC_COUNTRY = 80, SRC_NET_NAME = 81, SRC_NET_ROLE = 82, SRC_NET_SITE = 83, SRC_NET_REGION = 84,
            SRC_NET_TENANT = 85, DST_COUNTRY = 86, DST_NET_NAME = 87, DST_NET_ROLE = 88, DST_NET_SITE = 89,
            DST_NET_REGION = 90, DST_NET_TENANT = 91, SRC_AS_NAME = 92, DST_AS_NAME = 93;

    /**
     * Upper bound of one encoded message (bytes): 60 fields of at most 2-byte tag + 10-byte varint, six 16-byte
     * addresses, a reason name, 16 SRv6 segments, and a full AS path ({@link FlowRow#MAX_AS_PATH} × 5 bytes + tag and
     * length).
     */
    public static final int MAX_ENCODED_BYTES = 60 * 12 + 6 * 19 + 64 + FlowRow.MAX_AS_PATH * 5 + 8
            + FlowRow.MAX_SRV6_SEGMENTS * 19 + 32 * (Label.MAX_BYTES + 4) + 4 * 12;

    /** UTF-8 names of the assigned discard reasons, by code (null when unassigned). */
    private static final byte[][] REASON_NAMES = reasonNames();
    private static final byte[] CODE_PREFIX = "code ".getBytes(StandardCharsets.US_ASCII);

    private final Sink out = new Sink(MAX_ENCODED_BYTES);
    private final CodedOutputStream cos = CodedOutputStream.newInstance(out, 4096);
    private final byte[] nameScratch = new byte[CODE_PREFIX.length + 10];

    /** Creates an encoder with its buffer ({@link #MAX_ENCODED_BYTES}). */
    public FlowProtobuf() {}

    private static byte[][] reasonNames() {
        byte[][] n = new byte[1024][];
        for (int code = 0; code < n.length; code++) {
            if (DiscardReasons.known(code)) {
                n[code] = DiscardReasons.name(code).getBytes(StandardCharsets.UTF_8);
            }
        }
        return n;
    }

    /**
     * Encodes one row into this encoder's buffer, replacing the previous message.
     *
     * @param r the row (read only)
     * @return the message length (bytes), valid in {@link #buffer()} from offset 0
     * @throws IllegalStateException if the protobuf writer fails (a bug: the in-memory sink never fails)
     */
    public int encode(FlowRow r) {
        out.reset();
        try {
            CodedOutputStream c = cos;
            u32(c, TIME_RECEIVED, Math.floorDiv(r.timeReceivedNanos, 1_000_000_000L));
            u64(c, TIME_RECEIVED_NANOS, r.timeReceivedNanos);
            c.writeByteArray(AGENT_ADDRESS, r.agentAddress, 0, 16);
            c.writeByteArray(PEER_ADDRESS, r.peerAddress, 0, 16);
            u32(c, SUB_AGENT_ID, r.subAgentId);
            u32(c, DATAGRAM_SEQUENCE, r.datagramSequence);
            u32(c, SAMPLE_SEQUENCE, r.sampleSequence);
            u32(c, SOURCE_ID_TYPE, r.sourceIdType);
            u32(c, SOURCE_ID_INDEX, r.sourceIdIndex);
            if (r.sampleType != 0) {
                c.writeEnum(SAMPLE_TYPE, r.sampleType);
            }
            u32(c, DISCARD_REASON, r.discardReason);
            if (r.sampleType == FlowRow.DISCARD) {
                writeReasonName(c, r.discardReason);
            }
            u32(c, FORWARDING_STATUS, r.forwardingStatus);
            u32(c, SAMPLING_RATE, r.samplingRate);
            u32(c, SAMPLE_POOL, r.samplePool);
            u32(c, DROPS, r.drops);
            u32(c, IN_IF_FORMAT, r.inIfFormat);
            u32(c, IN_IF, r.inIf);
            u32(c, OUT_IF_FORMAT, r.outIfFormat);
            u32(c, OUT_IF, r.outIf);
            u32(c, HEADER_PROTOCOL, r.headerProtocol);
            u32(c, FRAME_LENGTH, r.frameLength);
            u32(c, HEADER_LENGTH, r.headerLength);
            u64(c, SRC_MAC, r.srcMac);
            u64(c, DST_MAC, r.dstMac);
            u32(c, VLAN, r.vlan);
            u32(c, IN_VLAN, r.inVlan);
            u32(c, OUT_VLAN, r.outVlan);
            u32(c, ETYPE, r.etherType);
            u32(c, MPLS_LABELS, r.mplsLabels);
            u32(c, MPLS_TOP_LABEL, r.mplsTopLabel);
            c.writeByteArray(SRC_ADDR, r.srcAddr, 0, 16);
            c.writeByteArray(DST_ADDR, r.dstAddr, 0, 16);
            u32(c, PROTO, r.protocol);
            u32(c, SRC_PORT, r.srcPort);
            u32(c, DST_PORT, r.dstPort);
            u32(c, TCP_FLAGS, r.tcpFlags);
            u32(c, IP_TOS, r.tos);
            u32(c, IP_TTL, r.ttl);
            c.writeByteArray(NEXT_HOP, r.nextHop, 0, 16);
            u32(c, SRC_NET_MASK, r.srcMask);
            u32(c, DST_NET_MASK, r.dstMask);
            u32(c, SRC_AS, r.srcAs);
            u32(c, DST_AS, r.dstAs);
            u32(c, SRC_PEER_AS, r.srcPeerAs);
            int n = Math.clamp(r.dstAsPathLength, 0, FlowRow.MAX_AS_PATH);
            if (n > 0) {
                int size = 0;
                for (int i = 0; i < n; i++) {
                    size += CodedOutputStream.computeUInt32SizeNoTag((int) r.dstAsPath[i]);
                }
                c.writeTag(DST_AS_PATH, WireFormat.WIRETYPE_LENGTH_DELIMITED);
                c.writeUInt32NoTag(size);
                for (int i = 0; i < n; i++) {
                    c.writeUInt32NoTag((int) r.dstAsPath[i]);
                }
            }
            u32(c, ENCAPSULATION, r.encapsulation);
            u32(c, TUNNEL_ID, r.tunnelId);
            c.writeByteArray(INNER_SRC_ADDR, r.innerSrcAddr, 0, 16);
            c.writeByteArray(INNER_DST_ADDR, r.innerDstAddr, 0, 16);
            u32(c, INNER_PROTO, r.innerProtocol);
            u32(c, INNER_SRC_PORT, r.innerSrcPort);
            u32(c, INNER_DST_PORT, r.innerDstPort);
            u64(c, BYTES, r.bytes);
            u64(c, PACKETS, r.packets);
            u32(c, SRV6_SEGMENTS_LEFT, r.srv6SegmentsLeft);
            for (int i = 0; i < Math.clamp(r.srv6SegmentCount, 0, FlowRow.MAX_SRV6_SEGMENTS); i++) {
                c.writeByteArray(SRV6_SEGMENTS, r.srv6Segments, 16 * i, 16);
            }
            u32(c, INGEST_STREAM, r.ingestStream);
            u64(c, INGEST_OFFSET, r.ingestOffset);
            if (r.direction != FlowRow.DIRECTION_UNDEFINED) {
                c.writeEnum(DIRECTION, r.direction);
            }
            u32(c, DATAGRAM_INCOMPLETE, r.datagramIncomplete ? 1 : 0);
            writeEnrichment(c, r);
            c.flush();
        } catch (IOException e) {
            throw new IllegalStateException("encoding a FlowMessage failed: " + e.getMessage(), e);
        }
        return out.size;
    }

    /** Fields 62..93 (the enrichment), in field-number order; empty labels, 0 and undefined are left out. */
    private static void writeEnrichment(CodedOutputStream c, FlowRow r) throws IOException {
        ExporterInfo e = r.exporter;
        label(c, EXPORTER_NAME, e.name());
        label(c, EXPORTER_GROUP, e.group());
        label(c, EXPORTER_ROLE, e.role());
        label(c, EXPORTER_SITE, e.site());
        label(c, EXPORTER_REGION, e.region());
        label(c, EXPORTER_TENANT, e.tenant());
        iface(c, IN_IF_NAME, r.inIfInfo);
        iface(c, OUT_IF_NAME, r.outIfInfo);
        network(c, SRC_COUNTRY, r.srcNet);
        network(c, DST_COUNTRY, r.dstNet);
        label(c, SRC_AS_NAME, r.srcAsName);
        label(c, DST_AS_NAME, r.dstAsName);
    }

    /** Six fields from {@code first}: name, description, speed, boundary, provider, connectivity. */
    private static void iface(CodedOutputStream c, int first, InterfaceInfo i) throws IOException {
        label(c, first, i.name());
        label(c, first + 1, i.description());
        u32(c, first + 2, i.speedMbps());
        if (i.boundary() != InterfaceInfo.UNDEFINED) {
            c.writeEnum(first + 3, i.boundary());
        }
        label(c, first + 4, i.provider());
        label(c, first + 5, i.connectivity());
    }

    /** Six fields from {@code first}: country, then the network's name, role, site, region, tenant. */
    private static void network(CodedOutputStream c, int first, NetworkInfo n) throws IOException {
        label(c, first, n.country());
        label(c, first + 1, n.name());
        label(c, first + 2, n.role());
        label(c, first + 3, n.site());
        label(c, first + 4, n.region());
        label(c, first + 5, n.tenant());
    }

    private static void label(CodedOutputStream c, int field, Label l) throws IOException {
        if (!l.isEmpty()) {
            c.writeByteArray(field, l.utf8, 0, l.utf8.length);
        }
    }

    /**
     * Encodes one row and returns it as a new array of exactly its length (the Kafka record value).
     *
     * @param r the row (read only)
     * @return the encoded {@code FlowMessage}
     */
    public byte[] encodeToArray(FlowRow r) {
        encode(r);
        return toByteArray();
    }

    /** @return a copy of the last message {@link #encode} wrote (one allocation, its exact length). */
    public byte[] toByteArray() {
        return Arrays.copyOf(out.buf, out.size);
    }

    /**
     * @return the reusable buffer holding the last message from offset 0 ({@link #size()} bytes); overwritten by the
     * next encode.
     */
    public byte[] buffer() {
        return out.buf;
    }

    /** @return the length of the last message (bytes). */
    public int size() {
        return out.size;
    }

    private void writeReasonName(CodedOutputStream c, long code) throws IOException {
        if (code >= 0 && code < REASON_NAMES.length && REASON_NAMES[(int) code] != null) {
            byte[] name = REASON_NAMES[(int) code];
            c.writeByteArray(DISCARD_REASON_NAME, name, 0, name.length);
            return;
        }
        // "code N", as DiscardReasons.name() spells an unassigned code, without building a String.
        long v = code & 0xFFFFFFFFL;
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        System.arraycopy(CODE_PREFIX, 0, nameScratch, 0, CODE_PREFIX.length);
        int end = CODE_PREFIX.length + digits;
        for (int i = end - 1; i >= CODE_PREFIX.length; i--) {
            nameScratch[i] = (byte) ('0' + (int) (v % 10));
            v /= 10;
        }
        c.writeByteArray(DISCARD_REASON_NAME, nameScratch, 0, end);
    }

    private static void u32(CodedOutputStream c, int field, long value) throws IOException {
        int v = (int) value;
        if (v != 0) {
            c.writeUInt32(field, v);
        }
    }

    private static void u64(CodedOutputStream c, int field, long value) throws IOException {
        if (value != 0) {
            c.writeUInt64(field, value);
        }
    }

    /** The growable in-memory target of the CodedOutputStream (its internal buffer is flushed here once per row). */
    private static final class Sink extends OutputStream {
        byte[] buf;
        int size;

        Sink(int capacity) {
            buf = new byte[capacity];
        }

        void reset() {
            size = 0;
        }

        @Override
        public void write(int b) {
            if (size == buf.length) {
                buf = Arrays.copyOf(buf, buf.length * 2);
            }
            buf[size++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            if (size + len > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + len));
            }
            System.arraycopy(b, off, buf, size, len);
            size += len;
        }
    }
}
