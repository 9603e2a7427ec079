package io.vecflow.sflow;

import static io.vecflow.sflow.FlowSampleEncoderTest.words;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The "vecflow LB counters" enterprise counter record: exact XDR words, round trip inside a counters sample 0:4 through
 * {@link DatagramBuilder} and {@link SflowDecoder} (kept as an unknown record, decoded from the kept body, and encoded
 * back to the same bytes), bounded decoding with named fields and offsets.
 */
class LbCountersRecordTest {
    private static final byte[] AGENT4 = {10, 0, 0, 1};

    static LbCountersRecord srlbBackendV4() {
        LbCountersRecord c = new LbCountersRecord();
        c.role = LbCountersRecord.ROLE_SRLB_LB;
        c.vipIndex = 3;
        c.protocol = 6;
        c.vipPort = 80;
        c.vip.set(new byte[] {10, 0, 0, 100});
        c.backendIndex = 8;
        c.backend.set(new byte[] {10, 0, 1, 2});
        c.newFlows = 5;
        c.firstChoiceAccepts = 3;
        c.secondChoiceAccepts = 2;
        c.rejects = 2;
        c.stickyHits = 0x1_0000_0007L; // above 2^32: the hypers keep all 64 bits
        c.tableFull = 1;
        return c;
    }

    @Test
    void exactWordsAndSizes() {
        LbCountersRecord c = srlbBackendV4();
        XdrWriter w = new XdrWriter(LbCountersRecord.MAX_BYTES);
        c.encode(w);
        assertThat(w.position()).isEqualTo(c.encodedBytes()).isEqualTo(20 + 8 + 4 + 8 + 48);
        assertThat(Arrays.copyOf(w.buffer(), w.position())).isEqualTo(words(
                1, 2, 3, 6, 80,          // version, role srlb, vip index 3, TCP, port 80
                1, 0x0A000064,           // vip 10.0.0.100
                8, 1, 0x0A000102,        // backend slot 7 (+1), 10.0.1.2
                0, 5, 0, 3, 0, 2, 0, 2,  // new flows, first, second, rejects
                1, 7, 0, 1));            // sticky hits (2^32 + 7), table full
        assertThat(LbCountersRecord.dataFormat(LbDecisionRecord.DEFAULT_ENTERPRISE)).isEqualTo(32473 << 12 | 2);
        assertThatThrownBy(() -> LbCountersRecord.dataFormat(0)).hasMessageContaining("outside 1..1048575");
        LbCountersRecord v6 = new LbCountersRecord();
        byte[] a = new byte[16];
        a[0] = 0x20;
        v6.vip.set(a);
        v6.backend.set(a);
        assertThat(v6.encodedBytes()).isEqualTo(LbCountersRecord.MAX_BYTES).isEqualTo(112);
        LbCountersRecord totals = new LbCountersRecord();
        totals.vip.set(new byte[] {10, 0, 0, 100});
        assertThat(totals.encodedBytes()).isEqualTo(84);
    }

