package io.vecflow.packet;

import static io.vecflow.packet.ParsedPacket.NOT_IP;
import static io.vecflow.packet.ParsedPacket.OK;
import static io.vecflow.packet.ParsedPacket.TRUNCATED;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * IEEE 802.3 frames (Length/Type ≤ 1500) whose IEEE 802.2 LLC header is a SNAP header (DSAP 0xAA, SSAP 0xAA,
 * control 0x03 UI; RFC 1042 §"IEEE 802 Header"): OUI 00-00-00 (RFC 1042) or 00-00-F8 (IEEE 802.1H bridge tunnel)
 * followed by an EtherType, here IPv4 and IPv6. The frames are built from those layouts; tshark 4 decodes both as
 * shown in the comments ({@code llc.oui}, {@code llc.type}, then the IP and transport fields) with valid checksums.
 * Other LLC frames (IS-IS, STP) stay NOT_IP.
 */
class PacketParserLlcSnapTest {
    private static final HexFormat HEX = HexFormat.of();

    /**
     * 62 bytes: 02:00:00:00:00:01 → 02:00:00:00:00:02, 802.3 length 48, LLC AA AA 03, SNAP OUI 000000 type 0x0800,
     * IPv4 10.0.0.1 → 10.0.0.2 TTL 64 TCP 40000 → 80 SYN (tshark: "TCP 62 40000 → 80 [SYN]", llc.type 0x0800).
     */
    static final byte[] SNAP_IPV4_TCP = HEX.parseHex("0200000000020200000000010030aaaa030000000800"
            + "45000028123440004006149a0a0000010a000002" + "9c40005000000001000000005002ffff00000000");

    /**
     * 78 bytes: 802.1Q VLAN 100, then 802.3 length 60, LLC/SNAP OUI 0000F8 (802.1H) type 0x86DD, IPv6
     * 2001:db8::1 → 2001:db8::2 hop limit 64 UDP 40001 → 9999 with 4 payload bytes (tshark: "UDP 78 40001 → 9999
     * Len=4", udp.checksum.status good).
     */
    static final byte[] SNAP_VLAN_IPV6_UDP = HEX.parseHex("02000000000202000000000181000064003caaaa030000f886dd"
            + "60000000000c114020010db800000000000000000000000120010db8000000000000000000000002"
            + "9c41270f000c1c4a61626364");

    private final ParsedPacket p = new ParsedPacket();

    @Test
    void snapFrameCarryingIpv4IsParsedToTheTransportHeader() {
        assertThat(PacketParser.parse(SNAP_IPV4_TCP, 0, SNAP_IPV4_TCP.length, LinkType.ETHERNET, p)).isEqualTo(OK);
        assertThat(p.llcSnap()).isTrue();
        assertThat(p.dstMac()).isEqualTo(0x020000000002L);
        assertThat(p.srcMac()).isEqualTo(0x020000000001L);
        assertThat(p.etherType()).as("the SNAP EtherType").isEqualTo(0x0800);
        assertThat(p.l3Offset()).as("14 + 3 LLC + 5 SNAP").isEqualTo(22);
        assertThat(p.ipVersion()).isEqualTo(4);
        assertThat(p.srcAddressString()).isEqualTo("10.0.0.1");
        assertThat(p.dstAddressString()).isEqualTo("10.0.0.2");
        assertThat(p.ipTotalLength()).isEqualTo(40);
        assertThat(p.ttl()).isEqualTo(64);
        assertThat(p.protocol()).isEqualTo(6);
        assertThat(p.l4Offset()).isEqualTo(42);
        assertThat(p.srcPort()).isEqualTo(40000);
        assertThat(p.dstPort()).isEqualTo(80);
        assertThat(p.tcpFlags()).isEqualTo(0x002);
    }

    @Test
    void taggedSnapFrameWithTheBridgeTunnelOuiCarryingIpv6() {
        byte[] f = SNAP_VLAN_IPV6_UDP;
        assertThat(PacketParser.parse(f, 0, f.length, LinkType.ETHERNET, p)).isEqualTo(OK);
        assertThat(p.llcSnap()).isTrue();
        assertThat(p.vlanCount()).isEqualTo(1);
        assertThat(p.vlanId()).isEqualTo(100);
        assertThat(p.etherType()).isEqualTo(0x86DD);
        assertThat(p.l3Offset()).isEqualTo(26);
        assertThat(p.ipVersion()).isEqualTo(6);
        assertThat(p.srcAddressString()).isEqualTo("2001:db8::1");
        assertThat(p.dstAddressString()).isEqualTo("2001:db8::2");
        assertThat(p.protocol()).isEqualTo(17);
        assertThat(p.srcPort()).isEqualTo(40001);
        assertThat(p.dstPort()).isEqualTo(9999);
    }

