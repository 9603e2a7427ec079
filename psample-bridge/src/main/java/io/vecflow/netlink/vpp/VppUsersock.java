package io.vecflow.netlink.vpp;

/**
 * Constants of VPP's NETLINK_USERSOCK channel for interface counters and status (FDio/vpp
 * {@code src/plugins/sflow/sflow_usersock.h}, shared with hsflowd's mod_vpp; spec {@code docs/netlink.md} §3).
 *
 * <p>Plain {@code nlmsghdr} + attributes (no genl header), multicast group {@value #GROUP} ({@code nl_groups = 1 <<
 * 28}), {@code nlmsg_pid = getpid()}. The message types {@link #MSG_STATUS} (1) and {@link #MSG_IF_COUNTERS} (2)
 * collide with NLMSG_NOOP / NLMSG_ERROR: never run a generic netlink parser (error/ACK decoding) on this channel.
 * With no listener a send returns ECONNREFUSED, which VPP treats as success. The attribute enum is append-only.
 */
public final class VppUsersock {
    private VppUsersock() {}

    /** Default NETLINK_USERSOCK multicast group. */
    public static final int GROUP = 29;

    /** nlmsg_type STATUS: sent every second (UPTIME_S, DROPS, SEQ). */
    public static final int MSG_STATUS = 1;
    /** nlmsg_type IF_COUNTERS: one per interface per polling interval. */
    public static final int MSG_IF_COUNTERS = 2;

    /** Port name (string, no NUL). */
    public static final int ATTR_PORTNAME = 0;
    /** VPP interface index, u32 (sw_if_index since VPP f1467f6; hw_if_index before). */
    public static final int ATTR_IFINDEX = 1;
    /** Interface type, u32. */
    public static final int ATTR_IFTYPE = 2;
    /** Interface speed, u64 (bits/s). */
    public static final int ATTR_IFSPEED = 3;
    /** Interface direction, u32. */
    public static final int ATTR_IFDIRECTION = 4;
    /** Operational status up, u32. */
    public static final int ATTR_OPER_UP = 5;
    /** Administrative status up, u32. */
    public static final int ATTR_ADMIN_UP = 6;
    /** Received octets, u64. */
    public static final int ATTR_RX_OCTETS = 7;
    /** Transmitted octets, u64. */
    public static final int ATTR_TX_OCTETS = 8;
    /** Received packets, u64. */
    public static final int ATTR_RX_PKTS = 9;
    /** Transmitted packets, u64. */
    public static final int ATTR_TX_PKTS = 10;
    /** Received broadcasts, u64. */
    public static final int ATTR_RX_BCASTS = 11;
    /** Transmitted broadcasts, u64. */
    public static final int ATTR_TX_BCASTS = 12;
    /** Received multicasts, u64. */
    public static final int ATTR_RX_MCASTS = 13;
    /** Transmitted multicasts, u64. */
    public static final int ATTR_TX_MCASTS = 14;
    /** Receive discards, u64. */
    public static final int ATTR_RX_DISCARDS = 15;
    /** Transmit discards, u64. */
    public static final int ATTR_TX_DISCARDS = 16;
    /** Receive errors, u64. */
    public static final int ATTR_RX_ERRORS = 17;
    /** Transmit errors, u64. */
    public static final int ATTR_TX_ERRORS = 18;
    /** MAC address, 6 bytes. */
    public static final int ATTR_HW_ADDRESS = 19;
    /** Seconds since sflow was enabled, u32 (STATUS). */
    public static final int ATTR_UPTIME_S = 20;
    /** Linux ifindex of the linux-cp pair, u32 (omitted without a pair, 0 without linux-cp). */
    public static final int ATTR_OSINDEX = 21;
    /** Cumulative drops: PSAMPLE send failures + worker sample-FIFO drops, u32 (STATUS). */
    public static final int ATTR_DROPS = 22;
    /** Channel sequence number shared by STATUS and IF_COUNTERS, u32. */
    public static final int ATTR_SEQ = 23;

    /** Attribute name for error messages, e.g. {@code "SFLOW_VPP_ATTR_UPTIME_S"}; {@code null} if unknown. */
    public static String attrName(int type) {
        return switch (type) {
            case ATTR_PORTNAME -> "SFLOW_VPP_ATTR_PORTNAME";
            case ATTR_IFINDEX -> "SFLOW_VPP_ATTR_IFINDEX";
            case ATTR_IFTYPE -> "SFLOW_VPP_ATTR_IFTYPE";
            case ATTR_IFSPEED -> "SFLOW_VPP_ATTR_IFSPEED";
            case ATTR_IFDIRECTION -> "SFLOW_VPP_ATTR_IFDIRECTION";
            case ATTR_OPER_UP -> "SFLOW_VPP_ATTR_OPER_UP";
            case ATTR_ADMIN_UP -> "SFLOW_VPP_ATTR_ADMIN_UP";
            case ATTR_RX_OCTETS -> "SFLOW_VPP_ATTR_RX_OCTETS";
            case ATTR_TX_OCTETS -> "SFLOW_VPP_ATTR_TX_OCTETS";
            case ATTR_RX_PKTS -> "SFLOW_VPP_ATTR_RX_PKTS";
            case ATTR_TX_PKTS -> "SFLOW_VPP_ATTR_TX_PKTS";
            case ATTR_RX_BCASTS -> "SFLOW_VPP_ATTR_RX_BCASTS";
            case ATTR_TX_BCASTS -> "SFLOW_VPP_ATTR_TX_BCASTS";
            case ATTR_RX_MCASTS -> "SFLOW_VPP_ATTR_RX_MCASTS";
            case ATTR_TX_MCASTS -> "SFLOW_VPP_ATTR_TX_MCASTS";
            case ATTR_RX_DISCARDS -> "SFLOW_VPP_ATTR_RX_DISCARDS";
            case ATTR_TX_DISCARDS -> "SFLOW_VPP_ATTR_TX_DISCARDS";
            case ATTR_RX_ERRORS -> "SFLOW_VPP_ATTR_RX_ERRORS";
            case ATTR_TX_ERRORS -> "SFLOW_VPP_ATTR_TX_ERRORS";
            case ATTR_HW_ADDRESS -> "SFLOW_VPP_ATTR_HW_ADDRESS";
            case ATTR_UPTIME_S -> "SFLOW_VPP_ATTR_UPTIME_S";
            case ATTR_OSINDEX -> "SFLOW_VPP_ATTR_OSINDEX";
            case ATTR_DROPS -> "SFLOW_VPP_ATTR_DROPS";
            case ATTR_SEQ -> "SFLOW_VPP_ATTR_SEQ";
            default -> null;
        };
    }
}