    @Test
    void roundTripsInACounterSampleAsAVendorRecord() throws Exception {
        int format = LbCountersRecord.dataFormat(4_242);
        LbCountersRecord in = srlbBackendV4();
        XdrWriter body = new XdrWriter(LbCountersRecord.MAX_BYTES);
        in.encode(body);
        CounterSample cs = new CounterSample();
        cs.kind = SflowFormats.COUNTERS_SAMPLE_EXPANDED;
        cs.expanded = true;
        cs.sequenceNumber = 9;
        cs.sourceIdType = 0;
        cs.sourceIdIndex = 2_000_024_584L;
        cs.recordFormats[0] = format;
        cs.recordCount = cs.recordsListed = 1;
        cs.unknownFormats[0] = format;
        cs.unknownBodies[0].set(body.buffer(), 0, body.position());
        cs.unknownRecords = 1;
        DatagramBuilder b = new DatagramBuilder(1400, AGENT4, 100000);
        assertThat(b.addCounterSample(cs)).isTrue();
        int len = b.finish(1, 1);
        // 28-byte datagram header, sample header 8 + 16 (seq, type, index, count), record 8 + 88
        assertThat(len).isEqualTo(28 + 8 + 16 + 8 + 88);
        byte[] sent = Arrays.copyOf(b.buffer(), len);
        LbCountersRecord out = new LbCountersRecord();
        XdrWriter again = new XdrWriter(400);
        int[] seen = {0};
        SflowDecodeException e = new SflowDecoder(new DecodeStats()).decode(sent, 0, len, new SflowVisitor() {
            @Override
            public void onDatagram(DatagramHeader header) {}

            @Override
            public void onFlowSample(DatagramHeader header, FlowSample s) {}

            @Override
            public void onCounterSample(DatagramHeader header, CounterSample s) {
                seen[0]++;
                assertThat(s.sourceIdIndex).isEqualTo(2_000_024_584L);
                assertThat(s.unknownKept()).isEqualTo(1);
                assertThat(s.unknownFormats[0]).isEqualTo(format);
                ByteView v = s.unknownBodies[0];
                try {
                    assertThat(out.decode(v.array, v.offset, v.length)).isTrue();
                } catch (SflowDecodeException x) {
                    throw new AssertionError(x.getMessage());
                }
                assertThat(CounterSampleEncoder.encode(s, again)).isTrue();
            }
        });
        assertThat(e).isNull();
        assertThat(seen[0]).isEqualTo(1);
        assertThat(out.role).isEqualTo(LbCountersRecord.ROLE_SRLB_LB);
        assertThat(out.roleName()).isEqualTo("srlb");
        assertThat(out.vipIndex).isEqualTo(3);
        assertThat(out.vip.toString()).isEqualTo("10.0.0.100");
        assertThat(out.backendIndex).isEqualTo(8);
        assertThat(out.backend.toString()).isEqualTo("10.0.1.2");
        assertThat(out.protocol).isEqualTo(6);
        assertThat(out.vipPort).isEqualTo(80);
        assertThat(out.newFlows).isEqualTo(5);
        assertThat(out.firstChoiceAccepts).isEqualTo(3);
        assertThat(out.secondChoiceAccepts).isEqualTo(2);
        assertThat(out.rejects).isEqualTo(2);
        assertThat(out.stickyHits).isEqualTo(0x1_0000_0007L);
        assertThat(out.tableFull).isEqualTo(1);
        // the decoded sample encodes back to the same bytes (the sample part of the datagram)
        assertThat(Arrays.copyOf(again.buffer(), again.position())).isEqualTo(Arrays.copyOfRange(sent, 28, len));
    }

    @Test
    void decodingIsBoundedByTheDeclaredLength() throws Exception {
        XdrWriter w = new XdrWriter(LbCountersRecord.MAX_BYTES);
        srlbBackendV4().encode(w);
        byte[] buf = Arrays.copyOf(w.buffer(), 200);
        int len = w.position();
        LbCountersRecord d = new LbCountersRecord();
        assertThat(d.decode(buf, 0, len)).isTrue();
        assertThatThrownBy(() -> d.decode(buf, 0, len - 2)).isInstanceOf(SflowDecodeException.class)
                .hasMessage("TRUNCATED: vecflow_lb_counters.table_full at offset " + (len - 8));
        byte[] badType = buf.clone();
        badType[32 + 3] = 7; // backend address type
        assertThatThrownBy(() -> d.decode(badType, 0, len))
                .hasMessage("BAD_AGENT_ADDRESS_TYPE: vecflow_lb_counters.backend.type at offset 32 (value 7)");
        byte[] v2 = buf.clone();
        v2[3] = 2;
        assertThat(d.decode(v2, 0, len)).isFalse();
        assertThat(d.version).isEqualTo(2);
        assertThatThrownBy(() -> d.decode(buf, 190, 20))
                .hasMessage("LENGTH_OUT_OF_BOUNDS: vecflow_lb_counters at offset 190 (value 20)");
    }
}
