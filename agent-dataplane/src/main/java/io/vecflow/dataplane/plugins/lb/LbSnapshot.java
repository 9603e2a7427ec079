package io.vecflow.dataplane.plugins.lb;

import static io.vecflow.dataplane.plugins.lb.LoadBalancer.E_GRE4;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.E_GRE6;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.E_IPIP;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.E_SRLB;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.E_SRV6;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.MAX_BACKENDS;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.MAX_VIPS;

import io.vecflow.dataplane.plugins.lb.maglev.MaglevTable;
import io.vecflow.dataplane.plugins.srlb.state.CandidateTable;
import java.net.Inet4Address;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What workers read: immutable after publication. Arrays indexed by VIP slot or backend slot; the match lists
 * are in match order (per-port VIPs first, then longer prefixes first), and a packet's VIP is the first entry in
 * that order that covers its destination and takes its protocol and port.
 *
 * <p>Lookup without scanning the list (VPP finds a VIP through the FIB, one lookup whatever the VIP count): the
 * full-length entries (/32, /128: the usual VIP) are found by address in an open-addressing table (capacity a
 * power of two ≥ 2 × the addresses, so every probe sequence ends at an empty slot), each address with its entries'
 * list positions in match order; only the shorter prefixes are scanned. Without it, every packet through lb4/lb6 —
 * VIP or not — compared its destination with every VIP (256 at most).
 */
final class LbSnapshot {
    final int v4Count, v6Count;
    /** Full-length IPv4 entries by address: key, list positions (null = empty slot); mask = capacity − 1. */
    private final int[] h4Key;
    private final int[][] h4Pos;
    private final int h4Mask;
    /** Full-length IPv6 entries by address. */
    private final long[] h6Hi, h6Lo;
    private final int[][] h6Pos;
    private final int h6Mask;
    /** List positions of the entries shorter than /32 (/128), in match order. */
    private final int[] v4Short, v6Short;
    final int[] v4Prefix, v4Mask, v4Proto, v4Port, v4Vip;
    final long[] v6PrefixHi, v6PrefixLo, v6MaskHi, v6MaskLo;
    final int[] v6Proto, v6Port, v6Vip;
    final MaglevTable[] ring;
    final int[] encap;
    final boolean[] backend6;
    final int[] backend4;
    final long[] backendHi, backendLo;
    final int[] generation;
    /** SRLB: candidate table per VIP slot (null unless encap srlb), the LB SIDs' /64, backends per VIP. */
    final CandidateTable[] cht;
    final long srlbSidHi;
    final int[][] vipBackends;

