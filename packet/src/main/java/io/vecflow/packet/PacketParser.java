package io.vecflow.packet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;

import static io.vecflow.packet.ParsedPacket.MALFORMED;
import static io.vecflow.packet.ParsedPacket.NOT_IP;
import static io.vecflow.packet.ParsedPacket.OK;
import static io.vecflow.packet.ParsedPacket.TRUNCATED;
import static io.vecflow.packet.ParsedPacket.UNSUPPORTED_LINK;

/**
 * Allocation-free header parser: fills a caller-supplied, reusable {@link ParsedPacket} from the
 * captured bytes of one packet, in a {@code byte[]} or a {@link MemorySegment} (e.g. an AF_PACKET
 * ring or a netlink buffer).
 *
 * <p>Layers, with their sources:
 * <ul>
 *   <li>Ethernet II, 14 bytes (IEEE 802.3 §3.2.6: a Length/Type value below 0x0600 is an 802.3
 *       length, reported as {@link ParsedPacket#NOT_IP} with EtherType 0);</li>
 *   <li>up to 4 VLAN tags: 0x8100 C-tag (IEEE 802.1Q §9.6), 0x88A8 S-tag (IEEE 802.1ad), 0x9100
 *       (pre-standard QinQ); TCI = PCP(3) DEI(1) VID(12);</li>
 *   <li>Linux cooked v1, 16 bytes, protocol at offset 14
 *       (<a href="https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL.html">LINKTYPE_LINUX_SLL</a>);
 *       VLAN tags may follow it;</li>
 *   <li>raw IP (LINKTYPE_RAW, version from the first nibble), raw IPv4, raw IPv6;</li>
 *   <li>IPv4 (RFC 791 §3.1): version 4, IHL ≥ 5 checked, options skipped, fragments (RFC 791
 *       flags/offset);</li>
 *   <li>IPv6 (RFC 8200 §3) and extension headers Hop-by-Hop (0), Routing (43), Fragment (44),
 *       Destination Options (60) (RFC 8200 §4), at most 8;</li>
 *   <li>TCP (RFC 9293 §3.1), UDP (RFC 768), SCTP (RFC 9260 §3.1) ports; TCP flags; ICMP
 *       (RFC 792) and ICMPv6 (RFC 4443 §2.1) type and code.</li>
 * </ul>
 * MPLS (0x8847/0x8848, RFC 3032): the label stack is walked to the bottom-of-stack entry (at most
 * {@link #MAX_MPLS_LABELS}) and the payload is parsed as IPv4 or IPv6 by its first nibble (RFC 4385
 * §2 notes this heuristic); a first nibble 0 is read as an Ethernet pseudowire control word followed by the
 * emulated frame (RFC 4385 §3, RFC 4448 §4.4), whose VLAN tags and IP are parsed as tshark does;
 * {@link ParsedPacket#etherType()} stays 0x8847/0x8848.
 * ARP, LLC and every other EtherType end with {@link ParsedPacket#NOT_IP}; GRE/VXLAN/Geneve payloads are not followed (their outer IP and UDP
 * ports are reported).
 *
 * <p>Bytes at or beyond {@code length} are never read. A packet cut short inside a header gets
 * {@link ParsedPacket#TRUNCATED} with the offset of that header; fields of earlier layers stay
 * set, and a partly captured transport header still yields its ports if the first 4 bytes are
 * present. Where the IP header declares a length shorter than the capture (Ethernet padding), the
 * transport header must fit in the declared length, else {@link ParsedPacket#MALFORMED}. An IPv4
 * Total Length or IPv6 Payload Length of 0 (TSO/GSO captures, jumbograms) is treated as "up to
 * the end of the capture".
 *
 * <p>The parse methods allocate nothing, box nothing and throw only for invalid arguments.
 * Thread-safe (stateless); each thread needs its own {@link ParsedPacket}.
 */
