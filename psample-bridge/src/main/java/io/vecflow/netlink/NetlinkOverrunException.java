package io.vecflow.netlink;

import io.vecflow.common.Errno;

/**
 * {@code recv} on a netlink socket failed with ENOBUFS: the socket's receive buffer overflowed and the kernel dropped
 * one or more messages (multicast delivery never blocks the sender). The socket stays usable; callers count the event
 * (see {@code PsampleSubscriber.overruns()}) and keep reading. Raise the buffer with
 * {@link NetlinkSocket#setReceiveBufferSize(int)}.
 *
 * <p>Created without a stack trace, so counting a burst of overruns stays cheap.
 */
public final class NetlinkOverrunException extends NetlinkException {
    private static final long serialVersionUID = 1L;

    NetlinkOverrunException(String call) {
        super(call, Errno.ENOBUFS, "receive buffer overrun: messages were dropped by the kernel; "
                + "raise SO_RCVBUF or read faster");
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
