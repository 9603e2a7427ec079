package io.vecflow.packet;

import io.vecflow.common.IpAddresses;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The header fields of one packet, filled in place by {@link PacketParser}. Mutable and reusable:
 * keep one per worker thread and pass it to every {@code parse} call, which first calls
 * {@link #reset()}. All fields are primitives, enum constants or small arrays allocated once with
 * the instance (MPLS entries, SRH segments, tunnel kinds), so parsing allocates nothing.
 *
 * <p>All offsets are in bytes, relative to the first byte of the packet handed to the parser
 * (its {@code off}/{@code offset} argument), not to the start of the buffer.
 *
 * <p>Addresses are kept as 128-bit values in two longs each (big-endian: {@code Hi} holds bytes
 * 0–7 of the address, {@code Lo} bytes 8–15). IPv4 addresses are stored IPv4-mapped,
 * {@code ::ffff:a.b.c.d} (RFC 4291 §2.5.5.2), so both families share one representation.
 *
 * <p>Status: {@link #OK} (all layers present parsed), {@link #NOT_IP} (link layer parsed, payload
 * is not IPv4/IPv6 — e.g. ARP, 802.3/LLC other than SNAP with an IP EtherType, MPLS deeper than 8
 * labels or with a non-IP payload;
 * only the link-layer fields are set),
 * {@link #TRUNCATED} (the capture ends inside a header: {@link #errorOffset()} and
 * {@link #errorLayer()} say which; everything before it is kept), {@link #MALFORMED} (a header
 * contradicts itself or its container, e.g. IPv4 IHL &lt; 5, or the IP length ends inside the
 * transport header) and {@link #UNSUPPORTED_LINK}. The status covers every layer parsed,
 * tunnelled ones included: a VXLAN packet whose inner frame is cut short is {@link #TRUNCATED}
 * although its outer view is complete ({@link #errorDepth()} &gt; 0 says so).
 *
 * <p><b>Outer and inner views.</b> The accessors without a prefix ({@link #srcAddrLo()},
 * {@link #protocol()}, {@link #srcPort()}, ...) describe the <em>outer</em> packet: the first IP
 * header and its transport header, as before tunnels were decoded. When that packet is a tunnel
 * that {@link PacketParser} follows (GRE, VXLAN, Geneve, IP-in-IP, SRv6; see
 * {@link Encapsulation}), the {@code inner*} accessors describe the <em>innermost</em> packet
 * reached ({@link #tunnelDepth()} levels down). Without a tunnel, {@link #encapsulation()} is
 * {@link Encapsulation#NONE} and every {@code inner*} field is 0 (offsets -1): the inner view is
 * <em>not</em> a copy of the outer one, so callers choose which view to attribute traffic to
 * (sFlow practice: decapsulation is opt-in, see docs/sflow.md §9 pitfall 18). An Ethernet
 * pseudowire under MPLS is not a tunnel in this sense: the emulated frame's IP is the first IP
 * header, hence the outer view ({@link #mplsPseudowire()}).
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

    /**
     * The header in which parsing stopped with {@link #TRUNCATED} or {@link #MALFORMED}. The
     * link, VLAN, IP and transport layers also name the headers of a tunnelled packet; then
     * {@link #errorDepth()} &gt; 0.
     */
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
        TRANSPORT,
        /** A GRE header (RFC 2784 §2.1, RFC 2890 §2), or the Cisco MetaData header behind one. */
        GRE,
        /** The 8-byte VXLAN header (RFC 7348 §5). */
        VXLAN,
        /** The Geneve header and its options (RFC 8926 §3). */
        GENEVE
    }

    /**
     * Kind of a tunnel that {@link PacketParser} decapsulated. The outer packet's transport
     * header (or IP protocol) is the tunnel; the payload is the next level's packet.
     */
    public enum Encapsulation {
        /** No tunnel was followed: the inner view is empty. */
        NONE,
        /**
         * GRE (IP protocol 47; RFC 2784, RFC 2890) with protocol type 0x0800, 0x86DD, 0x6558
         * (transparent Ethernet bridging, inner Ethernet frame) or 0x8909 (Cisco MetaData, then
         * IPv4/IPv6).
         */
        GRE,
        /** VXLAN (RFC 7348): UDP to a configured VXLAN port, 8-byte header, inner Ethernet frame. */
        VXLAN,
        /** Geneve (RFC 8926): UDP to a configured Geneve port, inner Ethernet, IPv4 or IPv6. */
        GENEVE,
        /**
         * IP directly in IP: IPv4-in-IPv4 (protocol 4, RFC 2003), IPv6-in-IPv4 (41, RFC 4213 §3.5),
         * IPv6-in-IPv6 (41, RFC 2473) and IPv4-in-IPv6 (4, RFC 2473), when the outer IPv6 header
         * carries no Segment Routing Header.
         */
        IP_IN_IP,
        /**
         * SRv6 encapsulation (RFC 8986 §5): an IPv6 header whose extension chain holds a Segment
         * Routing Header (RFC 8754) followed by IPv6 (41), IPv4 (4) or Ethernet (143); or any IPv6
         * header followed by Ethernet (143), which only SRv6 uses (RFC 8986 §10.1).
         */
        SRV6
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
    final int[] mplsEntries = new int[PacketParser.MAX_MPLS_LABELS];
    boolean mplsPseudowire;
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
    boolean moreFragments;
    int protocol;
    int l4Offset;
    int srcPort;
    int dstPort;
    int tcpFlags;
    int icmpType;
    int icmpCode;
    boolean portsPresent;
    boolean tcpFlagsPresent;
    boolean icmpPresent;
    boolean llcSnap;
    int errorDepth;
    // IPv6 routing header / SRH (first met)
    int routingHeaderType;
    boolean srhPresent;
    int srhSegmentsLeft;
    int srhLastEntry;
    int srhSegmentCount;
    final long[] srhSegments = new long[2 * PacketParser.MAX_SRH_SEGMENTS];
    // tunnels
    Encapsulation encapsulation;
    final Encapsulation[] encapsulations = new Encapsulation[PacketParser.MAX_TUNNEL_DEPTH];
    int tunnelDepth;
    boolean tunnelLimitReached;
    boolean grePresent;
    int greProtocol;
    boolean greChecksumPresent;
    boolean greKeyPresent;
    boolean greSequencePresent;
    long greKey;
    long greSequence;
    int vxlanVni;
    int geneveVni;
    int geneveOptionsLength;
    // inner view (innermost tunnelled packet)
    int innerL2Offset;
    long innerDstMac;
    long innerSrcMac;
    int innerVlanCount;
    int innerVlanId;
    int innerEtherType;
    int innerL3Offset;
    int innerIpVersion;
    long innerSrcAddrHi;
    long innerSrcAddrLo;
    long innerDstAddrHi;
    long innerDstAddrLo;
    int innerIpTotalLength;
    int innerTos;
    int innerTtl;
    boolean innerIsFragment;
    int innerFragmentOffset;
    boolean innerMoreFragments;
    int innerProtocol;
    int innerL4Offset;
    int innerSrcPort;
    int innerDstPort;
    int innerTcpFlags;
    int innerIcmpType;
    int innerIcmpCode;
    boolean innerPortsPresent;
    boolean innerTcpFlagsPresent;
    boolean innerIcmpPresent;

    // ---- parser scratch: the payload after the last IP/transport header parsed (not API) ----
    int scrProto;
    int scrL4;
    int scrEnd;
    boolean scrEndIsCapture;
    boolean scrFragment;
    boolean scrSrh;
    boolean scrIpv6;
    int nextPos;
    int nextType;

    /** Creates an empty (reset) instance. */
    public ParsedPacket() {
        reset();
    }

    /**
     * Clears every field: numbers to 0, offsets to -1, {@link #linkType()} to null,
     * {@link #errorLayer()} to {@link Layer#NONE}, status to {@link #OK},
     * {@link #encapsulation()} to {@link Encapsulation#NONE}, and the fields whose absence is -1
     * ({@link #vxlanVni()}, {@link #geneveVni()}, {@link #routingHeaderType()}) to -1.
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
        portsPresent = false;
        tcpFlagsPresent = false;
        icmpPresent = false;
        llcSnap = false;
        mplsPseudowire = false;
        moreFragments = false;
        errorDepth = 0;
        routingHeaderType = -1;
        srhPresent = false;
        srhSegmentsLeft = 0;
        srhLastEntry = 0;
        srhSegmentCount = 0;
        encapsulation = Encapsulation.NONE;
        tunnelDepth = 0;
        tunnelLimitReached = false;
        grePresent = false;
        greProtocol = 0;
        greChecksumPresent = false;
        greKeyPresent = false;
        greSequencePresent = false;
        greKey = 0;
        greSequence = 0;
        vxlanVni = -1;
        geneveVni = -1;
        geneveOptionsLength = 0;
        resetInner();
    }

    /** Clears the inner view (used by reset and when the parser descends one more tunnel level). */
    void resetInner() {
        innerL2Offset = -1;
        innerDstMac = 0;
        innerSrcMac = 0;
        innerVlanCount = 0;
        innerVlanId = 0;
        innerEtherType = 0;
        innerL3Offset = -1;
        innerIpVersion = 0;
        innerSrcAddrHi = 0;
        innerSrcAddrLo = 0;
        innerDstAddrHi = 0;
        innerDstAddrLo = 0;
        innerIpTotalLength = 0;
        innerTos = 0;
        innerTtl = 0;
        innerIsFragment = false;
        innerFragmentOffset = 0;
        innerMoreFragments = false;
        innerProtocol = 0;
        innerL4Offset = -1;
        innerSrcPort = 0;
        innerDstPort = 0;
        innerTcpFlags = 0;
        innerIcmpType = 0;
        innerIcmpCode = 0;
        innerPortsPresent = false;
        innerTcpFlagsPresent = false;
        innerIcmpPresent = false;
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

    /**
     * The 20-bit label of MPLS label stack entry {@code i} (RFC 3032 §2.1), 0 = top of stack.
     *
     * @param i entry index, 0 ≤ i &lt; {@link #mplsLabelCount()}
     * @return the label 0–1048575
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public int mplsLabel(int i) {
        return mplsEntry(i) >>> 12;
    }

    /**
     * The 3-bit Traffic Class (formerly EXP, RFC 5462) of MPLS label stack entry {@code i}.
     *
     * @param i entry index, 0 ≤ i &lt; {@link #mplsLabelCount()}
     * @return the traffic class 0–7
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public int mplsTrafficClass(int i) {
        return mplsEntry(i) >>> 9 & 7;
    }

    /**
     * The 8-bit TTL of MPLS label stack entry {@code i} (RFC 3032 §2.1).
     *
     * @param i entry index, 0 ≤ i &lt; {@link #mplsLabelCount()}
     * @return the TTL 0–255
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public int mplsTtl(int i) {
        return mplsEntry(i) & 0xFF;
    }

    private int mplsEntry(int i) {
        java.util.Objects.checkIndex(i, mplsLabelCount);
        return mplsEntries[i];
    }

    /**
     * Whether the MPLS payload was an Ethernet pseudowire: first nibble 0, read as the control
     * word (RFC 4385 §3) followed by the emulated Ethernet frame (RFC 4448 §4.4). The emulated
     * frame's VLAN tags and IP header are reported in the outer view (VLAN and IP accessors), as
     * its IP header is the packet's first one; its MACs are not reported.
     *
     * @return true for an Ethernet pseudowire
     */
    public boolean mplsPseudowire() {
        return mplsPseudowire;
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

    /**
     * For {@link #TRUNCATED} and {@link #MALFORMED}: how many tunnel levels had been entered when
     * parsing stopped (the value of {@link #tunnelDepth()} then). 0 means the error is in the
     * outer packet or in the header of the first tunnel; &gt; 0 means the outer view (and
     * {@code errorDepth - 1} inner levels) was complete. 0 for other statuses.
     *
     * @return the depth, 0–{@link PacketParser#MAX_TUNNEL_DEPTH}
     */
    public int errorDepth() {
        return errorDepth;
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
     * 0x9100) walked, 0–4, in the outer frame (including an MPLS Ethernet pseudowire's emulated
     * frame, see {@link #mplsPseudowire()}; a tunnelled frame's tags are
     * {@link #innerVlanCount()}). If a fifth tag follows, parsing stops with {@link #NOT_IP} and
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
     * The More Fragments flag: IPv4 MF (RFC 791 §3.1, flags bit 2) or the IPv6 Fragment header's
     * M flag (RFC 8200 §4.5). A first fragment has {@code moreFragments() && fragmentOffset() == 0}
     * and carries the transport header; the last has {@code !moreFragments() && fragmentOffset() > 0}.
     *
     * @return the flag
     */
    public boolean moreFragments() {
        return moreFragments;
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
     * Whether {@link #srcPort()} and {@link #dstPort()} were read: a TCP, UDP or SCTP header with at
     * least its first 4 bytes captured (and within the IP length). False for other protocols, for
     * non-first fragments and for a capture that ends before the ports, whose 0 is not a port.
     *
     * @return true if the ports are the packet's
     */
    public boolean portsPresent() {
        return portsPresent;
    }

    /**
     * Whether {@link #tcpFlags()} was read: a TCP header with at least 14 bytes captured.
     *
     * @return true if the flags are the packet's
     */
    public boolean tcpFlagsPresent() {
        return tcpFlagsPresent;
    }

    /**
     * Whether {@link #icmpType()} and {@link #icmpCode()} were read: an ICMP or ICMPv6 header with
     * at least 2 bytes captured (type 0 is an echo reply, so a 0 without this flag means nothing).
     *
     * @return true if type and code are the packet's
     */
    public boolean icmpPresent() {
        return icmpPresent;
    }

    /**
     * Whether the frame is an IEEE 802.3 frame (Length/Type ≤ 1500, or Linux cooked protocol
     * 0x0004) whose IEEE 802.2 LLC header is a SNAP header carrying an EtherType: DSAP 0xAA, SSAP
     * 0xAA, control 0x03, OUI 00-00-00 (RFC 1042) or 00-00-F8 (IEEE 802.1H). Then
     * {@link #etherType()} is the SNAP EtherType and {@link #l3Offset()} follows the 8 LLC/SNAP
     * bytes. Other LLC frames (STP, IS-IS, vendor OUIs) are {@link #NOT_IP} with EtherType 0.
     *
     * @return true for an LLC/SNAP-encapsulated frame
     */
    public boolean llcSnap() {
        return llcSnap;
    }

    // ---- IPv6 routing header and SRv6 Segment Routing Header ---------------------------------------

    /**
     * Routing Type (RFC 8200 §4.4) of the first IPv6 Routing header met, e.g. 0 (deprecated
     * source route, RFC 5095), 2 (Mobile IPv6, RFC 6275), 3 (RPL), 4 (SRH, RFC 8754); -1 if none.
     *
     * @return the routing type 0–255, or -1
     */
    public int routingHeaderType() {
        return routingHeaderType;
    }

    /**
     * Whether a Segment Routing Header (IPv6 Routing header type 4, RFC 8754 §2) was parsed: the
     * first one met, normally in the outer IPv6 header's extension chain. The {@code srh*}
     * accessors describe it. Its TLVs (Pad1, PadN, HMAC, ...) are skipped with the header
     * length; a Last Entry that does not fit in that length is {@link #MALFORMED}.
     *
     * @return true if an SRH was parsed
     */
    public boolean srhPresent() {
        return srhPresent;
    }

    /**
     * The SRH Segments Left field (RFC 8754 §2): index of the next segment to visit in the
     * segment list (so the active segment is {@code segment(segmentsLeft)}); 0 if no SRH.
     *
     * @return segments left 0–255
     */
    public int srhSegmentsLeft() {
        return srhSegmentsLeft;
    }

    /**
     * The SRH Last Entry field (RFC 8754 §2): index of the last element of the segment list,
     * i.e. the list has Last Entry + 1 segments; 0 if no SRH.
     *
     * @return last entry 0–255
     */
    public int srhLastEntry() {
        return srhLastEntry;
    }

    /**
     * Number of segments in the SRH's segment list (Last Entry + 1), even above
     * {@link PacketParser#MAX_SRH_SEGMENTS}, of which only the first 16 are kept (see
     * {@link #srhSegmentsOverflow()}); 0 if no SRH.
     *
     * @return the segment count 0–256
     */
    public int srhSegmentCount() {
        return srhSegmentCount;
    }

    /**
     * Whether the SRH lists more than {@link PacketParser#MAX_SRH_SEGMENTS} segments, of which
     * only Segment List[0..15] are kept.
     *
     * @return true if segments were dropped
     */
    public boolean srhSegmentsOverflow() {
        return srhSegmentCount > PacketParser.MAX_SRH_SEGMENTS;
    }

    /**
     * Bytes 0–7 (big-endian) of Segment List[i], in wire order: Segment List[0] is the
     * <em>last</em> segment of the path, Segment List[Last Entry] the first (RFC 8754 §2).
     *
     * @param i segment index, 0 ≤ i &lt; min({@link #srhSegmentCount()}, 16)
     * @return the high 64 bits of the 128-bit IPv6 address
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public long srhSegmentHi(int i) {
        return srhSegments[2 * srhIndex(i)];
    }

    /**
     * Bytes 8–15 (big-endian) of Segment List[i]; see {@link #srhSegmentHi(int)}.
     *
     * @param i segment index, 0 ≤ i &lt; min({@link #srhSegmentCount()}, 16)
     * @return the low 64 bits
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public long srhSegmentLo(int i) {
        return srhSegments[2 * srhIndex(i) + 1];
    }

    /**
     * Writes the 16 bytes of Segment List[i], network byte order.
     *
     * @param i     segment index, 0 ≤ i &lt; min({@link #srhSegmentCount()}, 16)
     * @param dst16 destination array
     * @param off   where to write the 16 bytes
     * @throws IndexOutOfBoundsException if {@code i} is out of range or fewer than 16 bytes are
     *                                   available at {@code off}
     */
    public void writeSrhSegment(int i, byte[] dst16, int off) {
        int k = srhIndex(i);
        writeAddr(srhSegments[2 * k], srhSegments[2 * k + 1], dst16, off);
    }

    /**
     * Segment List[i] as RFC 5952 text (allocates).
     *
     * @param i segment index, 0 ≤ i &lt; min({@link #srhSegmentCount()}, 16)
     * @return the IPv6 address text
     * @throws IndexOutOfBoundsException if {@code i} is out of range
     */
    public String srhSegmentString(int i) {
        int k = srhIndex(i);
        return IpAddresses.ipv6String(srhSegments[2 * k], srhSegments[2 * k + 1]);
    }

    private int srhIndex(int i) {
        return java.util.Objects.checkIndex(i, Math.min(srhSegmentCount, PacketParser.MAX_SRH_SEGMENTS));
    }

    // ---- tunnels ---------------------------------------------------------------------------------

    /**
     * Kind of the outermost tunnel decapsulated ({@link #encapsulationAt(int) encapsulationAt(0)});
     * {@link Encapsulation#NONE} when no tunnel was followed (then the inner view is empty). A
     * tunnel header that was read but whose payload is not followed (e.g. GRE carrying ERSPAN,
     * CDP or a keepalive) leaves this NONE, with its header fields still reported
     * ({@link #grePresent()}, ...).
     *
     * @return the encapsulation, never null
     */
    public Encapsulation encapsulation() {
        return encapsulation;
    }

    /**
     * Kind of the tunnel at {@code level}: 0 is the outermost (carried by the outer packet),
     * {@code tunnelDepth() - 1} the one whose payload is the inner view.
     *
     * @param level 0 ≤ level &lt; {@link #tunnelDepth()}
     * @return the encapsulation at that level
     * @throws IndexOutOfBoundsException if {@code level} is out of range
     */
    public Encapsulation encapsulationAt(int level) {
        return encapsulations[java.util.Objects.checkIndex(level, tunnelDepth)];
    }

    /**
     * Number of tunnels decapsulated to reach the inner view: 0 (no tunnel) up to
     * {@link PacketParser.Config#maxTunnelDepth()}.
     *
     * @return the depth
     */
    public int tunnelDepth() {
        return tunnelDepth;
    }

    /**
     * Whether the innermost packet reached is itself a tunnel that was not followed because
     * {@link PacketParser.Config#maxTunnelDepth()} levels had already been decapsulated (its
     * tunnel header is not read).
     *
     * @return true if the depth limit stopped decapsulation
     */
    public boolean tunnelLimitReached() {
        return tunnelLimitReached;
    }

    /**
     * Whether a GRE header (IP protocol 47) was read; the {@code gre*} accessors describe the
     * first (outermost) one, whether or not its payload was followed.
     *
     * @return true if a GRE header was parsed
     */
    public boolean grePresent() {
        return grePresent;
    }

    /**
     * Protocol Type of the first GRE header (RFC 2784 §2.4, an EtherType: 0x0800, 0x86DD,
     * 0x6558, 0x8909 Cisco MetaData, 0x88BE ERSPAN, 0x0000 keepalive, ...); 0 if no GRE.
     *
     * @return the protocol type 0–65535
     */
    public int greProtocol() {
        return greProtocol;
    }

    /**
     * Whether the first GRE header has the Checksum Present bit (RFC 2784 §2.2).
     *
     * @return the C bit
     */
    public boolean greChecksumPresent() {
        return greChecksumPresent;
    }

    /**
     * Whether the first GRE header has the Key Present bit (RFC 2890 §2.1).
     *
     * @return the K bit
     */
    public boolean greKeyPresent() {
        return greKeyPresent;
    }

    /**
     * The 32-bit Key of the first GRE header (RFC 2890 §2.1), unsigned; 0 when absent (see
     * {@link #greKeyPresent()}). For PPTP's enhanced GRE (version 1, RFC 2637 §4.1) this holds
     * payload length (high 16 bits) and call ID (low 16 bits).
     *
     * @return the key 0–4294967295
     */
    public long greKey() {
        return greKey;
    }

    /**
     * Whether the first GRE header has the Sequence Number Present bit (RFC 2890 §2.2).
     *
     * @return the S bit
     */
    public boolean greSequencePresent() {
        return greSequencePresent;
    }

    /**
     * The 32-bit Sequence Number of the first GRE header (RFC 2890 §2.2), unsigned; 0 when
     * absent (see {@link #greSequencePresent()}).
     *
     * @return the sequence number 0–4294967295
     */
    public long greSequence() {
        return greSequence;
    }

    /**
     * The 24-bit VXLAN Network Identifier of the first VXLAN header (RFC 7348 §5); -1 if none was
     * read (0 is a valid VNI).
     *
     * @return the VNI 0–16777215, or -1
     */
    public int vxlanVni() {
        return vxlanVni;
    }

    /**
     * The 24-bit Virtual Network Identifier of the first Geneve header (RFC 8926 §3.4); -1 if
     * none was read.
     *
     * @return the VNI 0–16777215, or -1
     */
    public int geneveVni() {
        return geneveVni;
    }

    /**
     * Total length in bytes of the options of the first Geneve header (Opt Len × 4, RFC 8926
     * §3.4), which the parser skips; 0 if none or no Geneve.
     *
     * @return the options length 0–252
     */
    public int geneveOptionsLength() {
        return geneveOptionsLength;
    }

    // ---- inner view --------------------------------------------------------------------------------

    /**
     * Offset of the innermost tunnel's Ethernet header (VXLAN, Geneve 0x6558, GRE 0x6558, SRv6
     * next header 143); -1 when the innermost payload starts at IP or there is no tunnel.
     *
     * @return the offset in bytes, or -1
     */
    public int innerL2Offset() {
        return innerL2Offset;
    }

    /**
     * Destination MAC of the innermost tunnelled Ethernet frame (48 bits, as {@link #dstMac()});
     * 0 if none.
     *
     * @return the MAC address
     */
    public long innerDstMac() {
        return innerDstMac;
    }

    /**
     * Source MAC of the innermost tunnelled Ethernet frame; 0 if none.
     *
     * @return the MAC address
     */
    public long innerSrcMac() {
        return innerSrcMac;
    }

    /**
     * VLAN tags (0x8100/0x88A8/0x9100, up to 4) of the innermost tunnelled Ethernet frame; 0 if
     * none. The outer frame's tags are {@link #vlanCount()}.
     *
     * @return the tag count 0–4
     */
    public int innerVlanCount() {
        return innerVlanCount;
    }

    /**
     * VID of the innermost tag of the innermost tunnelled Ethernet frame (its definitive VLAN, as
     * {@link #vlanId()} is for the outer frame); 0 if untagged or no tunnel. Not to be confused
     * with {@link #innerVlan()}, the inner (customer) tag of the <em>outer</em> frame's QinQ stack.
     *
     * @return the VID 0–4095
     */
    public int innerVlanId() {
        return innerVlanId;
    }

    /**
     * Type of the innermost tunnel payload: the EtherType after the tunnelled Ethernet frame's
     * tags (e.g. 0x0806 for ARP in VXLAN, 0 for an 802.3 length), or 0x0800/0x86DD when the tunnel
     * carries IP directly; 0 if no tunnel.
     *
     * @return the EtherType
     */
    public int innerEtherType() {
        return innerEtherType;
    }

    /**
     * Offset of the innermost packet's network header (after its Ethernet header and tags, if
     * any); -1 if no tunnel or the tunnelled Ethernet header was cut short.
     *
     * @return the offset in bytes, or -1
     */
    public int innerL3Offset() {
        return innerL3Offset;
    }

    /**
     * IP version of the innermost packet, 4 or 6 once its fixed header was read; 0 if none (no
     * tunnel, or a non-IP payload such as ARP).
     *
     * @return the version
     */
    public int innerIpVersion() {
        return innerIpVersion;
    }

    /**
     * Bytes 0–7 of the innermost source address (same 128-bit, IPv4-mapped form as
     * {@link #srcAddrHi()}).
     *
     * @return the high 64 bits
     */
    public long innerSrcAddrHi() {
        return innerSrcAddrHi;
    }

    /**
     * Bytes 8–15 of the innermost source address.
     *
     * @return the low 64 bits
     */
    public long innerSrcAddrLo() {
        return innerSrcAddrLo;
    }

    /**
     * Bytes 0–7 of the innermost destination address.
     *
     * @return the high 64 bits
     */
    public long innerDstAddrHi() {
        return innerDstAddrHi;
    }

    /**
     * Bytes 8–15 of the innermost destination address.
     *
     * @return the low 64 bits
     */
    public long innerDstAddrLo() {
        return innerDstAddrLo;
    }

    /**
     * The innermost IPv4 source address as 32 bits; meaningful when {@link #innerIpVersion()} is 4.
     *
     * @return the address bits
     */
    public int innerSrcIpv4() {
        return (int) innerSrcAddrLo;
    }

    /**
     * The innermost IPv4 destination address as 32 bits; meaningful when {@link #innerIpVersion()}
     * is 4.
     *
     * @return the address bits
     */
    public int innerDstIpv4() {
        return (int) innerDstAddrLo;
    }

    /**
     * Writes the innermost 16-byte source address (IPv4-mapped for IPv4), network byte order.
     *
     * @param dst16 destination array
     * @param off   where to write the 16 bytes
     * @throws IndexOutOfBoundsException if fewer than 16 bytes are available at {@code off}
     */
    public void writeInnerSrcAddr(byte[] dst16, int off) {
        writeAddr(innerSrcAddrHi, innerSrcAddrLo, dst16, off);
    }

    /**
     * Writes the innermost 16-byte destination address (IPv4-mapped for IPv4), network byte order.
     *
     * @param dst16 destination array
     * @param off   where to write the 16 bytes
     * @throws IndexOutOfBoundsException if fewer than 16 bytes are available at {@code off}
     */
    public void writeInnerDstAddr(byte[] dst16, int off) {
        writeAddr(innerDstAddrHi, innerDstAddrLo, dst16, off);
    }

    /**
     * Innermost source address as text (allocates), formatted as {@link #srcAddressString()}.
     *
     * @return the address, or null if {@link #innerIpVersion()} is 0
     */
    public String innerSrcAddressString() {
        return addressString(innerIpVersion, innerSrcAddrHi, innerSrcAddrLo);
    }

    /**
     * Innermost destination address as text (allocates).
     *
     * @return the address, or null if {@link #innerIpVersion()} is 0
     */
    public String innerDstAddressString() {
        return addressString(innerIpVersion, innerDstAddrHi, innerDstAddrLo);
    }

    /**
     * Innermost IP length as declared (IPv4 Total Length or IPv6 Payload Length + 40), bytes.
     *
     * @return the length in bytes, 0 if none
     */
    public int innerIpTotalLength() {
        return innerIpTotalLength;
    }

    /**
     * Innermost IPv4 TOS / IPv6 Traffic Class.
     *
     * @return 0–255
     */
    public int innerTos() {
        return innerTos;
    }

    /**
     * Innermost IPv4 TTL / IPv6 Hop Limit.
     *
     * @return 0–255
     */
    public int innerTtl() {
        return innerTtl;
    }

    /**
     * Whether the innermost packet is an IP fragment (as {@link #isFragment()}).
     *
     * @return true for a fragment
     */
    public boolean innerIsFragment() {
        return innerIsFragment;
    }

    /**
     * Innermost fragment offset in bytes (as {@link #fragmentOffset()}); a non-first inner
     * fragment has no inner ports, flags or ICMP type.
     *
     * @return the offset in bytes
     */
    public int innerFragmentOffset() {
        return innerFragmentOffset;
    }

    /**
     * Innermost More Fragments flag (as {@link #moreFragments()}).
     *
     * @return the flag
     */
    public boolean innerMoreFragments() {
        return innerMoreFragments;
    }

    /**
     * Innermost IP protocol (IPv6: after extension headers, as {@link #protocol()}); 0 if none.
     * When {@link #tunnelLimitReached()}, this is the protocol of the tunnel not followed.
     *
     * @return the protocol number
     */
    public int innerProtocol() {
        return innerProtocol;
    }

    /**
     * Offset of the innermost transport header; -1 if not reached.
     *
     * @return the offset in bytes, or -1
     */
    public int innerL4Offset() {
        return innerL4Offset;
    }

    /**
     * Innermost TCP/UDP/SCTP source port (as {@link #srcPort()}); 0 otherwise.
     *
     * @return the port 0–65535
     */
    public int innerSrcPort() {
        return innerSrcPort;
    }

    /**
     * Innermost TCP/UDP/SCTP destination port; 0 otherwise.
     *
     * @return the port 0–65535
     */
    public int innerDstPort() {
        return innerDstPort;
    }

    /**
     * Innermost TCP flags, 12 bits as {@link #tcpFlags()}; 0 if not TCP.
     *
     * @return the flags
     */
    public int innerTcpFlags() {
        return innerTcpFlags;
    }

    /**
     * Innermost ICMP/ICMPv6 type; 0 otherwise.
     *
     * @return the type 0–255
     */
    public int innerIcmpType() {
        return innerIcmpType;
    }

    /**
     * Innermost ICMP/ICMPv6 code; 0 otherwise.
     *
     * @return the code 0–255
     */
    public int innerIcmpCode() {
        return innerIcmpCode;
    }

    /**
     * Whether {@link #innerSrcPort()} and {@link #innerDstPort()} were read (see {@link #portsPresent()}).
     *
     * @return true if the inner ports are the packet's
     */
    public boolean innerPortsPresent() {
        return innerPortsPresent;
    }

    /**
     * Whether {@link #innerTcpFlags()} was read (see {@link #tcpFlagsPresent()}).
     *
     * @return true if the inner flags are the packet's
     */
    public boolean innerTcpFlagsPresent() {
        return innerTcpFlagsPresent;
    }

    /**
     * Whether {@link #innerIcmpType()} and {@link #innerIcmpCode()} were read (see {@link #icmpPresent()}).
     *
     * @return true if the inner type and code are the packet's
     */
    public boolean innerIcmpPresent() {
        return innerIcmpPresent;
    }

    /**
     * {@link #flowHash()} of the innermost 5-tuple (same function and properties); equals
     * {@code new ParsedPacket().flowHash()} when the inner view is empty.
     *
     * @return the 64-bit hash
     */
    public long innerFlowHash() {
        return hash(innerSrcAddrHi, innerSrcAddrLo, innerDstAddrHi, innerDstAddrLo, innerProtocol, innerSrcPort,
                innerDstPort);
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
        return hash(srcAddrHi, srcAddrLo, dstAddrHi, dstAddrLo, protocol, srcPort, dstPort);
    }

    private static long hash(long srcHi, long srcLo, long dstHi, long dstLo, int protocol, int srcPort, int dstPort) {
        long ports = (long) protocol << 32 | (long) srcPort << 16 | dstPort;
        long h = 0x27D4EB2F165667C5L + 40; // xxh64 PRIME64_5 + input length
        h = round(h, srcHi);
        h = round(h, srcLo);
        h = round(h, dstHi);
        h = round(h, dstLo);
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
        if (tunnelDepth > 0) {
            sb.append(", ").append(encapsulation).append(" depth=").append(tunnelDepth)
                    .append(", inner type=0x").append(Integer.toHexString(innerEtherType));
            if (innerIpVersion != 0) {
                sb.append(' ').append(innerSrcAddressString()).append(" -> ").append(innerDstAddressString())
                        .append(", proto=").append(innerProtocol).append(", ports=").append(innerSrcPort)
                        .append("->").append(innerDstPort);
            }
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
        return addressString(ipVersion, hi, lo);
    }

    private static String addressString(int ipVersion, long hi, long lo) {
        return switch (ipVersion) {
            case 4 -> IpAddresses.dottedQuad((int) lo);
            case 6 -> IpAddresses.ipv6String(hi, lo);
            default -> null;
        };
    }

}
