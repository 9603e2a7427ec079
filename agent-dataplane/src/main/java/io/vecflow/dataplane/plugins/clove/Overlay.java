package io.vecflow.dataplane.plugins.clove;

import io.vecflow.dataplane.graph.mem.Bytes;
import io.vecflow.dataplane.plugins.clove.path.PathDiscovery;
import io.vecflow.dataplane.plugins.lb.encap.Encap;
import java.lang.foreign.MemorySegment;

/**
 * The CLOVE overlay's tunnel headers, written and read in place in a packet buffer: Geneve (RFC 8926) and VXLAN
 * (RFC 7348) over IPv4 and UDP. The outer UDP source port is the ECMP path key (CLOVE, docs/load-balancing.md §4): the
 * fabric's multipath hash over the outer 5-tuple sends each source port down one path, so choosing a port chooses a
 * path. One instance per worker; every method is allocation-free.
 *
 * <p><b>Encapsulation</b> ({@link #encap}). The frame at {@code bufStart} with its inner IP header at {@code l3Off}
 * becomes
 * <pre>
 *   Ethernet 14 | IPv4 20 | UDP 8 | Geneve 8 + options | inner IP packet            (geneve: Protocol Type
 * 0x0800/0x86DD)   Ethernet 14 | IPv4 20 | UDP 8 | VXLAN 8 | inner Ethernet 14 | inner IP packet   (vxlan: the frame's
 * own MACs)
 * </pre>
 * As {@link Encap}, the headers are prepended into the buffer's headroom when it has room for them ({@link #shift()}),
 * else the inner packet is moved forward; it is carried up to its own IP length; the outer MACs are left for the output
 * path's rewrite. Outer IPv4: DSCP copied from the inner packet; ECN per RFC 6040 §4.1 (normal mode: copied) except
 * that with {@code ectIfNotEct} a Not-ECT inner packet gets ECT(0) on the outer header — CLOVE-ECN needs the fabric to
 * mark the tunnel whatever the inner transport does; DF set, Identification 0 (RFC 6864 §4.1, atomic), TTL as
 * configured. Outer UDP: checksum 0 (RFC 7348 §5, RFC 8926 §3.3 allow it over IPv4), destination port {@link
 * #GENEVE_PORT} or {@link #VXLAN_PORT}.
 *
 * <p><b>CLOVE-ECN feedback option</b> (Geneve only): the receiving endpoint relays, per outer source port, how many
 * packets it saw with CE on the outer header, in reverse traffic to the sender — docs/load-balancing.md §4 "the
 * receiving vSwitch relays per-path marks back in reverse traffic". It travels as one Geneve option (RFC 8926 §3.5) of
 * class {@link #FEEDBACK_OPTION_CLASS} (the experimental range 0xFF00–0xFFFF, IANA "Geneve Option Class"), type
 * {@link #FEEDBACK_OPTION_TYPE} (critical bit clear: other endpoints skip it), with 1–{@link #MAX_FEEDBACK} entries of
 * 4 bytes: outer source port (u16), CE-marked packets since the last relay (u16, saturating).
 *
 * <p><b>Decapsulation</b> ({@link #decap}): checks the outer IPv4/UDP (IHL, lengths, protocol 17), the Geneve version
 * (0) and option lengths, or the VXLAN I flag; refuses ({@link #ERR_REFUSED}) another VNI, a Geneve control packet (O
 * bit) and an unknown option with the critical bit; walks at most {@link #MAX_OPTIONS} options, records the outer
 * source address, source port, ECN and VNI and any feedback entries, checks the inner IP header as ip4-input /
 * ip6-input would (the inner packet goes straight to ip4-lookup / ip6-lookup: IHL, total length, header checksum; IPv6
 * payload length), and moves the inner IP packet, up to its own length, to offset 14 (EtherType set). RFC 6040 §4.2: an
 * outer ECT(1) makes an ECT(0) inner packet ECT(1); on CE, an ECT inner packet becomes CE (IPv4 header checksum
 * updated, RFC 1624); a Not-ECT inner packet is left unchanged ({@link #innerCe} −1) for the caller to decide: in
 * CLOVE-ECN mode the mark was put there for the tunnel's own feedback (ECT(0) set by {@code ectIfNotEct}), not for the
 * inner transport, and the packet goes on; in edge-flowlet mode {@code CloveNode} drops it, as RFC 6040 §4.2 says.
 */
