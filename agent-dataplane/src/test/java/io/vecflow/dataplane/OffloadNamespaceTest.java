package io.vecflow.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.config.DataplaneAssembly;
import io.vecflow.dataplane.control.ControlClient;
import io.vecflow.hsflowd.dropmon.DropmonModule;
import io.vecflow.hsflowd.dropmon.DropmonSettings;
import io.vecflow.netlink.netdm.NetDmSubscriber;
import io.vecflow.netlink.netdm.NetDmTransport;
import io.vecflow.dataplane.config.DataplaneConfig;
import io.vecflow.dataplane.netns.NetnsLab;
import io.vecflow.dataplane.port.AfPacketPort;
import io.vecflow.common.NetNamespace;
import io.vecflow.dataplane.port.Port;
import io.vecflow.dataplane.port.PortCounters;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kernel TCP through the dataplane's AF_PACKET ports with the veth offloads left at their defaults (TSO, GSO, GRO and
 * checksum offload on): the Linux stacks in the end namespaces hand their veth GSO super-frames of up to 64 KiB with
 * partial checksums, which reach the ports as such. Needs root; namespaces, veths and processes are created and
 * removed here (prefix {@code vfof}, see {@link NetnsLab}).
 *
 * <pre>
 *  ns a ── a / p0 ──► ns dp (vecflow, 2 workers: l2 xconnect p0↔p1, or routed) ── p1 / b ──► ns b
 * </pre>
 *
 * A few MiB go each way over one TCP connection (IPv4, and IPv6 on the cross-connect), bounded in time; the bytes are
 * compared by SHA-256.
 */
class OffloadNamespaceTest {
    private static final int TRANSFER_BYTES = 4 << 20;
    private static final int TCP_PORT = 5001;
    private static final long TRANSFER_TIMEOUT_S = 40;
    private static final String MAC_A = "02:00:00:00:0f:0a", MAC_B = "02:00:00:00:0f:0b";
    private static final String MAC_P0 = "02:00:00:00:0f:10", MAC_P1 = "02:00:00:00:0f:11";
    private static final int G_PSAMPLE = 27, G_NETDM = 28, G_COUNTERS = 30;

    @TempDir
    Path tmp;

    private NetnsLab lab;
    private String a, b, dp;

    @BeforeEach
    void namespaces() throws Exception {
        lab = NetnsLab.open("vfof");
        a = lab.namespace("a");
        b = lab.namespace("b");
        dp = lab.namespace("dp");
        lab.sysctl(dp, "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1");
        for (String ns : new String[] {a, b}) {
            lab.sysctl(ns, "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0");
        }
        lab.veth(a, lab.dev("a"), dp, lab.dev("p0"));
        lab.veth(b, lab.dev("b"), dp, lab.dev("p1"));
        lab.ip(a, "link", "set", lab.dev("a"), "address", MAC_A, "up");
        lab.ip(b, "link", "set", lab.dev("b"), "address", MAC_B, "up");
        lab.ip(dp, "link", "set", lab.dev("p0"), "address", MAC_P0, "up");
        lab.ip(dp, "link", "set", lab.dev("p1"), "address", MAC_P1, "up");
    }

    @AfterEach
    void remove() {
        if (lab != null) {
            lab.close();
        }
    }

    private DataplaneConfig config(String name, String body) throws IOException {
        return config(name, body, "sampling-rate: 0");
    }

    private DataplaneConfig config(String name, String body, String sflow) throws IOException {
        return config(name, body, sflow, "");
    }

