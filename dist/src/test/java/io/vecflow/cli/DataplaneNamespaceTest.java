package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.Dataplane;
import io.vecflow.dataplane.DataplaneAssembly;
import io.vecflow.dataplane.config.DataplaneConfig;
import io.vecflow.dataplane.control.ControlClient;
import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.netns.NetnsLab;
import io.vecflow.dataplane.port.AfPacketOptions;
import io.vecflow.dataplane.port.AfPacketPort;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;
import io.vecflow.hsflowd.dropmon.DropmonModule;
import io.vecflow.hsflowd.dropmon.DropmonSettings;
import io.vecflow.netlink.netdm.NetDmSubscriber;
import io.vecflow.netlink.netdm.NetDmTransport;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.psample.PsampleSubscriber;
import io.vecflow.netlink.psample.PsampleTransport;
import io.vecflow.netlink.vpp.VppIfCounters;
import io.vecflow.netlink.vpp.VppStatus;
import io.vecflow.netlink.vpp.VppUsersock;
import io.vecflow.netlink.vpp.VppUsersockHandler;
import io.vecflow.netlink.vpp.VppUsersockSubscriber;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PcapPacket;
import io.vecflow.packet.PcapReader;
import io.vecflow.packet.PcapWriter;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dataplane on real AF_PACKET ports, as an operator runs it: {@code vecflow dataplane --config} assembled from
 * YAML, its three ports in a network namespace joined by veth pairs to three client namespaces (all created and
 * removed here; needs root). The frames of a real capture cross {@code l2-xconnect} unchanged, then {@code ip4-lookup}
 * with TTL decremented and checksums right (tshark judges); 1:1 sampling both ways gives one PSAMPLE per packet per
 * direction with the right ifIndexes; TTL 1, no route and a port without a cross-connect are dropped with their
 * reasons, counted in {@code show errors}, and each becomes a NET_DM alert with the input port that the agent's real
 * dropmon module classifies as the mapped sFlow code; IF_COUNTERS carry the ports' packets and octets.
 */
class DataplaneNamespaceTest {
    private static final Path CAPTURE = Path.of("..", "testdata", "traffic", "tcpreplay-test.pcap");
    private static final int G_PSAMPLE = 17, G_NETDM = 18, G_COUNTERS = 19;
    private static final String MAC_P0 = "02:00:00:00:d0:01", MAC_P1 = "02:00:00:00:d0:02";
    private static final String MAC_B = "02:00:00:00:b0:01";
    /** A port's OSINDEX (NET_DM IN_PORT, IF_COUNTERS OSINDEX): sflow.if-offset (default 1e9) + its if-index. */
    private static final long OS = 1_000_000_000L;

    @TempDir
    Path tmp;

    private NetnsLab lab;

    @BeforeEach
    void namespaces() throws Exception {
        lab = NetnsLab.open("vfdp");
        for (String s : List.of("a", "b", "c", "dp")) {
            lab.namespace(s);
            lab.sysctl(lab.ns(s), "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1");
        }
        String[][] links = {{"a", "p0"}, {"b", "p1"}, {"c", "p2"}};
        for (String[] l : links) {
            lab.link(lab.ns(l[0]), lab.dev(l[0]), null, lab.ns("dp"), lab.dev(l[1]), null);
        }
        lab.ip(lab.ns("b"), "link", "set", lab.dev("b"), "address", MAC_B);
    }

    @AfterEach
    void remove() {
        if (lab != null) {
            lab.close();
        }
    }

