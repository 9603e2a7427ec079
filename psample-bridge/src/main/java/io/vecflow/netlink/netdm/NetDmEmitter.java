package io.vecflow.netlink.netdm;

import io.vecflow.common.Errno;
import io.vecflow.netlink.GenlFamilyWatch;
import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkEmitter;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkSocket;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Dataplane side of the NET_DM channel: sends NET_DM_CMD_PACKET_ALERT messages ({@link NetDmCodec}) as the kernel's
 * drop_monitor or VPP's sflow plugin would, from one preallocated off-heap buffer, one datagram each. {@link #emit}
 * and {@link #emitDrop} allocate nothing and never throw: every alert ends up in {@link #sent()} or
 * {@link #sendFailed()} (spec {@code docs/netlink.md} §6 rule 3).
 *
 * <p>Transports ({@link NetDmTransport}):
 * <ul>
 *   <li>GENL ({@link #openGenl}): NETLINK_GENERIC family "NET_DM", multicast group "events" (id 1,
 *       NET_DM_GRP_ALERT), nlmsg_type = the family id — what hsflowd's mod_dropmon reads. Needs CAP_NET_ADMIN to send
 *       (spec §1). A missing family (no {@code drop_monitor} module, as on the test machines) is reported <em>once</em>
 *       through the reporter, every alert meanwhile counts as a failure with errno ENOENT
 *       ({@link #familyMissingFailures()}), and the lookup is retried ({@link GenlFamilyWatch}).</li>
 *   <li>USERSOCK ({@link #openUsersock}): NETLINK_USERSOCK multicast, nlmsg_type {@link NetDm#USERSOCK_MSG_TYPE};
 *       needs no module and no privilege to send.</li>
 * </ul>
 *
 * <p>IN_PORT convention ({@link NetDm.Convention}): KERNEL nests it (NLA_F_NESTED {PORT_NETDEV_IFINDEX u32}, spec §6
 * rule 14, the default), VPP writes a flat u32 as VPP does. Messages: nlmsg_flags 0, nlmsg_seq from 1, nlmsg_pid =
 * this socket's port id. Single-threaded: emit from one thread; counters may be read from others (values may lag).
 */
public final class NetDmEmitter extends NetlinkEmitter {
    /** Send buffer size in bytes: the 0xFFFF-byte netlink message cap plus slack. */
    public static final int BUFFER_BYTES = 0x10000 + 1024;

    private final NetDmCodec codec = new NetDmCodec();
    private final NetDmAlert drop = new NetDmAlert(NetDmAlert.DEFAULT_PAYLOAD_CAPACITY);
    private final NetDm.Convention convention;
    private final NetDmTransport transport;
    private final GenlFamilyWatch watch;
    private int nlmsgType;
    private volatile long familyMissingFailures;

    private NetDmEmitter(NetlinkSocket socket, int groupId, NetDm.Convention convention, NetDmTransport transport,
                         GenlFamilyWatch watch, int nlmsgType) throws NetlinkException {
        super(socket, BUFFER_BYTES, groupId, 0, 0);
        this.convention = convention;
        this.transport = transport;
        this.watch = watch;
        this.nlmsgType = nlmsgType;
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
        return NetlinkSocket.openThen(Netlink.NETLINK_USERSOCK, s -> new NetDmEmitter(s, usersockGroup, convention,
                NetDmTransport.USERSOCK, null, NetDm.USERSOCK_MSG_TYPE));
    }

    /**
     * Opens a generic-netlink emitter for family "NET_DM", group "events". Does not fail when the family is missing:
     * the reporter hears about it once (the text says {@code modprobe drop_monitor}), alerts count as failures, and
     * the lookup is retried every {@code retry} (see {@link GenlFamilyWatch}).
     *
     * @param convention IN_PORT convention
     * @param retry      time between lookups while the family is missing (e.g. {@link GenlFamilyWatch#DEFAULT_RETRY})
     * @param reporter   receives the one-time problem line and the recovery line (e.g. a logger's warn)
     * @throws NetlinkException the NETLINK_GENERIC socket cannot be opened or bound
     */
    public static NetDmEmitter openGenl(NetDm.Convention convention, Duration retry, Consumer<String> reporter)
            throws NetlinkException {
        return openGenl(new GenlFamilyWatch(NetDm.GENL_NAME, NetDm.MCGRP_EVENTS, retry, reporter), convention);
    }

    /**
     * Opens a generic-netlink emitter for the family and group {@code watch} tracks (normally NET_DM/events; a test
     * may point it at another registered family to exercise the send path on a kernel without drop_monitor).
     *
     * @throws NetlinkException the NETLINK_GENERIC socket cannot be opened or bound
     */
    public static NetDmEmitter openGenl(GenlFamilyWatch watch, NetDm.Convention convention) throws NetlinkException {
        return NetlinkSocket.openThen(Netlink.NETLINK_GENERIC, s -> {
            NetDmEmitter e = new NetDmEmitter(s, 0, convention, NetDmTransport.GENL, watch, 0);
            e.checkFamily();
            return e;
        });
    }

    /**
     * Opens either transport.
     *
     * @param usersockGroup USERSOCK group 1..32 (ignored for GENL)
     * @param reporter      GENL only: where the one-time missing-family report goes
     * @throws NetlinkException socket errors
     */
    public static NetDmEmitter open(NetDmTransport transport, int usersockGroup, NetDm.Convention convention,
                                    Consumer<String> reporter) throws NetlinkException {
        return transport == NetDmTransport.GENL ? openGenl(convention, GenlFamilyWatch.DEFAULT_RETRY, reporter)
                : openUsersock(usersockGroup, convention);
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
     * Encodes and sends one alert. Never throws for a per-message failure.
     *
     * @return {@code true} if the kernel accepted it; {@code false} if the genl family is missing (errno ENOENT), or
     *         encoding or sending failed (counted, errno in {@link #lastErrno()}, EMSGSIZE for an encoding failure)
     */
    public boolean emit(NetDmAlert alert) {
        if (nlmsgType == 0 && !checkFamily()) {
            familyMissingFailures++;
            return failed(Errno.ENOENT);
        }
        int len;
        int s = nextSeq();
        try {
            len = codec.encode(alert, writer(), nlmsgType, s, portId(), convention);
        } catch (RuntimeException e) {
            return encodeFailed();
        }
        return send(len);
    }

    /**
     * Sends one dropped packet as a PACKET_ALERT: ORIGIN 0 (software), HW_TRAP_GROUP_NAME / HW_TRAP_NAME / REASON
     * from {@code point}, IN_PORT {@code inIfIndex} (nested or flat per the convention), PROTO, PAYLOAD = the first
     * {@code headerLength} bytes of the frame, TRUNC_LEN, ORIG_LEN and, when non-zero, TIMESTAMP. Fills a reused
     * holder: allocates nothing. hsflowd's mod_dropmon ignores an alert with PROTO 0 (spec §5), so pass the frame's
     * ethertype (VPP always sends 0x0800).
     *
     * @param point        where and why (pre-encoded)
     * @param inIfIndex    the packet's own input interface (u32: Linux ifindex, or the dataplane's index)
     * @param proto        u16 ethertype of the packet ({@code skb->protocol}), non-zero for hsflowd
     * @param origLength   frame length in bytes without FCS (u32)
     * @param header       frame bytes from the MAC header
     * @param headerLength bytes of {@code header} to send, 0..{@link NetDmAlert#DEFAULT_PAYLOAD_CAPACITY}
     * @param truncLength  TRUNC_LEN: the configured header-bytes the payload was cut to (VPP sends the header length)
     * @param timestampNs  ns since the UNIX epoch, or 0 to omit TIMESTAMP (VPP sends none)
     * @return as {@link #emit}; a header range outside {@code header} or above the capacity is an encoding failure
     */
    public boolean emitDrop(NetDmDropPoint point, long inIfIndex, int proto, long origLength, byte[] header,
                            int headerLength, long truncLength, long timestampNs) {
        if (headerLength < 0 || headerLength > header.length || headerLength > drop.payloadCapacity()) {
            return encodeFailed();
        }
        drop.clear()
                .origin(NetDm.ORIGIN_SW)
                .inPortIfIndex(inIfIndex)
                .proto(proto)
                .payload(header, 0, headerLength)
                .truncLen(truncLength)
                .origLen(origLength);
        byte[] g = point.trapGroupBytes();
        byte[] t = point.trapNameBytes();
        byte[] r = point.reasonBytes();
        drop.hwTrapGroup(g, 0, g.length).hwTrapName(t, 0, t.length).reason(r, 0, r.length);
        if (timestampNs != 0) {
            drop.timestampNs(timestampNs);
        }
        return emit(drop);
    }

    /** The IN_PORT convention. */
    public NetDm.Convention convention() {
        return convention;
    }

    /** The transport. */
    public NetDmTransport transport() {
        return transport;
    }

    /**
     * nlmsg_type in use: the NET_DM family id (GENL; 0 while the family is missing) or {@link NetDm#USERSOCK_MSG_TYPE}.
     */
    public int nlmsgType() {
        return nlmsgType;
    }

    /** GENL: whether the family is resolved and alerts can go out; USERSOCK: always {@code true}. */
    public boolean familyReady() {
        return watch == null || watch.ready();
    }

    /** GENL: the missing-family problem (as reported), or {@code null}; USERSOCK: {@code null}. */
    public String familyProblem() {
        return watch == null ? null : watch.problem();
    }

    /** Alerts counted as failed because the genl family was missing (a subset of {@link #sendFailed()}). */
    public long familyMissingFailures() {
        return familyMissingFailures;
    }
}
