package io.vecflow.dataplane.plugins.lb.maglev;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.ThreadAllocation;
import io.vecflow.dataplane.plugins.lb.encap.LbPackets;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** {@link FlowKey#read} against the packet module's parser, and {@link FlowHash}. */
class FlowKeyTest {
    private static final long BUF = 2048; // a second pool buffer: offsets are absolute

    private static MemorySegment seg() {
        return Arena.ofAuto().allocate(4 * 2048, 64);
    }

    @Test
    void ipv4TcpKeyMatchesThePacketParserAndItsFlowHash() {
        MemorySegment s = seg();
        byte[] f = LbPackets.ipv4Frame("198.51.100.7", "203.0.113.10", 6, 40000, 443, 0x02, 10, true, 100);
        LbPackets.load(s, BUF, f);
        FlowKey k = new FlowKey();
        assertThat(k.read(s, BUF + 18, f.length - 18)).isEqualTo(FlowKey.OK);
        ParsedPacket pp = new ParsedPacket();
        assertThat(PacketParser.parse(s, BUF, f.length, LinkType.ETHERNET, pp)).isEqualTo(ParsedPacket.OK);
        assertThat(k.ipVersion).isEqualTo(4);
        assertThat(k.srcIpv4()).isEqualTo(LbPackets.v4int("198.51.100.7")).isEqualTo(pp.srcIpv4());
        assertThat(k.dstIpv4()).isEqualTo(LbPackets.v4int("203.0.113.10"));
        assertThat(k.srcLo).isEqualTo(pp.srcAddrLo());
        assertThat(k.dstLo).isEqualTo(pp.dstAddrLo());
        assertThat(k.protocol).isEqualTo(6);
        assertThat(k.srcPort).isEqualTo(40000);
        assertThat(k.dstPort).isEqualTo(443);
        assertThat(k.tcpFlags).isEqualTo(FlowKey.TCP_SYN);
        assertThat(k.l4Offset).isEqualTo(20);
        assertThat(FlowHash.hash(0, k)).as("seed 0 = ParsedPacket.flowHash").isEqualTo(pp.flowHash());
        assertThat(FlowHash.hash(12345, k)).isNotEqualTo(pp.flowHash());
    }

    /**
     * The IHL-5 fast path against the general path: a random IPv4 header read as is (IHL 5), and the same packet
     * with a 4-byte option (IHL 6: the general path), give the same status and key, the offsets 4 apart.
     */
    @Test
    void ipv4WithoutOptionsReadsAsTheGeneralPathDoes() {
        MemorySegment s = seg();
        java.util.Random rnd = new java.util.Random(791);
        int[] protocols = {6, 17, 132, 1, 47};
        int ok = 0, truncated = 0, malformed = 0;
        for (int round = 0; round < 50_000; round++) {
            byte[] h = new byte[60];
            rnd.nextBytes(h);
            h[0] = 0x45;
            h[9] = (byte) protocols[rnd.nextInt(protocols.length)];
            if (rnd.nextBoolean()) {
                h[6] &= (byte) 0xC0; // often not a fragment
                h[7] = 0;
            }
            int len = 20 + rnd.nextInt(30);
            int total = switch (rnd.nextInt(4)) {
                case 0 -> 0;
                case 1 -> rnd.nextInt(24);
                default -> 20 + rnd.nextInt(len - 19);
            };
            h[2] = (byte) (total >>> 8);
            h[3] = (byte) total;
            byte[] o = new byte[64];
            System.arraycopy(h, 0, o, 0, 20);
            o[0] = 0x46;
            o[20] = o[21] = o[22] = o[23] = 1; // four NOP options
            System.arraycopy(h, 20, o, 24, 40);
            int totalO = total == 0 ? 0 : total < 20 ? total : total + 4;
            o[2] = (byte) (totalO >>> 8);
            o[3] = (byte) totalO;
            FlowKey a = new FlowKey(), b = new FlowKey();
            s.asSlice(0, 64).copyFrom(MemorySegment.ofArray(h));
            int ra = a.read(s, 0, len);
            s.asSlice(0, 64).copyFrom(MemorySegment.ofArray(o));
            int rb = b.read(s, 0, len + 4);
            String at = "round " + round + " total " + total + " len " + len;
            assertThat(ra).as(at).isEqualTo(rb);
            if (ra == FlowKey.OK) {
                ok++;
                assertThat(new long[] {a.srcLo, a.dstLo, a.protocol, a.srcPort, a.dstPort, a.tcpFlags, a.l4Offset + 4,
                    a.fragment ? 1 : 0}).as(at).containsExactly(b.srcLo, b.dstLo, b.protocol, b.srcPort, b.dstPort,
                        b.tcpFlags, b.l4Offset, b.fragment ? 1 : 0);
            } else {
                if (ra == FlowKey.TRUNCATED) {
                    truncated++;
                } else {
                    malformed++;
                }
                assertThat(a.errorOffset).as(at).isEqualTo(b.errorOffset <= 2 ? b.errorOffset : b.errorOffset - 4);
            }
        }
        assertThat(ok).isGreaterThan(10_000);
        assertThat(truncated).isGreaterThan(1_000);
        assertThat(malformed).isGreaterThan(1_000);
    }

    @Test
    void ipv6UdpKeySkipsExtensionHeadersAndMatchesTheParser() {
        MemorySegment s = seg();
        byte[] base = LbPackets.ipv6Frame("2001:db8::1", "2001:db8:ff::80", 17, 5353, 53, 0, 20, -1);
        // insert an 8-byte Destination Options header (60) between IPv6 and UDP
        byte[] f = new byte[base.length + 8];
        System.arraycopy(base, 0, f, 0, 54);
        f[54] = 17; // next header UDP
        f[55] = 0;  // hdr ext len 0 → 8 bytes
        f[56] = 1;  // PadN
        f[57] = 4;
        System.arraycopy(base, 54, f, 62, base.length - 54);
        f[14 + 6] = 60;
        LbPackets.put16(f, 14 + 4, LbPackets.u16(base, 14 + 4) + 8);
        LbPackets.load(s, BUF, f);
        FlowKey k = new FlowKey();
        assertThat(k.read(s, BUF + 14, f.length - 14)).isEqualTo(FlowKey.OK);
        ParsedPacket pp = new ParsedPacket();
        assertThat(PacketParser.parse(s, BUF, f.length, LinkType.ETHERNET, pp)).isEqualTo(ParsedPacket.OK);
        assertThat(k.ipVersion).isEqualTo(6);
        assertThat(k.srcHi).isEqualTo(0x20010db800000000L).isEqualTo(pp.srcAddrHi());
        assertThat(k.srcLo).isEqualTo(1L).isEqualTo(pp.srcAddrLo());
        assertThat(k.dstHi).isEqualTo(0x20010db800ff0000L);
        assertThat(k.dstLo).isEqualTo(0x80L);
        assertThat(k.protocol).isEqualTo(17);
        assertThat(k.srcPort).isEqualTo(5353);
        assertThat(k.dstPort).isEqualTo(53);
        assertThat(k.l4Offset).isEqualTo(48);
        assertThat(FlowHash.hash(0, k)).isEqualTo(pp.flowHash());
    }

    @Test
    void fragmentsHaveNoPortsSoAllFragmentsShareOneKey() {
        MemorySegment s = seg();
        byte[] f = LbPackets.ipv4Frame("10.0.0.1", "10.0.0.2", 17, 1111, 2222, 0, 100, false, -1);
        f[14 + 6] = 0x20; // MF, offset 0: first fragment
        LbPackets.load(s, 0, f);
        FlowKey k = new FlowKey();
        assertThat(k.read(s, 14, f.length - 14)).isEqualTo(FlowKey.OK);
        assertThat(k.fragment).isTrue();
        assertThat(k.srcPort).isZero();
        assertThat(k.dstPort).isZero();
        long first = FlowHash.hash(7, k);
        f[14 + 6] = 0x00;
        f[14 + 7] = 0x10; // offset 16 × 8 bytes, no MF: last fragment
        LbPackets.load(s, 0, f);
        assertThat(k.read(s, 14, f.length - 14)).isEqualTo(FlowKey.OK);
        assertThat(FlowHash.hash(7, k)).isEqualTo(first);
    }

    @Test
    void badHeadersAreReportedWithTheirOffset() {
        MemorySegment s = seg();
        byte[] f = LbPackets.ipv4Frame("10.0.0.1", "10.0.0.2", 6, 1, 2, 0, 0, false, -1);
        LbPackets.load(s, 0, f);
        FlowKey k = new FlowKey();
        assertThat(k.read(s, 14, 19)).isEqualTo(FlowKey.TRUNCATED);
        assertThat(k.read(s, 14, 22)).isEqualTo(FlowKey.TRUNCATED); // ports cut
        assertThat(k.errorOffset).isEqualTo(20);
        s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 14, (byte) 0x44); // IHL 4
        assertThat(k.read(s, 14, 40)).isEqualTo(FlowKey.MALFORMED);
        s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 14, (byte) 0x55); // version 5
        assertThat(k.read(s, 14, 40)).isEqualTo(FlowKey.MALFORMED);
        assertThat(k.errorOffset).isZero();
    }

    @Test
    void crc32cVariantIsTheCrc32cOfTheKeyBytesAndAllocatesNothing() {
        FlowKey k = new FlowKey().setIpv4(0x0A000001, 0x0A000002, 6, 1234, 80);
        FlowHash.Crc32c c = new FlowHash.Crc32c();
        byte[] bytes = new byte[40];
        long[] words = {k.srcHi, k.srcLo, k.dstHi, k.dstLo, k.portsWord()};
        for (int w = 0; w < 5; w++) {
            for (int i = 0; i < 8; i++) {
                bytes[w * 8 + i] = (byte) (words[w] >>> (56 - 8 * i));
            }
        }
        CRC32C ref = new CRC32C();
        ref.update(bytes);
        assertThat(c.hash(k)).isEqualTo(ref.getValue());

        long sink = 0;
        for (int i = 0; i < 200_000; i++) { // warm-up: JIT-compile both
            k.srcPort = i & 0xFFFF;
            sink += c.hash(k) + FlowHash.hash(1, k);
        }
        long best = Long.MAX_VALUE;
        for (int r = 0; r < 5 && best > 0; r++) {
            long before = ThreadAllocation.bytes();
            for (int i = 0; i < 1_000_000; i++) {
                k.srcPort = i & 0xFFFF;
                sink += c.hash(k) + FlowHash.hash(1, k);
            }
            best = Math.min(best, ThreadAllocation.bytes() - before);
        }
        assertThat(best).as("bytes allocated for 1M CRC32C + xxh hashes (the probe itself costs < 1 KiB)")
                .isLessThan(1024);
        assertThat(sink).isNotZero();
    }

    @Test
    void hashSpreadsSequentialFlowsEvenlyOverBucketsAndMaglevSlots() {
        // 2^20 flows differing only in source port/address low bits → 4096 buckets by low 12 bits and 65537 slots
        int[] buckets = new int[4096];
        int[] slots = new int[MaglevTable.DEFAULT_SIZE];
        FlowKey k = new FlowKey();
        int n = 1 << 20;
        for (int i = 0; i < n; i++) {
            k.setIpv4(0x0A000000 | (i >>> 8), 0xCB00710A, 6, 1024 + (i & 0xFF), 443);
            long h = FlowHash.hash(99, k);
            buckets[(int) h & 4095]++;
            slots[(int) Long.remainderUnsigned(h, MaglevTable.DEFAULT_SIZE)]++;
        }
        // chi-square with 4095 degrees of freedom: mean 4095, sd ≈ 90.5; 5 sd bound
        double expected = n / 4096.0, chi = 0;
        for (int c : buckets) {
            chi += (c - expected) * (c - expected) / expected;
        }
        assertThat(chi).isBetween(4095 - 5 * 90.5, 4095 + 5 * 90.5);
        double e2 = (double) n / slots.length, chi2 = 0;
        for (int c : slots) {
            chi2 += (c - e2) * (c - e2) / e2;
        }
        assertThat(chi2).isBetween(65536 - 5 * 362.0, 65536 + 5 * 362.0);
    }

}
