package io.vecflow.hsflowd.counters;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.hsflowd.SflowAgent;
import io.vecflow.hsflowd.config.HsflowdConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The polling schedule on this host's real interfaces (root namespace, read only): with polling = 5, second s polls
 * the host when s ≡ 0 and interface k when s ≡ k (mod 5); every source once per interval; a stalled caller catches
 * up; polling = 0 means no poller.
 */
class CounterPollerScheduleTest {
    private static final long S = 1_000_000_000L;

    @Test
    void pollsAreStaggeredByIfIndexAndEverySourceGoesOncePerInterval() throws Exception {
        try (DatagramChannel sink = DatagramChannel.open()) {
            sink.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = ((InetSocketAddress) sink.getLocalAddress()).getPort();
            HsflowdConfig c = HsflowdConfig.parse("sflow { polling = 5 collector { ip = 127.0.0.1 udpport = " + port
                    + " } psample { group = 1 } }");
            try (SflowAgent agent = new SflowAgent(c, InetAddress.getByName("192.0.2.1"));
                    CounterPoller p = new CounterPoller(agent, 5, RtnlLinkDumper.open(), new HostCounters(),
                            Path.of("/sys/class/net"), 0)) {
                p.tick(0);
                LinkTable links = p.links();
                assertThat(links.count).as("interfaces in this namespace").isGreaterThanOrEqualTo(1);
                long[] perSlot = new long[5];
                for (int i = 0; i < links.count; i++) {
                    if (links.links[i].hasStats && (links.links[i].flags & InterfaceCounters.IFF_LOOPBACK) == 0) {
                        perSlot[Integer.remainderUnsigned(links.links[i].ifIndex, 5)]++;
                    }
                }
                long expectedInterfaces = perSlot[0];
                assertThat(p.hostSamples()).isEqualTo(1);
                assertThat(p.interfaceSamples()).isEqualTo(expectedInterfaces);
                for (int s = 1; s < 10; s++) {
                    p.tick(s * S + S / 2);
                    p.tick(s * S + S / 2 + 1); // same second: nothing more
                    expectedInterfaces += perSlot[s % 5];
                    assertThat(p.interfaceSamples()).as("interface samples after second %d", s)
                            .isEqualTo(expectedInterfaces);
                    assertThat(p.hostSamples()).as("host samples after second %d", s).isEqualTo(s < 5 ? 1 : 2);
                }
                long all = perSlot[0] + perSlot[1] + perSlot[2] + perSlot[3] + perSlot[4];
                assertThat(p.interfaceSamples()).isEqualTo(2 * all); // two intervals: each interface twice
                p.tick(20 * S); // a 10 s stall: everything is due at once
                assertThat(p.interfaceSamples()).isEqualTo(3 * all);
                assertThat(p.hostSamples()).isEqualTo(3);
                assertThat(p.refused()).isZero();
                assertThat(p.loopbacksSkipped()).as("lo is never reported, as hsflowd").isGreaterThanOrEqualTo(1);
                assertThat(p.dumpErrors()).isZero();
                assertThat(agent.counterSamplesSent()).isEqualTo(3 * all + 3);
            }
            HsflowdConfig off = HsflowdConfig.parse("sflow { polling = 0 collector { ip = 127.0.0.1 } }");
            assertThat(CounterPoller.open(off, null)).isNull();
        }
    }
}
