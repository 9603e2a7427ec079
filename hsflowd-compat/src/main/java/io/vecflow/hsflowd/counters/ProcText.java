package io.vecflow.hsflowd.counters;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A reusable buffer holding the text of one {@code /proc} or {@code /sys} file, plus the allocation-free scanning
 * helpers the host parsers use (ASCII decimal numbers, tokens, lines). Files are read whole into one array that grows
 * up to {@link #MAX_BYTES}; a longer file is cut there and counted in {@link #truncatedReads()}.
 *
 * <p>Reading opens a {@link FileInputStream} per call (the only allocation per read). Not thread-safe.
 */
public final class ProcText {
    /** Largest file read, bytes (a /proc/stat of a 1024-CPU host is ~250 KB). */
    public static final int MAX_BYTES = 4 << 20;

    /** The bytes read; valid up to {@link #length}. */
    public byte[] buf;
    /** Bytes of {@link #buf} in use. */
    public int length;
    private long truncatedReads;

    /** @param initialBytes initial buffer size in bytes (grows up to {@link #MAX_BYTES}) */
    public ProcText(int initialBytes) {
        buf = new byte[Math.max(64, Math.min(initialBytes, MAX_BYTES))];
    }

    /**
     * Reads the whole file (up to {@link #MAX_BYTES}).
     *
     * @param file the file, e.g. {@code /proc/stat}
     * @return this, with {@link #length} set
     * @throws IOException if the file cannot be opened or read
     */
    public ProcText read(Path file) throws IOException {
        try (FileInputStream in = new FileInputStream(file.toFile())) {
            int n = 0;
            while (true) {
                if (n == buf.length) {
                    if (buf.length >= MAX_BYTES) {
                        truncatedReads++;
                        break;
                    }
                    byte[] bigger = new byte[Math.min(MAX_BYTES, buf.length * 2)];
                    System.arraycopy(buf, 0, bigger, 0, n);
                    buf = bigger;
                }
                int r = in.read(buf, n, buf.length - n);
                if (r < 0) {
                    break;
                }
                n += r;
            }
            length = n;
        }
        return this;
    }

    /** Points the buffer at given bytes (tests, fixtures): {@link #buf} = {@code bytes}, {@link #length} = its size. */
    public ProcText set(byte[] bytes) {
        buf = bytes;
        length = bytes.length;
        return this;
    }

    /** @return reads cut at {@link #MAX_BYTES}. */
    public long truncatedReads() {
        return truncatedReads;
    }

    // ---- scanning helpers over (buf, pos, end); positions are plain ints, -1 = not found ----

    /** @return the index just past the end of the line starting at {@code p} (after its '\n'), at most {@code end}. */
    static int nextLine(byte[] b, int p, int end) {
        while (p < end && b[p] != '\n') {
            p++;
        }
        return p < end ? p + 1 : end;
    }

    /** @return the index of the line end ('\n' or {@code end}) of the line containing {@code p}. */
    static int lineEnd(byte[] b, int p, int end) {
        while (p < end && b[p] != '\n') {
            p++;
        }
        return p;
    }

    /** @return the first index at or after {@code p} that is not a space or tab (at most {@code end}). */
    static int skipBlanks(byte[] b, int p, int end) {
        while (p < end && (b[p] == ' ' || b[p] == '\t')) {
            p++;
        }
        return p;
    }

    /** @return the first index at or after {@code p} that is a space, tab or '\n' (at most {@code end}). */
    static int skipToken(byte[] b, int p, int end) {
        while (p < end && b[p] != ' ' && b[p] != '\t' && b[p] != '\n') {
            p++;
        }
        return p;
    }

    /** @return true if {@code b[p, p + s.length())} equals the ASCII string {@code s}. */
    static boolean startsWith(byte[] b, int p, int end, String s) {
        if (end - p < s.length()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (b[p + i] != s.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** @return true if the token {@code b[p, q)} equals {@code s}. */
    static boolean tokenEquals(byte[] b, int p, int q, String s) {
        return q - p == s.length() && startsWith(b, p, q, s);
    }

    /**
     * Parses the unsigned decimal starting at {@code p} (no sign, no blanks). Values above 2^63 - 1 wrap as unsigned
     * 64-bit arithmetic does.
     *
     * @return the value, with the index just past its digits in {@code next[0]}; {@code next[0] = -1} if there is no
     *         digit at {@code p}
     */
    static long unsigned(byte[] b, int p, int end, int[] next) {
        int q = p;
        long v = 0;
        while (q < end && b[q] >= '0' && b[q] <= '9') {
            v = v * 10 + (b[q] - '0');
            q++;
        }
        next[0] = q == p ? -1 : q;
        return v;
    }

    /**
     * Parses a non-negative decimal with an optional fraction ({@code 4.02}, {@code 14712.75}) starting at {@code p}.
     *
     * @return the value, with the index past it in {@code next[0]} ({@code -1} if there is no digit at {@code p})
     */
    static double decimal(byte[] b, int p, int end, int[] next) {
        int q = p;
        long mantissa = 0;
        int digits = 0;
        int fraction = 0;
        boolean inFraction = false;
        while (q < end) {
            byte c = b[q];
            if (c >= '0' && c <= '9') {
                if (digits < 18) { // further digits cannot change a float/double of this size: ignore them
                    mantissa = mantissa * 10 + (c - '0');
                    digits++;
                    if (inFraction) {
                        fraction++;
                    }
                } else if (!inFraction) {
                    return overflow(next, q);
                }
            } else if (c == '.' && !inFraction && q > p) {
                inFraction = true;
            } else {
                break;
            }
            q++;
        }
        if (q == p) {
            next[0] = -1;
            return 0;
        }
        next[0] = q;
        return mantissa / POW10[fraction]; // exact integers, one rounding: the nearest double
    }

    private static double overflow(int[] next, int q) {
        next[0] = -1; // more than 18 integer digits: not a value /proc writes here
        return 0;
    }

    private static final double[] POW10 = new double[19];

    static {
        double v = 1;
        for (int i = 0; i < POW10.length; i++) {
            POW10[i] = v;
            v *= 10;
        }
    }
}
