package io.vecflow.netlink.psample;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * One PSAMPLE sample: a mutable, reusable holder filled by {@link PsampleCodec#decode} and read by
 * {@link PsampleCodec#encode}. Not thread-safe.
 *
 * <p>Fields mirror the PSAMPLE attributes ({@code include/uapi/linux/psample.h}; spec §2). u32 attributes are kept in
 * {@code long}s (0..2^32−1). Each setter marks its attribute present ({@link #has(int)}); {@link #clear()} resets
 * everything. Header bytes live in an owned {@code byte[]} of fixed capacity (default
 * {@value #DEFAULT_DATA_CAPACITY}); longer DATA is truncated on decode and {@link #dataTruncated()} is set, with the
 * wire length kept in {@link #dataWireLength()}.
 */
public final class PsampleSample {
    /** Default DATA capacity in bytes (≥ VPP's 256-byte maximum header and a full 1514-byte Ethernet frame). */
    public static final int DEFAULT_DATA_CAPACITY = 2048;

    private long present; // bit i = attribute id i seen / set
    private long iifIndex;
    private long oifIndex;
    private int iifIndexBits;
    private int oifIndexBits;
    private long origSize;
    private long sampleGroup;
    private long groupSeq;
    private long sampleRate;
    private final byte[] data;
    private int dataLength;
    private int dataWireLength;
    private int outTc = -1;
    private long outTcOccBytes;
    private long latencyNs;
    private long timestampNs;
    private int proto = -1;
    private final byte[] userCookie = new byte[Psample.MAX_USER_COOKIE];
    private int userCookieLength;
    private int nlmsgPid;

    /** Holder with {@value #DEFAULT_DATA_CAPACITY} bytes of DATA capacity. */
    public PsampleSample() {
        this(DEFAULT_DATA_CAPACITY);
    }

    /**
     * @param dataCapacity DATA capacity in bytes, 1..{@link Psample#MAX_DATA}
     */
    public PsampleSample(int dataCapacity) {
        if (dataCapacity < 1 || dataCapacity > Psample.MAX_DATA) {
            throw new IllegalArgumentException("dataCapacity " + dataCapacity + " outside 1.." + Psample.MAX_DATA);
        }
        this.data = new byte[dataCapacity];
    }

    /** Forgets all attributes (presence bits, values, DATA length); the DATA buffer is kept. */
    public PsampleSample clear() {
        present = 0;
        iifIndex = oifIndex = origSize = sampleGroup = groupSeq = sampleRate = 0;
        iifIndexBits = oifIndexBits = 0;
        dataLength = dataWireLength = 0;
        outTc = -1;
        outTcOccBytes = latencyNs = timestampNs = 0;
        proto = -1;
        userCookieLength = 0;
        nlmsgPid = 0;
        return this;
    }

    /**
     * nlmsg_pid of the message this sample was decoded from (not an attribute): 0 for the kernel, the sender's port
     * id otherwise (VPP binds {@code (2 << 16) | getpid()}, spec §1). Tells apart two producers that share a PSAMPLE
     * group, each with its own GROUP_SEQ. 0 for a sample built in code.
     */
    public int nlmsgPid() {
        return nlmsgPid;
    }

    /** Sets the nlmsg_pid the sample was received with (see {@link #nlmsgPid()}); not encoded. */
    public PsampleSample nlmsgPid(int pid) {
        nlmsgPid = pid;
        return this;
    }

    /** Whether attribute {@code attrId} (a {@code Psample.ATTR_*} id, 0..63) is present. */
    public boolean has(int attrId) {
        return attrId >= 0 && attrId < 64 && (present & (1L << attrId)) != 0;
    }

    /** Bitmask of present attribute ids (bit i = attribute id i). */
    public long presentMask() {
        return present;
    }

    void mark(int attrId) {
        present |= 1L << attrId;
    }

    // ---- ifindex ----

    /** PSAMPLE_ATTR_IIFINDEX (u32 range; 0 when absent). */
    public long iifIndex() {
        return iifIndex;
    }

    /** Sets the input ifindex (0..2^32−1) and marks it present. */
    public PsampleSample iifIndex(long v) {
        iifIndex = checkU32(v, "iifIndex");
        iifIndexBits = 0;
        mark(Psample.ATTR_IIFINDEX);
        return this;
    }

    /** PSAMPLE_ATTR_OIFINDEX (u32 range; 0 when absent). */
    public long oifIndex() {
        return oifIndex;
    }

    /** Sets the output ifindex (0..2^32−1) and marks it present. */
    public PsampleSample oifIndex(long v) {
        oifIndex = checkU32(v, "oifIndex");
        oifIndexBits = 0;
        mark(Psample.ATTR_OIFINDEX);
        return this;
    }

    /** Width of the decoded IIFINDEX attribute in bits: 16 (kernel), 32 (VPP), or 0 if absent / not decoded. */
    public int iifIndexBits() {
        return iifIndexBits;
    }

    /** Width of the decoded OIFINDEX attribute in bits: 16, 32, or 0. */
    public int oifIndexBits() {
        return oifIndexBits;
    }

    /** Width of the ifindex attributes seen: IIFINDEX's if present, else OIFINDEX's; 0 if neither was decoded. */
    public int ifIndexBits() {
        return iifIndexBits != 0 ? iifIndexBits : oifIndexBits;
    }

    void decodedIif(long v, int bits) {
        iifIndex = v;
        iifIndexBits = bits;
        mark(Psample.ATTR_IIFINDEX);
    }

    void decodedOif(long v, int bits) {
        oifIndex = v;
        oifIndexBits = bits;
        mark(Psample.ATTR_OIFINDEX);
    }

    // ---- u32 scalars ----

    /** PSAMPLE_ATTR_ORIGSIZE: original frame length in bytes. */
    public long origSize() {
        return origSize;
    }

    /** Sets ORIGSIZE (bytes, u32). */
    public PsampleSample origSize(long v) {
        origSize = checkU32(v, "origSize");
        mark(Psample.ATTR_ORIGSIZE);
        return this;
    }

    /** PSAMPLE_ATTR_SAMPLE_GROUP. */
    public long sampleGroup() {
        return sampleGroup;
    }

    /** Sets SAMPLE_GROUP (u32). */
    public PsampleSample sampleGroup(long v) {
        sampleGroup = checkU32(v, "sampleGroup");
        mark(Psample.ATTR_SAMPLE_GROUP);
        return this;
    }

    /** PSAMPLE_ATTR_GROUP_SEQ. */
    public long groupSeq() {
        return groupSeq;
    }

    /** Sets GROUP_SEQ (u32). */
    public PsampleSample groupSeq(long v) {
        groupSeq = checkU32(v, "groupSeq");
        mark(Psample.ATTR_GROUP_SEQ);
        return this;
    }

    /** PSAMPLE_ATTR_SAMPLE_RATE: N of 1-in-N (or a probability when SAMPLE_PROBABILITY is present). */
    public long sampleRate() {
        return sampleRate;
    }

    /** Sets SAMPLE_RATE (u32). */
    public PsampleSample sampleRate(long v) {
        sampleRate = checkU32(v, "sampleRate");
        mark(Psample.ATTR_SAMPLE_RATE);
        return this;
    }

    // ---- DATA ----

    /** The DATA buffer (owned, reused); valid bytes are {@code [0, dataLength())}. */
    public byte[] data() {
        return data;
    }

    /** DATA bytes held (≤ {@link #dataCapacity()}). */
    public int dataLength() {
        return dataLength;
    }

    /** DATA payload length on the wire (nla_len − 4); larger than {@link #dataLength()} when truncated. */
    public int dataWireLength() {
        return dataWireLength;
    }

    /** Whether the DATA on the wire was longer than the holder's capacity and got cut. */
    public boolean dataTruncated() {
        return dataWireLength > dataLength;
    }

    /** Capacity of the DATA buffer in bytes. */
    public int dataCapacity() {
        return data.length;
    }

    /**
     * Copies header bytes into the holder and marks DATA present.
     *
     * @throws IllegalArgumentException if {@code length} exceeds {@link #dataCapacity()}
     */
    public PsampleSample data(byte[] src, int offset, int length) {
        checkDataLength(length);
        System.arraycopy(src, offset, data, 0, length);
        dataLength = dataWireLength = length;
        mark(Psample.ATTR_DATA);
        return this;
    }

    /**
     * Copies header bytes from a segment and marks DATA present.
     *
     * @throws IllegalArgumentException if {@code length} exceeds {@link #dataCapacity()}
     */
    public PsampleSample data(MemorySegment src, long offset, int length) {
        checkDataLength(length);
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, offset, data, 0, length);
        dataLength = dataWireLength = length;
        mark(Psample.ATTR_DATA);
        return this;
    }

    void decodedData(MemorySegment src, long offset, int wireLength) {
        int n = Math.min(wireLength, data.length);
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, offset, data, 0, n);
        dataLength = n;
        dataWireLength = wireLength;
        mark(Psample.ATTR_DATA);
    }

    private void checkDataLength(int length) {
        if (length < 0 || length > data.length) {
            throw new IllegalArgumentException("DATA length " + length + " outside 0.." + data.length
                    + " (holder capacity)");
        }
    }

    // ---- optional kernel attributes ----

    /** PSAMPLE_ATTR_OUT_TC (u16), or −1 when absent. */
    public int outTc() {
        return outTc;
    }

    /** Sets OUT_TC (0..65535). */
    public PsampleSample outTc(int v) {
        if (v < 0 || v > 0xFFFF) {
            throw new IllegalArgumentException("outTc " + v + " outside 0..65535");
        }
        outTc = v;
        mark(Psample.ATTR_OUT_TC);
        return this;
    }

    /** PSAMPLE_ATTR_OUT_TC_OCC: egress queue occupancy in bytes (0 when absent). */
    public long outTcOccBytes() {
        return outTcOccBytes;
    }

    /** Sets OUT_TC_OCC (bytes, u64). */
    public PsampleSample outTcOccBytes(long v) {
        outTcOccBytes = v;
        mark(Psample.ATTR_OUT_TC_OCC);
        return this;
    }

    /** PSAMPLE_ATTR_LATENCY in ns (0 when absent). */
    public long latencyNs() {
        return latencyNs;
    }

    /** Sets LATENCY (ns, u64). */
    public PsampleSample latencyNs(long v) {
        latencyNs = v;
        mark(Psample.ATTR_LATENCY);
        return this;
    }

    /** PSAMPLE_ATTR_TIMESTAMP in ns; 0 = absent. */
    public long timestampNs() {
        return timestampNs;
    }

    /** Sets TIMESTAMP (ns, u64); 0 means absent and clears it. */
    public PsampleSample timestampNs(long v) {
        timestampNs = v;
        if (v == 0) {
            present &= ~(1L << Psample.ATTR_TIMESTAMP);
        } else {
            mark(Psample.ATTR_TIMESTAMP);
        }
        return this;
    }

    /** PSAMPLE_ATTR_PROTO (u16), or −1 when absent. */
    public int proto() {
        return proto;
    }

    /** Sets PROTO (0..65535: an ethertype for the kernel convention, 1 for VPP's); −1 clears it. */
    public PsampleSample proto(int v) {
        if (v == -1) {
            proto = -1;
            present &= ~(1L << Psample.ATTR_PROTO);
            return this;
        }
        if (v < 0 || v > 0xFFFF) {
            throw new IllegalArgumentException("proto " + v + " outside 0..65535");
        }
        proto = v;
        mark(Psample.ATTR_PROTO);
        return this;
    }

    /**
     * PSAMPLE_ATTR_USER_COOKIE bytes (owned buffer of {@link Psample#MAX_USER_COOKIE} bytes; valid
     * {@code [0, userCookieLength())}). vecflow's load-balancer decisions travel here ({@link LbDecisionCookie}).
     */
    public byte[] userCookie() {
        return userCookie;
    }

    /** User cookie length in bytes (0..{@link Psample#MAX_USER_COOKIE}); 0 also when absent. */
    public int userCookieLength() {
        return userCookieLength;
    }

    /**
     * Sets USER_COOKIE (copies {@code length} bytes) and marks it present. Allocation-free.
     *
     * @throws IllegalArgumentException a length outside 0..{@link Psample#MAX_USER_COOKIE}
     */
    public PsampleSample userCookie(byte[] src, int offset, int length) {
        if (length < 0 || length > userCookie.length) {
            throw new IllegalArgumentException("user cookie length " + length + " outside 0.." + userCookie.length);
        }
        System.arraycopy(src, offset, userCookie, 0, length);
        userCookieLength = length;
        mark(Psample.ATTR_USER_COOKIE);
        return this;
    }

    /**
     * Encodes a load-balancer decision into USER_COOKIE ({@link LbDecisionCookie#encode}) and marks it present.
     * Allocation-free.
     *
     * @throws IllegalStateException the decision is incomplete (no kind, no VIP)
     */
    public PsampleSample userCookie(LbDecisionCookie decision) {
        userCookieLength = decision.encode(userCookie, 0);
        mark(Psample.ATTR_USER_COOKIE);
        return this;
    }

    /** Clears USER_COOKIE (length 0, not present). */
    public PsampleSample clearUserCookie() {
        userCookieLength = 0;
        present &= ~(1L << Psample.ATTR_USER_COOKIE);
        return this;
    }

    void decodedCookie(MemorySegment src, long offset, int length) {
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, offset, userCookie, 0, length);
        userCookieLength = length;
        mark(Psample.ATTR_USER_COOKIE);
    }

    /** Whether PSAMPLE_ATTR_SAMPLE_PROBABILITY (flag) is present. */
    public boolean sampleProbability() {
        return has(Psample.ATTR_SAMPLE_PROBABILITY);
    }

    /** Sets or clears the SAMPLE_PROBABILITY flag. */
    public PsampleSample sampleProbability(boolean v) {
        if (v) {
            mark(Psample.ATTR_SAMPLE_PROBABILITY);
        } else {
            present &= ~(1L << Psample.ATTR_SAMPLE_PROBABILITY);
        }
        return this;
    }

    /** Copies every field of {@code other} into this holder (DATA truncated to this capacity). */
    public PsampleSample copyFrom(PsampleSample other) {
        present = other.present;
        iifIndex = other.iifIndex;
        oifIndex = other.oifIndex;
        iifIndexBits = other.iifIndexBits;
        oifIndexBits = other.oifIndexBits;
        origSize = other.origSize;
        sampleGroup = other.sampleGroup;
        groupSeq = other.groupSeq;
        sampleRate = other.sampleRate;
        dataLength = Math.min(other.dataLength, data.length);
        System.arraycopy(other.data, 0, data, 0, dataLength);
        dataWireLength = other.dataWireLength;
        outTc = other.outTc;
        outTcOccBytes = other.outTcOccBytes;
        latencyNs = other.latencyNs;
        timestampNs = other.timestampNs;
        proto = other.proto;
        userCookieLength = other.userCookieLength;
        System.arraycopy(other.userCookie, 0, userCookie, 0, userCookieLength);
        nlmsgPid = other.nlmsgPid;
        return this;
    }

    /** Valid DATA bytes as a new array (allocates; for tests and tools). */
    public byte[] dataCopy() {
        return Arrays.copyOf(data, dataLength);
    }

    private static long checkU32(long v, String field) {
        if (v < 0 || v > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(field + " " + v + " outside the u32 range 0..4294967295");
        }
        return v;
    }

    @Override
    public String toString() {
        return PsampleFormatter.format(this);
    }
}
