package io.vecflow.hsflowd;

import io.vecflow.netlink.Libc;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Constants and the libc calls behind collector sockets and network namespaces (glibc, Linux x86_64) that
 * {@link Libc} does not already offer: {@code open} and {@code setns}, through {@code java.lang.foreign} only. The
 * socket calls ({@code socket}, {@code setsockopt}, {@code getsockname}, {@code sendto}, {@code close}) and the errno
 * capture are {@link Libc}'s.
 *
 * <p>Every call takes a caller-owned call-state segment ({@link Libc#newCallState}) into which the linker captures
 * {@code errno} right after the call, so the JVM cannot clobber it. Return values follow libc: {@code -1} on
 * failure, then read {@link Libc#errno(MemorySegment)}.
 */
final class NetSys {
    private NetSys() {}

    // <fcntl.h>, <sched.h> (linux/sched.h), <sys/socket.h> (asm-generic/socket.h), <netinet/in.h>, x86_64 values
    static final int O_RDONLY = 0;
    static final int O_CLOEXEC = 0x80000;
    static final int CLONE_NEWNET = 0x40000000;
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

    private static final ValueLayout.OfInt C_INT = ValueLayout.JAVA_INT;
    private static final ValueLayout PTR = ValueLayout.ADDRESS;

    // int open(const char *path, int flags)
    private static final MethodHandle OPEN = Libc.downcall("open", FunctionDescriptor.of(C_INT, PTR, C_INT));
    // int setns(int fd, int nstype)
    private static final MethodHandle SETNS = Libc.downcall("setns", FunctionDescriptor.of(C_INT, C_INT, C_INT));

    /** open(2) of {@code path} (a NUL-terminated C string); an fd, or {@code -1} (errno in {@code state}). */
    static int open(MemorySegment state, MemorySegment path, int flags) {
        try {
            return (int) OPEN.invokeExact(state, path, flags);
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    /** setns(2) of the calling thread; 0, or {@code -1} (errno in {@code state}). */
    static int setns(MemorySegment state, int fd, int nstype) {
        try {
            return (int) SETNS.invokeExact(state, fd, nstype);
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }
}