public final class Overlay {
    /** IANA UDP port of Geneve (RFC 8926 §3.3). */
    public static final int GENEVE_PORT = 6081;
    /** IANA UDP port of VXLAN (RFC 7348 §5). */
    public static final int VXLAN_PORT = 4789;
    /** Outer IPv4 + UDP bytes. */
    public static final int OUTER_IP_UDP = 28;
    /** Geneve or VXLAN base header bytes. */
    public static final int TUNNEL_HEADER = 8;
    /** Geneve option class of the CLOVE-ECN feedback option (RFC 8926 §3.5; experimental range). */
    public static final int FEEDBACK_OPTION_CLASS = 0xFF56;
    /** Geneve option type of the feedback option (high bit 0: not critical). */
    public static final int FEEDBACK_OPTION_TYPE = 0x01;
    /** Most feedback entries in one packet. */
    public static final int MAX_FEEDBACK = 4;
    /** Most Geneve options walked in one packet. */
    public static final int MAX_OPTIONS = 16;
    /** Transparent Ethernet Bridging (VXLAN's and Geneve's Ethernet payload), IEEE EtherType. */
    public static final int ETHERTYPE_TEB = 0x6558;

    /** Errors ({@code ERR_*} of {@link Encap}) and the decap-only ones. */
    public static final int ERR_TRUNCATED = Encap.ERR_TRUNCATED, ERR_NOT_IP = Encap.ERR_NOT_IP,
            ERR_NO_ROOM = Encap.ERR_NO_ROOM, ERR_MALFORMED = Encap.ERR_MALFORMED;
    /** Decap: not UDP to our tunnel port (the caller passes it on, it is not an error of the packet). */
    public static final int NOT_TUNNEL = -5;
    /**
     * Decap: a probe (docs/load-balancing.md §4 path discovery; {@link PathDiscovery#udpLength}): a UDP payload shorter
     * than a tunnel header, or of at most {@link PathDiscovery#MAX_TTL} bytes whose first 8 are zero.
     */
    public static final int PROBE = -6;
    /**
     * Decap: a well-formed tunnel packet this endpoint must not forward — another VNI (RFC 7348 §4, RFC 8926 §3.4), a
     * Geneve control packet (O bit, RFC 8926 §3.4) or a Geneve option it does not know with the critical bit set (RFC
     * 8926 §3.5); {@link #errorOffset()} names the field.
     */
    public static final int ERR_REFUSED = -7;

    private final boolean geneve;
    private final int port;
    private final int bufferBytes;
    private final int ttl;
    private final int srcIpv4;
    private final int vni;

    // decap results, valid after a successful decap()
    private int outerSrc, outerSrcPort, outerEcn, lastVni, feedbackCount, innerCe;
    private final int[] feedbackPorts = new int[MAX_FEEDBACK];
    private final int[] feedbackMarks = new int[MAX_FEEDBACK];
    private int errorOffset;
    /** Bytes the frame start moved by the last successful {@link #encap} (≤ 0). */
    private int shift;

    /**
     * @param geneve      true for Geneve (UDP 6081), false for VXLAN (UDP 4789)
     * @param bufferBytes bytes per packet buffer (frames must stay within)
     * @param ttl         outer TTL, 1..255
     * @param srcIpv4     this tunnel endpoint's IPv4 address (big-endian u32 in an int)
     * @param vni         the virtual network identifier, 0..2<sup>24</sup>−1
     * @throws IllegalArgumentException naming the bad argument
     */
    public Overlay(boolean geneve, int bufferBytes, int ttl, int srcIpv4, int vni) {
        Encap.checkBufferAndTtl("overlay", bufferBytes, ttl);
        if (vni < 0 || vni > 0xFF_FFFF) {
            throw new IllegalArgumentException("VNI must be in [0, 16777215], got " + vni);
        }
        this.geneve = geneve;
        this.port = geneve ? GENEVE_PORT : VXLAN_PORT;
        this.bufferBytes = bufferBytes;
        this.ttl = ttl;
        this.srcIpv4 = srcIpv4;
        this.vni = vni;
    }

    /** @return the tunnel's UDP destination port */
    public int udpPort() {
        return port;
    }

    /**
     * @return how many bytes the frame's start moved in the last successful {@link #encap}: negative when the headers
     *         were prepended into the headroom (the caller moves its frame start by this much,
     *         {@code BufferPool.advance}), 0 when the inner packet was moved forward instead
     */
    public int shift() {
        return shift;
    }

    /** @return true for Geneve */
    public boolean geneve() {
        return geneve;
    }

