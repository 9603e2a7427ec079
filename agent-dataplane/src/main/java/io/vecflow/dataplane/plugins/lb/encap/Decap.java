package io.vecflow.dataplane.plugins.lb.encap;

import io.vecflow.dataplane.graph.mem.Bytes;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import java.lang.foreign.MemorySegment;

/**
 * The receiving side of {@link Encap}: removes a tunnel header in place (a backend or server agent decapsulating what
 * the LB sent), and the two SRH operations of the SRLB server agent (docs/load-balancing.md §3 step 2). One instance
 * per worker (it keeps the offset of the last error); allocation-free.
 *
 * <p><b>Bytes.</b> Input: the Ethernet frame at {@code bufStart}, its outer IP header at {@code l3Off} (≥ 2: the
 * EtherType sits at {@code l3Off − 2}). Output: the same L2 header (VLAN tags kept), the inner IP packet moved back
 * to {@code l3Off} (one overlapping {@link MemorySegment#copy}), its EtherType written at {@code l3Off − 2}; the
 * new frame length is returned, or a negative {@code ERR_*} code with nothing changed.
 *
 * <p>Accepted tunnels ({@link #tunnel}): outer IPv4 (RFC 791; the header checksum is verified, options skipped,
 * fragments refused — reassembly is not done here) or IPv6 (RFC 8200; Hop-by-Hop, Destination Options and one SRH
 * walked, at most {@link FlowKey#MAX_IPV6_EXTENSION_HEADERS} headers), carrying
 * <ul>
 *   <li>GRE (RFC 2784 §2; RFC 2890 §2 key and sequence number skipped; the checksum, if present, is not verified),
 *       version 0, Protocol Type 0x0800 or 0x86DD;</li>
 *   <li>IPv4 (protocol 4, RFC 2003 / RFC 2473) or IPv6 (41, RFC 4213 / RFC 2473);</li>
 *   <li>SRv6: an SRH (RFC 8754) with Segments Left 0 followed by 4 or 41 — RFC 8986 §4.4/§4.6 End.DX6/End.DX4 at the
 *       last segment; with Segments Left &gt; 0 the packet is not ours to decapsulate ({@link #ERR_NOT_LAST}).</li>
 * </ul>
 * The inner packet is the outer payload (outer length minus tunnel headers); its version must match the tunnel's
 * protocol field.
 */
public final class Decap {
    /** The bytes end inside a header. */
    public static final int ERR_TRUNCATED = -1;
    /** Not a tunnel we decapsulate (other protocol, GRE version/flags, non-IP GRE payload). */
    public static final int ERR_NOT_TUNNEL = -2;
    /** A header contradicts itself (lengths, IPv4 checksum, inner version ≠ tunnel protocol). */
    public static final int ERR_MALFORMED = -4;
    /** An SRH with Segments Left &gt; 0 (decapsulation) or = 0 (advance). */
    public static final int ERR_NOT_LAST = -5;
    /** The outer IPv4 packet is a fragment. */
    public static final int ERR_FRAGMENT = -6;

    private int errorOffset;

    /** @return offset from the L3 header of the field behind the last error */
    public int errorOffset() {
        return errorOffset;
    }

    /** @return a short name of an {@code ERR_*} code */
    public static String errorName(int code) {
        return switch (code) {
            case ERR_TRUNCATED -> "truncated";
            case ERR_NOT_TUNNEL -> "not-tunnel";
            case ERR_MALFORMED -> "malformed";
            case ERR_NOT_LAST -> "segments-left";
            case ERR_FRAGMENT -> "fragment";
            default -> code >= 0 ? "ok" : "unknown(" + code + ")";
        };
    }

