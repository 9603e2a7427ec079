package io.vecflow.packet;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static io.vecflow.packet.ParsedPacket.NOT_IP;
import static io.vecflow.packet.ParsedPacket.OK;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * PacketParser on real captures from ../testdata/traffic (tcpdump test suite, BSD; tcpreplay
 * test capture, GPLv3 data). Expected values were read once with tshark 4 and are hard-coded.
 */
class PacketParserTest {

    private final ParsedPacket p = new ParsedPacket();

    private int parse(PcapFile file, int index) {
        byte[] data = file.packets().get(index).data();
        return PacketParser.parse(data, 0, data.length, file.linkType(), p);
    }

    // ---- tcpreplay-test.pcap: all 179 packets against tshark -------------------------------------

    @Test
    void tcpreplayFirstPacket() {
        PcapFile file = Captures.load("tcpreplay-test.pcap");
        assertThat(parse(file, 0)).isEqualTo(OK);
        assertThat(p.linkType()).isEqualTo(LinkType.ETHERNET);
        assertThat(p.length()).isEqualTo(93);
        assertThat(p.l2Offset()).isZero();
        assertThat(p.dstMac()).isEqualTo(0x001ff33ce113L);
        assertThat(p.srcMac()).isEqualTo(0xf81edfe5843aL);
        assertThat(p.vlanCount()).isZero();
        assertThat(p.etherType()).isEqualTo(0x0800);
        assertThat(p.l3Offset()).isEqualTo(14);
        assertThat(p.ipVersion()).isEqualTo(4);
        assertThat(p.srcAddressString()).isEqualTo("172.16.11.12");
        assertThat(p.dstAddressString()).isEqualTo("74.125.19.17");
        assertThat(p.srcIpv4()).isEqualTo(0xac100b0c);
        assertThat(p.srcAddrHi()).isZero();
        assertThat(p.srcAddrLo()).isEqualTo(0x0000ffff_ac100b0cL);
        assertThat(p.ipTotalLength()).isEqualTo(79);
        assertThat(p.ttl()).isEqualTo(64);
        assertThat(p.tos()).isZero();
        assertThat(p.isFragment()).isFalse();
        assertThat(p.protocol()).isEqualTo(6);
        assertThat(p.l4Offset()).isEqualTo(34);
        assertThat(p.srcPort()).isEqualTo(64565);
        assertThat(p.dstPort()).isEqualTo(443);
        assertThat(p.tcpFlags()).isEqualTo(0x018); // PSH, ACK
        assertThat(p.errorOffset()).isEqualTo(-1);
        assertThat(p.truncatedAt()).isEqualTo(-1);

        assertThat(parse(file, 2)).isEqualTo(OK); // 74.125.19.17 -> 172.16.11.12, DSCP 0x20, TTL 54
        assertThat(p.tos()).isEqualTo(0x20);
        assertThat(p.ttl()).isEqualTo(54);
        assertThat(p.tcpFlags()).isEqualTo(0x010);
    }

