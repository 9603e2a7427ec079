package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code vecflow decode}: port validation, a final newline, and offsets counted from the sFlow datagram. */
class DecodeCommandTest {
    @TempDir
    Path dir;

    record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        CommandLine cl = VecflowCommand.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /**
     * One sFlow datagram (agent 10.0.0.1, sequence 7): a compact flow_sample (0:1) holding an extended_switch that
     * declares 14 bytes (the structure needs 16) and a good extended_router (sflow_version_5.txt layouts).
     */
    private static byte[] datagram() {
        ByteBuffer b = ByteBuffer.allocate(28 + 8 + 32 + 24 + 24);
        b.putInt(5).putInt(1).put(new byte[] {10, 0, 0, 1}).putInt(0).putInt(7).putInt(1000).putInt(1);
        b.putInt(1).putInt(32 + 24 + 24); // flow_sample, length
        b.putInt(1).putInt(7).putInt(100).putInt(1000).putInt(0).putInt(1).putInt(2).putInt(2);
        b.putInt(1001).putInt(14).putInt(10).putInt(1).putInt(11).putInt(0x02000000); // extended_switch, cut
        b.putInt(1002).putInt(16).putInt(1).put(new byte[] {10, 0, 0, (byte) 254}).putInt(24).putInt(16); // router
        return b.array();
    }

    private Path capture() throws Exception {
        Path pcap = dir.resolve("one.pcap");
        byte[] d = datagram();
        try (DatagramPcapWriter w = new DatagramPcapWriter(pcap, InetAddress.getByName("10.0.0.1"), 50000)) {
            w.onDatagram(d, d.length, new InetSocketAddress("127.0.0.1", 6343), true);
        }
        return pcap;
    }

    @Test
    void portOutOfRangeIsAUsageError() throws Exception {
        Path pcap = capture();
        for (String port : new String[] {"0", "70000", "-1"}) {
            Run r = run("decode", pcap.toString(), "--port", port);
            assertThat(r.exit()).as("--port %s", port).isEqualTo(2);
            assertThat(r.err()).isEqualTo("vecflow decode: --port " + port + " is out of range: need 1..65535\n");
            assertThat(r.out()).isEmpty();
        }
        assertThat(run("decode", pcap.toString(), "--port", "6343", "--json").exit()).isZero();
        assertThat(run("decode", "--help").out()).contains("1..65535").contains("start of the sFlow datagram");
    }

    @Test
    void offsetsCountFromTheSflowDatagramAndStdoutEndsWithANewline() throws Exception {
        Path pcap = capture();
        for (String[] args : new String[][] {{"decode", pcap.toString(), "--json"}, {"decode", pcap.toString()}}) {
            Run r = run(args);
            assertThat(r.exit()).isZero();
            assertThat(r.out()).endsWith("}\n");
            assertThat(r.err()).startsWith(pcap + ": 1 frames, 1 UDP datagrams decoded, 0 with errors");
            JsonNode d = new ObjectMapper().readTree(r.out());
            JsonNode sample = d.path("samples").get(0);
            assertThat(sample.path("offset").asInt()).as("the sample starts right after the 28-byte header")
                    .isEqualTo(28);
            JsonNode sw = sample.path("records").get(0);
            assertThat(sw.path("record_type").asText()).isEqualTo("extended_switch");
            assertThat(sw.has("src_vlan")).isFalse();
            assertThat(sw.path("error").path("kind").asText()).isEqualTo("TRUNCATED");
            assertThat(sw.path("error").path("field").asText()).isEqualTo("extended_switch.dst_priority");
            assertThat(sw.path("error").path("offset").asInt()).as("28 + 8 + 32 + 8 + 12").isEqualTo(88);
            assertThat(sample.path("records").get(1).path("nexthop").asText()).isEqualTo("10.0.0.254");
        }
        Run none = run("decode", pcap.toString(), "--port", "9");
        assertThat(none.out()).isEmpty();
        assertThat(none.err()).contains("0 UDP datagrams decoded");
    }

