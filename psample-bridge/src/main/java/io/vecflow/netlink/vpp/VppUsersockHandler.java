package io.vecflow.netlink.vpp;

/**
 * Receives VPP USERSOCK messages from {@link VppUsersockSubscriber#poll}. Holders are reused between calls: copy what
 * must outlive the call.
 */
public interface VppUsersockHandler {
    /** A decoded STATUS message (type 1). */
    void onStatus(VppStatus status);

    /** A decoded IF_COUNTERS message (type 2). The default ignores it. */
    default void onIfCounters(VppIfCounters counters) {
    }

    /** A decoded vecflow LB_COUNTERS message ({@link LbCounters#MSG_LB_COUNTERS}). The default ignores it. */
    default void onLbCounters(LbCounters counters) {
    }
}
