package io.vecflow.sflow;

import static io.vecflow.sflow.HandDatagram.counterSample;
import static io.vecflow.sflow.HandDatagram.datagram;
import static io.vecflow.sflow.HandDatagram.flowSample;
import static io.vecflow.sflow.HandDatagram.record;
import static io.vecflow.sflow.HandDatagram.recordWithLength;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Which listed records failed ({@code recordErrorMask}, with kind, field and datagram-relative offset) and which were
 * taken over by a later copy of the same format ({@code recordSupersededMask}), for flow and counter samples; record
 * reads bounded by the record's own declared end; no allocation on these paths.
 */
class RecordErrorsTest {
    private static final int SWITCH = SflowFormats.EXTENDED_SWITCH;
    private static final int ROUTER = SflowFormats.EXTENDED_ROUTER;
    private static final int HEADER = SflowFormats.SAMPLED_HEADER;
    private static final int PROCESSOR = CounterRecords.PROCESSOR;

    private final DecodeStats stats = new DecodeStats();
    private final SflowDecoder decoder = new SflowDecoder(stats);

    /** Decodes {@code d} placed {@code off} bytes into a larger buffer and hands the flow sample to {@code check}. */
    private void flow(byte[] d, int off, Consumer<FlowSample> check) {
        byte[] buf = new byte[off + d.length + 5];
        System.arraycopy(d, 0, buf, off, d.length);
        int[] seen = {0};
        SflowDecodeException e = decoder.decode(buf, off, d.length, new SflowVisitor() {
            @Override
            public void onDatagram(DatagramHeader h) {}

            @Override
            public void onFlowSample(DatagramHeader h, FlowSample s) {
                seen[0]++;
                check.accept(s);
            }
        });
        assertThat(e).as("datagram-level failure").isNull();
        assertThat(seen[0]).isEqualTo(1);
    }

    private void counters(byte[] d, Consumer<CounterSample> check) {
        int[] seen = {0};
        SflowDecodeException e = decoder.decode(d, 0, d.length, new SflowVisitor() {
            @Override
            public void onDatagram(DatagramHeader h) {}

            @Override
            public void onFlowSample(DatagramHeader h, FlowSample s) {}

            @Override
            public void onCounterSample(DatagramHeader h, CounterSample s) {
                seen[0]++;
                check.accept(s);
            }
        });
        assertThat(e).isNull();
        assertThat(seen[0]).isEqualTo(1);
    }

    @Test
    void anEarlierCopyOfARecordIsMarkedSupersededAndTheHolderShowsTheLast() {
        byte[] d = datagram(1, 1000, flowSample(1, record(SWITCH, 10, 1, 11, 2), record(ROUTER, 1, 0x0A000001, 24, 16),
                record(SWITCH, 20, 3, 21, 4)));
        flow(d, 0, s -> {
            assertThat(s.recordsListed).isEqualTo(3);
            assertThat(s.duplicateRecords).isEqualTo(1);
            assertThat(s.recordSupersededMask).isEqualTo(0b001L);
            assertThat(s.recordSuperseded(0)).isTrue();
            assertThat(s.recordSuperseded(2)).isFalse();
            assertThat(s.recordErrorMask).isZero();
            assertThat(s.firstRecordErrorIndex).isEqualTo(-1);
            assertThat(s.extendedSwitch.srcVlan).isEqualTo(20);
            assertThat(s.extendedSwitch.dstPriority).isEqualTo(4);
        });
    }

    @Test
    void extendedSwitchOfLength14FailsAtItsOwnEndNotTheSamplesAndTheNextRecordIsDecoded() {
        // Declared length 14 (the structure needs 16); the wire carries pad4(14) = 16 bytes, then a good router
        // record: a read bounded by the sample's end would take dst_priority from the padding and succeed.
        byte[] sw = recordWithLength(SWITCH, 14, 10, 1, 11, 0x02000000);
        byte[] d = datagram(1, 1000, flowSample(1, sw, record(ROUTER, 1, 0x0A000001, 24, 16)));
        int switchBody = 28 + 8 + 32 + 8; // header, sample header, compact flow_sample fields, record header
        flow(d, 7, s -> {
            assertThat(s.recordErrors).isEqualTo(1);
            assertThat(s.recordErrorMask).isEqualTo(0b01L);
            assertThat(s.recordFailed(0)).isTrue();
            assertThat(s.recordErrorKinds[0]).isEqualTo(DecodeError.TRUNCATED);
            assertThat(s.recordErrorField(0)).isEqualTo("extended_switch.dst_priority");
            assertThat(s.recordErrorOffsets[0]).as("from the start of the datagram, not the buffer")
                    .isEqualTo(switchBody + 12);
            assertThat(s.firstRecordErrorIndex).isZero();
            assertThat(s.firstRecordErrorKind).isEqualTo(DecodeError.TRUNCATED);
            assertThat(s.firstRecordErrorField).isEqualTo("extended_switch.dst_priority");
            assertThat(s.firstRecordErrorOffset).isEqualTo(switchBody + 12);
            assertThat(s.hasExtendedSwitch).isFalse();
            assertThat(s.has(SWITCH)).isFalse();
            assertThat(s.hasExtendedRouter).as("the next record starts at body + pad4(14)").isTrue();
            assertThat(s.extendedRouter.srcMaskLen).isEqualTo(24);
            assertThat(s.recordFailed(1)).isFalse();
        });
        assertThat(stats.recordErrors(DecodeError.TRUNCATED)).isEqualTo(1);
    }

