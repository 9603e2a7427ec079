package io.vecflow.lab.fabric;

import io.vecflow.dataplane.plugins.clove.path.EdgeFlowlet;
import io.vecflow.dataplane.plugins.clove.path.FlowletTable;
import io.vecflow.dataplane.plugins.clove.path.LeastUtilisedPath;
import io.vecflow.dataplane.plugins.clove.path.PathSelector;
import io.vecflow.dataplane.plugins.clove.path.PathWeights;
import io.vecflow.dataplane.plugins.clove.path.SplitMix64;
import io.vecflow.dataplane.plugins.lb.maglev.MurmurHash3;
import java.util.Arrays;
import java.util.Locale;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

/**
 * CLOVE vs ECMP on a 2-leaf leaf–spine fabric: a <b>flowlet-level fluid</b> simulation (docs/load-balancing.md §6
 * "CLOVE vs ECMP", "a flow-level max-min model is enough to rank schemes but loses queue dynamics").
 *
 * <p><b>Fabric.</b> 2 leaves × S spines, H hosts per leaf; every link {@code linkGbps} (docs/load-balancing.md: 10
 * Gbps) in each direction; the asymmetric fabric degrades the leaf0↔spine0 link (both directions) to {@code
 * degradedFactor} of its capacity (docs/load-balancing.md §6 "only spine0–leaf0 degraded"; 1/5 by default). Path p of a
 * flow = spine p. Links are host uplinks, leaf→spine, spine→leaf and leaf→host; one-way latency 4 × {@code
 * linkLatencyUs}, and every FCT includes one RTT (8 × latency: handshake/last ACK) on top of the transfer.
 *
 * <p><b>Traffic.</b> All-to-all across the two racks: Poisson flow arrivals, source host uniform over all hosts,
 * destination uniform on the other leaf, sizes from a {@link FlowSizeCdf}. Rate λ = load · 2 · S · C / E[size]:
 * {@code load} is the offered fraction of the <em>symmetric</em> fabric's cross-rack capacity (both directions);
 * the asymmetric fabric gets the same offered traffic (so its effective load is higher, as in the papers).
 *
 * <p><b>Transport = max-min fairness.</b> Between events every flow sends at its max-min fair rate over its four
 * links (progressive filling; the idealised outcome of DCTCP sharing — no slow start, no queues, no losses).
 * Rates are recomputed on every arrival, completion and path change.
 *
 * <p><b>Flowlets (model input).</b> A fluid flow has no packet gaps, so the gaps are modelled: while a flow is
 * active, its next gap longer than the flowlet timeout happens after timeout + Exp(mean {@code flowletGapMeanUs}).
 * At each such instant, and at the flow's first packet, vecflow's {@link FlowletTable} (one per source vSwitch) is
 * called with the flow's 5-tuple hash and the time; it sees the gap, starts a flowlet, and asks the scheme's
 * {@link PathSelector} for the flowlet's path. How often real TCP flows pause longer than the timeout depends on the
 * transport and the load; this parameter stands in for it and is reported with the results.
 *
 * <p><b>Schemes.</b>
 * <ul>
 *   <li>ECMP: path = 5-tuple hash mod S, for the flow's lifetime (static hashing);</li>
 *   <li>Edge-Flowlet: vecflow's {@link EdgeFlowlet} (uniformly random path per flowlet);</li>
 *   <li>CLOVE-ECN: vecflow's {@link PathWeights} per (source host, destination host): every
 *       {@code feedbackIntervalUs}, for each path that carries traffic of that pair and crosses a <em>queueing</em>
 *       switch egress, {@code onEcn(path, now)}; the 40 µs per-path window is the class's own. A switch egress
 *       (leaf→spine, spine→leaf, leaf→host) queues — and DCTCP's queue passes K and marks — iff it is the max-min
 *       bottleneck of at least one flow crossing it; a link that carries flows at the rate an upstream bottleneck
 *       of equal capacity set (e.g. the sender's NIC) builds no queue and does not mark;</li>
 *   <li>CLOVE-INT: vecflow's {@link LeastUtilisedPath} per pair, fed every interval with each carrying path's
 *       highest switch-egress utilisation (feedback ages out after 500 µs);</li>
 *   <li>Oracle (CONGA stand-in): per flowlet, the path whose fabric links offer the largest max-min share to one
 *       more flow, min over its links of capacity/(flows + 1), from global, instantaneous state.</li>
 * </ul>
 * Path discovery is idealised: path i of every selector is spine i.
 */
