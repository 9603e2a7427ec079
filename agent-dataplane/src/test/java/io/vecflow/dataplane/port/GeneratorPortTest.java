package io.vecflow.dataplane.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.vecflow.dataplane.ThreadAllocation;
import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import io.vecflow.packet.PcapWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The traffic generator port: sizes, IMIX, flow popularity, checksums (recomputed here and judged by tshark). */
class GeneratorPortTest {
    /** Frames of {@code n} rx calls of up to 256 frames from queue {@code queue}, as byte arrays. */
    static List<byte[]> take(GeneratorPort g, int queue, int frames) {
        List<byte[]> out = new ArrayList<>();
        try (BufferPool pool = new BufferPool(512, 2048)) {
            PacketVector v = new PacketVector();
            while (out.size() < frames) {
                int n = g.rx(queue, pool, v, Math.min(PacketVector.CAPACITY, frames - out.size()));
                if (n == 0) {
                    break;
                }
                for (int i = 0; i < n; i++) {
                    int b = v.buffers[i];
                    assertThat(pool.rxIfIndex[b]).isEqualTo(g.ifIndex());
                    out.add(pool.data().asSlice(pool.offset(b), pool.length[b]).toArray(ValueLayout.JAVA_BYTE));
                }
                pool.free(v);
            }
        }
        return out;
    }

    // ---- an independent checksum check: the ones' complement sum over a region including its checksum is 0xFFFF ----

    private static long words(byte[] f, int off, int len) {
        long s = 0;
        for (int i = 0; i + 1 < len; i += 2) {
            s += (f[off + i] & 0xff) << 8 | (f[off + i + 1] & 0xff);
        }
        if ((len & 1) != 0) {
            s += (f[off + len - 1] & 0xff) << 8;
        }
        return s;
    }

    private static int folded(long s) {
        while (s > 0xffff) {
            s = (s >>> 16) + (s & 0xffff);
        }
        return (int) s;
    }

    /** Asserts the IPv4 header checksum and the UDP/TCP checksum (with its pseudo-header) of an Ethernet frame. */
    static void assertChecksumsValid(byte[] f, ParsedPacket p) {
        assertThat(PacketParser.parse(MemorySegment.ofArray(f), 0, f.length, LinkType.ETHERNET, p))
                .isEqualTo(ParsedPacket.OK);
        int l3 = p.l3Offset();
        int l4 = p.l4Offset();
        int l4Len = f.length - l4;
        long pseudo;
        if (p.ipVersion() == 4) {
            assertThat(folded(words(f, l3, 20))).as("IPv4 header sum").isEqualTo(0xffff);
            assertThat(p.ipTotalLength()).isEqualTo(f.length - 14);
            pseudo = words(f, l3 + 12, 8);
        } else {
            assertThat(p.ipVersion()).isEqualTo(6);
            assertThat(((f[l3 + 4] & 0xff) << 8 | f[l3 + 5] & 0xff)).as("IPv6 payload length").isEqualTo(f.length - 54);
            pseudo = words(f, l3 + 8, 32);
        }
        pseudo += p.protocol() + l4Len;
        assertThat(p.protocol()).isIn(6, 17);
        if (p.protocol() == 17) {
            assertThat((f[l4 + 4] & 0xff) << 8 | f[l4 + 5] & 0xff).as("UDP length").isEqualTo(l4Len);
            assertThat((f[l4 + 6] & 0xff) << 8 | f[l4 + 7] & 0xff).as("UDP checksum present").isNotZero();
        }
        assertThat(folded(pseudo + words(f, l4, l4Len))).as("L4 sum").isEqualTo(0xffff);
    }

