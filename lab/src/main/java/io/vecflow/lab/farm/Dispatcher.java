package io.vecflow.lab.farm;

import java.util.random.RandomGenerator;

/**
 * Places a new connection on a server. One instance per simulation run (it may keep counters and state).
 *
 * <p>A connection is identified by its 5-tuple; {@code flowHash} is the hash vecflow's data path would compute
 * over it ({@link Connections}), so table-driven dispatchers (Maglev, SRLB's candidate table) select exactly as the
 * data path would.
 */
public interface Dispatcher {
    /**
     * @param farm current server state
     * @param flowHash the connection's 5-tuple hash (u64)
     * @param rng the run's random generator (for load-aware dispatchers' random draws)
     * @return the chosen server, 0 ≤ i < N
     */
    int dispatch(Farm farm, long flowHash, RandomGenerator rng);

    /**
     * @return which candidate accepted the last connection: 1 the first, 2 the second, …; 0 for dispatchers without
     *     candidates (their connections all count as first choice)
     */
    default int lastChoice() {
        return 0;
    }

    /** @return whether decisions depend on server state (JSQ, SRLB); false for random and Maglev */
    default boolean loadAware() {
        return true;
    }

    /** @return the dispatcher's name as written to results, e.g. {@code maglev}, {@code sr3}, {@code jsq2} */
    String name();
}