    /** @param p0AfPacket more af-packet keys of port p0, e.g. {@code ", ring-block-bytes: 4096"} */
    private DataplaneConfig config(String name, String body, String sflow, String p0AfPacket) throws IOException {
        String yaml = """
                workers: 2
                ports:
                  - {name: p0, type: af_packet, if-index: 1, netns: %1$s, mac: "%3$s", mode: %5$s, af-packet: {interface: %2$sp0%12$s}}
                  - {name: p1, type: af_packet, if-index: 2, netns: %1$s, mac: "%4$s", mode: %5$s, af-packet: {interface: %2$sp1}}
                sflow:
                  %7$s
                  usersock-groups: {psample: %8$d, net-dm: %9$d, counters: %10$d}
                control-socket: %6$s
                metrics: {port: %11$d}
                """.formatted(dp, lab.dev(""), MAC_P0, MAC_P1, body.startsWith("xconnects") ? "l2" : "l3",
                tmp.resolve(name + ".sock"), sflow.replace("\n", "\n  "), G_PSAMPLE, G_NETDM, G_COUNTERS,
                freePort(), p0AfPacket) + body;
        Path f = tmp.resolve(name + ".yaml");
        Files.writeString(f, yaml);
        return DataplaneConfig.load(f);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** What one direction of a transfer carried: byte count and SHA-256. */
    record Digest(long bytes, String sha256) {}

    /** Deterministic payload: byte i = (i * 7 + i / 4093) mod 256. */
    private static void pattern(byte[] chunk, long from) {
        for (int i = 0; i < chunk.length; i++) {
            long k = from + i;
            chunk[i] = (byte) (k * 7 + k / 4093);
        }
    }

    private static Digest send(OutputStream out, long n) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        byte[] chunk = new byte[64 * 1024];
        long done = 0;
        while (done < n) {
            pattern(chunk, done);
            int k = (int) Math.min(chunk.length, n - done);
            md.update(chunk, 0, k);
            out.write(chunk, 0, k);
            done += k;
        }
        out.flush();
        return new Digest(done, HexFormat.of().formatHex(md.digest()));
    }

