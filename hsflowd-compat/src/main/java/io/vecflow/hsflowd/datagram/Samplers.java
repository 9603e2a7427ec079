package io.vecflow.hsflowd.datagram;

import io.vecflow.common.LongObjectMap;

/**
 * The agent's per-data-source state, keyed by ifIndex: an array for ifIndexes below 4096, a primitive-keyed map
 * above. Allocates only for a source's first sample. Not thread-safe (the agent calls it under its lock).
 */
public final class Samplers {
    private final LongObjectMap<SamplerState> samplers = new LongObjectMap<>(64);
    private final SamplerState[] smallSamplers = new SamplerState[4096];

    /** @return the state of {@code ifIndex}, created on first use */
    public SamplerState get(long ifIndex) {
        if (ifIndex >= 0 && ifIndex < smallSamplers.length) {
            SamplerState s = smallSamplers[(int) ifIndex];
            if (s == null) {
                s = smallSamplers[(int) ifIndex] = new SamplerState(ifIndex);
            }
            return s;
        }
        return samplers.computeIfAbsent(ifIndex, SamplerState::new);
    }

    /** @return the state of {@code ifIndex}, or null when it has none yet (nothing is created) */
    public SamplerState find(long ifIndex) {
        return ifIndex >= 0 && ifIndex < smallSamplers.length ? smallSamplers[(int) ifIndex] : samplers.get(ifIndex);
    }
}
