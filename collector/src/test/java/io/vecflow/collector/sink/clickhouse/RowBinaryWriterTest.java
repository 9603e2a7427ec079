package io.vecflow.collector.sink.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.TestSupport;
import io.vecflow.collector.schema.ExporterInfo;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.schema.InterfaceInfo;
import io.vecflow.collector.schema.Label;
import io.vecflow.collector.schema.NetworkInfo;
import io.vecflow.collector.schema.FlowSchema;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** RowBinary encoding of flow rows: exact little-endian bytes, column order and widths from {@link FlowSchema}. */
public class RowBinaryWriterTest {
    /** 2026-08-01T12:34:56.789012345Z in ns. */
    static final long T_NS = 1_785_587_696_789_012_345L;

    /** A row with a distinct, recognisable value in every column (u32 values above 2^31 included). */
    public static FlowRow sampleRow() {
        FlowRow r = new FlowRow();
        r.timeReceivedNanos = T_NS;
        System.arraycopy(TestSupport.addr16("30::1:1:1"), 0, r.agentAddress, 0, 16);
        System.arraycopy(TestSupport.addr16("127.0.0.1"), 0, r.peerAddress, 0, 16);
        r.subAgentId = 100_000;
        r.datagramSequence = 0xFFFF_FFFEL;
        r.sampleSequence = 0x0102_0304L;
        r.sourceIdType = 2;
        r.sourceIdIndex = 1_285_816_721L; // 0x4CA40191, an expanded ifIndex above 2^24
        r.samplingRate = 2048;
        r.samplePool = 1_521_799_520L;
        r.drops = 7;
        r.inIfFormat = 0;
        r.inIf = 29001;
        r.outIfFormat = 2;
        r.outIf = 0x8000_0000L;
        r.headerProtocol = 1;
        r.frameLength = 1518;
        r.headerLength = 128; // not stored
        r.srcMac = 0x00FE_C899_0547L;
        r.dstMac = 0x0100_5E2A_AA04L;
        r.sampleType = FlowRow.DISCARD;
        r.direction = FlowRow.EGRESS; // not what source 2:… would give: the writer stores the field as set
        r.discardReason = 258; // acl
        r.forwardingStatus = 130;
        r.vlan = 809;
        r.inVlan = 809;
        r.outVlan = 3001;
        r.etherType = 0x86DD;
        r.mplsLabels = 2;
        r.mplsTopLabel = 18;
        System.arraycopy(TestSupport.addr16("2001:db8:4::1"), 0, r.srcAddr, 0, 16);
        System.arraycopy(TestSupport.addr16("52.52.52.52"), 0, r.dstAddr, 0, 16);
        r.protocol = 6;
        r.srcPort = 22;
        r.dstPort = 52237;
        r.tcpFlags = 0x18;
        r.tos = 0xB8;
        r.ttl = 255;
        System.arraycopy(TestSupport.addr16("54.54.54.54"), 0, r.nextHop, 0, 16);
        r.srcMask = 24;
        r.dstMask = 16;
        r.srcAs = 203476;
        r.dstAs = 203361;
        r.srv6SegmentsLeft = 1;
        r.srv6SegmentCount = 2;
        System.arraycopy(TestSupport.addr16("fc00:2::a"), 0, r.srv6Segments, 0, 16);
        System.arraycopy(TestSupport.addr16("fc00:1::b"), 0, r.srv6Segments, 16, 16);
        r.ingestStream = 0x8000_0007L;
        r.ingestOffset = 0x1_0000_0002L;
        r.srcPeerAs = 8218;
        r.dstAsPath[0] = 8218;
        r.dstAsPath[1] = 29605;
        r.dstAsPath[2] = 203361;
        r.dstAsPathLength = 3;
        r.encapsulation = 2; // VXLAN
        r.tunnelId = 100;
        System.arraycopy(TestSupport.addr16("2001:db8:4::1"), 0, r.innerSrcAddr, 0, 16);
        System.arraycopy(TestSupport.addr16("2001:db8:4::3"), 0, r.innerDstAddr, 0, 16);
        r.innerProtocol = 58;
        r.bytes = 1518;
        r.packets = 1;
        r.datagramIncomplete = true;
        r.exporter = new ExporterInfo(Label.of("edge1.par"), Label.of("edge"), Label.EMPTY, Label.of("par"),
                Label.EMPTY, Label.of("tenant-é"));
        r.inIfInfo = new InterfaceInfo(Label.of("xe-0/0/1"), Label.of("transit: ACME"), 100_000,
                InterfaceInfo.EXTERNAL, Label.of("acme"), Label.of("transit"));
        r.dstNet = new NetworkInfo(Label.of("office"), Label.EMPTY, Label.EMPTY, Label.EMPTY, Label.EMPTY,
                Label.of("US"), 16509, Label.of("AMAZON-02"));
        return r;
    }

