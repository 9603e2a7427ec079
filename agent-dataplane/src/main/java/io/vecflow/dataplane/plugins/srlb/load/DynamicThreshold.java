package io.vecflow.dataplane.plugins.srlb.load;

/**
 * SR<sub>dyn</sub> as vecflow defines it — <b>vecflow's own rule</b>: the SRLB paper's adaptive rule is unverified
 * (docs/load-balancing.md §3 "Paper policies"), so this is not a reproduction of it.
 *
 * <p><b>Rule.</b> Behave as {@link StaticThreshold} with an integer threshold c (accept iff {@code load < c}; the last
 * candidate always accepts), and adapt c from this server's own decisions: count the offers it gets with choices left
 * (the ones it may refuse) and how many it accepts. After every {@code window} such offers, compare the acceptance
 * ratio with the band [{@code low}, {@code high}]: below {@code low} → c + 1 (this server sheds too much onto later
 * candidates, who must take it regardless); above {@code high} → c − 1 (it takes nearly everything, so the second
 * choice no longer balances); c stays within [{@code cMin}, {@code cMax}]. Then start a new window.
 *
 * <p><b>Why this band.</b> In the mean-field model of docs/load-balancing.md §5 (PS servers, 2 candidates) the best
 * static c at ρ = 0.5/0.6/0.7/0.8/0.85/0.9/0.95 is 1/1/2/2/3/3/4, and the first candidate's acceptance ratio
 * {@code 1 − x_c} at that c is 0.50/0.40/0.60/0.45/0.56/0.44/0.41 — always inside [0.40, 0.60], while the neighbouring
 * c values fall outside it or tie (ρ = 0.6: c = 1 gives 0.40, T = 1.56; c = 2 gives 0.71, T = 1.59). So a server that
 * holds its acceptance in that band runs at (or next to) the best static threshold for the load it sees, without
 * knowing ρ. The defaults are that band, a 100-offer window (sampling error of the ratio ≈ 0.05) and c ∈ [1, 16]
 * starting at 2. Where two neighbouring c values straddle the band c alternates between them; both are near-optimal in
 * the model.
 *
 * <p>State is a few primitives; {@link #accept} allocates nothing and reads no clock, so a simulation is
 * deterministic. One instance per server agent, used from one thread.
 */
public final class DynamicThreshold implements AcceptPolicy {
    /** Defaults: band [0.40, 0.60], window 100 offers, c ∈ [1, 16], initial c = 2. */
    public static final double DEFAULT_LOW = 0.40, DEFAULT_HIGH = 0.60;
    public static final int DEFAULT_WINDOW = 100, DEFAULT_C_MIN = 1, DEFAULT_C_MAX = 16, DEFAULT_INITIAL_C = 2;

    private final double low, high;
    private final int window, cMin, cMax;
    private int c;
    private int offered, accepted;
    private long raises, lowers;

    /** The defaults above. */
    public DynamicThreshold() {
        this(DEFAULT_INITIAL_C, DEFAULT_C_MIN, DEFAULT_C_MAX, DEFAULT_WINDOW, DEFAULT_LOW, DEFAULT_HIGH);
    }

    /**
     * @param initialC threshold to start from, in [cMin, cMax]
     * @param cMin     smallest threshold (≥ 1; c = 0 would refuse every offer with choices left)
     * @param cMax     largest threshold (≥ cMin)
     * @param window   offers with choices left per adjustment (≥ 1)
     * @param low      lower end of the target acceptance band, in [0, 1)
     * @param high     upper end, in (low, 1]
     * @throws IllegalArgumentException naming the first parameter out of range
     */
    public DynamicThreshold(int initialC, int cMin, int cMax, int window, double low, double high) {
        if (cMin < 1) {
            throw new IllegalArgumentException("dynamic threshold cMin must be >= 1, got " + cMin);
        }
        if (cMax < cMin) {
            throw new IllegalArgumentException("dynamic threshold cMax must be >= cMin " + cMin + ", got " + cMax);
        }
        if (initialC < cMin || initialC > cMax) {
            throw new IllegalArgumentException(
                    "dynamic threshold initial c must be in [" + cMin + ", " + cMax + "], got " + initialC);
        }
        if (window < 1) {
            throw new IllegalArgumentException("dynamic threshold window must be >= 1 offer, got " + window);
        }
        if (!(low >= 0 && low < 1)) {
            throw new IllegalArgumentException("dynamic threshold band low must be in [0, 1), got " + low);
        }
        if (!(high > low && high <= 1)) {
            throw new IllegalArgumentException("dynamic threshold band high must be in (" + low + ", 1], got " + high);
        }
        this.c = initialC;
        this.cMin = cMin;
        this.cMax = cMax;
        this.window = window;
        this.low = low;
        this.high = high;
    }

    @Override
    public boolean accept(double load, int remainingChoices) {
        if (remainingChoices == 0) {
            return true;
        }
        boolean ok = load < c;
        offered++;
        if (ok) {
            accepted++;
        }
        if (offered == window) {
            double ratio = (double) accepted / window;
            if (ratio < low && c < cMax) {
                c++;
                raises++;
            } else if (ratio > high && c > cMin) {
                c--;
                lowers++;
            }
            offered = 0;
            accepted = 0;
        }
        return ok;
    }

    /** @return the current threshold c */
    public int threshold() {
        return c;
    }

    /** @return how many times c was raised since construction */
    public long raises() {
        return raises;
    }

    /** @return how many times c was lowered since construction */
    public long lowers() {
        return lowers;
    }

    /** @return {@code dynamic-threshold band=[low,high] window=W} */
    @Override
    public String name() {
        return "dynamic-threshold band=[" + low + "," + high + "] window=" + window;
    }

    @Override
    public String toString() {
        return name() + " c=" + c;
    }
}
