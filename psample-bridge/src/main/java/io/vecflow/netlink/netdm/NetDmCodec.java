package io.vecflow.netlink.netdm;

import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkAttributes;
import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkWriter;
import java.lang.foreign.MemorySegment;

/**
 * Encodes and decodes NET_DM messages: {@code nlmsghdr} (16 bytes) + {@code genlmsghdr} + attributes (Linux
 * {@code include/uapi/linux/net_dropmon.h}; spec {@code docs/netlink.md} §4). The same bytes travel on generic
 * netlink (nlmsg_type = the "NET_DM" family id, group "events") and on vecflow's NETLINK_USERSOCK channel
 * (nlmsg_type {@link NetDm#USERSOCK_MSG_TYPE}).
 *
 * <p>PACKET_ALERT encoding writes the present attributes in ascending id order, each padded to 4: PC, SYMBOL,
 * IN_PORT, TIMESTAMP, PROTO, PAYLOAD, TRUNC_LEN, ORIG_LEN, ORIGIN, HW_TRAP_GROUP_NAME, HW_TRAP_NAME, REASON. IN_PORT
 * follows the {@link NetDm.Convention}: KERNEL nests it ({@code NLA_F_NESTED}; PORT_NETDEV_IFINDEX u32 and, when
 * set, PORT_NETDEV_NAME), VPP writes a flat u32 (spec §4 "VPP sends"). Strings are NUL-terminated.
 *
 * <p>Decoding accepts both IN_PORT forms (spec §6 rule 14): a flat u32 is recognised by a 4-byte payload without
 * {@code NLA_F_NESTED}; anything else is walked as a nest. Strings are read up to their first NUL within the
 * attribute (rule 2); payload length is {@code nla_len − 4} (rule 1), copied up to the holder's capacity. Unknown
 * attributes, PAD, STATS, HW entries and FLOW_ACTION_COOKIE are skipped. A bad header, an attribute whose nla_len
 * is below 4 or past its container, or a fixed-width attribute of the wrong width throws
 * {@link NetlinkFormatException} naming the attribute and its byte offset in the buffer.
 *
 * <p>Neither direction allocates; an instance holds reusable attribute cursors, so use one per thread.
 */
public final class NetDmCodec {
    /** Smallest NET_DM message: nlmsghdr + genlmsghdr. */
    public static final int MIN_MESSAGE = Netlink.NLMSG_HDRLEN + Netlink.GENL_HDRLEN;
    /** Queue length hsflowd configures (spec §5: QUEUE_LEN 1000). */
    public static final int DEFAULT_QUEUE_LEN = 1000;

    private final NetlinkAttributes attrs = new NetlinkAttributes();
    private final NetlinkAttributes port = new NetlinkAttributes();

    /** Creates a codec with its own attribute cursors (one per thread). */
    public NetDmCodec() {
    }

