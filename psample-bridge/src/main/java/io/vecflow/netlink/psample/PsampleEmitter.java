package io.vecflow.netlink.psample;

import io.vecflow.netlink.Errno;
import io.vecflow.netlink.GenlController;
import io.vecflow.netlink.GenlFamily;
import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkEmitter;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkSocket;

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
 * <p>GENL note: a multicast {@code sendto} is also unicast to port 0, which on NETLINK_GENERIC is the kernel; since
 * the message has no NLM_F_REQUEST (flags 0) the kernel drops it without an answer (Linux {@code netlink_rcv_skb}:
 * an ack only for NLM_F_ACK or an error), so nothing queues on this socket — measured in the kernel lab
 * ({@code kernel-lab.md}), where a second subscriber of "packets" receives every message unchanged.
 */
public final class PsampleEmitter extends NetlinkEmitter {
    /** Send buffer size in bytes: the 0xFFFF-byte netlink message cap plus slack. */
    public static final int BUFFER_BYTES = 0x10000 + 256;

    private final PsampleCodec codec = new PsampleCodec();
    private final PsampleTransport transport;
    private final Psample.Convention convention;
    private final int nlmsgType;

    private PsampleEmitter(NetlinkSocket socket, PsampleTransport transport, Psample.Convention convention,
                           int nlmsgType, int groupId, int dstPortId) throws NetlinkException {
        // unicast: never block the dataplane when the subscriber's buffer is full; count EAGAIN as a failure
        super(socket, BUFFER_BYTES, groupId, dstPortId, groupId > 0 ? 0 : Netlink.MSG_DONTWAIT);
        this.transport = transport;
        this.convention = convention;
        this.nlmsgType = nlmsgType;
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
            return NetlinkSocket.openThen(Netlink.NETLINK_GENERIC, s -> {
                GenlFamily family = GenlController.resolve(s, Psample.GENL_NAME);
                int group = family.groupId(Psample.MCGRP_PACKETS);
                if (group < 1 || group > 32) {
                    throw new NetlinkException("PSAMPLE emitter (genl group \"packets\" = " + group + ")",
                            Errno.EINVAL, "a user-space sender can only address multicast groups 1..32 via nl_groups; "
                            + "use --transport usersock");
                }
                return new PsampleEmitter(s, transport, convention, family.id(), group, 0);
            });
        }
        Netlink.groupMask(usersockGroup); // validates 1..32
        return NetlinkSocket.openThen(Netlink.NETLINK_USERSOCK,
                s -> new PsampleEmitter(s, transport, convention, Psample.USERSOCK_MSG_TYPE, usersockGroup, 0));
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
        return NetlinkSocket.openThen(Netlink.NETLINK_USERSOCK, s -> new PsampleEmitter(s, PsampleTransport.USERSOCK,
                convention, Psample.USERSOCK_MSG_TYPE, 0, dstPortId));
    }

    /**
     * Encodes and sends one sample. Never throws for a per-message failure.
     *
     * @return {@code true} if the kernel accepted it (counted in {@link #sent()}); {@code false} if encoding or
     *         sending failed (counted in {@link #sendFailed()}, errno in {@link #lastErrno()})
     */
    public boolean emit(PsampleSample sample) {
        int len;
        int s = nextSeq();
        try {
            len = codec.encode(sample, writer(), nlmsgType, s, portId(), convention);
        } catch (RuntimeException e) { // does not fit (KERNEL u16 ifindex, oversize DATA): a counted failure
            return encodeFailed();
        }
        return send(len);
    }

    /** nlmsg_type used: the psample family id (GENL) or {@link Psample#USERSOCK_MSG_TYPE}. */
    public int nlmsgType() {
        return nlmsgType;
    }

    /** The transport. */
    public PsampleTransport transport() {
        return transport;
    }

    /** The attribute convention. */
    public Psample.Convention convention() {
        return convention;
    }
}
