package io.vecflow.collector.inlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.Captures;
import io.vecflow.collector.TestSupport;
import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.sink.RawSink;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Admission in the datagram path: refused datagrams reach no raw sink (Kafka, forward) and no row sink. */
class AdmissionProcessorTest {
    /** A raw sink that records what reaches it. */
    static final class Keep implements RawSink {
        final List<Integer> lengths = new ArrayList<>();

        @Override public void accept(byte[] data, int off, int len, long receivedNanos, byte[] peer16, int peerPort) {
            lengths.add(len);
        }
        @Override public void flush() {}
        @Override public long written() { return lengths.size(); }
        @Override public long failed() { return 0; }
        @Override public String name() { return "keep"; }
        @Override public void close() {}
    }

    @Test
    void withAnAllowlistUnreadableAndForeignDatagramsReachNoSink() throws Exception {
        List<byte[]> captures = new ArrayList<>();
        for (String c : Captures.all()) {
            captures.addAll(Captures.udpPayloads(c));
        }
        CollectorStats st = new CollectorStats();
        Keep raw = new Keep();
        TestSupport.CopyingSink rows = new TestSupport.CopyingSink();
        Admission a = new Admission(List.of("10.99.0.0/16"), 0);
        DatagramProcessor p = new DatagramProcessor(st.decode, st, List.of(raw), List.of(rows), true, a);
        byte[] peer = new byte[16];
        for (byte[] d : captures) {
            p.process(d, 0, d.length, 1L, peer, 6343);
        }
        byte[][] junk = {new byte[8], "not sflow at all, but long enough".getBytes(), new byte[0]};
        for (byte[] d : junk) {
            p.process(d, 0, d.length, 1L, peer, 6343);
        }
        assertThat(raw.lengths).isEmpty();
        assertThat(rows.rows()).isEmpty();
        long total = captures.size() + junk.length;
        assertThat(st.datagramsRefused.sum()).isEqualTo(total);
        assertThat(st.datagramsReceived.sum()).isEqualTo(total);
        assertThat(a.refusedPrefix.sum()).isEqualTo(total);
        assertThat(st.decode.errorsByKind()).isEmpty();
    }

    @Test
    void withoutAnAllowlistUnreadableDatagramsGoOnToTheDecoderAndAreCounted() throws Exception {
        CollectorStats st = new CollectorStats();
        Keep raw = new Keep();
        Admission a = new Admission(List.of(), 1000);
        DatagramProcessor p = new DatagramProcessor(st.decode, st, List.of(raw), List.of(), true, a);
        p.process(new byte[8], 0, 8, 1L, new byte[16], 6343);
        assertThat(raw.lengths).containsExactly(8);
        assertThat(st.datagramsRefused.sum()).isZero();
        assertThat(st.decode.errorsByKind()).isNotEmpty();
    }
}
