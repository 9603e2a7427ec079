package io.vecflow.sflow;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Decoder counters: datagrams, samples by kind, and errors by {@link DecodeError}. Thread-safe (atomic adds), so one
 * instance can aggregate several decoder threads.
 */
public final class DecodeStats {
    private static final DecodeError[] ERRORS = DecodeError.values();
    private final AtomicLongArray errors = new AtomicLongArray(ERRORS.length);
    private final AtomicLongArray counts = new AtomicLongArray(5);
    private static final int DATAGRAMS = 0, FLOW_SAMPLES = 1, SKIPPED_SAMPLES = 2, UNKNOWN_RECORDS = 3, BAD_DATAGRAMS = 4;

    void datagram() {
        counts.incrementAndGet(DATAGRAMS);
    }

    void flowSample() {
        counts.incrementAndGet(FLOW_SAMPLES);
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

    /** @return datagrams whose header decoded (good or partly good). */
    public long datagrams() {
        return counts.get(DATAGRAMS);
    }

    /** @return flow samples decoded. */
    public long flowSamples() {
        return counts.get(FLOW_SAMPLES);
    }

    /** @return samples skipped by length (types not decoded yet). */
    public long skippedSamples() {
        return counts.get(SKIPPED_SAMPLES);
    }

    /** @return flow records skipped by length inside decoded samples. */
    public long unknownRecords() {
        return counts.get(UNKNOWN_RECORDS);
    }

    /** @return datagrams that failed (wholly or part-way). */
    public long badDatagrams() {
        return counts.get(BAD_DATAGRAMS);
    }

    /** @return failures of one kind. */
    public long errors(DecodeError e) {
        return errors.get(e.ordinal());
    }

    /** @return non-zero error counters by kind (allocates; for reports). */
    public Map<DecodeError, Long> errorsByKind() {
        Map<DecodeError, Long> m = new EnumMap<>(DecodeError.class);
        for (DecodeError e : ERRORS) {
            long v = errors.get(e.ordinal());
            if (v != 0) {
                m.put(e, v);
            }
        }
        return m;
    }
}
