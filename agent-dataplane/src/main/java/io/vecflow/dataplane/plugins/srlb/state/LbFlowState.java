package io.vecflow.dataplane.plugins.srlb.state;

/**
 * The SRLB load balancer's per-flow state machine, as pure transition functions over primitive state
 * (docs/load-balancing.md §3; Oryon/vpp-dev {@code srlb-lb-node.c}): LISTEN → HUNTING → STEER → TEARDOWN.
 *
 * <p>A flow entry is {@code (state, expiresNanos, server)} held by the caller's flow table; this class says what
 * happens to it. Each transition returns an <em>outcome</em> int — new state, SID function to write, action — read
 * with {@link #state}, {@link #function}, {@link #action}; the new expiry is {@link #expiry}{@code (newState, now)}.
 * Expiry is lazy: a state whose {@code expiresNanos} has passed reads as LISTEN. Time is passed in (nanoseconds,
 * monotonic), so a simulation can drive it. Transitions allocate nothing; {@link Counters} are plain fields for one
 * worker (or one simulation thread).
 *
 * <p>Transitions (time-outs: active 40 s, teardown 2 s by default — the SRLB doc's 10 s teardown is overridden by its
 * code's 2 s; both configurable):
 * <ul>
 *   <li>Client packet, LISTEN: HUNTING, action {@link #HUNT} with fn 0x0 for a SYN else 0x1; counts a new flow. If the
 *       flow table is full: stays LISTEN (nothing stored), still hunts, counts table-full.</li>
 *   <li>Client packet, HUNTING: hunt again (same candidates), refresh the active timeout.</li>
 *   <li>Client packet, STEER or TEARDOWN: action {@link #TO_SERVER} with fn 0x2 ({@code ACK_STICKINESS}) to the stored
 *       server; refresh the active (STEER) or teardown (TEARDOWN) timeout; counts a sticky hit.</li>
 *   <li>Server signal 0x8 ({@code CREATE_STICKINESS}): STEER — TEARDOWN stays TEARDOWN; the first one for the flow
 *       counts a first- or later-choice accept by the accepting server's choice index. Table full: LISTEN.</li>
 *   <li>Server signal 0x9 ({@code DELETE_STICKINESS}): TEARDOWN with the teardown timeout.</li>
 * </ul>
 */
public final class LbFlowState {
    public static final int LISTEN = 0, HUNTING = 1, STEER = 2, TEARDOWN = 3;
    /** Action: insert the hunting SRH [candidates…, LB SID, VIP] and send to the first candidate. */
    public static final int HUNT = 1;
    /** Action: insert [server SID fn 0x2, LB SID, VIP] and send to the stored server. */
    public static final int TO_SERVER = 2;
    /** Action: strip the SRH and forward to the client (server signals). */
    public static final int TO_CLIENT = 3;
    /** Action: drop (a server signal with an unknown function). */
    public static final int DROP = 4;
    /** {@link #function} of an outcome that writes no SID function. */
    public static final int NO_FUNCTION = 0xF;

    public static final long DEFAULT_ACTIVE_TIMEOUT_NANOS = 40_000_000_000L;
    public static final long DEFAULT_TEARDOWN_TIMEOUT_NANOS = 2_000_000_000L;

    /** Per-VIP (or per-worker) LB counters; plain fields, one writer. */
    public static final class Counters {
        /** Flows that entered HUNTING. */
        public long newFlows;
        /** Flows whose first CREATE came from choice 0. */
        public long firstChoiceAccepts;
        /** Flows whose first CREATE came from choice ≥ 1. */
        public long secondChoiceAccepts;
        /** First CREATEs from a server that was not among the flow's candidates (choice index &lt; 0). */
        public long otherAccepts;
        /** Client packets steered to an established server (STEER or TEARDOWN). */
        public long stickyHits;
        /** Packets that found the flow table full (state not stored). */
        public long tableFull;
        /** Flows that entered TEARDOWN. */
        public long teardowns;
        /** Server signals with a function other than 0x8/0x9. */
        public long badFunction;
    }

    private final long activeTimeoutNanos, teardownTimeoutNanos;
    private final Counters counters;

    /** Default timeouts (40 s active, 2 s teardown), fresh counters. */
    public LbFlowState() {
        this(DEFAULT_ACTIVE_TIMEOUT_NANOS, DEFAULT_TEARDOWN_TIMEOUT_NANOS, new Counters());
    }

    /**
     * @param activeTimeoutNanos   idle lifetime of HUNTING/STEER entries, ns (&gt; 0)
     * @param teardownTimeoutNanos lifetime of TEARDOWN entries, ns (&gt; 0)
     * @param counters             where to count
     */
    public LbFlowState(long activeTimeoutNanos, long teardownTimeoutNanos, Counters counters) {
        if (activeTimeoutNanos <= 0 || teardownTimeoutNanos <= 0) {
            throw new IllegalArgumentException("SRLB timeouts must be > 0 ns, got active " + activeTimeoutNanos
                    + ", teardown " + teardownTimeoutNanos);
        }
        this.activeTimeoutNanos = activeTimeoutNanos;
        this.teardownTimeoutNanos = teardownTimeoutNanos;
        this.counters = counters;
    }

