package io.vecflow.lab.farm;

import io.vecflow.dataplane.plugins.lb.maglev.MurmurHash3;
import java.util.random.RandomGenerator;

/**
 * Synthetic client connections to one VIP and their 5-tuple hash.
 *
 * <p>Each connection gets a fresh client (IPv4 from 10.0.0.0/8, source port 1024–65535) towards the VIP
 * 192.0.2.10:443/TCP. Its hash is {@code MurmurHash3_x64_64(src << 32 | dst, sport << 32 | dport << 8 | proto, 0)}
 * with vecflow's MurmurHash3 ({@link MurmurHash3#x64_64}, the hash Katran's Maglev uses): a u64 that Maglev's
 * {@code ring[hash mod M]} and SRLB's {@code bucket = hash & mask} consume as the data path does.
 */
public final class Connections {
    /** The VIP, 192.0.2.10 (TEST-NET-1), as an unsigned 32-bit value. */
    public static final long VIP = 0xC000020AL;
    /** The VIP's port. */
    public static final int VIP_PORT = 443;
    /** TCP. */
    public static final int PROTO = 6;

    private Connections() {}

    /** @return the hash of one new, random connection to the VIP */
    public static long next(RandomGenerator rng) {
        long src = 0x0A00_0000L | rng.nextInt(1 << 24);
        int sport = 1024 + rng.nextInt(65536 - 1024);
        return hash(src, sport);
    }

    /**
     * @param srcIp client IPv4 address, unsigned
     * @param srcPort client port, 0–65535
     * @return the 5-tuple hash towards {@link #VIP}:{@link #VIP_PORT}/TCP
     */
    public static long hash(long srcIp, int srcPort) {
        return MurmurHash3.x64_64((srcIp << 32) | VIP, ((long) srcPort << 32) | (VIP_PORT << 8) | PROTO, 0);
    }
}