    /** Every frame's outer 5-tuple equals tshark's (see the resource file header for the command). */
    @Test
    void tcpreplayAll179FiveTuplesMatchTshark() throws IOException {
        PcapFile file = Captures.load("tcpreplay-test.pcap");
        List<String[]> rows = tsv("tcpreplay-test.5tuples.tsv");
        assertThat(rows).hasSize(179);
        assertThat(file.packets()).hasSize(179);

        Map<String, Integer> expected = new HashMap<>();
        Map<String, Integer> actual = new HashMap<>();
        int notIp = 0;
        for (int i = 0; i < 179; i++) {
            String[] r = rows.get(i);
            assertThat(Integer.parseInt(r[0])).isEqualTo(i + 1);
            String ethType = r[1];
            String exp;
            // MPLS (0x8847) frames carry IPv4 under the label stack: tshark and the parser both read it.
            if (ethType.equals("0x0800") || ethType.equals("0x86dd") || ethType.equals("0x8847")) {
                String src = r[2].isEmpty() ? r[4] : r[2];
                String dst = r[3].isEmpty() ? r[5] : r[3];
                String proto = r[6].isEmpty() ? r[7] : r[6];
                boolean hasPorts = proto.equals("6") || proto.equals("17") || proto.equals("132");
                String sport = !hasPorts ? "0" : !r[8].isEmpty() ? r[8] : r[10];
                String dport = !hasPorts ? "0" : !r[9].isEmpty() ? r[9] : r[11];
                exp = "OK " + src + " " + dst + " " + proto + " " + sport + " " + dport;
            } else {
                // ARP 0x0806, loopback 0x9000, 802.3/LLC (no EtherType: 0)
                exp = "NOT_IP " + (ethType.isEmpty() ? "0x0000" : ethType);
            }
            int status = parse(file, i);
            String act = status == NOT_IP
                    ? "NOT_IP " + String.format("0x%04x", p.etherType())
                    : ParsedPacket.statusName(status) + " " + p.srcAddressString() + " " + p.dstAddressString()
                            + " " + p.protocol() + " " + p.srcPort() + " " + p.dstPort();
            assertThat(act).as("frame %d", i + 1).isEqualTo(exp);
            if (status == NOT_IP) {
                notIp++;
                assertThat(p.ipVersion()).isZero();
                assertThat(p.srcAddrLo()).isZero();
                assertThat(p.protocol()).isZero();
            }
            expected.merge(exp, 1, Integer::sum);
            actual.merge(act, 1, Integer::sum);
        }
        assertThat(actual).isEqualTo(expected);
        // spot checks of the multiset (counts from tshark)
        assertThat(notIp).isEqualTo(3); // 1 ARP + 1 loopback + 1 IS-IS over LLC
        assertThat(actual.get("NOT_IP 0x8847")).isNull();
        assertThat(actual.get("OK 10.31.0.1 10.34.0.1 1 0 0")).as("ICMP under an MPLS label").isNotNull();
        assertThat(actual.get("OK 2001:4958:15a0:24:c1b3:b766:7fff:d0b3 2606:4700::6812:69c 6 43250 80")).isEqualTo(6);
        assertThat(actual.get("OK 172.16.11.12 172.16.11.1 1 0 0")).as("ICMP errors quoting UDP").isNotNull();
    }

    // ---- VLANs ------------------------------------------------------------------------------------

    @Test
    void qinqArpIsNotIpWithBothVlanIds() {
        PcapFile file = Captures.load("802.1ad_QinQ.pcap");
        for (int i = 0; i < 2; i++) {
            assertThat(parse(file, i)).isEqualTo(NOT_IP);
            assertThat(p.vlanCount()).isEqualTo(2);
            assertThat(p.outerVlan()).isEqualTo(200);   // 802.1ad S-tag
            assertThat(p.innerVlan()).isEqualTo(2001);  // 802.1Q C-tag
            assertThat(p.vlanId()).isEqualTo(2001);
            assertThat(p.etherType()).isEqualTo(0x0806);
            assertThat(p.l3Offset()).isEqualTo(22);
            assertThat(p.ipVersion()).isZero();
            assertThat(p.srcAddressString()).isNull();
            assertThat(p.l4Offset()).isEqualTo(-1);
        }
        assertThat(p.srcMac()).isEqualTo(0x0080ea818863L);
        assertThat(p.dstMac()).isEqualTo(0x0020d25afb3fL);
        parse(file, 0);
        assertThat(p.dstMac()).isEqualTo(0xffffffffffffL);
    }

    @Test
    void dot1qTcp() {
        PcapFile file = Captures.load("ipv4_tcp_http_xml.pcap");
        assertThat(parse(file, 0)).isEqualTo(OK);
        assertThat(p.vlanCount()).isEqualTo(1);
        assertThat(p.outerVlan()).isEqualTo(165);
        assertThat(p.innerVlan()).isEqualTo(165);
        assertThat(p.vlanPriority()).isZero();
        assertThat(p.etherType()).isEqualTo(0x0800);
        assertThat(p.l3Offset()).isEqualTo(18);
        assertThat(p.l4Offset()).isEqualTo(38);
        assertThat(p.srcAddressString()).isEqualTo("10.21.11.94");
        assertThat(p.dstAddressString()).isEqualTo("10.114.101.120");
        assertThat(p.protocol()).isEqualTo(6);
        assertThat(p.srcPort()).isEqualTo(80);
        assertThat(p.dstPort()).isEqualTo(5767);
        assertThat(p.tcpFlags()).isEqualTo(0x018);
        assertThat(p.ipTotalLength()).isEqualTo(645);
        assertThat(p.ttl()).isEqualTo(128);
    }

