package io.vecflow.netlink;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Iterates the attributes ({@code struct nlattr}: u16 nla_len, u16 nla_type, payload padded to 4) in a byte range of
 * a buffer, without allocating; reusable via {@link #reset}.
 *
 * <p>Rules (Linux {@code include/uapi/linux/netlink.h}, spec §1 and §6 rule 1): {@code nla_len} counts the 4-byte
 * header plus the <em>unpadded</em> payload, so the payload is {@code nla_len − 4} bytes; the next attribute starts at
 * {@code align4(nla_len)}; the type is {@code nla_type & 0x3FFF} (bit 15 = nested, bit 14 = network byte order).
 * {@code nla_len < 4} or an attribute running past the range throws {@link NetlinkFormatException} with the
 * attribute's offset; 1–3 trailing bytes after the last attribute are ignored, as the kernel does.
 *
 * <p>Integer getters read native byte order and check the payload width exactly, so {@code getU32} on a 2-byte
 * payload is an error naming the attribute — use {@link #payloadLength()} to accept several widths.
 */
public final class NetlinkAttributes {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED;

    /** Names attribute types in error messages; pass a static method reference so nothing is allocated. */
    @FunctionalInterface
    public interface Names {
        /**
         * Names an attribute type.
         *
         * @param type attribute type with flags masked off
         * @return e.g. {@code "PSAMPLE_ATTR_DATA"} for a masked type */
        String name(int type);
    }

    private MemorySegment seg = MemorySegment.NULL;
    private long end;
    private long pos;
    private long attrOffset = -1;
    private int rawType;
    private int payloadLength;
    private Names names;

    /** Creates an iterator over nothing; call {@link #reset} before use. */
    public NetlinkAttributes() {
    }

    /**
     * Points the iterator at {@code [start, end)} of {@code seg}.
     *
     * @param seg   buffer holding the attributes
     * @param start byte offset of the first attribute header
     * @param end   byte offset just past the last attribute (the end of the enclosing message or attribute)
     * @param names attribute names for error messages, or {@code null} (types are then shown as numbers)
     */
    public NetlinkAttributes reset(MemorySegment seg, long start, long end, Names names) {
        if (start < 0 || end < start || end > seg.byteSize()) {
            throw new IllegalArgumentException("attribute range [" + start + ", " + end + ") outside the "
                    + seg.byteSize() + "-byte buffer");
        }
        this.seg = seg;
        this.pos = start;
        this.end = end;
        this.attrOffset = -1;
        this.names = names;
        return this; // for chaining: it.reset(...).next()
    }

    /**
     * Checks a generic-netlink message's nlmsghdr and genlmsghdr and, if its command is {@code cmd}, points the
     * iterator at its attributes ({@code linux/netlink.h}, {@code linux/genetlink.h}; spec {@code docs/netlink.md}
     * §1). Allocates nothing unless it throws.
     *
     * @param msg    buffer holding the message
     * @param off    offset of its nlmsghdr
     * @param len    bytes available for it (normally its nlmsg_len)
     * @param what   names the message kind in errors, e.g. {@code "PSAMPLE"}
     * @param cmd    the genl command wanted
     * @param names  attribute names for error messages
     * @return {@code true} if the command is {@code cmd} (iterator ready); {@code false} for another command
     * @throws NetlinkFormatException {@code len} below 20 (field {@code nlmsghdr}) or nlmsg_len outside 20..len
     *                                (field {@code nlmsg_len}), offset {@code off} named
     */
    public boolean resetGenl(MemorySegment msg, long off, int len, String what, int cmd, Names names)
            throws NetlinkFormatException {
        final int min = Netlink.NLMSG_HDRLEN + Netlink.GENL_HDRLEN;
        if (len < min) {
            throw new NetlinkFormatException("nlmsghdr", off, what + " message of " + len
                    + " bytes is shorter than nlmsghdr + genlmsghdr (" + min + ")");
        }
        long nlLen = Integer.toUnsignedLong(msg.get(U32, off + Netlink.NLMSG_LEN_OFFSET));
        if (nlLen < min || nlLen > len) {
            throw new NetlinkFormatException("nlmsg_len", off, "value " + nlLen + " outside " + min + ".."
                    + len + " (bytes available)");
        }
        long genl = off + Netlink.NLMSG_HDRLEN;
        if (Byte.toUnsignedInt(msg.get(ValueLayout.JAVA_BYTE, genl)) != cmd) {
            return false;
        }
        reset(msg, genl + Netlink.GENL_HDRLEN, off + nlLen, names);
        return true;
    }

    /**
     * Checks a plain netlink message's nlmsghdr (no genl header, as on VPP's USERSOCK channel, spec
     * {@code docs/netlink.md} §3) and, if its nlmsg_type is {@code type}, points the iterator at its attributes.
     * Allocates nothing unless it throws.
     *
     * @param msg   buffer holding the message
     * @param off   offset of its nlmsghdr
     * @param len   bytes available for it (at least its nlmsg_len)
     * @param type  the nlmsg_type wanted
     * @param names attribute names for error messages
     * @return {@code true} if the type is {@code type} (iterator ready); {@code false} for another type
     * @throws NetlinkFormatException {@code len} below 16 (field {@code nlmsghdr}) or nlmsg_len outside 16..len
     *                                (field {@code nlmsg_len}), offset {@code off} named
     */
    public boolean resetMessage(MemorySegment msg, long off, int len, int type, Names names)
            throws NetlinkFormatException {
        if (len < Netlink.NLMSG_HDRLEN) {
            throw new NetlinkFormatException("nlmsghdr", off, len + " bytes, a header needs 16");
        }
        long nlLen = Integer.toUnsignedLong(msg.get(U32, off + Netlink.NLMSG_LEN_OFFSET));
        if (nlLen < Netlink.NLMSG_HDRLEN || nlLen > len) {
            throw new NetlinkFormatException("nlmsg_len", off, "value " + nlLen + " outside 16.." + len);
        }
        if (Short.toUnsignedInt(msg.get(U16, off + Netlink.NLMSG_TYPE_OFFSET)) != type) {
            return false;
        }
        reset(msg, off + Netlink.NLMSG_HDRLEN, off + nlLen, names);
        return true;
    }

    /**
     * Advances to the next attribute.
     *
     * @return {@code false} when fewer than 4 bytes remain
     * @throws NetlinkFormatException {@code nla_len} below 4 or past the end of the range (offset of the attribute
     *                                header named); iteration stops
     */
    public boolean next() throws NetlinkFormatException {
        long left = end - pos;
        if (left < Netlink.NLA_HDRLEN) {
            attrOffset = -1;
            pos = end;
            return false;
        }
        long at = pos;
        int len = Short.toUnsignedInt(seg.get(U16, at));
        int type = Short.toUnsignedInt(seg.get(U16, at + 2));
        if (len < Netlink.NLA_HDRLEN) {
            pos = end;
            attrOffset = -1;
            throw new NetlinkFormatException(label(type), at, "nla_len " + len + " is smaller than the 4-byte header");
        }
        if (len > left) {
            pos = end;
            attrOffset = -1;
            throw new NetlinkFormatException(label(type), at, "nla_len " + len + " runs past the end of the message ("
                    + left + " bytes left)");
        }
        attrOffset = at;
        rawType = type;
        payloadLength = len - Netlink.NLA_HDRLEN;
        pos = at + Netlink.align4(len);
        return true;
    }

    /** Attribute type with the flag bits masked off ({@code nla_type & 0x3FFF}). */
    public int type() {
        return rawType & Netlink.NLA_TYPE_MASK;
    }

    /** nla_type as on the wire, flags included. */
    public int rawType() {
        return rawType;
    }

    /** Whether {@code NLA_F_NESTED} is set. */
    public boolean isNested() {
        return (rawType & Netlink.NLA_F_NESTED) != 0;
    }

    /** Whether {@code NLA_F_NET_BYTEORDER} is set (integers big-endian). */
    public boolean isNetworkByteOrder() {
        return (rawType & Netlink.NLA_F_NET_BYTEORDER) != 0;
    }

    /** Byte offset of the current attribute's header in the buffer. */
    public long offset() {
        return attrOffset;
    }

    /** Byte offset of the current attribute's payload. */
    public long payloadOffset() {
        return attrOffset + Netlink.NLA_HDRLEN;
    }

    /** Payload length in bytes: {@code nla_len − 4}. */
    public int payloadLength() {
        return payloadLength;
    }

    /** The buffer being read. */
    public MemorySegment segment() {
        return seg;
    }

    /**
     * u8 payload (exactly 1 byte) as 0..255.
     *
     * @return the value
     * @throws NetlinkFormatException if the payload has another width (attribute name and offset in the message)
     */
    public int getU8() throws NetlinkFormatException {
        expectLength(1);
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, payloadOffset()));
    }

    /**
     * u16 payload (exactly 2 bytes) as 0..65535, honouring NLA_F_NET_BYTEORDER.
     *
     * @return the value
     * @throws NetlinkFormatException if the payload has another width (attribute name and offset in the message)
     */
    public int getU16() throws NetlinkFormatException {
        expectLength(2);
        short v = seg.get(U16, payloadOffset());
        return Short.toUnsignedInt(isNetworkByteOrder() ? Short.reverseBytes(v) : v);
    }

    /**
     * u32 payload (exactly 4 bytes) as 0..2^32−1, honouring NLA_F_NET_BYTEORDER.
     *
     * @return the value
     * @throws NetlinkFormatException if the payload has another width (attribute name and offset in the message)
     */
    public long getU32() throws NetlinkFormatException {
        expectLength(4);
        int v = seg.get(U32, payloadOffset());
        return Integer.toUnsignedLong(isNetworkByteOrder() ? Integer.reverseBytes(v) : v);
    }

    /**
     * u64 payload (exactly 8 bytes), honouring NLA_F_NET_BYTEORDER.
     *
     * @return the value
     * @throws NetlinkFormatException if the payload has another width (attribute name and offset in the message)
     */
    public long getU64() throws NetlinkFormatException {
        expectLength(8);
        long v = seg.get(U64, payloadOffset());
        return isNetworkByteOrder() ? Long.reverseBytes(v) : v;
    }

    /**
     * String payload up to the first NUL (or the payload end when there is none), decoded as UTF-8. Allocates:
     * control paths only.
     */
    public String getString() {
        long p = payloadOffset();
        int n = 0;
        while (n < payloadLength && seg.get(ValueLayout.JAVA_BYTE, p + n) != 0) {
            n++;
        }
        byte[] b = new byte[n]; // n ≤ payloadLength ≤ 65531: bounded by nla_len
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, p, b, 0, n);
        return new String(b, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Points {@code child} at this attribute's payload, to iterate nested attributes. */
    public NetlinkAttributes nested(NetlinkAttributes child, Names childNames) {
        return child.reset(seg, payloadOffset(), payloadOffset() + payloadLength, childNames);
    }

    /**
     * Checks the payload is exactly {@code length} bytes.
     *
     * @throws NetlinkFormatException naming the attribute and its offset otherwise
     */
    public void expectLength(int length) throws NetlinkFormatException {
        if (payloadLength != length) {
            throw new NetlinkFormatException(label(rawType), attrOffset, "nla_len " + (payloadLength + 4)
                    + " gives a " + payloadLength + "-byte payload, expected " + length);
        }
    }

    /** Error label for the current or a given raw type, e.g. {@code "nlattr PSAMPLE_ATTR_DATA (6)"}. */
    String label(int rawType) {
        int t = rawType & Netlink.NLA_TYPE_MASK;
        String n = names == null ? null : names.name(t);
        return n == null ? "nlattr type " + t : "nlattr " + n + " (" + t + ")";
    }
}
