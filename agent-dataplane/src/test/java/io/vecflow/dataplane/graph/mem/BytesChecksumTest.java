package io.vecflow.dataplane.graph.mem;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.ip.IpInputNode;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link Bytes#sum16} (32-bit accumulation) against a plain 16-bit RFC 1071 sum on random bytes of every length. */
class BytesChecksumTest {
    private static int reference(byte[] b, int off, int len) {
        long s = 0;
        for (int i = 0; i < len; i += 2) {
            int hi = b[off + i] & 0xFF, lo = i + 1 < len ? b[off + i + 1] & 0xFF : 0;
            s += hi << 8 | lo;
        }
        while (s >>> 16 != 0) {
            s = (s & 0xFFFF) + (s >>> 16);
        }
        return (int) s;
    }

    @Test
    void wideSumEqualsTheSixteenBitSum() {
        Random rnd = new Random(1071);
        byte[] b = new byte[200];
        MemorySegment seg = MemorySegment.ofArray(b);
        for (int round = 0; round < 20_000; round++) {
            int mode = round % 3;
            for (int i = 0; i < b.length; i++) { // random, all ones, or sparse: carries, 0xFFFF and 0 sums
                b[i] = (byte) (mode == 0 ? rnd.nextInt(256) : mode == 1 ? 0xFF : rnd.nextInt(8) == 0 ? 1 : 0);
            }
            int off = rnd.nextInt(8), len = rnd.nextInt(129);
            assertThat(Bytes.sum16(seg, off, len)).as("offset %d length %d", off, len)
                    .isEqualTo(reference(b, off, len));
        }
        // a real IPv4 header (RFC 1071 §3's example is not a header; this one verifies to 0xFFFF)
        byte[] h = {0x45, 0, 0, 0x73, 0, 0, 0x40, 0, 0x40, 0x11, (byte) 0xb8, 0x61, (byte) 0xc0, (byte) 0xa8, 0, 1,
            (byte) 0xc0, (byte) 0xa8, 0, (byte) 0xc7};
        assertThat(Bytes.sum16(MemorySegment.ofArray(h), 0, 20)).isEqualTo(0xFFFF);
    }

    /**
     * ip4-input's header check (the three-read fast path for IHL 5, the general path otherwise) against a plain
     * reading of RFC 791 / RFC 1812 §5.2.2 with the 16-bit reference sum, on random, valid and nearly valid headers.
     */
    @Test
    void ip4InputCheckEqualsAPlainReading() {
        Random rnd = new Random(791);
        byte[] b = new byte[80];
        MemorySegment seg = MemorySegment.ofArray(b);
        int good = 0, badSum = 0, badHeader = 0;
        for (int round = 0; round < 100_000; round++) {
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) rnd.nextInt(256);
            }
            int avail = rnd.nextInt(70);
            int kind = round % 4;
            if (kind > 0) { // mostly plausible headers: version 4, IHL 5 (or 5..8), a total within reach
                int ihl = kind == 3 ? 5 + rnd.nextInt(4) : 5;
                b[0] = (byte) (0x40 | ihl);
                int total = rnd.nextInt(avail + 8);
                b[2] = (byte) (total >>> 8);
                b[3] = (byte) total;
                if (kind != 2 && ihl * 4 <= b.length) { // a right checksum
                    b[10] = 0;
                    b[11] = 0;
                    int c = ~reference(b, 0, ihl * 4) & 0xFFFF;
                    b[10] = (byte) (c >>> 8);
                    b[11] = (byte) c;
                }
            }
            int vihl = b[0] & 0xFF, ihl = (vihl & 0xF) * 4, total = (b[2] & 0xFF) << 8 | b[3] & 0xFF;
            int want;
            if (avail < 20 || vihl >>> 4 != 4 || ihl < 20 || ihl > avail || total < ihl || total > avail) {
                want = DropReason.IP4_BAD_HEADER.ordinal();
                badHeader++;
            } else if (reference(b, 0, ihl) != 0xFFFF) {
                want = DropReason.IP4_BAD_CHECKSUM.ordinal();
                badSum++;
            } else {
                want = -1;
                good++;
            }
            assertThat(IpInputNode.check4(seg, 0, avail)).as("round %d", round).isEqualTo(want);
        }
        assertThat(good).isGreaterThan(10_000);
        assertThat(badSum).isGreaterThan(1_000);
        assertThat(badHeader).isGreaterThan(10_000);
    }
}
