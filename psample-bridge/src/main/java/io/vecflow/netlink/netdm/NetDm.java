package io.vecflow.netlink.netdm;

/**
 * NET_DM (drop monitor) generic-netlink protocol constants.
 *
 * <p>Source: Linux UAPI {@code include/uapi/linux/net_dropmon.h} (enum of NET_DM_CMD_*, enum net_dm_attr, enum
 * net_dm_alert_mode, the IN_PORT nest enum, enum net_dm_origin, NET_DM_GRP_ALERT); spec {@code docs/netlink.md}
 * §4 (attribute table, what VPP sends) and §5 (hsflowd's mod_dropmon). vecflow's NETLINK_USERSOCK fallback channel
 * constants are defined here too.
 */
public final class NetDm {
    private NetDm() {}

    /** Generic-netlink family name. */
    public static final String GENL_NAME = "NET_DM";
    /** Multicast group that carries alerts. */
    public static final String MCGRP_EVENTS = "events";
    /** Fixed id of the "events" group (NET_DM_GRP_ALERT); VPP matches the group by this id. */
    public static final int GRP_ALERT = 1;
    /** genlmsghdr.version the kernel and VPP put in alerts (net_drop_monitor_family.version is 2; VPP sends 0). */
    public static final int GENL_VERSION_VPP = 0;
    /** genlmsghdr.version of the kernel family. */
    public static final int GENL_VERSION_KERNEL = 2;

    // ---- commands ----
    /** NET_DM_CMD_UNSPEC. */
    public static final int CMD_UNSPEC = 0;
    /** NET_DM_CMD_ALERT (summary mode). */
    public static final int CMD_ALERT = 1;
    /** NET_DM_CMD_CONFIG: set TRUNC_LEN, QUEUE_LEN, ALERT_MODE. */
    public static final int CMD_CONFIG = 2;
    /** NET_DM_CMD_START, with flags SW_DROPS / HW_DROPS. */
    public static final int CMD_START = 3;
    /** NET_DM_CMD_STOP, with flags SW_DROPS / HW_DROPS. */
    public static final int CMD_STOP = 4;
    /** NET_DM_CMD_PACKET_ALERT: one dropped packet with metadata. */
    public static final int CMD_PACKET_ALERT = 5;
    /** NET_DM_CMD_CONFIG_GET. */
    public static final int CMD_CONFIG_GET = 6;
    /** NET_DM_CMD_CONFIG_NEW. */
    public static final int CMD_CONFIG_NEW = 7;
    /** NET_DM_CMD_STATS_GET. */
    public static final int CMD_STATS_GET = 8;
    /** NET_DM_CMD_STATS_NEW. */
    public static final int CMD_STATS_NEW = 9;

    // ---- attributes (enum net_dm_attr) ----
    /** u8 alert mode ({@link #ALERT_MODE_SUMMARY}, {@link #ALERT_MODE_PACKET}). */
    public static final int ATTR_ALERT_MODE = 1;
    /** u64 program counter of the dropping call site. */
    public static final int ATTR_PC = 2;
    /** string: kernel symbol of the dropping function, e.g. "kfree_skb_reason". */
    public static final int ATTR_SYMBOL = 3;
    /** nested (kernel): {PORT_NETDEV_IFINDEX u32, PORT_NETDEV_NAME string}; VPP sends a flat u32 hw_if_index. */
    public static final int ATTR_IN_PORT = 4;
    /** u64 timestamp, ns since the UNIX epoch (ktime_get_real). */
    public static final int ATTR_TIMESTAMP = 5;
    /** u16 {@code skb->protocol} (an ethertype in host order; VPP always 0x0800). */
    public static final int ATTR_PROTO = 6;
    /** binary: the first bytes of the dropped packet, from the MAC header. */
    public static final int ATTR_PAYLOAD = 7;
    /** padding for 64-bit attributes. */
    public static final int ATTR_PAD = 8;
    /** u32 payload truncation length in bytes (CONFIG; VPP also sends it in alerts). */
    public static final int ATTR_TRUNC_LEN = 9;
    /** u32 original packet length in bytes. */
    public static final int ATTR_ORIG_LEN = 10;
    /** u32 alert queue length (CONFIG). */
    public static final int ATTR_QUEUE_LEN = 11;
    /** nested stats. */
    public static final int ATTR_STATS = 12;
    /** nested hardware stats. */
    public static final int ATTR_HW_STATS = 13;
    /** u16 origin ({@link #ORIGIN_SW}, {@link #ORIGIN_HW}). */
    public static final int ATTR_ORIGIN = 14;
    /** string: devlink trap group name (VPP: "vpp_" + node name). */
    public static final int ATTR_HW_TRAP_GROUP_NAME = 15;
    /** string: devlink trap name (VPP: "vpp_" + error-counter name). */
    public static final int ATTR_HW_TRAP_NAME = 16;
    /** nested hardware entries. */
    public static final int ATTR_HW_ENTRIES = 17;
    /** nested hardware entry. */
    public static final int ATTR_HW_ENTRY = 18;
    /** u32 hardware trap count. */
    public static final int ATTR_HW_TRAP_COUNT = 19;
    /** flag: software drops (START/STOP). */
    public static final int ATTR_SW_DROPS = 20;
    /** flag: hardware drops (START/STOP). */
    public static final int ATTR_HW_DROPS = 21;
    /** binary: flow action cookie. */
    public static final int ATTR_FLOW_ACTION_COOKIE = 22;
    /** string: Linux drop reason name (enum skb_drop_reason without the prefix), e.g. "NO_SOCKET". */
    public static final int ATTR_REASON = 23;
    /** Highest attribute id known here. */
    public static final int ATTR_MAX = 23;

