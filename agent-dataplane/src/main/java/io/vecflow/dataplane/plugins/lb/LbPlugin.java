package io.vecflow.dataplane.plugins.lb;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.FeatureArc;
import io.vecflow.dataplane.graph.Graph;
import io.vecflow.dataplane.plugins.DataplanePlugin;
import io.vecflow.dataplane.sflow.LbCounterSource;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.dataplane.vnet.interfaces.Port;
import java.util.List;
import java.util.function.Function;

/**
 * The Maglev load balancer as a plugin: with {@link LoadBalancer.Settings}, its {@code lb4}/{@code lb6} nodes
 * ({@link LbNode}) are features of the ip4-unicast/ip6-unicast arcs, enabled on every routed port while VIPs of that
 * family exist; an encapsulated packet leaves the lb node for the lookup node of its outer family.
 */
public final class LbPlugin implements DataplanePlugin {
    /** Rank: registers first of the LB plugins. */
    public static final int RANK = 100;

    @Override
    public int rank() {
        return RANK;
    }

    @Override
    public Instance create(Context ctx) {
        LoadBalancer.Settings s = ctx.settings(LoadBalancer.Settings.class);
        if (s == null) {
            return null;
        }
        s.workers = ctx.workers();
        LoadBalancer lb = new LoadBalancer(s);
        InterfaceTable interfaces = ctx.interfaces();
        return new Instance() {
            @Override
            public Object component() {
                return lb;
            }

            @Override
            public void features(Features f) {
                f.add("ip4-unicast", LbNode.IP4, 200);
                f.add("ip6-unicast", LbNode.IP6, 200);
            }

            @Override
            public void register(Graph g, int worker, Function<String, FeatureArc> arcs) {
                FeatureArc ip4Unicast = arcs.apply("ip4-unicast"), ip6Unicast = arcs.apply("ip6-unicast");
                g.register(LbNode.IP4, i -> new LbNode(false, lb, lb.worker(i, BufferPool.DEFAULT_BUFFER_BYTES),
                        ip4Unicast, ctx.forwarding(), interfaces));
                g.register(LbNode.IP6, i -> new LbNode(true, lb, lb.worker(i, BufferPool.DEFAULT_BUFFER_BYTES),
                        ip6Unicast, ctx.forwarding(), interfaces));
            }

            @Override
            public void start(Function<String, FeatureArc> arcs) {
                FeatureArc ip4Unicast = arcs.apply("ip4-unicast"), ip6Unicast = arcs.apply("ip6-unicast");
                lb.onChange(() -> apply(lb, interfaces, ip4Unicast, ip6Unicast));
            }

            @Override
            public List<LbCounterSource> counterSources() {
                return List.of(lb);
            }
        };
    }

    /** Enables lb4/lb6 on every routed port while VIPs of the family exist (the control thread, after a change). */
    private static void apply(LoadBalancer lb, InterfaceTable interfaces, FeatureArc ip4Unicast,
            FeatureArc ip6Unicast) {
        synchronized (lb) {
            boolean v4 = lb.hasIpv4Vips(), v6 = lb.hasIpv6Vips();
            for (Port p : interfaces.ports()) {
                boolean routed = interfaces.routed(p.ifIndex());
                ip4Unicast.enable(LbNode.IP4, p.ifIndex(), routed && v4);
                ip6Unicast.enable(LbNode.IP6, p.ifIndex(), routed && v6);
            }
        }
    }
}
