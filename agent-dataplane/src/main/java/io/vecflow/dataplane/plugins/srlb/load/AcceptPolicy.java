package io.vecflow.dataplane.plugins.srlb.load;

/**
 * An SRLB server agent's connect-if-available decision: given this server's current load metric (from its
 * {@link LoadSource}) and how many candidates come after it in the SYN's segment list, accept the new connection or
 * pass it on (docs/load-balancing.md §3, step 2; Oryon/vpp-dev {@code srlb-sa.c} / {@code srlb-sa-apache.c}: the
 * {@code accept(ai, remaining_choices, vip)} callback).
 *
 * <p>Rules every implementation follows unless its docs say otherwise: {@code remainingChoices == 0} means this is
 * the last candidate, which must accept or the SYN is dropped; the server agent never accepts when its flow table is
 * full (that check is the caller's, not the policy's).
 *
 * <p>Per-packet use: implementations allocate nothing and read no clock; a stateful one ({@link DynamicThreshold})
 * is meant for one server agent on one thread (one instance per server in a simulation).
 */
public interface AcceptPolicy {
    /**
     * @param load             the server's load metric at decision time (unit as its {@link LoadSource}: busy
     *                         workers, active connections, or a CPU fraction)
     * @param remainingChoices candidates after this one in the segment list (≥ 0; 0 = last)
     * @return true to accept the connection here, false to pass it to the next candidate (or drop it if last)
     */
    boolean accept(double load, int remainingChoices);

    /** @return the policy's name as SRLB's CLI spells it where one exists ({@code always-accept}, ...) */
    String name();

    /** Accept every connection (SRLB's default policy, {@code always-accept}). */
    AcceptPolicy ALWAYS_ACCEPT = new Fixed("always-accept", true, true);
    /** Reject every connection, even as the last candidate — whose SYN is then dropped ({@code always-reject}). */
    AcceptPolicy ALWAYS_REJECT = new Fixed("always-reject", false, false);
    /** Accept only as the last candidate, {@code remainingChoices == 0} ({@code only-last}). */
    AcceptPolicy ONLY_LAST = new Fixed("only-last", false, true);

    /** A policy that ignores the load; SRLB's built-ins ({@code srlb-sa.c}). */
    record Fixed(String name, boolean acceptWithChoicesLeft, boolean acceptAsLast) implements AcceptPolicy {
        @Override
        public boolean accept(double load, int remainingChoices) {
            return remainingChoices == 0 ? acceptAsLast : acceptWithChoicesLeft;
        }
    }
}
