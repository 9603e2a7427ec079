package io.vecflow.netlink.psample;

/**
 * One-line text rendering of a sample for {@code vecflow psample listen}, e.g.
 * <pre>group=1 seq=42 rate=10 iif=7 oif=0 ifindex=u32 origsize=1514 proto=1 data=64B 00 1b 21 3a 4c 5d 00 0c ...</pre>
 * Fields: sample group, group sequence, sampling rate N, input/output ifindex and their wire width, original frame
 * size in bytes, PROTO (absent: "-"), optional OUT_TC / OUT_TC_OCC (bytes) / LATENCY (ns) / TIMESTAMP (ns), then DATA
 * length in bytes and its first {@value #HEX_BYTES} bytes in hex ("(truncated from N)" when the holder cut it).
 * Allocates (a String): for tools, not hot paths.
 */
public final class PsampleFormatter {
    private PsampleFormatter() {}

    /** Number of leading DATA bytes shown in hex. */
    public static final int HEX_BYTES = 32;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** Renders {@code s} as one line (no trailing newline). */
    public static String format(PsampleSample s) {
        StringBuilder b = new StringBuilder(160 + 3 * HEX_BYTES);
        b.append("group=").append(s.sampleGroup())
                .append(" seq=").append(s.groupSeq())
                .append(" rate=").append(s.sampleRate());
        if (s.sampleProbability()) {
            b.append("(probability)");
        }
        b.append(" iif=").append(s.iifIndex())
                .append(" oif=").append(s.oifIndex());
        int bits = s.ifIndexBits();
        if (bits != 0) {
            b.append(" ifindex=u").append(bits);
        }
        b.append(" origsize=").append(s.origSize());
        b.append(" proto=");
        if (s.proto() < 0) {
            b.append('-');
        } else if (s.proto() > 0x05DC) {
            b.append("0x").append(String.format("%04x", s.proto())); // an ethertype (kernel convention)
        } else {
            b.append(s.proto());
        }
        if (s.outTc() >= 0) {
            b.append(" out_tc=").append(s.outTc());
        }
        if (s.has(Psample.ATTR_OUT_TC_OCC)) {
            b.append(" out_tc_occ=").append(Long.toUnsignedString(s.outTcOccBytes())).append('B');
        }
        if (s.has(Psample.ATTR_LATENCY)) {
            b.append(" latency=").append(Long.toUnsignedString(s.latencyNs())).append("ns");
        }
        if (s.timestampNs() != 0) {
            b.append(" ts=").append(Long.toUnsignedString(s.timestampNs())).append("ns");
        }
        b.append(" data=").append(s.dataLength()).append('B');
        if (s.dataTruncated()) {
            b.append("(truncated from ").append(s.dataWireLength()).append(')');
        }
        int n = Math.min(s.dataLength(), HEX_BYTES);
        byte[] d = s.data();
        for (int i = 0; i < n; i++) {
            b.append(' ').append(HEX[(d[i] >> 4) & 0xF]).append(HEX[d[i] & 0xF]);
        }
        if (s.dataLength() > HEX_BYTES) {
            b.append(" ...");
        }
        return b.toString();
    }
}
