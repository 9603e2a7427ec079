package io.vecflow.sflow;

import static io.vecflow.sflow.FlowSampleEncoderTest.words;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The "vecflow LB decision" enterprise record: exact XDR words, round trip through {@link DatagramBuilder} and
 * {@link SflowDecoder} (kept as an unknown record, decoded from the kept body), bounded decoding with named fields and
 * offsets.
 */
class LbDecisionRecordTest {
    private static final byte[] AGENT4 = {10, 0, 0, 1};

    static LbDecisionRecord srlbSecondV4() {
        LbDecisionRecord d = new LbDecisionRecord();
        d.kind = LbDecisionRecord.SRLB_ACCEPT_SECOND;
        d.protocol = 6;
        d.vipPort = 80;
        d.vip.set(new byte[] {10, 0, 0, 100});
        d.backend.set(new byte[] {10, 0, 1, 2});
        d.candidates[0].set(new byte[] {10, 0, 1, 1});
        d.candidates[1].set(new byte[] {10, 0, 1, 2});
        d.candidateCount = 2;
        d.choiceIndex = 2;
        d.policyMetric = 3000;
        return d;
    }

    @Test
    void exactWordsAndSizes() {
        LbDecisionRecord d = srlbSecondV4();
        XdrWriter w = new XdrWriter(LbDecisionRecord.MAX_BYTES);
        d.encode(w);
        assertThat(w.position()).isEqualTo(d.encodedBytes()).isEqualTo(16 + 8 + 8 + 4 + 16 + 20);
        assertThat(Arrays.copyOf(w.buffer(), w.position())).isEqualTo(words(
                1, 5, 6, 80,                     // version, kind srlb_accept_second, TCP, port 80
                1, 0x0A000064, 1, 0x0A000102,    // vip 10.0.0.100, backend 10.0.1.2
                2, 1, 0x0A000101, 1, 0x0A000102, // 2 candidates
                2, 3000, 0, 0, 0));              // choice, metric ×1000, flowlet, weight, path
        assertThat(LbDecisionRecord.dataFormat(LbDecisionRecord.DEFAULT_ENTERPRISE)).isEqualTo(32473 << 12 | 1);
        assertThatThrownBy(() -> LbDecisionRecord.dataFormat(0)).hasMessageContaining("outside 1..1048575");
        assertThatThrownBy(() -> LbDecisionRecord.dataFormat(1 << 20)).hasMessageContaining("outside 1..1048575");
        LbDecisionRecord v6 = new LbDecisionRecord();
        v6.vip.set(new byte[16]);
        v6.vip.bytes[0] = 0x20;
        v6.backend.copyFrom(v6.vip);
        v6.candidates[0].copyFrom(v6.vip);
        v6.candidates[1].copyFrom(v6.vip);
        v6.candidateCount = 2;
        assertThat(v6.encodedBytes()).isEqualTo(LbDecisionRecord.MAX_BYTES).isEqualTo(120);
    }

