package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * pmacct's sfacctd, receiving the very datagrams our agent sent, reports the same flows (packets and bytes per
 * 5-tuple) as our collector stored.
 */
class SfacctdJudgeTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void sfacctdReportsTheSameFlows() throws Exception {
        Demo.Options o = new Demo.Options();
        o.loops = 2;
        o.samplingRate = 1;
        o.out = dir.resolve("demo");
        o.collectorPort = 0;
        Demo.Result r = Demo.run(o, new PrintStream(new ByteArrayOutputStream()));
        List<byte[]> datagrams = Datagrams.payloads(r.datagramsPcap());
        assertThat(datagrams).hasSize((int) r.agentDatagramsSent());

        // Our flows, from the collector's rows: packets (samples, not renormalised) and bytes (frame_length).
        Map<String, long[]> ours = new HashMap<>();
        long nonIp = 0;
        for (String line : Files.readAllLines(o.out.resolve("flows.jsonl"))) {
            JsonNode j = JSON.readTree(line);
            if (j.get("src_addr").asText().isEmpty()) {
                nonIp++;
                continue;
            }
            String k = String.join(",", j.get("src_addr").asText(), j.get("dst_addr").asText(),
                    j.get("src_port").asText(), j.get("dst_port").asText(), j.get("protocol").asText());
            long[] v = ours.computeIfAbsent(k, x -> new long[2]);
            v[0]++;
            v[1] += j.get("frame_length").asLong();
        }

        Map<String, long[]> theirs = runSfacctd(datagrams);

        // sfacctd does not report non-IP samples, nor IP inside an Ethernet pseudowire (MPLS + control word),
        // which tshark and vecflow both decode. Count those in the capture with tshark (a third judge).
        long pseudowire = TestEnv.run(List.of(TestEnv.tool("tshark", "tshark"), "-r", TestEnv.capture().toString(),
                "-Y", "pwethcw && ip", "-T", "fields", "-e", "frame.number"), 60).size();
        assertThat(pseudowire).isPositive();
        Map<String, long[]> onlyOurs = new HashMap<>(ours);
        long onlyOursPackets = 0;
        for (var e : theirs.entrySet()) {
            long[] mine = onlyOurs.remove(e.getKey());
            assertThat(mine).as("flow %s reported by sfacctd", e.getKey()).isNotNull();
            assertThat(mine).as("packets and bytes of %s", e.getKey()).containsExactly(e.getValue());
        }
        for (long[] v : onlyOurs.values()) {
            onlyOursPackets += v[0];
        }
        assertThat(onlyOursPackets).as("flows sfacctd cannot see: pseudowire traffic only")
                .isEqualTo(2 * pseudowire);
        assertThat(nonIp).isPositive();
        long theirPackets = theirs.values().stream().mapToLong(v -> v[0]).sum();
        assertThat(theirPackets + onlyOursPackets + nonIp).isEqualTo(2 * 179);
    }

    /** Sends the datagrams to a private sfacctd (print plugin, CSV, numeric protocols) and reads its flows. */
    private Map<String, long[]> runSfacctd(List<byte[]> datagrams) throws Exception {
        String sfacctd = TestEnv.tool("sfacctd", "pmacct");
        int port;
        try (DatagramSocket probe = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        Path csv = dir.resolve("sfacctd.csv");
        Path conf = dir.resolve("sfacctd.conf");
        Files.writeString(conf, """
                daemonize: false
                logfile: %s
                sfacctd_ip: 127.0.0.1
                sfacctd_port: %d
                sfacctd_renormalize: false
                plugins: print[p]
                aggregate[p]: src_host, dst_host, src_port, dst_port, proto
                print_num_protos[p]: true
                print_output[p]: csv
                print_output_file[p]: %s
                print_refresh_time[p]: 3600
                """.formatted(dir.resolve("sfacctd.log"), port, csv));
        Process p = new ProcessBuilder(sfacctd, "-f", conf.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("sfacctd.out").toFile()).start();
        try {
            PeerJudges.waitUdp(port);
            try (DatagramSocket s = new DatagramSocket()) {
                InetAddress lo = InetAddress.getLoopbackAddress();
                for (byte[] d : datagrams) {
                    s.send(new DatagramPacket(d, d.length, lo, port));
                    Thread.sleep(1); // sfacctd's default socket buffer; no need to race it
                }
            }
            PeerJudges.awaitRead(port); // sfacctd has read every datagram
        } finally {
            // SIGINT makes sfacctd flush its print cache and exit.
            new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("sfacctd did not exit on SIGINT");
            }
        }
        assertThat(csv).as("sfacctd output; log: " + dir.resolve("sfacctd.log")).exists();
        List<String> lines = Files.readAllLines(csv);
        assertThat(lines.getFirst()).isEqualTo("SRC_IP,DST_IP,SRC_PORT,DST_PORT,PROTOCOL,PACKETS,BYTES");
        Map<String, long[]> m = new HashMap<>();
        for (String l : lines.subList(1, lines.size())) {
            String[] f = l.split(",");
            long[] v = m.computeIfAbsent(String.join(",", f[0], f[1], f[2], f[3], f[4]), x -> new long[2]);
            v[0] += Long.parseLong(f[5]);
            v[1] += Long.parseLong(f[6]);
        }
        return m;
    }
}
