package io.vecflow.hsflowd.counters;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.hsflowd.SflowAgent;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.netlink.vpp.VppIfCounters;
import io.vecflow.netlink.vpp.VppUsersock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A port that VPP (or vecflow's dataplane) reports with OSINDEX = a Linux ifindex of this host is one port: the
 * counters module stops its own RTM_GETLINK counter samples for that ifindex once the vpp module's IF_COUNTERS report
 * it (hsflowd's mod_vpp clears the adaptor's procNetDev), and resumes if the port moves elsewhere.
 */
class VppPortCountersTest {
    @Test
    void aLinuxInterfaceThatAVppPortReportsIsCountedOnceByTheVppModule() throws Exception {
        try (DatagramChannel sink = DatagramChannel.open()) {
            sink.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = ((InetSocketAddress) sink.getLocalAddress()).getPort();
            HsflowdConfig c = HsflowdConfig.parse("sflow { polling = 5 collector { ip = 127.0.0.1 udpport = " + port
                    + " } psample { group = 1 } vpp { } }");
            try (SflowAgent agent = new SflowAgent(c, InetAddress.getByName("192.0.2.1"));
                    CounterPoller p = new CounterPoller(agent, 5, RtnlLinkDumper.open(), new HostCounters(),
                            Path.of("/sys/class/net"), 0)) {
                p.pollAll();
                long all = p.interfaceSamples();
                assertThat(all).as("non-loopback interfaces with stats in this namespace").isGreaterThanOrEqualTo(1);
                LinkTable links = p.links();
                int linux = -1;
                for (int i = 0; i < links.count && linux < 0; i++) {
                    if (links.links[i].hasStats && (links.links[i].flags & InterfaceCounters.IFF_LOOPBACK) == 0) {
                        linux = links.links[i].ifIndex;
                    }
                }
                assertThat(agent.vppCountsInterface(linux)).isFalse();
                VppIfCounters vpp = new VppIfCounters().portName("host-eth0").ifIndex(7).osIndex(linux)
                        .counter(VppUsersock.ATTR_RX_PKTS, 10);
                agent.onVppIfCounters(vpp);
                assertThat(agent.vppCountsInterface(linux)).isTrue();
                p.pollAll();
                assertThat(p.interfaceSamples() - all).as("the poller's samples, the VPP port's interface left out")
                        .isEqualTo(all - 1);
                assertThat(p.vppCounted()).isEqualTo(1);
                // The port's OSINDEX goes away (linux-cp pair removed): the Linux interface is the poller's again.
                agent.onVppIfCounters(new VppIfCounters().portName("host-eth0").ifIndex(7)
                        .counter(VppUsersock.ATTR_RX_PKTS, 11));
                assertThat(agent.vppCountsInterface(linux)).isFalse();
                assertThat(agent.vppCountsInterface(1_000_000_007L)).isTrue();
                p.pollAll();
                assertThat(p.interfaceSamples()).isEqualTo(3 * all - 1);
                assertThat(p.vppCounted()).isEqualTo(1);
            }
        }
    }
}
