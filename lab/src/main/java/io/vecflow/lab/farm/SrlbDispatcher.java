package io.vecflow.lab.farm;

import java.util.random.RandomGenerator;

/**
 * SRLB dispatch (docs/load-balancing.md §3): the load balancer maps the connection to a list of candidate servers; the
 * SYN visits them in order and each candidate's server agent decides with its acceptance policy whether to take the
 * connection, the last candidate having no choice left. The simulation applies the decision instantly (the SYN's
 * detour through rejecting candidates takes no simulated time: connection setup is negligible next to service).
 *
 * <p>Which candidates and which policy are pluggable, so that the dispatcher runs vecflow's data-path classes
 * (candidate table and acceptance policies) as well as the mean-field model of docs/load-balancing.md §5 ({@link
 * #model}).
 */
public final class SrlbDispatcher implements Dispatcher {
    /** Candidate lookup: fills {@code out} with the candidates for a flow, returns how many (≥ 1). */
    @FunctionalInterface
    public interface Candidates {
        int lookup(long flowHash, int[] out);
    }

    /** The server agent's decision at candidate {@code server}, which sees {@code busy} busy workers. */
    @FunctionalInterface
    public interface Acceptance {
        /**
         * @param server the candidate
         * @param busy its busy workers
         * @param remainingChoices candidates left after this one (0 at the last: SRLB requires it to accept)
         * @return true to accept
         */
        boolean accept(int server, int busy, int remainingChoices);
    }

    /** Most candidates per flow (SRLB's candidate table has up to 32 pools). */
    public static final int MAX_CANDIDATES = 32;

    private final String name;
    private final Candidates candidates;
    private final Acceptance acceptance;
    private final int[] buf = new int[MAX_CANDIDATES];
    private int lastChoice;
    private long forcedLast;

    /**
     * @param name result name, e.g. {@code sr3}
     * @param candidates candidate lookup
     * @param acceptance acceptance policy
     */
    public SrlbDispatcher(String name, Candidates candidates, Acceptance acceptance) {
        this.name = name;
        this.candidates = candidates;
        this.acceptance = acceptance;
    }

    /**
     * The mean-field model of docs/load-balancing.md §5: two candidates drawn independently and uniformly (from the
     * flow hash's two 32-bit halves), SR_c: the first accepts iff busy < c, the second always.
     *
     * @param servers N ≥ 1
     * @param c threshold ≥ 1
     */
    public static SrlbDispatcher model(int servers, int c) {
        return new SrlbDispatcher("srmodel" + c, (h, out) -> {
            out[0] = (int) Long.remainderUnsigned(h & 0xFFFF_FFFFL, servers);
            out[1] = (int) Long.remainderUnsigned(h >>> 32, servers);
            return 2;
        }, (s, busy, remaining) -> remaining == 0 || busy < c);
    }

    @Override
    public int dispatch(Farm farm, long flowHash, RandomGenerator rng) {
        int k = candidates.lookup(flowHash, buf);
        if (k < 1 || k > MAX_CANDIDATES) {
            throw new IllegalStateException("candidate lookup returned " + k + " candidates (want 1.." + MAX_CANDIDATES
                    + ")");
        }
        for (int i = 0; i < k; i++) {
            int s = buf[i];
            if (acceptance.accept(s, farm.busy(s), k - 1 - i)) {
                lastChoice = i + 1;
                return s;
            }
        }
        // The last candidate declined: the data path drops the SYN and the client retries; the simulation
        // counts it and places the connection on the last candidate (the retry would hunt again).
        forcedLast++;
        lastChoice = k;
        return buf[k - 1];
    }

    @Override
    public int lastChoice() {
        return lastChoice;
    }

    /** @return connections whose last candidate declined (a policy that breaks SRLB's "last must accept") */
    public long forcedLast() {
        return forcedLast;
    }

    @Override
    public String name() {
        return name;
    }
}
