package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.common.IpAddresses;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * pmacct's sfacctd and nfdump's sfcapd as judges: starting them on loopback, reading what they recorded, and what
 * vecflow's rows should look like in each one's terms (aggregation key and byte rule). Shared by
 * {@link PeerCaptureJudgeTest} and {@link ForwardJudgeTest}.
 */
final class PeerJudges {
    private PeerJudges() {}

    static final Path DIR = Path.of("..", "testdata", "sflow");

    /** A row sink that keeps copies. */
    static final class Keep implements FlowSink {
        final List<FlowRow> rows = new ArrayList<>();

        @Override
        public synchronized void accept(FlowRow row) {
            rows.add(new FlowRow().copyFrom(row));
        }

        @Override
        public void flush() {}

        @Override
        public synchronized long rowsWritten() {
            return rows.size();
        }

        @Override
        public long rowsFailed() {
            return 0;
        }

        @Override
        public String name() {
            return "keep";
        }

        @Override
        public void close() {}
    }

    /** A running judge: the process and where it writes (sfacctd: the CSV file; sfcapd: the directory). */
    record Judge(Process process, int port, Path output) {}

    static int freePort() throws Exception {
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static void waitUdp(int port) throws Exception {
        String hex = String.format(":%04X ", port);
        long end = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < end) {
            if (Files.readString(Path.of("/proc/net/udp")).contains(hex)
                    || Files.readString(Path.of("/proc/net/udp6")).contains(hex)) {
                Thread.sleep(200);
                return;
            }
            Thread.sleep(50);
        }
        fail("nothing bound udp port " + port);
    }

    /**
     * Waits (≤ 30 s) until every socket bound to UDP {@code port} has read all it was sent: its {@code rx_queue} in
     * {@code /proc/net/udp}/{@code udp6} reads 0 twice, 50 ms apart. An event, not a fixed pause: on a stalled machine
     * the judge gets the time it needs, and a judge that stopped reading fails here with its queue size. Also fails if
     * the kernel dropped datagrams for the port (the {@code drops} column): the judge would then miss rows.
     */
    static void awaitRead(int port) throws Exception {
        String suffix = String.format(":%04X", port);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int empty = 0;
        long queued = -1;
        while (System.nanoTime() < end) {
            queued = 0;
            long drops = 0;
            for (String t : new String[] {"/proc/net/udp", "/proc/net/udp6"}) {
                List<String> lines = Files.readAllLines(Path.of(t));
                for (int i = 1; i < lines.size(); i++) {
                    String[] f = lines.get(i).trim().split("\\s+");
                    if (f.length >= 13 && f[1].endsWith(suffix)) {
                        queued += Long.parseLong(f[4].substring(f[4].indexOf(':') + 1), 16);
                        drops += Long.parseLong(f[12]);
                    }
                }
            }
            assertThat(drops).as("datagrams the kernel dropped for udp port %d", port).isZero();
            empty = queued == 0 ? empty + 1 : 0;
            if (empty == 2) {
                return;
            }
            Thread.sleep(50);
        }
        fail("udp port " + port + " still has " + queued + " bytes queued after 30 s");
    }