    /**
     * Removes the outer IP header and tunnel header (see the class comment).
     *
     * @return new frame length ({@code l3Off + inner length}) or {@code ERR_*}
     */
    public int tunnel(MemorySegment seg, long bufStart, int frameLen, int l3Off) {
        long p = bufStart + l3Off;
        int avail = frameLen - l3Off;
        if (l3Off < 2 || avail < 20) {
            return fail(ERR_TRUNCATED, 0);
        }
        int version = Bytes.u8(seg, p) >>> 4;
        int off, end, proto;
        if (version == 4) {
            int ihl = (Bytes.u8(seg, p) & 0xF) * 4;
            int total = Bytes.u16(seg, p + 2);
            if (ihl < 20 || total < ihl || total > avail) {
                return fail(ERR_MALFORMED, ihl < 20 ? 0 : 2);
            }
            if (ihl > 20 ? checksum(seg, p, ihl) != 0 : Bytes.ipv4HeaderChecksum(seg, p) != Bytes.u16(seg, p + 10)) {
                return fail(ERR_MALFORMED, 10);
            }
            if ((Bytes.u16(seg, p + 6) & 0x3FFF) != 0) {
                return fail(ERR_FRAGMENT, 6);
            }
            off = ihl;
            end = total;
            proto = Bytes.u8(seg, p + 9);
        } else if (version == 6) {
            if (avail < 40) {
                return fail(ERR_TRUNCATED, 0);
            }
            int plen = Bytes.u16(seg, p + 4);
            if (plen == 0 || 40 + plen > avail) {
                return fail(ERR_MALFORMED, 4);
            }
            end = 40 + plen;
            proto = Bytes.u8(seg, p + 6);
            off = 40;
            for (int i = 0; i < FlowKey.MAX_IPV6_EXTENSION_HEADERS
                    && (proto == 0 || proto == FlowKey.PROTO_DSTOPTS || proto == FlowKey.PROTO_ROUTING); i++) {
                if (off + 8 > end) {
                    return fail(ERR_TRUNCATED, off);
                }
                if (proto == FlowKey.PROTO_ROUTING) {
                    if (Bytes.u8(seg, p + off + 2) != 4) {
                        return fail(ERR_NOT_TUNNEL, off + 2);
                    }
                    if (Bytes.u8(seg, p + off + 3) != 0) {
                        return fail(ERR_NOT_LAST, off + 3);
                    }
                }
                int next = Bytes.u8(seg, p + off);
                off += (Bytes.u8(seg, p + off + 1) + 1) * 8;
                proto = next;
            }
            if (off > end) {
                return fail(ERR_TRUNCATED, off);
            }
        } else {
            return fail(ERR_NOT_TUNNEL, 0);
        }
        int innerVersion;
        if (proto == FlowKey.PROTO_GRE) {
            if (off + 4 > end) {
                return fail(ERR_TRUNCATED, off);
            }
            int flags = Bytes.u16(seg, p + off);
            int type = Bytes.u16(seg, p + off + 2);
            // C (0x8000), K (0x2000), S (0x1000) allowed; Routing (0x4000), other reserved bits and version ≠ 0 not
            if ((flags & 0x4FFF) != 0) {
                return fail(ERR_NOT_TUNNEL, off);
            }
            int greLen = 4 + ((flags & 0x8000) != 0 ? 4 : 0) + ((flags & 0x2000) != 0 ? 4 : 0)
                    + ((flags & 0x1000) != 0 ? 4 : 0);
            if (type == Encap.ETHERTYPE_IPV4) {
                innerVersion = 4;
            } else if (type == Encap.ETHERTYPE_IPV6) {
                innerVersion = 6;
            } else {
                return fail(ERR_NOT_TUNNEL, off + 2);
            }
            off += greLen;
        } else if (proto == FlowKey.PROTO_IPIP) {
            innerVersion = 4;
        } else if (proto == FlowKey.PROTO_IPV6) {
            innerVersion = 6;
        } else {
            return fail(ERR_NOT_TUNNEL, version == 4 ? 9 : off);
        }
        int innerLen = end - off;
        if (innerLen < (innerVersion == 4 ? 20 : 40)) {
            return fail(ERR_TRUNCATED, off);
        }
        if ((Bytes.u8(seg, p + off) >>> 4) != innerVersion) {
            return fail(ERR_MALFORMED, off);
        }
        MemorySegment.copy(seg, p + off, seg, p, innerLen);
        Bytes.put16(seg, p - 2, innerVersion == 4 ? Encap.ETHERTYPE_IPV4 : Encap.ETHERTYPE_IPV6);
        return l3Off + innerLen;
    }