public final class FabricSim {
    private FabricSim() {}

    /** Load-balancing schemes. */
    public enum Scheme {
        ECMP("ecmp"), EDGE_FLOWLET("edge-flowlet"), CLOVE_ECN("clove-ecn"), CLOVE_INT("clove-int"), ORACLE("oracle");

        private final String label;

        Scheme(String label) {
            this.label = label;
        }

        /** @return the name in results, e.g. {@code clove-ecn} */
        public String label() {
            return label;
        }

        /** @return the scheme for a label */
        public static Scheme of(String s) {
            for (Scheme x : values()) {
                if (x.label.equals(s.trim().toLowerCase(Locale.ROOT))) {
                    return x;
                }
            }
            throw new IllegalArgumentException("scheme '" + s + "': want ecmp, edge-flowlet, clove-ecn, clove-int or "
                    + "oracle");
        }
    }

    /**
     * Run configuration.
     *
     * @param spines S (paths), 2–64
     * @param hostsPerLeaf H, 1–256
     * @param linkGbps link capacity, Gbit/s
     * @param linkLatencyUs one-way latency per link, µs
     * @param degradedFactor capacity factor of the leaf0↔spine0 link, in (0, 1]; 1 = symmetric fabric
     * @param workload flow sizes
     * @param load offered fraction of the symmetric cross-rack capacity, in (0, 1]
     * @param warmupS seconds before measured arrivals begin
     * @param durationS seconds of measured arrivals
     * @param drainCapS at most this long after the measured arrivals, then unfinished flows are counted
     * @param flowletTimeoutUs the flowlet table's gap, µs
     * @param flowletGapMeanUs mean of the exponential part of the time between a flow's flowlet gaps, µs
     * @param feedbackIntervalUs ECN/INT feedback period, µs
     */
    public record Config(int spines, int hostsPerLeaf, double linkGbps, double linkLatencyUs, double degradedFactor,
            FlowSizeCdf workload, double load, double warmupS, double durationS, double drainCapS,
            double flowletTimeoutUs, double flowletGapMeanUs, double feedbackIntervalUs) {
        public Config {
            if (spines < 2 || spines > 64 || hostsPerLeaf < 1 || hostsPerLeaf > 256) {
                throw new IllegalArgumentException("spines must be in [2, 64] and hosts per leaf in [1, 256], got "
                        + spines + ", " + hostsPerLeaf);
            }
            if (!(degradedFactor > 0 && degradedFactor <= 1)) {
                throw new IllegalArgumentException("degraded factor must be in (0, 1], got " + degradedFactor);
            }
            if (!(load > 0 && load <= 1)) {
                throw new IllegalArgumentException("load must be in (0, 1], got " + load);
            }
            if (!(linkGbps > 0) || !(linkLatencyUs >= 0) || !(warmupS >= 0) || !(durationS > 0) || !(drainCapS >= 0)
                    || !(flowletTimeoutUs > 0) || !(flowletGapMeanUs >= 0) || !(feedbackIntervalUs > 0)) {
                throw new IllegalArgumentException("link speed, duration, flowlet timeout and feedback interval must "
                        + "be > 0 and latency, warm-up, drain cap, gap mean >= 0");
            }
        }

        /**
         * docs/load-balancing.md's 10 G fabric with S spines, 8 hosts per leaf, 10 µs links, timeout 500 µs, 20 µs
         * feedback.
         */
        public static Config of(int spines, double degradedFactor, FlowSizeCdf workload, double load,
                double warmupS, double durationS) {
            return new Config(spines, 8, 10, 10, degradedFactor, workload, load, warmupS, durationS, 2.0, 500, 500,
                    20);
        }
    }

    /**
     * Flow-completion times (ms) of the measured flows.
     *
     * @param flows measured flows that completed
     * @param unfinished measured flows still running at the drain cap (excluded from the FCTs)
     * @param meanFct mean FCT, all sizes
     * @param p99Fct 99th percentile, all sizes
     * @param smallMean mean FCT of flows < 100 KB
     * @param smallP99 p99 FCT of flows < 100 KB
     * @param largeMean mean FCT of flows > 10 MB (NaN if none)
     * @param flowletsPerFlow flowlets started per flow (1 for ECMP)
     */
    public record Result(long flows, long unfinished, double meanFct, double p99Fct, double smallMean,
            double smallP99, double largeMean, double flowletsPerFlow) {}

