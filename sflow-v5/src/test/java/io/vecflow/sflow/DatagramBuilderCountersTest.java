package io.vecflow.sflow;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Counter samples through DatagramBuilder: the real hsflowd datagrams rebuilt sample by sample, byte for byte. */
class DatagramBuilderCountersTest {
    @Test
    void realCounterDatagramsRebuildByteForByte() throws Exception {
        int rebuilt = 0;
        for (byte[] d : Captures.udpPayloads("tcpdump-sflow-print-v6.pcap")) {
            List<byte[]> samples = new ArrayList<>();
            DatagramHeader[] hdr = new DatagramHeader[1];
            DatagramBuilder[] b = new DatagramBuilder[1];
            SflowDecodeException e = new SflowDecoder(new DecodeStats()).decode(d, 0, d.length, new SflowVisitor() {
                @Override
                public void onDatagram(DatagramHeader h) {
                    hdr[0] = h;
                    b[0] = new DatagramBuilder(8192, Arrays.copyOf(h.agentAddress, h.agentAddressLength()),
                            h.subAgentId);
                }

                @Override
                public void onFlowSample(DatagramHeader h, FlowSample s) {
                    assertThat(b[0].addFlowSample(s)).isTrue();
                }

                @Override
                public void onCounterSample(DatagramHeader h, CounterSample s) {
                    assertThat(b[0].addCounterSample(s)).isTrue();
                    samples.add(new byte[0]);
                }
            });
            assertThat(e).isNull();
            if (samples.isEmpty()) {
                continue;
            }
            int len = b[0].finish(hdr[0].sequenceNumber, hdr[0].uptimeMs);
            // The flow samples of this capture carry no odd padding, so the whole datagram must match.
            assertThat(Arrays.copyOf(b[0].buffer(), len)).isEqualTo(d);
            rebuilt++;
        }
        assertThat(rebuilt).isPositive();
    }

    @Test
    void aCounterSampleThatDoesNotFitLeavesTheDatagramUnchanged() throws Exception {
        byte[] d = Captures.udpPayloads("tcpdump-sflow_multiple_counter_30_pdus.pcap").get(0);
        CounterSample[] kept = new CounterSample[1];
        byte[][] bytes = new byte[1][];
        new SflowDecoder(new DecodeStats()).decode(d, 0, d.length, new SflowVisitor() {
            @Override
            public void onDatagram(DatagramHeader h) {}

            @Override
            public void onFlowSample(DatagramHeader h, FlowSample s) {}

            @Override
            public void onCounterSample(DatagramHeader h, CounterSample s) {
                if (kept[0] == null) {
                    DatagramBuilder b = new DatagramBuilder(200, new byte[] {1, 2, 3, 4}, 1);
                    int before = b.size();
                    boolean fits = b.addCounterSample(s);
                    if (!fits) {
                        assertThat(b.size()).isEqualTo(before);
                        assertThat(b.sampleCount()).isZero();
                    }
                    DatagramBuilder big = new DatagramBuilder(8192, new byte[] {1, 2, 3, 4}, 1);
                    assertThat(big.addCounterSample(s)).isTrue();
                    bytes[0] = Arrays.copyOfRange(big.buffer(), 28, big.size());
                    kept[0] = s;
                }
            }
        });
        assertThat(bytes[0]).isNotNull();
        assertThat(bytes[0].length).isGreaterThan(8);
    }
}
