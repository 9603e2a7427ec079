package io.vecflow.hsflowd.counters;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.hsflowd.HsflowdConfig;
import io.vecflow.hsflowd.SflowAgent;
import io.vecflow.sflow.CounterRecords;
import io.vecflow.sflow.CounterSample;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.DecodeStats;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.SflowDecoder;
import io.vecflow.sflow.SflowVisitor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Interface counters from a live RTM_GETLINK dump, in a network namespace this test creates and removes: a veth pair
 * va (10.99.0.1/24) – vb (no address) with IPv6 off and a permanent neighbour entry, so the only frames on the wire are
 * the UDP datagrams the test sends from inside the namespace (to 10.99.0.2, which nothing owns: vb drops them without
 * replying). Needs root (ip netns, setns); fails if anything is missing.
 */
class LiveCountersTest {
    static final int N = 37;
    static final int PAYLOAD = 100;
    static final int FRAME = 14 + 20 + 8 + PAYLOAD; // Ethernet + IPv4 + UDP + payload, no FCS
    static final long MAC_A = 0x02000000000aL;
    static final long MAC_B = 0x02000000000bL;

    static Netns ns;
    static RtnlLinkDumper dumper;

    @BeforeAll
    static void lab() throws Exception {
        ns = Netns.create("vfctr" + ProcessHandle.current().pid());
        ns.exec("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1");
        ns.ip("link", "add", "va", "address", "02:00:00:00:00:0a", "type", "veth", "peer", "name", "vb", "address",
                "02:00:00:00:00:0b");
        ns.ip("addr", "add", "10.99.0.1/24", "dev", "va");
        ns.ip("link", "set", "va", "up");
        ns.ip("link", "set", "vb", "up");
        ns.ip("neigh", "add", "10.99.0.2", "lladdr", "02:00:00:00:00:0b", "dev", "va", "nud", "permanent");
        dumper = ns.call(RtnlLinkDumper::open); // the socket lives in the namespace of the thread that opened it
    }

    @AfterAll
    static void teardown() throws Exception {
        if (dumper != null) {
            dumper.close();
        }
        if (ns != null) {
            ns.close();
        }
    }

    static int ifIndex(String name) throws Exception {
        String line = Netns.sh(List.of("ip", "-n", ns.name, "-o", "link", "show", name));
        return Integer.parseInt(line.substring(0, line.indexOf(':')).strip());
    }

    /** Dumps until va and vb are operationally up (link watch can take a moment after `up`), 5 s at most. */
    static LinkTable dumpUp() throws Exception {
        LinkTable t = new LinkTable();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            dumper.dump(t);
            LinkTable.Link a = byName(t, "va"), b = byName(t, "vb");
            if (a != null && b != null && a.operState == 6 && b.operState == 6) {
                return t;
            }
            assertThat(System.nanoTime()).as("va/vb operationally up within 5 s").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    static LinkTable.Link byName(LinkTable t, String name) {
        byte[] n = name.getBytes();
        return t.byName(n, 0, n.length);
    }

    static void sendTraffic() throws Exception {
        ns.call(() -> {
            try (DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET)) {
                InetSocketAddress to = new InetSocketAddress("10.99.0.2", 9);
                for (int i = 0; i < N; i++) {
                    assertThat(ch.send(ByteBuffer.wrap(new byte[PAYLOAD]), to)).isEqualTo(PAYLOAD);
                }
            }
            return null;
        });
    }

