package io.vecflow.hsflowd.net;

import io.vecflow.common.Errno;
import io.vecflow.common.Libc;
import io.vecflow.common.NetNamespace;
import io.vecflow.hsflowd.config.HsflowdConfig;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The UDP socket of one {@code collector { ip udpport dev namespace }} that names a device or a network namespace
 * (collectors with neither share the agent's own DatagramChannel). Opened as hsflowd does (host-sflow
 * {@code src/Linux/hsflowd.c} openCollectorSocket), over {@code java.lang.foreign}:
 * <ul>
 *   <li>{@code namespace = NAME}: the socket is created inside network namespace NAME ({@link NetNamespace}):
 *       it sends from there — that namespace's routes, addresses and devices — while the agent stays in its own.</li>
 *   <li>{@code dev = DEV}: {@code setsockopt(SOL_SOCKET, SO_BINDTODEVICE, "DEV")} (socket(7)): datagrams leave
 *       through DEV (a VRF device: routed in that VRF's table; any other device: only routes through DEV are
 *       used, else the collector is taken to be on DEV's link). With a namespace, DEV is a device of that namespace.
 *       hsflowd uses {@code IP_UNICAST_IF}/{@code IPV6_UNICAST_IF} with the ifIndex instead, and leaves the socket
 *       unbound when the device is unknown; SO_BINDTODEVICE is what the kernel's VRF documentation asks of
 *       applications (Documentation/networking/vrf.rst) and fails at once for an unknown device (ENODEV).</li>
 * </ul>
 * Both may need root (setns: CAP_SYS_ADMIN; SO_BINDTODEVICE: CAP_NET_RAW before Linux 5.7, none since for a socket
 * not yet bound to a device), so the agent opens these sockets in its constructor, before the privilege drop; a socket
 * keeps its namespace and device binding afterwards. The socket is not re-opened after errors (that would need root
 * again): a failed send is counted and the next one is tried.
 *
 * <p>Send path: {@link #send} copies the datagram into a native buffer allocated once and calls {@code sendto}
 * with a socket address built once, with {@code MSG_DONTWAIT} (a full socket buffer drops the datagram instead of
 * stalling the sampling thread); it allocates nothing. Not thread-safe: the agent calls it under its lock.
 */
public final class CollectorSocket implements AutoCloseable {
    /** in_port_t: network byte order. */
    private static final ValueLayout.OfShort PORT = ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);
    private final Arena arena;
    private final MemorySegment state;
    private final MemorySegment buffer;
    private final MemorySegment address;
    private final int addressLength;
    private final InetSocketAddress destination;
    private final String description;
    private int fd;
    private int lastErrno;

    private CollectorSocket(Arena arena, int fd, InetSocketAddress destination, int maxDatagramBytes,
            String description) {
        this.arena = arena;
        this.fd = fd;
        this.destination = destination;
        this.description = description;
        this.state = Libc.newCallState(arena);
        this.buffer = arena.allocate(maxDatagramBytes, 8);
        InetAddress a = destination.getAddress();
        this.addressLength = a instanceof Inet4Address ? NetSys.SOCKADDR_IN : NetSys.SOCKADDR_IN6;
        this.address = arena.allocate(NetSys.SOCKADDR_IN6, 8); // zeroed
        sockaddr(address, a, destination.getPort());
    }

    /**
     * Opens the socket of one collector (class comment). Call while still root.
     *
     * @param collector        the collector block (its {@code dev} and {@code namespace}; {@code line} and
     *                         {@code toString()} name it in errors)
     * @param destination      the collector's resolved address and UDP port
     * @param maxDatagramBytes capacity of the native send buffer in bytes (the agent's datagramBytes); longer
     *                         datagrams are refused by {@link #send}
     * @return the open socket
     * @throws IOException naming the collector (line and {@code ip:port dev X netns Y}) and the reason: no such
     *         network namespace, setns refused (not root), no such device in the namespace (ENODEV),
     *         SO_BINDTODEVICE refused (EPERM: not root / no CAP_NET_RAW), socket() failed
     * @throws InterruptedException if interrupted while the namespace thread opens the socket
     */
    public static CollectorSocket open(HsflowdConfig.Collector collector, InetSocketAddress destination,
            int maxDatagramBytes) throws IOException, InterruptedException {
        if (destination.isUnresolved()) {
            throw new IllegalArgumentException("collector address " + destination + " is not resolved");
        }
        if (maxDatagramBytes < 1 || maxDatagramBytes > 65_535) {
            throw new IllegalArgumentException("maxDatagramBytes " + maxDatagramBytes + " is outside 1..65535");
        }
        String what = name(collector);
        int family = destination.getAddress() instanceof Inet4Address ? NetSys.AF_INET : NetSys.AF_INET6;
        String dev = collector.dev;
        String ns = collector.namespace;
        int fd;
        try {
            fd = ns == null ? openHere(family, dev, null) : NetNamespace.callIn(ns, () -> openHere(family, dev, ns));
        } catch (IOException e) {
            throw new IOException(what + ": " + e.getMessage(), e);
        }
        Arena arena = Arena.ofShared();
        try {
            return new CollectorSocket(arena, fd, destination, maxDatagramBytes, what);
        } catch (RuntimeException | Error e) {
            arena.close();
            try (Arena a = Arena.ofConfined()) {
                Libc.close(Libc.newCallState(a), fd);
            }
            throw e;
        }
    }

    /** "collector at line N (ip:port dev X netns Y)", or without the line when built in code. */
    static String name(HsflowdConfig.Collector c) {
        return "collector " + (c.line > 0 ? "at line " + c.line + " (" + c + ")" : c.toString());
    }

    /** Creates the socket in the calling thread's namespace and binds it to {@code dev}; returns the descriptor. */
    private static int openHere(int family, String dev, String ns) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = Libc.newCallState(a);
            int fd = Libc.socket(st, family, NetSys.SOCK_DGRAM | NetSys.SOCK_CLOEXEC, NetSys.IPPROTO_UDP);
            if (fd < 0) {
                throw new IOException("socket(" + (family == NetSys.AF_INET ? "AF_INET" : "AF_INET6")
                        + ", SOCK_DGRAM) failed: " + Errno.describe(Libc.errno(st)));
            }
            if (dev != null) {
                byte[] name = dev.getBytes(StandardCharsets.UTF_8);
                MemorySegment v = a.allocate(name.length + 1L); // NUL-terminated, as the kernel copies IFNAMSIZ max
                MemorySegment.copy(name, 0, v, ValueLayout.JAVA_BYTE, 0, name.length);
                if (Libc.setsockopt(st, fd, NetSys.SOL_SOCKET, NetSys.SO_BINDTODEVICE, v, name.length + 1) != 0) {
                    int e = Libc.errno(st);
                    Libc.close(st, fd);
                    String where = ns == null ? "this network namespace" : "network namespace '" + ns + "'";
                    throw new IOException(e == Errno.ENODEV
                            ? "no such device '" + dev + "' in " + where + " (SO_BINDTODEVICE: ENODEV)"
                            : "SO_BINDTODEVICE '" + dev + "' failed: " + Errno.describe(e) + (e == Errno.EPERM
                                    ? ": binding a socket to a device needs CAP_NET_RAW on this kernel; open "
                                    + "collector sockets before dropping privileges" : ""));
                }
            }
            return fd;
        }
    }

    private static void sockaddr(MemorySegment sa, InetAddress a, int port) {
        byte[] ip = a.getAddress();
        if (a instanceof Inet4Address) {
            // struct sockaddr_in { sa_family_t sin_family; in_port_t sin_port (BE); struct in_addr sin_addr; pad[8] }
            sa.set(ValueLayout.JAVA_SHORT, 0, (short) NetSys.AF_INET);
            sa.set(PORT, 2, (short) port);
            MemorySegment.copy(ip, 0, sa, ValueLayout.JAVA_BYTE, 4, 4);
        } else {
            // struct sockaddr_in6 { family; port (BE); u32 sin6_flowinfo; u8 sin6_addr[16]; u32 sin6_scope_id }
            sa.set(ValueLayout.JAVA_SHORT, 0, (short) NetSys.AF_INET6);
            sa.set(PORT, 2, (short) port);
            MemorySegment.copy(ip, 0, sa, ValueLayout.JAVA_BYTE, 8, 16);
            sa.set(ValueLayout.JAVA_INT_UNALIGNED, 24, ((Inet6Address) a).getScopeId());
        }
    }

    /**
     * Sends one datagram to the collector. Allocates nothing.
     *
     * @param data array holding the datagram from index 0
     * @param length datagram length in bytes
     * @return true if the kernel took all {@code length} bytes; false on an error (see {@link #lastErrno()}), on a
     *         datagram longer than the native buffer (lastErrno EMSGSIZE), or after {@link #close()}
     */
    public boolean send(byte[] data, int length) {
        if (fd < 0) {
            lastErrno = Errno.EBADF;
            return false;
        }
        if (length < 0 || length > buffer.byteSize() || length > data.length) {
            lastErrno = Errno.EMSGSIZE;
            return false;
        }
        MemorySegment.copy(data, 0, buffer, ValueLayout.JAVA_BYTE, 0, length);
        long n = Libc.sendto(state, fd, buffer, length, NetSys.MSG_DONTWAIT, address, addressLength);
        if (n == length) {
            return true;
        }
        lastErrno = n < 0 ? Libc.errno(state) : 0;
        return false;
    }

    /** @return errno of the last failed {@link #send} (0 if none failed, or the kernel took fewer bytes). */
    public int lastErrno() {
        return lastErrno;
    }

    /** @return the collector address and port datagrams go to. */
    public InetSocketAddress destination() {
        return destination;
    }

    /** @return "collector at line N (ip:port dev X netns Y)", as in error messages. */
    @Override
    public String toString() {
        return description;
    }

    /**
     * @return the local UDP port of the socket ({@code getsockname}); 0 before the first send (the kernel binds a
     *         UDP socket to an ephemeral port when it first sends) or after close
     */
    public int localPort() {
        if (fd < 0) {
            return 0;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sa = a.allocate(NetSys.SOCKADDR_IN6, 8);
            MemorySegment len = a.allocate(ValueLayout.JAVA_INT);
            len.set(ValueLayout.JAVA_INT, 0, NetSys.SOCKADDR_IN6);
            if (Libc.getsockname(Libc.newCallState(a), fd, sa, len) != 0) {
                return 0;
            }
            return Short.toUnsignedInt(sa.get(PORT, 2));
        }
    }

    /** Closes the socket and frees the native buffers; idempotent. */
    @Override
    public void close() {
        if (fd < 0) {
            return;
        }
        Libc.close(state, fd);
        fd = -1;
        arena.close();
    }
}
