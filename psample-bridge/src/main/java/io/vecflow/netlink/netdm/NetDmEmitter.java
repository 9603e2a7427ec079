package io.vecflow.netlink.netdm;

import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkEmitter;
import io.vecflow.netlink.NetlinkSocket;

/**
 * Sends NET_DM PACKET_ALERTs on NETLINK_USERSOCK, as a stand-in for the kernel's drop_monitor or VPP's sflow plugin
 * (tests, benches, the demo dataplane). Encodes {@link NetDmAlert}s ({@link NetDmCodec}) into one preallocated
 * off-heap buffer and sends each as one datagram; {@link #emit} allocates nothing and never throws: every alert ends
 * up in {@link #sent()} or {@link #sendFailed()} (spec §6 rule 3).
 *
 * <p>Messages: nlmsg_type {@link NetDm#USERSOCK_MSG_TYPE}, nlmsg_flags 0, nlmsg_seq from 1, nlmsg_pid = this socket's
 * port id. A generic-netlink sender is not offered: on a real kernel alerts come from drop_monitor itself, and VPP
 * sends them with CAP_NET_ADMIN on family "NET_DM" (this machine has neither). Single-threaded.
 */
public final class NetDmEmitter extends NetlinkEmitter {
    /** Send buffer size in bytes: the 0xFFFF-byte netlink message cap plus slack. */
    public static final int BUFFER_BYTES = 0x10000 + 1024;

    private final NetDmCodec codec = new NetDmCodec();
    private final NetDm.Convention convention;

    private NetDmEmitter(NetlinkSocket socket, int groupId, NetDm.Convention convention) throws NetlinkException {
        super(socket, BUFFER_BYTES, groupId, 0, 0);
        this.convention = convention;
    }

    /**
     * Opens a NETLINK_USERSOCK multicast emitter (sending needs no privilege).
     *
     * @param usersockGroup group 1..32 (default {@link NetDm#USERSOCK_DEFAULT_GROUP})
     * @param convention    IN_PORT convention of the emitted alerts (KERNEL nested, VPP flat)
     * @throws NetlinkException socket errors
     * @throws IllegalArgumentException a group outside 1..32
     */
    public static NetDmEmitter openUsersock(int usersockGroup, NetDm.Convention convention) throws NetlinkException {
        Netlink.groupMask(usersockGroup);
        return NetlinkSocket.openThen(Netlink.NETLINK_USERSOCK, s -> new NetDmEmitter(s, usersockGroup, convention));
    }

    /**
     * Encodes and sends one alert. Never throws for a per-message failure.
     *
     * @return {@code true} if the kernel accepted it; {@code false} if encoding or sending failed (counted, errno in
     *         {@link #lastErrno()}, EMSGSIZE for an encoding failure)
     */
    public boolean emit(NetDmAlert alert) {
        int len;
        int s = nextSeq();
        try {
            len = codec.encode(alert, writer(), NetDm.USERSOCK_MSG_TYPE, s, portId(), convention);
        } catch (RuntimeException e) {
            return encodeFailed();
        }
        return send(len);
    }

    /** The IN_PORT convention. */
    public NetDm.Convention convention() {
        return convention;
    }
}
