package io.vecflow.netlink;

import io.vecflow.common.Errno;
import io.vecflow.common.Libc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

/**
 * A raw {@code AF_NETLINK} socket driven through {@code java.lang.foreign} (libc {@code socket}, {@code bind},
 * {@code setsockopt}, {@code getsockname}, {@code sendto}, {@code recv}, {@code close}).
 *
 * <p>Addresses are {@code struct sockaddr_nl} (12 bytes: u16 family, u16 pad, u32 nl_pid, u32 nl_groups; see
 * {@code include/uapi/linux/netlink.h} and spec {@code docs/netlink.md} §1). Port ids are u32 carried in an
 * {@code int}; {@code nl_groups} is the bitmask of groups 1..32 ({@link Netlink#groupMask(int)}).
 *
 * <p>Sending and receiving allocate nothing: scratch memory (sockaddr, errno call state) is allocated once per
 * socket; send and receive use separate scratch so one thread may send while another receives. Otherwise an instance
 * is not thread-safe.
 */
public final class NetlinkSocket implements AutoCloseable {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED;

    private final int protocol;
    private volatile int fd;
    // Arena.ofAuto: a recv blocked in another thread keeps the scratch alive; nothing to close explicitly.
    private final MemorySegment ctlState;
    private final MemorySegment ctlAddr;
    private final MemorySegment ctlLen;
    private final MemorySegment ctlOpt;
    private final MemorySegment sendState;
    private final MemorySegment sendAddr;
    private final MemorySegment recvState;
    private int sendPid = Integer.MIN_VALUE;
    private int sendGroups;
    private long truncatedDatagrams;
    private long rcvTimeoutNanos = -1; // last SO_RCVTIMEO set through tryReceive(buf, Duration); 0 = forever

    private NetlinkSocket(int protocol, int fd, Arena arena, MemorySegment ctlState) {
        this.protocol = protocol;
        this.fd = fd;
        this.ctlState = ctlState;
        this.ctlAddr = arena.allocate(Netlink.SOCKADDR_NL_SIZE, 4);
        this.ctlLen = arena.allocate(4, 4);
        this.ctlOpt = arena.allocate(16, 8);
        this.sendState = Libc.newCallState(arena);
        this.sendAddr = arena.allocate(Netlink.SOCKADDR_NL_SIZE, 4);
        this.sendAddr.set(U16, Netlink.NL_FAMILY_OFFSET, (short) Libc.AF_NETLINK);
        this.recvState = Libc.newCallState(arena);
    }

    /**
     * Opens {@code socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol)}; the socket is not bound yet (the kernel
     * auto-binds a port id on first send, or call {@link #bind(int, int)}).
     *
     * @param protocol e.g. {@link Netlink#NETLINK_USERSOCK} (2) or {@link Netlink#NETLINK_GENERIC} (16)
     * @return the open socket
     * @throws NetlinkException e.g. EPROTONOSUPPORT if the kernel lacks that netlink protocol, EMFILE
     */
    public static NetlinkSocket open(int protocol) throws NetlinkException {
        Arena arena = Arena.ofAuto();
        MemorySegment state = Libc.newCallState(arena);
        int fd = Libc.socket(state, Libc.AF_NETLINK, Libc.SOCK_RAW | Libc.SOCK_CLOEXEC, protocol);
        if (fd < 0) {
            int errno = Libc.errno(state);
            throw new NetlinkException("socket(AF_NETLINK, SOCK_RAW, " + Netlink.protocolName(protocol) + ")", errno,
                    errno == Errno.EPROTONOSUPPORT ? "this kernel does not support that netlink protocol" : null);
        }
        return new NetlinkSocket(protocol, fd, arena, state);
    }

    /**
     * What to do with a freshly opened socket in {@link #openThen(int, Setup)}: bind, join, wrap it.
     *
     * @param <T> what the setup makes of the socket
     */
    @FunctionalInterface
    public interface Setup<T> {
        /**
         * Sets up {@code socket} and returns its owner.
         *
         * @throws NetlinkException a socket call failed (the socket is then closed by {@link #openThen})
         */
        T apply(NetlinkSocket socket) throws NetlinkException;
    }

