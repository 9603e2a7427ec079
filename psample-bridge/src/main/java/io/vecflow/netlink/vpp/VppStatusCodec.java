package io.vecflow.netlink.vpp;

import io.vecflow.netlink.NetlinkAttributes;
import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkWriter;
import java.lang.foreign.MemorySegment;

/**
 * Encodes and decodes VPP USERSOCK STATUS messages (spec §3): {@code nlmsghdr} (type {@link VppUsersock#MSG_STATUS}
 * = 1, flags 0) followed directly by attributes UPTIME_S (20), DROPS (22), SEQ (23), each u32 (nla_len 8). No genl
 * header, and no NLMSG_NOOP/NLMSG_ERROR interpretation: type 1 here is STATUS.
 *
 * <p>Allocation-free; one instance per thread (it holds a reusable attribute cursor).
 */
public final class VppStatusCodec {
    private final NetlinkAttributes attrs = new NetlinkAttributes();

    /** Creates a codec with its own attribute cursor (one per thread). */
    public VppStatusCodec() {
    }

    /**
     * Appends one STATUS message to {@code w}.
     *
     * @param nlmsgSeq nlmsg_seq
     * @param pid      nlmsg_pid (VPP sends getpid())
     * @return {@code w.end()}: bytes in the writer
     */
    public int encode(VppStatus s, NetlinkWriter w, int nlmsgSeq, int pid) {
        w.beginMessage(VppUsersock.MSG_STATUS, 0, nlmsgSeq, pid);
        w.putU32(VppUsersock.ATTR_UPTIME_S, (int) s.uptimeS());
        w.putU32(VppUsersock.ATTR_DROPS, (int) s.drops());
        w.putU32(VppUsersock.ATTR_SEQ, (int) s.seq());
        return w.end();
    }

    /**
     * Decodes a STATUS message into {@code out} (cleared first); unknown attributes are skipped.
     *
     * @param msg buffer; {@code off} its nlmsghdr; {@code len} bytes available (≥ nlmsg_len)
     * @return {@code true} for a STATUS message, {@code false} for any other nlmsg_type (e.g. IF_COUNTERS)
     * @throws NetlinkFormatException a bad nlmsg_len or attribute (field and offset named)
     */
    public boolean decode(MemorySegment msg, long off, int len, VppStatus out) throws NetlinkFormatException {
        out.clear();
        if (!attrs.resetMessage(msg, off, len, VppUsersock.MSG_STATUS, VppUsersock::attrName)) {
            return false;
        }
        NetlinkAttributes a = attrs;
        while (a.next()) {
            switch (a.type()) {
                case VppUsersock.ATTR_UPTIME_S -> out.uptimeS(a.getU32());
                case VppUsersock.ATTR_DROPS -> out.drops(a.getU32());
                case VppUsersock.ATTR_SEQ -> out.seq(a.getU32());
                default -> { }
            }
        }
        return true;
    }
}
