package io.vecflow.dataplane.lb.srlb;

/**
 * SRLB's SID layout and function codes (shared/specs/lb.md §3 "SID layout", "Function codes"; Oryon/vpp-dev
 * {@code srlb-common.h}). A SID is 128 bits: bytes 0–9 the /80 prefix (per VIP on the LB, per application instance
 * on a server), byte 10 FUNCTION (high nibble) and OFFSET (low nibble), byte 11 CORE (the worker owning the flow),
 * bytes 12–15 a u32 flow-table ENTRY hint. The helpers work on the SID's low 64 bits (bytes 8–15, big-endian, as
 * {@code ParsedPacket.srhSegmentLo} returns them), so they allocate nothing.
 */
public final class SrlbSid {
    /** 0x0, executed at a server agent: hunting with a SYN. */
    public static final int CONNECT_IF_AVAILABLE = 0x0;
    /** 0x1, at a server agent: a non-SYN packet for a flow the LB has no state for. */
    public static final int RECOVER_STICKINESS = 0x1;
    /** 0x2, at a server agent: the LB confirms its state. */
    public static final int ACK_STICKINESS = 0x2;
    /** 0x8, at the LB: the connection was accepted. */
    public static final int CREATE_STICKINESS = 0x8;
    /** 0x9, at the LB: FIN/RST, tear down. */
    public static final int DELETE_STICKINESS = 0x9;

    private SrlbSid() {}

    /** @return FUNCTION, the high nibble of byte 10 */
    public static int function(long sidLo) {
        return (int) (sidLo >>> 44) & 0xF;
    }

    /** @return OFFSET, the low nibble of byte 10: the VIP argument is at {@code segments_left − offset} */
    public static int offset(long sidLo) {
        return (int) (sidLo >>> 40) & 0xF;
    }

    /** @return CORE, byte 11 */
    public static int core(long sidLo) {
        return (int) (sidLo >>> 32) & 0xFF;
    }

    /** @return ENTRY, bytes 12–15, as an unsigned value in a long */
    public static long entry(long sidLo) {
        return sidLo & 0xFFFF_FFFFL;
    }

    /**
     * @param sidLo    the low 64 bits of the /80 prefix's SID (bytes 8–9 kept, bytes 10–15 replaced)
     * @param function 0..15
     * @param offset   0..15
     * @param core     0..255
     * @param entry    u32 hint
     * @return the low 64 bits with the fields set
     * @throws IllegalArgumentException naming the field out of range
     */
    public static long withFields(long sidLo, int function, int offset, int core, long entry) {
        if ((function & ~0xF) != 0) {
            throw new IllegalArgumentException("SRLB SID function must be 0..15, got " + function);
        }
        if ((offset & ~0xF) != 0) {
            throw new IllegalArgumentException("SRLB SID offset must be 0..15, got " + offset);
        }
        if ((core & ~0xFF) != 0) {
            throw new IllegalArgumentException("SRLB SID core must be 0..255, got " + core);
        }
        if ((entry & ~0xFFFF_FFFFL) != 0) {
            throw new IllegalArgumentException("SRLB SID entry must be a u32, got " + entry);
        }
        return (sidLo & 0xFFFF_0000_0000_0000L) | ((long) function << 44) | ((long) offset << 40)
                | ((long) core << 32) | entry;
    }
}
