package io.vecflow.netlink.netdm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One NET_DM_CMD_PACKET_ALERT: a mutable, reusable holder filled by {@link NetDmCodec#decode} and read by
 * {@link NetDmCodec#encode}. Not thread-safe.
 *
 * <p>Fields mirror the attributes of {@code include/uapi/linux/net_dropmon.h} (spec §4). u32 values live in
 * {@code long}s. Each setter marks its attribute present ({@link #has(int)}); {@link #clear()} forgets everything.
 * PAYLOAD and the four strings (SYMBOL, HW_TRAP_GROUP_NAME, HW_TRAP_NAME, REASON, plus the IN_PORT netdev name) are
 * kept in owned arrays of fixed capacity, so decoding allocates nothing: a longer PAYLOAD is cut to
 * {@link #payloadCapacity()} ({@link #payloadTruncated()} set, wire length in {@link #payloadWireLength()}); a longer
 * string is cut to {@value #STRING_CAPACITY} bytes ({@link #stringTruncated()} set). Strings are stored without their
 * NUL terminator, as the bytes up to the first NUL (spec §6 rule 2: never copy past the attribute).
 */
public final class NetDmAlert {
    /** Default PAYLOAD capacity in bytes (a full 1514-byte Ethernet frame plus room). */
    public static final int DEFAULT_PAYLOAD_CAPACITY = 2048;
    /** Bytes kept per string attribute (devlink trap names and drop-reason names are far shorter). */
    public static final int STRING_CAPACITY = 256;

    private long present; // bit i = attribute id i
    private long pc;
    private long inPortIfIndex;
    private boolean inPortFlat;
    private long timestampNs;
    private int proto;
    private final byte[] payload;
    private int payloadLength;
    private int payloadWireLength;
    private long truncLen;
    private long origLen;
    private int origin;
    private final byte[] symbol = new byte[STRING_CAPACITY];
    private int symbolLength;
    private final byte[] hwTrapGroup = new byte[STRING_CAPACITY];
    private int hwTrapGroupLength;
    private final byte[] hwTrapName = new byte[STRING_CAPACITY];
    private int hwTrapNameLength;
    private final byte[] reason = new byte[STRING_CAPACITY];
    private int reasonLength;
    private final byte[] inPortName = new byte[STRING_CAPACITY];
    private int inPortNameLength;
    private boolean inPortHasName;
    private boolean stringTruncated;

    /** Holder with {@value #DEFAULT_PAYLOAD_CAPACITY} bytes of PAYLOAD capacity. */
    public NetDmAlert() {
        this(DEFAULT_PAYLOAD_CAPACITY);
    }

    /**
     * @param payloadCapacity PAYLOAD capacity in bytes, 1..{@link NetDm#MAX_PAYLOAD}
     * @throws IllegalArgumentException outside that range
     */
    public NetDmAlert(int payloadCapacity) {
        if (payloadCapacity < 1 || payloadCapacity > NetDm.MAX_PAYLOAD) {
            throw new IllegalArgumentException("payloadCapacity " + payloadCapacity + " outside 1.."
                    + NetDm.MAX_PAYLOAD);
        }
        this.payload = new byte[payloadCapacity];
    }

    /** Forgets all attributes; the arrays are kept. */
    public NetDmAlert clear() {
        present = 0;
        pc = inPortIfIndex = timestampNs = truncLen = origLen = 0;
        inPortFlat = inPortHasName = stringTruncated = false;
        proto = origin = 0;
        payloadLength = payloadWireLength = 0;
        symbolLength = hwTrapGroupLength = hwTrapNameLength = reasonLength = inPortNameLength = 0;
        return this;
    }

    /** Whether attribute {@code attrId} (a {@code NetDm.ATTR_*} id) is present. */
    public boolean has(int attrId) {
        return attrId >= 0 && attrId < 64 && (present & (1L << attrId)) != 0;
    }

    private void mark(int attrId) {
        present |= 1L << attrId;
    }

    // ---- numbers ----

    /** NET_DM_ATTR_PC: program counter (u64). */
    public long pc() {
        return pc;
    }

    /** Sets PC. */
    public NetDmAlert pc(long v) {
        pc = v;
        mark(NetDm.ATTR_PC);
        return this;
    }

    /** IN_PORT ifindex (u32): Linux ifindex (kernel, nested) or VPP hw_if_index (flat); 0 when absent. */
    public long inPortIfIndex() {
        return inPortIfIndex;
    }

    /** Whether IN_PORT came as VPP's flat u32 rather than the kernel's nest. */
    public boolean inPortFlat() {
        return inPortFlat;
    }

    /** Sets IN_PORT's ifindex (u32). */
    public NetDmAlert inPortIfIndex(long v) {
        inPortIfIndex = v & 0xFFFFFFFFL;
        mark(NetDm.ATTR_IN_PORT);
        return this;
    }

    void decodedInPort(long ifIndex, boolean flat) {
        inPortIfIndex(ifIndex);
        inPortFlat = flat;
    }

    /** NET_DM_ATTR_TIMESTAMP: ns since the UNIX epoch (u64), 0 when absent. */
    public long timestampNs() {
        return timestampNs;
    }

    /** Sets TIMESTAMP (ns). */
    public NetDmAlert timestampNs(long v) {
        timestampNs = v;
        mark(NetDm.ATTR_TIMESTAMP);
        return this;
    }

    /** NET_DM_ATTR_PROTO: {@code skb->protocol} (u16), 0 when absent. */
    public int proto() {
        return proto;
    }

    /** Sets PROTO (u16). */
    public NetDmAlert proto(int v) {
        proto = v & 0xFFFF;
        mark(NetDm.ATTR_PROTO);
        return this;
    }

    /** NET_DM_ATTR_TRUNC_LEN (u32 bytes), 0 when absent. */
    public long truncLen() {
        return truncLen;
    }

    /** Sets TRUNC_LEN. */
    public NetDmAlert truncLen(long v) {
        truncLen = v & 0xFFFFFFFFL;
        mark(NetDm.ATTR_TRUNC_LEN);
        return this;
    }

    /** NET_DM_ATTR_ORIG_LEN (u32 bytes, the packet's length before truncation), 0 when absent. */
    public long origLen() {
        return origLen;
    }

    /** Sets ORIG_LEN. */
    public NetDmAlert origLen(long v) {
        origLen = v & 0xFFFFFFFFL;
        mark(NetDm.ATTR_ORIG_LEN);
        return this;
    }

    /** NET_DM_ATTR_ORIGIN: {@link NetDm#ORIGIN_SW} or {@link NetDm#ORIGIN_HW} (u16), 0 when absent. */
    public int origin() {
        return origin;
    }

    /** Sets ORIGIN (u16). */
    public NetDmAlert origin(int v) {
        origin = v & 0xFFFF;
        mark(NetDm.ATTR_ORIGIN);
        return this;
    }

    // ---- payload ----

    /** The PAYLOAD buffer: valid bytes are {@code [0, payloadLength())}. */
    public byte[] payload() {
        return payload;
    }

    /** PAYLOAD bytes held (≤ capacity). */
    public int payloadLength() {
        return payloadLength;
    }

    /** PAYLOAD length on the wire ({@code nla_len − 4}); larger than {@link #payloadLength()} when cut. */
    public int payloadWireLength() {
        return payloadWireLength;
    }

    /** Whether the wire PAYLOAD was longer than the capacity. */
    public boolean payloadTruncated() {
        return payloadWireLength > payloadLength;
    }

    /** PAYLOAD capacity in bytes. */
    public int payloadCapacity() {
        return payload.length;
    }

    /**
     * Copies PAYLOAD from an array.
     *
     * @throws IllegalArgumentException if {@code length} exceeds the capacity
     * @throws IndexOutOfBoundsException if the range is outside {@code src}
     */
    public NetDmAlert payload(byte[] src, int offset, int length) {
        java.util.Objects.checkFromIndexSize(offset, length, src.length);
        if (length > payload.length) {
            throw new IllegalArgumentException("PAYLOAD of " + length + " bytes exceeds the holder capacity "
                    + payload.length);
        }
        System.arraycopy(src, offset, payload, 0, length);
        payloadLength = payloadWireLength = length;
        mark(NetDm.ATTR_PAYLOAD);
        return this;
    }

    void decodedPayload(MemorySegment seg, long offset, int wireLength) {
        int n = Math.min(wireLength, payload.length);
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, offset, payload, 0, n);
        payloadLength = n;
        payloadWireLength = wireLength;
        mark(NetDm.ATTR_PAYLOAD);
    }

    // ---- strings ----

    /** Whether any string attribute was longer than {@value #STRING_CAPACITY} bytes and was cut. */
    public boolean stringTruncated() {
        return stringTruncated;
    }

    /** SYMBOL bytes (no NUL), valid up to {@link #symbolLength()}. */
    public byte[] symbolBytes() {
        return symbol;
    }

    /** SYMBOL length in bytes. */
    public int symbolLength() {
        return symbolLength;
    }

    /** HW_TRAP_GROUP_NAME bytes (no NUL). */
    public byte[] hwTrapGroupBytes() {
        return hwTrapGroup;
    }

    /** HW_TRAP_GROUP_NAME length. */
    public int hwTrapGroupLength() {
        return hwTrapGroupLength;
    }

    /** HW_TRAP_NAME bytes (no NUL). */
    public byte[] hwTrapNameBytes() {
        return hwTrapName;
    }

    /** HW_TRAP_NAME length. */
    public int hwTrapNameLength() {
        return hwTrapNameLength;
    }

    /** REASON bytes (no NUL). */
    public byte[] reasonBytes() {
        return reason;
    }

    /** REASON length. */
    public int reasonLength() {
        return reasonLength;
    }

    /** IN_PORT's PORT_NETDEV_NAME bytes (no NUL), kernel convention only. */
    public byte[] inPortNameBytes() {
        return inPortName;
    }

    /** IN_PORT netdev name length (0 when absent). */
    public int inPortNameLength() {
        return inPortNameLength;
    }

    /** Whether IN_PORT carried a PORT_NETDEV_NAME. */
    public boolean inPortHasName() {
        return inPortHasName;
    }

    /** SYMBOL as a String (allocates), or {@code null} when absent. */
    public String symbol() {
        return has(NetDm.ATTR_SYMBOL) ? str(symbol, symbolLength) : null;
    }

    /** HW_TRAP_GROUP_NAME as a String (allocates), or {@code null}. */
    public String hwTrapGroup() {
        return has(NetDm.ATTR_HW_TRAP_GROUP_NAME) ? str(hwTrapGroup, hwTrapGroupLength) : null;
    }

    /** HW_TRAP_NAME as a String (allocates), or {@code null}. */
    public String hwTrapName() {
        return has(NetDm.ATTR_HW_TRAP_NAME) ? str(hwTrapName, hwTrapNameLength) : null;
    }

    /** REASON as a String (allocates), or {@code null}. */
    public String reason() {
        return has(NetDm.ATTR_REASON) ? str(reason, reasonLength) : null;
    }

    /** IN_PORT netdev name as a String (allocates), or {@code null}. */
    public String inPortName() {
        return inPortHasName ? str(inPortName, inPortNameLength) : null;
    }

    private static String str(byte[] b, int n) {
        return new String(b, 0, n, StandardCharsets.UTF_8);
    }

    /** Sets SYMBOL (ASCII/UTF-8, at most {@value #STRING_CAPACITY} bytes). */
    public NetDmAlert symbol(String s) {
        symbolLength = setString(symbol, s, "NET_DM_ATTR_SYMBOL");
        mark(NetDm.ATTR_SYMBOL);
        return this;
    }

    /** Sets HW_TRAP_GROUP_NAME. */
    public NetDmAlert hwTrapGroup(String s) {
        hwTrapGroupLength = setString(hwTrapGroup, s, "NET_DM_ATTR_HW_TRAP_GROUP_NAME");
        mark(NetDm.ATTR_HW_TRAP_GROUP_NAME);
        return this;
    }

    /** Sets HW_TRAP_NAME. */
    public NetDmAlert hwTrapName(String s) {
        hwTrapNameLength = setString(hwTrapName, s, "NET_DM_ATTR_HW_TRAP_NAME");
        mark(NetDm.ATTR_HW_TRAP_NAME);
        return this;
    }

    /** Sets REASON. */
    public NetDmAlert reason(String s) {
        reasonLength = setString(reason, s, "NET_DM_ATTR_REASON");
        mark(NetDm.ATTR_REASON);
        return this;
    }

    /** Sets IN_PORT's netdev name (kernel convention; written inside the nest). */
    public NetDmAlert inPortName(String s) {
        inPortNameLength = setString(inPortName, s, "NET_DM_ATTR_PORT_NETDEV_NAME");
        inPortHasName = true;
        return this;
    }

    /**
     * Sets HW_TRAP_GROUP_NAME from UTF-8 bytes without a NUL (copies; allocates nothing).
     *
     * @throws IllegalArgumentException longer than {@value #STRING_CAPACITY} bytes or containing a NUL byte
     * @throws IndexOutOfBoundsException the range is outside {@code src}
     */
    public NetDmAlert hwTrapGroup(byte[] src, int offset, int length) {
        hwTrapGroupLength = setBytes(hwTrapGroup, src, offset, length, "NET_DM_ATTR_HW_TRAP_GROUP_NAME");
        mark(NetDm.ATTR_HW_TRAP_GROUP_NAME);
        return this;
    }

    /** Sets HW_TRAP_NAME from bytes; as {@link #hwTrapGroup(byte[], int, int)}. */
    public NetDmAlert hwTrapName(byte[] src, int offset, int length) {
        hwTrapNameLength = setBytes(hwTrapName, src, offset, length, "NET_DM_ATTR_HW_TRAP_NAME");
        mark(NetDm.ATTR_HW_TRAP_NAME);
        return this;
    }

    /** Sets REASON from bytes; as {@link #hwTrapGroup(byte[], int, int)}. */
    public NetDmAlert reason(byte[] src, int offset, int length) {
        reasonLength = setBytes(reason, src, offset, length, "NET_DM_ATTR_REASON");
        mark(NetDm.ATTR_REASON);
        return this;
    }

    /** Sets SYMBOL from bytes; as {@link #hwTrapGroup(byte[], int, int)}. */
    public NetDmAlert symbol(byte[] src, int offset, int length) {
        symbolLength = setBytes(symbol, src, offset, length, "NET_DM_ATTR_SYMBOL");
        mark(NetDm.ATTR_SYMBOL);
        return this;
    }

    private static int setString(byte[] dst, String s, String what) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return setBytes(dst, b, 0, b.length, what);
    }

    private static int setBytes(byte[] dst, byte[] src, int offset, int length, String what) {
        java.util.Objects.checkFromIndexSize(offset, length, src.length);
        if (length > dst.length) {
            throw new IllegalArgumentException(what + " of " + length + " bytes exceeds " + dst.length);
        }
        for (int i = offset; i < offset + length; i++) {
            if (src[i] == 0) {
                throw new IllegalArgumentException(what + " contains a NUL byte at index " + (i - offset));
            }
        }
        System.arraycopy(src, offset, dst, 0, length);
        return length;
    }

    /** Copies a NUL-terminated string payload (up to the first NUL, capped); returns the kept length. */
    private int decodedString(byte[] dst, MemorySegment seg, long off, int len) {
        int n = 0;
        while (n < len && seg.get(ValueLayout.JAVA_BYTE, off + n) != 0) {
            n++;
        }
        if (n > dst.length) {
            stringTruncated = true;
            n = dst.length;
        }
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, off, dst, 0, n);
        return n;
    }

    void decodedSymbol(MemorySegment seg, long off, int len) {
        symbolLength = decodedString(symbol, seg, off, len);
        mark(NetDm.ATTR_SYMBOL);
    }

    void decodedHwTrapGroup(MemorySegment seg, long off, int len) {
        hwTrapGroupLength = decodedString(hwTrapGroup, seg, off, len);
        mark(NetDm.ATTR_HW_TRAP_GROUP_NAME);
    }

    void decodedHwTrapName(MemorySegment seg, long off, int len) {
        hwTrapNameLength = decodedString(hwTrapName, seg, off, len);
        mark(NetDm.ATTR_HW_TRAP_NAME);
    }

    void decodedReason(MemorySegment seg, long off, int len) {
        reasonLength = decodedString(reason, seg, off, len);
        mark(NetDm.ATTR_REASON);
    }

    void decodedInPortName(MemorySegment seg, long off, int len) {
        inPortNameLength = decodedString(inPortName, seg, off, len);
        inPortHasName = true;
    }

    /** Copies every field of {@code o} into this holder (capacities must allow it); returns this. */
    public NetDmAlert copyFrom(NetDmAlert o) {
        clear();
        present = o.present;
        pc = o.pc;
        inPortIfIndex = o.inPortIfIndex;
        inPortFlat = o.inPortFlat;
        timestampNs = o.timestampNs;
        proto = o.proto;
        truncLen = o.truncLen;
        origLen = o.origLen;
        origin = o.origin;
        int n = Math.min(o.payloadLength, payload.length);
        System.arraycopy(o.payload, 0, payload, 0, n);
        payloadLength = n;
        payloadWireLength = o.payloadWireLength;
        symbolLength = copy(o.symbol, o.symbolLength, symbol);
        hwTrapGroupLength = copy(o.hwTrapGroup, o.hwTrapGroupLength, hwTrapGroup);
        hwTrapNameLength = copy(o.hwTrapName, o.hwTrapNameLength, hwTrapName);
        reasonLength = copy(o.reason, o.reasonLength, reason);
        inPortNameLength = copy(o.inPortName, o.inPortNameLength, inPortName);
        inPortHasName = o.inPortHasName;
        stringTruncated = o.stringTruncated;
        return this;
    }

    private static int copy(byte[] src, int n, byte[] dst) {
        System.arraycopy(src, 0, dst, 0, n);
        return n;
    }

    @Override
    public String toString() {
        return "NetDmAlert{inPort=" + inPortIfIndex + (inPortFlat ? " (flat)" : "") + ", proto=0x"
                + Integer.toHexString(proto) + ", origLen=" + origLen + ", payload=" + payloadLength + "/"
                + payloadWireLength + ", reason=" + reason() + ", trap=" + hwTrapGroup() + "/" + hwTrapName()
                + ", symbol=" + symbol() + ", ts=" + timestampNs + ", present=0x" + Long.toHexString(present) + "}";
    }

    /** Whether both holders carry the same attributes and values (test helper; allocates nothing). */
    public boolean sameAs(NetDmAlert o) {
        return present == o.present && pc == o.pc && inPortIfIndex == o.inPortIfIndex && timestampNs == o.timestampNs
                && proto == o.proto && truncLen == o.truncLen && origLen == o.origLen && origin == o.origin
                && Arrays.equals(payload, 0, payloadLength, o.payload, 0, o.payloadLength)
                && Arrays.equals(symbol, 0, symbolLength, o.symbol, 0, o.symbolLength)
                && Arrays.equals(hwTrapGroup, 0, hwTrapGroupLength, o.hwTrapGroup, 0, o.hwTrapGroupLength)
                && Arrays.equals(hwTrapName, 0, hwTrapNameLength, o.hwTrapName, 0, o.hwTrapNameLength)
                && Arrays.equals(reason, 0, reasonLength, o.reason, 0, o.reasonLength)
                && inPortHasName == o.inPortHasName
                && Arrays.equals(inPortName, 0, inPortNameLength, o.inPortName, 0, o.inPortNameLength);
    }
}
