package io.vecflow.hsflowd;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.hsflowd.UdpReceiver.Counters;
import io.vecflow.hsflowd.UdpReceiver.Sample;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.netlink.psample.PsampleCodec;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.vpp.VppIfCounters;
import io.vecflow.netlink.vpp.VppIfCountersCodec;
import io.vecflow.netlink.vpp.VppStatus;
import io.vecflow.netlink.vpp.VppStatusCodec;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Golden netlink vectors ({@link NlVectors}, built from the layouts of docs/netlink.md §1–§3) in both PSAMPLE
 * conventions and VPP's USERSOCK format, decoded by the bridge's codecs and fed to the agent; what reaches a real UDP
 * socket is decoded with SflowDecoder and checked field by field: samples, counters, drops.
 */
class NetlinkGoldenAgentTest {
    private static final int GENL_TYPE = 0x1C; // a psample family id as the kernel would assign it
    private static final int VPP_PID = (2 << 16) | 4242; // VPP binds (mod_id << 16) | getpid(), PSAMPLE mod 2

    private UdpReceiver rx;
    private SflowAgent agent;
    private final PsampleCodec psCodec = new PsampleCodec();
    private final PsampleSample ps = new PsampleSample();
    private final VppIfCountersCodec ifCodec = new VppIfCountersCodec();
    private final VppStatusCodec stCodec = new VppStatusCodec();

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

