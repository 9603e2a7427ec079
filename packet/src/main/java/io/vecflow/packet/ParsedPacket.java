package io.vecflow.packet;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The header fields of one packet, filled in place by {@link PacketParser}. Mutable and reusable:
 * keep one per worker thread and pass it to every {@code parse} call, which first calls
 * {@link #reset()}. All fields are primitives (plus two enum constants), so parsing allocates
 * nothing.
 *
 * <p>All offsets are in bytes, relative to the first byte of the packet handed to the parser
 * (its {@code off}/{@code offset} argument), not to the start of the buffer.
 *
 * <p>Addresses are kept as 128-bit values in two longs each (big-endian: {@code Hi} holds bytes
 * 0–7 of the address, {@code Lo} bytes 8–15). IPv4 addresses are stored IPv4-mapped,
 * {@code ::ffff:a.b.c.d} (RFC 4291 §2.5.5.2), so both families share one representation.
 *
 * <p>Status: {@link #OK} (all layers present parsed), {@link #NOT_IP} (link layer parsed, payload
 * is not IPv4/IPv6 — e.g. ARP, MPLS, 802.3/LLC; only the link-layer fields are set),
 * {@link #TRUNCATED} (the capture ends inside a header: {@link #errorOffset()} and
 * {@link #errorLayer()} say which; everything before it is kept), {@link #MALFORMED} (a header
 * contradicts itself or its container, e.g. IPv4 IHL &lt; 5, or the IP length ends inside the
 * transport header) and {@link #UNSUPPORTED_LINK}.
 */
public final class ParsedPacket {
    /** All layers present in the packet were parsed. */
    public static final int OK = 0;
    /** The payload after the link layer is not IPv4 or IPv6; only link-layer fields are set. */
    public static final int NOT_IP = 1;
    /** The captured bytes end inside a header; see {@link #errorOffset()}, {@link #errorLayer()}. */
    public static final int TRUNCATED = 2;
    /** A header field is invalid; see {@link #errorOffset()}, {@link #errorLayer()}. */
    public static final int MALFORMED = 3;
    /** The link type is null or not handled by the parser. */
    public static final int UNSUPPORTED_LINK = 4;

    /** The header in which parsing stopped with {@link #TRUNCATED} or {@link #MALFORMED}. */
    public enum Layer {
        /** No error. */
        NONE,
        /** Ethernet (14 bytes) or Linux cooked (16 bytes) header. */
        LINK,
        /** An IEEE 802.1Q / 802.1ad VLAN tag (4 bytes). */
        VLAN,
        /** An MPLS label stack entry (4 bytes, RFC 3032 §2.1). */
        MPLS,
        /** Raw-IP link type: the version nibble is missing or neither 4 nor 6. */
        IP,
        /** IPv4 header, including options (RFC 791 §3.1). */
        IPV4,
        /** IPv6 fixed header, 40 bytes (RFC 8200 §3). */
        IPV6,
        /** An IPv6 extension header (RFC 8200 §4). */
        IPV6_EXTENSION,
        /** TCP, UDP, SCTP, ICMP or ICMPv6 header; which one is given by {@link #protocol()}. */
        TRANSPORT
    }

    // ---- package-private state written by PacketParser -------------------------------------
    LinkType linkType;
    int length;
    int status;
    int errorOffset;
    Layer errorLayer;
    int l2Offset;
    long dstMac;
    long srcMac;
    int vlanCount;
    int outerVlan;
    int innerVlan;
    int vlanPriority;
    int etherType;
    int mplsLabelCount;
    int mplsTopLabel;
    int l3Offset;
    int ipVersion;
    long srcAddrHi;
    long srcAddrLo;
    long dstAddrHi;
    long dstAddrLo;
    int ipTotalLength;
    int tos;
    int ttl;
    boolean isFragment;
    int fragmentOffset;
    int protocol;
    int l4Offset;
    int srcPort;
    int dstPort;
    int tcpFlags;
    int icmpType;
    int icmpCode;

    /** Creates an empty (reset) instance. */
    public ParsedPacket() {
        reset();
    }

    /**
     * Clears every field: numbers to 0, offsets to -1, {@link #linkType()} to null,
     * {@link #errorLayer()} to {@link Layer#NONE}, status to {@link #OK}.
     */
    public void reset() {
        linkType = null;
        length = 0;
        status = OK;
        errorOffset = -1;
        errorLayer = Layer.NONE;
        l2Offset = -1;
        dstMac = 0;
        srcMac = 0;
        vlanCount = 0;
        outerVlan = 0;
        innerVlan = 0;
        vlanPriority = 0;
        etherType = 0;
        mplsLabelCount = 0;
        mplsTopLabel = 0;
        l3Offset = -1;
        ipVersion = 0;
        srcAddrHi = 0;
        srcAddrLo = 0;
        dstAddrHi = 0;
        dstAddrLo = 0;
        ipTotalLength = 0;
        tos = 0;
        ttl = 0;
        isFragment = false;
        fragmentOffset = 0;
        protocol = 0;
        l4Offset = -1;
        srcPort = 0;
        dstPort = 0;
        tcpFlags = 0;
        icmpType = 0;
        icmpCode = 0;
    }

    /**
     * MPLS label stack entries walked (EtherType 0x8847/0x8848, RFC 3032), up to
     * {@link PacketParser#MAX_MPLS_LABELS}; 0 when the frame carries no MPLS.
     *
     * @return the number of labels
     */
    public int mplsLabelCount() {
        return mplsLabelCount;
    }

    /**
     * The outermost MPLS label (20 bits), valid when {@link #mplsLabelCount()} &gt; 0.
     *
     * @return the top label
     */
    public int mplsTopLabel() {
        return mplsTopLabel;
    }

    // ---- status ------------------------------------------------------------------------------

    /**
     * Outcome of the last parse: {@link #OK}, {@link #NOT_IP}, {@link #TRUNCATED},
     * {@link #MALFORMED} or {@link #UNSUPPORTED_LINK}.
     *
     * @return the status code
     */
    public int status() {
        return status;
    }

    /**
     * Name of a status code, for logs ("OK", "NOT_IP", ...).
     *
     * @param status a status code
     * @return its name, or "UNKNOWN(n)" (allocates)
     */
    public static String statusName(int status) {
        return switch (status) {
            case OK -> "OK";
            case NOT_IP -> "NOT_IP";
            case TRUNCATED -> "TRUNCATED";
            case MALFORMED -> "MALFORMED";
            case UNSUPPORTED_LINK -> "UNSUPPORTED_LINK";
            default -> "UNKNOWN(" + status + ")";
        };
    }

    /**
     * For {@link #TRUNCATED} and {@link #MALFORMED}: offset of the first byte of the header that
     * is cut short or invalid (e.g. 14 for an IPv4 header after plain Ethernet); -1 otherwise.
     *
     * @return the offset in bytes, or -1
     */
    public int errorOffset() {
        return errorOffset;
    }

    /**
     * Same as {@link #errorOffset()} but only for {@link #TRUNCATED}: the start of the header that
     * did not fit in the captured bytes; -1 for any other status.
     *
     * @return the offset in bytes, or -1
     */
    public int truncatedAt() {
        return status == TRUNCATED ? errorOffset : -1;
    }

    /**
     * For {@link #TRUNCATED} and {@link #MALFORMED}: the header where parsing stopped;
     * {@link Layer#NONE} otherwise.
     *
     * @return the layer
     */
    public Layer errorLayer() {
        return errorLayer;
    }

    // ---- link layer ----------------------------------------------------------------------------

    /**
     * Link type the packet was parsed as (null after {@link #reset()} or if the parser was given
     * null).
     *
     * @return the link type
     */
    public LinkType linkType() {
        return linkType;
    }

    /**
     * Number of captured bytes the parser was given.
     *
     * @return the length in bytes
     */
    public int length() {
        return length;
    }

    /**
     * Offset of the link-layer header: 0 for Ethernet and Linux cooked, -1 for the raw-IP link
     * types (no link layer).
     *
     * @return the offset in bytes, or -1
     */
    public int l2Offset() {
        return l2Offset;
    }

    /**
     * Ethernet destination MAC as a 48-bit value (first byte on the wire in bits 47–40); 0 for
     * Linux cooked (which has no destination) and raw IP.
     *
     * @return the MAC address
     */
    public long dstMac() {
        return dstMac;
    }

    /**
     * Ethernet source MAC as a 48-bit value; for Linux cooked the sll_addr when its length is 6,
     * otherwise 0.
     *
     * @return the MAC address
     */
    public long srcMac() {
        return srcMac;
    }

    /**
     * Number of VLAN tags (IEEE 802.1Q C-tag 0x8100, IEEE 802.1ad S-tag 0x88A8, pre-standard QinQ
     * 0x9100) walked, 0–4. If a fifth tag follows, parsing stops with {@link #NOT_IP} and
     * {@link #etherType()} is that tag's TPID.
     *
     * @return the tag count
     */
    public int vlanCount() {
        return vlanCount;
    }

    /**
     * VLAN ID (12 bits, IEEE 802.1Q §9.6) of the outermost tag; 0 if untagged.
     *
     * @return the VID
     */
    public int outerVlan() {
        return outerVlan;
    }

    /**
     * VLAN ID of the innermost tag; equal to {@link #outerVlan()} for a single tag; 0 if untagged.
     *
     * @return the VID
     */
    public int innerVlan() {
        return innerVlan;
    }

    /**
     * The definitive VLAN of the packet: the innermost tag's VID (for QinQ the customer VLAN);
     * 0 if untagged.
     *
     * @return the VID
     */
    public int vlanId() {
        return innerVlan;
    }

    /**
     * Priority code point (PCP, IEEE 802.1p, 3 bits) of the innermost tag; 0 if untagged.
     *
     * @return the priority 0–7
     */
    public int vlanPriority() {
        return vlanPriority;
    }

    /**
     * EtherType after all VLAN tags (IEEE 802.3 §3.2.6 Length/Type ≥ 0x0600), e.g. 0x0800, 0x86DD,
     * 0x0806, 0x8847. For the raw-IP link types 0x0800 or 0x86DD from the IP version; for Linux
     * cooked the protocol field. 0 when the frame carries an IEEE 802.3 length (&lt; 0x0600)
     * instead of a type, or when nothing could be read.
     *
     * @return the EtherType
     */
    public int etherType() {
        return etherType;
    }

    /**
     * Offset of the first byte after the link-layer header and VLAN tags (the IP header for IP
     * packets, the payload for {@link #NOT_IP}); -1 if the link layer was not fully read.
     *
     * @return the offset in bytes, or -1
     */
    public int l3Offset() {
        return l3Offset;
    }

    // ---- network layer ---------------------------------------------------------------------------

    /**
     * IP version: 4 or 6 once the fixed IP header has been read (20 / 40 bytes), else 0.
     *
     * @return the version
     */
    public int ipVersion() {
        return ipVersion;
    }

    /**
     * Bytes 0–7 of the source address (IPv4-mapped for IPv4: 0).
     *
     * @return the high 64 bits
     */
    public long srcAddrHi() {
        return srcAddrHi;
    }

    /**
     * Bytes 8–15 of the source address (for IPv4: 0x0000_FFFF_aabb_ccdd).
     *
     * @return the low 64 bits
     */
    public long srcAddrLo() {
        return srcAddrLo;
    }

    /**
     * Bytes 0–7 of the destination address (IPv4-mapped for IPv4: 0).
     *
     * @return the high 64 bits
     */
    public long dstAddrHi() {
        return dstAddrHi;
    }

    /**
     * Bytes 8–15 of the destination address (for IPv4: 0x0000_FFFF_aabb_ccdd).
     *
     * @return the low 64 bits
     */
    public long dstAddrLo() {
        return dstAddrLo;
    }

    /**
     * The IPv4 source address as a 32-bit value (a.b.c.d = 0xaabbccdd); meaningful only when
     * {@link #ipVersion()} is 4.
     *
     * @return the address bits
     */
    public int srcIpv4() {
        return (int) srcAddrLo;
    }

    /**
     * The IPv4 destination address as a 32-bit value; meaningful only when {@link #ipVersion()}
     * is 4.
     *
     * @return the address bits
     */
    public int dstIpv4() {
        return (int) dstAddrLo;
    }

    /**
     * Writes the 16-byte source address (IPv4-mapped for IPv4), network byte order.
     *
     * @param dst16 destination array
     * @param off   where to write the 16 bytes
     * @throws IndexOutOfBoundsException if fewer than 16 bytes are available at {@code off}
     */
    public void writeSrcAddr(byte[] dst16, int off) {
        writeAddr(srcAddrHi, srcAddrLo, dst16, off);
    }

    /**
     * Writes the 16-byte destination address (IPv4-mapped for IPv4), network byte order.
     *
     * @param dst16 destination array
     * @param off   where to write the 16 bytes
     * @throws IndexOutOfBoundsException if fewer than 16 bytes are available at {@code off}
     */
    public void writeDstAddr(byte[] dst16, int off) {
        writeAddr(dstAddrHi, dstAddrLo, dst16, off);
    }

    /**
     * Source address as text (allocates): dotted quad for IPv4, RFC 5952 canonical form for IPv6
     * (lower case, longest zero run as "::", IPv4-mapped as ::ffff:a.b.c.d).
     *
     * @return the address, or null if {@link #ipVersion()} is 0
     */
    public String srcAddressString() {
        return addressString(srcAddrHi, srcAddrLo);
    }

    /**
     * Destination address as text (allocates); see {@link #srcAddressString()}.
     *
     * @return the address, or null if {@link #ipVersion()} is 0
     */
    public String dstAddressString() {
        return addressString(dstAddrHi, dstAddrLo);
    }

    /**
     * Source address as an {@link InetAddress} (allocates): an Inet4Address for IPv4 — and, as
     * {@link InetAddress#getByAddress(byte[])} does, for an IPv4-mapped IPv6 address — else an
     * Inet6Address.
     *
     * @return the address, or null if {@link #ipVersion()} is 0
     */
    public InetAddress srcAddress() {
        return inetAddress(srcAddrHi, srcAddrLo);
    }

    /**
     * Destination address as an {@link InetAddress} (allocates); see {@link #srcAddress()}.
     *
     * @return the address, or null if {@link #ipVersion()} is 0
     */
    public InetAddress dstAddress() {
        return inetAddress(dstAddrHi, dstAddrLo);
    }

    /**
     * IP length in bytes as declared by the header: IPv4 Total Length, or IPv6 Payload Length + 40
     * (so 40 for a jumbogram or a TSO capture whose payload length is 0). May differ from the
     * captured length (truncation, padding).
     *
     * @return the length in bytes
     */
    public int ipTotalLength() {
        return ipTotalLength;
    }

    /**
     * IPv4 Type of Service byte (DSCP + ECN) or IPv6 Traffic Class, 0–255.
     *
     * @return the TOS / traffic class
     */
    public int tos() {
        return tos;
    }

    /**
     * IPv4 Time to Live or IPv6 Hop Limit, 0–255.
     *
     * @return the TTL
     */
    public int ttl() {
        return ttl;
    }

    /**
     * Whether the packet is an IP fragment: IPv4 MF set or fragment offset ≠ 0, or an IPv6
     * Fragment extension header is present.
     *
     * @return true for a fragment
     */
    public boolean isFragment() {
        return isFragment;
    }

    /**
     * Fragment offset in bytes (the header's 13-bit field × 8). Non-first fragments (offset ≠ 0)
     * carry no transport header, so their ports, flags and ICMP type are 0.
     *
     * @return the offset in bytes
     */
    public int fragmentOffset() {
        return fragmentOffset;
    }

    /**
     * IP protocol number of the transport header: IPv4 Protocol, or for IPv6 the Next Header after
     * skipping Hop-by-Hop (0), Routing (43), Fragment (44) and Destination Options (60) headers,
     * at most 8 of them (a 9th is reported as the protocol itself). 0 if unknown (e.g. the capture
     * ends inside the extension headers).
     *
     * @return the protocol number
     */
    public int protocol() {
        return protocol;
    }

    /**
     * Offset of the transport header (after IPv4 options / IPv6 extension headers); -1 if not
     * reached.
     *
     * @return the offset in bytes, or -1
     */
    public int l4Offset() {
        return l4Offset;
    }

    // ---- transport layer -------------------------------------------------------------------------

    /**
     * TCP (RFC 9293), UDP (RFC 768) or SCTP (RFC 9260) source port; 0 for other protocols, for
     * non-first fragments and when the capture ends before the port.
     *
     * @return the port 0–65535
     */
    public int srcPort() {
        return srcPort;
    }

    /**
     * TCP, UDP or SCTP destination port; 0 otherwise (see {@link #srcPort()}).
     *
     * @return the port 0–65535
     */
    public int dstPort() {
        return dstPort;
    }

    /**
     * The 12 TCP flag bits after the data offset (RFC 9293 §3.1: bits 0–7 FIN, SYN, RST, PSH, ACK,
     * URG, ECE, CWR; bits 8–11 reserved / AE), as shown by tshark's {@code tcp.flags}; 0 if not
     * TCP.
     *
     * @return the flags
     */
    public int tcpFlags() {
        return tcpFlags;
    }

    /**
     * ICMP (RFC 792, protocol 1) or ICMPv6 (RFC 4443, protocol 58) type; 0 otherwise.
     *
     * @return the type 0–255
     */
    public int icmpType() {
        return icmpType;
    }

    /**
     * ICMP or ICMPv6 code; 0 otherwise.
     *
     * @return the code 0–255
     */
    public int icmpCode() {
        return icmpCode;
    }

    /**
     * A fast, well-mixed, non-cryptographic hash of (source address, destination address,
     * protocol, source port, destination port), for spreading flows over workers the way NIC RSS
     * does. Direction-sensitive (A→B and B→A usually differ); independent of MACs, VLANs and
     * other fields. Uses xxHash64-style rounds and finaliser; allocates nothing. Not stable across
     * versions: do not persist it.
     *
     * @return the 64-bit hash
     */
    public long flowHash() {
        long ports = (long) protocol << 32 | (long) srcPort << 16 | dstPort;
        long h = 0x27D4EB2F165667C5L + 40; // xxh64 PRIME64_5 + input length
        h = round(h, srcAddrHi);
        h = round(h, srcAddrLo);
        h = round(h, dstAddrHi);
        h = round(h, dstAddrLo);
        h = round(h, ports);
        h ^= h >>> 33;
        h *= 0xC2B2AE3D27D4EB4FL;
        h ^= h >>> 29;
        h *= 0x165667B19E3779F9L;
        h ^= h >>> 32;
        return h;
    }

    private static long round(long acc, long input) {
        acc ^= Long.rotateLeft(input * 0xC2B2AE3D27D4EB4FL, 31) * 0x9E3779B185EBCA87L;
        return Long.rotateLeft(acc, 27) * 0x9E3779B185EBCA87L + 0x85EBCA77C2B2AE63L;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("ParsedPacket[").append(statusName(status));
        if (status == TRUNCATED || status == MALFORMED) {
            sb.append(" at ").append(errorOffset).append(' ').append(errorLayer);
        }
        sb.append(", link=").append(linkType).append(", len=").append(length);
        if (vlanCount > 0) {
            sb.append(", vlans=").append(vlanCount).append(" outer=").append(outerVlan)
                    .append(" inner=").append(innerVlan);
        }
        sb.append(", etherType=0x").append(Integer.toHexString(etherType));
        if (ipVersion != 0) {
            sb.append(", ").append(srcAddressString()).append(" -> ").append(dstAddressString())
                    .append(", proto=").append(protocol).append(", ports=").append(srcPort).append("->")
                    .append(dstPort);
        }
        return sb.append(']').toString();
    }

    // ---- helpers -----------------------------------------------------------------------------------

    private static void writeAddr(long hi, long lo, byte[] dst, int off) {
        java.util.Objects.checkFromIndexSize(off, 16, dst.length);
        for (int i = 0; i < 8; i++) {
            dst[off + i] = (byte) (hi >>> (56 - 8 * i));
            dst[off + 8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
    }

    private InetAddress inetAddress(long hi, long lo) {
        if (ipVersion == 0) {
            return null;
        }
        byte[] bytes = new byte[16];
        writeAddr(hi, lo, bytes, 0);
        try {
            if (ipVersion == 4) {
                return InetAddress.getByAddress(java.util.Arrays.copyOfRange(bytes, 12, 16));
            }
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new AssertionError("4- and 16-byte addresses are always valid", e);
        }
    }

    private String addressString(long hi, long lo) {
        return switch (ipVersion) {
            case 4 -> IpAddresses.dottedQuad((int) lo);
            case 6 -> IpAddresses.ipv6String(hi, lo);
            default -> null;
        };
    }

}
