package io.vecflow.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.control.DataplaneControl;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.plugins.clove.Clove;
import io.vecflow.dataplane.plugins.clove.Overlay;
import io.vecflow.dataplane.port.PcapReplayPort;
import io.vecflow.dataplane.port.SinkPort;
import io.vecflow.dataplane.sflow.SampleFifo;
import io.vecflow.dataplane.sflow.SampleRecord;
import io.vecflow.dataplane.sflow.SflowNode;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.netlink.psample.LbDecisionCookie;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two CLOVE vSwitches (in-memory ports) through the whole graph: hv A encapsulates h1's flows toward hv B, one CLOVE
 * decision cookie per new flowlet on the egress samples, B decapsulates them to h2 unchanged but for the routed TTL;
 * a CE mark on one path reaches B, rides back in B's reverse traffic as the Geneve feedback option, and cuts exactly
 * that path's weight at A (0.67, the others 1.11); probes leave worker 0 with the right TTLs and source ports; the
 * encap, decap and feedback paths allocate nothing per packet.
 */
class CloveGraphTest {
    private static final long MAC_A = 0x0200000000A0L, MAC_B = 0x0200000000B0L;
    private static final int VTEP_A = 0x0AFF0102, VTEP_B = 0x0AFF0202; // 10.255.1.2, 10.255.2.2
    private final List<Dataplane> dps = new ArrayList<>();
    private PsampleEmitter em;

    @AfterEach
    void close() {
        for (Dataplane d : dps) {
            d.close();
        }
        if (em != null) {
            em.close();
        }
    }

    private Clove.Settings settings(int vtep, int peer, int peerPrefix, long[] clock) {
        Clove.Settings s = new Clove.Settings();
        s.vtep = vtep;
        s.vni = 100;
        s.paths = 4;
        s.probeCandidates = 4;
        s.probeMaxTtl = 2;
        s.probeIntervalNanos = Long.MAX_VALUE / 4;
        s.flowletSlots = 1 << 16; // 40 flows: no slot shared
        s.clock = () -> clock[0];
        s.destinations = List.of(new Clove.DestinationSpec(peer, new int[] {peerPrefix}, new int[] {24}));
        return s;
    }

    /** A hypervisor: port 1 "vm" (host 10.0.x.1 behind it), port 2 "up" (leaf 10.255.x.1), 1-in-1 egress sampling. */
    private Dataplane hv(Port2 ports, long mac, String host, String leaf, Clove.Settings s) throws Exception {
        DataplaneSpec t = new DataplaneSpec();
        t.workers = 1;
        t.interfaces = new InterfaceTable(4);
        t.interfaces.add(ports.vm, mac, 1500, true);
        t.interfaces.add(ports.up, mac + 1, 1500, true);
        t.forwarding = new Forwarding.Builder().neighbour(host, "02:aa:00:00:00:01").neighbour(leaf,
                "02:aa:00:00:00:02")
                .route(host + "/32", host, 1).route("10.255.0.0/16", leaf, 2).build();
        t.samplingRate = 1;
        t.direction = DataplaneControl.Direction.TX;
        t.sflowInterfaces.add(ports.up.name());
        t.clove = s;
        if (em == null) {
            em = PsampleEmitter.openUnicast(1, Psample.Convention.VPP);
        }
        Dataplane d = new Dataplane(t, em, null, null);
        dps.add(d);
        return d;
    }

    private record Port2(MemoryPort vm, MemoryPort up) {
        static Port2 of(String p) {
            return new Port2(new MemoryPort(p + "vm", 1, 1), new MemoryPort(p + "up", 2, 1));
        }
    }

    /** Ethernet + IPv4 (valid header checksum) + TCP, to {@code dstMac}. */
    static byte[] tcp4(long dstMac, int src, int dst, int sport, int dport, int tos, int payload) {
        ByteBuffer b = ByteBuffer.allocate(14 + 20 + 20 + payload);
        b.putShort((short) (dstMac >>> 32)).putInt((int) dstMac).putShort((short) 0x0200).putInt(0x99)
                .putShort((short) 0x0800);
        b.putInt(0x4500_0000 | tos << 16 | (40 + payload)).putInt(0x4000).putInt(61 << 24 | 6 << 16).putInt(src)
                .putInt(dst);
        b.putShort((short) sport).putShort((short) dport).putInt(1000).putInt(2000).put((byte) 0x50)
                .put((byte) 0x10).putShort((short) 65535).putInt(0);
        for (int i = 0; i < payload; i++) {
            b.put((byte) i);
        }
        byte[] f = b.array();
        checksum(f);
        return f;
    }

