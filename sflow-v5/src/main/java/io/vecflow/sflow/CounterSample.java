package io.vecflow.sflow;

/**
 * One decoded counters sample — counters_sample (0:2) or counters_sample_expanded (0:4) — with its counter records.
 * Mutable and reused by {@link SflowDecoder}; views point into the datagram (valid only during the visitor call).
 * Records are listed in wire order in {@link #recordFormats}; known records fill their holders (see
 * {@link CounterRecords}); unknown ones are kept as raw views with their data_format.
 */
public final class CounterSample extends RecordedSample {
    /** {@link SflowFormats#COUNTERS_SAMPLE} or {@link SflowFormats#COUNTERS_SAMPLE_EXPANDED}. */
    public int kind;
    /** True for 0:4. */
    public boolean expanded;
    /** Byte offset of the sample's data_format word in the datagram. */
    public int offset;
    /** Declared body length in bytes. */
    public int length;
    /** sequence_number, per source_id (u32; resets when the counters reset). */
    public long sequenceNumber;
    /** source_id type and index. */
    public int sourceIdType;
    /** source_id index. */
    public long sourceIdIndex;

    /** Holders of the known counter records. */
    public final CounterRecords records = new CounterRecords();

    /** The datagram buffer the views point into. */
    public byte[] buffer;

    /** Creates an empty holder. */
    public CounterSample() {}

    /** Clears every field and flag. */
    public void reset() {
        kind = 0;
        expanded = false;
        offset = length = 0;
        sequenceNumber = sourceIdIndex = 0;
        sourceIdType = 0;
        resetRecords();
        records.reset();
        buffer = null;
    }
}
