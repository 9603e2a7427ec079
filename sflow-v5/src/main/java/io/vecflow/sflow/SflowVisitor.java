package io.vecflow.sflow;

/**
 * Receives what {@link SflowDecoder} finds in one datagram, in wire order. Arguments are reused between calls and
 * their views point into the datagram: copy what must outlive the call.
 */
public interface SflowVisitor {
    /** Called once the datagram header decoded; samples follow. */
    void onDatagram(DatagramHeader header);

    /** Called for each flow sample (0:1 or 0:3) that decoded. */
    void onFlowSample(DatagramHeader header, FlowSample sample);

    /** Called for each discarded_packet sample (0:5) that decoded (sflow_drops.txt). */
    default void onDiscardSample(DatagramHeader header, FlowSample sample) {}

    /** Called for each counters sample (0:2 or 0:4) that decoded. */
    default void onCounterSample(DatagramHeader header, CounterSample sample) {}

    /**
     * Called for each sample of a type vecflow does not decode (any enterprise other than 0, or an unknown format),
     * after it was skipped by its declared length.
     *
     * @param dataFormat the sample's full data_format ({@code enterprise << 12 | format})
     * @param offset index of the sample in the decoded buffer (the datagram's offset in it included)
     * @param length declared body length in bytes
     */
    default void onSkippedSample(DatagramHeader header, int dataFormat, int offset, int length) {}
}