    @Test
    void linuxCookedLlcProtocolCarriesTheSameSnapHeader() {
        // LINKTYPE_LINUX_SLL protocol 0x0004 (LINUX_SLL_P_802_2): the payload starts with the LLC header.
        byte[] f = new byte[16 + SNAP_IPV4_TCP.length - 14];
        f[1] = 0; // packet type: to us
        f[3] = 1; // ARPHRD_ETHER
        f[5] = 6; // address length
        System.arraycopy(SNAP_IPV4_TCP, 6, f, 6, 6);
        f[15] = 4;
        System.arraycopy(SNAP_IPV4_TCP, 14, f, 16, SNAP_IPV4_TCP.length - 14);
        assertThat(PacketParser.parse(f, 0, f.length, LinkType.LINUX_SLL, p)).isEqualTo(OK);
        assertThat(p.llcSnap()).isTrue();
        assertThat(p.etherType()).isEqualTo(0x0800);
        assertThat(p.srcPort()).isEqualTo(40000);
    }

    @Test
    void otherLlcFramesStayNotIp() {
        // tcpreplay-test.pcap frame 114: 802.3 length 1500, LLC DSAP/SSAP 0xFE (OSI), IS-IS L1 hello (tshark).
        PcapFile file = Captures.load("tcpreplay-test.pcap");
        byte[] isis = file.packets().get(113).data();
        assertThat(PacketParser.parse(isis, 0, isis.length, LinkType.ETHERNET, p)).isEqualTo(NOT_IP);
        assertThat(p.llcSnap()).isFalse();
        assertThat(p.etherType()).isZero();
        assertThat(p.l3Offset()).isEqualTo(14);
        // A SNAP header whose OUI is an organisation's (not an EtherType): not followed.
        byte[] vendor = SNAP_IPV4_TCP.clone();
        vendor[19] = 0x0C; // OUI 00-00-0C (Cisco: CDP, VTP)
        assertThat(PacketParser.parse(vendor, 0, vendor.length, LinkType.ETHERNET, p)).isEqualTo(NOT_IP);
        assertThat(p.llcSnap()).isFalse();
        assertThat(p.etherType()).isZero();
        // Ethernet II with the same bytes after the type is not LLC.
        byte[] ethernet2 = SNAP_IPV4_TCP.clone();
        ethernet2[12] = 0x08;
        ethernet2[13] = 0x06; // ARP
        assertThat(PacketParser.parse(ethernet2, 0, ethernet2.length, LinkType.ETHERNET, p)).isEqualTo(NOT_IP);
        assertThat(p.etherType()).isEqualTo(0x0806);
        assertThat(p.llcSnap()).isFalse();
    }

    @Test
    void everyPrefixOfASnapFrameIsTruncatedWhereItIsCut() {
        byte[] f = SNAP_IPV4_TCP;
        for (int cut = 0; cut < f.length; cut++) {
            int st = PacketParser.parse(f, 0, cut, LinkType.ETHERNET, p);
            String what = "cut at " + cut;
            if (cut == 14) {
                // Nothing of the LLC header captured: an 802.3 frame of unknown content.
                assertThat(st).as(what).isEqualTo(NOT_IP);
                assertThat(p.etherType()).isZero();
                continue;
            }
            if (cut < 42 + 20) {
                assertThat(st).as(what).isEqualTo(TRUNCATED);
            }
            if (cut > 14 && cut < 22) {
                assertThat(p.errorLayer()).as(what).isEqualTo(ParsedPacket.Layer.LINK);
                assertThat(p.errorOffset()).as(what).isEqualTo(14);
            } else if (cut >= 22 && cut < 42) {
                assertThat(p.errorLayer()).as(what).isEqualTo(ParsedPacket.Layer.IPV4);
                assertThat(p.etherType()).as(what).isEqualTo(0x0800);
            } else if (cut >= 42) {
                assertThat(p.errorLayer()).as(what).isEqualTo(ParsedPacket.Layer.TRANSPORT);
                assertThat(p.srcPort()).as(what).isEqualTo(cut >= 46 ? 40000 : 0);
            }
        }
    }
}