    private static void checksum(byte[] f) {
        f[24] = 0;
        f[25] = 0;
        long s = 0;
        for (int i = 14; i < 34; i += 2) {
            s += (f[i] & 0xFF) << 8 | f[i + 1] & 0xFF;
        }
        while (s >>> 16 != 0) {
            s = (s & 0xFFFF) + (s >>> 16);
        }
        f[24] = (byte) (~s >>> 8);
        f[25] = (byte) ~s;
    }

    /** Inner TCP source port → outer UDP source port of Geneve frames (inner IPv4 at 14 + 36). */
    private static java.util.Map<Integer, Integer> pathByFlow(List<byte[]> frames) {
        java.util.Map<Integer, Integer> m = new java.util.TreeMap<>();
        for (byte[] f : frames) {
            m.put(u16(f, 14 + 36 + 20), u16(f, 34));
        }
        return m;
    }

    /** Sets the destination MAC (a leaf would). */
    private static byte[] to(byte[] f, long mac) {
        for (int i = 0; i < 6; i++) {
            f[i] = (byte) (mac >>> (40 - 8 * i));
        }
        return f;
    }

    private static int u16(byte[] f, int at) {
        return (f[at] & 0xFF) << 8 | f[at + 1] & 0xFF;
    }

    private static void run(Dataplane d) {
        for (int i = 0; i < 10; i++) {
            d.workers().get(0).runOnce();
        }
    }


    @Test
    void flowletsTunnelAcrossAndAMarkCutsThatPathAtTheSender() throws Exception {
        long[] clock = {1_000_000_000L};
        Port2 pa = Port2.of("a"), pb = Port2.of("b");
        Dataplane a = hv(pa, MAC_A, "10.0.1.1", "10.255.1.1", settings(VTEP_A, VTEP_B, 0x0A000200, clock));
        Dataplane b = hv(pb, MAC_B, "10.0.2.1", "10.255.2.1", settings(VTEP_B, VTEP_A, 0x0A000100, clock));
        run(a);
        run(b);
        // probes: 4 candidate ports × TTL 1..2, on the wire with TTL t (ip4-rewrite took one), UDP Length 8 + t
        assertThat(pa.up.sent).hasSize(8);
        Set<String> probes = new HashSet<>();
        for (byte[] p : pa.up.sent) {
            assertThat(u16(p, 36)).isEqualTo(Overlay.GENEVE_PORT);
            assertThat(u16(p, 38)).as("UDP Length = 8 + TTL").isEqualTo(8 + (p[22] & 0xFF));
            probes.add(u16(p, 34) + "/" + (p[22] & 0xFF));
        }
        assertThat(probes).containsExactlyInAnyOrder("49152/1", "49152/2", "49153/1", "49153/2", "49154/1",
                "49154/2", "49155/1", "49155/2");
        pa.up.sent.clear();
        pb.up.sent.clear();
        EgressSamples.decisions(a);

        // 40 flows h1 → h2
        List<byte[]> in = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            in.add(tcp4(MAC_A, 0x0A000101, 0x0A000201, 40000 + i, 5001, 0, 100));
        }
        pa.vm.inject(in);
        run(a);
        assertThat(pa.up.sent).hasSize(40);
        Set<Integer> ports = new HashSet<>();
        for (byte[] o : pa.up.sent) {
            assertThat(u16(o, 12)).isEqualTo(0x0800);
            assertThat(o[23]).as("outer UDP").isEqualTo((byte) 17);
            assertThat(ByteBuffer.wrap(o).getInt(26)).isEqualTo(VTEP_A);
            assertThat(ByteBuffer.wrap(o).getInt(30)).isEqualTo(VTEP_B);
            assertThat(o[15] & 3).as("outer ECT(0)").isEqualTo(2);
            ports.add(u16(o, 34));
        }
        assertThat(ports).as("uniform weights spread 40 flowlets over the 4 initial ports")
                .containsExactlyInAnyOrder(49152, 49153, 49154, 49155);
        List<LbDecisionCookie> cookies = EgressSamples.decisions(a);
        assertThat(cookies).hasSize(40).allSatisfy(c -> {
            assertThat(c.kind()).isEqualTo(LbDecisionCookie.Kind.CLOVE_FLOWLET);
            assertThat(c.pathWeight()).isEqualTo(1_000_000);
            assertThat(c.pathId()).isBetween(49152, 49155);
        });
        // the same flows again within the gap: same flowlets, no new cookies
        List<byte[]> first = new ArrayList<>(pa.up.sent);
        pa.up.sent.clear();
        clock[0] += 100_000;
        pa.vm.inject(in);
        run(a);
        assertThat(pathByFlow(pa.up.sent)).isEqualTo(pathByFlow(first)).hasSize(40);
        assertThat(EgressSamples.decisions(a)).isEmpty();

