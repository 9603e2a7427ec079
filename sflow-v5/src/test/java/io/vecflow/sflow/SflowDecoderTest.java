package io.vecflow.sflow;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Decoder tests on real captures; expected values from the test-data MANIFEST (read with an independent decoder). */
class SflowDecoderTest {

    /** Copies what a visitor sees so tests can assert after decode. */
    static final class Collect implements SflowVisitor {
        final List<String> agents = new ArrayList<>();
        final List<long[]> flows = new ArrayList<>();
        final List<Integer> skipped = new ArrayList<>();
        final List<Long> sequences = new ArrayList<>();

        @Override
        public void onDatagram(DatagramHeader h) {
            agents.add(h.agentAddressString() + "/" + h.subAgentId);
            sequences.add(h.sequenceNumber);
        }

        @Override
        public void onFlowSample(DatagramHeader h, FlowSample s) {
            flows.add(new long[] {s.expanded ? 1 : 0, s.sequenceNumber, s.sourceIdType, s.sourceIdIndex,
                s.samplingRate, s.samplePool, s.drops, s.inputFormat, s.input, s.outputFormat, s.output,
                s.sampledHeader.headerProtocol, s.sampledHeader.frameLength, s.sampledHeader.stripped,
                s.sampledHeader.header.length, s.hasSampledHeader ? 1 : 0});
        }

        @Override
        public void onSkippedSample(DatagramHeader h, int dataFormat, int offset, int length) {
            skipped.add(dataFormat);
        }

        final List<Integer> counterKinds = new ArrayList<>();

        @Override
        public void onCounterSample(DatagramHeader h, CounterSample s) {
            counterKinds.add(s.kind);
        }
    }

    private static Collect decodeAll(String capture, DecodeStats stats) throws Exception {
        SflowDecoder d = new SflowDecoder(stats);
        Collect c = new Collect();
        for (byte[] p : Captures.udpPayloads(capture)) {
            d.decode(p, 0, p.length, c);
        }
        return c;
    }

    @Test
    void expandedSampleKeepsFullOutputIfIndex() throws Exception {
        // tcpdump tests/sflow_expanded.pcap: Arista-like 0:3 with output ifIndex > 2^24.
        DecodeStats stats = new DecodeStats();
        Collect c = decodeAll("tcpdump-sflow_expanded.pcap", stats);
        assertThat(c.agents).hasSize(1);
        assertThat(c.agents.getFirst()).startsWith("49.49.49.49/");
        assertThat(c.sequences).containsExactly(115694180L);
        assertThat(c.flows).hasSize(1);
        long[] f = c.flows.getFirst();
        assertThat(f[0]).isEqualTo(1); // expanded
        assertThat(f[4]).isEqualTo(1000); // sampling_rate
        assertThat(f[5]).isEqualTo(1521799520L); // sample_pool
        assertThat(f[7]).isZero();
        assertThat(f[8]).isEqualTo(29001); // input
        assertThat(f[9]).isZero(); // output format single
        assertThat(f[10]).isEqualTo(1285816721L); // output: never masked
        assertThat(f[14]).isEqualTo(122); // header_length (padded to 124 on the wire)
        assertThat(stats.badDatagrams()).isZero();
    }

    @Test
    void compactSampleSplitsSourceAndInterfaces() throws Exception {
        // goflow2 TestSFlowDecode: agent 172.16.0.17 sub 1 seq 426; sample seq 6, source 0:1043, rate 2048,
        // pool 12288, in 1194, out 1043; header_len 78.
        Collect c = decodeAll("goflow2-TestSFlowDecode.pcap", new DecodeStats());
        assertThat(c.agents).containsExactly("172.16.0.17/1");
        assertThat(c.sequences).containsExactly(426L);
        long[] f = c.flows.getFirst();
        assertThat(f[0]).isZero();
        assertThat(f[1]).isEqualTo(6);
        assertThat(f[2]).isZero();
        assertThat(f[3]).isEqualTo(1043);
        assertThat(f[4]).isEqualTo(2048);
        assertThat(f[5]).isEqualTo(12288);
        assertThat(f[8]).isEqualTo(1194);
        assertThat(f[10]).isEqualTo(1043);
        assertThat(f[14]).isEqualTo(78);
    }

