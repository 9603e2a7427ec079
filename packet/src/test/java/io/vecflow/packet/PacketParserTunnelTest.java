package io.vecflow.packet;

import io.vecflow.packet.PacketParser.Config;
import io.vecflow.packet.ParsedPacket.Encapsulation;
import io.vecflow.packet.ParsedPacket.Layer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;

import static io.vecflow.packet.ParsedPacket.MALFORMED;
import static io.vecflow.packet.ParsedPacket.NOT_IP;
import static io.vecflow.packet.ParsedPacket.OK;
import static io.vecflow.packet.ParsedPacket.TRUNCATED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * MPLS stacks, fragments, SRv6 and tunnels (GRE, VXLAN, Geneve, IP-in-IP): the outer and the inner
 * view. Captures from ../testdata/traffic (tcpdump test suite, BSD; tcpreplay test capture, GPLv3
 * data); expected values were read once with tshark 4.0 and are hard-coded here or stored in the
 * .tsv test resources (their headers give the commands). Synthetic tunnels are built around real
 * packets: tcpreplay frame 1 (IPv4 TCP 172.16.11.12:64565 → 74.125.19.17:443, PSH ACK) and frame
 * 29 (IPv6 TCP 2001:4958:15a0:24:c1b3:b766:7fff:d0b3:43250 → 2606:4700::6812:69c:80, SYN).
 */
class PacketParserTunnelTest {

    private final ParsedPacket p = new ParsedPacket();

    private int parse(PcapFile file, int index) {
        byte[] data = file.packets().get(index).data();
        return PacketParser.parse(data, 0, data.length, file.linkType(), p);
    }

    private int parse(byte[] frame) {
        return PacketParser.parse(frame, 0, frame.length, LinkType.ETHERNET, p);
    }

    private int parse(byte[] frame, Config config) {
        return PacketParser.parse(frame, 0, frame.length, LinkType.ETHERNET, config, p);
    }