        // B decapsulates to h2: the inner packet as sent, TTL one less (B routes it)
        int markPort = u16(first.get(0), 34);
        List<byte[]> toB = new ArrayList<>();
        for (byte[] o : first) {
            byte[] m = o.clone();
            if (u16(m, 34) == markPort) { // the fabric marks this path: CE, outer checksum fixed
                m[15] = (byte) (m[15] | 3);
                checksum(m);
            }
            toB.add(to(m, MAC_B + 1));
        }
        pb.up.inject(toB);
        run(b);
        assertThat(pb.vm.sent).hasSize(40);
        for (int i = 0; i < 40; i++) {
            byte[] got = pb.vm.sent.get(i);
            byte[] want = in.get(i);
            assertThat(got[22] & 0xFF).isEqualTo(60);
            assertThat(Arrays.copyOfRange(got, 34, got.length)).isEqualTo(Arrays.copyOfRange(want, 34, want.length));
        }
        long marked = first.stream().filter(o -> u16(o, 34) == markPort).count();
        assertThat(b.plugin(Clove.class).totals().ceReceived).isEqualTo(marked);

        // B's reverse traffic carries the marks back; A cuts that path once (all marks arrive in one option)
        pb.vm.inject(List.of(tcp4(MAC_B, 0x0A000201, 0x0A000101, 5001, 40000, 0, 0)));
        run(b);
        byte[] back = pb.up.sent.getLast();
        assertThat(back[42] & 0x3F).as("Geneve Opt Len: option header + 1 entry").isEqualTo(2);
        assertThat(u16(back, 50)).isEqualTo(Overlay.FEEDBACK_OPTION_CLASS);
        assertThat(u16(back, 54)).isEqualTo(markPort);
        assertThat(u16(back, 56)).isEqualTo((int) marked);
        assertThat(b.plugin(Clove.class).totals().feedbackSent).isEqualTo(1);
        pa.up.inject(List.of(to(back.clone(), MAC_A + 1)));
        run(a);
        assertThat(pa.vm.sent).as("the ACK reached h1").hasSize(1);
        Clove.Destination d = a.plugin(Clove.class).destination(0);
        double[] w = d.weights();
        int cut = Arrays.stream(d.ports()).boxed().toList().indexOf(markPort);
        for (int i = 0; i < 4; i++) {
            assertThat(w[i]).isCloseTo(i == cut ? 0.67 : 1 + 0.33 / 3, org.assertj.core.data.Offset.offset(1e-9));
        }
        assertThat(a.plugin(Clove.class).totals().weightCuts).isEqualTo(1);