public final class PacketParser {
    /** Maximum number of IPv6 extension headers skipped before giving up (see {@link ParsedPacket#protocol()}). */
    public static final int MAX_IPV6_EXTENSION_HEADERS = 8;
    /** Maximum number of VLAN tags walked (see {@link ParsedPacket#vlanCount()}). */
    public static final int MAX_VLAN_TAGS = 4;
    /** Maximum number of MPLS label stack entries walked (see {@link ParsedPacket#mplsLabelCount()}). */
    public static final int MAX_MPLS_LABELS = 8;

    static final int ETHERTYPE_IPV4 = 0x0800;
    static final int ETHERTYPE_IPV6 = 0x86DD;
    private static final int ETHERTYPE_MIN = 0x0600;
    private static final int TPID_8021Q = 0x8100;
    private static final int TPID_8021AD = 0x88A8;
    private static final int TPID_QINQ_LEGACY = 0x9100;
    private static final int ETHERTYPE_MPLS_UC = 0x8847;
    private static final int ETHERTYPE_MPLS_MC = 0x8848;
    private static final int MPLS_ENTRY = 4;

    private static final int ETHERNET_HEADER = 14;
    private static final int SLL_HEADER = 16;
    private static final int VLAN_TAG = 4;
    private static final int IPV4_MIN_HEADER = 20;
    private static final int IPV6_HEADER = 40;

    private static final int PROTO_ICMP = 1;
    private static final int PROTO_TCP = 6;
    private static final int PROTO_UDP = 17;
    private static final int PROTO_ICMPV6 = 58;
    private static final int PROTO_SCTP = 132;

    private static final ValueLayout.OfShort BE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong BE_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private PacketParser() {
    }

    /**
     * Parses the packet at {@code seg[offset, offset + length)}.
     *
     * @param seg      the memory holding the packet (heap or native, any alignment)
     * @param offset   byte offset of the packet's first byte (its link-layer header) in {@code seg}
     * @param length   captured length in bytes; nothing at or beyond it is read
     * @param linkType how the packet starts; null gives {@link ParsedPacket#UNSUPPORTED_LINK}
     * @param out      the result, reset and filled in place; offsets in it are relative to
     *                 {@code offset}
     * @return the status, as {@link ParsedPacket#status()}
     * @throws IndexOutOfBoundsException if the range is not inside {@code seg}
     * @throws NullPointerException      if {@code seg} or {@code out} is null
     */
    public static int parse(MemorySegment seg, long offset, int length, LinkType linkType, ParsedPacket out) {
        Objects.checkFromIndexSize(offset, length, seg.byteSize());
        return run(seg, offset, length, linkType, out);
    }

    /**
     * Parses the packet at {@code buf[off, off + len)}.
     *
     * @param buf      the buffer holding the packet
     * @param off      index of the packet's first byte (its link-layer header)
     * @param len      captured length in bytes; nothing at or beyond it is read
     * @param linkType how the packet starts; null gives {@link ParsedPacket#UNSUPPORTED_LINK}
     * @param out      the result, reset and filled in place; offsets in it are relative to
     *                 {@code off}
     * @return the status, as {@link ParsedPacket#status()}
     * @throws IndexOutOfBoundsException if the range is not inside {@code buf}
     * @throws NullPointerException      if {@code buf} or {@code out} is null
     */
    public static int parse(byte[] buf, int off, int len, LinkType linkType, ParsedPacket out) {
        Objects.checkFromIndexSize(off, len, buf.length);
        return run(buf, off, len, linkType, out);
    }

    // ---- layers ----------------------------------------------------------------------------------

