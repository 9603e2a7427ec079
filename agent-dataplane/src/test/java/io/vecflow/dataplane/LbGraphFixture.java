package io.vecflow.dataplane;

import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.plugins.lb.LoadBalancer;
import io.vecflow.dataplane.plugins.lb.Protocol;
import io.vecflow.dataplane.plugins.lb.VipKey;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import java.net.InetAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The in-memory LB dataplane the graph-level LB tests share ({@link LbGraphTest}, {@link LbHeadroomGraphTest}): one
 * worker, client port {@link #c} (ifIndex 1, MAC {@link #MAC_C}, 198.51.100.0/24 behind 10.8.0.2) and server-side port
 * {@link #s} (ifIndex 2, MAC {@link #MAC_S}, backends 10.1.0.0/16 and 2001:db8:1::/48 behind next hops with MAC
 * {@link #NH_S}), LB outer sources 10.9.0.1 / 2001:db8:9::1, hash seed 42, 4096 table slots, sampling off. Built
 * before and closed after each test.
 */
abstract class LbGraphFixture {
    static final long MAC_C = 0x0200000000C1L, MAC_S = 0x0200000000C2L;
    static final long NH_S = 0x02AA00000002L, NH_C = 0x02AA00000001L;
    static final int VIP = 0xC0000201; // 192.0.2.1
    static final VipKey KEY = new VipKey(InetAddress.ofLiteral("192.0.2.1"), 32, Protocol.UDP, 5678);

    MemoryPort c, s;
    Dataplane dp;
    PsampleEmitter em;
    LoadBalancer lb;
    Worker w;

    /** @return the topology over ports {@code c} and {@code s} (see the class comment) */
    static DataplaneSpec topology(MemoryPort c, MemoryPort s) {
        DataplaneSpec t = new DataplaneSpec();
        t.workers = 1;
        t.interfaces = new InterfaceTable(4);
        t.interfaces.add(c, MAC_C, 1500, true);
        t.interfaces.add(s, MAC_S, 1500, true);
        t.forwarding = new Forwarding.Builder().neighbour("10.9.0.2", "02:aa:00:00:00:02")
                .neighbour("10.8.0.2", "02:aa:00:00:00:01").neighbour("2001:db8:9::2", "02:aa:00:00:00:02")
                .route("10.1.0.0/16", "10.9.0.2", 2).route("198.51.100.0/24", "10.8.0.2", 1)
                .route("2001:db8:1::/48", "2001:db8:9::2", 2).build();
        t.samplingRate = 0;
        t.lb = new LoadBalancer.Settings();
        t.lb.ip4Source = InetAddress.ofLiteral("10.9.0.1");
        t.lb.ip6Source = InetAddress.ofLiteral("2001:db8:9::1");
        t.lb.hashSeed = 42L;
        t.lb.flowTableSlots = 1 << 12;
        return t;
    }

    @BeforeEach
    void build() throws Exception {
        c = new MemoryPort("vflb-c", 1, 1);
        s = new MemoryPort("vflb-s", 2, 1);
        em = PsampleEmitter.openUnicast(1, Psample.Convention.VPP);
        dp = new Dataplane(topology(c, s), em, null, null);
        lb = dp.plugin(LoadBalancer.class);
        w = dp.workers().get(0);
    }

    @AfterEach
    void close() {
        dp.close();
        em.close();
    }

    /** Runs the worker until both ports have nothing left to receive (bounded: 1000 rounds). */
    void run() {
        for (int i = 0; i < 1000 && !(c.rxExhausted(0) && s.rxExhausted(0)); i++) {
            w.runOnce();
        }
        w.runOnce();
    }
}
