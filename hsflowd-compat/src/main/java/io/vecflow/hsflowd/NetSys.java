package io.vecflow.hsflowd;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Downcall handles to the libc calls behind collector sockets and network namespaces (glibc, Linux x86_64),
 * through {@code java.lang.foreign} only: {@code open}, {@code close}, {@code setns}, {@code socket},
 * {@code setsockopt}, {@code getsockname}, {@code sendto}.
 *
 * <p>Every call takes a caller-owned call-state segment ({@link #CALL_STATE}) into which the linker captures
 * {@code errno} right after the call ({@code Linker.Option.captureCallState("errno")}), so the JVM cannot clobber it
 * and the send path allocates nothing. Return values follow libc: {@code -1} on failure, then read
 * {@link #errno(MemorySegment)}.
 */
@SuppressWarnings("restricted")
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

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    /** Layout of the call-state segment every call below writes errno into. */
    static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE = Linker.Option.captureCallState("errno");
    private static final ValueLayout.OfInt C_INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong C_LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout PTR = ValueLayout.ADDRESS;

    // int open(const char *path, int flags)
    private static final MethodHandle OPEN = handle("open", FunctionDescriptor.of(C_INT, PTR, C_INT));
    // int close(int fd)
    private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(C_INT, C_INT));
    // int setns(int fd, int nstype)
    private static final MethodHandle SETNS = handle("setns", FunctionDescriptor.of(C_INT, C_INT, C_INT));
    // int socket(int domain, int type, int protocol)
    private static final MethodHandle SOCKET = handle("socket", FunctionDescriptor.of(C_INT, C_INT, C_INT, C_INT));
    // int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
    private static final MethodHandle SETSOCKOPT =
            handle("setsockopt", FunctionDescriptor.of(C_INT, C_INT, C_INT, C_INT, PTR, C_INT));
    // int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
    private static final MethodHandle GETSOCKNAME =
            handle("getsockname", FunctionDescriptor.of(C_INT, C_INT, PTR, PTR));
    // ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *dst, socklen_t dlen)
    private static final MethodHandle SENDTO =
            handle("sendto", FunctionDescriptor.of(C_LONG, C_INT, PTR, C_LONG, C_INT, PTR, C_INT));

    private static MethodHandle handle(String name, FunctionDescriptor fd) {
        MemorySegment sym = LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc symbol not found: " + name));
        return LINKER.downcallHandle(sym, fd, CAPTURE);
    }

    /** errno captured by the last call made with {@code state}. */
    static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    static int open(MemorySegment state, MemorySegment path, int flags) {
        try {
            return (int) OPEN.invokeExact(state, path, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int close(MemorySegment state, int fd) {
        try {
            return (int) CLOSE.invokeExact(state, fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int setns(MemorySegment state, int fd, int nstype) {
        try {
            return (int) SETNS.invokeExact(state, fd, nstype);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int socket(MemorySegment state, int domain, int type, int protocol) {
        try {
            return (int) SOCKET.invokeExact(state, domain, type, protocol);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int setsockopt(MemorySegment state, int fd, int level, int name, MemorySegment val, int len) {
        try {
            return (int) SETSOCKOPT.invokeExact(state, fd, level, name, val, len);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int getsockname(MemorySegment state, int fd, MemorySegment addr, MemorySegment len) {
        try {
            return (int) GETSOCKNAME.invokeExact(state, fd, addr, len);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long sendto(MemorySegment state, int fd, MemorySegment buf, long len, int flags, MemorySegment dst,
            int dlen) {
        try {
            return (long) SENDTO.invokeExact(state, fd, buf, len, flags, dst, dlen);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("native call failed", t);
    }
}
