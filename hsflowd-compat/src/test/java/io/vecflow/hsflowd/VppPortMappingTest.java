package io.vecflow.hsflowd;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.hsflowd.UdpReceiver.Counters;
import io.vecflow.hsflowd.UdpReceiver.Sample;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.netlink.psample.PsampleCodec;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.vpp.VppIfCounters;
import io.vecflow.netlink.vpp.VppIfCountersCodec;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * VPP ports numbered and let through as hsflowd's mod_vpp does (host-sflow src/Linux/mod_vpp.c: portSetOsIndex,
 * evt_psample, evt_flow_sample, evt_cntr_sample) in its three modes: the default {@code vpp { }} (OSINDEX when sent,
 * else ifOffset + index; only ports with OSINDEX sampled), {@code ifOffset = 0}, and {@code osIndex = off} (every
 * export in VPP's own numbers). Byte-level through the agent's real datagrams (decoded by UdpReceiver).
 */
class VppPortMappingTest {
    private static final int GENL_TYPE = 0x1C;
    private static final int VPP_PID = (2 << 16) | 4242;

    private UdpReceiver rx;
    private SflowAgent agent;
    private final PsampleCodec psCodec = new PsampleCodec();
    private final PsampleSample ps = new PsampleSample();
    private final VppIfCountersCodec ifCodec = new VppIfCountersCodec();
    private long seq;

    @BeforeEach
    void setUp() throws Exception {
        rx = new UdpReceiver();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (agent != null) {
            agent.close();
        }
        rx.close();
    }

    private void agent(String vpp) throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("sflow {\n sampling = 1\n agentIP = 192.0.2.1\n psample { group = 1 }\n "
                + vpp + "\n collector { ip = 127.0.0.1 udpport = " + rx.port() + " }\n}\n");
        agent = new SflowAgent(c, InetAddress.getByName("192.0.2.1"));
    }

    /** Port 1 with OSINDEX 5 (a linux-cp pair), port 2 without, as VPP sends them. */
    private void twoPorts() throws Exception {
        long[] ctr = new long[12];
        ifCounters(NlVectors.vppIfCounters(4242, "GigabitEthernet0/8/0", 1, 5, 6, 10_000_000_000L, ctr, 1));
        ifCounters(NlVectors.vppIfCounters(4242, "GigabitEthernet0/9/0", 2, -1, 6, 10_000_000_000L, ctr, 2));
    }

    private void ifCounters(byte[] msg) throws Exception {
        VppIfCounters c = new VppIfCounters();
        assertThat(ifCodec.decode(MemorySegment.ofArray(msg), 0, msg.length, c)).isTrue();
        agent.onVppIfCounters(c);
    }

    /** One VPP sample: ingress (group 3) or egress (group 4), in/out as VPP's hw_if_index. */
    private void sample(int group, long in, long out) throws Exception {
        byte[] f = NetlinkGoldenAgentTest.frame(128);
        byte[] msg = NlVectors.vppSample(GENL_TYPE, VPP_PID, in, out, 1000, group, ++seq, 1, Arrays.copyOf(f, 64));
        assertThat(psCodec.decode(MemorySegment.ofArray(msg), 0, msg.length, ps)).isTrue();
        agent.onPsample(ps);
    }

    private List<Sample> flows(int n) throws Exception {
        agent.flush();
        assertThat(rx.awaitSamples(n, 3000)).isEqualTo(n);
        Thread.sleep(100); // nothing more may come
        return rx.samples();
    }

    private static io.vecflow.sflow.FlowSample discard(long inPort) {
        io.vecflow.sflow.FlowSample s = new io.vecflow.sflow.FlowSample();
        s.kind = io.vecflow.sflow.SflowFormats.DISCARDED_PACKET;
        s.expanded = true;
        s.sequenceNumber = 1;
        s.sourceIdType = io.vecflow.sflow.SflowFormats.SOURCE_IFINDEX;
        s.sourceIdIndex = inPort;
        s.input = inPort;
        s.reason = 0;
        return s;
    }

    @Test
    void defaultVppBlockSamplesOnlyPortsWithOsIndexAndNumbersTheOthersIfOffsetPlusIndex() throws Exception {
        agent("vpp { }");
        twoPorts();
        sample(3, 1, 2);   // ingress on port 1 (OSINDEX 5), out port 2
        sample(3, 2, 1);   // ingress on port 2: no OSINDEX → inactive, not exported
        sample(4, 2, 1);   // egress sampled on port 1: exported, in = port 2's made-up number
        sample(3, 7, 1);   // port 7 never seen in IF_COUNTERS: inactive
        sample(3, 1, 7);   // out port 7 unknown: 0
        List<Sample> got = flows(3);
        assertThat(got).extracting(Sample::sourceIndex, Sample::input, Sample::output).containsExactly(
                org.assertj.core.groups.Tuple.tuple(5L, 5L, 1_000_000_002L),
                org.assertj.core.groups.Tuple.tuple(5L, 1_000_000_002L, 5L),
                org.assertj.core.groups.Tuple.tuple(5L, 5L, 0L));
        assertThat(agent.vppInactiveSamples()).isEqualTo(2);
        List<Counters> cs = rx.counterSamples();
        assertThat(cs).extracting(Counters::sourceIndex).containsExactly(5L, 1_000_000_002L);
        assertThat(cs).extracting(c -> c.ifCounters()[0]).containsExactly(5L, 1_000_000_002L);
    }

    @Test
    void ifOffsetZeroSamplesEveryKnownPortUnderItsVppIndex() throws Exception {
        agent("vpp { ifOffset = 0 }");
        twoPorts();
        sample(3, 2, 1);
        sample(3, 1, 2);
        sample(3, 9, 1); // unknown port: still inactive (not seen in IF_COUNTERS)
        List<Sample> got = flows(2);
        assertThat(got).extracting(Sample::sourceIndex, Sample::input, Sample::output).containsExactly(
                org.assertj.core.groups.Tuple.tuple(2L, 2L, 5L),
                org.assertj.core.groups.Tuple.tuple(5L, 5L, 2L));
        assertThat(agent.vppInactiveSamples()).isEqualTo(1);
    }

    @Test
    void osIndexOffExportsVppsOwnNumbersInSamplesAndCountersAndNoLinuxInterfaces() throws Exception {
        agent("vpp { osIndex = off }");
        twoPorts();
        sample(3, 1, 2);
        sample(3, 2, 1);
        sample(4, 2, 1);
        sample(3, 1, 7); // unknown out port: 0
        // a kernel (tc) sample of a Linux interface: not a VPP port, suppressed in this mode
        agent.onSample(1, 0, 5, 0, 100, 1, new byte[64], 0, 64);
        // discards: mod_dropmon reports IN_PORT as hsflowd numbers the port inside (ifOffset + index)
        io.vecflow.sflow.FlowSample d = discard(1_000_000_002L);
        assertThat(agent.addDiscardSample(d)).isTrue();
        assertThat(d.sourceIdIndex).isEqualTo(2);
        assertThat(d.input).isEqualTo(2);
        io.vecflow.sflow.FlowSample linux = discard(5);
        assertThat(agent.addDiscardSample(linux)).isTrue();
        assertThat(linux.sourceIdIndex).as("not a VPP port: no alias").isEqualTo(5);
        assertThat(linux.input).as("not a VPP port: unknown").isZero();
        List<Sample> got = flows(4);
        assertThat(got).extracting(Sample::sourceIndex, Sample::input, Sample::output).containsExactly(
                org.assertj.core.groups.Tuple.tuple(1L, 1L, 2L),
                org.assertj.core.groups.Tuple.tuple(2L, 2L, 1L),
                org.assertj.core.groups.Tuple.tuple(1L, 2L, 1L),
                org.assertj.core.groups.Tuple.tuple(1L, 1L, 0L));
        assertThat(agent.vppInactiveSamples()).as("the kernel sample").isEqualTo(1);
        List<Counters> cs = rx.counterSamples();
        assertThat(cs).extracting(Counters::sourceIndex).as("data source 0:N").containsExactly(1L, 2L);
        assertThat(cs).extracting(c -> c.ifCounters()[0]).as("ifIndex N").containsExactly(1L, 2L);
        // the Linux interfaces of this host are not reported in this mode (mod_vpp evt_cntr_sample suppresses
        // every interface counter sample that is not a VPP port's); the host sample still goes
        io.vecflow.hsflowd.counters.CounterPoller p = io.vecflow.hsflowd.counters.CounterPoller.open(agent.config(),
                agent);
        try {
            p.pollAll();
            assertThat(p.interfaceSamples()).isZero();
            assertThat(p.hostSamples()).isEqualTo(1);
        } finally {
            p.close();
        }
    }

    @Test
    void anIfCountersMessageWithoutPortNameIsIgnoredAsHsflowdDoes() throws Exception {
        agent("vpp { }");
        agent.onVppIfCounters(new VppIfCounters().ifIndex(3).osIndex(8).counter(
                io.vecflow.netlink.vpp.VppUsersock.ATTR_RX_PKTS, 1));
        assertThat(agent.vppCountersIgnored()).isEqualTo(1);
        assertThat(agent.counterSamplesSent()).isZero();
        sample(3, 3, 0);
        assertThat(agent.vppInactiveSamples()).as("the port stays unknown").isEqualTo(1);
    }
}