    /** Expected value of every column of {@link #sampleRow()}, by column name: a Long or 16 address bytes. */
    static Map<String, Object> expectedColumns() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("TimeReceived", 1_785_587_696L);
        m.put("TimeReceivedNanos", T_NS);
        m.put("AgentAddress", TestSupport.addr16("30::1:1:1"));
        m.put("PeerAddress", TestSupport.addr16("127.0.0.1"));
        m.put("SubAgentId", 100_000L);
        m.put("DatagramSequence", 0xFFFF_FFFEL);
        m.put("SampleSequence", 0x0102_0304L);
        m.put("SourceIdType", 2L);
        m.put("SourceIdIndex", 1_285_816_721L);
        m.put("SampleType", 1L);
        m.put("Direction", 2L);
        m.put("DiscardReason", 258L);
        m.put("ForwardingStatus", 130L);
        m.put("SamplingRate", 2048L);
        m.put("SamplePool", 1_521_799_520L);
        m.put("Drops", 7L);
        m.put("InIfFormat", 0L);
        m.put("InIf", 29001L);
        m.put("OutIfFormat", 2L);
        m.put("OutIf", 0x8000_0000L);
        m.put("HeaderProtocol", 1L);
        m.put("FrameLength", 1518L);
        m.put("SrcMAC", 0x00FE_C899_0547L);
        m.put("DstMAC", 0x0100_5E2A_AA04L);
        m.put("Vlan", 809L);
        m.put("InVlan", 809L);
        m.put("OutVlan", 3001L);
        m.put("EType", 0x86DDL);
        m.put("MPLSLabels", 2L);
        m.put("MPLSTopLabel", 18L);
        m.put("SrcAddr", TestSupport.addr16("2001:db8:4::1"));
        m.put("DstAddr", TestSupport.addr16("52.52.52.52"));
        m.put("Proto", 6L);
        m.put("SrcPort", 22L);
        m.put("DstPort", 52237L);
        m.put("TCPFlags", 0x18L);
        m.put("IPTos", 0xB8L);
        m.put("IPTTL", 255L);
        m.put("NextHop", TestSupport.addr16("54.54.54.54"));
        m.put("SrcNetMask", 24L);
        m.put("DstNetMask", 16L);
        m.put("SrcAS", 203476L);
        m.put("DstAS", 203361L);
        m.put("SrcPeerAS", 8218L);
        m.put("DstASPath", new long[] {8218, 29605, 203361});
        m.put("Encapsulation", 2L);
        m.put("TunnelId", 100L);
        m.put("InnerSrcAddr", TestSupport.addr16("2001:db8:4::1"));
        m.put("InnerDstAddr", TestSupport.addr16("2001:db8:4::3"));
        m.put("InnerProto", 58L);
        m.put("InnerSrcPort", 0L);
        m.put("InnerDstPort", 0L);
        m.put("Bytes", 1518L);
        m.put("Packets", 1L);
        m.put("SRv6SegmentsLeft", 1L);
        m.put("SRv6Segments", new byte[][] {TestSupport.addr16("fc00:2::a"), TestSupport.addr16("fc00:1::b")});
        m.put("IngestStream", 0x8000_0007L);
        m.put("IngestOffset", 0x1_0000_0002L);
        m.put("DatagramIncomplete", 1L);
        m.put("ExporterName", "edge1.par");
        m.put("ExporterGroup", "edge");
        m.put("ExporterRole", "");
        m.put("ExporterSite", "par");
        m.put("ExporterRegion", "");
        m.put("ExporterTenant", "tenant-é");
        m.put("InIfName", "xe-0/0/1");
        m.put("InIfDescription", "transit: ACME");
        m.put("InIfSpeed", 100_000L);
        m.put("InIfBoundary", 1L);
        m.put("InIfProvider", "acme");
        m.put("InIfConnectivity", "transit");
        for (String f : List.of("Name", "Description", "Speed", "Boundary", "Provider", "Connectivity")) {
            m.put("OutIf" + f, f.equals("Speed") || f.equals("Boundary") ? (Object) 0L : "");
        }
        for (String f : List.of("Country", "NetName", "NetRole", "NetSite", "NetRegion", "NetTenant")) {
            m.put("Src" + f, "");
        }
        m.put("DstCountry", "US");
        m.put("DstNetName", "office");
        for (String f : List.of("NetRole", "NetSite", "NetRegion", "NetTenant")) {
            m.put("Dst" + f, "");
        }
        return m;
    }

    static int width(FlowSchema.Type t) {
        return switch (t) {
            case DATETIME, UINT32 -> 4;
            case UINT8, DIRECTION, BOUNDARY -> 1;
            case UINT16 -> 2;
            case UINT64 -> 8;
            case IP -> 16;
            case FLOAT64 -> 8;
            case ARRAY_UINT32, ARRAY_IP, STRING, LC_STRING -> throw new IllegalArgumentException("variable width");
        };
    }

    private static String le32(long v) {
        return HexFormat.of().formatHex(new byte[] {(byte) v, (byte) (v >>> 8), (byte) (v >>> 16), (byte) (v >>> 24)});
    }

    private static byte[] encode(FlowRow... rows) {
        RowBinaryWriter w = new RowBinaryWriter(16);
        for (FlowRow r : rows) {
            w.writeFlow(r);
        }
        return Arrays.copyOf(w.buffer(), w.size());
    }

    @Test
    void handWrittenLayoutOfTheFirstColumnsAndAddresses() {
        byte[] b = encode(sampleRow());
        HexFormat hex = HexFormat.of();
        // TimeReceived: DateTime = UInt32 seconds LE. 1785587696 = 0x6A6DE7F0 (hand-computed below).
        assertThat(1_785_587_696L).isEqualTo(0x6A6D_E7F0L);
        assertThat(hex.formatHex(b, 0, 4)).isEqualTo("f0e76d6a");
        // TimeReceivedNanos: UInt64 LE of 1785587696789012345 = 0x18C7AE8C_BE6ABF79.
        assertThat(T_NS).isEqualTo(0x18C7_AE8C_BE6A_BF79L);
        assertThat(hex.formatHex(b, 4, 12)).isEqualTo("79bf6abe8caec718");
        // AgentAddress: 16 bytes in network order (30::1:1:1), no byte swapping.
        assertThat(hex.formatHex(b, 12, 28)).isEqualTo("00300000000000000000000100010001");
        // PeerAddress: IPv4-mapped ::ffff:127.0.0.1.
        assertThat(hex.formatHex(b, 28, 44)).isEqualTo("00000000000000000000ffff7f000001");
        // SubAgentId 100000 = 0x000186A0; DatagramSequence 0xFFFFFFFE; SampleSequence 0x01020304.
        assertThat(hex.formatHex(b, 44, 48)).isEqualTo("a0860100");
        assertThat(hex.formatHex(b, 48, 52)).isEqualTo("feffffff");
        assertThat(hex.formatHex(b, 52, 56)).isEqualTo("04030201");
        // SourceIdType UInt8 2, then SourceIdIndex 0x4CA40191 unmasked.
        assertThat(hex.formatHex(b, 56, 57)).isEqualTo("02");
        assertThat(hex.formatHex(b, 57, 61)).isEqualTo("9101a44c");
        // SampleType 1 (discard), Direction 2 (Enum8 egress), DiscardReason 258 = 0x102, ForwardingStatus 130 = 0x82.
        assertThat(hex.formatHex(b, 61, 68)).isEqualTo("01" + "02" + "02010000" + "82");
        // SamplingRate 2048 at 68, SamplePool at 72, Drops at 76.
        assertThat(hex.formatHex(b, 68, 72)).isEqualTo("00080000");
        assertThat(hex.formatHex(b, 72, 76)).isEqualTo(le32(1_521_799_520L));
        assertThat(hex.formatHex(b, 76, 80)).isEqualTo("07000000");
        assertThat(hex.formatHex(b, 80, 81)).isEqualTo("00"); // InIfFormat
        assertThat(hex.formatHex(b, 81, 85)).isEqualTo("49710000"); // InIf 29001 = 0x7149
        assertThat(hex.formatHex(b, 85, 86)).isEqualTo("02"); // OutIfFormat
        assertThat(hex.formatHex(b, 86, 90)).isEqualTo("00000080"); // OutIf 0x80000000
        assertThat(hex.formatHex(b, 90, 98)).isEqualTo("01000000" + "ee050000"); // HeaderProtocol, FrameLength 1518
        // SrcMAC at 98: UInt64 LE of 0x00FEC8990547; DstMAC at 106.
        assertThat(hex.formatHex(b, 98, 106)).isEqualTo("470599c8fe000000");
        assertThat(hex.formatHex(b, 106, 114)).isEqualTo("04aa2a5e00010000");
        // Vlan 809 = 0x0329, InVlan 809, OutVlan 3001 = 0x0BB9, EType 0x86DD, MPLSLabels 2, MPLSTopLabel 18.
        assertThat(hex.formatHex(b, 114, 127)).isEqualTo("2903" + "2903" + "b90b" + "dd86" + "02" + "12000000");
        // SrcAddr 2001:db8:4::1, DstAddr ::ffff:52.52.52.52.
        assertThat(hex.formatHex(b, 127, 143)).isEqualTo("20010db8000400000000000000000001");
        assertThat(hex.formatHex(b, 143, 159)).isEqualTo("00000000000000000000ffff34343434");
        // Proto, SrcPort 22, DstPort 52237 = 0xCC0D, TCPFlags, IPTos, IPTTL.
        assertThat(hex.formatHex(b, 159, 167)).isEqualTo("06" + "1600" + "0dcc" + "18" + "b8" + "ff");
        // NextHop ::ffff:54.54.54.54, masks 24 and 16, SrcAS 203476 = 0x31AD4, DstAS 203361 = 0x31A61, SrcPeerAS 8218.
        assertThat(hex.formatHex(b, 167, 183)).isEqualTo("00000000000000000000ffff36363636");
        assertThat(hex.formatHex(b, 183, 197)).isEqualTo("18" + "10" + "d41a0300" + "611a0300" + "1a200000");
        // DstASPath: LEB128 size 3, then 8218, 29605 = 0x73A5, 203361.
        assertThat(hex.formatHex(b, 197, 210)).isEqualTo("03" + "1a200000" + "a5730000" + "611a0300");
        // Encapsulation 2 (VXLAN), TunnelId 100, inner addresses, InnerProto 58, ports 0.
        assertThat(hex.formatHex(b, 210, 215)).isEqualTo("02" + "64000000");
        assertThat(hex.formatHex(b, 215, 231)).isEqualTo("20010db8000400000000000000000001");
        assertThat(hex.formatHex(b, 231, 247)).isEqualTo("20010db8000400000000000000000003");
        assertThat(hex.formatHex(b, 247, 252)).isEqualTo("3a" + "0000" + "0000");
        // Bytes, Packets.
        assertThat(hex.formatHex(b, 252, 268)).isEqualTo("ee05000000000000" + "0100000000000000");
        // SRv6SegmentsLeft 1, SRv6Segments: LEB128 size 2 then two 16-byte addresses; IngestStream, IngestOffset.
        assertThat(hex.formatHex(b, 268, 270)).isEqualTo("01" + "02");
        assertThat(hex.formatHex(b, 270, 302)).isEqualTo("fc00000200000000000000000000000a"
                + "fc00000100000000000000000000000b");
        assertThat(hex.formatHex(b, 302, 314)).isEqualTo("07000080" + "0200000001000000");
        // DatagramIncomplete UInt8 1: the row's datagram stopped decoding part-way.
        assertThat(hex.formatHex(b, 314, 315)).isEqualTo("01");
        // ExporterName: LEB128 length 9, "edge1.par"; ExporterGroup "edge"; ExporterRole empty (one 0 byte).
        assertThat(hex.formatHex(b, 315, 331)).isEqualTo("09" + hex.formatHex("edge1.par".getBytes()) + "04"
                + hex.formatHex("edge".getBytes()) + "00");
    }

    @Test
    void everyColumnSitsAtItsSchemaOffsetWithItsSchemaWidth() {
        byte[] b = encode(sampleRow());
        Map<String, Object> expected = expectedColumns();
        assertThat(FlowSchema.FLOWS.stream().map(FlowSchema.Column::name).toList())
                .as("schema column order").containsExactlyElementsOf(expected.keySet());
        int off = 0;
        for (FlowSchema.Column c : FlowSchema.FLOWS) {
            Object want = expected.get(c.name());
            if (c.type() == FlowSchema.Type.ARRAY_IP) {
                byte[][] arr = (byte[][]) want;
                assertThat(b[off]).as(c.name() + " size (LEB128) at offset " + off).isEqualTo((byte) arr.length);
                off++;
                for (byte[] a : arr) {
                    assertThat(Arrays.copyOfRange(b, off, off + 16)).as(c.name() + " element at " + off).isEqualTo(a);
                    off += 16;
                }
                continue;
            }
            if (c.type() == FlowSchema.Type.ARRAY_UINT32) {
                long[] arr = (long[]) want;
                assertThat(b[off]).as(c.name() + " size (LEB128) at offset " + off).isEqualTo((byte) arr.length);
                off++;
                for (long a : arr) {
                    long v = (b[off] & 0xFFL) | (b[off + 1] & 0xFFL) << 8 | (b[off + 2] & 0xFFL) << 16
                            | (b[off + 3] & 0xFFL) << 24;
                    assertThat(v).as(c.name() + " element at offset " + off).isEqualTo(a);
                    off += 4;
                }
                continue;
            }
            if (c.type() == FlowSchema.Type.LC_STRING || c.type() == FlowSchema.Type.STRING) {
                byte[] utf8 = ((String) want).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                assertThat(b[off]).as(c.name() + " length (LEB128) at offset " + off).isEqualTo((byte) utf8.length);
                assertThat(Arrays.copyOfRange(b, off + 1, off + 1 + utf8.length)).as(c.name() + " at " + off)
                        .isEqualTo(utf8);
                off += 1 + utf8.length;
                continue;
            }
            int w = width(c.type());
            if (c.type() == FlowSchema.Type.IP) {
                assertThat(Arrays.copyOfRange(b, off, off + w)).as(c.name() + " at offset " + off).isEqualTo(want);
            } else {
                long v = 0;
                for (int i = w - 1; i >= 0; i--) {
                    v = v << 8 | (b[off + i] & 0xFF);
                }
                assertThat(v).as(c.name() + " at offset " + off + " (" + w + " bytes LE)").isEqualTo(want);
            }
            off += w;
        }
        assertThat(off).isEqualTo(b.length);
    }

    @Test
    void aDirectionOutsideTheEnumIsWrittenAsUndefined() {
        FlowRow r = sampleRow();
        for (int d : new int[] {3, -1, 255}) {
            r.direction = d;
            assertThat(encode(r)[62]).as("Direction byte for " + d).isZero();
        }
        r.direction = FlowRow.INGRESS;
        assertThat(encode(r)[62]).isEqualTo((byte) 1);
    }

    @Test
    void rowsAppendBackToBackAndTheBufferGrowsAndResets() {
        FlowRow r = sampleRow();
        RowBinaryWriter w = new RowBinaryWriter(1); // grows from the 64-byte minimum
        byte[] one = encode(r);
        for (int i = 0; i < 1000; i++) {
            r.sampleSequence = i;
            w.writeFlow(r);
        }
        assertThat(w.rows()).isEqualTo(1000);
        assertThat(w.size()).isEqualTo(1000 * one.length);
        int row999 = 999 * one.length;
        assertThat(Arrays.copyOfRange(w.buffer(), row999 + 52, row999 + 56)).containsExactly(0xE7, 0x03, 0, 0);
        assertThat(Arrays.copyOfRange(w.buffer(), row999, row999 + 52)).isEqualTo(Arrays.copyOf(one, 52));
        w.reset();
        assertThat(w.rows()).isZero();
        assertThat(w.size()).isZero();
        w.writeFlow(sampleRow());
        assertThat(Arrays.copyOf(w.buffer(), w.size())).isEqualTo(one);
    }
}
