package io.vecflow.netlink.psample;

import io.vecflow.common.Errno;
import io.vecflow.netlink.GenlFamilyWatch;
import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkEmitter;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkSocket;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Dataplane side of the PSAMPLE channel: encodes {@link PsampleSample}s ({@link PsampleCodec}) into one preallocated
 * off-heap buffer and sends each as one datagram, or several per datagram with {@link #batchBytes(int)} (then
 * {@link #flush()} at the end of each burst). {@link #emit} allocates nothing and never throws: every sample ends up
 * in {@link #sent()} or {@link #sendFailed()} (spec §6 rule 3: a failed send is counted, never reported as sent).
 *
 * <p>GENL and a missing "psample" family (the module is not loaded; nothing autoloads it, spec §2): {@code open} does
 * not fail. The problem goes to the reporter <em>once</em> (its text says {@code modprobe psample}), every sample
 * meanwhile is a failure with errno ENOENT ({@link #familyMissingFailures()}), and the lookup is retried at most once
 * per retry interval from {@link #emit} ({@link GenlFamilyWatch}, as {@code NetDmEmitter} does for NET_DM) — unlike
 * VPP, which resolves once and then counts sends to family 0 as sent (sonic-net/sonic-buildimage PR #29080).
 *
 * <p>Messages: nlmsg_flags 0, nlmsg_seq incrementing from 1, nlmsg_pid = this socket's port id; nlmsg_type = the
 * "psample" family id (GENL) or {@link Psample#USERSOCK_MSG_TYPE} (USERSOCK). Single-threaded: call {@code emit}
 * from one thread; counters may be read from others (values may lag).
 *
 * <p>GENL note: a multicast {@code sendto} is also unicast to port 0, which on NETLINK_GENERIC is the kernel; since
 * the message has no NLM_F_REQUEST (flags 0) the kernel drops it without an answer (Linux {@code netlink_rcv_skb}:
 * an ack only for NLM_F_ACK or an error), so nothing queues on this socket — measured in the kernel lab
 * ({@code docs/kernel-lab.md}), where a second subscriber of "packets" receives every message unchanged.
 */
public final class PsampleEmitter extends NetlinkEmitter {
    /** Send buffer size in bytes: the 0xFFFF-byte netlink message cap plus slack. */
    public static final int BUFFER_BYTES = 0x10000 + 256;

    private final PsampleCodec codec = new PsampleCodec();
    private final PsampleTransport transport;
    private final Psample.Convention convention;
    private final GenlFamilyWatch watch;
    private int nlmsgType;
    private volatile long familyMissingFailures;

    private PsampleEmitter(NetlinkSocket socket, PsampleTransport transport, Psample.Convention convention,
                           int nlmsgType, int groupId, int dstPortId, GenlFamilyWatch watch) throws NetlinkException {
        // unicast: never block the dataplane when the subscriber's buffer is full; count EAGAIN as a failure
        super(socket, BUFFER_BYTES, groupId, dstPortId, groupId > 0 ? 0 : Netlink.MSG_DONTWAIT);
        this.transport = transport;
        this.convention = convention;
        this.nlmsgType = nlmsgType;
        this.watch = watch;
    }

    /**
     * Opens a multicast emitter; for GENL the one-time missing-family report goes to this class's
     * {@link System.Logger} at WARNING and the lookup is retried every {@link GenlFamilyWatch#DEFAULT_RETRY}.
     *
     * @see #open(PsampleTransport, int, Psample.Convention, Consumer)
     */
    public static PsampleEmitter open(PsampleTransport transport, int usersockGroup, Psample.Convention convention)
            throws NetlinkException {
        return open(transport, usersockGroup, convention, PsampleEmitter::logWarning);
    }

    /**
     * Opens a multicast emitter.
     *
     * @param transport     {@link PsampleTransport#GENL}: family "psample", group "packets" (resolved now, retried
     *                      while missing — see the class comment); {@link PsampleTransport#USERSOCK}: NETLINK_USERSOCK
     *                      multicast
     * @param usersockGroup USERSOCK multicast group 1..32 (default {@link Psample#USERSOCK_DEFAULT_GROUP}); ignored
     *                      for GENL
     * @param convention    attribute convention of the emitted messages
     * @param reporter      GENL only: receives the one-time problem line (with the {@code modprobe psample} advice)
     *                      and the recovery line
     * @throws NetlinkException socket errors (a missing family is <em>not</em> one)
     * @throws IllegalArgumentException a USERSOCK group outside 1..32
     */
    public static PsampleEmitter open(PsampleTransport transport, int usersockGroup, Psample.Convention convention,
                                      Consumer<String> reporter) throws NetlinkException {
        if (transport == PsampleTransport.GENL) {
            return openGenl(new GenlFamilyWatch(Psample.GENL_NAME, Psample.MCGRP_PACKETS,
                    GenlFamilyWatch.DEFAULT_RETRY, reporter), convention);
        }
        Netlink.groupMask(usersockGroup); // validates 1..32
        return NetlinkSocket.openThen(Netlink.NETLINK_USERSOCK,
                s -> new PsampleEmitter(s, transport, convention, Psample.USERSOCK_MSG_TYPE, usersockGroup, 0, null));
    }

    /**
     * Opens a generic-netlink emitter for family "psample", group "packets", retrying the lookup every {@code retry}
     * while the family is missing (see the class comment).
     *
     * @param retry    time between lookups while missing (positive)
     * @param reporter receives the one-time problem line and the recovery line
     * @throws NetlinkException the NETLINK_GENERIC socket cannot be opened or bound
     */
    public static PsampleEmitter openGenl(Psample.Convention convention, Duration retry, Consumer<String> reporter)
            throws NetlinkException {
        return openGenl(new GenlFamilyWatch(Psample.GENL_NAME, Psample.MCGRP_PACKETS, retry, reporter), convention);
    }

    /**
     * Opens a generic-netlink emitter for the family and group {@code watch} tracks (normally psample/packets; a test
     * may point it at another registered family to exercise the send path on a kernel without psample).
     *
     * @throws NetlinkException the NETLINK_GENERIC socket cannot be opened or bound
     */
    public static PsampleEmitter openGenl(GenlFamilyWatch watch, Psample.Convention convention)
            throws NetlinkException {
        return NetlinkSocket.openThen(Netlink.NETLINK_GENERIC, s -> {
            PsampleEmitter e = new PsampleEmitter(s, PsampleTransport.GENL, convention, 0, 0, 0, watch);
            e.checkFamily();
            return e;
        });
    }

    private static void logWarning(String line) {
        System.getLogger(PsampleEmitter.class.getName()).log(System.Logger.Level.WARNING, line);
    }

    /** GENL: once resolved, take the family id as nlmsg_type and send to the group. */
    private boolean checkFamily() {
        if (nlmsgType != 0) {
            return true;
        }
        if (!watch.poll(System.nanoTime())) {
            return false;
        }
        retarget(watch.groupId());
        nlmsgType = watch.familyId();
        return true;
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
                convention, Psample.USERSOCK_MSG_TYPE, 0, dstPortId, null));
    }

    /**
     * Encodes and sends one sample (with batching: adds it to the batch, which may send it). Never throws for a
     * per-message failure.
     *
     * @return {@code true} if the kernel accepted it (counted in {@link #sent()}), or it waits in the batch (its fate
     *         is then {@link #flush()}'s); {@code false} if the genl family is
     *         missing (errno ENOENT, also counted in {@link #familyMissingFailures()}), or encoding or sending failed
     *         (counted in {@link #sendFailed()}, errno in {@link #lastErrno()})
     */
    public boolean emit(PsampleSample sample) {
        if (nlmsgType == 0 && !checkFamily()) {
            familyMissingFailures++;
            return failed(Errno.ENOENT);
        }
        int len;
        int s = nextSeq();
        try {
            len = codec.encode(sample, batchWriter(), nlmsgType, s, portId(), convention);
        } catch (RuntimeException e) { // does not fit (KERNEL u16 ifindex, oversize DATA): a counted failure
            discardPartial();
            return encodeFailed();
        }
        return sendOrQueue(len);
    }

    /** GENL: whether the family is resolved and samples can go out; USERSOCK: always {@code true}. */
    public boolean familyReady() {
        return watch == null || watch.ready();
    }

    /** GENL: the missing-family problem (as reported), or {@code null}; USERSOCK: {@code null}. */
    public String familyProblem() {
        return watch == null ? null : watch.problem();
    }

    /** Samples counted as failed because the genl family was missing (a subset of {@link #sendFailed()}). */
    public long familyMissingFailures() {
        return familyMissingFailures;
    }

    /**
     * nlmsg_type used: the psample family id (GENL; 0 while the family is missing) or {@link
     * Psample#USERSOCK_MSG_TYPE}.
     */
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