    /** A compact flow_sample (0:1) of source 0:7, 1-in-100, holding the given records. */
    private static byte[] flowSample(int sequence, byte[]... records) {
        int body = 32;
        for (byte[] r : records) {
            body += r.length;
        }
        ByteBuffer b = ByteBuffer.allocate(8 + body).putInt(1).putInt(body).putInt(sequence).putInt(7).putInt(100)
                .putInt(1000).putInt(0).putInt(1).putInt(2).putInt(records.length);
        for (byte[] r : records) {
            b.put(r);
        }
        return b.array();
    }

    /** A sampled_header record (0:1, header_protocol 1 = Ethernet, stripped 4) holding {@code header}. */
    private static byte[] sampledHeader(byte[] header) {
        int padded = (header.length + 3) / 4 * 4;
        return ByteBuffer.allocate(8 + 16 + padded).putInt(1).putInt(16 + padded).putInt(1)
                .putInt(header.length + 4).putInt(4).putInt(header.length).put(header).array();
    }

    private static byte[] datagram(int sequence, byte[]... samples) {
        int n = 28;
        for (byte[] x : samples) {
            n += x.length;
        }
        ByteBuffer b = ByteBuffer.allocate(n);
        b.putInt(5).putInt(1).put(new byte[] {10, 0, 0, 1}).putInt(0).putInt(sequence).putInt(1000)
                .putInt(samples.length);
        for (byte[] x : samples) {
            b.put(x);
        }
        return b.array();
    }

    private Path capture(String name, byte[]... datagrams) throws Exception {
        Path pcap = dir.resolve(name);
        try (DatagramPcapWriter w = new DatagramPcapWriter(pcap, InetAddress.getByName("10.0.0.1"), 50000)) {
            for (byte[] d : datagrams) {
                w.onDatagram(d, d.length, new InetSocketAddress("127.0.0.1", 6343), true);
            }
        }
        return pcap;
    }

    /** Ethernet + IPv4 10.0.0.1 → 10.0.0.2 + TCP 40000 → 80 SYN (62 bytes with the LLC/SNAP header below). */
    private static final String IP_TCP = "45000028123440004006149a0a0000010a000002"
            + "9c40005000000001000000005002ffff00000000";

