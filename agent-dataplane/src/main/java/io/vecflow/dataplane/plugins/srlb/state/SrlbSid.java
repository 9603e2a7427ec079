package io.vecflow.dataplane.plugins.srlb.state;

/**
 * The SRLB / 6LB segment identifier layout (docs/load-balancing.md §3; Oryon/vpp-dev
 * {@code src/plugins/srlb/srlb-common.h}), on the low 64 bits of a 128-bit SID (bytes 8–15; bytes 0–7 are the
 * {@code hi} long, all prefix):
 *
 * <pre>
 * bytes 0–9   /80 prefix (per VIP on the LB, per application instance on a server)
 * byte  10    FUNCTION (high nibble) | OFFSET (low nibble)
 * byte  11    CORE: the worker that owns the flow
 * bytes 12–15 ENTRY: u32 flow-table entry hint
 * </pre>
 *
 * The VIP argument of a SID sits at Segment List[{@code segments_left − offset}]. ENTRY is written big-endian here
 * (VPP stores it in host order; the value is opaque to every node but the one that wrote it). All methods are pure
 * bit arithmetic on longs.
 */
public final class SrlbSid {
    /** Server agent: hunting with a SYN. */
    public static final int FN_CONNECT_IF_AVAILABLE = 0x0;
    /** Server agent: a non-SYN packet of a flow the LB has no state for. */
    public static final int FN_RECOVER_STICKINESS = 0x1;
    /** Server agent: the LB confirms its state. */
    public static final int FN_ACK_STICKINESS = 0x2;
    /** LB: connection accepted (on the SYN-ACK). */
    public static final int FN_CREATE_STICKINESS = 0x8;
    /** LB: FIN/RST. */
    public static final int FN_DELETE_STICKINESS = 0x9;

    /** Bits of the {@code lo} long kept from the prefix: bytes 8–9. */
    public static final long PREFIX_LO_MASK = 0xFFFF_0000_0000_0000L;

    private SrlbSid() {
    }

    /**
     * @param prefixLo low 64 bits of the /80 prefix (only bytes 8–9 are used)
     * @param function function code, 0–15
     * @param offset   VIP offset, 0–15
     * @param core     worker index, 0–255
     * @param entry    flow-table entry hint (u32)
     * @return the SID's low 64 bits
     * @throws IllegalArgumentException naming a field out of range
     */
    public static long lo(long prefixLo, int function, int offset, int core, int entry) {
        if ((function & ~0xF) != 0 || (offset & ~0xF) != 0 || (core & ~0xFF) != 0) {
            throw new IllegalArgumentException("SRLB SID fields out of range: function " + function + " and offset "
                    + offset + " must be in [0, 15], core " + core + " in [0, 255]");
        }
        return (prefixLo & PREFIX_LO_MASK) | (long) (function << 4 | offset) << 40 | (long) core << 32
                | (entry & 0xFFFF_FFFFL);
    }

    /** @return {@code lo} with byte 10 replaced by {@code function << 4 | offset} (no range check; hot path) */
    public static long withFunctionAndOffset(long lo, int function, int offset) {
        return (lo & ~0x0000_FF00_0000_0000L) | (long) ((function & 0xF) << 4 | (offset & 0xF)) << 40;
    }

    /** @return FUNCTION, the high nibble of byte 10 */
    public static int function(long lo) {
        return (int) (lo >>> 44) & 0xF;
    }

    /** @return OFFSET, the low nibble of byte 10 */
    public static int offset(long lo) {
        return (int) (lo >>> 40) & 0xF;
    }

    /** @return CORE, byte 11 */
    public static int core(long lo) {
        return (int) (lo >>> 32) & 0xFF;
    }

    /** @return ENTRY, bytes 12–15 (u32 in an int) */
    public static int entry(long lo) {
        return (int) lo;
    }

    /** @return whether two SIDs share the /80 prefix (bytes 0–9) */
    public static boolean samePrefix(long hiA, long loA, long hiB, long loB) {
        return hiA == hiB && ((loA ^ loB) & PREFIX_LO_MASK) == 0;
    }
}
