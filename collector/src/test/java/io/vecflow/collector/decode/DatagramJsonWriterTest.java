package io.vecflow.collector.decode;

import static io.vecflow.sflow.HandDatagram.counterSample;
import static io.vecflow.sflow.HandDatagram.datagram;
import static io.vecflow.sflow.HandDatagram.flowSample;
import static io.vecflow.sflow.HandDatagram.record;
import static io.vecflow.sflow.HandDatagram.recordWithLength;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.vecflow.sflow.CounterRecords;
import io.vecflow.sflow.SflowFormats;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/**
 * The JSON view of records that repeat or fail: each listed record is written from what the sample says about it —
 * the last copy of a record type with its fields, earlier copies as superseded stubs, failed records with their error
 * and no (stale) fields — and every offset counts from the start of the sFlow datagram.
 */
public class DatagramJsonWriterTest {
    private static final int SWITCH = SflowFormats.EXTENDED_SWITCH;
    private static final int ROUTER = SflowFormats.EXTENDED_ROUTER;
    private final DatagramJsonWriter writer = new DatagramJsonWriter();

    /** @return the compact JSON of {@code d} placed {@code off} bytes into a larger buffer. */
    private String json(byte[] d, int off) throws Exception {
        byte[] buf = new byte[off + d.length + 3];
        System.arraycopy(d, 0, buf, off, d.length);
        StringWriter out = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            writer.write(g, buf, off, d.length, null);
        }
        return out.toString();
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    @Test
    void anEarlierCopyIsASupersededStubAndTheLastCopyHasTheData() throws Exception {
        String j = json(datagram(1, 1000, flowSample(1, record(SWITCH, 10, 1, 11, 2),
                record(SflowFormats.SAMPLED_HEADER, 1, 60, 0, 4, 0x01020304), record(SWITCH, 20, 3, 21, 4),
                record(SflowFormats.SAMPLED_HEADER, 1, 70, 0, 4, 0x05060708))), 0);
        assertThat(j).contains("{\"data_format\":\"0:1001\",\"record_type\":\"extended_switch\",\"superseded\":true},"
                + "{\"data_format\":\"0:1\",\"record_type\":\"sampled_header\",\"superseded\":true},"
                + "{\"data_format\":\"0:1001\",\"record_type\":\"extended_switch\",\"src_vlan\":20,\"src_priority\":3,"
                + "\"dst_vlan\":21,\"dst_priority\":4},"
                + "{\"data_format\":\"0:1\",\"record_type\":\"sampled_header\",\"header_protocol\":1,"
                + "\"frame_length\":70,");
        assertThat(count(j, "\"src_vlan\":")).isEqualTo(1);
        assertThat(count(j, "\"frame_length\":")).isEqualTo(1);
    }

    @Test
    void aFailedRecordShowsItsErrorNotTheHolderOfAnEarlierDatagram() throws Exception {
        json(datagram(1, 1000, flowSample(1, record(SWITCH, 99, 1, 98, 2))), 0); // fills the holder
        byte[] cut = recordWithLength(SWITCH, 14, 10, 1, 11, 0x02000000);
        String j = json(datagram(2, 2000, flowSample(2, cut, record(ROUTER, 1, 0x0A000001, 24, 16))), 5);
        // 28 datagram header + 8 sample header + 32 compact flow_sample fields + 8 record header + 12 = 88
        assertThat(j).contains("{\"data_format\":\"0:1001\",\"record_type\":\"extended_switch\",\"error\":{\"kind\":"
                + "\"TRUNCATED\",\"field\":\"extended_switch.dst_priority\",\"offset\":88}},"
                + "{\"data_format\":\"0:1002\",\"record_type\":\"extended_router\",\"nexthop\":\"10.0.0.1\","
                + "\"src_mask_len\":24,\"dst_mask_len\":16}]");
        assertThat(j).doesNotContain("src_vlan").contains("\"record_errors\":1");
        assertThat(j).as("sample offsets count from the datagram, not the buffer").contains(
                "\"sample_type\":\"flow_sample\",\"data_format\":\"0:1\",\"offset\":28,");
    }