    /**
     * Bytes the encapsulation adds to the inner IP packet: 36 + 4 + 4·entries with feedback (Geneve), 36 (Geneve
     * without), 50 (VXLAN, with the inner Ethernet header).
     */
    public int overhead(int feedbackEntries) {
        if (!geneve) {
            return OUTER_IP_UDP + TUNNEL_HEADER + 14;
        }
        return OUTER_IP_UDP + TUNNEL_HEADER + (feedbackEntries > 0 ? 4 + 4 * feedbackEntries : 0);
    }

    /**
     * Encapsulates the inner IP packet.
     *
     * @param seg          the buffer segment
     * @param bufStart     the frame's first byte in {@code seg}
     * @param headroom     bytes free in front of {@code bufStart} ({@code BufferPool.headroom}); when the headers fit
     *                     there they are prepended and the inner packet stays put, else it is moved forward (0 =
     *                     always move). {@link #shift()} tells where the frame starts now
     * @param frameLen     the frame's length, bytes
     * @param l3Off        offset of the inner IP header in the frame
     * @param dstIpv4      the remote tunnel endpoint (big-endian u32)
     * @param srcPort      the outer UDP source port: the path (0..65535)
     * @param ectIfNotEct  give a Not-ECT inner packet ECT(0) on the outer header (CLOVE-ECN)
     * @param fbPorts      feedback entries' source ports (Geneve only; ignored for VXLAN)
     * @param fbMarks      feedback entries' CE counts (saturated to 65535 here)
     * @param fbCount      number of feedback entries, 0..{@link #MAX_FEEDBACK}
     * @return the new frame length, or an {@code ERR_*} code (frame untouched)
     */
    public int encap(MemorySegment seg, long bufStart, int headroom, int frameLen, int l3Off, int dstIpv4, int srcPort,
            boolean ectIfNotEct, int[] fbPorts, int[] fbMarks, int fbCount) {
        long p = bufStart + l3Off;
        int avail = frameLen - l3Off;
        if (avail < 20) {
            errorOffset = 0;
            return ERR_TRUNCATED;
        }
        int version = Bytes.u8(seg, p) >>> 4;
        int len = Encap.innerLength(seg, p, avail);
        if (len < 0) {
            errorOffset = Encap.innerErrorOffset(len, version);
            return len;
        }
        int tos = Encap.innerTrafficClass(seg, p, version);
        int entries = geneve ? Math.max(0, Math.min(fbCount, MAX_FEEDBACK)) : 0;
        int overhead = overhead(entries);
        int newL3 = Encap.ETHERNET_HEADER + overhead;
        if (newL3 + len > bufferBytes) {
            errorOffset = version == 4 ? 2 : 4;
            return ERR_NO_ROOM;
        }
        long macHi = 0, macLo = 0;
        if (!geneve) {
            macHi = Bytes.i64(seg, bufStart);
            macLo = Bytes.i32(seg, bufStart + 8) & 0xFFFF_FFFFL;
        }
        int move = newL3 - l3Off; // bytes the headers need in front of the inner packet beyond what is there
        if (move > 0 && move <= headroom) {
            shift = -move; // prepended into the headroom (VPP's vlib_buffer_advance): the inner packet stays put
        } else {
            shift = 0;
            MemorySegment.copy(seg, p, seg, bufStart + newL3, len);
        }
        bufStart += shift; // from here on: the output frame's first byte
        if ((tos & 3) == 0 && ectIfNotEct) {
            tos |= 2; // ECT(0)
        }
        long o = bufStart + Encap.ETHERNET_HEADER;
        int total = overhead + len;
        Bytes.put32(seg, o, 0x4500_0000 | tos << 16 | total);
        Bytes.put32(seg, o + 4, 0x4000); // ID 0, DF
        Bytes.put32(seg, o + 8, ttl << 24 | 17 << 16);
        Bytes.put32(seg, o + 12, srcIpv4);
        Bytes.put32(seg, o + 16, dstIpv4);
        Bytes.put16(seg, o + 10, Bytes.ipv4HeaderChecksum(seg, o));
        long u = o + 20;
        Bytes.put16(seg, u, srcPort);
        Bytes.put16(seg, u + 2, port);
        Bytes.put16(seg, u + 4, total - 20);
        Bytes.put16(seg, u + 6, 0);
        long t = u + 8;
        if (geneve) {
            int optWords = entries > 0 ? 1 + entries : 0;
            Bytes.put32(seg, t, optWords << 24 | (version == 4 ? Encap.ETHERTYPE_IPV4 : Encap.ETHERTYPE_IPV6));
            Bytes.put32(seg, t + 4, vni << 8);
            if (entries > 0) {
                Bytes.put32(seg, t + 8, FEEDBACK_OPTION_CLASS << 16 | FEEDBACK_OPTION_TYPE << 8 | entries);
                for (int i = 0; i < entries; i++) {
                    Bytes.put32(seg, t + 12 + 4L * i, (fbPorts[i] & 0xFFFF) << 16 | Math.min(fbMarks[i], 0xFFFF));
                }
            }
        } else {
            Bytes.put32(seg, t, 0x0800_0000); // I flag
            Bytes.put32(seg, t + 4, vni << 8);
            long e = t + 8;
            Bytes.put64(seg, e, macHi);
            Bytes.put32(seg, e + 8, (int) macLo);
            Bytes.put16(seg, e + 12, version == 4 ? Encap.ETHERTYPE_IPV4 : Encap.ETHERTYPE_IPV6);
        }
        Bytes.put16(seg, bufStart + 12, Encap.ETHERTYPE_IPV4);
        return newL3 + len;
    }

