package io.vecflow.collector.enrich.geoip;

import io.vecflow.common.IpAddresses;

/**
 * A prefix in the one 128-bit address space the table uses: IPv6 as is, IPv4 as its IPv4-mapped form
 * {@code ::ffff:a.b.c.d/(96+len)} (RFC 4291 §2.5.5.2), as every vecflow row stores addresses. Parsed without
 * {@link java.net.InetAddress} (which would resolve garbage through DNS): dotted quads as inet_pton takes them
 * (four decimal parts, no leading zeros), IPv6 text per RFC 4291 §2.2 (one {@code ::}, an optional dotted-quad tail).
 *
 * @param hi bytes 0–7 of the network address, big-endian
 * @param lo bytes 8–15
 * @param length prefix length in the 128-bit space (0..128; IPv4 /n is 96+n)
 */
record IpPrefix(long hi, long lo, int length) {
    /** {@code lo} of ::ffff:0.0.0.0 (hi is 0). */
    static final long MAPPED_LO = 0x0000_FFFF_0000_0000L;

    /** @return true when the prefix lies inside ::ffff:0:0/96 (an IPv4 prefix). */
    boolean isIpv4() {
        return hi == 0 && (lo >>> 32) == 0xFFFFL && length >= 96;
    }

    /** @return the IPv4 prefix a.b.c.d/(96+len) as a 32-bit value (meaningful only when {@link #isIpv4()}). */
    int ipv4() {
        return (int) lo;
    }

    /** @return the last address of the prefix, high half */
    long endHi() {
        return hi | hostHi(length);
    }

    /** @return the last address of the prefix, low half */
    long endLo() {
        return lo | hostLo(length);
    }

    /** @return host-bit mask of a 128-bit prefix length, high half */
    static long hostHi(int length) {
        return length >= 64 ? 0 : -1L >>> length;
    }

    /** @return host-bit mask of a 128-bit prefix length, low half */
    static long hostLo(int length) {
        return length >= 128 ? 0 : length <= 64 ? -1L : -1L >>> (length - 64);
    }

    /** @return an IPv4 prefix in the mapped space */
    static IpPrefix ofIpv4(int address, int length) {
        return new IpPrefix(0, MAPPED_LO | (address & 0xFFFF_FFFFL), 96 + length);
    }

    /** @return "a.b.c.d/n" for IPv4 prefixes, RFC 5952 text "/n" for the others */
    @Override
    public String toString() {
        return isIpv4() ? IpAddresses.dottedQuad(ipv4()) + "/" + (length - 96)
                : IpAddresses.ipv6String(hi, lo) + "/" + length;
    }

    /**
     * Parses "address/length", or a bare address (a /32 or /128).
     *
     * @param text e.g. "10.0.0.0/8", "2001:db8::/32", "192.0.2.1"
     * @return the prefix
     * @throws IllegalArgumentException saying what is wrong (length not a number or out of range, a bad address, host
     *         bits set — naming the network meant); the caller adds where the text came from
     */
    static IpPrefix parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty prefix");
        }
        String t = text.strip();
        int slash = t.indexOf('/');
        String addr = slash < 0 ? t : t.substring(0, slash);
        String lenText = slash < 0 ? "" : t.substring(slash + 1);
        boolean v4 = addr.indexOf(':') < 0;
        if (slash >= 0 && (lenText.isEmpty() || lenText.length() > 3
                || !lenText.chars().allMatch(c -> c >= '0' && c <= '9'))) {
            throw new IllegalArgumentException("'" + text + "': prefix length '" + lenText + "' is not a number");
        }
        int len = slash < 0 ? (v4 ? 32 : 128) : Integer.parseInt(lenText);
        long[] a = new long[2];
        if (v4) {
            a[1] = MAPPED_LO | (parseIpv4(addr, text) & 0xFFFF_FFFFL);
            if (len > 32) {
                throw new IllegalArgumentException("'" + text + "': IPv4 prefix length " + len + " > 32");
            }
            len += 96;
        } else {
            parseIpv6(addr, text, a);
            if (len > 128) {
                throw new IllegalArgumentException("'" + text + "': IPv6 prefix length " + len + " > 128");
            }
        }
        if ((a[0] & hostHi(len)) != 0 || (a[1] & hostLo(len)) != 0) {
            IpPrefix meant = new IpPrefix(a[0] & ~hostHi(len), a[1] & ~hostLo(len), len);
            throw new IllegalArgumentException("'" + text + "': host bits set (the network is " + meant + ")");
        }
        return new IpPrefix(a[0], a[1], len);
    }

    /** @return the dotted quad's 32 bits */
    static int parseIpv4(String s, String whole) {
        String[] parts = s.split("\\.", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("'" + whole + "': '" + s + "' is not an IPv4 or IPv6 address");
        }
        int v = 0;
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(c -> c >= '0' && c <= '9')
                    || (p.length() > 1 && p.charAt(0) == '0')) {
                throw new IllegalArgumentException("'" + whole + "': bad IPv4 part '" + p + "' in '" + s + "'");
            }
            int n = Integer.parseInt(p);
            if (n > 255) {
                throw new IllegalArgumentException("'" + whole + "': IPv4 part " + n + " > 255 in '" + s + "'");
            }
            v = v << 8 | n;
        }
        return v;
    }

    /** Fills out[0], out[1] with the address. */
    static void parseIpv6(String s, String whole, long[] out) {
        int dc = s.indexOf("::");
        if (dc >= 0 && s.indexOf("::", dc + 1) >= 0) {
            throw new IllegalArgumentException("'" + whole + "': more than one '::' in '" + s + "'");
        }
        int[] g = new int[8];
        int[] head = groups(dc >= 0 ? s.substring(0, dc) : s, dc < 0, s, whole);
        int[] tail = dc >= 0 ? groups(s.substring(dc + 2), true, s, whole) : new int[0];
        if (dc < 0 ? head.length != 8 : head.length + tail.length > 7) {
            throw new IllegalArgumentException("'" + whole + "': '" + s + "' does not have 8 groups of 16 bits");
        }
        System.arraycopy(head, 0, g, 0, head.length);
        System.arraycopy(tail, 0, g, 8 - tail.length, tail.length);
        out[0] = (long) g[0] << 48 | (long) g[1] << 32 | (long) g[2] << 16 | g[3];
        out[1] = (long) g[4] << 48 | (long) g[5] << 32 | (long) g[6] << 16 | g[7];
    }

    private static int[] groups(String part, boolean ipv4AtEnd, String s, String whole) {
        if (part.isEmpty()) {
            return new int[0];
        }
        String[] f = part.split(":", -1);
        boolean v4 = ipv4AtEnd && f[f.length - 1].indexOf('.') >= 0;
        int[] g = new int[f.length + (v4 ? 1 : 0)];
        for (int i = 0; i < f.length; i++) {
            String x = f[i];
            if (v4 && i == f.length - 1) {
                int q = parseIpv4(x, whole);
                g[i] = q >>> 16;
                g[i + 1] = q & 0xFFFF;
                break;
            }
            if (x.isEmpty() || x.length() > 4 || !x.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                throw new IllegalArgumentException("'" + whole + "': bad IPv6 group '" + x + "' in '" + s + "'");
            }
            g[i] = Integer.parseInt(x, 16);
        }
        return g;
    }
}
