package io.vecflow.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vecflow.sflow.CounterSample;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.DecodeStats;
import io.vecflow.sflow.FlowRecords;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.RecordedSample;
import io.vecflow.sflow.SflowDecodeException;
import io.vecflow.sflow.SflowDecoder;
import io.vecflow.sflow.SflowFormats;
import io.vecflow.sflow.SflowVisitor;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz target: {@link SflowDecoder#decode} on arbitrary bytes (seeds: the UDP payloads of testdata/sflow and two
 * synthetic datagrams, see {@link SeedCorpus}).
 *
 * <p>Each input is decoded twice — as its own array at offset 0 (a read past the datagram then throws) and copied
 * to a large offset inside a bigger buffer filled with junk — by two new decoders that first decode the same two
 * synthetic datagrams (so that their reused holders start from the same non-zero state for every input). A
 * finding is any of:
 * <ul>
 *   <li>an exception or error escaping {@code decode} (it must return null or a failure, never throw);</li>
 *   <li>a broken invariant: header fields (version 5, agent type, header length, sample count ≤ cap), sample kinds,
 *       counts ≤ caps and consistent, a failed sample's error set and inside that sample, every live view inside
 *       the datagram and the input array, AS path and stack depths ≤ capacities, failure kind/field set and failure
 *       offset within [0, len];</li>
 *   <li>the two decodes disagreeing (fingerprint of every live field, see {@link HolderWalker}) — an offset bug;</li>
 *   <li>a decode call allocating more than {@link Alloc#DECODER_CAP} bytes (visitor excluded; measured on repeated
 *       decodes of the input after the two above; see {@link Alloc});</li>
 *   <li>an input taking more than 5 s (JUnit timeout per seed; Jazzer passes it to libFuzzer as {@code -timeout}).</li>
 * </ul>
 */
class SflowDecoderFuzzTest {
    private static final String METHOD = "decode";

    /** Where the second copy of each input starts: beyond any input, odd so that nothing is aligned. */
    static final int PAD_OFFSET = 65_537;
    private static final byte JUNK = (byte) 0xA5;

    private final Checker atZero = new Checker();
    private final Checker atPad = new Checker();
    private byte[] padded = junk(PAD_OFFSET + 4096 + 64);
    /**
     * Decoded by both (new) decoders before each input, so that the reused holders start from the same non-zero
     * state every time: the target is deterministic (a saved finding reproduces on its own, whatever ran before it)
     * and a record that is only partly overwritten shows stale values rather than zeros.
     */
    private static final byte[][] PRIMERS = {SyntheticSflow.allFlowRecords(), SyntheticSflow.discardAndCounters()};
    private static final SflowVisitor IGNORE = new SflowVisitor() {
        @Override
        public void onDatagram(DatagramHeader header) {}

        @Override
        public void onFlowSample(DatagramHeader header, FlowSample sample) {}
    };

    @FuzzTest(maxDuration = "60s")
    @Timeout(value = 5, unit = TimeUnit.SECONDS)
    void decode(byte[] data) throws Throwable {
        Findings.run(getClass(), METHOD, data, () -> {
            SflowDecoder decoderAtZero = new SflowDecoder(new DecodeStats());
            SflowDecoder decoderAtPad = new SflowDecoder(new DecodeStats());
            for (byte[] p : PRIMERS) {
                decoderAtZero.decode(p, 0, p.length, IGNORE);
                decoderAtPad.decode(p, 0, p.length, IGNORE);
            }
            long a = run(decoderAtZero, atZero, data, 0, data.length);
            if (padded.length < PAD_OFFSET + data.length + 64) {
                padded = junk(PAD_OFFSET + data.length + 64);
            }
            System.arraycopy(data, 0, padded, PAD_OFFSET, data.length);
            long b = run(decoderAtPad, atPad, padded, PAD_OFFSET, data.length);
            Arrays.fill(padded, PAD_OFFSET, PAD_OFFSET + data.length, JUNK);
            if (a != b) {
                throw new AssertionError("decoding the same datagram at offset 0 and at offset " + PAD_OFFSET
                        + " gave different results (fingerprints " + Long.toHexString(a) + " / " + Long.toHexString(b)
                        + "): some read or reported offset ignores 'off'");
            }
            // Allocation, measured on further decodes of the same input (the first one above was the warm-up);
            // kept apart from the fingerprints, which also cover stale holder contents and so depend on history.
            long cap = Alloc.cap(Alloc.DECODER_CAP, data.length);
            long over = Alloc.overCap(cap, () -> {
                atZero.begin(data, 0, data.length);
                long t0 = Alloc.now();
                decoderAtZero.decode(data, 0, data.length, atZero);
                return Alloc.now() - t0 - atZero.visitorBytes;
            });
            if (over >= 0) {
                throw new Alloc.CapExceeded("SflowDecoder.decode allocated " + over + " bytes for one " + data.length
                        + "-byte datagram (cap " + cap + ", visitor excluded, after " + Alloc.RETRIES
                        + " repetitions)");
            }
        });
    }

