package io.vecflow.netlink.vpp;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * VPP IF_COUNTERS message contents (spec {@code docs/netlink.md} §3; FDio/vpp {@code src/plugins/sflow/sflow.c}
 * sends one per interface per polling interval): a mutable, reusable holder filled by
 * {@link VppIfCountersCodec#decode} and read by {@link VppIfCountersCodec#encode}. Not thread-safe.
 *
 * <p>u32 attributes are kept in {@code long}s (0..2^32−1); u64 counters in {@code long}s (two's complement, read them
 * with {@link Long#toUnsignedString}). Each attribute has a presence bit ({@link #has(int)}, ids
 * {@code VppUsersock.ATTR_*}). The port name is held in an owned buffer of {@value #MAX_PORT_NAME} bytes (sFlow's
 * {@code string ifName<255>}, 0:1005); a longer name on the wire is cut and {@link #portNameTruncated()} set.
 */
public final class VppIfCounters {
    /** Longest port name kept, bytes (sFlow port_name is {@code string<255>}). */
    public static final int MAX_PORT_NAME = 255;

    private long present;
    private final byte[] portName = new byte[MAX_PORT_NAME];
    private int portNameLength;
    private int portNameWireLength;
    private long ifIndex;
    private long ifType;
    private long ifSpeed;
    private long ifDirection;
    private long operUp;
    private long adminUp;
    private final long[] counters = new long[12]; // ATTR_RX_OCTETS (7) .. ATTR_TX_ERRORS (18)
    private final byte[] hwAddress = new byte[6];
    private long osIndex;
    private long seq;

    /** Creates an empty holder. */
    public VppIfCounters() {
    }

    /** Forgets every attribute. */
    public VppIfCounters clear() {
        present = 0;
        portNameLength = portNameWireLength = 0;
        ifIndex = ifType = ifSpeed = ifDirection = operUp = adminUp = osIndex = seq = 0;
        Arrays.fill(counters, 0);
        Arrays.fill(hwAddress, (byte) 0);
        return this;
    }

    /** Whether attribute {@code id} (a {@code VppUsersock.ATTR_*} id, 0..63) is present. */
    public boolean has(int id) {
        return id >= 0 && id < 64 && (present & (1L << id)) != 0;
    }

    void mark(int id) {
        present |= 1L << id;
    }

    // ---- port name ----

    /** The port-name buffer; valid bytes {@code [0, portNameLength())}. */
    public byte[] portName() {
        return portName;
    }

    /** Port name bytes held (≤ {@value #MAX_PORT_NAME}). */
    public int portNameLength() {
        return portNameLength;
    }

    /** Whether the name on the wire was longer than {@value #MAX_PORT_NAME} bytes and was cut. */
    public boolean portNameTruncated() {
        return portNameWireLength > portNameLength;
    }

    /** The port name as a string (allocates; for tests and tools). */
    public String portNameString() {
        return new String(portName, 0, portNameLength, StandardCharsets.UTF_8);
    }

    /**
     * Sets SFLOW_VPP_ATTR_PORTNAME (VPP's hw interface name, sent without a NUL).
     *
     * @throws IllegalArgumentException if the UTF-8 name is longer than {@value #MAX_PORT_NAME} bytes
     */
    public VppIfCounters portName(String name) {
        byte[] b = name.getBytes(StandardCharsets.UTF_8);
        if (b.length > MAX_PORT_NAME) {
            throw new IllegalArgumentException("port name of " + b.length + " bytes, at most " + MAX_PORT_NAME);
        }
        System.arraycopy(b, 0, portName, 0, b.length);
        portNameLength = portNameWireLength = b.length;
        mark(VppUsersock.ATTR_PORTNAME);
        return this;
    }

    void decodedPortName(java.lang.foreign.MemorySegment src, long offset, int wireLength) {
        int n = Math.min(wireLength, MAX_PORT_NAME);
        java.lang.foreign.MemorySegment.copy(src, java.lang.foreign.ValueLayout.JAVA_BYTE, offset, portName, 0, n);
        // a sender that adds a NUL (not VPP) must not put it into the sFlow port name
        while (n > 0 && portName[n - 1] == 0) {
            n--;
        }
        portNameLength = n;
        portNameWireLength = wireLength > MAX_PORT_NAME ? wireLength : n;
        mark(VppUsersock.ATTR_PORTNAME);
    }

    // ---- scalars ----

    /** SFLOW_VPP_ATTR_IFINDEX: VPP's sw_if_index (hw_if_index before VPP f1467f6), u32. */
    public long ifIndex() {
        return ifIndex;
    }

    /** Sets IFINDEX (u32). */
    public VppIfCounters ifIndex(long v) {
        ifIndex = u32(v, "ifIndex");
        mark(VppUsersock.ATTR_IFINDEX);
        return this;
    }

    /** SFLOW_VPP_ATTR_IFTYPE: IANA ifType (VPP: 24 softwareLoopback for "loop*", else 6 ethernetCsmacd), u32. */
    public long ifType() {
        return ifType;
    }

    /** Sets IFTYPE (u32). */
    public VppIfCounters ifType(long v) {
        ifType = u32(v, "ifType");
        mark(VppUsersock.ATTR_IFTYPE);
        return this;
    }

    /** SFLOW_VPP_ATTR_IFSPEED: bits per second, u64. */
    public long ifSpeed() {
        return ifSpeed;
    }

    /** Sets IFSPEED (bits/s, u64). */
    public VppIfCounters ifSpeed(long v) {
        ifSpeed = v;
        mark(VppUsersock.ATTR_IFSPEED);
        return this;
    }

    /** SFLOW_VPP_ATTR_IFDIRECTION: 1 full duplex, 2 half duplex (sFlow ifDirection), u32. */
    public long ifDirection() {
        return ifDirection;
    }

    /** Sets IFDIRECTION (u32). */
    public VppIfCounters ifDirection(long v) {
        ifDirection = u32(v, "ifDirection");
        mark(VppUsersock.ATTR_IFDIRECTION);
        return this;
    }

    /** SFLOW_VPP_ATTR_OPER_UP: 1 when the link is up, u32. */
    public long operUp() {
        return operUp;
    }

    /** Sets OPER_UP (u32). */
    public VppIfCounters operUp(long v) {
        operUp = u32(v, "operUp");
        mark(VppUsersock.ATTR_OPER_UP);
        return this;
    }

    /** SFLOW_VPP_ATTR_ADMIN_UP: 1 when admin up, u32. */
    public long adminUp() {
        return adminUp;
    }

    /** Sets ADMIN_UP (u32). */
    public VppIfCounters adminUp(long v) {
        adminUp = u32(v, "adminUp");
        mark(VppUsersock.ATTR_ADMIN_UP);
        return this;
    }

    /**
     * One of the twelve u64 counters, by attribute id {@link VppUsersock#ATTR_RX_OCTETS} (7) ..
     * {@link VppUsersock#ATTR_TX_ERRORS} (18).
     *
     * @throws IllegalArgumentException for another id
     */
    public long counter(int attrId) {
        return counters[counterSlot(attrId)];
    }

    /** Sets one u64 counter by attribute id (7..18) and marks it present. */
    public VppIfCounters counter(int attrId, long v) {
        counters[counterSlot(attrId)] = v;
        mark(attrId);
        return this;
    }

    private static int counterSlot(int attrId) {
        if (attrId < VppUsersock.ATTR_RX_OCTETS || attrId > VppUsersock.ATTR_TX_ERRORS) {
            throw new IllegalArgumentException("attribute " + attrId + " is not a VPP u64 counter (7..18)");
        }
        return attrId - VppUsersock.ATTR_RX_OCTETS;
    }

    /** SFLOW_VPP_ATTR_HW_ADDRESS: the 6-byte MAC (owned buffer). */
    public byte[] hwAddress() {
        return hwAddress;
    }

    /** Sets HW_ADDRESS from 6 bytes. */
    public VppIfCounters hwAddress(byte[] mac) {
        if (mac.length != 6) {
            throw new IllegalArgumentException("hwAddress must be 6 bytes, got " + mac.length);
        }
        System.arraycopy(mac, 0, hwAddress, 0, 6);
        mark(VppUsersock.ATTR_HW_ADDRESS);
        return this;
    }

    void decodedHwAddress(java.lang.foreign.MemorySegment src, long offset) {
        java.lang.foreign.MemorySegment.copy(src, java.lang.foreign.ValueLayout.JAVA_BYTE, offset, hwAddress, 0, 6);
        mark(VppUsersock.ATTR_HW_ADDRESS);
    }

    /**
     * SFLOW_VPP_ATTR_OSINDEX: the Linux ifindex of the linux-cp pair, u32. Absent ({@code has(ATTR_OSINDEX)} false)
     * when linux-cp has no pair for the port; 0 when VPP runs without the linux-cp plugin (spec §3).
     */
    public long osIndex() {
        return osIndex;
    }

    /** Sets OSINDEX (u32). */
    public VppIfCounters osIndex(long v) {
        osIndex = u32(v, "osIndex");
        mark(VppUsersock.ATTR_OSINDEX);
        return this;
    }

    /** SFLOW_VPP_ATTR_SEQ: the channel sequence number shared with STATUS, u32. */
    public long seq() {
        return seq;
    }

    /** Sets SEQ (u32). */
    public VppIfCounters seq(long v) {
        seq = u32(v, "seq");
        mark(VppUsersock.ATTR_SEQ);
        return this;
    }

    private static long u32(long v, String field) {
        if (v < 0 || v > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(field + " " + v + " outside the u32 range 0..4294967295");
        }
        return v;
    }

    void setU32(int id, long v) {
        switch (id) {
            case VppUsersock.ATTR_IFINDEX -> ifIndex = v;
            case VppUsersock.ATTR_IFTYPE -> ifType = v;
            case VppUsersock.ATTR_IFDIRECTION -> ifDirection = v;
            case VppUsersock.ATTR_OPER_UP -> operUp = v;
            case VppUsersock.ATTR_ADMIN_UP -> adminUp = v;
            case VppUsersock.ATTR_OSINDEX -> osIndex = v;
            case VppUsersock.ATTR_SEQ -> seq = v;
            default -> throw new IllegalArgumentException("attribute " + id + " is not a u32");
        }
        mark(id);
    }

    @Override
    public String toString() {
        return "if_counters " + portNameString() + " ifIndex=" + ifIndex
                + (has(VppUsersock.ATTR_OSINDEX) ? " osIndex=" + osIndex : "") + " type=" + ifType + " speed="
                + Long.toUnsignedString(ifSpeed) + " rxOctets=" + Long.toUnsignedString(counters[0]) + " txOctets="
                + Long.toUnsignedString(counters[1]) + " seq=" + seq;
    }
}