    /**
     * Appends one NET_DM_CMD_PACKET_ALERT to {@code w}.
     *
     * @param a         the alert (not modified)
     * @param w         writer positioned where the message goes
     * @param nlmsgType the family id (genl) or {@link NetDm#USERSOCK_MSG_TYPE}
     * @param seq       nlmsg_seq
     * @param pid       nlmsg_pid (sender's port id, or 0)
     * @param c         IN_PORT convention; also picks genlmsghdr.version (KERNEL 2, VPP 0)
     * @return {@code w.end()}
     * @throws IllegalStateException the writer's buffer is too small
     */
    public int encode(NetDmAlert a, NetlinkWriter w, int nlmsgType, int seq, int pid, NetDm.Convention c) {
        boolean vpp = c == NetDm.Convention.VPP;
        w.beginMessage(nlmsgType, 0, seq, pid)
                .genlHeader(NetDm.CMD_PACKET_ALERT, vpp ? NetDm.GENL_VERSION_VPP : NetDm.GENL_VERSION_KERNEL);
        if (a.has(NetDm.ATTR_PC)) {
            w.putU64(NetDm.ATTR_PC, a.pc());
        }
        if (a.has(NetDm.ATTR_SYMBOL)) {
            w.putStringBytes(NetDm.ATTR_SYMBOL, a.symbolBytes(), 0, a.symbolLength());
        }
        if (a.has(NetDm.ATTR_IN_PORT)) {
            if (vpp) {
                w.putU32(NetDm.ATTR_IN_PORT, (int) a.inPortIfIndex());
            } else {
                int nest = w.beginNested(NetDm.ATTR_IN_PORT);
                w.putU32(NetDm.ATTR_PORT_NETDEV_IFINDEX, (int) a.inPortIfIndex());
                if (a.inPortHasName()) {
                    w.putStringBytes(NetDm.ATTR_PORT_NETDEV_NAME, a.inPortNameBytes(), 0, a.inPortNameLength());
                }
                w.endNested(nest);
            }
        }
        if (a.has(NetDm.ATTR_TIMESTAMP)) {
            w.putU64(NetDm.ATTR_TIMESTAMP, a.timestampNs());
        }
        if (a.has(NetDm.ATTR_PROTO)) {
            w.putU16(NetDm.ATTR_PROTO, a.proto());
        }
        if (a.has(NetDm.ATTR_PAYLOAD)) {
            w.putBytes(NetDm.ATTR_PAYLOAD, a.payload(), 0, a.payloadLength());
        }
        if (a.has(NetDm.ATTR_TRUNC_LEN)) {
            w.putU32(NetDm.ATTR_TRUNC_LEN, (int) a.truncLen());
        }
        if (a.has(NetDm.ATTR_ORIG_LEN)) {
            w.putU32(NetDm.ATTR_ORIG_LEN, (int) a.origLen());
        }
        if (a.has(NetDm.ATTR_ORIGIN)) {
            w.putU16(NetDm.ATTR_ORIGIN, a.origin());
        }
        if (a.has(NetDm.ATTR_HW_TRAP_GROUP_NAME)) {
            w.putStringBytes(NetDm.ATTR_HW_TRAP_GROUP_NAME, a.hwTrapGroupBytes(), 0, a.hwTrapGroupLength());
        }
        if (a.has(NetDm.ATTR_HW_TRAP_NAME)) {
            w.putStringBytes(NetDm.ATTR_HW_TRAP_NAME, a.hwTrapNameBytes(), 0, a.hwTrapNameLength());
        }
        if (a.has(NetDm.ATTR_REASON)) {
            w.putStringBytes(NetDm.ATTR_REASON, a.reasonBytes(), 0, a.reasonLength());
        }
        return w.end();
    }

    /**
     * Appends a NET_DM_CMD_CONFIG request (REQUEST|ACK) setting TRUNC_LEN, QUEUE_LEN and ALERT_MODE = PACKET in one
     * message (hsflowd sends three CONFIGs with one attribute each; the kernel's handler takes all three at once).
     *
     * @param truncLen payload truncation length in bytes (u32; 0 = whole packet)
     * @param queueLen per-CPU alert queue length (u32)
     * @return {@code w.end()}
     */
    public static int encodeConfig(NetlinkWriter w, int familyId, int seq, int pid, long truncLen, long queueLen) {
        w.beginMessage(familyId, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK, seq, pid)
                .genlHeader(NetDm.CMD_CONFIG, NetDm.GENL_VERSION_KERNEL)
                .putU8(NetDm.ATTR_ALERT_MODE, NetDm.ALERT_MODE_PACKET)
                .putU32(NetDm.ATTR_TRUNC_LEN, (int) truncLen)
                .putU32(NetDm.ATTR_QUEUE_LEN, (int) queueLen);
        return w.end();
    }

