package io.vecflow.dataplane.plugins.srlb.state;

import io.vecflow.dataplane.plugins.srlb.load.AcceptPolicy;
import io.vecflow.dataplane.plugins.srlb.load.LoadSource;

/**
 * The SRLB server agent's per-flow state machine, as pure transition functions over primitive state
 * (docs/load-balancing.md §3; Oryon/vpp-dev {@code srlb-sa-node.c}): NONE → WAIT → DIRECT → TEARDOWN.
 *
 * <p>A flow entry is {@code (state, expiresNanos, lbSid)} in the caller's table. Transitions return an outcome int
 * read with {@link #state}, {@link #function}, {@link #action}; the new expiry is {@link #expiry}. Expiry is lazy
 * (an expired entry reads as NONE). Time is passed in, nothing is allocated, {@link Counters} are plain fields.
 *
 * <p>Packets arriving over SRv6 (the SID function of the segment addressed to this server):
 * <ul>
 *   <li>0x0 {@code CONNECT_IF_AVAILABLE} (a hunting SYN): with no state, the {@link AcceptPolicy} decides from the
 *       load and the remaining choices; accept → WAIT, action {@link #DELIVER} (pop the SRH, dst = VIP, remember the
 *       LB SID); refuse → {@link #PASS} to the next candidate ({@code segments_left−−}), or {@link #DROP} when this
 *       was the last. A full flow table never accepts. <b>Deviation from the SRLB code</b>: when state already
 *       exists (a retransmitted SYN) we accept without asking the policy again — the code re-asks, and a refusal
 *       then would split the connection over two servers.</li>
 *   <li>0x1 {@code RECOVER_STICKINESS}: accept iff state exists; the state becomes WAIT again (TEARDOWN stays), so
 *       the replies re-signal 0x8 and the LB relearns the flow — as the code does.</li>
 *   <li>0x2 {@code ACK_STICKINESS}: always deliver; DIRECT (TEARDOWN stays TEARDOWN), as the code does even without
 *       state.</li>
 * </ul>
 * Packets from the local application ({@link #onServerPacket}): a FIN or RST with state → TEARDOWN. Then NONE → drop
 * (no state); DIRECT → {@link #DIRECT} straight to the client, timeout not refreshed (as the code); WAIT →
 * {@link #VIA_LB} with the LB SID's function 0x8, active timeout; TEARDOWN → via the LB with 0x9, teardown timeout.
 */
public final class ServerAgentState {
    public static final int NONE = 0, WAIT = 1, DIRECT = 2, TEARDOWN = 3;
    /** Action: pop the SRH, set dst = VIP, deliver to the application. */
    public static final int DELIVER = 1;
    /** Action: {@code segments_left−−}, send to the next candidate. */
    public static final int PASS = 2;
    /** Action: drop (refused as the last candidate; or a reply with no state). */
    public static final int DROP = 3;
    /** Action: a reply sent straight to the client. */
    public static final int DIRECT_TO_CLIENT = 4;
    /** Action: a reply sent via the LB with SRH [LB SID fn, SA SID, client]. */
    public static final int VIA_LB = 5;
    /** {@link #function} of an outcome that writes no SID function. */
    public static final int NO_FUNCTION = 0xF;

    public static final long DEFAULT_ACTIVE_TIMEOUT_NANOS = LbFlowState.DEFAULT_ACTIVE_TIMEOUT_NANOS;
    public static final long DEFAULT_TEARDOWN_TIMEOUT_NANOS = LbFlowState.DEFAULT_TEARDOWN_TIMEOUT_NANOS;

    /** Per-application-instance counters; plain fields, one writer. */
    public static final class Counters {
        /** New connections accepted as the first candidate (choice 0). */
        public long firstChoiceAccepts;
        /** New connections accepted as a later candidate (choice ≥ 1). */
        public long secondChoiceAccepts;
        /** Hunting SYNs refused (passed on or dropped). */
        public long rejects;
        /** Hunting SYNs refused as the last candidate, hence dropped. */
        public long lastCandidateDrops;
        /** Hunting SYNs refused because the flow table was full. */
        public long tableFull;
        /** Packets for an existing flow: retransmitted SYNs, 0x2 acks, successful 0x1 recoveries. */
        public long stickyHits;
        /** 0x1 recoveries for a flow with no state here (passed on or dropped). */
        public long recoverMisses;
        /** Application packets dropped for lack of state. */
        public long noStateDrops;
        /** Flows that entered TEARDOWN. */
        public long teardowns;
    }

    private final long activeTimeoutNanos, teardownTimeoutNanos;
    private final Counters counters;

    /** Default timeouts (40 s active, 2 s teardown), fresh counters. */
    public ServerAgentState() {
        this(DEFAULT_ACTIVE_TIMEOUT_NANOS, DEFAULT_TEARDOWN_TIMEOUT_NANOS, new Counters());
    }

