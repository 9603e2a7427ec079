package io.vecflow.dataplane.plugins.clove;

import io.vecflow.dataplane.plugins.clove.path.EdgeFlowlet;
import io.vecflow.dataplane.plugins.clove.path.FlowletTable;
import io.vecflow.dataplane.plugins.clove.path.PathDiscovery;
import io.vecflow.dataplane.plugins.clove.path.PathSelector;
import io.vecflow.dataplane.plugins.clove.path.PathWeights;
import io.vecflow.dataplane.plugins.clove.path.SplitMix64;
import io.vecflow.dataplane.plugins.lb.encap.Encap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

/**
 * CLOVE in the dataplane (Katta et al., CoNEXT 2017; docs/load-balancing.md §4): this dataplane is the hypervisor
 * vSwitch of an overlay whose outer UDP source port selects the fabric's ECMP path. It encapsulates traffic for the
 * configured destinations (remote tunnel endpoints and the inner prefixes behind them) in Geneve or VXLAN
 * ({@link Overlay}), choosing the source port per flowlet ({@link FlowletTable}, gap default 500 µs); it discovers
 * which source ports take distinct paths with traceroute-style probes ({@link PathDiscovery}, sent by
 * {@link CloveProbeNode}); and, in CLOVE-ECN mode, the receiving side relays outer-header CE marks per source port
 * back to the sender in a Geneve option on reverse traffic, where {@link PathWeights} cuts the marked path's weight
 * by 1/3 and spreads it over the others. Edge-Flowlet mode picks a uniformly random path per flowlet
 * ({@link EdgeFlowlet}). CLOVE-INT needs switches that stamp utilisation (INT); no fabric here has them, so the
 * dataplane does not offer it (the lab's {@code LeastUtilisedPath} models it).
 *
 * <p><b>Threads.</b> Flowlet tables are per worker ({@link CloveNode}). Per destination, the path set, weights,
 * probe results and the pending feedback are shared by all workers and guarded by the destination's monitor: a
 * worker takes it once per new flowlet, per relayed feedback entry and per received CE mark, never per ordinary
 * packet. Feedback received on one worker therefore steers every worker's next flowlets.
 *
 * <p><b>Path set.</b> Until the first probe round has settled, a destination uses the first {@code paths} candidate
 * ports blindly; after each round the ports whose hop sequences differ ({@link PathDiscovery#selectPorts}) replace
 * them, and the weights restart at 1.0 if the set changed.
 */
public final class Clove {
    /** Most destinations. */
    public static final int MAX_DESTINATIONS = 64;
    /** Most inner prefixes per destination. */
    public static final int MAX_PREFIXES = 64;
    /** Most outer source ports a receiver tracks per sender for relaying marks. */
    public static final int RELAY_SLOTS = 64;

    /** Path choice per new flowlet. */
    public enum Mode {
        /** CLOVE-ECN: weighted random, weights cut on relayed ECN (docs/load-balancing.md §4). */
        ECN,
        /** Edge-Flowlet: uniformly random, no feedback. */
        EDGE_FLOWLET
    }

    /** One remote tunnel endpoint and the inner IPv4 prefixes behind it. */
    public record DestinationSpec(int vtep, int[] prefixes, int[] prefixLengths) {
        /**
         * @param vtep          the remote endpoint's IPv4 address (big-endian u32)
         * @param prefixes      inner IPv4 prefixes (big-endian u32, host bits zero)
         * @param prefixLengths their lengths, 0..32
         */
        public DestinationSpec {
            if (prefixes.length != prefixLengths.length || prefixes.length < 1 || prefixes.length > MAX_PREFIXES) {
                throw new IllegalArgumentException("a destination needs 1.." + MAX_PREFIXES + " prefixes");
            }
            prefixes = prefixes.clone();
            prefixLengths = prefixLengths.clone();
        }
    }

