package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.Collector;
import io.vecflow.collector.schema.CounterRow;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.dataplane.Dataplane;
import io.vecflow.dataplane.DataplaneAssembly;
import io.vecflow.dataplane.config.DataplaneConfig;
import io.vecflow.hsflowd.HsflowdDaemon;
import io.vecflow.hsflowd.SflowAgent;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.hsflowd.dropmon.DropmonDaemon;
import io.vecflow.hsflowd.dropmon.DropmonSettings;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PcapPacket;
import io.vecflow.packet.PcapReader;
import io.vecflow.packet.PcapWriter;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One ifIndex per port, through the real chain: {@code vecflow dataplane} assembled from YAML (pcap ports: an
 * xconnected pair, a routed pair with routed, unroutable and TTL-1 frames, an l2 port without a cross-connect) →
 * PSAMPLE, NET_DM and VPP IF_COUNTERS over real NETLINK_USERSOCK groups → the agent as {@code vecflow hsflowd} runs
 * it ({@code psample}, {@code vpp {}} and {@code dropmon} modules) → sFlow over UDP → the collector's rows. For every
 * port, its drops' input and source, its flow samples' input and source, the output of the samples of packets sent to
 * it, and its counter samples carry the same ifIndex (the port's OSINDEX), and each port has one ifIndex among the
 * counters. The pcap ports have no netdev, so each is given an {@code os-index:} (the number a linux-cp pair would
 * have); without one it sends no OSINDEX and hsflowd's default {@code vpp { }} would not sample it. Ingress samples of forwarded packets carry the output port (the xconnect peer, the route's port); those
 * of dropped packets output 0. Needs root (joining NETLINK_USERSOCK groups).
 */
class PortNumberingChainTest {
    private static final int G_PSAMPLE = 5, G_NETDM = 6, G_COUNTERS = 7;
    /**
     * The ports' {@code os-index:} (as a linux-cp pair's ifindex would be): sent as OSINDEX, so the agent's default
     * {@code vpp { }} samples them (hsflowd samples no VPP port without OSINDEX) and numbers everything by them.
     */
    private static final long OS_INDEX = 11;
    private static final String[] PORTS = {"p0", "p1", "p2", "p3", "p4"};

    @TempDir
    Path tmp;

    /** Keeps copies of every flow/discard row and the (source, ifIndex, name) of every interface counters row. */
    static final class Keep implements FlowSink {
        final List<FlowRow> rows = new ArrayList<>();
        final List<Object[]> counters = new ArrayList<>();

        @Override
        public synchronized void accept(FlowRow row) {
            rows.add(new FlowRow().copyFrom(row));
        }

        @Override
        public synchronized void acceptCounters(CounterRow row) {
            if (row.records.hasIfCounters) {
                counters.add(new Object[] {row.sourceIdIndex, row.records.ifCounters.ifIndex,
                        row.records.hasPortName ? row.records.portName.name.asString() : ""});
            }
        }

        synchronized List<FlowRow> rows() {
            return List.copyOf(rows);
        }

        synchronized List<Object[]> counters() {
            return List.copyOf(counters);
        }

        @Override
        public void flush() {}

        @Override
        public synchronized long rowsWritten() {
            return rows.size();
        }

        @Override
        public long rowsFailed() {
            return 0;
        }

        @Override
        public String name() {
            return "keep";
        }

        @Override
        public void close() {}
    }

