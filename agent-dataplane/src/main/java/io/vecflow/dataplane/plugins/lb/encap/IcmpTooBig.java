package io.vecflow.dataplane.plugins.lb.encap;

import io.vecflow.dataplane.graph.mem.Bytes;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Path-MTU signalling for a VIP whose tunnel cannot carry a packet: when {@code inner length + encapsulation
 * overhead > tunnel MTU}, the packet is turned, in place, into the ICMP error that tells the client to send smaller
 * packets, addressed back to it. One instance per worker; allocation-free; counters readable from any thread.
 *
 * <p><b>IPv4</b> (RFC 792; RFC 1191 §4): Destination Unreachable, type 3 code 4 "fragmentation needed and DF set", with
 * the Next-Hop MTU = tunnel MTU − overhead (at least 68, RFC 791) in the low 16 bits of the second word. Only for
 * packets with DF set. <b>DF clear:</b> the packet may be fragmented, but fragmenting is out of scope here (it would
 * mean emitting several frames from one buffer): such packets are dropped and counted ({@link #DROPPED_DF_CLEAR}), so
 * an operator sees that the tunnel MTU is too small for clients that do not use PMTU discovery. (Katran does the same:
 * it only answers DF-set packets; VPP lb leaves oversize packets to the IP layer.)
 *
 * <p><b>IPv6</b> (RFC 4443 §3.2): Packet Too Big, type 2 code 0, MTU = tunnel MTU − overhead but never below 1280, the
 * IPv6 minimum link MTU (RFC 8200 §5; hosts ignore smaller values, RFC 8201 §4). A packet of at most 1280 bytes that
 * still does not fit means the tunnel MTU is below {@code 1280 + overhead}, a configuration error: it is dropped and
 * counted ({@link #DROPPED_BELOW_IPV6_MINIMUM}).
 *
 * <p><b>The reply</b> is built in the same buffer: Ethernet source and destination swapped (VLAN tags and EtherType
 * kept, so it leaves by the receiving port), a new IP header from the original destination (the VIP — as Katran does,
 * so the client's stack matches it to the connection) to the original source, TTL / hop limit configured, TOS /
 * traffic class 0 (RFC 1349 §5.1), and as much of the original IP packet as fits so that the whole ICMP datagram is
 * at most 576 bytes for IPv4 (RFC 1812 §4.3.2.3) and 1280 bytes for IPv6 (RFC 4443 §2.4(c)); checksums per RFC 792
 * and RFC 4443 §2.3 (with the IPv6 pseudo-header, RFC 8200 §8.1). The quote is moved forward by one overlapping
 * {@link MemorySegment#copy}.
 *
 * <p><b>No ICMP error about</b> (RFC 1122 §3.2.2, RFC 1812 §4.3.2.7, RFC 4443 §2.4(e)): an ICMP/ICMPv6 error
 * message, a non-initial IPv4 fragment, or a packet whose source is unspecified, multicast, limited broadcast or
 * loopback; such packets are dropped and counted ({@link #DROPPED_NO_ICMP}).
 */
public final class IcmpTooBig {
    /** {@link #check} result: the encapsulated packet fits; encapsulate and forward. */
    public static final int FITS = 0;
    /** The bytes end inside the IP header. */
    public static final int ERR_TRUNCATED = -1;
    /** The IP header contradicts the frame (version, IHL, length 0 or beyond the frame). */
    public static final int ERR_MALFORMED = -4;
    /** Too big, IPv4 with DF clear: dropped (fragmentation not implemented). */
    public static final int DROP_DF_CLEAR = -10;
    /** Too big, but no ICMP error may be sent about this packet. */
    public static final int DROP_NO_ICMP = -11;
    /** Too big, IPv6 of at most 1280 bytes: the tunnel MTU is below 1280 + overhead. */
    public static final int DROP_BELOW_IPV6_MINIMUM = -12;

    /** Largest IPv4 ICMP error datagram (RFC 1812 §4.3.2.3). */
    public static final int IPV4_ERROR_LIMIT = 576;
    /** IPv6 minimum link MTU and largest ICMPv6 error packet (RFC 8200 §5, RFC 4443 §2.4(c)). */
    public static final int IPV6_MIN_MTU = 1280;
    /** Smallest IPv4 MTU (RFC 791: every module must forward 68-octet datagrams). */
    public static final int IPV4_MIN_MTU = 68;

    /** Counter: ICMPv4 "fragmentation needed" replies built. */
    public static final int SENT_IPV4 = 0;
    /** Counter: ICMPv6 Packet Too Big replies built. */
    public static final int SENT_IPV6 = 1;
    /** Counter: too-big IPv4 packets with DF clear, dropped. */
    public static final int DROPPED_DF_CLEAR = 2;
    /** Counter: too-big packets about which no ICMP error may be sent, dropped. */
    public static final int DROPPED_NO_ICMP = 3;
    /** Counter: too-big IPv6 packets of ≤ 1280 bytes, dropped (tunnel MTU misconfigured). */
    public static final int DROPPED_BELOW_IPV6_MINIMUM = 4;
    /** Counter: packets whose IP header could not be read ({@link #ERR_TRUNCATED}, {@link #ERR_MALFORMED}). */
    public static final int ERRORS = 5;
    private static final int COUNTERS = 6;
    private static final int PAD = 8;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private final int bufferBytes;
    private final int ttl;
    private final long[] counters = new long[PAD + COUNTERS + PAD];

    /**
     * @param bufferBytes bytes per packet buffer (≥ 1400: an IPv6 reply needs {@code l3Off} + 1280)
     * @param ttl         TTL / hop limit of the replies, 1–255 (e.g. {@link Encap#DEFAULT_TTL})
     * @throws IllegalArgumentException naming the bad argument
     */
    public IcmpTooBig(int bufferBytes, int ttl) {
        if (bufferBytes < 1400) {
            throw new IllegalArgumentException("ICMP too-big needs bufferBytes >= 1400, got " + bufferBytes);
        }
        if (ttl < 1 || ttl > 255) {
            throw new IllegalArgumentException("ICMP too-big reply TTL must be in [1, 255], got " + ttl);
        }
        this.bufferBytes = bufferBytes;
        this.ttl = ttl;
    }

    /**
     * Decides whether the IP packet at {@code l3Off} fits the tunnel and, if not, turns the frame into the ICMP reply.
     *
     * @param tunnelMtu largest outer IP packet the tunnel path carries, bytes (e.g. 1500)
     * @param overhead  bytes the encapsulation adds ({@code Encap.GRE4_OVERHEAD}, ...)
     * @return {@link #FITS}; a positive new frame length (the reply, to send back out of the receiving port); or a
     *         negative drop/error code ({@link #DROP_DF_CLEAR}, {@link #DROP_NO_ICMP},
     *         {@link #DROP_BELOW_IPV6_MINIMUM}, {@link #ERR_TRUNCATED}, {@link #ERR_MALFORMED}), counted
     */
    public int check(MemorySegment seg, long bufStart, int frameLen, int l3Off, int tunnelMtu, int overhead) {
        long p = bufStart + l3Off;
        int avail = frameLen - l3Off;
        if (l3Off < 14 || avail < 20) {
            return count(ERRORS, ERR_TRUNCATED);
        }
        int version = Bytes.u8(seg, p) >>> 4;
        if (version == 4) {
            int ihl = (Bytes.u8(seg, p) & 0xF) * 4;
            int len = Bytes.u16(seg, p + 2);
            if (ihl < 20 || len < ihl || len > avail) {
                return count(ERRORS, ERR_MALFORMED);
            }
            if (len + overhead <= tunnelMtu) {
                return FITS;
            }
            return ipv4(seg, bufStart, l3Off, p, ihl, len, Math.max(IPV4_MIN_MTU, tunnelMtu - overhead));
        }
        if (version == 6) {
            if (avail < 40) {
                return count(ERRORS, ERR_TRUNCATED);
            }
            int plen = Bytes.u16(seg, p + 4);
            int len = 40 + plen;
            if (plen == 0 || len > avail) {
                return count(ERRORS, ERR_MALFORMED);
            }
            if (len + overhead <= tunnelMtu) {
                return FITS;
            }
            if (len <= IPV6_MIN_MTU) {
                return count(DROPPED_BELOW_IPV6_MINIMUM, DROP_BELOW_IPV6_MINIMUM);
            }
            return ipv6(seg, bufStart, l3Off, p, len, Math.max(IPV6_MIN_MTU, tunnelMtu - overhead));
        }
        return count(ERRORS, ERR_MALFORMED);
    }

    /**
     * Reads a counter; safe from any thread.
     *
     * @param which {@link #SENT_IPV4}, {@link #SENT_IPV6}, {@link #DROPPED_DF_CLEAR}, {@link #DROPPED_NO_ICMP},
     *              {@link #DROPPED_BELOW_IPV6_MINIMUM} or {@link #ERRORS}
     * @return the count since construction
     * @throws IllegalArgumentException for another index
     */
    public long counter(int which) {
        if (which < 0 || which >= COUNTERS) {
            throw new IllegalArgumentException("ICMP too-big counter index must be in [0, " + COUNTERS + "), got "
                    + which);
        }
        return (long) LONGS.getOpaque(counters, PAD + which);
    }

    private int ipv4(MemorySegment seg, long bufStart, int l3Off, long p, int ihl, int len, int mtu) {
        int frag = Bytes.u16(seg, p + 6);
        if ((frag & 0x4000) == 0) {
            return count(DROPPED_DF_CLEAR, DROP_DF_CLEAR);
        }
        int src = Bytes.i32(seg, p + 12);
        int dst = Bytes.i32(seg, p + 16);
        int first = src >>> 24;
        boolean badSource = src == 0 || src == -1 || first == 127 || (first & 0xF0) == 0xE0;
        boolean icmpError = Bytes.u8(seg, p + 9) == FlowKey.PROTO_ICMP && len >= ihl + 1
                && isIcmpv4Error(Bytes.u8(seg, p + ihl));
        if ((frag & 0x1FFF) != 0 || badSource || icmpError) {
            return count(DROPPED_NO_ICMP, DROP_NO_ICMP);
        }
        int quote = Math.min(len, IPV4_ERROR_LIMIT - 28);
        if (l3Off + 28 + quote > bufferBytes) {
            return count(ERRORS, ERR_MALFORMED);
        }
        MemorySegment.copy(seg, p, seg, p + 28, quote);
        swapMacs(seg, bufStart);
        Bytes.put32(seg, p, 0x4500_0000 | (28 + quote));
        Bytes.put32(seg, p + 4, 0); // ID 0, no flags: the reply is ≤ 576 bytes
        Bytes.put32(seg, p + 8, ttl << 24 | FlowKey.PROTO_ICMP << 16);
        Bytes.put32(seg, p + 12, dst);
        Bytes.put32(seg, p + 16, src);
        Bytes.put16(seg, p + 10, Bytes.ipv4HeaderChecksum(seg, p));
        long icmp = p + 20;
        Bytes.put32(seg, icmp, 3 << 24 | 4 << 16); // type 3, code 4, checksum 0
        Bytes.put32(seg, icmp + 4, mtu & 0xFFFF); // unused 0, Next-Hop MTU
        Bytes.put16(seg, icmp + 2, Bytes.fold(Bytes.sum(seg, icmp, 8 + quote, 0)));
        add(SENT_IPV4);
        return l3Off + 28 + quote;
    }

    private int ipv6(MemorySegment seg, long bufStart, int l3Off, long p, int len, int mtu) {
        long srcHi = Bytes.i64(seg, p + 8), srcLo = Bytes.i64(seg, p + 16);
        long dstHi = Bytes.i64(seg, p + 24), dstLo = Bytes.i64(seg, p + 32);
        boolean badSource = (srcHi >>> 56) == 0xFF || (srcHi == 0 && (srcLo == 0 || srcLo == 1));
        if (badSource || carriesIcmpv6Error(seg, p, len)) {
            return count(DROPPED_NO_ICMP, DROP_NO_ICMP);
        }
        int quote = Math.min(len, IPV6_MIN_MTU - 48);
        if (l3Off + 48 + quote > bufferBytes) {
            return count(ERRORS, ERR_MALFORMED);
        }
        MemorySegment.copy(seg, p, seg, p + 48, quote);
        swapMacs(seg, bufStart);
        int plen = 8 + quote;
        Bytes.put32(seg, p, 6 << 28); // traffic class 0, flow label 0
        Bytes.put32(seg, p + 4, plen << 16 | FlowKey.PROTO_ICMPV6 << 8 | ttl);
        Bytes.put64(seg, p + 8, dstHi);
        Bytes.put64(seg, p + 16, dstLo);
        Bytes.put64(seg, p + 24, srcHi);
        Bytes.put64(seg, p + 32, srcLo);
        long icmp = p + 40;
        Bytes.put32(seg, icmp, 2 << 24); // type 2, code 0, checksum 0
        Bytes.put32(seg, icmp + 4, mtu);
        long pseudo = Bytes.sumAddress(dstHi, dstLo, Bytes.sumAddress(srcHi, srcLo, 0)) + plen
                + FlowKey.PROTO_ICMPV6;
        Bytes.put16(seg, icmp + 2, Bytes.fold(Bytes.sum(seg, icmp, plen, pseudo)));
        add(SENT_IPV6);
        return l3Off + 48 + quote;
    }

    /**
     * ICMPv4 error types (RFC 792, RFC 1122 §3.2.2): unreachable 3, source quench 4, redirect 5, time exceeded 11,
     * parameter problem 12.
     */
    private static boolean isIcmpv4Error(int type) {
        return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
    }

    /**
     * Whether the upper layer (after at most 8 extension headers) is an ICMPv6 error (type &lt; 128, RFC 4443 §2.1).
     */
    private static boolean carriesIcmpv6Error(MemorySegment seg, long p, int len) {
        int nh = Bytes.u8(seg, p + 6);
        int off = 40;
        for (int i = 0; i < FlowKey.MAX_IPV6_EXTENSION_HEADERS && off + 8 <= len
                && (nh == 0 || nh == FlowKey.PROTO_ROUTING || nh == FlowKey.PROTO_DSTOPTS
                        || nh == FlowKey.PROTO_FRAGMENT); i++) {
            int next = Bytes.u8(seg, p + off);
            if (nh == FlowKey.PROTO_FRAGMENT && (Bytes.u16(seg, p + off + 2) & 0xFFF8) != 0) {
                return false; // a non-first fragment: the upper-layer header is not here
            }
            off += nh == FlowKey.PROTO_FRAGMENT ? 8 : (Bytes.u8(seg, p + off + 1) + 1) * 8;
            nh = next;
        }
        return nh == FlowKey.PROTO_ICMPV6 && off < len && Bytes.u8(seg, p + off) < 128;
    }

    private static void swapMacs(MemorySegment seg, long bufStart) {
        int d0 = Bytes.i32(seg, bufStart), s0 = Bytes.i32(seg, bufStart + 6);
        int d1 = Bytes.u16(seg, bufStart + 4), s1 = Bytes.u16(seg, bufStart + 10);
        Bytes.put32(seg, bufStart, s0);
        Bytes.put16(seg, bufStart + 4, s1);
        Bytes.put32(seg, bufStart + 6, d0);
        Bytes.put16(seg, bufStart + 10, d1);
    }

    private int count(int counter, int result) {
        add(counter);
        return result;
    }

    private void add(int which) {
        int i = PAD + which;
        LONGS.setOpaque(counters, i, (long) LONGS.getOpaque(counters, i) + 1);
    }
}
