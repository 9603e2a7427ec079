package io.vecflow.dataplane.vnet.fib;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The forwarding state of the L3 nodes: IPv4 and IPv6 FIBs whose results are adjacencies (VPP's {@code
 * ip_adjacency_t}), and the static neighbour tables (no ARP or ND: neighbours come from configuration). Immutable once
 * built; the control plane builds a new one with {@link Builder} and swaps it in.
 *
 * <p>An adjacency is either a <em>rewrite</em> (output ifIndex + destination MAC of the next hop, resolved when the
 * table is built) or a <em>glean</em> (a connected route: the destination itself is the neighbour, looked up per
 * packet with {@link #neighbour4} / {@link #neighbour6}).
 */
public final class Forwarding {
    /** Adjacency kind: rewrite with a resolved next-hop MAC. */
    public static final int REWRITE = 0;
    /** Adjacency kind: connected route, neighbour looked up per packet. */
    public static final int GLEAN = 1;

    private final Ip4Fib fib4;
    private final Ip6Fib fib6;
    private final int[] adjKind;
    private final int[] adjIfIndex;
    private final long[] adjMac;
    private final int[] n4Addr;
    private final long[] n4Mac;
    private final long[] n6Hi, n6Lo, n6Mac;
    private final boolean[] n4Used, n6Used;

    private Forwarding(Builder b) {
        this.fib4 = new Ip4Fib(b.routes4);
        this.fib6 = new Ip6Fib(b.routes6);
        int n = b.adjKind.size();
        adjKind = new int[n];
        adjIfIndex = new int[n];
        adjMac = new long[n];
        for (int i = 0; i < n; i++) {
            adjKind[i] = b.adjKind.get(i);
            adjIfIndex[i] = b.adjIf.get(i);
            adjMac[i] = b.adjMac.get(i);
        }
        int c4 = capacity(b.n4.size());
        n4Addr = new int[c4];
        n4Mac = new long[c4];
        n4Used = new boolean[c4];
        for (long[] e : b.n4) {
            int s = slot4((int) e[0]);
            n4Addr[s] = (int) e[0];
            n4Mac[s] = e[1];
            n4Used[s] = true;
        }
        int c6 = capacity(b.n6.size());
        n6Hi = new long[c6];
        n6Lo = new long[c6];
        n6Mac = new long[c6];
        n6Used = new boolean[c6];
        for (long[] e : b.n6) {
            int s = slot6(e[0], e[1]);
            n6Hi[s] = e[0];
            n6Lo[s] = e[1];
            n6Mac[s] = e[2];
            n6Used[s] = true;
        }
    }

    private static int capacity(int n) {
        return Integer.highestOneBit(Math.max(4, n * 2 - 1)) << 1;
    }

    private int slot4(int a) {
        int mask = n4Addr.length - 1;
        int s = (a * 0x9E3779B1) >>> 7 & mask;
        while (n4Used[s] && n4Addr[s] != a) {
            s = (s + 1) & mask;
        }
        return s;
    }

    private int slot6(long hi, long lo) {
        int mask = n6Hi.length - 1;
        long h = hi * 0x9E3779B97F4A7C15L ^ lo * 0xC2B2AE3D27D4EB4FL;
        int s = (int) (h ^ h >>> 29) & mask;
        while (n6Used[s] && (n6Hi[s] != hi || n6Lo[s] != lo)) {
            s = (s + 1) & mask;
        }
        return s;
    }

    /** @return the IPv4 FIB (results are adjacency indices). */
    public Ip4Fib fib4() {
        return fib4;
    }

    /** @return the IPv6 FIB (results are adjacency indices). */
    public Ip6Fib fib6() {
        return fib6;
    }

    /** @return {@link #REWRITE} or {@link #GLEAN}. */
    public int adjacencyKind(int adj) {
        return adjKind[adj];
    }

    /** @return output ifIndex of an adjacency. */
    public int adjacencyIfIndex(int adj) {
        return adjIfIndex[adj];
    }

    /** @return next-hop MAC (48 bits in a long) of a rewrite adjacency. */
    public long adjacencyMac(int adj) {
        return adjMac[adj];
    }

    /** @return number of adjacencies. */
    public int adjacencies() {
        return adjKind.length;
    }

    /**
     * @param addr IPv4 address
     * @return the neighbour's MAC (48 bits), or -1 when {@code addr} is not a configured neighbour
     */
    public long neighbour4(int addr) {
        int s = slot4(addr);
        return n4Used[s] ? n4Mac[s] : -1;
    }

    /**
     * @param hi address bits 0..63
     * @param lo address bits 64..127
     * @return the neighbour's MAC, or -1
     */
    public long neighbour6(long hi, long lo) {
        int s = slot6(hi, lo);
        return n6Used[s] ? n6Mac[s] : -1;
    }

    /**
     * Parses a MAC address {@code aa:bb:cc:dd:ee:ff}.
     *
     * @throws IllegalArgumentException naming the text when malformed
     */
    public static long parseMac(String s) {
        String[] p = s.split("[:-]");
        if (p.length != 6) {
            throw new IllegalArgumentException("bad MAC address '" + s + "': need 6 hex bytes separated by ':'");
        }
        long m = 0;
        for (String b : p) {
            if (b.length() != 2) {
                throw new IllegalArgumentException("bad MAC address '" + s + "': byte '" + b + "'");
            }
            try {
                m = m << 8 | Integer.parseInt(b, 16);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad MAC address '" + s + "': byte '" + b + "'");
            }
        }
        return m;
    }

    /** @return {@code aa:bb:cc:dd:ee:ff}. */
    public static String formatMac(long mac) {
        StringBuilder sb = new StringBuilder(17);
        for (int i = 5; i >= 0; i--) {
            sb.append(String.format("%02x", (mac >>> (8 * i)) & 0xFF));
            if (i > 0) {
                sb.append(':');
            }
        }
        return sb.toString();
    }

    /**
     * Parses an IP address literal (never resolves names).
     *
     * @throws IllegalArgumentException when {@code s} is not an IPv4/IPv6 literal
     */
    public static InetAddress parseAddress(String s) {
        try {
            return InetAddress.ofLiteral(s.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad IP address '" + s + "'");
        }
    }

    /** Builds a {@link Forwarding}. Adjacencies for the same (ifIndex, next hop) are shared. */
    public static final class Builder {
        private final List<Ip4Fib.Route> routes4 = new ArrayList<>();
        private final List<Ip6Fib.Route> routes6 = new ArrayList<>();
        private final List<Integer> adjKind = new ArrayList<>(), adjIf = new ArrayList<>();
        private final List<Long> adjMac = new ArrayList<>();
        private final List<long[]> n4 = new ArrayList<>(), n6 = new ArrayList<>();
        private final List<String> adjKeys = new ArrayList<>();

        /**
         * Adds a static neighbour (no ARP/ND).
         *
         * @param address IPv4 or IPv6 literal
         * @param mac {@code aa:bb:cc:dd:ee:ff}
         * @return this builder
         */
        public Builder neighbour(String address, String mac) {
            InetAddress a = parseAddress(address);
            long m = parseMac(mac);
            if (a instanceof Inet4Address) {
                n4.add(new long[] {ByteBuffer.wrap(a.getAddress()).getInt(), m});
            } else {
                ByteBuffer bb = ByteBuffer.wrap(a.getAddress());
                n6.add(new long[] {bb.getLong(), bb.getLong(), m});
            }
            return this;
        }

        private long neighbourMac(InetAddress a) {
            byte[] b = a.getAddress();
            if (b.length == 4) {
                int v = ByteBuffer.wrap(b).getInt();
                for (long[] e : n4) {
                    if ((int) e[0] == v) {
                        return e[1];
                    }
                }
            } else {
                ByteBuffer bb = ByteBuffer.wrap(b);
                long hi = bb.getLong(), lo = bb.getLong();
                for (long[] e : n6) {
                    if (e[0] == hi && e[1] == lo) {
                        return e[2];
                    }
                }
            }
            return -1;
        }

        private int adjacency(int kind, int ifIndex, long mac) {
            String key = kind + "/" + ifIndex + "/" + mac;
            int i = adjKeys.indexOf(key);
            if (i >= 0) {
                return i;
            }
            adjKeys.add(key);
            adjKind.add(kind);
            adjIf.add(ifIndex);
            adjMac.add(mac);
            return adjKind.size() - 1;
        }

        /**
         * Adds a route. Neighbours must be added first.
         *
         * @param prefix {@code address/length} (IPv4 or IPv6)
         * @param via next-hop address (must be a configured neighbour), or null for a connected route
         * @param ifIndex output interface
         * @return this builder
         * @throws IllegalArgumentException for a malformed prefix, a family mismatch, or a next hop with no neighbour
         */
        public Builder route(String prefix, String via, int ifIndex) {
            int slash = prefix.indexOf('/');
            if (slash < 0) {
                throw new IllegalArgumentException("route prefix '" + prefix + "' needs /length");
            }
            InetAddress a = parseAddress(prefix.substring(0, slash));
            int len;
            try {
                len = Integer.parseInt(prefix.substring(slash + 1).trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("route prefix '" + prefix + "': bad length");
            }
            int adj;
            if (via == null || via.isBlank()) {
                adj = adjacency(GLEAN, ifIndex, 0);
            } else {
                InetAddress nh = parseAddress(via);
                if ((nh instanceof Inet4Address) != (a instanceof Inet4Address)) {
                    throw new IllegalArgumentException("route " + prefix + ": next hop " + via + " is another family");
                }
                long mac = neighbourMac(nh);
                if (mac < 0) {
                    throw new IllegalArgumentException("route " + prefix + ": next hop " + via
                            + " is not a configured neighbour (no ARP/ND: add it under neighbours)");
                }
                adj = adjacency(REWRITE, ifIndex, mac);
            }
            if (a instanceof Inet4Address) {
                routes4.add(new Ip4Fib.Route(ByteBuffer.wrap(a.getAddress()).getInt(), len, adj));
            } else {
                ByteBuffer bb = ByteBuffer.wrap(a.getAddress());
                routes6.add(new Ip6Fib.Route(bb.getLong(), bb.getLong(), len, adj));
            }
            return this;
        }

        /** @return the forwarding state. */
        public Forwarding build() {
            return new Forwarding(this);
        }

        @Override
        public String toString() {
            return "routes4=" + routes4.size() + " routes6=" + routes6.size() + " adj=" + Arrays.toString(
                    adjKeys.toArray());
        }
    }
}