    /**
     * Appends a NET_DM_CMD_START or NET_DM_CMD_STOP request (REQUEST|ACK) with the SW_DROPS / HW_DROPS flags.
     *
     * @param start true for START, false for STOP
     * @param sw    include NET_DM_ATTR_SW_DROPS
     * @param hw    include NET_DM_ATTR_HW_DROPS
     * @return {@code w.end()}
     * @throws IllegalArgumentException if neither flag is set (the request would be a no-op)
     */
    public static int encodeStartStop(NetlinkWriter w, int familyId, int seq, int pid, boolean start, boolean sw,
            boolean hw) {
        if (!sw && !hw) {
            throw new IllegalArgumentException("NET_DM " + (start ? "START" : "STOP") + " needs sw and/or hw drops");
        }
        w.beginMessage(familyId, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK, seq, pid)
                .genlHeader(start ? NetDm.CMD_START : NetDm.CMD_STOP, NetDm.GENL_VERSION_KERNEL);
        if (sw) {
            w.putFlag(NetDm.ATTR_SW_DROPS);
        }
        if (hw) {
            w.putFlag(NetDm.ATTR_HW_DROPS);
        }
        return w.end();
    }

    /**
     * Decodes one message into {@code out} (cleared first).
     *
     * @param msg buffer holding the message
     * @param off offset of its nlmsghdr
     * @param len bytes available for it (normally its nlmsg_len)
     * @param out holder to fill
     * @return {@code true} for a PACKET_ALERT; {@code false} for another NET_DM command (skipped by callers)
     * @throws NetlinkFormatException a short message, bad nlmsg_len, an attribute with nla_len below 4 or past the
     *                                message (or past IN_PORT for nested ones), or a fixed-width attribute of the
     *                                wrong width — field and offset named
     */
    public boolean decode(MemorySegment msg, long off, int len, NetDmAlert out) throws NetlinkFormatException {
        out.clear();
        if (!attrs.resetGenl(msg, off, len, "NET_DM", NetDm.CMD_PACKET_ALERT, NetDm::attrName)) {
            return false;
        }
        NetlinkAttributes a = attrs;
        while (a.next()) {
            switch (a.type()) {
                case NetDm.ATTR_PC -> out.pc(a.getU64());
                case NetDm.ATTR_SYMBOL -> out.decodedSymbol(msg, a.payloadOffset(), a.payloadLength());
                case NetDm.ATTR_IN_PORT -> inPort(a, out);
                case NetDm.ATTR_TIMESTAMP -> out.timestampNs(a.getU64());
                case NetDm.ATTR_PROTO -> out.proto(a.getU16());
                case NetDm.ATTR_PAYLOAD -> out.decodedPayload(msg, a.payloadOffset(), a.payloadLength());
                case NetDm.ATTR_TRUNC_LEN -> out.truncLen(a.getU32());
                case NetDm.ATTR_ORIG_LEN -> out.origLen(a.getU32());
                case NetDm.ATTR_ORIGIN -> out.origin(a.getU16());
                case NetDm.ATTR_HW_TRAP_GROUP_NAME -> out.decodedHwTrapGroup(msg, a.payloadOffset(), a.payloadLength());
                case NetDm.ATTR_HW_TRAP_NAME -> out.decodedHwTrapName(msg, a.payloadOffset(), a.payloadLength());
                case NetDm.ATTR_REASON -> out.decodedReason(msg, a.payloadOffset(), a.payloadLength());
                default -> { } // ALERT_MODE, PAD, QUEUE_LEN, STATS, HW_*, flags, FLOW_ACTION_COOKIE, newer ids
            }
        }
        return true;
    }

    /** IN_PORT: flat u32 (VPP: 4-byte payload, no NLA_F_NESTED) or the kernel's nest. */
    private void inPort(NetlinkAttributes a, NetDmAlert out) throws NetlinkFormatException {
        if (!a.isNested() && a.payloadLength() == 4) {
            out.decodedInPort(a.getU32(), true);
            return;
        }
        NetlinkAttributes p = a.nested(port, NetDm::portAttrName);
        boolean seen = false;
        while (p.next()) {
            switch (p.type()) {
                case NetDm.ATTR_PORT_NETDEV_IFINDEX -> {
                    out.decodedInPort(p.getU32(), false);
                    seen = true;
                }
                case NetDm.ATTR_PORT_NETDEV_NAME -> out.decodedInPortName(p.segment(), p.payloadOffset(),
                        p.payloadLength());
                default -> { }
            }
        }
        if (!seen) {
            out.decodedInPort(0, false); // a nest without an ifindex: the port is unknown (sFlow 0)
        }
    }
}