    @Test
    void fixedSizeFramesOfUniformFlowsHaveValidChecksums() {
        GeneratorPort g = new GeneratorPort("gen0", 3, 1,
                GeneratorPort.Options.defaults().frameSize(128).flows(100).uniform());
        List<byte[]> frames = take(g, 0, 100_000);
        assertThat(frames).hasSize(100_000).allSatisfy(f -> assertThat(f).hasSize(128));
        ParsedPacket p = new ParsedPacket();
        Map<String, Integer> perFlow = new HashMap<>();
        for (byte[] f : frames) {
            assertChecksumsValid(f, p);
            assertThat(p.ipVersion()).isEqualTo(4);
            assertThat(p.protocol()).isEqualTo(17);
            assertThat(p.ttl()).isEqualTo(64);
            assertThat(p.srcAddressString()).startsWith("198.18.");
            assertThat(p.dstAddressString()).startsWith("198.19.");
            perFlow.merge(p.srcAddressString() + ":" + p.srcPort() + ">" + p.dstAddressString() + ":" + p.dstPort(), 1,
                    Integer::sum);
        }
        assertThat(perFlow).hasSize(100);
        // uniform: 1,000 expected per flow, binomial sd ≈ 31.5; 5 sd
        assertThat(perFlow.values()).allSatisfy(c -> assertThat(c).isBetween(843, 1157));
        assertThat(g.counters().sum(PortCounters.RX_PACKETS)).isEqualTo(100_000);
        assertThat(g.counters().sum(PortCounters.RX_OCTETS)).isEqualTo(12_800_000);
        g.close();
    }

    @Test
    void imixIsExactly7To4To1Of60And590And1514BytesAndIpv6SmallFramesGrowToTheirHeaders() {
        GeneratorPort g = new GeneratorPort("gen0", 1, 1, GeneratorPort.Options.defaults().imix().flows(64)
                .ipv6Fraction(0.5).tcpFraction(0.5).seed(7));
        int frames = 12 * 1024 * 10; // 10 schedule cycles
        Map<Integer, Integer> sizes = new HashMap<>();
        ParsedPacket p = new ParsedPacket();
        int v6 = 0;
        int tcp = 0;
        for (byte[] f : take(g, 0, frames)) {
            assertChecksumsValid(f, p);
            int size = f.length;
            if (p.ipVersion() == 6 && size < 590) {
                assertThat(size).isEqualTo(p.protocol() == 6 ? 74 : 62);
                size = 60; // the small IMIX class
            }
            sizes.merge(size, 1, Integer::sum);
            v6 += p.ipVersion() == 6 ? 1 : 0;
            tcp += p.protocol() == 6 ? 1 : 0;
        }
        assertThat(sizes).containsOnlyKeys(60, 590, 1514);
        assertThat(sizes.get(60)).isEqualTo(7 * 10240);
        assertThat(sizes.get(590)).isEqualTo(4 * 10240);
        assertThat(sizes.get(1514)).isEqualTo(10240);
        assertThat(v6).as("IPv6 frames of 32 of 64 flows").isBetween(frames / 2 - 3000, frames / 2 + 3000);
        assertThat(tcp).as("TCP frames").isBetween(frames / 2 - 3000, frames / 2 + 3000);
        long ipv6Flows = java.util.stream.IntStream.range(0, 64).filter(g::isIpv6).count();
        long tcpFlows = java.util.stream.IntStream.range(0, 64).filter(g::isTcp).count();
        assertThat(ipv6Flows).isEqualTo(32);
        assertThat(tcpFlows).isEqualTo(32);
        g.close();
    }

    @Test
    void zipfRankFrequenciesMatchTheLaw() {
        int flows = 1000;
        double s = 1.1;
        GeneratorPort g = new GeneratorPort("gen0", 1, 1, GeneratorPort.Options.defaults().flows(flows).zipf(s)
                .seed(42));
        int frames = 1_000_000;
        long[] count = new long[flows];
        ParsedPacket p = new ParsedPacket();
        for (byte[] f : take(g, 0, frames)) {
            PacketParser.parse(MemorySegment.ofArray(f), 0, f.length, LinkType.ETHERNET, p);
            int flow = p.srcIpv4() & 0xffff; // source 198.18.0.0 + flow
            count[flow]++;
        }
        double h = 0;
        for (int k = 1; k <= flows; k++) {
            h += Math.pow(k, -s);
        }
        for (int k = 1; k <= 20; k++) { // the head: each rank within 5 binomial sd of k^-s / H
            double pk = Math.pow(k, -s) / h;
            double sd = Math.sqrt(frames * pk * (1 - pk));
            assertThat((double) count[k - 1]).as("rank " + k).isCloseTo(frames * pk, within(5 * sd));
        }
        double tail = 0; // ranks 101..1000 together
        long tailCount = 0;
        for (int k = 101; k <= flows; k++) {
            tail += Math.pow(k, -s) / h;
            tailCount += count[k - 1];
        }
        assertThat((double) tailCount).isCloseTo(frames * tail, within(5 * Math.sqrt(frames * tail * (1 - tail))));
        assertThat(count[0]).as("rank 1 is the most popular").isGreaterThan(count[1]).isGreaterThan(count[9]);
        g.close();
    }

