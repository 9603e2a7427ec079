package io.vecflow.hsflowd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.hsflowd.UdpReceiver.Sample;
import io.vecflow.hsflowd.config.ConfigException;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.netlink.GenlController;
import io.vecflow.netlink.GenlFamilyNotFoundException;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.psample.PsampleSubscriber;
import io.vecflow.netlink.psample.PsampleTransport;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The PSAMPLE module loop over real netlink: a NETLINK_USERSOCK unicast emitter (VPP attribute convention) sends to
 * the daemon's subscriber, the agent sends to a real UDP socket on 127.0.0.1. Unicast keeps the test private.
 */
class HsflowdDaemonTest {
    private static final int N = 50;
    private static final int RATE = 1000;

    private static HsflowdConfig config(int port) throws ConfigException {
        return HsflowdConfig.parse("sflow {\n  agentIP = 192.0.2.1\n  collector { ip = 127.0.0.1 udpport = " + port
                + " }\n  psample { group = 1 transport = usersock }\n}\n");
    }

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
    void forwardsPsampleSamplesAsFlowSamples() throws Exception {
        try (UdpReceiver rx = new UdpReceiver()) {
            SflowAgent agent = new SflowAgent(config(rx.port()), InetAddress.getByName("192.0.2.1"));
            PsampleSubscriber sub = PsampleSubscriber.openUnicast();
            byte[] frame = SflowAgentTest.frame(300, 42);
            long first = System.nanoTime();
            HsflowdDaemon daemon = new HsflowdDaemon(agent, sub);
            try (PsampleEmitter em = PsampleEmitter.openUnicast(sub.portId(), Psample.Convention.VPP)) {
                PsampleSample s = new PsampleSample();
                for (int i = 0; i < N; i++) {
                    long seq = i < 20 ? i + 1 : i + 4; // 1..20, then 24..53: a gap of 3
                    s.clear().sampleGroup(1).groupSeq(seq).iifIndex(1_000_000_000L + i % 3).oifIndex(0)
                            .origSize(1000 + i).sampleRate(RATE).data(frame, i, 128 + i % 2 * 50);
                    assertThat(em.emit(s)).as("emit %d", i).isTrue();
                }
                assertThat(em.sent()).isEqualTo(N);
            }
            await(() -> agent.samplesIn() == N, 5000, "the agent to take " + N + " samples");
            // 6 samples of 128 header bytes fit 1400 bytes: 8 full datagrams went out, 2 samples are pending
            assertThat(rx.awaitSamples(48, 5000)).isEqualTo(48);
            boolean beforeTick = (System.nanoTime() - first) < 900_000_000L;
            if (beforeTick) {
                assertThat(rx.awaitSamples(N, 50)).as("last datagram still pending").isEqualTo(48);
            }
            daemon.close();
            assertThat(daemon.failure()).isNull();
            assertThat(rx.awaitSamples(N, 5000)).isEqualTo(N);
            assertThat(rx.awaitDatagrams(rx.datagrams.size() + 1, 100)).isEqualTo(9);

            List<Sample> got = rx.samples();
            for (int i = 0; i < N; i++) {
                Sample x = got.get(i);
                long ifIndex = 1_000_000_000L + i % 3;
                assertThat(x.expanded()).isTrue();
                assertThat(x.sourceType()).isZero();
                assertThat(x.sourceIndex()).isEqualTo(ifIndex);
                assertThat(x.input()).isEqualTo(ifIndex);
                assertThat(x.output()).isZero();
                assertThat(x.seq()).isEqualTo(i / 3 + 1);
                assertThat(x.rate()).isEqualTo(RATE);
                assertThat(x.pool()).isEqualTo((i / 3 + 1L) * RATE);
                assertThat(x.frameLength()).isEqualTo(1004 + i);
                assertThat(x.stripped()).isEqualTo(4);
                assertThat(x.headerProtocol()).isEqualTo(1);
                assertThat(x.header()).containsExactly(Arrays.copyOfRange(frame, i, i + 128));
                // sample 20 (seq 24) revealed the gap; it is charged to its sampler (20 % 3 = 2)
                long drops = i >= 20 && i % 3 == 2 ? 3 : 0;
                assertThat(x.drops()).as("drops of sample %d", i).isEqualTo(drops);
            }
            assertThat(rx.datagrams).extracting(UdpReceiver.Datagram::sequence)
                    .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
            assertThat(agent.sequenceGapDrops()).isEqualTo(3);
            assertThat(agent.samplesSent()).isEqualTo(N);
            assertThat(sub.samples()).isEqualTo(N);
            assertThat(sub.decodeErrors()).isZero();
        }
    }

    @Test
    void closeForwardsSamplesStillQueuedInTheSocket() throws Exception {
        try (UdpReceiver rx = new UdpReceiver()) {
            SflowAgent agent = new SflowAgent(config(rx.port()), InetAddress.getByName("192.0.2.1"));
            PsampleSubscriber sub = PsampleSubscriber.openUnicast();
            HsflowdDaemon daemon = new HsflowdDaemon(agent, sub);
            int n = 200;
            try (PsampleEmitter em = PsampleEmitter.openUnicast(sub.portId(), Psample.Convention.VPP)) {
                PsampleSample s = new PsampleSample();
                byte[] frame = SflowAgentTest.frame(64, 1);
                for (int i = 0; i < n; i++) {
                    s.clear().sampleGroup(1).groupSeq(i + 1).iifIndex(7).oifIndex(0).origSize(64).sampleRate(RATE)
                            .data(frame, 0, 64);
                    assertThat(em.emit(s)).isTrue();
                }
            }
            daemon.close(); // at once: whatever the loop has not read yet is still in the socket
            assertThat(agent.samplesIn()).isEqualTo(n);
            assertThat(rx.awaitSamples(n, 5000)).isEqualTo(n);
            assertThat(rx.samples()).extracting(Sample::seq).containsExactlyElementsOf(
                    java.util.stream.LongStream.rangeClosed(1, n).boxed().toList());
        }
    }

    @Test
    void openSubscriberFollowsTheConfig() throws Exception {
        HsflowdConfig genl = HsflowdConfig.parse("sflow { collector { ip = 127.0.0.1 } psample { } }");
        // genl opens where this kernel has psample and fails with the hsflowd.conf fix where it has not
        if (GenlController.isRegistered("psample")) {
            try (PsampleSubscriber s = HsflowdDaemon.openSubscriber(genl)) {
                assertThat(s.transport()).isEqualTo(PsampleTransport.GENL);
            }
        } else {
            assertThatThrownBy(() -> HsflowdDaemon.openSubscriber(genl).close())
                    .isInstanceOf(NetlinkException.class)
                    .hasCauseInstanceOf(GenlFamilyNotFoundException.class)
                    .hasMessageContaining("modprobe psample").hasMessageContaining("transport = usersock");
        }

        HsflowdConfig none = HsflowdConfig.parse("sflow { collector { ip = 127.0.0.1 } }");
        assertThat(HsflowdDaemon.openSubscriber(none)).as("counters-only: no packet source").isNull();

        // usersock: joins the configured group (root); nothing is sent, so no cross-talk
        HsflowdConfig us = HsflowdConfig.parse("sflow { collector { ip = 127.0.0.1 } "
                + "psample { transport = usersock usersockGroup = 31 } }");
        try (PsampleSubscriber s = HsflowdDaemon.openSubscriber(us)) {
            assertThat(s.transport()).isEqualTo(PsampleTransport.USERSOCK);
            assertThat(s.groupId()).isEqualTo(31);
        }
    }
}