    @Test
    void variousGreOuterHeadersAndLlcFrames() {
        PcapFile file = Captures.load("various_gre.pcap");
        assertThat(parse(file, 0)).isEqualTo(NOT_IP); // Ethernet loopback test
        assertThat(p.etherType()).isEqualTo(0x9000);
        assertThat(parse(file, 1)).isEqualTo(NOT_IP); // 802.1Q 1213 + 802.3 length 50 (LLC/STP)
        assertThat(p.vlanId()).isEqualTo(1213);
        assertThat(p.etherType()).isZero();
        assertThat(parse(file, 2)).isEqualTo(NOT_IP); // untagged 802.3 length 38
        assertThat(p.etherType()).isZero();
        assertThat(p.l3Offset()).isEqualTo(14);
        assertThat(parse(file, 10)).isEqualTo(OK); // VLAN 1213, IPv4 GRE: outer header only
        assertThat(p.vlanId()).isEqualTo(1213);
        assertThat(p.srcAddressString()).isEqualTo("10.172.64.7");
        assertThat(p.dstAddressString()).isEqualTo("10.172.64.6");
        assertThat(p.protocol()).isEqualTo(47);
        assertThat(p.srcPort()).isZero();
    }

    @Test
    void udpTunnelsReportTheOuterFlow() {
        PcapFile vxlan = Captures.load("vxlan.pcap");
        assertThat(parse(vxlan, 0)).isEqualTo(OK);
        assertThat(p.srcAddressString()).isEqualTo("192.168.203.1");
        assertThat(p.dstAddressString()).isEqualTo("192.168.202.1");
        assertThat(p.protocol()).isEqualTo(17);
        assertThat(p.srcPort()).isEqualTo(45149);
        assertThat(p.dstPort()).isEqualTo(4789);
        assertThat(p.ipTotalLength()).isEqualTo(134);
        PcapFile geneve = Captures.load("geneve.pcap");
        assertThat(parse(geneve, 0)).isEqualTo(OK);
        assertThat(p.srcAddressString()).isEqualTo("20.0.0.1");
        assertThat(p.dstPort()).isEqualTo(6081);
        assertThat(p.srcPort()).isEqualTo(12618);
    }

    // ---- IPv6 ----------------------------------------------------------------------------------------

    @Test
    void icmpv6TypesIncludingAfterHopByHop() {
        PcapFile file = Captures.load("icmpv6.pcap");
        assertThat(parse(file, 0)).isEqualTo(OK);
        assertThat(p.etherType()).isEqualTo(0x86DD);
        assertThat(p.ipVersion()).isEqualTo(6);
        assertThat(p.srcAddressString()).isEqualTo("fe80::b299:28ff:fec8:d66c");
        assertThat(p.dstAddressString()).isEqualTo("ff02::1");
        assertThat(p.srcAddrHi()).isEqualTo(0xfe80_0000_0000_0000L);
        assertThat(p.srcAddrLo()).isEqualTo(0xb299_28ff_fec8_d66cL);
        assertThat(p.protocol()).isEqualTo(58);
        assertThat(p.icmpType()).isEqualTo(134); // router advertisement
        assertThat(p.icmpCode()).isZero();
        assertThat(p.ttl()).isEqualTo(255);
        assertThat(p.ipTotalLength()).isEqualTo(216);
        assertThat(p.l4Offset()).isEqualTo(54);
        assertThat(p.srcPort()).isZero();

        int[] types = {134, 143, 130, 143, 143}; // tshark icmpv6.type
        for (int i = 1; i < 5; i++) {
            assertThat(parse(file, i)).isEqualTo(OK);
            assertThat(p.protocol()).as("after Hop-by-Hop").isEqualTo(58);
            assertThat(p.l4Offset()).isEqualTo(14 + 40 + 8);
            assertThat(p.icmpType()).isEqualTo(types[i]);
            assertThat(p.ttl()).isEqualTo(1);
        }
        assertThat(p.srcAddressString()).isEqualTo("fe80::215:17ff:fecc:e546");
        assertThat(p.dstAddressString()).isEqualTo("ff02::16");
    }

