package io.vecflow.packet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.BitSet;
import java.util.Objects;

import io.vecflow.packet.ParsedPacket.Encapsulation;

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
 *       length, reported as {@link ParsedPacket#NOT_IP} with EtherType 0), unless the IEEE 802.2
 *       LLC header that follows is a SNAP header with OUI 00-00-00 (RFC 1042) or 00-00-F8 (IEEE
 *       802.1H): then its EtherType is the frame's and parsing goes on after the 8 LLC/SNAP bytes
 *       ({@link ParsedPacket#llcSnap()}; also after VLAN tags and for Linux cooked protocol 0x0004);</li>
 *   <li>up to 4 VLAN tags: 0x8100 C-tag (IEEE 802.1Q §9.6), 0x88A8 S-tag (IEEE 802.1ad), 0x9100
 *       (pre-standard QinQ); TCI = PCP(3) DEI(1) VID(12);</li>
 *   <li>Linux cooked v1, 16 bytes, protocol at offset 14
 *       (<a href="https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL.html">LINKTYPE_LINUX_SLL</a>);
 *       VLAN tags may follow it;</li>
 *   <li>raw IP (LINKTYPE_RAW, version from the first nibble), raw IPv4, raw IPv6;</li>
 *   <li>IPv4 (RFC 791 §3.1): version 4, IHL ≥ 5 checked, options skipped, fragments (RFC 791
 *       flags/offset; MF reported);</li>
 *   <li>IPv6 (RFC 8200 §3) and extension headers Hop-by-Hop (0), Routing (43), Fragment (44),
 *       Destination Options (60) (RFC 8200 §4), at most 8; a Routing header of type 4 is an SRv6
 *       Segment Routing Header (RFC 8754 §2) whose segment list is reported;</li>
 *   <li>TCP (RFC 9293 §3.1), UDP (RFC 768), SCTP (RFC 9260 §3.1) ports; TCP flags; ICMP
 *       (RFC 792) and ICMPv6 (RFC 4443 §2.1) type and code.</li>
 * </ul>
 * MPLS (0x8847/0x8848, RFC 3032): the label stack is walked to the bottom-of-stack entry (at most
 * {@link #MAX_MPLS_LABELS}, every entry kept) and the payload is parsed as IPv4 or IPv6 by its
 * first nibble (RFC 4385 §2 notes this heuristic); a first nibble 0 is read as an Ethernet
 * pseudowire control word followed by the emulated frame (RFC 4385 §3, RFC 4448 §4.4), whose VLAN
 * tags and IP are parsed as tshark does, into the outer view; {@link ParsedPacket#etherType()}
 * stays 0x8847/0x8848. ARP, LLC other than SNAP and every other EtherType end with
 * {@link ParsedPacket#NOT_IP}.
 *
 * <p><b>Tunnels.</b> Unless {@link Config#decapsulate()} is off, the payload of the outer packet
 * is followed into the inner view of {@link ParsedPacket} (see {@link ParsedPacket.Encapsulation}),
 * at most {@link Config#maxTunnelDepth()} levels:
 * <ul>
 *   <li>GRE (IP protocol 47): RFC 2784 §2 / RFC 2890 §2 header with optional checksum (C), key
 *       (K) and sequence number (S); version 1 (PPTP, RFC 2637 §4.1) with the acknowledgment
 *       bit. Followed for version 0 without the deprecated Routing bit (RFC 1701) and protocol
 *       type 0x0800, 0x86DD, 0x6558 (transparent Ethernet bridging: an Ethernet frame) or 0x8909
 *       (Cisco MetaData, 8 bytes: EtherType, version, length, option, SGT, as Wireshark's
 *       {@code packet-cisco-metadata.c} reads it under GRE; then IPv4 or IPv6). Other protocol
 *       types (ERSPAN 0x88BE/0x22EB, MPLS 0x8847, keepalives 0x0000, CDP 0x2000, PPP 0x880B, ...)
 *       are reported ({@link ParsedPacket#greProtocol()}) but not followed;</li>
 *   <li>VXLAN (RFC 7348 §5): UDP to a {@link Config#isVxlanPort(int) VXLAN port} (default 4789,
 *       the IANA port), 8-byte header with the I flag set, VNI, inner Ethernet frame;</li>
 *   <li>Geneve (RFC 8926 §3): UDP to a {@link Config#isGenevePort(int) Geneve port} (default
 *       6081), version 0, options skipped by Opt Len, protocol type 0x6558 (Ethernet), 0x0800 or
 *       0x86DD;</li>
 *   <li>IP-in-IP: protocol 4 or 41 in IPv4 or IPv6 (RFC 2003, RFC 4213, RFC 2473);</li>
 *   <li>SRv6 (RFC 8986 §5): IPv6 with an SRH followed by 41, 4 or 143 (Ethernet), or any IPv6
 *       header followed by 143.</li>
 * </ul>
 * The tunnelled Ethernet frame may carry VLAN tags (reported as
 * {@link ParsedPacket#innerVlanId()}, separate from the outer frame's) but MPLS inside a tunnel is
 * not followed. Tunnels are matched on the UDP destination port only and are not followed inside
 * IP fragments (their payload is incomplete).
 *
 * <p>Bytes at or beyond {@code length} are never read. A packet cut short inside a header gets
 * {@link ParsedPacket#TRUNCATED} with the offset of that header; fields of earlier layers stay
 * set (the outer view stays complete when the cut is inside a tunnel), and a partly captured
 * transport header still yields its ports if the first 4 bytes are present. Where the IP header
 * declares a length shorter than the capture (Ethernet padding), the transport header — and a
 * tunnel header and its payload's headers — must fit in the declared length, else
 * {@link ParsedPacket#MALFORMED}. An IPv4 Total Length or IPv6 Payload Length of 0 (TSO/GSO
 * captures, jumbograms) is treated as "up to the end of the capture" (or of the enclosing tunnel
 * payload).
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
    /** Maximum number of SRH segments kept (see {@link ParsedPacket#srhSegmentCount()}). */
    public static final int MAX_SRH_SEGMENTS = 16;
    /** Upper bound of {@link Config#maxTunnelDepth()}. */
    public static final int MAX_TUNNEL_DEPTH = 8;
    /** The IANA-assigned VXLAN UDP port (RFC 7348 §5), in {@link Config#DEFAULT}. */
    public static final int VXLAN_PORT = 4789;
    /** The Linux kernel's legacy VXLAN port (pre-IANA; flannel's default), not in {@link Config#DEFAULT}. */
    public static final int VXLAN_LINUX_LEGACY_PORT = 8472;
    /** The IANA-assigned Geneve UDP port (RFC 8926 §3.3), in {@link Config#DEFAULT}. */
    public static final int GENEVE_PORT = 6081;

    static final int ETHERTYPE_IPV4 = 0x0800;
    static final int ETHERTYPE_IPV6 = 0x86DD;
    private static final int ETHERTYPE_TEB = 0x6558; // transparent Ethernet bridging (RFC 1701)
    private static final int ETHERTYPE_CISCO_METADATA = 0x8909;
    private static final int ETHERTYPE_MIN = 0x0600;
    private static final int TPID_8021Q = 0x8100;
    private static final int TPID_8021AD = 0x88A8;
    private static final int TPID_QINQ_LEGACY = 0x9100;
    private static final int ETHERTYPE_MPLS_UC = 0x8847;
    private static final int ETHERTYPE_MPLS_MC = 0x8848;
    private static final int MPLS_ENTRY = 4;
    /** Largest IEEE 802.3 Length value (IEEE 802.3 §3.2.6); 1501..1535 are neither length nor type. */
    private static final int MAX_8023_LENGTH = 1500;
    /** Linux cooked protocol of an 802.2 LLC frame ({@code LINUX_SLL_P_802_2}). */
    private static final int SLL_P_802_2 = 0x0004;
    /** LLC (DSAP, SSAP, control) + SNAP (OUI, EtherType), RFC 1042. */
    private static final int LLC_SNAP_HEADER = 8;
    private static final int SNAP_TRUNCATED = -2;

    private static final int ETHERNET_HEADER = 14;
    private static final int SLL_HEADER = 16;
    private static final int VLAN_TAG = 4;
    private static final int IPV4_MIN_HEADER = 20;
    private static final int IPV6_HEADER = 40;
    private static final int UDP_HEADER = 8;
    private static final int GRE_MIN_HEADER = 4;
    private static final int CISCO_METADATA_HEADER = 8;
    private static final int VXLAN_HEADER = 8;
    private static final int GENEVE_MIN_HEADER = 8;

    private static final int PROTO_ICMP = 1;
    private static final int PROTO_IPIP = 4;
    private static final int PROTO_TCP = 6;
    private static final int PROTO_UDP = 17;
    private static final int PROTO_IPV6 = 41;
    private static final int PROTO_GRE = 47;
    private static final int PROTO_ICMPV6 = 58;
    private static final int PROTO_SCTP = 132;
    private static final int PROTO_ETHERNET = 143;

    /** Internal status: a tunnel header was parsed; continue at {@code p.nextPos} with {@code p.nextType}. */
    private static final int FOLLOW = -1;

    private static final ValueLayout.OfShort BE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong BE_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private PacketParser() {
    }

    /**
     * Immutable parser settings: which UDP destination ports are VXLAN and Geneve, how many
     * tunnel levels to follow, or no decapsulation at all. Build once (e.g. from the
     * configuration file) and share between threads; lookups during parsing are a bit test in a
     * {@code long[1024]} per protocol (65536 ports) and allocate nothing.
     *
     * <p>{@link #DEFAULT}: VXLAN on 4789 only, Geneve on 6081, 4 levels, decapsulation on. The
     * Linux legacy VXLAN port 8472 ({@link #VXLAN_LINUX_LEGACY_PORT}, flannel's default; also
     * IANA's OTV port) is left out by default because a port match is a heuristic and 8472 is not
     * IANA's VXLAN port; add it with {@link Builder#addVxlanPort(int)} where it is used.
     */
    public static final class Config {
        /** VXLAN 4789, Geneve 6081, 4 tunnel levels, decapsulation on. */
        public static final Config DEFAULT = builder().build();
        /** Outer packet only: no tunnel header is read (the behaviour before tunnels were decoded). */
        public static final Config NO_DECAPSULATION = builder().decapsulate(false).build();

        private final long[] vxlanPorts;
        private final long[] genevePorts;
        private final int maxTunnelDepth;
        private final boolean decapsulate;

        private Config(Builder b) {
            this.vxlanPorts = toWords(b.vxlan);
            this.genevePorts = toWords(b.geneve);
            this.maxTunnelDepth = b.maxTunnelDepth;
            this.decapsulate = b.decapsulate;
        }

        private static long[] toWords(BitSet ports) {
            long[] words = new long[1024];
            long[] set = ports.toLongArray();
            System.arraycopy(set, 0, words, 0, Math.min(set.length, words.length));
            return words;
        }

        /**
         * A builder starting from the defaults (VXLAN {4789}, Geneve {6081}, depth 4, on).
         *
         * @return a new builder
         */
        public static Builder builder() {
            return new Builder();
        }

        /**
         * Whether UDP destination port {@code port} is decoded as VXLAN.
         *
         * @param port a UDP port 0–65535 (other values: false)
         * @return true for a VXLAN port
         */
        public boolean isVxlanPort(int port) {
            return (port & ~0xFFFF) == 0 && (vxlanPorts[port >>> 6] & 1L << port) != 0;
        }

        /**
         * Whether UDP destination port {@code port} is decoded as Geneve.
         *
         * @param port a UDP port 0–65535 (other values: false)
         * @return true for a Geneve port
         */
        public boolean isGenevePort(int port) {
            return (port & ~0xFFFF) == 0 && (genevePorts[port >>> 6] & 1L << port) != 0;
        }

        /**
         * Maximum number of tunnel levels decapsulated, 1–{@link #MAX_TUNNEL_DEPTH}.
         *
         * @return the depth limit
         */
        public int maxTunnelDepth() {
            return maxTunnelDepth;
        }

        /**
         * Whether tunnels are followed at all; when false the parse ends after the outer
         * transport header and no tunnel field is set.
         *
         * @return true if decapsulation is on
         */
        public boolean decapsulate() {
            return decapsulate;
        }

        @Override
        public String toString() {
            return "Config[vxlan=" + BitSet.valueOf(vxlanPorts) + ", geneve=" + BitSet.valueOf(genevePorts)
                    + ", maxTunnelDepth=" + maxTunnelDepth + ", decapsulate=" + decapsulate + "]";
        }

        /** Mutable builder of a {@link Config}; not thread-safe. */
        public static final class Builder {
            private final BitSet vxlan = new BitSet();
            private final BitSet geneve = new BitSet();
            private int maxTunnelDepth = 4;
            private boolean decapsulate = true;

            private Builder() {
                vxlan.set(VXLAN_PORT);
                geneve.set(GENEVE_PORT);
            }

            /**
             * Replaces the VXLAN ports (an empty list disables VXLAN).
             *
             * @param ports UDP destination ports 0–65535
             * @return this builder
             * @throws IllegalArgumentException for a port outside 0–65535
             */
            public Builder vxlanPorts(int... ports) {
                vxlan.clear();
                for (int port : ports) {
                    vxlan.set(checkPort(port));
                }
                return this;
            }

            /**
             * Adds a VXLAN port, e.g. {@link #VXLAN_LINUX_LEGACY_PORT}.
             *
             * @param port UDP destination port 0–65535
             * @return this builder
             * @throws IllegalArgumentException for a port outside 0–65535
             */
            public Builder addVxlanPort(int port) {
                vxlan.set(checkPort(port));
                return this;
            }

            /**
             * Replaces the Geneve ports (an empty list disables Geneve).
             *
             * @param ports UDP destination ports 0–65535
             * @return this builder
             * @throws IllegalArgumentException for a port outside 0–65535
             */
            public Builder genevePorts(int... ports) {
                geneve.clear();
                for (int port : ports) {
                    geneve.set(checkPort(port));
                }
                return this;
            }

            /**
             * Adds a Geneve port.
             *
             * @param port UDP destination port 0–65535
             * @return this builder
             * @throws IllegalArgumentException for a port outside 0–65535
             */
            public Builder addGenevePort(int port) {
                geneve.set(checkPort(port));
                return this;
            }

            /**
             * Sets how many tunnel levels are decapsulated (default 4).
             *
             * @param depth 1–{@link #MAX_TUNNEL_DEPTH}
             * @return this builder
             * @throws IllegalArgumentException for another value
             */
            public Builder maxTunnelDepth(int depth) {
                if (depth < 1 || depth > MAX_TUNNEL_DEPTH) {
                    throw new IllegalArgumentException("maxTunnelDepth must be 1.." + MAX_TUNNEL_DEPTH + ", got "
                            + depth);
                }
                maxTunnelDepth = depth;
                return this;
            }

            /**
             * Turns decapsulation on (default) or off.
             *
             * @param on false to parse the outer packet only
             * @return this builder
             */
            public Builder decapsulate(boolean on) {
                decapsulate = on;
                return this;
            }

            /**
             * Builds the immutable configuration.
             *
             * @return the configuration
             * @throws IllegalArgumentException if a port is both a VXLAN and a Geneve port
             */
            public Config build() {
                if (vxlan.intersects(geneve)) {
                    BitSet both = (BitSet) vxlan.clone();
                    both.and(geneve);
                    throw new IllegalArgumentException("ports configured as both VXLAN and Geneve: " + both);
                }
                return new Config(this);
            }

            private static int checkPort(int port) {
                if (port < 0 || port > 0xFFFF) {
                    throw new IllegalArgumentException("UDP port must be 0..65535, got " + port);
                }
                return port;
            }
        }
    }

    /**
     * Parses the packet at {@code seg[offset, offset + length)} with {@link Config#DEFAULT}.
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
        return parse(seg, offset, length, linkType, Config.DEFAULT, out);
    }

    /**
     * Parses the packet at {@code seg[offset, offset + length)}.
     *
     * @param seg      the memory holding the packet (heap or native, any alignment)
     * @param offset   byte offset of the packet's first byte (its link-layer header) in {@code seg}
     * @param length   captured length in bytes; nothing at or beyond it is read
     * @param linkType how the packet starts; null gives {@link ParsedPacket#UNSUPPORTED_LINK}
     * @param config   tunnel settings
     * @param out      the result, reset and filled in place; offsets in it are relative to
     *                 {@code offset}
     * @return the status, as {@link ParsedPacket#status()}
     * @throws IndexOutOfBoundsException if the range is not inside {@code seg}
     * @throws NullPointerException      if {@code seg}, {@code config} or {@code out} is null
     */
    public static int parse(MemorySegment seg, long offset, int length, LinkType linkType, Config config,
                            ParsedPacket out) {
        Objects.checkFromIndexSize(offset, length, seg.byteSize());
        Objects.requireNonNull(config, "config");
        return run(seg, offset, length, linkType, config, out);
    }

    /**
     * Parses the packet at {@code buf[off, off + len)} with {@link Config#DEFAULT}.
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
        return parse(buf, off, len, linkType, Config.DEFAULT, out);
    }

    /**
     * Parses the packet at {@code buf[off, off + len)}.
     *
     * @param buf      the buffer holding the packet
     * @param off      index of the packet's first byte (its link-layer header)
     * @param len      captured length in bytes; nothing at or beyond it is read
     * @param linkType how the packet starts; null gives {@link ParsedPacket#UNSUPPORTED_LINK}
     * @param config   tunnel settings
     * @param out      the result, reset and filled in place; offsets in it are relative to
     *                 {@code off}
     * @return the status, as {@link ParsedPacket#status()}
     * @throws IndexOutOfBoundsException if the range is not inside {@code buf}
     * @throws NullPointerException      if {@code buf}, {@code config} or {@code out} is null
     */
    public static int parse(byte[] buf, int off, int len, LinkType linkType, Config config, ParsedPacket out) {
        Objects.checkFromIndexSize(off, len, buf.length);
        Objects.requireNonNull(config, "config");
        return run(buf, off, len, linkType, config, out);
    }

    // ---- layers ----------------------------------------------------------------------------------

    private static int run(Object s, long b, int len, LinkType lt, Config cfg, ParsedPacket p) {
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
            if (pass == 0 && (lt == LinkType.LINUX_SLL ? type == SLL_P_802_2 : type <= MAX_8023_LENGTH)) {
                // IEEE 802.3 length (or Linux cooked 802.2): an LLC header follows; SNAP may carry an EtherType.
                int snap = llcSnap(s, b, pos, len);
                if (snap == SNAP_TRUNCATED) {
                    return stop(p, TRUNCATED, pos, ParsedPacket.Layer.LINK);
                }
                if (snap >= 0) {
                    p.llcSnap = true;
                    type = snap;
                    pos += LLC_SNAP_HEADER;
                }
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
                p.mplsEntries[p.mplsLabelCount++] = entry;
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
            p.mplsPseudowire = true;
            type = u16(s, b + pos + MPLS_ENTRY + 12);
            pos += MPLS_ENTRY + ETHERNET_HEADER;
        }
        p.l3Offset = pos;
        if (type != ETHERTYPE_IPV4 && type != ETHERTYPE_IPV6) {
            p.status = NOT_IP;
            return NOT_IP;
        }
        return network(s, b, pos, len, type, cfg, p);
    }

    /**
     * Reads an IEEE 802.2 LLC header at {@code pos}: when it is a SNAP header carrying an EtherType
     * (DSAP 0xAA, SSAP 0xAA, control 0x03 UI, OUI 00-00-00 per RFC 1042 or 00-00-F8 per IEEE 802.1H),
     * returns the EtherType; {@link #SNAP_TRUNCATED} when the bytes captured are the start of such a
     * header but fewer than 8; -1 for any other LLC header (STP, IS-IS, a vendor OUI) and when no
     * byte of it is captured.
     */
    private static int llcSnap(Object s, long b, int pos, int len) {
        int avail = Math.min(len - pos, LLC_SNAP_HEADER);
        for (int i = 0; i < avail && i < 6; i++) {
            int v = u8(s, b + pos + i);
            boolean match = i < 2 ? v == 0xAA : i == 2 ? v == 0x03 : i < 5 ? v == 0 : v == 0 || v == 0xF8;
            if (!match) {
                return -1;
            }
        }
        if (avail <= 0) {
            return -1;
        }
        if (avail < LLC_SNAP_HEADER) {
            return SNAP_TRUNCATED;
        }
        return u16(s, b + pos + 6);
    }

    /**
     * Parses the IP packet of {@code type} at {@code pos}, then, while its payload is a tunnel
     * that {@code cfg} follows, the tunnel header and the next level's packet (into the inner
     * view).
     */
    private static int network(Object s, long b, int pos, int len, int type, Config cfg, ParsedPacket p) {
        int end = len;
        boolean endIsCapture = true;
        boolean in = false;
        while (true) {
            int st;
            if (type == ETHERTYPE_IPV4) {
                st = ipv4(s, b, pos, end, endIsCapture, in, p);
            } else if (type == ETHERTYPE_IPV6) {
                st = ipv6(s, b, pos, end, endIsCapture, in, p);
            } else {
                return OK; // a tunnelled non-IP payload (e.g. ARP in VXLAN): innerEtherType says what
            }
            if (st != OK || !cfg.decapsulate || p.scrFragment) {
                return st;
            }
            st = tunnel(s, b, cfg, p);
            if (st != FOLLOW) {
                return st;
            }
            pos = p.nextPos;
            type = p.nextType;
            end = p.scrEnd;
            endIsCapture = p.scrEndIsCapture;
            in = true;
            if (p.tunnelDepth > 1) {
                p.resetInner();
            }
            if (type == ETHERTYPE_TEB) {
                if (end - pos < ETHERNET_HEADER) {
                    return stop(p, endIsCapture ? TRUNCATED : MALFORMED, pos, ParsedPacket.Layer.LINK);
                }
                p.innerL2Offset = pos;
                p.innerDstMac = u48(s, b + pos);
                p.innerSrcMac = u48(s, b + pos + 6);
                type = u16(s, b + pos + 12);
                pos += ETHERNET_HEADER;
                while (type == TPID_8021Q || type == TPID_8021AD || type == TPID_QINQ_LEGACY) {
                    if (p.innerVlanCount == MAX_VLAN_TAGS) {
                        break; // a fifth tag: innerEtherType = its TPID, not followed
                    }
                    if (end - pos < VLAN_TAG) {
                        return stop(p, endIsCapture ? TRUNCATED : MALFORMED, pos, ParsedPacket.Layer.VLAN);
                    }
                    p.innerVlanId = u16(s, b + pos) & 0x0FFF;
                    p.innerVlanCount++;
                    type = u16(s, b + pos + 2);
                    pos += VLAN_TAG;
                }
                type = type < ETHERTYPE_MIN ? 0 : type;
            }
            p.innerEtherType = type;
            p.innerL3Offset = pos;
        }
    }

    private static int ipv4(Object s, long b, int pos, int end, boolean endIsCapture, boolean in, ParsedPacket p) {
        if (end - pos < IPV4_MIN_HEADER) {
            return stop(p, endIsCapture ? TRUNCATED : MALFORMED, pos, ParsedPacket.Layer.IPV4);
        }
        int versionIhl = u8(s, b + pos);
        int ihl = (versionIhl & 0x0F) << 2;
        if (versionIhl >>> 4 != 4 || ihl < IPV4_MIN_HEADER) {
            return stop(p, MALFORMED, pos, ParsedPacket.Layer.IPV4);
        }
        int total = u16(s, b + pos + 2);
        int flagsFragment = u16(s, b + pos + 6);
        int fragmentOffset = (flagsFragment & 0x1FFF) << 3;
        boolean more = (flagsFragment & 0x2000) != 0;
        int protocol = u8(s, b + pos + 9);
        setIp(p, in, 4, u8(s, b + pos + 1), total, u8(s, b + pos + 8));
        setFragment(p, in, more || fragmentOffset != 0, fragmentOffset, more);
        setProtocol(p, in, protocol);
        setAddresses(p, in, 0, 0xFFFF_0000_0000L | (u32(s, b + pos + 12) & 0xFFFF_FFFFL),
                0, 0xFFFF_0000_0000L | (u32(s, b + pos + 16) & 0xFFFF_FFFFL));
        if (total != 0 && total < ihl) {
            return stop(p, MALFORMED, pos, ParsedPacket.Layer.IPV4);
        }
        if (end - pos < ihl) {
            return stop(p, endIsCapture ? TRUNCATED : MALFORMED, pos, ParsedPacket.Layer.IPV4);
        }
        int l4 = pos + ihl;
        setL4Offset(p, in, l4);
        p.scrFragment = more || fragmentOffset != 0;
        if (fragmentOffset != 0) {
            return OK; // a non-first fragment carries no transport header
        }
        boolean limited = total == 0 || total > end - pos;
        int limit = limited ? end : pos + total;
        return payload(s, b, protocol, l4, limit, limited && endIsCapture, false, false, in, p);
    }

    private static int ipv6(Object s, long b, int pos, int end, boolean endIsCapture, boolean in, ParsedPacket p) {
        if (end - pos < IPV6_HEADER) {
            return stop(p, endIsCapture ? TRUNCATED : MALFORMED, pos, ParsedPacket.Layer.IPV6);
        }
        int first = u32(s, b + pos);
        if (first >>> 28 != 6) {
            return stop(p, MALFORMED, pos, ParsedPacket.Layer.IPV6);
        }
        int payloadLength = u16(s, b + pos + 4);
        int next = u8(s, b + pos + 6);
        setIp(p, in, 6, first >>> 20 & 0xFF, payloadLength + IPV6_HEADER, u8(s, b + pos + 7));
        setAddresses(p, in, u64(s, b + pos + 8), u64(s, b + pos + 16), u64(s, b + pos + 24), u64(s, b + pos + 32));
        int cur = pos + IPV6_HEADER;
        boolean limited = payloadLength == 0 || payloadLength > end - cur;
        int limit = limited ? end : cur + payloadLength;
        boolean limitIsCapture = limited && endIsCapture;
        boolean fragment = false;
        boolean srh = false;
        for (int n = 0; n < MAX_IPV6_EXTENSION_HEADERS && isSkippedExtension(next); n++) {
            if (limit - cur < 8) {
                return stop(p, limitIsCapture ? TRUNCATED : MALFORMED, cur, ParsedPacket.Layer.IPV6_EXTENSION);
            }
            int headerLength;
            int fragmentOffset = 0;
            if (next == 44) { // Fragment header, RFC 8200 §4.5: fixed 8 bytes
                int offsetFlags = u16(s, b + cur + 2);
                fragmentOffset = offsetFlags & 0xFFF8;
                fragment = true;
                setFragment(p, in, true, fragmentOffset, (offsetFlags & 1) != 0);
                headerLength = 8;
            } else { // Hdr Ext Len in 8-octet units, not counting the first 8 octets
                headerLength = (u8(s, b + cur + 1) + 1) << 3;
                if (limit - cur < headerLength) {
                    return stop(p, limitIsCapture ? TRUNCATED : MALFORMED, cur, ParsedPacket.Layer.IPV6_EXTENSION);
                }
                if (next == 43) {
                    int routingType = u8(s, b + cur + 2);
                    if (p.routingHeaderType < 0) {
                        p.routingHeaderType = routingType;
                    }
                    if (routingType == 4) {
                        srh = true;
                        if (!p.srhPresent && !segmentRoutingHeader(s, b, cur, headerLength, p)) {
                            return stop(p, MALFORMED, cur, ParsedPacket.Layer.IPV6_EXTENSION);
                        }
                    }
                }
            }
            next = u8(s, b + cur);
            cur += headerLength;
            if (fragmentOffset != 0) {
                setProtocol(p, in, next);
                setL4Offset(p, in, cur);
                p.scrFragment = true;
                return OK; // a non-first fragment carries no transport header
            }
        }
        setProtocol(p, in, next);
        setL4Offset(p, in, cur);
        p.scrFragment = fragment;
        return payload(s, b, next, cur, limit, limitIsCapture, true, srh, in, p);
    }

    private static boolean isSkippedExtension(int next) {
        return next == 0 || next == 43 || next == 44 || next == 60;
    }

    /**
     * Reads the SRH at {@code cur} (RFC 8754 §2), whose {@code headerLength} bytes are captured;
     * false if its Last Entry does not fit in its length.
     */
    private static boolean segmentRoutingHeader(Object s, long b, int cur, int headerLength, ParsedPacket p) {
        int lastEntry = u8(s, b + cur + 4);
        int count = lastEntry + 1;
        if (8 + 16 * count > headerLength) {
            return false;
        }
        p.srhPresent = true;
        p.srhSegmentsLeft = u8(s, b + cur + 3);
        p.srhLastEntry = lastEntry;
        p.srhSegmentCount = count;
        int keep = Math.min(count, MAX_SRH_SEGMENTS);
        for (int i = 0; i < keep; i++) {
            long at = b + cur + 8 + 16L * i;
            p.srhSegments[2 * i] = u64(s, at);
            p.srhSegments[2 * i + 1] = u64(s, at + 8);
        }
        return true;
    }

    /**
     * Records where the IP payload is (for {@link #tunnel}) and reads its transport header.
     * {@code limit} is the end of the IP payload (capture end, declared IP length or enclosing
     * tunnel payload end, whichever is first).
     */
    private static int payload(Object s, long b, int protocol, int pos, int limit, boolean limitIsCapture,
                               boolean ipv6, boolean srh, boolean in, ParsedPacket p) {
        p.scrProto = protocol;
        p.scrL4 = pos;
        p.scrEnd = limit;
        p.scrEndIsCapture = limitIsCapture;
        p.scrIpv6 = ipv6;
        p.scrSrh = srh;
        return transport(s, b, protocol, pos, limit, limitIsCapture, in, p);
    }

    /** Reads the transport header at {@code pos}, ending at {@code limit}. */
    private static int transport(Object s, long b, int protocol, int pos, int limit, boolean limitIsCapture,
                                 boolean in, ParsedPacket p) {
        int avail = limit - pos;
        int minimum;
        switch (protocol) {
            case PROTO_TCP -> {
                if (avail >= 4) {
                    setPorts(p, in, u16(s, b + pos), u16(s, b + pos + 2));
                }
                if (avail >= 14) {
                    int flags = (u8(s, b + pos + 12) & 0x0F) << 8 | u8(s, b + pos + 13);
                    if (in) {
                        p.innerTcpFlags = flags;
                        p.innerTcpFlagsPresent = true;
                    } else {
                        p.tcpFlags = flags;
                        p.tcpFlagsPresent = true;
                    }
                }
                minimum = 20;
            }
            case PROTO_UDP, PROTO_SCTP -> {
                if (avail >= 4) {
                    setPorts(p, in, u16(s, b + pos), u16(s, b + pos + 2));
                }
                minimum = protocol == PROTO_UDP ? UDP_HEADER : 12;
            }
            case PROTO_ICMP, PROTO_ICMPV6 -> {
                if (avail >= 2) {
                    int type = u8(s, b + pos);
                    int code = u8(s, b + pos + 1);
                    if (in) {
                        p.innerIcmpType = type;
                        p.innerIcmpCode = code;
                        p.innerIcmpPresent = true;
                    } else {
                        p.icmpType = type;
                        p.icmpCode = code;
                        p.icmpPresent = true;
                    }
                }
                minimum = 4; // type, code, checksum
            }
            default -> {
                return OK;
            }
        }
        if (avail < minimum) {
            return stop(p, limitIsCapture ? TRUNCATED : MALFORMED, pos, ParsedPacket.Layer.TRANSPORT);
        }
        return OK;
    }

    // ---- tunnels -----------------------------------------------------------------------------------

    /**
     * Looks at the payload recorded by {@link #payload}: returns {@link #FOLLOW} with
     * {@code p.nextPos}/{@code p.nextType} set (and the depth incremented) when it is a tunnel to
     * follow, OK when it is not (or the depth limit is reached), or a TRUNCATED/MALFORMED stop
     * inside the tunnel header.
     */
    private static int tunnel(Object s, long b, Config cfg, ParsedPacket p) {
        int l4 = p.scrL4;
        switch (p.scrProto) {
            case PROTO_IPIP, PROTO_IPV6 -> {
                if (atDepthLimit(cfg, p)) {
                    return OK;
                }
                return enter(p, p.scrSrh ? Encapsulation.SRV6 : Encapsulation.IP_IN_IP, l4,
                        p.scrProto == PROTO_IPIP ? ETHERTYPE_IPV4 : ETHERTYPE_IPV6);
            }
            case PROTO_ETHERNET -> {
                if (!p.scrIpv6 || atDepthLimit(cfg, p)) {
                    return OK;
                }
                return enter(p, Encapsulation.SRV6, l4, ETHERTYPE_TEB);
            }
            case PROTO_GRE -> {
                if (atDepthLimit(cfg, p)) {
                    return OK;
                }
                return gre(s, b, l4, p);
            }
            case PROTO_UDP -> {
                int port = u16(s, b + l4 + 2); // transport() returned OK: the 8-byte UDP header is there
                boolean vxlan = cfg.isVxlanPort(port);
                if (!vxlan && !cfg.isGenevePort(port) || atDepthLimit(cfg, p)) {
                    return OK;
                }
                return vxlan ? vxlan(s, b, l4 + UDP_HEADER, p) : geneve(s, b, l4 + UDP_HEADER, p);
            }
            default -> {
                return OK;
            }
        }
    }

    private static boolean atDepthLimit(Config cfg, ParsedPacket p) {
        if (p.tunnelDepth >= cfg.maxTunnelDepth) {
            p.tunnelLimitReached = true;
            return true;
        }
        return false;
    }

    private static int enter(ParsedPacket p, Encapsulation kind, int pos, int type) {
        p.encapsulations[p.tunnelDepth++] = kind;
        p.encapsulation = p.encapsulations[0];
        p.nextPos = pos;
        p.nextType = type;
        return FOLLOW;
    }

    /** GRE header at {@code pos}: RFC 2784 §2.1 with RFC 2890 §2 key and sequence number. */
    private static int gre(Object s, long b, int pos, ParsedPacket p) {
        int end = p.scrEnd;
        int shortStatus = p.scrEndIsCapture ? TRUNCATED : MALFORMED;
        if (end - pos < GRE_MIN_HEADER) {
            return stop(p, shortStatus, pos, ParsedPacket.Layer.GRE);
        }
        int flags = u16(s, b + pos);
        int protocolType = u16(s, b + pos + 2);
        int version = flags & 7;
        boolean checksum = (flags & 0x8000) != 0;
        boolean routing = (flags & 0x4000) != 0; // RFC 1701 (deprecated by RFC 2784): SREs follow
        boolean key = (flags & 0x2000) != 0;
        boolean sequence = (flags & 0x1000) != 0;
        boolean ack = version == 1 && (flags & 0x0080) != 0; // PPTP, RFC 2637 §4.1
        int keyAt = pos + GRE_MIN_HEADER + (checksum || routing ? 4 : 0);
        int sequenceAt = keyAt + (key ? 4 : 0);
        int headerEnd = sequenceAt + (sequence ? 4 : 0) + (ack ? 4 : 0);
        if (end - pos < headerEnd - pos) {
            return stop(p, shortStatus, pos, ParsedPacket.Layer.GRE);
        }
        if (!p.grePresent) {
            p.grePresent = true;
            p.greProtocol = protocolType;
            p.greChecksumPresent = checksum;
            p.greKeyPresent = key;
            p.greSequencePresent = sequence;
            p.greKey = key ? u32(s, b + keyAt) & 0xFFFF_FFFFL : 0;
            p.greSequence = sequence ? u32(s, b + sequenceAt) & 0xFFFF_FFFFL : 0;
        }
        if (version != 0 || routing) {
            return OK;
        }
        int type = protocolType;
        int next = headerEnd;
        if (type == ETHERTYPE_CISCO_METADATA) {
            if (end - next < CISCO_METADATA_HEADER) {
                return stop(p, shortStatus, next, ParsedPacket.Layer.GRE);
            }
            type = u16(s, b + next);
            next += CISCO_METADATA_HEADER;
        }
        if (type != ETHERTYPE_IPV4 && type != ETHERTYPE_IPV6 && type != ETHERTYPE_TEB) {
            return OK; // ERSPAN, MPLS, keepalive, CDP, ...: outer view only
        }
        return enter(p, Encapsulation.GRE, next, type);
    }

    /** VXLAN header at {@code pos} (RFC 7348 §5): flags(8) reserved(24) VNI(24) reserved(8). */
    private static int vxlan(Object s, long b, int pos, ParsedPacket p) {
        if (p.scrEnd - pos < VXLAN_HEADER) {
            return stop(p, p.scrEndIsCapture ? TRUNCATED : MALFORMED, pos, ParsedPacket.Layer.VXLAN);
        }
        if ((u8(s, b + pos) & 0x08) == 0) {
            return OK; // I flag clear: no valid VNI, dropped by receivers (RFC 7348 §5)
        }
        if (p.vxlanVni < 0) {
            p.vxlanVni = u32(s, b + pos + 4) >>> 8;
        }
        return enter(p, Encapsulation.VXLAN, pos + VXLAN_HEADER, ETHERTYPE_TEB);
    }

    /**
     * Geneve header at {@code pos} (RFC 8926 §3.4): Ver(2) Opt Len(6) O C Rsvd(6), Protocol
     * Type(16), VNI(24) Reserved(8), then Opt Len × 4 bytes of options.
     */
    private static int geneve(Object s, long b, int pos, ParsedPacket p) {
        int end = p.scrEnd;
        int shortStatus = p.scrEndIsCapture ? TRUNCATED : MALFORMED;
        if (end - pos < GENEVE_MIN_HEADER) {
            return stop(p, shortStatus, pos, ParsedPacket.Layer.GENEVE);
        }
        int first = u8(s, b + pos);
        if (first >>> 6 != 0) {
            return OK; // unknown version: must be dropped (RFC 8926 §3.4)
        }
        int optionsLength = (first & 0x3F) << 2;
        int type = u16(s, b + pos + 2);
        if (p.geneveVni < 0) {
            p.geneveVni = u32(s, b + pos + 4) >>> 8;
            p.geneveOptionsLength = optionsLength;
        }
        if (type != ETHERTYPE_IPV4 && type != ETHERTYPE_IPV6 && type != ETHERTYPE_TEB) {
            return OK;
        }
        if (end - pos < GENEVE_MIN_HEADER + optionsLength) {
            return stop(p, shortStatus, pos, ParsedPacket.Layer.GENEVE);
        }
        return enter(p, Encapsulation.GENEVE, pos + GENEVE_MIN_HEADER + optionsLength, type);
    }

    // ---- field setters: the outer view, or the inner view once a tunnel was entered ---------------

    private static void setIp(ParsedPacket p, boolean in, int version, int tos, int totalLength, int ttl) {
        if (in) {
            p.innerIpVersion = version;
            p.innerTos = tos;
            p.innerIpTotalLength = totalLength;
            p.innerTtl = ttl;
        } else {
            p.ipVersion = version;
            p.tos = tos;
            p.ipTotalLength = totalLength;
            p.ttl = ttl;
        }
    }

    private static void setAddresses(ParsedPacket p, boolean in, long srcHi, long srcLo, long dstHi, long dstLo) {
        if (in) {
            p.innerSrcAddrHi = srcHi;
            p.innerSrcAddrLo = srcLo;
            p.innerDstAddrHi = dstHi;
            p.innerDstAddrLo = dstLo;
        } else {
            p.srcAddrHi = srcHi;
            p.srcAddrLo = srcLo;
            p.dstAddrHi = dstHi;
            p.dstAddrLo = dstLo;
        }
    }

    private static void setFragment(ParsedPacket p, boolean in, boolean fragment, int offset, boolean more) {
        if (in) {
            p.innerIsFragment = fragment;
            p.innerFragmentOffset = offset;
            p.innerMoreFragments = more;
        } else {
            p.isFragment = fragment;
            p.fragmentOffset = offset;
            p.moreFragments = more;
        }
    }

    private static void setProtocol(ParsedPacket p, boolean in, int protocol) {
        if (in) {
            p.innerProtocol = protocol;
        } else {
            p.protocol = protocol;
        }
    }

    private static void setL4Offset(ParsedPacket p, boolean in, int offset) {
        if (in) {
            p.innerL4Offset = offset;
        } else {
            p.l4Offset = offset;
        }
    }

    private static void setPorts(ParsedPacket p, boolean in, int src, int dst) {
        if (in) {
            p.innerSrcPort = src;
            p.innerDstPort = dst;
            p.innerPortsPresent = true;
        } else {
            p.srcPort = src;
            p.dstPort = dst;
            p.portsPresent = true;
        }
    }

    private static int stop(ParsedPacket p, int status, int offset, ParsedPacket.Layer layer) {
        p.status = status;
        p.errorOffset = offset;
        p.errorLayer = layer;
        p.errorDepth = p.tunnelDepth;
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
