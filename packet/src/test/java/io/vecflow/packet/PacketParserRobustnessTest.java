package io.vecflow.packet;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.List;

import static io.vecflow.packet.ParsedPacket.Layer;
import static io.vecflow.packet.ParsedPacket.MALFORMED;
import static io.vecflow.packet.ParsedPacket.NOT_IP;
import static io.vecflow.packet.ParsedPacket.OK;
import static io.vecflow.packet.ParsedPacket.TRUNCATED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Truncation, malformed headers, limits and allocation behaviour of PacketParser. Inputs are
 * real packets from ../testdata/traffic (tcpdump test suite, tcpreplay test capture), cut or
 * edited at the byte offsets given in the comments.
 */
class PacketParserRobustnessTest {

    private static final List<String> ALL_PARSEABLE = List.of(
            "tcpreplay-test.pcap", "802.1ad_QinQ.pcap", "ipv4_tcp_http_xml.pcap", "dns_tcp.pcap",
            "icmpv6.pcap", "ipv6-routing-header.pcap", "ipv6-srh-ext-header.pcap",
            "ipv6-srh-insert-cksum.pcap", "ipv6-srh-tlv-pad1-padn-5.pcap", "mptcp-v1.pcap",
            "vxlan.pcap", "geneve.pcap", "various_gre.pcap");

    private final ParsedPacket p = new ParsedPacket();

    // ---- every prefix of every real packet ------------------------------------------------------

    /**
     * Cuts every packet of every parseable capture at every length 0..len. The MemorySegment
     * slice is exactly {@code cut} bytes long, so any read beyond the given length would throw.
     * Tunnel captures (VXLAN, Geneve, GRE, SRv6) are followed to their inner packets: a cut inside
     * the tunnel keeps the whole outer view.
     */
    @Test
    void everyPrefixOfEveryRealPacketParsesSensibly() {
        long prefixes = 0;
        int[] truncatedSeen = new int[2]; // [0] outer incomplete, [1] inside a tunnel
        for (String name : ALL_PARSEABLE) {
            PcapFile file = Captures.load(name);
            int index = 0;
            for (PcapPacket pkt : file.packets()) {
                index++;
                prefixes += checkEveryPrefix(name + " #" + index, pkt.data(), file.linkType(),
                        PacketParser.Config.DEFAULT, truncatedSeen);
            }
        }
        assertThat(prefixes).isGreaterThan(100_000);
        assertThat(truncatedSeen[0]).isGreaterThan(10_000);
        assertThat(truncatedSeen[1]).as("cuts inside tunnels").isGreaterThan(3_000);
    }

