package io.vecflow.netlink.psample;

import io.vecflow.netlink.Errno;
import io.vecflow.netlink.GenlController;
import io.vecflow.netlink.GenlFamily;
import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkSocket;
import io.vecflow.netlink.NetlinkWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Dataplane side of the PSAMPLE channel: encodes {@link PsampleSample}s ({@link PsampleCodec}) into one preallocated
 * off-heap buffer and sends each as one datagram. {@link #emit} allocates nothing and never throws: every sample ends
 * up in {@link #sent()} or {@link #sendFailed()} (spec §6 rule 3: a failed send is counted, never reported as sent).
 * Setup problems — a missing "psample" family above all — are loud at {@code open}.
 *
 * <p>Messages: nlmsg_flags 0, nlmsg_seq incrementing from 1, nlmsg_pid = this socket's port id; nlmsg_type = the
 * "psample" family id (GENL) or {@link Psample#USERSOCK_MSG_TYPE} (USERSOCK). Single-threaded: call {@code emit}
 * from one thread; counters may be read from others (values may lag).
 *
 * <p>GENL note: a multicast {@code sendto} is also unicast to port 0, which on NETLINK_GENERIC is the kernel; it
 * answers the unsolicited PSAMPLE_CMD_SAMPLE with an NLMSG_ERROR that queues on this (never read) socket until its
 * receive buffer is full. That is harmless and matches VPP *[inference, not testable here: no psample module]*.
 */
public final class PsampleEmitter implements AutoCloseable {
    /** Send buffer size in bytes: the 0xFFFF-byte netlink message cap plus slack. */
    public static final int BUFFER_BYTES = 0x10000 + 256;

    private final NetlinkSocket socket;
    private final Arena arena;
    private final MemorySegment buf;
    private final NetlinkWriter writer;
    private final PsampleCodec codec = new PsampleCodec();
    private final PsampleTransport transport;
    private final Psample.Convention convention;
    private final int nlmsgType;
    private final int groupId;
    private final int dstGroups;
    private final int dstPortId;
    private final int sendFlags;
    private final int portId;
    private int seq;
    private long sent;
    private long sendFailed;
    private int lastErrno;

    private PsampleEmitter(NetlinkSocket socket, PsampleTransport transport, Psample.Convention convention,
                           int nlmsgType, int groupId, int dstPortId) throws NetlinkException {
        this.socket = socket;
        this.transport = transport;
        this.convention = convention;
        this.nlmsgType = nlmsgType;
        this.groupId = groupId;
        this.dstGroups = groupId > 0 ? Netlink.groupMask(groupId) : 0;
        this.dstPortId = dstPortId;
        // unicast: never block the dataplane when the subscriber's buffer is full; count EAGAIN as a failure
        this.sendFlags = groupId > 0 ? 0 : Netlink.MSG_DONTWAIT;
        socket.bind(0, 0);
        this.portId = socket.portId();
        this.arena = Arena.ofShared();
        this.buf = arena.allocate(BUFFER_BYTES, 8);
        this.writer = new NetlinkWriter(buf);
    }

    /**
     * Opens a multicast emitter.
     *
     * @param transport     {@link PsampleTransport#GENL}: resolves family "psample" and its "packets" group;
     *                      {@link PsampleTransport#USERSOCK}: NETLINK_USERSOCK multicast
     * @param usersockGroup USERSOCK multicast group 1..32 (default {@link Psample#USERSOCK_DEFAULT_GROUP}); ignored
     *                      for GENL
     * @param convention    attribute convention of the emitted messages
     * @throws io.vecflow.netlink.GenlFamilyNotFoundException GENL on a kernel without psample: the message says
     *         {@code modprobe psample} or {@code --transport usersock}
     * @throws NetlinkException socket errors; a "packets" group id above 32 (not addressable by a user-space send)
     */
    public static PsampleEmitter open(PsampleTransport transport, int usersockGroup, Psample.Convention convention)
            throws NetlinkException {
        if (transport == PsampleTransport.GENL) {
            NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_GENERIC);
            try {
                GenlFamily family = GenlController.resolve(s, Psample.GENL_NAME);
                int group = family.groupId(Psample.MCGRP_PACKETS);
                if (group < 1 || group > 32) {
                    throw new NetlinkException("PSAMPLE emitter (genl group \"packets\" = " + group + ")",
                            Errno.EINVAL, "a user-space sender can only address multicast groups 1..32 via nl_groups; "
                            + "use --transport usersock");
                }
                return new PsampleEmitter(s, transport, convention, family.id(), group, 0);
            } catch (NetlinkException | RuntimeException e) {
                s.close();
                throw e;
            }
        }
        Netlink.groupMask(usersockGroup); // validates 1..32
        NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_USERSOCK);
        try {
            return new PsampleEmitter(s, transport, convention, Psample.USERSOCK_MSG_TYPE, usersockGroup, 0);
        } catch (NetlinkException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * Opens a NETLINK_USERSOCK unicast emitter that sends to one subscriber's port id (no privilege needed on
     * either side; see {@link PsampleSubscriber#openUnicast()}). Sends use MSG_DONTWAIT: a full subscriber buffer
     * (EAGAIN) or a vanished subscriber (ECONNREFUSED) count as {@link #sendFailed()}.
     *
     * @param dstPortId the subscriber's port id ({@link PsampleSubscriber#portId()}), non-zero
     * @param convention attribute convention
     * @throws NetlinkException socket errors
     */
    public static PsampleEmitter openUnicast(int dstPortId, Psample.Convention convention) throws NetlinkException {
        if (dstPortId == 0) {
            throw new IllegalArgumentException("unicast destination port id must be non-zero (0 is the kernel)");
        }
        NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_USERSOCK);
        try {
            return new PsampleEmitter(s, PsampleTransport.USERSOCK, convention, Psample.USERSOCK_MSG_TYPE, 0,
                    dstPortId);
        } catch (NetlinkException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * Encodes and sends one sample. Never throws for a per-message failure.
     *
     * @return {@code true} if the kernel accepted it (counted in {@link #sent()}); {@code false} if encoding or
     *         sending failed (counted in {@link #sendFailed()}, errno in {@link #lastErrno()})
     */
    public boolean emit(PsampleSample sample) {
        int len;
        int s = ++seq;
        try {
            writer.reset();
            len = codec.encode(sample, writer, nlmsgType, s, portId, convention);
        } catch (RuntimeException e) { // does not fit (KERNEL u16 ifindex, oversize DATA): a counted failure
            sendFailed++;
            lastErrno = Errno.EMSGSIZE;
            return false;
        }
        int r = socket.trySend(buf, len, dstPortId, dstGroups, sendFlags);
        if (r < 0) {
            sendFailed++;
            lastErrno = -r;
            return false;
        }
        sent++;
        return true;
    }

    /** Samples handed to the kernel. */
    public long sent() {
        return sent;
    }

    /** Samples that could not be encoded or sent. */
    public long sendFailed() {
        return sendFailed;
    }

    /** errno of the most recent failure (EMSGSIZE for an encoding failure), 0 if none yet. */
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

    /** nlmsg_type used: the psample family id (GENL) or {@link Psample#USERSOCK_MSG_TYPE}. */
    public int nlmsgType() {
        return nlmsgType;
    }

    /** Destination multicast group id, or 0 for a unicast emitter. */
    public int groupId() {
        return groupId;
    }

    /** Destination port id for a unicast emitter, else 0. */
    public int dstPortId() {
        return dstPortId;
    }

    /** The transport. */
    public PsampleTransport transport() {
        return transport;
    }

    /** The attribute convention. */
    public Psample.Convention convention() {
        return convention;
    }

    /** Closes the socket and frees the send buffer; idempotent. */
    @Override
    public void close() {
        if (!socket.isClosed()) {
            socket.close();
            arena.close();
        }
    }
}