    // ---- IN_PORT nest ----
    /** u32 Linux ifindex inside IN_PORT. */
    public static final int ATTR_PORT_NETDEV_IFINDEX = 0;
    /** string netdev name inside IN_PORT. */
    public static final int ATTR_PORT_NETDEV_NAME = 1;

    /** Alert mode: summaries (legacy). */
    public static final int ALERT_MODE_SUMMARY = 0;
    /** Alert mode: one PACKET_ALERT per dropped packet. */
    public static final int ALERT_MODE_PACKET = 1;
    /** Origin: software drop (kfree_skb). */
    public static final int ORIGIN_SW = 0;
    /** Origin: hardware (devlink trap). */
    public static final int ORIGIN_HW = 1;

    /** Largest PAYLOAD a netlink attribute can carry (nla_len is u16): 65535 − 4. */
    public static final int MAX_PAYLOAD = 0xFFFF - 4;

    // ---- vecflow USERSOCK transport ----
    /**
     * nlmsg_type of a NET_DM message carried on NETLINK_USERSOCK (vecflow convention): 0x11, one above PSAMPLE's
     * 0x10 so the two never mix even on a shared group, and clear of VPP's 1/2 on group 29.
     */
    public static final int USERSOCK_MSG_TYPE = 0x11;
    /** Default NETLINK_USERSOCK multicast group for NET_DM messages (vecflow convention; PSAMPLE uses 30). */
    public static final int USERSOCK_DEFAULT_GROUP = 31;

    /** Name of a NET_DM attribute id, e.g. {@code "NET_DM_ATTR_PAYLOAD"}; {@code null} for unknown ids. */
    public static String attrName(int type) {
        return switch (type) {
            case ATTR_ALERT_MODE -> "NET_DM_ATTR_ALERT_MODE";
            case ATTR_PC -> "NET_DM_ATTR_PC";
            case ATTR_SYMBOL -> "NET_DM_ATTR_SYMBOL";
            case ATTR_IN_PORT -> "NET_DM_ATTR_IN_PORT";
            case ATTR_TIMESTAMP -> "NET_DM_ATTR_TIMESTAMP";
            case ATTR_PROTO -> "NET_DM_ATTR_PROTO";
            case ATTR_PAYLOAD -> "NET_DM_ATTR_PAYLOAD";
            case ATTR_PAD -> "NET_DM_ATTR_PAD";
            case ATTR_TRUNC_LEN -> "NET_DM_ATTR_TRUNC_LEN";
            case ATTR_ORIG_LEN -> "NET_DM_ATTR_ORIG_LEN";
            case ATTR_QUEUE_LEN -> "NET_DM_ATTR_QUEUE_LEN";
            case ATTR_STATS -> "NET_DM_ATTR_STATS";
            case ATTR_HW_STATS -> "NET_DM_ATTR_HW_STATS";
            case ATTR_ORIGIN -> "NET_DM_ATTR_ORIGIN";
            case ATTR_HW_TRAP_GROUP_NAME -> "NET_DM_ATTR_HW_TRAP_GROUP_NAME";
            case ATTR_HW_TRAP_NAME -> "NET_DM_ATTR_HW_TRAP_NAME";
            case ATTR_HW_ENTRIES -> "NET_DM_ATTR_HW_ENTRIES";
            case ATTR_HW_ENTRY -> "NET_DM_ATTR_HW_ENTRY";
            case ATTR_HW_TRAP_COUNT -> "NET_DM_ATTR_HW_TRAP_COUNT";
            case ATTR_SW_DROPS -> "NET_DM_ATTR_SW_DROPS";
            case ATTR_HW_DROPS -> "NET_DM_ATTR_HW_DROPS";
            case ATTR_FLOW_ACTION_COOKIE -> "NET_DM_ATTR_FLOW_ACTION_COOKIE";
            case ATTR_REASON -> "NET_DM_ATTR_REASON";
            default -> null;
        };
    }

    /** Name of an IN_PORT nested attribute id, or {@code null}. */
    public static String portAttrName(int type) {
        return switch (type) {
            case ATTR_PORT_NETDEV_IFINDEX -> "NET_DM_ATTR_PORT_NETDEV_IFINDEX";
            case ATTR_PORT_NETDEV_NAME -> "NET_DM_ATTR_PORT_NETDEV_NAME";
            default -> null;
        };
    }

    /** Attribute conventions of a NET_DM producer (spec §4, §6 rule 14). */
    public enum Convention {
        /** Linux {@code net/core/drop_monitor.c}: IN_PORT nested (NLA_F_NESTED) {IFINDEX u32[, NAME]}; genl v2. */
        KERNEL,
        /** FDio/vpp sflow plugin: IN_PORT a flat u32 hw_if_index (no nest); genl version 0. */
        VPP
    }
}
