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
    /** Records that failed to decode within their own length (counted, skipped, flag cleared); which ones:
     * {@link #recordErrorMask}. */
    public int recordErrors;
    /** Known records that appeared more than once (the last one is kept; the earlier ones are marked in
     * {@link #recordSupersededMask}). */
    public int duplicateRecords;

    /**
     * Listed records that failed to decode within their own length: bit {@code i} stands for
     * {@code recordFormats[i]}. A failed record's holder holds nothing of it (its flag is cleared), so a printer shows
     * the error instead of fields; details per record in {@link #recordErrorKinds}, {@link #recordErrorFields},
     * {@link #recordErrorOffsets}.
     */
    public long recordErrorMask;
    /**
     * Listed known records whose holder a later record of the same format took over (the later copy's data, or
     * nothing when the later copy failed): bit {@code i} stands for {@code recordFormats[i]}. The holder does not
     * show record {@code i}; only the last occurrence of a format can be printed from it.
     */
    public long recordSupersededMask;
    /** Per listed record, where its bit in {@link #recordErrorMask} is set: the error kind. */
    public final DecodeError[] recordErrorKinds = new DecodeError[MAX_RECORDS_LISTED];
    /** Per listed failed record: the field being read (a constant such as {@code "extended_switch.dst_priority"}). */
    public final String[] recordErrorFields = new String[MAX_RECORDS_LISTED];
    /** Per listed failed record: a constant detail appended to the field name (e.g. {@code " padding"}), or null. */
    public final String[] recordErrorFieldSuffixes = new String[MAX_RECORDS_LISTED];
    /** Per listed failed record: byte offset of the failing field from the start of the sFlow datagram. */
    public final int[] recordErrorOffsets = new int[MAX_RECORDS_LISTED];
    /** Wire-order index of the first record that failed (listed or not), or -1 when none failed. */
    public int firstRecordErrorIndex = -1;
    /** Kind of the first record error, or null. */
    public DecodeError firstRecordErrorKind;
    /** Field of the first record error (a constant), or null; see {@link #firstRecordErrorFieldSuffix}. */
    public String firstRecordErrorField;
    /** Constant detail appended to {@link #firstRecordErrorField}, or null. */
    public String firstRecordErrorFieldSuffix;
    /** Byte offset of the first record error's field from the start of the sFlow datagram, or -1. */
    public int firstRecordErrorOffset = -1;

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

    /** @return true if listed record {@code i} failed to decode (see {@link #recordErrorMask}). */
    public boolean recordFailed(int i) {
        return i >= 0 && i < recordsListed && (recordErrorMask >>> i & 1) != 0;
    }

    /** @return true if listed record {@code i} was taken over by a later one (see {@link #recordSupersededMask}). */
    public boolean recordSuperseded(int i) {
        return i >= 0 && i < recordsListed && (recordSupersededMask >>> i & 1) != 0;
    }

    /**
     * @return the full field name of listed record {@code i}'s error (field plus suffix; allocates only when there is
     *         a suffix — for printers, not the hot path), or null if it did not fail
     */
    public String recordErrorField(int i) {
        if (!recordFailed(i)) {
            return null;
        }
        String suffix = recordErrorFieldSuffixes[i];
        return suffix == null ? recordErrorFields[i] : recordErrorFields[i] + suffix;
    }

    /** Clears every field and flag. */
    public void reset() {
        kind = 0;
        expanded = false;
        offset = length = 0;
        sequenceNumber = sourceIdIndex = 0;
        sourceIdType = 0;
        recordCount = recordsListed = unknownRecords = recordErrors = duplicateRecords = 0;
        recordErrorMask = recordSupersededMask = 0;
        firstRecordErrorIndex = firstRecordErrorOffset = -1;
        firstRecordErrorKind = null;
        firstRecordErrorField = firstRecordErrorFieldSuffix = null;
        records.reset();
        buffer = null;
    }
}