    /** @return the counters this machine writes */
    public Counters counters() {
        return counters;
    }

    /** @return {@code state}, or LISTEN if {@code nowNanos} has reached {@code expiresNanos} */
    public static int effective(int state, long expiresNanos, long nowNanos) {
        return nowNanos - expiresNanos >= 0 ? LISTEN : state;
    }

    /** @return the expiry for an entry now in {@code state}: now + teardown timeout for TEARDOWN, else + active */
    public long expiry(int state, long nowNanos) {
        return nowNanos + (state == TEARDOWN ? teardownTimeoutNanos : activeTimeoutNanos);
    }

    /**
     * A client → VIP packet.
     *
     * @param state        the stored state (LISTEN for a new entry)
     * @param expiresNanos the stored expiry
     * @param nowNanos     now
     * @param syn          TCP SYN without ACK (UDP: true for a flow's first packet)
     * @param tableFull    the flow table had no room for a new entry
     * @return the outcome (new state, SID function 0x0/0x1/0x2, action HUNT or TO_SERVER)
     */
    public int onClientPacket(int state, long expiresNanos, long nowNanos, boolean syn, boolean tableFull) {
        int s = effective(state, expiresNanos, nowNanos);
        int huntFn = syn ? SrlbSid.FN_CONNECT_IF_AVAILABLE : SrlbSid.FN_RECOVER_STICKINESS;
        switch (s) {
            case LISTEN -> {
                if (tableFull) {
                    counters.tableFull++;
                    return outcome(LISTEN, huntFn, HUNT);
                }
                counters.newFlows++;
                return outcome(HUNTING, huntFn, HUNT);
            }
            case HUNTING -> {
                return outcome(HUNTING, huntFn, HUNT);
            }
            default -> { // STEER, TEARDOWN
                counters.stickyHits++;
                return outcome(s, SrlbSid.FN_ACK_STICKINESS, TO_SERVER);
            }
        }
    }

    /**
     * A server → LB packet whose LB SID carries 0x8 or 0x9.
     *
     * @param state        the stored state
     * @param expiresNanos the stored expiry
     * @param nowNanos     now
     * @param function     the LB SID's function ({@link SrlbSid#CREATE_STICKINESS} or
     *                     {@link SrlbSid#DELETE_STICKINESS})
     * @param choiceIndex  the accepting server's position among the flow's candidates (0 = first), −1 if not among
     *                     them; only used for the first CREATE of a flow
     * @param tableFull    the flow table had no room for the entry
     * @return the outcome (new state, {@link #NO_FUNCTION}, TO_CLIENT or DROP)
     */
    public int onServerSignal(int state, long expiresNanos, long nowNanos, int function, int choiceIndex,
                              boolean tableFull) {
        int s = effective(state, expiresNanos, nowNanos);
        if (function == SrlbSid.FN_DELETE_STICKINESS) {
            if (s != TEARDOWN) {
                counters.teardowns++;
            }
            return outcome(TEARDOWN, NO_FUNCTION, TO_CLIENT);
        }
        if (function != SrlbSid.FN_CREATE_STICKINESS) {
            counters.badFunction++;
            return outcome(s, NO_FUNCTION, DROP);
        }
        if (tableFull) {
            counters.tableFull++;
            return outcome(LISTEN, NO_FUNCTION, TO_CLIENT);
        }
        if (s == TEARDOWN) {
            return outcome(TEARDOWN, NO_FUNCTION, TO_CLIENT);
        }
        if (s == LISTEN || s == HUNTING) {
            if (choiceIndex == 0) {
                counters.firstChoiceAccepts++;
            } else if (choiceIndex > 0) {
                counters.secondChoiceAccepts++;
            } else {
                counters.otherAccepts++;
            }
        }
        return outcome(STEER, NO_FUNCTION, TO_CLIENT);
    }

    static int outcome(int state, int function, int action) {
        return state | (function << 8) | (action << 16);
    }

    /** @return the new state of an outcome */
    public static int state(int outcome) {
        return outcome & 0xFF;
    }

    /** @return the SID function an outcome writes, or {@link #NO_FUNCTION} */
    public static int function(int outcome) {
        return (outcome >>> 8) & 0xFF;
    }

    /** @return the action of an outcome */
    public static int action(int outcome) {
        return (outcome >>> 16) & 0xFF;
    }

    /** @return LISTEN, HUNTING, STEER or TEARDOWN */
    public static String stateName(int state) {
        return switch (state) {
            case LISTEN -> "LISTEN";
            case HUNTING -> "HUNTING";
            case STEER -> "STEER";
            case TEARDOWN -> "TEARDOWN";
            default -> "invalid(" + state + ")";
        };
    }
}
