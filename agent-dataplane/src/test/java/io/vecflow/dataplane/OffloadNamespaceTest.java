package io.vecflow.dataplane;

import static io.vecflow.dataplane.OffloadLab.MAC_A;
import static io.vecflow.dataplane.OffloadLab.MAC_B;
import static io.vecflow.dataplane.OffloadLab.MAC_P0;
import static io.vecflow.dataplane.OffloadLab.MAC_P1;
import static io.vecflow.dataplane.OffloadLab.diagnostics;
import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.common.NetNamespace;
import io.vecflow.dataplane.config.DataplaneConfig;
import io.vecflow.dataplane.netns.NetnsLab;
import io.vecflow.dataplane.port.AfPacketPort;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.security.MessageDigest;
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
 * removed here ({@link OffloadLab}: prefix {@code vfof}, see {@link NetnsLab}).
 *
 * <pre>
 *  ns a ── a / p0 ──► ns dp (vecflow, 2 workers: l2 xconnect p0↔p1, or routed) ── p1 / b ──► ns b
 * </pre>
 *
 * A few MiB go each way over one TCP connection (IPv4, and IPv6 on the cross-connect), bounded in time; the bytes are
 * compared by SHA-256. The drops of the same topology, judged by the agent's dropmon module, are tested in the it
 * module ({@code OffloadDropsNamespaceTest}).
 */
class OffloadNamespaceTest {
    private static final int TRANSFER_BYTES = 4 << 20;
    private static final int TCP_PORT = 5001;
    private static final long TRANSFER_TIMEOUT_S = 40;

    @TempDir
    Path tmp;

    private OffloadLab offload;
    private NetnsLab lab;
    private String a, b, dp;

    @BeforeEach
    void namespaces() throws Exception {
        offload = new OffloadLab(tmp);
        lab = offload.lab;
        a = offload.a;
        b = offload.b;
        dp = offload.dp;
    }

    @AfterEach
    void remove() {
        if (offload != null) {
            offload.close();
        }
    }

    private DataplaneConfig config(String name, String body) throws IOException {
        return offload.config(name, body);
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
}