    /** Settings (defaults in brackets). */
    public static final class Settings {
        /** This endpoint's IPv4 address, big-endian u32: outer source, probe source, decap address. */
        public int vtep;
        /** Geneve [true] or VXLAN (CLOVE-ECN needs Geneve for its feedback option). */
        public boolean geneve = true;
        /** Virtual network identifier [0]. */
        public int vni;
        /** Path choice [ECN]. */
        public Mode mode = Mode.ECN;
        /** k, the paths wanted per destination [4]. */
        public int paths = 4;
        /** Flowlet gap, ns [500 µs]. */
        public long flowletGapNanos = FlowletTable.DEFAULT_TIMEOUT_NANOS;
        /** Flowlet table slots per worker, a power of two [65536]. */
        public int flowletSlots = 1 << 16;
        /** Minimum time between two cuts of one path's weight, ns [40 µs]. */
        public long ecnWindowNanos = PathWeights.DEFAULT_WINDOW_NANOS;
        /** Outer TTL [64]. */
        public int ttl = Encap.DEFAULT_TTL;
        /** First candidate source port [49152]. */
        public int probeFirstPort = 49152;
        /** Candidate source ports probed per destination [32]. */
        public int probeCandidates = 32;
        /** Largest probe TTL: the fabric's hop count to the destination [3: leaf, spine, leaf]. */
        public int probeMaxTtl = 3;
        /** Time between probe rounds, ns [10 s]; replies are evaluated when the next round starts. */
        public long probeIntervalNanos = 10_000_000_000L;
        /** Time after a round's probes after which its replies are evaluated, ns [1 s]. */
        public long probeSettleNanos = 1_000_000_000L;
        /** Destinations. */
        public List<DestinationSpec> destinations = new ArrayList<>();
        /** Random seed (flowlet choices). */
        public long seed = 0x5EED_C10E;
        /** Monotonic clock, ns. */
        public LongSupplier clock = System::nanoTime;
    }

    /** Counters of one worker (plain fields, read racily by {@link #show}). */
    public static final class Counters {
        /** Packets encapsulated toward a destination. */
        public long encapsulated;
        /** Tunnelled packets decapsulated. */
        public long decapsulated;
        /** New flowlets (a path was chosen). */
        public long newFlowlets;
        /** Decapsulated packets whose outer header carried CE. */
        public long ceReceived;
        /** CE marks copied onto an ECT inner header (RFC 6040). */
        public long ceToInner;
        /** Feedback entries sent in Geneve options. */
        public long feedbackSent;
        /** Feedback entries received. */
        public long feedbackReceived;
        /** Weight cuts applied from feedback. */
        public long weightCuts;
        /** Probes sent. */
        public long probesSent;
        /** Probe replies (ICMP) recorded. */
        public long probeReplies;
        /** Probes that reached this endpoint (dropped). */
        public long probesReceived;
        /** Tunnel packets, probe replies or inner packets that could not be used (malformed, no room). */
        public long errors;
        /** CE marks from, or feedback for, an endpoint that is not a destination here. */
        public long unknownPeer;
        /** Of {@link #errors}: tunnel packets refused (another VNI, a Geneve control packet, a critical option). */
        public long refused;
        /** Packets to this endpoint that were neither tunnel packets nor replies to its probes (dropped). */
        public long notTunnel;
        /** The last decap error's {@code Overlay.ERR_*} code (0 = none) and its offset from the outer IP header. */
        public int lastError, lastErrorOffset;
    }

    /** Shared state of one destination; every mutable field is guarded by the instance's monitor. */
    public static final class Destination implements PathSelector {
        final int index;
        final int vtep;
        final int[] prefixes, masks;
        private final Settings settings;
        private final SplitMix64 rng;
        private int[] ports;
        /** The current {@link #ports}, published for {@link #port} (replaced, never modified). */
        private volatile int[] published;
        private PathSelector selector;
        private PathWeights weights; // null in edge-flowlet mode
        private PathDiscovery discovery;
        private long roundSentAt = Long.MIN_VALUE;
        private int rounds;
        private final int[] relayPorts = new int[RELAY_SLOTS];
        private final int[] relayMarks = new int[RELAY_SLOTS];
        private int relayUsed;
        private long relayOverflow;
        /** Set when marks wait to be relayed (read without the lock on the encap path). */
        volatile boolean relayPending;
        /** Bumped whenever the path set changes (workers read it without the lock). */
        volatile int generation;

