package io.vecflow.collector.inlet;

import static io.vecflow.sflow.HandDatagram.datagram;
import static io.vecflow.sflow.HandDatagram.flowSample;
import static io.vecflow.sflow.HandDatagram.record;
import static io.vecflow.sflow.HandDatagram.recordWithLength;
import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.TestSupport;
import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.decode.DatagramJsonWriterTest;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.sink.clickhouse.RowBinaryWriterTest;
import io.vecflow.sflow.DecodeError;
import io.vecflow.sflow.SflowFormats;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rows of datagrams that do not decode whole: every row of a datagram whose sample structure fails part-way carries
 * {@link FlowRow#datagramIncomplete}; a sample that fails inside its own length costs that sample only, is counted once
 * (a sample-level decode error, not also a sequence gap) and the samples after it become rows; an 802.3 LLC/SNAP
 * frame in a sampled header becomes an IP row.
 */
class DatagramProcessorTest {
    private static final int SWITCH = SflowFormats.EXTENDED_SWITCH;
    private static final byte[] PEER = new byte[16];

    private final CollectorStats st = new CollectorStats();
    private final TestSupport.CopyingSink rows = new TestSupport.CopyingSink();
    private final DatagramProcessor p = new DatagramProcessor(st.decode, st, List.of(), List.of(rows));

    @Test
    void everyRowOfADatagramCutPartWayIsMarkedIncomplete() {
        byte[] whole = datagram(1, 1000, flowSample(1, record(SWITCH, 10, 1, 11, 2)),
                flowSample(2, record(SWITCH, 10, 1, 11, 2)), flowSample(3, record(SWITCH, 10, 1, 11, 2)));
        assertThat(p.process(whole, 0, whole.length, 1L, PEER, 6343)).isNull();
        byte[] next = datagram(2, 2000, flowSample(4), flowSample(5), flowSample(6));
        // Cut inside the third sample: its length runs past the end; the first two samples are stored.
        assertThat(p.process(next, 0, next.length - 4, 2L, PEER, 6343).kind())
                .isEqualTo(DecodeError.LENGTH_OUT_OF_BOUNDS);
        List<FlowRow> got = rows.rows();
        assertThat(got).extracting(r -> r.sampleSequence).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(got).extracting(r -> r.datagramIncomplete).containsExactly(false, false, false, true, true);
        assertThat(st.decode.errors(DecodeError.LENGTH_OUT_OF_BOUNDS)).isEqualTo(1);
        // The flag does not leak into the next datagram's rows.
        byte[] third = datagram(3, 3000, flowSample(7, record(SWITCH, 10, 1, 11, 2)),
                flowSample(8, record(SWITCH, 10, 1, 11, 2)), flowSample(9, record(SWITCH, 10, 1, 11, 2)));
        p.process(third, 0, third.length, 3L, PEER, 6343);
        assertThat(rows.rows().subList(5, 8)).extracting(r -> r.datagramIncomplete).containsOnly(false);
    }

    @Test
    void aSampleThatFailsInsideItsLengthIsCountedOnceAndTheNextSamplesAreStored() {
        byte[] d = datagram(1, 1000, flowSample(1, record(SWITCH, 10, 1, 11, 2)),
                flowSample(2, recordWithLength(SWITCH, 100, 10, 1, 11, 2)), flowSample(3, record(SWITCH, 20, 1, 21,
                        2)));
        assertThat(p.process(d, 0, d.length, 1L, PEER, 6343)).as("the datagram reached its end").isNull();
        assertThat(rows.rows()).extracting(r -> r.sampleSequence).containsExactly(1L, 3L);
        assertThat(rows.rows()).extracting(r -> r.datagramIncomplete).containsOnly(false);
        assertThat(rows.rows().get(1).inVlan).isEqualTo(20);
        assertThat(st.decode.sampleErrors(DecodeError.LENGTH_OUT_OF_BOUNDS)).isEqualTo(1);
        assertThat(st.decode.badDatagrams()).isZero();
        long[] loss = st.loss.totals();
        assertThat(loss[4]).as("samples seen: the failed one arrived").isEqualTo(3);
        assertThat(loss[5]).as("samples lost: none, the failed one is a decode error, not a gap").isZero();
    }

    @Test
    void anLlcSnapFrameInASampledHeaderBecomesAnIpRow() {
        byte[] snap = java.util.HexFormat.of().parseHex("0200000000020200000000010030aaaa030000000800"
                + "45000028123440004006149a0a0000010a000002" + "9c40005000000001000000005002ffff00000000");
        byte[] d = datagram(1, 1000, flowSample(1, DatagramJsonWriterTest.sampledHeader(66, snap)));
        assertThat(p.process(d, 0, d.length, 1L, PEER, 6343)).isNull();
        FlowRow r = rows.rows().getFirst();
        assertThat(r.etherType).isEqualTo(0x0800);
        assertThat(TestSupport.addr(r.srcAddr)).isEqualTo("10.0.0.1");
        assertThat(TestSupport.addr(r.dstAddr)).isEqualTo("10.0.0.2");
        assertThat(r.protocol).isEqualTo(6);
        assertThat(r.srcPort).isEqualTo(40000);
        assertThat(r.dstPort).isEqualTo(80);
        assertThat(r.tcpFlags).isEqualTo(2);
        assertThat(r.bytes).as("the IP total length").isEqualTo(40);
    }

    @Test
    void copyFromKeepsTheMark() {
        FlowRow r = RowBinaryWriterTest.sampleRow();
        assertThat(r.datagramIncomplete).isTrue();
        assertThat(new FlowRow().copyFrom(r).datagramIncomplete).isTrue();
        r.datagramIncomplete = false;
        FlowRow marked = RowBinaryWriterTest.sampleRow();
        assertThat(marked.copyFrom(r).datagramIncomplete).isFalse();
        int enrichment = FlowSchema.ENRICHMENT.size();
        assertThat(Arrays.asList(FlowSchema.FLOWS.get(FlowSchema.FLOWS.size() - 1 - enrichment).name(),
                FlowSchema.DROPS.get(FlowSchema.DROPS.size() - 2 - enrichment).name()))
                .containsOnly("DatagramIncomplete");
    }
}