    @Test
    void aFailedLaterCopyClearsTheRecordAndSupersedesTheGoodOne() {
        byte[] good = record(HEADER, 1, 64, 0, 4, 0xAABBCCDD);
        byte[] cut = record(HEADER, 1, 64, 0); // ends before the header opaque
        flow(datagram(1, 1000, flowSample(1, good, cut)), 0, s -> {
            assertThat(s.recordSupersededMask).isEqualTo(0b01L);
            assertThat(s.recordErrorMask).isEqualTo(0b10L);
            assertThat(s.recordErrorField(1)).isEqualTo("sampled_header.header");
            assertThat(s.hasSampledHeader).isFalse();
        });
        // Failed first, good later: the failure stays marked, the holder shows the good one.
        flow(datagram(2, 1100, flowSample(2, cut, good)), 0, s -> {
            assertThat(s.recordErrorMask).isEqualTo(0b01L);
            assertThat(s.recordSupersededMask).isEqualTo(0b01L);
            assertThat(s.hasSampledHeader).isTrue();
            assertThat(s.sampledHeader.header.length).isEqualTo(4);
        });
    }

    @Test
    void recordsBeyondTheListedOnesStillSupersedeAndReportTheFirstError() {
        byte[][] recs = new byte[67][];
        recs[0] = record(SWITCH, 10, 1, 11, 2);
        for (int i = 1; i < 64; i++) {
            recs[i] = record(SflowFormats.dataFormat(0, 999), i);
        }
        recs[64] = record(SWITCH, 20, 3, 21, 4); // unlisted: takes the holder over from listed record 0
        recs[65] = record(ROUTER, 1, 0x0A000001); // unlisted and cut short: the first record error
        recs[66] = record(ROUTER, 9); // also failing: not the first
        flow(datagram(1, 1000, flowSample(1, recs)), 0, s -> {
            assertThat(s.recordsListed).isEqualTo(FlowSample.MAX_RECORDS_LISTED);
            assertThat(s.recordSupersededMask).isEqualTo(1L);
            assertThat(s.recordErrorMask).isZero();
            assertThat(s.recordErrors).isEqualTo(2);
            assertThat(s.firstRecordErrorIndex).isEqualTo(65);
            assertThat(s.firstRecordErrorKind).isEqualTo(DecodeError.TRUNCATED);
            assertThat(s.firstRecordErrorField).isEqualTo("extended_router.src_mask_len");
            assertThat(s.extendedSwitch.srcVlan).isEqualTo(20);
        });
    }

    @Test
    void counterRecordFailuresAreMarkedAndLeaveNoStaleHolder() {
        byte[] processor1 = record(PROCESSOR, 100, 200, 300, 0, 1000, 0, 500);
        byte[] processor2 = record(PROCESSOR, 101, 201, 301, 0, 2000, 0, 900);
        byte[] ifCut = record(CounterRecords.IF_COUNTERS, 7, 6); // if_counters needs 88 bytes
        // A first datagram fills the if_counters holder; the second's cut copy must not show it.
        byte[] ifGood = record(CounterRecords.IF_COUNTERS, new int[22]);
        counters(datagram(1, 1000, counterSample(1, ifGood)), s -> assertThat(s.records.hasIfCounters).isTrue());
        counters(datagram(2, 2000, counterSample(2, ifCut, processor1, processor2)), s -> {
            assertThat(s.recordErrors).isEqualTo(1);
            assertThat(s.recordErrorMask).isEqualTo(0b001L);
            assertThat(s.recordErrorKinds[0]).isEqualTo(DecodeError.TRUNCATED);
            assertThat(s.recordErrorField(0)).startsWith("if_counters.");
            assertThat(s.recordErrorOffsets[0]).isBetween(28 + 8 + 12 + 8, 28 + 8 + 12 + 8 + 8);
            assertThat(s.firstRecordErrorIndex).isZero();
            assertThat(s.records.hasIfCounters).isFalse();
            assertThat(s.records.holder(CounterRecords.IF_COUNTERS)).isNull();
            assertThat(s.recordSupersededMask).isEqualTo(0b010L);
            assertThat(s.records.processor.totalMemory).isEqualTo(2000);
        });
    }

    @Test
    void markingErrorsAndSupersededRecordsAllocatesNothing() {
        byte[] sw = recordWithLength(SWITCH, 14, 10, 1, 11, 0);
        byte[] d = datagram(1, 1000, flowSample(1, sw, record(SWITCH, 1, 2, 3, 4), record(SWITCH, 5, 6, 7, 8),
                        record(HEADER, 1, 64, 0)),
                counterSample(1, record(CounterRecords.IF_COUNTERS, 7, 6), record(PROCESSOR, 1, 2, 3, 0, 4, 0, 5),
                        record(PROCESSOR, 1, 2, 3, 0, 4, 0, 5)));
        SflowVisitor v = new SflowVisitor() {
            @Override
            public void onDatagram(DatagramHeader h) {}

            @Override
            public void onFlowSample(DatagramHeader h, FlowSample s) {}
        };
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        for (int i = 0; i < 20_000; i++) {
            decoder.decode(d, 0, d.length, v);
        }
        long best = Long.MAX_VALUE;
        for (int k = 0; k < 5 && best > 0; k++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 10_000; i++) {
                decoder.decode(d, 0, d.length, v);
            }
            best = Math.min(best, mx.getThreadAllocatedBytes(tid) - before);
        }
        assertThat(best).as("bytes allocated for 10,000 datagrams with record errors and duplicates")
                .isLessThan(1024);
        assertThat(stats.recordErrors(DecodeError.TRUNCATED)).isGreaterThanOrEqualTo(3 * 20_000L);
    }
}
