package io.vecflow.hsflowd.net;

import io.vecflow.common.Errno;
import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkAttributes;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkReader;
import io.vecflow.netlink.NetlinkSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the local interface addresses over NETLINK_ROUTE: an RTM_GETLINK dump (ifindex → name, IFF_LOOPBACK,
 * IFLA_LINKINFO kind) joined with an RTM_GETADDR dump (Linux {@code include/uapi/linux/rtnetlink.h},
 * {@code if_addr.h}, {@code if_link.h}). The socket belongs to the network namespace it was created in, so a socket
 * opened inside a namespace reads that namespace's addresses. Control path: allocates. Not thread-safe.
 */
public final class RtnetlinkAddresses implements AutoCloseable {
    static final int NETLINK_ROUTE = 0;
    static final int RTM_NEWLINK = 16;
    static final int RTM_GETLINK = 18;
    static final int RTM_NEWADDR = 20;
    static final int RTM_GETADDR = 22;
    static final int IFLA_IFNAME = 3;
    static final int IFLA_LINKINFO = 18;
    static final int IFLA_INFO_KIND = 1;
    static final int IFA_ADDRESS = 1;
    static final int IFA_LOCAL = 2;
    static final int IFA_FLAGS = 8;
    static final int IFF_LOOPBACK = 0x8;
    static final int IFA_F_DADFAILED = 0x08;
    static final int IFA_F_DEPRECATED = 0x20;
    static final int IFA_F_TENTATIVE = 0x40;
    /** Bound on datagrams read per dump (a dump of thousands of interfaces spans a few hundred). */
    private static final int MAX_DATAGRAMS = 10_000;
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(2);

    private final NetlinkSocket socket;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buf = arena.allocate(64 * 1024, 8);
    private final MemorySegment req = arena.allocate(64, 8);
    private final NetlinkReader reader = new NetlinkReader();
    private final NetlinkAttributes attrs = new NetlinkAttributes();
    private final NetlinkAttributes nested = new NetlinkAttributes();
    private int seq;

    private RtnetlinkAddresses(NetlinkSocket socket) {
        this.socket = socket;
    }

