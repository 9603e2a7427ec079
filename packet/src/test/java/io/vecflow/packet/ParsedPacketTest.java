package io.vecflow.packet;

import org.junit.jupiter.api.Test;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ParsedPacketTest {

    @Test
    void addressAccessorsForIpv4AndIpv6() throws Exception {
        PcapFile tcp = Captures.load("tcpreplay-test.pcap");
        ParsedPacket p = new ParsedPacket();
        byte[] d = tcp.packets().getFirst().data();
        PacketParser.parse(d, 0, d.length, tcp.linkType(), p);
        byte[] buf = new byte[40];
        p.writeSrcAddr(buf, 2);
        p.writeDstAddr(buf, 20);
        assertThat(java.util.Arrays.copyOfRange(buf, 2, 18))
                .isEqualTo(Captures.hex("00000000000000000000ffff ac100b0c"));
        assertThat(java.util.Arrays.copyOfRange(buf, 20, 36))
                .isEqualTo(Captures.hex("00000000000000000000ffff 4a7d1311"));
        assertThat(p.srcAddress()).isInstanceOf(Inet4Address.class)
                .isEqualTo(InetAddress.getByName("172.16.11.12"));
        assertThat(p.dstAddress()).isEqualTo(InetAddress.getByName("74.125.19.17"));
        assertThatThrownBy(() -> p.writeSrcAddr(buf, 30)).isInstanceOf(IndexOutOfBoundsException.class);

        d = tcp.packets().get(28).data(); // frame 29, IPv6
        PacketParser.parse(d, 0, d.length, tcp.linkType(), p);
        assertThat(p.srcAddress()).isInstanceOf(Inet6Address.class)
                .isEqualTo(InetAddress.getByName("2001:4958:15a0:24:c1b3:b766:7fff:d0b3"));
        assertThat(p.dstAddressString()).isEqualTo("2606:4700::6812:69c");
        p.writeDstAddr(buf, 0);
        assertThat(java.util.Arrays.copyOf(buf, 16)).isEqualTo(InetAddress.getByName("2606:4700::6812:69c")
                .getAddress());
    }

    @Test
    void resetClearsEverything() {
        PcapFile f = Captures.load("ipv4_tcp_http_xml.pcap");
        ParsedPacket p = new ParsedPacket();
        byte[] d = f.packets().getFirst().data();
        PacketParser.parse(d, 0, d.length, f.linkType(), p);
        String fresh = new ParsedPacket().toString();
        assertThat(p.toString()).isNotEqualTo(fresh);
        p.reset();
        assertThat(p.toString()).isEqualTo(fresh);
        assertThat(p.srcAddressString()).isNull();
        assertThat(p.srcAddress()).isNull();
        assertThat(p.l3Offset()).isEqualTo(-1);
        assertThat(p.l4Offset()).isEqualTo(-1);
        assertThat(p.vlanId()).isZero();
        assertThat(p.srcPort()).isZero();
        assertThat(p.tcpFlags()).isZero();
        assertThat(p.ttl()).isZero();
        assertThat(p.errorLayer()).isEqualTo(ParsedPacket.Layer.NONE);
        assertThat(p.flowHash()).isEqualTo(new ParsedPacket().flowHash());
    }

    @Test
    void statusNames() {
        assertThat(ParsedPacket.statusName(ParsedPacket.OK)).isEqualTo("OK");
        assertThat(ParsedPacket.statusName(ParsedPacket.NOT_IP)).isEqualTo("NOT_IP");
        assertThat(ParsedPacket.statusName(ParsedPacket.TRUNCATED)).isEqualTo("TRUNCATED");
        assertThat(ParsedPacket.statusName(ParsedPacket.MALFORMED)).isEqualTo("MALFORMED");
        assertThat(ParsedPacket.statusName(ParsedPacket.UNSUPPORTED_LINK)).isEqualTo("UNSUPPORTED_LINK");
        assertThat(ParsedPacket.statusName(99)).isEqualTo("UNKNOWN(99)");
    }

    // ---- flowHash ---------------------------------------------------------------------------------

    @Test
    void flowHashDependsOnTheFiveTupleOnly() {
        PcapFile f = Captures.load("tcpreplay-test.pcap");
        ParsedPacket p = new ParsedPacket();
        Map<String, Long> byTuple = new HashMap<>();
        Set<Long> hashes = new HashSet<>();
        for (PcapPacket pkt : f.packets()) {
            byte[] d = pkt.data();
            if (PacketParser.parse(d, 0, d.length, f.linkType(), p) != ParsedPacket.OK) {
                continue;
            }
            String tuple = p.srcAddressString() + " " + p.dstAddressString() + " " + p.protocol() + " "
                    + p.srcPort() + " " + p.dstPort();
            Long previous = byTuple.putIfAbsent(tuple, p.flowHash());
            if (previous != null) {
                assertThat(p.flowHash()).as("same flow, same hash: %s", tuple).isEqualTo(previous);
            }
            hashes.add(p.flowHash());
        }
        assertThat(byTuple).hasSizeGreaterThan(30);
        assertThat(hashes).as("distinct flows, distinct hashes").hasSameSizeAs(byTuple.keySet());

        // frames 1 and 3: same connection, opposite directions
        ParsedPacket a = new ParsedPacket();
        ParsedPacket b = new ParsedPacket();
        byte[] d1 = f.packets().get(0).data();
        byte[] d3 = f.packets().get(2).data();
        PacketParser.parse(d1, 0, d1.length, LinkType.ETHERNET, a);
        PacketParser.parse(d3, 0, d3.length, LinkType.ETHERNET, b);
        assertThat(a.srcPort()).isEqualTo(b.dstPort());
        assertThat(a.flowHash()).as("direction-sensitive").isNotEqualTo(b.flowHash());

        // MACs, VLAN, TTL, TOS do not matter
        a.srcMac = 1;
        a.innerVlan = 7;
        a.ttl = 3;
        a.tos = 0xb8;
        ParsedPacket c = new ParsedPacket();
        PacketParser.parse(d1, 0, d1.length, LinkType.ETHERNET, c);
        assertThat(a.flowHash()).isEqualTo(c.flowHash());
    }

    @Test
    void flowHashSpreadsSimilarFlowsEvenly() {
        // 65536 flows that differ only in the low bits of the source address and port, like a scan
        ParsedPacket p = new ParsedPacket();
        p.ipVersion = 4;
        p.protocol = 6;
        p.dstPort = 443;
        p.dstAddrLo = 0xFFFF_0A00_0001L;
        int[] low = new int[16];
        int[] high = new int[16];
        for (int i = 0; i < 65536; i++) {
            p.srcAddrLo = 0xFFFF_C0A8_0000L | (i >>> 8);
            p.srcPort = 40_000 + (i & 0xFF);
            long h = p.flowHash();
            low[(int) (h & 15)]++;
            high[(int) (h >>> 60)]++;
        }
        for (int bucket = 0; bucket < 16; bucket++) {
            assertThat(low[bucket]).as("low bits bucket %d", bucket).isBetween(3800, 4400); // 4096 ± 7 %
            assertThat(high[bucket]).as("high bits bucket %d", bucket).isBetween(3800, 4400);
        }
    }

    @Test
    void flowHashAvalanches() {
        // flipping any single input bit flips about half of the 64 output bits
        ParsedPacket p = new ParsedPacket();
        java.util.Random rnd = new java.util.Random(5952);
        long flipped = 0;
        int trials = 0;
        for (int t = 0; t < 200; t++) {
            p.srcAddrHi = rnd.nextLong();
            p.srcAddrLo = rnd.nextLong();
            p.dstAddrHi = rnd.nextLong();
            p.dstAddrLo = rnd.nextLong();
            p.srcPort = rnd.nextInt(65536);
            p.dstPort = rnd.nextInt(65536);
            p.protocol = rnd.nextInt(256);
            long base = p.flowHash();
            for (int bit = 0; bit < 16; bit++) {
                p.srcPort ^= 1 << bit;
                flipped += Long.bitCount(base ^ p.flowHash());
                p.srcPort ^= 1 << bit;
                p.dstAddrLo ^= 1L << (bit * 4);
                flipped += Long.bitCount(base ^ p.flowHash());
                p.dstAddrLo ^= 1L << (bit * 4);
                trials += 2;
            }
        }
        assertThat((double) flipped / trials).isBetween(30.0, 34.0);
    }
}
