package io.vecflow.common;

/**
 * Linux errno values (x86_64 / asm-generic numbering, {@code include/uapi/asm-generic/errno-base.h} and
 * {@code errno.h}) that vecflow's FFM code (netlink, AF_PACKET, network namespaces) reports, with their symbolic
 * names.
 *
 * <p>Only the names are kept here; the human text comes from libc {@code strerror} at error time
 * (see {@link #describe(int)}).
 */
public final class Errno {
    private Errno() {}

    /** Operation not permitted (joining a netlink group or SO_RCVBUFFORCE without CAP_NET_ADMIN). */
    public static final int EPERM = 1;
    /** No such file or directory (generic netlink: unknown family). */
    public static final int ENOENT = 2;
    /** No such process. */
    public static final int ESRCH = 3;
    /** Interrupted system call. */
    public static final int EINTR = 4;
    /** I/O error. */
    public static final int EIO = 5;
    /** Bad file descriptor. */
    public static final int EBADF = 9;
    /** Resource temporarily unavailable; same value as EWOULDBLOCK (receive timeout, MSG_DONTWAIT). */
    public static final int EAGAIN = 11;
    /** Alias of {@link #EAGAIN}. */
    public static final int EWOULDBLOCK = EAGAIN;
    /** Cannot allocate memory. */
    public static final int ENOMEM = 12;
    /** Permission denied. */
    public static final int EACCES = 13;
    /** Bad address. */
    public static final int EFAULT = 14;
    /** Device or resource busy. */
    public static final int EBUSY = 16;
    /** File exists. */
    public static final int EEXIST = 17;
    /** No such device. */
    public static final int ENODEV = 19;
    /** Invalid argument. */
    public static final int EINVAL = 22;
    /** Too many open files in system. */
    public static final int ENFILE = 23;
    /** Too many open files. */
    public static final int EMFILE = 24;
    /** No space left on device. */
    public static final int ENOSPC = 28;
    /** Numerical result out of range. */
    public static final int ERANGE = 34;
    /** Bad message. */
    public static final int EBADMSG = 74;
    /** Socket operation on non-socket. */
    public static final int ENOTSOCK = 88;
    /** Message too long. */
    public static final int EMSGSIZE = 90;
    /** Protocol not available (unknown socket option). */
    public static final int ENOPROTOOPT = 92;
    /** Protocol not supported (netlink protocol not built into this kernel). */
    public static final int EPROTONOSUPPORT = 93;
    /** Operation not supported. */
    public static final int EOPNOTSUPP = 95;
    /** Address family not supported by protocol. */
    public static final int EAFNOSUPPORT = 97;
    /** Address already in use (netlink port id taken). */
    public static final int EADDRINUSE = 98;
    /** No buffer space available: on a netlink receive, the socket's receive buffer overran and messages were lost. */
    public static final int ENOBUFS = 105;
    /** Connection timed out. */
    public static final int ETIMEDOUT = 110;
    /**
     * Connection refused: a netlink send to a port id with no socket. A multicast send on NETLINK_USERSOCK also
     * returns it (the kernel additionally unicasts to port 0) even though the group got the message.
     */
    public static final int ECONNREFUSED = 111;

    /**
     * Symbolic name of an errno value.
     *
     * @param errno a positive errno value
     * @return e.g. {@code "ENOBUFS"}, or {@code "errno 123"} for values not listed in this class
     */
    public static String name(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case ESRCH -> "ESRCH";
            case EINTR -> "EINTR";
            case EIO -> "EIO";
            case EBADF -> "EBADF";
            case EAGAIN -> "EAGAIN";
            case ENOMEM -> "ENOMEM";
            case EACCES -> "EACCES";
            case EFAULT -> "EFAULT";
            case EBUSY -> "EBUSY";
            case EEXIST -> "EEXIST";
            case ENODEV -> "ENODEV";
            case EINVAL -> "EINVAL";
            case ENFILE -> "ENFILE";
            case EMFILE -> "EMFILE";
            case ENOSPC -> "ENOSPC";
            case ERANGE -> "ERANGE";
            case EBADMSG -> "EBADMSG";
            case ENOTSOCK -> "ENOTSOCK";
            case EMSGSIZE -> "EMSGSIZE";
            case ENOPROTOOPT -> "ENOPROTOOPT";
            case EPROTONOSUPPORT -> "EPROTONOSUPPORT";
            case EOPNOTSUPP -> "EOPNOTSUPP";
            case EAFNOSUPPORT -> "EAFNOSUPPORT";
            case EADDRINUSE -> "EADDRINUSE";
            case ENOBUFS -> "ENOBUFS";
            case ETIMEDOUT -> "ETIMEDOUT";
            case ECONNREFUSED -> "ECONNREFUSED";
            default -> "errno " + errno;
        };
    }

    /**
     * Name and libc text of an errno value.
     *
     * @param errno a positive errno value
     * @return e.g. {@code "EPERM (Operation not permitted)"}
     */
    public static String describe(int errno) {
        return name(errno) + " (" + Libc.strerror(errno) + ")";
    }
}