    LbSnapshot(List<VipState> vips, BackendState[] backends, int[] generation, long srlbSidHi) {
        this.srlbSidHi = srlbSidHi;
        cht = new CandidateTable[MAX_VIPS];
        vipBackends = new int[MAX_VIPS][];
        List<VipState> v4 = new ArrayList<>(), v6 = new ArrayList<>();
        for (VipState v : vips) {
            (v.key.prefix() instanceof Inet4Address ? v4 : v6).add(v);
        }
        Comparator<VipState> order = Comparator.<VipState>comparingInt(v -> v.key.port() == 0 ? 1 : 0)
                .thenComparing(v -> -v.key.prefixLength());
        v4.sort(order);
        v6.sort(order);
        v4Count = v4.size();
        v6Count = v6.size();
        v4Prefix = new int[v4Count];
        v4Mask = new int[v4Count];
        v4Proto = new int[v4Count];
        v4Port = new int[v4Count];
        v4Vip = new int[v4Count];
        for (int i = 0; i < v4Count; i++) {
            VipState v = v4.get(i);
            int len = v.key.prefixLength();
            v4Mask[i] = len == 0 ? 0 : -1 << (32 - len);
            v4Prefix[i] = ByteBuffer.wrap(v.key.prefix().getAddress()).getInt() & v4Mask[i];
            v4Proto[i] = v.key.protocol() == null ? 0 : v.key.protocol().number();
            v4Port[i] = v.key.port();
            v4Vip[i] = v.slot;
        }
        v6PrefixHi = new long[v6Count];
        v6PrefixLo = new long[v6Count];
        v6MaskHi = new long[v6Count];
        v6MaskLo = new long[v6Count];
        v6Proto = new int[v6Count];
        v6Port = new int[v6Count];
        v6Vip = new int[v6Count];
        for (int i = 0; i < v6Count; i++) {
            VipState v = v6.get(i);
            int len = v.key.prefixLength();
            v6MaskHi[i] = len == 0 ? 0 : len >= 64 ? -1L : -1L << (64 - len);
            v6MaskLo[i] = len <= 64 ? 0 : len == 128 ? -1L : -1L << (128 - len);
            ByteBuffer bb = ByteBuffer.wrap(v.key.prefix().getAddress());
            v6PrefixHi[i] = bb.getLong() & v6MaskHi[i];
            v6PrefixLo[i] = bb.getLong() & v6MaskLo[i];
            v6Proto[i] = v.key.protocol() == null ? 0 : v.key.protocol().number();
            v6Port[i] = v.key.port();
            v6Vip[i] = v.slot;
        }
        // the address tables of the full-length entries, and the short-prefix lists
        java.util.Map<Integer, List<Integer>> hosts4 = new java.util.LinkedHashMap<>();
        List<Integer> short4 = new ArrayList<>();
        for (int i = 0; i < v4Count; i++) {
            if (v4Mask[i] == -1) {
                hosts4.computeIfAbsent(v4Prefix[i], a -> new ArrayList<>()).add(i);
            } else {
                short4.add(i);
            }
        }
        h4Mask = tableCapacity(hosts4.size()) - 1;
        h4Key = new int[h4Mask + 1];
        h4Pos = new int[h4Mask + 1][];
        for (var e : hosts4.entrySet()) {
            int at = mix(e.getKey()) & h4Mask;
            while (h4Pos[at] != null) {
                at = (at + 1) & h4Mask;
            }
            h4Key[at] = e.getKey();
            h4Pos[at] = e.getValue().stream().mapToInt(Integer::intValue).toArray();
        }
        v4Short = short4.stream().mapToInt(Integer::intValue).toArray();
        java.util.Map<List<Long>, List<Integer>> hosts6 = new java.util.LinkedHashMap<>();
        List<Integer> short6 = new ArrayList<>();
        for (int i = 0; i < v6Count; i++) {
            if (v6MaskHi[i] == -1L && v6MaskLo[i] == -1L) {
                hosts6.computeIfAbsent(List.of(v6PrefixHi[i], v6PrefixLo[i]), a -> new ArrayList<>()).add(i);
            } else {
                short6.add(i);
            }
        }
        h6Mask = tableCapacity(hosts6.size()) - 1;
        h6Hi = new long[h6Mask + 1];
        h6Lo = new long[h6Mask + 1];
        h6Pos = new int[h6Mask + 1][];
        for (var e : hosts6.entrySet()) {
            long hi = e.getKey().get(0), lo = e.getKey().get(1);
            int at = mix(hi, lo) & h6Mask;
            while (h6Pos[at] != null) {
                at = (at + 1) & h6Mask;
            }
            h6Hi[at] = hi;
            h6Lo[at] = lo;
            h6Pos[at] = e.getValue().stream().mapToInt(Integer::intValue).toArray();
        }
        v6Short = short6.stream().mapToInt(Integer::intValue).toArray();
        ring = new MaglevTable[MAX_VIPS];
        encap = new int[MAX_VIPS];
        for (VipState v : vips) {
            ring[v.slot] = v.ring;
            cht[v.slot] = v.cht;
            vipBackends[v.slot] = v.backends.stream().mapToInt(Integer::intValue).toArray();
            encap[v.slot] = switch (v.encap) {
                case GRE4 -> E_GRE4;
                case GRE6 -> E_GRE6;
                case IPIP -> E_IPIP;
                case SRV6 -> E_SRV6;
                case SRLB -> E_SRLB;
            };
        }
        backend6 = new boolean[MAX_BACKENDS];
        backend4 = new int[MAX_BACKENDS];
        backendHi = new long[MAX_BACKENDS];
        backendLo = new long[MAX_BACKENDS];
        for (int i = 0; i < MAX_BACKENDS; i++) {
            BackendState b = backends[i];
            if (b != null) {
                backend6[i] = b.six;
                backend4[i] = b.v4;
                backendHi[i] = b.hi;
                backendLo[i] = b.lo;
            }
        }
        this.generation = generation.clone();
    }

