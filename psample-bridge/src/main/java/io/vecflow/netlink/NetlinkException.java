package io.vecflow.netlink;

import io.vecflow.common.Errno;
import java.io.IOException;

/**
 * A failed netlink system call or a kernel-reported netlink error (NLMSG_ERROR).
 *
 * <p>The message has the form {@code call: ENAME (strerror text) — hint}, e.g.
 * {@code bind(NETLINK_USERSOCK, groups=0x10000000): EPERM (Operation not permitted) — joining a netlink group needs
 * root/CAP_NET_ADMIN}.
 */
public class NetlinkException extends IOException {
    private static final long serialVersionUID = 1L;

    private final int errno;
    private final String call;

    /**
     * Creates the exception; the message is {@code call: ENAME (strerror) — hint}.
     *
     * @param call  the call that failed, with its relevant arguments (e.g. {@code "setsockopt(SO_RCVBUF, 8388608)"})
     * @param errno positive errno value (see {@link Errno})
     * @param hint  what to do about it, or {@code null}
     */
    public NetlinkException(String call, int errno, String hint) {
        super(format(call, errno, hint));
        this.errno = errno;
        this.call = call;
    }

    /**
     * For subclasses that build their own message.
     *
     * @param call     the call that failed
     * @param errno    positive errno value
     * @param message  the complete message
     * @param verbatim marker to select this constructor; ignored
     */
    protected NetlinkException(String call, int errno, String message, boolean verbatim) {
        super(message);
        this.errno = errno;
        this.call = call;
    }

    /** Positive errno value of the failure (e.g. {@link Errno#ENOENT}). */
    public int errno() {
        return errno;
    }

    /** The call that failed, with its arguments, as shown in the message. */
    public String call() {
        return call;
    }

    /** Symbolic errno name, e.g. {@code "ENOBUFS"}. */
    public String errnoName() {
        return Errno.name(errno);
    }

    static String format(String call, int errno, String hint) {
        String base = call + ": " + Errno.describe(errno);
        return hint == null || hint.isEmpty() ? base : base + " \u2014 " + hint;
    }
}
