package io.vecflow.netlink.psample;

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
 * Agent side of the PSAMPLE channel: joins the "packets" group (GENL) or a NETLINK_USERSOCK group, or takes
 * USERSOCK unicasts, and decodes samples into one reused {@link PsampleSample}.
 *
 * <p>{@link #poll} reads one datagram into a preallocated off-heap buffer ({@value #READ_BUFFER_BYTES} bytes) and
 * walks every message in it; nothing is allocated per message. A malformed message is counted in
 * {@link #decodeErrors()} (text in {@link #lastDecodeError()}, naming field and offset) and skipped; a receive-buffer
 * overrun (ENOBUFS) is counted in {@link #overruns()}; messages of other types or other PSAMPLE commands are counted
 * in {@link #ignored()}. The subscriber keeps going after all of these. Like hsflowd's mod_psample the socket gets an
 * 8 MB receive buffer (SO_RCVBUFFORCE as root). Single-threaded.
 */
public final class PsampleSubscriber implements AutoCloseable {
    /** Receive buffer requested at open, bytes (hsflowd uses the same). */
    public static final int DEFAULT_RECEIVE_BUFFER_BYTES = 8 * 1024 * 1024;
    /** Bytes read per {@code recv}: room for the largest (0xFFFF-byte) message, twice. */
    public static final int READ_BUFFER_BYTES = 128 * 1024;

    private final NetlinkSocket socket;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buf;
    private final NetlinkReader reader = new NetlinkReader();
    private final PsampleCodec codec = new PsampleCodec();
    private final PsampleSample sample;
    private final PsampleTransport transport;
    private final int nlmsgType;
    private final int groupId;
    private final int portId;
    private long datagrams;
    private long messages;
    private long samples;
    private long decodeErrors;
    private long overruns;
    private long ignored;
    private long dataTruncated;
    private String lastDecodeError;

    private PsampleSubscriber(NetlinkSocket socket, PsampleTransport transport, int nlmsgType, int groupId,
                              int dataCapacity) throws NetlinkException {
        this.socket = socket;
        this.transport = transport;
        this.nlmsgType = nlmsgType;
        this.groupId = groupId;
        this.sample = new PsampleSample(dataCapacity);
        socket.setReceiveBufferSize(DEFAULT_RECEIVE_BUFFER_BYTES);
        this.portId = socket.portId();
        this.buf = arena.allocate(READ_BUFFER_BYTES, 8);
    }

    /**
     * Opens a multicast subscriber.
     *
     * @param transport     GENL: resolve "psample" and join "packets"; USERSOCK: join {@code usersockGroup}
     * @param usersockGroup USERSOCK group 1..32 (default {@link Psample#USERSOCK_DEFAULT_GROUP}); ignored for GENL
     * @throws io.vecflow.netlink.GenlFamilyNotFoundException GENL without the psample module (message names
     *         {@code modprobe psample} and {@code --transport usersock})
     * @throws NetlinkException EPERM when joining without root/CAP_NET_ADMIN; other socket errors
     */
    public static PsampleSubscriber open(PsampleTransport transport, int usersockGroup) throws NetlinkException {
        return open(transport, usersockGroup, PsampleSample.DEFAULT_DATA_CAPACITY);
    }

    /**
     * Like {@link #open(PsampleTransport, int)} with a chosen DATA capacity for the reused holder (longer DATA is
     * truncated and counted in {@link #dataTruncated()}).
     */
    public static PsampleSubscriber open(PsampleTransport transport, int usersockGroup, int dataCapacity)
            throws NetlinkException {
        if (transport == PsampleTransport.GENL) {
            NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_GENERIC);
            try {
                GenlFamily family = GenlController.resolve(s, Psample.GENL_NAME);
                int group = family.groupId(Psample.MCGRP_PACKETS);
                s.bind(0, 0);
                s.joinGroup(group);
                return new PsampleSubscriber(s, transport, family.id(), group, dataCapacity);
            } catch (NetlinkException | RuntimeException e) {
                s.close();
                throw e;
            }
        }
        Netlink.groupMask(usersockGroup); // validates 1..32 (the emitter addresses the group through nl_groups)
        NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_USERSOCK);
        try {
            s.bind(0, 0);
            s.joinGroup(usersockGroup);
            return new PsampleSubscriber(s, transport, Psample.USERSOCK_MSG_TYPE, usersockGroup, dataCapacity);
        } catch (NetlinkException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * Opens an unprivileged NETLINK_USERSOCK unicast subscriber: binds without groups (the kernel assigns a port
     * id); publish {@link #portId()} to the emitter ({@link PsampleEmitter#openUnicast}).
     *
     * @throws NetlinkException socket errors
     */
    public static PsampleSubscriber openUnicast() throws NetlinkException {
        NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_USERSOCK);
        try {
            s.bind(0, 0);
            return new PsampleSubscriber(s, PsampleTransport.USERSOCK, Psample.USERSOCK_MSG_TYPE, 0,
                    PsampleSample.DEFAULT_DATA_CAPACITY);
        } catch (NetlinkException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * Waits up to {@code timeout} for one datagram and hands every sample in it to {@code handler}.
     *
     * @param timeout how long to wait; zero = do not wait
     * @param handler called once per decoded sample with the reused holder
     * @return samples delivered (0 on timeout, an overrun, or a datagram without valid samples)
     * @throws NetlinkException only for a socket failure other than a timeout or an overrun (e.g. EBADF after
     *                          close); never for message content
     */
    public int poll(Duration timeout, PsampleHandler handler) throws NetlinkException {
        int n = socket.tryReceive(buf, timeout);
        if (n <= 0) {
            if (n == -Errno.ENOBUFS) {
                overruns++;
                return 0;
            }
            if (n < 0) {
                throw new NetlinkException("recv(" + Netlink.protocolName(socket.protocol()) + ", PSAMPLE subscriber)",
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
                ignored++; // control messages (genl) or other traffic on the group
                continue;
            }
            try {
                if (!codec.decode(buf, reader.offset(), reader.length(), sample)) {
                    ignored++; // another PSAMPLE command (group notifications)
                    continue;
                }
            } catch (NetlinkFormatException e) {
                decodeError(e);
                continue;
            }
            samples++;
            if (sample.dataTruncated()) {
                dataTruncated++;
            }
            delivered++;
            handler.onSample(sample);
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

    /** Samples decoded and delivered. */
    public long samples() {
        return samples;
    }

    /** Malformed messages or datagrams skipped. */
    public long decodeErrors() {
        return decodeErrors;
    }

    /** Text of the most recent decode error (field and byte offset named), or {@code null}. */
    public String lastDecodeError() {
        return lastDecodeError;
    }

    /** Receive-buffer overruns (ENOBUFS): each means one or more messages were lost. */
    public long overruns() {
        return overruns;
    }

    /** Messages of another nlmsg_type or another PSAMPLE command, skipped. */
    public long ignored() {
        return ignored;
    }

    /** Samples whose DATA exceeded the holder capacity and was truncated. */
    public long dataTruncated() {
        return dataTruncated;
    }

    /** Datagrams longer than the read buffer (cut; their last message then fails to decode). */
    public long truncatedDatagrams() {
        return socket.truncatedDatagrams();
    }

    /** This subscriber's netlink port id (the unicast destination for {@link PsampleEmitter#openUnicast}). */
    public int portId() {
        return portId;
    }

    /** Joined multicast group id, or 0 for a unicast subscriber. */
    public int groupId() {
        return groupId;
    }

    /** nlmsg_type of accepted messages: the psample family id (GENL) or {@link Psample#USERSOCK_MSG_TYPE}. */
    public int nlmsgType() {
        return nlmsgType;
    }

    /** The transport. */
    public PsampleTransport transport() {
        return transport;
    }

    /** Effective receive buffer in bytes (kernel-doubled), for diagnostics. */
    public int receiveBufferBytes() throws NetlinkException {
        return socket.receiveBufferSize();
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