    /**
     * Checks every cut 0..len of one packet against its full parse; returns the number of cuts.
     * {@code truncatedSeen[0]} counts cuts before the outer view is complete, [1] cuts after it.
     */
    static int checkEveryPrefix(String label, byte[] data, LinkType linkType, PacketParser.Config config,
                                int[] truncatedSeen) {
        ParsedPacket full = new ParsedPacket();
        ParsedPacket p = new ParsedPacket();
        ParsedPacket viaArray = new ParsedPacket();
        MemorySegment whole = MemorySegment.ofArray(data);
        int fullStatus = PacketParser.parse(data, 0, data.length, linkType, config, full);
        assertThat(fullStatus).as(label).isIn(OK, NOT_IP);
        int outerRequired = requiredLength(full, data);
        int required = Math.max(outerRequired, requiredInnerLength(full, data));
        String fullFields = Captures.fields(full);
        int lastAt = -1;
        for (int cut = 0; cut <= data.length; cut++) {
            String what = label + " cut at " + cut;
            int st = PacketParser.parse(whole.asSlice(0, cut), 0, cut, linkType, config, p);
            assertThat(PacketParser.parse(data, 0, cut, linkType, config, viaArray)).isEqualTo(st);
            String fields = Captures.fields(p);
            assertThat(Captures.fields(viaArray)).isEqualTo(fields);
            // No byte of an 802.3 frame's LLC header captured: read as a non-SNAP 802.3 frame, as the full one is.
            boolean llcUnseen = fullStatus == NOT_IP && full.etherType() == 0 && cut == full.l3Offset();
            if (cut >= required || llcUnseen) {
                assertThat(st).as(what).isEqualTo(fullStatus);
                assertThat(fields).as(what).isEqualTo(fullFields);
                assertThat(p.flowHash()).as(what).isEqualTo(full.flowHash());
                assertThat(p.innerFlowHash()).as(what).isEqualTo(full.innerFlowHash());
                continue;
            }
            assertThat(st).as(what).isEqualTo(TRUNCATED);
            int at = p.truncatedAt();
            assertThat(at).as(what).isBetween(0, cut).isGreaterThanOrEqualTo(lastAt);
            lastAt = at;
            if (cut < outerRequired) {
                truncatedSeen[0]++;
                assertThat(p.encapsulation()).as(what).isEqualTo(ParsedPacket.Encapsulation.NONE);
                assertThat(p.tunnelDepth()).isZero();
                assertThat(p.errorDepth()).isZero();
                assertThat(p.innerL3Offset()).isEqualTo(-1);
                if (cut < full.l3Offset()) {
                    assertThat(p.errorLayer()).as(what).isIn(Layer.LINK, Layer.VLAN, Layer.MPLS);
                    assertThat(p.ipVersion()).isZero();
                } else if (full.status() == NOT_IP) {
                    // An 802.3 frame cut inside an LLC header that starts like SNAP: not yet known to be non-IP.
                    assertThat(p.errorLayer()).as(what).isEqualTo(Layer.LINK);
                    assertThat(at).as(what).isEqualTo(full.l3Offset());
                } else if (cut < full.l4Offset()) {
                    // Under MPLS the IP version is only known once its first byte is captured.
                    assertThat(p.errorLayer()).as(what).isIn(Layer.IPV4, Layer.IPV6, Layer.IPV6_EXTENSION,
                            cut == full.l3Offset() && full.mplsLabelCount() > 0 ? Layer.MPLS : Layer.IPV4);
                    assertThat(at).as(what).isGreaterThanOrEqualTo(full.l3Offset());
                    assertThat(p.etherType()).isEqualTo(full.etherType());
                    assertThat(p.vlanId()).isEqualTo(full.vlanId());
                    assertThat(p.srcPort()).isZero();
                } else {
                    assertThat(p.errorLayer()).as(what).isEqualTo(Layer.TRANSPORT);
                    assertThat(at).as(what).isEqualTo(full.l4Offset());
                    assertThat(p.srcAddrLo()).isEqualTo(full.srcAddrLo());
                    assertThat(p.dstAddrHi()).isEqualTo(full.dstAddrHi());
                    assertThat(p.protocol()).isEqualTo(full.protocol());
                    boolean portsCaptured = cut >= full.l4Offset() + 4;
                    assertThat(p.srcPort()).as(what).isEqualTo(portsCaptured ? full.srcPort() : 0);
                    assertThat(p.dstPort()).as(what).isEqualTo(portsCaptured ? full.dstPort() : 0);
                }
                continue;
            }
            // The outer view is complete; the cut is in a tunnel header or a tunnelled packet.
            truncatedSeen[1]++;
            assertThat(Captures.outerFields(p)).as(what).isEqualTo(Captures.outerFields(full));
            assertThat(p.flowHash()).as(what).isEqualTo(full.flowHash());
            assertThat(at).as(what).isGreaterThanOrEqualTo(full.l4Offset());
            assertThat(p.errorLayer()).as(what).isIn(Layer.GRE, Layer.VXLAN, Layer.GENEVE, Layer.LINK, Layer.VLAN,
                    Layer.IPV4, Layer.IPV6, Layer.IPV6_EXTENSION, Layer.TRANSPORT);
            assertThat(p.errorDepth()).as(what).isEqualTo(p.tunnelDepth());
            assertThat(p.tunnelDepth()).as(what).isLessThanOrEqualTo(full.tunnelDepth());
            for (int level = 0; level < p.tunnelDepth(); level++) {
                assertThat(p.encapsulationAt(level)).as(what).isEqualTo(full.encapsulationAt(level));
            }
            if (p.tunnelDepth() == full.tunnelDepth() && full.tunnelDepth() > 0) {
                // tunnelLimitReached ('+') is only known once the innermost transport header is read
                assertThat(Captures.tunnelFields(p).replace("+", "")).as(what)
                        .isEqualTo(Captures.tunnelFields(full).replace("+", ""));
                if (cut >= full.innerL3Offset()) {
                    assertThat(p.innerL3Offset()).as(what).isEqualTo(full.innerL3Offset());
                    assertThat(p.innerEtherType()).as(what).isEqualTo(full.innerEtherType());
                    assertThat(p.innerVlanId()).as(what).isEqualTo(full.innerVlanId());
                }
                if (full.innerL4Offset() >= 0 && cut >= full.innerL4Offset()) {
                    assertThat(p.innerSrcAddrLo()).as(what).isEqualTo(full.innerSrcAddrLo());
                    assertThat(p.innerDstAddrHi()).as(what).isEqualTo(full.innerDstAddrHi());
                    assertThat(p.innerProtocol()).as(what).isEqualTo(full.innerProtocol());
                    int proto = full.innerProtocol();
                    if (cut >= full.innerL4Offset() + 4 && (proto == 6 || proto == 17 || proto == 132)) {
                        assertThat(p.innerSrcPort()).as(what).isEqualTo(full.innerSrcPort());
                        assertThat(p.innerDstPort()).as(what).isEqualTo(full.innerDstPort());
                    }
                } else {
                    assertThat(p.innerSrcPort()).as(what).isZero();
                }
            } else if (p.tunnelDepth() == 0) {
                assertThat(Captures.innerFields(p)).as(what).isEqualTo(Captures.innerFields(new ParsedPacket()));
            }
        }
        return data.length + 1;
    }

