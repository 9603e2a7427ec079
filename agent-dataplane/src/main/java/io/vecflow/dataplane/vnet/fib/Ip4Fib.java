package io.vecflow.dataplane.vnet.fib;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * IPv4 longest-prefix-match table as a 16-8-8 multibit trie (the DIR-16-8-8 variant of Gupta et al., "Routing lookups
 * in hardware at memory access speeds", INFOCOM 1998): one 65,536-entry first level indexed by the top 16 address bits,
 * then 256-entry chunks for the next 8 and the last 8 bits. A lookup is at most three array reads and allocates
 * nothing. Immutable once built; the control plane builds a new table and swaps it in.
 *
 * <p>Entry encoding: {@code v > 0}: a route, value = route's result + 1; {@code 0}: no route; {@code v < 0}: the
 * next level's chunk number {@code -v - 1}.
 */
public final class Ip4Fib {
    /** A route: {@code prefix/length} → result (an adjacency index ≥ 0). */
    public record Route(int prefix, int length, int result) {
        /**
         * @throws IllegalArgumentException if length is outside 0..32 or result is negative
         */
        public Route {
            if (length < 0 || length > 32) {
                throw new IllegalArgumentException("IPv4 prefix length must be 0..32, got " + length);
            }
            if (result < 0) {
                throw new IllegalArgumentException("route result must be >= 0, got " + result);
            }
            prefix = length == 0 ? 0 : prefix & (int) (0xFFFFFFFFL << (32 - length));
        }
    }

    private final int[] level0 = new int[1 << 16];
    private int[] chunks = new int[256 * 16];
    private int chunkCount;
    private final int routes;

    /**
     * Builds the table. Duplicate prefixes: the last one wins.
     *
     * @param routes routes in any order
     */
    public Ip4Fib(List<Route> routes) {
        List<Route> sorted = new ArrayList<>(routes);
        sorted.sort(Comparator.comparingInt(Route::length));
        for (Route r : sorted) {
            insert(r);
        }
        this.routes = routes.size();
    }

    private int newChunk(int fill) {
        if ((chunkCount + 1) * 256 > chunks.length) {
            chunks = java.util.Arrays.copyOf(chunks, chunks.length * 2);
        }
        int c = chunkCount++;
        java.util.Arrays.fill(chunks, c * 256, c * 256 + 256, fill);
        return c;
    }

    private void insert(Route r) {
        int v = r.result() + 1;
        int p = r.prefix();
        int len = r.length();
        if (len <= 16) {
            int first = p >>> 16;
            int n = 1 << (16 - len);
            for (int i = first; i < first + n; i++) {
                level0[i] = v;
            }
            return;
        }
        int i0 = p >>> 16;
        if (level0[i0] >= 0) {
            level0[i0] = -newChunk(level0[i0]) - 1;
        }
        int c1 = -level0[i0] - 1;
        int b1 = (p >>> 8) & 0xFF;
        if (len <= 24) {
            int n = 1 << (24 - len);
            for (int i = b1; i < b1 + n; i++) {
                chunks[c1 * 256 + i] = v;
            }
            return;
        }
        int e1 = c1 * 256 + b1;
        if (chunks[e1] >= 0) {
            int c = newChunk(chunks[e1]);
            chunks[e1] = -c - 1;
        }
        int c2 = -chunks[e1] - 1;
        int b2 = p & 0xFF;
        int n = 1 << (32 - len);
        for (int i = b2; i < b2 + n; i++) {
            chunks[c2 * 256 + i] = v;
        }
    }

    /**
     * Longest-prefix match.
     *
     * @param dst destination address (network order bits in an int: 10.0.0.1 = 0x0A000001)
     * @return the matching route's result, or -1 when no route covers {@code dst}
     */
    public int lookup(int dst) {
        int e = level0[dst >>> 16];
        if (e < 0) {
            e = chunks[(-e - 1) * 256 + ((dst >>> 8) & 0xFF)];
            if (e < 0) {
                e = chunks[(-e - 1) * 256 + (dst & 0xFF)];
            }
        }
        return e - 1;
    }

    /** @return number of routes the table was built from. */
    public int size() {
        return routes;
    }
}
