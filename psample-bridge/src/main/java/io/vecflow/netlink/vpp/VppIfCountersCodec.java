package io.vecflow.netlink.vpp;

import io.vecflow.netlink.NetlinkAttributes;
import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkWriter;
import java.lang.foreign.MemorySegment;

/**
 * Encodes and decodes VPP USERSOCK IF_COUNTERS messages in VPP's exact format (spec {@code docs/netlink.md} §3;
 * FDio/vpp {@code src/plugins/sflow/sflow.c} and {@code sflow_usersock.c}): a plain {@code nlmsghdr} with
 * nlmsg_type {@link VppUsersock#MSG_IF_COUNTERS} = 2 — the number of NLMSG_ERROR, which it is not on this channel —
 * flags 0, nlmsg_pid = the sender's pid, followed directly (no genl header) by attributes in ascending id order, each
 * padded to 4: PORTNAME (string, no NUL), IFINDEX u32, IFTYPE u32, IFSPEED u64, IFDIRECTION u32, OPER_UP u32,
 * ADMIN_UP u32, the twelve u64 counters RX_OCTETS..TX_ERRORS, HW_ADDRESS (6 bytes, nla_len 10), OSINDEX u32 (only
 * when present), SEQ u32.
 *
 * <p>Decoding checks each attribute's width (u32 = 4, u64 = 8, HW_ADDRESS = 6) and throws
 * {@link NetlinkFormatException} naming the attribute and its offset otherwise; unknown (newer) attributes are
 * skipped; the port name is kept up to 255 bytes. Allocation-free; one instance per thread.
 */
public final class VppIfCountersCodec {
    private final NetlinkAttributes attrs = new NetlinkAttributes();

    /** Creates a codec with its own attribute cursor (one per thread). */
    public VppIfCountersCodec() {
    }

    /**
     * Appends one IF_COUNTERS message to {@code w}, writing the attributes {@code c} has, in ascending id order.
     *
     * @param nlmsgSeq nlmsg_seq
     * @param pid      nlmsg_pid (VPP sends getpid())
     * @return {@code w.end()}: bytes in the writer
     * @throws IllegalStateException if the writer's buffer is too small
     */
    public int encode(VppIfCounters c, NetlinkWriter w, int nlmsgSeq, int pid) {
        w.beginMessage(VppUsersock.MSG_IF_COUNTERS, 0, nlmsgSeq, pid);
        if (c.has(VppUsersock.ATTR_PORTNAME)) {
            w.putBytes(VppUsersock.ATTR_PORTNAME, c.portName(), 0, c.portNameLength());
        }
        u32(c, w, VppUsersock.ATTR_IFINDEX, c.ifIndex());
        u32(c, w, VppUsersock.ATTR_IFTYPE, c.ifType());
        if (c.has(VppUsersock.ATTR_IFSPEED)) {
            w.putU64(VppUsersock.ATTR_IFSPEED, c.ifSpeed());
        }
        u32(c, w, VppUsersock.ATTR_IFDIRECTION, c.ifDirection());
        u32(c, w, VppUsersock.ATTR_OPER_UP, c.operUp());
        u32(c, w, VppUsersock.ATTR_ADMIN_UP, c.adminUp());
        for (int id = VppUsersock.ATTR_RX_OCTETS; id <= VppUsersock.ATTR_TX_ERRORS; id++) {
            if (c.has(id)) {
                w.putU64(id, c.counter(id));
            }
        }
        if (c.has(VppUsersock.ATTR_HW_ADDRESS)) {
            w.putBytes(VppUsersock.ATTR_HW_ADDRESS, c.hwAddress(), 0, 6);
        }
        u32(c, w, VppUsersock.ATTR_OSINDEX, c.osIndex());
        u32(c, w, VppUsersock.ATTR_SEQ, c.seq());
        return w.end();
    }

    private static void u32(VppIfCounters c, NetlinkWriter w, int id, long v) {
        if (c.has(id)) {
            w.putU32(id, (int) v);
        }
    }

    /**
     * Decodes an IF_COUNTERS message into {@code out} (cleared first).
     *
     * @param msg buffer; {@code off} its nlmsghdr; {@code len} bytes available (≥ nlmsg_len)
     * @return {@code true} for IF_COUNTERS (type 2), {@code false} for any other nlmsg_type (e.g. STATUS)
     * @throws NetlinkFormatException a bad nlmsg_len, an attribute whose nla_len is below 4 or past the message, or
     *                                one of the wrong width (field and offset named)
     */
    public boolean decode(MemorySegment msg, long off, int len, VppIfCounters out) throws NetlinkFormatException {
        out.clear();
        if (!attrs.resetMessage(msg, off, len, VppUsersock.MSG_IF_COUNTERS, VppUsersock::attrName)) {
            return false;
        }
        NetlinkAttributes a = attrs;
        while (a.next()) {
            int id = a.type();
            switch (id) {
                case VppUsersock.ATTR_PORTNAME -> out.decodedPortName(msg, a.payloadOffset(), a.payloadLength());
                case VppUsersock.ATTR_IFINDEX, VppUsersock.ATTR_IFTYPE, VppUsersock.ATTR_IFDIRECTION,
                        VppUsersock.ATTR_OPER_UP, VppUsersock.ATTR_ADMIN_UP, VppUsersock.ATTR_OSINDEX,
                        VppUsersock.ATTR_SEQ -> out.setU32(id, a.getU32());
                case VppUsersock.ATTR_IFSPEED -> out.ifSpeed(a.getU64());
                case VppUsersock.ATTR_HW_ADDRESS -> {
                    a.expectLength(6);
                    out.decodedHwAddress(msg, a.payloadOffset());
                }
                default -> {
                    if (id >= VppUsersock.ATTR_RX_OCTETS && id <= VppUsersock.ATTR_TX_ERRORS) {
                        out.counter(id, a.getU64());
                    } // UPTIME_S / DROPS (STATUS attributes) and newer ids: skipped
                }
            }
        }
        return true;
    }
}