    @Test
    void sameSeedSameFramesOtherSeedOtherFrames() {
        GeneratorPort.Options o = GeneratorPort.Options.defaults().imix().flows(500).zipf(0.9).ipv6Fraction(0.3)
                .tcpFraction(0.6).seed(1234);
        GeneratorPort a = new GeneratorPort("a", 1, 2, o);
        GeneratorPort b = new GeneratorPort("b", 1, 2, o);
        GeneratorPort c = new GeneratorPort("c", 1, 2, o.seed(1235));
        for (int queue = 0; queue < 2; queue++) {
            List<byte[]> fa = take(a, queue, 5000);
            List<byte[]> fb = take(b, queue, 5000);
            List<byte[]> fc = take(c, queue, 5000);
            for (int i = 0; i < 5000; i++) {
                assertThat(fb.get(i)).isEqualTo(fa.get(i));
            }
            int same = 0;
            for (int i = 0; i < 5000; i++) {
                same += Arrays.equals(fa.get(i), fc.get(i)) ? 1 : 0;
            }
            assertThat(same).as("frames equal under another seed").isLessThan(500);
        }
        a.close();
        b.close();
        c.close();
    }

    @Test
    void flowsArePartitionedOverQueuesAndTheCountLimitEndsEachQueue() {
        GeneratorPort g = new GeneratorPort("gen0", 1, 3, GeneratorPort.Options.defaults().frameSize(80).flows(30)
                .ipv6Fraction(1).count(1000));
        ParsedPacket p = new ParsedPacket();
        int[] produced = new int[3];
        for (int queue = 0; queue < 3; queue++) {
            List<byte[]> frames = take(g, queue, 10_000);
            produced[queue] = frames.size();
            assertThat(g.rxExhausted(queue)).isTrue();
            for (byte[] f : frames) {
                assertChecksumsValid(f, p);
                int flow = (int) p.srcAddrLo(); // source 2001:2::flow
                assertThat(flow % 3).as("flow %d on queue %d", flow, queue).isEqualTo(queue);
            }
        }
        assertThat(produced).containsExactly(334, 333, 333);
        try (BufferPool pool = new BufferPool(16, 2048)) {
            assertThat(g.rx(0, pool, new PacketVector(), 16)).isZero();
        }
        assertThat(g.counters().sum(PortCounters.RX_PACKETS)).isEqualTo(1000);
        g.close();
    }

    @Test
    void rateLimitNeverRunsAhead() throws InterruptedException {
        GeneratorPort g = new GeneratorPort("gen0", 1, 1, GeneratorPort.Options.defaults().packetsPerSecond(1000));
        try (BufferPool pool = new BufferPool(256, 2048)) {
            PacketVector v = new PacketVector();
            long start = System.nanoTime();
            int total = g.rx(0, pool, v, 256);
            pool.free(v);
            assertThat(total).as("first call: one frame").isEqualTo(1);
            Thread.sleep(50);
            total += g.rx(0, pool, v, 256);
            pool.free(v);
            double elapsedS = (System.nanoTime() - start) / 1e9;
            assertThat(total).isGreaterThan(1).isLessThanOrEqualTo((int) (elapsedS * 1000) + 1);
        }
    }

