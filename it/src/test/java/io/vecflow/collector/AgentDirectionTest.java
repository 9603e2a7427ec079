package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.inlet.DatagramProcessor;
import io.vecflow.collector.schema.DirectionTest;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.hsflowd.SflowAgent;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The flow sample's direction (issue 17) as vecflow's own agent (hsflowd-compat) sends it for ingress and egress
 * PSAMPLE groups, decoded by the collector. The rule itself, the column's DEFAULT and the migration are the
 * collector's {@link DirectionTest}; this one needs hsflowd-compat, which the collector does not depend on.
 */
class AgentDirectionTest {
    /**
     * vecflow's agent takes ingress samples from {@code psample { group }} with the input port as data source and
     * egress samples from group + 1 with the output port (hsflowd mod_psample); with a {@code vpp {}} block VPP's
     * groups 3 (ingress) and 4 (egress) the same way. Decoded by the collector, they are ingress and egress rows.
     */
    @Test
    void theAgentsIngressAndEgressSamplesArriveAsIngressAndEgress() throws Exception {
        List<FlowRow> psample = throughAgentAndCollector("psample { group = 1 ingress = on egress = on }", 1, 2,
                a -> { });
        assertThat(psample).extracting(r -> r.sourceIdIndex + ":" + r.inIf + ">" + r.outIf + " "
                + FlowSchema.DIRECTIONS.get(r.direction)).containsExactly("21:21>22 ingress", "22:21>22 egress");
        // VPP's ports, announced by IF_COUNTERS with their Linux ifindex (OSINDEX) as hsflowd's mod_vpp needs to
        // sample them; VPP indexes 1 and 2 map to ifIndex 21 and 22
        List<FlowRow> vpp = throughAgentAndCollector("vpp { }", SflowAgent.VPP_GROUP_INGRESS,
                SflowAgent.VPP_GROUP_EGRESS, a -> {
                    a.onVppIfCounters(new io.vecflow.netlink.vpp.VppIfCounters().portName("eth1").ifIndex(1)
                            .osIndex(21));
                    a.onVppIfCounters(new io.vecflow.netlink.vpp.VppIfCounters().portName("eth2").ifIndex(2)
                            .osIndex(22));
                }, 1, 2);
        assertThat(vpp).extracting(r -> r.sourceIdIndex + ":" + r.inIf + ">" + r.outIf + " "
                + FlowSchema.DIRECTIONS.get(r.direction)).containsExactly("21:21>22 ingress", "22:21>22 egress");
    }

    /** One packet 21 → 22 sampled on the ingress group and on the egress group, through the agent and a decoder. */
    private static List<FlowRow> throughAgentAndCollector(String block, int ingressGroup, int egressGroup,
            java.util.function.Consumer<SflowAgent> setup) throws Exception {
        return throughAgentAndCollector(block, ingressGroup, egressGroup, setup, 21, 22);
    }

    /** As above, the packet's input and output given as the sampler sees them (VPP indexes in VPP's groups). */
    private static List<FlowRow> throughAgentAndCollector(String block, int ingressGroup, int egressGroup,
            java.util.function.Consumer<SflowAgent> setup, int in, int out) throws Exception {
        try (DatagramSocket rx = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            rx.setSoTimeout(5000);
            HsflowdConfig c = HsflowdConfig.parse("sflow {\n agentIP = 192.0.2.10\n sampling = 1\n " + block
                    + "\n collector { ip = 127.0.0.1 udpport = " + rx.getLocalPort() + " }\n}\n");
            byte[] frame = new byte[64];
            frame[12] = 0x08; // Ethernet, ethertype IPv4 (the payload is not parsed further here)
            try (SflowAgent a = new SflowAgent(c, InetAddress.getByName("192.0.2.10"))) {
                setup.accept(a);
                a.onSample(ingressGroup, 1, in, out, 64, 1, frame, 0, 64);
                a.onSample(egressGroup, 1, in, out, 64, 1, frame, 0, 64);
                a.flush();
                assertThat(a.samplesSent()).isEqualTo(2);
            }
            CollectorStats stats = new CollectorStats();
            TestSupport.CopyingSink sink = new TestSupport.CopyingSink();
            DatagramProcessor p = new DatagramProcessor(stats.decode, stats, List.of(), List.of(sink));
            byte[] buf = new byte[65_536];
            while (sink.size() < 2) { // bounded: each receive waits at most 5 s, and every datagram adds a row
                DatagramPacket d = new DatagramPacket(buf, buf.length);
                rx.receive(d);
                p.process(buf, 0, d.getLength(), System.currentTimeMillis() * 1_000_000L,
                        TestSupport.addr16("127.0.0.1"), 6343);
            }
            return sink.rows();
        }
    }
}