    @Test
    void roundTripsThroughADatagramAsAVendorRecord() throws Exception {
        int enterprise = 4_242;
        int format = LbDecisionRecord.dataFormat(enterprise);
        LbDecisionRecord in = srlbSecondV4();
        in.kind = LbDecisionRecord.CLOVE_FLOWLET;
        in.flowletId = 0xFFFF_FFF0L;
        in.pathWeight = 670_000;
        in.pathId = 49_153;
        XdrWriter body = new XdrWriter(LbDecisionRecord.MAX_BYTES);
        in.encode(body);
        DatagramBuilder b = new DatagramBuilder(1400, AGENT4, 100000);
        byte[] header = new byte[64];
        assertThat(b.addFlowSampleExpanded(1, 0, 3, 1, 1, 0, 0, 3, 0, 4, 1, 68, 4, header, 0, 64, format,
                body.buffer(), body.position())).isTrue();
        assertThat(b.size()).isEqualTo(28 + DatagramBuilder.flowSampleExpandedBytes(64, 8 + body.position()));
        int len = b.finish(1, 1);
        FlowSample[] got = new FlowSample[1];
        LbDecisionRecord out = new LbDecisionRecord();
        SflowDecodeException e = new SflowDecoder(new DecodeStats()).decode(b.buffer(), 0, len, new SflowVisitor() {
            @Override
            public void onDatagram(DatagramHeader header) {}

            @Override
            public void onFlowSample(DatagramHeader header, FlowSample s) {
                got[0] = s;
                assertThat(s.recordCount).isEqualTo(2);
                assertThat(s.hasSampledHeader).isTrue();
                assertThat(s.unknownKept()).isEqualTo(1);
                assertThat(s.unknownFormats[0]).isEqualTo(format);
                ByteView v = s.unknownBodies[0];
                try {
                    assertThat(out.decode(v.array, v.offset, v.length)).isTrue();
                } catch (SflowDecodeException x) {
                    throw new AssertionError(x.getMessage());
                }
            }
        });
        assertThat(e).isNull();
        assertThat(got[0]).isNotNull();
        assertThat(out.kind).isEqualTo(LbDecisionRecord.CLOVE_FLOWLET);
        assertThat(out.decision()).isEqualTo("new");
        assertThat(out.algorithm()).isEqualTo("clove");
        assertThat(out.vip.toString()).isEqualTo("10.0.0.100");
        assertThat(out.backend.toString()).isEqualTo("10.0.1.2");
        assertThat(out.candidateCount).isEqualTo(2);
        assertThat(out.candidates[0].toString()).isEqualTo("10.0.1.1");
        assertThat(out.choiceIndex).isEqualTo(2);
        assertThat(out.policyMetric).isEqualTo(3000);
        assertThat(out.flowletId).isEqualTo(0xFFFF_FFF0L);
        assertThat(out.pathWeight).isEqualTo(670_000);
        assertThat(out.pathId).isEqualTo(49_153);
        assertThat(out.protocol).isEqualTo(6);
        assertThat(out.vipPort).isEqualTo(80);
    }

    @Test
    void decodingIsBoundedByTheDeclaredLength() throws Exception {
        XdrWriter w = new XdrWriter(LbDecisionRecord.MAX_BYTES);
        srlbSecondV4().encode(w);
        byte[] buf = Arrays.copyOf(w.buffer(), 200); // bytes after the record must never be read
        int len = w.position();
        LbDecisionRecord d = new LbDecisionRecord();
        assertThat(d.decode(buf, 0, len)).isTrue();
        // cut inside path_id: TRUNCATED at its offset
        assertThatThrownBy(() -> d.decode(buf, 0, len - 2)).isInstanceOf(SflowDecodeException.class)
                .hasMessage("TRUNCATED: vecflow_lb_decision.path_id at offset " + (len - 4));
        // 3 candidates declared
        byte[] three = buf.clone();
        three[32 + 3] = 3;
        assertThatThrownBy(() -> d.decode(three, 0, len))
                .hasMessage("COUNT_OUT_OF_BOUNDS: vecflow_lb_decision.candidates at offset 32 (value 3)");
        // backend address type 7
        byte[] badType = buf.clone();
        badType[24 + 3] = 7;
        assertThatThrownBy(() -> d.decode(badType, 0, len))
                .hasMessage("BAD_AGENT_ADDRESS_TYPE: vecflow_lb_decision.backend.type at offset 24 (value 7)");
        // a later version is not decoded (kept raw by the caller)
        byte[] v2 = buf.clone();
        v2[3] = 2;
        assertThat(d.decode(v2, 0, len)).isFalse();
        assertThat(d.version).isEqualTo(2);
        assertThatThrownBy(() -> d.decode(buf, 190, 20))
                .hasMessage("LENGTH_OUT_OF_BOUNDS: vecflow_lb_decision at offset 190 (value 20)");
    }
}
