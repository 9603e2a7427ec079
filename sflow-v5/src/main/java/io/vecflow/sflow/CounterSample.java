package io.vecflow.sflow;

/**
 * One decoded counters sample — counters_sample (0:2) or counters_sample_expanded (0:4) — with its counter records.
 * Mutable and reused by {@link SflowDecoder}; views point into the datagram (valid only during the visitor call).
 * Records are listed in wire order in {@link #recordFormats}; known records fill their holders (see
 * {@link CounterRecords}); unknown ones are kept as raw views with their data_format.
 */
public final class CounterSample extends RecordedSample {
    // kind (COUNTERS_SAMPLE or COUNTERS_SAMPLE_EXPANDED), expanded (0:4), offset, length, sequenceNumber (resets
    // when the counters reset), sourceIdType, sourceIdIndex and buffer: see RecordedSample.

    /** Holders of the known counter records. */
    public final CounterRecords records = new CounterRecords();

    /** Creates an empty holder. */
    public CounterSample() {}

    /** Clears every field and flag. */
    public void reset() {
        resetSample();
        resetRecords();
        records.reset();
    }
}