    @Test
    void routingHeadersAreSkipped() {
        PcapFile file = Captures.load("ipv6-routing-header.pcap");
        // type 0 routing headers of 24 and 40 bytes (1 and 2 addresses)
        int[] l4 = {78, 94, 78, 94};
        for (int i = 0; i < 4; i++) {
            assertThat(parse(file, i)).isEqualTo(OK);
            assertThat(p.srcAddressString()).isEqualTo("2200::244:212:3fff:feae:22f7");
            assertThat(p.l4Offset()).isEqualTo(l4[i]);
        }
        parse(file, 0);
        assertThat(p.dstAddressString()).isEqualTo("2200::240:2:0:0:4");
        assertThat(p.protocol()).isEqualTo(58);
        assertThat(p.icmpType()).isEqualTo(128);
        parse(file, 3);
        assertThat(p.dstAddressString()).isEqualTo("2200::211:2:0:0:2");
        assertThat(p.protocol()).isEqualTo(17);
        assertThat(p.srcPort()).isEqualTo(5645);
        assertThat(p.dstPort()).isEqualTo(5642);
        assertThat(p.ipTotalLength()).isEqualTo(88);
    }

    @Test
    void segmentRoutingHeaders() {
        assertThat(parse(Captures.load("ipv6-srh-ext-header.pcap"), 0)).isEqualTo(OK);
        assertThat(p.srcAddressString()).isEqualTo("a:b:c:12::1");
        assertThat(p.dstAddressString()).isEqualTo("a:b:c:2::f1:0");
        assertThat(p.protocol()).as("outer view: the next header after the SRH (the inner IPv6 is the inner view)")
                .isEqualTo(41);
        assertThat(p.l4Offset()).isEqualTo(14 + 40 + 40);

        assertThat(parse(Captures.load("ipv6-srh-insert-cksum.pcap"), 0)).isEqualTo(OK);
        assertThat(p.srcAddressString()).isEqualTo("12::1");
        assertThat(p.protocol()).isEqualTo(17);
        assertThat(p.srcPort()).isEqualTo(57745);
        assertThat(p.dstPort()).isEqualTo(5001);

        assertThat(parse(Captures.load("ipv6-srh-tlv-pad1-padn-5.pcap"), 0)).isEqualTo(OK);
        assertThat(p.dstAddressString()).isEqualTo("cafe:1::2");
        assertThat(p.protocol()).as("No Next Header").isEqualTo(59);
        assertThat(p.l4Offset()).isEqualTo(86);
    }

    // ---- Linux cooked ------------------------------------------------------------------------------

    @Test
    void linuxCookedV1Tcp() {
        PcapFile file = Captures.load("mptcp-v1.pcap");
        assertThat(file.linkType()).isEqualTo(LinkType.LINUX_SLL);
        assertThat(parse(file, 0)).isEqualTo(OK);
        assertThat(p.l2Offset()).isZero();
        assertThat(p.srcMac()).isEqualTo(0x323287aa0402L);
        assertThat(p.dstMac()).isZero();
        assertThat(p.etherType()).isEqualTo(0x0800);
        assertThat(p.l3Offset()).isEqualTo(16);
        assertThat(p.l4Offset()).isEqualTo(36);
        assertThat(p.srcAddressString()).isEqualTo("10.0.1.1");
        assertThat(p.dstAddressString()).isEqualTo("10.0.2.1");
        assertThat(p.srcPort()).isEqualTo(33306);
        assertThat(p.dstPort()).isEqualTo(10004);
        assertThat(p.tcpFlags()).isEqualTo(0x002); // SYN
        assertThat(p.ipTotalLength()).isEqualTo(64);

        int forward = 0;
        int reverse = 0;
        for (int i = 0; i < 20; i++) {
            assertThat(parse(file, i)).isEqualTo(OK);
            if (p.srcPort() == 33306 && p.dstPort() == 10004 && p.srcAddressString().equals("10.0.1.1")) {
                forward++;
            } else if (p.srcPort() == 10004 && p.dstPort() == 33306 && p.srcAddressString().equals("10.0.2.1")) {
                reverse++;
            }
        }
        assertThat(forward).isEqualTo(11);
        assertThat(reverse).isEqualTo(9);
        parse(file, 1);
        assertThat(p.tcpFlags()).isEqualTo(0x012); // SYN, ACK
    }

