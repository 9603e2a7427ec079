package io.vecflow.lab.farm;

import io.vecflow.dataplane.plugins.lb.maglev.MurmurHash3;
import io.vecflow.dataplane.plugins.srlb.load.AcceptPolicy;
import io.vecflow.dataplane.plugins.srlb.load.DynamicThreshold;
import io.vecflow.dataplane.plugins.srlb.load.SettableLoadSource;
import io.vecflow.dataplane.plugins.srlb.load.StaticThreshold;
import io.vecflow.dataplane.plugins.srlb.state.CandidateTable;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * SRLB dispatchers on vecflow's data-path classes (docs/load-balancing.md §3): the LB's {@link CandidateTable} (2 pools
 * of the same servers = 2 choices; server {@code i}'s identity hash is {@code MurmurHash3_x64_64(10.1.0.0 + i, 0, 0)},
 * as for Maglev) maps the connection's 5-tuple hash to its candidates; each candidate's server agent reads its busy
 * workers through a {@link SettableLoadSource} (set from the simulated server before each decision, as the simulation
 * source is meant to be used) and decides with its own {@link AcceptPolicy} instance.
 */
public final class SrlbDispatchers {
    private SrlbDispatchers() {}

    /** SR_c: {@link StaticThreshold}(c) at every server. */
    public static SrlbDispatcher staticThreshold(int servers, int chtSize, int c) {
        StaticThreshold p = new StaticThreshold(c);
        return build("sr" + c, servers, chtSize, i -> p);
    }

    /** SR_dyn: one {@link DynamicThreshold} (defaults) per server agent. */
    public static SrlbDispatcher dynamic(int servers, int chtSize) {
        return build("srdyn", servers, chtSize, i -> new DynamicThreshold());
    }

    /**
     * @param name result name
     * @param servers N ≥ 2
     * @param chtSize buckets, a power of two
     * @param policy the policy of server i
     */
    public static SrlbDispatcher build(String name, int servers, int chtSize, IntFunction<AcceptPolicy> policy) {
        CandidateTable cht = new CandidateTable(chtSize);
        List<CandidateTable.Server> list = new ArrayList<>(servers);
        AcceptPolicy[] policies = new AcceptPolicy[servers];
        SettableLoadSource[] loads = new SettableLoadSource[servers];
        for (int i = 0; i < servers; i++) {
            list.add(CandidateTable.Server.of(i, MurmurHash3.x64_64(0x0A01_0000L + i, 0, 0), 2));
            policies[i] = policy.apply(i);
            loads[i] = new SettableLoadSource("simulated busy workers", 0);
        }
        cht.rebuild(list);
        return new SrlbDispatcher(name, cht::candidates, (s, busy, remaining) -> {
            loads[s].set(busy);
            return policies[s].accept(loads[s].load(), remaining);
        });
    }
}
