package io.vecflow.collector.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import io.vecflow.collector.Captures;
import io.vecflow.collector.TestSupport;
import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.inlet.DatagramProcessor;
import io.vecflow.collector.schema.ExporterInfo;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.schema.InterfaceInfo;
import io.vecflow.collector.schema.Label;
import io.vecflow.collector.schema.NetworkInfo;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.sflow.DiscardReasons;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link FlowProtobuf} against {@code flow.proto}: the descriptor is built from the file itself ({@link ProtoFile}),
 * and the file must declare exactly the fields of {@link #FIELDS} (name, number, type, repeated) — so the .proto, this
 * table, the encoder's constants and {@link FlowSchema#FLOWS} cannot disagree without a failure. Rows are encoded,
 * parsed back with protobuf-java's {@link DynamicMessage} and every field compared with the row.
 */
class FlowProtobufTest {
    /** One expected field: .proto name, number, type, repeated, and how its value follows from a row. */
    record Field(String name, int number, FieldDescriptor.Type type, boolean repeated, Function<FlowRow,
            Object> value) {}

    private static Field u32(String name, int number, ToLongFunction<FlowRow> v) {
        return new Field(name, number, FieldDescriptor.Type.UINT32, false, r -> v.applyAsLong(r) & 0xFFFFFFFFL);
    }

    private static Field u64(String name, int number, ToLongFunction<FlowRow> v) {
        return new Field(name, number, FieldDescriptor.Type.UINT64, false, v::applyAsLong);
    }

    private static Field addr(String name, int number, Function<FlowRow, byte[]> v) {
        return new Field(name, number, FieldDescriptor.Type.BYTES, false, r -> ByteString.copyFrom(v.apply(r)));
    }

    private static Field str(String name, int number, Function<FlowRow, Label> v) {
        return new Field(name, number, FieldDescriptor.Type.STRING, false, r -> v.apply(r).text);
    }

    private static Field boundary(String name, int number, java.util.function.ToIntFunction<FlowRow> v) {
        return new Field(name, number, FieldDescriptor.Type.ENUM, false,
                r -> List.of("UNDEFINED", "EXTERNAL", "INTERNAL").get(v.applyAsInt(r)));
    }

    /** The FlowMessage fields, in field-number order. Values: uint32/uint64 as unsigned longs, bytes as ByteString. */
    static final List<Field> FIELDS = List.of(
            u32("time_received", 1, r -> Math.floorDiv(r.timeReceivedNanos, 1_000_000_000L)),
            u64("time_received_nanos", 2, r -> r.timeReceivedNanos),
            addr("agent_address", 3, r -> r.agentAddress),
            addr("peer_address", 4, r -> r.peerAddress),
            u32("sub_agent_id", 5, r -> r.subAgentId),
            u32("datagram_sequence", 6, r -> r.datagramSequence),
            u32("sample_sequence", 7, r -> r.sampleSequence),
            u32("source_id_type", 8, r -> r.sourceIdType),
            u32("source_id_index", 9, r -> r.sourceIdIndex),
            new Field("sample_type", 10, FieldDescriptor.Type.ENUM, false,
                    r -> r.sampleType == FlowRow.DISCARD ? "DISCARD" : "FLOW"),
            u32("discard_reason", 11, r -> r.discardReason),
            new Field("discard_reason_name", 12, FieldDescriptor.Type.STRING, false,
                    r -> r.sampleType == FlowRow.DISCARD ? DiscardReasons.name(r.discardReason) : ""),
            u32("forwarding_status", 13, r -> r.forwardingStatus),
            u32("sampling_rate", 14, r -> r.samplingRate),
            u32("sample_pool", 15, r -> r.samplePool),
            u32("drops", 16, r -> r.drops),
            u32("in_if_format", 17, r -> r.inIfFormat),
            u32("in_if", 18, r -> r.inIf),
            u32("out_if_format", 19, r -> r.outIfFormat),
            u32("out_if", 20, r -> r.outIf),
            u32("header_protocol", 21, r -> r.headerProtocol),
            u32("frame_length", 22, r -> r.frameLength),
            u32("header_length", 23, r -> r.headerLength),
            u64("src_mac", 24, r -> r.srcMac),
            u64("dst_mac", 25, r -> r.dstMac),
            u32("vlan", 26, r -> r.vlan),
            u32("in_vlan", 27, r -> r.inVlan),
            u32("out_vlan", 28, r -> r.outVlan),
            u32("etype", 29, r -> r.etherType),
            u32("mpls_labels", 30, r -> r.mplsLabels),
            u32("mpls_top_label", 31, r -> r.mplsTopLabel),
            addr("src_addr", 32, r -> r.srcAddr),
            addr("dst_addr", 33, r -> r.dstAddr),
            u32("proto", 34, r -> r.protocol),
            u32("src_port", 35, r -> r.srcPort),
            u32("dst_port", 36, r -> r.dstPort),
            u32("tcp_flags", 37, r -> r.tcpFlags),
            u32("ip_tos", 38, r -> r.tos),
            u32("ip_ttl", 39, r -> r.ttl),
            addr("next_hop", 40, r -> r.nextHop),
            u32("src_net_mask", 41, r -> r.srcMask),
            u32("dst_net_mask", 42, r -> r.dstMask),
            u32("src_as", 43, r -> r.srcAs),
            u32("dst_as", 44, r -> r.dstAs),
            u32("src_peer_as", 45, r -> r.srcPeerAs),
            new Field("dst_as_path", 46, FieldDescriptor.Type.UINT32, true,
                    r -> Arrays.stream(r.dstAsPath, 0, r.dstAsPathLength).map(a -> a & 0xFFFFFFFFL).boxed().toList()),
            u32("encapsulation", 47, r -> r.encapsulation),
            u32("tunnel_id", 48, r -> r.tunnelId),
            addr("inner_src_addr", 49, r -> r.innerSrcAddr),
            addr("inner_dst_addr", 50, r -> r.innerDstAddr),
            u32("inner_proto", 51, r -> r.innerProtocol),
            u32("inner_src_port", 52, r -> r.innerSrcPort),
            u32("inner_dst_port", 53, r -> r.innerDstPort),
            u64("bytes", 54, r -> r.bytes),
            u64("packets", 55, r -> r.packets),
            u32("srv6_segments_left", 56, r -> r.srv6SegmentsLeft),
            new Field("srv6_segments", 57, FieldDescriptor.Type.BYTES, true, r -> java.util.stream.IntStream
                    .range(0, r.srv6SegmentCount).mapToObj(i -> ByteString.copyFrom(r.srv6Segments, 16 * i, 16))
                    .toList()),
            u32("ingest_stream", 58, r -> r.ingestStream),
            u64("ingest_offset", 59, r -> r.ingestOffset),
            new Field("direction", 60, FieldDescriptor.Type.ENUM, false,
                    r -> List.of("UNDEFINED", "INGRESS", "EGRESS").get(r.direction)),
            u32("datagram_incomplete", 61, r -> r.datagramIncomplete ? 1L : 0L),
            str("exporter_name", 62, r -> r.exporter.name()),
            str("exporter_group", 63, r -> r.exporter.group()),
            str("exporter_role", 64, r -> r.exporter.role()),
            str("exporter_site", 65, r -> r.exporter.site()),
            str("exporter_region", 66, r -> r.exporter.region()),
            str("exporter_tenant", 67, r -> r.exporter.tenant()),
            str("in_if_name", 68, r -> r.inIfInfo.name()),
            str("in_if_description", 69, r -> r.inIfInfo.description()),
            u32("in_if_speed", 70, r -> r.inIfInfo.speedMbps()),
            boundary("in_if_boundary", 71, r -> r.inIfInfo.boundary()),
            str("in_if_provider", 72, r -> r.inIfInfo.provider()),
            str("in_if_connectivity", 73, r -> r.inIfInfo.connectivity()),
            str("out_if_name", 74, r -> r.outIfInfo.name()),
            str("out_if_description", 75, r -> r.outIfInfo.description()),
            u32("out_if_speed", 76, r -> r.outIfInfo.speedMbps()),
            boundary("out_if_boundary", 77, r -> r.outIfInfo.boundary()),
            str("out_if_provider", 78, r -> r.outIfInfo.provider()),
            str("out_if_connectivity", 79, r -> r.outIfInfo.connectivity()),
            str("src_country", 80, r -> r.srcNet.country()),
            str("src_net_name", 81, r -> r.srcNet.name()),
            str("src_net_role", 82, r -> r.srcNet.role()),
            str("src_net_site", 83, r -> r.srcNet.site()),
            str("src_net_region", 84, r -> r.srcNet.region()),
            str("src_net_tenant", 85, r -> r.srcNet.tenant()),
            str("dst_country", 86, r -> r.dstNet.country()),
            str("dst_net_name", 87, r -> r.dstNet.name()),
            str("dst_net_role", 88, r -> r.dstNet.role()),
            str("dst_net_site", 89, r -> r.dstNet.site()),
            str("dst_net_region", 90, r -> r.dstNet.region()),
            str("dst_net_tenant", 91, r -> r.dstNet.tenant()),
            str("src_as_name", 92, r -> r.srcAsName),
            str("dst_as_name", 93, r -> r.dstAsName));

    /** FlowMessage fields that are not columns of the ClickHouse flows table. */
    static final Set<String> NOT_COLUMNS = Set.of("discard_reason_name", "header_length", "src_as_name",
            "dst_as_name");

    static Descriptor descriptor;

    @BeforeAll
    static void load() throws Exception {
        descriptor = ProtoFile.flowMessage();
    }

    @Test
    void theProtoFileDeclaresExactlyTheExpectedFields() {
        List<String> inFile = descriptor.getFields().stream()
                .map(f -> f.getName() + "=" + f.getNumber() + ":" + f.getType() + (f.isRepeated() ? "[]" : ""))
                .toList();
        List<String> expected = FIELDS.stream()
                .map(f -> f.name() + "=" + f.number() + ":" + f.type() + (f.repeated() ? "[]" : ""))
                .toList();
        assertThat(inFile).containsExactlyElementsOf(expected);
        assertThat(descriptor.getFullName()).isEqualTo("vecflow.flow.v1.FlowMessage");
        assertThat(descriptor.getFile().getPackage()).isEqualTo("vecflow.flow.v1");
        assertThat(descriptor.findFieldByName("dst_as_path").isPacked()).as("AS path packed").isTrue();
        assertThat(descriptor.findFieldByName("sample_type").getEnumType().getValues())
                .extracting(v -> v.getName() + "=" + v.getNumber()).containsExactly("FLOW=0", "DISCARD=1");
        // The Direction enum is the ClickHouse Enum8, name for name (upper case) and number for number.
        assertThat(descriptor.findFieldByName("direction").getEnumType().getValues())
                .extracting(v -> v.getName().toLowerCase(Locale.ROOT) + "=" + v.getNumber())
                .containsExactly("undefined=0", "ingress=1", "egress=2");
        assertThat(FlowSchema.DIRECTIONS).containsExactly("undefined", "ingress", "egress");
    }

    @Test
    void theEncodersFieldConstantsAreTheFileNumbers() throws Exception {
        for (FieldDescriptor f : descriptor.getFields()) {
            int constant = FlowProtobuf.class.getField(f.getName().toUpperCase(Locale.ROOT)).getInt(null);
            assertThat(constant).as("FlowProtobuf." + f.getName().toUpperCase(Locale.ROOT)).isEqualTo(f.getNumber());
        }
        long constants = Arrays.stream(FlowProtobuf.class.getFields())
                .filter(fl -> fl.getType() == int.class && !fl.getName().equals("MAX_ENCODED_BYTES")).count();
        assertThat(constants).as("field-number constants in FlowProtobuf").isEqualTo(descriptor.getFields().size());
    }

    @Test
    void everyClickHouseColumnHasItsFieldNamedInSnakeCase() {
        List<String> mapped = new ArrayList<>();
        for (FlowSchema.Column c : FlowSchema.FLOWS) {
            List<FieldDescriptor> match = descriptor.getFields().stream()
                    .filter(f -> f.getName().replace("_", "").equals(c.name().toLowerCase(Locale.ROOT))).toList();
            assertThat(match).as("field for column " + c.name()).hasSize(1);
            FieldDescriptor f = match.get(0);
            mapped.add(f.getName());
            FieldDescriptor.Type want = switch (c.type()) {
                case DATETIME, UINT8, UINT16, UINT32, ARRAY_UINT32 -> FieldDescriptor.Type.UINT32;
                case UINT64 -> FieldDescriptor.Type.UINT64;
                case IP, ARRAY_IP -> FieldDescriptor.Type.BYTES;
                case DIRECTION, BOUNDARY -> FieldDescriptor.Type.ENUM;
                case STRING, LC_STRING -> FieldDescriptor.Type.STRING;
                case FLOAT64 -> throw new AssertionError("no such flows column type " + c.type());
            };
            if (c.name().equals("SampleType")) {
                want = FieldDescriptor.Type.ENUM;
            }
            assertThat(f.getType()).as("type of " + f.getName() + " for " + c.name() + " " + c.type()).isEqualTo(want);
            assertThat(f.isRepeated()).as(f.getName() + " repeated").isEqualTo(c.type() == FlowSchema.Type.ARRAY_UINT32
                    || c.type() == FlowSchema.Type.ARRAY_IP);
        }
        Set<String> extra = descriptor.getFields().stream().map(FieldDescriptor::getName)
                .filter(n -> !mapped.contains(n)).collect(Collectors.toSet());
        assertThat(extra).isEqualTo(NOT_COLUMNS);
    }

    /** A row with every field set, most to values above 2^31 where the type allows (catches int32 vs uint32). */
    static FlowRow fullRow(int i, boolean discard) {
        FlowRow r = new FlowRow();
        r.timeReceivedNanos = 1_780_000_000_123_456_789L + i * 1_000_003L;
        byte[] agent = TestSupport.addr16(i % 2 == 0 ? "192.0.2." + (1 + i % 3) : "2001:db8::a" + (i % 3));
        System.arraycopy(agent, 0, r.agentAddress, 0, 16);
        System.arraycopy(TestSupport.addr16("198.51.100.7"), 0, r.peerAddress, 0, 16);
        r.subAgentId = 0xFFFF_FFFEL;
        r.datagramSequence = 0x8000_0000L + i;
        r.sampleSequence = 1000 + i;
        r.sourceIdType = 2;
        r.sourceIdIndex = 0xFFFF_FF00L;
        r.sampleType = discard ? FlowRow.DISCARD : FlowRow.FLOW;
        r.direction = 1 + i % 2; // ingress or egress; 0 (undefined) is absent on the wire
        r.discardReason = discard ? (i % 2 == 0 ? 258 : 0x9000_0001L) : 0;
        r.forwardingStatus = discard ? DiscardReasons.forwardingStatus(r.discardReason) : 64;
        r.samplingRate = 0xFFFF_FFFFL;
        r.samplePool = 0xC000_0000L + i;
        r.drops = 0x8000_0001L;
        r.inIfFormat = 2;
        r.inIf = 0xF000_0001L;
        r.outIfFormat = 1;
        r.outIf = 0x4000_0000L + 7;
        r.headerProtocol = 1;
        r.frameLength = 1518;
        r.headerLength = 128;
        r.srcMac = 0xFFEE_DDCC_BBAAL;
        r.dstMac = 0x0011_2233_4455L;
        r.vlan = 4094;
        r.inVlan = 4094;
        r.outVlan = 100;
        r.etherType = 0x86DD;
        r.mplsLabels = 3;
        r.mplsTopLabel = 0xFFFFF;
        System.arraycopy(TestSupport.addr16("2001:db8:1::" + Integer.toHexString(i + 1)), 0, r.srcAddr, 0, 16);
        System.arraycopy(TestSupport.addr16("2001:db8:2::ff"), 0, r.dstAddr, 0, 16);
        r.protocol = 6;
        r.srcPort = 65535;
        r.dstPort = 443;
        r.tcpFlags = 0xFF;
        r.tos = 0xB8;
        r.ttl = 255;
        System.arraycopy(TestSupport.addr16("10.0.0.254"), 0, r.nextHop, 0, 16);
        r.srcMask = 48;
        r.dstMask = 128;
        r.srcAs = 4_200_000_000L;
        r.dstAs = 4_294_967_295L;
        r.srcPeerAs = 65001;
        r.dstAsPathLength = 4;
        r.dstAsPath[0] = 65001;
        r.dstAsPath[1] = 0x8000_0000L;
        r.dstAsPath[2] = 1;
        r.dstAsPath[3] = 4_294_967_295L;
        r.encapsulation = 2;
        r.tunnelId = 0xFF_FFFF;
        System.arraycopy(TestSupport.addr16("172.16.0." + (1 + i % 250)), 0, r.innerSrcAddr, 0, 16);
        System.arraycopy(TestSupport.addr16("172.16.1.1"), 0, r.innerDstAddr, 0, 16);
        r.innerProtocol = 17;
        r.innerSrcPort = 53;
        r.innerDstPort = 40000 + i;
        r.bytes = 0x1_0000_0000L + 1500; // above 2^32: a uint64 field
        r.packets = 1;
        r.srv6SegmentsLeft = i % 3;
        r.srv6SegmentCount = i % 4;
        for (int k = 0; k < r.srv6SegmentCount; k++) {
            System.arraycopy(TestSupport.addr16("fc00:" + (k + 1) + "::" + (i + 1)), 0, r.srv6Segments, 16 * k, 16);
        }
        r.ingestStream = 0x8000_0000L | i;
        r.ingestOffset = 0x1_0000_0000L + i;
        r.datagramIncomplete = i % 2 == 1;
        r.exporter = new ExporterInfo(Label.of("edge" + i + ".par1"), Label.of("edge"), Label.of("peering"),
                Label.of("par1"), Label.of("eu-west"), Label.of("tenant-é" + i));
        r.inIfInfo = new InterfaceInfo(Label.of("xe-0/0/" + i), Label.of("transit: ACME (AS64500)"), 100_000,
                InterfaceInfo.EXTERNAL, Label.of("acme"), Label.of("transit"));
        r.outIfInfo = i % 2 == 0 ? InterfaceInfo.EMPTY : new InterfaceInfo(Label.of("et-1/0/0"), Label.EMPTY,
                0xFFFF_FFFFL, InterfaceInfo.INTERNAL, Label.EMPTY, Label.EMPTY);
        r.srcNet = new NetworkInfo(Label.of("office"), Label.of("users"), Label.of("par1"), Label.of("eu-west"),
                Label.of("acme"), Label.of("FR"), 64500, Label.of("ACME"));
        r.dstNet = i % 2 == 0 ? NetworkInfo.EMPTY : new NetworkInfo(Label.EMPTY, Label.EMPTY, Label.EMPTY,
                Label.EMPTY, Label.EMPTY, Label.of("DE"), 3320, Label.of("Deutsche Telekom AG"));
        r.srcAsName = Label.of("ACME");
        r.dstAsName = i % 2 == 0 ? Label.EMPTY : Label.of("Deutsche Telekom AG");
        return r;
    }

    /** Parses a FlowMessage and asserts that every field has the value the row implies (absent = 0/empty). */
    static DynamicMessage assertMessage(Descriptor d, FlowRow r, byte[] encoded) throws Exception {
        DynamicMessage m = DynamicMessage.parseFrom(d, encoded);
        assertThat(m.getUnknownFields().asMap()).as("fields not in flow.proto").isEmpty();
        for (Field f : FIELDS) {
            FieldDescriptor fd = d.findFieldByName(f.name());
            Object got = m.getField(fd);
            Object want = f.value().apply(r);
            Object norm = switch (fd.getType()) {
                case UINT32 -> fd.isRepeated()
                        ? ((List<?>) got).stream().map(o -> Integer.toUnsignedLong((Integer) o)).toList()
                        : Integer.toUnsignedLong((Integer) got);
                case UINT64 -> (Long) got;
                case ENUM -> ((EnumValueDescriptor) got).getName();
                default -> got;
            };
            assertThat(norm).as(f.name()).isEqualTo(want);
        }
        // The encoder writes what protobuf-java itself writes for the same message (field order, packing, defaults).
        assertThat(HexFormat.of().formatHex(m.toByteArray())).as("canonical encoding")
                .isEqualTo(HexFormat.of().formatHex(encoded));
        return m;
    }

    @Test
    void fullFlowAndDiscardRowsRoundTripThroughDynamicMessage() throws Exception {
        FlowProtobuf enc = new FlowProtobuf();
        for (int i = 0; i < 6; i++) {
            FlowRow r = fullRow(i, i >= 2);
            byte[] b = enc.encodeToArray(r);
            assertThat(b).hasSize(enc.size());
            DynamicMessage m = assertMessage(descriptor, r, b);
            // Spot checks in plain words, so a table mistake cannot hide a wrong value.
            assertThat(m.getField(descriptor.findFieldByName("sampling_rate"))).isEqualTo(-1); // 0xFFFFFFFF as int
            assertThat(((ByteString) m.getField(descriptor.findFieldByName("agent_address"))).size()).isEqualTo(16);
            if (i >= 2) {
                assertThat(m.getField(descriptor.findFieldByName("discard_reason_name")))
                        .isEqualTo(i % 2 == 0 ? "acl" : "code 2415919105");
                assertThat(m.getField(descriptor.findFieldByName("forwarding_status"))).isEqualTo(i % 2 == 0 ? 130
                        : 128);
            } else {
                assertThat(m.hasField(descriptor.findFieldByName("discard_reason_name"))).isFalse();
                assertThat(m.hasField(descriptor.findFieldByName("sample_type"))).as("FLOW is the default").isFalse();
            }
        }
    }

    @Test
    void zeroFieldsAreLeftOutButAddressesAreAlwaysSixteenBytes() throws Exception {
        FlowRow r = new FlowRow();
        byte[] b = new FlowProtobuf().encodeToArray(r);
        DynamicMessage m = assertMessage(descriptor, r, b);
        List<String> present = m.getAllFields().keySet().stream().map(FieldDescriptor::getName).toList();
        assertThat(present).containsExactly("agent_address", "peer_address", "src_addr", "dst_addr", "next_hop",
                "inner_src_addr", "inner_dst_addr");
        assertThat(b).hasSize(2 * (1 + 1 + 16) + 5 * (2 + 1 + 16)); // fields 3, 4: 1-byte tags; 32, 33, 40, 49, 50: 2
    }

    @Test
    void aDiscardOfReasonZeroStillSaysDiscardAndNamesTheReason() throws Exception {
        FlowRow r = fullRow(0, true);
        r.discardReason = 0;
        r.forwardingStatus = DiscardReasons.forwardingStatus(0);
        DynamicMessage m = assertMessage(descriptor, r, new FlowProtobuf().encodeToArray(r));
        assertThat(m.hasField(descriptor.findFieldByName("discard_reason"))).isFalse();
        assertThat(m.getField(descriptor.findFieldByName("discard_reason_name"))).isEqualTo("net_unreachable");
    }

    @Test
    void randomRowsAndTheLongestAsPathRoundTrip() throws Exception {
        Random rnd = new Random(7);
        FlowProtobuf enc = new FlowProtobuf();
        for (int n = 0; n < 300; n++) {
            FlowRow r = fullRow(n, rnd.nextBoolean());
            // Random values, a random subset zeroed: every combination of present and absent fields.
            r.subAgentId = rnd.nextBoolean() ? 0 : rnd.nextInt() & 0xFFFFFFFFL;
            r.inIf = rnd.nextBoolean() ? 0 : rnd.nextInt() & 0xFFFFFFFFL;
            r.srcMac = rnd.nextBoolean() ? 0 : rnd.nextLong() & 0xFFFF_FFFF_FFFFL;
            r.bytes = rnd.nextBoolean() ? 0 : rnd.nextLong() >>> 1;
            r.tcpFlags = rnd.nextInt(256);
            r.discardReason = r.sampleType == FlowRow.DISCARD ? rnd.nextInt(400) : 0;
            r.dstAsPathLength = n == 299 ? FlowRow.MAX_AS_PATH : rnd.nextInt(12);
            for (int i = 0; i < r.dstAsPathLength; i++) {
                r.dstAsPath[i] = rnd.nextInt() & 0xFFFFFFFFL;
            }
            if (rnd.nextBoolean()) {
                Arrays.fill(r.nextHop, (byte) 0);
            }
            assertMessage(descriptor, r, enc.encodeToArray(r));
        }
        assertThat(enc.size()).isLessThanOrEqualTo(FlowProtobuf.MAX_ENCODED_BYTES);
    }

    @Test
    void everyRowOfEveryTestCaptureRoundTrips() throws Exception {
        CollectorStats stats = new CollectorStats();
        TestSupport.CopyingSink sink = new TestSupport.CopyingSink();
        DatagramProcessor p = new DatagramProcessor(stats.decode, stats, List.of(), List.of(sink));
        byte[] peer = TestSupport.addr16("127.0.0.1");
        for (String c : Captures.all()) {
            for (byte[] d : Captures.udpPayloads(c)) {
                p.process(d, 0, d.length, 1_780_000_000_000_000_000L, peer, 6343);
            }
        }
        List<FlowRow> rows = sink.rows();
        assertThat(rows).hasSizeGreaterThanOrEqualTo(20); // 25 flow and discard samples in testdata/sflow today
        FlowProtobuf enc = new FlowProtobuf();
        int[] sizes = new int[rows.size()];
        int discards = 0;
        for (int i = 0; i < rows.size(); i++) {
            byte[] b = enc.encodeToArray(rows.get(i));
            sizes[i] = b.length;
            assertMessage(descriptor, rows.get(i), b);
            discards += rows.get(i).sampleType == FlowRow.DISCARD ? 1 : 0;
        }
        assertThat(discards).as("discards among the capture rows").isPositive();
        Arrays.sort(sizes);
        System.out.printf("FlowMessage sizes over %d capture rows (%d discards): min %d, median %d, max %d bytes%n",
                sizes.length, discards, sizes[0], sizes[sizes.length / 2], sizes[sizes.length - 1]);
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().threadId());
    }

    @Test
    void encodingIntoTheReusableBufferAllocatesNothing() {
        FlowRow[] rows = new FlowRow[8];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = fullRow(i, i % 3 == 0);
        }
        rows[3].discardReason = 999_999; // unassigned: "code 999999" formatted without a String
        rows[4].dstAsPathLength = FlowRow.MAX_AS_PATH;
        FlowProtobuf enc = new FlowProtobuf();
        long sum = 0;
        for (int w = 0; w < 20_000; w++) {
            sum += enc.encode(rows[w % rows.length]);
        }
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 5 && best > 0; round++) {
            long before = allocated();
            for (int w = 0; w < 100_000; w++) {
                sum += enc.encode(rows[w % rows.length]);
            }
            best = Math.min(best, allocated() - before);
        }
        System.out.printf("FlowProtobuf.encode: %d B allocated for 100000 rows (checksum %d)%n", best, sum);
        // One allocation per row would be >= 1.6 MB here. Less than a byte per row leaves room for the JVM's own
        // occasional allocations during a run (792 B here, sometimes ~17 KB: DecodeAllocationTest sees the same).
        assertThat(best).as("bytes allocated by 100000 encodes").isLessThan(100_000);
    }
}
