package io.vecflow.netlink;

import io.vecflow.common.Libc;

/**
 * Netlink and generic-netlink constants and struct layouts.
 *
 * <p>Source: Linux UAPI {@code include/uapi/linux/netlink.h} ({@code struct sockaddr_nl}, {@code struct nlmsghdr},
 * {@code struct nlattr}, {@code struct nlmsgerr}) and {@code include/uapi/linux/genetlink.h}
 * ({@code struct genlmsghdr}, {@code CTRL_*}); vecflow spec {@code docs/netlink.md} §1. All multi-byte fields are
 * host byte order (little-endian on x86_64); messages and attributes are aligned to 4 bytes.
 */
public final class Netlink {
    private Netlink() {}

    // ---- protocols (socket(AF_NETLINK, SOCK_RAW, protocol)) ----
    /** NETLINK_USERSOCK: reserved for user-mode socket protocols (VPP counters/status; vecflow PSAMPLE fallback). */
    public static final int NETLINK_USERSOCK = 2;
    /** NETLINK_GENERIC: generic netlink (families such as "nlctrl", "psample", "NET_DM"). */
    public static final int NETLINK_GENERIC = 16;

    // ---- socket options ----
    /** Socket level for netlink options ({@code setsockopt(fd, SOL_NETLINK, ...)}). */
    public static final int SOL_NETLINK = 270;
    /** Join a multicast group by id (int option value); works for any id, not only 1..32. */
    public static final int NETLINK_ADD_MEMBERSHIP = 1;
    /** Leave a multicast group by id. */
    public static final int NETLINK_DROP_MEMBERSHIP = 2;
    /** {@code recv} flag: do not block; EAGAIN when nothing is queued. */
    public static final int MSG_DONTWAIT = Libc.MSG_DONTWAIT;

    // ---- struct sockaddr_nl (12 bytes) ----
    /** sizeof(struct sockaddr_nl). */
    public static final int SOCKADDR_NL_SIZE = 12;
    /** Offset of u16 nl_family (AF_NETLINK = 16). */
    public static final int NL_FAMILY_OFFSET = 0;
    /** Offset of u32 nl_pid (port id). */
    public static final int NL_PID_OFFSET = 4;
    /** Offset of u32 nl_groups (multicast group bitmask, bit (id-1) for ids 1..32). */
    public static final int NL_GROUPS_OFFSET = 8;

    // ---- struct nlmsghdr (16 bytes) ----
    /** sizeof(struct nlmsghdr). */
    public static final int NLMSG_HDRLEN = 16;
    /** Offset of u32 nlmsg_len (whole message, header included, in bytes). */
    public static final int NLMSG_LEN_OFFSET = 0;
    /** Offset of u16 nlmsg_type. */
    public static final int NLMSG_TYPE_OFFSET = 4;
    /** Offset of u16 nlmsg_flags. */
    public static final int NLMSG_FLAGS_OFFSET = 6;
    /** Offset of u32 nlmsg_seq. */
    public static final int NLMSG_SEQ_OFFSET = 8;
    /** Offset of u32 nlmsg_pid (sender port id). */
    public static final int NLMSG_PID_OFFSET = 12;
    /** NLMSG_ALIGNTO: messages start on 4-byte boundaries. */
    public static final int NLMSG_ALIGNTO = 4;

    // ---- message types (< 0x10 reserved for control) ----
    /** Nothing; to be ignored (on generic channels only — VPP USERSOCK reuses 1 for STATUS). */
    public static final int NLMSG_NOOP = 1;
    /** Error or ACK: payload is s32 error (negative errno, 0 = ACK) followed by the original nlmsghdr. */
    public static final int NLMSG_ERROR = 2;
    /** End of a multipart message. */
    public static final int NLMSG_DONE = 3;
    /** Data lost. */
    public static final int NLMSG_OVERRUN = 4;
    /** First type available to protocols: types below this are reserved for control messages. */
    public static final int NLMSG_MIN_TYPE = 0x10;

    // ---- nlmsg_flags ----
    /** It is a request message. */
    public static final int NLM_F_REQUEST = 0x1;
    /** Multipart message, terminated by NLMSG_DONE. */
    public static final int NLM_F_MULTI = 0x2;
    /** Reply with an ACK (an NLMSG_ERROR with error 0) on success. */
    public static final int NLM_F_ACK = 0x4;
    /** Echo this request. */
    public static final int NLM_F_ECHO = 0x8;
    /** GET request modifier: return the complete table (NLM_F_ROOT | NLM_F_MATCH). */
    public static final int NLM_F_DUMP = 0x300;

