package io.vecflow.sflow;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Decoder counters: datagrams, samples by kind, records skipped, and errors by {@link DecodeError} — separately for
 * datagram-level failures (the rest of the datagram is lost), sample-level ones (that sample is skipped by its length,
 * the next ones decode) and record-level ones (the record is skipped, its sample kept). Thread-safe (atomic adds), so
 * one instance can aggregate several decoder threads.
 */
public final class DecodeStats {
    private static final DecodeError[] ERRORS = DecodeError.values();
    private final AtomicLongArray errors = new AtomicLongArray(ERRORS.length);
    private final AtomicLongArray recordErrors = new AtomicLongArray(ERRORS.length);
    private final AtomicLongArray sampleErrors = new AtomicLongArray(ERRORS.length);
    private final AtomicLongArray counts = new AtomicLongArray(9);
    private static final int DATAGRAMS = 0, FLOW_SAMPLES = 1, SKIPPED_SAMPLES = 2, UNKNOWN_RECORDS = 3,
            BAD_DATAGRAMS = 4, COUNTER_SAMPLES = 5, DISCARD_SAMPLES = 6, BAD_RECORDS = 7, BAD_SAMPLES = 8;

    void datagram() {
        counts.incrementAndGet(DATAGRAMS);
    }

    void flowSample() {
        counts.incrementAndGet(FLOW_SAMPLES);
    }

    void counterSample() {
        counts.incrementAndGet(COUNTER_SAMPLES);
    }

    void discardSample() {
        counts.incrementAndGet(DISCARD_SAMPLES);
    }

    void skippedSample() {
        counts.incrementAndGet(SKIPPED_SAMPLES);
    }

    void unknownRecords(int n) {
        if (n > 0) {
            counts.addAndGet(UNKNOWN_RECORDS, n);
        }
    }

    void error(DecodeError e) {
        errors.incrementAndGet(e.ordinal());
        counts.incrementAndGet(BAD_DATAGRAMS);
    }

    void sampleError(DecodeError e) {
        sampleErrors.incrementAndGet(e.ordinal());
        counts.incrementAndGet(BAD_SAMPLES);
    }

    void recordError(DecodeError e) {
        recordErrors.incrementAndGet(e.ordinal());
        counts.incrementAndGet(BAD_RECORDS);
    }

    /** @return datagrams whose header decoded (good or partly good). */
    public long datagrams() {
        return counts.get(DATAGRAMS);
    }

    /** @return flow samples (0:1, 0:3) decoded. */
    public long flowSamples() {
        return counts.get(FLOW_SAMPLES);
    }

    /** @return counters samples (0:2, 0:4) decoded. */
    public long counterSamples() {
        return counts.get(COUNTER_SAMPLES);
    }

    /** @return discarded_packet samples (0:5) decoded. */
    public long discardSamples() {
        return counts.get(DISCARD_SAMPLES);
    }

    /** @return samples skipped by length (vendor or unknown types). */
    public long skippedSamples() {
        return counts.get(SKIPPED_SAMPLES);
    }

    /** @return records of unknown formats skipped by length inside decoded samples. */
    public long unknownRecords() {
        return counts.get(UNKNOWN_RECORDS);
    }

    /** @return datagrams that failed (wholly or part-way). */
    public long badDatagrams() {
        return counts.get(BAD_DATAGRAMS);
    }

    /** @return samples whose body failed inside their own length (skipped by it; not in the decoded counts). */
    public long badSamples() {
        return counts.get(BAD_SAMPLES);
    }

    /** @return sample-level failures of one kind. */
    public long sampleErrors(DecodeError e) {
        return sampleErrors.get(e.ordinal());
    }

    /** @return non-zero sample-level error counters by kind (allocates; for reports). */
    public Map<DecodeError, Long> sampleErrorsByKind() {
        return byKind(sampleErrors);
    }

    /** @return records that failed inside their own length (skipped; their samples kept). */
    public long badRecords() {
        return counts.get(BAD_RECORDS);
    }

    /** @return datagram-level failures of one kind. */
    public long errors(DecodeError e) {
        return errors.get(e.ordinal());
    }

    /** @return record-level failures of one kind. */
    public long recordErrors(DecodeError e) {
        return recordErrors.get(e.ordinal());
    }

    /** @return non-zero datagram-level error counters by kind (allocates; for reports). */
    public Map<DecodeError, Long> errorsByKind() {
        return byKind(errors);
    }

    /** @return non-zero record-level error counters by kind (allocates; for reports). */
    public Map<DecodeError, Long> recordErrorsByKind() {
        return byKind(recordErrors);
    }

    private static Map<DecodeError, Long> byKind(AtomicLongArray a) {
        Map<DecodeError, Long> m = new EnumMap<>(DecodeError.class);
        for (DecodeError e : ERRORS) {
            long v = a.get(e.ordinal());
            if (v != 0) {
                m.put(e, v);
            }
        }
        return m;
    }
}