    private static byte[] junk(int n) {
        byte[] b = new byte[n];
        Arrays.fill(b, JUNK);
        return b;
    }

    /** Decodes one datagram, enforcing the invariants; returns the fingerprint. */
    private static long run(SflowDecoder decoder, Checker v, byte[] buf, int off, int len) {
        v.begin(buf, off, len);
        v.failure = decoder.decode(buf, off, len, v);
        SflowDecodeException e = v.failure;
        if (e != null) {
            if (e.kind() == null || e.field() == null) {
                throw new AssertionError("failure without kind or field: " + e.kind() + " / " + e.field());
            }
            if (e.offset() < 0 || e.offset() > len) {
                throw new AssertionError("failure offset " + e.offset() + " outside [0, " + len + "]: "
                        + e.getMessage());
            }
            v.w.mix(e.kind().ordinal());
            v.w.mix(e.field().hashCode());
            v.w.mix(e.offset());
            v.w.mix(e.value());
        }
        v.w.mix(v.samples);
        return v.w.hash;
    }

    /** The visitor: checks and reads everything it is given; its own allocation is measured and excluded. */
    static final class Checker implements SflowVisitor {
        final HolderWalker w = new HolderWalker();
        int len;
        long visitorBytes;
        long declaredSamples;
        int samples;
        SflowDecodeException failure;

        void begin(byte[] data, int off, int len) {
            w.begin(data, off, len);
            this.len = len;
            visitorBytes = 0;
            declaredSamples = -1;
            samples = 0;
            failure = null;
        }

        @Override
        public void onDatagram(DatagramHeader h) {
            long t0 = Alloc.now();
            if (!(declaredSamples == -1)) {
                throw broken("onDatagram called twice");
            }
            if (!(h.version == 5)) {
                throw broken("version " + h.version);
            }
            if (!(h.agentAddressType == SflowFormats.ADDRESS_IPV4 || h.agentAddressType == SflowFormats.ADDRESS_IPV6)) {
                throw broken("agent address type " + h.agentAddressType);
            }
            if (!(h.headerLength == (h.agentAddressType == SflowFormats.ADDRESS_IPV4 ? 28 : 40))) {
                throw broken("header length " + h.headerLength);
            }
            if (!(h.numSamples >= 0 && h.numSamples <= SflowDecoder.MAX_SAMPLES)) {
                throw broken("num_samples " + h.numSamples);
            }
            if (!(h.headerLength + 8 * h.numSamples <= len)) {
                throw broken("num_samples " + h.numSamples + " cannot fit");
            }
            declaredSamples = h.numSamples;
            w.walk("header", h);
            visitorBytes += Alloc.now() - t0;
        }

        @Override
        public void onFlowSample(DatagramHeader h, FlowSample s) {
            long t0 = Alloc.now();
            if (!(s.kind == SflowFormats.FLOW_SAMPLE || s.kind == SflowFormats.FLOW_SAMPLE_EXPANDED)) {
                throw broken("flow sample kind " + s.kind);
            }
            flow(s);
            visitorBytes += Alloc.now() - t0;
        }

        @Override
        public void onDiscardSample(DatagramHeader h, FlowSample s) {
            long t0 = Alloc.now();
            if (!(s.kind == SflowFormats.DISCARDED_PACKET && s.isDiscard())) {
                throw broken("discard sample kind " + s.kind);
            }
            flow(s);
            visitorBytes += Alloc.now() - t0;
        }

        @Override
        public void onCounterSample(DatagramHeader h, CounterSample s) {
            long t0 = Alloc.now();
            sample("counter", s.kind == SflowFormats.COUNTERS_SAMPLE || s.kind == SflowFormats.COUNTERS_SAMPLE_EXPANDED,
                    s.kind, s.offset, s.length);
            if (!(s.expanded == (s.kind == SflowFormats.COUNTERS_SAMPLE_EXPANDED))) {
                throw broken("expanded flag");
            }
            records(s.recordCount, s.recordsListed, CounterSample.MAX_RECORDS_LISTED, s.unknownRecords,
                    s.recordErrors, s.duplicateRecords);
            w.walk("counterSample", s);
            visitorBytes += Alloc.now() - t0;
        }

        @Override
        public void onSkippedSample(DatagramHeader h, int dataFormat, int offset, int length) {
            long t0 = Alloc.now();
            if (dataFormat == SflowFormats.FLOW_SAMPLE || dataFormat == SflowFormats.FLOW_SAMPLE_EXPANDED
                    || dataFormat == SflowFormats.COUNTERS_SAMPLE || dataFormat == SflowFormats.COUNTERS_SAMPLE_EXPANDED
                    || dataFormat == SflowFormats.DISCARDED_PACKET) {
                throw broken("known sample format skipped: " + dataFormat);
            }
            sample("skipped", true, dataFormat, offset, length);
            visitorBytes += Alloc.now() - t0;
        }