    /** Bytes needed for the outer view to complete: link + tags, IP + extensions, minimal L4 header. */
    private static int requiredLength(ParsedPacket full, byte[] data) {
        if (full.status() == NOT_IP) {
            return full.l3Offset() + llcBytesToDecide(full, data);
        }
        if (full.fragmentOffset() != 0) {
            return full.l4Offset();
        }
        return full.l4Offset() + minimalTransport(full.protocol());
    }

    /**
     * Bytes needed for the whole parse: the innermost packet's headers, plus a GRE header (and
     * Cisco MetaData) that was read but not followed.
     */
    private static int requiredInnerLength(ParsedPacket full, byte[] data) {
        int required = 0;
        int lastL4 = full.l4Offset();
        int lastProtocol = full.protocol();
        boolean lastIsFirstFragment = full.fragmentOffset() == 0 && !full.isFragment();
        if (full.tunnelDepth() > 0) {
            if (full.innerIpVersion() == 0) {
                return full.innerL3Offset();
            }
            lastL4 = full.innerL4Offset();
            lastProtocol = full.innerProtocol();
            lastIsFirstFragment = !full.innerIsFragment();
            required = lastL4 + (full.innerFragmentOffset() != 0 ? 0 : minimalTransport(lastProtocol));
        }
        if (lastProtocol == 47 && lastIsFirstFragment && !full.tunnelLimitReached() && full.status() == OK) {
            int flags = (data[lastL4] & 0xFF) << 8 | (data[lastL4 + 1] & 0xFF);
            int type = (data[lastL4 + 2] & 0xFF) << 8 | (data[lastL4 + 3] & 0xFF);
            int gre = 4 + ((flags & 0xC000) != 0 ? 4 : 0) + ((flags & 0x2000) != 0 ? 4 : 0) + ((flags & 0x1000) != 0 ? 4
                    : 0)
                    + ((flags & 7) == 1 && (flags & 0x80) != 0 ? 4 : 0);
            boolean cmd = type == 0x8909 && (flags & 0x4007) == 0;
            required = Math.max(required, lastL4 + gre + (cmd ? 8 : 0));
        }
        return required;
    }

    /**
     * Bytes after {@code l3Offset} the parser needs to tell that an 802.3 frame's LLC header is not
     * an RFC 1042 / 802.1H SNAP header (AA AA 03 00 00 00|F8): up to and including the first byte
     * that differs; 0 when the first one does (no LLC byte captured is also read as "not SNAP").
     */
    private static int llcBytesToDecide(ParsedPacket full, byte[] data) {
        int type = full.l3Offset() >= 2 ? (data[full.l3Offset() - 2] & 0xFF) << 8 | (data[full.l3Offset() - 1] & 0xFF)
                : -1;
        boolean llc = full.linkType() == LinkType.ETHERNET ? type >= 0 && type <= 1500 : type == 4;
        if (!llc || full.etherType() != 0) {
            return 0;
        }
        int[] snap = {0xAA, 0xAA, 0x03, 0x00, 0x00};
        for (int i = 0; i < 6 && full.l3Offset() + i < data.length; i++) {
            int v = data[full.l3Offset() + i] & 0xFF;
            boolean match = i < 5 ? v == snap[i] : v == 0 || v == 0xF8;
            if (!match) {
                return i == 0 ? 0 : i + 1;
            }
        }
        return 8;
    }

    private static int minimalTransport(int protocol) {
        return switch (protocol) {
            case 6 -> 20;
            case 17 -> 8;
            case 132 -> 12;
            case 1, 58 -> 4;
            default -> 0;
        };
    }