    private DataplaneConfig config(boolean routed) throws IOException {
        String yaml = """
                workers: 2
                ports:
                  - {name: p0, type: af_packet, if-index: 1, netns: %1$s, mac: "%3$s", af-packet: {interface: %2$sp0}}
                  - {name: p1, type: af_packet, if-index: 2, netns: %1$s, mac: "%4$s", af-packet: {interface: %2$sp1}}
                  - {name: p2, type: af_packet, if-index: 3, netns: %1$s, mac: "02:00:00:00:d0:03", \
                    af-packet: {interface: %2$sp2}}
                %5$s
                sflow:
                  sampling-rate: 1
                  direction: both
                  interfaces: [p0, p1, p2]
                  drop-monitoring: true
                  polling-interval: 1
                  usersock-groups: {psample: %6$d, net-dm: %7$d, counters: %8$d}
                control-socket: %9$s
                metrics: {port: %10$d}
                """.formatted(lab.ns("dp"), lab.dev(""), MAC_P0, MAC_P1, routed ? """
                routes:
                  - {prefix: 216.34.181.0/24, via: 10.9.0.2, port: p1}
                  - {prefix: 172.16.11.0/24, via: 10.9.0.2, port: p1}
                  - {prefix: 96.17.211.0/24, via: 10.9.0.2, port: p1}
                  - {prefix: 192.168.10.0/24, via: 10.9.0.2, port: p1}
                  - {prefix: 74.125.19.0/24, via: 10.9.0.2, port: p1}
                neighbours:
                  - {address: 10.9.0.2, mac: "%s", port: p1}
                """.formatted(MAC_B) : "xconnects:\n  - [p0, p1]\n", G_PSAMPLE, G_NETDM, G_COUNTERS,
                tmp.resolve("dp.sock"), freePort());
        Path f = tmp.resolve(routed ? "l3.yaml" : "l2.yaml");
        Files.writeString(f, yaml);
        return DataplaneConfig.load(f);
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String scrape(DataplaneAssembly a) throws Exception {
        try (var client = java.net.http.HttpClient.newHttpClient()) {
            return client.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:"
                    + a.metrics().port() + "/metrics")).build(), java.net.http.HttpResponse.BodyHandlers.ofString())
                    .body();
        }
    }

    record Sample(long group, long iif, long oif) {}

    /** What the agent side received while the dataplane ran. */
    static final class Agent implements AutoCloseable {
        final List<Sample> samples = Collections.synchronizedList(new ArrayList<>());
        final List<long[]> discards = Collections.synchronizedList(new ArrayList<>()); // {sflow code, input}
        final Map<String, long[]> counters = new ConcurrentHashMap<>();
        final Map<String, Integer> reasons = new ConcurrentHashMap<>();
        private final PsampleSubscriber psub = PsampleSubscriber.open(PsampleTransport.USERSOCK, G_PSAMPLE);
        private final NetDmSubscriber dsub = NetDmSubscriber.open(NetDmTransport.USERSOCK, G_NETDM);
        private final VppUsersockSubscriber vsub = VppUsersockSubscriber.open(G_COUNTERS);
        private final AtomicBoolean done = new AtomicBoolean();
        private final AtomicReference<Throwable> failed = new AtomicReference<>();
        private final List<Thread> threads = new ArrayList<>();
        private final DropmonModule dropmon;

        Agent() throws Exception {
            this(null);
        }

        /** @param sflow when set, the dropmon module's discard samples also go to this sFlow agent (its datagrams) */
        Agent(io.vecflow.hsflowd.SflowAgent sflow) throws Exception {
            DropmonSettings s = new DropmonSettings();
            s.limit = 100_000;
            dropmon = new DropmonModule(s, 128, f -> {
                discards.add(new long[] {f.reason, f.input});
                return sflow == null || sflow.addDiscardSample(f);
            }, System::nanoTime, null);
            threads.add(reader(() -> psub.poll(Duration.ofMillis(20), (PsampleSample x) -> samples.add(
                    new Sample(x.sampleGroup(), x.iifIndex(), x.oifIndex())))));
            threads.add(reader(() -> dsub.poll(Duration.ofMillis(20), a -> {
                reasons.merge(a.inPortIfIndex() + "/" + a.reason(), 1, Integer::sum);
                dropmon.onAlert(a);
            })));
            threads.add(reader(() -> vsub.poll(Duration.ofMillis(20), new VppUsersockHandler() {
                @Override
                public void onStatus(VppStatus status) {}

                @Override
                public void onIfCounters(VppIfCounters c) {
                    counters.put(c.portNameString(), new long[] {c.counter(VppUsersock.ATTR_RX_PKTS),
                            c.counter(VppUsersock.ATTR_RX_OCTETS), c.counter(VppUsersock.ATTR_TX_PKTS),
                            c.counter(VppUsersock.ATTR_TX_OCTETS)});
                }
            })));
        }

        private Thread reader(Callable<?> poll) {
            return Thread.ofPlatform().start(() -> {
                try {
                    long quiet = Long.MAX_VALUE, end = System.currentTimeMillis() + 60_000;
                    while (System.currentTimeMillis() < Math.min(end, quiet)) {
                        poll.call();
                        if (done.get() && quiet == Long.MAX_VALUE) {
                            quiet = System.currentTimeMillis() + 500;
                        }
                    }
                } catch (Throwable e) {
                    failed.set(e);
                }
            });
        }

        void finish() throws InterruptedException {
            done.set(true);
            for (Thread t : threads) {
                t.join(65_000);
            }
            assertThat(failed.get()).isNull();
            assertThat(psub.overruns() + dsub.overruns() + vsub.overruns()).as("netlink overruns").isZero();
        }

        @Override
        public void close() throws InterruptedException {
            done.set(true);
            for (Thread t : threads) {
                t.join(65_000);
            }
            psub.close();
            dsub.close();
            vsub.close();
        }
    }

    /** Sends frames out of a client namespace's veth end with AF_PACKET. */
    private static void send(AfPacketPort port, List<byte[]> frames) {
        try (BufferPool pool = new BufferPool(1024, 2048)) {
            PacketVector v = new PacketVector();
            for (int i = 0; i < frames.size(); i++) {
                int b = pool.alloc();
                byte[] f = frames.get(i);
                MemorySegment.copy(f, 0, pool.data(), ValueLayout.JAVA_BYTE, pool.offset(b), f.length);
                pool.length[b] = f.length;
                v.add(b);
                if (v.isFull() || i == frames.size() - 1) {
                    port.tx(0, pool, v);
                    v.count = 0;
                }
            }
        }
    }

    /** Receives on a client namespace's veth end until {@code n} frames arrived or 10 s passed. */
    private static List<byte[]> receive(AfPacketPort port, int n) throws InterruptedException {
        List<byte[]> got = new ArrayList<>();
        try (BufferPool pool = new BufferPool(1024, 2048)) {
            PacketVector v = new PacketVector();
            long end = System.currentTimeMillis() + 10_000;
            while (got.size() < n && System.currentTimeMillis() < end) {
                v.count = 0;
                int k = port.rx(0, pool, v, PacketVector.CAPACITY);
                for (int i = 0; i < k; i++) {
                    int b = v.buffers[i];
                    got.add(pool.data().asSlice(pool.offset(b), pool.length[b]).toArray(ValueLayout.JAVA_BYTE));
                }
                pool.free(v);
                if (k == 0) {
                    Thread.sleep(2);
                }
            }
            Thread.sleep(300);
            v.count = 0;
            int extra = port.rx(0, pool, v, PacketVector.CAPACITY);
            assertThat(extra).as("no frames beyond the expected").isZero();
        }
        return got;
    }

    private static List<String> hex(List<byte[]> frames) {
        List<String> l = new ArrayList<>();
        for (byte[] f : frames) {
            l.add(java.util.HexFormat.of().formatHex(f));
        }
        Collections.sort(l);
        return l;
    }

    private static long octets(List<byte[]> frames) {
        return frames.stream().mapToLong(f -> f.length).sum();
    }

    @Test
    void routedPortsInANamespaceTakeTheDevicesMacWhenNoneIsConfigured() throws Exception {
        // the example config's shape: af_packet ports in a netns, no mac: key; /sys/class/net cannot see them
        lab.ip(lab.ns("dp"), "link", "set", lab.dev("p1"), "address", "02:5e:00:00:d1:02");
        String yaml = """
                workers: 1
                ports:
                  - {name: p0, type: af_packet, netns: %1$s, af-packet: {interface: %2$sp0}}
                  - {name: p1, type: af_packet, netns: %1$s, af-packet: {interface: %2$sp1}}
                routes:
                  - {prefix: 10.9.1.0/24, via: 10.9.0.2, port: p1}
                neighbours:
                  - {address: 10.9.0.2, mac: "%3$s", port: p1}
                sflow: {sampling-rate: 0, usersock-groups: {psample: %4$d, net-dm: %5$d, counters: %6$d}}
                metrics: {port: 0}
                """.formatted(lab.ns("dp"), lab.dev(""), MAC_B, G_PSAMPLE, G_NETDM, G_COUNTERS);
        Path f = tmp.resolve("l3-nomac.yaml");
        Files.writeString(f, yaml);
        try (DataplaneAssembly a = DataplaneAssembly.open(DataplaneConfig.load(f), System.err::println, false)) {
            assertThat(a.dataplane().interfaces().mac(2)).isEqualTo(0x025e0000d102L);
            assertThat(a.dataplane().interfaces().mac(1)).isNotZero();
            // An af_packet port has a Linux netdev: its ifindex (in its namespace, as `ip link` shows it) is the
            // port's OSINDEX, as VPP with linux-cp reports the pair's, and the NET_DM IN_PORT of its drops.
            for (int i = 0; i < 2; i++) {
                Process ip = new ProcessBuilder("ip", "-n", lab.ns("dp"), "-o", "link", "show", "dev",
                        lab.dev("p" + i)).redirectErrorStream(true).start();
                String line = new String(ip.getInputStream().readAllBytes()).strip();
                assertThat(ip.waitFor()).as(line).isZero();
                long linux = Long.parseLong(line.substring(0, line.indexOf(':')));
                assertThat(a.dataplane().osIndexAttribute(i + 1)).as("OSINDEX of p%d", i).isEqualTo(linux);
                assertThat(a.dataplane().osIndex(i + 1)).as("NET_DM IN_PORT of p%d", i).isEqualTo(linux);
            }
        }
    }

    @Test
    void realCaptureCrossesL2XconnectUnchangedAndEveryPacketIsSampledBothWays() throws Exception {
        List<byte[]> capture = new ArrayList<>();
        for (PcapPacket p : PcapReader.readAll(CAPTURE).packets()) {
            capture.add(p.data());
        }
        List<byte[]> stray = new ArrayList<>(capture.subList(0, 4));
        // The two fragments of a 2,000-byte UDP datagram cross as they are (no reassembly into a frame above the MTU).
        capture.addAll(fragments());
        List<byte[]> got;
        try (Agent agent = new Agent();
                DataplaneAssembly a = DataplaneAssembly.open(config(false), System.err::println, true);
                AfPacketPort tx = AfPacketPort.open(lab.ns("a"), lab.dev("a"), 1, 1, AfPacketOptions.defaults());
                AfPacketPort txc = AfPacketPort.open(lab.ns("c"), lab.dev("c"), 1, 1, AfPacketOptions.defaults());
                AfPacketPort rx = AfPacketPort.open(lab.ns("b"), lab.dev("b"), 1, 1, AfPacketOptions.defaults())) {
            Dataplane dp = a.dataplane();
            dp.start();
            send(tx, capture);
            send(txc, stray);
            got = receive(rx, capture.size());
            Thread.sleep(200);
            dp.stop();
            agent.finish();
            assertThat(hex(got)).as("the capture's frames on the far side, byte for byte").isEqualTo(hex(capture));
            // ingress samples carry the output the xconnect gave the packet (0 for those dropped)
            assertThat(agent.samples.stream().filter(s -> s.equals(new Sample(3, 1, 2)))).hasSize(capture.size());
            assertThat(agent.samples.stream().filter(s -> s.equals(new Sample(4, 1, 2)))).hasSize(capture.size());
            assertThat(agent.samples.stream().filter(s -> s.equals(new Sample(3, 3, 0)))).hasSize(4);
            assertThat(agent.samples).hasSize(2 * capture.size() + 4);
            assertThat(dp.dropped(DropReason.L2_NO_XCONNECT, 3)).isEqualTo(4);
            assertThat(dp.showErrors()).containsPattern("\\s4\\s+l2 no xconnect\\s+267");
            assertThat(agent.reasons).containsEntry((OS + 3) + "/" + DropReason.L2_NO_XCONNECT.linuxReason(), 4);
            assertThat(agent.discards).hasSize(4).allSatisfy(d -> assertThat(d).containsExactly(267, OS + 3));
            assertThat(agent.counters.get("p0")).containsExactly(capture.size(), octets(capture), 0, 0);
            assertThat(agent.counters.get("p1")).containsExactly(0, 0, capture.size(), octets(capture));
            assertThat(agent.counters.get("p2")).containsExactly(4, octets(stray), 0, 0);
            // The same counters on the Prometheus endpoint and the control socket.
            String prom = scrape(a);
            assertThat(prom).contains("vecflow_dataplane_interface_packets_total{direction=\"rx\",interface=\"p0\"} "
                    + capture.size() + ".0");
            assertThat(prom).contains("vecflow_dataplane_drops_total{interface=\"p2\",reason=\"l2 no xconnect\"} 4.0");
            assertThat(prom).contains("vecflow_dataplane_sflow_samples_total{direction=\"egress\"} "
                    + capture.size() + ".0");
            var reply = ControlClient.send(tmp.resolve("dp.sock"), "show errors",
                    Duration.ofSeconds(10));
            assertThat(reply.rc()).isZero();
            assertThat(reply.text()).containsPattern("\\s4\\s+l2 no xconnect");
            PortCounters c0 = dp.interfaces().port(1).counters();
            assertThat(c0.sum(PortCounters.RX_PACKETS)).isEqualTo(capture.size());
        }
    }

    /** Two IPv4 fragments (MF set, offset 0; offset 1480) of one 2,008-byte UDP datagram, 1514 + 562 bytes. */
    static List<byte[]> fragments() {
        List<byte[]> l = new ArrayList<>();
        int[][] parts = {{0, 1480, 1}, {1480, 528, 0}};
        for (int[] part : parts) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(14 + 20 + part[1]);
            b.putShort((short) 0x0200).putInt(0x0b0b).putShort((short) 0x0200).putInt(0x0a0a).putShort((short) 0x0800);
            b.put((byte) 0x45).put((byte) 0).putShort((short) (20 + part[1])).putShort((short) 0x4242)
                    .putShort((short) ((part[2] << 13) | (part[0] / 8))).put((byte) 64).put((byte) 17)
                    .putShort((short) 0).putInt(0xC6120001).putInt(0xC6130001);
            for (int i = 0; i < part[1]; i++) {
                b.put((byte) (part[0] + i));
            }
            byte[] a = b.array();
            int sum = 0;
            for (int i = 14; i < 34; i += 2) {
                sum += (a[i] & 0xFF) << 8 | (a[i + 1] & 0xFF);
            }
            sum = (sum & 0xFFFF) + (sum >>> 16);
            sum = (sum & 0xFFFF) + (sum >>> 16);
            a[24] = (byte) (~sum >>> 8);
            a[25] = (byte) ~sum;
            l.add(a);
        }
        return l;
    }

    private static byte[] ip4WithTtl(byte[] f, int ttl, int dst) {
        byte[] g = f.clone();
        g[22] = (byte) ttl;
        if (dst != 0) {
            g[30] = (byte) (dst >>> 24);
            g[31] = (byte) (dst >>> 16);
            g[32] = (byte) (dst >>> 8);
            g[33] = (byte) dst;
        }
        g[24] = 0;
        g[25] = 0;
        int ihl = (g[14] & 0xF) * 4, sum = 0;
        for (int i = 14; i < 14 + ihl; i += 2) {
            sum += (g[i] & 0xFF) << 8 | (g[i + 1] & 0xFF);
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        g[24] = (byte) (~sum >>> 8);
        g[25] = (byte) ~sum;
        return g;
    }

    @Test
    void routedPacketsLeaveWithTtlMinusOneAndGoodChecksumsAndDropsAreAlerted() throws Exception {
        byte[] p0 = java.util.HexFormat.ofDelimiter(":").parseHex(MAC_P0);
        List<byte[]> in = new ArrayList<>();
        for (PcapPacket p : PcapReader.readAll(CAPTURE).packets()) {
            byte[] f = p.data().clone();
            // IPv4 to the capture's unicast hosts; its multicast (224/4) and 10.31.0.1 frames (bad IP checksum) are
            // left out here so that every expected drop below is one this test made on purpose.
            boolean multicast = f.length > 34 && (f[30] & 0xF0) == 0xE0;
            boolean badChecksum = f.length > 34 && (f[30] & 0xFF) == 10 && f[31] == 31;
            if (f.length > 34 && f[12] == 0x08 && f[13] == 0x00 && !multicast && !badChecksum) {
                System.arraycopy(p0, 0, f, 0, 6); // to the dataplane's port, as a host's router would be
                in.add(f);
            }
        }
        List<byte[]> ttl1 = new ArrayList<>(), noRoute = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ttl1.add(ip4WithTtl(in.get(i), 1, 0));
            noRoute.add(ip4WithTtl(in.get(i), 64, 0xC0000201)); // 192.0.2.1
        }
        List<byte[]> all = new ArrayList<>(in);
        all.addAll(ttl1);
        all.addAll(noRoute);
        List<byte[]> got;
        // The agent's discards travel as sFlow to a real collector on 127.0.0.1.
        PeerJudges.Keep keep = new PeerJudges.Keep();
        io.vecflow.collector.Collector.Settings cs = new io.vecflow.collector.Collector.Settings();
        cs.bindAddress = "127.0.0.1";
        cs.port = 0;
        cs.threads = 1;
        cs.extraFlowSinks.add(keep);
        try (io.vecflow.collector.Collector collector = new io.vecflow.collector.Collector(cs);
                io.vecflow.hsflowd.SflowAgent sflow = new io.vecflow.hsflowd.SflowAgent(
                        io.vecflow.hsflowd.config.HsflowdConfig.parse("""
                                sflow {
                                  sampling = 1
                                  agentIP = 192.0.2.9
                                  collector { ip = 127.0.0.1 udpport = %d }
                                }
                                """.formatted(collector.localAddress().getPort())),
                        java.net.InetAddress.getByName("192.0.2.9"));
                Agent agent = new Agent(sflow);
                DataplaneAssembly a = DataplaneAssembly.open(config(true), System.err::println, true);
                AfPacketPort tx = AfPacketPort.open(lab.ns("a"), lab.dev("a"), 1, 1, AfPacketOptions.defaults());
                AfPacketPort rx = AfPacketPort.open(lab.ns("b"), lab.dev("b"), 1, 1, AfPacketOptions.defaults())) {
            Dataplane dp = a.dataplane();
            dp.start();
            send(tx, all);
            got = receive(rx, in.size());
            Thread.sleep(200);
            dp.stop();
            agent.finish();
            assertThat(got).hasSize(in.size());
            // Frames keep their order per flow; match each received frame to its sent one by the IP payload.
            Map<String, byte[]> byPayload = new HashMap<>();
            for (byte[] f : in) {
                byPayload.put(java.util.HexFormat.of().formatHex(Arrays.copyOfRange(f, 34, f.length))
                        + "/" + java.util.HexFormat.of().formatHex(Arrays.copyOfRange(f, 26, 34)), f);
            }
            Path pcap = tmp.resolve("routed.pcap");
            try (PcapWriter w = PcapWriter.create(pcap, LinkType.ETHERNET, 65535)) {
                for (byte[] g : got) {
                    w.write(0, g);
                    byte[] sent = byPayload.get(java.util.HexFormat.of().formatHex(Arrays.copyOfRange(g, 34, g.length))
                            + "/" + java.util.HexFormat.of().formatHex(Arrays.copyOfRange(g, 26, 34)));
                    assertThat(sent).as("a received frame matches a sent one").isNotNull();
                    assertThat(Arrays.copyOfRange(g, 0, 6)).isEqualTo(java.util.HexFormat.ofDelimiter(":")
                            .parseHex(MAC_B));
                    assertThat(Arrays.copyOfRange(g, 6, 12)).isEqualTo(java.util.HexFormat.ofDelimiter(":")
                            .parseHex(MAC_P1));
                    assertThat(g[22] & 0xFF).isEqualTo((sent[22] & 0xFF) - 1);
                }
            }
            Process p = new ProcessBuilder("tshark", "-r", pcap.toString(), "-o", "ip.check_checksum:TRUE", "-T",
                    "fields", "-e", "ip.checksum.status").redirectErrorStream(false).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            List<String> status = out.lines().map(String::trim).toList();
            // "1" = good; ICMP errors quote an inner IPv4 header whose status follows ("1,1")
            assertThat(status).hasSize(in.size()).allSatisfy(s -> assertThat(s.split(",")).as("tshark: 1 = good")
                    .containsOnly("1"));
            // Drops: counted per reason and input port, alerted with that port, classified by the agent.
            assertThat(dp.dropped(DropReason.IP4_TTL_EXPIRED, 1)).isEqualTo(5);
            assertThat(dp.dropped(DropReason.IP4_NO_ROUTE, 1)).isEqualTo(5);
            assertThat(dp.showErrors()).containsPattern("\\s5\\s+ip4 ttl expired\\s+257")
                    .containsPattern("\\s5\\s+ip4 no route\\s+0");
            assertThat(agent.reasons).containsEntry((OS + 1) + "/IP4_TTL_EXPIRED", 5)
                    .containsEntry((OS + 1) + "/IP_INNOROUTES", 5);
            assertThat(agent.discards.stream().filter(d -> d[0] == 257 && d[1] == OS + 1)).hasSize(5);
            assertThat(agent.discards.stream().filter(d -> d[0] == 0 && d[1] == OS + 1)).hasSize(5);
            // Routed samples: ingress on p0 for everything sent (output p1 for what was routed, 0 for the drops),
            // egress p0 → p1 for what left.
            assertThat(agent.samples.stream().filter(s -> s.equals(new Sample(3, 1, 2)))).hasSize(in.size());
            assertThat(agent.samples.stream().filter(s -> s.equals(new Sample(3, 1, 0))))
                    .hasSize(all.size() - in.size());
            assertThat(agent.samples.stream().filter(s -> s.equals(new Sample(4, 1, 2)))).hasSize(in.size());
            assertThat(agent.counters.get("p0")).containsExactly(all.size(), octets(all), 0, 0);
            assertThat(agent.counters.get("p1")).containsExactly(0, 0, in.size(), octets(got));
            // ... and reach the collector as discard rows with the mapped reason code and the input port.
            sflow.flush();
            long end = System.currentTimeMillis() + 10_000;
            while (keep.rowsWritten() < 10 && System.currentTimeMillis() < end) {
                Thread.sleep(50);
            }
            List<long[]> rows = new ArrayList<>();
            synchronized (keep) {
                for (io.vecflow.collector.schema.FlowRow r : keep.rows) {
                    assertThat(r.sampleType).isEqualTo(io.vecflow.collector.schema.FlowRow.DISCARD);
                    rows.add(new long[] {r.discardReason, r.inIf});
                }
            }
            assertThat(rows).hasSize(10);
            assertThat(rows.stream().filter(r -> r[0] == 257 && r[1] == OS + 1)).as("ttl_exceeded on p0").hasSize(5);
            assertThat(rows.stream().filter(r -> r[0] == 0 && r[1] == OS + 1)).as("net_unreachable on p0").hasSize(5);
        }
    }
}