    // ---- struct nlattr (4 bytes) ----
    /** sizeof(struct nlattr). */
    public static final int NLA_HDRLEN = 4;
    /** NLA_ALIGNTO: attributes start on 4-byte boundaries. */
    public static final int NLA_ALIGNTO = 4;
    /** nla_type bit 15: payload is a nested attribute stream. */
    public static final int NLA_F_NESTED = 0x8000;
    /** nla_type bit 14: integer payload is in network byte order. */
    public static final int NLA_F_NET_BYTEORDER = 0x4000;
    /** Mask for the attribute type proper ({@code nla_type & NLA_TYPE_MASK}). */
    public static final int NLA_TYPE_MASK = 0x3FFF;

    // ---- struct genlmsghdr (4 bytes) ----
    /** sizeof(struct genlmsghdr): u8 cmd, u8 version, u16 reserved. */
    public static final int GENL_HDRLEN = 4;
    /** Fixed family id of the generic netlink controller ("nlctrl"). */
    public static final int GENL_ID_CTRL = 0x10;

    // ---- genl controller (family "nlctrl") ----
    /** CTRL_CMD_NEWFAMILY (reply to GETFAMILY). */
    public static final int CTRL_CMD_NEWFAMILY = 1;
    /** CTRL_CMD_GETFAMILY. */
    public static final int CTRL_CMD_GETFAMILY = 3;
    /** CTRL_ATTR_FAMILY_ID (u16). */
    public static final int CTRL_ATTR_FAMILY_ID = 1;
    /** CTRL_ATTR_FAMILY_NAME (NUL-terminated string). */
    public static final int CTRL_ATTR_FAMILY_NAME = 2;
    /** CTRL_ATTR_VERSION (u32). */
    public static final int CTRL_ATTR_VERSION = 3;
    /** CTRL_ATTR_HDRSIZE (u32). */
    public static final int CTRL_ATTR_HDRSIZE = 4;
    /** CTRL_ATTR_MAXATTR (u32). */
    public static final int CTRL_ATTR_MAXATTR = 5;
    /** CTRL_ATTR_OPS (nested). */
    public static final int CTRL_ATTR_OPS = 6;
    /** CTRL_ATTR_MCAST_GROUPS (nested list of nested {GRP_NAME, GRP_ID}). */
    public static final int CTRL_ATTR_MCAST_GROUPS = 7;
    /** CTRL_ATTR_MCAST_GRP_NAME (string) inside a group entry. */
    public static final int CTRL_ATTR_MCAST_GRP_NAME = 1;
    /** CTRL_ATTR_MCAST_GRP_ID (u32) inside a group entry. */
    public static final int CTRL_ATTR_MCAST_GRP_ID = 2;

    /**
     * Rounds up to the netlink alignment of 4 bytes (NLMSG_ALIGN / NLA_ALIGN).
     *
     * @param len a length in bytes, non-negative
     * @return {@code (len + 3) & ~3}
     */
    public static int align4(int len) {
        return (len + 3) & ~3;
    }

    /** Long variant of {@link #align4(int)}. */
    public static long align4(long len) {
        return (len + 3L) & ~3L;
    }

    /**
     * The {@code nl_groups} bitmask that addresses multicast group {@code groupId} in a {@code bind} or
     * {@code sendto} (only ids 1..32 are addressable that way).
     *
     * @param groupId 1..32
     * @return {@code 1 << (groupId - 1)}
     * @throws IllegalArgumentException if {@code groupId} is outside 1..32
     */
    public static int groupMask(int groupId) {
        if (groupId < 1 || groupId > 32) {
            throw new IllegalArgumentException(
                    "netlink multicast group id " + groupId + " cannot be addressed by nl_groups (ids 1..32 only)");
        }
        return 1 << (groupId - 1);
    }

    /** Human-readable name of a netlink protocol number, for error messages. */
    public static String protocolName(int protocol) {
        return switch (protocol) {
            case NETLINK_USERSOCK -> "NETLINK_USERSOCK";
            case NETLINK_GENERIC -> "NETLINK_GENERIC";
            case 0 -> "NETLINK_ROUTE";
            default -> "netlink protocol " + protocol;
        };
    }
}
