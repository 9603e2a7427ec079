package io.vecflow.hsflowd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.vecflow.hsflowd.UdpReceiver.Counters;
import io.vecflow.hsflowd.UdpReceiver.Sample;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.netlink.GenlController;
import io.vecflow.netlink.GenlFamilyNotFoundException;
import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkSocket;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleSubscriber;
import io.vecflow.netlink.vpp.VppUsersockSubscriber;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The daemon live over NETLINK_USERSOCK (root): a second socket multicasts hand-built PSAMPLE messages (VPP
 * convention, vecflow's usersock type) and VPP USERSOCK IF_COUNTERS / STATUS (types 2 and 1) to the groups the
 * config names; the agent's UDP datagrams are decoded with SflowDecoder. Private groups 24/25 keep other tests and a
 * live hsflowd (29) out of the way.
 */
class UsersockLiveTest {
    private static final int PS_GROUP = 24;
    private static final int VPP_GROUP = 25;

    private static void await(BooleanSupplier cond, long ms, String what) throws InterruptedException {
        long deadline = System.nanoTime() + ms * 1_000_000L;
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + ms + " ms waiting for " + what);
            }
            Thread.sleep(2);
        }
    }

    @Test
    void psampleAndVppCountersFromASecondSocketBecomeSamplesCountersAndDropsOnce() throws Exception {
        try (UdpReceiver rx = new UdpReceiver(); Arena arena = Arena.ofConfined();
             NetlinkSocket tx = NetlinkSocket.open(Netlink.NETLINK_USERSOCK)) {
            tx.bind(0, 0);
            HsflowdConfig c = HsflowdConfig.parse("sflow {\n agentIP = 192.0.2.9\n sampling = 1\n headerBytes = 64\n"
                    + " collector { ip = 127.0.0.1 udpport = " + rx.port() + " }\n"
                    + " psample { transport = usersock usersockGroup = " + PS_GROUP + " }\n"
                    + " vpp { osIndex = on usersockGroup = " + VPP_GROUP + " }\n}\n");
            SflowAgent agent = new SflowAgent(c, InetAddress.getByName("192.0.2.9"));
            PsampleSubscriber sub = HsflowdDaemon.openSubscriber(c);
            VppUsersockSubscriber vsub = HsflowdDaemon.openVppSubscriber(c);
            assertThat(vsub.groupId()).isEqualTo(VPP_GROUP);
            HsflowdDaemon d = new HsflowdDaemon(agent, sub, vsub, null);
            int pid = tx.portId();
            long[] ctr = {5000, 6000, 50, 60, 1, 2, 3, 4, 0, 0, 0, 0};
            send(arena, tx, VPP_GROUP, NlVectors.vppIfCounters(pid, "TenGigabitEthernet3/0/0", 1, 12, 6,
                    10_000_000_000L, ctr, 1));
            send(arena, tx, VPP_GROUP, NlVectors.vppStatus(pid, 5, 100, 2)); // baseline
            await(() -> agent.counterSamplesSent() == 1 && agent.vppStatusMessages() == 1, 3000,
                    "IF_COUNTERS and STATUS to reach the agent");
            byte[] f = NetlinkGoldenAgentTest.frame(128);
            long[] seqs = {1, 2, 3, 5, 6}; // 4 lost: a gap of 1
            for (long s : seqs) {
                send(arena, tx, PS_GROUP, NlVectors.vppSample(Psample.USERSOCK_MSG_TYPE, pid, 1, 0, 800, 3, s, 50, f));
            }
            await(() -> agent.samplesIn() == 5, 3000, "5 PSAMPLE messages");
            send(arena, tx, VPP_GROUP, NlVectors.vppStatus(pid, 6, 104, 3)); // +4, 1 of which was the gap
            await(() -> agent.vppStatusMessages() == 2, 3000, "the second STATUS");
            send(arena, tx, PS_GROUP, NlVectors.vppSample(Psample.USERSOCK_MSG_TYPE, pid, 1, 0, 800, 3, 7, 50, f));
            send(arena, tx, VPP_GROUP, NlVectors.vppStatus(pid, 7, 104, 4)); // no change
            await(() -> agent.vppStatusMessages() == 3 && agent.samplesIn() == 6, 3000, "the rest");
            send(arena, tx, PS_GROUP, NlVectors.vppSample(Psample.USERSOCK_MSG_TYPE, pid, 1, 0, 800, 3, 8, 50, f));
            await(() -> agent.samplesIn() == 7, 3000, "the last sample");
            // the 1 s tick sends the pending datagram without a flush
            assertThat(rx.awaitSamples(7, 3000)).isEqualTo(7);
            d.close();
            assertThat(d.failure()).isNull();

            List<Counters> cs = rx.counterSamples();
            assertThat(cs).hasSize(1);
            assertThat(cs.getFirst().sourceIndex()).isEqualTo(12);
            assertThat(cs.getFirst().portName()).isEqualTo("TenGigabitEthernet3/0/0");
            assertThat(cs.getFirst().formats()).containsExactly(1005, 1);
            assertThat(cs.getFirst().ifCounters()[0]).isEqualTo(12);
            assertThat(cs.getFirst().ifCounters()[5]).as("first seen: totals since then, 0").isZero();
            assertThat(cs.getFirst().ifCounters()[6]).isZero();
            List<Sample> got = rx.samples();
            assertThat(got).extracting(Sample::sourceIndex).containsOnly(12L);
            assertThat(got).extracting(Sample::input).containsOnly(12L);
            assertThat(got).extracting(Sample::seq).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
            assertThat(got).extracting(Sample::drops).containsExactly(0L, 0L, 0L, 1L, 1L, 4L, 4L);
            assertThat(got).extracting(Sample::frameLength).containsOnly(804L);
            assertThat(got.getFirst().header()).containsExactly(Arrays.copyOf(f, 64));
            assertThat(rx.datagrams).extracting(UdpReceiver.Datagram::agentAddress)
                    .allSatisfy(a -> assertThat(a).containsExactly(192, 0, 2, 9));
            assertThat(sub.decodeErrors()).isZero();
            assertThat(vsub.decodeErrors()).isZero();
        }
    }

    /**
     * A port's IF_COUNTERS sent just before its first sample (as the dataplane announces its ports) are seen before
     * that sample, although they arrive on another socket: one thread reads both channels, and reads VPP's first when
     * a sample's port is not known yet. Otherwise hsflowd's rule (no sample from a port not named by IF_COUNTERS)
     * would drop the first samples at random.
     */
    @Test
    void aPortAnnouncedJustBeforeItsFirstSampleIsNeverDropped() throws Exception {
        try (UdpReceiver rx = new UdpReceiver(); Arena arena = Arena.ofConfined();
             NetlinkSocket tx = NetlinkSocket.open(Netlink.NETLINK_USERSOCK)) {
            tx.bind(0, 0);
            HsflowdConfig c = HsflowdConfig.parse("sflow {\n agentIP = 192.0.2.9\n sampling = 1\n headerBytes = 64\n"
                    + " collector { ip = 127.0.0.1 udpport = " + rx.port() + " }\n"
                    + " psample { transport = usersock usersockGroup = " + PS_GROUP + " }\n"
                    + " vpp { usersockGroup = " + VPP_GROUP + " }\n}\n");
            SflowAgent agent = new SflowAgent(c, InetAddress.getByName("192.0.2.9"));
            HsflowdDaemon d = new HsflowdDaemon(agent, HsflowdDaemon.openSubscriber(c),
                    HsflowdDaemon.openVppSubscriber(c), null);
            int pid = tx.portId();
            byte[] f = NetlinkGoldenAgentTest.frame(128);
            int ports = 50;
            for (int k = 1; k <= ports; k++) {
                send(arena, tx, VPP_GROUP, NlVectors.vppIfCounters(pid, "port" + k, k, 100 + k, 6, 1_000_000_000L,
                        new long[12], k));
                send(arena, tx, PS_GROUP, NlVectors.vppSample(Psample.USERSOCK_MSG_TYPE, pid, k, 0, 800, 3, k, 1,
                        f));
            }
            await(() -> agent.samplesIn() == ports, 5000, "the samples");
            d.close();
            assertThat(d.failure()).isNull();
            assertThat(agent.vppInactiveSamples()).as("samples of a port not known yet").isZero();
            assertThat(agent.samplesSent()).isEqualTo(ports);
            assertThat(rx.awaitSamples(ports, 3000)).isEqualTo(ports);
            assertThat(rx.samples()).extracting(Sample::sourceIndex).containsExactlyElementsOf(
                    java.util.stream.LongStream.rangeClosed(101, 100 + ports).boxed().toList());
        }
    }

    private static void send(Arena arena, NetlinkSocket tx, int group, byte[] msg) throws NetlinkException {
        MemorySegment seg = arena.allocate(msg.length, 8);
        MemorySegment.copy(msg, 0, seg, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, msg.length);
        int r = tx.trySend(seg, msg.length, 0, Netlink.groupMask(group), 0);
        // a multicast send returns ECONNREFUSED although the group got it (spec: test machines)
        assertThat(r >= 0 || r == -111).as("sendto returned %d", r).isTrue();
    }

    @Test
    void aMissingPsampleFamilyIsOneClearErrorAndUsersockWorks() throws Exception {
        // the kernel's answer for a family it lacks (a name no kernel has, so this passes with or without psample)
        GenlFamilyNotFoundException missing;
        try (NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_GENERIC)) {
            missing = catchThrowableOfType(GenlFamilyNotFoundException.class,
                    () -> GenlController.resolve(s, "vfNoSuchFamily"));
        }
        assertThat(HsflowdDaemon.missingPsample(missing))
                .isInstanceOf(NetlinkException.class)
                .hasCause(missing)
                .satisfies(e -> {
                    String m = e.getMessage();
                    assertThat(m).contains("generic netlink family \"psample\" is not available");
                    assertThat(m.split("modprobe psample", -1)).as("said once").hasSize(2);
                    assertThat(m).contains("psample { transport = usersock }");
                    assertThat(m.lines().count()).as("one line").isEqualTo(1);
                });

        try (UdpReceiver rx = new UdpReceiver(); Arena arena = Arena.ofConfined();
             NetlinkSocket tx = NetlinkSocket.open(Netlink.NETLINK_USERSOCK)) {
            tx.bind(0, 0);
            HsflowdConfig us = HsflowdConfig.parse("sflow { agentIP = 192.0.2.9 sampling = 1 "
                    + "collector { ip = 127.0.0.1 udpport = " + rx.port() + " } "
                    + "psample { group = 1 transport = usersock usersockGroup = " + PS_GROUP + " } }");
            SflowAgent agent = new SflowAgent(us, InetAddress.getByName("192.0.2.9"));
            byte[] f = NetlinkGoldenAgentTest.frame(90);
            try (HsflowdDaemon d = new HsflowdDaemon(agent, HsflowdDaemon.openSubscriber(us))) {
                send(arena, tx, PS_GROUP, NlVectors.kernelSample(Psample.USERSOCK_MSG_TYPE, 4, 0, 90, 1, 0, 10, f,
                        0x0800));
                assertThat(rx.awaitSamples(1, 3000)).isEqualTo(1);
                assertThat(d.failure()).isNull();
            }
            Sample s = rx.samples().getFirst();
            assertThat(s.sourceIndex()).isEqualTo(4);
            assertThat(s.frameLength()).isEqualTo(94);
            assertThat(s.header()).containsExactly(f);
        }
    }
}
