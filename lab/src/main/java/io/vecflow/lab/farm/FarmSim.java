package io.vecflow.lab.farm;

import java.util.Arrays;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

/**
 * One replication of the server-farm discrete-event simulation (docs/load-balancing.md §6, "SRLB vs Maglev"): Poisson
 * arrivals at rate λ = ρ·N (per mean service time), each a new connection with a 5-tuple hash ({@link Connections})
 * placed by a {@link Dispatcher} on one of N {@link Server}s (PS, or Apache-like with a worker limit and backlog),
 * service work from a {@link ServiceTime} with mean 1.
 *
 * <p>Measurement: the first {@code warmup} arrivals (10 % of all arrivals by default, docs/load-balancing.md §6) are
 * not measured; the next {@code jobs} arrivals are; arrivals go on until every measured job has completed, so no
 * measured job is cut short and the load stays at ρ throughout.
 *
 * <p>Initial state: for load-oblivious dispatchers ({@link Dispatcher#loadAware()} false) each server starts with
 * a Geometric(ρ) number of jobs, P(k) = (1 − ρ)·ρ^k — the stationary
 * occupancy of an M/G/1-PS server at load ρ, i.e. of random dispatch (PS is insensitive to the service law) — each
 * with work drawn from the service law (unmeasured). Random and Maglev mix slowly (relaxation time ≈ 1/(1 − √ρ)²
 * mean service times, ≈ 380 at ρ = 0.9), so an empty start would bias short runs low. Load-aware dispatchers start
 * empty: they fill to their (much smaller) steady state within a few mean service times, well inside the warm-up,
 * whereas draining a geometric start would take ρ/(1 − ρ)·N jobs' worth of spare capacity. The event loop is bounded:
 * it fails after 100 × (warm-up + jobs) + 3·10^8 events, which a stable system never reaches.
 */
public final class FarmSim {
    private FarmSim() {}

    /**
     * Run configuration.
     *
     * @param servers N ≥ 1
     * @param workers busy-worker limit per server (≥ 1; {@code Integer.MAX_VALUE} = plain PS)
     * @param load ρ in (0, 1): per-server utilisation if perfectly balanced
     * @param service service-time distribution (mean 1)
     * @param jobs measured jobs, ≥ 100
     * @param warmup unmeasured jobs before them, ≥ 0
     */
    public record Config(int servers, int workers, double load, ServiceTime service, int jobs, int warmup) {
        public Config {
            if (servers < 1 || servers > 100_000) {
                throw new IllegalArgumentException("servers must be in [1, 100000], got " + servers);
            }
            if (workers < 1) {
                throw new IllegalArgumentException("workers must be >= 1, got " + workers);
            }
            if (!(load > 0 && load < 1)) {
                throw new IllegalArgumentException("load must be in (0, 1), got " + load);
            }
            if (jobs < 100 || warmup < 0) {
                throw new IllegalArgumentException("jobs must be >= 100 and warmup >= 0, got " + jobs + ", " + warmup);
            }
        }

        /** @return the same with warm-up = jobs/9 (10 % of all arrivals) */
        public static Config of(int servers, int workers, double load, ServiceTime service, int jobs) {
            return new Config(servers, workers, load, service, jobs, jobs / 9);
        }
    }

    /**
     * What one replication measured. Times in mean service times.
     *
     * @param mean mean response time of the measured jobs
     * @param p90 90th percentile
     * @param p99 99th percentile
     * @param firstChoice share of measured connections accepted by their first candidate (1 for dispatchers
     *     without candidates)
     * @param jain Jain's fairness index of the servers' utilisation (busy-time share) over the measured period,
     *     (Σx)²/(N·Σx²), in (0, 1]
     * @param simTime simulated time from the end of warm-up to the last measured completion
     */
    public record Result(double mean, double p90, double p99, double firstChoice, double jain, double simTime) {}

