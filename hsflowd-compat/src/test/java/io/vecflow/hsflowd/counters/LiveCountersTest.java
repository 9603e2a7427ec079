package io.vecflow.hsflowd.counters;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.hsflowd.SflowAgent;
import io.vecflow.hsflowd.config.HsflowdConfig;
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
import java.nio.file.Files;
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
    @org.junit.jupiter.api.io.TempDir
    static Path labTmp;
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

    /**
     * A procfs root for the host records as the agent sees them inside the lab namespace: the files of /proc, with
     * {@code net} (net/dev, net/snmp) taken from the namespace thread ({@code /proc/PID/task/TID/net}), so that
     * host_net_io sums the lab's interfaces and the MIB-II groups are the namespace's.
     */
    static Path labProc() throws Exception {
        Path root = Files.createTempDirectory(labTmp, "proc");
        for (String f : List.of("loadavg", "stat", "uptime", "cpuinfo", "meminfo", "vmstat", "diskstats", "mounts",
                "sys")) {
            Files.createSymbolicLink(root.resolve(f), Path.of("/proc", f));
        }
        Path task = ns.call(() -> Files.readSymbolicLink(Path.of("/proc/thread-self")));
        Files.createSymbolicLink(root.resolve("net"), Path.of("/proc").resolve(task).resolve("net"));
        return root;
    }

    static HostCounters labHost() throws Exception {
        return new HostCounters(labProc(), Path.of("/sys"), Path.of("/etc/machine-id"));
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
        assertThat(s.recordFormats).as("hsflowd's wire order: port name first, if_counters last")
                .startsWith(CounterRecords.PORT_NAME, CounterRecords.ETHERNET, CounterRecords.IF_COUNTERS);
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
        assertThat(s.records.ifCounters.ifType).as("6 for every device, as hsflowd").isEqualTo(6);
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
                CounterPoller p = new CounterPoller(agent, 20, d, labHost(), Path.of("/sys/class/net"),
                        System.nanoTime());
                try {
                    p.pollAll();
                    p.pollAll();
                } finally {
                    p.close();
                }
                assertThat(p.hostSamples()).isEqualTo(2);
                assertThat(p.interfaceSamples()).as("va and vb twice; lo never (hsflowd reports no loopback)")
                        .isEqualTo(4);
                assertThat(p.loopbacksSkipped()).isEqualTo(2);
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
        assertThat(samples).hasSize(6);
        // second round: every source's sequence_number is 2
        List<CounterSample> second = samples.subList(3, 6);
        CounterSample host = second.get(0);
        assertThat(host.sourceIdType).isEqualTo(2);
        assertThat(host.sourceIdIndex).isEqualTo(1);
        assertThat(host.sequenceNumber).isEqualTo(2);
        assertThat(Arrays.copyOf(host.recordFormats, host.recordsListed)).containsExactly(2001, 2010, 2009, 2008,
                2007, 2005, 2004, 2003, 2006, 2000);
        assertThat(host.records.mib2Ip.ipDefaultTTL).isEqualTo(Long.parseLong(
                ns.exec("sysctl", "-n", "net.ipv4.ip_default_ttl").strip()));
        assertThat(host.records.mib2Tcp.tcpMaxConn).isEqualTo(0xFFFFFFFFL); // Linux: MaxConn -1
        assertThat(host.records.hostNetIo.pktsOut).as("va and vb summed; lo left out").isEqualTo(
                byName(up, "va").stats[LinkTable.TX_PACKETS] + byName(up, "vb").stats[LinkTable.TX_PACKETS]);
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
        for (int i = 1; i < 3; i++) {
            CounterSample s = second.get(i);
            assertThat(s.sequenceNumber).isEqualTo(2);
            assertThat(s.records.ifCounters.ifType).isEqualTo(6);
            assertThat(s.sourceIdType).isZero();
            assertThat(up.byIndex((int) s.sourceIdIndex)).isNotNull();
            assertThat(s.records.ifCounters.ifIndex).isEqualTo(s.sourceIdIndex);
            assertThat(s.records.portName.name.asString()).isEqualTo(up.byIndex((int) s.sourceIdIndex).nameString());
        }
    }

    /**
     * Third-party judge: tshark 4.0 decodes the if_counters (0:1) and ethernet_counters (0:2) the agent sends for
     * every interface of the lab, with the same values; the records tshark misdecodes — port_name (0:1005) and the
     * host records (2000–2006) — are checked byte by byte against the layouts of sflow_openflow.txt / sflow_host.txt,
     * built here independently of the encoder. One datagram per sample, so each tshark row is one sample.
     */
    @Test
    void tsharkJudgesInterfaceCountersAndHostRecordsMatchTheSpecLayout(@org.junit.jupiter.api.io.TempDir Path tmp)
            throws Exception {
        LinkTable t = dumpUp();
        long vbRxPackets = byName(t, "vb").stats[LinkTable.RX_PACKETS];
        long vbRxBytes = byName(t, "vb").stats[LinkTable.RX_BYTES];
        sendTraffic();
        dumper.dump(t);
        List<byte[]> datagrams = new ArrayList<>();
        List<CounterSample> sent = new ArrayList<>();
        try (DatagramChannel sink = DatagramChannel.open()) {
            sink.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = ((InetSocketAddress) sink.getLocalAddress()).getPort();
            HsflowdConfig c = HsflowdConfig.parse("sflow { collector { ip = 127.0.0.1 udpport = " + port
                    + " } psample { group = 1 } }");
            try (SflowAgent agent = new SflowAgent(c, InetAddress.getByName("192.0.2.1"))) {
                agent.addListener((buf, len, to, ok) -> datagrams.add(Arrays.copyOf(buf, len)));
                for (int i = 0; i < t.count; i++) {
                    LinkTable.Link l = t.links[i];
                    CounterSample s = new CounterSample();
                    InterfaceCounters.fill(l, l.arpType == 1 ? 10_000_000_000L : 0, l.arpType == 1 ? 1 : 0, 5 + i, s);
                    // tshark 4.0 does not skip a counter record it does not know by its length: after hsflowd's
                    // leading port_name (0:1005) it misreads the rest. The same records go to tshark in an order it
                    // reads, port_name last (the agent's own order: rtmGetlinkSeesTheVethPairAndCountsExactly...).
                    int n = s.recordsListed;
                    for (int k = 0; k < n / 2; k++) {
                        int f = s.recordFormats[k];
                        s.recordFormats[k] = s.recordFormats[n - 1 - k];
                        s.recordFormats[n - 1 - k] = f;
                    }
                    assertThat(agent.onCounterSample(s)).isTrue();
                    agent.flush();
                    sent.add(s);
                }
                CounterSample h = new CounterSample();
                labHost().fill(t, 9, h);
                assertThat(agent.onCounterSample(h)).isTrue();
                agent.flush();
                sent.add(h);
            }
        }
        assertThat(datagrams).hasSize(t.count + 1);
        Path pcap = tmp.resolve("counters.pcap");
        CounterJudge.writePcap(pcap, datagrams);
        List<String> fields = List.of("sflow.counters_sample.source_id_type", "sflow.counters_sample.source_id_index",
                "sflow.counters_sample.sequence_number", "sflow_245.ifindex", "sflow_245.iftype", "sflow_245.ifspeed",
                "sflow_245.ifdirection", "sflow_245.ifadmin_status", "sflow_245.ifoper_status", "sflow_245.ifinoct",
                "sflow_245.ifinpkt", "sflow_245.ifinmcast", "sflow_245.ifinbcast", "sflow_245.ifindisc",
                "sflow_245.ifinerr", "sflow_245.ifinunk", "sflow_245.ifoutoct", "sflow_245.ifoutpkt",
                "sflow_245.ifoutmcast", "sflow_245.ifoutbcast", "sflow_245.ifoutdisc", "sflow_245.ifouterr",
                "sflow_245.ifpromisc", "sflow_245.dot3StatsAlignmentErrors", "sflow_245.dot3StatsFCSErrors",
                "sflow_245.dot3StatsSingleCollisionFrames", "sflow_245.dot3StatsMultipleCollisionFrames",
                "sflow_245.dot3StatsSQETestErrors", "sflow_245.dot3StatsDeferredTransmissions",
                "sflow_245.dot3StatsLateCollisions", "sflow_245.dot3StatsExcessiveCollisions",
                "sflow_245.dot3StatsInternalMacTransmitErrors", "sflow_245.dot3StatsCarrierSenseErrors",
                "sflow_245.dot3StatsFrameTooLongs", "sflow_245.dot3StatsInternalMacReceiveErrors",
                "sflow_245.dot3StatsSymbolErrors");
        List<String[]> rows = CounterJudge.tsharkFields(pcap, fields);
        assertThat(rows).hasSize(datagrams.size());
        for (int i = 0; i < t.count; i++) {
            CounterSample s = sent.get(i);
            CounterRecords.IfCounters c = s.records.ifCounters;
            String[] r = rows.get(i);
            List<Long> expected = new ArrayList<>(List.of(0L, s.sourceIdIndex, s.sequenceNumber, c.ifIndex, c.ifType,
                    c.ifSpeed, c.ifDirection, c.ifStatus & 1, c.ifStatus >> 1 & 1, c.inOctets,
                            c.inUcastPkts & 0xFFFFFFFFL,
                    c.inMulticastPkts, c.inBroadcastPkts, c.inDiscards, c.inErrors, c.inUnknownProtos, c.outOctets,
                    c.outUcastPkts, c.outMulticastPkts, c.outBroadcastPkts, c.outDiscards, c.outErrors,
                    c.promiscuousMode));
            if (s.records.hasEthernet) {
                CounterRecords.EthernetCounters e = s.records.ethernet;
                expected.addAll(List.of(e.alignmentErrors, e.fcsErrors, e.singleCollisionFrames,
                        e.multipleCollisionFrames, e.sqeTestErrors, e.deferredTransmissions, e.lateCollisions,
                        e.excessiveCollisions, e.internalMacTransmitErrors, e.carrierSenseErrors, e.frameTooLongs,
                        e.internalMacReceiveErrors, e.symbolErrors));
            }
            List<Long> judged = new ArrayList<>();
            for (int k = 0; k < expected.size(); k++) {
                judged.add(value(r[k]));
            }
            assertThat(judged).as("tshark's view of the sample for ifIndex %d (%s)", s.sourceIdIndex,
                    s.records.portName.name.asString()).isEqualTo(expected);
            if (!s.records.hasEthernet) {
                assertThat(r[23]).as("no ethernet_counters for " + s.records.portName.name.asString()).isEmpty();
            }
        }
        // the traffic is in tshark's numbers too: vb received N more frames of FRAME bytes (and nothing else)
        int vb = java.util.stream.IntStream.range(0, t.count).filter(i -> t.links[i].nameString().equals("vb"))
                .findFirst().orElseThrow();
        assertThat(value(rows.get(vb)[10])).isEqualTo(vbRxPackets + N);
        assertThat(value(rows.get(vb)[9])).isEqualTo(vbRxBytes + (long) N * FRAME);

        // byte by byte: port_name of every interface sample, and every host record
        for (int i = 0; i < t.count; i++) {
            byte[] d = datagrams.get(i);
            List<int[]> recs = records(d);
            int[] last = recs.get(recs.size() - 1);
            assertThat(last[0]).isEqualTo(1005);
            byte[] name = t.links[i].nameString().getBytes();
            assertThat(Arrays.copyOfRange(d, last[1], last[1] + last[2])).isEqualTo(xdrString(name));
        }
        byte[] hd = datagrams.get(t.count);
        CounterRecords r = sent.get(t.count).records;
        List<int[]> recs = records(hd);
        assertThat(recs.stream().map(x -> x[0]).toList()).containsExactly(2001, 2010, 2009, 2008, 2007, 2005, 2004,
                2003, 2006, 2000);
        assertThat(body(hd, recs.get(0))).isEqualTo(hostAdapters(r.hostAdapters));
        CounterRecords.Mib2UdpGroup u = r.mib2Udp;
        assertThat(body(hd, recs.get(1))).isEqualTo(u32s(u.udpInDatagrams, u.udpNoPorts, u.udpInErrors,
                u.udpOutDatagrams, u.udpRcvbufErrors, u.udpSndbufErrors, u.udpInCsumErrors));
        CounterRecords.Mib2TcpGroup tc = r.mib2Tcp;
        assertThat(body(hd, recs.get(2))).isEqualTo(u32s(tc.tcpRtoAlgorithm, tc.tcpRtoMin, tc.tcpRtoMax,
                tc.tcpMaxConn, tc.tcpActiveOpens, tc.tcpPassiveOpens, tc.tcpAttemptFails, tc.tcpEstabResets,
                tc.tcpCurrEstab, tc.tcpInSegs, tc.tcpOutSegs, tc.tcpRetransSegs, tc.tcpInErrs, tc.tcpOutRsts,
                tc.tcpInCsumErrors));
        CounterRecords.Mib2IcmpGroup ic = r.mib2Icmp;
        assertThat(body(hd, recs.get(3))).isEqualTo(u32s(ic.icmpInMsgs, ic.icmpInErrors, ic.icmpInDestUnreachs,
                ic.icmpInTimeExcds, ic.icmpInParamProbs, ic.icmpInSrcQuenchs, ic.icmpInRedirects, ic.icmpInEchos,
                ic.icmpInEchoReps, ic.icmpInTimestamps, ic.icmpInAddrMasks, ic.icmpInAddrMaskReps, ic.icmpOutMsgs,
                ic.icmpOutErrors, ic.icmpOutDestUnreachs, ic.icmpOutTimeExcds, ic.icmpOutParamProbs,
                ic.icmpOutSrcQuenchs, ic.icmpOutRedirects, ic.icmpOutEchos, ic.icmpOutEchoReps, ic.icmpOutTimestamps,
                ic.icmpOutTimestampReps, ic.icmpOutAddrMasks, ic.icmpOutAddrMaskReps));
        CounterRecords.Mib2IpGroup ip = r.mib2Ip;
        assertThat(body(hd, recs.get(4))).isEqualTo(u32s(ip.ipForwarding, ip.ipDefaultTTL, ip.ipInReceives,
                ip.ipInHdrErrors, ip.ipInAddrErrors, ip.ipForwDatagrams, ip.ipInUnknownProtos, ip.ipInDiscards,
                ip.ipInDelivers, ip.ipOutRequests, ip.ipOutDiscards, ip.ipOutNoRoutes, ip.ipReasmTimeout,
                ip.ipReasmReqds, ip.ipReasmOKs, ip.ipReasmFails, ip.ipFragOKs, ip.ipFragFails, ip.ipFragCreates));
        // the lab namespace's own groups: its only UDP traffic is the tests' bursts of N datagrams
        assertThat(u.udpOutDatagrams).isPositive();
        assertThat(u.udpOutDatagrams % N).as("Udp OutDatagrams in the lab namespace, bursts of %d", N).isZero();
        assertThat(body(hd, recs.get(5))).isEqualTo(hostDiskIo(r.hostDiskIo));
        assertThat(body(hd, recs.get(6))).isEqualTo(hostMemory(r.hostMemory));
        assertThat(body(hd, recs.get(7))).hasSize(80).isEqualTo(hostCpu(r.hostCpu));
        assertThat(body(hd, recs.get(8))).hasSize(40).isEqualTo(hostNetIo(r.hostNetIo));
        assertThat(body(hd, recs.get(9))).isEqualTo(hostDescr(r.hostDescr));
        // and the host sample's header: 0:4, source 2:1, sequence 9
        ByteBuffer b = ByteBuffer.wrap(hd);
        assertThat(b.getInt(28)).isEqualTo(4);
        assertThat(b.getInt(36)).isEqualTo(9);
        assertThat(b.getInt(40)).isEqualTo(2);
        assertThat(b.getInt(44)).isEqualTo(1);
    }

    private static long value(String s) {
        if (s.equals("True")) {
            return 1;
        }
        if (s.equals("False")) {
            return 0;
        }
        return s.startsWith("0x") ? Long.parseUnsignedLong(s.substring(2), 16) : Long.parseUnsignedLong(s);
    }

    /** The records of the one counters sample in an IPv4-agent datagram: {data_format, body offset, body length}. */
    static List<int[]> records(byte[] d) {
        ByteBuffer b = ByteBuffer.wrap(d);
        assertThat(b.getInt(24)).as("samples in datagram").isEqualTo(1);
        int n = b.getInt(28 + 20);
        int p = 28 + 24;
        List<int[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int fmt = b.getInt(p), len = b.getInt(p + 4);
            out.add(new int[] {fmt, p + 8, len});
            p += 8 + len;
        }
        assertThat(p).isEqualTo(d.length);
        return out;
    }

    private static byte[] body(byte[] d, int[] rec) {
        return Arrays.copyOfRange(d, rec[1], rec[1] + rec[2]);
    }

    /** XDR string/opaque: u32 length, bytes, zero padding to 4 (RFC 4506 §4.10-4.11). */
    private static byte[] xdrString(byte[] s) {
        ByteBuffer b = ByteBuffer.allocate(4 + (s.length + 3) / 4 * 4);
        b.putInt(s.length).put(s);
        return b.array();
    }

    // sflow_host.txt layouts, written field by field

    private static byte[] hostAdapters(CounterRecords.HostAdapters a) {
        ByteBuffer b = ByteBuffer.allocate(4 + a.count * 16);
        b.putInt(a.count);
        for (int i = 0; i < a.count; i++) {
            b.putInt((int) a.adapters[i].ifIndex).putInt(1);
            long m = a.adapters[i].macs[0];
            for (int k = 5; k >= 0; k--) {
                b.put((byte) (m >>> (8 * k)));
            }
            b.putShort((short) 0);
        }
        return b.array();
    }

    /** A run of XDR u32s (the MIB-II groups: sflow.h SFLHost_ip/icmp/tcp/udp_counters, all u32, in order). */
    private static byte[] u32s(long... v) {
        ByteBuffer b = ByteBuffer.allocate(4 * v.length);
        for (long x : v) {
            b.putInt((int) x);
        }
        return b.array();
    }

    private static byte[] hostDiskIo(CounterRecords.HostDiskIo d) {
        return ByteBuffer.allocate(52).putLong(d.diskTotal).putLong(d.diskFree).putInt(d.partMaxUsed)
                .putInt((int) d.reads).putLong(d.bytesRead).putInt((int) d.readTime).putInt((int) d.writes)
                .putLong(d.bytesWritten).putInt((int) d.writeTime).array();
    }

    private static byte[] hostMemory(CounterRecords.HostMemory m) {
        return ByteBuffer.allocate(72).putLong(m.memTotal).putLong(m.memFree).putLong(m.memShared)
                .putLong(m.memBuffers).putLong(m.memCached).putLong(m.swapTotal).putLong(m.swapFree)
                .putInt((int) m.pageIn).putInt((int) m.pageOut).putInt((int) m.swapIn).putInt((int) m.swapOut).array();
    }

    private static byte[] hostCpu(CounterRecords.HostCpu c) {
        return ByteBuffer.allocate(80).putFloat(c.loadOne).putFloat(c.loadFive).putFloat(c.loadFifteen)
                .putInt((int) c.procRun).putInt((int) c.procTotal).putInt((int) c.cpuNum).putInt((int) c.cpuSpeed)
                .putInt((int) c.uptime).putInt((int) c.cpuUser).putInt((int) c.cpuNice).putInt((int) c.cpuSystem)
                .putInt((int) c.cpuIdle).putInt((int) c.cpuWio).putInt((int) c.cpuIntr).putInt((int) c.cpuSintr)
                .putInt((int) c.interrupts).putInt((int) c.contexts).putInt((int) c.cpuSteal).putInt((int) c.cpuGuest)
                .putInt((int) c.cpuGuestNice).array();
    }

    private static byte[] hostNetIo(CounterRecords.HostNetIo n) {
        return ByteBuffer.allocate(40).putLong(n.bytesIn).putInt((int) n.pktsIn).putInt((int) n.errsIn)
                .putInt((int) n.dropsIn).putLong(n.bytesOut).putInt((int) n.pktsOut).putInt((int) n.errsOut)
                .putInt((int) n.dropsOut).array();
    }

    private static byte[] hostDescr(CounterRecords.HostDescr h) throws Exception {
        byte[] host = Netns.sh(List.of("cat", "/proc/sys/kernel/hostname")).strip().getBytes();
        byte[] rel = Netns.sh(List.of("uname", "-r")).strip().getBytes();
        rel = Arrays.copyOf(rel, Math.min(rel.length, 32));
        byte[] hs = xdrString(host), rs = xdrString(rel);
        ByteBuffer b = ByteBuffer.allocate(hs.length + 16 + 8 + rs.length);
        b.put(hs).put(h.uuid).putInt((int) HostCounters.machineType(System.getProperty("os.arch"))).putInt(2).put(rs);
        return b.array();
    }

    /** An interface poll — RTM_GETLINK dump, sample fill, agent encode — allocates nothing once warm. */
    @Test
    void interfacePollsAllocateNothing() throws Exception {
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        mx.setThreadAllocatedMemoryEnabled(true);
        LinkTable t = new LinkTable();
        CounterSample s = new CounterSample();
        try (DatagramChannel sink = DatagramChannel.open()) {
            sink.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = ((InetSocketAddress) sink.getLocalAddress()).getPort();
            HsflowdConfig c = HsflowdConfig.parse("sflow { collector { ip = 127.0.0.1 udpport = " + port
                    + " } psample { group = 1 } }");
            try (SflowAgent agent = new SflowAgent(c, InetAddress.getByName("192.0.2.1"))) {
                long tid = Thread.currentThread().threadId();
                int refused = 0;
                long rounds = 0;
                long perPoll = Long.MAX_VALUE;
                // Warm up, then the best of 2000-round windows (bounded: 30 windows or 20 s): escape analysis needs
                // C2, which a loaded machine may compile late; until then the same code allocates.
                long deadline = System.nanoTime() + 20_000_000_000L;
                for (int w = -5; w < 30 && perPoll > 0 && (w < 0 || System.nanoTime() < deadline); w++) {
                    long before = mx.getThreadAllocatedBytes(tid);
                    for (int i = 0; i < 2000; i++, rounds++) {
                        dumper.dump(t);
                        for (int k = 0; k < t.count; k++) {
                            InterfaceCounters.fill(t.links[k], 0, 0, (int) rounds, s);
                            if (!agent.onCounterSample(s)) {
                                refused++; // (no AssertJ object per sample: it would be the allocation measured)
                            }
                        }
                    }
                    if (w >= 0) {
                        perPoll = Math.min(perPoll, (mx.getThreadAllocatedBytes(tid) - before) / 2000);
                    }
                }
                System.out.printf("interface poll (dump of %d links + encode): %d bytes allocated per poll%n", t.count,
                        perPoll);
                assertThat(refused).isZero();
                assertThat(agent.counterSamplesSent()).isEqualTo(rounds * t.count);
                assertThat(perPoll).as("bytes allocated per interface poll").isLessThan(64);
            }
        }
    }

    /** Decodes a datagram's counters samples into copies (records held by value). */
    static List<CounterSample> decode(byte[] d) {
        List<CounterSample> out = new ArrayList<>();
        SflowDecoder dec = new SflowDecoder(new DecodeStats());
        assertThat(dec.decode(d, 0, d.length, new SflowVisitor() {
            @Override
            public void onDatagram(DatagramHeader h) {
                assertThat(h.subAgentId).as("a psample block: the packet agent's datagrams").isEqualTo(100000);
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
    /** Re-decodes one sample of {@code d} alone (a datagram of its header and that sample) into its own holder. */
    private static CounterSample copy(byte[] d, CounterSample s) {
        ByteBuffer b = ByteBuffer.wrap(d);
        assertThat(b.getInt(4)).as("IPv4 agent").isEqualTo(1);
        int len = 8 + b.getInt(s.offset + 4);
        byte[] mine = ByteBuffer.allocate(28 + len).put(d, 0, 24).putInt(1).put(d, s.offset, len).array();
        CounterSample[] kept = new CounterSample[1];
        new SflowDecoder(new DecodeStats()).decode(mine, 0, mine.length, new SflowVisitor() {
            @Override
            public void onDatagram(DatagramHeader h) {}

            @Override
            public void onFlowSample(DatagramHeader h, FlowSample f) {}

            @Override
            public void onCounterSample(DatagramHeader h, CounterSample c) {
                assertThat(kept[0]).isNull();
                kept[0] = c;
            }
        });
        assertThat(kept[0]).isNotNull();
        return kept[0];
    }
}
