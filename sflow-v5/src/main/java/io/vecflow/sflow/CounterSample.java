package io.vecflow.sflow;

/**
 * One decoded counters sample — counters_sample (0:2) or counters_sample_expanded (0:4) — with its counter records.
 * Mutable and reused by {@link SflowDecoder}; views point into the datagram (valid only during the visitor call).
 * Records are listed in wire order in {@link #recordFormats}; known records fill their holders (see
 * {@link CounterRecords}); unknown ones are kept as raw views with their data_format.
 */
public final class CounterSample {
    /** Records listed in {@link #recordFormats} at most. */
    public static final int MAX_RECORDS_LISTED = 64;
    /** Unknown records kept as raw bytes at most; more are counted only. */
    public static final int MAX_UNKNOWN_KEPT = 16;

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

    /** Number of counter records declared. */
    public int recordCount;
    /** data_format of the records in wire order. */
    public final int[] recordFormats = new int[MAX_RECORDS_LISTED];
    /** Entries used in {@link #recordFormats}. */
    public int recordsListed;
    /** Records of formats vecflow does not decode. */
    public int unknownRecords;
    /** data_format of the first unknown records. */
    public final int[] unknownFormats = new int[MAX_UNKNOWN_KEPT];
    /** Raw bodies of the first unknown records. */
    public final ByteView[] unknownBodies = new ByteView[MAX_UNKNOWN_KEPT];
    /** Records that failed to decode within their own length (counted, skipped). */
    public int recordErrors;
    /** Known records that appeared more than once (the last one is kept). */
    public int duplicateRecords;

    /** Holders of the known counter records. */
    public final CounterRecords records = new CounterRecords();

    /** The datagram buffer the views point into. */
    public byte[] buffer;

    /** Creates an empty holder. */
    public CounterSample() {
        for (int i = 0; i < MAX_UNKNOWN_KEPT; i++) {
            unknownBodies[i] = new ByteView();
        }
    }

    /** @return unknown records kept as raw bytes. */
    public int unknownKept() {
        return Math.min(unknownRecords, MAX_UNKNOWN_KEPT);
    }

    /** Clears every field and flag. */
    public void reset() {
        kind = 0;
        expanded = false;
        offset = length = 0;
        sequenceNumber = sourceIdIndex = 0;
        sourceIdType = 0;
        recordCount = recordsListed = unknownRecords = recordErrors = duplicateRecords = 0;
        records.reset();
        buffer = null;
    }
}