    @Test
    void explicitTruncationOffsets() {
        byte[] http = first("ipv4_tcp_http_xml.pcap"); // Ethernet, 802.1Q 165, IPv4 at 18, TCP at 38
        assertThat(PacketParser.parse(http, 0, 13, LinkType.ETHERNET, p)).isEqualTo(TRUNCATED);
        assertThat(p.truncatedAt()).isZero();
        assertThat(p.errorLayer()).isEqualTo(Layer.LINK);
        assertThat(p.dstMac()).isZero();

        assertThat(PacketParser.parse(http, 0, 17, LinkType.ETHERNET, p)).isEqualTo(TRUNCATED);
        assertThat(p.truncatedAt()).isEqualTo(14);
        assertThat(p.errorLayer()).isEqualTo(Layer.VLAN);
        assertThat(p.dstMac()).isEqualTo(0x0003b2780417L); // the Ethernet header is kept

        assertThat(PacketParser.parse(http, 0, 37, LinkType.ETHERNET, p)).isEqualTo(TRUNCATED);
        assertThat(p.truncatedAt()).isEqualTo(18);
        assertThat(p.errorLayer()).isEqualTo(Layer.IPV4);
        assertThat(p.vlanId()).isEqualTo(165);

        assertThat(PacketParser.parse(http, 0, 42, LinkType.ETHERNET, p)).isEqualTo(TRUNCATED);
        assertThat(p.truncatedAt()).isEqualTo(38);
        assertThat(p.errorLayer()).isEqualTo(Layer.TRANSPORT);
        assertThat(p.srcAddressString()).isEqualTo("10.21.11.94"); // addresses present,
        assertThat(p.srcPort()).isEqualTo(80);                     // ports in the first 4 bytes too,
        assertThat(p.tcpFlags()).isZero();                         // flags (byte 13) not captured
        assertThat(p.ipTotalLength()).isEqualTo(645);

        byte[] sll = first("mptcp-v1.pcap");
        assertThat(PacketParser.parse(sll, 0, 15, LinkType.LINUX_SLL, p)).isEqualTo(TRUNCATED);
        assertThat(p.truncatedAt()).isZero();
        assertThat(p.errorLayer()).isEqualTo(Layer.LINK);

        byte[] rtg = first("ipv6-routing-header.pcap"); // routing header at 54 (24 bytes)
        assertThat(PacketParser.parse(rtg, 0, 70, LinkType.ETHERNET, p)).isEqualTo(TRUNCATED);
        assertThat(p.truncatedAt()).isEqualTo(54);
        assertThat(p.errorLayer()).isEqualTo(Layer.IPV6_EXTENSION);
        assertThat(p.protocol()).as("unknown while the chain is cut").isZero();
        assertThat(p.dstAddressString()).isEqualTo("2200::240:2:0:0:4");

        assertThat(PacketParser.parse(new byte[0], 0, 0, LinkType.RAW, p)).isEqualTo(TRUNCATED);
        assertThat(p.errorLayer()).isEqualTo(Layer.IP);
    }

    /**
     * A cut transport header keeps the fields it holds and says which ones it holds: ports need its first 4 bytes,
     * TCP flags 14, ICMP type and code 2. A field not captured reads 0 and its flag is false, so that a printer can
     * leave it out instead of showing an invented 0 (e.g. ICMP type 0 is an echo reply).
     */
    @Test
    void cutTransportHeadersSayWhichFieldsTheyHold() {
        byte[] http = first("ipv4_tcp_http_xml.pcap"); // TCP at 38
        PacketParser.parse(http, 0, http.length, LinkType.ETHERNET, p);
        assertThat(p.portsPresent()).isTrue();
        assertThat(p.tcpFlagsPresent()).isTrue();
        assertThat(p.icmpPresent()).isFalse();
        PacketParser.parse(http, 0, 41, LinkType.ETHERNET, p);
        assertThat(p.protocol()).isEqualTo(6);
        assertThat(p.portsPresent()).as("3 bytes of TCP").isFalse();
        assertThat(p.tcpFlagsPresent()).isFalse();
        PacketParser.parse(http, 0, 42, LinkType.ETHERNET, p);
        assertThat(p.portsPresent()).as("4 bytes of TCP").isTrue();
        assertThat(p.tcpFlagsPresent()).as("flags are byte 13").isFalse();
        PacketParser.parse(http, 0, 52, LinkType.ETHERNET, p);
        assertThat(p.tcpFlagsPresent()).as("14 bytes of TCP").isTrue();
        assertThat(p.tcpFlags()).isEqualTo(0x018);

        byte[] icmp6 = first("icmpv6.pcap"); // Ethernet, IPv6, ICMPv6 at 54
        PacketParser.parse(icmp6, 0, icmp6.length, LinkType.ETHERNET, p);
        assertThat(p.protocol()).isEqualTo(58);
        assertThat(p.icmpPresent()).isTrue();
        assertThat(p.portsPresent()).isFalse();
        PacketParser.parse(icmp6, 0, 55, LinkType.ETHERNET, p);
        assertThat(p.icmpPresent()).as("1 byte of ICMPv6").isFalse();
        assertThat(p.icmpType()).isZero();
        PacketParser.parse(icmp6, 0, 56, LinkType.ETHERNET, p);
        assertThat(p.icmpPresent()).isTrue();

        PacketParser.parse(http, 0, 37, LinkType.ETHERNET, p); // inside the IPv4 header
        assertThat(p.portsPresent()).isFalse();
        assertThat(p.tcpFlagsPresent()).isFalse();
        assertThat(p.icmpPresent()).isFalse();
    }