    private static int run(Object s, long b, int len, LinkType lt, ParsedPacket p) {
        p.reset();
        p.linkType = lt;
        p.length = len;
        int pos;
        int type;
        if (lt == LinkType.ETHERNET) {
            p.l2Offset = 0;
            if (len < ETHERNET_HEADER) {
                return stop(p, TRUNCATED, 0, ParsedPacket.Layer.LINK);
            }
            p.dstMac = u48(s, b);
            p.srcMac = u48(s, b + 6);
            type = u16(s, b + 12);
            pos = ETHERNET_HEADER;
        } else if (lt == LinkType.LINUX_SLL) {
            p.l2Offset = 0;
            if (len < SLL_HEADER) {
                return stop(p, TRUNCATED, 0, ParsedPacket.Layer.LINK);
            }
            if (u16(s, b + 4) == 6) { // sll_halen: a MAC address in sll_addr
                p.srcMac = u48(s, b + 6);
            }
            type = u16(s, b + 14);
            pos = SLL_HEADER;
        } else if (lt == LinkType.RAW || lt == LinkType.IPV4 || lt == LinkType.IPV6) {
            ParsedPacket.Layer layer = lt == LinkType.IPV4 ? ParsedPacket.Layer.IPV4
                    : lt == LinkType.IPV6 ? ParsedPacket.Layer.IPV6 : ParsedPacket.Layer.IP;
            if (len < 1) {
                return stop(p, TRUNCATED, 0, layer);
            }
            int version = u8(s, b) >>> 4;
            if (version == 4 && lt != LinkType.IPV6) {
                type = ETHERTYPE_IPV4;
            } else if (version == 6 && lt != LinkType.IPV4) {
                type = ETHERTYPE_IPV6;
            } else {
                return stop(p, MALFORMED, 0, layer);
            }
            pos = 0;
        } else {
            p.status = UNSUPPORTED_LINK;
            return UNSUPPORTED_LINK;
        }

        // At most one re-entry: an Ethernet pseudowire under MPLS (control word + inner Ethernet).
        for (int pass = 0; ; pass++) {
            while (type == TPID_8021Q || type == TPID_8021AD || type == TPID_QINQ_LEGACY) {
                if (p.vlanCount == MAX_VLAN_TAGS) {
                    break; // a fifth tag: reported as NOT_IP with etherType = its TPID
                }
                if (len - pos < VLAN_TAG) {
                    return stop(p, TRUNCATED, pos, ParsedPacket.Layer.VLAN);
                }
                int tci = u16(s, b + pos);
                if (p.vlanCount == 0) {
                    p.outerVlan = tci & 0x0FFF;
                }
                p.innerVlan = tci & 0x0FFF;
                p.vlanPriority = tci >>> 13;
                p.vlanCount++;
                type = u16(s, b + pos + 2);
                pos += VLAN_TAG;
            }
            if (pass == 0) {
                p.etherType = type < ETHERTYPE_MIN ? 0 : type;
            }
            if (pass > 0 || (type != ETHERTYPE_MPLS_UC && type != ETHERTYPE_MPLS_MC)) {
                break;
            }
            boolean bottom = false;
            while (!bottom) {
                if (p.mplsLabelCount == MAX_MPLS_LABELS) {
                    p.status = NOT_IP; // deeper stacks are not followed
                    return NOT_IP;
                }
                if (len - pos < MPLS_ENTRY) {
                    return stop(p, TRUNCATED, pos, ParsedPacket.Layer.MPLS);
                }
                int entry = u32(s, b + pos);
                if (p.mplsLabelCount == 0) {
                    p.mplsTopLabel = entry >>> 12;
                }
                p.mplsLabelCount++;
                bottom = (entry & 0x100) != 0;
                pos += MPLS_ENTRY;
            }
            if (len - pos < 1) {
                return stop(p, TRUNCATED, pos, ParsedPacket.Layer.MPLS);
            }
            int version = u8(s, b + pos) >>> 4;
            if (version == 4 || version == 6) {
                type = version == 4 ? ETHERTYPE_IPV4 : ETHERTYPE_IPV6;
                break;
            }
            if (version != 0) {
                type = 0;
                break;
            }
            // First nibble 0: a pseudowire control word (RFC 4385 §3), then the emulated Ethernet frame
            // (RFC 4448 §4.4); its MACs are not reported (the outer frame's are), its tags and IP are.
            if (len - pos < MPLS_ENTRY + ETHERNET_HEADER) {
                return stop(p, TRUNCATED, pos, ParsedPacket.Layer.MPLS);
            }
            type = u16(s, b + pos + MPLS_ENTRY + 12);
            pos += MPLS_ENTRY + ETHERNET_HEADER;
        }
        p.l3Offset = pos;
        if (type == ETHERTYPE_IPV4) {
            return ipv4(s, b, pos, len, p);
        }
        if (type == ETHERTYPE_IPV6) {
            return ipv6(s, b, pos, len, p);
        }
        p.status = NOT_IP;
        return NOT_IP;
    }

