package io.vecflow.collector.enrich.geoip;

import io.vecflow.collector.schema.Label;
import io.vecflow.collector.schema.NetworkInfo;
import io.vecflow.common.LongObjectMap;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.TreeMap;

/**
 * The network attributes of every address, flattened: the address space cut into disjoint intervals, each with one
 * {@link NetworkInfo} (the attributes of the most specific prefix that sets each field, see
 * {@link NetworkTableBuilder}). Immutable and thread-safe; a lookup allocates nothing.
 *
 * <p>Layout: IPv4 (the IPv4-mapped range {@code ::ffff:0:0/96}) in an {@code int[]} of interval starts, IPv6 (all
 * other addresses) in two {@code long[]} (high and low halves of each start), each with an {@code int[]} of value
 * indices into one {@code NetworkInfo[]} in which every distinct attribute set appears once. Starts are stored with
 * the sign bit flipped, so that signed comparison is the unsigned address order. A first-level index on the top
 * bits of the address (up to 16) narrows the binary search to the intervals that start in that block. Memory: 8
 * bytes per IPv4 interval and 20 per IPv6 interval, plus the two indexes (at most 256 KiB each) and the values.
 */
public final class NetworkTable {
    /** No networks, no AS names: every lookup gives {@link NetworkInfo#EMPTY}. */
    public static final NetworkTable EMPTY = new NetworkTable(new int[] {0}, new int[] {0}, new long[] {0},
            new long[] {0}, new int[] {0}, new NetworkInfo[] {NetworkInfo.EMPTY}, new TreeMap<>());

    private static final VarHandle BE64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final int BIAS32 = Integer.MIN_VALUE;
    private static final long BIAS64 = Long.MIN_VALUE;

    private final int[] v4Start;
    private final int[] v4Value;
    private final int v4Shift;
    private final int[] v4Index;
    private final long[] v6Hi;
    private final long[] v6Lo;
    private final int[] v6Value;
    private final int v6Shift;
    private final int[] v6Index;
    private final NetworkInfo[] values;
    private final LongObjectMap<Label> asNameByNumber;
    private final Map<Long, Label> asNames;

    /**
     * @param v4Start IPv4 interval starts (unbiased, ascending unsigned, the first 0)
     * @param v4Value value index of each IPv4 interval
     * @param v6Hi IPv6 interval starts, high halves (unbiased, ascending unsigned, the first ::)
     * @param v6Lo low halves
     * @param v6Value value index of each IPv6 interval
     * @param values the distinct values, [0] = {@link NetworkInfo#EMPTY}
     * @param asNames AS number → name
     */
    NetworkTable(int[] v4Start, int[] v4Value, long[] v6Hi, long[] v6Lo, int[] v6Value, NetworkInfo[] values,
            Map<Long, Label> asNames) {
        int n4 = v4Start.length;
        this.v4Start = new int[n4];
        for (int i = 0; i < n4; i++) {
            this.v4Start[i] = v4Start[i] ^ BIAS32;
        }
        this.v4Value = v4Value;
        int bits4 = indexBits(n4);
        this.v4Shift = 32 - bits4;
        this.v4Index = new int[(1 << bits4) + 1];
        for (int k = 0, i = 0; k < 1 << bits4; k++) {
            long blockStart = (long) k << v4Shift;
            while (i + 1 < n4 && (v4Start[i + 1] & 0xFFFF_FFFFL) <= blockStart) {
                i++;
            }
            v4Index[k] = i;
        }
        v4Index[1 << bits4] = n4 - 1;
        int n6 = v6Hi.length;
        this.v6Hi = new long[n6];
        this.v6Lo = new long[n6];
        for (int i = 0; i < n6; i++) {
            this.v6Hi[i] = v6Hi[i] ^ BIAS64;
            this.v6Lo[i] = v6Lo[i] ^ BIAS64;
        }
        this.v6Value = v6Value;
        int bits6 = indexBits(n6);
        this.v6Shift = 64 - bits6;
        this.v6Index = new int[(1 << bits6) + 1];
        for (int k = 0, i = 0; k < 1 << bits6; k++) {
            long blockStart = (long) k << v6Shift;
            // block start (blockStart, 0) >= interval start (hi, lo) when hi < blockStart, or hi == it and lo == 0
            while (i + 1 < n6 && (Long.compareUnsigned(v6Hi[i + 1], blockStart) < 0
                    || (v6Hi[i + 1] == blockStart && v6Lo[i + 1] == 0))) {
                i++;
            }
            v6Index[k] = i;
        }
        v6Index[1 << bits6] = n6 - 1;
        this.values = values;
        this.asNames = java.util.Collections.unmodifiableMap(new TreeMap<>(asNames));
        this.asNameByNumber = new LongObjectMap<>(Math.max(4, asNames.size() * 2));
        asNames.forEach((k, v) -> asNameByNumber.put(k, v));
    }

