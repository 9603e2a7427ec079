package io.vecflow.netlink.psample;

/**
 * Receives decoded samples from {@link PsampleSubscriber#poll}. The holder is reused for the next sample: copy what
 * must outlive the call ({@link PsampleSample#copyFrom}).
 */
@FunctionalInterface
public interface PsampleHandler {
    /** Called once per decoded PSAMPLE_CMD_SAMPLE message, on the polling thread. */
    void onSample(PsampleSample sample);
}
