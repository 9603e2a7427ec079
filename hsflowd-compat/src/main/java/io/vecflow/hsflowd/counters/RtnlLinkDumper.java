package io.vecflow.hsflowd.counters;

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
import java.time.Duration;

/**
 * Lists every interface of the socket's network namespace with its counters: an rtnetlink {@code RTM_GETLINK}
 * dump ({@code NLM_F_REQUEST | NLM_F_DUMP}, {@code include/uapi/linux/rtnetlink.h}) over a NETLINK_ROUTE socket
 * driven through java.lang.foreign ({@link NetlinkSocket}). Each {@code RTM_NEWLINK} reply is a {@code struct
 * ifinfomsg} (16 bytes: u8 family, u8 pad, u16 type, s32 index, u32 flags, u32 change) followed by IFLA_*
 * attributes ({@code include/uapi/linux/if_link.h}); this reads IFLA_IFNAME, IFLA_ADDRESS, IFLA_OPERSTATE and
 * IFLA_STATS64 ({@code struct rtnl_link_stats64}, u64 fields in host order).
 *
 * <p>The socket belongs to the network namespace of the thread that opened it. A dump allocates nothing (request,
 * receive buffer, reader and table are reused). A malformed reply ends the dump with a {@link NetlinkException}
 * (EBADMSG) naming the attribute and offset. Not thread-safe.
 */
public final class RtnlLinkDumper implements AutoCloseable {
    /** NETLINK_ROUTE ({@code include/uapi/linux/netlink.h}). */
    public static final int NETLINK_ROUTE = 0;
    /** RTM_NEWLINK. */
    public static final int RTM_NEWLINK = 16;
    /** RTM_GETLINK. */
    public static final int RTM_GETLINK = 18;
    /** sizeof(struct ifinfomsg). */
    public static final int IFINFOMSG_BYTES = 16;
    /** IFLA_ADDRESS. */
    public static final int IFLA_ADDRESS = 1;
    /** IFLA_IFNAME. */
    public static final int IFLA_IFNAME = 3;
    /** IFLA_OPERSTATE (u8). */
    public static final int IFLA_OPERSTATE = 16;
    /** IFLA_STATS64. */
    public static final int IFLA_STATS64 = 23;

    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration RECV_WAIT = Duration.ofMillis(250);
    /** Receive buffer: larger than the kernel's 32 KiB dump chunks, so no reply is cut. */
    private static final int BUFFER_BYTES = 64 << 10;
    /** Datagrams read per dump at most (one holds at least one link). */
    private static final int MAX_DATAGRAMS = LinkTable.MAX_LINKS + 64;

    private final NetlinkSocket socket;
    private final MemorySegment request;
    private final MemorySegment buffer;
    private final NetlinkReader reader = new NetlinkReader();
    private final NetlinkAttributes attrs = new NetlinkAttributes();
    private int seq = 1;
    private long dumps;

    private RtnlLinkDumper(NetlinkSocket socket) {
        this.socket = socket;
        Arena arena = Arena.ofAuto();
        this.request = arena.allocate(Netlink.NLMSG_HDRLEN + IFINFOMSG_BYTES, 8);
        this.buffer = arena.allocate(BUFFER_BYTES, 8);
    }

    /**
     * Opens a NETLINK_ROUTE socket in the calling thread's network namespace (no privilege needed).
     *
     * @return the dumper
     * @throws NetlinkException if the socket cannot be opened
     */
    public static RtnlLinkDumper open() throws NetlinkException {
        NetlinkSocket s = NetlinkSocket.open(NETLINK_ROUTE);
        try {
            s.setReceiveBufferSize(1 << 20);
        } catch (NetlinkException e) {
            // the default buffer works for a dump read as it arrives; keep going
        }
        return new RtnlLinkDumper(s);
    }

