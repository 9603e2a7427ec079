package io.vecflow.dataplane.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.common.NetNamespace;
import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.interfaces.Port;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;
import io.vecflow.packet.PcapFile;
import io.vecflow.packet.PcapPacket;
import io.vecflow.packet.PcapReader;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * AF_PACKET port on a real kernel: two network namespaces joined by a veth pair ({@link VethLab}; needs root and
 * fails, never skips, without it). Frames are the real captures of testdata/traffic (testdata/MANIFEST.md): tcpreplay's
 * test capture (179 frames, 10 with an 802.1Q tag), tcpdump's 802.1ad_QinQ.pcap (S-tag + C-tag) and
 * ipv4_tcp_http_xml.pcap (802.1Q).
 */
class AfPacketPortTest {
    static final Path TRAFFIC = Path.of("..", "testdata", "traffic");
    private static final long TIMEOUT_NANOS = 5_000_000_000L;

    private VethLab lab;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        lab = VethLab.create();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        if (lab != null) {
            lab.close();
        }
    }

    private <T extends AutoCloseable> T keep(T c) {
        open.add(c);
        return c;
    }

    static List<byte[]> frames(String... captures) throws IOException {
        List<byte[]> out = new ArrayList<>();
        for (String c : captures) {
            PcapFile f = PcapReader.readAll(TRAFFIC.resolve(c));
            for (PcapPacket p : f.packets()) {
                out.add(p.data());
            }
        }
        return out;
    }

    static boolean vlanTagged(byte[] f) {
        int t = (f[12] & 0xff) << 8 | f[13] & 0xff;
        return t == 0x8100 || t == 0x88a8;
    }

    /**
     * Polls every queue until at least {@code expected} frames arrived and then nothing more for 100 ms (to catch
     * extras), or 5 s passed.
     */
    static List<List<byte[]>> receive(Port port, BufferPool pool, int expected) {
        List<List<byte[]>> perQueue = new ArrayList<>();
        for (int q = 0; q < port.queues(); q++) {
            perQueue.add(new ArrayList<>());
        }
        PacketVector v = new PacketVector();
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        long quietUntil = Long.MAX_VALUE;
        int got = 0;
        int last = -1;
        while (System.nanoTime() < Math.min(deadline, quietUntil)) {
            for (int q = 0; q < port.queues(); q++) {
                int n = port.rx(q, pool, v, PacketVector.CAPACITY);
                for (int i = 0; i < n; i++) {
                    int b = v.buffers[i];
                    assertThat(pool.rxIfIndex[b]).isEqualTo(port.ifIndex());
                    assertThat(pool.txIfIndex[b]).isZero();
                    assertThat(pool.timestampNanos[b]).isPositive();
                    perQueue.get(q).add(pool.data().asSlice(pool.offset(b), pool.length[b])
                            .toArray(ValueLayout.JAVA_BYTE));
                }
                got += n;
                pool.free(v);
            }
            if (got >= expected && (quietUntil == Long.MAX_VALUE || last != got)) {
                quietUntil = System.nanoTime() + 100_000_000L;
            }
            last = got;
            Thread.onSpinWait();
        }
        return perQueue;
    }

    static long octets(List<byte[]> frames) {
        long s = 0;
        for (byte[] f : frames) {
            s += f.length;
        }
        return s;
    }

    static void assertSameFrames(List<byte[]> actual, List<byte[]> expected) {
        HexFormat hex = HexFormat.of();
        assertThat(actual.stream().map(hex::formatHex).toList())
                .containsExactlyElementsOf(expected.stream().map(hex::formatHex).toList());
    }

    @Test
    void receivesEveryFrameOfRealCapturesByteIdenticalWithVlanTagsRestored() throws Exception {
        List<byte[]> sent = frames("tcpreplay-test.pcap", "802.1ad_QinQ.pcap", "ipv4_tcp_http_xml.pcap",
                "various_gre.pcap");
        assertThat(sent).hasSize(282);
        // outer tags: 2 × 802.1ad S-tag (QinQ), 1 + 51 × 802.1Q; the kernel strips each into tp_vlan_tci/tpid
        assertThat(sent.stream().filter(AfPacketPortTest::vlanTagged).count()).as("tagged frames sent").isEqualTo(54);
        AfPacketPort port = keep(AfPacketPort.open(lab.nsA, lab.ifA, 7, 1, AfPacketOptions.defaults()));
        RawSender sender = keep(NetNamespace.callIn(lab.nsB, () -> new RawSender(lab.ifB)));
        BufferPool pool = keep(new BufferPool(1024, 2048));
        for (byte[] f : sent) {
            sender.send(f);
        }
        List<byte[]> got = receive(port, pool, sent.size()).get(0);

        assertSameFrames(got, sent); // same bytes, same order, nothing extra
        assertThat(got.stream().filter(AfPacketPortTest::vlanTagged).count()).isEqualTo(54);
        assertThat(got.stream().filter(f -> (f[12] & 0xff) == 0x88 && (f[13] & 0xff) == 0xa8).count())
                .as("802.1ad outer tags kept as 0x88a8").isEqualTo(2);
        PortCounters c = port.counters();
        assertThat(c.sum(PortCounters.RX_PACKETS)).isEqualTo(282);
        assertThat(c.sum(PortCounters.RX_OCTETS)).isEqualTo(octets(sent));
        assertThat(port.refreshStatistics(0)).isZero();
        assertThat(c.sum(PortCounters.RX_DISCARDS)).isZero();
        assertThat(c.sum(PortCounters.RX_ERRORS)).isZero();
        assertThat(c.sum(PortCounters.TX_PACKETS)).isZero();
        assertThat(pool.freeCount()).isEqualTo(1024);
        assertThat(port.linuxIfIndex()).isPositive();
        assertThat(port.mtu()).isEqualTo(1500);
    }

    @Test
    void promiscuousWhileOpenAndDroppedAtClose() throws Exception {
        AfPacketPort port = AfPacketPort.open(lab.nsA, lab.ifA, 1, 2, AfPacketOptions.defaults());
        try {
            assertThat(promiscuity(lab.nsA, lab.ifA)).isEqualTo(1);
        } finally {
            port.close();
        }
        assertThat(promiscuity(lab.nsA, lab.ifA)).isZero();
        AfPacketPort quiet = keep(AfPacketPort.open(lab.nsA, lab.ifA, 1, 1,
                AfPacketOptions.defaults().promiscuous(false)));
        assertThat(promiscuity(lab.nsA, lab.ifA)).isZero();
        assertThat(quiet.queues()).isEqualTo(1);
    }

    @Test
    void hardwareAddressIsReadInThePortsNamespace() throws Exception {
        // /sys/class/net of the JVM's namespace does not show this device: SIOCGIFHWADDR on the port's socket does
        lab.exec(lab.nsA, "ip", "link", "set", lab.ifA, "address", "02:5e:00:12:34:56");
        assertThat(java.nio.file.Files.exists(Path.of("/sys/class/net", lab.ifA))).isFalse();
        AfPacketPort port = keep(AfPacketPort.open(lab.nsA, lab.ifA, 1, 1, AfPacketOptions.defaults()));
        assertThat(port.hardwareAddress()).isEqualTo(0x025e00123456L);
    }

    /** The device's promiscuity count ({@code ip -d link}); packet-socket memberships do not show as IFF_PROMISC. */
    static int promiscuity(String ns, String ifName) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("ip", "-d", "-n", ns, "link", "show", ifName).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).isZero();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("promiscuity (\\d+)").matcher(out);
        assertThat(m.find()).as(out).isTrue();
        return Integer.parseInt(m.group(1));
    }

    @Test
    void kernelRingDropsAreCountedAsRxDiscards() throws Exception {
        // 2 blocks of 4 KiB: the 179 frames (≈ 90 KB) of the capture cannot fit while nobody polls
        AfPacketPort port = keep(AfPacketPort.open(lab.nsA, lab.ifA, 3, 1,
                AfPacketOptions.defaults().blockSize(4096).blockCount(2).frameSize(2048).txFrameSize(2048)));
        RawSender sender = keep(NetNamespace.callIn(lab.nsB, () -> new RawSender(lab.ifB)));
        BufferPool pool = keep(new BufferPool(1024, 2048));
        List<byte[]> sent = frames("tcpreplay-test.pcap");
        for (byte[] f : sent) {
            sender.send(f);
        }
        List<byte[]> got = receive(port, pool, 1).get(0);
        port.refreshStatistics(0);
        PortCounters c = port.counters();
        assertThat(c.sum(PortCounters.RX_DISCARDS)).as("tp_drops").isPositive();
        assertThat(got.size() + c.sum(PortCounters.RX_DISCARDS)).isEqualTo(sent.size());
        assertThat(c.sum(PortCounters.RX_PACKETS)).isEqualTo(got.size());
        // what did arrive is a prefix-ordered subsequence of what was sent, byte for byte
        HexFormat hex = HexFormat.of();
        List<String> s = sent.stream().map(hex::formatHex).toList();
        int at = 0;
        for (byte[] f : got) {
            int i = s.subList(at, s.size()).indexOf(hex.formatHex(f));
            assertThat(i).as("received frame was sent, in order").isGreaterThanOrEqualTo(0);
            at += i + 1;
        }
    }

    @Test
    void framesLongerThanTheBufferAreTruncatedAndCounted() throws Exception {
        AfPacketPort port = keep(AfPacketPort.open(lab.nsA, lab.ifA, 1, 1, AfPacketOptions.defaults()));
        RawSender sender = keep(NetNamespace.callIn(lab.nsB, () -> new RawSender(lab.ifB)));
        BufferPool pool = keep(new BufferPool(64, 256));
        List<byte[]> sent = frames("tcpreplay-test.pcap");
        for (byte[] f : sent) {
            sender.send(f);
        }
        List<byte[]> got = receive(port, pool, sent.size()).get(0);
        assertThat(got).hasSize(sent.size());
        int longer = 0;
        for (int i = 0; i < sent.size(); i++) {
            byte[] s = sent.get(i);
            int keep = Math.min(s.length, 256);
            assertThat(got.get(i)).isEqualTo(java.util.Arrays.copyOf(s, keep));
            longer += s.length > 256 ? 1 : 0;
        }
        assertThat(longer).isPositive();
        assertThat(port.counters().sum(PortCounters.RX_ERRORS)).isEqualTo(longer);
        assertThat(port.counters().sum(PortCounters.RX_OCTETS)).isEqualTo(octets(sent));
    }

    @Test
    void errorsNameTheInterfaceTheCallAndErrno() {
        assertThatThrownBy(() -> AfPacketPort.open(lab.nsA, "afpacketnone", 1, 1, AfPacketOptions.defaults()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("afpacket port afpacketnone queue 0")
                .hasMessageContaining("ioctl(SIOCGIFINDEX)")
                .hasMessageContaining("ENODEV");
        assertThatThrownBy(() -> AfPacketPort.open(lab.nsA, lab.ifA, 1, 1,
                AfPacketOptions.defaults().blockSize(5000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(lab.ifA).hasMessageContaining("blockSize");
        assertThatThrownBy(() -> AfPacketPort.open("afpacket-none-x", lab.ifA, 1, 1, AfPacketOptions.defaults()))
                .isInstanceOf(IOException.class).hasMessageContaining("no such network namespace 'afpacket-none-x'");
    }

    /** Copies {@code frames[from..from+n)} into pool buffers appended to {@code v}. */
    static void fill(BufferPool pool, PacketVector v, List<byte[]> frames, int from, int n) {
        for (int i = from; i < from + n; i++) {
            byte[] f = frames.get(i);
            int b = pool.alloc();
            MemorySegment.copy(f, 0, pool.data(), ValueLayout.JAVA_BYTE, pool.offset(b), f.length);
            pool.length[b] = f.length;
            v.add(b);
        }
    }

    @Test
    void transmittedFramesArriveIdenticalOnThePeerAndNeverComeBack() throws Exception {
        List<byte[]> sent = frames("tcpreplay-test.pcap", "802.1ad_QinQ.pcap", "ipv4_tcp_http_xml.pcap",
                "various_gre.pcap");
        AfPacketPort a = keep(AfPacketPort.open(lab.nsA, lab.ifA, 1, 2, AfPacketOptions.defaults()));
        AfPacketPort b = keep(AfPacketPort.open(lab.nsB, lab.ifB, 2, 1, AfPacketOptions.defaults()));
        BufferPool txPool = keep(new BufferPool(1024, 2048));
        BufferPool rxPool = keep(new BufferPool(1024, 2048));
        PacketVector v = new PacketVector();
        // queue 0 sends the first 200 frames in vectors of 100, queue 1 the rest: one fanout group, two TX rings
        fill(txPool, v, sent, 0, 100);
        a.tx(0, txPool, v);
        assertThat(v.count).isZero();
        fill(txPool, v, sent, 100, 100);
        a.tx(0, txPool, v);
        List<byte[]> got0 = receive(b, rxPool, 200).get(0);
        fill(txPool, v, sent, 200, sent.size() - 200);
        a.tx(1, txPool, v);
        List<byte[]> got1 = receive(b, rxPool, sent.size() - 200).get(0);
        assertThat(txPool.freeCount()).isEqualTo(1024);

        assertSameFrames(got0, sent.subList(0, 200));
        assertSameFrames(got1, sent.subList(200, sent.size()));
        PortCounters c = a.counters();
        assertThat(c.get(0, PortCounters.TX_PACKETS)).isEqualTo(200);
        assertThat(c.get(1, PortCounters.TX_PACKETS)).isEqualTo(sent.size() - 200);
        assertThat(c.sum(PortCounters.TX_OCTETS)).isEqualTo(octets(sent));
        assertThat(c.sum(PortCounters.TX_DISCARDS)).isZero();
        assertThat(c.sum(PortCounters.TX_ERRORS)).isZero();
        assertThat(b.counters().sum(PortCounters.RX_PACKETS)).isEqualTo(sent.size());
        assertThat(b.counters().sum(PortCounters.RX_OCTETS)).isEqualTo(octets(sent));
        // PACKET_IGNORE_OUTGOING: nothing of what a sent comes back on a's own receive queues
        assertThat(receive(a, rxPool, 0)).allSatisfy(q -> assertThat(q).isEmpty());
        assertThat(a.counters().sum(PortCounters.RX_PACKETS)).isZero();
    }

    @Test
    void framesSentOnTheInterfaceByOtherSocketsAreIgnoredToo() throws Exception {
        List<byte[]> sent = frames("tcpreplay-test.pcap");
        AfPacketPort a = keep(AfPacketPort.open(lab.nsA, lab.ifA, 1, 1, AfPacketOptions.defaults()));
        AfPacketPort b = keep(AfPacketPort.open(lab.nsB, lab.ifB, 2, 1, AfPacketOptions.defaults()));
        RawSender other = keep(NetNamespace.callIn(lab.nsA, () -> new RawSender(lab.ifA)));
        BufferPool pool = keep(new BufferPool(1024, 2048));
        for (byte[] f : sent) {
            other.send(f);
        }
        assertSameFrames(receive(b, pool, sent.size()).get(0), sent);
        assertThat(receive(a, pool, 0).get(0)).as("outgoing frames of the host on a's interface").isEmpty();
    }

    @Test
    void oversizeAndRuntFramesAreTransmitErrorsAndAFullRingDiscardsEachWithItsDropReason() throws Exception {
        AfPacketPort a = keep(AfPacketPort.open(lab.nsA, lab.ifA, 1, 1,
                AfPacketOptions.defaults().txFrames(64)));
        AfPacketPort b = keep(AfPacketPort.open(lab.nsB, lab.ifB, 2, 1, AfPacketOptions.defaults()));
        BufferPool pool = keep(new BufferPool(1024, 4096));
        PacketVector v = new PacketVector();
        PacketVector rejected = new PacketVector();
        List<byte[]> bad = List.of(new byte[13], new byte[1515], new byte[2100]); // runt, > MTU + 14, > slot
        bad.get(1)[12] = 0x08; // IPv4 EtherType: untagged, so 1515 exceeds 1500 + 14
        fill(pool, v, bad, 0, 3);
        for (int i = 0; i < 3; i++) {
            pool.rxIfIndex[v.buffers[i]] = 40 + i;
        }
        a.tx(0, pool, v, rejected);
        assertThat(v.count).isZero();
        assertThat(rejected.count).isEqualTo(3);
        assertThat(java.util.stream.IntStream.range(0, 3).mapToObj(i -> DropReason.of(pool.dropReason[
                rejected.buffers[i]]))).containsExactly(DropReason.TX_FRAME_TOO_SHORT, DropReason.TX_FRAME_TOO_LONG,
                DropReason.TX_FRAME_TOO_LONG);
        for (int i = 0; i < 3; i++) {
            int r = rejected.buffers[i];
            assertThat(pool.length[r]).as("the frame as it was, for its discard sample").isEqualTo(bad.get(i).length);
            assertThat(pool.rxIfIndex[r]).isEqualTo(40 + i);
        }
        pool.free(rejected);
        assertThat(a.counters().sum(PortCounters.TX_ERRORS)).isEqualTo(3);
        assertThat(a.counters().sum(PortCounters.TX_PACKETS)).isZero();
        assertThat(a.maxTxFrameBytes()).as("2048-byte slot − 48 header − 10 virtio_net_hdr").isEqualTo(1990);
        assertThat(a.vnetHeader()).isTrue();
        // a 1518-byte 802.1Q-tagged frame is within MTU + 14 + 4 and goes out
        byte[] tagged = new byte[1518];
        tagged[12] = (byte) 0x81;
        fill(pool, v, List.of(tagged), 0, 1);
        a.tx(0, pool, v, rejected);
        assertThat(rejected.count).isZero();
        assertThat(a.counters().sum(PortCounters.TX_PACKETS)).isEqualTo(1);
        assertThat(a.counters().sum(PortCounters.TX_ERRORS)).isEqualTo(3);
        // 100 frames for 64 slots in one call (the kick comes after the copy): 36 find no free slot
        List<byte[]> many = frames("tcpreplay-test.pcap").subList(0, 100);
        fill(pool, v, many, 0, 100);
        a.tx(0, pool, v, rejected);
        assertThat(rejected.count).isEqualTo(36);
        for (int i = 0; i < 36; i++) {
            assertThat(DropReason.of(pool.dropReason[rejected.buffers[i]])).isEqualTo(DropReason.TX_QUEUE_FULL);
        }
        pool.free(rejected);
        assertThat(a.counters().sum(PortCounters.TX_DISCARDS)).isEqualTo(36);
        assertThat(a.counters().sum(PortCounters.TX_PACKETS)).isEqualTo(65);
        List<byte[]> got = receive(b, pool, 65).get(0);
        assertThat(got).hasSize(65);
        assertSameFrames(got.subList(1, 65), many.subList(0, 64));
        // the 3-argument form frees what it cannot send, counted the same way
        fill(pool, v, bad, 0, 3);
        a.tx(0, pool, v);
        assertThat(a.counters().sum(PortCounters.TX_ERRORS)).isEqualTo(6);
        assertThat(pool.freeCount()).isEqualTo(1024);
    }

    /**
     * A kick that fails for good (the interface is down: tpacket_snd returns ENETDOWN and leaves every frame in the
     * ring) takes the frames back as drops with their frames and receive ifIndex, so none goes out stale when the
     * link comes back, and none is counted as sent.
     */
    @Test
    void framesStuckBehindAFatalSendErrorAreTakenBackAsDrops() throws Exception {
        AfPacketPort a = keep(AfPacketPort.open(lab.nsA, lab.ifA, 1, 1, AfPacketOptions.defaults()));
        AfPacketPort b = keep(AfPacketPort.open(lab.nsB, lab.ifB, 2, 1, AfPacketOptions.defaults()));
        BufferPool pool = keep(new BufferPool(1024, 2048));
        PacketVector v = new PacketVector();
        PacketVector rejected = new PacketVector();
        List<byte[]> sent = frames("tcpreplay-test.pcap");
        lab.exec(lab.nsA, "ip", "link", "set", lab.ifA, "down");
        fill(pool, v, sent, 0, 10);
        for (int i = 0; i < 10; i++) {
            pool.rxIfIndex[v.buffers[i]] = 9;
        }
        a.tx(0, pool, v, rejected);
        assertThat(rejected.count).isEqualTo(10);
        List<byte[]> back = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            int r = rejected.buffers[i];
            assertThat(DropReason.of(pool.dropReason[r])).isEqualTo(DropReason.TX_SENDTO_FATAL);
            assertThat(pool.rxIfIndex[r]).isEqualTo(9);
            assertThat(pool.txIfIndex[r]).isEqualTo(a.ifIndex());
            back.add(0, pool.data().asSlice(pool.offset(r), pool.length[r]).toArray(ValueLayout.JAVA_BYTE));
        }
        assertSameFrames(back, sent.subList(0, 10)); // taken back newest first
        pool.free(rejected);
        PortCounters c = a.counters();
        assertThat(c.sum(PortCounters.TX_ERRORS)).isEqualTo(10);
        assertThat(c.sum(PortCounters.TX_PACKETS)).isZero();
        assertThat(c.sum(PortCounters.TX_OCTETS)).isZero();
        assertThat(a.offloadSummary()).contains("errno 100 (Network is down)");
        // the 3-argument form takes them back too, counting only
        fill(pool, v, sent, 10, 5);
        a.tx(0, pool, v);
        assertThat(c.sum(PortCounters.TX_ERRORS)).isEqualTo(15);
        lab.exec(lab.nsA, "ip", "link", "set", lab.ifA, "up");
        fill(pool, v, sent, 20, 5);
        a.tx(0, pool, v, rejected);
        assertThat(rejected.count).isZero();
        assertSameFrames(receive(b, pool, 5).get(0), sent.subList(20, 25)); // nothing stale before them
        assertThat(c.sum(PortCounters.TX_PACKETS)).isEqualTo(5);
        assertThat(c.sum(PortCounters.TX_OCTETS)).isEqualTo(octets(sent.subList(20, 25)));
        assertThat(pool.freeCount()).isEqualTo(1024);
    }

    @Test
    void fanoutDeliversEveryFrameExactlyOnceAndKeepsEachFlowOnOneQueue() throws Exception {
        List<byte[]> capture = frames("tcpreplay-test.pcap", "dns_tcp.pcap", "icmpv6.pcap");
        List<byte[]> sent = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            sent.addAll(capture);
        }
        int queues = 4;
        AfPacketPort a = keep(AfPacketPort.open(lab.nsA, lab.ifA, 1, queues, AfPacketOptions.defaults()));
        AfPacketPort again = keep(AfPacketPort.open(lab.nsA, lab.ifA, 2, 2, AfPacketOptions.defaults()));
        assertThat(again.fanoutId()).as("each port its own kernel-chosen group").isNotEqualTo(a.fanoutId());
        again.close();
        RawSender sender = keep(NetNamespace.callIn(lab.nsB, () -> new RawSender(lab.ifB)));
        BufferPool pool = keep(new BufferPool(2048, 2048));
        for (byte[] f : sent) {
            sender.send(f);
        }
        List<List<byte[]>> perQueue = receive(a, pool, sent.size());

        HexFormat hex = HexFormat.of();
        Map<String, Integer> expected = new HashMap<>();
        sent.forEach(f -> expected.merge(hex.formatHex(f), 1, Integer::sum));
        Map<String, Integer> actual = new HashMap<>();
        perQueue.forEach(q -> q.forEach(f -> actual.merge(hex.formatHex(f), 1, Integer::sum)));
        assertThat(actual).as("multiset of frames over all queues").isEqualTo(expected);
        int used = 0;
        for (int q = 0; q < queues; q++) {
            assertThat(a.counters().get(q, PortCounters.RX_PACKETS)).isEqualTo(perQueue.get(q).size());
            used += perQueue.get(q).isEmpty() ? 0 : 1;
        }
        assertThat(used).as("queues that got frames").isGreaterThanOrEqualTo(2);

        Map<String, java.util.Set<Integer>> flowQueues = new HashMap<>();
        io.vecflow.packet.ParsedPacket pp = new io.vecflow.packet.ParsedPacket();
        for (int q = 0; q < queues; q++) {
            for (byte[] f : perQueue.get(q)) {
                String k = flowKey(f, pp);
                if (k != null) {
                    flowQueues.computeIfAbsent(k, x -> new java.util.TreeSet<>()).add(q);
                }
            }
        }
        assertThat(flowQueues).hasSizeGreaterThan(10);
        assertThat(flowQueues).allSatisfy((flow, qs) -> assertThat(qs).as(flow).hasSize(1));
    }

    @Test
    void generatedFlowsOverIpv4AndIpv6EachStayOnOneFanoutQueue() throws Exception {
        GeneratorPort gen = keep(new GeneratorPort("gen", 1, 1, GeneratorPort.Options.defaults().imix().flows(256)
                .ipv6Fraction(0.5).tcpFraction(0.5).seed(5)));
        AfPacketPort a = keep(AfPacketPort.open(lab.nsA, lab.ifA, 1, 1, AfPacketOptions.defaults()));
        AfPacketPort b = keep(AfPacketPort.open(lab.nsB, lab.ifB, 2, 4, AfPacketOptions.defaults()));
        BufferPool txPool = keep(new BufferPool(512, 2048));
        BufferPool rxPool = keep(new BufferPool(4096, 2048));
        PacketVector v = new PacketVector();
        int sent = 0;
        List<List<byte[]>> perQueue = new ArrayList<>();
        for (int q = 0; q < 4; q++) {
            perQueue.add(new ArrayList<>());
        }
        int got = 0;
        PacketVector rv = new PacketVector();
        for (int i = 0; i < 40; i++) { // 40 vectors of 64 = 2,560 frames, ~10 per flow
            sent += gen.rx(0, txPool, v, 64);
            a.tx(0, txPool, v);
            // receive each vector before sending the next: a burst beyond the veth backlog (netdev_max_backlog) on a
            // busy machine would be dropped by the kernel before any socket sees it
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            while (got < sent && System.nanoTime() < deadline) {
                for (int q = 0; q < 4; q++) {
                    int n = b.rx(q, rxPool, rv, PacketVector.CAPACITY);
                    for (int k = 0; k < n; k++) {
                        int buf = rv.buffers[k];
                        perQueue.get(q).add(rxPool.data().asSlice(rxPool.offset(buf), rxPool.length[buf])
                                .toArray(ValueLayout.JAVA_BYTE));
                    }
                    got += n;
                    rxPool.free(rv);
                }
            }
        }
        assertThat(receive(b, rxPool, 0)).as("nothing more").allSatisfy(q -> assertThat(q).isEmpty());
        io.vecflow.packet.ParsedPacket pp = new io.vecflow.packet.ParsedPacket();
        Map<String, java.util.Set<Integer>> flowQueues = new HashMap<>();
        int total = 0;
        for (int q = 0; q < 4; q++) {
            assertThat(perQueue.get(q)).as("queue %d got frames", q).isNotEmpty();
            for (byte[] f : perQueue.get(q)) {
                flowQueues.computeIfAbsent(flowKey(f, pp), x -> new java.util.TreeSet<>()).add(q);
                total++;
            }
        }
        assertThat(total).as("received; a tx %s/%s/%s, b rx discards %s", a.counters().sum(PortCounters.TX_PACKETS),
                a.counters().sum(PortCounters.TX_DISCARDS), a.counters().sum(PortCounters.TX_ERRORS),
                b.counters().sum(PortCounters.RX_DISCARDS)).isEqualTo(sent).isEqualTo(2560);
        assertThat(flowQueues).doesNotContainKey(null).hasSizeGreaterThan(240);
        assertThat(flowQueues).allSatisfy((flow, qs) -> assertThat(qs).as(flow).hasSize(1));
        assertThat(a.counters().sum(PortCounters.TX_PACKETS)).isEqualTo(2560);
        assertThat(b.counters().sum(PortCounters.RX_OCTETS)).isEqualTo(a.counters().sum(PortCounters.TX_OCTETS));
    }

    /**
     * UDP and TCP sent by the Linux stack of the peer namespace leave veth with partial checksums (CHECKSUM_PARTIAL:
     * the field holds the pseudo-header sum); the port completes them, and leaves them as they are when told not to.
     */
    @Test
    void partialChecksumsOfKernelTrafficAreCompleted() throws Exception {
        VethLab.run("ip", "-n", lab.nsB, "addr", "add", "10.9.0.2/24", "dev", lab.ifB);
        VethLab.run("ip", "-n", lab.nsB, "neigh", "add", "10.9.0.1", "lladdr", "02:00:00:00:00:01", "dev", lab.ifB);
        BufferPool pool = keep(new BufferPool(256, 2048));
        io.vecflow.packet.ParsedPacket pp = new io.vecflow.packet.ParsedPacket();
        for (boolean complete : new boolean[] {true, false}) {
            AfPacketPort a = AfPacketPort.open(lab.nsA, lab.ifA, 1, 1,
                    AfPacketOptions.defaults().completeChecksums(complete));
            try {
                java.nio.channels.DatagramChannel udp = NetNamespace.callIn(lab.nsB,
                        java.nio.channels.DatagramChannel::open);
                java.nio.channels.SocketChannel tcp = NetNamespace.callIn(lab.nsB,
                        java.nio.channels.SocketChannel::open);
                try (udp; tcp) {
                    for (int size : new int[] {100, 333}) { // an even and an odd UDP payload
                        udp.send(java.nio.ByteBuffer.wrap(new byte[size]), new java.net.InetSocketAddress("10.9.0.1",
                                9999));
                    }
                    tcp.configureBlocking(false);
                    tcp.connect(new java.net.InetSocketAddress("10.9.0.1", 9998)); // sends a SYN, never answered
                    List<byte[]> got = receive(a, pool, 3).get(0);
                    List<byte[]> ip = got.stream().filter(f -> f[12] == 0x08 && f[13] == 0x00).toList();
                    assertThat(ip).as("2 UDP datagrams + 1 SYN (retransmissions allowed)")
                            .hasSizeGreaterThanOrEqualTo(3);
                    for (byte[] f : ip) {
                        if (complete) {
                            GeneratorPortTest.assertChecksumsValid(f, pp);
                        } else {
                            assertThat(l4SumValid(f, pp)).as("partial checksum left as the kernel gave it").isFalse();
                        }
                    }
                    assertThat(a.checksumsCompleted()).isEqualTo(complete ? ip.size() : 0);
                }
            } finally {
                a.close();
            }
        }
    }

    /**
     * A UDP GSO send of the peer's stack (UDP_SEGMENT, udp(7): one 14,000-byte datagram, gso_size 1,400) crosses veth
     * as one super-frame; the port hands out the 10 datagrams the wire would carry, each valid, in order. With a ring
     * block too small for the super-frame (4 KiB) the kernel cuts it: the port hands it out once, marked
     * {@link DropReason#GSO_SEGMENTATION_ERROR} for error-drop, and counts a receive error, not a received frame.
     */
    @Test
    void kernelGsoSuperFramesAreCutIntoSegmentsAndOnesThatCannotBeAreRejected() throws Exception {
        VethLab.run("ip", "-n", lab.nsB, "addr", "add", "10.9.0.2/24", "dev", lab.ifB);
        VethLab.run("ip", "-n", lab.nsB, "neigh", "add", "10.9.0.1", "lladdr", "02:00:00:00:00:01", "dev", lab.ifB);
        String udpGso = """
                import socket
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.setsockopt(socket.SOL_UDP, 103, 1400)  # UDP_SEGMENT
                s.sendto(bytes(i * 7 % 251 for i in range(14000)), ("10.9.0.1", 9999))
                """;
        BufferPool pool = keep(new BufferPool(256, 2048));
        io.vecflow.packet.ParsedPacket pp = new io.vecflow.packet.ParsedPacket();
        AfPacketPort a = AfPacketPort.open(lab.nsA, lab.ifA, 1, 1, AfPacketOptions.defaults());
        try {
            lab.exec(lab.nsB, "python3", "-c", udpGso);
            List<byte[]> got = receive(a, pool, 10).get(0);
            assertThat(got).hasSize(10);
            java.io.ByteArrayOutputStream joined = new java.io.ByteArrayOutputStream();
            for (byte[] f : got) {
                GeneratorPortTest.assertChecksumsValid(f, pp);
                assertThat(pp.protocol()).isEqualTo(17);
                joined.write(f, 42, f.length - 42);
            }
            byte[] expect = new byte[14000];
            for (int i = 0; i < expect.length; i++) {
                expect[i] = (byte) (i * 7 % 251);
            }
            assertThat(joined.toByteArray()).isEqualTo(expect);
            assertThat(a.gsoFramesSegmented()).isEqualTo(1);
            assertThat(a.gsoSegments()).isEqualTo(10);
            assertThat(a.counters().sum(PortCounters.RX_PACKETS)).isEqualTo(10);
            assertThat(a.counters().sum(PortCounters.RX_OCTETS)).isEqualTo(14000 + 10 * 42);
        } finally {
            a.close();
        }
        AfPacketPort small = keep(AfPacketPort.open(lab.nsA, lab.ifA, 1, 1,
                AfPacketOptions.defaults().blockSize(4096).blockCount(8).frameSize(2048).txFrameSize(2048)));
        lab.exec(lab.nsB, "python3", "-c", udpGso);
        PacketVector v = new PacketVector();
        int n = 0;
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (n == 0 && System.nanoTime() < deadline) {
            n = small.rx(0, pool, v, PacketVector.CAPACITY);
        }
        assertThat(n).isEqualTo(1);
        int b = v.buffers[0];
        assertThat(DropReason.of(pool.dropReason[b])).isEqualTo(DropReason.GSO_SEGMENTATION_ERROR);
        assertThat(pool.length[b]).as("the frame's head, for the discard sample").isBetween(1000, 2048);
        assertThat(small.gsoErrors()).isEqualTo(1);
        assertThat(small.offloadSummary()).contains("1 not segmentable (last: truncated by the ring)");
        assertThat(small.counters().sum(PortCounters.RX_ERRORS)).isEqualTo(1);
        assertThat(small.counters().sum(PortCounters.RX_PACKETS)).isZero();
        pool.free(v);
    }

    static boolean l4SumValid(byte[] f, io.vecflow.packet.ParsedPacket pp) {
        io.vecflow.packet.PacketParser.parse(MemorySegment.ofArray(f), 0, f.length,
                io.vecflow.packet.LinkType.ETHERNET, pp);
        int l4 = pp.l4Offset();
        int end = 14 + pp.ipTotalLength();
        long s = pp.protocol() + (end - l4);
        for (int i = 26; i < 34; i += 2) {
            s += (f[i] & 0xff) << 8 | f[i + 1] & 0xff;
        }
        for (int i = l4; i < end; i += 2) {
            s += (f[i] & 0xff) << 8 | (i + 1 < end ? f[i + 1] & 0xff : 0);
        }
        while (s > 0xffff) {
            s = (s & 0xffff) + (s >>> 16);
        }
        return s == 0xffff;
    }

    /**
     * A direction-independent TCP/UDP 5-tuple of a plain (untunnelled, unlabelled, unfragmented) IPv4/IPv6 frame, as
     * the kernel's symmetric flow hash sees it, else null.
     */
    static String flowKey(byte[] f, io.vecflow.packet.ParsedPacket pp) {
        int st = io.vecflow.packet.PacketParser.parse(MemorySegment.ofArray(f), 0, f.length,
                io.vecflow.packet.LinkType.ETHERNET, pp);
        if (st != io.vecflow.packet.ParsedPacket.OK || pp.vlanCount() != 0 || pp.mplsLabelCount() != 0
                || pp.encapsulation() != io.vecflow.packet.ParsedPacket.Encapsulation.NONE || pp.isFragment()
                || (pp.protocol() != 6 && pp.protocol() != 17)) {
            return null;
        }
        String s = pp.srcAddressString() + "/" + pp.srcPort();
        String d = pp.dstAddressString() + "/" + pp.dstPort();
        return pp.protocol() + " " + (s.compareTo(d) < 0 ? s + " " + d : d + " " + s);
    }
}
