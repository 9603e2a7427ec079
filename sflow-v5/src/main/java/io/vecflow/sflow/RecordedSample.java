package io.vecflow.sflow;

/**
 * What flow, discard and counters samples share: their type, position, sequence number and source id; their records
 * listed in wire order, unknown records kept as raw views, and which records failed or were superseded, with the error
 * of each (sFlow v5 §5: a sample is a list of records, each data_format + length + opaque body); and, for a sample
 * whose body failed inside its own length, that sample-level error ({@link #sampleErrorKind}). Filled by
 * {@link SflowDecoder}; mutable and reused.
 */
public abstract sealed class RecordedSample permits FlowSample, CounterSample {
    /** Records listed in {@link #recordFormats} at most; more are decoded but not listed. */
    public static final int MAX_RECORDS_LISTED = 64;
    /** Unknown records kept as raw bytes at most; more are counted only. */
    public static final int MAX_UNKNOWN_KEPT = 16;

    /**
     * Sample type, its full data_format: {@link SflowFormats#FLOW_SAMPLE}, {@link SflowFormats#FLOW_SAMPLE_EXPANDED},
     * {@link SflowFormats#DISCARDED_PACKET} ({@link FlowSample}), {@link SflowFormats#COUNTERS_SAMPLE} or
     * {@link SflowFormats#COUNTERS_SAMPLE_EXPANDED} ({@link CounterSample}).
     */
    public int kind;
    /** True for the expanded encodings (0:3, 0:4, 0:5). */
    public boolean expanded;
    /** Index of the sample's data_format word in {@link #buffer} (the datagram's offset in the buffer included). */
    public int offset;
    /** Declared body length in bytes. */
    public int length;
    /** sequence_number of this sample, per source_id (u32). */
    public long sequenceNumber;
    /** source_id type (0 ifIndex, 1 VLAN, 2 entPhysicalEntry, 3 logical entity). */
    public int sourceIdType;
    /** source_id index (24 bits compact, 32 bits expanded). */
    public long sourceIdIndex;
    /** The datagram buffer the views point into (valid only during the visitor call). */
    public byte[] buffer;

    /**
     * Whether {@link #sequenceNumber}, {@link #sourceIdType} and {@link #sourceIdIndex} were read. Always true for a
     * sample delivered as decoded; for one reported through {@link SflowVisitor#onSampleError} it says whether the
     * failure came after them (then a loss tracker can account for the sample: it arrived).
     */
    public boolean sourceRead;
    /**
     * Why the sample's body failed to decode inside its declared length (a record length or count that does not fit
     * the sample, fixed fields cut short), or null for a sample that decoded. Such a sample reaches only
     * {@link SflowVisitor#onSampleError}: the fields read before the failure are set, its records are incomplete.
     */
    public DecodeError sampleErrorKind;
    /** The field being read when the sample failed (a constant such as {@code "flow_record.length"}), or null. */
    public String sampleErrorField;
    /** A constant detail appended to {@link #sampleErrorField} (e.g. {@code " padding"}), or null. */
    public String sampleErrorFieldSuffix;
    /** Byte offset of the failing field from the start of the sFlow datagram, or -1. */
    public int sampleErrorOffset = -1;
    /** The offending length or count of the sample failure, or -1. */
    public long sampleErrorValue = -1;

    /** Number of records declared. */
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

    RecordedSample() {
        for (int i = 0; i < MAX_UNKNOWN_KEPT; i++) {
            unknownBodies[i] = new ByteView();
        }
    }

    /** @return true if the sample's body failed to decode (see {@link #sampleErrorKind}). */
    public boolean sampleFailed() {
        return sampleErrorKind != null;
    }

    /**
     * @return the full field name of the sample failure (allocates only when there is a suffix — for printers), or
     *         null if the sample did not fail
     */
    public String sampleErrorField() {
        return sampleErrorFieldSuffix == null ? sampleErrorField : sampleErrorField + sampleErrorFieldSuffix;
    }

