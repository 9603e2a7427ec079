package io.vecflow.netlink.netdm;

import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkSocket;
import io.vecflow.netlink.ChannelSubscriber;
import io.vecflow.netlink.NetlinkSubscriber;
import java.lang.foreign.MemorySegment;

/**
 * Agent side of the NET_DM channel: joins the "events" group of generic-netlink family "NET_DM" (GENL) or a
 * NETLINK_USERSOCK group, and decodes PACKET_ALERTs into one reused {@link NetDmAlert}.
 *
 * <p>{@link #poll} reads one datagram into a preallocated off-heap buffer
 * ({@value NetlinkSubscriber#READ_BUFFER_BYTES} bytes) and walks every message in it; nothing is allocated per
 * message. A malformed message is counted in {@link #decodeErrors()} (text in {@link #lastDecodeError()}, naming field
 * and offset) and skipped; a receive-buffer overrun (ENOBUFS) is counted in {@link #overruns()}; messages of other
 * types or other NET_DM commands are counted in {@link #ignored()}.
 * The socket gets an 8 MB receive buffer, as hsflowd's mod_dropmon asks. Single-threaded.
 *
 * <p>On a kernel without drop_monitor, opening the GENL transport throws
 * {@link io.vecflow.netlink.GenlFamilyNotFoundException} whose message says {@code modprobe drop_monitor}.
 */
public final class NetDmSubscriber extends ChannelSubscriber<NetDmHandler, NetDmTransport, NetDmAlert> {
    /** Receive buffer requested at open, bytes. */
    public static final int DEFAULT_RECEIVE_BUFFER_BYTES = 8 * 1024 * 1024;

    private final NetDmCodec codec = new NetDmCodec();

    private NetDmSubscriber(NetlinkSocket socket, NetDmTransport transport, int nlmsgType, int groupId,
            int payloadCapacity) throws NetlinkException {
        super(socket, transport, nlmsgType, groupId, new NetDmAlert(payloadCapacity), DEFAULT_RECEIVE_BUFFER_BYTES,
                "NET_DM subscriber");
    }

    /**
     * Opens a multicast subscriber with the default payload capacity.
     *
     * @param transport     GENL: resolve "NET_DM" and join "events"; USERSOCK: join {@code usersockGroup}
     * @param usersockGroup USERSOCK group 1..32 (default {@link NetDm#USERSOCK_DEFAULT_GROUP}); ignored for GENL
     * @throws io.vecflow.netlink.GenlFamilyNotFoundException GENL without drop_monitor (message names
     *         {@code modprobe drop_monitor})
     * @throws NetlinkException EPERM when joining without root; other socket errors
     * @throws IllegalArgumentException a USERSOCK group outside 1..32
     */
    public static NetDmSubscriber open(NetDmTransport transport, int usersockGroup) throws NetlinkException {
        return open(transport, usersockGroup, NetDmAlert.DEFAULT_PAYLOAD_CAPACITY);
    }

    /**
     * Like {@link #open(NetDmTransport, int)} with a chosen PAYLOAD capacity (longer payloads are cut and counted in
     * {@link #payloadTruncated()}).
     */
    public static NetDmSubscriber open(NetDmTransport transport, int usersockGroup, int payloadCapacity)
            throws NetlinkException {
        Factory<NetDmSubscriber> f = (s, type, group) -> new NetDmSubscriber(s, transport, type, group,
                payloadCapacity);
        return transport == NetDmTransport.GENL
                ? openGenl(NetDm.GENL_NAME, NetDm.MCGRP_EVENTS, f)
                : openUsersock(usersockGroup, NetDm.USERSOCK_MSG_TYPE, f);
    }

    @Override
    protected boolean decode(MemorySegment buf, long offset, int length, NetDmAlert alert)
            throws NetlinkFormatException {
        return codec.decode(buf, offset, length, alert);
    }

    @Override
    protected boolean wasTruncated(NetDmAlert alert) {
        return alert.payloadTruncated();
    }

    @Override
    protected void deliver(NetDmHandler handler, NetDmAlert alert) {
        handler.onAlert(alert);
    }

    /** PACKET_ALERTs decoded and delivered. */
    public long alerts() {
        return delivered();
    }

    /** Alerts whose PAYLOAD exceeded the holder capacity and was cut. */
    public long payloadTruncated() {
        return truncated();
    }
}
