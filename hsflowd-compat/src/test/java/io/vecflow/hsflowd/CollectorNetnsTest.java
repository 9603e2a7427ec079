package io.vecflow.hsflowd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.common.NetNamespace;
import io.vecflow.hsflowd.UdpReceiver.Datagram;
import io.vecflow.hsflowd.UdpReceiver.Sample;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.hsflowd.net.CollectorSocket;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code collector { ip udpport dev namespace }} live (needs root, as CI runs): every namespace and veth pair is
 * created by the test under a name unique to the run and removed afterwards; the root namespace gets no device,
 * address or route (only sockets on 127.0.0.1).
 * <ul>
 *   <li>namespace: the collector's receiver listens on 127.0.0.1:P inside namespace X, another listens on the same
 *       127.0.0.1:P in the root namespace; the agent (root namespace) reaches only the first.</li>
 *   <li>dev: a "router" namespace S with two veth links, vA (to namespace R) and wA (to namespace W); R and W both own
 *       10.77.2.2 and listen on it; S routes 10.77.2.0/24 through wA. The agent, built inside S, sends one datagram
 *       to a collector 10.77.2.2 with {@code dev = vA} and one without: the first reaches R only (source 10.77.1.1,
 *       vA's address), the second W only (source 10.77.3.1).</li>
 *   <li>errors: missing namespace, missing device (in the root namespace and inside a namespace), a file that is not
 *       a namespace: the exact message names the collector's line; no descriptor leaks.</li>
 * </ul>
 */
class CollectorNetnsTest {
    private static final long WAIT_MS = 3000;
    private static final String RUN = Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFL);

    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<String> namespaces = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
        for (String ns : namespaces.reversed()) {
            sh("ip", "netns", "del", ns); // removes the veth ends inside, and with them their peers
        }
    }

    @Test
    void namespaceCollectorReceivesInsideTheNamespaceOnly() throws Exception {
        String x = netns("x");
        sh("ip", "-n", x, "link", "set", "lo", "up");
        Path before = Files.readSymbolicLink(Path.of("/proc/thread-self/ns/net"));
        // receiver inside X on its loopback, opened on a thread that entered X
        UdpReceiver inX = receiverIn(x, new InetSocketAddress("127.0.0.1", 0));
        int port = inX.port();
        // same address and port in the root namespace: must get nothing
        UdpReceiver inRoot = receiver(null, new InetSocketAddress("127.0.0.1", port));
        UdpReceiver plain = receiver(null, new InetSocketAddress("127.0.0.1", 0));
        HsflowdConfig c = HsflowdConfig.parse("sflow {\n sampling = 1\n"
                + " collector { ip = 127.0.0.1 udpport = " + port + " namespace = " + x + " }\n"
                + " collector { ip = 127.0.0.1 udpport = " + plain.port() + " }\n}\n");
        assertThat(c.warnings).isEmpty();
        assertThat(c.runChecks()).as("no psample block: a counters-only agent, as hsflowd").isEmpty();
        SflowAgent a = agent(c, "192.0.2.10");
        assertThat(Files.readSymbolicLink(Path.of("/proc/thread-self/ns/net"))).as("this thread stays where it was")
                .isEqualTo(before);
        assertThat(a.collectorSocket(0)).isNotNull();
        assertThat(a.collectorSocket(0).toString()).isEqualTo("collector at line 3 (127.0.0.1:" + port + " netns "
                + x + ")");
        assertThat(a.collectorSocket(1)).isNull();

        byte[] data = SflowAgentTest.frame(200, 3);
        a.onSample(1, 1, 7, 3, 1500, 1, data, 10, 100);
        a.flush();
        a.onSample(1, 2, 9, 3, 900, 1, data, 0, 64);
        a.flush();
        assertThat(inX.awaitDatagrams(2, WAIT_MS)).isEqualTo(2);
        assertThat(plain.awaitDatagrams(2, WAIT_MS)).isEqualTo(2);
        assertThat(inRoot.awaitDatagrams(1, 300)).as("nothing reaches 127.0.0.1:" + port + " of the root namespace")
                .isZero();
        assertThat(a.datagramsSent()).isEqualTo(4);
        assertThat(a.sendFailures()).isZero();
        for (int i = 0; i < 2; i++) {
            Datagram d = inX.datagrams.get(i);
            Datagram p = plain.datagrams.get(i);
            assertThat(d.sequence()).isEqualTo(i + 1);
            assertThat(d.agentAddress()).containsExactly(192, 0, 2, 10);
            assertThat(d.length()).isEqualTo(p.length());
            assertThat(d.from().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
            assertThat(d.from().getPort()).isEqualTo(a.collectorSocket(0).localPort()).isNotEqualTo(a.localPort());
            assertThat(p.from().getPort()).isEqualTo(a.localPort());
        }
        Sample s1 = inX.datagrams.get(0).samples().getFirst();
        assertThat(s1.sourceIndex()).isEqualTo(7);
        assertThat(s1.frameLength()).isEqualTo(1504);
        assertThat(s1.header()).containsExactly(java.util.Arrays.copyOfRange(data, 10, 110));
        Sample s2 = inX.datagrams.get(1).samples().getFirst();
        assertThat(s2.sourceIndex()).isEqualTo(9);
        assertThat(s2.frameLength()).isEqualTo(904);
    }

    @Test
    void devCollectorLeavesThroughItsDeviceNotTheRoute() throws Exception {
        String s = netns("s");
        String r = netns("r");
        String w = netns("w");
        String va = "vfa" + RUN;
        String wa = "vfw" + RUN;
        sh("ip", "-n", s, "link", "add", va, "type", "veth", "peer", "name", "vb", "netns", r);
        sh("ip", "-n", s, "link", "add", wa, "type", "veth", "peer", "name", "wb", "netns", w);
        sh("ip", "-n", s, "addr", "add", "10.77.1.1/24", "dev", va);
        sh("ip", "-n", s, "addr", "add", "10.77.3.1/24", "dev", wa);
        for (String[] nd : new String[][] {{s, va}, {s, wa}, {s, "lo"}, {r, "vb"}, {r, "lo"}, {w, "wb"}, {w, "lo"}}) {
            sh("ip", "-n", nd[0], "link", "set", nd[1], "up");
        }
        sh("ip", "-n", s, "route", "add", "10.77.2.0/24", "dev", wa); // 10.77.2.2 is "elsewhere": through wA
        sh("ip", "-n", r, "addr", "add", "10.77.1.2/24", "dev", "vb");
        sh("ip", "-n", r, "addr", "add", "10.77.2.2/32", "dev", "vb");
        sh("ip", "-n", w, "addr", "add", "10.77.3.2/24", "dev", "wb");
        sh("ip", "-n", w, "addr", "add", "10.77.2.2/32", "dev", "wb");

        UdpReceiver inR = receiverIn(r, new InetSocketAddress("10.77.2.2", 0));
        int port = inR.port();
        UdpReceiver inW = receiverIn(w, new InetSocketAddress("10.77.2.2", port));
        HsflowdConfig c = HsflowdConfig.parse("sflow {\n sampling = 1\n"
                + " collector { ip = 10.77.2.2 udpport = " + port + " dev = " + va + " }\n"
                + " collector { ip = 10.77.2.2 udpport = " + port + " }\n}\n");
        // the agent as if it ran in S: its sockets are created on a thread inside S
        SflowAgent a = NetNamespace.callIn(s, () -> new SflowAgent(c, InetAddress.getByName("192.0.2.11")));
        open.add(a);
        byte[] data = SflowAgentTest.frame(128, 5);
        for (int i = 1; i <= 3; i++) {
            a.onSample(1, i, i, 0, 1000, 1, data, 0, 128);
            a.flush();
        }
        assertThat(inR.awaitDatagrams(3, WAIT_MS)).isEqualTo(3);
        assertThat(inW.awaitDatagrams(3, WAIT_MS)).isEqualTo(3);
        assertThat(inR.awaitDatagrams(4, 300)).as("one copy per datagram through vA").isEqualTo(3);
        assertThat(inW.awaitDatagrams(4, 300)).as("one copy per datagram through wA").isEqualTo(3);
        assertThat(a.sendFailures()).isZero();
        for (int i = 0; i < 3; i++) {
            Datagram viaDev = inR.datagrams.get(i);
            Datagram viaRoute = inW.datagrams.get(i);
            assertThat(viaDev.from().getAddress().getHostAddress()).as("source: vA's address").isEqualTo("10.77.1.1");
            assertThat(viaRoute.from().getAddress().getHostAddress()).as("source: wA's address")
                    .isEqualTo("10.77.3.1");
            assertThat(viaDev.sequence()).isEqualTo(viaRoute.sequence()).isEqualTo(i + 1);
            assertThat(viaDev.agentAddress()).containsExactly(192, 0, 2, 11);
            assertThat(viaDev.samples().getFirst().sourceIndex()).isEqualTo(i + 1);
        }
    }

    @Test
    void namespaceAndDevTogetherFromTheRootNamespace() throws Exception {
        String s = netns("s");
        String r = netns("r");
        String va = "vfa" + RUN;
        sh("ip", "-n", s, "link", "add", va, "type", "veth", "peer", "name", "vb", "netns", r);
        sh("ip", "-n", s, "addr", "add", "10.78.1.1/24", "dev", va);
        sh("ip", "-n", r, "addr", "add", "10.78.1.2/24", "dev", "vb");
        sh("ip", "-n", r, "addr", "add", "10.78.2.2/32", "dev", "vb");
        for (String[] nd : new String[][] {{s, va}, {r, "vb"}}) {
            sh("ip", "-n", nd[0], "link", "set", nd[1], "up");
        }
        // S has no route to 10.78.2.2 at all: only the device binding gets the datagram out
        UdpReceiver inR = receiverIn(r, new InetSocketAddress("10.78.2.2", 0));
        HsflowdConfig c = HsflowdConfig.parse("sflow {\n sampling = 1\n collector { ip = 10.78.2.2 udpport = "
                + inR.port() + " namespace = " + s + " dev = " + va + " }\n}\n");
        SflowAgent a = agent(c, "192.0.2.12");
        a.onSample(1, 1, 4, 0, 1000, 1, SflowAgentTest.frame(64, 1), 0, 64);
        a.flush();
        assertThat(inR.awaitDatagrams(1, WAIT_MS)).isEqualTo(1);
        assertThat(inR.datagrams.getFirst().from().getAddress().getHostAddress()).isEqualTo("10.78.1.1");
        assertThat(inR.datagrams.getFirst().samples().getFirst().sourceIndex()).isEqualTo(4);
        assertThat(a.sendFailures()).isZero();
    }

    @Test
    void badNamespaceOrDeviceIsAClearErrorNamingTheLine() throws Exception {
        long fdsBefore = openFds();
        String missing = "vfnone" + RUN;
        HsflowdConfig noNs = HsflowdConfig.parse("sflow {\n collector { ip = 127.0.0.1 }\n"
                + " collector { ip = 127.0.0.1 udpport = 7000 namespace = " + missing + " }\n}\n");
        assertThatThrownBy(() -> agent(noNs, "192.0.2.1")).isInstanceOf(IOException.class)
                .hasMessage("collector at line 3 (127.0.0.1:7000 netns " + missing + "): no such network namespace '"
                        + missing + "' (neither /var/run/netns/" + missing + " nor /run/netns/" + missing
                        + " exists; `ip netns add " + missing + "` creates one)");
        assertThat(noNs.runChecks()).contains("line 3: collector namespace '" + missing + "': no such network "
                + "namespace (neither /var/run/netns/" + missing + " nor /run/netns/" + missing + " exists; `ip netns "
                + "add " + missing + "` creates one)");

        String noDev = "vfnodev" + RUN;
        HsflowdConfig noDevRoot = HsflowdConfig.parse("sflow {\n\n collector { ip = 127.0.0.1 dev = " + noDev
                + " }\n}\n");
        assertThatThrownBy(() -> agent(noDevRoot, "192.0.2.1")).isInstanceOf(IOException.class)
                .hasMessage("collector at line 3 (127.0.0.1:6343 dev " + noDev + "): no such device '" + noDev
                        + "' in this network namespace (SO_BINDTODEVICE: ENODEV)");
        assertThat(noDevRoot.runChecks()).contains("line 3: collector dev '" + noDev + "': no such network device "
                + "(not in /sys/class/net)");

        String x = netns("x");
        HsflowdConfig noDevInNs = HsflowdConfig.parse("sflow {\n collector { ip = ::1 udpport = 7001 dev = lo0"
                + " namespace = " + x + " }\n}\n");
        assertThat(noDevInNs.runChecks()).as("checked when the socket is opened").isEmpty();
        assertThatThrownBy(() -> agent(noDevInNs, "192.0.2.1")).isInstanceOf(IOException.class)
                .hasMessage("collector at line 2 (::1:7001 dev lo0 netns " + x + "): no such device 'lo0' in "
                        + "network namespace '" + x + "' (SO_BINDTODEVICE: ENODEV)");

        // a file where a namespace should be
        String notNs = "vfplain" + RUN;
        Path file = Path.of("/run/netns", notNs);
        Files.createDirectories(file.getParent());
        Files.writeString(file, "not a namespace");
        try {
            HsflowdConfig bogus = HsflowdConfig.parse("sflow {\n collector { ip = 127.0.0.1 namespace = " + notNs
                    + " }\n}\n");
            assertThatThrownBy(() -> agent(bogus, "192.0.2.1")).isInstanceOf(IOException.class)
                    .hasMessageStartingWith("collector at line 2 (127.0.0.1:6343 netns " + notNs + "): network "
                            + "namespace '" + notNs + "': setns(/var/run/netns/" + notNs + ", CLONE_NEWNET) failed: "
                            + "EINVAL (Invalid argument): /var/run/netns/" + notNs + " is not a network namespace");
        } finally {
            Files.delete(file);
        }
        assertThat(openFds()).as("no socket or namespace descriptor left open by the failures")
                .isEqualTo(fdsBefore);
    }

    /** The send path through a collector's own socket allocates nothing (dev = lo, 127.0.0.1: root namespace). */
    @Test
    void ownSocketSendPathAllocatesNothing() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        mx.setThreadAllocatedMemoryEnabled(true);
        DatagramChannel rx = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        open.add(rx);
        int port = ((InetSocketAddress) rx.getLocalAddress()).getPort();
        HsflowdConfig c = HsflowdConfig.parse("sflow {\n collector { ip = 127.0.0.1 udpport = " + port
                + " dev = lo }\n}\n");
        SflowAgent a = agent(c, "192.0.2.1");
        CollectorSocket sock = a.collectorSocket(0);
        byte[] datagram = SflowAgentTest.frame(1400, 9);
        long tid = Thread.currentThread().threadId();
        long best = Long.MAX_VALUE;
        // best of bounded windows after warm-up; on a loaded machine the JIT may take more windows to compile the
        // send path (the interpreter allocates around the FFM call), so up to 40, stopping at the first clean one
        for (int round = 0; round < 40 && best >= 1024; round++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 20_000; i++) {
                if (!sock.send(datagram, 64 + (i & 1023)) && sock.lastErrno() != io.vecflow.common.Errno.EAGAIN) {
                    throw new AssertionError("send failed: errno " + sock.lastErrno());
                }
            }
            best = Math.min(best, mx.getThreadAllocatedBytes(tid) - before);
        }
        System.out.printf("collector socket: %d bytes allocated in 20000 sends (best window)%n", best);
        assertThat(best).as("bytes allocated by 20000 sends").isLessThan(1024);
        assertThat(sock.send(datagram, 1401)).as("longer than the native buffer (datagramBytes 1400)").isFalse();
        assertThat(sock.lastErrno()).isEqualTo(io.vecflow.common.Errno.EMSGSIZE);
        java.nio.ByteBuffer first = java.nio.ByteBuffer.allocate(2048);
        assertThat(rx.receive(first)).as("the first datagram is queued at the receiver").isNotNull();
        assertThat(first.position()).isEqualTo(64);
        assertThat(java.util.Arrays.copyOf(first.array(), 64)).containsExactly(java.util.Arrays.copyOf(datagram, 64));
    }

    // ---- helpers ----

    private SflowAgent agent(HsflowdConfig c, String agentIp) throws Exception {
        SflowAgent a = new SflowAgent(c, InetAddress.getByName(agentIp));
        open.add(a);
        return a;
    }

    private String netns(String role) throws Exception {
        String name = "vfcol-" + role + "-" + RUN;
        sh("ip", "netns", "add", name);
        namespaces.add(name);
        return name;
    }

    private UdpReceiver receiverIn(String ns, InetSocketAddress local) throws Exception {
        return receiver(ns, local);
    }

    private UdpReceiver receiver(String ns, InetSocketAddress local) throws Exception {
        DatagramChannel ch = ns == null ? DatagramChannel.open() : NetNamespace.callIn(ns, DatagramChannel::open);
        UdpReceiver rx = new UdpReceiver(ch, local);
        open.add(rx);
        return rx;
    }

    /** Descriptors of this process that are sockets or namespaces (what a failed open could leak). */
    private static long openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.filter(fd -> {
                try {
                    String t = Files.readSymbolicLink(fd).toString();
                    return t.startsWith("socket:") || t.startsWith("net:");
                } catch (IOException gone) {
                    return false;
                }
            }).count();
        }
    }

    static String sh(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + ": timed out");
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + out.strip());
        }
        return out;
    }
}