    @Test
    void truncatedDatagramIsCountedNotThrown() throws Exception {
        // tcpdump tests/sflow_print-segv.pcap: a UDP payload of only 8 bytes.
        DecodeStats stats = new DecodeStats();
        SflowDecoder d = new SflowDecoder(stats);
        List<byte[]> payloads = Captures.udpPayloads("tcpdump-sflow_print-segv.pcap");
        assertThat(payloads).isNotEmpty();
        SflowDecodeException e = null;
        for (byte[] p : payloads) {
            e = d.decode(p, 0, p.length, new Collect());
        }
        assertThat(e).isNotNull();
        assertThat(e.kind()).isEqualTo(DecodeError.TRUNCATED);
        assertThat(stats.errors(DecodeError.TRUNCATED)).isEqualTo(payloads.size());
    }

    @Test
    void netflowOnSflowPortIsRejectedAndCountersAreSkippedByLength() throws Exception {
        // 25 sFlow v5 datagrams + 5 NetFlow v5 packets; 142 expanded counter samples.
        DecodeStats stats = new DecodeStats();
        Collect c = decodeAll("tcpdump-sflow_multiple_counter_30_pdus.pcap", stats);
        assertThat(stats.errors(DecodeError.NOT_SFLOW_V5)).isEqualTo(5);
        assertThat(stats.datagrams()).isEqualTo(25);
        assertThat(c.counterKinds.stream().filter(f -> f == SflowFormats.COUNTERS_SAMPLE_EXPANDED).count())
                .isEqualTo(142);
        assertThat(c.skipped).isEmpty();
        assertThat(stats.badDatagrams()).isEqualTo(5);
    }

    @Test
    void ipv6AgentAndMultipleOutputs() throws Exception {
        // tcpdump tests/sflow-print-v6.pcap: agent 30::1:1:1, 25 datagrams, 13 flow samples, 48 counter samples,
        // flow samples with compact output 0x80000000 (multiple, count unknown).
        DecodeStats stats = new DecodeStats();
        Collect c = decodeAll("tcpdump-sflow-print-v6.pcap", stats);
        assertThat(c.agents).hasSize(25).allMatch(a -> a.equals("30::1:1:1/0"));
        assertThat(c.flows).hasSize(13);
        assertThat(c.counterKinds).hasSize(48);
        assertThat(stats.counterSamples()).isEqualTo(48);
        assertThat(c.flows).anyMatch(f -> f[9] == SflowFormats.IF_FORMAT_MULTIPLE && f[10] == 0);
        assertThat(c.flows).extracting(f -> f[14]).contains(60L, 128L);
        assertThat(stats.badDatagrams()).isZero();
    }

    @Test
    void internalInterfaceAndTrailingBytesKeepTheFlow() throws Exception {
        // akvorado data-local-interface: output 0x3FFFFFFF followed by 964 trailing bytes.
        DecodeStats stats = new DecodeStats();
        Collect c = decodeAll("akvorado-data-local-interface.pcap", stats);
        assertThat(c.flows).hasSize(1);
        assertThat(c.flows.getFirst()[10]).isEqualTo(SflowFormats.IF_INTERNAL);
        assertThat(stats.badDatagrams()).isZero();

        Collect m = decodeAll("akvorado-data-multiple-interfaces.pcap", stats);
        assertThat(m.flows.getFirst()[9]).isEqualTo(SflowFormats.IF_FORMAT_MULTIPLE);
        assertThat(m.flows.getFirst()[10]).isEqualTo(7);
    }