    /**
     * Decapsulates a tunnelled packet addressed to {@code localIpv4}, UDP {@link #udpPort()}.
     *
     * @param seg       the buffer segment
     * @param bufStart  the frame's first byte
     * @param frameLen  frame length, bytes
     * @param l3Off     offset of the outer IPv4 header
     * @param localIpv4 this endpoint's address (big-endian u32)
     * @return the new frame length (inner IP packet at 14, EtherType set), {@link #NOT_TUNNEL} (not IPv4/UDP to this
     *         endpoint's tunnel port; frame untouched), {@link #PROBE} (a path-discovery probe, see
     *         {@link #PROBE}), or an {@code ERR_*} code with {@link #errorOffset()} (offset from the outer IP
     *         header) naming the bad field
     */
    public int decap(MemorySegment seg, long bufStart, int frameLen, int l3Off, int localIpv4) {
        long p = bufStart + l3Off;
        int avail = frameLen - l3Off;
        feedbackCount = 0;
        if (avail < 20 || (Bytes.u8(seg, p) >>> 4) != 4) {
            return NOT_TUNNEL;
        }
        int ihl = (Bytes.u8(seg, p) & 0xF) * 4;
        if (Bytes.u8(seg, p + 9) != 17 || Bytes.i32(seg, p + 16) != localIpv4) {
            return NOT_TUNNEL;
        }
        int total = Bytes.u16(seg, p + 2);
        if (ihl < 20 || total < ihl + 8 || total > avail) {
            errorOffset = ihl < 20 ? 0 : 2;
            return ihl + 8 > avail ? ERR_TRUNCATED : ERR_MALFORMED;
        }
        long u = p + ihl;
        if ((Bytes.u16(seg, p + 6) & 0x3FFF) != 0) {
            // MF or a fragment offset: without reassembly a fragment is never read as a tunnel header (RFC 7348
            // §4.3: the destination VTEP may discard VXLAN fragments; the same holds for Geneve here)
            errorOffset = 6;
            return ERR_MALFORMED;
        }
        if (Bytes.u16(seg, u + 2) != port) {
            return NOT_TUNNEL;
        }
        int udpLen = Bytes.u16(seg, u + 4);
        if (udpLen < 8 || udpLen > total - ihl) {
            errorOffset = ihl + 4;
            return ERR_MALFORMED;
        }
        outerSrc = Bytes.i32(seg, p + 12);
        outerSrcPort = Bytes.u16(seg, u);
        outerEcn = Bytes.u8(seg, p + 1) & 3;
        long t = u + 8;
        if (udpLen < 8 + TUNNEL_HEADER || udpLen <= 8 + PathDiscovery.MAX_TTL && Bytes.i64(seg, t) == 0) {
            // a probe's payload is its TTL in zero bytes (PathDiscovery.udpLength): shorter than a tunnel header up
            // to TTL 7, and from TTL 8 an all-zero header, which no valid Geneve (Protocol Type 0) or VXLAN (I flag
            // clear) packet has
            return PROBE;
        }
        int end = ihl + udpLen; // from p
        int innerAt; // offset of the inner IP packet from p
        int innerType;
        if (geneve) {
            int h = Bytes.u8(seg, t);
            if (h >>> 6 != 0) {
                errorOffset = ihl + 8;
                return ERR_MALFORMED; // version
            }
            int optBytes = (h & 0x3F) * 4;
            if ((Bytes.u8(seg, t + 1) & 0x80) != 0) {
                errorOffset = ihl + 8 + 1;
                return ERR_REFUSED; // O bit: a control packet, whose payload is never forwarded
            }
            innerType = Bytes.u16(seg, t + 2);
            lastVni = Bytes.i32(seg, t + 4) >>> 8;
            if (lastVni != vni) {
                errorOffset = ihl + 8 + 4;
                return ERR_REFUSED;
            }
            int o = ihl + 8 + TUNNEL_HEADER;
            int optEnd = o + optBytes;
            if (optEnd > end) {
                errorOffset = ihl + 8;
                return ERR_MALFORMED; // Opt Len past the datagram
            }
            for (int n = 0; o < optEnd; n++) {
                if (n == MAX_OPTIONS || o + 4 > optEnd) {
                    errorOffset = o;
                    return ERR_MALFORMED;
                }
                int cls = Bytes.u16(seg, p + o), type = Bytes.u8(seg, p + o + 2);
                int words = Bytes.u8(seg, p + o + 3) & 0x1F;
                if (o + 4 + 4 * words > optEnd) {
                    errorOffset = o + 3;
                    return ERR_MALFORMED;
                }
                if (cls == FEEDBACK_OPTION_CLASS && type == FEEDBACK_OPTION_TYPE) {
                    for (int i = 0; i < words && feedbackCount < MAX_FEEDBACK; i++) {
                        int e = Bytes.i32(seg, p + o + 4 + 4L * i);
                        feedbackPorts[feedbackCount] = e >>> 16;
                        feedbackMarks[feedbackCount++] = e & 0xFFFF;
                    }
                } else if ((type & 0x80) != 0) {
                    errorOffset = o + 2;
                    return ERR_REFUSED; // an option we do not know, marked critical (RFC 8926 §3.5.1)
                }
                o += 4 + 4 * words;
            }
            innerAt = optEnd;
        } else {
            if ((Bytes.u8(seg, t) & 0x08) == 0) {
                errorOffset = ihl + 8;
                return ERR_MALFORMED; // VXLAN I flag clear: no VNI
            }
            lastVni = Bytes.i32(seg, t + 4) >>> 8;
            if (lastVni != vni) {
                errorOffset = ihl + 8 + 4;
                return ERR_REFUSED;
            }
            innerAt = ihl + 8 + TUNNEL_HEADER + 14;
            if (innerAt > end) {
                errorOffset = ihl + 8 + TUNNEL_HEADER;
                return ERR_TRUNCATED;
            }
            innerType = ETHERTYPE_TEB;
        }
        if (innerType == ETHERTYPE_TEB) {
            if (geneve) {
                innerAt += 14;
                if (innerAt > end) {
                    errorOffset = innerAt - 14;
                    return ERR_TRUNCATED;
                }
            }
            innerType = Bytes.u16(seg, p + innerAt - 2);
        }
        int innerLen = end - innerAt;
        long q = p + innerAt;
        if (innerType == Encap.ETHERTYPE_IPV4) {
            if (innerLen < 20 || (Bytes.u8(seg, q) >>> 4) != 4) {
                errorOffset = innerAt;
                return innerLen < 20 ? ERR_TRUNCATED : ERR_MALFORMED;
            }
            // the inner packet skips ip4-input: its checks here (RFC 791; RFC 1812 §5.2.2)
            int innerIhl = (Bytes.u8(seg, q) & 0xF) * 4;
            int innerTotal = Bytes.u16(seg, q + 2);
            if (innerIhl < 20) {
                errorOffset = innerAt;
                return ERR_MALFORMED;
            }
            if (innerTotal < innerIhl || innerTotal > innerLen) {
                errorOffset = innerAt + 2;
                return ERR_MALFORMED;
            }
            if (Bytes.fold(Bytes.sum(seg, q, innerIhl, 0)) != 0) {
                errorOffset = innerAt + 10;
                return ERR_MALFORMED;
            }
            innerLen = innerTotal; // trailing bytes of the tunnel payload are not part of the packet
        } else if (innerType == Encap.ETHERTYPE_IPV6) {
            if (innerLen < 40 || (Bytes.u8(seg, q) >>> 4) != 6) {
                errorOffset = innerAt;
                return innerLen < 40 ? ERR_TRUNCATED : ERR_MALFORMED;
            }
            // the inner packet skips ip6-input: its check here (RFC 8200 §3)
            int payload = Bytes.u16(seg, q + 4);
            if (40 + payload > innerLen) {
                errorOffset = innerAt + 4;
                return ERR_MALFORMED;
            }
            innerLen = 40 + payload;
        } else {
            errorOffset = innerAt - 2;
            return ERR_NOT_IP;
        }
        innerCe = 0;
        if (outerEcn == 3) {
            applyCe(seg, q, innerType == Encap.ETHERTYPE_IPV4);
        } else if (outerEcn == 1) {
            applyEct1(seg, q, innerType == Encap.ETHERTYPE_IPV4);
        }
        MemorySegment.copy(seg, q, seg, bufStart + Encap.ETHERNET_HEADER, innerLen);
        Bytes.put16(seg, bufStart + 12, innerType);
        return Encap.ETHERNET_HEADER + innerLen;
    }

