package io.vecflow.netlink.psample;

import io.vecflow.netlink.TestBytes;

/**
 * Test vectors assembled by hand from the tables in {@code docs/netlink.md} §1–2 and
 * {@code include/uapi/linux/psample.h}, independent of the encoder.
 */
final class Golden {
    private Golden() {}

    /** 64 bytes of "header data": an Ethernet + IPv4 + UDP header followed by payload bytes. */
    static byte[] headerData() {
        byte[] d = new byte[64];
        byte[] eth = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00};
        System.arraycopy(eth, 0, d, 0, eth.length);
        byte[] ip = {0x45, 0, 0x05, (byte) 0xDC, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2};
        System.arraycopy(ip, 0, d, 14, ip.length);
        byte[] udp = {0x30, 0x39, 0x18, (byte) 0xC7, 0x05, (byte) 0xC8, 0, 0};
        System.arraycopy(udp, 0, d, 34, udp.length);
        for (int i = 42; i < 64; i++) {
            d[i] = (byte) (0xA0 + i);
        }
        return d;
    }

    /** The sample encoded by {@link #vppUsersockMessage(int, int)}. */
    static PsampleSample vppSample() {
        byte[] d = headerData();
        return new PsampleSample().iifIndex(7).oifIndex(0).origSize(1514).sampleGroup(1).groupSeq(42).sampleRate(10)
                .data(d, 0, d.length).proto(1);
    }

    /**
     * PSAMPLE_CMD_SAMPLE in the VPP convention, as sent on vecflow's USERSOCK channel: iif 7, oif 0, origsize 1514,
     * group 1, seq 42, rate 10, 64 bytes of DATA, PROTO 1.
     */
    static byte[] vppUsersockMessage(int nlmsgSeq, int nlmsgPid) {
        TestBytes b = TestBytes.le()
                // struct nlmsghdr (16 B)
                .u32(144)               // nlmsg_len: 16 + 4 + 6*8 + (4+64) + 8 = 144
                .u16(0x10)              // nlmsg_type: Psample.USERSOCK_MSG_TYPE
                .u16(0)                 // nlmsg_flags: 0 (as VPP)
                .u32(nlmsgSeq)          // nlmsg_seq
                .u32(nlmsgPid)          // nlmsg_pid
                // struct genlmsghdr (4 B)
                .u8(0)                  // cmd: PSAMPLE_CMD_SAMPLE
                .u8(1)                  // version: 1
                .u16(0)                 // reserved
                // attributes, ascending id, each padded to 4
                .u16(8).u16(0).u32(7)       // PSAMPLE_ATTR_IIFINDEX (0): u32 (VPP) = 7
                .u16(8).u16(1).u32(0)       // PSAMPLE_ATTR_OIFINDEX (1): u32, present even when 0 (VPP ingress)
                .u16(8).u16(2).u32(1514)    // PSAMPLE_ATTR_ORIGSIZE (2): 1514 = 0x5EA
                .u16(8).u16(3).u32(1)       // PSAMPLE_ATTR_SAMPLE_GROUP (3): 1
                .u16(8).u16(4).u32(42)      // PSAMPLE_ATTR_GROUP_SEQ (4): 42
                .u16(8).u16(5).u32(10)      // PSAMPLE_ATTR_SAMPLE_RATE (5): 1-in-10
                .u16(68).u16(6)             // PSAMPLE_ATTR_DATA (6): nla_len 4 + 64
                .raw(headerData())          //   64 header bytes (already 4-aligned)
                .u16(6).u16(14).u16(1)      // PSAMPLE_ATTR_PROTO (14): u16 1 = sFlow header_protocol Ethernet,
                .zeros(2);                  //   nla_len 6 unpadded, 2 bytes of padding
        byte[] out = b.bytes();
        if (out.length != 144) {
            throw new AssertionError("golden vector length " + out.length);
        }
        return out;
    }

    /** The sample encoded by {@link #kernelMessage(int)}. */
    static PsampleSample kernelSample() {
        byte[] d = new byte[14];
        System.arraycopy(headerData(), 0, d, 0, 14);
        return new PsampleSample().iifIndex(3).oifIndex(5).origSize(98).sampleGroup(1).groupSeq(0).sampleRate(400)
                .data(d, 0, d.length).timestampNs(1_700_000_000_123_456_789L).proto(0x0800);
    }

    /**
     * PSAMPLE_CMD_SAMPLE in the kernel convention (net/psample/psample.c): u16 ifindexes, GROUP_SEQ from 0, a
     * TIMESTAMP, PROTO = ethertype 0x0800; 14 bytes of DATA (an Ethernet header).
     */
    static byte[] kernelMessage(int nlmsgType) {
        return TestBytes.le()
                .u32(108)                   // nlmsg_len: 16 + 4 + 8 + 8 + 4*8 + (4+14 → 20) + 12 + 8 = 108
                .u16(nlmsgType)             // nlmsg_type: the psample family id
                .u16(0).u32(1).u32(0)       // flags, seq 1, pid 0 (the kernel)
                .u8(0).u8(1).u16(0)         // genlmsghdr: PSAMPLE_CMD_SAMPLE, version 1
                .u16(6).u16(0).u16(3).zeros(2)     // IIFINDEX: u16 3 (nla_len 6) + 2 pad
                .u16(6).u16(1).u16(5).zeros(2)     // OIFINDEX: u16 5 + 2 pad
                .u16(8).u16(2).u32(98)             // ORIGSIZE 98
                .u16(8).u16(3).u32(1)              // SAMPLE_GROUP 1
                .u16(8).u16(4).u32(0)              // GROUP_SEQ 0 (kernel starts at 0)
                .u16(8).u16(5).u32(400)            // SAMPLE_RATE 400
                .u16(18).u16(6)                    // DATA: nla_len 4 + 14 (unpadded)
                .raw(java.util.Arrays.copyOf(headerData(), 14)).zeros(2)   // 14 bytes + 2 pad
                .u16(12).u16(13).u64(1_700_000_000_123_456_789L)         // TIMESTAMP (ns, u64)
                .u16(6).u16(14).u16(0x0800).zeros(2)                      // PROTO: ethertype IPv4
                .bytes();
    }
}