    /**
     * SRLB server agent, accept (docs/load-balancing.md §3 step 2): removes the SRH that directly follows the IPv6
     * header, sets the destination to Segment List[0] (the VIP) and restores the Next Header. The upper layer moves
     * back by the SRH size.
     *
     * @return new frame length, or {@code ERR_*} ({@link #ERR_NOT_TUNNEL} when there is no SRH right after the
     *         fixed header)
     */
    public int srhPop(MemorySegment seg, long bufStart, int frameLen, int l3Off) {
        long p = bufStart + l3Off;
        int r = checkSrh(seg, p, frameLen - l3Off);
        if (r < 0) {
            return r;
        }
        int plen = Bytes.u16(seg, p + 4);
        int srhBytes = (Bytes.u8(seg, p + 41) + 1) * 8;
        Bytes.put8(seg, p + 6, Bytes.u8(seg, p + 40));
        Bytes.put64(seg, p + 24, Bytes.i64(seg, p + 48));
        Bytes.put64(seg, p + 32, Bytes.i64(seg, p + 56));
        Bytes.put16(seg, p + 4, plen - srhBytes);
        MemorySegment.copy(seg, p + 40 + srhBytes, seg, p + 40, plen - srhBytes);
        return l3Off + 40 + plen - srhBytes;
    }

    /**
     * SRv6 End (RFC 8754 §4.3.1.1, RFC 8986 §4.1) — the SRLB server agent's "pass to the next candidate": decrements
     * Segments Left of the SRH right after the IPv6 header and copies Segment List[Segments Left] to the destination.
     * The hop limit is not decremented (the forwarding node does that). The frame length does not change.
     *
     * @return {@code frameLen}, or {@code ERR_*} ({@link #ERR_NOT_LAST} when Segments Left is already 0)
     */
    public int srhAdvance(MemorySegment seg, long bufStart, int frameLen, int l3Off) {
        long p = bufStart + l3Off;
        int r = checkSrh(seg, p, frameLen - l3Off);
        if (r < 0) {
            return r;
        }
        int sl = Bytes.u8(seg, p + 43);
        if (sl == 0) {
            return fail(ERR_NOT_LAST, 43);
        }
        sl--;
        Bytes.put8(seg, p + 43, sl);
        long at = p + 48 + 16L * sl;
        Bytes.put64(seg, p + 24, Bytes.i64(seg, at));
        Bytes.put64(seg, p + 32, Bytes.i64(seg, at + 8));
        return frameLen;
    }

    /** Checks an IPv6 header followed by a complete SRH whose segment list covers Last Entry and Segments Left. */
    private int checkSrh(MemorySegment seg, long p, int avail) {
        if (avail < 48) {
            return fail(ERR_TRUNCATED, 0);
        }
        if ((Bytes.u8(seg, p) >>> 4) != 6) {
            return fail(ERR_NOT_TUNNEL, 0);
        }
        if (Bytes.u8(seg, p + 6) != FlowKey.PROTO_ROUTING || Bytes.u8(seg, p + 42) != 4) {
            return fail(ERR_NOT_TUNNEL, Bytes.u8(seg, p + 6) != FlowKey.PROTO_ROUTING ? 6 : 42);
        }
        int plen = Bytes.u16(seg, p + 4);
        int srhBytes = (Bytes.u8(seg, p + 41) + 1) * 8;
        if (40 + plen > avail || srhBytes > plen) {
            return fail(ERR_MALFORMED, 4);
        }
        int lastEntry = Bytes.u8(seg, p + 44);
        int sl = Bytes.u8(seg, p + 43);
        if (8 + 16 * (lastEntry + 1) > srhBytes || sl > lastEntry) {
            return fail(ERR_MALFORMED, sl > lastEntry ? 43 : 44);
        }
        return 0;
    }

    private static int checksum(MemorySegment seg, long p, int len) {
        return Bytes.fold(Bytes.sum(seg, p, len, 0));
    }

    private int fail(int code, int offset) {
        errorOffset = offset;
        return code;
    }
}