    /** Small / large flow thresholds of docs/load-balancing.md §6, bytes. */
    public static final double SMALL = 100e3, LARGE = 10e6;

    /** Most concurrently active flows before the run is declared unstable. */
    public static final int MAX_ACTIVE = 200_000;

    /**
     * Runs one replication.
     *
     * @param cfg configuration
     * @param scheme load-balancing scheme
     * @param seed seed of arrivals, sizes, endpoints and 5-tuples (common across schemes) and of the schemes'
     *     own random draws
     * @return FCT statistics
     * @throws IllegalStateException if more than {@link #MAX_ACTIVE} flows are active at once
     */
    public static Result run(Config cfg, Scheme scheme, long seed) {
        return new Run(cfg, scheme, seed).go();
    }

    /**
     * One run's state. Links in path order — host up [0, 2H), leaf→spine, spine→leaf, host down — so that progressive
     * filling, which takes the lowest-indexed link among equal shares, names the most upstream one as a flow's
     * bottleneck (equal-capacity links downstream of a bottleneck carry the flow at their own speed: no queue).
     */
    private static final class Run {
        final Config c;
        final Scheme scheme;
        final RandomGenerator traffic;
        final RandomGenerator gaps;
        final int s, h2, nLinks;
        final double[] cap;
        final double bytesPerSec;
        // active flows, struct of arrays with swap-remove
        int n;
        int[] src = new int[256], dst = new int[256], path = new int[256], flowlets = new int[256];
        double[] size = new double[256], rem = new double[256], arrival = new double[256], rate = new double[256],
                finish = new double[256], nextGap = new double[256];
        long[] hash = new long[256];
        boolean[] measured = new boolean[256];
        // per-link scratch
        final double[] remCap, load;
        final int[] unfrozen, onLink, linkStart, linkFill;
        int[] linkFlows = new int[1024];
        boolean[] frozen = new boolean[256];
        int[] bottleneck = new int[256];
        final boolean[] queueing;
        // schemes
        final FlowletTable[] flowletTables;
        final PathSelector[] selectors; // per (src, dst) pair
        final SplitMix64 schemeRng;
        final long[] pairStamp;
        long stamp;
        int oracleSrcLeaf, oracleDstLeaf;
        // results
        double[] fct = new double[1024], fctSize = new double[1024];
        int done;
        int measuredActive;
        long flowletsMeasured;

        Run(Config c, Scheme scheme, long seed) {
            this.c = c;
            this.scheme = scheme;
            this.traffic = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
            this.gaps = RandomGeneratorFactory.of("L64X128MixRandom").create(seed * 31 + 7);
            this.schemeRng = new SplitMix64(seed * 1_000_003L + scheme.ordinal());
            this.s = c.spines();
            this.h2 = 2 * c.hostsPerLeaf();
            this.nLinks = 2 * h2 + 4 * s;
            this.bytesPerSec = c.linkGbps() * 1e9 / 8;
            this.cap = new double[nLinks];
            Arrays.fill(cap, bytesPerSec);
            cap[up(0, 0)] *= c.degradedFactor();
            cap[down(0, 0)] *= c.degradedFactor();
            remCap = new double[nLinks];
            load = new double[nLinks];
            queueing = new boolean[nLinks];
            unfrozen = new int[nLinks];
            onLink = new int[nLinks];
            linkStart = new int[nLinks + 1];
            linkFill = new int[nLinks];
            long timeoutNs = Math.round(c.flowletTimeoutUs() * 1000);
            flowletTables = new FlowletTable[h2];
            for (int i = 0; i < h2; i++) {
                flowletTables[i] = new FlowletTable(4096, timeoutNs);
            }
            selectors = new PathSelector[h2 * h2];
            pairStamp = new long[h2 * h2 * s];
            int[] ports = new int[s];
            for (int p = 0; p < s; p++) {
                ports[p] = 49152 + p; // idealised discovery: path p = spine p
            }
            for (int a = 0; a < h2; a++) {
                for (int b = 0; b < h2; b++) {
                    selectors[a * h2 + b] = switch (scheme) {
                        case EDGE_FLOWLET -> new EdgeFlowlet(s, schemeRng);
                        case CLOVE_ECN -> new PathWeights(ports, PathWeights.DEFAULT_WINDOW_NANOS, schemeRng);
                        case CLOVE_INT -> new LeastUtilisedPath(s, schemeRng, 500_000);
                        default -> null;
                    };
                }
            }
        }

        int leaf(int host) {
            return host < h2 / 2 ? 0 : 1;
        }

