package io.vecflow.netlink.netdm;

import io.vecflow.common.Errno;
import io.vecflow.netlink.GenlController;
import io.vecflow.netlink.GenlFamily;
import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkReader;
import io.vecflow.netlink.NetlinkSocket;
import io.vecflow.netlink.NetlinkWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * Turns the kernel's drop-monitor feed on and off, as hsflowd's mod_dropmon does with {@code dropmon { start=on }}
 * (spec §5): NET_DM_CMD_CONFIG (ALERT_MODE = PACKET, TRUNC_LEN, QUEUE_LEN 1000), then NET_DM_CMD_START with the
 * SW_DROPS / HW_DROPS flags; at shutdown NET_DM_CMD_STOP, only if this agent started the feed. Each request asks for
 * an ACK and waits for it (5 s), on a control socket of its own so alerts on the subscriber are never consumed here.
 * Needs CAP_NET_ADMIN (root). Control path: allocates freely. Single-threaded.
 */
public final class NetDmControl implements AutoCloseable {
    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(5);

    private final NetlinkSocket socket;
    private final int familyId;
    private int seq = (int) (System.nanoTime() & 0x3FFFFFFF) | 1;

    private NetDmControl(NetlinkSocket socket, int familyId) {
        this.socket = socket;
        this.familyId = familyId;
    }

    /**
     * Resolves family "NET_DM" on a new NETLINK_GENERIC socket.
     *
     * @throws io.vecflow.netlink.GenlFamilyNotFoundException without the drop_monitor module: the message says
     *         {@code modprobe drop_monitor}
     * @throws NetlinkException other socket or controller errors
     */
    public static NetDmControl open() throws NetlinkException {
        NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_GENERIC);
        try {
            s.bind(0, 0); // before the lookup, whose sendto auto-binds (bind after it is EINVAL)
            GenlFamily f = GenlController.resolve(s, NetDm.GENL_NAME);
            return new NetDmControl(s, f.id());
        } catch (NetlinkException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** The NET_DM family id (nlmsg_type of its messages). */
    public int familyId() {
        return familyId;
    }

    /**
     * Configures packet alerts: ALERT_MODE PACKET, TRUNC_LEN, QUEUE_LEN.
     *
     * @param truncLen payload bytes per alert (0 = whole packet)
     * @param queueLen per-CPU queue length
     * @throws NetlinkException the kernel's error, e.g. EBUSY when the feed is already running (configured by someone
     *                          else: hsflowd then leaves it alone), EPERM without CAP_NET_ADMIN, ETIMEDOUT
     */
    public void configure(long truncLen, long queueLen) throws NetlinkException {
        request("NET_DM_CMD_CONFIG", (w, s) -> NetDmCodec.encodeConfig(w, familyId, s, 0, truncLen, queueLen));
    }

    /**
     * Starts (or stops) the feed.
     *
     * @param start true = NET_DM_CMD_START, false = NET_DM_CMD_STOP
     * @param sw software drops
     * @param hw hardware drops
     * @throws NetlinkException the kernel's error (EBUSY, EOPNOTSUPP for hw without devlink traps, EPERM, ETIMEDOUT)
     * @throws IllegalArgumentException if neither sw nor hw is set
     */
    public void startStop(boolean start, boolean sw, boolean hw) throws NetlinkException {
        request(start ? "NET_DM_CMD_START" : "NET_DM_CMD_STOP",
                (w, s) -> NetDmCodec.encodeStartStop(w, familyId, s, 0, start, sw, hw));
    }

    private interface Encoder {
        int encode(NetlinkWriter w, int seq);
    }

    private void request(String what, Encoder enc) throws NetlinkException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment req = arena.allocate(256, 8);
            MemorySegment rsp = arena.allocate(16 * 1024, 8);
            int s = ++seq;
            int len = enc.encode(new NetlinkWriter(req), s);
            socket.setReceiveTimeout(ACK_TIMEOUT);
            socket.send(req, len, 0, 0);
            NetlinkReader r = new NetlinkReader();
            long deadline = System.nanoTime() + ACK_TIMEOUT.toNanos();
            while (System.nanoTime() < deadline) {
                int n = socket.receive(rsp);
                if (n == 0) {
                    break;
                }
                r.reset(rsp, n);
                while (r.next()) {
                    if (r.seq() != s || !r.isError()) {
                        continue;
                    }
                    int errno = r.errorCode();
                    if (errno == 0) {
                        return;
                    }
                    throw new NetlinkException(what, errno, errno == Errno.EBUSY
                            ? "the drop-monitor feed is already running (configured by another program)" : null);
                }
            }
            throw new NetlinkException(what, Errno.ETIMEDOUT, "no ACK from the kernel within "
                    + ACK_TIMEOUT.toSeconds() + " s");
        } catch (NetlinkFormatException e) {
            throw new NetlinkException(what, Errno.EBADMSG, "malformed reply: " + e.getMessage());
        }
    }

    /** Closes the control socket; idempotent. */
    @Override
    public void close() {
        if (!socket.isClosed()) {
            socket.close();
        }
    }
}
