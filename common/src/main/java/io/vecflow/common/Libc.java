package io.vecflow.common;

import java.lang.foreign.Arena;
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
 * Downcall handles to the libc calls vecflow uses (sockets for netlink and AF_PACKET, network namespaces; glibc,
 * Linux x86_64), through {@code java.lang.foreign} only.
 *
 * <p>Every call that can fail takes a caller-owned "call state" segment (see {@link #newCallState(Arena)}) into
 * which the linker captures {@code errno} right after the call ({@code Linker.Option.captureCallState("errno")}),
 * so no allocation happens on the hot path and errno is not clobbered by the JVM.
 *
 * <p>Return values follow libc: {@code -1} (or {@code -1L}) on failure, then read {@link #errno(MemorySegment)}.
 * Shared by every module's FFM code (psample-bridge's netlink sockets, hsflowd-compat's collector sockets,
 * agent-dataplane's AF_PACKET ports, {@link NetNamespace}, the kernel lab's checks); further calls get theirs from
 * {@link #downcall(String, FunctionDescriptor)}. Socket calls are those of {@code <sys/socket.h>} (socket(2), bind(2),
 * setsockopt(2), getsockopt(2), getsockname(2), sendto(2), recv(2), close(2)); with open(2) and setns(2) for entering
 * network namespaces; the {@code int}/{@code long} results are returned unchanged.
 */
@SuppressWarnings("restricted")
public final class Libc {
    private Libc() {}

    // <sys/socket.h>, <asm-generic/socket.h>; x86_64 values (psample-bridge's netlink sockets)
    /** socket(2) domain: netlink. */
    public static final int AF_NETLINK = 16;
    /** socket(2) type: raw. */
    public static final int SOCK_RAW = 3;
    /** socket(2) type flag: close the fd on execve. */
    public static final int SOCK_CLOEXEC = 0x80000;
    /** setsockopt(2) level: the socket itself. */
    public static final int SOL_SOCKET = 1;
    /** Socket option: receive buffer size (bytes, capped by net.core.rmem_max). */
    public static final int SO_RCVBUF = 8;
    /** Socket option: send buffer size (bytes). */
    public static final int SO_SNDBUF = 7;
    /** Socket option: receive timeout, a struct timeval {long tv_sec; long tv_usec} (16 bytes on x86_64). */
    public static final int SO_RCVTIMEO = 20;
    /** Socket option: receive buffer size above net.core.rmem_max (needs CAP_NET_ADMIN). */
    public static final int SO_RCVBUFFORCE = 33;
    /** send/recv flag: do not block. */
    public static final int MSG_DONTWAIT = 0x40;
    /** recv flag: return the real length of a datagram longer than the buffer. */
    public static final int MSG_TRUNC = 0x20;

    // <fcntl.h> open(2) flags, <linux/sched.h> setns(2) namespace type; x86_64 values
    /** open(2): read only. */
    public static final int O_RDONLY = 0;
    /** open(2): close the fd on execve. */
    public static final int O_CLOEXEC = 0x80000;
    /** setns(2) nstype: a network namespace. */
    public static final int CLONE_NEWNET = 0x40000000;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE = Linker.Option.captureCallState("errno");

    private static final ValueLayout.OfInt C_INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong C_LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout PTR = ValueLayout.ADDRESS;

    // int socket(int domain, int type, int protocol)
    private static final MethodHandle SOCKET = handle("socket", FunctionDescriptor.of(C_INT, C_INT, C_INT, C_INT),
            true);
    // int bind(int fd, const struct sockaddr *addr, socklen_t len)
    private static final MethodHandle BIND = handle("bind", FunctionDescriptor.of(C_INT, C_INT, PTR, C_INT), true);
    // int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
    private static final MethodHandle SETSOCKOPT =
            handle("setsockopt", FunctionDescriptor.of(C_INT, C_INT, C_INT, C_INT, PTR, C_INT), true);
    // int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
    private static final MethodHandle GETSOCKOPT =
            handle("getsockopt", FunctionDescriptor.of(C_INT, C_INT, C_INT, C_INT, PTR, PTR), true);
    // int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
    private static final MethodHandle GETSOCKNAME =
            handle("getsockname", FunctionDescriptor.of(C_INT, C_INT, PTR, PTR), true);
    // ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *dst, socklen_t dlen)
    private static final MethodHandle SENDTO =
            handle("sendto", FunctionDescriptor.of(C_LONG, C_INT, PTR, C_LONG, C_INT, PTR, C_INT), true);
    // ssize_t recv(int fd, void *buf, size_t len, int flags)
    private static final MethodHandle RECV = handle("recv", FunctionDescriptor.of(C_LONG, C_INT, PTR, C_LONG, C_INT),
            true);
    // int close(int fd)
    private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(C_INT, C_INT), true);
    // int open(const char *path, int flags)
    private static final MethodHandle OPEN = handle("open", FunctionDescriptor.of(C_INT, PTR, C_INT), true);
    // int setns(int fd, int nstype)
    private static final MethodHandle SETNS = handle("setns", FunctionDescriptor.of(C_INT, C_INT, C_INT), true);
    // char *strerror_r(int errnum, char *buf, size_t len)  (GNU variant: returns the text pointer)
    private static final MethodHandle STRERROR_R =
            handle("strerror_r", FunctionDescriptor.of(PTR, C_INT, PTR, C_LONG), false);

    /**
     * A downcall handle to libc function {@code name} that captures errno into the call-state segment passed as its
     * first argument (read it with {@link #errno(MemorySegment)}).
     *
     * @throws UnsatisfiedLinkError libc has no such symbol
     */
    public static MethodHandle downcall(String name, FunctionDescriptor fd) {
        return handle(name, fd, true);
    }

    private static MethodHandle handle(String name, FunctionDescriptor fd, boolean captureErrno) {
        MemorySegment sym = LIBC.find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc symbol not found: " + name));
        return captureErrno ? LINKER.downcallHandle(sym, fd, CAPTURE) : LINKER.downcallHandle(sym, fd);
    }

    /** Allocates a segment to receive the captured errno of the calls below (open/setup time: allocates). */
    public static MemorySegment newCallState(Arena arena) {
        return arena.allocate(CALL_STATE);
    }

    /** errno captured by the last call made with {@code state}. */
    public static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** socket(2); {@code -1} on failure (errno in {@code state}). */
    public static int socket(MemorySegment state, int domain, int type, int protocol) {
        try {
            return (int) SOCKET.invokeExact(state, domain, type, protocol);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** bind(2); {@code -1} on failure (errno in {@code state}). */
    public static int bind(MemorySegment state, int fd, MemorySegment addr, int len) {
        try {
            return (int) BIND.invokeExact(state, fd, addr, len);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** setsockopt(2); {@code -1} on failure (errno in {@code state}). */
    public static int setsockopt(MemorySegment state, int fd, int level, int name, MemorySegment val, int len) {
        try {
            return (int) SETSOCKOPT.invokeExact(state, fd, level, name, val, len);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** getsockopt(2); {@code -1} on failure (errno in {@code state}). */
    public static int getsockopt(MemorySegment state, int fd, int level, int name, MemorySegment val,
            MemorySegment len) {
        try {
            return (int) GETSOCKOPT.invokeExact(state, fd, level, name, val, len);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** getsockname(2); {@code -1} on failure (errno in {@code state}). */
    public static int getsockname(MemorySegment state, int fd, MemorySegment addr, MemorySegment len) {
        try {
            return (int) GETSOCKNAME.invokeExact(state, fd, addr, len);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** sendto(2): bytes, or {@code -1} on failure (errno in {@code state}). */
    public static long sendto(MemorySegment state, int fd, MemorySegment buf, long len, int flags, MemorySegment dst,
            int dlen) {
        try {
            return (long) SENDTO.invokeExact(state, fd, buf, len, flags, dst, dlen);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** recv(2): bytes, or {@code -1} on failure (errno in {@code state}). */
    public static long recv(MemorySegment state, int fd, MemorySegment buf, long len, int flags) {
        try {
            return (long) RECV.invokeExact(state, fd, buf, len, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** close(2); {@code -1} on failure (errno in {@code state}). */
    public static int close(MemorySegment state, int fd) {
        try {
            return (int) CLOSE.invokeExact(state, fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * open(2) of {@code path}, a NUL-terminated C string (e.g. a network namespace file {@code /run/netns/NAME});
     * an fd, or {@code -1} on failure (errno in {@code state}).
     */
    public static int open(MemorySegment state, MemorySegment path, int flags) {
        try {
            return (int) OPEN.invokeExact(state, path, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * setns(2): moves the calling thread into the namespace {@code fd} refers to ({@code nstype} e.g.
     * {@link #CLONE_NEWNET}; needs CAP_SYS_ADMIN); 0, or {@code -1} on failure (errno in {@code state}).
     */
    public static int setns(MemorySegment state, int fd, int nstype) {
        try {
            return (int) SETNS.invokeExact(state, fd, nstype);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** libc's text for an errno value, e.g. "Operation not permitted" (error path only: allocates). */
    static String strerror(int errno) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(256);
            MemorySegment text = (MemorySegment) STRERROR_R.invokeExact(errno, buf, 256L);
            if (text.equals(MemorySegment.NULL)) {
                return "Unknown error " + errno;
            }
            return text.reinterpret(1024).getString(0);
        } catch (Throwable t) {
            return "Unknown error " + errno;
        }
    }

    /**
     * What a downcall wrapper throws for {@code t} from {@code invokeExact}: a RuntimeException as it is, an Error
     * rethrown here, anything else wrapped in an IllegalStateException ("native call failed").
     */
    public static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("native call failed", t);
    }
}