        int up(int leaf, int spine) {
            return h2 + leaf * s + spine;
        }

        int down(int spine, int leaf) {
            return h2 + 2 * s + leaf * s + spine;
        }

        int hostDown(int host) {
            return h2 + 4 * s + host;
        }

        /** The flow's four links: host up, leaf→spine, spine→leaf, leaf→host. */
        int link(int f, int k) {
            return switch (k) {
                case 0 -> src[f];
                case 1 -> up(leaf(src[f]), path[f]);
                case 2 -> down(path[f], leaf(dst[f]));
                default -> hostDown(dst[f]);
            };
        }

        Result go() {
            double lambda = c.load() * 2 * s * bytesPerSec / c.workload().mean();
            double t = 0;
            double measureFrom = c.warmupS(), measureTo = c.warmupS() + c.durationS();
            double cap = measureTo + c.drainCapS();
            double nextArrival = -Math.log(1 - traffic.nextDouble()) / lambda;
            double tick = c.feedbackIntervalUs() * 1e-6;
            boolean feedback = scheme == Scheme.CLOVE_ECN || scheme == Scheme.CLOVE_INT;
            boolean flowletScheme = scheme != Scheme.ECMP;
            double nextTick = feedback ? tick : Double.POSITIVE_INFINITY;
            double lastUpdate = 0;
            double nextFinish = Double.POSITIVE_INFINITY;
            long maxEvents = 2_000_000_000L;
            for (long ev = 0; ev < maxEvents; ev++) {
                if (t >= measureTo && measuredActive == 0) {
                    break;
                }
                double nextGapT = Double.POSITIVE_INFINITY;
                int gapFlow = -1;
                if (flowletScheme) {
                    for (int f = 0; f < n; f++) {
                        if (nextGap[f] < nextGapT) {
                            nextGapT = nextGap[f];
                            gapFlow = f;
                        }
                    }
                }
                double arrT = nextArrival; // arrivals go on (unmeasured) until the measured flows are done
                double tn = Math.min(Math.min(arrT, nextFinish), Math.min(nextGapT, nextTick));
                if (tn > cap || tn == Double.POSITIVE_INFINITY) {
                    break;
                }
                t = tn;
                if (t == nextFinish) {
                    advance(t, lastUpdate);
                    lastUpdate = t;
                    int f = argMinFinish();
                    complete(f, t);
                    nextFinish = recompute(t);
                } else if (t == arrT) {
                    advance(t, lastUpdate);
                    lastUpdate = t;
                    arrive(t, t >= measureFrom && t < measureTo);
                    nextArrival = t - Math.log(1 - traffic.nextDouble()) / lambda;
                    nextFinish = recompute(t);
                } else if (t == nextGapT) {
                    int before = path[gapFlow];
                    choosePath(gapFlow, t);
                    nextGap[gapFlow] = t + gapDelay();
                    if (path[gapFlow] != before) {
                        advance(t, lastUpdate);
                        lastUpdate = t;
                        nextFinish = recompute(t);
                    }
                } else {
                    feedback(t);
                    nextTick = t + tick;
                }
            }
            return result();
        }


        double gapDelay() {
            return (c.flowletTimeoutUs() - c.flowletGapMeanUs() * Math.log(1 - gaps.nextDouble())) * 1e-6 + 1e-9;
        }

        void arrive(double t, boolean meas) {
            if (n == MAX_ACTIVE) {
                throw new IllegalStateException(MAX_ACTIVE + " flows active at once: offered load " + c.load()
                        + " is beyond the fabric's capacity");
            }
            if (n == src.length) {
                grow();
            }
            int f = n++;
            int a = traffic.nextInt(h2);
            int half = h2 / 2;
            int b = (a < half ? half : 0) + traffic.nextInt(half);
            src[f] = a;
            dst[f] = b;
            size[f] = c.workload().sample(traffic);
            rem[f] = size[f];
            arrival[f] = t;
            measured[f] = meas;
            if (meas) {
                measuredActive++;
            }
            long srcIp = 0x0A00_0000L | a, dstIp = 0x0A00_0000L | b;
            int sport = 1024 + traffic.nextInt(64512);
            hash[f] = MurmurHash3.x64_64((srcIp << 32) | dstIp, ((long) sport << 32) | (80 << 8) | 6, 0);
            flowlets[f] = 0;
            path[f] = -1;
            choosePath(f, t);
            nextGap[f] = scheme == Scheme.ECMP ? Double.POSITIVE_INFINITY : t + gapDelay();
        }

