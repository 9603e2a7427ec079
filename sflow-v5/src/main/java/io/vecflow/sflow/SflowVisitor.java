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

    /**
     * Called for a flow, discard or counters sample (0:1–0:5) whose body failed to decode inside its declared length
     * — a record length or count that does not fit the sample, fixed fields cut short — after it was counted at the
     * sample level ({@link DecodeStats#sampleErrors}) and before the decoder goes on with the next sample. The sample
     * is not delivered as decoded: {@code sample} (a {@link FlowSample} or {@link CounterSample}) holds its kind,
     * offset and length, the fields read before the failure ({@link RecordedSample#sourceRead} says whether the
     * sequence number and source id were), and the error ({@link RecordedSample#sampleErrorKind}, field, offset from
     * the start of the datagram, value). Its records are incomplete and must not be stored as a flow.
     */
    default void onSampleError(DatagramHeader header, RecordedSample sample) {}
}
