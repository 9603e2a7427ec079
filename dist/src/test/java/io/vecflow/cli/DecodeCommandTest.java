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
}