    @Test
    void rtmGetlinkSeesTheVethPairAndCountsExactlyTheTrafficSent() throws Exception {
        LinkTable t = dumpUp();
        LinkTable.Link a = byName(t, "va"), b = byName(t, "vb"), lo = byName(t, "lo");
        assertThat(t.count).isEqualTo(3); // lo, va, vb: the namespace's interfaces only
        assertThat(lo).isNotNull();
        assertThat(lo.arpType).isEqualTo(772);
        assertThat(a.ifIndex).isEqualTo(ifIndex("va"));
        assertThat(b.ifIndex).isEqualTo(ifIndex("vb"));
        assertThat(a.arpType).isEqualTo(1);
        assertThat(a.hasMac).isTrue();
        assertThat(a.mac).isEqualTo(MAC_A);
        assertThat(b.mac).isEqualTo(MAC_B);
        assertThat(a.flags & InterfaceCounters.IFF_UP).isNotZero();
        assertThat(a.hasStats).isTrue();
        long txPackets = a.stats[LinkTable.TX_PACKETS], txBytes = a.stats[LinkTable.TX_BYTES];
        long rxPackets = b.stats[LinkTable.RX_PACKETS], rxBytes = b.stats[LinkTable.RX_BYTES];

        sendTraffic();
        dumper.dump(t);
        a = byName(t, "va");
        b = byName(t, "vb");
        assertThat(a.stats[LinkTable.TX_PACKETS] - txPackets).isEqualTo(N);
        assertThat(a.stats[LinkTable.TX_BYTES] - txBytes).isEqualTo((long) N * FRAME);
        assertThat(b.stats[LinkTable.RX_PACKETS] - rxPackets).isEqualTo(N);
        assertThat(b.stats[LinkTable.RX_BYTES] - rxBytes).isEqualTo((long) N * FRAME);
        assertThat(a.stats[LinkTable.RX_PACKETS]).isEqualTo(b.stats[LinkTable.TX_PACKETS]); // nothing came back
        assertThat(a.stats[LinkTable.TX_PACKETS]).isEqualTo(b.stats[LinkTable.RX_PACKETS]);

        CounterSample s = new CounterSample();
        InterfaceCounters.fill(b, 10_000_000_000L, 1, 7, s);
        assertThat(s.recordsListed).isEqualTo(3);
        assertThat(s.recordFormats).startsWith(CounterRecords.IF_COUNTERS, CounterRecords.ETHERNET,
                CounterRecords.PORT_NAME);
        assertThat(s.sourceIdType).isZero();
        assertThat(s.sourceIdIndex).isEqualTo(b.ifIndex);
        CounterRecords.IfCounters c = s.records.ifCounters;
        assertThat(c.ifType).isEqualTo(6);
        assertThat(c.ifStatus).isEqualTo(3); // admin up, oper up
        assertThat(c.inOctets).isEqualTo(b.stats[LinkTable.RX_BYTES]);
        assertThat(c.inUcastPkts).isEqualTo(b.stats[LinkTable.RX_PACKETS]); // no multicast received
        assertThat(c.inMulticastPkts).isZero();
        assertThat(c.outUcastPkts).isEqualTo(b.stats[LinkTable.TX_PACKETS]);
        assertThat(c.promiscuousMode).isEqualTo(2);
        assertThat(s.records.portName.name.asString()).isEqualTo("vb");

        InterfaceCounters.fill(lo, 0, 0, 1, s);
        assertThat(s.recordsListed).isEqualTo(2); // no ethernet_counters for loopback
        assertThat(s.records.ifCounters.ifType).isEqualTo(24);
    }

