package io.vecflow.netlink;

import io.vecflow.common.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * Receive side shared by the PSAMPLE, NET_DM and VPP USERSOCK subscribers: owns the netlink socket, one preallocated
 * off-heap read buffer and the receive loop; a subclass only decodes one message ({@link #onMessage}).
 *
 * <p>{@link #poll} reads one datagram and walks every netlink message in it (spec {@code docs/netlink.md} §1);
 * nothing is allocated per message. A bad nlmsghdr ends the datagram and a {@link NetlinkFormatException} from
 * {@link #onMessage} skips the message — both counted in {@link #decodeErrors()} with the text (field and offset
 * named) in {@link #lastDecodeError()}; a receive-buffer overrun (ENOBUFS) is counted in {@link #overruns()}; a
 * message {@link #onMessage} declines is counted in {@link #ignored()}. The subscriber keeps going after all of these.
 * Single-threaded.
 *
 * @param <H> the handler the decoded holders are passed to
 */
public abstract class NetlinkSubscriber<H> implements AutoCloseable {
    /** Bytes read per {@code recv}: room for the largest (0xFFFF-byte) netlink message, twice. */
    public static final int READ_BUFFER_BYTES = 128 * 1024;

    /** Makes a subscriber of a socket already bound (and joined); see {@link #openGenl} and {@link #openUsersock}. */
    @FunctionalInterface
    protected interface Factory<T> {
        /**
         * @param socket    the bound socket
         * @param nlmsgType nlmsg_type of accepted messages: the family id (GENL) or the USERSOCK type given
         * @param groupId   the joined multicast group, or 0 for a unicast subscriber
         * @throws NetlinkException a socket option failed (the socket is then closed)
         */
        T create(NetlinkSocket socket, int nlmsgType, int groupId) throws NetlinkException;
    }

    private final NetlinkSocket socket;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buf;
    private final NetlinkReader reader = new NetlinkReader();
    private final String recvWhat;
    private final int groupId;
    private final int portId;
    private long datagrams;
    private long messages;
    private long decodeErrors;
    private long overruns;
    private long ignored;
    private String lastDecodeError;

    /**
     * Sets the receive buffer and allocates the read buffer ({@value #READ_BUFFER_BYTES} bytes).
     *
     * @param socket             bound (and joined) socket; owned from here on
     * @param groupId            joined group, 0 for unicast
     * @param receiveBufferBytes SO_RCVBUF(FORCE) request, bytes
     * @param what               names the subscriber in a receive error, e.g. {@code "PSAMPLE subscriber"}
     * @throws NetlinkException setting the receive buffer or reading the port id failed
     */
    protected NetlinkSubscriber(NetlinkSocket socket, int groupId, int receiveBufferBytes, String what)
            throws NetlinkException {
        this.socket = socket;
        this.groupId = groupId;
        this.recvWhat = "recv(" + Netlink.protocolName(socket.protocol()) + ", " + what + ")";
        socket.setReceiveBufferSize(receiveBufferBytes);
        this.portId = socket.portId();
        this.buf = arena.allocate(READ_BUFFER_BYTES, 8);
    }

    /**
     * Opens a NETLINK_GENERIC socket, binds it (kernel-assigned port id), resolves {@code family} and its multicast
     * group {@code group}, joins and hands the socket to {@code factory} (nlmsgType = the family id). The socket is
     * closed if anything fails.
     *
     * @throws GenlFamilyNotFoundException the family is not registered (its message names the module to load)
     * @throws NetlinkException EPERM when joining without root/CAP_NET_ADMIN; other socket errors
     */
    protected static <T> T openGenl(String family, String group, Factory<T> factory) throws NetlinkException {
        return NetlinkSocket.openThen(Netlink.NETLINK_GENERIC, s -> {
            // bind first: the lookup's sendto auto-binds the socket, and a later bind(nl_pid = 0) on a bound
            // socket is EINVAL (Linux netlink_bind: nl_pid must equal the port id already assigned); seen on the
            // kernel lab's real psample family (the host kernel has none, so the lookup used to fail first)
            s.bind(0, 0);
            GenlFamily f = GenlController.resolve(s, family);
            int g = f.groupId(group);
            s.joinGroup(g);
            return factory.create(s, f.id(), g);
        });
    }

    /**
     * Opens a NETLINK_USERSOCK socket, binds it, joins multicast group {@code group} and hands it to {@code factory}.
     *
     * @param group     multicast group 1..32
     * @param nlmsgType nlmsg_type the subscriber accepts, passed on to {@code factory}
     * @throws IllegalArgumentException a group outside 1..32 (checked before any socket is opened)
     * @throws NetlinkException EPERM when joining without root/CAP_NET_ADMIN; other socket errors
     */
    protected static <T> T openUsersock(int group, int nlmsgType, Factory<T> factory) throws NetlinkException {
        Netlink.groupMask(group); // validates 1..32 (emitters address the group through nl_groups)
        return NetlinkSocket.openThen(Netlink.NETLINK_USERSOCK, s -> {
            s.bind(0, 0);
            s.joinGroup(group);
            return factory.create(s, nlmsgType, group);
        });
    }

    /**
     * Opens a NETLINK_USERSOCK socket bound without groups (the kernel assigns the port id; no privilege needed) and
     * hands it to {@code factory} with group 0.
     *
     * @param nlmsgType nlmsg_type the subscriber accepts, passed on to {@code factory}
     * @throws NetlinkException socket errors
     */
    protected static <T> T openUsersockUnicast(int nlmsgType, Factory<T> factory) throws NetlinkException {
        return NetlinkSocket.openThen(Netlink.NETLINK_USERSOCK, s -> {
            s.bind(0, 0);
            return factory.create(s, nlmsgType, 0);
        });
    }

    /**
     * Decodes one netlink message and passes it to {@code handler}. Must not allocate.
     *
     * @param type    nlmsg_type
     * @param buf     the read buffer
     * @param offset  offset of the message's nlmsghdr in {@code buf}
     * @param length  its nlmsg_len (checked against the datagram)
     * @param handler the caller's handler
     * @return {@code true} if a holder was delivered; {@code false} if the message was skipped (counted as ignored)
     * @throws NetlinkFormatException malformed content (counted, message skipped)
     */
    protected abstract boolean onMessage(int type, MemorySegment buf, long offset, int length, H handler)
            throws NetlinkFormatException;

    /**
     * Waits up to {@code timeout} for one datagram and passes every message in it to {@link #onMessage}.
     *
     * @param timeout how long to wait; zero = do not wait
     * @param handler called once per decoded message with a reused holder
     * @return holders delivered (0 on timeout, an overrun, or a datagram without valid messages)
     * @throws NetlinkException only for a socket failure other than a timeout or an overrun (e.g. EBADF after
     *                          close); never for message content
     */
    public final int poll(Duration timeout, H handler) throws NetlinkException {
        int n = socket.tryReceive(buf, timeout);
        if (n <= 0) {
            if (n == -Errno.ENOBUFS) {
                overruns++;
                return 0;
            }
            if (n < 0) {
                throw new NetlinkException(recvWhat, -n, null);
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
            try {
                if (onMessage(reader.type(), buf, reader.offset(), reader.length(), handler)) {
                    delivered++;
                } else {
                    ignored++;
                }
            } catch (NetlinkFormatException e) {
                decodeError(e);
            }
        }
        return delivered;
    }

    private void decodeError(NetlinkFormatException e) {
        decodeErrors++;
        lastDecodeError = e.getMessage();
    }

    /** Datagrams received. */
    public final long datagrams() {
        return datagrams;
    }

    /** Netlink messages seen (valid headers), of any type. */
    public final long messages() {
        return messages;
    }

    /** Malformed messages or datagrams skipped. */
    public final long decodeErrors() {
        return decodeErrors;
    }

    /** Text of the most recent decode error (field and byte offset named), or {@code null}. */
    public final String lastDecodeError() {
        return lastDecodeError;
    }

    /** Receive-buffer overruns (ENOBUFS): each means one or more messages were lost. */
    public final long overruns() {
        return overruns;
    }

    /** Messages of another nlmsg_type or another command, skipped. */
    public final long ignored() {
        return ignored;
    }

    /** Datagrams longer than the read buffer (cut; their last message then fails to decode). */
    public final long truncatedDatagrams() {
        return socket.truncatedDatagrams();
    }

    /** Effective receive buffer in bytes (kernel-doubled), for diagnostics. */
    public final int receiveBufferBytes() throws NetlinkException {
        return socket.receiveBufferSize();
    }

    /** This subscriber's netlink port id (the unicast destination for a unicast emitter). */
    public final int portId() {
        return portId;
    }

    /** Joined multicast group id, or 0 for a unicast subscriber. */
    public final int groupId() {
        return groupId;
    }

    /** Closes the socket and frees the read buffer; idempotent. Do not call while another thread is in poll. */
    @Override
    public final void close() {
        if (!socket.isClosed()) {
            socket.close();
            arena.close();
        }
    }
}