    /**
     * Dumps every interface into {@code table} (its previous content is replaced).
     *
     * @param table filled with the interfaces, in kernel order
     * @return the number of interfaces ({@code table.count})
     * @throws NetlinkException for a send/receive error, an NLMSG_ERROR reply (its errno), a malformed reply
     *         (EBADMSG), or no NLMSG_DONE within 2 s (ETIMEDOUT)
     */
    public int dump(LinkTable table) throws NetlinkException {
        int mySeq = seq++;
        request.fill((byte) 0);
        request.set(ValueLayout.JAVA_INT_UNALIGNED, Netlink.NLMSG_LEN_OFFSET, Netlink.NLMSG_HDRLEN + IFINFOMSG_BYTES);
        request.set(ValueLayout.JAVA_SHORT_UNALIGNED, Netlink.NLMSG_TYPE_OFFSET, (short) RTM_GETLINK);
        request.set(ValueLayout.JAVA_SHORT_UNALIGNED, Netlink.NLMSG_FLAGS_OFFSET,
                (short) (Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP));
        request.set(ValueLayout.JAVA_INT_UNALIGNED, Netlink.NLMSG_SEQ_OFFSET, mySeq);
        // ifinfomsg all zero: family AF_UNSPEC, every interface
        socket.send(request, Netlink.NLMSG_HDRLEN + IFINFOMSG_BYTES, 0, 0);
        table.count = 0;
        table.overflow = 0;
        long deadline = System.nanoTime() + REPLY_TIMEOUT.toNanos();
        try {
            for (int d = 0; d < MAX_DATAGRAMS; d++) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                int n = socket.tryReceive(buffer, RECV_WAIT);
                if (n < 0) {
                    throw new NetlinkException("recv(NETLINK_ROUTE, RTM_GETLINK dump)", -n, null);
                }
                if (n == 0) {
                    continue; // nothing yet: wait again until the deadline
                }
                reader.reset(buffer, n);
                while (reader.next()) {
                    if (reader.seq() != mySeq) {
                        continue; // a reply to an earlier, abandoned dump
                    }
                    if (reader.isDone()) {
                        dumps++;
                        return table.count;
                    }
                    if (reader.isError()) {
                        int errno = reader.errorCode();
                        throw new NetlinkException("RTM_GETLINK dump", errno == 0 ? Errno.EBADMSG : errno,
                                "the kernel refused the interface dump");
                    }
                    if (reader.type() == RTM_NEWLINK) {
                        if (table.count < LinkTable.MAX_LINKS) {
                            parseLink(table.links[table.count]);
                            table.count++;
                        } else {
                            table.overflow++;
                        }
                    }
                }
            }
        } catch (NetlinkFormatException e) {
            throw new NetlinkException("RTM_GETLINK dump", Errno.EBADMSG, "malformed RTM_NEWLINK: " + e.getMessage());
        }
        throw new NetlinkException("RTM_GETLINK dump", Errno.ETIMEDOUT,
                "no NLMSG_DONE within " + REPLY_TIMEOUT.toSeconds() + " s (" + table.count + " interfaces read)");
    }

    private void parseLink(LinkTable.Link l) throws NetlinkFormatException {
        l.clear();
        if (reader.payloadLength() < IFINFOMSG_BYTES) {
            throw new NetlinkFormatException("ifinfomsg", reader.offset() + Netlink.NLMSG_HDRLEN,
                    "payload of " + reader.payloadLength() + " bytes, the header needs " + IFINFOMSG_BYTES);
        }
        MemorySegment s = reader.buffer();
        long p = reader.payloadOffset();
        l.arpType = Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, p + 2));
        l.ifIndex = s.get(ValueLayout.JAVA_INT_UNALIGNED, p + 4);
        l.flags = s.get(ValueLayout.JAVA_INT_UNALIGNED, p + 8);
        reader.attributes(attrs, IFINFOMSG_BYTES, RtnlLinkDumper::attrName);
        while (attrs.next()) {
            switch (attrs.type()) {
                case IFLA_IFNAME -> {
                    long a = attrs.payloadOffset();
                    int max = Math.min(attrs.payloadLength(), LinkTable.IFNAMSIZ - 1);
                    int n = 0;
                    while (n < max && s.get(ValueLayout.JAVA_BYTE, a + n) != 0) {
                        l.name[n] = s.get(ValueLayout.JAVA_BYTE, a + n);
                        n++;
                    }
                    l.nameLength = n;
                }
                case IFLA_ADDRESS -> {
                    if (attrs.payloadLength() == 6) {
                        long a = attrs.payloadOffset();
                        long mac = 0;
                        for (int i = 0; i < 6; i++) {
                            mac = mac << 8 | (s.get(ValueLayout.JAVA_BYTE, a + i) & 0xFF);
                        }
                        l.mac = mac;
                        l.hasMac = true;
                    }
                }
                case IFLA_OPERSTATE -> l.operState = attrs.getU8();
                case IFLA_STATS64 -> {
                    int fields = Math.min(attrs.payloadLength() / 8, LinkTable.STATS64_FIELDS);
                    if (fields < LinkTable.TX_DROPPED + 1) {
                        throw new NetlinkFormatException("nlattr IFLA_STATS64 (23)", attrs.offset(),
                                attrs.payloadLength() + "-byte payload, struct rtnl_link_stats64 has at least 184");
                    }
                    long a = attrs.payloadOffset();
                    for (int i = 0; i < fields; i++) {
                        l.stats[i] = s.get(ValueLayout.JAVA_LONG_UNALIGNED, a + 8L * i);
                    }
                    l.hasStats = true;
                }
                default -> { }
            }
        }
    }

    /** @return the IFLA_* name of an attribute type this class reads (error messages), or null. */
    public static String attrName(int type) {
        return switch (type) {
            case IFLA_ADDRESS -> "IFLA_ADDRESS";
            case IFLA_IFNAME -> "IFLA_IFNAME";
            case IFLA_OPERSTATE -> "IFLA_OPERSTATE";
            case IFLA_STATS64 -> "IFLA_STATS64";
            default -> null;
        };
    }

    /** @return dumps completed. */
    public long dumps() {
        return dumps;
    }

    @Override
    public void close() {
        socket.close();
    }
}
