package io.vecflow.sflow;

/**
 * Holders and decoders for the counter records of sFlow v5 (counters_sample 0:2 / 0:4): generic interface 0:1,
 * ethernet 0:2, token ring 0:3, 100BaseVG 0:4, VLAN 0:5, processor 0:1001, port name 0:1005, host 0:2000–2010 and
 * virtual host 0:2100–2106 (sflow_version_5.txt "Counter Data", sflow_host.txt).
 *
 * <p>Only generic interface counters (0:1) are decoded so far; the rest are kept raw by {@link CounterSample}.
 */
public final class CounterRecords {
    /** if_counters (0:1). */
    public final IfCounters ifCounters = new IfCounters();
    /** Presence of if_counters. */
    public boolean hasIfCounters;

    /** generic interface counters (0:1), 88 bytes. */
    public static final class IfCounters {
        /** ifIndex, ifType. */
        public long ifIndex, ifType;
        /** ifSpeed in bit/s (u64). */
        public long ifSpeed;
        /** ifDirection (0 unknown, 1 full, 2 half, 3 in, 4 out), ifStatus (bit 0 admin up, bit 1 oper up). */
        public long ifDirection, ifStatus;
        /** Octet counters (u64). */
        public long inOctets, outOctets;
        /** u32 packet and error counters. */
        public long inUcastPkts, inMulticastPkts, inBroadcastPkts, inDiscards, inErrors, inUnknownProtos,
                outUcastPkts, outMulticastPkts, outBroadcastPkts, outDiscards, outErrors, promiscuousMode;
    }

    /** Clears every presence flag. */
    public void reset() {
        hasIfCounters = false;
    }

    /**
     * Decodes one counter record into its holder.
     *
     * @param r the reader over the datagram
     * @param format the record's data_format
     * @param p first byte of the record body
     * @param end end of the record body (declared length)
     * @param s the sample (for duplicate accounting)
     * @return false if the format is not one vecflow decodes (the caller keeps it raw)
     * @throws SflowDecodeException if the body is malformed (the caller counts it and skips the record)
     */
    boolean decode(XdrReader r, int format, int p, int end, CounterSample s) throws SflowDecodeException {
        switch (format) {
            case 1 -> {
                IfCounters c = ifCounters;
                if (hasIfCounters) {
                    s.duplicateRecords++;
                }
                c.ifIndex = r.u32(p, end, "if_counters.ifIndex");
                c.ifType = r.u32(p + 4, end, "if_counters.ifType");
                c.ifSpeed = r.u64(p + 8, end, "if_counters.ifSpeed");
                c.ifDirection = r.u32(p + 16, end, "if_counters.ifDirection");
                c.ifStatus = r.u32(p + 20, end, "if_counters.ifStatus");
                c.inOctets = r.u64(p + 24, end, "if_counters.ifInOctets");
                c.inUcastPkts = r.u32(p + 32, end, "if_counters.ifInUcastPkts");
                c.inMulticastPkts = r.u32(p + 36, end, "if_counters.ifInMulticastPkts");
                c.inBroadcastPkts = r.u32(p + 40, end, "if_counters.ifInBroadcastPkts");
                c.inDiscards = r.u32(p + 44, end, "if_counters.ifInDiscards");
                c.inErrors = r.u32(p + 48, end, "if_counters.ifInErrors");
                c.inUnknownProtos = r.u32(p + 52, end, "if_counters.ifInUnknownProtos");
                c.outOctets = r.u64(p + 56, end, "if_counters.ifOutOctets");
                c.outUcastPkts = r.u32(p + 64, end, "if_counters.ifOutUcastPkts");
                c.outMulticastPkts = r.u32(p + 68, end, "if_counters.ifOutMulticastPkts");
                c.outBroadcastPkts = r.u32(p + 72, end, "if_counters.ifOutBroadcastPkts");
                c.outDiscards = r.u32(p + 76, end, "if_counters.ifOutDiscards");
                c.outErrors = r.u32(p + 80, end, "if_counters.ifOutErrors");
                c.promiscuousMode = r.u32(p + 84, end, "if_counters.ifPromiscuousMode");
                hasIfCounters = true;
                return true;
            }
            default -> {
                return false;
            }
        }
    }
}
