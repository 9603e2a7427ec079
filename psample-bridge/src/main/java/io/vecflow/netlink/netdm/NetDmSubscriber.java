package io.vecflow.netlink.netdm;

import io.vecflow.netlink.Errno;
import io.vecflow.netlink.GenlController;
import io.vecflow.netlink.GenlFamily;
import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkReader;
import io.vecflow.netlink.NetlinkSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * Agent side of the NET_DM channel: joins the "events" group of generic-netlink family "NET_DM" (GENL) or a
 * NETLINK_USERSOCK group, and decodes PACKET_ALERTs into one reused {@link NetDmAlert}.
 *
 * <p>{@link #poll} reads one datagram into a preallocated off-heap buffer ({@value #READ_BUFFER_BYTES} bytes) and walks
 * every message in it; nothing is allocated per message. A malformed message is counted in {@link #decodeErrors()}
 * (text in {@link #lastDecodeError()}, naming field and offset) and skipped; a receive-buffer overrun (ENOBUFS) is
 * counted in {@link #overruns()}; messages of other types or other NET_DM commands are counted in {@link #ignored()}.
 * The socket gets an 8 MB receive buffer, as hsflowd's mod_dropmon asks. Single-threaded.
 *
 * <p>On a kernel without drop_monitor, opening the GENL transport throws
 * {@link io.vecflow.netlink.GenlFamilyNotFoundException} whose message says {@code modprobe drop_monitor}.
 */
public final class NetDmSubscriber implements AutoCloseable {
    /** Receive buffer requested at open, bytes. */
    public static final int DEFAULT_RECEIVE_BUFFER_BYTES = 8 * 1024 * 1024;
    /** Bytes read per {@code recv}: room for the largest (0xFFFF-byte) message, twice. */
    public static final int READ_BUFFER_BYTES = 128 * 1024;

    private final NetlinkSocket socket;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buf;
    private final NetlinkReader reader = new NetlinkReader();
    private final NetDmCodec codec = new NetDmCodec();
    private final NetDmAlert alert;
    private final NetDmTransport transport;
    private final int nlmsgType;
    private final int groupId;
    private final int portId;
    private long datagrams;
    private long messages;
    private long alerts;
    private long decodeErrors;
    private long overruns;
    private long ignored;
    private long payloadTruncated;
    private String lastDecodeError;

    private NetDmSubscriber(NetlinkSocket socket, NetDmTransport transport, int nlmsgType, int groupId,
            int payloadCapacity) throws NetlinkException {
        this.socket = socket;
        this.transport = transport;
        this.nlmsgType = nlmsgType;
        this.groupId = groupId;
        this.alert = new NetDmAlert(payloadCapacity);
        socket.setReceiveBufferSize(DEFAULT_RECEIVE_BUFFER_BYTES);
        this.portId = socket.portId();
        this.buf = arena.allocate(READ_BUFFER_BYTES, 8);
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
        if (transport == NetDmTransport.GENL) {
            NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_GENERIC);
            try {
                GenlFamily family = GenlController.resolve(s, NetDm.GENL_NAME);
                int group = family.groupId(NetDm.MCGRP_EVENTS);
                s.bind(0, 0);
                s.joinGroup(group);
                return new NetDmSubscriber(s, transport, family.id(), group, payloadCapacity);
            } catch (NetlinkException | RuntimeException e) {
                s.close();
                throw e;
            }
        }
        Netlink.groupMask(usersockGroup); // validates 1..32
        NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_USERSOCK);
        try {
            s.bind(0, 0);
            s.joinGroup(usersockGroup);
            return new NetDmSubscriber(s, transport, NetDm.USERSOCK_MSG_TYPE, usersockGroup, payloadCapacity);
        } catch (NetlinkException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * Waits up to {@code timeout} for one datagram and hands every PACKET_ALERT in it to {@code handler}.
     *
     * @param timeout how long to wait; zero = do not wait
     * @param handler called once per decoded alert with the reused holder
     * @return alerts delivered (0 on timeout, an overrun, or a datagram without valid alerts)
     * @throws NetlinkException only for a socket failure other than a timeout or an overrun (e.g. EBADF after
     *                          close); never for message content
     */
    public int poll(Duration timeout, NetDmHandler handler) throws NetlinkException {
        int n = socket.tryReceive(buf, timeout);
        if (n <= 0) {
            if (n == -Errno.ENOBUFS) {
                overruns++;
                return 0;
            }
            if (n < 0) {
                throw new NetlinkException("recv(" + Netlink.protocolName(socket.protocol()) + ", NET_DM subscriber)",
                        -n, null);
            }
            return 0;
        }
        datagrams++;
        int delivered = 0;
        reader.reset(buf, n);
        while (true) {
            try {
                if (!reader.next()) {
                    break;
                }
            } catch (NetlinkFormatException e) { // bad nlmsghdr: the rest of this datagram is unreadable
                decodeError(e);
                break;
            }
            messages++;
            if (reader.type() != nlmsgType) {
                ignored++; // ACKs, control traffic, other users of the group
                continue;
            }
            try {
                if (!codec.decode(buf, reader.offset(), reader.length(), alert)) {
                    ignored++; // another NET_DM command (summary ALERT, CONFIG_NEW, STATS_NEW)
                    continue;
                }
            } catch (NetlinkFormatException e) {
                decodeError(e);
                continue;
            }
            alerts++;
            if (alert.payloadTruncated()) {
                payloadTruncated++;
            }
            delivered++;
            handler.onAlert(alert);
        }
        return delivered;
    }

    private void decodeError(NetlinkFormatException e) {
        decodeErrors++;
        lastDecodeError = e.getMessage();
    }

    /** Datagrams received. */
    public long datagrams() {
        return datagrams;
    }

    /** Netlink messages seen (valid headers), of any type. */
    public long messages() {
        return messages;
    }

    /** PACKET_ALERTs decoded and delivered. */
    public long alerts() {
        return alerts;
    }

    /** Malformed messages or datagrams skipped. */
    public long decodeErrors() {
        return decodeErrors;
    }

    /** Text of the most recent decode error (field and byte offset named), or {@code null}. */
    public String lastDecodeError() {
        return lastDecodeError;
    }

    /** Receive-buffer overruns (ENOBUFS): each means one or more alerts were lost. */
    public long overruns() {
        return overruns;
    }

    /** Messages of another nlmsg_type or another NET_DM command, skipped. */
    public long ignored() {
        return ignored;
    }

    /** Alerts whose PAYLOAD exceeded the holder capacity and was cut. */
    public long payloadTruncated() {
        return payloadTruncated;
    }

    /** This subscriber's netlink port id. */
    public int portId() {
        return portId;
    }

    /** Joined multicast group id. */
    public int groupId() {
        return groupId;
    }

    /** nlmsg_type of accepted messages: the NET_DM family id (GENL) or {@link NetDm#USERSOCK_MSG_TYPE}. */
    public int nlmsgType() {
        return nlmsgType;
    }

    /** The transport. */
    public NetDmTransport transport() {
        return transport;
    }

    /** Closes the socket and frees the read buffer; idempotent. Do not call while another thread is in poll. */
    @Override
    public void close() {
        if (!socket.isClosed()) {
            socket.close();
            arena.close();
        }
    }
}