    /**
     * @param activeTimeoutNanos   idle lifetime of WAIT/DIRECT entries, ns (&gt; 0)
     * @param teardownTimeoutNanos lifetime of TEARDOWN entries, ns (&gt; 0)
     * @param counters             where to count
     */
    public ServerAgentState(long activeTimeoutNanos, long teardownTimeoutNanos, Counters counters) {
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

    /** @return {@code state}, or NONE if {@code nowNanos} has reached {@code expiresNanos} */
    public static int effective(int state, long expiresNanos, long nowNanos) {
        return nowNanos - expiresNanos >= 0 ? NONE : state;
    }

    /** @return the expiry for an entry now in {@code state} */
    public long expiry(int state, long nowNanos) {
        return nowNanos + (state == TEARDOWN ? teardownTimeoutNanos : activeTimeoutNanos);
    }

    /**
     * An SRv6 packet whose active segment is this application instance's SID.
     *
     * @param state            the stored state (NONE for a new entry)
     * @param expiresNanos     the stored expiry
     * @param nowNanos         now
     * @param function         the SID's function: 0x0, 0x1 or 0x2 (others are dropped)
     * @param remainingChoices candidates after this one ({@code segments_left − 2} in the standard layout)
     * @param choiceIndex      this server's position among the candidates (0 = first)
     * @param policy           the connect-if-available policy (used for 0x0 without state)
     * @param load             the policy's input, e.g. {@link LoadSource#load()} read now
     * @param tableFull        the flow table has no room for a new entry
     * @return the outcome (new state, {@link #NO_FUNCTION}, DELIVER, PASS or DROP)
     */
    public int onSegment(int state, long expiresNanos, long nowNanos, int function, int remainingChoices,
                         int choiceIndex, AcceptPolicy policy, double load, boolean tableFull) {
        int s = effective(state, expiresNanos, nowNanos);
        switch (function) {
            case SrlbSid.FN_CONNECT_IF_AVAILABLE -> {
                if (s != NONE) {
                    counters.stickyHits++;
                    return outcome(s == TEARDOWN ? TEARDOWN : WAIT, DELIVER);
                }
                if (tableFull) {
                    counters.tableFull++;
                    return refuse(remainingChoices);
                }
                if (!policy.accept(load, remainingChoices)) {
                    return refuse(remainingChoices);
                }
                if (choiceIndex == 0) {
                    counters.firstChoiceAccepts++;
                } else {
                    counters.secondChoiceAccepts++;
                }
                return outcome(WAIT, DELIVER);
            }
            case SrlbSid.FN_RECOVER_STICKINESS -> {
                if (s == NONE) {
                    counters.recoverMisses++;
                    return remainingChoices == 0 ? outcome(NONE, DROP) : outcome(NONE, PASS);
                }
                counters.stickyHits++;
                return outcome(s == TEARDOWN ? TEARDOWN : WAIT, DELIVER);
            }
            case SrlbSid.FN_ACK_STICKINESS -> {
                counters.stickyHits++;
                return outcome(s == TEARDOWN ? TEARDOWN : DIRECT, DELIVER);
            }
            default -> {
                return outcome(s, DROP);
            }
        }
    }

    private int refuse(int remainingChoices) {
        counters.rejects++;
        if (remainingChoices == 0) {
            counters.lastCandidateDrops++;
            return outcome(NONE, DROP);
        }
        return outcome(NONE, PASS);
    }

    /**
     * A packet from the local application towards the client.
     *
     * @param state        the stored state
     * @param expiresNanos the stored expiry
     * @param nowNanos     now
     * @param finOrRst     the TCP segment carries FIN or RST
     * @return the outcome: DROP (no state), DIRECT_TO_CLIENT (DIRECT; keep the old expiry), or VIA_LB with function
     *         0x8 (WAIT) or 0x9 (TEARDOWN) and a refreshed expiry
     */
    public int onServerPacket(int state, long expiresNanos, long nowNanos, boolean finOrRst) {
        int s = effective(state, expiresNanos, nowNanos);
        if (finOrRst && s != NONE) {
            if (s != TEARDOWN) {
                counters.teardowns++;
            }
            s = TEARDOWN;
        }
        return switch (s) {
            case NONE -> {
                counters.noStateDrops++;
                yield outcome(NONE, DROP);
            }
            case DIRECT -> outcome(DIRECT, DIRECT_TO_CLIENT);
            case WAIT -> LbFlowState.outcome(WAIT, SrlbSid.FN_CREATE_STICKINESS, VIA_LB);
            default -> LbFlowState.outcome(TEARDOWN, SrlbSid.FN_DELETE_STICKINESS, VIA_LB);
        };
    }

    private static int outcome(int state, int action) {
        return LbFlowState.outcome(state, NO_FUNCTION, action);
    }

    /** @return the new state of an outcome */
    public static int state(int outcome) {
        return outcome & 0xFF;
    }

    /** @return the SID function an outcome writes (0x8/0x9 on VIA_LB), or {@link #NO_FUNCTION} */
    public static int function(int outcome) {
        return (outcome >>> 8) & 0xFF;
    }

    /** @return the action of an outcome */
    public static int action(int outcome) {
        return (outcome >>> 16) & 0xFF;
    }

    /** @return NONE, WAIT, DIRECT or TEARDOWN */
    public static String stateName(int state) {
        return switch (state) {
            case NONE -> "NONE";
            case WAIT -> "WAIT";
            case DIRECT -> "DIRECT";
            case TEARDOWN -> "TEARDOWN";
            default -> "invalid(" + state + ")";
        };
    }
}
