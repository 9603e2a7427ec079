package io.vecflow.dataplane.plugins.lb;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.plugins.srlb.state.SrlbSid;
import io.vecflow.netlink.psample.LbDecisionCookie;

/**
 * Writes a load-balancer decision into the packet's cookie slot ({@link BufferPool#cookies()},
 * {@link BufferPool#cookieLength}) as an {@link LbDecisionCookie} (README "Load-balancer decisions"; issue 6 §4), so
 * that a sample taken later on the packet's path (sflow-egress) carries it as its PSAMPLE USER_COOKIE. One instance
 * per worker (scratch arrays); allocation-free.
 */
public final class DecisionCookies {
    private final LbDecisionCookie cookie = new LbDecisionCookie();
    private final byte[] a = new byte[16];
    private final byte[] b = new byte[16];
    private final byte[] a4 = new byte[4];
    private final byte[] b4 = new byte[4];

    private static void put4(byte[] dst, int v) {
        dst[0] = (byte) (v >>> 24);
        dst[1] = (byte) (v >>> 16);
        dst[2] = (byte) (v >>> 8);
        dst[3] = (byte) v;
    }

    private static void put(byte[] dst, long hi, long lo) {
        for (int i = 0; i < 8; i++) {
            dst[i] = (byte) (hi >>> (56 - 8 * i));
            dst[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
    }

    /**
     * An IPv6 (SRLB) decision.
     *
     * @param kind         the decision
     * @param backendHi    the server's SID /80 bytes 0–7 (with {@code backendLo} 0, 0 = not known yet)
     * @param candidates   {@code [hi, lo, ...]} in hunting order; the first {@code min(n, 2)} are carried
     * @param choiceIndex  0 none, 1 first candidate, 2 second
     * @param metricMilli  the policy metric ×1000 (0 at the LB), clamped to u32
     */
    public void srlb(BufferPool pool, int buffer, LbDecisionCookie.Kind kind, long vipHi, long vipLo, int protocol,
            int vipPort, long backendHi, long backendLo, long[] candidates, int n, int choiceIndex,
            long metricMilli) {
        LbDecisionCookie c = cookie;
        put(a, vipHi, vipLo);
        c.clear().kind(kind).vip(a).flow(protocol & 0xFF, vipPort & 0xFFFF)
                .policyMetric(Math.max(0, Math.min(0xFFFF_FFFFL, metricMilli)));
        put(b, backendHi, backendLo & SrlbSid.PREFIX_LO_MASK);
        c.backend(b);
        int k = Math.min(n, LbDecisionCookie.MAX_CANDIDATES);
        for (int i = 0; i < k; i++) {
            put(b, candidates[2 * i], candidates[2 * i + 1] & SrlbSid.PREFIX_LO_MASK);
            c.addCandidate(b);
        }
        c.choiceIndex(Math.min(choiceIndex, k));
        pool.cookieLength[buffer] = c.encode(pool.cookies(), buffer * BufferPool.COOKIE_BYTES);
    }

    /**
     * A CLOVE decision (docs/load-balancing.md §4): a new flowlet got a path.
     *
     * @param vtep          the destination tunnel endpoint (big-endian IPv4), carried as VIP and backend
     * @param protocol      the inner flow's IP protocol
     * @param dstPort       the inner flow's destination port
     * @param flowletId     the flowlet id (low 32 bits)
     * @param weightMicro   the chosen path's weight ×1,000,000 (clamped to u32)
     * @param pathPort      the outer UDP source port selecting the path
     */
    public void clove(BufferPool pool, int buffer, int vtep, int protocol, int dstPort, long flowletId,
            long weightMicro, int pathPort) {
        put4(a4, vtep);
        cookie.clear().kind(LbDecisionCookie.Kind.CLOVE_FLOWLET).vip(a4).backend(a4)
                .flow(protocol & 0xFF, dstPort & 0xFFFF)
                .clove(flowletId & 0xFFFF_FFFFL, Math.max(0, Math.min(0xFFFF_FFFFL, weightMicro)), pathPort & 0xFFFF);
        pool.cookieLength[buffer] = cookie.encode(pool.cookies(), buffer * BufferPool.COOKIE_BYTES);
    }

    /**
     * A Maglev decision (docs/load-balancing.md §1): a new flow was placed on a backend (kind {@code maglev_new}). The
     * VIP is the packet's destination; a backend of the other address family than the VIP (IPv4 VIP over IPv6 IPIP) is
     * left all zero, as the cookie carries one family.
     */
    void maglev(BufferPool pool, int buffer, boolean vip6, int vip4, long vipHi, long vipLo, int protocol, int port,
            boolean be6, int be4, long beHi, long beLo) {
        LbDecisionCookie c = cookie;
        if (vip6) {
            put(a, vipHi, vipLo);
            c.clear().kind(LbDecisionCookie.Kind.MAGLEV_NEW).vip(a);
            if (be6) {
                put(b, beHi, beLo);
                c.backend(b);
            }
        } else {
            put4(a4, vip4);
            c.clear().kind(LbDecisionCookie.Kind.MAGLEV_NEW).vip(a4);
            if (!be6) {
                put4(b4, be4);
                c.backend(b4);
            }
        }
        c.flow(protocol & 0xFF, port & 0xFFFF);
        pool.cookieLength[buffer] = c.encode(pool.cookies(), buffer * BufferPool.COOKIE_BYTES);
    }
}
