package io.vecflow.hsflowd;

/**
 * Per-data-source (sFlow {@code source_id} = 0:ifIndex) state: the flow sampler's sample sequence number,
 * sample_pool and drops, and the counter poller's own sequence number — all u32 counters that wrap (sFlow v5
 * "flow_sample" / "counters_sample": each is incremented per sample of its kind from this source). Also which
 * producer owns the source (one sampler per port, spec fault #6).
 */
final class SamplerState {
    final long ifIndex;
    long sequence;
    long samplePool;
    long drops;
    /** Counter samples sent for this source (the poller's sequence_number). */
    long counterSequence;
    /** nlmsg_pid of the PSAMPLE producer that owns this source, valid when {@link #ownerSet}. */
    int ownerPid;
    boolean ownerSet;
    long ownerLastNanos;
    /** This ifIndex is a VPP port's Linux ifindex (VPP's groups 3/4 own its flow samples). */
    boolean vppPort;
    /**
     * A VPP port's IF_COUNTERS report this ifIndex, so the counters module sends none of its own for it (hsflowd's
     * mod_vpp clears the adaptor's procNetDev): one port, one counters source.
     */
    boolean vppCounters;

    SamplerState(long ifIndex) {
        this.ifIndex = ifIndex;
    }
}