    // ---- raw IP link types, MemorySegment -----------------------------------------------------------

    @Test
    void rawIpLinkTypesStartAtTheIpHeader() {
        byte[] eth = Captures.load("tcpreplay-test.pcap").packets().getFirst().data();
        byte[] v6 = Captures.load("icmpv6.pcap").packets().getFirst().data();
        // the same packets placed at offset 14 of a larger buffer, parsed as raw IP
        for (LinkType t : new LinkType[] {LinkType.RAW, LinkType.IPV4}) {
            assertThat(PacketParser.parse(eth, 14, eth.length - 14, t, p)).isEqualTo(OK);
            assertThat(p.l2Offset()).isEqualTo(-1);
            assertThat(p.etherType()).isEqualTo(0x0800);
            assertThat(p.l3Offset()).isZero();
            assertThat(p.l4Offset()).isEqualTo(20);
            assertThat(p.dstPort()).isEqualTo(443);
            assertThat(p.dstMac()).isZero();
        }
        for (LinkType t : new LinkType[] {LinkType.RAW, LinkType.IPV6}) {
            assertThat(PacketParser.parse(v6, 14, v6.length - 14, t, p)).isEqualTo(OK);
            assertThat(p.etherType()).isEqualTo(0x86DD);
            assertThat(p.icmpType()).isEqualTo(134);
        }
        assertThat(PacketParser.parse(v6, 14, v6.length - 14, LinkType.IPV4, p)).isEqualTo(ParsedPacket.MALFORMED);
        assertThat(p.errorLayer()).isEqualTo(ParsedPacket.Layer.IPV4);
        assertThat(PacketParser.parse(eth, 0, eth.length, LinkType.RAW, p)).as("MAC byte 0x00: version 0")
                .isEqualTo(ParsedPacket.MALFORMED);
        assertThat(p.errorLayer()).isEqualTo(ParsedPacket.Layer.IP);
        assertThat(p.errorOffset()).isZero();
    }

    @Test
    void nullLinkTypeIsUnsupported() {
        byte[] eth = Captures.load("tcpreplay-test.pcap").packets().getFirst().data();
        assertThat(PacketParser.parse(eth, 0, eth.length, null, p)).isEqualTo(ParsedPacket.UNSUPPORTED_LINK);
        assertThat(p.status()).isEqualTo(ParsedPacket.UNSUPPORTED_LINK);
        assertThat(p.ipVersion()).isZero();
    }

    @Test
    void memorySegmentAndByteArrayGiveIdenticalResults() {
        PcapFile file = Captures.load("tcpreplay-test.pcap");
        ParsedPacket q = new ParsedPacket();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ring = arena.allocate(4096);
            for (PcapPacket pkt : file.packets()) {
                byte[] d = pkt.data();
                ring.fill((byte) 0xAB);
                MemorySegment.copy(d, 0, ring, ValueLayout.JAVA_BYTE, 100, d.length);
                int s1 = PacketParser.parse(d, 0, d.length, LinkType.ETHERNET, p);
                int s2 = PacketParser.parse(ring, 100, d.length, LinkType.ETHERNET, q);
                assertThat(s2).isEqualTo(s1);
                assertThat(Captures.fields(q)).isEqualTo(Captures.fields(p));
                assertThat(q.flowHash()).isEqualTo(p.flowHash());
            }
        }
    }

    // ---- helpers --------------------------------------------------------------------------------------

    /** Data rows of a tab-separated resource ('#' lines are comments; trailing empty columns kept). */
    static List<String[]> tsv(String resource) throws IOException {
        List<String[]> rows = new ArrayList<>();
        try (InputStream in = Objects.requireNonNull(PacketParserTest.class.getResourceAsStream("/" + resource));
             BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (!line.startsWith("#") && !line.isBlank()) {
                    rows.add(line.split("\t", -1));
                }
            }
        }
        return rows;
    }
}
