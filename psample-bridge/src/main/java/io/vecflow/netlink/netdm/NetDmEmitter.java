package io.vecflow.netlink.netdm;

import io.vecflow.netlink.Errno;
import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkSocket;
import io.vecflow.netlink.NetlinkWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

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
public final class NetDmEmitter implements AutoCloseable {
    /** Send buffer size in bytes: the 0xFFFF-byte netlink message cap plus slack. */
    public static final int BUFFER_BYTES = 0x10000 + 1024;

    private final NetlinkSocket socket;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buf;
    private final NetlinkWriter writer;
    private final NetDmCodec codec = new NetDmCodec();
    private final NetDm.Convention convention;
    private final int groupId;
    private final int dstGroups;
    private final int portId;
    private int seq;
    private long sent;
    private long sendFailed;
    private int lastErrno;

    private NetDmEmitter(NetlinkSocket socket, int groupId, NetDm.Convention convention) throws NetlinkException {
        this.socket = socket;
        this.groupId = groupId;
        this.dstGroups = Netlink.groupMask(groupId);
        this.convention = convention;
        socket.bind(0, 0);
        this.portId = socket.portId();
        this.buf = arena.allocate(BUFFER_BYTES, 8);
        this.writer = new NetlinkWriter(buf);
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
        NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_USERSOCK);
        try {
            return new NetDmEmitter(s, usersockGroup, convention);
        } catch (NetlinkException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * Encodes and sends one alert. Never throws for a per-message failure.
     *
     * @return {@code true} if the kernel accepted it; {@code false} if encoding or sending failed (counted, errno in
     *         {@link #lastErrno()}, EMSGSIZE for an encoding failure)
     */
    public boolean emit(NetDmAlert alert) {
        int len;
        int s = ++seq;
        try {
            writer.reset();
            len = codec.encode(alert, writer, NetDm.USERSOCK_MSG_TYPE, s, portId, convention);
        } catch (RuntimeException e) {
            sendFailed++;
            lastErrno = Errno.EMSGSIZE;
            return false;
        }
        int r = socket.trySend(buf, len, 0, dstGroups, 0);
        if (r < 0) {
            sendFailed++;
            lastErrno = -r;
            return false;
        }
        sent++;
        return true;
    }

    /** Alerts handed to the kernel. */
    public long sent() {
        return sent;
    }

    /** Alerts that could not be encoded or sent. */
    public long sendFailed() {
        return sendFailed;
    }

    /** errno of the most recent failure, 0 if none yet. */
    public int lastErrno() {
        return lastErrno;
    }

    /** nlmsg_seq of the most recent message (starts at 1). */
    public int lastSeq() {
        return seq;
    }

    /** This emitter's netlink port id (nlmsg_pid of its messages). */
    public int portId() {
        return portId;
    }

    /** Destination group id. */
    public int groupId() {
        return groupId;
    }

    /** The IN_PORT convention. */
    public NetDm.Convention convention() {
        return convention;
    }

    /** Closes the socket and frees the buffer; idempotent. */
    @Override
    public void close() {
        if (!socket.isClosed()) {
            socket.close();
            arena.close();
        }
    }
}
