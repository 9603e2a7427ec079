package io.vecflow.sflow;

/**
 * Receives what {@link SflowDecoder} finds in one datagram, in wire order. Arguments are reused between calls.
 */
public interface SflowVisitor {
    /** Called once the datagram header decoded; samples follow. */
    void onDatagram(DatagramHeader header);

    /** Called for each flow sample (0:1 or 0:3) that decoded completely. */
    void onFlowSample(DatagramHeader header, FlowSample sample);

    /**
     * Called for each sample vecflow does not decode yet (counters 0:2/0:4, discards 0:5, vendor samples), after it
     * was skipped by its declared length.
     *
     * @param dataFormat the sample's full data_format ({@code enterprise << 12 | format})
     * @param offset byte offset of the sample in the datagram
     * @param length declared body length in bytes
     */
    default void onSkippedSample(DatagramHeader header, int dataFormat, int offset, int length) {}
}
