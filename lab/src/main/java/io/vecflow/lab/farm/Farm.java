package io.vecflow.lab.farm;

/**
 * What a dispatcher may look at: the servers' current occupancy. Dispatchers that are load-oblivious (random,
 * Maglev) ignore it; JSQ(d) reads {@link #jobs}; SRLB's acceptance policies read {@link #busy} at the candidate —
 * the state the server agent itself sees (docs/load-balancing.md §3, apache-threshold: busy workers).
 */
public interface Farm {
    /** @return the number of servers N */
    int size();

    /** @return busy workers (jobs in service) at server {@code i}, 0 ≤ i < N */
    int busy(int i);

    /** @return jobs present (in service plus backlog) at server {@code i} */
    int jobs(int i);
}
