package io.vecflow.dataplane.plugins.lb.encap;

import io.vecflow.dataplane.graph.mem.Bytes;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import io.vecflow.dataplane.plugins.srlb.state.SrlbSid;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * LB encapsulations, written in place into a packet buffer: GRE over IPv4/IPv6 (RFC 2784), IP-in-IPv4 (RFC 2003; IPv6
 * inner per RFC 4213 §3.5), IP-in-IPv6 (RFC 2473), SRv6 H.Encaps with a one-segment SRH (RFC 8986 §5.1, RFC 8754), and
 * the SRLB hunting SRH inserted into an IPv6 packet (docs/load-balancing.md §3). One instance per worker (holds the
 * outer source and TTL); every method is allocation-free.
 *
 * <p><b>Bytes.</b> Each LB encapsulation ({@code gre4}, {@code gre6}, {@code ipip4}, {@code ipip6},
 * {@code srv6Encaps}) takes the Ethernet frame at {@code bufStart} ({@code BufferPool}: {@code pool.data()},
 * {@code pool.offset(buffer)}, {@code pool.length[buffer]}), the bytes of {@code headroom} free in front of it
 * ({@code pool.headroom(buffer)}; 0 = none) and the offset of its IP header {@code l3Off} (after any VLAN tags), and
 * returns the new frame length, or a negative {@code ERR_*} code (nothing written). The output frame starts at
 * {@code bufStart + }{@link #shift()} with an untagged Ethernet header: the 12 MAC bytes are not set (the L2 rewrite
 * of the output path sets them) and the EtherType is set for the outer header; the outer IP header starts at offset
 * 14 of the output frame. The inner packet is carried up to its own IP length (IPv4 Total Length, IPv6 40 + Payload
 * Length), so Ethernet padding is not tunnelled; a length of 0 (jumbogram, TSO) is refused. The output frame is at
 * most {@code bufferBytes} long ({@code 14 + overhead + inner length}; longer: {@link #ERR_NO_ROOM}).
 *
 * <p><b>Headroom: we prepend.</b> When the headers fit into the headroom in front of the frame, they are written
 * there and the inner packet stays where it is (VPP's {@code vlib_buffer_advance} into the 128 bytes of pre-data):
 * no copy, whatever the packet's size. Otherwise (no headroom given, or not enough) the inner IP packet is moved
 * forward by (new header bytes − old L2 bytes) with one overlapping {@link MemorySegment#copy} (memmove) and the
 * frame keeps its start. The JMH {@code EncapBenchmark} measures both at 64- and 1514-byte frames (bench/results/).
 *
 * <p><b>Outer header fields.</b> IPv4 (RFC 791): no options, TTL = {@link #ttl()} (default {@link #DEFAULT_TTL} = 64,
 * the Linux {@code ip_default_ttl}; VPP lb uses 128, docs/load-balancing.md §2 — 64 is enough for any data-centre path
 * and keeps the outer TTL distinguishable from VPP's in captures), DSCP and ECN copied from the inner packet (RFC 2003
 * §3.1, RFC 6040 normal mode), DF copied from an IPv4 inner packet and Identification copied with it (RFC 2003 §3.1),
 * DF set and Identification 0 for an IPv6 inner packet (RFC 4213 §3.2: IPv6 is never fragmented on path; RFC 6864
 * §4.1 allows ID 0 for atomic datagrams). IPv6 (RFC 8200): traffic class copied from the inner packet, hop limit =
 * {@link #ttl()}, flow label = 20 bits of the flow hash (RFC 6438 §3: the tunnel entry sets a label from the inner
 * flow so that ECMP spreads tunnelled flows). The outer source is configured. MTU checks are the caller's
 * ({@link IcmpTooBig}).
 */
public final class Encap {
    /** A plain 8-byte copy unit (native order: bytes moved as they are, no byte swap). */
    private static final ValueLayout.OfLong RAW64 = ValueLayout.JAVA_LONG_UNALIGNED;
    /** Default outer TTL / hop limit. */
    public static final int DEFAULT_TTL = 64;
    /** Bytes of the untagged Ethernet header written in front. */
    public static final int ETHERNET_HEADER = 14;
    /** Bytes added to the inner IP packet: outer IPv4 (20) + GRE (4). */
    public static final int GRE4_OVERHEAD = 24;
    /** Outer IPv6 (40) + GRE (4). */
    public static final int GRE6_OVERHEAD = 44;
    /** Outer IPv4 (20). */
    public static final int IPIP4_OVERHEAD = 20;
    /** Outer IPv6 (40). */
    public static final int IPIP6_OVERHEAD = 40;
    /** Outer IPv6 (40) + SRH with one segment (8 + 16). */
    public static final int SRV6_ENCAPS_OVERHEAD = 64;
    /** Most SRLB candidates in one SRH: the SID OFFSET nibble reaches 15 = 2 + 13. */
    public static final int SRLB_MAX_CANDIDATES = 13;

    /** The bytes end inside a header. */
    public static final int ERR_TRUNCATED = -1;
    /** The inner packet is not IPv4/IPv6 (or not IPv6 where IPv6 is needed). */
    public static final int ERR_NOT_IP = -2;
    /** The result would not fit in the buffer. */
    public static final int ERR_NO_ROOM = -3;
    /** A length field contradicts the frame (IP length 0, larger than the frame, smaller than the header). */
    public static final int ERR_MALFORMED = -4;

    /** EtherTypes (IEEE 802 numbers): the GRE Protocol Type of each inner packet (RFC 2784 §2.4). */
    public static final int ETHERTYPE_IPV4 = 0x0800, ETHERTYPE_IPV6 = 0x86DD;

    private final int bufferBytes;
    private final int ttl;
    private final int srcIpv4;
    private final long srcIpv6Hi, srcIpv6Lo;

    /** Offset (from the L3 header) of the field that made the last call fail. */
    private int errorOffset;
    // inner packet facts, set by inner() for the encapsulation in progress
    private int innerVersion, innerTos, innerLen, innerIdFlags;
    /** Bytes the frame start moved by the last successful encapsulation (≤ 0); see {@link #shift()}. */
    private int shift;

    /**
     * @param bufferBytes bytes per packet buffer (frames must stay within; {@code BufferPool.bufferBytes()})
     * @param ttl         outer IPv4 TTL and IPv6 hop limit, 1–255
     * @param srcIpv4     outer IPv4 source address (big-endian u32 in an int)
     * @param srcIpv6Hi   outer IPv6 source address, bytes 0–7
     * @param srcIpv6Lo   outer IPv6 source address, bytes 8–15
     * @throws IllegalArgumentException naming the bad argument
     */
    public Encap(int bufferBytes, int ttl, int srcIpv4, long srcIpv6Hi, long srcIpv6Lo) {
        checkBufferAndTtl("encap", bufferBytes, ttl);
        this.bufferBytes = bufferBytes;
        this.ttl = ttl;
        this.srcIpv4 = srcIpv4;
        this.srcIpv6Hi = srcIpv6Hi;
        this.srcIpv6Lo = srcIpv6Lo;
    }

    /**
     * Checks what every tunnel writer needs: room for headers in a buffer ({@code bufferBytes} ≥ 128) and an outer
     * TTL of 1..255.
     *
     * @throws IllegalArgumentException naming {@code what} and the bad argument
     */
    public static void checkBufferAndTtl(String what, int bufferBytes, int ttl) {
        if (bufferBytes < 128) {
            throw new IllegalArgumentException(what + " bufferBytes must be >= 128, got " + bufferBytes);
        }
        if (ttl < 1 || ttl > 255) {
            throw new IllegalArgumentException(what + " outer TTL must be in [1, 255], got " + ttl);
        }
    }

    /** @return the outer TTL / hop limit */
    public int ttl() {
        return ttl;
    }

    /**
     * @return how many bytes the frame's start moved in the last successful {@code gre4/gre6/ipip4/ipip6/srv6Encaps}
     *         or {@code srlb*} call: {@code −(14 + overhead − l3Off)} (tunnels) or −SRH bytes (SRLB) when the headers
     *         were prepended into the headroom (the caller moves its frame start by this much,
     *         {@code BufferPool.advance}), 0 when the inner packet or payload was moved forward instead and the frame
     *         still starts at {@code bufStart}
     */
    public int shift() {
        return shift;
    }

    /** @return offset from the L3 header of the field behind the last error (for the caller's error report) */
    public int errorOffset() {
        return errorOffset;
    }

    /** @return a short name of an {@code ERR_*} code, for counters and logs */
    public static String errorName(int code) {
        return switch (code) {
            case ERR_TRUNCATED -> "truncated";
            case ERR_NOT_IP -> "not-ip";
            case ERR_NO_ROOM -> "no-room";
            case ERR_MALFORMED -> "malformed";
            default -> code >= 0 ? "ok" : "unknown(" + code + ")";
        };
    }

    // ---- encapsulations ----------------------------------------------------------------------------------------

    /**
     * GRE over IPv4 (RFC 2784 §2: no checksum, key or sequence; Protocol Type = inner EtherType).
     *
     * @param headroom bytes free in front of {@code bufStart} (see the class notes; 0 = move the inner packet)
     * @param dstIpv4 outer destination (the backend), big-endian u32
     * @return new frame length ({@code 14 + 24 + inner length}) or {@code ERR_*}; the frame now starts at
     *         {@code bufStart + shift()}
     */
    public int gre4(MemorySegment seg, long bufStart, int headroom, int frameLen, int l3Off, int dstIpv4) {
        int r = inner(seg, bufStart, headroom, frameLen, l3Off, GRE4_OVERHEAD);
        if (r < 0) {
            return r;
        }
        long f = bufStart + shift;
        long o = f + ETHERNET_HEADER;
        ipv4(seg, o, 20 + 4 + innerLen, FlowKey.PROTO_GRE, dstIpv4);
        gre(seg, o + 20);
        Bytes.put16(seg, f + 12, ETHERTYPE_IPV4);
        return r;
    }

    /**
     * GRE over IPv6 (RFC 2784, RFC 7676 §3: Next Header 47).
     *
     * @param flowHash the inner flow's hash (outer flow label)
     * @param headroom bytes free in front of {@code bufStart} (see the class notes; 0 = move the inner packet)
     * @return new frame length ({@code 14 + 44 + inner length}) or {@code ERR_*}; the frame now starts at {@code
     * bufStart + shift()}
     */
    public int gre6(MemorySegment seg, long bufStart, int headroom, int frameLen, int l3Off, long dstHi, long dstLo,
            long flowHash) {
        int r = inner(seg, bufStart, headroom, frameLen, l3Off, GRE6_OVERHEAD);
        if (r < 0) {
            return r;
        }
        long f = bufStart + shift;
        long o = f + ETHERNET_HEADER;
        ipv6(seg, o, 4 + innerLen, FlowKey.PROTO_GRE, dstHi, dstLo, flowHash);
        gre(seg, o + 40);
        Bytes.put16(seg, f + 12, ETHERTYPE_IPV6);
        return r;
    }

    /**
     * IP in IPv4: protocol 4 for IPv4 inside (RFC 2003), 41 for IPv6 inside (RFC 4213 §3.5).
     *
     * @param headroom bytes free in front of {@code bufStart} (see the class notes; 0 = move the inner packet)
     * @return new frame length ({@code 14 + 20 + inner length}) or {@code ERR_*}; the frame now starts at {@code
     * bufStart + shift()}
     */
    public int ipip4(MemorySegment seg, long bufStart, int headroom, int frameLen, int l3Off, int dstIpv4) {
        int r = inner(seg, bufStart, headroom, frameLen, l3Off, IPIP4_OVERHEAD);
        if (r < 0) {
            return r;
        }
        long f = bufStart + shift;
        long o = f + ETHERNET_HEADER;
        ipv4(seg, o, 20 + innerLen, innerVersion == 4 ? FlowKey.PROTO_IPIP : FlowKey.PROTO_IPV6, dstIpv4);
        Bytes.put16(seg, f + 12, ETHERTYPE_IPV4);
        return r;
    }

    /**
     * IP in IPv6 (RFC 2473 §3: Next Header 41 for IPv6 inside, 4 for IPv4 inside).
     *
     * @param headroom bytes free in front of {@code bufStart} (see the class notes; 0 = move the inner packet)
     * @return new frame length ({@code 14 + 40 + inner length}) or {@code ERR_*}; the frame now starts at {@code
     * bufStart + shift()}
     */
    public int ipip6(MemorySegment seg, long bufStart, int headroom, int frameLen, int l3Off, long dstHi, long dstLo,
            long flowHash) {
        int r = inner(seg, bufStart, headroom, frameLen, l3Off, IPIP6_OVERHEAD);
        if (r < 0) {
            return r;
        }
        long f = bufStart + shift;
        long o = f + ETHERNET_HEADER;
        ipv6(seg, o, innerLen, innerVersion == 4 ? FlowKey.PROTO_IPIP : FlowKey.PROTO_IPV6, dstHi, dstLo, flowHash);
        Bytes.put16(seg, f + 12, ETHERTYPE_IPV6);
        return r;
    }

    /**
     * SRv6 H.Encaps (RFC 8986 §5.1) with a one-segment SRH (RFC 8754 §2): outer IPv6 to the segment, Next Header 43;
     * SRH Next Header 41 (IPv6 inside) or 4 (IPv4 inside), Hdr Ext Len 2, Routing Type 4, Segments Left 0, Last
     * Entry 0, Flags 0, Tag 0, Segment List[0] = the segment. (RFC 8986 lets H.Encaps omit a one-segment SRH; we
     * keep it so that samples show the SID list, issue 6 §4.)
     *
     * @param segHi the segment (SID) bytes 0–7 — the outer destination
     * @param segLo the segment bytes 8–15
     * @param headroom bytes free in front of {@code bufStart} (see the class notes; 0 = move the inner packet)
     * @return new frame length ({@code 14 + 64 + inner length}) or {@code ERR_*}; the frame now starts at {@code
     * bufStart + shift()}
     */
    public int srv6Encaps(MemorySegment seg, long bufStart, int headroom, int frameLen, int l3Off, long segHi,
            long segLo,
            long flowHash) {
        int r = inner(seg, bufStart, headroom, frameLen, l3Off, SRV6_ENCAPS_OVERHEAD);
        if (r < 0) {
            return r;
        }
        long f = bufStart + shift;
        long o = f + ETHERNET_HEADER;
        ipv6(seg, o, 24 + innerLen, FlowKey.PROTO_ROUTING, segHi, segLo, flowHash);
        long h = o + 40;
        Bytes.put8(seg, h, innerVersion == 4 ? FlowKey.PROTO_IPIP : FlowKey.PROTO_IPV6);
        Bytes.put8(seg, h + 1, 2); // Hdr Ext Len: (24 / 8) − 1
        Bytes.put8(seg, h + 2, 4); // Routing Type: Segment Routing Header
        Bytes.put8(seg, h + 3, 0); // Segments Left
        Bytes.put32(seg, h + 4, 0); // Last Entry 0, Flags 0, Tag 0
        Bytes.put64(seg, h + 8, segHi);
        Bytes.put64(seg, h + 16, segLo);
        Bytes.put16(seg, f + 12, ETHERTYPE_IPV6);
        return r;
    }

    /** @return bytes of the SRLB hunting SRH for {@code candidates} candidates: 8 + 16 · (candidates + 2) */
    public static int srlbSrhBytes(int candidates) {
        return 8 + 16 * (candidates + 2);
    }

    /**
     * The SRLB hunting SRH for two candidates, [candidate 1, candidate 2, LB SID, VIP]; see
     * {@link #srlbHunt(MemorySegment, long, int, int, int, long[], int, long, long, boolean)}.
     */
    public int srlbHunt2(MemorySegment seg, long bufStart, int headroom, int frameLen, int l3Off, long c1Hi,
            long c1Lo, long c2Hi, long c2Lo, long lbSidHi, long lbSidLo, boolean syn) {
        int r = srlbPrepare(seg, bufStart, headroom, frameLen, l3Off, 2);
        if (r < 0) {
            return r;
        }
        bufStart += shift;
        long srh = bufStart + l3Off + 40;
        int fn = syn ? SrlbSid.FN_CONNECT_IF_AVAILABLE : SrlbSid.FN_RECOVER_STICKINESS;
        srlbSegment(seg, srh, 3, c1Hi, c1Lo, fn);
        srlbSegment(seg, srh, 2, c2Hi, c2Lo, fn);
        srlbFinish(seg, bufStart + l3Off, 2, lbSidHi, lbSidLo);
        return r;
    }

    /**
     * Inserts the SRLB hunting SRH (docs/load-balancing.md §3 step 1; Oryon/vpp-dev {@code srlb-lb-node.c}) into the
     * client's IPv6 packet, right after the fixed header: Segment List[0] = the VIP (the packet's destination), [1] =
     * the LB SID (as given: prefix, FUNCTION 0, CORE, ENTRY — see {@link SrlbSid}), [2 + i] = candidate {@code k − i}
     * with FUNCTION {@link SrlbSid#FN_CONNECT_IF_AVAILABLE} for a SYN, else {@link SrlbSid#FN_RECOVER_STICKINESS}, and
     * OFFSET {@code 2 + i} (so the VIP is at {@code segments_left − offset}). Segments Left = Last Entry = k + 1;
     * the destination becomes candidate 1. Upper-layer checksums stay valid (RFC 8200 §8.1: they use the final
     * destination, the VIP). {@code l3Off} is unchanged. To make room, either the L2 and IPv6 headers move back into
     * the headroom by the SRH size when it fits (54 bytes untagged, in 8-byte words, whatever the payload: a full-size
     * frame does not move its 1,400 bytes; {@link #shift()} is then negative and the caller moves the frame start,
     * e.g. {@code BufferPool.advance}), or the transport header and payload move forward ({@link #shift()} 0). As in
     * the SRLB code, the SRH goes right after the fixed header even if the client
     * sent extension headers (a Hop-by-Hop header would then no longer be first, RFC 8200 §4.1; clients of a VIP
     * practically never send one).
     *
     * @param headroom   bytes free in front of {@code bufStart} (0 = always move the payload)
     * @param candidates {@code [hi1, lo1, hi2, lo2, ...]}: candidate 1 (first visited) first
     * @param k          number of candidates, 1–{@link #SRLB_MAX_CANDIDATES}
     * @return new frame length, or {@code ERR_*} ({@link #ERR_NOT_IP} for IPv4)
     * @throws IllegalArgumentException if k is out of range or {@code candidates} too short
     */
    public int srlbHunt(MemorySegment seg, long bufStart, int headroom, int frameLen, int l3Off, long[] candidates,
            int k, long lbSidHi, long lbSidLo, boolean syn) {
        if (k < 1 || k > SRLB_MAX_CANDIDATES || candidates.length < 2 * k) {
            throw new IllegalArgumentException("SRLB needs 1.." + SRLB_MAX_CANDIDATES
                    + " candidates as hi/lo pairs, got k " + k + " with " + candidates.length + " longs");
        }
        int r = srlbPrepare(seg, bufStart, headroom, frameLen, l3Off, k);
        if (r < 0) {
            return r;
        }
        bufStart += shift;
        long srh = bufStart + l3Off + 40;
        int fn = syn ? SrlbSid.FN_CONNECT_IF_AVAILABLE : SrlbSid.FN_RECOVER_STICKINESS;
        for (int c = 0; c < k; c++) { // candidate c + 1 sits at index k + 1 − c
            srlbSegment(seg, srh, k + 1 - c, candidates[2 * c], candidates[2 * c + 1], fn);
        }
        srlbFinish(seg, bufStart + l3Off, k, lbSidHi, lbSidLo);
        return r;
    }

    /**
     * SRLB, a client packet of an established flow (docs/load-balancing.md §3 step 4): inserts [server SID with
     * FUNCTION {@link SrlbSid#FN_ACK_STICKINESS} and OFFSET 2, LB SID, VIP] right after the IPv6 header, Segments Left
     * = Last Entry = 2, destination = the server SID. Otherwise as {@link #srlbHunt}, headroom included.
     *
     * @param headroom bytes free in front of {@code bufStart} (0 = always move the payload)
     * @param serverHi the accepting server agent's SID, bytes 0–7 (as it signalled it)
     * @param serverLo its bytes 8–15 (CORE and ENTRY kept; FUNCTION/OFFSET replaced)
     * @return new frame length ({@code + 56} bytes), or {@code ERR_*}
     */
    public int srlbToServer(MemorySegment seg, long bufStart, int headroom, int frameLen, int l3Off, long serverHi,
            long serverLo, long lbSidHi, long lbSidLo) {
        int r = srlbPrepare(seg, bufStart, headroom, frameLen, l3Off, 1);
        if (r < 0) {
            return r;
        }
        bufStart += shift;
        srlbSegment(seg, bufStart + l3Off + 40, 2, serverHi, serverLo, SrlbSid.FN_ACK_STICKINESS);
        srlbFinish(seg, bufStart + l3Off, 1, lbSidHi, lbSidLo);
        return r;
    }

    /**
     * SRLB server agent, a reply that goes via the LB (docs/load-balancing.md §3 steps 3 and 5): inserts [client, SA
     * SID, LB SID] right after the IPv6 header — Segment List[0] = the packet's destination (the client), [1] = this
     * agent's SID, [2] = the LB SID as given (FUNCTION {@link SrlbSid#FN_CREATE_STICKINESS} or
     * {@link SrlbSid#FN_DELETE_STICKINESS} already set by the caller) — Segments Left = Last Entry = 2, destination =
     * the LB SID. Upper-layer checksums stay valid (their destination is the final one, the client).
     *
     * @return new frame length ({@code + 56} bytes), or {@code ERR_*}
     */
    public int srlbReply(MemorySegment seg, long bufStart, int frameLen, int l3Off, long saSidHi, long saSidLo,
            long lbSidHi, long lbSidLo) {
        int r = srlbPrepare(seg, bufStart, 0, frameLen, l3Off, 1);
        if (r < 0) {
            return r;
        }
        long at = bufStart + l3Off + 40 + 8 + 32;
        Bytes.put64(seg, at, lbSidHi);
        Bytes.put64(seg, at + 8, lbSidLo);
        srlbFinish(seg, bufStart + l3Off, 1, saSidHi, saSidLo);
        return r;
    }

    /**
     * Validates the IPv6 packet at {@code l3Off}, makes room for an SRH of {@code k} candidates right after its fixed
     * header (see {@link #srlbHunt}: the headers move back into the headroom, {@link #shift} = −SRH bytes, or the
     * payload moves forward, shift 0) and writes the SRH's fixed part and Segment List[0] = the destination.
     *
     * @return new frame length, or {@code ERR_*} (nothing moved)
     */
    private int srlbPrepare(MemorySegment seg, long bufStart, int headroom, int frameLen, int l3Off, int k) {
        long p = bufStart + l3Off;
        int avail = frameLen - l3Off;
        if (avail < 40) {
            errorOffset = 0;
            return ERR_TRUNCATED;
        }
        long w0 = Bytes.i64(seg, p); // version, traffic class, flow label, payload length, next header, hop limit
        if ((int) (w0 >>> 60) != 6) {
            errorOffset = 0;
            return ERR_NOT_IP;
        }
        int plen = (int) (w0 >>> 16) & 0xFFFF;
        if (plen == 0 || 40 + plen > avail) {
            errorOffset = 4;
            return ERR_MALFORMED;
        }
        int srhBytes = srlbSrhBytes(k);
        int newLen = l3Off + 40 + srhBytes + plen;
        if (newLen > bufferBytes || plen + srhBytes > 0xFFFF) {
            errorOffset = 4;
            return ERR_NO_ROOM;
        }
        if (srhBytes <= headroom) {
            // the L2 + IPv6 headers move back by the SRH size, in 8-byte words (the last word may carry up to 7
            // bytes past them, into the SRH's place, which is written below; the source words stay in the buffer);
            // the payload stays
            shift = -srhBytes;
            int n = l3Off + 40;
            for (int i = 0; i < n; i += 8) {
                seg.set(RAW64, bufStart - srhBytes + i, seg.get(RAW64, bufStart + i));
            }
            p -= srhBytes;
        } else {
            shift = 0;
            MemorySegment.copy(seg, p + 40, seg, p + 40 + srhBytes, plen);
        }
        long srh = p + 40;
        // Next Header = the original upper layer, Hdr Ext Len, Routing Type 4, Segments Left = Last Entry = k + 1,
        // Flags 0, Tag 0: the SRH's first 8 bytes in one word
        Bytes.put64(seg, srh, (w0 >>> 8 & 0xFF) << 56 | (long) (srhBytes / 8 - 1) << 48 | 4L << 40
                | (long) (k + 1) << 32 | (long) (k + 1) << 24);
        Bytes.put64(seg, srh + 8, Bytes.i64(seg, p + 24)); // Segment List[0] = VIP
        Bytes.put64(seg, srh + 16, Bytes.i64(seg, p + 32));
        // payload length + SRH, next header = routing (43); version, class, flow label and hop limit kept
        Bytes.put64(seg, p, w0 & 0xFFFF_FFFF_0000_00FFL | (long) (plen + srhBytes) << 16
                | (long) FlowKey.PROTO_ROUTING << 8);
        return newLen;
    }

    private static void srlbSegment(MemorySegment seg, long srh, int index, long hi, long lo, int function) {
        long at = srh + 8 + 16L * index;
        Bytes.put64(seg, at, hi);
        Bytes.put64(seg, at + 8, SrlbSid.withFunctionAndOffset(lo, function, index));
    }

    private static void srlbFinish(MemorySegment seg, long p, int k, long lbSidHi, long lbSidLo) {
        long srh = p + 40;
        Bytes.put64(seg, srh + 24, lbSidHi); // Segment List[1] = LB SID
        Bytes.put64(seg, srh + 32, lbSidLo);
        long first = srh + 8 + 16L * (k + 1);
        Bytes.put64(seg, p + 24, Bytes.i64(seg, first)); // destination = candidate 1
        Bytes.put64(seg, p + 32, Bytes.i64(seg, first + 8));
    }

    // ---- helpers -----------------------------------------------------------------------------------------------

    /**
     * Validates the inner IP packet, records its version, TOS/TC, length and DF/ID, checks room, moves it to
     * {@code 14 + overhead} and returns the new frame length (or {@code ERR_*}, nothing moved).
     */
    private int inner(MemorySegment seg, long bufStart, int headroom, int frameLen, int l3Off, int overhead) {
        long p = bufStart + l3Off;
        int avail = frameLen - l3Off;
        if (avail < 20) {
            errorOffset = 0;
            return ERR_TRUNCATED;
        }
        int version = Bytes.u8(seg, p) >>> 4;
        int len = innerLength(seg, p, avail);
        if (len < 0) {
            errorOffset = innerErrorOffset(len, version);
            return len;
        }
        innerTos = innerTrafficClass(seg, p, version);
        innerIdFlags = version == 4 ? Bytes.i32(seg, p + 4) : 0x4000; // IPv4 ID, flags, offset; IPv6: ID 0, DF
        int newL3 = ETHERNET_HEADER + overhead;
        if (newL3 + len > bufferBytes) {
            errorOffset = version == 4 ? 2 : 4;
            return ERR_NO_ROOM;
        }
        innerVersion = version;
        innerLen = len;
        int move = newL3 - l3Off; // bytes the headers need in front of the inner packet beyond what is there
        if (move > 0 && move <= headroom) {
            shift = -move; // prepend into the headroom: the inner packet stays where it is
        } else {
            shift = 0;
            MemorySegment.copy(seg, p, seg, bufStart + newL3, len);
        }
        return newL3 + len;
    }

    /**
     * The inner IP packet's own length (IPv4 Total Length; IPv6 40 + Payload Length), checked against the header and
     * the {@code avail} bytes at {@code p} (≥ 20 assumed).
     *
     * @return the length, or {@link #ERR_TRUNCATED}, {@link #ERR_MALFORMED} (a length field contradicts the frame, or
     *         a jumbogram/TSO length 0) or {@link #ERR_NOT_IP}; {@link #innerErrorOffset} names the field
     */
    public static int innerLength(MemorySegment seg, long p, int avail) {
        int b0 = Bytes.u8(seg, p);
        int version = b0 >>> 4;
        if (version == 4) {
            int len = Bytes.u16(seg, p + 2);
            return len < 20 || len < (b0 & 0xF) * 4 || len > avail ? ERR_MALFORMED : len;
        }
        if (version == 6) {
            if (avail < 40) {
                return ERR_TRUNCATED;
            }
            int plen = Bytes.u16(seg, p + 4);
            return plen == 0 || 40 + plen > avail ? ERR_MALFORMED : 40 + plen;
        }
        return ERR_NOT_IP;
    }

    /** @return the offset in the inner header of the field an {@link #innerLength} error is about */
    public static int innerErrorOffset(int code, int version) {
        return code == ERR_MALFORMED ? (version == 4 ? 2 : 4) : 0;
    }

    /** @return the inner packet's DSCP + ECN byte (IPv4 TOS, IPv6 Traffic Class) */
    public static int innerTrafficClass(MemorySegment seg, long p, int version) {
        return version == 4 ? Bytes.u8(seg, p + 1) : Bytes.u16(seg, p) >>> 4 & 0xFF;
    }

    private void ipv4(MemorySegment seg, long o, int totalLen, int protocol, int dst) {
        int idFlags = innerVersion == 4 ? innerIdFlags & 0xFFFF_4000 : 0x4000; // keep ID and DF only
        int w0 = 0x4500_0000 | innerTos << 16 | totalLen, w2 = ttl << 24 | protocol << 16;
        // RFC 1071 §2(A): the header's one's-complement sum in 32-bit words, from the values (not re-read)
        long acc = (w0 & 0xFFFF_FFFFL) + (idFlags & 0xFFFF_FFFFL) + (w2 & 0xFFFF_FFFFL) + (srcIpv4 & 0xFFFF_FFFFL)
                + (dst & 0xFFFF_FFFFL);
        Bytes.put32(seg, o, w0);
        Bytes.put32(seg, o + 4, idFlags);
        Bytes.put32(seg, o + 8, w2 | Bytes.fold(acc));
        Bytes.put32(seg, o + 12, srcIpv4);
        Bytes.put32(seg, o + 16, dst);
    }

    private void ipv6(MemorySegment seg, long o, int payloadLen, int nextHeader, long dstHi, long dstLo,
            long flowHash) {
        int label = (int) (flowHash ^ flowHash >>> 20 ^ flowHash >>> 40) & 0xFFFFF;
        Bytes.put32(seg, o, 6 << 28 | innerTos << 20 | (label == 0 ? 1 : label));
        Bytes.put32(seg, o + 4, payloadLen << 16 | nextHeader << 8 | ttl);
        Bytes.put64(seg, o + 8, srcIpv6Hi);
        Bytes.put64(seg, o + 16, srcIpv6Lo);
        Bytes.put64(seg, o + 24, dstHi);
        Bytes.put64(seg, o + 32, dstLo);
    }

    private void gre(MemorySegment seg, long g) {
        Bytes.put32(seg, g, innerVersion == 4 ? ETHERTYPE_IPV4 : ETHERTYPE_IPV6); // C=0, Reserved0=0, Ver=0
    }
}
