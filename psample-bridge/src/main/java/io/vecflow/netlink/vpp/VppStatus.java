package io.vecflow.netlink.vpp;

/**
 * VPP STATUS message contents (spec §3): a mutable, reusable holder. u32 values are kept in {@code long}s
 * (0..2^32−1); each has a presence flag since the decoder accepts messages that omit attributes.
 */
public final class VppStatus {
    private long uptimeS;
    private long drops;
    private long seq;
    private boolean hasUptime;
    private boolean hasDrops;
    private boolean hasSeq;

    /** Creates an empty holder (all fields absent). */
    public VppStatus() {
    }

    /** Resets all fields to absent / 0. */
    public VppStatus clear() {
        uptimeS = drops = seq = 0;
        hasUptime = hasDrops = hasSeq = false;
        return this;
    }

    /** SFLOW_VPP_ATTR_UPTIME_S: seconds since sflow was enabled. */
    public long uptimeS() {
        return uptimeS;
    }

    /** Sets UPTIME_S (seconds, u32). */
    public VppStatus uptimeS(long v) {
        uptimeS = u32(v, "uptimeS");
        hasUptime = true;
        return this;
    }

    /** SFLOW_VPP_ATTR_DROPS: cumulative PSAMPLE send failures + worker sample-FIFO drops. */
    public long drops() {
        return drops;
    }

    /** Sets DROPS (u32). */
    public VppStatus drops(long v) {
        drops = u32(v, "drops");
        hasDrops = true;
        return this;
    }

    /** SFLOW_VPP_ATTR_SEQ: channel sequence number (shared with IF_COUNTERS). */
    public long seq() {
        return seq;
    }

    /** Sets SEQ (u32). */
    public VppStatus seq(long v) {
        seq = u32(v, "seq");
        hasSeq = true;
        return this;
    }

    /** Whether UPTIME_S was present. */
    public boolean hasUptimeS() {
        return hasUptime;
    }

    /** Whether DROPS was present. */
    public boolean hasDrops() {
        return hasDrops;
    }

    /** Whether SEQ was present. */
    public boolean hasSeq() {
        return hasSeq;
    }

    private static long u32(long v, String field) {
        if (v < 0 || v > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(field + " " + v + " outside the u32 range");
        }
        return v;
    }

    @Override
    public String toString() {
        return "status uptime=" + uptimeS + "s drops=" + drops + " seq=" + seq;
    }
}
