package io.vecflow.common;

/**
 * Address text without {@link java.net.InetAddress}: dotted quads and RFC 5952 canonical IPv6 (Java's
 * {@code getHostAddress} does not compress zero groups). Allocates only the returned string.
 */
public final class IpAddresses {
    private IpAddresses() {}

    /**
     * Text of a 4-byte or 16-byte address; a 16-byte IPv4-mapped address ({@code ::ffff:a.b.c.d}) is shown as its
     * dotted quad, the all-zero 16-byte address as the empty string (no address).
     *
     * @param a the address bytes, network order
     * @param off offset of the first byte
     * @param len 4 or 16
     * @return the text
     * @throws IllegalArgumentException for another length
     */
    public static String toString(byte[] a, int off, int len) {
        if (len == 4) {
            return dottedQuad(be32(a, off));
        }
        if (len != 16) {
            throw new IllegalArgumentException("address length must be 4 or 16, got " + len);
        }
        long hi = be64(a, off);
        long lo = be64(a, off + 8);
        if (hi == 0 && lo == 0) {
            return "";
        }
        if (hi == 0 && (lo >>> 32) == 0xFFFFL) {
            return dottedQuad((int) lo);
        }
        return ipv6String(hi, lo);
    }

    private static int be32(byte[] a, int o) {
        return (a[o] & 0xFF) << 24 | (a[o + 1] & 0xFF) << 16 | (a[o + 2] & 0xFF) << 8 | (a[o + 3] & 0xFF);
    }

    private static long be64(byte[] a, int o) {
        return (long) be32(a, o) << 32 | (be32(a, o + 4) & 0xFFFFFFFFL);
    }

    /**
     * @param v an IPv4 address as a 32-bit value
     * @return dotted-quad text
     */
    public static String dottedQuad(int v) {
        return (v >>> 24) + "." + (v >>> 16 & 0xFF) + "." + (v >>> 8 & 0xFF) + "." + (v & 0xFF);
    }

    /**
     * RFC 5952 §4 canonical text of an IPv6 address; IPv4-mapped addresses in the §5 mixed notation.
     *
     * @param hi first 8 bytes, big-endian
     * @param lo last 8 bytes, big-endian
     * @return the text
     */
    public static String ipv6String(long hi, long lo) {
        if (hi == 0 && (lo >>> 32) == 0xFFFFL) {
            return "::ffff:" + dottedQuad((int) lo);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 4; i++) {
            groups[i] = (int) (hi >>> (48 - 16 * i)) & 0xFFFF;
            groups[4 + i] = (int) (lo >>> (48 - 16 * i)) & 0xFFFF;
        }
        int bestStart = -1;
        int bestLen = 1; // a single 0 group is never compressed (§4.2.2)
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLen) { // first longest run wins on ties (§4.2.3)
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(groups[i]));
        }
        return sb.toString();
    }
}
