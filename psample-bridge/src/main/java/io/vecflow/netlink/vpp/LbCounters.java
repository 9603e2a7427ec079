package io.vecflow.netlink.vpp;

import java.util.Arrays;

/**
 * vecflow's LB_COUNTERS message on VPP's USERSOCK channel: one load-balancer VIP's — or one backend's within a VIP —
 * cumulative decision counters, sent by the dataplane's sFlow main thread on the IF_COUNTERS cadence (one message per
 * VIP and per VIP backend each polling interval) and turned by the hsflowd-compatible agent into the "vecflow LB
 * counters" sFlow record ({@code io.vecflow.sflow.LbCountersRecord}). A mutable, reusable holder filled by
 * {@link LbCountersCodec#decode} and read by {@link LbCountersCodec#encode}; not thread-safe.
 *
 * <p><b>Wire format</b> (a vecflow extension; VPP's own types STATUS = 1 and IF_COUNTERS = 2 and their attributes are
 * untouched): a plain {@code nlmsghdr} with nlmsg_type {@link #MSG_LB_COUNTERS} (0x4C42, "LB" — far from VPP's
 * append-only 1, 2, …), flags 0, nlmsg_pid = the sender's pid, then attributes in ascending id order, each padded to
 * 4 (the attribute ids are this message's own):
 * <pre>
 *  1 LB_ATTR_ROLE           u32  1 maglev LB VIP, 2 srlb LB VIP, 3 srlb server-agent VIP
 *  2 LB_ATTR_VIP_INDEX      u32  the dataplane's stable VIP index (LB slot 0..255; agent VIP 0..15)
 *  3 LB_ATTR_VIP            4 or 16 bytes, network order
 *  4 LB_ATTR_PROTOCOL       u32  IP protocol of the VIP, 0 = all
 *  5 LB_ATTR_PORT           u32  VIP port, 0 = all
 *  6 LB_ATTR_BACKEND_INDEX  u32  0 = the VIP's totals, else the backend's slot + 1
 *  7 LB_ATTR_BACKEND        4 or 16 bytes (absent for the VIP's totals)
 *  8 LB_ATTR_NEW_FLOWS      u64  flows
 *  9 LB_ATTR_FIRST_CHOICE   u64  flows accepted by the first SRLB candidate
 * 10 LB_ATTR_SECOND_CHOICE  u64  flows accepted by a later candidate
 * 11 LB_ATTR_REJECTS        u64  candidate refusals (flows)
 * 12 LB_ATTR_STICKY_HITS    u64  packets that hit an established entry
 * 13 LB_ATTR_TABLE_FULL     u64  packets whose flow could not be installed
 * 14 LB_ATTR_SEQ            u32  the channel sequence shared with STATUS and IF_COUNTERS
 * </pre>
 * Counters are totals since the VIP (or the backend in the VIP) was added; their meaning per role is in the
 * dataplane's {@code LoadBalancer} and in the README ("Load-balancer counters").
 */
public final class LbCounters {
    /** nlmsg_type of LB_COUNTERS. */
    public static final int MSG_LB_COUNTERS = 0x4C42;
    /** Attribute ids (this message's own namespace). */
    public static final int LB_ATTR_ROLE = 1, LB_ATTR_VIP_INDEX = 2, LB_ATTR_VIP = 3, LB_ATTR_PROTOCOL = 4,
            LB_ATTR_PORT = 5, LB_ATTR_BACKEND_INDEX = 6, LB_ATTR_BACKEND = 7, LB_ATTR_NEW_FLOWS = 8,
            LB_ATTR_FIRST_CHOICE = 9, LB_ATTR_SECOND_CHOICE = 10, LB_ATTR_REJECTS = 11, LB_ATTR_STICKY_HITS = 12,
            LB_ATTR_TABLE_FULL = 13, LB_ATTR_SEQ = 14;
    /** Roles. */
    public static final int ROLE_MAGLEV = 1, ROLE_SRLB_LB = 2, ROLE_SRLB_AGENT = 3;
    /** Counter slots of {@link #counter(int)}: attribute id − {@link #LB_ATTR_NEW_FLOWS}. */
    public static final int NEW_FLOWS = 0, FIRST_CHOICE = 1, SECOND_CHOICE = 2, REJECTS = 3, STICKY_HITS = 4,
            TABLE_FULL = 5, COUNTERS = 6;

