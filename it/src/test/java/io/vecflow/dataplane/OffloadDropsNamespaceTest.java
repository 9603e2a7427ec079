package io.vecflow.dataplane;

import static io.vecflow.dataplane.OffloadLab.G_NETDM;
import static io.vecflow.dataplane.OffloadLab.MAC_B;
import static io.vecflow.dataplane.OffloadLab.diagnostics;
import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.common.NetNamespace;
import io.vecflow.dataplane.config.DataplaneConfig;
import io.vecflow.dataplane.control.ControlClient;
import io.vecflow.dataplane.netns.NetnsLab;
import io.vecflow.dataplane.port.AfPacketPort;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;
import io.vecflow.hsflowd.dropmon.DropmonModule;
import io.vecflow.hsflowd.dropmon.DropmonSettings;
import io.vecflow.netlink.netdm.NetDmSubscriber;
import io.vecflow.netlink.netdm.NetDmTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Frames the dataplane's AF_PACKET ports cannot send or cut, in agent-dataplane's offload topology ({@link OffloadLab},
 * through its test-jar; the veth offloads left at their defaults), as drops with their reason and as NET_DM discard
 * samples that hsflowd-compat's dropmon module classifies. Needs root; namespaces, veths and processes are created
 * and removed here (prefix {@code vfof}, see {@link NetnsLab}). The TCP transfers over the same topology are
 * agent-dataplane's {@link OffloadNamespaceTest}; these need hsflowd-compat, which agent-dataplane does not depend on.
 */
class OffloadDropsNamespaceTest {
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

    private DataplaneConfig config(String name, String body, String sflow) throws IOException {
        return offload.config(name, body, sflow);
    }

    private DataplaneConfig config(String name, String body, String sflow, String p0AfPacket) throws IOException {
        return offload.config(name, body, sflow, p0AfPacket);
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
                    DataplaneAssembly asm = DataplaneAssembly.open(config("gso" + smallRing,
                            "xconnects:\n  - [p0, p1]\n",
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