        void choosePath(int f, double t) {
            long now = Math.round(t * 1e9);
            if (scheme == Scheme.ECMP) {
                path[f] = (int) Long.remainderUnsigned(hash[f], s);
                flowlets[f] = 1;
                return;
            }
            PathSelector sel;
            if (scheme == Scheme.ORACLE) {
                oracleSrcLeaf = leaf(src[f]);
                oracleDstLeaf = leaf(dst[f]);
                int self = path[f];
                sel = new PathSelector() { // allocation per flowlet is fine in a simulation's control logic
                    @Override
                    public int select() {
                        return oracle(self);
                    }

                    @Override
                    public int paths() {
                        return s;
                    }
                };
            } else {
                sel = selectors[src[f] * h2 + dst[f]];
                if (sel instanceof LeastUtilisedPath lup) {
                    lup.now(now);
                }
            }
            FlowletTable ft = flowletTables[src[f]];
            int p = ft.path(hash[f], now, sel);
            if (ft.lastWasNew()) {
                flowlets[f]++;
            }
            path[f] = p;
        }

        /** Path with the largest min over fabric links of capacity / (flows + 1), ties uniformly at random. */
        int oracle(int current) {
            Arrays.fill(onLink, 0);
            for (int g = 0; g < n; g++) {
                if (path[g] >= 0) {
                    onLink[link(g, 1)]++;
                    onLink[link(g, 2)]++;
                }
            }
            double best = -1;
            int pick = 0, ties = 0;
            for (int p = 0; p < s; p++) {
                int lu = up(oracleSrcLeaf, p), ld = down(p, oracleDstLeaf);
                int self = p == current ? 1 : 0; // the flow itself already counts on its current path
                double share = Math.min(cap[lu] / (onLink[lu] + 1 - self), cap[ld] / (onLink[ld] + 1 - self));
                if (share > best + 1e-9) {
                    best = share;
                    pick = p;
                    ties = 1;
                } else if (Math.abs(share - best) <= 1e-9 && schemeRng.nextInt(++ties) == 0) {
                    pick = p;
                }
            }
            return pick;
        }

        void feedback(double t) {
            long now = Math.round(t * 1e9);
            Arrays.fill(load, 0);
            Arrays.fill(queueing, false);
            for (int f = 0; f < n; f++) {
                for (int k = 0; k < 4; k++) {
                    load[link(f, k)] += rate[f];
                }
                queueing[bottleneck[f]] = true;
            }
            stamp++;
            for (int f = 0; f < n; f++) {
                int pair = src[f] * h2 + dst[f];
                int key = pair * s + path[f];
                if (pairStamp[key] == stamp) {
                    continue;
                }
                pairStamp[key] = stamp;
                double u = 0;
                boolean mark = false;
                for (int k = 1; k < 4; k++) { // switch egresses only: the host's own NIC does not mark or stamp
                    int l = link(f, k);
                    u = Math.max(u, load[l] / cap[l]);
                    mark |= queueing[l];
                }
                if (selectors[pair] instanceof PathWeights w) {
                    if (mark) {
                        w.onEcn(path[f], now);
                    }
                } else if (selectors[pair] instanceof LeastUtilisedPath lup) {
                    lup.onUtilisation(path[f], Math.min(u, 1.0), now);
                }
            }
        }

        void advance(double t, double since) {
            double dt = t - since;
            if (dt <= 0) {
                return;
            }
            for (int f = 0; f < n; f++) {
                rem[f] = Math.max(0, rem[f] - rate[f] * dt);
            }
        }

        int argMinFinish() {
            int best = 0;
            for (int f = 1; f < n; f++) {
                if (finish[f] < finish[best]) {
                    best = f;
                }
            }
            return best;
        }

        void complete(int f, double t) {
            if (measured[f]) {
                measuredActive--;
                if (done == fct.length) {
                    fct = Arrays.copyOf(fct, 2 * done);
                    fctSize = Arrays.copyOf(fctSize, 2 * done);
                }
                double rtt = 8 * c.linkLatencyUs() * 1e-6;
                fct[done] = (t - arrival[f] + rtt) * 1e3;
                fctSize[done] = size[f];
                flowletsMeasured += flowlets[f];
                done++;
            }
            int last = --n;
            src[f] = src[last];
            dst[f] = dst[last];
            path[f] = path[last];
            flowlets[f] = flowlets[last];
            size[f] = size[last];
            rem[f] = rem[last];
            arrival[f] = arrival[last];
            rate[f] = rate[last];
            finish[f] = finish[last];
            nextGap[f] = nextGap[last];
            hash[f] = hash[last];
            measured[f] = measured[last];
        }

