package io.vecflow.dataplane.plugins.clove.path;

import java.util.Arrays;

/**
 * CLOVE-ECN path weights for one destination (docs/load-balancing.md §4 "CLOVE-ECN"; snowzjx/ns3-load-balance
 * {@code src/clove/model/ipv4-clove.cc} {@code FlowRecv}): k paths, each an outer UDP source port that the fabric's
 * ECMP hash maps to a distinct path; every weight starts at 1.0.
 *
 * <p><b>On an ECN mark relayed for path p</b> ({@link #onEcn}): {@code w_p ← 0.67·w_p}, and {@code 0.33·w_p} (the
 * old w_p) is added in equal parts {@code 0.33·w_p/(k−1)} to each other path, so the total stays k (up to rounding).
 * With k = 1 nothing changes (the model "reverts" the cut when there is no other path). A path is cut at most once
 * per {@code window} (default 40 µs, the model's half-RTT): a mark arriving less than {@code window} after the last
 * applied cut on that path is ignored ({@code now − lastCut ≥ window} applies, as the model).
 *
 * <p><b>Per new flowlet</b> ({@link #select}): path p with probability {@code w_p / Σw}, drawn from a seeded
 * {@link SplitMix64} — a cumulative-sum walk over the k weights, no allocation. (The ns-3 model's selection loop
 * resets its running sum every step and its spread writes to the congested path's key, which we do not copy:
 * docs/load-balancing.md gives the rule, and the rule is what is implemented.)
 *
 * <p>Not thread-safe: one instance per destination per worker (or per simulation).
 */
public final class PathWeights implements PathSelector {
    /** Largest number of paths per destination. */
    public static final int MAX_PATHS = 256;
    /** Multiplier applied to a marked path's weight. */
    public static final double KEEP = 0.67;
    /** Fraction of a marked path's weight spread over the other paths. */
    public static final double SPREAD = 0.33;
    /** Default per-path cut window: 40 µs. */
    public static final long DEFAULT_WINDOW_NANOS = 40_000;

    private final int[] ports;
    private final double[] weights;
    private final long[] lastCutNanos;
    private final long windowNanos;
    private final SplitMix64 rng;
    private long cuts, ignoredMarks;

    /**
     * @param ports       the k outer UDP source ports, path i = ports[i] (distinct, 0..65535); copied
     * @param windowNanos minimum time between two cuts of one path, ns (≥ 0)
     * @param rng         the random source for {@link #select()}
     * @throws IllegalArgumentException on an empty/oversized/duplicate port list or a negative window
     */
    public PathWeights(int[] ports, long windowNanos, SplitMix64 rng) {
        if (ports.length < 1 || ports.length > MAX_PATHS) {
            throw new IllegalArgumentException("paths must be in [1, " + MAX_PATHS + "], got " + ports.length);
        }
        for (int i = 0; i < ports.length; i++) {
            if (ports[i] < 0 || ports[i] > 0xFFFF) {
                throw new IllegalArgumentException("UDP source port of path " + i + " must be 0..65535, got "
                        + ports[i]);
            }
            for (int j = 0; j < i; j++) {
                if (ports[j] == ports[i]) {
                    throw new IllegalArgumentException("UDP source port " + ports[i] + " given for paths " + j
                            + " and " + i);
                }
            }
        }
        if (windowNanos < 0) {
            throw new IllegalArgumentException("ECN cut window must be >= 0 ns, got " + windowNanos);
        }
        this.ports = ports.clone();
        this.weights = new double[ports.length];
        Arrays.fill(weights, 1.0);
        this.lastCutNanos = new long[ports.length];
        Arrays.fill(lastCutNanos, Long.MIN_VALUE);
        this.windowNanos = windowNanos;
        this.rng = rng;
    }

    /**
     * An ECN mark relayed by the receiver for {@code path}.
     *
     * @param path     0..k−1
     * @param nowNanos arrival time of the feedback, ns (monotonic)
     * @return true if the weights changed; false if the mark fell inside the path's window or k = 1
     * @throws IllegalArgumentException if {@code path} is out of range
     */
    public boolean onEcn(int path, long nowNanos) {
        int k = weights.length;
        if (path < 0 || path >= k) {
            throw new IllegalArgumentException("path must be in [0, " + k + "), got " + path);
        }
        long last = lastCutNanos[path];
        if (last != Long.MIN_VALUE && nowNanos - last < windowNanos) {
            ignoredMarks++;
            return false;
        }
        if (k == 1) {
            ignoredMarks++;
            return false;
        }
        lastCutNanos[path] = nowNanos;
        double w = weights[path];
        weights[path] = KEEP * w;
        double share = SPREAD * w / (k - 1);
        for (int i = 0; i < k; i++) {
            if (i != path) {
                weights[i] += share;
            }
        }
        cuts++;
        return true;
    }

    /**
     * An ECN mark relayed for an outer source port.
     *
     * @return as {@link #onEcn(int, long)}; false if the port is not one of this destination's paths
     */
    public boolean onEcnForPort(int port, long nowNanos) {
        int p = pathOfPort(port);
        return p >= 0 && onEcn(p, nowNanos);
    }

    @Override
    public int select() {
        int k = weights.length;
        double total = 0;
        for (int i = 0; i < k; i++) {
            total += weights[i];
        }
        double r = rng.nextDouble() * total;
        double cum = 0;
        for (int i = 0; i < k - 1; i++) {
            cum += weights[i];
            if (r < cum) {
                return i;
            }
        }
        return k - 1; // r < total up to rounding
    }

    @Override
    public int paths() {
        return weights.length;
    }

    /** @return the current weight of {@code path} */
    public double weight(int path) {
        return weights[path];
    }

    /** @return the outer UDP source port of {@code path} */
    public int port(int path) {
        return ports[path];
    }

    /** @return the path using outer source port {@code port}, or −1 (linear in k) */
    public int pathOfPort(int port) {
        for (int i = 0; i < ports.length; i++) {
            if (ports[i] == port) {
                return i;
            }
        }
        return -1;
    }

    /** @return cuts applied so far */
    public long cuts() {
        return cuts;
    }

    /** @return marks ignored (inside the window, or k = 1) */
    public long ignoredMarks() {
        return ignoredMarks;
    }
}
