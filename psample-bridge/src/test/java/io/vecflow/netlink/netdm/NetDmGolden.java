package io.vecflow.netlink.netdm;

import io.vecflow.netlink.TestBytes;
import java.util.Arrays;

/**
 * NET_DM PACKET_ALERT vectors assembled by hand from {@code include/uapi/linux/net_dropmon.h} and the tables in
 * {@code docs/netlink.md} §1 and §4, independent of the encoder.
 */
final class NetDmGolden {
    private NetDmGolden() {}

    static final long TS = 1_700_000_000_987_654_321L;

    /** 64 bytes: Ethernet + IPv4 + UDP header, then filler. */
    static byte[] payload64() {
        byte[] d = new byte[64];
        byte[] eth = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00};
        System.arraycopy(eth, 0, d, 0, eth.length);
        byte[] ip = {0x45, 0, 0, 0x54, 0, 1, 0, 0, 1, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2};
        System.arraycopy(ip, 0, d, 14, ip.length);
        for (int i = 34; i < 64; i++) {
            d[i] = (byte) (0x30 + i);
        }
        return d;
    }

    /** The alert in {@link #kernelSwMessage}. */
    static NetDmAlert kernelSwAlert() {
        byte[] p = payload64();
        return new NetDmAlert().pc(0xFFFF_FFFF_81A2_B3C4L).symbol("kfree_skb_reason").inPortIfIndex(3)
                .inPortName("eth0").timestampNs(TS).proto(0x0800).payload(p, 0, p.length).origLen(98)
                .origin(NetDm.ORIGIN_SW).reason("NO_SOCKET");
    }

    /**
     * A software drop as the kernel sends it (net/core/drop_monitor.c): genl version 2, IN_PORT nested with
     * NLA_F_NESTED {IFINDEX 3, NAME "eth0"}, REASON "NO_SOCKET"; attributes in ascending id order.
     */
    static byte[] kernelSwMessage(int nlmsgType, int seq, int pid) {
        byte[] out = TestBytes.le()
                .u32(200).u16(nlmsgType).u16(0).u32(seq).u32(pid)  // nlmsghdr: len 200, flags 0
                .u8(5).u8(2).u16(0)                                 // genlmsghdr: PACKET_ALERT, version 2
                .u16(12).u16(2).u64(0xFFFF_FFFF_81A2_B3C4L)        // PC (2): u64
                .u16(21).u16(3).raw("kfree_skb_reason".getBytes()).u8(0).zeros(3) // SYMBOL (3): 16 chars + NUL
                .u16(24).u16(0x8004)                               // IN_PORT (4) | NLA_F_NESTED, 4 + 8 + 12
                .u16(8).u16(0).u32(3)                              //   PORT_NETDEV_IFINDEX (0): u32 3
                .u16(9).u16(1).raw("eth0".getBytes()).u8(0).zeros(3) //   PORT_NETDEV_NAME (1): "eth0" + NUL
                .u16(12).u16(5).u64(TS)                            // TIMESTAMP (5): ns
                .u16(6).u16(6).u16(0x0800).zeros(2)                // PROTO (6): u16 0x0800
                .u16(68).u16(7).raw(payload64())                   // PAYLOAD (7): 64 bytes
                .u16(8).u16(10).u32(98)                            // ORIG_LEN (10): 98
                .u16(6).u16(14).u16(0).zeros(2)                    // ORIGIN (14): SW
                .u16(14).u16(23).raw("NO_SOCKET".getBytes()).u8(0).zeros(2) // REASON (23): 9 chars + NUL
                .bytes();
        check(out, 200);
        return out;
    }

    /** The alert in {@link #kernelHwMessage}. */
    static NetDmAlert kernelHwAlert() {
        byte[] p = Arrays.copyOf(payload64(), 14);
        return new NetDmAlert().inPortIfIndex(5).timestampNs(TS).proto(0x86DD).payload(p, 0, p.length).origLen(1500)
                .origin(NetDm.ORIGIN_HW).hwTrapGroup("l3_drops").hwTrapName("blackhole_route");
    }

    /** A hardware (devlink trap) drop: IN_PORT nested without a name, ORIGIN HW, trap group and name. */
    static byte[] kernelHwMessage(int nlmsgType, int seq, int pid) {
        byte[] out = TestBytes.le()
                .u32(124).u16(nlmsgType).u16(0).u32(seq).u32(pid)
                .u8(5).u8(2).u16(0)
                .u16(12).u16(0x8004).u16(8).u16(0).u32(5)          // IN_PORT nested {IFINDEX 5}
                .u16(12).u16(5).u64(TS)                            // TIMESTAMP
                .u16(6).u16(6).u16(0x86DD).zeros(2)                // PROTO IPv6
                .u16(18).u16(7).raw(Arrays.copyOf(payload64(), 14)).zeros(2) // PAYLOAD 14 bytes + 2 pad
                .u16(8).u16(10).u32(1500)                          // ORIG_LEN
                .u16(6).u16(14).u16(1).zeros(2)                    // ORIGIN HW
                .u16(13).u16(15).raw("l3_drops".getBytes()).u8(0).zeros(3)        // HW_TRAP_GROUP_NAME
                .u16(20).u16(16).raw("blackhole_route".getBytes()).u8(0)          // HW_TRAP_NAME (16 bytes)
                .bytes();
        check(out, 124);
        return out;
    }

    /** The alert in {@link #vppMessage}. */
    static NetDmAlert vppAlert() {
        byte[] p = payload64();
        return new NetDmAlert().inPortIfIndex(7).proto(0x0800).payload(p, 0, p.length).truncLen(128).origLen(1514)
                .origin(NetDm.ORIGIN_SW).hwTrapGroup("vpp_ip4-input").hwTrapName("vpp_ip4_ttl_expired");
    }

    /**
     * What VPP's sflow plugin sends (spec §4): genl version 0, IN_PORT a flat u32 hw_if_index, PROTO 0x0800 always,
     * TRUNC_LEN = header bytes, ORIG_LEN, ORIGIN SW, trap group "vpp_" + node, trap "vpp_" + error counter; no
     * TIMESTAMP, no REASON.
     */
    static byte[] vppMessage(int nlmsgType, int seq, int pid) {
        byte[] out = TestBytes.le()
                .u32(172).u16(nlmsgType).u16(0).u32(seq).u32(pid)
                .u8(5).u8(0).u16(0)                                // genlmsghdr: PACKET_ALERT, version 0 (VPP)
                .u16(8).u16(4).u32(7)                              // IN_PORT (4): flat u32 7, no NLA_F_NESTED
                .u16(6).u16(6).u16(0x0800).zeros(2)                // PROTO
                .u16(68).u16(7).raw(payload64())                   // PAYLOAD
                .u16(8).u16(9).u32(128)                            // TRUNC_LEN
                .u16(8).u16(10).u32(1514)                          // ORIG_LEN
                .u16(6).u16(14).u16(0).zeros(2)                    // ORIGIN SW
                .u16(18).u16(15).raw("vpp_ip4-input".getBytes()).u8(0).zeros(2)      // group: 13 + NUL
                .u16(24).u16(16).raw("vpp_ip4_ttl_expired".getBytes()).u8(0)         // trap: 19 + NUL
                .bytes();
        check(out, 172);
        return out;
    }

    private static void check(byte[] out, int len) {
        if (out.length != len) {
            throw new AssertionError("golden vector length " + out.length + ", nlmsg_len says " + len);
        }
    }
}
