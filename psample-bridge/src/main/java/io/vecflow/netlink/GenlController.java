package io.vecflow.netlink;

import io.vecflow.common.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Generic-netlink controller client ("nlctrl", fixed family id {@link Netlink#GENL_ID_CTRL} = 0x10): resolves a
 * family name to its id, version and multicast groups with CTRL_CMD_GETFAMILY.
 *
 * <p>Request (spec §1): nlmsg_type 0x10, flags REQUEST|ACK, genl cmd CTRL_CMD_GETFAMILY (3) version 1, attribute
 * CTRL_ATTR_FAMILY_NAME (2, NUL-terminated). Replies: one CTRL_CMD_NEWFAMILY message, then an ACK; an unknown
 * family yields NLMSG_ERROR −ENOENT. Control path: allocates freely.
 */
public final class GenlController {
    private GenlController() {}

    private static final int REPLY_BUFFER = 64 * 1024;
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(5);

    /**
     * Resolves a generic-netlink family. Sets a 5 s receive timeout on {@code genlSocket}.
     *
     * @param genlSocket a socket opened with {@link Netlink#NETLINK_GENERIC}; no other traffic should be pending on it.
     *                   An unbound socket is auto-bound by the request's sendto, after which {@code bind(nl_pid=0)}
     *                   fails with EINVAL (Linux {@code netlink_bind}): bind before resolving when you need to.
     * @param familyName e.g. "psample", "nlctrl", "NET_DM" (ASCII, &lt; 16 characters)
     * @return the family
     * @throws GenlFamilyNotFoundException the kernel has no such family (ENOENT); for "psample" the message says to
     *                                     {@code modprobe psample} or use {@code --transport usersock}
     * @throws NetlinkException            on a send/receive failure, an error reply, a timeout (ETIMEDOUT) or a
     *                                     malformed reply (EBADMSG, message names field and offset)
     */
    /**
     * Whether this kernel has registered the generic-netlink family {@code familyName} now (one
     * {@code CTRL_CMD_GETFAMILY} round trip on a socket of its own). Lets callers and tests choose between the
     * genl path and the usersock path without provoking the error first.
     *
     * @param familyName e.g. "psample", "NET_DM"
     * @return true if the family resolves, false if the kernel answered ENOENT
     * @throws NetlinkException the socket cannot be opened or the lookup failed for another reason
     */
    public static boolean isRegistered(String familyName) throws NetlinkException {
        try (NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_GENERIC)) {
            resolve(s, familyName);
            return true;
        } catch (GenlFamilyNotFoundException e) {
            return false;
        }
    }

    public static GenlFamily resolve(NetlinkSocket genlSocket, String familyName) throws NetlinkException {
        if (genlSocket.protocol() != Netlink.NETLINK_GENERIC) {
            throw new IllegalArgumentException("GenlController.resolve needs a NETLINK_GENERIC socket, got "
                    + Netlink.protocolName(genlSocket.protocol()));
        }
        String call = "CTRL_CMD_GETFAMILY(\"" + familyName + "\")";
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment req = arena.allocate(256, 8);
            MemorySegment rsp = arena.allocate(REPLY_BUFFER, 8);
            int seq = (int) (System.nanoTime() & 0x7FFFFFFF) | 1;
            NetlinkWriter w = new NetlinkWriter(req);
            w.beginMessage(Netlink.GENL_ID_CTRL, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK, seq, 0)
                    .genlHeader(Netlink.CTRL_CMD_GETFAMILY, 1)
                    .putString(Netlink.CTRL_ATTR_FAMILY_NAME, familyName);
            int len = w.end();
            genlSocket.setReceiveTimeout(REPLY_TIMEOUT);
            genlSocket.send(req, len, 0, 0);

            GenlFamily family = null;
            NetlinkReader r = new NetlinkReader();
            NetlinkAttributes attrs = new NetlinkAttributes();
            long deadline = System.nanoTime() + REPLY_TIMEOUT.toNanos();
            while (System.nanoTime() < deadline) {
                int n = genlSocket.receive(rsp);
                if (n == 0) {
                    break;
                }
                r.reset(rsp, n);
                while (r.next()) {
                    if (r.seq() != seq) {
                        continue; // stale reply or notification: not ours
                    }
                    if (r.isError()) {
                        int errno = r.errorCode();
                        if (errno == 0) { // the ACK: the family reply came before it
                            if (family != null) {
                                return family;
                            }
                            throw new NetlinkException(call, Errno.EBADMSG, "the controller ACKed without a reply");
                        }
                        if (errno == Errno.ENOENT) {
                            throw new GenlFamilyNotFoundException(familyName);
                        }
                        throw new NetlinkException(call, errno, "generic netlink controller error");
                    }
                    if (r.type() == Netlink.GENL_ID_CTRL) {
                        family = parseFamily(r, attrs, familyName);
                    }
                }
            }
            if (family != null) {
                return family;
            }
            throw new NetlinkException(call, Errno.ETIMEDOUT, "no reply from the generic netlink controller within "
                    + REPLY_TIMEOUT.toSeconds() + " s");
        } catch (NetlinkFormatException e) {
            throw new NetlinkException(call, Errno.EBADMSG, "malformed controller reply: " + e.getMessage());
        }
    }

    private static GenlFamily parseFamily(NetlinkReader r, NetlinkAttributes attrs, String familyName)
            throws NetlinkFormatException {
        int id = -1;
        int version = 0;
        int hdrSize = 0;
        int maxAttr = 0;
        String name = familyName;
        Map<String, Integer> groups = new HashMap<>();
        NetlinkAttributes grpList = new NetlinkAttributes();
        NetlinkAttributes grp = new NetlinkAttributes();
        r.attributes(attrs, Netlink.GENL_HDRLEN, GenlController::ctrlAttrName);
        while (attrs.next()) {
            switch (attrs.type()) {
                case Netlink.CTRL_ATTR_FAMILY_ID -> id = attrs.getU16();
                case Netlink.CTRL_ATTR_FAMILY_NAME -> name = attrs.getString();
                case Netlink.CTRL_ATTR_VERSION -> version = (int) attrs.getU32();
                case Netlink.CTRL_ATTR_HDRSIZE -> hdrSize = (int) attrs.getU32();
                case Netlink.CTRL_ATTR_MAXATTR -> maxAttr = (int) attrs.getU32();
                case Netlink.CTRL_ATTR_MCAST_GROUPS -> {
                    attrs.nested(grpList, null);
                    while (grpList.next()) {
                        grpList.nested(grp, GenlController::mcastGrpAttrName);
                        String gName = null;
                        int gId = -1;
                        while (grp.next()) {
                            switch (grp.type()) {
                                case Netlink.CTRL_ATTR_MCAST_GRP_NAME -> gName = grp.getString();
                                case Netlink.CTRL_ATTR_MCAST_GRP_ID -> gId = (int) grp.getU32();
                                default -> { }
                            }
                        }
                        if (gName != null && gId >= 0) {
                            groups.put(gName, gId);
                        }
                    }
                }
                default -> { }
            }
        }
        if (id < 0) {
            throw new NetlinkFormatException("CTRL_ATTR_FAMILY_ID", r.offset(), "missing from the NEWFAMILY reply");
        }
        return new GenlFamily(name, id, version, hdrSize, maxAttr, groups);
    }

    /** Name of a CTRL_ATTR_* id (for error messages), or {@code null}. */
    public static String ctrlAttrName(int type) {
        return switch (type) {
            case Netlink.CTRL_ATTR_FAMILY_ID -> "CTRL_ATTR_FAMILY_ID";
            case Netlink.CTRL_ATTR_FAMILY_NAME -> "CTRL_ATTR_FAMILY_NAME";
            case Netlink.CTRL_ATTR_VERSION -> "CTRL_ATTR_VERSION";
            case Netlink.CTRL_ATTR_HDRSIZE -> "CTRL_ATTR_HDRSIZE";
            case Netlink.CTRL_ATTR_MAXATTR -> "CTRL_ATTR_MAXATTR";
            case Netlink.CTRL_ATTR_OPS -> "CTRL_ATTR_OPS";
            case Netlink.CTRL_ATTR_MCAST_GROUPS -> "CTRL_ATTR_MCAST_GROUPS";
            default -> null;
        };
    }

    private static String mcastGrpAttrName(int type) {
        return switch (type) {
            case Netlink.CTRL_ATTR_MCAST_GRP_NAME -> "CTRL_ATTR_MCAST_GRP_NAME";
            case Netlink.CTRL_ATTR_MCAST_GRP_ID -> "CTRL_ATTR_MCAST_GRP_ID";
            default -> null;
        };
    }
}
