package io.vecflow.netlink.vpp;

import io.vecflow.netlink.Errno;
import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkReader;
import io.vecflow.netlink.NetlinkSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * Listens on VPP's NETLINK_USERSOCK channel (default group {@link VppUsersock#GROUP} = 29; joining needs
 * root/CAP_NET_ADMIN — join before dropping privileges). Message types are read as VPP's — 1 STATUS, 2 IF_COUNTERS —
 * and never as NLMSG_NOOP/NLMSG_ERROR (spec §3). STATUS is decoded into a reused {@link VppStatus}, IF_COUNTERS into
 * a reused {@link VppIfCounters}. Malformed input is counted ({@link #decodeErrors()}) and skipped; ENOBUFS overruns are counted.
 * Allocation-free per message; single-threaded.
 */
public final class VppUsersockSubscriber implements AutoCloseable {
    private static final int READ_BUFFER_BYTES = 128 * 1024;

    private final NetlinkSocket socket;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buf;
    private final NetlinkReader reader = new NetlinkReader();
    private final VppStatusCodec codec = new VppStatusCodec();
    private final VppStatus status = new VppStatus();
    private final VppIfCountersCodec ifCodec = new VppIfCountersCodec();
    private final VppIfCounters ifCounters = new VppIfCounters();
    private final int groupId;
    private long statusMessages;
    private long ifCounterMessages;
    private long decodeErrors;
    private long overruns;
    private long ignored;
    private String lastDecodeError;

    private VppUsersockSubscriber(NetlinkSocket socket, int groupId) throws NetlinkException {
        this.socket = socket;
        this.groupId = groupId;
        socket.bind(0, 0);
        socket.joinGroup(groupId);
        socket.setReceiveBufferSize(1024 * 1024);
        this.buf = arena.allocate(READ_BUFFER_BYTES, 8);
    }

    /**
     * Joins USERSOCK multicast group {@code groupId} (1..32).
     *
     * @throws NetlinkException EPERM without root/CAP_NET_ADMIN; other socket errors
     */
    public static VppUsersockSubscriber open(int groupId) throws NetlinkException {
        Netlink.groupMask(groupId);
        NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_USERSOCK);
        try {
            return new VppUsersockSubscriber(s, groupId);
        } catch (NetlinkException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * Waits up to {@code timeout} for one datagram and dispatches its messages.
     *
     * @return messages dispatched (STATUS + IF_COUNTERS); 0 on timeout or overrun
     * @throws NetlinkException a socket failure other than timeout/overrun (never for message content)
     */
    public int poll(Duration timeout, VppUsersockHandler handler) throws NetlinkException {
        int n = socket.tryReceive(buf, timeout);
        if (n <= 0) {
            if (n == -Errno.ENOBUFS) {
                overruns++;
                return 0;
            }
            if (n < 0) {
                throw new NetlinkException("recv(NETLINK_USERSOCK, VPP subscriber)", -n, null);
            }
            return 0;
        }
        int dispatched = 0;
        reader.reset(buf, n);
        while (true) {
            try {
                if (!reader.next()) {
                    break;
                }
            } catch (NetlinkFormatException e) {
                decodeErrors++;
                lastDecodeError = e.getMessage();
                break;
            }
            switch (reader.type()) { // VPP types: 1 and 2 are NOT NLMSG_NOOP / NLMSG_ERROR here
                case VppUsersock.MSG_STATUS -> {
                    try {
                        codec.decode(buf, reader.offset(), reader.length(), status);
                    } catch (NetlinkFormatException e) {
                        decodeErrors++;
                        lastDecodeError = e.getMessage();
                        continue;
                    }
                    statusMessages++;
                    dispatched++;
                    handler.onStatus(status);
                }
                case VppUsersock.MSG_IF_COUNTERS -> {
                    try {
                        ifCodec.decode(buf, reader.offset(), reader.length(), ifCounters);
                    } catch (NetlinkFormatException e) {
                        decodeErrors++;
                        lastDecodeError = e.getMessage();
                        continue;
                    }
                    ifCounterMessages++;
                    dispatched++;
                    handler.onIfCounters(ifCounters);
                }
                default -> ignored++;
            }
        }
        return dispatched;
    }

    /** STATUS messages decoded. */
    public long statusMessages() {
        return statusMessages;
    }

    /** IF_COUNTERS messages decoded and passed on. */
    public long ifCounterMessages() {
        return ifCounterMessages;
    }

    /** Malformed messages skipped. */
    public long decodeErrors() {
        return decodeErrors;
    }

    /** Text of the latest decode error (field and offset), or {@code null}. */
    public String lastDecodeError() {
        return lastDecodeError;
    }

    /** ENOBUFS overruns. */
    public long overruns() {
        return overruns;
    }

    /** Messages of other types. */
    public long ignored() {
        return ignored;
    }

    /** Joined group id. */
    public int groupId() {
        return groupId;
    }

    /** Port id of the socket. */
    public int portId() throws NetlinkException {
        return socket.portId();
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
