package io.vecflow.hsflowd.dropmon;

import java.util.Arrays;

/**
 * NET_DM PACKET_ALERT vectors built by hand from {@code include/uapi/linux/net_dropmon.h} and
 * {@code docs/netlink.md} §1/§4 (nlmsghdr 16 B, genlmsghdr 4 B, nlattr u16 len + u16 type, payload padded to 4),
 * in the kernel convention (IN_PORT nested with NLA_F_NESTED = 0x8000) and VPP's (IN_PORT a flat u32).
 */
final class Vectors {
    private Vectors() {}

    static final int TYPE = 0x11; // NetDm.USERSOCK_MSG_TYPE
    static final long TS = 1_700_000_123_000_000_042L;

    /** 160 bytes: Ethernet (dst 02:..:02, src 02:..:01, IPv4) + IPv4 UDP 10.0.0.1 → 10.0.0.2 + filler. */
    static byte[] frame(int n) {
        byte[] d = new byte[n];
        byte[] eth = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00};
        System.arraycopy(eth, 0, d, 0, eth.length);
        byte[] ip = {0x45, 0, 0, (byte) 0x92, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2};
        System.arraycopy(ip, 0, d, 14, Math.min(ip.length, Math.max(0, n - 14)));
        for (int i = 34; i < n; i++) {
            d[i] = (byte) i;
        }
        return d;
    }

    private static Le header(int version) {
        return new Le().u32(0).u16(TYPE).u16(0).u32(1).u32(0)   // nlmsghdr (len patched), flags 0, seq 1, pid 0
                .u8(5).u8(version).u16(0);                     // genlmsghdr: NET_DM_CMD_PACKET_ALERT
    }

    /** Kernel software drop: reason NO_SOCKET, symbol kfree_skb_reason, in port 3 "eth0", 160-byte payload. */
    static byte[] kernelNoSocket() {
        return header(2)
                .u16(12).u16(2).u64(0xFFFF_FFFF_81A2_B3C4L)     // PC
                .str(3, "kfree_skb_reason")                      // SYMBOL
                .u16(24).u16(0x8004)                             // IN_PORT, nested
                .u16(8).u16(0).u32(3)                            //   PORT_NETDEV_IFINDEX 3
                .str(1, "eth0")                                  //   PORT_NETDEV_NAME
                .u16(12).u16(5).u64(TS)                          // TIMESTAMP
                .u16(6).u16(6).u16(0x0800).pad(2)                // PROTO IPv4
                .u16(4 + 160).u16(7).raw(frame(160))             // PAYLOAD (160 bytes)
                .u16(8).u16(10).u32(160)                         // ORIG_LEN
                .u16(6).u16(14).u16(0).pad(2)                    // ORIGIN SW
                .str(23, "NO_SOCKET")                            // REASON
                .message();
    }

    /** Kernel hardware drop: trap l3_drops/blackhole_route on port 5, 64-byte payload of a 1500-byte packet. */
    static byte[] kernelBlackhole() {
        return header(2)
                .u16(12).u16(0x8004).u16(8).u16(0).u32(5)       // IN_PORT nested {IFINDEX 5}
                .u16(12).u16(5).u64(TS)
                .u16(6).u16(6).u16(0x0800).pad(2)
                .u16(4 + 64).u16(7).raw(frame(64))
                .u16(8).u16(10).u32(1500)
                .u16(6).u16(14).u16(1).pad(2)                    // ORIGIN HW
                .str(15, "l3_drops").str(16, "blackhole_route")
                .message();
    }

    /** VPP: flat IN_PORT 7, TRUNC_LEN 128, trap vpp_ip4-input / vpp_ip4_ttl_expired, no timestamp, no reason. */
    static byte[] vppTtl() {
        return header(0)
                .u16(8).u16(4).u32(7)                            // IN_PORT flat u32 (no NLA_F_NESTED)
                .u16(6).u16(6).u16(0x0800).pad(2)                // PROTO 0x0800 always
                .u16(4 + 160).u16(7).raw(frame(160))             // PAYLOAD 160 (more than TRUNC_LEN)
                .u16(8).u16(9).u32(128)                          // TRUNC_LEN 128
                .u16(8).u16(10).u32(1514)                        // ORIG_LEN
                .u16(6).u16(14).u16(0).pad(2)                    // ORIGIN SW
                .str(15, "vpp_ip4-input").str(16, "vpp_ip4_ttl_expired")
                .message();
    }

    /** Control trap (group lldp): not a drop. */
    static byte[] lldpTrap() {
        return header(2)
                .u16(12).u16(0x8004).u16(8).u16(0).u32(2)
                .u16(6).u16(6).u16(0x88CC).pad(2)
                .u16(4 + 60).u16(7).raw(frame(60))
                .str(15, "lldp").str(16, "lldp")
                .message();
    }

    /** Reason NOT_SPECIFIED (unknown) falls through to the symbol: tcp_v4_rcv → unknown_l4 (289). */
    static byte[] notSpecifiedTcp() {
        return header(2)
                .str(3, "tcp_v4_rcv")
                .u16(12).u16(0x8004).u16(8).u16(0).u32(3)
                .u16(6).u16(6).u16(0x0800).pad(2)
                .u16(4 + 60).u16(7).raw(frame(60))
                .str(23, "NOT_SPECIFIED")
                .message();
    }

    /** Socket teardown (skb_queue_purge, PROTO 0): not reported. */
    static byte[] purgeNoProto() {
        return header(2)
                .str(3, "skb_queue_purge")
                .u16(6).u16(6).u16(0).pad(2)
                .u16(4 + 20).u16(7).raw(Arrays.copyOf(frame(60), 20))
                .message();
    }

    /** A drop with reason IP_INNOROUTES but PROTO 0: counted as no-proto. */
    static byte[] noProto() {
        return header(2)
                .u16(6).u16(6).u16(0).pad(2)
                .u16(4 + 20).u16(7).raw(Arrays.copyOf(frame(60), 20))
                .str(23, "IP_INNOROUTES")
                .message();
    }
}