    /** The poller through the agent: one datagram with the host sample and one 0:4 sample per interface. */
    @Test
    void pollerSendsHostAndInterfaceSamplesThroughTheAgent() throws Exception {
        LinkTable up = dumpUp();
        List<byte[]> datagrams = new ArrayList<>();
        try (DatagramChannel sink = DatagramChannel.open()) {
            sink.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = ((InetSocketAddress) sink.getLocalAddress()).getPort();
            HsflowdConfig c = HsflowdConfig.parse("sflow { polling = 20 collector { ip = 127.0.0.1 udpport = " + port
                    + " } psample { group = 1 } }");
            try (SflowAgent agent = new SflowAgent(c, InetAddress.getByName("192.0.2.1"))) {
                agent.addListener((buf, len, to, ok) -> datagrams.add(Arrays.copyOf(buf, len)));
                RtnlLinkDumper d = ns.call(RtnlLinkDumper::open);
                CounterPoller p = new CounterPoller(agent, 20, d, new HostCounters(), Path.of("/sys/class/net"),
                        System.nanoTime());
                try {
                    p.pollAll();
                    p.pollAll();
                } finally {
                    p.close();
                }
                assertThat(p.hostSamples()).isEqualTo(2);
                assertThat(p.interfaceSamples()).isEqualTo(6);
                assertThat(p.refused()).isZero();
                assertThat(p.dumpErrors()).isZero();
                assertThat(p.host().parseErrors().count()).as(p.host().parseErrors().toString()).isZero();
                agent.flush();
            }
        }
        assertThat(datagrams.size()).as("datagrams (1400-byte budget)").isBetween(1, 3);
        List<CounterSample> samples = new ArrayList<>();
        for (byte[] d : datagrams) {
            samples.addAll(decode(d));
        }
        assertThat(samples).hasSize(8);
        // second round: every source's sequence_number is 2
        List<CounterSample> second = samples.subList(4, 8);
        CounterSample host = second.get(0);
        assertThat(host.sourceIdType).isEqualTo(2);
        assertThat(host.sourceIdIndex).isEqualTo(1);
        assertThat(host.sequenceNumber).isEqualTo(2);
        assertThat(Arrays.copyOf(host.recordFormats, host.recordsListed)).containsExactly(2001, 2005, 2004, 2003,
                2006, 2000);
        CounterRecords.HostAdapters ad = host.records.hostAdapters;
        assertThat(ad.count).isEqualTo(2); // va, vb (lo has no MAC)
        java.util.Map<Long, Long> macs = new java.util.TreeMap<>();
        for (int i = 0; i < ad.count; i++) {
            assertThat(ad.adapters[i].macsCount).isEqualTo(1);
            macs.put(ad.adapters[i].ifIndex, ad.adapters[i].macs[0]);
        }
        assertThat(macs).isEqualTo(java.util.Map.of((long) ifIndex("va"), MAC_A, (long) ifIndex("vb"), MAC_B));
        assertThat(host.records.hostDescr.osName).isEqualTo(2);
        assertThat(host.records.hostDescr.osRelease.asString())
                .isEqualTo(Netns.sh(List.of("uname", "-r")).strip());
        assertThat(host.records.hostDescr.hostname.asString())
                .isEqualTo(Netns.sh(List.of("cat", "/proc/sys/kernel/hostname")).strip());
        assertThat(host.records.hostCpu.cpuNum).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(host.records.hostMemory.memTotal).isPositive();
        for (int i = 1; i < 4; i++) {
            CounterSample s = second.get(i);
            assertThat(s.sequenceNumber).isEqualTo(2);
            assertThat(s.sourceIdType).isZero();
            assertThat(up.byIndex((int) s.sourceIdIndex)).isNotNull();
            assertThat(s.records.ifCounters.ifIndex).isEqualTo(s.sourceIdIndex);
            assertThat(s.records.portName.name.asString()).isEqualTo(up.byIndex((int) s.sourceIdIndex).nameString());
        }
    }

    /** Decodes a datagram's counters samples into copies (records held by value). */
    static List<CounterSample> decode(byte[] d) {
        List<CounterSample> out = new ArrayList<>();
        SflowDecoder dec = new SflowDecoder(new DecodeStats());
        assertThat(dec.decode(d, 0, d.length, new SflowVisitor() {
            @Override
            public void onDatagram(DatagramHeader h) {
                assertThat(h.subAgentId).isEqualTo(100000);
            }

            @Override
            public void onFlowSample(DatagramHeader h, FlowSample s) {
                throw new AssertionError("no flow samples expected");
            }

            @Override
            public void onCounterSample(DatagramHeader h, CounterSample s) {
                assertThat(s.recordErrors).isZero();
                // re-decode this one sample alone into a fresh holder so the views stay valid
                out.add(copy(d, s));
            }
        })).isNull();
        return out;
    }

    /** A holder decoded from a private copy of the datagram, so its views outlive the visitor call. */
    private static CounterSample copy(byte[] d, CounterSample s) {
        byte[] mine = d.clone();
        CounterSample[] kept = new CounterSample[1];
        int index = s.offset;
        new SflowDecoder(new DecodeStats()).decode(mine, 0, mine.length, new SflowVisitor() {
            @Override
            public void onDatagram(DatagramHeader h) {}

            @Override
            public void onFlowSample(DatagramHeader h, FlowSample f) {}

            @Override
            public void onCounterSample(DatagramHeader h, CounterSample c) {
                if (c.offset == index) {
                    kept[0] = c;
                }
            }
        });
        return kept[0];
    }
}
