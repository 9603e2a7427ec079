package io.vecflow.collector.query;

import io.vecflow.common.IpAddresses;
import java.util.HexFormat;

/**
 * Address text to the stores' 16 bytes and back, without {@link java.net.InetAddress} (which may ask DNS for a name):
 * IPv4 dotted quads (stored mapped as {@code ::ffff:a.b.c.d}), IPv6 text (RFC 4291 §2.2, with {@code ::} and a
 * trailing dotted quad) and subnets {@code address/length}, the length counted in the address's own family.
 */
public final class Addresses {
    private Addresses() {}

    /**
     * An address or subnet: the first and last address it covers.
     *
     * @param first 16 bytes, the lowest address
     * @param last 16 bytes, the highest address (equal to {@code first} for one address)
     * @param text the canonical text ({@code 10.0.0.0/8}, {@code 2001:db8::1})
     */
    public record Range(byte[] first, byte[] last, String text) {
        /** @return true when the range is one address */
        public boolean single() {
            return java.util.Arrays.equals(first, last);
        }
    }

    /**
     * @param s an address or subnet, e.g. {@code 10.0.0.1}, {@code 10.0.0.0/8}, {@code 2001:db8::/32}
     * @return the range it covers, or null when {@code s} is not one
     */
    public static Range parseRange(String s) {
        int slash = s.indexOf('/');
        String a = slash < 0 ? s : s.substring(0, slash);
        byte[] b = parse(a);
        if (b == null) {
            return null;
        }
        boolean v4 = a.indexOf(':') < 0;
        int max = v4 ? 32 : 128;
        int len = max;
        if (slash >= 0) {
            String l = s.substring(slash + 1);
            if (l.isEmpty() || l.length() > 3 || !l.chars().allMatch(Character::isDigit)) {
                return null;
            }
            len = Integer.parseInt(l);
            if (len > max) {
                return null;
            }
        }
        int bits = (v4 ? 96 : 0) + len;
        byte[] first = b.clone();
        byte[] last = b.clone();
        for (int i = 0; i < 128; i++) {
            if (i >= bits) {
                first[i / 8] &= (byte) ~(0x80 >>> (i % 8));
                last[i / 8] |= (byte) (0x80 >>> (i % 8));
            }
        }
        String text = IpAddresses.toString(first, 0, 16) + (len == max ? "" : "/" + len);
        return new Range(first, last, text);
    }

    /**
     * @param s an IPv4 or IPv6 address
     * @return its 16 bytes (IPv4 mapped), or null when {@code s} is not an address
     */
    public static byte[] parse(String s) {
        if (s.isEmpty() || s.length() > 45) {
            return null;
        }
        if (s.indexOf(':') < 0) {
            byte[] v4 = parseV4(s);
            if (v4 == null) {
                return null;
            }
            byte[] out = new byte[16];
            out[10] = (byte) 0xFF;
            out[11] = (byte) 0xFF;
            System.arraycopy(v4, 0, out, 12, 4);
            return out;
        }
        return parseV6(s);
    }

    private static byte[] parseV4(String s) {
        String[] p = s.split("\\.", -1);
        if (p.length != 4) {
            return null;
        }
        byte[] out = new byte[4];
        for (int i = 0; i < 4; i++) {
            if (p[i].isEmpty() || p[i].length() > 3 || !p[i].chars().allMatch(c -> c >= '0' && c <= '9')) {
                return null;
            }
            int v = Integer.parseInt(p[i]);
            if (v > 255) {
                return null;
            }
            out[i] = (byte) v;
        }
        return out;
    }

    private static byte[] parseV6(String s) {
        int dc = s.indexOf("::");
        if (dc >= 0 && s.indexOf("::", dc + 1) >= 0) {
            return null;
        }
        String head = dc < 0 ? s : s.substring(0, dc);
        String tail = dc < 0 ? "" : s.substring(dc + 2);
        int[] h = groups(head, dc < 0);
        int[] t = groups(tail, true);
        if (h == null || t == null) {
            return null;
        }
        int total = h.length + t.length;
        if (dc < 0 ? total != 8 : total > 7) {
            return null;
        }
        byte[] out = new byte[16];
        for (int i = 0; i < h.length; i++) {
            out[2 * i] = (byte) (h[i] >>> 8);
            out[2 * i + 1] = (byte) h[i];
        }
        for (int i = 0; i < t.length; i++) {
            int g = 8 - t.length + i;
            out[2 * g] = (byte) (t[i] >>> 8);
            out[2 * g + 1] = (byte) t[i];
        }
        return out;
    }

    /** Groups of 16 bits; the last may be a dotted quad (two groups) when {@code last} is true. */
    private static int[] groups(String s, boolean last) {
        if (s.isEmpty()) {
            return new int[0];
        }
        String[] p = s.split(":", -1);
        int n = p.length;
        boolean quad = last && p[n - 1].indexOf('.') >= 0;
        int[] out = new int[n + (quad ? 1 : 0)];
        for (int i = 0; i < n; i++) {
            if (quad && i == n - 1) {
                byte[] v4 = parseV4(p[i]);
                if (v4 == null) {
                    return null;
                }
                out[i] = (v4[0] & 0xFF) << 8 | (v4[1] & 0xFF);
                out[i + 1] = (v4[2] & 0xFF) << 8 | (v4[3] & 0xFF);
                continue;
            }
            if (p[i].isEmpty() || p[i].length() > 4) {
                return null;
            }
            int v = 0;
            for (char c : p[i].toCharArray()) {
                int d = Character.digit(c, 16);
                if (d < 0) {
                    return null;
                }
                v = v << 4 | d;
            }
            out[i] = v;
        }
        return out;
    }

    /**
     * @param b 16 bytes
     * @return the display text: IPv4-mapped as a dotted quad, other addresses RFC 5952, all zeros as empty
     */
    public static String format(byte[] b) {
        return IpAddresses.toString(b, 0, 16);
    }

    /**
     * @param b 16 bytes
     * @return 32 lower-case hex digits
     */
    public static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    /**
     * @param hex hex digits of 16 bytes (either case); fewer bytes are padded with zeros at the end
     * @return the bytes, or null when {@code hex} is not hex
     */
    public static byte[] fromHex(String hex) {
        if (hex.length() % 2 != 0 || hex.length() > 32) {
            return null;
        }
        try {
            byte[] b = HexFormat.of().parseHex(hex);
            return java.util.Arrays.copyOf(b, 16);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