    private static byte[] ip4Udp(long dstMac, int dst, int ttl, int n) {
        ByteBuffer b = ByteBuffer.allocate(14 + 28 + 18);
        b.putShort((short) (dstMac >>> 32)).putInt((int) dstMac).putShort((short) 0x0200).putInt(0x0b0b)
                .putShort((short) 0x0800);
        b.put((byte) 0x45).put((byte) 0).putShort((short) 46).putShort((short) n).putShort((short) 0x4000)
                .put((byte) ttl).put((byte) 17).putShort((short) 0).putInt(0xC6336401).putInt(dst);
        b.putShort((short) (1000 + n)).putShort((short) 53).putShort((short) 26).putShort((short) 0);
        byte[] a = b.array();
        int sum = 0;
        for (int i = 14; i < 34; i += 2) {
            sum += (a[i] & 0xFF) << 8 | (a[i + 1] & 0xFF);
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        a[24] = (byte) (~sum >>> 8);
        a[25] = (byte) ~sum;
        return a;
    }

    private Path pcap(String name, List<byte[]> frames) throws Exception {
        Path f = tmp.resolve(name + ".pcap");
        try (PcapWriter w = PcapWriter.create(f, LinkType.ETHERNET, 65535)) {
            for (byte[] fr : frames) {
                w.write(0, fr);
            }
        }
        return f;
    }

    private static void waitFor(BooleanSupplier cond, String what) throws InterruptedException {
        long end = System.currentTimeMillis() + 20_000;
        while (!cond.getAsBoolean()) {
            assertThat(System.currentTimeMillis()).as("timed out waiting for " + what).isLessThan(end);
            Thread.sleep(20);
        }
    }

    @Test
    void everyPortHasOneIfIndexInFlowsDropsAndCountersAndIngressSamplesCarryTheirOutput() throws Exception {
        List<byte[]> capture = new ArrayList<>();
        for (PcapPacket p : PcapReader.readAll(TestEnv.capture()).packets()) {
            capture.add(p.data());
        }
        long macP2 = 0x020000000003L, macP3 = 0x020000000004L;
        List<byte[]> p2 = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            p2.add(ip4Udp(macP2, 0xC6336407, 64, i)); // 198.51.100.7: routed out of p3
        }
        for (int i = 0; i < 4; i++) {
            p2.add(ip4Udp(macP2, 0xCB007109, 64, 10 + i)); // 203.0.113.9: no route
        }
        String yaml = """
                workers: 1
                ports:
                  - {name: p0, type: pcap, if-index: 1, os-index: 11, pcap: {file: %s}}
                  - {name: p1, type: pcap, if-index: 2, os-index: 12, pcap: {file: %s}}
                  - {name: p2, type: pcap, if-index: 3, os-index: 13, mac: "02:00:00:00:00:03", pcap: {file: %s}}
                  - {name: p3, type: pcap, if-index: 4, os-index: 14, mac: "02:00:00:00:00:04", pcap: {file: %s}}
                  - {name: p4, type: pcap, if-index: 5, os-index: 15, mode: l2, pcap: {file: %s}}
                xconnects:
                  - [p0, p1]
                routes:
                  - {prefix: 198.51.100.0/24, via: 10.9.0.2, port: p3}
                neighbours:
                  - {address: 10.9.0.2, mac: "02:00:00:00:0b:02", port: p3}
                sflow:
                  sampling-rate: 1
                  direction: rx
                  interfaces: [p0, p1, p2, p3, p4]
                  drop-monitoring: true
                  polling-interval: 1
                  usersock-groups: {psample: %d, net-dm: %d, counters: %d}
                metrics: {port: 0}
                """.formatted(TestEnv.capture().toAbsolutePath(),
                pcap("p1", List.of(ip4Udp(0x02000000AAAAL, 0xC0000201, 64, 99))), pcap("p2", p2),
                pcap("p3", List.of(ip4Udp(macP3, 0xC6336407, 1, 77))), // TTL 1: expires on p3
                pcap("p4", capture.subList(0, 3)), G_PSAMPLE, G_NETDM, G_COUNTERS);
        Path dpYaml = tmp.resolve("dp.yaml");
        Files.writeString(dpYaml, yaml);

        Keep keep = new Keep();
        Collector.Settings cs = new Collector.Settings();
        cs.bindAddress = "127.0.0.1";
        cs.port = 0;
        cs.threads = 1;
        cs.extraFlowSinks.add(keep);
        try (Collector collector = new Collector(cs)) {
            // The agent exactly as `vecflow hsflowd -f` builds it from this file.
            HsflowdConfig hc = HsflowdConfig.parse("""
                    sflow {
                      sampling = 1
                      agentIP = 127.0.0.1
                      collector { ip = 127.0.0.1 udpport = %d }
                      psample { transport = usersock usersockGroup = %d }
                      vpp { usersockGroup = %d }
                      dropmon { start = off transport = usersock usersockGroup = %d limit = 10000 }
                    }
                    """.formatted(collector.localAddress().getPort(), G_PSAMPLE, G_COUNTERS, G_NETDM));
            SflowAgent agent = new SflowAgent(hc, InetAddress.getByName("127.0.0.1"));
            DropmonSettings ds = DropmonSettings.from(hc.dropmon);
            try (HsflowdDaemon daemon = new HsflowdDaemon(agent, HsflowdDaemon.openSubscriber(hc),
                    HsflowdDaemon.openVppSubscriber(hc), null, null);
                    DropmonDaemon dropmon = new DropmonDaemon(agent, ds, hc.headerBytes,
                            DropmonDaemon.openSubscriber(ds));
                    DataplaneAssembly a = DataplaneAssembly.open(DataplaneConfig.load(dpYaml), System.err::println,
                            false)) {
                Dataplane dp = a.dataplane();
                dp.start();
                dp.awaitCompletion(); // every pcap replayed once; the main thread drained and sent final counters
                Dataplane.Stats st = dp.stats();
                int ingress = capture.size() + 1 + p2.size() + 1 + 3;
                assertThat(st.psampleSent()).isEqualTo(ingress);
                waitFor(() -> agent.samplesIn() >= ingress, "the agent's samples");
                waitFor(() -> dropmon.module().sent() >= 4 + 1 + 3, "the agent's discards");
                waitFor(() -> agent.counterSamplesSent() >= 10, "the agent's counter samples");
                agent.flush();
                waitFor(() -> keep.rowsWritten() >= ingress + 8 && keep.counters().size() >= 10, "collector rows");
                Thread.sleep(300);
                agent.flush();
            }
            collector.flush();
        }

        Map<String, Long> os = new TreeMap<>();
        for (int i = 0; i < PORTS.length; i++) {
            os.put(PORTS[i], OS_INDEX + i);
        }
        // Counters: each port under one ifIndex (source = generic ifIndex = its OSINDEX), and no other ifIndex.
        Map<String, Set<Long>> counterIfs = new TreeMap<>();
        for (Object[] c : keep.counters()) {
            assertThat(c[0]).as("counter source = its if_counters ifIndex").isEqualTo(c[1]);
            counterIfs.computeIfAbsent((String) c[2], k -> new TreeSet<>()).add((Long) c[1]);
        }
        Map<String, Set<Long>> wantIfs = new TreeMap<>();
        os.forEach((k, v) -> wantIfs.put(k, Set.of(v)));
        assertThat(counterIfs).as("ifIndexes per port name among the counter samples").isEqualTo(wantIfs);

        List<FlowRow> rows = keep.rows();
        List<FlowRow> drops = rows.stream().filter(r -> r.sampleType == FlowRow.DISCARD).toList();
        List<FlowRow> flows = rows.stream().filter(r -> r.sampleType == FlowRow.FLOW).toList();
        // Drops: input = source = the port's counter ifIndex; reasons as the dataplane named them.
        assertThat(drops).allSatisfy(r -> assertThat(r.sourceIdIndex).isEqualTo(r.inIf));
        Map<String, Long> dropsByPortReason = drops.stream().map(r -> r.inIf + "/" + r.discardReason)
                .collect(Collectors.groupingBy(s -> s, TreeMap::new, Collectors.counting()));
        assertThat(dropsByPortReason).isEqualTo(new TreeMap<>(Map.of(os.get("p2") + "/0", 4L, os.get("p3") + "/257", 1L,
                        os.get("p4") + "/267", 3L)));
        // Flow samples (ingress): source = input = the port's counter ifIndex; output = where the packet went.
        assertThat(flows).allSatisfy(r -> assertThat(r.sourceIdIndex).isEqualTo(r.inIf));
        Map<String, Long> flowsByInOut = flows.stream().map(r -> r.inIf + ">" + r.outIf)
                .collect(Collectors.groupingBy(s -> s, TreeMap::new, Collectors.counting()));
        assertThat(flowsByInOut).as("ingress samples by input > output")
                .isEqualTo(new TreeMap<>(Map.of(
                        os.get("p0") + ">" + os.get("p1"), (long) capture.size(), // xconnect
                        os.get("p1") + ">" + os.get("p0"), 1L,
                        os.get("p2") + ">" + os.get("p3"), 6L, // routed
                        os.get("p2") + ">0", 4L, // no route: dropped
                        os.get("p3") + ">0", 1L, // TTL expired
                        os.get("p4") + ">0", 3L))); // no xconnect
        // The one numbering: every ifIndex in flows and drops is a counter ifIndex of that port.
        Set<Long> counterNumbers = new TreeSet<>(os.values());
        assertThat(rows).allSatisfy(r -> {
            assertThat(counterNumbers).contains(r.inIf);
            assertThat(r.outIf == 0 || counterNumbers.contains(r.outIf)).isTrue();
        });
    }
}