    @Test
    void extendedSwitchAndUnknownRecordsOnRealCapture() throws Exception {
        // akvorado data-sflow-ipv4-data: sampled_header + sampled_ethernet + extended_switch + sampled_ipv4;
        // rate 256, in 0, out 182, dst VLAN 3001.
        DecodeStats stats = new DecodeStats();
        SflowDecoder d = new SflowDecoder(stats);
        long[] got = new long[4];
        for (byte[] p : Captures.udpPayloads("akvorado-data-sflow-ipv4-data.pcap")) {
            d.decode(p, 0, p.length, new SflowVisitor() {
                @Override
                public void onDatagram(DatagramHeader h) {}

                @Override
                public void onFlowSample(DatagramHeader h, FlowSample s) {
                    got[0] = s.samplingRate;
                    got[1] = s.output;
                    got[2] = s.hasExtendedSwitch ? s.extendedSwitch.dstVlan : -1;
                    got[3] = s.unknownRecords;
                }
            });
        }
        assertThat(got).containsExactly(256, 182, 3001, 0); // sampled_ethernet and sampled_ipv4 are decoded now
        assertThat(stats.unknownRecords()).isZero();
    }

    @Test
    void encoderRoundTripsThroughDecoder() {
        byte[] agent = {10, 0, 0, 1};
        DatagramBuilder b = new DatagramBuilder(1400, agent, 100000);
        byte[] header = new byte[61];
        new Random(7).nextBytes(header);
        MemorySegment seg = MemorySegment.ofArray(header);
        assertThat(b.addFlowSampleExpanded(5, 0, 3, 10, 50, 2, 0, 3, 0, 0, 1, 1518, 4, seg, 0, 61)).isTrue();
        assertThat(b.size()).isEqualTo(28 + DatagramBuilder.flowSampleExpandedBytes(61));
        int len = b.finish(9, 1234);
        Collect c = new Collect();
        DecodeStats stats = new DecodeStats();
        byte[] out = java.util.Arrays.copyOf(b.buffer(), len);
        assertThat(new SflowDecoder(stats).decode(out, 0, len, c)).isNull();
        assertThat(c.agents).containsExactly("10.0.0.1/100000");
        assertThat(c.sequences).containsExactly(9L);
        assertThat(c.flows.getFirst())
                .containsExactly(1, 5, 0, 3, 10, 50, 2, 0, 3, 0, 0, 1, 1518, 4, 61, 1);
    }

    @Test
    void builderRefusesSamplesBeyondBudget() {
        DatagramBuilder b = new DatagramBuilder(200, new byte[] {1, 2, 3, 4}, 1);
        MemorySegment seg = MemorySegment.ofArray(new byte[128]);
        // 28 + 76 + 96 = 200 fits exactly; a second one does not.
        assertThat(b.addFlowSampleExpanded(1, 0, 1, 1, 1, 0, 0, 1, 0, 0, 1, 100, 4, seg, 0, 96)).isTrue();
        assertThat(b.size()).isEqualTo(200);
        assertThat(b.addFlowSampleExpanded(2, 0, 1, 1, 1, 0, 0, 1, 0, 0, 1, 100, 4, seg, 0, 4)).isFalse();
        assertThat(b.sampleCount()).isEqualTo(1);
    }

    @Test
    void everyTruncationAndRandomCorruptionIsContained() throws Exception {
        DecodeStats stats = new DecodeStats();
        SflowDecoder d = new SflowDecoder(stats);
        Random rnd = new Random(42);
        long failures = 0;
        for (String cap : List.of("tcpdump-sflow_expanded.pcap", "akvorado-data-sflow-ipv4-data.pcap",
                "tcpdump-sflow-print-v6.pcap")) {
            for (byte[] p : Captures.udpPayloads(cap)) {
                for (int n = 0; n < p.length; n++) {
                    SflowDecodeException e = d.decode(p, 0, n, new Collect());
                    if (e != null) {
                        failures++;
                        assertThat(e.offset()).isBetween(0, n);
                        assertThat(e.getMessage()).contains(e.field());
                    }
                }
                for (int i = 0; i < 200; i++) {
                    byte[] q = p.clone();
                    q[rnd.nextInt(q.length)] = (byte) rnd.nextInt();
                    d.decode(q, 0, q.length, new Collect());
                }
            }
        }
        assertThat(failures).isPositive();
        assertThat(stats.badDatagrams()).isGreaterThanOrEqualTo(failures);
    }
}
