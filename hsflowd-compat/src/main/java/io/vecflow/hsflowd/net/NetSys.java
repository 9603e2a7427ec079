package io.vecflow.hsflowd.net;

import io.vecflow.common.Libc;

/**
 * Constants of the collector sockets (glibc, Linux x86_64). The calls themselves ({@code socket}, {@code setsockopt},
 * {@code getsockname}, {@code sendto}, {@code close}; {@code open} and {@code setns} for network namespaces) and the
 * errno capture are {@link Libc}'s.
 */
final class NetSys {
    private NetSys() {}

    // <sys/socket.h> (asm-generic/socket.h), <netinet/in.h>, x86_64 values
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int SOCK_DGRAM = 2;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int IPPROTO_UDP = 17;
    static final int SOL_SOCKET = 1;
    static final int SO_BINDTODEVICE = 25;
    static final int MSG_DONTWAIT = 0x40;
    /** sizeof(struct sockaddr_in) = 16, sizeof(struct sockaddr_in6) = 28 (linux/in.h, linux/in6.h). */
    static final int SOCKADDR_IN = 16;
    static final int SOCKADDR_IN6 = 28;
}