    private static Digest receive(InputStream in, long cap) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        byte[] buf = new byte[64 * 1024];
        long n = 0;
        for (int k; (k = in.read(buf)) > 0 && n < cap; n += k) {
            md.update(buf, 0, k);
        }
        return new Digest(n, HexFormat.of().formatHex(md.digest()));
    }

    /** Result of {@link #transfer}: what each side sent and received. */
    record Transfer(Digest upSent, Digest upReceived, Digest downSent, Digest downReceived, long millis) {}

    /**
     * Client in ns a uploads {@link #TRANSFER_BYTES} to a server in ns b, which then sends as many back; each socket
     * read times out after 10 s and the whole exchange after {@link #TRANSFER_TIMEOUT_S} s.
     */
    private Transfer transfer(String server, String bind) throws Exception {
        ServerSocket ss = NetNamespace.callIn(b, () -> {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(bind, TCP_PORT), 1);
            return s;
        });
        long start = System.nanoTime();
        // own threads: the common pool may have one thread on a small machine, and both sides block
        try (ss; ExecutorService ex = Executors.newFixedThreadPool(2)) {
            CompletableFuture<Digest[]> srv = CompletableFuture.supplyAsync(() -> {
                try (Socket c = ss.accept()) {
                    c.setSoTimeout(10_000);
                    Digest got = receive(c.getInputStream(), 2L * TRANSFER_BYTES);
                    Digest sent = send(c.getOutputStream(), TRANSFER_BYTES);
                    return new Digest[] {got, sent};
                } catch (Exception e) {
                    throw new IllegalStateException("server: " + e, e);
                }
            }, ex);
            Socket cs = NetNamespace.callIn(a, () -> {
                Socket s = new Socket();
                s.setSoTimeout(10_000);
                s.connect(new InetSocketAddress(server, TCP_PORT), 5_000);
                return s;
            });
            try (cs) {
                CompletableFuture<Digest[]> cli = CompletableFuture.supplyAsync(() -> {
                    try {
                        Digest sent = send(cs.getOutputStream(), TRANSFER_BYTES);
                        cs.shutdownOutput();
                        Digest got = receive(cs.getInputStream(), 2L * TRANSFER_BYTES);
                        return new Digest[] {sent, got};
                    } catch (Exception e) {
                        throw new IllegalStateException("client: " + e, e);
                    }
                }, ex);
                Digest[] c = cli.get(TRANSFER_TIMEOUT_S, TimeUnit.SECONDS);
                Digest[] s = srv.get(10, TimeUnit.SECONDS);
                return new Transfer(c[0], s[0], s[1], c[1], (System.nanoTime() - start) / 1_000_000);
            }
        }
    }

    private static String diagnostics(Dataplane d) {
        StringBuilder sb = new StringBuilder("show errors:\n").append(d.showErrors()).append("show interfaces:\n")
                .append(d.showInterfaces());
        for (Port p : d.interfaces().ports()) {
            if (p instanceof AfPacketPort ap) {
                sb.append(ap.name()).append(": ").append(ap.offloadSummary()).append('\n');
            }
        }
        return sb.toString();
    }

    private void assertTransferIntact(Dataplane d, String server, String bind) throws Exception {
        Transfer t;
        try {
            t = transfer(server, bind);
        } catch (Exception e) {
            throw new AssertionError("transfer to " + server + " failed: " + e + "\n" + diagnostics(d), e);
        }
        System.out.printf("offload namespace test: %s: %d + %d bytes in %d ms%n%s", server, t.upReceived().bytes(),
                t.downReceived().bytes(), t.millis(), diagnostics(d));
        assertThat(t.upReceived()).as("upload a → b").isEqualTo(t.upSent());
        assertThat(t.downReceived()).as("download b → a").isEqualTo(t.downSent());
        assertThat(t.upSent().bytes()).isEqualTo(TRANSFER_BYTES);
    }

    private static void assertSegmentedAndNothingLost(Dataplane d) {
        AfPacketPort p0 = (AfPacketPort) d.interfaces().port(1), p1 = (AfPacketPort) d.interfaces().port(2);
        // the offloads were in effect: the stacks of a and b handed their veth GSO super-frames
        assertThat(p0.gsoFramesSegmented()).as("p0 GSO super-frames cut into segments").isPositive();
        assertThat(p1.gsoFramesSegmented()).as("p1 GSO super-frames cut into segments").isPositive();
        for (AfPacketPort p : new AfPacketPort[] {p0, p1}) {
            PortCounters c = p.counters();
            assertThat(c.sum(PortCounters.RX_ERRORS)).as(p.name() + " rx errors").isZero();
            assertThat(c.sum(PortCounters.TX_ERRORS)).as(p.name() + " tx errors").isZero();
        }
        assertThat(d.showErrors().lines().count()).as("show errors: only the header\n" + d.showErrors()).isEqualTo(1);
        // nothing lost, nothing counted twice: every frame received on one port (a segment counting as a frame) went
        // out of the other, and each direction's octets agree
        System.out.printf("offload namespace test, after stop:%n%s", diagnostics(d));
        for (AfPacketPort[] io : new AfPacketPort[][] {{p0, p1}, {p1, p0}}) {
            PortCounters in = io[0].counters(), out = io[1].counters();
            assertThat(out.sum(PortCounters.TX_PACKETS)).as(io[0].name() + " rx → " + io[1].name() + " tx")
                    .isEqualTo(in.sum(PortCounters.RX_PACKETS));
            assertThat(out.sum(PortCounters.TX_DISCARDS)).isZero();
        }
    }

    @Test
    void kernelTcpWithOffloadsCrossesAnL2CrossConnectIntactOverIpv4AndIpv6() throws Exception {
        lab.address(a, lab.dev("a"), "10.31.0.1/24");
        lab.address(b, lab.dev("b"), "10.31.0.2/24");
        lab.address(a, lab.dev("a"), "fd31::1/64");
        lab.address(b, lab.dev("b"), "fd31::2/64");
        lab.ip(a, "neigh", "add", "10.31.0.2", "lladdr", MAC_B, "dev", lab.dev("a"), "nud", "permanent");
        lab.ip(b, "neigh", "add", "10.31.0.1", "lladdr", MAC_A, "dev", lab.dev("b"), "nud", "permanent");
        lab.ip(a, "-6", "neigh", "add", "fd31::2", "lladdr", MAC_B, "dev", lab.dev("a"), "nud", "permanent");
        lab.ip(b, "-6", "neigh", "add", "fd31::1", "lladdr", MAC_A, "dev", lab.dev("b"), "nud", "permanent");
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        try (DataplaneAssembly asm = DataplaneAssembly.open(config("l2", "xconnects:\n  - [p0, p1]\n"), log::add,
                true)) {
            assertThat(log).as("one line per port on what it does with offloads").hasSize(2)
                    .allSatisfy(l -> assertThat(l)
                            .contains("PACKET_VNET_HDR on: GSO/GRO super-frames are cut into segments on receive"));
            assertThat(log.get(0))
                    .startsWith("port p0 (af_packet " + lab.dev("p0") + " in netns " + dp + ", MTU 1500)");
            Dataplane d = asm.dataplane();
            d.start();
            try {
                assertTransferIntact(d, "10.31.0.2", "10.31.0.2");
                assertTransferIntact(d, "fd31::2", "fd31::2");
            } finally {
                d.stop();
            }
            assertSegmentedAndNothingLost(d);
        }
    }

    @Test
    void kernelTcpWithOffloadsIsRoutedIntact() throws Exception {
        for (String ns : new String[] {a, b}) { // no IPv6 router solicitations: no "ip6 no route" drops
            lab.sysctl(ns, "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1");
        }
        lab.address(a, lab.dev("a"), "10.32.1.2/24");
        lab.address(b, lab.dev("b"), "10.32.2.2/24");
        lab.ip(a, "neigh", "add", "10.32.1.1", "lladdr", MAC_P0, "dev", lab.dev("a"), "nud", "permanent");
        lab.ip(b, "neigh", "add", "10.32.2.1", "lladdr", MAC_P1, "dev", lab.dev("b"), "nud", "permanent");
        lab.route(a, "10.32.2.0/24 via 10.32.1.1 dev " + lab.dev("a"));
        lab.route(b, "10.32.1.0/24 via 10.32.2.1 dev " + lab.dev("b"));
        String routed = """
                routes:
                  - {prefix: 10.32.1.0/24, via: 10.32.1.2, port: p0}
                  - {prefix: 10.32.2.0/24, via: 10.32.2.2, port: p1}
                neighbours:
                  - {address: 10.32.1.2, mac: "%s", port: p0}
                  - {address: 10.32.2.2, mac: "%s", port: p1}
                """.formatted(MAC_A, MAC_B);
        try (DataplaneAssembly asm = DataplaneAssembly.open(config("l3", routed), System.err::println, true)) {
            Dataplane d = asm.dataplane();
            d.start();
            try {
                assertTransferIntact(d, "10.32.2.2", "10.32.2.2");
            } finally {
                d.stop();
            }
            assertSegmentedAndNothingLost(d);
        }
    }

    /**
     * The output port's MTU is lower than the input's (1280 on p1, a mis-set L2 segment): the frames it cannot send
     * are counted once — tx errors of p1, under "tx frame too long" in {@code show errors} and the drops metric, not as
     * p0's ifInDiscards — and each becomes a discard sample (NET_DM) with its input port, which the agent's dropmon
     * module classifies as sFlow 262 pkt_too_big; the frames that fit go through.
     */
    @Test
    void framesTheOutputPortCannotSendAreDropsWithAReasonAndADiscardSample() throws Exception {
        int big = 10, small = 10;
        lab.ip(dp, "link", "set", lab.dev("p1"), "mtu", "1280");
        lab.address(a, lab.dev("a"), "10.33.0.1/24");
        lab.address(b, lab.dev("b"), "10.33.0.2/24");
        lab.ip(a, "neigh", "add", "10.33.0.2", "lladdr", MAC_B, "dev", lab.dev("a"), "nud", "permanent");
        List<long[]> discards = Collections.synchronizedList(new ArrayList<>()); // {sFlow code, input ifIndex}
        List<String> reasons = Collections.synchronizedList(new ArrayList<>());
        DropmonSettings ds = new DropmonSettings();
        ds.limit = 100_000;
        DropmonModule dropmon = new DropmonModule(ds, 128, f -> discards.add(new long[] {f.reason, f.input}),
                System::nanoTime, null);
        String sflow = "sampling-rate: 1\ndirection: rx\ninterfaces: [p0, p1]\ndrop-monitoring: true";
        try (NetDmSubscriber sub = NetDmSubscriber.open(NetDmTransport.USERSOCK, G_NETDM);
                DataplaneAssembly asm = DataplaneAssembly.open(config("mtu", "xconnects:\n  - [p0, p1]\n", sflow),
                        System.err::println, true);
                DatagramChannel rx = NetNamespace.callIn(b, () -> DatagramChannel.open().bind(
                        new InetSocketAddress("10.33.0.2", 9999)));
                DatagramChannel tx = NetNamespace.callIn(a, DatagramChannel::open)) {
            Dataplane d = asm.dataplane();
            d.start();
            try {
                InetSocketAddress to = new InetSocketAddress("10.33.0.2", 9999);
                for (int i = 0; i < big; i++) {
                    tx.send(ByteBuffer.wrap(new byte[1400]), to); // 1442-byte frames > 1280 + 14
                }
                for (int i = 0; i < small; i++) {
                    tx.send(ByteBuffer.wrap(new byte[100 + i]), to);
                }
                rx.configureBlocking(false);
                ByteBuffer got = ByteBuffer.allocate(2048);
                int arrived = 0;
                long end = System.nanoTime() + 10_000_000_000L;
                while (System.nanoTime() < end && (arrived < small || discards.size() < big)) {
                    sub.poll(Duration.ofMillis(20), al -> {
                        if (al.inPortIfIndex() == d.osIndex(1)) { // p0's one number for the agent (OSINDEX)
                            reasons.add(al.reason() + "/" + al.hwTrapName());
                            dropmon.onAlert(al);
                        }
                    });
                    got.clear();
                    if (rx.receive(got) != null) {
                        assertThat(got.position()).as("a datagram that fits").isBetween(100, 100 + small - 1);
                        arrived++;
                    }
                }
                assertThat(arrived).as("small datagrams through").isEqualTo(small);
            } finally {
                d.stop();
            }
            System.out.printf("offload namespace test, MTU 1280 on p1:%n%s", diagnostics(d));
            assertThat(d.dropped(DropReason.TX_FRAME_TOO_LONG, 1)).isEqualTo(big);
            assertThat(d.showErrors()).containsPattern("\\s" + big + "\\s+tx frame too long\\s+262");
            var reply = ControlClient.send(tmp.resolve("mtu.sock"), "show errors", Duration.ofSeconds(10));
            assertThat(reply.text()).containsPattern("\\s" + big + "\\s+tx frame too long");
            String prom = scrape(asm);
            assertThat(prom).contains("vecflow_dataplane_drops_total{interface=\"p0\",reason=\"tx frame too long\"} "
                    + big + ".0");
            PortCounters c1 = d.interfaces().port(2).counters();
            assertThat(c1.sum(PortCounters.TX_ERRORS)).as("p1 tx errors").isEqualTo(big);
            assertThat(c1.sum(PortCounters.TX_PACKETS)).isEqualTo(d.interfaces().port(1).counters()
                    .sum(PortCounters.RX_PACKETS) - big);
            assertThat(d.showInterfaces().lines().filter(l -> l.startsWith("p0 ")).findFirst().orElseThrow())
                    .as("not counted again as p0's graph drops (ifInDiscards)").endsWith(" 0");
            assertThat(reasons).hasSize(big)
                    .allSatisfy(r -> assertThat(r).isEqualTo("PKT_TOO_BIG/mtu_value_is_too_small"));
            assertThat(discards).hasSize(big).allSatisfy(x -> assertThat(x).containsExactly(262, d.osIndex(1)));
        }
    }

    private static String scrape(DataplaneAssembly a) throws Exception {
        try (var client = java.net.http.HttpClient.newHttpClient()) {
            return client.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:"
                    + a.metrics().port() + "/metrics")).build(), java.net.http.HttpResponse.BodyHandlers.ofString())
                    .body();
        }
    }

    /**
     * A super-frame the port cannot cut — p0's ring blocks (4 KiB) are smaller than a 14,000-byte UDP GSO send of ns
     * a's stack (UDP_SEGMENT, gso_size 1,400), so the kernel cuts it — is one receive error of p0 and one "gso
     * segmentation error" drop with its discard sample (sFlow 334 skb_gso_seg), not also one of p0's ifInDiscards; the
     * same send with the default ring crosses as 10 datagrams.
     */
    @Test
    void aSuperFrameThePortCannotCutIsAReceiveErrorAndADropWithADiscardSample() throws Exception {
        lab.address(a, lab.dev("a"), "10.34.0.1/24");
        lab.address(b, lab.dev("b"), "10.34.0.2/24");
        lab.ip(a, "neigh", "add", "10.34.0.2", "lladdr", MAC_B, "dev", lab.dev("a"), "nud", "permanent");
        String udpGso = """
                import socket
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.setsockopt(socket.SOL_UDP, 103, 1400)  # UDP_SEGMENT
                s.sendto(bytes(14000), ("10.34.0.2", 9999))
                """;
        List<long[]> discards = Collections.synchronizedList(new ArrayList<>()); // {sFlow code, input ifIndex}
        DropmonSettings ds = new DropmonSettings();
        ds.limit = 100_000;
        DropmonModule dropmon = new DropmonModule(ds, 128, f -> discards.add(new long[] {f.reason, f.input}),
                System::nanoTime, null);
        String sflow = "sampling-rate: 1\ndirection: rx\ninterfaces: [p0, p1]\ndrop-monitoring: true";
        for (boolean smallRing : new boolean[] {true, false}) {
            discards.clear();
            try (NetDmSubscriber sub = NetDmSubscriber.open(NetDmTransport.USERSOCK, G_NETDM);
                    DataplaneAssembly asm = DataplaneAssembly.open(config("gso" + smallRing, "xconnects:\n  - [p0, p1]\n",
                            sflow, smallRing ? ", ring-block-bytes: 4096, ring-blocks: 16" : ""), System.err::println,
                            true);
                    DatagramChannel rx = NetNamespace.callIn(b, () -> DatagramChannel.open().bind(
                            new InetSocketAddress("10.34.0.2", 9999)))) {
                Dataplane d = asm.dataplane();
                AfPacketPort p0 = (AfPacketPort) d.interfaces().port(1);
                d.start();
                int arrived = 0;
                try {
                    lab.exec(a, Duration.ofSeconds(10), "python3", "-c", udpGso);
                    rx.configureBlocking(false);
                    ByteBuffer got = ByteBuffer.allocate(2048);
                    long end = System.nanoTime() + 3_000_000_000L;
                    while (System.nanoTime() < end && (smallRing ? discards.isEmpty() : arrived < 10)) {
                        sub.poll(Duration.ofMillis(20), al -> {
                            if (al.inPortIfIndex() == d.osIndex(1)) { // p0's one number for the agent (OSINDEX)
                                dropmon.onAlert(al);
                            }
                        });
                        got.clear();
                        if (rx.receive(got) != null) {
                            assertThat(got.position()).isEqualTo(1400);
                            arrived++;
                        }
                    }
                } finally {
                    d.stop();
                }
                System.out.printf("offload namespace test, %s ring on p0:%n%s", smallRing ? "4 KiB" : "default",
                        diagnostics(d));
                PortCounters c0 = p0.counters();
                if (smallRing) {
                    assertThat(arrived).isZero();
                    assertThat(p0.gsoErrors()).isEqualTo(1);
                    assertThat(c0.sum(PortCounters.RX_ERRORS)).isEqualTo(1);
                    assertThat(d.dropped(DropReason.GSO_SEGMENTATION_ERROR, 1)).isEqualTo(1);
                    assertThat(d.showErrors()).containsPattern("\\s1\\s+gso segmentation error\\s+334");
                    assertThat(d.showInterfaces().lines().filter(l -> l.startsWith("p0 ")).findFirst().orElseThrow())
                            .as("not counted again as p0's graph drops").endsWith(" 0");
                    assertThat(discards).hasSize(1).allSatisfy(x -> assertThat(x).containsExactly(334, d.osIndex(1)));
                } else {
                    assertThat(arrived).isEqualTo(10);
                    assertThat(p0.gsoFramesSegmented()).isEqualTo(1);
                    assertThat(c0.sum(PortCounters.RX_ERRORS)).isZero();
                    assertThat(discards).isEmpty();
                }
            }
        }
    }
}
