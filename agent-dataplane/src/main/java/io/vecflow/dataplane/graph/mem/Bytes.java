package io.vecflow.dataplane.graph.mem;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Network-byte-order (big-endian) accessors on a {@link MemorySegment} and the Internet checksum (RFC 1071), shared by
 * the nodes and the packet rewrites. Offsets are absolute byte offsets in the segment; every access is
 * bounds-checked by the segment. Allocation-free except {@link #addressString}.
 */
public final class Bytes {
    /** Big-endian unaligned 16-bit layout. */
    public static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Big-endian unaligned 32-bit layout. */
    public static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Big-endian unaligned 64-bit layout. */
    public static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Bytes() {
    }

    /** @return the unsigned byte at {@code at} */
    public static int u8(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }

    /** @return the unsigned big-endian 16-bit value at {@code at} */
    public static int u16(MemorySegment s, long at) {
        return s.get(BE16, at) & 0xFFFF;
    }

    /** @return the big-endian 32-bit value at {@code at} */
    public static int i32(MemorySegment s, long at) {
        return s.get(BE32, at);
    }

    /** @return the big-endian 64-bit value at {@code at} */
    public static long i64(MemorySegment s, long at) {
        return s.get(BE64, at);
    }

    /** Stores the low byte of {@code v} at {@code at}. */
    public static void put8(MemorySegment s, long at, int v) {
        s.set(ValueLayout.JAVA_BYTE, at, (byte) v);
    }

    /** Stores the low 16 bits of {@code v} big-endian at {@code at}. */
    public static void put16(MemorySegment s, long at, int v) {
        s.set(BE16, at, (short) v);
    }

    /** Stores {@code v} big-endian at {@code at}. */
    public static void put32(MemorySegment s, long at, int v) {
        s.set(BE32, at, v);
    }

    /** Stores {@code v} big-endian at {@code at}. */
    public static void put64(MemorySegment s, long at, long v) {
        s.set(BE64, at, v);
    }

    /**
     * The one's-complement sum (RFC 1071 §4.1) of {@code len} bytes at {@code at}, added to {@code initial}, not
     * folded: add pseudo-header words with {@link #sumAddress}, then {@link #fold}. An odd trailing byte is padded
     * with a zero byte.
     */
    public static long sum(MemorySegment s, long at, int len, long initial) {
        long acc = initial;
        int i = 0;
        for (; i + 8 <= len; i += 8) {
            long w = s.get(BE64, at + i);
            acc += (w >>> 32) + (w & 0xFFFF_FFFFL);
        }
        for (; i + 2 <= len; i += 2) {
            acc += s.get(BE16, at + i) & 0xFFFF;
        }
        if (i < len) {
            acc += (s.get(ValueLayout.JAVA_BYTE, at + i) & 0xFF) << 8;
        }
        return acc;
    }

    /** Adds a 128-bit address (two longs) to a one's-complement sum (for IPv6 pseudo-headers, RFC 8200 §8.1). */
    public static long sumAddress(long hi, long lo, long acc) {
        return acc + (hi >>> 32) + (hi & 0xFFFF_FFFFL) + (lo >>> 32) + (lo & 0xFFFF_FFFFL);
    }

    /** Folds a one's-complement sum to 16 bits and complements it: the value to store in a checksum field. */
    public static int fold(long acc) {
        while ((acc >>> 16) != 0) {
            acc = (acc & 0xFFFF) + (acc >>> 16);
        }
        return (int) (~acc & 0xFFFF);
    }

    /** The IPv4 header checksum (RFC 791 §3.1) of a 20-byte header at {@code at}, computed with the field as 0. */
    public static int ipv4HeaderChecksum(MemorySegment s, long at) {
        long acc = 0;
        for (int i = 0; i < 20; i += 4) {
            acc += s.get(BE32, at + i) & 0xFFFF_FFFFL;
        }
        acc -= u16(s, at + 10); // the checksum field itself counts as zero
        return fold(acc);
    }

    /**
     * @return the one's-complement sum (folded to 16 bits, not inverted) of {@code len} bytes (RFC 1071). Adds 32-bit
     *         big-endian words and folds at the end (RFC 1071 §2(A): the sum may be accumulated in wider words, since
     *         2<sup>16</sup> ≡ 1 modulo 2<sup>16</sup> − 1), half the reads of a 16-bit loop — 5 for an IPv4 header.
     */
    public static int sum16(MemorySegment d, long off, int len) {
        long s = 0;
        int i = 0;
        for (; i + 3 < len; i += 4) {
            s += d.get(BE32, off + i) & 0xFFFF_FFFFL;
        }
        if (i + 1 < len) {
            s += d.get(BE16, off + i) & 0xFFFF;
            i += 2;
        }
        if (i < len) {
            s += (d.get(ValueLayout.JAVA_BYTE, off + i) & 0xFF) << 8;
        }
        while ((s >>> 16) != 0) {
            s = (s & 0xFFFF) + (s >>> 16);
        }
        return (int) s;
    }

    /**
     * Incrementally updates a 16-bit Internet checksum for one 16-bit word changing from {@code oldWord} to
     * {@code newWord} (RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m')).
     */
    public static int updateChecksum(int checksum, int oldWord, int newWord) {
        int s = (~checksum & 0xFFFF) + (~oldWord & 0xFFFF) + (newWord & 0xFFFF);
        s = (s & 0xFFFF) + (s >>> 16);
        s = (s & 0xFFFF) + (s >>> 16);
        return ~s & 0xFFFF;
    }

    /** Formats a 128-bit address: dotted quad when IPv4-mapped, else RFC 5952 text (allocates; diagnostics only). */
    public static String addressString(long hi, long lo) {
        if (hi == 0 && (lo >>> 32) == 0xFFFFL) {
            int v = (int) lo;
            return (v >>> 24) + "." + (v >>> 16 & 0xFF) + "." + (v >>> 8 & 0xFF) + "." + (v & 0xFF);
        }
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (hi >>> (56 - 8 * i));
            b[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        try {
            return java.net.InetAddress.getByAddress(b).getHostAddress();
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e); // 16 bytes is always a valid length
        }
    }
}