    /**
     * @return the slot of the {@code encap srlb} VIP whose LB SID /80 covers this destination (bytes 0–7 = the
     *         SID /64, bytes 8–9 = slot + 1), or -1
     */
    int srlbVipOfSid(long hi, long lo) {
        if (hi != srlbSidHi) {
            return -1;
        }
        int slot = (int) (lo >>> 48) - 1;
        return slot >= 0 && slot < MAX_VIPS && encap[slot] == E_SRLB && cht[slot] != null ? slot : -1;
    }

    /** @return the LB SID bytes 8–15 of VIP slot {@code vip}, FUNCTION/OFFSET/CORE/ENTRY zero */
    static long lbSidLo(int vip) {
        return (long) (vip + 1) << 48;
    }

    /** @return index into the v4 lists of the first VIP whose prefix covers {@code dst}, or -1 */
    /** @return a power of two ≥ 2 × {@code n} and ≥ 4 */
    private static int tableCapacity(int n) {
        return Math.max(4, Integer.highestOneBit(Math.max(1, 2 * n - 1)) << 1);
    }

    private static int mix(int a) {
        int h = a * 0x9E3779B1;
        return h ^ h >>> 16;
    }

    private static int mix(long hi, long lo) {
        long h = (hi ^ Long.rotateLeft(lo, 29)) * 0x9E3779B97F4A7C15L;
        return (int) (h ^ h >>> 32);
    }

    /**
     * Whether any VIP prefix covers IPv4 destination {@code dst}.
     *
     * @return a handle for {@link #vip4} (≥ 0) when one does, −1 when none does
     */
    int prefix4(int dst) {
        int at = mix(dst) & h4Mask;
        for (; h4Pos[at] != null; at = (at + 1) & h4Mask) {
            if (h4Key[at] == dst) {
                return at;
            }
        }
        for (int i : v4Short) {
            if ((dst & v4Mask[i]) == v4Prefix[i]) {
                return h4Mask + 1; // covered by a shorter prefix only
            }
        }
        return -1;
    }

    /**
     * @param at {@link #prefix4}'s handle for {@code dst} (≥ 0)
     * @return the VIP slot serving (dst, protocol, port): the first entry in match order that covers {@code dst}
     *         and takes the protocol and port, or -1
     */
    int vip4(int at, int dst, int protocol, int port) {
        int best = Integer.MAX_VALUE;
        if (at <= h4Mask) {
            for (int i : h4Pos[at]) {
                if (v4Port[i] == 0 || (v4Proto[i] == protocol && v4Port[i] == port)) {
                    best = i;
                    break;
                }
            }
        }
        for (int i : v4Short) {
            if (i > best) {
                break; // positions increase: nothing later comes first
            }
            if ((dst & v4Mask[i]) == v4Prefix[i] && (v4Port[i] == 0
                    || (v4Proto[i] == protocol && v4Port[i] == port))) {
                best = i;
                break;
            }
        }
        return best == Integer.MAX_VALUE ? -1 : v4Vip[best];
    }

    /** {@link #prefix4} for IPv6 destination {@code hi:lo}. */
    int prefix6(long hi, long lo) {
        int at = mix(hi, lo) & h6Mask;
        for (; h6Pos[at] != null; at = (at + 1) & h6Mask) {
            if (h6Lo[at] == lo && h6Hi[at] == hi) {
                return at;
            }
        }
        for (int i : v6Short) {
            if ((hi & v6MaskHi[i]) == v6PrefixHi[i] && (lo & v6MaskLo[i]) == v6PrefixLo[i]) {
                return h6Mask + 1;
            }
        }
        return -1;
    }

    /** {@link #vip4} for IPv6, with {@link #prefix6}'s handle. */
    int vip6(int at, long hi, long lo, int protocol, int port) {
        int best = Integer.MAX_VALUE;
        if (at <= h6Mask) {
            for (int i : h6Pos[at]) {
                if (v6Port[i] == 0 || (v6Proto[i] == protocol && v6Port[i] == port)) {
                    best = i;
                    break;
                }
            }
        }
        for (int i : v6Short) {
            if (i > best) {
                break;
            }
            if ((hi & v6MaskHi[i]) == v6PrefixHi[i] && (lo & v6MaskLo[i]) == v6PrefixLo[i]
                    && (v6Port[i] == 0 || (v6Proto[i] == protocol && v6Port[i] == port))) {
                best = i;
                break;
            }
        }
        return best == Integer.MAX_VALUE ? -1 : v6Vip[best];
    }
}
