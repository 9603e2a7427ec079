package io.vecflow.sflow;

import static io.vecflow.sflow.HandDatagram.counterSample;
import static io.vecflow.sflow.HandDatagram.datagram;
import static io.vecflow.sflow.HandDatagram.flowSample;
import static io.vecflow.sflow.HandDatagram.record;
import static io.vecflow.sflow.HandDatagram.recordWithLength;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A sample whose body breaks inside its own declared length — a record length or count that does not fit the sample,
 * fixed fields cut short — costs that sample only: it is reported through {@link SflowVisitor#onSampleError} with the
 * error's kind, field and offset (from the start of the datagram) and counted at the sample level; the samples before
 * and after it decode. A datagram whose sample structure itself fails (a sample length past the datagram) is found by
 * the pre-pass: {@link DatagramHeader#incomplete} is set before the first sample is delivered.
 */
class SampleErrorsTest {
    private static final int SWITCH = SflowFormats.EXTENDED_SWITCH;

    private final DecodeStats stats = new DecodeStats();
    private final SflowDecoder decoder = new SflowDecoder(stats);

    /** What a decode delivered, in order ("flow 1", "error 2 LENGTH_OUT_OF_BOUNDS flow_record.length @136", ...). */
    private final class Log implements SflowVisitor {
        final List<String> events = new ArrayList<>();
        boolean incompleteAtStart;

        @Override
        public void onDatagram(DatagramHeader h) {
            incompleteAtStart = h.incomplete;
        }

        @Override
        public void onFlowSample(DatagramHeader h, FlowSample s) {
            events.add("flow " + s.sequenceNumber);
        }

        @Override
        public void onCounterSample(DatagramHeader h, CounterSample s) {
            events.add("counters " + s.sequenceNumber);
        }

        @Override
        public void onSampleError(DatagramHeader h, RecordedSample s) {
            events.add("error " + s.kind + " " + (s.sourceRead ? s.sequenceNumber + ":" + s.sourceIdType + ":"
                    + s.sourceIdIndex : "-") + " " + s.sampleErrorKind + " " + s.sampleErrorField() + " @"
                    + s.sampleErrorOffset + " value " + s.sampleErrorValue + " sample @" + s.offset + "+" + s.length);
        }
    }

    private Log decode(byte[] d, int off) {
        byte[] buf = new byte[off + d.length + 3];
        System.arraycopy(d, 0, buf, off, d.length);
        Log log = new Log();
        assertThat(decoder.decode(buf, off, d.length, log)).as("datagram-level failure").isNull();
        return log;
    }

    @Test
    void aRecordLengthPastItsSampleCostsThatSampleOnly() {
        // sample 1 at 28 (64 bytes), sample 2 at 92: body at 100, its record at 132, the record's length word at 136.
        byte[] d = datagram(1, 1000, flowSample(1, record(SWITCH, 10, 1, 11, 2)),
                flowSample(2, recordWithLength(SWITCH, 100, 10, 1, 11, 2)),
                counterSample(3, record(CounterRecords.PROCESSOR, 1, 2, 3, 0, 4, 0, 5)));
        for (int off : new int[] {0, 17}) {
            Log log = decode(d, off);
            assertThat(log.events).as("at buffer offset %d", off).containsExactly("flow 1",
                    "error 1 2:0:7 LENGTH_OUT_OF_BOUNDS flow_record.length @136 value 100 sample @" + (92 + off)
                            + "+56",
                    "counters 3");
            assertThat(log.incompleteAtStart).isFalse();
        }
        assertThat(stats.badSamples()).isEqualTo(2);
        assertThat(stats.sampleErrors(DecodeError.LENGTH_OUT_OF_BOUNDS)).isEqualTo(2);
        assertThat(stats.badDatagrams()).isZero();
        assertThat(stats.errors(DecodeError.LENGTH_OUT_OF_BOUNDS)).isZero();
        assertThat(stats.flowSamples()).as("the failed samples are not counted as decoded").isEqualTo(2);
        assertThat(stats.counterSamples()).isEqualTo(2);
        assertThat(stats.sampleErrorsByKind()).containsOnlyKeys(DecodeError.LENGTH_OUT_OF_BOUNDS);
    }

    @Test
    void aRecordCountThatCannotFitCostsThatSampleOnly() {
        byte[] bad = flowSample(2, record(SWITCH, 10, 1, 11, 2));
        ByteBuffer.wrap(bad).putInt(8 + 28, 5); // flow_records = 5, one record of 24 bytes follows
        byte[] badCounters = counterSample(4, record(CounterRecords.PROCESSOR, 1, 2, 3, 0, 4, 0, 5));
        ByteBuffer.wrap(badCounters).putInt(8 + 8, 100_000); // counter_records above the cap
        byte[] d = datagram(1, 1000, flowSample(1), bad, counterSample(3), badCounters, flowSample(5));
        // flowSample(1) at 28 (40 bytes), bad at 68: its count word at 68 + 36 = 104; counterSample(3) at 132
        // (20 bytes), badCounters at 152: its count word at 152 + 16 = 168.
        Log log = decode(d, 0);
        assertThat(log.events).containsExactly("flow 1",
                "error 1 2:0:7 COUNT_OUT_OF_BOUNDS flow_sample.flow_records @104 value 5 sample @68+56",
                "counters 3",
                "error 2 4:0:7 COUNT_OUT_OF_BOUNDS counters_sample.counter_records @168 value 100000 sample @152+48",
                "flow 5");
        assertThat(stats.sampleErrors(DecodeError.COUNT_OUT_OF_BOUNDS)).isEqualTo(2);
        assertThat(stats.badDatagrams()).isZero();
    }

    @Test
    void aSampleTooShortForItsFixedFieldsIsReportedWithWhatWasRead() {
        // A counters_sample declaring 4 bytes (its sequence_number only), then a good flow sample.
        ByteBuffer shortSample = ByteBuffer.allocate(12).putInt(SflowFormats.COUNTERS_SAMPLE).putInt(4).putInt(9);
        byte[] d = datagram(1, 1000, shortSample.array(), flowSample(2));
        Log log = decode(d, 0);
        assertThat(log.events).containsExactly(
                "error 2 - TRUNCATED counters_sample.source_id @40 value -1 sample @28+4", "flow 2");
        assertThat(stats.sampleErrors(DecodeError.TRUNCATED)).isEqualTo(1);
    }

    @Test
    void aDatagramWhoseSampleStructureFailsIsMarkedIncompleteBeforeItsFirstSample() {
        byte[] good = datagram(1, 1000, flowSample(1), flowSample(2));
        Log whole = new Log();
        assertThat(decoder.decode(good, 0, good.length, whole)).isNull();
        assertThat(whole.incompleteAtStart).isFalse();

        // The same datagram cut 4 bytes short: sample 2's length runs past the end.
        Log cut = new Log();
        SflowDecodeException e = decoder.decode(good, 0, good.length - 4, cut);
        assertThat(e).isNotNull();
        assertThat(e.kind()).isEqualTo(DecodeError.LENGTH_OUT_OF_BOUNDS);
        assertThat(e.field()).isEqualTo("sample.length");
        assertThat(cut.incompleteAtStart).as("known when onDatagram is called").isTrue();
        assertThat(cut.events).containsExactly("flow 1");

        // num_samples says 3, the bytes after sample 2 hold the start of a sample header only.
        byte[] three = java.util.Arrays.copyOf(good, good.length + 4);
        ByteBuffer.wrap(three).putInt(24, 3).putInt(good.length, SflowFormats.FLOW_SAMPLE);
        Log more = new Log();
        e = decoder.decode(three, 0, three.length, more);
        assertThat(e.kind()).isEqualTo(DecodeError.TRUNCATED);
        assertThat(e.field()).isEqualTo("sample.length");
        assertThat(more.incompleteAtStart).isTrue();
        assertThat(more.events).containsExactly("flow 1", "flow 2");

        // A sample-level error does not make the datagram incomplete: its structure reaches the end.
        Log bad = new Log();
        byte[] withBadRecord = datagram(1, 1000, flowSample(1, recordWithLength(SWITCH, 100, 1, 2, 3, 4)));
        assertThat(decoder.decode(withBadRecord, 0, withBadRecord.length, bad)).isNull();
        assertThat(bad.incompleteAtStart).isFalse();
    }

    @Test
    void sampleErrorsAndThePrePassAllocateNothing() {
        byte[] badCount = flowSample(3, record(SWITCH, 10, 1, 11, 2));
        ByteBuffer.wrap(badCount).putInt(8 + 28, 7);
        byte[] d = datagram(1, 1000, flowSample(1), flowSample(2, recordWithLength(SWITCH, 100, 1, 2, 3, 4)), badCount,
                counterSample(4, record(CounterRecords.PROCESSOR, 1, 2, 3, 0, 4, 0, 5)));
        byte[] cut = java.util.Arrays.copyOf(d, d.length - 4); // incomplete: the last sample's length runs past
        int[] errors = {0};
        SflowVisitor v = new SflowVisitor() {
            @Override
            public void onDatagram(DatagramHeader h) {}

            @Override
            public void onFlowSample(DatagramHeader h, FlowSample s) {}

            @Override
            public void onSampleError(DatagramHeader h, RecordedSample s) {
                errors[0]++;
            }
        };
        var mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        for (int i = 0; i < 20_000; i++) {
            decoder.decode(d, 0, d.length, v);
            decoder.decode(cut, 0, cut.length, v);
        }
        long best = Long.MAX_VALUE;
        for (int k = 0; k < 5 && best > 0; k++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 10_000; i++) {
                decoder.decode(d, 0, d.length, v);
                decoder.decode(cut, 0, cut.length, v);
            }
            best = Math.min(best, mx.getThreadAllocatedBytes(tid) - before);
        }
        assertThat(best).as("bytes allocated for 10,000 datagrams with sample errors and 10,000 incomplete ones")
                .isLessThan(1024);
        assertThat(errors[0]).as("2 sample errors per datagram, both copies").isGreaterThanOrEqualTo(4 * 20_000);
    }
}