        Destination(int index, DestinationSpec spec, Settings s) {
            this.index = index;
            this.vtep = spec.vtep();
            this.prefixes = spec.prefixes();
            this.masks = new int[prefixes.length];
            for (int i = 0; i < masks.length; i++) {
                int len = spec.prefixLengths()[i];
                masks[i] = len == 0 ? 0 : -1 << (32 - len);
            }
            this.settings = s;
            this.rng = new SplitMix64(s.seed ^ (long) vtep * 0x9E37_79B9_7F4A_7C15L);
            int[] initial = new int[s.paths];
            for (int i = 0; i < initial.length; i++) {
                initial[i] = s.probeFirstPort + i;
            }
            install(initial);
        }

        private void install(int[] p) {
            ports = p.clone();
            published = ports;
            if (settings.mode == Mode.ECN) {
                weights = new PathWeights(ports, settings.ecnWindowNanos, rng);
                selector = weights;
            } else {
                weights = null;
                selector = new EdgeFlowlet(ports.length, rng);
            }
            generation++;
        }

        /** Chooses a path for a new flowlet (under the lock). */
        @Override
        public synchronized int select() {
            return selector.select();
        }

        @Override
        public synchronized int paths() {
            return ports.length;
        }

        /**
         * @return the outer source port of path {@code i} (clamped to the current set); per packet, so it reads the
         *         published set without taking the lock
         */
        int port(int path) {
            int[] p = published;
            return p[Math.min(path, p.length - 1)];
        }

        /** @return the weight of path {@code i} ×1,000,000 (1,000,000 in edge-flowlet mode) */
        synchronized long weightMicro(int path) {
            return weights == null ? 1_000_000 : Math.round(weights.weight(Math.min(path, ports.length - 1)) * 1e6);
        }

        /** A relayed mark for our source port {@code port}: @return true if a weight was cut. */
        synchronized boolean onFeedback(int port, long now) {
            return weights != null && weights.onEcnForPort(port, now);
        }

        /** The receiver side: one more CE-marked packet arrived from this endpoint on source port {@code port}. */
        synchronized void onCe(int port) {
            for (int i = 0; i < relayUsed; i++) {
                if (relayPorts[i] == port) {
                    relayMarks[i]++;
                    relayPending = true;
                    return;
                }
            }
            if (relayUsed == RELAY_SLOTS) {
                relayOverflow++;
                return;
            }
            relayPorts[relayUsed] = port;
            relayMarks[relayUsed++] = 1;
            relayPending = true;
        }

        /** Moves up to {@code max} pending marks into the arrays; @return how many entries. */
        synchronized int drainRelay(int[] outPorts, int[] outMarks, int max) {
            int n = 0;
            boolean left = false;
            for (int i = 0; i < relayUsed; i++) {
                if (relayMarks[i] == 0) {
                    continue;
                }
                if (n == max) {
                    left = true;
                    break;
                }
                outPorts[n] = relayPorts[i];
                outMarks[n++] = relayMarks[i];
                relayMarks[i] = 0;
            }
            relayPending = left;
            return n;
        }

        /** Records a probe reply (any worker). */
        synchronized boolean onProbeReply(PathDiscovery.Reply r) {
            return discovery != null && discovery.onReply(r);
        }

        /**
         * The probe node's clock tick: evaluates a settled round and says whether a new round is due.
         *
         * @return a new discovery plan to send now, or null
         */
        synchronized PathDiscovery tick(long now) {
            if (discovery != null && roundSentAt != Long.MIN_VALUE && now - roundSentAt >= settings.probeSettleNanos
                    && discovery.accepted() > 0) {
                int[] chosen = discovery.selectPorts(settings.paths);
                if (chosen.length > 0 && !Arrays.equals(chosen, ports)) {
                    install(chosen);
                }
            }
            if (roundSentAt == Long.MIN_VALUE || now - roundSentAt >= settings.probeIntervalNanos) {
                int[] cand = new int[settings.probeCandidates];
                for (int i = 0; i < cand.length; i++) {
                    cand[i] = settings.probeFirstPort + i;
                }
                discovery = new PathDiscovery(cand, settings.probeMaxTtl);
                roundSentAt = now;
                rounds++;
                return discovery;
            }
            return null;
        }

