package io.vecflow.dataplane.plugins.lb.maglev;

import io.vecflow.dataplane.graph.mem.Bytes;
import java.lang.foreign.MemorySegment;

/**
 * The 5-tuple of one packet (source and destination address, IP protocol, source and destination port), read from an
 * IPv4 or IPv6 header in a {@link MemorySegment}; mutable and reused, one per worker, so that reading a key allocates
 * nothing.
 *
 * <p>Addresses are kept as 128-bit values in two longs (big-endian: {@code Hi} = bytes 0–7, {@code Lo} = bytes 8–15);
 * IPv4 addresses are stored IPv4-mapped, {@code ::ffff:a.b.c.d} (RFC 4291 §2.5.5.2), as in
 * {@code io.vecflow.packet.ParsedPacket}, so both families share one key layout in {@link ConnectionTable}.
 *
 * <p>Ports: TCP (RFC 9293 §3.1), UDP (RFC 768) and SCTP (RFC 9260 §3.1) have ports in their first 4 bytes; every
 * other protocol gets ports 0. <b>Fragments</b> (IPv4 MF set or offset ≠ 0, RFC 791 §3.1; any IPv6 Fragment header,
 * RFC 8200 §4.5) also get ports 0, in the first fragment too, so that every fragment of a datagram has the same key and
 * reaches the same backend (later fragments carry no ports). IPv6 extension headers Hop-by-Hop (0), Routing (43),
 * Destination Options (60) and Fragment (44) are skipped, at most {@link #MAX_IPV6_EXTENSION_HEADERS}; AH, ESP and
 * anything else end the walk with that protocol and ports 0.
 */
public final class FlowKey {
    /** {@link #read} result: the key is filled. */
    public static final int OK = 0;
    /** {@link #read} result: the bytes end inside the IP header or the first 4 bytes of TCP/UDP/SCTP. */
    public static final int TRUNCATED = -1;
    /** {@link #read} result: not IPv4/IPv6, IPv4 IHL &lt; 5, or a declared length shorter than the header. */
    public static final int MALFORMED = -2;

    /** Extension headers skipped before giving up (a bound on the walk, as in {@code PacketParser}). */
    public static final int MAX_IPV6_EXTENSION_HEADERS = 8;

    /** IP protocol numbers used by the LB (IANA "Assigned Internet Protocol Numbers"). */
    public static final int PROTO_ICMP = 1, PROTO_IPIP = 4, PROTO_TCP = 6, PROTO_UDP = 17, PROTO_IPV6 = 41,
            PROTO_ROUTING = 43, PROTO_FRAGMENT = 44, PROTO_GRE = 47, PROTO_ICMPV6 = 58, PROTO_NONE = 59,
            PROTO_DSTOPTS = 60, PROTO_SCTP = 132;

    /** TCP flag bits (RFC 9293 §3.1). */
    public static final int TCP_FIN = 0x01, TCP_SYN = 0x02, TCP_RST = 0x04, TCP_ACK = 0x10;

    /** The high 64 bits of an IPv4-mapped address, and the mask of bytes 8–11 ({@code 0000:ffff}). */
    static final long V4_MAPPED_HI = 0L, V4_MAPPED_LO_PREFIX = 0x0000_FFFF_0000_0000L;

    /** Source address, bytes 0–7 and 8–15. */
    public long srcHi, srcLo;
    /** Destination address, bytes 0–7 and 8–15. */
    public long dstHi, dstLo;
    /** IP protocol (IPv4 Protocol, or IPv6 upper-layer Next Header after extension headers). */
    public int protocol;
    /** Transport ports (0 for protocols without ports and for fragments). */
    public int srcPort, dstPort;
    /** TCP flags byte (byte 13 of the TCP header) when {@link #protocol} is TCP and not a fragment, else 0. */
    public int tcpFlags;
    /** 4 or 6. */
    public int ipVersion;
    /** Offset of the transport header from the start of the IP header (bytes), or -1 when unknown. */
    public int l4Offset;
    /** Whether the packet is an IP fragment. */
    public boolean fragment;
    /** Offset (from the IP header) of the byte that made {@link #read} fail, for error reports. */
    public int errorOffset;