    @Test
    void aFailedCounterRecordShowsItsErrorAndTheUnknownRecordAfterItKeepsItsBytes() throws Exception {
        json(datagram(1, 1000, counterSample(1, record(CounterRecords.IF_COUNTERS, new int[22]))), 0);
        String j = json(datagram(2, 2000, counterSample(2, record(CounterRecords.IF_COUNTERS, 7, 6),
                record(SflowFormats.dataFormat(0, 999), 0x0badcafe),
                record(CounterRecords.PROCESSOR, 1, 2, 3, 0, 4, 0, 5),
                record(CounterRecords.PROCESSOR, 6, 7, 8, 0, 9, 0, 10))), 0);
        assertThat(j).contains("{\"data_format\":\"0:1\",\"record_type\":\"if_counters\",\"error\":{\"kind\":"
                + "\"TRUNCATED\",\"field\":\"if_counters.");
        assertThat(j).contains("{\"data_format\":\"0:999\",\"record_type\":\"unknown\",\"length\":4,"
                + "\"data\":\"0badcafe\"}");
        assertThat(j).contains("{\"data_format\":\"0:1001\",\"record_type\":\"processor\",\"superseded\":true},"
                + "{\"data_format\":\"0:1001\",\"record_type\":\"processor\",\"cpu5s\":6,");
        assertThat(j).doesNotContain("if_in_octets").contains("\"record_errors\":1");
    }

