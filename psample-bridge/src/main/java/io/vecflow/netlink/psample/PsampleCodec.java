package io.vecflow.netlink.psample;

import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkAttributes;
import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Encodes and decodes PSAMPLE_CMD_SAMPLE messages: {@code nlmsghdr} (16 bytes) + {@code genlmsghdr} (cmd 0,
 * version 1) + attributes (Linux {@code include/uapi/linux/psample.h}; spec {@code docs/netlink.md} §2).
 * The same bytes travel on generic netlink (nlmsg_type = the "psample" family id) and on vecflow's NETLINK_USERSOCK
 * channel (nlmsg_type {@link Psample#USERSOCK_MSG_TYPE}).
 *
 * <p>Encoding writes attributes in ascending id order, each padded to 4, per {@link Psample.Convention}:
 * <ul>
 *   <li>{@code VPP}: IIFINDEX u32 and OIFINDEX u32 always (0 when unset); PROTO = the holder's value or 1.</li>
 *   <li>{@code KERNEL}: IIFINDEX/OIFINDEX u16, omitted when 0 (a value above 65535 is rejected); PROTO only when
 *       set (an ethertype).</li>
 *   <li>Both: ORIGSIZE, SAMPLE_GROUP, GROUP_SEQ, SAMPLE_RATE always (u32); DATA when set; OUT_TC, OUT_TC_OCC,
 *       LATENCY, TIMESTAMP (when ≠ 0), USER_COOKIE, SAMPLE_PROBABILITY when set.</li>
 * </ul>
 *
 * <p>Decoding accepts both conventions: the nlmsg_pid is kept ({@link PsampleSample#nlmsgPid()}); ifindex width is
 * taken from nla_len (8 → u32, 6 → u16); DATA is copied up to the holder capacity (wire length kept, truncation
 * flagged); unknown attributes, PAD and TUNNEL are skipped. A bad header or attribute throws {@link
 * NetlinkFormatException} naming the attribute and its buffer offset.
 *
 * <p>Neither direction allocates. An instance holds a reusable attribute cursor, so use one per thread.
 */
public final class PsampleCodec {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;
    /** Smallest PSAMPLE message: nlmsghdr + genlmsghdr. */
    public static final int MIN_MESSAGE = Netlink.NLMSG_HDRLEN + Netlink.GENL_HDRLEN;

    private final NetlinkAttributes attrs = new NetlinkAttributes();

    /** Creates a codec with its own attribute cursor (one per thread). */
    public PsampleCodec() {
    }

    /**
     * Appends one PSAMPLE_CMD_SAMPLE message to {@code w} (nlmsg_flags 0, nlmsg_pid 0).
     *
     * @return {@code w.end()}: bytes in the writer, i.e. the message length when the writer was reset before
     * @see #encode(PsampleSample, NetlinkWriter, int, int, int, Psample.Convention)
     */
    public int encode(PsampleSample s, NetlinkWriter w, int nlmsgType, int seq, Psample.Convention c) {
        return encode(s, w, nlmsgType, seq, 0, c);
    }

    /**
     * Appends one PSAMPLE_CMD_SAMPLE message to {@code w}.
     *
     * @param s         the sample (not modified)
     * @param w         writer, positioned where the message goes (usually just reset)
     * @param nlmsgType the family id (genl) or {@link Psample#USERSOCK_MSG_TYPE}
     * @param seq       nlmsg_seq
     * @param pid       nlmsg_pid (the sender's port id, or 0)
     * @param c         attribute convention
     * @return {@code w.end()}
     * @throws IllegalArgumentException KERNEL convention with an ifindex above 65535 (u16 attribute)
     * @throws IllegalStateException    the writer's buffer is too small
     */
    public int encode(PsampleSample s, NetlinkWriter w, int nlmsgType, int seq, int pid, Psample.Convention c) {
        boolean vpp = c == Psample.Convention.VPP;
        if (!vpp && (s.iifIndex() > 0xFFFF || s.oifIndex() > 0xFFFF)) {
            throw new IllegalArgumentException("KERNEL convention carries ifindex as u16: iifIndex " + s.iifIndex()
                    + " / oifIndex " + s.oifIndex() + " do not fit; use the VPP convention");
        }
        w.beginMessage(nlmsgType, 0, seq, pid).genlHeader(Psample.CMD_SAMPLE, Psample.GENL_VERSION);
        if (vpp) {
            w.putU32(Psample.ATTR_IIFINDEX, (int) s.iifIndex());
            w.putU32(Psample.ATTR_OIFINDEX, (int) s.oifIndex());
        } else {
            if (s.iifIndex() != 0) {
                w.putU16(Psample.ATTR_IIFINDEX, (int) s.iifIndex());
            }
            if (s.oifIndex() != 0) {
                w.putU16(Psample.ATTR_OIFINDEX, (int) s.oifIndex());
            }
        }
        w.putU32(Psample.ATTR_ORIGSIZE, (int) s.origSize());
        w.putU32(Psample.ATTR_SAMPLE_GROUP, (int) s.sampleGroup());
        w.putU32(Psample.ATTR_GROUP_SEQ, (int) s.groupSeq());
        w.putU32(Psample.ATTR_SAMPLE_RATE, (int) s.sampleRate());
        if (s.has(Psample.ATTR_DATA)) {
            w.putBytes(Psample.ATTR_DATA, s.data(), 0, s.dataLength());
        }
        if (s.has(Psample.ATTR_OUT_TC)) {
            w.putU16(Psample.ATTR_OUT_TC, s.outTc());
        }
        if (s.has(Psample.ATTR_OUT_TC_OCC)) {
            w.putU64(Psample.ATTR_OUT_TC_OCC, s.outTcOccBytes());
        }
        if (s.has(Psample.ATTR_LATENCY)) {
            w.putU64(Psample.ATTR_LATENCY, s.latencyNs());
        }
        if (s.timestampNs() != 0) {
            w.putU64(Psample.ATTR_TIMESTAMP, s.timestampNs());
        }
        if (s.proto() >= 0) {
            w.putU16(Psample.ATTR_PROTO, s.proto());
        } else if (vpp) {
            w.putU16(Psample.ATTR_PROTO, 1); // sFlow header_protocol 1 = Ethernet
        }
        if (s.has(Psample.ATTR_USER_COOKIE)) {
            w.putBytes(Psample.ATTR_USER_COOKIE, s.userCookie(), 0, s.userCookieLength());
        }
        if (s.sampleProbability()) {
            w.putFlag(Psample.ATTR_SAMPLE_PROBABILITY);
        }
        return w.end();
    }

    /**
     * Decodes one message into {@code out} (cleared first).
     *
     * @param msg buffer holding the message
     * @param off offset of its nlmsghdr
     * @param len bytes available for it (normally its nlmsg_len); nlmsg_len must be between 20 and {@code len}
     * @param out holder to fill
     * @return {@code true} for a PSAMPLE_CMD_SAMPLE; {@code false} for another PSAMPLE command (e.g. a group
     *         notification), which callers skip
     * @throws NetlinkFormatException a short message, a bad nlmsg_len, an attribute whose nla_len is below 4 or past
     *                                the message, or one of the wrong width — the message names field and offset
     */
    public boolean decode(MemorySegment msg, long off, int len, PsampleSample out) throws NetlinkFormatException {
        out.clear();
        if (!attrs.resetGenl(msg, off, len, "PSAMPLE", Psample.CMD_SAMPLE, Psample::attrName)) {
            return false;
        }
        out.nlmsgPid(msg.get(U32, off + Netlink.NLMSG_PID_OFFSET));
        NetlinkAttributes a = attrs;
        while (a.next()) {
            switch (a.type()) {
                case Psample.ATTR_IIFINDEX -> {
                    long v = ifIndex(a);
                    out.decodedIif(v, a.payloadLength() * 8);
                }
                case Psample.ATTR_OIFINDEX -> {
                    long v = ifIndex(a);
                    out.decodedOif(v, a.payloadLength() * 8);
                }
                case Psample.ATTR_ORIGSIZE -> out.origSize(a.getU32());
                case Psample.ATTR_SAMPLE_GROUP -> out.sampleGroup(a.getU32());
                case Psample.ATTR_GROUP_SEQ -> out.groupSeq(a.getU32());
                case Psample.ATTR_SAMPLE_RATE -> out.sampleRate(a.getU32());
                // payload length = nla_len − 4 (spec §6 rule 1); bounded by the message and the holder capacity
                case Psample.ATTR_DATA -> out.decodedData(msg, a.payloadOffset(), a.payloadLength());
                case Psample.ATTR_OUT_TC -> out.outTc(a.getU16());
                case Psample.ATTR_OUT_TC_OCC -> out.outTcOccBytes(a.getU64());
                case Psample.ATTR_LATENCY -> out.latencyNs(a.getU64());
                case Psample.ATTR_TIMESTAMP -> {
                    long ts = a.getU64();
                    out.timestampNs(ts);
                }
                case Psample.ATTR_PROTO -> out.proto(a.getU16());
                case Psample.ATTR_USER_COOKIE -> {
                    if (a.payloadLength() > out.userCookie().length) {
                        throw new NetlinkFormatException("nlattr PSAMPLE_ATTR_USER_COOKIE (15)", a.offset(),
                                "cookie of " + a.payloadLength() + " bytes, at most " + Psample.MAX_USER_COOKIE);
                    }
                    out.decodedCookie(msg, a.payloadOffset(), a.payloadLength());
                }
                case Psample.ATTR_SAMPLE_PROBABILITY -> out.sampleProbability(true);
                default -> { } // PAD, TUNNEL, GROUP_REFCOUNT, newer attributes: skipped
            }
        }
        return true;
    }

    /** ifindex by width: nla_len 8 → u32 (VPP), 6 → u16 (kernel). */
    private static long ifIndex(NetlinkAttributes a) throws NetlinkFormatException {
        return switch (a.payloadLength()) {
            case 4 -> a.getU32();
            case 2 -> a.getU16();
            default -> throw new NetlinkFormatException("nlattr " + Psample.attrName(a.type()) + " (" + a.type() + ")",
                    a.offset(), "nla_len " + (a.payloadLength() + 4) + ", expected 6 (u16) or 8 (u32)");
        };
    }
}
