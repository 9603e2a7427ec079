package io.vecflow.dataplane.plugins.srlb.load;

/**
 * SR<sub>c</sub>, SRLB's threshold policy: accept iff {@code load < c}, or if this is the last candidate
 * (docs/load-balancing.md §3 "Acceptance policies"; Oryon/vpp-dev {@code srlb-sa-apache.c}
 * {@code apache_busy_servers_count(p) < p->accept_threshold} — strict, as the code; SRLB's doc says ≤). With the
 * busy-worker count of an Apache scoreboard this is SRLB's {@code apache-threshold}; with nginx's active connections
 * {@code nginx-threshold}; with a cgroup CPU fraction {@code cpuacct} ("CPU below x %").
 *
 * <p>Stateless and allocation-free; one instance may be shared by any number of threads.
 *
 * @param c the threshold, in the load's unit (busy workers, connections, CPU fraction); finite
 */
public record StaticThreshold(double c) implements AcceptPolicy {
    public StaticThreshold {
        if (!Double.isFinite(c)) {
            throw new IllegalArgumentException("static threshold c must be finite, got " + c);
        }
    }

    @Override
    public boolean accept(double load, int remainingChoices) {
        return remainingChoices == 0 || load < c;
    }

    /** @return {@code static-threshold c=<c>} */
    @Override
    public String name() {
        return "static-threshold c=" + (c == Math.rint(c) ? Long.toString((long) c) : Double.toString(c));
    }
}
