package io.vecflow.hsflowd;

/**
 * Per-source (sFlow {@code source_id} = 0:ifIndex) sampler state: sample sequence number, sample_pool and drops, all
 * u32 counters that wrap (sFlow v5 §"flow_sample").
 */
final class SamplerState {
    final long ifIndex;
    long sequence;
    long samplePool;
    long drops;

    SamplerState(long ifIndex) {
        this.ifIndex = ifIndex;
    }
}
