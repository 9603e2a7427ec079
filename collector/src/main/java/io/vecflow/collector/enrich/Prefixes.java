package io.vecflow.collector.enrich;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** Address prefixes of the configuration ({@code 192.0.2.0/24}, {@code 2001:db8::/32}, or a bare address). */
final class Prefixes {
    private Prefixes() {}

    /**
     * Parses a prefix into a 16-byte address (IPv4 mapped) and a length over those 16 bytes.
     *
     * @param text the prefix, literal addresses only (no host names)
     * @return {address16, {length}}
     * @throws IllegalArgumentException naming the text when it is not a prefix or has host bits set
     */
    static byte[][] parse(String text) {
        String t = text == null ? "" : text.strip();
        int slash = t.indexOf('/');
        String addr = slash < 0 ? t : t.substring(0, slash);
        if (addr.isEmpty() || !(addr.contains(":") || addr.matches("[0-9.]+"))) {
            throw new IllegalArgumentException("'" + text + "' is not an address or prefix");
        }
        byte[] raw;
        try {
            raw = InetAddress.getByName(addr).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("'" + text + "' is not an address or prefix");
        }
        int max = raw.length * 8;
        int len;
        try {
            len = slash < 0 ? max : Integer.parseInt(t.substring(slash + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "': bad prefix length");
        }
        if (len < 0 || len > max) {
            throw new IllegalArgumentException("'" + text + "': prefix length " + len + " (need 0.." + max + ")");
        }
        byte[] a16 = new byte[16];
        if (raw.length == 4) {
            a16[10] = (byte) 0xFF;
            a16[11] = (byte) 0xFF;
            System.arraycopy(raw, 0, a16, 12, 4);
            len += 96;
        } else {
            System.arraycopy(raw, 0, a16, 0, 16);
        }
        for (int bit = len; bit < 128; bit++) {
            if ((a16[bit >> 3] & (0x80 >> (bit & 7))) != 0) {
                throw new IllegalArgumentException("'" + text + "' has host bits set beyond /"
                        + (raw.length == 4 ? len - 96 : len));
            }
        }
        return new byte[][] {a16, {(byte) len}};
    }

    /**
     * @param prefix a prefix as {@link #parse} takes it
     * @param address16 an address, 16 bytes (IPv4 mapped)
     * @return the prefix's length over 16 bytes when it contains the address, else −1
     */
    static int matchLength(String prefix, byte[] address16) {
        byte[][] p = parse(prefix);
        int len = p[1][0] & 0xFF;
        for (int bit = 0; bit < len; bit++) {
            int m = 0x80 >> (bit & 7);
            if ((p[0][bit >> 3] & m) != (address16[bit >> 3] & m)) {
                return -1;
            }
        }
        return len;
    }
}
