package io.vecflow.lab.farm;

import io.vecflow.dataplane.plugins.lb.maglev.MaglevTable;
import io.vecflow.dataplane.plugins.lb.maglev.MurmurHash3;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The load-oblivious and JSQ dispatchers of docs/load-balancing.md §6 ("Dispatchers"). SRLB is {@link SrlbDispatcher}.
 */
public final class Dispatchers {
    private Dispatchers() {}

    /**
     * Uniformly random server: the idealised Maglev of docs/load-balancing.md §5 (each server is M/G/1-PS at load ρ).
     */
    public static Dispatcher random() {
        return new Dispatcher() {
            @Override
            public int dispatch(Farm farm, long flowHash, RandomGenerator rng) {
                return rng.nextInt(farm.size());
            }

            @Override
            public boolean loadAware() {
                return false;
            }

            @Override
            public String name() {
                return "random";
            }
        };
    }

    /**
     * vecflow's real Maglev table ({@link MaglevTable}, M = 65537, Katran V1, equal weights): the server is
     * {@code ring[flowHash mod M]}. Backend {@code i}'s identity hash is {@code MurmurHash3_x64_64(10.1.0.0 + i, 0,
     * 0)} (standing for Katran's hash of the real's address).
     *
     * @param servers N, 1 ≤ N ≤ 65537
     */
    public static Dispatcher maglev(int servers) {
        if (servers < 1 || servers > MaglevTable.DEFAULT_SIZE) {
            throw new IllegalArgumentException("maglev servers must be in [1, 65537], got " + servers);
        }
        MaglevTable table = new MaglevTable();
        List<MaglevTable.Endpoint> eps = new ArrayList<>(servers);
        for (int i = 0; i < servers; i++) {
            eps.add(new MaglevTable.Endpoint(i, 1, MurmurHash3.x64_64(0x0A01_0000L + i, 0, 0)));
        }
        table.rebuild(eps);
        return new Dispatcher() {
            @Override
            public int dispatch(Farm farm, long flowHash, RandomGenerator rng) {
                return table.lookup(flowHash);
            }

            @Override
            public boolean loadAware() {
                return false;
            }

            @Override
            public String name() {
                return "maglev";
            }
        };
    }

    /**
     * JSQ(d): sample {@code d} distinct servers uniformly, join the one with the fewest jobs present (the first
     * sampled on ties, i.e. a random one). d ≥ N is full JSQ (ties broken uniformly). The upper bounds of
     * docs/load-balancing.md §6.
     *
     * @param d choices, ≥ 1
     */
    public static Dispatcher jsq(int d) {
        if (d < 1) {
            throw new IllegalArgumentException("JSQ choices must be >= 1, got " + d);
        }
        return new Dispatcher() {
            private int[] pool = new int[0];

            @Override
            public int dispatch(Farm farm, long flowHash, RandomGenerator rng) {
                int n = farm.size();
                if (d >= n) {
                    int best = -1, bestJobs = Integer.MAX_VALUE, ties = 0;
                    for (int i = 0; i < n; i++) {
                        int j = farm.jobs(i);
                        if (j < bestJobs) {
                            best = i;
                            bestJobs = j;
                            ties = 1;
                        } else if (j == bestJobs && rng.nextInt(++ties) == 0) {
                            best = i;
                        }
                    }
                    return best;
                }
                if (pool.length != n) {
                    pool = new int[n];
                    for (int i = 0; i < n; i++) {
                        pool[i] = i;
                    }
                }
                int best = -1, bestJobs = Integer.MAX_VALUE;
                for (int k = 0; k < d; k++) { // partial Fisher–Yates: d distinct servers
                    int r = k + rng.nextInt(n - k);
                    int s = pool[r];
                    pool[r] = pool[k];
                    pool[k] = s;
                    int j = farm.jobs(s);
                    if (j < bestJobs) {
                        best = s;
                        bestJobs = j;
                    }
                }
                return best;
            }

            @Override
            public String name() {
                return d == Integer.MAX_VALUE ? "jsq" : "jsq" + d;
            }
        };
    }
}
