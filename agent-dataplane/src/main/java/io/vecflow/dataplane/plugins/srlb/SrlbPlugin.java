package io.vecflow.dataplane.plugins.srlb;

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
 * The SRLB server agent as a plugin: with {@link SrlbAgent.Settings}, its {@code srlb-sa6} node
 * ({@link SrlbAgentNode}) is an ip6-unicast feature on every routed port, after lb6 (docs/load-balancing.md §3); with
 * several workers the {@code srlb-sa6-handoff} input node applies the state changes other workers hand over.
 */
public final class SrlbPlugin implements DataplanePlugin {
    /** Rank: after the Maglev load balancer. */
    public static final int RANK = 200;

    @Override
    public int rank() {
        return RANK;
    }

    @Override
    public Instance create(Context ctx) {
        SrlbAgent.Settings s = ctx.settings(SrlbAgent.Settings.class);
        if (s == null) {
            return null;
        }
        s.workers = ctx.workers();
        SrlbAgent agent = new SrlbAgent(s);
        InterfaceTable interfaces = ctx.interfaces();
        int workers = ctx.workers();
        return new Instance() {
            @Override
            public Object component() {
                return agent;
            }

            @Override
            public void features(Features f) {
                f.add("ip6-unicast", SrlbAgentNode.NAME, 300);
            }

            @Override
            public void register(Graph g, int worker, Function<String, FeatureArc> arcs) {
                FeatureArc ip6Unicast = arcs.apply("ip6-unicast");
                g.register(SrlbAgentNode.NAME, i -> new SrlbAgentNode(agent, i, BufferPool.DEFAULT_BUFFER_BYTES,
                        ip6Unicast));
                if (workers > 1) { // applies the state changes other workers hand over (SrlbAgent "Several workers")
                    g.register(SrlbAgentHandoffNode.NAME, i -> new SrlbAgentHandoffNode(agent, i,
                            BufferPool.DEFAULT_BUFFER_BYTES));
                }
            }

            @Override
            public void start(Function<String, FeatureArc> arcs) {
                FeatureArc ip6Unicast = arcs.apply("ip6-unicast");
                for (Port p : interfaces.ports()) {
                    ip6Unicast.enable(SrlbAgentNode.NAME, p.ifIndex(), interfaces.routed(p.ifIndex()));
                }
            }

            @Override
            public List<LbCounterSource> counterSources() {
                return List.of(agent);
            }
        };
    }
}