    // ---- IPv4 edits --------------------------------------------------------------------------------

    @Test
    void ipv4OptionsAreSkipped() {
        // tcpreplay frame 1 with 4 option bytes (NOP NOP NOP EOL) inserted: IHL 6, total length 83
        byte[] pkt = splice(first("tcpreplay-test.pcap"), 34, Captures.hex("01010100"));
        pkt[14] = 0x46;
        set16(pkt, 16, 83);
        assertThat(PacketParser.parse(pkt, 0, pkt.length, LinkType.ETHERNET, p)).isEqualTo(OK);
        assertThat(p.l4Offset()).isEqualTo(38);
        assertThat(p.srcPort()).isEqualTo(64565);
        assertThat(p.dstPort()).isEqualTo(443);
        assertThat(p.tcpFlags()).isEqualTo(0x18);
        assertThat(p.ipTotalLength()).isEqualTo(83);

        // options cut off: addresses from the fixed part are kept
        assertThat(PacketParser.parse(pkt, 0, 36, LinkType.ETHERNET, p)).isEqualTo(TRUNCATED);
        assertThat(p.truncatedAt()).isEqualTo(14);
        assertThat(p.errorLayer()).isEqualTo(Layer.IPV4);
        assertThat(p.dstAddressString()).isEqualTo("74.125.19.17");
        assertThat(p.l4Offset()).isEqualTo(-1);
    }

    @Test
    void ipv4HeaderErrorsAreMalformed() {
        byte[] pkt = first("tcpreplay-test.pcap");
        pkt[14] = 0x44; // IHL 4 < 5
        assertThat(PacketParser.parse(pkt, 0, pkt.length, LinkType.ETHERNET, p)).isEqualTo(MALFORMED);
        assertThat(p.errorOffset()).isEqualTo(14);
        assertThat(p.truncatedAt()).isEqualTo(-1);
        assertThat(p.errorLayer()).isEqualTo(Layer.IPV4);
        assertThat(p.ipVersion()).isZero();

        pkt = first("tcpreplay-test.pcap");
        pkt[14] = 0x65; // EtherType IPv4 but version 6
        assertThat(PacketParser.parse(pkt, 0, pkt.length, LinkType.ETHERNET, p)).isEqualTo(MALFORMED);
        assertThat(p.errorOffset()).isEqualTo(14);

        pkt = first("tcpreplay-test.pcap");
        set16(pkt, 16, 19); // total length below the header length
        assertThat(PacketParser.parse(pkt, 0, pkt.length, LinkType.ETHERNET, p)).isEqualTo(MALFORMED);
        assertThat(p.errorLayer()).isEqualTo(Layer.IPV4);

        pkt = first("tcpreplay-test.pcap");
        set16(pkt, 16, 30); // IP ends 10 bytes into TCP although 59 more bytes were captured
        assertThat(PacketParser.parse(pkt, 0, pkt.length, LinkType.ETHERNET, p)).isEqualTo(MALFORMED);
        assertThat(p.errorOffset()).isEqualTo(34);
        assertThat(p.errorLayer()).isEqualTo(Layer.TRANSPORT);
        assertThat(p.srcPort()).isEqualTo(64565);
        assertThat(p.tcpFlags()).isZero();
    }

    @Test
    void ipv4TotalLengthZeroMeansUpToTheCapture() {
        byte[] pkt = first("tcpreplay-test.pcap");
        set16(pkt, 16, 0); // as seen in TSO/GSO captures
        assertThat(PacketParser.parse(pkt, 0, pkt.length, LinkType.ETHERNET, p)).isEqualTo(OK);
        assertThat(p.ipTotalLength()).isZero();
        assertThat(p.dstPort()).isEqualTo(443);
    }

