package io.vecflow.netlink.psample;

/**
 * PSAMPLE generic-netlink protocol constants.
 *
 * <p>Source: Linux UAPI {@code include/uapi/linux/psample.h} (enum PSAMPLE_ATTR_*, enum psample_command,
 * PSAMPLE_GENL_NAME, PSAMPLE_NL_MCGRP_*); spec {@code docs/netlink.md} §2 (attribute table with the kernel and VPP
 * conventions). vecflow's USERSOCK fallback channel constants are defined here too.
 */
public final class Psample {
    private Psample() {}

    /** Generic-netlink family name. */
    public static final String GENL_NAME = "psample";
    /** Family version (genlmsghdr.version). */
    public static final int GENL_VERSION = 1;
    /** Multicast group that carries samples. */
    public static final String MCGRP_PACKETS = "packets";
    /** Multicast group for group create/delete notifications. */
    public static final String MCGRP_CONFIG = "config";

    // ---- commands ----
    /** PSAMPLE_CMD_SAMPLE: every sample. */
    public static final int CMD_SAMPLE = 0;
    /** PSAMPLE_CMD_GET_GROUP. */
    public static final int CMD_GET_GROUP = 1;
    /** PSAMPLE_CMD_NEW_GROUP. */
    public static final int CMD_NEW_GROUP = 2;
    /** PSAMPLE_CMD_DEL_GROUP. */
    public static final int CMD_DEL_GROUP = 3;

    // ---- attributes (ids 0..16) ----
    /** Input ifindex: u16 (kernel, omitted when 0) or u32 (VPP hw_if_index). */
    public static final int ATTR_IIFINDEX = 0;
    /** Output ifindex: u16 (kernel, omitted when 0) or u32 (VPP, 0 on ingress, always present). */
    public static final int ATTR_OIFINDEX = 1;
    /** Original frame length in bytes (u32; VPP: without FCS). */
    public static final int ATTR_ORIGSIZE = 2;
    /** Sample group (u32; VPP: 3 ingress, 4 egress). */
    public static final int ATTR_SAMPLE_GROUP = 3;
    /** Per-group sequence number (u32; kernel starts at 0, VPP at 1). */
    public static final int ATTR_GROUP_SEQ = 4;
    /** Sampling rate N, 1-in-N (u32). */
    public static final int ATTR_SAMPLE_RATE = 5;
    /** Packet bytes from the start of the frame (binary, payload length = nla_len − 4). */
    public static final int ATTR_DATA = 6;
    /** Group reference count (u32, GET_GROUP replies). */
    public static final int ATTR_GROUP_REFCOUNT = 7;
    /** Tunnel key (nested). */
    public static final int ATTR_TUNNEL = 8;
    /** Padding for 64-bit attributes. */
    public static final int ATTR_PAD = 9;
    /** Egress traffic class (u16). */
    public static final int ATTR_OUT_TC = 10;
    /** Egress traffic-class queue occupancy in bytes (u64). */
    public static final int ATTR_OUT_TC_OCC = 11;
    /** Transit latency in ns (u64). */
    public static final int ATTR_LATENCY = 12;
    /** Sample timestamp in ns (u64). */
    public static final int ATTR_TIMESTAMP = 13;
    /** u16: an ethertype in the kernel convention ({@code skb->protocol}), 1 (sFlow Ethernet) in VPP's. */
    public static final int ATTR_PROTO = 14;
    /**
     * User cookie (binary, "user provided data"; kernel {@code psample_metadata.user_cookie_len} is a u32 with no cap
     * of its own — tc act_sample and OVS send at most 16 bytes). vecflow keeps at most {@link #MAX_USER_COOKIE} bytes.
     */
    public static final int ATTR_USER_COOKIE = 15;
    /** Flag: SAMPLE_RATE is a probability p (N = 2^32−1 / p). */
    public static final int ATTR_SAMPLE_PROBABILITY = 16;
    /** Highest attribute id known here. */
    public static final int ATTR_MAX = 16;

    /**
     * Largest USER_COOKIE payload vecflow encodes or decodes, in bytes: 96, room for an IPv6
     * {@link LbDecisionCookie} (88 bytes) and 6× the 16-byte cookies of tc act_sample / OVS. A longer cookie on the
     * wire is a decode error naming the attribute's offset.
     */
    public static final int MAX_USER_COOKIE = 96;

    /** Largest DATA payload a netlink attribute can carry (nla_len is u16): 65535 − 4. */
    public static final int MAX_DATA = 0xFFFF - 4;

    // ---- vecflow USERSOCK transport ----
    /**
     * nlmsg_type of a PSAMPLE message carried on NETLINK_USERSOCK (vecflow convention): 0x10, the first non-control
     * type. Not 1 or 2, which the VPP USERSOCK channel uses for STATUS / IF_COUNTERS on group 29.
     */
    public static final int USERSOCK_MSG_TYPE = 0x10;
    /** Default NETLINK_USERSOCK multicast group for PSAMPLE messages (vecflow convention; VPP uses 29). */
    public static final int USERSOCK_DEFAULT_GROUP = 30;

    /** Name of a PSAMPLE attribute id, e.g. {@code "PSAMPLE_ATTR_DATA"}; {@code null} for unknown ids. */
    public static String attrName(int type) {
        return switch (type) {
            case ATTR_IIFINDEX -> "PSAMPLE_ATTR_IIFINDEX";
            case ATTR_OIFINDEX -> "PSAMPLE_ATTR_OIFINDEX";
            case ATTR_ORIGSIZE -> "PSAMPLE_ATTR_ORIGSIZE";
            case ATTR_SAMPLE_GROUP -> "PSAMPLE_ATTR_SAMPLE_GROUP";
            case ATTR_GROUP_SEQ -> "PSAMPLE_ATTR_GROUP_SEQ";
            case ATTR_SAMPLE_RATE -> "PSAMPLE_ATTR_SAMPLE_RATE";
            case ATTR_DATA -> "PSAMPLE_ATTR_DATA";
            case ATTR_GROUP_REFCOUNT -> "PSAMPLE_ATTR_GROUP_REFCOUNT";
            case ATTR_TUNNEL -> "PSAMPLE_ATTR_TUNNEL";
            case ATTR_PAD -> "PSAMPLE_ATTR_PAD";
            case ATTR_OUT_TC -> "PSAMPLE_ATTR_OUT_TC";
            case ATTR_OUT_TC_OCC -> "PSAMPLE_ATTR_OUT_TC_OCC";
            case ATTR_LATENCY -> "PSAMPLE_ATTR_LATENCY";
            case ATTR_TIMESTAMP -> "PSAMPLE_ATTR_TIMESTAMP";
            case ATTR_PROTO -> "PSAMPLE_ATTR_PROTO";
            case ATTR_USER_COOKIE -> "PSAMPLE_ATTR_USER_COOKIE";
            case ATTR_SAMPLE_PROBABILITY -> "PSAMPLE_ATTR_SAMPLE_PROBABILITY";
            default -> null;
        };
    }

    /**
     * Attribute conventions of a PSAMPLE producer (spec §2 table).
     */
    public enum Convention {
        /**
         * Linux kernel {@code net/psample/psample.c}: IIFINDEX/OIFINDEX u16 and omitted when 0; PROTO is an
         * ethertype; TIMESTAMP usually present.
         */
        KERNEL,
        /**
         * FDio/vpp sflow plugin: IIFINDEX/OIFINDEX u32 hw_if_index, OIFINDEX always present (0 on ingress); PROTO 1
         * (sFlow header_protocol Ethernet); no TIMESTAMP.
         */
        VPP
    }
}