    @Test
    void jsonHasUnsignedCountersOnlyTheHeaderFieldsCapturedLlcSnapIpAndGoesPastABadSample() throws Exception {
        // Datagram 1: a counters_sample (0:2) whose if_counters has ifInOctets all ones (u64 "unknown").
        ByteBuffer counters = ByteBuffer.allocate(8 + 12 + 8 + 88).putInt(2).putInt(12 + 8 + 88).putInt(1).putInt(7)
                .putInt(1).putInt(1).putInt(88).putInt(7).putInt(6).putLong(10_000_000_000L).putInt(1).putInt(3)
                .putLong(-1L);
        // Datagram 2: a header cut 3 bytes into TCP; a sample whose record declares 100 bytes (the sample holds 16);
        // an 802.3 frame with an LLC/SNAP header carrying IPv4.
        byte[] cut = java.util.HexFormat.of().parseHex("0200000000020200000000010800" + IP_TCP.substring(0, 46));
        byte[] badRecord = ByteBuffer.allocate(24).putInt(1001).putInt(100).putInt(1).putInt(2).putInt(3).putInt(4)
                .array();
        byte[] snap = java.util.HexFormat.of().parseHex("0200000000020200000000010030aaaa030000000800" + IP_TCP);
        Path pcap = capture("more.pcap", datagram(1, counters.array()), datagram(2,
                flowSample(10, sampledHeader(cut)), flowSample(11, badRecord), flowSample(12, sampledHeader(snap))));
        Run r = run("decode", pcap.toString(), "--json");
        assertThat(r.exit()).isZero();
        assertThat(r.err()).startsWith(pcap + ": 2 frames, 2 UDP datagrams decoded, 0 with errors, "
                + "1 samples with errors {LENGTH_OUT_OF_BOUNDS=1}");
        List<JsonNode> lines = new ArrayList<>();
        for (String line : r.out().split("\n")) {
            lines.add(new ObjectMapper().readTree(line));
        }
        assertThat(lines).hasSize(2);
        JsonNode ifc = lines.get(0).at("/samples/0/records/0");
        assertThat(ifc.path("record_type").asText()).isEqualTo("if_counters");
        assertThat(ifc.path("if_speed").asLong()).isEqualTo(10_000_000_000L);
        assertThat(ifc.path("in_octets").bigIntegerValue()).isEqualTo(new java.math.BigInteger("18446744073709551615"));
        assertThat(r.out()).contains("\"in_octets\":18446744073709551615,");

        JsonNode samples = lines.get(1).path("samples");
        assertThat(samples).hasSize(3);
        JsonNode short1 = samples.get(0).at("/records/0/decoded");
        assertThat(short1.path("status").asText()).isEqualTo("TRUNCATED");
        assertThat(short1.path("protocol").asInt()).isEqualTo(6);
        assertThat(short1.has("src_port") || short1.has("dst_port") || short1.has("tcp_flags")).as(short1.toString())
                .isFalse();
        JsonNode bad = samples.get(1);
        assertThat(bad.path("sequence_number").asInt()).isEqualTo(11);
        assertThat(bad.has("records")).isFalse();
        assertThat(bad.at("/error/kind").asText()).isEqualTo("LENGTH_OUT_OF_BOUNDS");
        assertThat(bad.at("/error/field").asText()).isEqualTo("flow_record.length");
        // header 28, sample 1 (8 + 32 + a sampled_header record of 8 + 16 + 40), sample 2's header and fields
        // (8 + 32), then the record's length word (+ 4)
        assertThat(bad.at("/error/offset").asInt()).isEqualTo(28 + 8 + 32 + 8 + 16 + 40 + 8 + 32 + 4);
        assertThat(bad.at("/error/value").asInt()).isEqualTo(100);
        JsonNode llc = samples.get(2).at("/records/0/decoded");
        assertThat(llc.path("status").asText()).isEqualTo("OK");
        assertThat(llc.path("llc_snap").asBoolean()).isTrue();
        assertThat(llc.path("ethertype").asInt()).isEqualTo(0x0800);
        assertThat(llc.path("src_ip").asText()).isEqualTo("10.0.0.1");
        assertThat(llc.path("dst_port").asInt()).isEqualTo(80);
        assertThat(lines.get(1).has("error")).isFalse();
    }
    /**
     * The agent's host sample with the MIB-II groups (built from a test /proc: net/snmp values written below) through
     * {@code vecflow decode --json}: every group decodes as its record type, values field by field, and the
     * host_descr uuid is the one hsflowd would build from the test machine id (bytes worked out by hand:
     * FNV-1a halves c2d54a73 / 7e59fdbb, little-endian, version 5, variant 10).
     */
    @Test
    void hostSampleWithMib2GroupsDecodesFieldByField() throws Exception {
        Path proc = java.nio.file.Files.createDirectories(dir.resolve("proc/net"));
        java.nio.file.Files.writeString(proc.resolve("snmp"), """
                Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams InUnknownProtos \
                InDiscards InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout ReasmReqds ReasmOKs ReasmFails \
                FragOKs FragFails FragCreates OutTransmits
                Ip: 1 64 5207 1 2 3 4 5 5100 4380 6 7 8 9 10 11 12 13 14 4380
                Icmp: InMsgs InErrors InCsumErrors InDestUnreachs InTimeExcds InParmProbs InSrcQuenchs InRedirects \
                InEchos InEchoReps InTimestamps InTimestampReps InAddrMasks InAddrMaskReps OutMsgs OutErrors \
                OutRateLimitGlobal OutRateLimitHost OutDestUnreachs OutTimeExcds OutParmProbs OutSrcQuenchs \
                OutRedirects OutEchos OutEchoReps OutTimestamps OutTimestampReps OutAddrMasks OutAddrMaskReps
                Icmp: 21 1 0 17 0 0 0 0 3 0 0 0 0 0 30 0 0 0 25 0 0 0 0 0 5 0 0 0 0
                Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab \
                InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors
                Tcp: 1 200 120000 -1 54 5 14 0 9 5174 4348 2 0 58 0
                Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti \
                MemErrors
                Udp: 32 4 0 33 0 0 0 0 0
                """);
        Path sys = java.nio.file.Files.createDirectories(dir.resolve("sys"));
        Path mid = java.nio.file.Files.writeString(dir.resolve("machine-id"), "3d1219c7c4c5404aaa1f6d2a48adfda4\n");
        io.vecflow.hsflowd.counters.HostCounters host =
                new io.vecflow.hsflowd.counters.HostCounters(dir.resolve("proc"), sys, mid);
        io.vecflow.sflow.CounterSample cs = new io.vecflow.sflow.CounterSample();
        host.fill(new io.vecflow.hsflowd.counters.LinkTable(), 3, cs);
        io.vecflow.sflow.XdrWriter w = new io.vecflow.sflow.XdrWriter(4096);
        assertThat(io.vecflow.sflow.CounterSampleEncoder.encode(cs, w)).isTrue();
        Run r = run("decode", capture("host.pcap", datagram(1, java.util.Arrays.copyOf(w.buffer(), w.position())))
                .toString(), "--json");
        assertThat(r.exit()).isZero();
        JsonNode sample = new ObjectMapper().readTree(r.out()).path("samples").get(0);
        assertThat(sample.path("source_id_type").asInt()).isEqualTo(2);
        List<String> types = new ArrayList<>();
        java.util.Map<String, JsonNode> byType = new java.util.HashMap<>();
        for (JsonNode rec : sample.path("records")) {
            types.add(rec.path("record_type").asText());
            byType.put(rec.path("record_type").asText(), rec);
            assertThat(rec.has("error")).as(rec.toString()).isFalse();
        }
        // no /proc/net/dev and no interfaces here: host_net_io is left out, as hsflowd does
        assertThat(types).containsExactly("host_adapters", "mib2_udp_group", "mib2_tcp_group", "mib2_icmp_group",
                "mib2_ip_group", "host_descr");
        JsonNode ip = byType.get("mib2_ip_group");
        assertThat(ip.path("ip_forwarding").asLong()).isEqualTo(1);
        assertThat(ip.path("ip_in_receives").asLong()).isEqualTo(5207);
        assertThat(ip.path("ip_in_delivers").asLong()).isEqualTo(5100);
        assertThat(ip.path("ip_frag_creates").asLong()).isEqualTo(14);
        JsonNode icmp = byType.get("mib2_icmp_group");
        assertThat(icmp.path("icmp_in_msgs").asLong()).isEqualTo(21);
        assertThat(icmp.path("icmp_in_dest_unreachs").asLong()).isEqualTo(17);
        assertThat(icmp.path("icmp_in_echos").asLong()).isEqualTo(3);
        assertThat(icmp.path("icmp_out_msgs").asLong()).isEqualTo(30);
        assertThat(icmp.path("icmp_out_dest_unreachs").asLong()).isEqualTo(25);
        assertThat(icmp.path("icmp_out_echo_reps").asLong()).isEqualTo(5);
        JsonNode tcp = byType.get("mib2_tcp_group");
        assertThat(tcp.path("tcp_max_conn").asLong()).isEqualTo(0xFFFFFFFFL);
        assertThat(tcp.path("tcp_retrans_segs").asLong()).isEqualTo(2);
        assertThat(tcp.path("tcp_out_rsts").asLong()).isEqualTo(58);
        JsonNode udp = byType.get("mib2_udp_group");
        assertThat(udp.path("udp_in_datagrams").asLong()).isEqualTo(32);
        assertThat(udp.path("udp_no_ports").asLong()).isEqualTo(4);
        assertThat(udp.path("udp_out_datagrams").asLong()).isEqualTo(33);
        assertThat(byType.get("host_descr").path("uuid").asText()).isEqualTo("734ad5c2bbfd597eb34ad5c2bbfd097e");
    }
}