    /**
     * Marks the sample failed with {@code e}.
     *
     * @param datagramStart offset of the datagram in the buffer (the error offset is kept from it)
     */
    final void sampleFailed(SflowDecodeException e, int datagramStart) {
        sampleErrorKind = e.kind();
        sampleErrorField = e.fieldBase();
        sampleErrorFieldSuffix = e.fieldSuffix();
        sampleErrorOffset = e.offset() - datagramStart;
        sampleErrorValue = e.value();
    }

    /** Clears the sample's own fields (type, position, source, buffer, sample error). */
    final void resetSample() {
        kind = 0;
        expanded = false;
        offset = length = 0;
        sequenceNumber = sourceIdIndex = 0;
        sourceIdType = 0;
        buffer = null;
        sourceRead = false;
        sampleErrorKind = null;
        sampleErrorField = sampleErrorFieldSuffix = null;
        sampleErrorOffset = -1;
        sampleErrorValue = -1;
    }

    /** @return unknown records kept as raw bytes ({@code min(unknownRecords, MAX_UNKNOWN_KEPT)}). */
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

    /** Lists record {@code format} in wire order (the first {@link #MAX_RECORDS_LISTED}). */
    final void listRecord(int format) {
        if (recordsListed < MAX_RECORDS_LISTED) {
            recordFormats[recordsListed++] = format;
        }
    }

    /** Keeps an unknown record's body as a raw view (the first {@link #MAX_UNKNOWN_KEPT}) and counts it. */
    final void unknownRecord(int format, byte[] buf, int body, int length) {
        if (unknownRecords < MAX_UNKNOWN_KEPT) {
            unknownFormats[unknownRecords] = format;
            unknownBodies[unknownRecords].set(buf, body, length);
        }
        unknownRecords++;
    }

    /** Record {@code i} of {@code format} decoded: earlier listed copies of the format are superseded. */
    final void recordDecoded(int i, int format) {
        recordSupersededMask |= earlier(Math.min(i, recordsListed), format);
    }

    /**
     * Record {@code i} of {@code format} failed inside its own bounds: earlier copies are superseded, the error is
     * kept per listed record and as the first error.
     *
     * @param datagramStart offset of the datagram in the buffer (error offsets are kept from it)
     */
    final void recordFailed(int i, int format, SflowDecodeException e, int datagramStart) {
        recordErrors++;
        recordSupersededMask |= earlier(Math.min(i, recordsListed), format);
        if (i < MAX_RECORDS_LISTED) {
            recordErrorMask |= 1L << i;
            recordErrorKinds[i] = e.kind();
            recordErrorFields[i] = e.fieldBase();
            recordErrorFieldSuffixes[i] = e.fieldSuffix();
            recordErrorOffsets[i] = e.offset() - datagramStart;
        }
        if (firstRecordErrorIndex < 0) {
            firstRecordErrorIndex = i;
            firstRecordErrorKind = e.kind();
            firstRecordErrorField = e.fieldBase();
            firstRecordErrorFieldSuffix = e.fieldSuffix();
            firstRecordErrorOffset = e.offset() - datagramStart;
        }
    }

    /** @return a mask of the listed records before {@code n} whose format is {@code format}. */
    private long earlier(int n, int format) {
        long m = 0;
        for (int k = 0; k < n; k++) {
            if (recordFormats[k] == format) {
                m |= 1L << k;
            }
        }
        return m;
    }

    /** Clears the record list, counts, masks and first error. */
    final void resetRecords() {
        recordCount = recordsListed = unknownRecords = recordErrors = duplicateRecords = 0;
        recordErrorMask = recordSupersededMask = 0;
        firstRecordErrorIndex = firstRecordErrorOffset = -1;
        firstRecordErrorKind = null;
        firstRecordErrorField = firstRecordErrorFieldSuffix = null;
    }
}
