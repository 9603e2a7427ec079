package io.vecflow.dataplane.plugins.lb.maglev;

/**
 * MurmurHash3 x64-128 (Austin Appleby's public-domain design) specialised to one 16-byte input given as two
 * little-endian u64 words, folded to 64 bits as {@code fmix(h1) + fmix(h2)}. This is the hash Katran uses for Maglev
 * permutations ({@code katran/lib/MurmurHash3.cpp}, {@code MurmurHash3_x64_64(A, B, seed)}), so that our
 * (offset, skip) pairs — and therefore whole lookup tables — equal Katran's for the same endpoint hashes.
 *
 * <p>Equivalently: the first half of the standard x64-128 digest of the 16 bytes {@code A ‖ B} (both little-endian),
 * read as a little-endian u64 — the standard algorithm's final {@code h1 += h2} is exactly this fold; Katran stops
 * there and drops the second half.
 *
 * <p>All arithmetic is modulo 2<sup>64</sup>; the result is an unsigned 64-bit value carried in a {@code long}
 * (use {@link Long#remainderUnsigned} / {@code >>>} on it).
 */
public final class MurmurHash3 {
    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;

    private MurmurHash3() {}

    /**
     * @param a    first input word (u64; Katran passes the endpoint hash)
     * @param b    second input word (u64; Katran passes 42 for the offset hash, 2718281828 for the skip hash)
     * @param seed u32 seed, taken as unsigned (Katran: 0 for offset, 2307 for skip)
     * @return the first u64 of MurmurHash3 x64-128 over the 16 bytes {@code a ‖ b} (= fmix(h1) + fmix(h2)), unsigned
     */
    public static long x64_64(long a, long b, int seed) {
        long h1 = seed & 0xFFFF_FFFFL;
        long h2 = h1;

        long k1 = a * C1;
        k1 = Long.rotateLeft(k1, 31);
        k1 *= C2;
        h1 ^= k1;
        h1 = Long.rotateLeft(h1, 27);
        h1 += h2;
        h1 = h1 * 5 + 0x52dce729L;

        long k2 = b * C2;
        k2 = Long.rotateLeft(k2, 33);
        k2 *= C1;
        h2 ^= k2;
        h2 = Long.rotateLeft(h2, 31);
        h2 += h1;
        h2 = h2 * 5 + 0x38495ab5L;

        h1 ^= 16; // input length in bytes
        h2 ^= 16;
        h1 += h2;
        h2 += h1;
        h1 = fmix64(h1);
        h2 = fmix64(h2);
        h1 += h2;
        // x64-128 would go on with h2 += h1 and return (h1, h2); Katran returns this h1 only.
        return h1;
    }

    /** The MurmurHash3 64-bit finaliser (avalanche). */
    static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }
}