    private static int ipv4(Object s, long b, int pos, int len, ParsedPacket p) {
        if (len - pos < IPV4_MIN_HEADER) {
            return stop(p, TRUNCATED, pos, ParsedPacket.Layer.IPV4);
        }
        int versionIhl = u8(s, b + pos);
        int ihl = (versionIhl & 0x0F) << 2;
        if (versionIhl >>> 4 != 4 || ihl < IPV4_MIN_HEADER) {
            return stop(p, MALFORMED, pos, ParsedPacket.Layer.IPV4);
        }
        p.ipVersion = 4;
        p.tos = u8(s, b + pos + 1);
        int total = u16(s, b + pos + 2);
        p.ipTotalLength = total;
        int flagsFragment = u16(s, b + pos + 6);
        p.fragmentOffset = (flagsFragment & 0x1FFF) << 3;
        p.isFragment = (flagsFragment & 0x2000) != 0 || p.fragmentOffset != 0;
        p.ttl = u8(s, b + pos + 8);
        p.protocol = u8(s, b + pos + 9);
        p.srcAddrLo = 0xFFFF_0000_0000L | (u32(s, b + pos + 12) & 0xFFFF_FFFFL);
        p.dstAddrLo = 0xFFFF_0000_0000L | (u32(s, b + pos + 16) & 0xFFFF_FFFFL);
        if (total != 0 && total < ihl) {
            return stop(p, MALFORMED, pos, ParsedPacket.Layer.IPV4);
        }
        if (len - pos < ihl) {
            return stop(p, TRUNCATED, pos, ParsedPacket.Layer.IPV4);
        }
        int l4 = pos + ihl;
        p.l4Offset = l4;
        if (p.fragmentOffset != 0) {
            return OK; // a non-first fragment carries no transport header
        }
        boolean captureLimited = total == 0 || total > len - pos;
        return transport(s, b, l4, captureLimited ? len : pos + total, captureLimited, p);
    }

    private static int ipv6(Object s, long b, int pos, int len, ParsedPacket p) {
        if (len - pos < IPV6_HEADER) {
            return stop(p, TRUNCATED, pos, ParsedPacket.Layer.IPV6);
        }
        int first = u32(s, b + pos);
        if (first >>> 28 != 6) {
            return stop(p, MALFORMED, pos, ParsedPacket.Layer.IPV6);
        }
        p.ipVersion = 6;
        p.tos = first >>> 20 & 0xFF;
        int payloadLength = u16(s, b + pos + 4);
        p.ipTotalLength = payloadLength + IPV6_HEADER;
        int next = u8(s, b + pos + 6);
        p.ttl = u8(s, b + pos + 7);
        p.srcAddrHi = u64(s, b + pos + 8);
        p.srcAddrLo = u64(s, b + pos + 16);
        p.dstAddrHi = u64(s, b + pos + 24);
        p.dstAddrLo = u64(s, b + pos + 32);
        int cur = pos + IPV6_HEADER;
        boolean captureLimited = payloadLength == 0 || payloadLength > len - cur;
        int limit = captureLimited ? len : cur + payloadLength;
        for (int n = 0; n < MAX_IPV6_EXTENSION_HEADERS && isSkippedExtension(next); n++) {
            if (limit - cur < 8) {
                return stop(p, captureLimited ? TRUNCATED : MALFORMED, cur, ParsedPacket.Layer.IPV6_EXTENSION);
            }
            int headerLength;
            if (next == 44) { // Fragment header, RFC 8200 §4.5: fixed 8 bytes
                p.isFragment = true;
                p.fragmentOffset = u16(s, b + cur + 2) & 0xFFF8;
                headerLength = 8;
            } else { // Hdr Ext Len in 8-octet units, not counting the first 8 octets
                headerLength = (u8(s, b + cur + 1) + 1) << 3;
                if (limit - cur < headerLength) {
                    return stop(p, captureLimited ? TRUNCATED : MALFORMED, cur, ParsedPacket.Layer.IPV6_EXTENSION);
                }
            }
            next = u8(s, b + cur);
            cur += headerLength;
            if (p.fragmentOffset != 0) {
                p.protocol = next;
                p.l4Offset = cur;
                return OK; // a non-first fragment carries no transport header
            }
        }
        p.protocol = next;
        p.l4Offset = cur;
        return transport(s, b, cur, limit, captureLimited, p);
    }