    @Test
    void ipv4Fragments() {
        byte[] pkt = first("tcpreplay-test.pcap");
        set16(pkt, 20, 0x2000); // MF, offset 0: first fragment, ports present
        assertThat(PacketParser.parse(pkt, 0, pkt.length, LinkType.ETHERNET, p)).isEqualTo(OK);
        assertThat(p.isFragment()).isTrue();
        assertThat(p.fragmentOffset()).isZero();
        assertThat(p.srcPort()).isEqualTo(64565);

        set16(pkt, 20, 185); // offset 185 * 8 = 1480, last fragment
        assertThat(PacketParser.parse(pkt, 0, pkt.length, LinkType.ETHERNET, p)).isEqualTo(OK);
        assertThat(p.isFragment()).isTrue();
        assertThat(p.fragmentOffset()).isEqualTo(1480);
        assertThat(p.protocol()).isEqualTo(6);
        assertThat(p.l4Offset()).isEqualTo(34);
        assertThat(p.srcPort()).isZero();
        assertThat(p.dstPort()).isZero();
        assertThat(p.tcpFlags()).isZero();

        set16(pkt, 20, 0x4000); // DF only
        PacketParser.parse(pkt, 0, pkt.length, LinkType.ETHERNET, p);
        assertThat(p.isFragment()).isFalse();
    }

    // ---- IPv6 edits --------------------------------------------------------------------------------

    @Test
    void ipv6FragmentHeader() {
        // icmpv6 frame 1 (router advertisement) with a Fragment header inserted at 54
        byte[] ra = first("icmpv6.pcap");
        byte[] first = ipv6WithFragmentHeader(ra, 0x0001);        // offset 0, M = 1
        assertThat(PacketParser.parse(first, 0, first.length, LinkType.ETHERNET, p)).isEqualTo(OK);
        assertThat(p.isFragment()).isTrue();
        assertThat(p.fragmentOffset()).isZero();
        assertThat(p.protocol()).isEqualTo(58);
        assertThat(p.l4Offset()).isEqualTo(62);
        assertThat(p.icmpType()).isEqualTo(134);
        assertThat(p.ipTotalLength()).isEqualTo(224);

        byte[] later = ipv6WithFragmentHeader(ra, 800);              // offset 800 bytes, M = 0
        assertThat(PacketParser.parse(later, 0, later.length, LinkType.ETHERNET, p)).isEqualTo(OK);
        assertThat(p.isFragment()).isTrue();
        assertThat(p.fragmentOffset()).isEqualTo(800);
        assertThat(p.protocol()).isEqualTo(58);
        assertThat(p.l4Offset()).isEqualTo(62);
        assertThat(p.icmpType()).as("no ICMPv6 header in a non-first fragment").isZero();
    }

    private static byte[] ipv6WithFragmentHeader(byte[] eth, int offsetAndM) {
        byte[] fh = new byte[8];
        fh[0] = eth[20]; // fragment header's Next Header = the original one
        fh[2] = (byte) (offsetAndM >>> 8);
        fh[3] = (byte) offsetAndM;
        fh[7] = 42; // identification
        byte[] pkt = splice(eth, 54, fh);
        pkt[20] = 44;
        set16(pkt, 18, get16(eth, 18) + 8);
        return pkt;
    }

    @Test
    void ipv6ExtensionHeaderChainIsCappedAtEight() {
        for (int headers : new int[] {8, 9}) {
            byte[] pkt = ipv6UdpWithDestinationOptions(headers);
            assertThat(PacketParser.parse(pkt, 0, pkt.length, LinkType.ETHERNET, p)).isEqualTo(OK);
            if (headers == 8) {
                assertThat(p.protocol()).isEqualTo(17);
                assertThat(p.l4Offset()).isEqualTo(54 + 64);
                assertThat(p.srcPort()).isEqualTo(5645);
                assertThat(p.dstPort()).isEqualTo(5642);
            } else {
                assertThat(p.protocol()).as("the 9th header is left unskipped").isEqualTo(60);
                assertThat(p.l4Offset()).isEqualTo(54 + 64);
                assertThat(p.srcPort()).isZero();
            }
        }
    }

