package io.vecflow.dataplane.graph.mem;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Big-endian field access and checksum helpers over buffer data, shared by the nodes. No allocation. */
public final class Frames {
    static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    public static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    public static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Frames() {}

    public static int u8(MemorySegment d, long off) {
        return d.get(ValueLayout.JAVA_BYTE, off) & 0xFF;
    }

    public static int u16(MemorySegment d, long off) {
        return d.get(BE16, off) & 0xFFFF;
    }

    public static void put16(MemorySegment d, long off, int v) {
        d.set(BE16, off, (short) v);
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
}
