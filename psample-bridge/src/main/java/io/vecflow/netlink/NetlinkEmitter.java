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
    private int batchLimit;
    private int batched;
    private int batchedBytes;
    private long datagrams;
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

    /**
     * Puts several messages in one datagram, up to {@code limitBytes} each (0 = one message per datagram, the
     * default). Receivers read a datagram's messages one after the other ({@code NLMSG_NEXT}: host-sflow's
     * mod_psample and mod_dropmon, vecflow's {@link NetlinkSubscriber}), so batching changes nothing they see but the
     * number of system calls. A batch goes out when the next message would pass the limit and on {@link #flush()},
     * which the sender calls at the end of each burst. Call from the sending thread.
     *
     * @param limitBytes most bytes per datagram: 0, or 256..{@code bufferBytes} (keep it within the receivers' read
     *                   buffer: host-sflow reads 8 KiB (older) or 16 KiB per datagram)
     * @throws IllegalArgumentException outside those values
     */
    public final void batchBytes(int limitBytes) {
        if (limitBytes != 0 && (limitBytes < 256 || limitBytes > buf.byteSize())) {
            throw new IllegalArgumentException("netlink batch of " + limitBytes + " bytes: 0 (off) or 256.."
                    + buf.byteSize());
        }
        flush();
        batchLimit = limitBytes;
    }

    /** @return the batch limit in bytes, 0 when every message is a datagram of its own */
    public final int batchBytes() {
        return batchLimit;
    }

    /** The writer positioned after the messages waiting in the batch (reset when there are none). */
    protected final NetlinkWriter batchWriter() {
        return batched == 0 ? writer.reset() : writer.rewind(batchedBytes);
    }

    /**
     * Drops a message that failed to encode after the batched ones (the writer goes back to the batch's end).
     */
    protected final void discardPartial() {
        if (batched == 0) {
            writer.reset();
        } else {
            writer.rewind(batchedBytes);
        }
    }

    /**
     * Sends or queues the message that ends at {@code end} in the send buffer ({@link NetlinkWriter#end()} after
     * {@link #batchWriter()}): without batching it goes out now as {@link #send(int)}; with batching it joins the
     * batch, which is sent first when the message would take it past the limit (the message then moves to the front
     * of the buffer) and right away when the batch reaches it.
     *
     * @return {@code true} if it was sent or queued; {@code false} if a send failed now (every message of that
     *         datagram counted in {@link #sendFailed()})
     */
    protected final boolean sendOrQueue(int end) {
        if (batchLimit == 0) {
            return send(end);
        }
        boolean ok = true;
        if (end > batchLimit && batched > 0) {
            int len = end - batchedBytes;
            ok = flush() == 0;
            MemorySegment.copy(buf, end - len, buf, 0, len);
            writer.rewind(0);
            batchedBytes = len;
        } else {
            batchedBytes = end;
        }
        batched++;
        if (batchedBytes >= batchLimit) {
            ok &= flush() == 0;
        }
        return ok;
    }

    /**
     * Sends the messages waiting in the batch as one datagram; nothing to do without batching or when none waits.
     * Never throws.
     *
     * @return how many messages the kernel refused (0 when the datagram went out or nothing waited), each counted in
     *         {@link #sendFailed()}
     */
    public final int flush() {
        if (batched == 0) {
            return 0;
        }
        int n = batched;
        int r = socket.trySend(buf, batchedBytes, dstPortId, dstGroups, sendFlags);
        batched = 0;
        batchedBytes = 0;
        if (r < 0) {
            sendFailed += n;
            lastErrno = -r;
            return n;
        }
        sent += n;
        datagrams++;
        return 0;
    }

    /** @return messages waiting in the batch for {@link #flush()} */
    public final int pending() {
        return batched;
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
        datagrams++;
        return true;
    }

    /** Datagrams handed to the kernel ({@link #sent()} messages in all; fewer datagrams with batching). */
    public final long datagrams() {
        return datagrams;
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
            flush(); // what waits in a batch goes out (or is counted failed), not silently away
            socket.close();
            arena.close();
        }
    }
}