    /**
     * Runs one replication.
     *
     * @param cfg configuration
     * @param dispatcher a fresh dispatcher for this run (built for {@code cfg.servers()})
     * @param seed random seed (arrivals, services, connections and the dispatcher's draws all come from it)
     * @return the measurements
     * @throws IllegalStateException if the run exceeds its event bound or a server overflows (unstable load)
     */
    public static Result run(Config cfg, Dispatcher dispatcher, long seed) {
        RandomGenerator rng = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        int n = cfg.servers();
        Server[] servers = new Server[n];
        for (int i = 0; i < n; i++) {
            servers[i] = new Server(cfg.workers());
        }
        Farm farm = new Farm() {
            @Override
            public int size() {
                return n;
            }

            @Override
            public int busy(int i) {
                return servers[i].busy();
            }

            @Override
            public int jobs(int i) {
                return servers[i].jobs();
            }
        };
        IndexedMinHeap heap = new IndexedMinHeap(n);
        double lambda = cfg.load() * n;
        long warm = cfg.warmup(), measuredEnd = warm + cfg.jobs();
        double[] resp = new double[cfg.jobs()];
        int done = 0;
        long firsts = 0;
        long arrivals = 0;
        double t = 0, warmT = 0;
        for (int i = 0; i < n && !dispatcher.loadAware(); i++) {
            int k = (int) Math.min(10_000, Math.floor(Math.log(1 - rng.nextDouble()) / Math.log(cfg.load())));
            for (int j = 0; j < k; j++) {
                servers[i].arrive(0, cfg.service().sample(rng), false);
            }
            heap.update(i, servers[i].nextCompletion());
        }
        double nextArrival = exp(rng) / lambda;
        // A stable run needs ~2 events per job plus the drain: under PS the largest measured job (heavy-tailed laws:
        // up to ~10^3 mean service times) stays about size/(1 − ρ), i.e. λ·size/(1 − ρ) more events.
        long maxEvents = 100L * measuredEnd + 300_000_000L;
        for (long ev = 0; done < cfg.jobs(); ev++) {
            if (ev > maxEvents) {
                throw new IllegalStateException("simulation exceeded " + maxEvents + " events at load " + cfg.load());
            }
            if (nextArrival <= heap.minKey()) {
                t = nextArrival;
                long id = arrivals++;
                if (id == warm) {
                    warmT = t;
                    for (Server s : servers) {
                        s.resetArea(t);
                    }
                }
                long h = Connections.next(rng);
                int s = dispatcher.dispatch(farm, h, rng);
                if (s < 0 || s >= n) {
                    throw new IllegalStateException(dispatcher.name() + " chose server " + s + " of " + n);
                }
                boolean measured = id >= warm && id < measuredEnd;
                if (measured && dispatcher.lastChoice() <= 1) {
                    firsts++;
                }
                servers[s].arrive(t, cfg.service().sample(rng), measured);
                heap.update(s, servers[s].nextCompletion());
                nextArrival = t + exp(rng) / lambda;
            } else {
                int s = heap.min();
                t = heap.minKey();
                double r = servers[s].complete(t);
                if (servers[s].lastMeasured()) {
                    resp[done++] = r;
                }
                heap.update(s, servers[s].nextCompletion());
            }
        }
        double sum = 0;
        for (double r : resp) {
            sum += r;
        }
        Arrays.sort(resp);
        double span = t - warmT, sx = 0, sx2 = 0;
        for (Server s : servers) {
            double x = s.busyTime(t) / span;
            sx += x;
            sx2 += x * x;
        }
        double jain = sx2 == 0 ? 1 : sx * sx / (n * sx2);
        return new Result(sum / resp.length, quantile(resp, 0.90), quantile(resp, 0.99),
                (double) firsts / cfg.jobs(), jain, span);
    }

    /** @return the q-quantile of sorted values (nearest rank, ⌈q·n⌉-th smallest) */
    public static double quantile(double[] sorted, double q) {
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static double exp(RandomGenerator rng) {
        return -Math.log(1.0 - rng.nextDouble());
    }
}
