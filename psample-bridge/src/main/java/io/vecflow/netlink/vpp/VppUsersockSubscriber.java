package io.vecflow.netlink.vpp;

import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkSocket;
import io.vecflow.netlink.NetlinkSubscriber;
import java.lang.foreign.MemorySegment;

/**
 * Listens on VPP's NETLINK_USERSOCK channel (default group {@link VppUsersock#GROUP} = 29; joining needs
 * root/CAP_NET_ADMIN — join before dropping privileges). Message types are read as VPP's — 1 STATUS, 2 IF_COUNTERS —
 * and never as NLMSG_NOOP/NLMSG_ERROR (spec §3). STATUS is decoded into a reused {@link VppStatus}, IF_COUNTERS into
 * a reused {@link VppIfCounters}, vecflow's LB_COUNTERS (0x4C42) into a reused {@link LbCounters}. Malformed input is
 * counted ({@link #decodeErrors()}) and skipped; ENOBUFS overruns are counted. Allocation-free per message;
 * single-threaded.
 */
public final class VppUsersockSubscriber extends NetlinkSubscriber<VppUsersockHandler> {
    private static final int RECEIVE_BUFFER_BYTES = 1024 * 1024;

    private final VppStatusCodec codec = new VppStatusCodec();
    private final VppStatus status = new VppStatus();
    private final VppIfCountersCodec ifCodec = new VppIfCountersCodec();
    private final VppIfCounters ifCounters = new VppIfCounters();
    private long statusMessages;
    private long ifCounterMessages;
    private final LbCountersCodec lbCodec = new LbCountersCodec();
    private final LbCounters lbCounters = new LbCounters();
    private long lbCounterMessages;

    private VppUsersockSubscriber(NetlinkSocket socket, int groupId) throws NetlinkException {
        super(socket, groupId, RECEIVE_BUFFER_BYTES, "VPP subscriber");
    }

    /**
     * Joins USERSOCK multicast group {@code groupId} (1..32).
     *
     * @throws NetlinkException EPERM without root/CAP_NET_ADMIN; other socket errors
     * @throws IllegalArgumentException a group outside 1..32
     */
    public static VppUsersockSubscriber open(int groupId) throws NetlinkException {
        return openUsersock(groupId, 0, (s, type, group) -> new VppUsersockSubscriber(s, group));
    }

    /**
     * Decodes one message (see {@link NetlinkSubscriber#poll}): STATUS to {@link VppUsersockHandler#onStatus},
     * IF_COUNTERS to {@link VppUsersockHandler#onIfCounters}, each with its reused holder; other types are skipped.
     * VPP types 1 and 2 are NOT NLMSG_NOOP / NLMSG_ERROR here.
     */
    @Override
    protected boolean onMessage(int type, MemorySegment buf, long offset, int length, VppUsersockHandler handler)
            throws NetlinkFormatException {
        switch (type) {
            case VppUsersock.MSG_STATUS -> {
                codec.decode(buf, offset, length, status);
                statusMessages++;
                handler.onStatus(status);
                return true;
            }
            case VppUsersock.MSG_IF_COUNTERS -> {
                ifCodec.decode(buf, offset, length, ifCounters);
                ifCounterMessages++;
                handler.onIfCounters(ifCounters);
                return true;
            }
            case LbCounters.MSG_LB_COUNTERS -> {
                lbCodec.decode(buf, offset, length, lbCounters);
                lbCounterMessages++;
                handler.onLbCounters(lbCounters);
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    /** STATUS messages decoded. */
    public long statusMessages() {
        return statusMessages;
    }

    /** vecflow LB_COUNTERS messages decoded and passed on. */
    public long lbCounterMessages() {
        return lbCounterMessages;
    }

    /** IF_COUNTERS messages decoded and passed on. */
    public long ifCounterMessages() {
        return ifCounterMessages;
    }
}
