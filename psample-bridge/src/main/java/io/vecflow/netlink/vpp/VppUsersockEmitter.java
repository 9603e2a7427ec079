package io.vecflow.netlink.vpp;

import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkEmitter;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkSocket;

/**
 * Sends VPP-format USERSOCK messages (STATUS and IF_COUNTERS) to a NETLINK_USERSOCK multicast group (default
 * {@link VppUsersock#GROUP} = 29), as VPP's sflow plugin does: nlmsg_pid = the process id, nlmsg_seq incrementing.
 * Sending needs no privilege. Like VPP, a multicast ECONNREFUSED counts as sent. {@link #emitStatus} and
 * {@link #emitIfCounters} allocate nothing and never throw; failures are counted. Single-threaded.
 */
public final class VppUsersockEmitter extends NetlinkEmitter {
    private static final int BUFFER_BYTES = 4096;

    private final VppStatusCodec codec = new VppStatusCodec();
    private final VppIfCountersCodec ifCodec = new VppIfCountersCodec();
    private final int pid = (int) ProcessHandle.current().pid();

    private VppUsersockEmitter(NetlinkSocket socket, int groupId) throws NetlinkException {
        super(socket, BUFFER_BYTES, groupId, 0, 0);
    }

    /**
     * Opens an emitter for USERSOCK multicast group {@code groupId} (1..32; VPP and hsflowd use 29).
     *
     * @throws NetlinkException socket errors
     * @throws IllegalArgumentException a group outside 1..32
     */
    public static VppUsersockEmitter open(int groupId) throws NetlinkException {
        Netlink.groupMask(groupId);
        return NetlinkSocket.openThen(Netlink.NETLINK_USERSOCK, s -> new VppUsersockEmitter(s, groupId));
    }

    /**
     * Encodes and multicasts one STATUS message.
     *
     * @return {@code true} if sent (counted in {@link #sent()}), {@code false} otherwise ({@link #sendFailed()})
     */
    public boolean emitStatus(VppStatus status) {
        return send(codec.encode(status, writer(), nextSeq(), pid));
    }

    /**
     * Encodes and multicasts one IF_COUNTERS message (VPP's format, {@link VppIfCountersCodec}).
     *
     * @return {@code true} if sent (counted in {@link #sent()}), {@code false} otherwise ({@link #sendFailed()})
     */
    public boolean emitIfCounters(VppIfCounters counters) {
        return send(ifCodec.encode(counters, writer(), nextSeq(), pid));
    }

    /** nlmsg_pid of the messages (the process id, as VPP does). */
    public int nlmsgPid() {
        return pid;
    }
}