        /** @return the current outer source ports, path order */
        public synchronized int[] ports() {
            return ports.clone();
        }

        /** @return the current weights, path order (all 1.0 in edge-flowlet mode) */
        public synchronized double[] weights() {
            double[] w = new double[ports.length];
            for (int i = 0; i < w.length; i++) {
                w[i] = weights == null ? 1.0 : weights.weight(i);
            }
            return w;
        }

        /** @return the hop signature the last probe round found for {@code port}, or null */
        public synchronized String signature(int port) {
            return discovery == null ? null : discovery.signature(port);
        }

        /** @return the remote endpoint, big-endian u32 */
        public int vtep() {
            return vtep;
        }

        /** @return probe rounds started */
        public synchronized int rounds() {
            return rounds;
        }

        /** @return weight cuts applied (CLOVE-ECN) */
        public synchronized long cuts() {
            return weights == null ? 0 : weights.cuts();
        }
    }

    private final Settings settings;
    private final Destination[] destinations;
    private final List<Counters> counters = new CopyOnWriteArrayList<>();

    /**
     * @param s the settings
     * @throws IllegalArgumentException on bad settings (VXLAN with CLOVE-ECN, no or too many destinations, paths or
     *     candidates out of range)
     */
    public Clove(Settings s) {
        if (s.mode == Mode.ECN && !s.geneve) {
            throw new IllegalArgumentException("CLOVE-ECN relays marks in a Geneve option: use encap geneve, or mode "
                    + "edge-flowlet with vxlan");
        }
        if (s.destinations.isEmpty() || s.destinations.size() > MAX_DESTINATIONS) {
            throw new IllegalArgumentException("CLOVE needs 1.." + MAX_DESTINATIONS + " destinations");
        }
        if (s.paths < 1 || s.paths > s.probeCandidates || s.probeCandidates > PathDiscovery.MAX_CANDIDATE_PORTS
                || s.probeFirstPort < 1 || s.probeFirstPort + s.probeCandidates > 0x10000) {
            throw new IllegalArgumentException("CLOVE paths must be 1..candidates, candidates 1.."
                    + PathDiscovery.MAX_CANDIDATE_PORTS + " ports from first-port within 1..65535");
        }
        this.settings = s;
        this.destinations = new Destination[s.destinations.size()];
        for (int i = 0; i < destinations.length; i++) {
            destinations[i] = new Destination(i, s.destinations.get(i), s);
        }
    }

    /** @return the settings */
    public Settings settings() {
        return settings;
    }

    /** @return destination {@code i} */
    public Destination destination(int i) {
        return destinations[i];
    }

    /** @return the number of destinations */
    public int destinationCount() {
        return destinations.length;
    }

    /**
     * @return the destination with the longest prefix containing {@code innerDst} (as a route lookup would; linear over
     *     at most {@link #MAX_DESTINATIONS} × {@link #MAX_PREFIXES} prefixes, the first listed on a tie), or −1
     */
    int destinationOf(int innerDst) {
        int best = -1, bestLen = -1;
        for (Destination d : destinations) {
            for (int i = 0; i < d.prefixes.length; i++) {
                int len = Integer.bitCount(d.masks[i]);
                if (len > bestLen && (innerDst & d.masks[i]) == d.prefixes[i]) {
                    best = d.index;
                    bestLen = len;
                }
            }
        }
        return best;
    }

    /** @return the destination with tunnel endpoint {@code vtep}, or −1 */
    int destinationByVtep(int vtep) {
        for (Destination d : destinations) {
            if (d.vtep == vtep) {
                return d.index;
            }
        }
        return -1;
    }

