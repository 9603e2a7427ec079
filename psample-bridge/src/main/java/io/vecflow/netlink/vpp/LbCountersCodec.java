package io.vecflow.netlink.vpp;

import io.vecflow.netlink.NetlinkAttributes;
import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Encodes and decodes vecflow's LB_COUNTERS messages on the USERSOCK channel (layout in {@link LbCounters}).
 *
 * <p>Decoding checks each attribute's width (u32 = 4, u64 = 8, addresses 4 or 16) and throws
 * {@link NetlinkFormatException} naming the attribute and its offset otherwise; unknown (newer) attributes are
 * skipped. Allocation-free; one instance per thread.
 */
public final class LbCountersCodec {
    private final NetlinkAttributes attrs = new NetlinkAttributes();

    /** Creates a codec with its own attribute cursor (one per thread). */
    public LbCountersCodec() {}

    /**
     * Appends one LB_COUNTERS message to {@code w}: every attribute, the backend only when
     * {@code c.backendLength > 0}.
     *
     * @param nlmsgSeq nlmsg_seq
     * @param pid nlmsg_pid
     * @return {@code w.end()}: bytes in the writer
     * @throws IllegalStateException the writer's buffer is too small; a VIP length other than 4 or 16
     */
    public int encode(LbCounters c, NetlinkWriter w, int nlmsgSeq, int pid) {
        if (c.vipLength != 4 && c.vipLength != 16) {
            throw new IllegalStateException("LB_COUNTERS VIP of " + c.vipLength + " bytes, need 4 or 16");
        }
        w.beginMessage(LbCounters.MSG_LB_COUNTERS, 0, nlmsgSeq, pid);
        w.putU32(LbCounters.LB_ATTR_ROLE, c.role);
        w.putU32(LbCounters.LB_ATTR_VIP_INDEX, (int) c.vipIndex);
        w.putBytes(LbCounters.LB_ATTR_VIP, c.vip, 0, c.vipLength);
        w.putU32(LbCounters.LB_ATTR_PROTOCOL, (int) c.protocol);
        w.putU32(LbCounters.LB_ATTR_PORT, (int) c.port);
        w.putU32(LbCounters.LB_ATTR_BACKEND_INDEX, (int) c.backendIndex);
        if (c.backendLength > 0) {
            w.putBytes(LbCounters.LB_ATTR_BACKEND, c.backend, 0, c.backendLength);
        }
        for (int i = 0; i < LbCounters.COUNTERS; i++) {
            w.putU64(LbCounters.LB_ATTR_NEW_FLOWS + i, c.counters[i]);
        }
        w.putU32(LbCounters.LB_ATTR_SEQ, (int) c.seq);
        return w.end();
    }

    /**
     * Decodes an LB_COUNTERS message into {@code out} (cleared first).
     *
     * @param msg buffer; {@code off} its nlmsghdr; {@code len} bytes available (≥ nlmsg_len)
     * @return true for LB_COUNTERS, false for any other nlmsg_type
     * @throws NetlinkFormatException a bad nlmsg_len, an attribute whose nla_len is below 4 or past the message, one
     *     of the wrong width, or a message without LB_ATTR_VIP (field and offset named)
     */
    public boolean decode(MemorySegment msg, long off, int len, LbCounters out) throws NetlinkFormatException {
        out.clear();
        if (!attrs.resetMessage(msg, off, len, LbCounters.MSG_LB_COUNTERS, LbCounters::attrName)) {
            return false;
        }
        NetlinkAttributes a = attrs;
        while (a.next()) {
            int id = a.type();
            switch (id) {
                case LbCounters.LB_ATTR_ROLE -> out.role = (int) a.getU32();
                case LbCounters.LB_ATTR_VIP_INDEX -> out.vipIndex = a.getU32();
                case LbCounters.LB_ATTR_PROTOCOL -> out.protocol = a.getU32();
                case LbCounters.LB_ATTR_PORT -> out.port = a.getU32();
                case LbCounters.LB_ATTR_BACKEND_INDEX -> out.backendIndex = a.getU32();
                case LbCounters.LB_ATTR_SEQ -> out.seq = a.getU32();
                case LbCounters.LB_ATTR_VIP -> out.vipLength = address(a, msg, out.vip);
                case LbCounters.LB_ATTR_BACKEND -> out.backendLength = address(a, msg, out.backend);
                default -> {
                    if (id >= LbCounters.LB_ATTR_NEW_FLOWS && id <= LbCounters.LB_ATTR_TABLE_FULL) {
                        out.counters[id - LbCounters.LB_ATTR_NEW_FLOWS] = a.getU64();
                    } // newer ids: skipped
                }
            }
        }
        if (out.vipLength == 0) {
            throw new NetlinkFormatException("LB_COUNTERS LB_ATTR_VIP", off, "missing");
        }
        return true;
    }

    private static int address(NetlinkAttributes a, MemorySegment msg, byte[] dst) throws NetlinkFormatException {
        int n = a.payloadLength();
        if (n != 4) {
            a.expectLength(16); // names the attribute and its offset
        }
        MemorySegment.copy(msg, ValueLayout.JAVA_BYTE, a.payloadOffset(), dst, 0, n);
        return n;
    }
}
