package io.vecflow.dataplane.plugins.clove;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.FeatureArc;
import io.vecflow.dataplane.graph.Graph;
import io.vecflow.dataplane.plugins.DataplanePlugin;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.dataplane.vnet.interfaces.Port;
import java.util.function.Function;

/**
 * The CLOVE vSwitch as a plugin: with {@link Clove.Settings}, its {@code clove4} node ({@link CloveNode}: Geneve/VXLAN
 * encap per flowlet, decap, ECN relay) is an ip4-unicast feature on every routed port, ahead of lb4, and the
 * {@code clove-probe} input node sends path-discovery probes (docs/load-balancing.md §4).
 */
public final class ClovePlugin implements DataplanePlugin {
    /** Rank: after the load balancers. */
    public static final int RANK = 300;

    @Override
    public int rank() {
        return RANK;
    }

    @Override
    public Instance create(Context ctx) {
        Clove.Settings s = ctx.settings(Clove.Settings.class);
        if (s == null) {
            return null;
        }
        Clove clove = new Clove(s);
        InterfaceTable interfaces = ctx.interfaces();
        return new Instance() {
            @Override
            public Object component() {
                return clove;
            }

            @Override
            public void features(Features f) {
                f.add("ip4-unicast", CloveNode.NAME, 100);
            }

            @Override
            public void register(Graph g, int worker, Function<String, FeatureArc> arcs) {
                FeatureArc ip4Unicast = arcs.apply("ip4-unicast");
                g.register(CloveNode.NAME, i -> new CloveNode(clove, BufferPool.DEFAULT_BUFFER_BYTES, ip4Unicast));
                g.register(CloveProbeNode.NAME, i -> new CloveProbeNode(clove, worker));
            }

            @Override
            public void start(Function<String, FeatureArc> arcs) {
                FeatureArc ip4Unicast = arcs.apply("ip4-unicast");
                for (Port p : interfaces.ports()) {
                    ip4Unicast.enable(CloveNode.NAME, p.ifIndex(), interfaces.routed(p.ifIndex()));
                }
            }
        };
    }
}