    static void stop(Process p, String signal) throws Exception {
        new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start().waitFor();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("did not exit on SIG" + signal + ": " + p.info().commandLine().orElse(""));
        }
    }

    /** Every UDP payload of every sFlow capture, and vecflow's decode JSON of each (for the byte rules). */
    static List<byte[]> datagrams(List<JsonNode> decoded) throws Exception {
        List<byte[]> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(DIR)) {
            for (Path cap : s.filter(x -> x.toString().endsWith(".pcap")).sorted().toList()) {
                for (byte[] d : SflowCaptures.udpPayloads(cap)) {
                    out.add(d);
                }
                decoded.addAll(TsharkCaptureJudgeTest.ours(cap).values());
            }
        }
        return out;
    }

    /** Starts sfacctd on 127.0.0.1 at a free port, printing per-flow CSV (no renormalisation) at exit. */
    static Judge startSfacctd(Path tmp) throws Exception {
        int port = freePort();
        Path csv = tmp.resolve("sfacctd.csv");
        Path conf = tmp.resolve("sfacctd.conf");
        Files.writeString(conf, """
                daemonize: false
                logfile: %s
                sfacctd_ip: 127.0.0.1
                sfacctd_port: %d
                sfacctd_renormalize: false
                plugins: print[p]
                aggregate[p]: peer_src_ip, in_iface, out_iface, src_mac, dst_mac, vlan, src_host, dst_host, \
                src_port, dst_port, proto
                print_num_protos[p]: true
                print_output[p]: csv
                print_output_file[p]: %s
                print_refresh_time[p]: 3600
                """.formatted(tmp.resolve("sfacctd.log"), port, csv));
        Process p = new ProcessBuilder(TestEnv.tool("sfacctd", "pmacct"), "-f", conf.toString())
                .redirectErrorStream(true).redirectOutput(tmp.resolve("sfacctd.out").toFile()).start();
        return new Judge(p, port, csv);
    }

    /** Starts sfcapd on 127.0.0.1 at a free port, writing nfcapd files (rotated hourly) into a new directory. */
    static Judge startSfcapd(Path tmp) throws Exception {
        int port = freePort();
        Path dir = Files.createDirectories(tmp.resolve("nf"));
        Process p = new ProcessBuilder(TestEnv.tool("sfcapd", "nfdump-sflow"), "-b", "127.0.0.1", "-p",
                Integer.toString(port), "-w", dir.toString(), "-t", "3600").redirectErrorStream(true)
                .redirectOutput(tmp.resolve("sfcapd.out").toFile()).start();
        return new Judge(p, port, dir);
    }

    /** Stops sfacctd (SIGINT: it prints its CSV) and sfcapd (SIGTERM: it closes its file), waiting for both. */
    static void stopBoth(Judge sfacctd, Judge sfcapd) throws Exception {
        try {
            stop(sfacctd.process(), "INT");
        } finally {
            stop(sfcapd.process(), "TERM");
        }
    }

    /**
     * vecflow's flow rows aggregated as each judge aggregates: [0] sfacctd's key (renormalisation off: packets =
     * samples), [1] nfdump's key (interface values only, SVlan/DVlan, counts scaled by the sampling rate). Bytes per
     * sample follow the judges' rule: sampled_ipv4/ipv6 length when present, else frame_length (vecflow's own Bytes is
     * the L3 length; see FlowRow), taken from vecflow's decode JSON by (agent, sample sequence).
     */
    static List<Map<String, long[]>> expected(List<FlowRow> rows, List<JsonNode> decoded) {
        Map<String, Long> peerBytes = new HashMap<>();
        for (JsonNode d : decoded) {
            if (!d.has("samples")) {
                continue;
            }
            String agent = d.at("/datagram/agent_address").asText();
            for (JsonNode smp : d.get("samples")) {
                if (!smp.get("sample_type").asText().startsWith("flow_sample")) {
                    continue;
                }
                long bytes = 0;
                for (JsonNode r : smp.get("records")) {
                    String t = r.path("record_type").asText();
                    if (t.equals("sampled_header") && bytes == 0) {
                        bytes = r.get("frame_length").asLong();
                    }
                    if (t.equals("sampled_ipv4") || t.equals("sampled_ipv6")) {
                        bytes = r.get("length").asLong();
                    }
                }
                peerBytes.put(agent + "/" + smp.get("sequence_number").asLong(), bytes);
            }
        }
        Map<String, long[]> ours = new TreeMap<>();
        Map<String, long[]> oursNf = new TreeMap<>();
        for (FlowRow r : rows) {
            String agent = IpAddresses.toString(r.agentAddress, 0, 16);
            long in = r.inIfFormat != 0 ? (long) r.inIfFormat << 30 | r.inIf : r.inIf;
            long out = r.outIfFormat != 0 ? (long) r.outIfFormat << 30 | r.outIf : r.outIf;
            boolean icmp = r.protocol == 1 || r.protocol == 58;
            String key = String.join(",", mac(r.srcMac), mac(r.dstMac), Integer.toString(r.vlan),
                    agent, Long.toString(in), Long.toString(out), IpAddresses.toString(r.srcAddr, 0, 16),
                    IpAddresses.toString(r.dstAddr, 0, 16), Integer.toString(icmp ? 0 : r.srcPort),
                    Integer.toString(icmp ? 0 : r.dstPort), Integer.toString(r.protocol));
            long bytes = peerBytes.get(agent + "/" + r.sampleSequence);
            long[] v = ours.computeIfAbsent(key, k -> new long[2]);
            v[0]++;
            v[1] += bytes;
            String nkey = String.join(",", Integer.toString(r.protocol), Long.toString(r.inIf),
                    Long.toString(r.outIf), IpAddresses.toString(r.srcAddr, 0, 16),
                    IpAddresses.toString(r.dstAddr, 0, 16), icmp ? "-" : Integer.toString(r.srcPort),
                    icmp ? "-" : Integer.toString(r.dstPort), mac(r.srcMac), mac(r.dstMac),
                    Integer.toString(r.inVlan), Integer.toString(r.outVlan));
            long[] n = oursNf.computeIfAbsent(nkey, k -> new long[2]);
            n[0] += r.samplingRate;
            n[1] += bytes * r.samplingRate;
        }
        return List.of(ours, oursNf);
    }

    /** What sfacctd printed, keyed as {@link #expected}[0]. */
    static Map<String, long[]> sfacctd(Path csv) throws Exception {
        List<String> lines = Files.readAllLines(csv);
        assertThat(lines.getFirst()).isEqualTo("SRC_MAC,DST_MAC,VLAN,PEER_SRC_IP,IN_IFACE,OUT_IFACE,SRC_IP,DST_IP,"
                + "SRC_PORT,DST_PORT,PROTOCOL,PACKETS,BYTES");
        Map<String, long[]> pmacct = new TreeMap<>();
        for (String l : lines.subList(1, lines.size())) {
            String[] f = l.split(",");
            long[] v = pmacct.computeIfAbsent(String.join(",", List.of(f).subList(0, 11)), k -> new long[2]);
            v[0] += Long.parseLong(f[11]);
            v[1] += Long.parseLong(f[12]);
        }
        return pmacct;
    }

    /** What sfcapd stored, read back with nfdump (numeric protocols, full IPv6 addresses), keyed as [1]. */
    static Map<String, long[]> sfcapd(Path dir) throws Exception {
        List<String> nfLines = TestEnv.run(List.of(TestEnv.tool("nfdump", "nfdump-sflow"), "-R", dir.toString(),
                "-6", "-N", "-q", "-o", "fmt:%pr|%ipkt|%ibyt|%in|%out|%sa|%da|%sp|%dp|%ismc|%odmc|%svln|%dvln"),
                60);
        Map<String, long[]> nfdump = new TreeMap<>();
        for (String l : nfLines) {
            String[] f = l.split("\\|");
            for (int i = 0; i < f.length; i++) {
                f[i] = f[i].trim();
            }
            boolean icmp = f[0].equals("1") || f[0].equals("58");
            String key = String.join(",", f[0], f[3], f[4], f[5], f[6], icmp ? "-" : f[7], icmp ? "-" : f[8], f[9],
                    f[10], f[11], f[12]);
            long[] v = nfdump.computeIfAbsent(key, k -> new long[2]);
            v[0] += Long.parseLong(f[1]);
            v[1] += Long.parseLong(f[2]);
        }
        return nfdump;
    }

    static String toText(Map<String, long[]> m) {
        StringBuilder b = new StringBuilder();
        m.forEach((k, v) -> b.append(k).append(" -> packets ").append(v[0]).append(", bytes ").append(v[1])
                .append('\n'));
        return b.toString();
    }

    /** MAC text as pmacct and nfdump print it. */
    static String mac(long m) {
        return String.format("%02x:%02x:%02x:%02x:%02x:%02x", m >>> 40 & 0xFF, m >>> 32 & 0xFF, m >>> 24 & 0xFF,
                m >>> 16 & 0xFF, m >>> 8 & 0xFF, m & 0xFF);
    }
}
