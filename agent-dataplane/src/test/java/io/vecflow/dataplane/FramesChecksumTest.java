package io.vecflow.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link Frames#sum16} (32-bit accumulation) against a plain 16-bit RFC 1071 sum on random bytes of every length. */
class FramesChecksumTest {
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
            assertThat(Frames.sum16(seg, off, len)).as("offset %d length %d", off, len).isEqualTo(reference(b, off, len));
        }
        // a real IPv4 header (RFC 1071 §3's example is not a header; this one verifies to 0xFFFF)
        byte[] h = {0x45, 0, 0, 0x73, 0, 0, 0x40, 0, 0x40, 0x11, (byte) 0xb8, 0x61, (byte) 0xc0, (byte) 0xa8, 0, 1,
            (byte) 0xc0, (byte) 0xa8, 0, (byte) 0xc7};
        assertThat(Frames.sum16(MemorySegment.ofArray(h), 0, 20)).isEqualTo(0xFFFF);
    }
}