    private static boolean isSkippedExtension(int next) {
        return next == 0 || next == 43 || next == 44 || next == 60;
    }

    /**
     * Reads the transport header at {@code pos}; {@code limit} is the end of the IP payload
     * (capture end or declared IP length, whichever is first).
     */
    private static int transport(Object s, long b, int pos, int limit, boolean captureLimited, ParsedPacket p) {
        int avail = limit - pos;
        int minimum;
        switch (p.protocol) {
            case PROTO_TCP -> {
                if (avail >= 4) {
                    p.srcPort = u16(s, b + pos);
                    p.dstPort = u16(s, b + pos + 2);
                }
                if (avail >= 14) {
                    p.tcpFlags = (u8(s, b + pos + 12) & 0x0F) << 8 | u8(s, b + pos + 13);
                }
                minimum = 20;
            }
            case PROTO_UDP, PROTO_SCTP -> {
                if (avail >= 4) {
                    p.srcPort = u16(s, b + pos);
                    p.dstPort = u16(s, b + pos + 2);
                }
                minimum = p.protocol == PROTO_UDP ? 8 : 12;
            }
            case PROTO_ICMP, PROTO_ICMPV6 -> {
                if (avail >= 2) {
                    p.icmpType = u8(s, b + pos);
                    p.icmpCode = u8(s, b + pos + 1);
                }
                minimum = 4; // type, code, checksum
            }
            default -> {
                return OK;
            }
        }
        if (avail < minimum) {
            return stop(p, captureLimited ? TRUNCATED : MALFORMED, pos, ParsedPacket.Layer.TRANSPORT);
        }
        return OK;
    }

    private static int stop(ParsedPacket p, int status, int offset, ParsedPacket.Layer layer) {
        p.status = status;
        p.errorOffset = offset;
        p.errorLayer = layer;
        return status;
    }

    // ---- big-endian reads from a byte[] or a MemorySegment (no allocation) -------------------------

    private static int u8(Object s, long at) {
        if (s instanceof byte[] a) {
            return a[(int) at] & 0xFF;
        }
        return ((MemorySegment) s).get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }

    private static int u16(Object s, long at) {
        if (s instanceof byte[] a) {
            int i = (int) at;
            return (a[i] & 0xFF) << 8 | (a[i + 1] & 0xFF);
        }
        return ((MemorySegment) s).get(BE_SHORT, at) & 0xFFFF;
    }

    private static int u32(Object s, long at) {
        if (s instanceof byte[] a) {
            int i = (int) at;
            return (a[i] & 0xFF) << 24 | (a[i + 1] & 0xFF) << 16 | (a[i + 2] & 0xFF) << 8 | (a[i + 3] & 0xFF);
        }
        return ((MemorySegment) s).get(BE_INT, at);
    }

    private static long u64(Object s, long at) {
        if (s instanceof byte[]) {
            return (long) u32(s, at) << 32 | (u32(s, at + 4) & 0xFFFF_FFFFL);
        }
        return ((MemorySegment) s).get(BE_LONG, at);
    }

    private static long u48(Object s, long at) {
        return (long) u16(s, at) << 32 | (u32(s, at + 2) & 0xFFFF_FFFFL);
    }
}
