package io.vecflow.dataplane.port;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Software segmentation of a received GSO super-frame (what the kernel's {@code skb_gso_segment} does on transmit:
 * {@code net/ipv4/tcp_offload.c tcp_gso_segment}, {@code net/ipv4/udp_offload.c __udp_gso_segment},
 * {@code net/ipv4/af_inet.c inet_gso_segment}, {@code net/ipv6/ip6_offload.c ipv6_gso_segment}): one TCP segment or
 * UDP datagram of at most {@code gso_size} payload bytes per output frame, each with a copy of the Ethernet, VLAN, IP
 * and TCP/UDP headers.
 *
 * <p>Per segment {@code k} of {@code n}: IPv4 total length and identification ({@code id + k}, mod 2<sup>16</sup>)
 * set and the header checksum recomputed; IPv6 payload length set; TCP sequence number advanced by the payload before
 * it, CWR kept on the first segment only, FIN and PSH on the last only; UDP length set; the TCP/UDP checksum computed
 * in full over the pseudo-header and the segment (RFC 1071, RFC 793, RFC 768, RFC 8200 §8.1; a UDP zero sent as
 * 0xFFFF), whatever the super-frame carried (a partial sum, or the first segment's checksum of a GRO aggregate).
 *
 * <p>Handled: GSO types TCPV4, TCPV6 and UDP_L4 ({@code include/uapi/linux/virtio_net.h}; the ECN bit ignored) on
 * Ethernet with up to two VLAN tags in the frame, plus the outer tag the kernel stripped ({@link #parse} re-inserts it
 * in every segment), IPv4 with options, IPv6 without extension headers. Anything else is refused by {@link #parse}
 * with a cause ({@link #describe}). One instance per receive queue; {@link #parse} then {@link #write} for
 * {@code 0 ≤ k < }{@link #segments()}; nothing is allocated.
 */
final class GsoSegmenter {
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int MACS = 12;
    private static final int TAG = 4;

    /** {@link #parse} result: the super-frame can be segmented. */
    static final int OK = 0;
    /** GSO type other than TCPV4 / TCPV6 / UDP_L4 (e.g. UFO, tunnels), or gso_size 0. */
    static final int BAD_GSO_TYPE = 1;
    /** Not IPv4/IPv6 under ≤ 2 VLAN tags, an IPv4 fragment, IPv6 extension headers, or a type/protocol mismatch. */
    static final int BAD_L3 = 2;
    /** TCP/UDP header malformed or beyond the frame, checksum start not at the L4 header, or no payload. */
    static final int BAD_L4 = 3;
    /** The frame was cut by the ring (its block is too small for it): the tail is missing. */
    static final int TRUNCATED = 4;
    /** A segment would not fit the pool's buffer (gso_size + headers longer than a buffer). */
    static final int TOO_BIG = 5;

    private int l3;
    private int l4;
    private int hdr;
    private boolean ipv6;
    private boolean tcp;
    private int payload;
    private int mss;
    private int segments;
    private int ip4Id;
    private int tcpSeq;
    private int tcpFlags;
    private long pseudo;
    private boolean vlan;
    private int tpid;
    private int tci;

    /** @return a short text for a {@link #parse} result (error paths only: allocates nothing, constants). */
    static String describe(int cause) {
        return switch (cause) {
            case OK -> "ok";
            case BAD_GSO_TYPE -> "unsupported gso type";
            case BAD_L3 -> "unsupported or malformed L3 header";
            case BAD_L4 -> "malformed TCP/UDP header";
            case TRUNCATED -> "truncated by the ring";
            case TOO_BIG -> "segment longer than a buffer";
            default -> "unknown";
        };
    }

    /**
     * Checks the super-frame at {@code m[f, f + len)} (the frame as the ring holds it: Ethernet header first, the
     * outer VLAN tag stripped when {@code vlan}) and remembers its layout for {@link #write}.
     *
     * @param gsoType virtio_net_hdr gso_type (VIRTIO_NET_HDR_GSO_*, ECN bit allowed)
     * @param gsoSize virtio_net_hdr gso_size: payload bytes per segment
     * @param needsCsum virtio_net_hdr flags has VIRTIO_NET_HDR_F_NEEDS_CSUM: then {@code csumStart} must be the L4
     *     header's offset
     * @param csumStart virtio_net_hdr csum_start (offset from the frame's first byte)
     * @param vlan re-insert the stripped outer tag {@code tpid}/{@code tci} after the MAC addresses of each segment
     * @param bufferBytes longest frame a segment may be
     * @return {@link #OK} or a cause constant
     */
    int parse(MemorySegment m, long f, int len, int gsoType, int gsoSize, boolean needsCsum, int csumStart,
            boolean vlan, int tpid, int tci, int bufferBytes) {
        int type = gsoType & ~PacketSys.VIRTIO_NET_HDR_GSO_ECN;
        if (type != PacketSys.VIRTIO_NET_HDR_GSO_TCPV4 && type != PacketSys.VIRTIO_NET_HDR_GSO_TCPV6
                && type != PacketSys.VIRTIO_NET_HDR_GSO_UDP_L4 || gsoSize <= 0) {
            return BAD_GSO_TYPE;
        }
        if (len < MACS + 2) {
            return BAD_L3;
        }
        int at = MACS + 2;
        int et = m.get(BE16, f + MACS) & 0xffff;
        for (int tags = 0; (et == 0x8100 || et == 0x88A8) && tags < 2; tags++) {
            if (at + TAG > len) {
                return BAD_L3;
            }
            et = m.get(BE16, f + at + 2) & 0xffff;
            at += TAG;
        }
        int proto;
        if (et == 0x0800 && at + 20 <= len) {
            int vihl = m.get(ValueLayout.JAVA_BYTE, f + at) & 0xff;
            int ihl = (vihl & 0x0f) * 4;
            if (vihl >>> 4 != 4 || ihl < 20 || at + ihl > len
                    || (m.get(BE16, f + at + 6) & 0x3fff) != 0) { // MF or a fragment offset
                return BAD_L3;
            }
            ipv6 = false;
            proto = m.get(ValueLayout.JAVA_BYTE, f + at + 9) & 0xff;
            l4 = at + ihl;
            ip4Id = m.get(BE16, f + at + 4) & 0xffff;
            pseudo = sum(m, f + at + 12, 8) + proto;
        } else if (et == 0x86DD && at + 40 <= len) {
            if ((m.get(ValueLayout.JAVA_BYTE, f + at) & 0xf0) != 0x60) {
                return BAD_L3;
            }
            ipv6 = true;
            proto = m.get(ValueLayout.JAVA_BYTE, f + at + 6) & 0xff;
            l4 = at + 40;
            pseudo = sum(m, f + at + 8, 32) + proto;
        } else {
            return BAD_L3;
        }
        l3 = at;
        if (type == PacketSys.VIRTIO_NET_HDR_GSO_TCPV4 && (ipv6 || proto != 6)
                || type == PacketSys.VIRTIO_NET_HDR_GSO_TCPV6 && (!ipv6 || proto != 6)
                || type == PacketSys.VIRTIO_NET_HDR_GSO_UDP_L4 && proto != 17) {
            return BAD_L3; // IPv6 extension headers land here too (next header not TCP/UDP)
        }
        if (needsCsum && csumStart != l4) {
            return BAD_L4;
        }
        tcp = proto == 6;
        if (tcp) {
            if (l4 + 20 > len) {
                return BAD_L4;
            }
            int thl = (m.get(ValueLayout.JAVA_BYTE, f + l4 + 12) >>> 4 & 0x0f) * 4;
            if (thl < 20) {
                return BAD_L4;
            }
            hdr = l4 + thl;
            tcpSeq = m.get(BE32, f + l4 + 4);
            tcpFlags = m.get(ValueLayout.JAVA_BYTE, f + l4 + 13) & 0xff;
        } else {
            hdr = l4 + 8;
        }
        if (hdr >= len) {
            return BAD_L4;
        }
        payload = len - hdr;
        mss = gsoSize;
        segments = (payload + mss - 1) / mss;
        this.vlan = vlan;
        this.tpid = tpid;
        this.tci = tci;
        if (hdr + (vlan ? TAG : 0) + Math.min(mss, payload) > bufferBytes) {
            return TOO_BIG;
        }
        return OK;
    }

    /** @return segments the parsed super-frame yields. */
    int segments() {
        return segments;
    }

    /** @return payload bytes per segment (gso_size) of the parsed super-frame. */
    int segmentPayload() {
        return mss;
    }

    /**
     * Writes segment {@code k} of the super-frame {@link #parse} accepted (still at {@code m[f, …)}) to
     * {@code dst[d, …)}.
     *
     * @return the segment's length in bytes
     */
    int write(MemorySegment m, long f, int k, MemorySegment dst, long d) {
        int off = k * mss;
        int seg = Math.min(mss, payload - off);
        int ins = vlan ? TAG : 0;
        if (vlan) {
            MemorySegment.copy(m, f, dst, d, MACS);
            dst.set(BE16, d + MACS, (short) tpid);
            dst.set(BE16, d + MACS + 2, (short) tci);
            MemorySegment.copy(m, f + MACS, dst, d + MACS + TAG, hdr - MACS);
        } else {
            MemorySegment.copy(m, f, dst, d, hdr);
        }
        MemorySegment.copy(m, f + hdr + off, dst, d + hdr + ins, seg);
        long o3 = d + l3 + ins;
        long o4 = d + l4 + ins;
        int l4len = hdr - l4 + seg;
        if (ipv6) {
            dst.set(BE16, o3 + 4, (short) (hdr - l3 - 40 + seg));
        } else {
            int ihl = l4 - l3;
            dst.set(BE16, o3 + 2, (short) (hdr - l3 + seg));
            dst.set(BE16, o3 + 4, (short) (ip4Id + k));
            dst.set(BE16, o3 + 10, (short) 0);
            dst.set(BE16, o3 + 10, (short) ~fold(sum(dst, o3, ihl)));
        }
        int field;
        if (tcp) {
            dst.set(BE32, o4 + 4, tcpSeq + off);
            int flags = tcpFlags;
            if (k > 0) {
                flags &= ~0x80; // CWR: first segment only
            }
            if (k < segments - 1) {
                flags &= ~0x09; // FIN, PSH: last segment only
            }
            dst.set(ValueLayout.JAVA_BYTE, o4 + 13, (byte) flags);
            field = 16;
        } else {
            dst.set(BE16, o4 + 4, (short) l4len);
            field = 6;
        }
        dst.set(BE16, o4 + field, (short) 0);
        int c = ~fold(pseudo + l4len + sum(dst, o4, l4len)) & 0xffff;
        if (c == 0 && !tcp) {
            c = 0xffff;
        }
        dst.set(BE16, o4 + field, (short) c);
        return hdr + ins + seg;
    }

    /**
     * @return the ones' complement sum (RFC 1071), not folded, of {@code n} bytes at {@code m[p, …)} read as
     *     big-endian 16-bit words (an odd last byte padded with a zero byte): summed four bytes at a time
     */
    static long sum(MemorySegment m, long p, int n) {
        long s = 0;
        long end = p + n;
        for (; p + 4 <= end; p += 4) {
            s += m.get(BE32, p) & 0xffffffffL;
        }
        if (p + 2 <= end) {
            s += m.get(BE16, p) & 0xffff;
            p += 2;
        }
        if (p < end) {
            s += (m.get(ValueLayout.JAVA_BYTE, p) & 0xff) << 8;
        }
        return s;
    }

    /** @return {@code s} folded to 16 bits (end-around carry). */
    static int fold(long s) {
        while ((s >>> 16) != 0) {
            s = (s & 0xffff) + (s >>> 16);
        }
        return (int) s;
    }
}
