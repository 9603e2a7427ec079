package io.vecflow.lab.kernel;

import java.nio.charset.StandardCharsets;

/** Builds the probe frames the drop check sends: Ethernet II + IPv4 (no options, valid checksum) + UDP. */
public final class ProbeFrames {
    private ProbeFrames() {}

    /** Smallest frame built, bytes (the Ethernet minimum without FCS; shorter probes are padded in the payload). */
    public static final int MIN_FRAME = 60;

    /**
     * An Ethernet/IPv4/UDP frame: TTL 64, DF, IP id 0x1234, UDP checksum 0 (none, RFC 768), the text as payload
     * (padded with zeros to a {@value #MIN_FRAME}-byte frame).
     *
     * @param dst     destination MAC, 6 bytes
     * @param src     source MAC, 6 bytes
     * @param srcIp   source IPv4 address, 4 bytes
     * @param dstIp   destination IPv4 address, 4 bytes
     * @param srcPort UDP source port
     * @param dstPort UDP destination port
     * @param text    payload (US-ASCII)
     * @return the frame, FCS excluded
     */
    public static byte[] udp4(byte[] dst, byte[] src, byte[] srcIp, byte[] dstIp, int srcPort, int dstPort,
            String text) {
        byte[] payload = text.getBytes(StandardCharsets.US_ASCII);
        int len = Math.max(MIN_FRAME, 14 + 20 + 8 + payload.length);
        byte[] f = new byte[len];
        System.arraycopy(dst, 0, f, 0, 6);
        System.arraycopy(src, 0, f, 6, 6);
        f[12] = 0x08;
        f[13] = 0x00;
        int ipLen = len - 14;
        f[14] = 0x45;
        put16(f, 16, ipLen);
        put16(f, 18, 0x1234);
        put16(f, 20, 0x4000);
        f[22] = 64;
        f[23] = 17;
        System.arraycopy(srcIp, 0, f, 26, 4);
        System.arraycopy(dstIp, 0, f, 30, 4);
        put16(f, 24, ipChecksum(f, 14, 20));
        put16(f, 34, srcPort);
        put16(f, 36, dstPort);
        put16(f, 38, ipLen - 20);
        System.arraycopy(payload, 0, f, 42, payload.length);
        return f;
    }

    /** RFC 1071 one's-complement checksum of {@code len} bytes at {@code off} (checksum field zero). */
    static int ipChecksum(byte[] b, int off, int len) {
        long sum = 0;
        for (int i = 0; i < len; i += 2) {
            sum += (b[off + i] & 0xFF) << 8 | (i + 1 < len ? b[off + i + 1] & 0xFF : 0);
        }
        while (sum >> 16 != 0) {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        return (int) (~sum & 0xFFFF);
    }

    private static void put16(byte[] b, int off, int v) {
        b[off] = (byte) (v >> 8);
        b[off + 1] = (byte) v;
    }

    /** Dotted IPv4 text → 4 bytes. */
    public static byte[] ip4(String dotted) {
        String[] p = dotted.split("\\.");
        if (p.length != 4) {
            throw new IllegalArgumentException("not an IPv4 address: " + dotted);
        }
        byte[] a = new byte[4];
        for (int i = 0; i < 4; i++) {
            a[i] = (byte) Integer.parseInt(p[i]);
        }
        return a;
    }
}