    /**
     * Opens a socket of {@code protocol} and hands it to {@code setup}; if {@code setup} throws, the socket is closed
     * and the exception passed on unchanged. Open-time only (the lambda may allocate).
     *
     * @param protocol netlink protocol ({@link Netlink#NETLINK_GENERIC}, {@link Netlink#NETLINK_USERSOCK}, ...)
     * @return what {@code setup} returned
     * @throws NetlinkException {@code socket(2)} failed, or whatever {@code setup} threw
     */
    public static <T> T openThen(int protocol, Setup<T> setup) throws NetlinkException {
        NetlinkSocket s = open(protocol);
        try {
            return setup.apply(s);
        } catch (NetlinkException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** The netlink protocol this socket was opened with. */
    public int protocol() {
        return protocol;
    }

    /** The file descriptor, or -1 once closed. */
    public int fd() {
        return fd;
    }

    /**
     * Binds the socket: {@code bind(fd, {AF_NETLINK, nl_pid = portId, nl_groups = groupsMask})}.
     *
     * @param portId     local port id (u32); 0 lets the kernel assign one (read it back with {@link #portId()})
     * @param groupsMask multicast groups 1..32 to join, as a bitmask ({@link Netlink#groupMask(int)}); 0 for none
     * @throws NetlinkException EPERM when joining groups without root/CAP_NET_ADMIN, EADDRINUSE when the port id is
     *                          taken, EINVAL when already bound to another port id
     */
    public void bind(int portId, int groupsMask) throws NetlinkException {
        int fd = checkOpen();
        ctlAddr.fill((byte) 0);
        ctlAddr.set(U16, Netlink.NL_FAMILY_OFFSET, (short) Libc.AF_NETLINK);
        ctlAddr.set(U32, Netlink.NL_PID_OFFSET, portId);
        ctlAddr.set(U32, Netlink.NL_GROUPS_OFFSET, groupsMask);
        if (Libc.bind(ctlState, fd, ctlAddr, Netlink.SOCKADDR_NL_SIZE) < 0) {
            int errno = Libc.errno(ctlState);
            String hint = switch (errno) {
                case Errno.EPERM -> "joining a netlink group needs root/CAP_NET_ADMIN";
                case Errno.EADDRINUSE -> "netlink port id " + Integer.toUnsignedString(portId) + " is already in use";
                default -> null;
            };
            throw new NetlinkException("bind(" + Netlink.protocolName(protocol) + ", pid="
                    + Integer.toUnsignedString(portId) + ", groups=0x" + Integer.toHexString(groupsMask) + ")",
                    errno, hint);
        }
    }

    /**
     * Joins a multicast group by id with {@code setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, groupId)}; unlike
     * {@link #bind(int, int)} this reaches any group id, including generic-netlink ids above 32.
     *
     * @param groupId multicast group id (≥ 1)
     * @throws NetlinkException EPERM without the needed capability (CAP_NET_ADMIN for USERSOCK and psample
     *                          "packets"), EINVAL for an id the protocol does not have
     */
    public void joinGroup(int groupId) throws NetlinkException {
        int fd = checkOpen();
        ctlOpt.set(U32, 0, groupId);
        if (Libc.setsockopt(ctlState, fd, Netlink.SOL_NETLINK, Netlink.NETLINK_ADD_MEMBERSHIP, ctlOpt, 4) < 0) {
            int errno = Libc.errno(ctlState);
            throw new NetlinkException("setsockopt(" + Netlink.protocolName(protocol)
                    + ", NETLINK_ADD_MEMBERSHIP, group=" + groupId + ")", errno,
                    errno == Errno.EPERM ? "joining a netlink group needs root/CAP_NET_ADMIN" : null);
        }
    }

    /**
     * Leaves a multicast group ({@code NETLINK_DROP_MEMBERSHIP}).
     *
     * @param groupId multicast group id
     * @throws NetlinkException on failure (errno from setsockopt)
     */
    public void leaveGroup(int groupId) throws NetlinkException {
        int fd = checkOpen();
        ctlOpt.set(U32, 0, groupId);
        if (Libc.setsockopt(ctlState, fd, Netlink.SOL_NETLINK, Netlink.NETLINK_DROP_MEMBERSHIP, ctlOpt, 4) < 0) {
            throw new NetlinkException("setsockopt(" + Netlink.protocolName(protocol)
                    + ", NETLINK_DROP_MEMBERSHIP, group=" + groupId + ")", Libc.errno(ctlState), null);
        }
    }

    /**
     * The local port id, read with {@code getsockname} (0 if the socket is not bound yet).
     *
     * @return nl_pid as a u32 in an int
     * @throws NetlinkException on failure (EBADF when closed)
     */
    public int portId() throws NetlinkException {
        int fd = checkOpen();
        ctlAddr.fill((byte) 0);
        ctlLen.set(U32, 0, Netlink.SOCKADDR_NL_SIZE);
        if (Libc.getsockname(ctlState, fd, ctlAddr, ctlLen) < 0) {
            throw new NetlinkException("getsockname(" + Netlink.protocolName(protocol) + ")", Libc.errno(ctlState),
                    null);
        }
        return ctlAddr.get(U32, Netlink.NL_PID_OFFSET);
    }

    /**
     * Sets the receive buffer. Tries {@code SO_RCVBUFFORCE} first (root/CAP_NET_ADMIN, ignores
     * {@code net.core.rmem_max}) and falls back to {@code SO_RCVBUF} (capped at rmem_max) on EPERM. The kernel
     * doubles the value for bookkeeping; see {@link #receiveBufferSize()}.
     *
     * @param bytes requested size in bytes (&gt; 0)
     * @throws NetlinkException when both options fail
     */
    public void setReceiveBufferSize(int bytes) throws NetlinkException {
        int fd = checkOpen();
        ctlOpt.set(U32, 0, bytes);
        if (Libc.setsockopt(ctlState, fd, Libc.SOL_SOCKET, Libc.SO_RCVBUFFORCE, ctlOpt, 4) == 0) {
            return;
        }
        if (Libc.setsockopt(ctlState, fd, Libc.SOL_SOCKET, Libc.SO_RCVBUF, ctlOpt, 4) < 0) {
            throw new NetlinkException("setsockopt(SO_RCVBUF, " + bytes + ")", Libc.errno(ctlState), null);
        }
    }

    /**
     * The effective receive buffer ({@code getsockopt(SO_RCVBUF)}), in bytes: twice the requested size, capped.
     *
     * @throws NetlinkException on failure
     */
    public int receiveBufferSize() throws NetlinkException {
        int fd = checkOpen();
        ctlLen.set(U32, 0, 4);
        if (Libc.getsockopt(ctlState, fd, Libc.SOL_SOCKET, Libc.SO_RCVBUF, ctlOpt, ctlLen) < 0) {
            throw new NetlinkException("getsockopt(SO_RCVBUF)", Libc.errno(ctlState), null);
        }
        return ctlOpt.get(U32, 0);
    }

    /**
     * Sets {@code SO_RCVTIMEO} (struct timeval, microsecond resolution): a blocking {@link #receive(MemorySegment)}
     * returns 0 after this long without a message.
     *
     * @param timeout the timeout; {@code null} or zero means block forever; sub-microsecond positive values round
     *                up to 1 µs
     * @throws NetlinkException on failure
     */
    public void setReceiveTimeout(Duration timeout) throws NetlinkException {
        long sec = 0;
        long usec = 0;
        if (timeout != null && !timeout.isZero() && !timeout.isNegative()) {
            sec = timeout.getSeconds();
            usec = (timeout.getNano() + 999) / 1000;
            if (usec >= 1_000_000) {
                sec++;
                usec -= 1_000_000;
            }
        }
        setReceiveTimeoutMicros(sec, usec);
        rcvTimeoutNanos = -1;
    }

    void setReceiveTimeoutMicros(long sec, long usec) throws NetlinkException {
        int fd = checkOpen();
        ctlOpt.set(ValueLayout.JAVA_LONG, 0, sec);
        ctlOpt.set(ValueLayout.JAVA_LONG, 8, usec);
        if (Libc.setsockopt(ctlState, fd, Libc.SOL_SOCKET, Libc.SO_RCVTIMEO, ctlOpt, 16) < 0) {
            throw new NetlinkException("setsockopt(SO_RCVTIMEO, " + sec + "s " + usec + "us)",
                    Libc.errno(ctlState), null);
        }
    }

    /**
     * Sends one datagram (one or more netlink messages) with {@code sendto}.
     *
     * <p>For a multicast send ({@code dstGroupsMask != 0}) an ECONNREFUSED result counts as sent: the kernel also
     * unicasts to {@code dstPortId} (usually 0) after delivering to the group, and on NETLINK_USERSOCK nobody owns
     * port 0 (spec §3 and "measured facts").
     *
     * @param msg           the bytes; must be a native segment
     * @param length        number of bytes of {@code msg} to send
     * @param dstPortId     destination port id (0 = kernel / nobody on USERSOCK)
     * @param dstGroupsMask destination multicast groups bitmask, 0 for a unicast
     * @return {@code length}
     * @throws NetlinkException e.g. ECONNREFUSED (unicast to a port nobody owns), EAGAIN (receiver full), EPERM
     */
    public int send(MemorySegment msg, int length, int dstPortId, int dstGroupsMask) throws NetlinkException {
        int r = trySend(msg, length, dstPortId, dstGroupsMask, 0);
        if (r < 0) {
            throw sendError(-r, length, dstPortId, dstGroupsMask);
        }
        return r;
    }

    /**
     * Allocation-free send for hot paths: like {@link #send(MemorySegment, int, int, int)} but returns the negated
     * errno instead of throwing.
     *
     * @param msg           the bytes (native segment)
     * @param length        number of bytes to send
     * @param dstPortId     destination port id
     * @param dstGroupsMask destination groups bitmask, 0 for unicast
     * @param flags {@code sendto} flags, e.g. {@link Netlink#MSG_DONTWAIT} so a full unicast receiver yields
     *              {@code -EAGAIN} instead of blocking
     * @return bytes sent ({@code length}), or {@code -errno} (never ECONNREFUSED for a multicast)
     */
    public int trySend(MemorySegment msg, int length, int dstPortId, int dstGroupsMask, int flags) {
        int fd = this.fd;
        if (fd < 0) {
            return -Errno.EBADF;
        }
        if (dstPortId != sendPid || dstGroupsMask != sendGroups) {
            sendAddr.set(U32, Netlink.NL_PID_OFFSET, dstPortId);
            sendAddr.set(U32, Netlink.NL_GROUPS_OFFSET, dstGroupsMask);
            sendPid = dstPortId;
            sendGroups = dstGroupsMask;
        }
        while (true) {
            long n = Libc.sendto(sendState, fd, msg, length, flags, sendAddr, Netlink.SOCKADDR_NL_SIZE);
            if (n >= 0) {
                return (int) n;
            }
            int errno = Libc.errno(sendState);
            if (errno == Errno.EINTR) {
                continue;
            }
            if (errno == Errno.ECONNREFUSED && dstGroupsMask != 0) {
                return length;
            }
            return -errno;
        }
    }

    /** Builds the exception for a failed send (error path only). */
    NetlinkException sendError(int errno, int length, int dstPortId, int dstGroupsMask) {
        String hint = switch (errno) {
            case Errno.ECONNREFUSED -> "no socket is bound to netlink port id " + Integer.toUnsignedString(dstPortId);
            case Errno.EPERM -> "sending to this netlink group needs root/CAP_NET_ADMIN";
            case Errno.EAGAIN -> "the receiver's buffer is full";
            default -> null;
        };
        return new NetlinkException("sendto(" + Netlink.protocolName(protocol) + ", " + length + " bytes, pid="
                + Integer.toUnsignedString(dstPortId) + ", groups=0x" + Integer.toHexString(dstGroupsMask) + ")",
                errno, hint);
    }

    /**
     * Receives one datagram into {@code buf} ({@code recv}; blocks up to the {@link #setReceiveTimeout} timeout).
     * A datagram larger than {@code buf} is truncated to it (counted in {@link #truncatedDatagrams()}).
     *
     * @param buf native segment to fill, from offset 0
     * @return bytes stored in {@code buf}, or 0 on timeout (EAGAIN/EWOULDBLOCK)
     * @throws NetlinkOverrunException ENOBUFS: the receive buffer overran and messages were lost
     * @throws NetlinkException        any other errno (EBADF, ...)
     */
    public int receive(MemorySegment buf) throws NetlinkException {
        return receive(buf, 0);
    }

    /**
     * Like {@link #receive(MemorySegment)} with {@code recv} flags, e.g. {@link Netlink#MSG_DONTWAIT} to return 0 at
     * once when nothing is queued.
     *
     * @param buf   native segment to fill from offset 0
     * @param flags {@code recv} flags
     * @return bytes stored, or 0 on timeout / nothing queued
     * @throws NetlinkOverrunException ENOBUFS (receive-buffer overrun)
     * @throws NetlinkException        any other errno
     */
    public int receive(MemorySegment buf, int flags) throws NetlinkException {
        int r = tryReceive(buf, flags);
        if (r < 0) {
            int errno = -r;
            String call = "recv(" + Netlink.protocolName(protocol) + ", " + buf.byteSize() + " bytes)";
            if (errno == Errno.ENOBUFS) {
                throw new NetlinkOverrunException(call);
            }
            throw new NetlinkException(call, errno, null);
        }
        return r;
    }

    /**
     * Allocation-free receive: like {@link #receive(MemorySegment, int)} but returns {@code -errno} (e.g.
     * {@code -ENOBUFS}) instead of throwing.
     *
     * @param buf   native segment to fill from offset 0
     * @param flags {@code recv} flags
     * @return bytes stored (≤ {@code buf.byteSize()}), 0 on timeout / nothing queued, or {@code -errno}
     */
    public int tryReceive(MemorySegment buf, int flags) {
        int fd = this.fd;
        if (fd < 0) {
            return -Errno.EBADF;
        }
        long cap = buf.byteSize();
        while (true) {
            // MSG_TRUNC: netlink returns the real datagram length even when it was cut to fit buf.
            long n = Libc.recv(recvState, fd, buf, cap, flags | Libc.MSG_TRUNC);
            if (n >= 0) {
                if (n > cap) {
                    truncatedDatagrams++;
                    return (int) cap;
                }
                return (int) n;
            }
            int errno = Libc.errno(recvState);
            if (errno == Errno.EINTR) {
                continue;
            }
            if (errno == Errno.EAGAIN) {
                return 0;
            }
            return -errno;
        }
    }

    /**
     * Allocation-free receive with a per-call timeout, for polling loops: waits up to {@code timeout} for one
     * datagram. Zero (or negative) does not wait ({@code MSG_DONTWAIT}); otherwise {@code SO_RCVTIMEO} is set, only
     * when the value differs from the previous call's.
     *
     * @param buf     native segment to fill from offset 0
     * @param timeout how long to wait (microsecond resolution)
     * @return bytes stored, 0 on timeout, or {@code -errno} (e.g. {@code -ENOBUFS} on an overrun)
     */
    public int tryReceive(MemorySegment buf, Duration timeout) {
        long nanos = timeout.isNegative() ? 0 : saturatedNanos(timeout);
        if (nanos == 0) {
            return tryReceive(buf, Libc.MSG_DONTWAIT);
        }
        if (nanos != rcvTimeoutNanos) {
            long usec = (nanos + 999) / 1000;
            try {
                setReceiveTimeoutMicros(usec / 1_000_000, usec % 1_000_000);
            } catch (NetlinkException e) {
                return -e.errno();
            }
            rcvTimeoutNanos = nanos;
        }
        return tryReceive(buf, 0);
    }

    private static long saturatedNanos(Duration d) {
        return d.getSeconds() >= Long.MAX_VALUE / 1_000_000_000L - 1 ? Long.MAX_VALUE / 2 : d.toNanos();
    }

    /** Datagrams that were longer than the receive buffer passed in and got cut. */
    public long truncatedDatagrams() {
        return truncatedDatagrams;
    }

    /** Whether {@link #close()} has run. */
    public boolean isClosed() {
        return fd < 0;
    }

    /** Closes the descriptor; idempotent. Never throws. */
    @Override
    public void close() {
        int fd = this.fd;
        if (fd >= 0) {
            this.fd = -1;
            Libc.close(ctlState, fd);
        }
    }

    private int checkOpen() throws NetlinkException {
        int fd = this.fd;
        if (fd < 0) {
            throw new NetlinkException(Netlink.protocolName(protocol) + " socket", Errno.EBADF, "the socket is closed");
        }
        return fd;
    }

    @Override
    public String toString() {
        return "NetlinkSocket[" + Netlink.protocolName(protocol) + ", fd=" + fd + "]";
    }
}
