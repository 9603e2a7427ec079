package io.vecflow.netlink;

import io.vecflow.common.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Send side shared by the PSAMPLE, NET_DM and VPP USERSOCK emitters: owns the bound netlink socket, one preallocated
 * off-heap send buffer with its {@link NetlinkWriter}, the nlmsg_seq counter and the sent / failed counters. A subclass
 * encodes into {@link #writer()} and calls {@link #send(int)}; neither allocates nor throws, so every message ends up
 * in {@link #sent()} or {@link #sendFailed()} (spec {@code docs/netlink.md} §6 rule 3). Single-threaded: send from
 * one thread; counters may be read from others (values may lag).
 */
public abstract class NetlinkEmitter implements AutoCloseable {
    private final NetlinkSocket socket;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buf;
    private final NetlinkWriter writer;
    private int groupId;
    private int dstGroups;
    private final int dstPortId;
    private final int sendFlags;
    private final int portId;
    private int seq;
    private long sent;
    private long sendFailed;
    private int lastErrno;

    /**
     * Binds {@code socket} (kernel-assigned port id) unless it is bound already, and allocates the send buffer.
     *
     * @param socket      an open socket, owned from here on: unbound, or already bound — a generic-netlink family
     *                    lookup ({@link GenlController#resolve}) auto-binds it, and binding again with nl_pid 0 would
     *                    be EINVAL (Linux {@code netlink_bind}; found in the kernel lab)
     * @param bufferBytes send buffer size, bytes (the largest message plus slack)
     * @param groupId     destination multicast group 1..32, or 0 to send to {@code dstPortId}
     * @param dstPortId   destination port id for unicast, else 0
     * @param sendFlags   {@code sendto} flags, e.g. {@link Netlink#MSG_DONTWAIT}
     * @throws IllegalArgumentException {@code groupId} outside 0..32
     * @throws NetlinkException bind or getsockname failed
     */
    protected NetlinkEmitter(NetlinkSocket socket, int bufferBytes, int groupId, int dstPortId, int sendFlags)
            throws NetlinkException {
        this.socket = socket;
        this.groupId = groupId;
        this.dstGroups = groupId > 0 ? Netlink.groupMask(groupId) : 0;
        this.dstPortId = dstPortId;
        this.sendFlags = sendFlags;
        if (socket.portId() == 0) {
            socket.bind(0, 0);
        }
        this.portId = socket.portId();
        this.buf = arena.allocate(bufferBytes, 8);
        this.writer = new NetlinkWriter(buf);
    }

    /** The writer over the send buffer, already {@link NetlinkWriter#reset() reset}. */
    protected final NetlinkWriter writer() {
        writer.reset();
        return writer;
    }

    /** Increments and returns nlmsg_seq (the first message gets 1). */
    protected final int nextSeq() {
        return ++seq;
    }

    /**
     * Counts a message that could not be encoded (errno EMSGSIZE).
     *
     * @return {@code false}, for {@code return encodeFailed();}
     */
    protected final boolean encodeFailed() {
        sendFailed++;
        lastErrno = Errno.EMSGSIZE;
        return false;
    }

    /**
     * Counts a message that was not handed to the kernel for a reason found before sending (e.g. ENOENT: the generic
     * netlink family is not registered yet).
     *
     * @param errno the reason, stored in {@link #lastErrno()}
     * @return {@code false}, for {@code return failed(errno);}
     */
    protected final boolean failed(int errno) {
        sendFailed++;
        lastErrno = errno;
        return false;
    }

    /**
     * Points later sends at another multicast group (a generic-netlink group id resolved after open). Call from the
     * sending thread.
     *
     * @param groupId destination multicast group 1..32
     * @throws IllegalArgumentException outside 1..32
     */
    protected final void retarget(int groupId) {
        this.dstGroups = Netlink.groupMask(groupId);
        this.groupId = groupId;
    }

    /**
     * Sends the first {@code len} bytes of the send buffer as one datagram; never throws.
     *
     * @return {@code true} if the kernel accepted it (counted in {@link #sent()}); {@code false} otherwise (counted in
     *         {@link #sendFailed()}, errno in {@link #lastErrno()})
     */
    protected final boolean send(int len) {
        int r = socket.trySend(buf, len, dstPortId, dstGroups, sendFlags);
        if (r < 0) {
            sendFailed++;
            lastErrno = -r;
            return false;
        }
        sent++;
        return true;
    }

    /** Messages handed to the kernel. */
    public final long sent() {
        return sent;
    }

    /** Messages that could not be encoded or sent. */
    public final long sendFailed() {
        return sendFailed;
    }

    /** errno of the most recent failure (EMSGSIZE for an encoding failure), 0 if none yet. */
    public final int lastErrno() {
        return lastErrno;
    }

    /** nlmsg_seq of the most recent message (starts at 1). */
    public final int lastSeq() {
        return seq;
    }

    /** This emitter's netlink port id. */
    public final int portId() {
        return portId;
    }

    /** Destination multicast group id, or 0 for a unicast emitter. */
    public final int groupId() {
        return groupId;
    }

    /** Destination port id for a unicast emitter, else 0. */
    public final int dstPortId() {
        return dstPortId;
    }

    /** Closes the socket and frees the send buffer; idempotent. */
    @Override
    public final void close() {
        if (!socket.isClosed()) {
            socket.close();
            arena.close();
        }
    }
}