    private void assertNoInnerView() {
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.NONE);
        assertThat(p.tunnelDepth()).isZero();
        assertThat(Captures.innerFields(p)).isEqualTo(Captures.innerFields(new ParsedPacket()));
        assertThat(p.innerFlowHash()).isEqualTo(new ParsedPacket().innerFlowHash());
    }

    // ---- MPLS ---------------------------------------------------------------------------------------

    @Test
    void mplsLabelStacksFromTcpreplay() {
        PcapFile file = Captures.load("tcpreplay-test.pcap");
        // frame 11: labels 18 (TTL 255), 16 (bottom, TTL 255), then IPv4 ICMP
        assertThat(parse(file, 10)).isEqualTo(OK);
        assertThat(p.mplsLabelCount()).isEqualTo(2);
        assertThat(p.mplsTopLabel()).isEqualTo(18);
        assertThat(p.mplsLabel(0)).isEqualTo(18);
        assertThat(p.mplsLabel(1)).isEqualTo(16);
        assertThat(p.mplsTrafficClass(0)).isZero();
        assertThat(p.mplsTrafficClass(1)).isZero();
        assertThat(p.mplsTtl(0)).isEqualTo(255);
        assertThat(p.mplsTtl(1)).isEqualTo(255);
        assertThat(p.mplsPseudowire()).isFalse();
        assertThat(p.srcAddressString()).isEqualTo("10.31.0.1");
        assertThat(p.icmpType()).isEqualTo(8);
        assertThatThrownBy(() -> p.mplsLabel(2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> p.mplsTtl(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertNoInnerView();

        for (int frame : new int[] {124, 133, 135, 137, 139}) { // one label 18, TTL 254
            assertThat(parse(file, frame - 1)).isEqualTo(OK);
            assertThat(p.mplsLabelCount()).isEqualTo(1);
            assertThat(p.mplsLabel(0)).isEqualTo(18);
            assertThat(p.mplsTtl(0)).isEqualTo(254);
            assertThat(p.dstAddressString()).isEqualTo("192.168.40.1");
        }

        // frames 142..179: labels 19 or 18 (TTL 254) + 16 (TTL 255), Ethernet pseudowire with control word,
        // emulated frame tagged VLAN 1 carrying ICMP 192.168.1.1 <-> 192.168.1.2
        int[] frames = {142, 150, 157, 170, 174, 175, 176, 177, 178, 179};
        int[] top = {19, 18, 19, 18, 19, 18, 19, 18, 19, 18};
        int[] icmp = {8, 0, 8, 0, 8, 0, 8, 0, 8, 0};
        for (int i = 0; i < frames.length; i++) {
            assertThat(parse(file, frames[i] - 1)).isEqualTo(OK);
            assertThat(p.mplsLabelCount()).isEqualTo(2);
            assertThat(p.mplsLabel(0)).isEqualTo(top[i]);
            assertThat(p.mplsLabel(1)).isEqualTo(16);
            assertThat(p.mplsTtl(0)).isEqualTo(254);
            assertThat(p.mplsTtl(1)).isEqualTo(255);
            assertThat(p.mplsPseudowire()).isTrue();
            assertThat(p.etherType()).isEqualTo(0x8847);
            assertThat(p.vlanId()).isEqualTo(1);
            assertThat(p.l3Offset()).isEqualTo(14 + 8 + 4 + 14 + 4);
            assertThat(p.srcAddressString()).isEqualTo(icmp[i] == 8 ? "192.168.1.1" : "192.168.1.2");
            assertThat(p.icmpType()).isEqualTo(icmp[i]);
            assertNoInnerView(); // the pseudowire's IP is the first IP header: the outer view
        }
    }

    @Test
    void mplsTrafficClassAndEightLabelLimit() {
        byte[] f11 = Captures.load("tcpreplay-test.pcap").packets().get(10).data();
        byte[] edited = f11.clone();
        edited[16] = (byte) (edited[16] | 0x0A); // label 18, TC 5 (bits 11..9 of the entry)
        assertThat(parse(edited)).isEqualTo(OK);
        assertThat(p.mplsTrafficClass(0)).isEqualTo(5);
        assertThat(p.mplsLabel(0)).isEqualTo(18);
        // 6 more non-bottom entries before the existing two: 8 labels, still parsed
        byte[] eight = PacketParserRobustnessTest.splice(f11, 14, Captures.hex(
                "00001040 00002040 00003040 00004040 00005040 00006040"));
        assertThat(parse(eight)).isEqualTo(OK);
        assertThat(p.mplsLabelCount()).isEqualTo(8);
        assertThat(p.mplsLabel(0)).isEqualTo(1);
        assertThat(p.mplsLabel(5)).isEqualTo(6);
        assertThat(p.mplsTtl(5)).isEqualTo(64);
        assertThat(p.mplsLabel(7)).isEqualTo(16);
        assertThat(p.icmpType()).isEqualTo(8);
        byte[] nine = PacketParserRobustnessTest.splice(eight, 14, Captures.hex("00007040"));
        assertThat(parse(nine)).isEqualTo(NOT_IP);
        assertThat(p.mplsLabelCount()).isEqualTo(8);
        assertThat(p.mplsLabel(7)).as("entries kept up to the limit").isEqualTo(18);
    }

    @Test
    void qinqTagsBelongToTheOuterView() {
        PcapFile file = Captures.load("802.1ad_QinQ.pcap"); // S-tag 200 (0x88a8) + C-tag 2001 (0x8100), ARP
        for (int i = 0; i < 2; i++) {
            assertThat(parse(file, i)).isEqualTo(NOT_IP);
            assertThat(p.vlanCount()).isEqualTo(2);
            assertThat(p.outerVlan()).isEqualTo(200);
            assertThat(p.innerVlan()).isEqualTo(2001);
            assertThat(p.vlanId()).as("the inner (customer) tag is the flow's VLAN").isEqualTo(2001);
            assertThat(p.innerVlanId()).as("no tunnel: the tunnelled frame's VLAN is 0").isZero();
            assertThat(p.innerVlanCount()).isZero();
            assertNoInnerView();
        }
    }

    // ---- fragments ------------------------------------------------------------------------------------

    @Test
    void moreFragmentsFlag() {
        byte[] pkt = Captures.load("tcpreplay-test.pcap").packets().getFirst().data();
        assertThat(parse(pkt)).isEqualTo(OK);
        assertThat(p.moreFragments()).isFalse();
        PacketParserRobustnessTest.set16(pkt, 20, 0x2000); // MF, offset 0: first fragment
        assertThat(parse(pkt)).isEqualTo(OK);
        assertThat(p.moreFragments()).isTrue();
        assertThat(p.isFragment()).isTrue();
        assertThat(p.fragmentOffset()).isZero();
        assertThat(p.dstPort()).isEqualTo(443);
        PacketParserRobustnessTest.set16(pkt, 20, 0x2000 | 10); // MF, offset 80: middle fragment
        assertThat(parse(pkt)).isEqualTo(OK);
        assertThat(p.moreFragments()).isTrue();
        assertThat(p.fragmentOffset()).isEqualTo(80);
        assertThat(p.dstPort()).isZero();
        PacketParserRobustnessTest.set16(pkt, 20, 10); // last fragment
        assertThat(parse(pkt)).isEqualTo(OK);
        assertThat(p.moreFragments()).isFalse();
        assertThat(p.isFragment()).isTrue();
    }

    @Test
    void ipv6FragmentHeaderMoreFlag() {
        byte[] v6 = ipv6Tcp();
        byte[] fh = Captures.hex("06000001 0000002a"); // next header TCP, offset 0, M = 1
        byte[] first = ipv6(44, "fe80::1", "fe80::2", concat(fh, Arrays.copyOfRange(v6, 40, v6.length)));
        assertThat(parse(eth(0x86DD, first))).isEqualTo(OK);
        assertThat(p.isFragment()).isTrue();
        assertThat(p.moreFragments()).isTrue();
        assertThat(p.protocol()).isEqualTo(6);
        assertThat(p.dstPort()).isEqualTo(80);
    }

    // ---- SRv6 and routing headers -------------------------------------------------------------------

    @Test
    void srhWithInnerIpv6() {
        PcapFile file = Captures.load("ipv6-srh-ext-header.pcap");
        assertThat(parse(file, 0)).isEqualTo(OK);
        // outer view unchanged: IPv6 + SRH, next header 41
        assertThat(p.srcAddressString()).isEqualTo("a:b:c:12::1");
        assertThat(p.dstAddressString()).isEqualTo("a:b:c:2::f1:0");
        assertThat(p.protocol()).isEqualTo(41);
        assertThat(p.l4Offset()).isEqualTo(94);
        assertThat(p.routingHeaderType()).isEqualTo(4);
        assertThat(p.srhPresent()).isTrue();
        assertThat(p.srhSegmentsLeft()).isEqualTo(1);
        assertThat(p.srhLastEntry()).isEqualTo(1);
        assertThat(p.srhSegmentCount()).isEqualTo(2);
        assertThat(p.srhSegmentsOverflow()).isFalse();
        assertThat(p.srhSegmentString(0)).isEqualTo("a:b:c:3::d6");
        assertThat(p.srhSegmentString(1)).isEqualTo("a:b:c:2::f1:0");
        assertThat(p.srhSegmentHi(0)).isEqualTo(0x000a_000b_000c_0003L);
        assertThat(p.srhSegmentLo(0)).isEqualTo(0x0000_0000_0000_00d6L);
        byte[] seg = new byte[20];
        p.writeSrhSegment(1, seg, 4);
        assertThat(Arrays.copyOfRange(seg, 4, 20)).isEqualTo(Captures.hex("000a000b000c00020000000000f10000"));
        assertThatThrownBy(() -> p.srhSegmentString(2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> p.writeSrhSegment(0, seg, 5)).isInstanceOf(IndexOutOfBoundsException.class);
        // inner view: IPv6 a:b:c:12::1 -> b2::2, ICMPv6 echo request
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.SRV6);
        assertThat(p.encapsulationAt(0)).isEqualTo(Encapsulation.SRV6);
        assertThat(p.tunnelDepth()).isEqualTo(1);
        assertThat(p.innerL2Offset()).isEqualTo(-1);
        assertThat(p.innerEtherType()).isEqualTo(0x86DD);
        assertThat(p.innerL3Offset()).isEqualTo(94);
        assertThat(p.innerIpVersion()).isEqualTo(6);
        assertThat(p.innerSrcAddressString()).isEqualTo("a:b:c:12::1");
        assertThat(p.innerDstAddressString()).isEqualTo("b2::2");
        assertThat(p.innerDstAddrHi()).isEqualTo(0x00b2_0000_0000_0000L);
        assertThat(p.innerDstAddrLo()).isEqualTo(2);
        assertThat(p.innerIpTotalLength()).isEqualTo(104);
        assertThat(p.innerTtl()).isEqualTo(64);
        assertThat(p.innerProtocol()).isEqualTo(58);
        assertThat(p.innerL4Offset()).isEqualTo(134);
        assertThat(p.innerIcmpType()).isEqualTo(128);
        assertThat(p.innerIcmpCode()).isZero();
        assertThat(p.innerSrcPort()).isZero();
        assertThat(p.icmpType()).as("outer has no ICMP").isZero();
        byte[] addr = new byte[16];
        p.writeInnerDstAddr(addr, 0);
        assertThat(addr).isEqualTo(Captures.hex("00b20000000000000000000000000002"));
        assertThat(p.toString()).contains("SRV6 depth=1").contains("b2::2");

        // without decapsulation the SRH is still reported, the inner packet is not
        assertThat(parse(file.packets().getFirst().data(), Config.NO_DECAPSULATION)).isEqualTo(OK);
        assertThat(p.srhSegmentCount()).isEqualTo(2);
        assertNoInnerView();
    }

    @Test
    void srhInsertedBeforeUdpHasNoInnerPacket() {
        assertThat(parse(Captures.load("ipv6-srh-insert-cksum.pcap"), 0)).isEqualTo(OK);
        assertThat(p.srcAddressString()).isEqualTo("12::1");
        assertThat(p.dstAddressString()).isEqualTo("2::f1:0");
        assertThat(p.srhPresent()).isTrue();
        assertThat(p.srhSegmentsLeft()).isEqualTo(2);
        assertThat(p.srhLastEntry()).isEqualTo(2);
        assertThat(p.srhSegmentCount()).isEqualTo(3);
        assertThat(p.srhSegmentString(0)).isEqualTo("b2::2");
        assertThat(p.srhSegmentString(1)).isEqualTo("3::d6");
        assertThat(p.srhSegmentString(2)).isEqualTo("2::f1:0");
        assertThat(p.l4Offset()).isEqualTo(14 + 40 + 56);
        assertThat(p.protocol()).isEqualTo(17);
        assertThat(p.srcPort()).isEqualTo(57745);
        assertThat(p.dstPort()).isEqualTo(5001);
        assertNoInnerView();
    }

    @Test
    void srhTlvsAreSkippedByTheHeaderLength() {
        assertThat(parse(Captures.load("ipv6-srh-tlv-pad1-padn-5.pcap"), 0)).isEqualTo(OK);
        assertThat(p.srhPresent()).isTrue();
        assertThat(p.srhSegmentCount()).isEqualTo(1);
        assertThat(p.srhSegmentsLeft()).isZero();
        assertThat(p.srhLastEntry()).isZero();
        assertThat(p.srhSegmentString(0)).isEqualTo("cafe:1::2");
        // 8 fixed + 16 segment + 8 TLV bytes (Pad1, PadN of 5): the 32-byte header ends at 86
        assertThat(p.l4Offset()).isEqualTo(86);
        assertThat(p.protocol()).isEqualTo(59);
        assertNoInnerView();
    }

    @Test
    void otherRoutingHeadersAreNotSrh() {
        PcapFile file = Captures.load("ipv6-routing-header.pcap");
        for (int i = 0; i < 4; i++) {
            assertThat(parse(file, i)).isEqualTo(OK);
            assertThat(p.routingHeaderType()).isZero(); // tshark ipv6.routing.type 0 in all 4 frames
            assertThat(p.srhPresent()).isFalse();
            assertThat(p.srhSegmentCount()).isZero();
            assertNoInnerView();
        }
        // the same header as type 2 (Mobile IPv6, RFC 6275 §6.4: one address): still skipped, not SRH
        byte[] pkt = file.packets().getFirst().data();
        pkt[56] = 2;
        assertThat(parse(pkt)).isEqualTo(OK);
        assertThat(p.routingHeaderType()).isEqualTo(2);
        assertThat(p.srhPresent()).isFalse();
        assertThat(p.icmpType()).isEqualTo(128);
        assertThat(Captures.load("icmpv6.pcap").packets().getFirst().data()).satisfies(d -> {
            parse(d);
            assertThat(p.routingHeaderType()).isEqualTo(-1);
        });
    }

    @Test
    void srhSegmentListOverflowAndBadLastEntry() {
        byte[] udp = udp(1000, 2000, new byte[4]);
        byte[] big = srh(17, 20, 7, udp); // 20 segments
        assertThat(parse(eth(0x86DD, ipv6(43, "2001:db8::1", "2001:db8::2", big)))).isEqualTo(OK);
        assertThat(p.srhSegmentCount()).isEqualTo(20);
        assertThat(p.srhSegmentsOverflow()).isTrue();
        assertThat(p.srhLastEntry()).isEqualTo(19);
        assertThat(p.srhSegmentsLeft()).isEqualTo(7);
        assertThat(p.srhSegmentString(0)).isEqualTo("fc00::");
        assertThat(p.srhSegmentString(15)).isEqualTo("fc00::f");
        assertThatThrownBy(() -> p.srhSegmentString(16)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(p.dstPort()).isEqualTo(2000);

        byte[] bad = srh(17, 2, 1, udp);
        bad[4] = 2; // Last Entry 2: three segments do not fit in the 40-byte header
        assertThat(parse(eth(0x86DD, ipv6(43, "2001:db8::1", "2001:db8::2", bad)))).isEqualTo(MALFORMED);
        assertThat(p.errorLayer()).isEqualTo(Layer.IPV6_EXTENSION);
        assertThat(p.errorOffset()).isEqualTo(54);
        assertThat(p.srhPresent()).isFalse();
    }

    @Test
    void srv6CarryingIpv4AndEthernet() {
        byte[] v4 = ipv4Tcp();
        assertThat(parse(eth(0x86DD, ipv6(43, "2001:db8::1", "2001:db8::2", srh(4, 1, 0, v4))))).isEqualTo(OK);
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.SRV6);
        assertThat(p.protocol()).isEqualTo(4);
        assertInnerIpv4Tcp(14 + 40 + 24);

        byte[] frame = eth(0x0800, v4); // RFC 8986 End.DX2: next header 143, an Ethernet frame
        assertThat(parse(eth(0x86DD, ipv6(43, "2001:db8::1", "2001:db8::2", srh(143, 1, 0, frame))))).isEqualTo(OK);
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.SRV6);
        assertThat(p.innerL2Offset()).isEqualTo(78);
        assertThat(p.innerSrcMac()).isEqualTo(0x020000000001L);
        assertInnerIpv4Tcp(78 + 14);

        assertThat(parse(eth(0x86DD, ipv6(143, "2001:db8::1", "2001:db8::2", frame)))).isEqualTo(OK);
        assertThat(p.encapsulation()).as("143 without SRH (reduced encapsulation)").isEqualTo(Encapsulation.SRV6);
        assertThat(p.srhPresent()).isFalse();
        assertInnerIpv4Tcp(54 + 14);

        assertThat(parse(eth(0x0800, ipv4(143, 0x0a000001, 0x0a000002, frame)))).as("143 in IPv4").isEqualTo(OK);
        assertNoInnerView();
    }

    // ---- VXLAN ----------------------------------------------------------------------------------------

    @Test
    void vxlanCapture() {
        PcapFile file = Captures.load("vxlan.pcap");
        assertThat(parse(file, 0)).isEqualTo(OK);
        assertThat(p.srcAddressString()).isEqualTo("192.168.203.1"); // outer view as before
        assertThat(p.dstPort()).isEqualTo(4789);
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.VXLAN);
        assertThat(p.tunnelDepth()).isEqualTo(1);
        assertThat(p.vxlanVni()).isEqualTo(100);
        assertThat(p.geneveVni()).isEqualTo(-1);
        assertThat(p.grePresent()).isFalse();
        assertThat(p.innerL2Offset()).isEqualTo(50);
        assertThat(p.innerSrcMac()).isEqualTo(0x00163e37f604L);
        assertThat(p.innerDstMac()).isEqualTo(0x003088010002L);
        assertThat(p.innerVlanCount()).isZero();
        assertThat(p.innerEtherType()).isEqualTo(0x0800);
        assertThat(p.innerL3Offset()).isEqualTo(64);
        assertThat(p.innerIpVersion()).isEqualTo(4);
        assertThat(p.innerSrcAddressString()).isEqualTo("192.168.203.3");
        assertThat(p.innerDstAddressString()).isEqualTo("192.168.203.5");
        assertThat(p.innerSrcIpv4()).isEqualTo(0xc0a8cb03);
        assertThat(p.innerDstIpv4()).isEqualTo(0xc0a8cb05);
        assertThat(p.innerSrcAddrHi()).isZero();
        assertThat(p.innerIpTotalLength()).isEqualTo(84);
        assertThat(p.innerTtl()).isEqualTo(64);
        assertThat(p.innerProtocol()).isEqualTo(1);
        assertThat(p.innerL4Offset()).isEqualTo(84);
        assertThat(p.innerIcmpType()).isEqualTo(8);
        assertThat(p.innerIcmpCode()).isZero();
        assertThat(p.innerFlowHash()).isNotEqualTo(p.flowHash());
        byte[] addr = new byte[16];
        p.writeInnerSrcAddr(addr, 0);
        assertThat(addr).isEqualTo(Captures.hex("00000000000000000000ffffc0a8cb03"));

        // frames 2 and 3: ARP inside: the tunnel is followed, the inner payload is not IP
        for (int i = 1; i <= 2; i++) {
            assertThat(parse(file, i)).isEqualTo(OK);
            assertThat(p.encapsulation()).isEqualTo(Encapsulation.VXLAN);
            assertThat(p.vxlanVni()).isEqualTo(100);
            assertThat(p.innerEtherType()).isEqualTo(0x0806);
            assertThat(p.innerL3Offset()).isEqualTo(64);
            assertThat(p.innerIpVersion()).isZero();
            assertThat(p.innerSrcAddressString()).isNull();
            assertThat(p.innerProtocol()).isZero();
            assertThat(p.innerL4Offset()).isEqualTo(-1);
        }
        assertThat(p.innerDstMac()).isEqualTo(0x003088010002L); // frame 3
        parse(file, 1);
        assertThat(p.innerDstMac()).isEqualTo(0xffffffffffffL);

        int[] icmp = {8, -1, -1, 0, 8, 0, 8, 0, 8, 0}; // tshark icmp.type; -1: ARP
        for (int i = 0; i < 10; i++) {
            assertThat(parse(file, i)).isEqualTo(OK);
            assertThat(p.vxlanVni()).isEqualTo(100);
            if (icmp[i] >= 0) {
                assertThat(p.innerIcmpType()).isEqualTo(icmp[i]);
                assertThat(p.innerSrcAddressString()).isEqualTo(icmp[i] == 8 ? "192.168.203.3" : "192.168.203.5");
            }
        }
    }

    @Test
    void vxlanPortsAreConfigurable() {
        byte[] pkt = Captures.load("vxlan.pcap").packets().getFirst().data();
        PacketParserRobustnessTest.set16(pkt, 36, PacketParser.VXLAN_LINUX_LEGACY_PORT); // UDP dst 8472
        assertThat(parse(pkt)).isEqualTo(OK);
        assertThat(p.dstPort()).isEqualTo(8472);
        assertThat(p.vxlanVni()).isEqualTo(-1);
        assertNoInnerView();
        Config linux = Config.builder().addVxlanPort(PacketParser.VXLAN_LINUX_LEGACY_PORT).build();
        assertThat(parse(pkt, linux)).isEqualTo(OK);
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.VXLAN);
        assertThat(p.vxlanVni()).isEqualTo(100);
        assertThat(p.innerIcmpType()).isEqualTo(8);

        // a port configured as Geneve is read as Geneve: the VXLAN header's flags byte 0x08 is version 0,
        // opt len 8 words, and its protocol type 0 is not followed
        Config geneveOn8472 = Config.builder().genevePorts(8472).build();
        assertThat(parse(pkt, geneveOn8472)).isEqualTo(OK);
        assertThat(p.geneveVni()).isEqualTo(100);
        assertNoInnerView();

        byte[] orig = Captures.load("vxlan.pcap").packets().getFirst().data();
        assertThat(parse(orig, Config.builder().vxlanPorts().build())).as("VXLAN disabled").isEqualTo(OK);
        assertNoInnerView();
        assertThat(parse(orig, Config.NO_DECAPSULATION)).isEqualTo(OK);
        assertThat(p.vxlanVni()).isEqualTo(-1);
        assertNoInnerView();
        assertThat(p.dstPort()).isEqualTo(4789);

        orig[42] = 0; // VXLAN flags without the I bit
        assertThat(parse(orig)).isEqualTo(OK);
        assertThat(p.vxlanVni()).isEqualTo(-1);
        assertNoInnerView();
    }

    @Test
    void vxlanInnerVlanTags() {
        byte[] pkt = Captures.load("vxlan.pcap").packets().getFirst().data();
        // 802.1ad 300 + 802.1Q 42 inside the inner frame (inner EtherType at 62); outer lengths + 8
        byte[] tagged = PacketParserRobustnessTest.splice(pkt, 62, Captures.hex("88a8012c 8100002a"));
        PacketParserRobustnessTest.set16(tagged, 16, PacketParserRobustnessTest.get16(pkt, 16) + 8);
        PacketParserRobustnessTest.set16(tagged, 38, PacketParserRobustnessTest.get16(pkt, 38) + 8);
        assertThat(parse(tagged)).isEqualTo(OK);
        assertThat(p.vlanCount()).as("outer frame untagged").isZero();
        assertThat(p.vlanId()).isZero();
        assertThat(p.innerVlanCount()).isEqualTo(2);
        assertThat(p.innerVlanId()).isEqualTo(42);
        assertThat(p.innerVlan()).as("outer QinQ accessor, not the tunnel's").isZero();
        assertThat(p.innerEtherType()).isEqualTo(0x0800);
        assertThat(p.innerL3Offset()).isEqualTo(72);
        assertThat(p.innerIcmpType()).isEqualTo(8);
        assertThat(p.innerSrcAddressString()).isEqualTo("192.168.203.3");
        PacketParserRobustnessTest.checkEveryPrefix("vxlan + 2 inner tags", tagged, LinkType.ETHERNET, Config.DEFAULT,
                new int[2]);
    }

    @Test
    void truncatedAndMalformedInnerPackets() {
        byte[] pkt = Captures.load("vxlan.pcap").packets().getFirst().data(); // inner IPv4 at 64, ICMP at 84
        assertThat(PacketParser.parse(pkt, 0, 80, LinkType.ETHERNET, p)).isEqualTo(TRUNCATED);
        assertThat(p.truncatedAt()).isEqualTo(64);
        assertThat(p.errorLayer()).isEqualTo(Layer.IPV4);
        assertThat(p.errorDepth()).isEqualTo(1);
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.VXLAN);
        assertThat(p.innerSrcMac()).isEqualTo(0x00163e37f604L);
        assertThat(p.srcAddressString()).isEqualTo("192.168.203.1");
        assertThat(p.dstPort()).isEqualTo(4789);

        assertThat(PacketParser.parse(pkt, 0, 45, LinkType.ETHERNET, p)).isEqualTo(TRUNCATED);
        assertThat(p.truncatedAt()).isEqualTo(42);
        assertThat(p.errorLayer()).isEqualTo(Layer.VXLAN);
        assertThat(p.errorDepth()).isZero();
        assertThat(p.vxlanVni()).isEqualTo(-1);
        assertNoInnerView();

        assertThat(PacketParser.parse(pkt, 0, 60, LinkType.ETHERNET, p)).isEqualTo(TRUNCATED);
        assertThat(p.truncatedAt()).isEqualTo(50);
        assertThat(p.errorLayer()).isEqualTo(Layer.LINK);
        assertThat(p.errorDepth()).isEqualTo(1);
        assertThat(p.innerL2Offset()).isEqualTo(-1);

        // the outer IP ends (total length 60) inside the inner IPv4 header although more was captured
        PacketParserRobustnessTest.set16(pkt, 16, 60);
        assertThat(parse(pkt)).isEqualTo(MALFORMED);
        assertThat(p.errorOffset()).isEqualTo(64);
        assertThat(p.errorLayer()).isEqualTo(Layer.IPV4);
        assertThat(p.errorDepth()).isEqualTo(1);
        assertThat(p.truncatedAt()).isEqualTo(-1);
    }

    // ---- Geneve ---------------------------------------------------------------------------------------

    /** All 39 frames of geneve.pcap against tshark (see the resource header). */
    @Test
    void geneveCaptureMatchesTshark() throws IOException {
        PcapFile file = Captures.load("geneve.pcap");
        List<String[]> rows = PacketParserTest.tsv("geneve.headers.tsv");
        assertThat(rows).hasSize(39);
        int tcp = 0;
        for (int i = 0; i < rows.size(); i++) {
            String[] r = rows.get(i);
            String what = "frame " + r[0];
            assertThat(parse(file, i)).as(what).isEqualTo(OK);
            assertThat(p.encapsulation()).as(what).isEqualTo(Encapsulation.GENEVE);
            assertThat(p.geneveVni()).as(what).isEqualTo(Integer.decode(r[1]));
            assertThat(p.innerEtherType()).isEqualTo(0x0800);
            assertThat(Integer.decode(r[2])).isEqualTo(0x6558);
            int options = Integer.parseInt(r[3].split(",")[0]);
            assertThat(p.geneveOptionsLength()).as(what).isEqualTo(options);
            assertThat(p.innerL2Offset()).as(what).isEqualTo(14 + 20 + 8 + 8 + options);
            assertThat(mac(p.srcMac())).isEqualTo(r[4].split(",")[0]);
            assertThat(mac(p.innerSrcMac())).isEqualTo(r[4].split(",")[1]);
            assertThat(mac(p.innerDstMac())).isEqualTo(r[5].split(",")[1]);
            assertThat(p.srcAddressString()).isEqualTo(r[6].split(",")[0]);
            assertThat(p.innerSrcAddressString()).isEqualTo(r[6].split(",")[1]);
            assertThat(p.innerDstAddressString()).isEqualTo(r[7].split(",")[1]);
            assertThat(p.protocol()).isEqualTo(17);
            assertThat(p.srcPort()).isEqualTo(Integer.parseInt(r[9]));
            assertThat(p.dstPort()).isEqualTo(Integer.parseInt(r[10]));
            int innerProtocol = Integer.parseInt(r[8].split(",")[1]);
            assertThat(p.innerProtocol()).as(what).isEqualTo(innerProtocol);
            if (innerProtocol == 6) {
                tcp++;
                assertThat(p.innerSrcPort()).as(what).isEqualTo(Integer.parseInt(r[11]));
                assertThat(p.innerDstPort()).as(what).isEqualTo(Integer.parseInt(r[12]));
                assertThat(p.innerTcpFlags()).as(what).isEqualTo(Integer.decode(r[13]));
                assertThat(p.innerIcmpType()).isZero();
            } else {
                assertThat(p.innerIcmpType()).as(what).isEqualTo(Integer.parseInt(r[14]));
                assertThat(p.innerIcmpCode()).as(what).isEqualTo(Integer.parseInt(r[15]));
                assertThat(p.innerSrcPort()).isZero();
            }
        }
        assertThat(tcp).isEqualTo(33);
        // spot check, frame 1: VNI 10, one 8-byte option, inner ICMP echo request 30.0.0.1 -> 30.0.0.2
        parse(file, 0);
        assertThat(p.geneveVni()).isEqualTo(10);
        assertThat(p.geneveOptionsLength()).isEqualTo(8);
        assertThat(p.innerL3Offset()).isEqualTo(72);
        assertThat(p.innerIcmpType()).isEqualTo(8);
        parse(file, 2); // frame 3: SSH SYN 30.0.0.2:51225 -> 30.0.0.1:22, VNI 11, no options
        assertThat(p.innerSrcPort()).isEqualTo(51225);
        assertThat(p.innerDstPort()).isEqualTo(22);
        assertThat(p.innerTcpFlags()).isEqualTo(0x002);
        assertThat(p.innerL3Offset()).isEqualTo(64);
    }

    @Test
    void geneveCarryingIpDirectlyAndUnknownVersions() {
        byte[] v6 = ipv6Tcp();
        // Opt Len 2 (8 bytes): one option, class 1, type 2, 4 bytes of data; protocol type 0x86DD
        byte[] geneve = concat(Captures.hex("020086dd 00abcd00 0001 02 01 00000000"), v6);
        byte[] pkt = eth(0x0800, ipv4(17, 0x0a000001, 0x0a000002, udp(5555, 6081, geneve)));
        assertThat(parse(pkt)).isEqualTo(OK);
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.GENEVE);
        assertThat(p.geneveVni()).isEqualTo(0xabcd);
        assertThat(p.geneveOptionsLength()).isEqualTo(8);
        assertThat(p.innerL2Offset()).isEqualTo(-1);
        assertThat(p.innerEtherType()).isEqualTo(0x86DD);
        assertThat(p.innerL3Offset()).isEqualTo(14 + 20 + 8 + 16);
        assertInnerIpv6Tcp();
        PacketParserRobustnessTest.checkEveryPrefix("geneve ipv6", pkt, LinkType.ETHERNET, Config.DEFAULT, new int[2]);

        pkt[42] = 0x42; // version 1: must be dropped, not read
        assertThat(parse(pkt)).isEqualTo(OK);
        assertThat(p.geneveVni()).isEqualTo(-1);
        assertNoInnerView();
    }

    // ---- GRE ------------------------------------------------------------------------------------------

    /**
     * Every frame of various_gre.pcap against tshark (resource various_gre.headers.tsv). What each
     * GRE variant yields: key 0x28 + Cisco MetaData (0x8909) + IPv4 → GRE tunnel, inner IPv4 5-tuple
     * (ICMP, PIM, or a GRE keepalive whose own GRE header, protocol 0, is not followed); key + 0x0000
     * (keepalive) and key + 0x2000 (CDP) → GRE reported, not followed (outer only).
     */
    @Test
    void variousGreMatchesTshark() throws IOException {
        PcapFile file = Captures.load("various_gre.pcap");
        List<String[]> rows = PacketParserTest.tsv("various_gre.headers.tsv");
        assertThat(rows).hasSize(100);
        int followed = 0;
        int reportedOnly = 0;
        for (int i = 0; i < rows.size(); i++) {
            String[] r = rows.get(i);
            String what = "frame " + r[0] + " " + r[1];
            int status = parse(file, i);
            assertThat(p.vlanId()).as(what).isEqualTo(r[2].isEmpty() ? 0 : Integer.parseInt(r[2]));
            if (!r[1].contains(":ip:")) {
                assertThat(status).as(what).isEqualTo(NOT_IP);
                assertThat(p.grePresent()).isFalse();
                assertNoInnerView();
                continue;
            }
            assertThat(status).as(what).isEqualTo(OK);
            String[] src = r[3].split(",");
            String[] dst = r[4].split(",");
            String[] proto = r[5].split(",");
            assertThat(p.srcAddressString()).as(what).isEqualTo(src[0]);
            assertThat(p.dstAddressString()).as(what).isEqualTo(dst[0]);
            assertThat(p.protocol()).as(what).isEqualTo(Integer.parseInt(proto[0]));
            assertThat(p.grePresent()).as(what).isTrue();
            assertThat(p.greProtocol()).as(what).isEqualTo(Integer.decode(r[7].split(",")[0]));
            int flags = Integer.decode(r[6].split(",")[0]);
            assertThat(p.greKeyPresent()).isEqualTo((flags & 0x2000) != 0);
            assertThat(p.greSequencePresent()).isEqualTo((flags & 0x1000) != 0);
            assertThat(p.greChecksumPresent()).isEqualTo((flags & 0x8000) != 0);
            assertThat(p.greKey()).as(what).isEqualTo(Long.decode(r[8].split(",")[0]));
            assertThat(p.greSequence()).isEqualTo(r[9].isEmpty() ? 0 : Long.parseLong(r[9].split(",")[0]));
            if (src.length == 1) { // GRE payload not IP: keepalive (0x0000) or CDP (0x2000)
                reportedOnly++;
                assertThat(p.greProtocol()).as(what).isIn(0x0000, 0x2000);
                assertNoInnerView();
                continue;
            }
            followed++;
            assertThat(p.encapsulation()).as(what).isEqualTo(Encapsulation.GRE);
            assertThat(p.tunnelDepth()).isEqualTo(1);
            assertThat(p.innerEtherType()).isEqualTo(0x0800);
            assertThat(p.innerL3Offset()).as("VLAN + IPv4 + GRE with key + CMD").isEqualTo(18 + 20 + 8 + 8);
            assertThat(p.innerSrcAddressString()).as(what).isEqualTo(src[1]);
            assertThat(p.innerDstAddressString()).as(what).isEqualTo(dst[1]);
            assertThat(p.innerProtocol()).as(what).isEqualTo(Integer.parseInt(proto[1]));
            assertThat(p.innerIcmpType()).as(what).isEqualTo(r[10].isEmpty() ? 0 : Integer.parseInt(r[10]));
            assertThat(p.innerIcmpCode()).as(what).isEqualTo(r[11].isEmpty() ? 0 : Integer.parseInt(r[11]));
            assertThat(p.innerSrcPort()).isZero();
        }
        assertThat(followed).isEqualTo(20); // 10 ICMP, 2 PIM, 8 keepalives inside the tunnel
        assertThat(reportedOnly).isEqualTo(10); // 8 keepalive replies, 2 CDP
    }

    @Test
    void greChecksumKeySequenceAndTransparentEthernet() {
        byte[] v4 = ipv4Tcp();
        // C, K, S: checksum+reserved, key 0xdeadbeef, sequence 7, IPv4 payload
        byte[] gre = concat(Captures.hex("b0000800 12340000 deadbeef 00000007"), v4);
        byte[] pkt = eth(0x0800, ipv4(47, 0x0a000001, 0x0a000002, gre));
        assertThat(parse(pkt)).isEqualTo(OK);
        assertThat(p.protocol()).isEqualTo(47);
        assertThat(p.grePresent()).isTrue();
        assertThat(p.greProtocol()).isEqualTo(0x0800);
        assertThat(p.greChecksumPresent()).isTrue();
        assertThat(p.greKeyPresent()).isTrue();
        assertThat(p.greKey()).isEqualTo(0xdeadbeefL);
        assertThat(p.greSequencePresent()).isTrue();
        assertThat(p.greSequence()).isEqualTo(7);
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.GRE);
        assertInnerIpv4Tcp(14 + 20 + 16);
        PacketParserRobustnessTest.checkEveryPrefix("gre c+k+s", pkt, LinkType.ETHERNET, Config.DEFAULT, new int[2]);

        // sequence only, IPv6 payload, over IPv6
        byte[] v6pkt = eth(0x86DD, ipv6(47, "2001:db8::1", "2001:db8::2",
                concat(Captures.hex("100086dd 00000001"), ipv6Tcp())));
        assertThat(parse(v6pkt)).isEqualTo(OK);
        assertThat(p.greKeyPresent()).isFalse();
        assertThat(p.greKey()).isZero();
        assertThat(p.greSequence()).isEqualTo(1);
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.GRE);
        assertInnerIpv6Tcp();

        // 0x6558 transparent Ethernet bridging with a VLAN-tagged frame (VID 7)
        byte[] frame = PacketParserRobustnessTest.splice(eth(0x0800, v4), 12, Captures.hex("81000007"));
        byte[] teb = eth(0x0800, ipv4(47, 0x0a000001, 0x0a000002, concat(Captures.hex("20006558 00000064"), frame)));
        assertThat(parse(teb)).isEqualTo(OK);
        assertThat(p.greKey()).isEqualTo(100);
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.GRE);
        assertThat(p.innerL2Offset()).isEqualTo(42);
        assertThat(p.innerDstMac()).isEqualTo(0x020000000002L);
        assertThat(p.innerVlanCount()).isEqualTo(1);
        assertThat(p.innerVlanId()).isEqualTo(7);
        assertInnerIpv4Tcp(42 + 18);
        PacketParserRobustnessTest.checkEveryPrefix("gre teb", teb, LinkType.ETHERNET, Config.DEFAULT, new int[2]);
    }

    @Test
    void greVariantsThatAreNotFollowed() {
        byte[] mirrored = eth(0x0800, ipv4Tcp());
        // ERSPAN type II (0x88BE, RFC 8 byte header after GRE with sequence): reported, outer only
        byte[] erspan = eth(0x0800, ipv4(47, 0x0a000001, 0x0a000002,
                concat(Captures.hex("100088be 0000002a 10010064 00000000"), mirrored)));
        assertThat(parse(erspan)).isEqualTo(OK);
        assertThat(p.greProtocol()).isEqualTo(0x88BE);
        assertThat(p.greSequence()).isEqualTo(42);
        assertNoInnerView();
        // MPLS in GRE (RFC 4023): not followed
        assertThat(parse(eth(0x0800, ipv4(47, 0x0a000001, 0x0a000002,
                concat(Captures.hex("00008847 00010140"), ipv4Tcp()))))).isEqualTo(OK);
        assertThat(p.greProtocol()).isEqualTo(0x8847);
        assertNoInnerView();
        // deprecated Routing bit (RFC 1701): source route entries are not walked
        assertThat(parse(eth(0x0800, ipv4(47, 0x0a000001, 0x0a000002,
                concat(Captures.hex("40000800 00000000"), ipv4Tcp()))))).isEqualTo(OK);
        assertThat(p.greProtocol()).isEqualTo(0x0800);
        assertNoInnerView();
        // PPTP enhanced GRE (version 1, RFC 2637 §4.1): key = payload length + call ID, ack; PPP not followed
        assertThat(parse(eth(0x0800, ipv4(47, 0x0a000001, 0x0a000002,
                Captures.hex("3081880b 00040011 00000005 00000003 ff030021"))))).isEqualTo(OK);
        assertThat(p.greProtocol()).isEqualTo(0x880B);
        assertThat(p.greKey()).isEqualTo(0x00040011L);
        assertThat(p.greSequence()).isEqualTo(5);
        assertNoInnerView();
        // GRE header cut short
        byte[] cut = eth(0x0800, ipv4(47, 0x0a000001, 0x0a000002, Captures.hex("b0000800 1234")));
        assertThat(parse(cut)).isEqualTo(MALFORMED); // the IP length ends inside the GRE header
        assertThat(p.errorLayer()).isEqualTo(Layer.GRE);
        assertThat(p.errorOffset()).isEqualTo(34);
        assertThat(PacketParser.parse(cut, 0, 38, LinkType.ETHERNET, p)).isEqualTo(TRUNCATED);
        assertThat(p.errorLayer()).isEqualTo(Layer.GRE);
        assertThat(p.grePresent()).isFalse();
    }

    // ---- IP in IP -------------------------------------------------------------------------------------

    @Test
    void ipInIpVariants() {
        byte[] v4 = ipv4Tcp();
        byte[] v6 = ipv6Tcp();
        byte[] ipip = eth(0x0800, ipv4(4, 0x0a000001, 0x0a000002, v4));
        assertThat(parse(ipip)).isEqualTo(OK);
        assertThat(p.protocol()).isEqualTo(4);
        assertThat(p.srcAddressString()).isEqualTo("10.0.0.1");
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.IP_IN_IP);
        assertThat(p.innerEtherType()).isEqualTo(0x0800);
        assertInnerIpv4Tcp(34);

        assertThat(parse(eth(0x0800, ipv4(41, 0x0a000001, 0x0a000002, v6)))).isEqualTo(OK); // 6in4
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.IP_IN_IP);
        assertThat(p.innerEtherType()).isEqualTo(0x86DD);
        assertInnerIpv6Tcp();

        assertThat(parse(eth(0x86DD, ipv6(41, "2001:db8::1", "2001:db8::2", v6)))).isEqualTo(OK);
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.IP_IN_IP);
        assertThat(p.srhPresent()).isFalse();
        assertInnerIpv6Tcp();

        assertThat(parse(eth(0x86DD, ipv6(4, "2001:db8::1", "2001:db8::2", v4)))).isEqualTo(OK);
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.IP_IN_IP);
        assertInnerIpv4Tcp(54);

        // protocol 4 carrying something that is not IPv4
        assertThat(parse(eth(0x0800, ipv4(4, 0x0a000001, 0x0a000002, v6)))).isEqualTo(MALFORMED);
        assertThat(p.errorLayer()).isEqualTo(Layer.IPV4);
        assertThat(p.errorDepth()).isEqualTo(1);
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.IP_IN_IP);

        // raw-IP link type: the outer packet starts at offset 0
        byte[] raw = ipv4(4, 0x0a000001, 0x0a000002, v4);
        assertThat(PacketParser.parse(raw, 0, raw.length, LinkType.RAW, p)).isEqualTo(OK);
        assertInnerIpv4Tcp(20);

        // fragments: the payload of a fragment is not followed
        byte[] frag = ipip.clone();
        PacketParserRobustnessTest.set16(frag, 20, 0x2000);
        assertThat(parse(frag)).isEqualTo(OK);
        assertThat(p.moreFragments()).isTrue();
        assertNoInnerView();
    }

    @Test
    void nestedTunnelsAndTheDepthLimit() {
        // 6in4 carrying GRE carrying VXLAN carrying IPv4 TCP: three levels
        byte[] vxlanFrame = eth(0x0800, ipv4(17, 0xc0a80001, 0xc0a80002,
                udp(40000, 4789, concat(Captures.hex("08000000 00030900"), eth(0x0800, ipv4Tcp())))));
        byte[] greV6 = ipv6(47, "2001:db8::a", "2001:db8::b", concat(Captures.hex("20006558 00000005"), vxlanFrame));
        byte[] pkt = eth(0x0800, ipv4(41, 0x0a000001, 0x0a000002, greV6));
        assertThat(parse(pkt)).isEqualTo(OK);
        assertThat(p.tunnelDepth()).isEqualTo(3);
        assertThat(p.encapsulation()).isEqualTo(Encapsulation.IP_IN_IP);
        assertThat(p.encapsulationAt(0)).isEqualTo(Encapsulation.IP_IN_IP);
        assertThat(p.encapsulationAt(1)).isEqualTo(Encapsulation.GRE);
        assertThat(p.encapsulationAt(2)).isEqualTo(Encapsulation.VXLAN);
        assertThatThrownBy(() -> p.encapsulationAt(3)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(p.tunnelLimitReached()).isFalse();
        assertThat(p.greKey()).isEqualTo(5);
        assertThat(p.vxlanVni()).isEqualTo(0x309);
        assertThat(p.srcAddressString()).isEqualTo("10.0.0.1");
        int innerFrame = 14 + 20 + 40 + 8 + 14 + 20 + 8 + 8;
        assertThat(p.innerL2Offset()).isEqualTo(innerFrame);
        assertInnerIpv4Tcp(innerFrame + 14);
        PacketParserRobustnessTest.checkEveryPrefix("6in4/gre/vxlan", pkt, LinkType.ETHERNET, Config.DEFAULT,
                new int[2]);

        // limited to 2 levels: the innermost packet is the VXLAN carrier (UDP to 4789)
        Config two = Config.builder().maxTunnelDepth(2).build();
        assertThat(parse(pkt, two)).isEqualTo(OK);
        assertThat(p.tunnelDepth()).isEqualTo(2);
        assertThat(p.tunnelLimitReached()).isTrue();
        assertThat(p.vxlanVni()).as("the header beyond the limit is not read").isEqualTo(-1);
        assertThat(p.innerL2Offset()).isEqualTo(14 + 20 + 40 + 8);
        assertThat(p.innerSrcAddressString()).isEqualTo("192.168.0.1");
        assertThat(p.innerProtocol()).isEqualTo(17);
        assertThat(p.innerDstPort()).isEqualTo(4789);
        PacketParserRobustnessTest.checkEveryPrefix("6in4/gre/vxlan, depth 2", pkt, LinkType.ETHERNET, two, new int[2]);

        assertThat(parse(pkt, Config.builder().maxTunnelDepth(1).build())).isEqualTo(OK);
        assertThat(p.tunnelDepth()).isEqualTo(1);
        assertThat(p.tunnelLimitReached()).isTrue();
        assertThat(p.grePresent()).isFalse();
        assertThat(p.innerProtocol()).isEqualTo(47);
        assertThat(p.innerSrcAddressString()).isEqualTo("2001:db8::a");

        assertThat(parse(pkt, Config.NO_DECAPSULATION)).isEqualTo(OK);
        assertThat(p.tunnelLimitReached()).isFalse();
        assertNoInnerView();
    }

    // ---- configuration --------------------------------------------------------------------------------

    @Test
    void configDefaultsAndValidation() {
        Config d = Config.DEFAULT;
        assertThat(d.isVxlanPort(4789)).isTrue();
        assertThat(d.isVxlanPort(8472)).isFalse();
        assertThat(d.isGenevePort(6081)).isTrue();
        assertThat(d.isGenevePort(4789)).isFalse();
        assertThat(d.isVxlanPort(-1)).isFalse();
        assertThat(d.isVxlanPort(65536 + 4789)).isFalse();
        assertThat(d.maxTunnelDepth()).isEqualTo(4);
        assertThat(d.decapsulate()).isTrue();
        assertThat(Config.NO_DECAPSULATION.decapsulate()).isFalse();
        assertThat(d.toString()).isEqualTo("Config[vxlan={4789}, geneve={6081}, maxTunnelDepth=4, decapsulate=true]");

        Config c = Config.builder().vxlanPorts(0, 65535).addVxlanPort(8472).genevePorts().addGenevePort(6082)
                .maxTunnelDepth(PacketParser.MAX_TUNNEL_DEPTH).build();
        assertThat(c.isVxlanPort(0)).isTrue();
        assertThat(c.isVxlanPort(65535)).isTrue();
        assertThat(c.isVxlanPort(8472)).isTrue();
        assertThat(c.isVxlanPort(4789)).isFalse();
        assertThat(c.isGenevePort(6081)).isFalse();
        assertThat(c.isGenevePort(6082)).isTrue();
        assertThat(c.maxTunnelDepth()).isEqualTo(8);

        assertThatThrownBy(() -> Config.builder().addGenevePort(4789).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ports configured as both VXLAN and Geneve: {4789}");
        assertThatThrownBy(() -> Config.builder().addVxlanPort(65536)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Config.builder().genevePorts(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Config.builder().maxTunnelDepth(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Config.builder().maxTunnelDepth(9)).isInstanceOf(IllegalArgumentException.class);
        byte[] pkt = new byte[60];
        assertThatThrownBy(() -> PacketParser.parse(pkt, 0, 60, LinkType.ETHERNET, null, p))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void outerViewIsIdenticalWithAndWithoutDecapsulation() {
        ParsedPacket outerOnly = new ParsedPacket();
        for (String name : List.of("vxlan.pcap", "geneve.pcap", "various_gre.pcap", "ipv6-srh-ext-header.pcap",
                "tcpreplay-test.pcap")) {
            PcapFile file = Captures.load(name);
            for (PcapPacket pkt : file.packets()) {
                byte[] d = pkt.data();
                int st = PacketParser.parse(d, 0, d.length, file.linkType(), p);
                int st0 = PacketParser.parse(d, 0, d.length, file.linkType(), Config.NO_DECAPSULATION, outerOnly);
                assertThat(st).isEqualTo(st0);
                assertThat(Captures.outerFields(p)).isEqualTo(Captures.outerFields(outerOnly));
                assertThat(p.flowHash()).isEqualTo(outerOnly.flowHash());
                assertThat(Captures.tunnelFields(outerOnly)).isEqualTo(Captures.tunnelFields(new ParsedPacket()));
            }
        }
    }

    // ---- helpers: expected inner packets --------------------------------------------------------------

    private void assertInnerIpv4Tcp(int l3) {
        assertThat(p.innerL3Offset()).isEqualTo(l3);
        assertThat(p.innerIpVersion()).isEqualTo(4);
        assertThat(p.innerSrcAddressString()).isEqualTo("172.16.11.12");
        assertThat(p.innerDstAddressString()).isEqualTo("74.125.19.17");
        assertThat(p.innerIpTotalLength()).isEqualTo(79);
        assertThat(p.innerTtl()).isEqualTo(64);
        assertThat(p.innerProtocol()).isEqualTo(6);
        assertThat(p.innerL4Offset()).isEqualTo(l3 + 20);
        assertThat(p.innerSrcPort()).isEqualTo(64565);
        assertThat(p.innerDstPort()).isEqualTo(443);
        assertThat(p.innerTcpFlags()).isEqualTo(0x018);
        assertThat(p.innerIsFragment()).isFalse();
    }

    private void assertInnerIpv6Tcp() {
        assertThat(p.innerIpVersion()).isEqualTo(6);
        assertThat(p.innerSrcAddressString()).isEqualTo("2001:4958:15a0:24:c1b3:b766:7fff:d0b3");
        assertThat(p.innerDstAddressString()).isEqualTo("2606:4700::6812:69c");
        assertThat(p.innerIpTotalLength()).isEqualTo(80);
        assertThat(p.innerTtl()).isEqualTo(64);
        assertThat(p.innerProtocol()).isEqualTo(6);
        assertThat(p.innerL4Offset()).isEqualTo(p.innerL3Offset() + 40);
        assertThat(p.innerSrcPort()).isEqualTo(43250);
        assertThat(p.innerDstPort()).isEqualTo(80);
        assertThat(p.innerTcpFlags()).isEqualTo(0x002);
    }

    // ---- helpers: packet builders -----------------------------------------------------------------------

    /** tcpreplay frame 1's IPv4 packet (79 bytes, TCP 172.16.11.12:64565 → 74.125.19.17:443). */
    static byte[] ipv4Tcp() {
        byte[] f = Captures.load("tcpreplay-test.pcap").packets().getFirst().data();
        return Arrays.copyOfRange(f, 14, 14 + 79);
    }

    /** tcpreplay frame 29's IPv6 packet (80 bytes, TCP SYN to port 80). */
    static byte[] ipv6Tcp() {
        byte[] f = Captures.load("tcpreplay-test.pcap").packets().get(28).data();
        return Arrays.copyOfRange(f, 14, 14 + 80);
    }

    /** Ethernet II, dst 02:00:00:00:00:02, src 02:00:00:00:00:01. */
    static byte[] eth(int type, byte[] payload) {
        byte[] h = Captures.hex("020000000002 020000000001 0000");
        PacketParserRobustnessTest.set16(h, 12, type);
        return concat(h, payload);
    }

    /** IPv4 header (IHL 5, TTL 64, no checksum) + payload. */
    static byte[] ipv4(int protocol, int src, int dst, byte[] payload) {
        byte[] h = new byte[20];
        h[0] = 0x45;
        PacketParserRobustnessTest.set16(h, 2, 20 + payload.length);
        h[8] = 64;
        h[9] = (byte) protocol;
        for (int i = 0; i < 4; i++) {
            h[12 + i] = (byte) (src >>> (24 - 8 * i));
            h[16 + i] = (byte) (dst >>> (24 - 8 * i));
        }
        return concat(h, payload);
    }

    /** IPv6 header (hop limit 64) + payload. */
    static byte[] ipv6(int next, String src, String dst, byte[] payload) {
        try {
            byte[] h = new byte[40];
            h[0] = 0x60;
            PacketParserRobustnessTest.set16(h, 4, payload.length);
            h[6] = (byte) next;
            h[7] = 64;
            System.arraycopy(java.net.InetAddress.getByName(src).getAddress(), 0, h, 8, 16);
            System.arraycopy(java.net.InetAddress.getByName(dst).getAddress(), 0, h, 24, 16);
            return concat(h, payload);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** UDP header (no checksum) + payload. */
    static byte[] udp(int src, int dst, byte[] payload) {
        byte[] h = new byte[8];
        PacketParserRobustnessTest.set16(h, 0, src);
        PacketParserRobustnessTest.set16(h, 2, dst);
        PacketParserRobustnessTest.set16(h, 4, 8 + payload.length);
        return concat(h, payload);
    }

    /** SRH (RFC 8754 §2) with {@code count} segments fc00::i, then the payload. */
    static byte[] srh(int next, int count, int segmentsLeft, byte[] payload) {
        byte[] h = new byte[8 + 16 * count];
        h[0] = (byte) next;
        h[1] = (byte) (2 * count);
        h[2] = 4;
        h[3] = (byte) segmentsLeft;
        h[4] = (byte) (count - 1);
        for (int i = 0; i < count; i++) {
            h[8 + 16 * i] = (byte) 0xfc;
            h[8 + 16 * i + 15] = (byte) i;
        }
        return concat(h, payload);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    private static String mac(long v) {
        return String.format("%02x:%02x:%02x:%02x:%02x:%02x", v >>> 40 & 0xFF, v >>> 32 & 0xFF, v >>> 24 & 0xFF,
                v >>> 16 & 0xFF, v >>> 8 & 0xFF, v & 0xFF);
    }
}