    /** Sets an IPv4 key directly (tests, benchmarks, control plane); addresses as big-endian u32 in an int. */
    public FlowKey setIpv4(int src, int dst, int protocol, int srcPort, int dstPort) {
        this.srcHi = V4_MAPPED_HI;
        this.srcLo = V4_MAPPED_LO_PREFIX | (src & 0xFFFF_FFFFL);
        this.dstHi = V4_MAPPED_HI;
        this.dstLo = V4_MAPPED_LO_PREFIX | (dst & 0xFFFF_FFFFL);
        this.protocol = protocol;
        this.srcPort = srcPort;
        this.dstPort = dstPort;
        this.ipVersion = 4;
        this.tcpFlags = 0;
        this.fragment = false;
        this.l4Offset = -1;
        return this;
    }

    /** Sets an IPv6 key directly (tests, benchmarks, control plane). */
    public FlowKey setIpv6(long srcHi, long srcLo, long dstHi, long dstLo, int protocol, int srcPort, int dstPort) {
        this.srcHi = srcHi;
        this.srcLo = srcLo;
        this.dstHi = dstHi;
        this.dstLo = dstLo;
        this.protocol = protocol;
        this.srcPort = srcPort;
        this.dstPort = dstPort;
        this.ipVersion = 6;
        this.tcpFlags = 0;
        this.fragment = false;
        this.l4Offset = -1;
        return this;
    }

    /** @return the protocol and ports packed as one word: {@code protocol << 32 | srcPort << 16 | dstPort} */
    public long portsWord() {
        return (long) protocol << 32 | (long) srcPort << 16 | dstPort;
    }

    /** @return the IPv4 source address (valid when {@link #ipVersion} is 4) */
    public int srcIpv4() {
        return (int) srcLo;
    }

    /** @return the IPv4 destination address (valid when {@link #ipVersion} is 4) */
    public int dstIpv4() {
        return (int) dstLo;
    }

    /**
     * Reads the key of the IP packet at {@code l3Start}. Bytes at or beyond {@code l3Start + l3Len} are never read.
     * Allocation-free.
     *
     * @param seg     the packet memory (e.g. {@code BufferPool.data()})
     * @param l3Start absolute offset in {@code seg} of the IP header (buffer start + L3 offset)
     * @param l3Len   bytes available from {@code l3Start} (frame length − L3 offset)
     * @return {@link #OK}, {@link #TRUNCATED} or {@link #MALFORMED} (then {@link #errorOffset} names the byte)
     */
    public int read(MemorySegment seg, long l3Start, int l3Len) {
        if (l3Len < 1) {
            errorOffset = 0;
            return TRUNCATED;
        }
        int version = (Bytes.u8(seg, l3Start) >>> 4);
        if (version == 4) {
            return readIpv4(seg, l3Start, l3Len);
        }
        if (version == 6) {
            return readIpv6(seg, l3Start, l3Len);
        }
        errorOffset = 0;
        return MALFORMED;
    }

