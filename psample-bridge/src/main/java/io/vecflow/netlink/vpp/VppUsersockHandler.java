package io.vecflow.netlink.vpp;

import java.lang.foreign.MemorySegment;

/** Receives VPP USERSOCK messages from {@link VppUsersockSubscriber#poll}. Holders are reused between calls. */
public interface VppUsersockHandler {
    /** A decoded STATUS message. */
    void onStatus(VppStatus status);

    /**
     * A raw IF_COUNTERS message (decoding is not implemented yet): {@code len} bytes at {@code off} of {@code buf},
     * nlmsghdr included; valid only during the call.
     */
    default void onIfCounters(MemorySegment buf, long off, int len) {
    }
}
