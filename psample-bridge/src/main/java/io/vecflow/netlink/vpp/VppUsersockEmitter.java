package io.vecflow.netlink.vpp;

import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkSocket;
import io.vecflow.netlink.NetlinkWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Sends VPP-format USERSOCK messages (STATUS and IF_COUNTERS) to a NETLINK_USERSOCK multicast group (default
 * {@link VppUsersock#GROUP} = 29), as VPP's sflow plugin does: nlmsg_pid = the process id, nlmsg_seq incrementing.
 * Sending needs no privilege. Like VPP, a multicast ECONNREFUSED counts as sent. {@link #emitStatus} and
 * {@link #emitIfCounters} allocate nothing and never throw; failures are counted. Single-threaded.
 */
public final class VppUsersockEmitter implements AutoCloseable {
    private static final int BUFFER_BYTES = 4096;

    private final NetlinkSocket socket;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buf;
    private final NetlinkWriter writer;
    private final VppStatusCodec codec = new VppStatusCodec();
    private final VppIfCountersCodec ifCodec = new VppIfCountersCodec();
    private final int groupMask;
    private final int groupId;
    private final int pid = (int) ProcessHandle.current().pid();
    private int seq;
    private long sent;
    private long sendFailed;
    private int lastErrno;

    private VppUsersockEmitter(NetlinkSocket socket, int groupId) throws NetlinkException {
        this.socket = socket;
        this.groupId = groupId;
        this.groupMask = Netlink.groupMask(groupId);
        socket.bind(0, 0);
        this.buf = arena.allocate(BUFFER_BYTES, 8);
        this.writer = new NetlinkWriter(buf);
    }

    /**
     * Opens an emitter for USERSOCK multicast group {@code groupId} (1..32; VPP and hsflowd use 29).
     *
     * @throws NetlinkException socket errors
     */
    public static VppUsersockEmitter open(int groupId) throws NetlinkException {
        Netlink.groupMask(groupId);
        NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_USERSOCK);
        try {
            return new VppUsersockEmitter(s, groupId);
        } catch (NetlinkException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * Encodes and multicasts one STATUS message.
     *
     * @return {@code true} if sent (counted in {@link #sent()}), {@code false} otherwise ({@link #sendFailed()})
     */
    public boolean emitStatus(VppStatus status) {
        writer.reset();
        int len = codec.encode(status, writer, ++seq, pid);
        return send(len);
    }

    /**
     * Encodes and multicasts one IF_COUNTERS message (VPP's format, {@link VppIfCountersCodec}).
     *
     * @return {@code true} if sent (counted in {@link #sent()}), {@code false} otherwise ({@link #sendFailed()})
     */
    public boolean emitIfCounters(VppIfCounters counters) {
        writer.reset();
        int len = ifCodec.encode(counters, writer, ++seq, pid);
        return send(len);
    }

    private boolean send(int len) {
        int r = socket.trySend(buf, len, 0, groupMask, 0);
        if (r < 0) {
            sendFailed++;
            lastErrno = -r;
            return false;
        }
        sent++;
        return true;
    }

    /** Messages sent. */
    public long sent() {
        return sent;
    }

    /** Messages that failed to send. */
    public long sendFailed() {
        return sendFailed;
    }

    /** errno of the latest failure, 0 if none. */
    public int lastErrno() {
        return lastErrno;
    }

    /** nlmsg_pid of the messages (the process id, as VPP does). */
    public int nlmsgPid() {
        return pid;
    }

    /** Destination group id. */
    public int groupId() {
        return groupId;
    }

    /** Closes the socket; idempotent. */
    @Override
    public void close() {
        if (!socket.isClosed()) {
            socket.close();
            arena.close();
        }
    }
}