    /**
     * Opens a NETLINK_ROUTE socket in the calling thread's network namespace.
     *
     * @throws NetlinkException if the socket cannot be opened or bound
     */
    public static RtnetlinkAddresses open() throws NetlinkException {
        NetlinkSocket s = NetlinkSocket.open(NETLINK_ROUTE);
        try {
            s.bind(0, 0);
            return new RtnetlinkAddresses(s);
        } catch (NetlinkException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * Dumps links and addresses.
     *
     * @return every address of every interface, in the kernel's dump order
     * @throws NetlinkException on a socket error, a NLMSG_ERROR reply, a malformed reply (EBADMSG, naming field and
     *                          offset), or no complete reply within 2 s
     */
    public List<LocalAddress> read() throws NetlinkException {
        Map<Integer, String> names = new HashMap<>();
        Map<Integer, Boolean> loopback = new HashMap<>();
        Map<Integer, Boolean> vlan = new HashMap<>();
        dump(RTM_GETLINK, 16, (r) -> {
            if (r.type() != RTM_NEWLINK || r.payloadLength() < 16) {
                return;
            }
            long p = r.payloadOffset();
            int index = buf.get(ValueLayout.JAVA_INT_UNALIGNED, p + 4);
            int flags = buf.get(ValueLayout.JAVA_INT_UNALIGNED, p + 8);
            loopback.put(index, (flags & IFF_LOOPBACK) != 0);
            r.attributes(attrs, 16, null);
            while (attrs.next()) {
                if (attrs.type() == IFLA_IFNAME) {
                    names.put(index, attrs.getString());
                } else if (attrs.type() == IFLA_LINKINFO) {
                    attrs.nested(nested, null);
                    while (nested.next()) {
                        if (nested.type() == IFLA_INFO_KIND && nested.getString().equals("vlan")) {
                            vlan.put(index, true);
                        }
                    }
                }
            }
        });
        List<LocalAddress> out = new ArrayList<>();
        dump(RTM_GETADDR, 8, (r) -> {
            if (r.type() != RTM_NEWADDR || r.payloadLength() < 8) {
                return;
            }
            long p = r.payloadOffset();
            int family = Byte.toUnsignedInt(buf.get(ValueLayout.JAVA_BYTE, p));
            int prefix = Byte.toUnsignedInt(buf.get(ValueLayout.JAVA_BYTE, p + 1));
            int flags = Byte.toUnsignedInt(buf.get(ValueLayout.JAVA_BYTE, p + 2));
            int index = buf.get(ValueLayout.JAVA_INT_UNALIGNED, p + 4);
            byte[] address = null;
            byte[] local = null;
            r.attributes(attrs, 8, null);
            while (attrs.next()) {
                switch (attrs.type()) {
                    case IFA_ADDRESS -> address = bytes(attrs);
                    case IFA_LOCAL -> local = bytes(attrs);
                    case IFA_FLAGS -> flags = (int) attrs.getU32();
                    default -> { }
                }
            }
            byte[] a = local != null ? local : address;
            if (a == null || (family == 2 && a.length != 4) || (family == 10 && a.length != 16)) {
                return;
            }
            try {
                boolean usable = (flags & (IFA_F_TENTATIVE | IFA_F_DEPRECATED | IFA_F_DADFAILED)) == 0;
                out.add(new LocalAddress(index, names.getOrDefault(index, "if" + index), InetAddress.getByAddress(a),
                        prefix, loopback.getOrDefault(index, false), vlan.getOrDefault(index, false), usable));
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e); // cannot happen: length checked
            }
        });
        return out;
    }

    private static byte[] bytes(NetlinkAttributes a) {
        byte[] b = new byte[Math.min(a.payloadLength(), 16)];
        MemorySegment.copy(a.segment(), ValueLayout.JAVA_BYTE, a.payloadOffset(), b, 0, b.length);
        return b;
    }

    @FunctionalInterface
    private interface MessageHandler {
        void on(NetlinkReader r) throws NetlinkFormatException;
    }

    private void dump(int type, int familyHeaderBytes, MessageHandler h) throws NetlinkException {
        int s = ++seq;
        int len = Netlink.NLMSG_HDRLEN + familyHeaderBytes;
        req.fill((byte) 0);
        req.set(ValueLayout.JAVA_INT_UNALIGNED, 0, len);
        req.set(ValueLayout.JAVA_SHORT_UNALIGNED, 4, (short) type);
        req.set(ValueLayout.JAVA_SHORT_UNALIGNED, 6, (short) (Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP));
        req.set(ValueLayout.JAVA_INT_UNALIGNED, 8, s);
        socket.send(req, len, 0, 0);
        String call = "rtnetlink dump type " + type;
        long deadline = System.nanoTime() + REPLY_TIMEOUT.toNanos();
        try {
            for (int d = 0; d < MAX_DATAGRAMS; d++) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                int n = socket.tryReceive(buf, Duration.ofNanos(left));
                if (n < 0) {
                    throw new NetlinkException(call, -n, null);
                }
                if (n == 0) {
                    continue;
                }
                reader.reset(buf, n);
                while (reader.next()) {
                    if (reader.seq() != s) {
                        continue;
                    }
                    if (reader.isDone()) {
                        return;
                    }
                    if (reader.isError()) {
                        int errno = reader.errorCode();
                        throw new NetlinkException(call, errno == 0 ? Errno.EBADMSG : errno, null);
                    }
                    h.on(reader);
                }
            }
        } catch (NetlinkFormatException e) {
            throw new NetlinkException(call, Errno.EBADMSG, "malformed reply: " + e.getMessage());
        }
        throw new NetlinkException(call, Errno.ETIMEDOUT, "no complete dump within " + REPLY_TIMEOUT.toSeconds()
                + " s");
    }

    @Override
    public void close() {
        if (!socket.isClosed()) {
            socket.close();
            arena.close();
        }
    }
}