    /** ipv6-routing-header.pcap frame 3 (UDP 5645 → 5642) with its routing header replaced. */
    private static byte[] ipv6UdpWithDestinationOptions(int count) {
        byte[] orig = Captures.load("ipv6-routing-header.pcap").packets().get(2).data();
        byte[] udp = java.util.Arrays.copyOfRange(orig, 78, orig.length); // after the 24-byte routing header
        byte[] chain = new byte[8 * count];
        for (int i = 0; i < count; i++) {
            chain[8 * i] = (byte) (i == count - 1 ? 17 : 60); // next header
            chain[8 * i + 2] = 1; // PadN option, 4 bytes of padding
            chain[8 * i + 3] = 4;
        }
        byte[] pkt = splice(java.util.Arrays.copyOf(orig, 54), 54, splice(chain, chain.length, udp));
        pkt[20] = 60;
        set16(pkt, 18, pkt.length - 54);
        return pkt;
    }

    @Test
    void ipv6ExtensionBeyondThePayloadLengthIsMalformed() {
        byte[] pkt = first("ipv6-routing-header.pcap"); // payload length 32: 24 routing + 8 ICMPv6
        set16(pkt, 18, 16); // payload ends inside the routing header, capture continues
        assertThat(PacketParser.parse(pkt, 0, pkt.length, LinkType.ETHERNET, p)).isEqualTo(MALFORMED);
        assertThat(p.errorOffset()).isEqualTo(54);
        assertThat(p.errorLayer()).isEqualTo(Layer.IPV6_EXTENSION);
        assertThat(p.ipTotalLength()).isEqualTo(56);
    }

    // ---- VLAN limits, Linux cooked with a tag -------------------------------------------------------

    @Test
    void walksUpToFourTagsOfAnyTpid() {
        byte[] http = first("ipv4_tcp_http_xml.pcap"); // one 802.1Q tag (VID 165) at 12
        // prepend 3 more tags: 88a8/VID 10 (PCP 5), 9100/VID 20, 8100/VID 30 → 4 tags
        byte[] four = splice(http, 12, Captures.hex("88a8a00a 91000014 8100001e"));
        assertThat(PacketParser.parse(four, 0, four.length, LinkType.ETHERNET, p)).isEqualTo(OK);
        assertThat(p.vlanCount()).isEqualTo(4);
        assertThat(p.outerVlan()).isEqualTo(10);
        assertThat(p.innerVlan()).isEqualTo(165);
        assertThat(p.l3Offset()).isEqualTo(30);
        assertThat(p.dstPort()).isEqualTo(5767);

        byte[] five = splice(four, 12, Captures.hex("81000001"));
        assertThat(PacketParser.parse(five, 0, five.length, LinkType.ETHERNET, p)).isEqualTo(NOT_IP);
        assertThat(p.vlanCount()).isEqualTo(4);
        assertThat(p.outerVlan()).isEqualTo(1);
        assertThat(p.innerVlan()).isEqualTo(30);
        assertThat(p.etherType()).as("the unwalked fifth TPID").isEqualTo(0x8100);

        byte[] pcp = splice(http, 12, Captures.hex("88a8a00a"));
        PacketParser.parse(pcp, 0, pcp.length, LinkType.ETHERNET, p);
        assertThat(p.vlanPriority()).as("innermost tag's PCP").isZero();
        byte[] outerOnly = splice(Captures.hex("00000000000100000000000288a8a00a0800"), 18,
                java.util.Arrays.copyOfRange(http, 18, http.length));
        assertThat(PacketParser.parse(outerOnly, 0, outerOnly.length, LinkType.ETHERNET, p)).isEqualTo(OK);
        assertThat(p.vlanPriority()).isEqualTo(5);
        assertThat(p.vlanId()).isEqualTo(10);
    }

    @Test
    void linuxCookedWithVlanTag() {
        byte[] sll = first("mptcp-v1.pcap");
        byte[] tagged = splice(sll, 16, Captures.hex("00640800"));
        set16(tagged, 14, 0x8100);
        assertThat(PacketParser.parse(tagged, 0, tagged.length, LinkType.LINUX_SLL, p)).isEqualTo(OK);
        assertThat(p.vlanId()).isEqualTo(100);
        assertThat(p.l3Offset()).isEqualTo(20);
        assertThat(p.srcPort()).isEqualTo(33306);
    }

    // ---- allocation ---------------------------------------------------------------------------------

