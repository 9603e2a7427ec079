package io.vecflow.hsflowd.datagram;

/**
 * Per-data-source (sFlow {@code source_id} = 0:ifIndex) state: the flow sampler's sample sequence number,
 * sample_pool and drops, and the counter poller's own sequence number — all u32 counters that wrap (sFlow v5
 * "flow_sample" / "counters_sample": each is incremented per sample of its kind from this source). Also which
 * producer owns the source (one sampler per port, docs/netlink.md §6 rule 6).
 */
public final class SamplerState {
    /** The data source's ifIndex (source_id index). */
    public final long ifIndex;
    /** Flow sample sequence number (u32). */
    public long sequence;
    /** sample_pool (u32). */
    public long samplePool;
    /** drops (u32 when sent). */
    public long drops;
    /** Counter samples sent for this source (the poller's sequence_number). */
    public long counterSequence;
    /** nlmsg_pid of the PSAMPLE producer that owns this source, valid when {@link #ownerSet}. */
    public int ownerPid;
    /** Whether {@link #ownerPid} is set. */
    public boolean ownerSet;
    /** When the owner last sampled this source ({@link System#nanoTime()}). */
    public long ownerLastNanos;
    /** This ifIndex is a VPP port's Linux ifindex (VPP's groups 3/4 own its flow samples). */
    public boolean vppPort;
    /**
     * A VPP port's IF_COUNTERS report this ifIndex, so the counters module sends none of its own for it (hsflowd's
     * mod_vpp clears the adaptor's procNetDev): one port, one counters source.
     */
    public boolean vppCounters;

    /** @param ifIndex the data source's ifIndex */
    public SamplerState(long ifIndex) {
        this.ifIndex = ifIndex;
    }
}
