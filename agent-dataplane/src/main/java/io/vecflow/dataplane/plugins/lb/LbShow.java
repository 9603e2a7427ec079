package io.vecflow.dataplane.plugins.lb;

import static io.vecflow.dataplane.plugins.lb.LoadBalancer.MAX_BACKENDS;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.text;

import io.vecflow.dataplane.plugins.lb.LoadBalancer.BackendCounters;
import io.vecflow.dataplane.plugins.lb.LoadBalancer.DecisionCounters;
import io.vecflow.dataplane.plugins.lb.LoadBalancer.SrlbCounters;
import io.vecflow.dataplane.plugins.lb.LoadBalancer.VipCounters;
import io.vecflow.dataplane.plugins.lb.maglev.ConnectionTable;
import io.vecflow.dataplane.plugins.srlb.state.SrlbFlowTable;
import java.net.InetAddress;
import java.util.Locale;

/** The load balancer's show text ({@code show lb}, {@code show lb flows}); called under the load balancer's lock. */
final class LbShow {
    private LbShow() {}

    /** @return {@code show lb}: settings, then per VIP its counters and its backends with slots and counters. */
    static String show(LoadBalancer lb) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "lb conf ip4-src-address %s ip6-src-address %s timeout tcp %d s udp %d s"
                + " flow-table-slots %d per worker%n", lb.settings.ip4Source == null ? "none"
                        : text(lb.settings.ip4Source),
                lb.settings.ip6Source == null ? "none" : text(lb.settings.ip6Source),
                lb.settings.tcpTimeoutSeconds, lb.settings.udpTimeoutSeconds, lb.settings.flowTableSlots));
        long now = lb.settings.clock.getAsLong();
        for (int i = 0; i < lb.workers.size(); i++) {
            WorkerState w = lb.workers.get(i);
            if (w != null) {
                ConnectionTable t = w.table;
                sb.append(String.format(Locale.ROOT, "worker %d flow table: live %d of %d, hits %d, inserts %d, "
                        + "full %d, expired %d, reselected %d%n", i, t.liveEntries(now), t.capacity(),
                        t.counter(ConnectionTable.HITS), t.counter(ConnectionTable.INSERTS),
                        t.counter(ConnectionTable.FULL), t.counter(ConnectionTable.EXPIRED),
                        t.counter(ConnectionTable.RESELECTED)));
                SrlbFlowTable st = w.srlb.table;
                long[] h = w.srlb.handoffCounters();
                if (st.inserts() > 0 || h[0] + h[1] + h[2] + h[3] > 0) {
                    sb.append(String.format(Locale.ROOT, "worker %d srlb flow table: live %d of %d, inserts %d, "
                            + "full %d%s%n", i, st.live(now), st.capacity(), st.inserts(), st.fullCount(),
                            lb.srlbHandoff == null ? "" : String.format(Locale.ROOT, ", signals handed off %d"
                                    + " (inbox full %d), applied from others %d (stale %d)", h[0], h[1], h[2], h[3])));
                }
            }
        }
        for (VipState v : lb.vips) {
            if (v == null) {
                continue;
            }
            VipCounters c = lb.vipCounters(v.key);
            sb.append(String.format(Locale.ROOT, "lb vip %s encap %s new_len %d%n", v.key, v.encap.word(),
                    v.newLength));
            sb.append(String.format(Locale.ROOT, "  packets %d bytes %d new-flows %d sticky-hits %d table-full %d "
                    + "no-backend %d too-big %d%n", c.packets(), c.bytes(), c.newFlows(), c.stickyHits(),
                    c.tableFull(), c.noBackend(), c.tooBig()));
            DecisionCounters dc = lb.decisionCounters(v.key);
            sb.append(String.format(Locale.ROOT, "  decisions new-flows %d first-choice %d second-choice %d "
                    + "rejects %d sticky-hits %d table-full %d%n", dc.newFlows(), dc.firstChoiceAccepts(),
                    dc.secondChoiceAccepts(), dc.rejects(), dc.stickyHits(), dc.tableFull()));
            if (v.encap == EncapType.SRLB) {
                SrlbCounters sc = lb.srlbCounters(v.key);
                sb.append(String.format(Locale.ROOT, "  srlb sid %s/80 candidates %d of %d buckets hunts %d "
                        + "first-choice %d second-choice %d other-accepts %d teardowns %d bad-signals %d%n",
                        text(lb.srlbSid(v.key)), v.cht.choices(), v.cht.size(), sc.hunts(), sc.firstChoiceAccepts(),
                        sc.secondChoiceAccepts(), sc.otherAccepts(), sc.teardowns(), sc.badSignals()));
            }
            java.util.Map<InetAddress, Integer> slots = lb.slots(v.key);
            for (int b : v.backends) {
                BackendState s = lb.backends[b];
                BackendCounters bc = lb.backendCounters(v.key, s.address);
                DecisionCounters bd = lb.decisionCounters(v.key, s.address);
                sb.append(String.format(Locale.ROOT, "  as %s %s slots %d packets %d bytes %d new-flows %d "
                        + "sticky-hits %d table-full %d first-choice %d second-choice %d rejects %d%n",
                        text(s.address), s.draining ? "draining" : "used", slots.get(s.address), bc.packets(),
                        bc.bytes(), bc.newFlows(), bc.stickyHits(), bc.tableFull(), bd.firstChoiceAccepts(),
                        bd.secondChoiceAccepts(), bd.rejects()));
            }
        }
        return sb.toString();
    }

    /**
     * {@code show lb flows}: live connection-table entries of every worker, at most {@code limit} lines. Reads the
     * tables while workers write them: an entry changing meanwhile may show mixed old/new fields (a diagnostic view;
     * counters are exact).
     */
    static String showFlows(LoadBalancer lb, int limit) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-6s %-45s %-45s %-5s %-40s %s%n", "worker",
                "client", "vip", "proto", "backend", "idle-left-s"));
        long now = lb.settings.clock.getAsLong();
        int[] left = {limit};
        for (int i = 0; i < lb.workers.size() && left[0] > 0; i++) {
            WorkerState w = lb.workers.get(i);
            if (w == null) {
                continue;
            }
            int wi = i;
            int n = w.table.forEachLive(now, left[0], (k, backend, gen, idle) -> {
                BackendState b = backend >= 0 && backend < MAX_BACKENDS ? lb.backends[backend] : null;
                String be = b == null || lb.generation[backend] != gen ? "(flushed)" : text(b.address)
                        + (b.draining ? " draining" : "");
                sb.append(String.format(Locale.ROOT, "%-6d %-45s %-45s %-5d %-40s %.1f%n", wi,
                        text(k.srcHi, k.srcLo) + " " + k.srcPort, text(k.dstHi, k.dstLo) + " " + k.dstPort,
                        k.protocol, be,
                        idle / 1e9));
            });
            left[0] -= n;
        }
        if (left[0] <= 0) {
            sb.append("(first ").append(limit).append(" flows shown)\n");
        }
        return sb.toString();
    }
}