        // junk to the endpoint: a Geneve version 1, another VNI, a ping — counted by reason and dropped
        byte[] v1 = to(back.clone(), MAC_A + 1);
        v1[42] |= 0x40;
        byte[] otherVni = to(back.clone(), MAC_A + 1);
        otherVni[46] = 9;
        byte[] ping = tcp4(MAC_A + 1, 0x0A000201, VTEP_A, 0, 0, 0, 8);
        ping[23] = 1; // ICMP
        ping[34] = 8; // echo request
        checksum(ping);
        pa.vm.sent.clear();
        pa.up.sent.clear();
        pa.up.inject(List.of(v1, otherVni, ping));
        run(a);
        assertThat(pa.vm.sent).isEmpty();
        assertThat(pa.up.sent).as("nothing bounced back out").isEmpty();
        Clove.Counters junk = a.plugin(Clove.class).totals();
        assertThat(junk.errors).isEqualTo(2);
        assertThat(junk.refused).isEqualTo(1);
        assertThat(junk.notTunnel).isEqualTo(1);
        assertThat(a.plugin(Clove.class).show()).contains("errors 2 (refused 1) not-tunnel 1",
                "last decap error: refused (VNI, control packet or critical option)");
        assertThat(a.dropped(DropReason.CLOVE_DECAP_ERROR)).isEqualTo(2);
        assertThat(a.dropped(DropReason.CLOVE_NOT_TUNNEL)).isEqualTo(1);
        assertThat(a.plugin(Clove.class).show()).contains("cuts 1", "weight 0.670");
        try (DataplaneMetrics m = new DataplaneMetrics(a, java.net.InetAddress.getLoopbackAddress(), 0);
                java.net.http.HttpClient c = java.net.http.HttpClient.newHttpClient()) {
            String body = c.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:"
                    + m.port() + "/metrics")).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
            assertThat(body).contains("vecflow_dataplane_clove_path_weight{destination=\"10.255.2.2\",port=\""
                    + markPort + "\"} 0.67", "vecflow_dataplane_clove_events_total{event=\"weight_cuts\"} 1.0",
                    "vecflow_dataplane_clove_events_total{event=\"encapsulated\"} 80.0");
        }
    }


    /**
     * RFC 6040 §4.2 at the receiving endpoint: outer CE onto an ECT(0) inner packet makes it CE; onto a Not-ECT inner
     * packet it is dropped in edge-flowlet mode (nobody set ECT for the tunnel, so the inner transport cannot take the
     * mark) and forwarded unchanged in ECN mode (the mark is CLOVE's own signal).
     */
    @Test
    void outerCeOnANotEctInnerPacketIsDroppedInEdgeFlowletModeOnly() throws Exception {
        long[] clock = {1_000_000_000L};
        Overlay fromB = new Overlay(true, 2048, 64, VTEP_B, 100);
        List<byte[]> marked = new ArrayList<>();
        for (int tos : new int[] {0, 2}) { // Not-ECT, ECT(0)
            byte[] inner = tcp4(MAC_A, 0x0A000201, 0x0A000101, 5001, 30000 + tos, tos, 16);
            MemorySegment seg = MemorySegment.ofArray(new byte[2048]);
            MemorySegment.copy(MemorySegment.ofArray(inner), 0, seg, 0, inner.length);
            int n = fromB.encap(seg, 0, 0, inner.length, 14, VTEP_A, 49152, false, null, null, 0);
            byte[] t = Arrays.copyOf(seg.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), n);
            t[15] = (byte) (t[15] | 3); // a switch marked CE on the outer header
            checksum(t);
            marked.add(to(t, MAC_A + 1));
        }
        for (Clove.Mode mode : Clove.Mode.values()) {
            Port2 pa = Port2.of("a" + mode.ordinal());
            Clove.Settings s = settings(VTEP_A, VTEP_B, 0x0A000200, clock);
            s.mode = mode;
            Dataplane a = hv(pa, MAC_A, "10.0.1.1", "10.255.1.1", s);
            pa.up.inject(marked);
            run(a);
            List<Integer> tosOut = new ArrayList<>();
            for (byte[] o : pa.vm.sent) {
                tosOut.add(o[15] & 0xFF);
            }
            if (mode == Clove.Mode.EDGE_FLOWLET) {
                assertThat(tosOut).as("only the ECT(0) packet, now CE").containsExactly(3);
                assertThat(a.dropped(DropReason.CLOVE_CE_NOT_ECT)).isEqualTo(1);
            } else {
                assertThat(tosOut).as("Not-ECT unchanged, ECT(0) now CE").containsExactly(0, 3);
                assertThat(a.dropped(DropReason.CLOVE_CE_NOT_ECT)).isZero();
            }
            assertThat(a.plugin(Clove.class).totals().ceReceived).isEqualTo(2);
            assertThat(a.plugin(Clove.class).totals().ceToInner).isEqualTo(1);
        }
    }

    @Test
    void encapDecapAndFeedbackAllocateNothingPerPacket() throws Exception {
        long[] clock = {1_000_000_000L};
        // what A receives: h1's packets (encap, a new flowlet every round) and B's tunnelled packets with CE and
        // feedback (decap, relay, weight cut)
        Overlay fromB = new Overlay(true, 2048, 64, VTEP_B, 100);
        List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            frames.add(tcp4(MAC_A, 0x0A000101, 0x0A000201, 30000 + i, 5001, 0, 64));
            byte[] inner = tcp4(MAC_A, 0x0A000201, 0x0A000101, 5001, 30000 + i, 1, 64);
            MemorySegment seg = MemorySegment.ofArray(new byte[2048]);
            MemorySegment.copy(MemorySegment.ofArray(inner), 0, seg, 0, inner.length);
            int n = fromB.encap(seg, 0, 0, inner.length, 14, VTEP_A, 49152 + i % 4, true, new int[] {49152 + i % 4},
                    new int[] {1}, 1);
            byte[] t = Arrays.copyOf(seg.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), n);
            t[15] = (byte) (t[15] | 3);
            checksum(t);
            frames.add(t);
            if (i % 10 == 0) { // and someone pinging the endpoint: dropped without allocating
                byte[] ping = tcp4(MAC_A, 0x0A000201, VTEP_A, 0, 0, 0, 8);
                ping[23] = 1;
                ping[34] = 8;
                checksum(ping);
                frames.add(ping);
            }
        }
        List<io.vecflow.packet.PcapPacket> l = new ArrayList<>();
        for (byte[] f : frames) {
            l.add(new io.vecflow.packet.PcapPacket(0, f.length, f));
        }
        io.vecflow.packet.PcapFile cap = new io.vecflow.packet.PcapFile(io.vecflow.packet.LinkType.ETHERNET, 65535, l);
        DataplaneSpec t = new DataplaneSpec();
        t.workers = 1;
        t.interfaces = new InterfaceTable(4);
        t.interfaces.add(new PcapReplayPort("in", cap, 1, 1, Long.MAX_VALUE, 0), MAC_A, 1500, true);
        t.interfaces.add(new SinkPort("out", 2, 1), MAC_A + 1, 1500, true);
        t.forwarding = new Forwarding.Builder().neighbour("10.255.1.1", "02:aa:00:00:00:02")
                .route("0.0.0.0/0", "10.255.1.1", 2).build();
        t.samplingRate = 1;
        t.direction = DataplaneControl.Direction.TX;
        t.sflowInterfaces.add("out");
        t.clove = settings(VTEP_A, VTEP_B, 0x0A000200, clock);
        t.clove.ecnWindowNanos = 0;
        em = PsampleEmitter.openUnicast(1, Psample.Convention.VPP);
        try (Dataplane d = new Dataplane(t, em, null, null)) {
            Worker wk = d.workers().get(0);
            SampleFifo f = ((SflowNode) wk.node(SflowNode.EGRESS)).fifo();
            Runnable round = () -> {
                for (int i = 0; i < 100; i++) {
                    wk.runOnce();
                    for (SampleRecord r = f.poll(); r != null; r = f.poll()) {
                        f.release(r);
                    }
                }
                clock[0] += 1_000_000_000L; // every flowlet's gap has passed: new flowlets next round
            };
            long best = ThreadAllocation.leastPerRound(round, 20, 5);
            assertThat(best).as("bytes allocated for 25,600 CLOVE packets").isLessThan(1024);
            Clove.Counters c = d.plugin(Clove.class).totals();
            assertThat(c.encapsulated).isGreaterThan(20 * 12_000L);
            assertThat(c.decapsulated).isGreaterThan(20 * 12_000L);
            assertThat(c.newFlowlets).isGreaterThanOrEqualTo(20 * 200L);
            assertThat(c.ceReceived).isEqualTo(c.decapsulated);
            assertThat(c.feedbackSent).as("the marks B's packets carried are relayed on A's traffic to B").isPositive();
            assertThat(c.weightCuts).isPositive();
            assertThat(c.errors).isZero();
            assertThat(c.notTunnel).isGreaterThanOrEqualTo(20 * 20L);
        }
    }
}