        /** Max-min fair rates by progressive filling; returns the earliest finish time. */
        double recompute(double t) {
            if (n == 0) {
                return Double.POSITIVE_INFINITY;
            }
            Arrays.fill(unfrozen, 0);
            for (int f = 0; f < n; f++) {
                for (int k = 0; k < 4; k++) {
                    unfrozen[link(f, k)]++;
                }
            }
            linkStart[0] = 0;
            for (int l = 0; l < nLinks; l++) {
                linkStart[l + 1] = linkStart[l] + unfrozen[l];
                linkFill[l] = linkStart[l];
                remCap[l] = cap[l];
            }
            if (linkFlows.length < 4 * n) {
                linkFlows = new int[8 * n];
            }
            if (frozen.length < n) {
                frozen = new boolean[src.length];
                bottleneck = new int[src.length];
            }
            for (int f = 0; f < n; f++) {
                frozen[f] = false;
                for (int k = 0; k < 4; k++) {
                    int l = link(f, k);
                    linkFlows[linkFill[l]++] = f;
                }
            }
            int left = n;
            for (int guard = 0; left > 0 && guard <= nLinks; guard++) {
                int bl = -1;
                double share = Double.POSITIVE_INFINITY;
                for (int l = 0; l < nLinks; l++) {
                    if (unfrozen[l] > 0) {
                        double sh = remCap[l] / unfrozen[l];
                        if (sh < share * (1 - 1e-9)) { // equal shares: keep the upstream (lower-indexed) link
                            share = sh;
                            bl = l;
                        }
                    }
                }
                for (int i = linkStart[bl]; i < linkStart[bl + 1]; i++) {
                    int f = linkFlows[i];
                    if (frozen[f]) {
                        continue;
                    }
                    frozen[f] = true;
                    rate[f] = share;
                    bottleneck[f] = bl;
                    left--;
                    for (int k = 0; k < 4; k++) {
                        int l = link(f, k);
                        remCap[l] = Math.max(0, remCap[l] - share);
                        unfrozen[l]--;
                    }
                }
            }
            double next = Double.POSITIVE_INFINITY;
            for (int f = 0; f < n; f++) {
                finish[f] = rate[f] > 0 ? t + rem[f] / rate[f] : Double.POSITIVE_INFINITY;
                next = Math.min(next, finish[f]);
            }
            return next;
        }

        void grow() {
            int m = 2 * src.length;
            src = Arrays.copyOf(src, m);
            dst = Arrays.copyOf(dst, m);
            path = Arrays.copyOf(path, m);
            flowlets = Arrays.copyOf(flowlets, m);
            size = Arrays.copyOf(size, m);
            rem = Arrays.copyOf(rem, m);
            arrival = Arrays.copyOf(arrival, m);
            rate = Arrays.copyOf(rate, m);
            finish = Arrays.copyOf(finish, m);
            nextGap = Arrays.copyOf(nextGap, m);
            hash = Arrays.copyOf(hash, m);
            measured = Arrays.copyOf(measured, m);
            bottleneck = Arrays.copyOf(bottleneck, m);
        }

        Result result() {
            long unfinished = measuredActive;
            double[] all = Arrays.copyOf(fct, done);
            double sum = 0, sSum = 0, lSum = 0;
            int sN = 0, lN = 0;
            double[] small = new double[done];
            for (int i = 0; i < done; i++) {
                sum += fct[i];
                if (fctSize[i] < SMALL) {
                    small[sN++] = fct[i];
                    sSum += fct[i];
                } else if (fctSize[i] > LARGE) {
                    lSum += fct[i];
                    lN++;
                }
            }
            Arrays.sort(all);
            double[] sm = Arrays.copyOf(small, sN);
            Arrays.sort(sm);
            return new Result(done, unfinished, done == 0 ? Double.NaN : sum / done, q(all, 0.99),
                    sN == 0 ? Double.NaN : sSum / sN, q(sm, 0.99), lN == 0 ? Double.NaN : lSum / lN,
                    done == 0 ? Double.NaN : (double) flowletsMeasured / done);
        }

        static double q(double[] sorted, double p) {
            if (sorted.length == 0) {
                return Double.NaN;
            }
            int i = (int) Math.ceil(p * sorted.length) - 1;
            return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
        }
    }
}
