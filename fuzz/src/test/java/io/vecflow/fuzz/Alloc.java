package io.vecflow.fuzz;

import java.lang.management.ManagementFactory;

/**
 * Per-thread heap allocation meter ({@code com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes}, a read of
 * the thread's TLAB accounting that itself allocates nothing), and the caps the fuzz targets enforce per input.
 *
 * <p>Caps (bytes allocated by one call of the code under test, after the warm-up described in
 * {@link #overCap}):
 * <ul>
 *   <li>{@link #DECODER_CAP}, {@link #PARSER_CAP}: the sFlow decoder and the packet parser are documented as
 *       allocation-free, so any allocation that survives the warm-up is a finding; the cap leaves a little room for
 *       the JVM's own bookkeeping but is far below what one per-record or per-field allocation costs.</li>
 *   <li>{@link #pcapCap}: the pcap reader allocates a 64 KiB stream buffer and its record buffer (grown by doubling,
 *       never past {@code maxRecordLength()}, so at most twice that in total), plus exception messages.</li>
 * </ul>
 *
 * <p>While fuzzing, Jazzer's instrumentation itself allocates inside the code under test (a {@code long[]} of the
 * case values at every {@code switch} it traces, about 250 bytes for the counter-record switch), so there the caps
 * get an allowance of {@link #FUZZING_ALLOWANCE_PER_BYTE} bytes per input byte ({@link #cap}): a fuzzing run still
 * catches allocations sized from a field of the input, and the exact caps are enforced in regression mode — on the
 * seeds before fuzzing and, after it, on every input the fuzzer kept (see the {@code fuzz-regression} execution).
 */
final class Alloc {
    /**
     * Bytes a decode call may allocate (documented as allocation-free). {@code -Dvecflow.fuzz.decoderCap=N}
     * overrides it, e.g. to keep a long campaign going past a known finding.
     */
    static final long DECODER_CAP = Long.getLong("vecflow.fuzz.decoderCap", 256);
    /**
     * Bytes the parse calls for one link type and configuration may allocate (documented as allocation-free);
     * {@code -Dvecflow.fuzz.parserCap=N} overrides it.
     */
    static final long PARSER_CAP = Long.getLong("vecflow.fuzz.parserCap", 256);
    /** BufferedInputStream buffer of PcapReader. */
    static final long PCAP_STREAM_BUFFER = 1 << 16;
    /** Exception messages, the file header array and other small objects of one pcap read. */
    static final long PCAP_SLACK = 64 * 1024;
    /** Fuzzing mode: instrumentation allocation tolerated per input byte (see the class comment). */
    static final long FUZZING_ALLOWANCE_PER_BYTE = 64;
    /** True when Jazzer fuzzes (JAZZER_FUZZ set), false in regression mode. */
    static final boolean FUZZING = !System.getenv().getOrDefault("JAZZER_FUZZ", "").isEmpty();
    /** How often an over-cap call is repeated on the same input before it counts (warm-up; the minimum counts). */
    static final int RETRIES = 3;

    private static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    static {
        if (!MX.isThreadAllocatedMemorySupported()) {
            throw new IllegalStateException("this JVM cannot measure per-thread allocation");
        }
        MX.setThreadAllocatedMemoryEnabled(true);
    }

    private Alloc() {}

    /** @return bytes allocated by the current thread so far */
    static long now() {
        return MX.getCurrentThreadAllocatedBytes();
    }

    /** @return {@code cap} in regression mode; while fuzzing, plus the instrumentation allowance for the input */
    static long cap(long cap, int inputLength) {
        return FUZZING ? cap + FUZZING_ALLOWANCE_PER_BYTE * inputLength : cap;
    }

    /** @return the cap of one pcap read whose record cap is {@code maxRecordLength} */
    static long pcapCap(int maxRecordLength) {
        return PCAP_STREAM_BUFFER + 2L * maxRecordLength + PCAP_SLACK;
    }

    /** The finding "allocated more than the cap" (saved by {@link Findings} when found in regression mode). */
    static final class CapExceeded extends AssertionError {
        private static final long serialVersionUID = 1L;

        CapExceeded(String message) {
            super(message);
        }
    }

    /** A call whose allocation is measured; returns the bytes it allocated (net of what it chose to exclude). */
    @FunctionalInterface
    interface Measured {
        long run() throws Exception;
    }

    /**
     * Runs {@code call} once and, if it allocated more than {@code cap}, up to {@link #RETRIES} more times on the
     * same input: the first call on a new path can allocate for reasons that are not the code's (class loading and
     * initialisation, call-site linkage, a deoptimisation), so only an allocation that every repetition shows counts.
     *
     * @return the smallest allocation seen if it is above {@code cap}, else -1
     */
    static long overCap(long cap, Measured call) throws Exception {
        long min = call.run();
        for (int i = 0; i < RETRIES && min > cap; i++) {
            min = Math.min(min, call.run());
        }
        return min > cap ? min : -1;
    }
}
