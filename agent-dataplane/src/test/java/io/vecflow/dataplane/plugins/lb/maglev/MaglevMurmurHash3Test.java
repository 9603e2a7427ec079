package io.vecflow.dataplane.plugins.lb.maglev;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@link MurmurHash3#x64_64} against an independent implementation: the expected values are the first u64
 * (little-endian) of Guava 33.6's {@code Hashing.murmur3_128(seed)} over the 16 bytes {@code a ‖ b} (both
 * little-endian), computed once outside the build — Katran's {@code MurmurHash3_x64_64} returns exactly that half.
 */
class MaglevMurmurHash3Test {
    private static final long[][] VECTORS = {
        // a, b, seed, expected
        {0x0000000000000000L, 42L, 0, 0x3ac79cd6e3dbd8e0L},
        {0x0000000000000001L, 42L, 0, 0x0b85e5b738ec6ba3L},
        {0x0000000000000000L, 2718281828L, 2307, 0x67213b529676bcc4L},
        {0x0000000000000001L, 2718281828L, 2307, 0x811a3d9354794c04L},
        {0xdeadbeefcafebabeL, 42L, 0, 0x2e8d31a54ed17f19L},
        {0xffffffffffffffffL, 2718281828L, 2307, 0x9fae090267c66538L},
        {0x0000000000000000L, 0L, 0, 0x4bbd1bf27da918d6L},
    };

    @Test
    void matchesReferenceMurmur3x64_128FirstHalf() {
        for (long[] v : VECTORS) {
            assertThat(MurmurHash3.x64_64(v[0], v[1], (int) v[2]))
                    .as("MurmurHash3_x64_64(0x%x, %d, %d)", v[0], v[1], v[2])
                    .isEqualTo(v[3]);
        }
    }

    @Test
    void everyInputMatters() {
        assertThat(MurmurHash3.x64_64(1, 42, 0)).isNotEqualTo(MurmurHash3.x64_64(2, 42, 0));
        assertThat(MurmurHash3.x64_64(1, 42, 0)).isNotEqualTo(MurmurHash3.x64_64(1, 2718281828L, 0));
        assertThat(MurmurHash3.x64_64(1, 42, 0)).isNotEqualTo(MurmurHash3.x64_64(1, 42, 2307));
    }
}
