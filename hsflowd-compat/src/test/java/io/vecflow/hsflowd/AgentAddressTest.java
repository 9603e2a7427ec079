package io.vecflow.hsflowd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.common.Libc;
import io.vecflow.hsflowd.config.ConfigException;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.hsflowd.net.AgentAddressSelector;
import io.vecflow.hsflowd.net.LocalAddress;
import io.vecflow.hsflowd.net.RtnetlinkAddresses;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Agent address selection: hsflowd's priority rules on hand-made address lists, then live in a network namespace
 * the test creates (a veth pair, real rtnetlink dumps): the chosen address disappears → the next one is chosen
 * and the datagram sequence and uptime restart.
 */
class AgentAddressTest {
    private static LocalAddress la(int ifIndex, String dev, String addr) throws Exception {
        return new LocalAddress(ifIndex, dev, InetAddress.getByName(addr), 24, false, false, true);
    }

    private static String pick(String agentIP, List<String> cidrs, String dev, List<LocalAddress> l) {
        AgentAddressSelector.Choice c = AgentAddressSelector.select(agentIP, cidrs, dev, l);
        return c == null ? null : c.address().getHostAddress() + "@" + c.device() + ":" + c.reason();
    }

    @Test
    void priorityFollowsHsflowd() throws Exception {
        List<LocalAddress> l = List.of(
                new LocalAddress(1, "lo", InetAddress.getByName("127.0.0.1"), 8, true, false, true),
                new LocalAddress(1, "lo", InetAddress.getByName("::1"), 128, true, false, true),
                la(2, "eth0", "fe80::1"),
                la(2, "eth0", "2001:db8::5"),
                la(3, "eth1", "10.1.2.3"),
                la(4, "eth2", "169.254.3.4"),
                new LocalAddress(5, "eth0.100", InetAddress.getByName("198.51.100.7"), 24, false, true, true),
                la(6, "eth3", "203.0.113.9"),
                la(7, "eth4", "203.0.113.1"));
        // global IPv4 wins; between two, the lower ifIndex
        assertThat(pick(null, List.of(), null, l)).isEqualTo("203.0.113.9@eth3:priority");
        // agentIP: taken as configured, device found when local
        assertThat(pick("10.1.2.3", List.of(), null, l)).isEqualTo("10.1.2.3@eth1:agentIP");
        assertThat(pick("192.0.2.200", List.of(), null, l)).isEqualTo("192.0.2.200@null:agentIP");
        // agent.cidr boosts a matching address above the class order; earlier entries boost more; ! excludes
        assertThat(pick(null, List.of("10.0.0.0/8"), null, l)).isEqualTo("10.1.2.3@eth1:agent.cidr");
        assertThat(pick(null, List.of("2001:db8::/32", "10.0.0.0/8"), null, l))
                .isEqualTo("2001:db8:0:0:0:0:0:5@eth0:agent.cidr");
        assertThat(pick(null, List.of("!203.0.113.0/28"), null, l)).isEqualTo("10.1.2.3@eth1:priority");
        // agent=DEV: that device's best address wins
        assertThat(pick(null, List.of(), "eth0", l)).isEqualTo("2001:db8:0:0:0:0:0:5@eth0:agent device");
        // IPv4 RFC 1918 beats global IPv6 (IPv4 preferred); IPv6 global beats a VLAN's IPv4 and link-local
        assertThat(pick(null, List.of(), null, l.subList(0, 5))).isEqualTo("10.1.2.3@eth1:priority");
        assertThat(pick(null, List.of(), null, List.of(l.get(2), l.get(3), l.get(6))))
                .isEqualTo("2001:db8:0:0:0:0:0:5@eth0:priority");
        // loopback only: still an answer (hsflowd falls back to it); nothing usable: null
        assertThat(pick(null, List.of(), null, l.subList(0, 2))).isEqualTo("127.0.0.1@lo:priority");
        assertThat(pick(null, List.of(), null, List.of(new LocalAddress(2, "eth0",
                InetAddress.getByName("2001:db8::9"), 64, false, false, false)))).isNull();
        assertThatThrownBy(() ->
                HsflowdConfig.parse("sflow {\n agent.cidr = 10.0.0.0/40\n collector { ip = 127.0.0.1 }\n}"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("line 2")
                        .hasMessageContaining("prefix length must be 0..32, found '40'");
        HsflowdConfig c = HsflowdConfig.parse("sflow {\n agent.cidr = 10.0.0.0/8\n agent.cidr = !10.9.0.0/16\n"
                + " collector { ip = 127.0.0.1 }\n}");
        assertThat(c.agentCidrs).extracting(HsflowdConfig.AgentCidr::text).containsExactly("10.0.0.0/8",
                "!10.9.0.0/16");
        assertThat(HsflowdConfig.parse(c.describe()).agentCidrs).extracting(HsflowdConfig.AgentCidr::text)
                .containsExactly("10.0.0.0/8", "!10.9.0.0/16");
    }

    // ---- live, in a namespace ----


    private static void sh(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", cmd) + " failed: " + out);
        }
    }

    /** Opens an rtnetlink reader inside namespace {@code ns}: a fresh thread joins it, opens the socket, ends. */
    private static RtnetlinkAddresses openIn(String ns) throws Exception {
        CompletableFuture<RtnetlinkAddresses> f = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment st = Libc.newCallState(a);
                int fd = Libc.open(st, a.allocateFrom("/var/run/netns/" + ns), Libc.O_RDONLY);
                if (fd < 0) {
                    throw new IllegalStateException("open /var/run/netns/" + ns + " failed");
                }
                int r = Libc.setns(st, fd, Libc.CLONE_NEWNET);
                Libc.close(st, fd);
                if (r != 0) {
                    throw new IllegalStateException("setns failed");
                }
                f.complete(RtnetlinkAddresses.open()); // the socket stays in the namespace
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void addressDisappearsInANamespaceAndTheAgentMovesOnWithANewSequence() throws Exception {
        String ns = "vfagent" + ProcessHandle.current().pid();
        sh("ip", "netns", "add", ns);
        try (UdpReceiver rx = new UdpReceiver()) {
            // a veth pair inside the namespace (this kernel has no dummy driver)
            sh("ip", "-n", ns, "link", "add", "d0", "type", "veth", "peer", "name", "d1");
            sh("ip", "-n", ns, "link", "set", "lo", "up");
            sh("ip", "-n", ns, "link", "set", "d0", "up");
            sh("ip", "-n", ns, "link", "set", "d1", "up");
            sh("ip", "-n", ns, "addr", "add", "10.9.0.1/24", "dev", "d0");
            sh("ip", "-n", ns, "addr", "add", "198.51.100.7/24", "dev", "d1");
            sh("ip", "-n", ns, "-6", "addr", "add", "2001:db8::7/64", "dev", "d0", "nodad");
            try (RtnetlinkAddresses addrs = openIn(ns)) {
                List<LocalAddress> seen = addrs.read();
                assertThat(seen).extracting(x -> x.device() + " " + x.address().getHostAddress())
                        .contains("lo 127.0.0.1", "d0 10.9.0.1", "d1 198.51.100.7", "d0 2001:db8:0:0:0:0:0:7");
                assertThat(seen).filteredOn(x -> x.device().equals("lo")).allMatch(LocalAddress::loopback);

                HsflowdConfig c = HsflowdConfig.parse("sflow { sampling = 1 collector { ip = 127.0.0.1 udpport = "
                        + rx.port() + " } psample { } }");
                try (SflowAgent agent = new SflowAgent(c, InetAddress.getByName("0.0.0.0"))) {
                    AgentAddressWatcher w = new AgentAddressWatcher(agent, c, addrs::read, 1000);
                    assertThat(w.check().address().getHostAddress()).isEqualTo("198.51.100.7");
                    byte[] f = SflowAgentTest.frame(64, 1);
                    agent.onSample(1, 1, 2, 0, 64, 1, f, 0, 64);
                    agent.flush();
                    agent.onSample(1, 2, 2, 0, 64, 1, f, 0, 64);
                    agent.flush();
                    Thread.sleep(300);
                    // the chosen address disappears: re-chosen at the next check (hsflowd drops stale addresses)
                    sh("ip", "-n", ns, "addr", "del", "198.51.100.7/24", "dev", "d1");
                    agent.onSample(1, 3, 2, 0, 64, 1, f, 0, 64); // pending: leaves with the old address
                    assertThat(w.check().address().getHostAddress()).isEqualTo("10.9.0.1");
                    agent.onSample(1, 4, 2, 0, 64, 1, f, 0, 64);
                    agent.flush();
                    // then the IPv4 one goes too: the global IPv6 address is next
                    sh("ip", "-n", ns, "addr", "del", "10.9.0.1/24", "dev", "d0");
                    assertThat(w.check().address().getHostAddress()).isEqualTo("2001:db8:0:0:0:0:0:7");
                    agent.onSample(1, 5, 2, 0, 64, 1, f, 0, 64);
                    agent.flush();
                    assertThat(w.check()).as("unchanged").isNotNull();
                    assertThat(w.changes()).isEqualTo(3); // 0.0.0.0 → .7 → 10.9.0.1 → IPv6
                    assertThat(agent.agentAddressChanges()).isEqualTo(3);

                    assertThat(rx.awaitDatagrams(5, 3000)).isEqualTo(5);
                    List<String> seenDg = new ArrayList<>();
                    for (UdpReceiver.Datagram d : rx.datagrams) {
                        seenDg.add(InetAddress.getByAddress(d.agentAddress()).getHostAddress() + " #" + d.sequence());
                    }
                    assertThat(seenDg).containsExactly("198.51.100.7 #1", "198.51.100.7 #2", "198.51.100.7 #3",
                            "10.9.0.1 #1", "2001:db8:0:0:0:0:0:7 #1");
                    // uptime restarted with the new address
                    assertThat(rx.datagrams.get(3).uptimeMs()).isLessThan(rx.datagrams.get(2).uptimeMs());
                    // sample sequence numbers continue per data source
                    assertThat(rx.samples()).extracting(UdpReceiver.Sample::seq)
                            .containsExactly(1L, 2L, 3L, 4L, 5L);
                }
            }
        } finally {
            sh("ip", "netns", "del", ns);
        }
    }
}
