package io.vecflow.dataplane.vnet.fib;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * IPv6 longest-prefix-match table: one open-addressing hash table per prefix length present, probed from the longest
 * length down (binary search on lengths is not used: route sets have few distinct lengths). Keys are the masked
 * address as two longs. A lookup allocates nothing. Immutable once built.
 */
public final class Ip6Fib {
    /** A route: {@code (hi, lo)/length} → result (an adjacency index ≥ 0). */
    public record Route(long hi, long lo, int length, int result) {
        /**
         * @throws IllegalArgumentException if length is outside 0..128 or result is negative
         */
        public Route {
            if (length < 0 || length > 128) {
                throw new IllegalArgumentException("IPv6 prefix length must be 0..128, got " + length);
            }
            if (result < 0) {
                throw new IllegalArgumentException("route result must be >= 0, got " + result);
            }
            hi &= maskHi(length);
            lo &= maskLo(length);
        }
    }

    private final int[] lengths;
    private final long[][] keyHi;
    private final long[][] keyLo;
    private final int[][] results;
    private final int routes;

    static long maskHi(int len) {
        return len == 0 ? 0 : len >= 64 ? -1L : -1L << (64 - len);
    }

    static long maskLo(int len) {
        return len <= 64 ? 0 : len == 128 ? -1L : -1L << (128 - len);
    }

    /**
     * Builds the table; duplicate prefixes: the last one wins.
     *
     * @param routes routes in any order
     */
    public Ip6Fib(List<Route> routes) {
        TreeSet<Integer> lens = new TreeSet<>();
        for (Route r : routes) {
            lens.add(r.length());
        }
        lengths = lens.descendingSet().stream().mapToInt(Integer::intValue).toArray();
        keyHi = new long[lengths.length][];
        keyLo = new long[lengths.length][];
        results = new int[lengths.length][];
        for (int i = 0; i < lengths.length; i++) {
            List<Route> of = new ArrayList<>();
            for (Route r : routes) {
                if (r.length() == lengths[i]) {
                    of.add(r);
                }
            }
            int cap = Integer.highestOneBit(Math.max(4, of.size() * 2 - 1)) << 1;
            keyHi[i] = new long[cap];
            keyLo[i] = new long[cap];
            results[i] = new int[cap];
            java.util.Arrays.fill(results[i], -1);
            for (Route r : of) {
                int s = slot(keyHi[i], keyLo[i], results[i], r.hi(), r.lo());
                keyHi[i][s] = r.hi();
                keyLo[i][s] = r.lo();
                results[i][s] = r.result();
            }
        }
        this.routes = routes.size();
    }

    private static int hash(long hi, long lo) {
        long h = hi * 0x9E3779B97F4A7C15L ^ Long.rotateLeft(lo * 0xC2B2AE3D27D4EB4FL, 31);
        return (int) (h ^ (h >>> 32));
    }

    /** @return the slot holding (hi, lo), or the empty slot where it belongs. */
    private static int slot(long[] kh, long[] kl, int[] res, long hi, long lo) {
        int mask = kh.length - 1;
        int s = hash(hi, lo) & mask;
        while (res[s] >= 0 && (kh[s] != hi || kl[s] != lo)) {
            s = (s + 1) & mask;
        }
        return s;
    }

    /**
     * Longest-prefix match.
     *
     * @param hi destination address bits 0..63 (first 8 bytes, big-endian)
     * @param lo destination address bits 64..127
     * @return the matching route's result, or -1
     */
    public int lookup(long hi, long lo) {
        for (int i = 0; i < lengths.length; i++) {
            int len = lengths[i];
            long h = hi & maskHi(len);
            long l = lo & maskLo(len);
            int r = results[i][slot(keyHi[i], keyLo[i], results[i], h, l)];
            if (r >= 0) {
                return r;
            }
        }
        return -1;
    }

    /** @return number of routes the table was built from. */
    public int size() {
        return routes;
    }
}