    /**
     * The hot path allocates nothing, tunnels included: measured with the JVM's per-thread
     * allocation counter over tcpreplay-test.pcap and every tunnel/SRv6/QinQ capture, with the
     * default configuration and a custom one (extra VXLAN port, depth 2), plus synthetic nested
     * tunnels.
     */
    @Test
    void parseAllocatesNothing() {
        List<byte[]> list = new java.util.ArrayList<>();
        for (String name : List.of("tcpreplay-test.pcap", "vxlan.pcap", "geneve.pcap", "various_gre.pcap",
                "ipv6-srh-ext-header.pcap", "ipv6-srh-insert-cksum.pcap", "ipv6-srh-tlv-pad1-padn-5.pcap",
                "802.1ad_QinQ.pcap", "ipv6-routing-header.pcap")) {
            for (PcapPacket pkt : Captures.load(name).packets()) {
                list.add(pkt.data());
            }
        }
        byte[] v4 = PacketParserTunnelTest.ipv4Tcp();
        byte[] vxlanFrame = PacketParserTunnelTest.eth(0x0800, PacketParserTunnelTest.ipv4(17, 0xc0a80001, 0xc0a80002,
                PacketParserTunnelTest.udp(40000, 8472, PacketParserTunnelTest.concat(Captures.hex("08000000 00030900"),
                        PacketParserTunnelTest.eth(0x0800, v4)))));
        list.add(PacketParserTunnelTest.eth(0x0800, PacketParserTunnelTest.ipv4(41, 0x0a000001, 0x0a000002,
                PacketParserTunnelTest.ipv6(47, "2001:db8::a", "2001:db8::b",
                        PacketParserTunnelTest.concat(Captures.hex("b0006558 00000000 00000005 00000009"),
                                vxlanFrame)))));
        list.add(PacketParserTunnelTest.eth(0x86DD, PacketParserTunnelTest.ipv6(43, "2001:db8::1", "2001:db8::2",
                PacketParserTunnelTest.srh(4, 20, 3, v4))));
        int n = list.size();
        byte[][] packets = list.toArray(new byte[0][]);
        int[] offsets = new int[n];
        PacketParser.Config custom = PacketParser.Config.builder().addVxlanPort(8472).maxTunnelDepth(2).build();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ring = arena.allocate(n * 2048L);
            for (int i = 0; i < n; i++) {
                offsets[i] = i * 2048;
                MemorySegment.copy(packets[i], 0, ring, ValueLayout.JAVA_BYTE, offsets[i], packets[i].length);
            }
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long sink = loop(packets, offsets, ring, custom, 3_000); // warm-up / JIT
            long before = threads.getCurrentThreadAllocatedBytes();
            sink += loop(packets, offsets, ring, custom, 500); // 500 × 339 × 3 parses
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertThat(n).isEqualTo(339);
            assertThat(sink).isNotZero();
            assertThat(allocated).as("bytes allocated by %d parses", 1_500L * n).isLessThan(1024);
        }
    }

    private long loop(byte[][] packets, int[] offsets, MemorySegment ring, PacketParser.Config custom, int rounds) {
        long sink = 0;
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < packets.length; i++) {
                byte[] d = packets[i];
                sink += PacketParser.parse(d, 0, d.length, LinkType.ETHERNET, p);
                sink += p.flowHash() + p.innerFlowHash() + p.encapsulation().ordinal() + p.vxlanVni() + p.greKey();
                sink += PacketParser.parse(ring, offsets[i], d.length, LinkType.ETHERNET, p);
                sink += p.srcPort() + p.innerSrcPort() + p.innerVlanId() + p.srhSegmentCount();
                if (p.srhSegmentCount() > 0) {
                    sink += p.srhSegmentLo(0);
                }
                if (p.mplsLabelCount() > 0) {
                    sink += p.mplsLabel(p.mplsLabelCount() - 1);
                }
                sink += PacketParser.parse(ring, offsets[i], d.length, LinkType.ETHERNET, custom, p);
                sink += p.tunnelDepth() + p.innerDstPort();
            }
        }
        return sink;
    }

    // ---- helpers ------------------------------------------------------------------------------------

    private static byte[] first(String capture) {
        return Captures.load(capture).packets().getFirst().data();
    }

    static byte[] splice(byte[] a, int at, byte[] insert) {
        byte[] out = new byte[a.length + insert.length];
        System.arraycopy(a, 0, out, 0, at);
        System.arraycopy(insert, 0, out, at, insert.length);
        System.arraycopy(a, at, out, at + insert.length, a.length - at);
        return out;
    }

    static void set16(byte[] a, int at, int v) {
        a[at] = (byte) (v >>> 8);
        a[at + 1] = (byte) v;
    }

    static int get16(byte[] a, int at) {
        return (a[at] & 0xFF) << 8 | (a[at + 1] & 0xFF);
    }
}
