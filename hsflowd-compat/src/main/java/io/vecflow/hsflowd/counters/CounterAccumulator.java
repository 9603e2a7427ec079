package io.vecflow.hsflowd.counters;

/**
 * Interface counters as hsflowd reports them: totals of the changes seen since the agent first saw the source, not
 * the source's absolute values (host-sflow {@code src/Linux/readNioCounters.c}, {@code accumulateNioCounters}; used
 * for /proc/net/dev interfaces and, in {@code mod_vpp.c}, for VPP's IF_COUNTERS). The first reading only latches, so a
 * source's first counter sample carries zeros; each later reading adds its delta from the previous one. A reading
 * whose octet delta exceeds 10¹³ or whose packet delta exceeds 2³¹−1 (hsflowd's {@code HSP_MAX_NIO_DELTA64} and
 * {@code HSP_MAX_NIO_DELTA32}: a counter reset or a device swapped under the agent) adds nothing to any total, is
 * counted in {@link #discontinuities()}, and becomes the new latch.
 *
 * <p>Widths: the counters named as octets are 64-bit (deltas and totals mod 2⁶⁴); every other counter is 32-bit as in
 * hsflowd's {@code SFLHost_nio_counters} (deltas and totals mod 2³²: a raw 64-bit counter is cut to its low 32 bits
 * first, so wraps of either width add the right delta). Difference: hsflowd begins with 32-bit octet arithmetic
 * until it sees an octet counter above 2³²; here octets are 64-bit from the start (the same totals unless more than
 * 4 GiB pass between two readings while hsflowd is still in its 32-bit mode).
 *
 * <p>Allocation-free per reading. Not thread-safe.
 */
public final class CounterAccumulator {
    /** Largest octet delta taken as real (hsflowd {@code HSP_MAX_NIO_DELTA64}, 1.0e13). */
    public static final long MAX_OCTET_DELTA = 10_000_000_000_000L;
    /** Largest packet delta taken as real (hsflowd {@code HSP_MAX_NIO_DELTA32}). */
    public static final long MAX_PACKET_DELTA = 0x7FFFFFFFL;
    private static final long U32 = 0xFFFFFFFFL;

    private final boolean[] octets;
    private final boolean[] packets;
    private final long[] last;
    private final long[] total;
    private boolean latched;
    private long discontinuities;

    /**
     * @param counters how many counters a reading has (indexes 0..counters−1)
     * @param octetIndexes the 64-bit octet counters (their deltas are checked against {@link #MAX_OCTET_DELTA})
     * @param packetIndexes the packet counters whose deltas are checked against {@link #MAX_PACKET_DELTA}
     * @throws ArrayIndexOutOfBoundsException if an index is outside {@code [0, counters)}
     */
    public CounterAccumulator(int counters, int[] octetIndexes, int[] packetIndexes) {
        octets = new boolean[counters];
        packets = new boolean[counters];
        for (int i : octetIndexes) {
            octets[i] = true;
        }
        for (int i : packetIndexes) {
            packets[i] = true;
        }
        last = new long[counters];
        total = new long[counters];
    }

    /**
     * Takes one reading.
     *
     * @param raw the source's absolute counters, one per index (at least {@code counters} long); read only
     * @return the totals since first seen, indexed as {@code raw} (this accumulator's own array: valid until the next
     *         call, do not modify)
     */
    public long[] accumulate(long[] raw) {
        int n = last.length;
        boolean add = latched;
        if (add) {
            for (int i = 0; i < n; i++) {
                if (octets[i]) {
                    if (Long.compareUnsigned(raw[i] - last[i], MAX_OCTET_DELTA) > 0) {
                        add = false;
                    }
                } else if (packets[i] && ((raw[i] - last[i]) & U32) > MAX_PACKET_DELTA) {
                    add = false;
                }
            }
            if (!add) {
                discontinuities++;
            }
        }
        for (int i = 0; i < n; i++) {
            if (add) {
                total[i] = octets[i] ? total[i] + (raw[i] - last[i]) : (total[i] + raw[i] - last[i]) & U32;
            }
            last[i] = raw[i];
        }
        latched = true;
        return total;
    }

    /** @return readings that added nothing because a delta was too large (a counter reset or discontinuity) */
    public long discontinuities() {
        return discontinuities;
    }
}