    /** @return a sampled_header record (header_protocol 1 = Ethernet) holding {@code header}, padded to 4 bytes. */
    public static byte[] sampledHeader(int frameLength, byte[] header) {
        int padded = (header.length + 3) / 4 * 4;
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8 + 16 + padded);
        b.putInt(SflowFormats.SAMPLED_HEADER).putInt(16 + padded).putInt(1).putInt(frameLength).putInt(4)
                .putInt(header.length).put(header);
        return b.array();
    }

    /** The "decoded" object of the first sampled_header in {@code json}. */
    private static com.fasterxml.jackson.databind.JsonNode decoded(String json) throws Exception {
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(json).at("/samples/0/records/0/decoded");
    }

    /** Ethernet + IPv4 (20 bytes) + TCP 40000 → 80 SYN, as in the packet module's LLC/SNAP test without LLC. */
    private static final byte[] TCP_FRAME = java.util.HexFormat.of().parseHex("0200000000020200000000010800"
            + "45000028123440004006149a0a0000010a000002" + "9c40005000000001000000005002ffff00000000");

    @Test
    void u64CountersArePrintedUnsigned() throws Exception {
        int[] w = new int[22]; // if_counters: ifSpeed u64 at words 2-3, ifInOctets u64 at 6-7, ifOutOctets at 14-15
        w[0] = 7;
        w[2] = 0x8000_0000; // 2^63
        w[6] = -1;
        w[7] = -1; // all ones: "unknown"
        w[14] = 0x1234_5678;
        w[15] = 0x9ABC_DEF0;
        String j = json(datagram(1, 1000, counterSample(1, record(CounterRecords.IF_COUNTERS, w))), 0);
        assertThat(j).contains("\"if_speed\":9223372036854775808,").contains("\"in_octets\":18446744073709551615,")
                .contains("\"out_octets\":1311768467463790320,").doesNotContain("\":-");
        var node = new com.fasterxml.jackson.databind.ObjectMapper().readTree(j).at("/samples/0/records/0/in_octets");
        assertThat(node.bigIntegerValue()).isEqualTo(new java.math.BigInteger("18446744073709551615"));
    }

    @Test
    void fieldsOfLayersACutHeaderDoesNotHoldAreLeftOut() throws Exception {
        var full = decoded(json(datagram(1, 1000, flowSample(1, sampledHeader(64, TCP_FRAME))), 0));
        assertThat(full.path("src_port").asInt()).isEqualTo(40000);
        assertThat(full.path("tcp_flags").asInt()).isEqualTo(2);

        // 3 bytes of TCP: the protocol is known, the ports are not.
        var cut3 = decoded(json(datagram(1, 1000, flowSample(1, sampledHeader(64,
                java.util.Arrays.copyOf(TCP_FRAME, 37)))), 0));
        assertThat(cut3.path("status").asText()).isEqualTo("TRUNCATED");
        assertThat(cut3.path("protocol").asInt()).isEqualTo(6);
        assertThat(cut3.has("src_port")).as(cut3.toString()).isFalse();
        assertThat(cut3.has("dst_port")).isFalse();
        assertThat(cut3.has("tcp_flags")).isFalse();
        // 13 bytes of TCP: ports, no flags (byte 13).
        var cut13 = decoded(json(datagram(1, 1000, flowSample(1, sampledHeader(64,
                java.util.Arrays.copyOf(TCP_FRAME, 47)))), 0));
        assertThat(cut13.path("dst_port").asInt()).isEqualTo(80);
        assertThat(cut13.has("tcp_flags")).as(cut13.toString()).isFalse();
        // ICMP with 1 byte of its header: no type (0 would read as an echo reply), no code.
        byte[] icmp = java.util.Arrays.copyOf(TCP_FRAME, 35);
        icmp[23] = 1;
        var cutIcmp = decoded(json(datagram(1, 1000, flowSample(1, sampledHeader(64, icmp))), 0));
        assertThat(cutIcmp.path("protocol").asInt()).isEqualTo(1);
        assertThat(cutIcmp.has("icmp_type")).as(cutIcmp.toString()).isFalse();
        assertThat(cutIcmp.has("icmp_code")).isFalse();
        // 10 bytes: not even the Ethernet header: no MACs, no EtherType.
        var cut10 = decoded(json(datagram(1, 1000, flowSample(1, sampledHeader(64,
                java.util.Arrays.copyOf(TCP_FRAME, 10)))), 0));
        assertThat(cut10.path("status").asText()).isEqualTo("TRUNCATED");
        assertThat(cut10.has("src_mac")).as(cut10.toString()).isFalse();
        assertThat(cut10.has("dst_mac")).isFalse();
        assertThat(cut10.has("ethertype")).isFalse();
    }

    @Test
    void anLlcSnapFrameIsDecodedToIp() throws Exception {
        byte[] snap = java.util.HexFormat.of().parseHex("0200000000020200000000010030aaaa030000000800"
                + "45000028123440004006149a0a0000010a000002" + "9c40005000000001000000005002ffff00000000");
        var d = decoded(json(datagram(1, 1000, flowSample(1, sampledHeader(66, snap))), 0));
        assertThat(d.path("status").asText()).isEqualTo("OK");
        assertThat(d.path("llc_snap").asBoolean()).as(d.toString()).isTrue();
        assertThat(d.path("ethertype").asInt()).isEqualTo(0x0800);
        assertThat(d.path("src_ip").asText()).isEqualTo("10.0.0.1");
        assertThat(d.path("dst_ip").asText()).isEqualTo("10.0.0.2");
        assertThat(d.path("src_port").asInt()).isEqualTo(40000);
        assertThat(d.path("dst_port").asInt()).isEqualTo(80);
    }

    @Test
    void aSampleThatFailsInsideItsLengthShowsItsErrorAndTheNextSampleFollows() throws Exception {
        // sample 1 at 28 (64 bytes); sample 2 at 92, its record's length word at 136 declares 100 bytes.
        byte[] d = datagram(1, 1000, flowSample(1, record(SWITCH, 10, 1, 11, 2)),
                flowSample(2, recordWithLength(SWITCH, 100, 10, 1, 11, 2)), flowSample(3, record(SWITCH, 5, 6, 7, 8)));
        String j = json(d, 9);
        assertThat(j).contains("{\"sample_type\":\"flow_sample\",\"data_format\":\"0:1\",\"offset\":92,\"length\":56,"
                + "\"sequence_number\":2,\"source_id_type\":0,\"source_id_index\":7,\"error\":{\"kind\":"
                + "\"LENGTH_OUT_OF_BOUNDS\",\"field\":\"flow_record.length\",\"offset\":136,\"value\":100}}");
        var tree = new com.fasterxml.jackson.databind.ObjectMapper().readTree(j);
        assertThat(tree.path("samples")).hasSize(3);
        assertThat(tree.at("/samples/2/sequence_number").asInt()).isEqualTo(3);
        assertThat(tree.at("/samples/2/records/0/src_vlan").asInt()).isEqualTo(5);
        assertThat(tree.has("error")).as("the datagram reached its end").isFalse();
        assertThat(writer.sampleErrors()).isEqualTo(1);
        assertThat(tree.at("/datagram/incomplete").isMissingNode()).isTrue();

        // Cut 4 bytes short, the datagram says so up front and at its end.
        String cut = json(java.util.Arrays.copyOf(d, d.length - 4), 0);
        var t2 = new com.fasterxml.jackson.databind.ObjectMapper().readTree(cut);
        assertThat(t2.at("/datagram/incomplete").asBoolean()).isTrue();
        assertThat(t2.at("/error/kind").asText()).isEqualTo("LENGTH_OUT_OF_BOUNDS");
        assertThat(t2.path("samples")).hasSize(2);
    }
}