    private int readIpv4(MemorySegment seg, long p, int len) {
        if (len < 20) {
            errorOffset = 0;
            return TRUNCATED;
        }
        long w0 = seg.get(Bytes.BE64, p);
        if ((w0 >>> 56) == 0x45) {
            // no options (the common case): the header in three reads, bytes 0–7, 8–15 and the destination
            int total = (int) (w0 >>> 32) & 0xFFFF;
            if (total != 0 && total < 20) {
                errorOffset = 2;
                return MALFORMED;
            }
            long w1 = seg.get(Bytes.BE64, p + 8);
            ipVersion = 4;
            fragment = (w0 & 0x3FFF) != 0; // MF or a non-zero offset
            protocol = (int) (w1 >>> 48) & 0xFF;
            srcHi = V4_MAPPED_HI;
            srcLo = V4_MAPPED_LO_PREFIX | (w1 & 0xFFFF_FFFFL);
            dstHi = V4_MAPPED_HI;
            dstLo = V4_MAPPED_LO_PREFIX | (Bytes.i32(seg, p + 16) & 0xFFFF_FFFFL);
            return ports(seg, p, 20, total == 0 ? len : Math.min(total, len));
        }
        int ihl = (Bytes.u8(seg, p) & 0x0F) * 4;
        if (ihl < 20) {
            errorOffset = 0;
            return MALFORMED;
        }
        int total = Bytes.u16(seg, p + 2);
        if (total != 0 && total < ihl) {
            errorOffset = 2;
            return MALFORMED;
        }
        ipVersion = 4;
        int frag = Bytes.u16(seg, p + 6);
        fragment = (frag & 0x3FFF) != 0; // MF or a non-zero offset
        protocol = Bytes.u8(seg, p + 9);
        srcHi = V4_MAPPED_HI;
        srcLo = V4_MAPPED_LO_PREFIX | (Bytes.i32(seg, p + 12) & 0xFFFF_FFFFL);
        dstHi = V4_MAPPED_HI;
        dstLo = V4_MAPPED_LO_PREFIX | (Bytes.i32(seg, p + 16) & 0xFFFF_FFFFL);
        int end = total == 0 ? len : Math.min(total, len);
        return ports(seg, p, ihl, end);
    }

    private int readIpv6(MemorySegment seg, long p, int len) {
        if (len < 40) {
            errorOffset = 0;
            return TRUNCATED;
        }
        ipVersion = 6;
        fragment = false;
        srcHi = Bytes.i64(seg, p + 8);
        srcLo = Bytes.i64(seg, p + 16);
        dstHi = Bytes.i64(seg, p + 24);
        dstLo = Bytes.i64(seg, p + 32);
        int plen = Bytes.u16(seg, p + 4);
        int end = plen == 0 ? len : Math.min(40 + plen, len);
        int nh = Bytes.u8(seg, p + 6);
        int off = 40;
        for (int i = 0; i < MAX_IPV6_EXTENSION_HEADERS; i++) {
            if (nh != 0 && nh != PROTO_ROUTING && nh != PROTO_DSTOPTS && nh != PROTO_FRAGMENT) {
                break;
            }
            if (off + 8 > end) {
                errorOffset = off;
                return TRUNCATED;
            }
            int next = Bytes.u8(seg, p + off);
            if (nh == PROTO_FRAGMENT) {
                fragment = true;
                off += 8;
            } else {
                off += (Bytes.u8(seg, p + off + 1) + 1) * 8;
            }
            nh = next;
        }
        protocol = nh;
        return ports(seg, p, off, end);
    }

    private int ports(MemorySegment seg, long p, int l4, int end) {
        l4Offset = l4;
        tcpFlags = 0;
        if (fragment || (protocol != PROTO_TCP && protocol != PROTO_UDP && protocol != PROTO_SCTP)) {
            srcPort = 0;
            dstPort = 0;
            return OK;
        }
        if (l4 + 4 > end) {
            errorOffset = l4;
            return TRUNCATED;
        }
        int pw = Bytes.i32(seg, p + l4);
        srcPort = pw >>> 16;
        dstPort = pw & 0xFFFF;
        if (protocol == PROTO_TCP && l4 + 14 <= end) {
            tcpFlags = Bytes.u8(seg, p + l4 + 13);
        }
        return OK;
    }

    /** @return a readable form for logs and test failures (allocates) */
    @Override
    public String toString() {
        return "FlowKey[v" + ipVersion + " " + Bytes.addressString(srcHi, srcLo) + ":" + srcPort + " -> "
                + Bytes.addressString(dstHi, dstLo) + ":" + dstPort + " proto " + protocol
                + (fragment ? " fragment" : "") + "]";
    }
}
