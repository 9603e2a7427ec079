package io.vecflow.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.control.DataplaneControl.Direction;
import io.vecflow.dataplane.graph.FeatureArc;
import io.vecflow.dataplane.graph.InputNode;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.plugins.clove.Clove;
import io.vecflow.dataplane.plugins.lb.EncapType;
import io.vecflow.dataplane.plugins.lb.LoadBalancer;
import io.vecflow.dataplane.plugins.lb.Protocol;
import io.vecflow.dataplane.plugins.lb.VipKey;
import io.vecflow.dataplane.plugins.srlb.SrlbAgent;
import io.vecflow.dataplane.port.SinkPort;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The graph a dataplane with every plugin builds — node names and indices, next nodes, feature arcs and the features
 * enabled per interface — equals the golden dump in {@code graph-identity.txt} (written from the code before the
 * issue-23 restructuring). A change to the graph shows here first; a deliberate one regenerates the golden file from
 * {@code target/graph-identity.txt}, which every run writes.
 */
class GraphIdentityTest {
    private static final String GOLDEN = "graph-identity.txt";

    @Test
    void graphWithEveryPluginEqualsTheGoldenDump() throws Exception {
        DataplaneSpec t = new DataplaneSpec();
        t.workers = 2;
        t.buffersPerWorker = 64;
        t.interfaces = new InterfaceTable(4);
        t.interfaces.add(new SinkPort("up0", 1, 2), 0x020000000001L, 1500, true);
        t.interfaces.add(new SinkPort("dn0", 2, 2), 0x020000000002L, 9000, true);
        t.interfaces.add(new SinkPort("xa0", 3, 2), 0x020000000003L, 1500, false);
        t.interfaces.add(new SinkPort("xb0", 4, 2), 0x020000000004L, 1500, false);
        t.interfaces.xconnect(3, 4);
        t.forwarding = new Forwarding.Builder().neighbour("10.9.0.2", "02:aa:00:00:00:02")
                .neighbour("fd00:9::2", "02:aa:00:00:00:03").route("10.1.0.0/16", "10.9.0.2", 2)
                .route("fc00::/16", "fd00:9::2", 2).build();
        t.samplingRate = 100;
        t.direction = Direction.BOTH;
        t.sflowInterfaces.add("up0");
        t.sflowInterfaces.add("xa0");
        t.dropMonitoring = true;
        t.lb = new LoadBalancer.Settings();
        t.lb.ip4Source = InetAddress.ofLiteral("10.9.0.1");
        t.lb.ip6Source = InetAddress.ofLiteral("fd00:9::1");
        t.lb.hashSeed = 42L;
        t.lb.flowTableSlots = 1 << 10;
        t.lb.srlbSidPrefix = InetAddress.ofLiteral("fc00:5::");
        t.srlbAgent = new SrlbAgent.Settings();
        t.srlbAgent.sid = InetAddress.ofLiteral("fc00:1::");
        t.srlbAgent.vips = List.of(InetAddress.ofLiteral("2001:db8:ab::1"));
        t.srlbAgent.flowTableSlots = 1 << 10;
        t.clove = new Clove.Settings();
        t.clove.vtep = 0x0A000101;
        t.clove.vni = 100;
        t.clove.flowletSlots = 1 << 10;
        t.clove.probeIntervalNanos = Long.MAX_VALUE / 4;
        t.clove.destinations = List.of(new Clove.DestinationSpec(0x0A000201, new int[] {0x0A000200},
                new int[] {24}));
        try (PsampleEmitter em = PsampleEmitter.openUnicast(1, Psample.Convention.VPP);
                Dataplane dp = new Dataplane(t, em, null, null)) {
            VipKey v4 = new VipKey(InetAddress.ofLiteral("192.0.2.1"), 32, Protocol.UDP, 5678);
            dp.plugin(LoadBalancer.class).addVip(v4, EncapType.GRE4, 7);
            dp.plugin(LoadBalancer.class).addBackends(v4, List.of(InetAddress.ofLiteral("10.1.0.1")));
            VipKey v6 = new VipKey(InetAddress.ofLiteral("2001:db8:ab::1"), 128, Protocol.TCP, 80);
            dp.plugin(LoadBalancer.class).addVip(v6, EncapType.SRLB, 7);
            dp.plugin(LoadBalancer.class).addBackends(v6, List.of(InetAddress.ofLiteral("fc00:1::"),
                    InetAddress.ofLiteral("fc00:2::")));
            String actual = dump(dp, t.interfaces.maxIfIndex());
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", GOLDEN), actual, StandardCharsets.UTF_8);
            assertThat(actual).isEqualTo(golden());
        }
    }

    /** Per worker: every node (index, name, class, next nodes with their indices); then the arcs (worker 0's view). */
    static String dump(Dataplane dp, int maxIfIndex) {
        StringBuilder sb = new StringBuilder();
        Map<String, Integer> index = new HashMap<>();
        for (Worker w : dp.workers()) {
            sb.append("worker ").append(w.index()).append('\n');
            index.clear();
            for (Node n : w.nodes()) {
                index.put(n.name(), n.index());
            }
            for (Node n : w.nodes()) {
                sb.append("  node ").append(n.index()).append(' ').append(n.name()).append(' ')
                        .append(n.getClass().getSimpleName()).append(n instanceof InputNode ? " input" : "")
                        .append('\n');
                String[] next = n.nextNames();
                for (int j = 0; j < next.length; j++) {
                    sb.append("    next ").append(j).append(" -> ").append(next[j]).append(' ')
                            .append(index.get(next[j])).append('\n');
                }
            }
        }
        for (FeatureArc arc : dp.featureArcs()) {
            sb.append("arc ").append(arc.name()).append(" end ").append(arc.endIndex()).append('\n');
            for (int p = 0; p < arc.features().size(); p++) {
                String f = arc.features().get(p);
                sb.append("  feature ").append(p).append(' ').append(f).append(' ').append(index.get(f))
                        .append(" enabled on");
                for (int i = 1; i <= maxIfIndex; i++) {
                    if (arc.enabled(f, i)) {
                        sb.append(' ').append(i);
                    }
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    private static String golden() throws IOException {
        try (InputStream in = GraphIdentityTest.class.getResourceAsStream(GOLDEN)) {
            assertThat(in).as("golden dump " + GOLDEN).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