    private SflowAgent agent(String blocks) throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("sflow {\n sampling = 1\n headerBytes = 128\n agentIP = 192.0.2.1\n"
                + blocks + "\n collector { ip = 127.0.0.1 udpport = " + rx.port() + " }\n}\n");
        agent = new SflowAgent(c, InetAddress.getByName("192.0.2.1"));
        return agent;
    }

    private void psample(byte[] msg) throws Exception {
        assertThat(psCodec.decode(MemorySegment.ofArray(msg), 0, msg.length, ps)).isTrue();
        agent.onPsample(ps);
    }

    private void ifCounters(byte[] msg) throws Exception {
        VppIfCounters c = new VppIfCounters();
        assertThat(ifCodec.decode(MemorySegment.ofArray(msg), 0, msg.length, c)).isTrue();
        agent.onVppIfCounters(c);
    }

    private void status(byte[] msg) throws Exception {
        VppStatus s = new VppStatus();
        assertThat(stCodec.decode(MemorySegment.ofArray(msg), 0, msg.length, s)).isTrue();
        agent.onVppStatus(s);
    }

    static byte[] frame(int len) {
        byte[] f = SflowAgentTest.frame(len, 3);
        f[12] = 0x08; // ethertype IPv4
        f[13] = 0x00;
        return f;
    }

    @Test
    void kernelConventionU16IfindexEthertypeProtoSequenceFromZero() throws Exception {
        agent("psample { group = 5 egress = on }");
        byte[] f = frame(300);
        // ingress on group 5, sequence 0, 1, 2, then 5: a gap of 2 (sequences 3 and 4 lost)
        long[] seqs = {0, 1, 2, 5};
        for (long seq : seqs) {
            psample(NlVectors.kernelSample(GENL_TYPE, 3, 7, 1500, 5, seq, 256, f, 0x0800));
        }
        // egress on group 6 from a locally originated packet: the kernel omits IIFINDEX (0)
        psample(NlVectors.kernelSample(GENL_TYPE, 0, 7, 60, 6, 0, 256, Arrays.copyOf(f, 60), 0x86DD));
        // another group: ignored
        psample(NlVectors.kernelSample(GENL_TYPE, 3, 0, 60, 9, 0, 256, Arrays.copyOf(f, 60), 0x0800));
        agent.flush();
        assertThat(rx.awaitSamples(5, 3000)).isEqualTo(5);
        List<Sample> got = rx.samples();
        for (int i = 0; i < 4; i++) {
            Sample s = got.get(i);
            assertThat(s.sourceIndex()).isEqualTo(3);
            assertThat(s.input()).isEqualTo(3);
            assertThat(s.output()).isEqualTo(7);
            assertThat(s.seq()).isEqualTo(i + 1);
            assertThat(s.rate()).isEqualTo(256);
            assertThat(s.pool()).isEqualTo(256L * (i + 1));
            assertThat(s.headerProtocol()).as("PROTO 0x0800 is an ethertype, the header is Ethernet").isEqualTo(1);
            assertThat(s.frameLength()).isEqualTo(1504);
            assertThat(s.stripped()).isEqualTo(4);
            assertThat(s.header()).as("DATA 300 bytes cut to headerBytes").containsExactly(Arrays.copyOf(f, 128));
            assertThat(s.drops()).isEqualTo(i < 3 ? 0 : 2);
        }
        Sample eg = got.get(4);
        assertThat(eg.sourceIndex()).as("egress: source is the output port").isEqualTo(7);
        assertThat(eg.input()).as("locally originated: internal").isEqualTo(0x3FFFFFFFL);
        assertThat(eg.output()).isEqualTo(7);
        assertThat(eg.seq()).isEqualTo(1);
        assertThat(eg.frameLength()).isEqualTo(64);
        assertThat(eg.header()).hasSize(60);
        assertThat(agent.samplesIgnored()).isEqualTo(1);
        assertThat(agent.sequenceGapDrops()).isEqualTo(2);
    }

    /**
     * The kernel's PROTO is skb->protocol: for an 802.3 length-field frame (STP's LLC BPDU, 802.2) it is ETH_P_802_2
     * = 4, and ETH_P_802_3 = 1 for raw 802.3 (payload starting FF FF) — net/ethernet/eth.c eth_type_trans; seen in
     * the kernel lab with tcpreplay-test.pcap. The DATA still starts at the MAC header: header_protocol 1, never 4
     * (which would claim FDDI). A user-space producer's PROTO below 0x600 stays an sFlow header_protocol (VPP).
     */
    @Test
    void kernelProtoOf8023FramesIsNotAHeaderProtocol() throws Exception {
        agent("psample { group = 5 }");
        byte[] stp = frame(60);
        stp[12] = 0x00; // 802.3 length 39: LLC 42 42 03 + BPDU
        stp[13] = 0x27;
        stp[14] = 0x42;
        stp[15] = 0x42;
        stp[16] = 0x03;
        psample(NlVectors.kernelSample(GENL_TYPE, 3, 0, 60, 5, 0, 256, stp, 0x0004));
        byte[] raw8023 = frame(60);
        raw8023[12] = 0x00;
        raw8023[13] = 0x2E;
        raw8023[14] = (byte) 0xFF;
        raw8023[15] = (byte) 0xFF;
        psample(NlVectors.kernelSample(GENL_TYPE, 3, 0, 60, 5, 1, 256, raw8023, 0x0001));
        // the same PROTO 4 from a user-space producer (VPP convention; another port, one sampler per port): taken
        // as header_protocol 4
        psample(NlVectors.vppSample(GENL_TYPE, 4242, 4, 0, 60, 5, 1, 256, stp, 4));
        agent.flush();
        assertThat(rx.awaitSamples(3, 3000)).isEqualTo(3);
        List<Sample> got = rx.samples();
        assertThat(got.get(0).headerProtocol()).as("kernel PROTO ETH_P_802_2").isEqualTo(1);
        assertThat(got.get(0).header()).containsExactly(stp);
        assertThat(got.get(1).headerProtocol()).as("kernel PROTO ETH_P_802_3").isEqualTo(1);
        assertThat(got.get(2).headerProtocol()).as("user-space PROTO 4").isEqualTo(4);
    }

    @Test
    void vppConventionGroupsCountersAndDropsOnce() throws Exception {
        agent("psample { group = 1 }\n vpp { osIndex = on }");
        long[] ctr = {
            1_000_000, 2_000_000, // rx / tx octets (7, 8)
            900, 1800,            // rx / tx packets (9, 10)
            10, 20,               // rx / tx broadcasts (11, 12)
            30, 40,               // rx / tx multicasts (13, 14)
            5, 6,                 // rx / tx discards (15, 16)
            7, 8};                // rx / tx errors (17, 18)
        // VPP port sw_if_index 1 = Linux ifindex 5 (linux-cp); port 2 has no pair (OSINDEX absent). hsflowd reports
        // a port's counters as totals since it first saw the port: the first message only latches its values.
        long[] before = ctr.clone();
        for (int i = 0; i < before.length; i++) {
            before[i] = 1000 + i; // what VPP had counted before the agent listened
        }
        ifCounters(NlVectors.vppIfCounters(4242, "GigabitEthernet0/8/0", 1, 5, 6, 10_000_000_000L, before, 1));
        ifCounters(NlVectors.vppIfCounters(4242, "loop0", 2, -1, 24, 1_000_000_000L, ctr, 2));
        status(NlVectors.vppStatus(4242, 10, 40, 3));   // baseline: 40 drops before the agent listened
        byte[] f = frame(200);
        psample(NlVectors.vppSample(GENL_TYPE, VPP_PID, 1, 0, 1000, 3, 1, 100, Arrays.copyOf(f, 128)));
        psample(NlVectors.vppSample(GENL_TYPE, VPP_PID, 1, 0, 1000, 3, 2, 100, Arrays.copyOf(f, 128)));
        // seq 3 lost on send (VPP advanced GROUP_SEQ): a gap of 1; STATUS then reports 40 + 1 + 2 FIFO drops
        psample(NlVectors.vppSample(GENL_TYPE, VPP_PID, 1, 0, 1000, 3, 4, 100, Arrays.copyOf(f, 128)));
        status(NlVectors.vppStatus(4242, 11, 43, 4));
        psample(NlVectors.vppSample(GENL_TYPE, VPP_PID, 1, 0, 1000, 3, 5, 100, Arrays.copyOf(f, 128)));
        status(NlVectors.vppStatus(4242, 12, 43, 5)); // unchanged: nothing more
        psample(NlVectors.vppSample(GENL_TYPE, VPP_PID, 1, 0, 1000, 3, 6, 100, Arrays.copyOf(f, 128)));
        // egress on group 4 from port 2 (no Linux pair) out of port 1: port 1 samples it, so it is exported
        psample(NlVectors.vppSample(GENL_TYPE, VPP_PID, 2, 1, 70, 4, 1, 100, Arrays.copyOf(f, 70)));
        // ingress on port 2: no OSINDEX with the default vpp { } (ifOffset 1e9, osIndex on) = inactive, not exported
        psample(NlVectors.vppSample(GENL_TYPE, VPP_PID, 2, 0, 70, 3, 7, 100, Arrays.copyOf(f, 70)));
        // PR #91: a tc sample (kernel, group 1) on the linux-cp tap of port 1 (ifindex 5) must not double it
        psample(NlVectors.kernelSample(GENL_TYPE, 5, 0, 1000, 1, 0, 100, Arrays.copyOf(f, 128), 0x0800));
        long[] after = ctr.clone();
        for (int i = 0; i < after.length; i++) {
            after[i] = before[i] + ctr[i];
        }
        ifCounters(NlVectors.vppIfCounters(4242, "GigabitEthernet0/8/0", 1, 5, 6, 10_000_000_000L, after, 6));
        agent.flush();
        assertThat(rx.awaitSamples(6, 3000)).isEqualTo(6);
        assertThat(rx.awaitCounters(3, 1000)).isEqualTo(3);

        List<Counters> cs = rx.counterSamples();
        Counters c1 = cs.get(0);
        assertThat(c1.kind()).isEqualTo(4);
        assertThat(c1.seq()).isEqualTo(1);
        assertThat(c1.sourceType()).isZero();
        assertThat(c1.sourceIndex()).as("osIndex=on: the Linux ifindex").isEqualTo(5);
        assertThat(c1.formats()).as("hsflowd's wire order, no 0:2").containsExactly(1005, 1);
        assertThat(c1.portName()).isEqualTo("GigabitEthernet0/8/0");
        assertThat(c1.ifCounters()).as("first seen: totals 0").containsExactly(5, 6, 10_000_000_000L, 1, 3, 0, 0, 0,
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        Counters c2 = cs.get(1);
        assertThat(c2.sourceIndex()).as("no OSINDEX: ifOffset + vpp index").isEqualTo(1_000_000_002L);
        assertThat(c2.portName()).isEqualTo("loop0");
        assertThat(c2.ifCounters()[0]).isEqualTo(1_000_000_002L);
        assertThat(c2.ifCounters()[1]).as("hsflowd: ifType 6 whatever VPP says").isEqualTo(6);
        assertThat(c2.ifCounters()[2]).isEqualTo(1_000_000_000L);
        Counters c3 = cs.get(2);
        assertThat(c3.seq()).isEqualTo(2);
        assertThat(c3.ifCounters()).as("the change since first seen").containsExactly(5, 6, 10_000_000_000L, 1, 3,
                1_000_000, 900 - 10 - 30, 30, 10, 5, 7, 0, 2_000_000, 1800 - 20 - 40, 40, 20, 6, 8, 0);

        List<Sample> got = rx.samples();
        long[] drops = {0, 0, 1, 3, 3};
        for (int i = 0; i < 5; i++) {
            Sample s = got.get(i);
            assertThat(s.sourceIndex()).isEqualTo(5);
            assertThat(s.input()).isEqualTo(5);
            assertThat(s.output()).isZero();
            assertThat(s.seq()).isEqualTo(i + 1);
            assertThat(s.headerProtocol()).isEqualTo(1);
            assertThat(s.frameLength()).isEqualTo(1004);
            assertThat(s.drops()).as("drops of sample %d: gap 1, then STATUS +3 of which 1 was the gap", i)
                    .isEqualTo(drops[i]);
        }
        Sample eg = got.get(5);
        assertThat(eg.sourceIndex()).as("egress: source = output port (Linux 5)").isEqualTo(5);
        assertThat(eg.input()).isEqualTo(1_000_000_002L);
        assertThat(eg.output()).isEqualTo(5);
        assertThat(eg.seq()).as("ingress and egress share the port's sampler").isEqualTo(6);
        assertThat(agent.duplicateSamples()).isEqualTo(1);
        assertThat(agent.vppDropsReported()).isEqualTo(3);
        assertThat(agent.vppDropsCharged()).isEqualTo(2);
        assertThat(agent.sequenceGapDrops()).isEqualTo(1);
        assertThat(agent.counterSamplesSent()).isEqualTo(3);
        assertThat(agent.vppInactiveSamples()).isEqualTo(1);
        // with a packet source configured, counters and flows share the packet agent's datagrams (sub-agent 100000,
        // one datagram sequence), as hsflowd 2.1.25 sends them
        assertThat(rx.datagrams.stream().mapToLong(UdpReceiver.Datagram::numSamples).sum()).isEqualTo(9);
        for (int i = 0; i < rx.datagrams.size(); i++) {
            assertThat(rx.datagrams.get(i).sequence()).isEqualTo(i + 1);
        }
        assertThat(rx.datagrams).extracting(UdpReceiver.Datagram::subAgentId).containsOnly(100000L);
    }

    @Test
    void twoProducersSharingAGroupKeepTheirOwnSequencesAndOnePortOneSampler() throws Exception {
        agent("psample { group = 1 }");
        byte[] f = frame(64);
        // kernel (pid 0) samples port 3 and a second producer (pid 777, u32 convention) samples port 9, both group 1,
        // interleaved, each numbering from its own start: no gap may be invented
        for (int i = 0; i < 4; i++) {
            psample(NlVectors.kernelSample(GENL_TYPE, 3, 0, 64, 1, i, 10, f, 0x0800));
            psample(NlVectors.vppSample(GENL_TYPE, 777, 9, 0, 64, 1, 1000 + i, 10, f));
        }
        // the second producer now also samples port 3, which the kernel owns: refused, not double-counted
        psample(NlVectors.vppSample(GENL_TYPE, 777, 3, 0, 64, 1, 1004, 10, f));
        // the kernel's group restarts (module reload): sequence back to 0, no drop
        psample(NlVectors.kernelSample(GENL_TYPE, 3, 0, 64, 1, 0, 10, f, 0x0800));
        agent.flush();
        assertThat(rx.awaitSamples(9, 3000)).isEqualTo(9);
        assertThat(rx.samples()).extracting(Sample::drops).containsOnly(0L);
        assertThat(rx.samples()).filteredOn(s -> s.sourceIndex() == 3).extracting(Sample::seq)
                .containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(rx.samples()).filteredOn(s -> s.sourceIndex() == 9).extracting(Sample::seq)
                .containsExactly(1L, 2L, 3L, 4L);
        assertThat(agent.duplicateSamples()).isEqualTo(1);
        assertThat(agent.producerRestarts()).isEqualTo(1);
        assertThat(agent.sequenceGapDrops()).isZero();
    }
}
