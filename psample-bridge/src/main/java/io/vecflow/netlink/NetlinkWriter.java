package io.vecflow.netlink;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Builds netlink messages in place in a caller-owned {@link MemorySegment}, without allocating.
 *
 * <p>Layout rules (Linux {@code include/uapi/linux/netlink.h}, spec {@code docs/netlink.md} §1): native byte
 * order; each message starts with a 16-byte {@code nlmsghdr} whose {@code nlmsg_len} is patched by {@link #end()};
 * each attribute is a 4-byte {@code nlattr} header whose {@code nla_len} counts header + payload <em>unpadded</em>,
 * followed by zero padding up to the next 4-byte boundary. Nested attributes ({@link #beginNested(int)} /
 * {@link #endNested(int)}) set {@code NLA_F_NESTED} and get their length patched.
 *
 * <p>Usage: {@code w.reset(); w.beginMessage(type, flags, seq, pid); w.genlHeader(cmd, ver); w.putU32(...); int n =
 * w.end();} then send {@code n} bytes of {@link #segment()}. Several messages may be written back to back into one
 * datagram. Writing past the segment throws {@link IllegalStateException} naming the attribute (a caller bug, since
 * callers size their buffer for the largest message they build).
 */
public final class NetlinkWriter {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED;

    private final MemorySegment seg;
    private final long capacity;
    private long pos;
    private long msgStart = -1;

    /**
     * Creates a writer over {@code seg}, positioned at offset 0.
     *
     * @param seg the buffer to write into, from offset 0; heap or native (native is needed to send it)
     */
    public NetlinkWriter(MemorySegment seg) {
        this.seg = seg;
        this.capacity = seg.byteSize();
    }

    /** The underlying buffer. */
    public MemorySegment segment() {
        return seg;
    }

    /** Forgets everything written; the next message starts at offset 0. */
    public NetlinkWriter reset() {
        pos = 0;
        msgStart = -1;
        return this;
    }

    /**
     * Puts the next message at {@code position}, the end of messages already in the buffer (an earlier
     * {@link #end()}'s value, or the length of messages copied to the front): what was written after it is forgotten.
     * Used to drop a message that failed to encode, or to keep writing after messages moved to the front.
     *
     * @param position a message boundary, 0..the buffer's size
     * @throws IllegalArgumentException outside that range
     */
    public NetlinkWriter rewind(int position) {
        if (position < 0 || position > seg.byteSize()) {
            throw new IllegalArgumentException("rewind to " + position + " outside 0.." + seg.byteSize());
        }
        pos = position;
        msgStart = -1;
        return this;
    }

    /** Bytes written so far (offset of the next write), including the current unfinished message. */
    public int position() {
        return (int) pos;
    }

    /**
     * Starts a message at the next 4-byte-aligned position: writes an {@code nlmsghdr} with {@code nlmsg_len} 0
     * (patched by {@link #end()}).
     *
     * @param type  nlmsg_type (u16), e.g. a generic-netlink family id
     * @param flags nlmsg_flags (u16), e.g. {@link Netlink#NLM_F_REQUEST}
     * @param seq   nlmsg_seq (u32)
     * @param pid   nlmsg_pid (u32): the sender's port id, or 0
     */
    public NetlinkWriter beginMessage(int type, int flags, int seq, int pid) {
        pos = Netlink.align4(pos);
        ensure(Netlink.NLMSG_HDRLEN, "nlmsghdr", -1);
        msgStart = pos;
        seg.set(U32, pos + Netlink.NLMSG_LEN_OFFSET, 0);
        seg.set(U16, pos + Netlink.NLMSG_TYPE_OFFSET, (short) type);
        seg.set(U16, pos + Netlink.NLMSG_FLAGS_OFFSET, (short) flags);
        seg.set(U32, pos + Netlink.NLMSG_SEQ_OFFSET, seq);
        seg.set(U32, pos + Netlink.NLMSG_PID_OFFSET, pid);
        pos += Netlink.NLMSG_HDRLEN;
        return this;
    }

    /**
     * Writes a {@code genlmsghdr} (u8 cmd, u8 version, u16 reserved 0) right after the nlmsghdr.
     *
     * @param cmd     generic-netlink command
     * @param version family version
     */
    public NetlinkWriter genlHeader(int cmd, int version) {
        ensure(Netlink.GENL_HDRLEN, "genlmsghdr", -1);
        seg.set(ValueLayout.JAVA_BYTE, pos, (byte) cmd);
        seg.set(ValueLayout.JAVA_BYTE, pos + 1, (byte) version);
        seg.set(U16, pos + 2, (short) 0);
        pos += Netlink.GENL_HDRLEN;
        return this;
    }

    /** Attribute with a u8 payload (nla_len 5, padded to 8). */
    public NetlinkWriter putU8(int type, int value) {
        long p = attr(type, 1);
        seg.set(ValueLayout.JAVA_BYTE, p, (byte) value);
        return this;
    }

    /** Attribute with a u16 payload (nla_len 6, padded to 8). */
    public NetlinkWriter putU16(int type, int value) {
        long p = attr(type, 2);
        seg.set(U16, p, (short) value);
        return this;
    }

    /** Attribute with a u32 payload (nla_len 8); {@code value} is taken as unsigned 32-bit. */
    public NetlinkWriter putU32(int type, int value) {
        long p = attr(type, 4);
        seg.set(U32, p, value);
        return this;
    }

    /** Attribute with a u64 payload (nla_len 12), e.g. a timestamp in ns; no PAD attribute (x86_64 needs none). */
    public NetlinkWriter putU64(int type, long value) {
        long p = attr(type, 8);
        seg.set(U64, p, value);
        return this;
    }

    /** Flag attribute: header only (nla_len 4). */
    public NetlinkWriter putFlag(int type) {
        attr(type, 0);
        return this;
    }

    /**
     * Binary attribute copied from a segment.
     *
     * @param src    source segment
     * @param offset first byte in {@code src}
     * @param length payload bytes (0..65531, as nla_len is u16)
     */
    public NetlinkWriter putBytes(int type, MemorySegment src, long offset, int length) {
        long p = attr(type, length);
        MemorySegment.copy(src, offset, seg, p, length);
        return this;
    }

    /**
     * Binary attribute copied from an array range.
     *
     * @param src    source array
     * @param offset first byte in {@code src}
     * @param length payload bytes (0..65531)
     */
    public NetlinkWriter putBytes(int type, byte[] src, int offset, int length) {
        long p = attr(type, length);
        MemorySegment.copy(src, offset, seg, ValueLayout.JAVA_BYTE, p, length);
        return this;
    }

    /**
     * NUL-terminated string attribute (nla_len = 4 + chars + 1). Characters are written as single bytes without
     * allocating, so the string must be ASCII (netlink names are).
     *
     * @throws IllegalArgumentException for a non-ASCII character
     */
    public NetlinkWriter putString(int type, String s) {
        int n = s.length();
        long p = attr(type, n + 1);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c > 0x7F) {
                throw new IllegalArgumentException("netlink string attribute type " + type
                        + ": non-ASCII character at index " + i + " in \"" + s + "\"");
            }
            seg.set(ValueLayout.JAVA_BYTE, p + i, (byte) c);
        }
        seg.set(ValueLayout.JAVA_BYTE, p + n, (byte) 0);
        return this;
    }

    /**
     * NUL-terminated string attribute from raw bytes (nla_len = 4 + length + 1), without allocating: for names kept
     * as bytes (e.g. NET_DM trap names). The bytes are copied as they are; they must not contain a NUL.
     *
     * @param type   attribute type
     * @param src    source array
     * @param offset first byte in {@code src}
     * @param length string bytes, without the terminator (0..65530)
     */
    public NetlinkWriter putStringBytes(int type, byte[] src, int offset, int length) {
        long p = attr(type, length + 1);
        MemorySegment.copy(src, offset, seg, ValueLayout.JAVA_BYTE, p, length);
        seg.set(ValueLayout.JAVA_BYTE, p + length, (byte) 0);
        return this;
    }

    /**
     * Opens a nested attribute ({@code NLA_F_NESTED} set); attributes written until {@link #endNested(int)} go
     * inside it.
     *
     * @return a token (the attribute's offset) to pass to {@link #endNested(int)}
     */
    public int beginNested(int type) {
        requireMessage("nested attribute");
        pos = Netlink.align4(pos);
        ensure(Netlink.NLA_HDRLEN, "nested nlattr type ", type);
        long start = pos;
        seg.set(U16, start, (short) 0);
        seg.set(U16, start + 2, (short) ((type & Netlink.NLA_TYPE_MASK) | Netlink.NLA_F_NESTED));
        pos += Netlink.NLA_HDRLEN;
        return (int) start;
    }

    /** Closes the nested attribute opened at {@code token}: patches its nla_len to cover everything since. */
    public NetlinkWriter endNested(int token) {
        long len = pos - token;
        if (token < 0 || len < Netlink.NLA_HDRLEN || len > 0xFFFF) {
            throw new IllegalStateException("nested attribute at offset " + token + ": length " + len
                    + " does not fit nla_len (u16)");
        }
        seg.set(U16, token, (short) len);
        return this;
    }

    /**
     * Finishes the current message: pads it to 4 bytes and patches {@code nlmsg_len}.
     *
     * @return total bytes written into the buffer (all messages since {@link #reset()}); with one message, its
     *         nlmsg_len — the length to pass to {@link NetlinkSocket#send}
     */
    public int end() {
        requireMessage("end");
        long aligned = Netlink.align4(pos);
        ensure(aligned - pos, "message padding", -1);
        while (pos < aligned) {
            seg.set(ValueLayout.JAVA_BYTE, pos++, (byte) 0);
        }
        seg.set(U32, msgStart + Netlink.NLMSG_LEN_OFFSET, (int) (pos - msgStart));
        msgStart = -1;
        return (int) pos;
    }

    /** Writes an attribute header at the aligned position and returns the payload offset; pads the payload. */
    private long attr(int type, int payloadLength) {
        requireMessage("attribute");
        int nlaLen = Netlink.NLA_HDRLEN + payloadLength;
        if (payloadLength < 0 || nlaLen > 0xFFFF) {
            throw new IllegalArgumentException("nlattr type " + type + ": payload of " + payloadLength
                    + " bytes does not fit nla_len (u16, at most 65531 payload bytes)");
        }
        pos = Netlink.align4(pos);
        int padded = Netlink.align4(nlaLen);
        ensure(padded, "nlattr type ", type);
        seg.set(U16, pos, (short) nlaLen);
        seg.set(U16, pos + 2, (short) type);
        long payload = pos + Netlink.NLA_HDRLEN;
        for (long i = pos + nlaLen; i < pos + padded; i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, (byte) 0);
        }
        pos += padded;
        return payload;
    }

    private void requireMessage(String what) {
        if (msgStart < 0) {
            throw new IllegalStateException(what + " written outside a message: call beginMessage first");
        }
    }

    private void ensure(long bytes, String what, int type) {
        if (pos + bytes > capacity) {
            throw new IllegalStateException(what + (type >= 0 ? Integer.toString(type) : "") + " at offset " + pos
                    + " (" + bytes
                    + " bytes) does not fit the " + capacity + "-byte buffer");
        }
    }
}