    /** Registers a worker's counters (at graph build time). */
    Counters newCounters() {
        Counters c = new Counters();
        counters.add(c);
        return c;
    }

    /** @return counters summed over workers (a racy snapshot) */
    public Counters totals() {
        Counters t = new Counters();
        for (Counters c : counters) {
            t.encapsulated += c.encapsulated;
            t.decapsulated += c.decapsulated;
            t.newFlowlets += c.newFlowlets;
            t.ceReceived += c.ceReceived;
            t.ceToInner += c.ceToInner;
            t.feedbackSent += c.feedbackSent;
            t.feedbackReceived += c.feedbackReceived;
            t.weightCuts += c.weightCuts;
            t.probesSent += c.probesSent;
            t.probeReplies += c.probeReplies;
            t.probesReceived += c.probesReceived;
            t.errors += c.errors;
            t.unknownPeer += c.unknownPeer;
            t.refused += c.refused;
            t.notTunnel += c.notTunnel;
            if (c.lastError != 0) {
                t.lastError = c.lastError;
                t.lastErrorOffset = c.lastErrorOffset;
            }
        }
        return t;
    }

    /** {@code show clove}: settings, per destination its paths (port, weight, hop signature), then the counters. */
    public String show() {
        Settings s = settings;
        StringBuilder b = new StringBuilder();
        b.append("clove: vtep ").append(ip4(s.vtep)).append(s.geneve ? " geneve" : " vxlan").append(" vni ")
                .append(s.vni).append(" mode ").append(s.mode == Mode.ECN ? "ecn" : "edge-flowlet")
                .append(" flowlet-gap ").append(s.flowletGapNanos / 1000).append(" us paths-wanted ").append(s.paths)
                .append('\n');
        for (Destination d : destinations) {
            b.append("destination ").append(ip4(d.vtep)).append(" prefixes");
            for (int i = 0; i < d.prefixes.length; i++) {
                b.append(' ').append(ip4(d.prefixes[i])).append('/').append(Integer.bitCount(d.masks[i]));
            }
            b.append(" probe-rounds ").append(d.rounds()).append(" cuts ").append(d.cuts()).append('\n');
            int[] p = d.ports();
            double[] w = d.weights();
            for (int i = 0; i < p.length; i++) {
                String sig = d.signature(p[i]);
                b.append(String.format("  path %d port %d weight %.3f via %s%n", i, p[i], w[i],
                        sig == null ? "(not probed)" : sig));
            }
        }
        Counters t = totals();
        b.append(String.format("counters: encapsulated %d decapsulated %d new-flowlets %d ce-received %d ce-to-inner %d"
                + " feedback-sent %d feedback-received %d weight-cuts %d probes-sent %d probe-replies %d"
                + " probes-received %d errors %d (refused %d) not-tunnel %d unknown-peer %d%n", t.encapsulated,
                t.decapsulated, t.newFlowlets, t.ceReceived, t.ceToInner, t.feedbackSent, t.feedbackReceived,
                t.weightCuts, t.probesSent, t.probeReplies, t.probesReceived, t.errors, t.refused, t.notTunnel,
                t.unknownPeer));
        if (t.lastError != 0) {
            b.append("last decap error: ").append(switch (t.lastError) {
                case Overlay.ERR_TRUNCATED -> "truncated";
                case Overlay.ERR_NOT_IP -> "inner packet not IP";
                case Overlay.ERR_REFUSED -> "refused (VNI, control packet or critical option)";
                default -> "malformed";
            }).append(" at offset ").append(t.lastErrorOffset).append(" of the outer IP header\n");
        }
        return b.toString();
    }

    /** @return the dotted-quad text of a big-endian IPv4 address */
    public static String ipv4Text(int a) {
        return ip4(a);
    }

    static String ip4(int a) {
        return (a >>> 24) + "." + (a >>> 16 & 0xFF) + "." + (a >>> 8 & 0xFF) + "." + (a & 0xFF);
    }
}
