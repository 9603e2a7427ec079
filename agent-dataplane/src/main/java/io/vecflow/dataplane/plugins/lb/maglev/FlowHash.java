package io.vecflow.dataplane.plugins.lb.maglev;

import java.util.zip.CRC32C;

/**
 * The LB's 5-tuple hash, used for both the {@link ConnectionTable} bucket and the {@link MaglevTable} slot
 * ({@code ring[hash mod M]}).
 *
 * <p><b>Function.</b> {@link #hash} is xxHash64's round and finaliser (Y. Collet, xxHash specification, XXH64: primes
 * P1–P5, {@code round(acc, w) = rotl(acc ^ rotl(w·P2, 31)·P1, 27)·P1 + P4}, avalanche {@code >>>33 ·P2 >>>29 ·P3
 * >>>32}) applied to five 64-bit words: source address hi/lo, destination address hi/lo (IPv4-mapped for IPv4, see
 * {@link FlowKey}), and {@code protocol << 32 | srcPort << 16 | dstPort}. With seed 0 it equals
 * {@code io.vecflow.packet.ParsedPacket.flowHash()} for the same 5-tuple, so RSS-style worker steering and the LB
 * agree on a flow's hash (Maglev §3.1: the thread recomputes the steering hash). It is not the xxHash64 of the 40
 * key bytes (no stripes, no length-based tail), only its mixing.
 *
 * <p><b>Why not Katran's jhash or VPP's CRC32C.</b> Katran hashes with jhash (seed {@code 512·65537}) and VPP lb with
 * CRC32C (docs/load-balancing.md §1–§2); neither is needed for interoperability — the hash never leaves the worker. The
 * five words are already in registers (the {@link ConnectionTable} key), the mix is 5 multiply-rotate rounds with no
 * memory traffic, and it gives 64 well-mixed bits: the low bits pick the bucket, the high 32 the bucket tag, and all 64
 * the Maglev slot. {@code java.util.zip.CRC32C} needs the key as bytes (a {@code byte[]} or {@code ByteBuffer}; 40
 * bytes copied first), returns 32 bits, and carries state; {@link Crc32c} is that variant, allocation-free, kept for
 * comparison (JMH {@code FlowHashBenchmark} in bench/). CRC32C is linear, so an attacker who knows the function can
 * craft colliding keys; the seed of {@link #hash} should be random per process for the same reason Katran seeds jhash.
 *
 * <p>Allocation-free; stateless and thread-safe ({@link Crc32c} instances are per thread).
 */
public final class FlowHash {
    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long P4 = 0x85EBCA77C2B2AE63L;
    private static final long P5 = 0x27D4EB2F165667C5L;
    /** Bytes hashed (5 words), mixed into the initial value as XXH64 does with the input length. */
    private static final int KEY_BYTES = 40;

    private FlowHash() {
    }

    /**
     * @param seed  per-process secret (0 = the value of {@code ParsedPacket.flowHash()})
     * @param srcHi source address bytes 0–7
     * @param srcLo source address bytes 8–15
     * @param dstHi destination address bytes 0–7
     * @param dstLo destination address bytes 8–15
     * @param ports {@code protocol << 32 | srcPort << 16 | dstPort} ({@link FlowKey#portsWord()})
     * @return the 64-bit hash
     */
    public static long hash(long seed, long srcHi, long srcLo, long dstHi, long dstLo, long ports) {
        long h = seed + P5 + KEY_BYTES;
        h = round(h, srcHi);
        h = round(h, srcLo);
        h = round(h, dstHi);
        h = round(h, dstLo);
        h = round(h, ports);
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        h ^= h >>> 32;
        return h;
    }

    /** {@link #hash} of a key. */
    public static long hash(long seed, FlowKey k) {
        return hash(seed, k.srcHi, k.srcLo, k.dstHi, k.dstLo, k.portsWord());
    }

    private static long round(long acc, long input) {
        acc ^= Long.rotateLeft(input * P2, 31) * P1;
        return Long.rotateLeft(acc, 27) * P1 + P4;
    }

    /**
     * CRC32C (Castagnoli, RFC 3720 §12.1; the function of VPP's lb and SRLB flow tables) of the 40 key bytes in
     * {@link FlowHash}'s word order, big-endian, through {@code java.util.zip.CRC32C} (a HotSpot intrinsic). One per
     * thread: it owns the CRC state and a 40-byte scratch array; {@link #hash} allocates nothing. The 32-bit result
     * is returned zero-extended; for a Maglev slot, 32 bits are plenty (M ≤ 2<sup>24</sup>).
     */
    public static final class Crc32c {
        private final CRC32C crc = new CRC32C();
        private final byte[] scratch = new byte[KEY_BYTES];

        /** @return CRC32C of the key's 40 bytes, in [0, 2<sup>32</sup>) */
        public long hash(FlowKey k) {
            putLong(0, k.srcHi);
            putLong(8, k.srcLo);
            putLong(16, k.dstHi);
            putLong(24, k.dstLo);
            putLong(32, k.portsWord());
            crc.reset();
            crc.update(scratch, 0, KEY_BYTES);
            return crc.getValue();
        }

        private void putLong(int at, long v) {
            for (int i = 0; i < 8; i++) {
                scratch[at + i] = (byte) (v >>> (56 - 8 * i));
            }
        }
    }
}