    /** RFC 6040 §4.2: outer CE onto an ECT inner header (1), Not-ECT inner left (−1), inner already CE (0). */
    private void applyCe(MemorySegment seg, long q, boolean v4) {
        if (v4) {
            int tos = Bytes.u8(seg, q + 1);
            int ecn = tos & 3;
            if (ecn == 0) {
                innerCe = -1;
            } else if (ecn != 3) {
                int oldWord = Bytes.u16(seg, q);
                Bytes.put8(seg, q + 1, tos | 3);
                int newWord = Bytes.u16(seg, q);
                // RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m')
                int sum = (~Bytes.u16(seg, q + 10) & 0xFFFF) + (~oldWord & 0xFFFF) + newWord;
                sum = (sum & 0xFFFF) + (sum >>> 16);
                sum = (sum & 0xFFFF) + (sum >>> 16);
                Bytes.put16(seg, q + 10, ~sum & 0xFFFF);
                innerCe = 1;
            }
        } else {
            int w = Bytes.i32(seg, q);
            int ecn = w >>> 20 & 3;
            if (ecn == 0) {
                innerCe = -1;
            } else if (ecn != 3) {
                Bytes.put32(seg, q, w | 3 << 20);
                innerCe = 1;
            }
        }
    }

    /** RFC 6040 §4.2: an outer ECT(1) turns an ECT(0) inner header into ECT(1); other inner codepoints stay. */
    private static void applyEct1(MemorySegment seg, long q, boolean v4) {
        if (v4) {
            int tos = Bytes.u8(seg, q + 1);
            if ((tos & 3) == 2) {
                int oldWord = Bytes.u16(seg, q);
                Bytes.put8(seg, q + 1, tos & 0xFC | 1);
                int newWord = Bytes.u16(seg, q);
                // RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m')
                int sum = (~Bytes.u16(seg, q + 10) & 0xFFFF) + (~oldWord & 0xFFFF) + newWord;
                sum = (sum & 0xFFFF) + (sum >>> 16);
                sum = (sum & 0xFFFF) + (sum >>> 16);
                Bytes.put16(seg, q + 10, ~sum & 0xFFFF);
            }
        } else {
            int w = Bytes.i32(seg, q);
            if ((w >>> 20 & 3) == 2) {
                Bytes.put32(seg, q, w & ~(3 << 20) | 1 << 20);
            }
        }
    }

    /** @return the last decap's outer IPv4 source (the remote endpoint), big-endian u32 */
    public int outerSource() {
        return outerSrc;
    }

    /** @return the last decap's outer UDP source port (the path the packet took) */
    public int outerSourcePort() {
        return outerSrcPort;
    }

    /** @return the last decap's outer ECN codepoint (3 = CE) */
    public int outerEcn() {
        return outerEcn;
    }

    /** @return the last decap's VNI */
    public int vni() {
        return lastVni;
    }

    /** @return 1 if the last decap copied CE onto an ECT inner packet, −1 if the inner packet was Not-ECT, else 0 */
    public int innerCe() {
        return innerCe;
    }

    /** @return feedback entries found by the last decap, 0..{@link #MAX_FEEDBACK} */
    public int feedbackCount() {
        return feedbackCount;
    }

    /** @return entry {@code i}'s outer source port */
    public int feedbackPort(int i) {
        return feedbackPorts[i];
    }

    /** @return entry {@code i}'s CE-marked packet count */
    public int feedbackMarks(int i) {
        return feedbackMarks[i];
    }

    /** @return offset (from the outer/inner IP header) of the field that made the last call fail */
    public int errorOffset() {
        return errorOffset;
    }
}