    /** Attribute name for error messages, e.g. {@code "LB_ATTR_VIP"}; null if unknown. */
    public static String attrName(int type) {
        return switch (type) {
            case LB_ATTR_ROLE -> "LB_ATTR_ROLE";
            case LB_ATTR_VIP_INDEX -> "LB_ATTR_VIP_INDEX";
            case LB_ATTR_VIP -> "LB_ATTR_VIP";
            case LB_ATTR_PROTOCOL -> "LB_ATTR_PROTOCOL";
            case LB_ATTR_PORT -> "LB_ATTR_PORT";
            case LB_ATTR_BACKEND_INDEX -> "LB_ATTR_BACKEND_INDEX";
            case LB_ATTR_BACKEND -> "LB_ATTR_BACKEND";
            case LB_ATTR_NEW_FLOWS -> "LB_ATTR_NEW_FLOWS";
            case LB_ATTR_FIRST_CHOICE -> "LB_ATTR_FIRST_CHOICE";
            case LB_ATTR_SECOND_CHOICE -> "LB_ATTR_SECOND_CHOICE";
            case LB_ATTR_REJECTS -> "LB_ATTR_REJECTS";
            case LB_ATTR_STICKY_HITS -> "LB_ATTR_STICKY_HITS";
            case LB_ATTR_TABLE_FULL -> "LB_ATTR_TABLE_FULL";
            case LB_ATTR_SEQ -> "LB_ATTR_SEQ";
            default -> null;
        };
    }

    /** Role (1..3). */
    public int role;
    /** VIP index (u32). */
    public long vipIndex;
    /** VIP address bytes, {@link #vipLength} (4 or 16) used. */
    public final byte[] vip = new byte[16];
    /** 4 or 16; 0 when absent. */
    public int vipLength;
    /** VIP protocol (0 all) and port (0 all), u32. */
    public long protocol, port;
    /** 0 = the VIP's totals, else backend slot + 1 (u32). */
    public long backendIndex;
    /** Backend address bytes, {@link #backendLength} (0, 4 or 16) used. */
    public final byte[] backend = new byte[16];
    /** 0 (none: the VIP's totals), 4 or 16. */
    public int backendLength;
    /** The six counters by slot ({@link #NEW_FLOWS} .. {@link #TABLE_FULL}), u64. */
    public final long[] counters = new long[COUNTERS];
    /** Channel sequence (u32). */
    public long seq;

    /** Creates an empty holder. */
    public LbCounters() {}

    /** Forgets every field; returns this. */
    public LbCounters clear() {
        role = 0;
        vipIndex = protocol = port = backendIndex = seq = 0;
        vipLength = backendLength = 0;
        Arrays.fill(vip, (byte) 0);
        Arrays.fill(backend, (byte) 0);
        Arrays.fill(counters, 0);
        return this;
    }

    /** @return counter {@code slot} (0..5) */
    public long counter(int slot) {
        return counters[slot];
    }

    /**
     * Sets the VIP from two longs (IPv6: high and low 64 bits; IPv4: {@code v6 = false}, the address in the low 32
     * bits of {@code lo}). Allocation-free; returns this.
     */
    public LbCounters vip(boolean v6, long hi, long lo) {
        vipLength = put(vip, v6, hi, lo);
        return this;
    }

    /** Sets the backend like {@link #vip}; returns this. */
    public LbCounters backend(boolean v6, long hi, long lo) {
        backendLength = put(backend, v6, hi, lo);
        return this;
    }

    private static int put(byte[] dst, boolean v6, long hi, long lo) {
        Arrays.fill(dst, (byte) 0);
        if (!v6) {
            for (int i = 0; i < 4; i++) {
                dst[i] = (byte) (lo >>> (24 - 8 * i));
            }
            return 4;
        }
        for (int i = 0; i < 8; i++) {
            dst[i] = (byte) (hi >>> (56 - 8 * i));
            dst[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        return 16;
    }

    @Override
    public String toString() {
        return "lb_counters role=" + role + " vip#" + vipIndex + " backend#" + backendIndex + " counters="
                + Arrays.toString(counters) + " seq=" + seq;
    }
}
