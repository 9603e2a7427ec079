package io.vecflow.sflow;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The facts testdata/MANIFEST.md lists for the discard and gateway captures, read with the decoder (goflow2
 * decoders/sflow/sflow_test.go vectors; tcpdump tests/sflow_expanded.pcap).
 */
class ManifestFactsTest {
    /** Decodes every datagram of a capture, handing each discard / flow sample to the consumer before reuse. */
    private static List<String> run(String capture, java.util.function.BiConsumer<DatagramHeader, FlowSample> each)
            throws Exception {
        List<String> kinds = new ArrayList<>();
        SflowDecoder d = new SflowDecoder(new DecodeStats());
        for (byte[] p : Captures.udpPayloads(capture)) {
            assertThat(d.decode(p, 0, p.length, new SflowVisitor() {
                @Override
                public void onDatagram(DatagramHeader h) {}

                @Override
                public void onFlowSample(DatagramHeader h, FlowSample s) {
                    kinds.add("flow");
                    each.accept(h, s);
                }

                @Override
                public void onDiscardSample(DatagramHeader h, FlowSample s) {
                    kinds.add("discard");
                    each.accept(h, s);
                }
            })).isNull();
        }
        return kinds;
    }

    @Test
    void discardWithEgressQueue() throws Exception {
        // agent 192.168.119.184 sub 100000 seq 2 (the sample's; the datagram's is 3); source 0:1; drops 256, in 1,
        // out 2, reason 1; queue 42.
        List<String> kinds = run("goflow2-TestSFlowDecodeDropEgressQueue.pcap", (h, s) -> {
            assertThat(h.agentAddressString()).isEqualTo("192.168.119.184");
            assertThat(h.subAgentId).isEqualTo(100000);
            assertThat(h.sequenceNumber).isEqualTo(3);
            assertThat(s.sequenceNumber).isEqualTo(2);
            assertThat(s.isDiscard()).isTrue();
            assertThat(s.sourceIdType).isZero();
            assertThat(s.sourceIdIndex).isEqualTo(1);
            assertThat(s.drops).isEqualTo(256);
            assertThat(s.input).isEqualTo(1);
            assertThat(s.output).isEqualTo(2);
            assertThat(s.reason).isEqualTo(1);
            assertThat(DiscardReasons.name(s.reason)).isEqualTo("host_unreachable");
            assertThat(s.hasEgressQueue).isTrue();
            assertThat(s.egressQueue).isEqualTo(42);
            assertThat(s.recordFormats[s.recordsListed - 1]).isEqualTo(SflowFormats.EXTENDED_EGRESS_QUEUE);
        });
        assertThat(kinds).containsExactly("discard");
    }

    @Test
    void discardWithExtendedAcl() throws Exception {
        // ACL number 42, name "foo!", direction 2.
        List<String> kinds = run("goflow2-TestSFlowDecodeDropExtendedACL.pcap", (h, s) -> {
            assertThat(s.isDiscard()).isTrue();
            assertThat(s.hasExtendedAcl).isTrue();
            assertThat(s.extendedAcl.number).isEqualTo(42);
            assertThat(s.extendedAcl.name.asString()).isEqualTo("foo!");
            assertThat(s.extendedAcl.direction).isEqualTo(2);
        });
        assertThat(kinds).containsExactly("discard");
    }

    @Test
    void gatewayAsPathAndNextHop() throws Exception {
        // next hop 54.54.54.54, src_as 203476, AS path [8218, 29605, 203361]; VLAN 809 in the sampled header.
        List<String> kinds = run("tcpdump-sflow_expanded.pcap", (h, s) -> {
            assertThat(s.hasExtendedGateway).isTrue();
            FlowRecords.ExtendedGateway g = s.extendedGateway;
            assertThat(g.nextHop.toString()).isEqualTo("54.54.54.54");
            assertThat(g.srcAs).isEqualTo(203476);
            assertThat(g.segments).isEqualTo(1);
            assertThat(g.segmentType[0]).isEqualTo(2); // AS_SEQUENCE
            assertThat(java.util.Arrays.copyOf(g.asPath, g.asPathLength)).containsExactly(8218, 29605, 203361);
            assertThat(g.lastAs()).isEqualTo(203361);
            assertThat(g.communityCount).isEqualTo(4);
            assertThat(g.localPref).isEqualTo(100);
            assertThat(s.hasExtendedRouter).isTrue();
            assertThat(s.extendedRouter.nextHop.toString()).isEqualTo("54.54.54.54");
            assertThat(s.sampledHeader.header.length).isEqualTo(122);
        });
        assertThat(kinds).containsExactly("flow");
    }
}
