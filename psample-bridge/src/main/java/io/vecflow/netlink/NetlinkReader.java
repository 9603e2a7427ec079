package io.vecflow.netlink;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Walks the netlink messages in a received buffer without allocating (one instance per receive loop, reused).
 *
 * <p>Each {@link #next()} validates the {@code nlmsghdr} (16 bytes: u32 nlmsg_len, u16 type, u16 flags, u32 seq,
 * u32 pid; {@code include/uapi/linux/netlink.h}): at least 16 bytes must remain, and {@code 16 ≤ nlmsg_len ≤ bytes
 * left}. Messages follow each other at {@code align4(nlmsg_len)}. A bad header throws {@link NetlinkFormatException}
 * naming {@code nlmsghdr}/{@code nlmsg_len} and the byte offset; the rest of that buffer is then skipped (its message
 * boundaries are unknown), so the next {@link #next()} returns {@code false}.
 *
 * <p>{@link #isError()} / {@link #errorCode()} decode NLMSG_ERROR (payload: s32 −errno, 0 = ACK, then the original
 * header). Only use them on channels where types below 0x10 are control messages — not on the VPP USERSOCK channel,
 * whose STATUS (1) and IF_COUNTERS (2) collide with NLMSG_NOOP/NLMSG_ERROR (spec §3).
 */
public final class NetlinkReader {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED;

    private MemorySegment buf = MemorySegment.NULL;
    private long limit;
    private long pos;
    private long msgOffset = -1;
    private int msgLen;
    private int type;
    private int flags;
    private int seq;
    private int pid;

    /** Creates a reader over nothing; call {@link #reset} before use. */
    public NetlinkReader() {
    }

    /**
     * Points the reader at {@code length} bytes of {@code buf} starting at offset 0.
     *
     * @throws IllegalArgumentException if {@code length} exceeds the segment
     */
    public NetlinkReader reset(MemorySegment buf, int length) {
        if (length < 0 || length > buf.byteSize()) {
            throw new IllegalArgumentException("length " + length + " outside the " + buf.byteSize() + "-byte buffer");
        }
        this.buf = buf;
        this.limit = length;
        this.pos = 0;
        this.msgOffset = -1;
        return this;
    }

    /**
     * Advances to the next message.
     *
     * @return {@code false} when the buffer is exhausted
     * @throws NetlinkFormatException for a truncated header or an nlmsg_len below 16 or past the buffer (field and
     *                                offset named); reading stops for this buffer
     */
    public boolean next() throws NetlinkFormatException {
        if (pos >= limit) {
            msgOffset = -1;
            return false;
        }
        long at = pos;
        long left = limit - at;
        if (left < Netlink.NLMSG_HDRLEN) {
            pos = limit;
            msgOffset = -1;
            throw new NetlinkFormatException("nlmsghdr", at,
                    "only " + left + " bytes left in the " + limit + "-byte buffer, a header needs 16");
        }
        long len = Integer.toUnsignedLong(buf.get(U32, at + Netlink.NLMSG_LEN_OFFSET));
        if (len < Netlink.NLMSG_HDRLEN) {
            pos = limit;
            msgOffset = -1;
            throw new NetlinkFormatException("nlmsg_len", at, "value " + len + " is smaller than the 16-byte header");
        }
        if (len > left) {
            pos = limit;
            msgOffset = -1;
            throw new NetlinkFormatException("nlmsg_len", at,
                    "value " + len + " runs past the end of the buffer (" + left + " bytes left of " + limit + ")");
        }
        msgOffset = at;
        msgLen = (int) len;
        type = Short.toUnsignedInt(buf.get(U16, at + Netlink.NLMSG_TYPE_OFFSET));
        flags = Short.toUnsignedInt(buf.get(U16, at + Netlink.NLMSG_FLAGS_OFFSET));
        seq = buf.get(U32, at + Netlink.NLMSG_SEQ_OFFSET);
        pid = buf.get(U32, at + Netlink.NLMSG_PID_OFFSET);
        pos = at + Netlink.align4(len);
        return true;
    }

    /** The buffer being read. */
    public MemorySegment buffer() {
        return buf;
    }

    /** Byte offset of the current message's nlmsghdr in the buffer. */
    public long offset() {
        return msgOffset;
    }

    /** nlmsg_len of the current message (header included), in bytes. */
    public int length() {
        return msgLen;
    }

    /** nlmsg_type (u16). */
    public int type() {
        return type;
    }

    /** nlmsg_flags (u16). */
    public int flags() {
        return flags;
    }

    /** nlmsg_seq (u32 in an int). */
    public int seq() {
        return seq;
    }

    /** nlmsg_pid: the sender's port id (u32 in an int). */
    public int pid() {
        return pid;
    }

    /** Offset of the first byte after the nlmsghdr. */
    public long payloadOffset() {
        return msgOffset + Netlink.NLMSG_HDRLEN;
    }

    /** nlmsg_len − 16. */
    public int payloadLength() {
        return msgLen - Netlink.NLMSG_HDRLEN;
    }

    /** Whether the current message is NLMSG_ERROR (2): an error or, with {@link #errorCode()} 0, an ACK. */
    public boolean isError() {
        return type == Netlink.NLMSG_ERROR;
    }

    /** Whether the current message is NLMSG_DONE (3), the end of a multipart reply. */
    public boolean isDone() {
        return type == Netlink.NLMSG_DONE;
    }

    /**
     * Decodes an NLMSG_ERROR payload ({@code struct nlmsgerr}: s32 error = −errno).
     *
     * @return the positive errno, or 0 for an ACK
     * @throws NetlinkFormatException if the payload is shorter than 4 bytes or the value is positive
     */
    public int errorCode() throws NetlinkFormatException {
        if (payloadLength() < 4) {
            throw new NetlinkFormatException("nlmsgerr.error", payloadOffset(),
                    "NLMSG_ERROR payload of " + payloadLength() + " bytes, needs 4");
        }
        int error = buf.get(U32, payloadOffset());
        if (error > 0) {
            throw new NetlinkFormatException("nlmsgerr.error", payloadOffset(),
                    "value " + error + " is positive; the kernel sends -errno");
        }
        return -error;
    }

    /**
     * Points {@code attrs} at the current message's attributes, which start after {@code familyHeaderBytes} of
     * family header (4 for generic netlink's genlmsghdr, 0 for a plain message).
     *
     * @param names names attributes in error messages (a static method reference, e.g. {@code Psample::attrName}),
     *              or {@code null}
     * @throws NetlinkFormatException if the message is shorter than its family header
     */
    public NetlinkAttributes attributes(NetlinkAttributes attrs, int familyHeaderBytes, NetlinkAttributes.Names names)
            throws NetlinkFormatException {
        if (payloadLength() < familyHeaderBytes) {
            throw new NetlinkFormatException(familyHeaderBytes == Netlink.GENL_HDRLEN ? "genlmsghdr" : "family header",
                    payloadOffset(), "message payload of " + payloadLength() + " bytes is shorter than the "
                            + familyHeaderBytes + "-byte header");
        }
        return attrs.reset(buf, payloadOffset() + familyHeaderBytes, msgOffset + msgLen, names);
    }
}
