package io.vecflow.dataplane.plugins.lb;

import static io.vecflow.dataplane.plugins.lb.LoadBalancer.BACKEND_COUNTERS;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.B_FIRST_CHOICE;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.B_NEW_FLOWS;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.B_REJECTS;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.B_SECOND_CHOICE;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.B_STICKY_HITS;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.B_TABLE_FULL;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.VIP_COUNTERS;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.V_FIRST_CHOICE;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.V_NEW_FLOWS;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.V_REJECTS;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.V_SECOND_CHOICE;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.V_STICKY_HITS;
import static io.vecflow.dataplane.plugins.lb.LoadBalancer.V_TABLE_FULL;

import io.vecflow.dataplane.sflow.LbCounterSource.Sink;

/**
 * The load balancer's LB_COUNTERS reports: every VIP's decision counters since it was added, then each backend's, as
 * vecflow LB_COUNTERS messages for the sFlow main thread ({@link LoadBalancer#reportCounters}). One per load balancer,
 * called under its lock; allocation-free.
 */
final class LbCounterReport {
    private final LoadBalancer lb;
    private final long[] sums = new long[Math.max(VIP_COUNTERS, BACKEND_COUNTERS)];

    LbCounterReport(LoadBalancer lb) {
        this.lb = lb;
    }

    /** @return messages the sink reported as sent */
    int send(io.vecflow.netlink.vpp.LbCounters scratch, Sink sink) {
        int sent = 0;
        long[] s = sums;
        long[] c;
        for (VipState v : lb.vips) {
            if (v == null) {
                continue;
            }
            scratch.clear();
            scratch.role = v.encap == EncapType.SRLB ? io.vecflow.netlink.vpp.LbCounters.ROLE_SRLB_LB
                    : io.vecflow.netlink.vpp.LbCounters.ROLE_MAGLEV;
            scratch.vipIndex = v.slot;
            scratch.vip(v.six, v.hi, v.lo);
            scratch.protocol = LoadBalancer.protocol(v.key.protocol());
            scratch.port = v.key.port();
            lb.vipSums(v.slot, s);
            c = scratch.counters;
            c[0] = s[V_NEW_FLOWS] - v.base[V_NEW_FLOWS];
            c[1] = s[V_FIRST_CHOICE] - v.base[V_FIRST_CHOICE];
            c[2] = s[V_SECOND_CHOICE] - v.base[V_SECOND_CHOICE];
            c[3] = s[V_REJECTS] - v.base[V_REJECTS];
            c[4] = s[V_STICKY_HITS] - v.base[V_STICKY_HITS];
            c[5] = s[V_TABLE_FULL] - v.base[V_TABLE_FULL];
            if (sink.send(scratch)) {
                sent++;
            }
            for (int i = 0, n = v.backends.size(); i < n; i++) {
                int b = v.backends.get(i);
                BackendState bs = lb.backends[b];
                scratch.backendIndex = b + 1;
                scratch.backend(bs.six, bs.hi, bs.six ? bs.lo : bs.v4 & 0xFFFF_FFFFL);
                lb.backendSums(b, s);
                c[0] = s[B_NEW_FLOWS] - bs.base[B_NEW_FLOWS];
                c[1] = s[B_FIRST_CHOICE] - bs.base[B_FIRST_CHOICE];
                c[2] = s[B_SECOND_CHOICE] - bs.base[B_SECOND_CHOICE];
                c[3] = s[B_REJECTS] - bs.base[B_REJECTS];
                c[4] = s[B_STICKY_HITS] - bs.base[B_STICKY_HITS];
                c[5] = s[B_TABLE_FULL] - bs.base[B_TABLE_FULL];
                if (sink.send(scratch)) {
                    sent++;
                }
            }
        }
        return sent;
    }
}
