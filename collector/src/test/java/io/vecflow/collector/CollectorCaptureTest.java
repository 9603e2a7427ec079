package io.vecflow.collector;

import static io.vecflow.collector.TestSupport.addr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.decode.DatagramJsonWriter;
import io.vecflow.collector.inlet.DatagramProcessor;
import io.vecflow.collector.inlet.EpochNanos;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.sflow.DecodeError;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collector end to end without external services: a real {@link Collector} on 127.0.0.1 (Netty, epoll with two
 * SO_REUSEPORT sockets as in production), fed the UDP payloads of the public sFlow captures in {@code testdata/sflow}
 * through a real UDP socket; rows checked against the facts in {@code testdata/MANIFEST.md} (tcpdump tests, Akvorado
 * and goflow2 test data).
 */
class CollectorCaptureTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @TempDir
    Path tmp;

    private Collector start(TestSupport.CopyingSink sink, Path json) throws Exception {
        Collector.Settings s = new Collector.Settings();
        s.bindAddress = "127.0.0.1";
        s.port = 0;
        s.threads = 2;
        s.jsonLines = json;
        if (sink != null) {
            s.extraFlowSinks.add(sink);
        }
        return new Collector(s);
    }

    private static long received(Collector c) {
        return c.stats().datagramsReceived.sum();
    }

    private static void awaitReceived(Collector c, long n) {
        TestSupport.await("datagramsReceived == " + n, WAIT, () -> received(c) >= n,
                () -> "(received " + received(c) + ")");
        assertThat(received(c)).isEqualTo(n);
    }

    @Test
    void everyCaptureDecodesToTheManifestFacts() throws Exception {
        Path json = tmp.resolve("flows.jsonl");
        TestSupport.CopyingSink sink = new TestSupport.CopyingSink();
        Map<String, List<FlowRow>> rows = new LinkedHashMap<>();
        long t0 = EpochNanos.now();
        long datagrams = 0, bytes = 0;
        int senderPort;
        try (Collector c = start(sink, json); TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            senderPort = tx.localPort();
            assertThat(c.localAddress().getAddress()).isEqualTo(InetAddress.getByName("127.0.0.1"));
            assertThat(c.localAddress().getPort()).isPositive();
            for (String capture : Captures.all()) {
                List<byte[]> payloads = Captures.udpPayloads(capture);
                int before = sink.size();
                tx.sendPaced(payloads, 16, () -> received(c));
                datagrams += payloads.size();
                bytes += payloads.stream().mapToInt(p -> p.length).sum();
                awaitReceived(c, datagrams);
                rows.put(capture, sink.rows().subList(before, sink.size()));
            }
            c.flush();
            CollectorStats st = c.stats();
            assertThat(st.bytesReceived.sum()).isEqualTo(bytes);
            assertThat(st.decode.errorsByKind())
                    .isEqualTo(Map.of(DecodeError.NOT_SFLOW_V5, 5L, DecodeError.TRUNCATED, 1L));
            assertThat(st.decode.datagrams()).isEqualTo(datagrams - 6);
            assertThat(st.flowRows.sum()).isEqualTo(sink.size());
            assertThat(st.unknownHeaderProtocol.sum()).isZero();
            assertThat(st.zeroSamplingRate.sum()).isZero();
            assertThat(st.sinkErrors.sum()).isZero();
            assertThat(c.flowSinks()).hasSize(2).contains(sink);
            assertThat(c.rawSinks()).isEmpty();
        }
        long t1 = EpochNanos.now();
        assertThat(sink.closed).as("extra sinks are closed with the collector").isTrue();
        assertThat(datagrams).isEqualTo(67);

        Map<String, Integer> counts = new HashMap<>();
        rows.forEach((k, v) -> counts.put(k, v.size()));
        // goflow2 TestSFlowDecodeDropEgressQueue: discard, source 0:1, drops 256, in 1, out 2, reason 1.
        FlowRow drop = rows.get("goflow2-TestSFlowDecodeDropEgressQueue.pcap").getFirst();
        assertThat(drop.sampleType).isEqualTo(FlowRow.DISCARD);
        assertThat(drop.discardReason).isEqualTo(1);
        assertThat(drop.forwardingStatus).isEqualTo(131); // host_unreachable: unroutable
        assertThat(drop.drops).isEqualTo(256);
        assertThat(drop.inIf).isEqualTo(1);
        assertThat(drop.outIf).isEqualTo(2);
        assertThat(drop.sourceIdIndex).isEqualTo(1);
        assertThat(drop.samplingRate).isZero();
        assertThat(counts).isEqualTo(Map.ofEntries(
                Map.entry("akvorado-data-encap-vxlan.pcap", 1),
                Map.entry("akvorado-data-icmpv4.pcap", 1),
                Map.entry("akvorado-data-icmpv6.pcap", 1),
                Map.entry("akvorado-data-local-interface.pcap", 1),
                Map.entry("akvorado-data-multiple-interfaces.pcap", 1),
                Map.entry("akvorado-data-sflow-ipv4-data.pcap", 1),
                Map.entry("akvorado-data-sflow-raw-ipv4.pcap", 2),
                Map.entry("goflow2-TestSFlowDecode.pcap", 1),
                Map.entry("goflow2-TestSFlowDecodeDropEgressQueue.pcap", 1), // a discard: a row with its reason
                Map.entry("goflow2-TestSFlowDecodeDropExtendedACL.pcap", 1),
                Map.entry("tcpdump-sflow-print-v6.pcap", 13),
                Map.entry("tcpdump-sflow_expanded.pcap", 1),
                Map.entry("tcpdump-sflow_multiple_counter_30_pdus.pcap", 0), // counters + NetFlow only
                Map.entry("tcpdump-sflow_print-segv.pcap", 0)));

        for (List<FlowRow> list : rows.values()) {
            for (FlowRow r : list) {
                assertThat(addr(r.peerAddress)).isEqualTo("127.0.0.1");
                assertThat(r.timeReceivedNanos).isBetween(t0, t1);
                assertThat(r.packets).isEqualTo(1);
                // Bytes = L3 length (FlowRow's rule): never more than the frame, and set for every IP sample.
                assertThat(r.bytes).isLessThanOrEqualTo(Math.max(r.frameLength, r.bytes));
                if (r.sampleType == FlowRow.FLOW) {
                    assertThat(r.bytes).isPositive();
                }
            }
        }

        // tcpdump tests/sflow_expanded.pcap: expanded sample, ifIndex > 2^24 never masked.
        FlowRow x = rows.get("tcpdump-sflow_expanded.pcap").get(0);
        assertThat(x.bytes).as("IP total length 104 from the sampled header").isEqualTo(104);
        // Akvorado data-encap-vxlan: VNI 100 carrying IPv6 2001:db8:4::1 -> 2001:db8:4::3 ICMPv6.
        FlowRow vx = rows.get("akvorado-data-encap-vxlan.pcap").get(0);
        assertThat(vx.encapsulation).isEqualTo(io.vecflow.packet.ParsedPacket.Encapsulation.VXLAN.ordinal());
        assertThat(vx.tunnelId).isEqualTo(100);
        assertThat(addr(vx.innerSrcAddr)).isEqualTo("2001:db8:4::1");
        assertThat(addr(vx.innerDstAddr)).isEqualTo("2001:db8:4::3");
        assertThat(vx.innerProtocol).isEqualTo(58);
        assertThat(x.encapsulation).isZero();
        assertThat(addr(x.agentAddress)).isEqualTo("49.49.49.49");
        assertThat(x.datagramSequence).isEqualTo(115694180);
        assertThat(x.samplingRate).isEqualTo(1000);
        assertThat(x.samplePool).isEqualTo(1521799520L);
        assertThat(x.inIfFormat).isZero();
        assertThat(x.inIf).isEqualTo(29001);
        assertThat(x.outIfFormat).isZero();
        assertThat(x.outIf).isEqualTo(1285816721L);
        assertThat(x.headerLength).isEqualTo(122);
        assertThat(x.vlan).isEqualTo(809);
        assertThat(x.etherType).isEqualTo(0x0800);
        assertThat(addr(x.srcAddr)).isEqualTo("52.52.52.52");
        assertThat(addr(x.dstAddr)).isEqualTo("53.53.53.53");
        assertThat(x.protocol).isEqualTo(6);
        assertThat(x.srcPort).isEqualTo(22);
        assertThat(x.dstPort).isEqualTo(52237);

        // Akvorado data-sflow-ipv4-data: sampled_ethernet with MACs padded to 8 bytes.
        FlowRow a = rows.get("akvorado-data-sflow-ipv4-data.pcap").get(0);
        assertThat(addr(a.agentAddress)).isEqualTo("49.49.49.49");
        assertThat(a.subAgentId).isEqualTo(1);
        assertThat(DatagramJsonWriter.mac(a.srcMac)).isEqualTo("00:fe:c8:99:05:47");
        assertThat(DatagramJsonWriter.mac(a.dstMac)).isEqualTo("01:00:5e:2a:aa:04");
        assertThat(addr(a.srcAddr)).isEqualTo("50.50.50.50");
        assertThat(addr(a.dstAddr)).isEqualTo("51.51.51.51");
        assertThat(a.protocol).isEqualTo(17);
        assertThat(a.srcPort).isEqualTo(46622);
        assertThat(a.dstPort).isEqualTo(58631);
        assertThat(a.samplingRate).isEqualTo(256);
        assertThat(a.inIf).isZero();
        assertThat(a.outIf).isEqualTo(182);

        // Akvorado data-sflow-raw-ipv4: header_protocol 11, the header starts at IPv4 (no Ethernet).
        List<FlowRow> raw = rows.get("akvorado-data-sflow-raw-ipv4.pcap");
        for (FlowRow r : raw) {
            assertThat(addr(r.agentAddress)).isEqualTo("172.19.64.116");
            assertThat(r.subAgentId).isEqualTo(100000);
            assertThat(r.headerProtocol).isEqualTo(11);
            assertThat(r.headerLength).isEqualTo(32);
            assertThat(r.srcMac).isZero();
            assertThat(r.dstMac).isZero();
            assertThat(r.etherType).isEqualTo(0x0800);
            assertThat(r.protocol).isEqualTo(1);
            assertThat(addr(r.srcAddr)).isEqualTo("69.58.92.107");
            assertThat(r.samplingRate).isEqualTo(1);
            assertThat(r.inIf).isZero();
            assertThat(r.outIf).isEqualTo(2);
        }
        assertThat(raw).extracting(r -> addr(r.dstAddr)).containsExactly("92.222.186.1", "92.222.184.1");

        // goflow2 TestSFlowDecode: compact sample, VLAN 32, ICMP.
        FlowRow g = rows.get("goflow2-TestSFlowDecode.pcap").get(0);
        assertThat(addr(g.agentAddress)).isEqualTo("172.16.0.17");
        assertThat(g.datagramSequence).isEqualTo(426);
        assertThat(g.sampleSequence).isEqualTo(6);
        assertThat(g.sourceIdType).isZero();
        assertThat(g.sourceIdIndex).isEqualTo(1043);
        assertThat(g.samplingRate).isEqualTo(2048);
        assertThat(g.samplePool).isEqualTo(12288);
        assertThat(g.inIf).isEqualTo(1194);
        assertThat(g.outIf).isEqualTo(1043);
        assertThat(g.headerLength).isEqualTo(78);
        assertThat(g.vlan).isEqualTo(32);
        assertThat(g.protocol).isEqualTo(1);
        assertThat(addr(g.srcAddr)).isEqualTo("172.16.32.254");
        assertThat(addr(g.dstAddr)).isEqualTo("172.16.32.241");

        // Direction from the data source: goflow2's source 0:1043 is its output port (egress), as are Akvorado's
        // ipv4-data (0:182, output 182) and raw-ipv4 (0:2, output 2); tcpdump's expanded sample (0:11001, in 29001)
        // and Akvorado's local-interface (0:28, in 27) name neither interface.
        assertThat(g.direction).isEqualTo(FlowRow.EGRESS);
        assertThat(a.direction).isEqualTo(FlowRow.EGRESS);
        assertThat(raw).extracting(r -> r.direction).containsOnly(FlowRow.EGRESS);
        assertThat(x.direction).isEqualTo(FlowRow.DIRECTION_UNDEFINED);
        assertThat(rows.get("akvorado-data-local-interface.pcap").get(0).direction)
                .isEqualTo(FlowRow.DIRECTION_UNDEFINED);

        // Akvorado data-icmpv6: IPv6 addresses, internal interfaces (0x3FFFFFFF) kept.
        FlowRow v6 = rows.get("akvorado-data-icmpv6.pcap").get(0);
        assertThat(addr(v6.agentAddress)).isEqualTo("127.0.0.1");
        assertThat(v6.subAgentId).isEqualTo(1402);
        assertThat(v6.headerLength).isEqualTo(86);
        assertThat(v6.inIf).isEqualTo(0x3FFFFFFFL);
        assertThat(v6.outIf).isEqualTo(0x3FFFFFFFL);
        assertThat(v6.etherType).isEqualTo(0x86DD);
        assertThat(v6.protocol).isEqualTo(58);
        assertThat(addr(v6.srcAddr)).isEqualTo("fe80::d05b:45ff:feee:5ecf");
        assertThat(addr(v6.dstAddr)).isEqualTo("2001:db8::");

        // Akvorado local/multiple interfaces: 964 trailing bytes ignored, output format 2 count 7.
        FlowRow local = rows.get("akvorado-data-local-interface.pcap").get(0);
        assertThat(local.outIfFormat).isZero();
        assertThat(local.outIf).isEqualTo(0x3FFFFFFFL);
        FlowRow multi = rows.get("akvorado-data-multiple-interfaces.pcap").get(0);
        assertThat(multi.outIfFormat).isEqualTo(2);
        assertThat(multi.outIf).isEqualTo(7);

        // tcpdump sflow-print-v6: IPv6 agent, output 0x80000000 = format 2, count unknown.
        List<FlowRow> p6 = rows.get("tcpdump-sflow-print-v6.pcap");
        assertThat(p6).allSatisfy(r -> {
            assertThat(addr(r.agentAddress)).isEqualTo("30::1:1:1");
            assertThat(r.outIfFormat).isEqualTo(2);
            assertThat(r.outIf).isZero();
        });
        assertThat(p6).extracting(r -> r.headerLength).containsOnly(60L, 128L);

        // The JSON-lines sink got the same rows, in the same order.
        List<Map<String, Object>> lines = readJsonLines(json);
        List<FlowRow> all = sink.rows();
        assertThat(lines).hasSize(all.size());
        for (int i = 0; i < all.size(); i++) {
            FlowRow r = all.get(i);
            Map<String, Object> l = lines.get(i);
            assertThat(l.get("agent")).isEqualTo(addr(r.agentAddress));
            assertThat(l.get("src_addr")).isEqualTo(addr(r.srcAddr));
            assertThat(l.get("dst_addr")).isEqualTo(addr(r.dstAddr));
            assertThat(l.get("output")).isEqualTo(r.outIf);
            assertThat(l.get("src_mac")).isEqualTo(DatagramJsonWriter.mac(r.srcMac));
            assertThat(l.get("sample_sequence")).isEqualTo(r.sampleSequence);
            assertThat(l.get("direction")).isEqualTo(FlowSchema.DIRECTIONS.get(r.direction));
        }
        assertThat(lines.get(all.indexOf(x)).get("output")).isEqualTo(1285816721L);
        assertThat(senderPort).isPositive();
    }

    private static List<Map<String, Object>> readJsonLines(Path file) throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        JsonFactory f = new JsonFactory();
        for (String line : Files.readAllLines(file)) {
            Map<String, Object> m = new LinkedHashMap<>();
            try (JsonParser p = f.createParser(line)) {
                assertThat(p.nextToken()).isEqualTo(JsonToken.START_OBJECT);
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    JsonToken t = p.nextToken();
                    m.put(name, t == JsonToken.VALUE_NUMBER_INT ? (Object) p.getLongValue() : p.getText());
                }
            }
            out.add(m);
        }
        return out;
    }

    @Test
    void netflowAndTruncatedDatagramsAreCountedAndTheCollectorKeepsReceiving() throws Exception {
        TestSupport.CopyingSink sink = new TestSupport.CopyingSink();
        try (Collector c = start(sink, null); TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            // tcpdump tests/sflow_multiple_counter_30_pdus.pcap: 25 sFlow counter datagrams + 5 NetFlow v5 packets.
            List<byte[]> multi = Captures.udpPayloads("tcpdump-sflow_multiple_counter_30_pdus.pcap");
            assertThat(multi).hasSize(30);
            tx.sendPaced(multi, 16, () -> received(c));
            awaitReceived(c, 30);
            assertThat(c.stats().decode.errors(DecodeError.NOT_SFLOW_V5)).isEqualTo(5);
            assertThat(c.stats().decode.datagrams()).isEqualTo(25);
            // tcpdump tests/sflow_print-segv.pcap: 8 bytes (a datagram needs >= 28).
            List<byte[]> segv = Captures.udpPayloads("tcpdump-sflow_print-segv.pcap");
            assertThat(segv).hasSize(1);
            assertThat(segv.get(0)).hasSize(8);
            tx.send(segv.get(0));
            awaitReceived(c, 31);
            assertThat(c.stats().decode.errors(DecodeError.TRUNCATED)).isEqualTo(1);
            assertThat(c.stats().decode.badDatagrams()).isEqualTo(6);
            assertThat(sink.size()).isZero();
            // A good datagram afterwards still becomes a row.
            tx.send(Captures.udpPayloads("goflow2-TestSFlowDecode.pcap").get(0));
            awaitReceived(c, 32);
            assertThat(sink.rows()).singleElement().satisfies(r -> {
                assertThat(addr(r.agentAddress)).isEqualTo("172.16.0.17");
                assertThat(addr(r.dstAddr)).isEqualTo("172.16.32.241");
            });
            assertThat(c.stats().decode.errorsByKind())
                    .isEqualTo(Map.of(DecodeError.NOT_SFLOW_V5, 5L, DecodeError.TRUNCATED, 1L));
        }
    }

    @Test
    void randomGarbageNeverStopsTheServerAndEveryDatagramIsCounted() throws Exception {
        long seed = new Random().nextLong();
        Random rnd = new Random(seed);
        List<byte[]> good = new ArrayList<>();
        for (String capture : Captures.all()) {
            good.addAll(Captures.udpPayloads(capture));
        }
        // 2,000 datagrams of at most 1,500 bytes: plain noise, a valid sFlow v5 header followed by noise, and real
        // datagrams with a few bytes flipped and/or cut short. Plus empty and 1-byte datagrams.
        List<byte[]> garbage = new ArrayList<>();
        int noise = 0, noiseShort = 0;
        garbage.add(new byte[0]);
        garbage.add(new byte[] {5});
        while (garbage.size() < 2000) {
            byte[] d;
            switch (garbage.size() % 3) {
                case 0 -> {
                    d = new byte[rnd.nextInt(1501)];
                    rnd.nextBytes(d);
                    if (d.length >= 4 && d[0] == 0 && d[1] == 0 && d[2] == 0 && d[3] == 5) {
                        d[3] = 6; // noise is never version 5
                    }
                    noise++;
                    noiseShort += d.length < 28 ? 1 : 0;
                }
                case 1 -> {
                    d = new byte[28 + rnd.nextInt(1501 - 28)];
                    rnd.nextBytes(d);
                    d[0] = d[1] = d[2] = 0;
                    d[3] = 5;
                    d[4] = d[5] = d[6] = 0;
                    d[7] = (byte) (1 + rnd.nextInt(2));
                    int numSamples = d[7] == 1 ? 24 : 36; // offset of num_samples
                    if (rnd.nextBoolean() && d.length >= numSamples + 4) { // a plausible count: the loop runs
                        d[numSamples] = d[numSamples + 1] = d[numSamples + 2] = 0;
                        d[numSamples + 3] = (byte) rnd.nextInt(6);
                    }
                }
                default -> {
                    byte[] src = good.get(rnd.nextInt(good.size()));
                    d = src.clone();
                    for (int k = 1 + rnd.nextInt(8); k > 0 && d.length > 0; k--) {
                        d[rnd.nextInt(d.length)] = (byte) rnd.nextInt(256);
                    }
                    if (rnd.nextInt(3) == 0 && d.length > 0) {
                        d = java.util.Arrays.copyOf(d, rnd.nextInt(d.length));
                    }
                    d = java.util.Arrays.copyOf(d, Math.min(d.length, 1500));
                }
            }
            garbage.add(d);
        }
        // The reference: the same datagrams through a DatagramProcessor called directly, no network.
        CollectorStats ref = new CollectorStats();
        TestSupport.CopyingSink refRows = new TestSupport.CopyingSink();
        DatagramProcessor direct = new DatagramProcessor(ref.decode, ref, List.of(), List.of(refRows));
        byte[] peer = TestSupport.addr16("127.0.0.1");
        long bytes = 0;
        for (byte[] d : garbage) {
            direct.process(d, 0, d.length, 1, peer, 1);
            bytes += d.length;
        }

        TestSupport.CopyingSink sink = new TestSupport.CopyingSink();
        try (Collector c = start(sink, tmp.resolve("g.jsonl"));
                TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            tx.sendPaced(garbage, 32, () -> received(c));
            awaitReceived(c, garbage.size());
            CollectorStats st = c.stats();
            String why = "seed " + seed;
            assertThat(st.bytesReceived.sum()).as(why).isEqualTo(bytes);
            assertThat(st.decode.errorsByKind()).as(why).isEqualTo(ref.decode.errorsByKind());
            assertThat(st.decode.badDatagrams()).as(why).isEqualTo(ref.decode.badDatagrams())
                    .isEqualTo(st.decode.errorsByKind().values().stream().mapToLong(Long::longValue).sum());
            assertThat(st.decode.datagrams()).as(why).isEqualTo(ref.decode.datagrams());
            assertThat(st.flowRows.sum()).as(why).isEqualTo(ref.flowRows.sum()).isEqualTo(sink.size());
            assertThat(st.sinkErrors.sum()).as(why).isZero();
            // Plain noise never starts with version 5: short ones are TRUNCATED, the rest NOT_SFLOW_V5 (at least).
            assertThat(st.decode.errors(DecodeError.TRUNCATED)).as(why).isGreaterThanOrEqualTo(noiseShort + 2);
            assertThat(st.decode.errors(DecodeError.NOT_SFLOW_V5)).as(why)
                    .isGreaterThanOrEqualTo(noise - noiseShort);
            assertThat(st.decode.badDatagrams()).as(why).isGreaterThanOrEqualTo(noise + 2);

            // Still alive: a good datagram afterwards becomes a row.
            int before = sink.size();
            byte[] fresh = Captures.udpPayloads("tcpdump-sflow_expanded.pcap").get(0).clone();
            // a new datagram of that agent (the garbage held copies of it, left out as duplicates)
            io.vecflow.sflow.DatagramHeader.rewriteSequence(fresh, 0, fresh.length, 0x7777, 0x7777);
            tx.send(fresh);
            awaitReceived(c, garbage.size() + 1);
            assertThat(sink.size()).isEqualTo(before + 1);
            FlowRow last = sink.rows().get(before);
            assertThat(addr(last.agentAddress)).isEqualTo("49.49.49.49");
            assertThat(last.outIf).isEqualTo(1285816721L);
        }
    }

    @Test
    void aThrowingSinkIsCountedAndTheOtherSinksStillGetTheRows() throws Exception {
        TestSupport.CopyingSink sink = new TestSupport.CopyingSink();
        FlowSink broken = new TestSupport.CopyingSink() {
            @Override
            public synchronized void accept(FlowRow row) {
                throw new IllegalStateException("disk full");
            }
        };
        Collector.Settings s = new Collector.Settings();
        s.bindAddress = "127.0.0.1";
        s.port = 0;
        s.extraFlowSinks.add(broken);
        s.extraFlowSinks.add(sink);
        try (Collector c = new Collector(s); TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            List<byte[]> v6 = Captures.udpPayloads("tcpdump-sflow-print-v6.pcap");
            tx.sendPaced(v6, 16, () -> received(c));
            awaitReceived(c, v6.size());
            assertThat(sink.size()).isEqualTo(13);
            assertThat(c.stats().sinkErrors.sum()).isEqualTo(13);
            assertThat(c.stats().flowRows.sum()).isEqualTo(13);
        }
    }

    @Test
    void aDatagramIsCountedOnlyOnceEverySinkHasItsRows() throws Exception {
        // A slow sink (as ClickHouse's append lock or a full disk can be): whoever sees datagramsReceived reach N and
        // then flushes must find the rows of those N datagrams in the sinks.
        TestSupport.CopyingSink slow = new TestSupport.CopyingSink() {
            @Override
            public void accept(FlowRow row) {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                super.accept(row);
            }
        };
        try (Collector c = start(slow, null); TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            tx.send(Captures.udpPayloads("akvorado-data-sflow-raw-ipv4.pcap").get(0)); // 2 flow samples
            TestSupport.await("the datagram to be counted", WAIT, () -> received(c) >= 1);
            assertThat(slow.size()).as("rows in the sink when the datagram is counted").isEqualTo(2);
            assertThat(c.stats().flowRows.sum()).isEqualTo(2);
        }
    }

    @Test
    void aTakenPortFailsTheConstructorAndLeavesNothingRunning() throws Exception {
        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            long loopsBefore = eventLoopThreads();
            TestSupport.CopyingSink sink = new TestSupport.CopyingSink();
            Collector.Settings s = new Collector.Settings();
            s.bindAddress = "127.0.0.1";
            s.port = taken.getLocalPort();
            s.jsonLines = tmp.resolve("never.jsonl");
            s.extraFlowSinks.add(sink);
            assertThatThrownBy(() -> new Collector(s)).isInstanceOf(java.net.BindException.class)
                    .hasMessageContaining("127.0.0.1:" + taken.getLocalPort())
                    .hasMessageContaining("Address already in use");
            assertThat(sink.closed).as("sinks are closed when the collector cannot start").isTrue();
            TestSupport.await("event loop threads to stop", WAIT, () -> eventLoopThreads() <= loopsBefore,
                    () -> "(" + eventLoopThreads() + " running, " + loopsBefore + " before)");
        }
    }

    private static long eventLoopThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("multiThreadIoEventLoopGroup")).count();
    }

    @Test
    void afterCloseThePortIsFreeAndNothingMoreIsCounted() throws Exception {
        Collector c = start(null, null);
        InetSocketAddress at = c.localAddress();
        c.close();
        try (DatagramSocket again = new DatagramSocket(at)) {
            assertThat(again.getLocalPort()).isEqualTo(at.getPort());
        }
        assertThat(received(c)).isZero();
    }
}