    @Test
    void badSettingsAreNamed() {
        assertThatThrownBy(() -> new GeneratorPort("g", 1, 1, GeneratorPort.Options.defaults().frameSize(60)
                .ipv6Fraction(1).tcpFraction(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("generator port g").hasMessageContaining("frameSize must be in 74..9014");
        assertThatThrownBy(() -> new GeneratorPort("g", 1, 1, GeneratorPort.Options.defaults().flows(0)))
                .hasMessageContaining("flows must be in 1..1048576, got 0");
        assertThatThrownBy(() -> new GeneratorPort("g", 1, 1, GeneratorPort.Options.defaults().zipf(0)))
                .hasMessageContaining("zipf exponent must be > 0");
    }

    @Test
    void framesLongerThanTheBufferAreTruncatedAndCounted() {
        GeneratorPort g = new GeneratorPort("gen0", 1, 1, GeneratorPort.Options.defaults().frameSize(1514));
        try (BufferPool pool = new BufferPool(16, 1024)) {
            PacketVector v = new PacketVector();
            assertThat(g.rx(0, pool, v, 16)).isEqualTo(16);
            assertThat(pool.length[v.buffers[0]]).isEqualTo(1024);
        }
        assertThat(g.counters().sum(PortCounters.RX_ERRORS)).isEqualTo(16);
        assertThat(g.counters().sum(PortCounters.RX_OCTETS)).isEqualTo(16 * 1514);
    }

    /** tshark (Wireshark's dissectors with checksum validation on) judges every frame's checksums good. */
    @Test
    void tsharkFindsEveryChecksumGood(@TempDir Path dir) throws Exception {
        GeneratorPort g = new GeneratorPort("gen0", 1, 1, GeneratorPort.Options.defaults().imix().flows(200)
                .zipf(1.0).ipv6Fraction(0.5).tcpFraction(0.5).seed(99));
        List<byte[]> frames = take(g, 0, 2000);
        Path pcap = dir.resolve("gen.pcap");
        try (PcapWriter w = PcapWriter.create(pcap, LinkType.ETHERNET, 65535)) {
            long t = 1_700_000_000_000_000_000L;
            for (byte[] f : frames) {
                w.write(t += 1000, f);
            }
        }
        Process p = new ProcessBuilder("tshark", "-r", pcap.toString(), "-o", "ip.check_checksum:TRUE", "-o",
                "udp.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-T", "fields", "-e", "ip.checksum.status",
                "-e", "udp.checksum.status", "-e", "tcp.checksum.status", "-e", "frame.len")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("tshark finished").isTrue();
        assertThat(p.exitValue()).as("tshark exit (tshark must be installed)").isZero();
        String[] lines = out.strip().split("\n");
        assertThat(lines).hasSize(2000);
        int ip4 = 0;
        for (int i = 0; i < lines.length; i++) {
            String[] c = lines[i].split("\t", -1);
            // PROTO_CHECKSUM_E_GOOD = 1 (epan/proto.h); IPv6 has no header checksum (empty)
            assertThat(c[0]).as("frame %d ip", i + 1).isIn("", "1");
            assertThat(c[1] + c[2]).as("frame %d udp/tcp", i + 1).isEqualTo("1");
            assertThat(Integer.parseInt(c[3])).isEqualTo(frames.get(i).length);
            ip4 += c[0].equals("1") ? 1 : 0;
        }
        assertThat(ip4).isBetween(1, 1999);
        Files.delete(pcap);
    }


    @Test
    void rxAllocatesNothingPerFrame() {
        GeneratorPort g = new GeneratorPort("gen0", 1, 1, GeneratorPort.Options.defaults().imix().flows(10_000)
                .zipf(1.0).ipv6Fraction(0.5).tcpFraction(0.5));
        try (BufferPool pool = new BufferPool(512, 2048)) {
            PacketVector v = new PacketVector();
            Runnable window = () -> {
                for (int i = 0; i < 1000; i++) {
                    g.rx(0, pool, v, PacketVector.CAPACITY);
                    g.tx(0, pool, v); // the sink frees them
                }
            };
            for (int i = 0; i < 20; i++) {
                window.run();
            }
            long probe = Long.MAX_VALUE;
            for (int i = 0; i < 3; i++) {
                long x = ThreadAllocation.bytes();
                probe = Math.min(probe, ThreadAllocation.bytes() - x);
            }
            long best = Long.MAX_VALUE;
            for (int i = 0; i < 10 && best > probe; i++) {
                long before = ThreadAllocation.bytes();
                window.run(); // 256,000 frames
                best = Math.min(best, ThreadAllocation.bytes() - before);
            }
            assertThat(best - probe).as("bytes allocated for 256,000 frames").isLessThan(128);
            assertThat(g.counters().sum(PortCounters.TX_PACKETS)).isEqualTo(g.counters().sum(PortCounters.RX_PACKETS));
        }
        g.close();
    }
}