        @Override
        public void onSampleError(DatagramHeader h, RecordedSample s) {
            long t0 = Alloc.now();
            sample("failed", s.kind == SflowFormats.FLOW_SAMPLE || s.kind == SflowFormats.FLOW_SAMPLE_EXPANDED
                    || s.kind == SflowFormats.DISCARDED_PACKET || s.kind == SflowFormats.COUNTERS_SAMPLE
                    || s.kind == SflowFormats.COUNTERS_SAMPLE_EXPANDED, s.kind, s.offset, s.length);
            if (!(s.sampleFailed() && s.sampleErrorField != null)) {
                throw broken("sample error without kind or field: " + s.sampleErrorKind + " / " + s.sampleErrorField);
            }
            int rel = w.sampleOffset(s.offset);
            if (!(s.sampleErrorOffset >= rel + 8 && s.sampleErrorOffset <= rel + 8 + s.length)) {
                throw broken("sample error at " + s.sampleErrorOffset + " outside its sample at " + rel + " (+8+"
                        + s.length + ")");
            }
            w.mix(s.sampleErrorKind.ordinal());
            w.mix(s.sampleErrorField.hashCode());
            w.mix(s.sampleErrorOffset);
            w.mix(s.sampleErrorValue);
            w.mix(s.sourceRead ? 1 + s.sequenceNumber * 31 + s.sourceIdType * 7 + s.sourceIdIndex : 0);
            visitorBytes += Alloc.now() - t0;
        }

        private void flow(FlowSample s) {
            sample("flow", true, s.kind, s.offset, s.length);
            if (!(s.expanded == (s.kind != SflowFormats.FLOW_SAMPLE))) {
                throw broken("expanded flag");
            }
            if (!(s.isDiscard() || s.reason == -1)) {
                throw broken("reason set on a flow sample");
            }
            records(s.recordCount, s.recordsListed, FlowSample.MAX_RECORDS_LISTED, s.unknownRecords, s.recordErrors,
                    s.duplicateRecords);
            if (s.hasExtendedGateway) {
                var g = s.extendedGateway;
                if (!(g.segments >= 0 && g.segments <= FlowRecords.MAX_AS_SEGMENTS)) {
                    throw broken("AS path segments " + g.segments);
                }
                if (!(g.asPathLength >= 0 && g.asPathLength <= FlowRecords.MAX_AS_PATH)) {
                    throw broken("AS path " + g.asPathLength);
                }
                long sum = 0;
                for (int i = 0; i < g.segments; i++) {
                    sum += g.segmentLength[i];
                }
                if (!(sum == g.asPathLength)) {
                    throw broken("AS path segment lengths " + sum + " != " + g.asPathLength);
                }
                if (!(g.communityCount >= 0 && g.communityCount <= FlowRecords.MAX_AS_PATH)) {
                    throw broken("communities " + g.communityCount);
                }
            }
            if (s.hasExtendedMpls) {
                var m = s.extendedMpls;
                if (m.inDepth < 0 || m.inDepth > FlowRecords.MAX_STACK || m.outDepth < 0
                        || m.outDepth > FlowRecords.MAX_STACK) {
                    throw broken("MPLS stack depths " + m.inDepth + "/" + m.outDepth);
                }
            }
            if (s.hasExtendedVlanTunnel) {
                int d = s.extendedVlanTunnel.depth;
                if (!(d >= 0 && d <= FlowRecords.MAX_STACK)) {
                    throw broken("VLAN tunnel depth " + d);
                }
            }
            w.walk("flowSample", s);
        }

        private void sample(String what, boolean kindOk, int kind, int offset, int length) {
            if (!(kindOk)) {
                throw broken(what + " sample kind " + kind);
            }
            if (!(++samples <= declaredSamples)) {
                throw broken("more samples delivered than num_samples " + declaredSamples);
            }
            int rel = w.sampleOffset(offset);
            if (!(rel >= 28 && length >= 0 && (long) rel + 8 + length <= len)) {
                throw broken(what + " sample at " + rel + " (+8+" + length + ") outside the " + len + "-byte datagram");
            }
            w.mix(kind);
            w.mix(rel);
            w.mix(length);
        }

        private static void records(int count, int listed, int maxListed, int unknown, int errors, int duplicates) {
            if (!(count >= 0 && count <= SflowDecoder.MAX_RECORDS)) {
                throw broken("record count " + count);
            }
            if (!(listed == Math.min(count, maxListed))) {
                throw broken("records listed " + listed + " of " + count);
            }
            if (!(unknown >= 0 && unknown <= count)) {
                throw broken("unknown records " + unknown + " of " + count);
            }
            if (!(errors >= 0 && errors <= count)) {
                throw broken("record errors " + errors + " of " + count);
            }
            if (!(duplicates >= 0 && duplicates <= count)) {
                throw broken("duplicate records " + duplicates + " of " + count);
            }
            if (!(unknown + errors <= count)) {
                throw broken("unknown + failed records " + (unknown + errors) + " > " + count);
            }
        }

        private static AssertionError broken(String what) {
            return new AssertionError("invariant broken: " + what);
        }
    }
}