    /** @return bits of the first-level index for n intervals: about log2(n), 1..16 */
    private static int indexBits(int n) {
        return Math.clamp(32 - Integer.numberOfLeadingZeros(n), 1, 16);
    }

    /**
     * The attributes of one address. Allocates nothing.
     *
     * @param addr16 a 16-byte address, network order (IPv4 as ::ffff:a.b.c.d)
     * @param off where its first byte is
     * @return the attributes; {@link NetworkInfo#EMPTY} when nothing is known, never null
     * @throws IndexOutOfBoundsException when fewer than 16 bytes are at {@code off}
     */
    public NetworkInfo lookup(byte[] addr16, int off) {
        return lookup((long) BE64.get(addr16, off), (long) BE64.get(addr16, off + 8));
    }

    /**
     * The attributes of one address given as two halves (as {@code ParsedPacket} holds them). Allocates nothing.
     *
     * @param hi bytes 0–7 of the 16-byte address, big-endian
     * @param lo bytes 8–15 (IPv4: 0x0000_FFFF_aabb_ccdd)
     * @return the attributes, never null
     */
    public NetworkInfo lookup(long hi, long lo) {
        if (hi == 0 && (lo >>> 32) == 0xFFFFL) {
            return lookupIpv4((int) lo);
        }
        int k = (int) (hi >>> v6Shift);
        int l = v6Index[k];
        int h = v6Index[k + 1];
        long bh = hi ^ BIAS64;
        long bl = lo ^ BIAS64;
        while (l < h) {
            int mid = (l + h + 1) >>> 1;
            long sh = v6Hi[mid];
            if (sh < bh || (sh == bh && v6Lo[mid] <= bl)) {
                l = mid;
            } else {
                h = mid - 1;
            }
        }
        return values[v6Value[l]];
    }

    /**
     * The attributes of an IPv4 address. Allocates nothing.
     *
     * @param address a.b.c.d as 0xaabbccdd
     * @return the attributes, never null
     */
    public NetworkInfo lookupIpv4(int address) {
        int k = address >>> v4Shift;
        int l = v4Index[k];
        int h = v4Index[k + 1];
        int key = address ^ BIAS32;
        while (l < h) {
            int mid = (l + h + 1) >>> 1;
            if (v4Start[mid] <= key) {
                l = mid;
            } else {
                h = mid - 1;
            }
        }
        return values[v4Value[l]];
    }

    /**
     * The name of an AS, from the ASN databases. Allocates nothing.
     *
     * @param asn AS number
     * @return its name (organisation), or {@link Label#EMPTY} when unknown
     */
    public Label asName(long asn) {
        Label l = asNameByNumber.get(asn);
        return l == null ? Label.EMPTY : l;
    }

    /** @return every AS number with its name, in number order (unmodifiable; for the {@code asns} table) */
    public Map<Long, Label> asNames() {
        return asNames;
    }

    /** @return the number of intervals, IPv4 and IPv6 together */
    public int intervals() {
        return v4Start.length + v6Hi.length;
    }

    /** @return the number of IPv4 intervals */
    public int ipv4Intervals() {
        return v4Start.length;
    }

    /** @return the number of distinct attribute sets (values), {@link NetworkInfo#EMPTY} included */
    public int distinctValues() {
        return values.length;
    }

    /** @return the bytes of the interval arrays and indexes (not the values nor the AS names) */
    public long intervalBytes() {
        return 8L * v4Start.length + 20L * v6Hi.length + 4L * (v4Index.length + v6Index.length);
    }

    @Override
    public String toString() {
        return "NetworkTable[" + v4Start.length + " IPv4 + " + v6Hi.length + " IPv6 intervals, " + values.length
                + " values, " + asNames.size() + " AS names]";
    }
}
