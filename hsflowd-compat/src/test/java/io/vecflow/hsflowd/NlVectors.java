package io.vecflow.hsflowd;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Golden netlink byte vectors assembled by hand from the layouts in {@code docs/netlink.md} §1–3 (nlmsghdr,
 * genlmsghdr, nlattr padded to 4; PSAMPLE attribute ids and widths per convention; VPP USERSOCK ids), independent of
 * vecflow's encoders. Little-endian (x86 host order).
 */
final class NlVectors {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private NlVectors() {}

    static NlVectors le() {
        return new NlVectors();
    }

    NlVectors u8(int v) {
        out.write(v);
        return this;
    }

    NlVectors u16(int v) {
        out.writeBytes(ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN).putShort((short) v).array());
        return this;
    }

    NlVectors u32(long v) {
        out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) v).array());
        return this;
    }

    NlVectors u64(long v) {
        out.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array());
        return this;
    }

    NlVectors raw(byte[] b) {
        out.writeBytes(b);
        return this;
    }

    NlVectors zeros(int n) {
        out.writeBytes(new byte[n]);
        return this;
    }

    /** An attribute: nla_len = 4 + payload (unpadded), then the payload padded to 4. */
    NlVectors attr(int type, byte[] payload) {
        u16(4 + payload.length).u16(type).raw(payload);
        return zeros((4 - payload.length % 4) % 4);
    }

    NlVectors attrU16(int type, int v) {
        return attr(type, ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN).putShort((short) v).array());
    }

    NlVectors attrU32(int type, long v) {
        return attr(type, ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) v).array());
    }

    NlVectors attrU64(int type, long v) {
        return attr(type, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array());
    }

    int size() {
        return out.size();
    }

    byte[] bytes() {
        return out.toByteArray();
    }

    /** Prepends an nlmsghdr (len patched in) to {@code body}. */
    static byte[] message(int type, int seq, int pid, byte[] body) {
        return le().u32(16 + body.length).u16(type).u16(0).u32(seq).u32(pid).raw(body).bytes();
    }

    /**
     * PSAMPLE_CMD_SAMPLE, kernel convention ({@code net/psample/psample.c}): genlmsghdr (cmd 0, version 1);
     * IIFINDEX / OIFINDEX u16, omitted when 0; ORIGSIZE, SAMPLE_GROUP, GROUP_SEQ, SAMPLE_RATE u32; DATA; TIMESTAMP
     * u64; PROTO u16 = an ethertype. nlmsg_pid 0 (the kernel).
     */
    static byte[] kernelSample(int nlmsgType, int iif, int oif, long origSize, int group, long seq, long rate,
            byte[] data, int ethertype) {
        NlVectors b = le().u8(0).u8(1).u16(0);
        if (iif != 0) {
            b.attrU16(0, iif);
        }
        if (oif != 0) {
            b.attrU16(1, oif);
        }
        b.attrU32(2, origSize).attrU32(3, group).attrU32(4, seq).attrU32(5, rate).attr(6, data)
                .attrU64(13, 1_700_000_000_000_000_000L).attrU16(14, ethertype);
        return message(nlmsgType, (int) seq + 1, 0, b.bytes());
    }

    /**
     * PSAMPLE_CMD_SAMPLE, VPP convention (FDio/vpp {@code sflow_psample.c}): IIFINDEX and OIFINDEX u32 always (0 on
     * ingress), ORIGSIZE, SAMPLE_GROUP (3/4), GROUP_SEQ (from 1), SAMPLE_RATE, DATA, PROTO u16 = 1, ascending ids.
     */
    static byte[] vppSample(int nlmsgType, int pid, long iif, long oif, long origSize, int group, long seq, long rate,
            byte[] data) {
        return vppSample(nlmsgType, pid, iif, oif, origSize, group, seq, rate, data, 1);
    }

    /** {@link #vppSample} with another PROTO (an sFlow header_protocol in VPP's convention). */
    static byte[] vppSample(int nlmsgType, int pid, long iif, long oif, long origSize, int group, long seq, long rate,
            byte[] data, int proto) {
        byte[] body = le().u8(0).u8(1).u16(0).attrU32(0, iif).attrU32(1, oif).attrU32(2, origSize)
                .attrU32(3, group).attrU32(4, seq).attrU32(5, rate).attr(6, data).attrU16(14, proto).bytes();
        return message(nlmsgType, (int) seq, pid, body);
    }

    /** VPP USERSOCK STATUS (type 1 — not NLMSG_NOOP here): UPTIME_S (20), DROPS (22), SEQ (23), u32 each. */
    static byte[] vppStatus(int pid, long uptimeS, long drops, long seq) {
        return message(1, (int) seq, pid, le().attrU32(20, uptimeS).attrU32(22, drops).attrU32(23, seq).bytes());
    }

    /**
     * VPP USERSOCK IF_COUNTERS (type 2 — not NLMSG_ERROR here), attributes in ascending id order as VPP sends them:
     * PORTNAME (no NUL), IFINDEX, IFTYPE, IFSPEED u64, IFDIRECTION, OPER_UP, ADMIN_UP, the 12 u64 counters
     * (id 7..18 from {@code ctr}), HW_ADDRESS (6 bytes), OSINDEX (omitted when negative), SEQ.
     */
    static byte[] vppIfCounters(int pid, String name, long vppIndex, long osIndex, long ifType, long speed,
            long[] ctr, long seq) {
        NlVectors b = le().attr(0, name.getBytes(java.nio.charset.StandardCharsets.US_ASCII)).attrU32(1, vppIndex)
                .attrU32(2, ifType).attrU64(3, speed).attrU32(4, 1).attrU32(5, 1).attrU32(6, 1);
        for (int i = 0; i < 12; i++) {
            b.attrU64(7 + i, ctr[i]);
        }
        b.attr(19, new byte[] {2, 0, 0, 0, 0, (byte) vppIndex});
        if (osIndex >= 0) {
            b.attrU32(21, osIndex);
        }
        b.attrU32(23, seq);
        return message(2, (int) seq, pid, b.bytes());
    }
}
