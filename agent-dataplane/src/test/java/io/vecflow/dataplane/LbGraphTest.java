package io.vecflow.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.dataplane.control.CommandParser;
import io.vecflow.dataplane.control.ControlException;
import io.vecflow.dataplane.control.DataplaneControl;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.plugins.lb.EncapType;
import io.vecflow.dataplane.plugins.lb.LoadBalancer;
import io.vecflow.dataplane.plugins.lb.Protocol;
import io.vecflow.dataplane.plugins.lb.VipKey;
import io.vecflow.dataplane.plugins.lb.maglev.FlowHash;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import io.vecflow.dataplane.plugins.lb.maglev.MaglevTable;
import io.vecflow.dataplane.port.PcapReplayPort;
import io.vecflow.dataplane.port.SinkPort;
import io.vecflow.dataplane.sflow.SampleFifo;
import io.vecflow.dataplane.sflow.SampleRecord;
import io.vecflow.dataplane.sflow.SflowNode;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Maglev load balancer in the graph, in memory (one worker, {@link MemoryPort}s): VIP packets leave GRE/IPIP/SRv6
 * encapsulated toward the Maglev-chosen backend through ip4/ip6-lookup and rewrite (outer TTL 64 − 1, checksums,
 * MACs); flows stick; non-VIP packets route untouched; no-VIP / no-backend / too-big cases; backend removal with and
 * without flush; counters and {@code show lb}; the control commands; and zero allocation per packet.
 */
class LbGraphTest extends LbGraphFixture {
    private static final int CLIENT_NET = 0xC6336400; // 198.51.100.0/24
    private static final List<InetAddress> BACKENDS = List.of(addr("10.1.0.1"), addr("10.1.0.2"),
            addr("10.1.0.3"), addr("10.1.0.4"));


    static InetAddress addr(String a) {
        return InetAddress.ofLiteral(a);
    }

    static VipKey key(String a, int len, Protocol p, int port) {
        return new VipKey(addr(a), len, p, port);
    }

    static byte[] udp4(int src, int dst, int sport, int dport, int payload, boolean df) {
        ByteBuffer b = ByteBuffer.allocate(14 + 28 + payload);
        b.putShort((short) (MAC_C >>> 32)).putInt((int) MAC_C).putShort((short) 0x0200).putInt(0x99)
                .putShort((short) 0x0800);
        b.put((byte) 0x45).put((byte) 0).putShort((short) (28 + payload)).putShort((short) 7)
                .putShort((short) (df ? 0x4000 : 0)).put((byte) 60).put((byte) 17).putShort((short) 0).putInt(src)
                .putInt(dst);
        b.putShort((short) sport).putShort((short) dport).putShort((short) (8 + payload)).putShort((short) 0);
        byte[] a = b.array();
        int sum = GraphForwardingTest.ip4HeaderSum(a);
        a[24] = (byte) (~sum >>> 8);
        a[25] = (byte) ~sum;
        return a;
    }

    static byte[] udp6(long srcLo, long dstHi, long dstLo, int sport, int dport, int payload) {
        ByteBuffer b = ByteBuffer.allocate(14 + 48 + payload);
        b.putShort((short) (MAC_C >>> 32)).putInt((int) MAC_C).putShort((short) 0x0200).putInt(0x99)
                .putShort((short) 0x86DD);
        b.putInt(0x60000000).putShort((short) (8 + payload)).put((byte) 17).put((byte) 60)
                .putLong(0x20010db800770000L).putLong(srcLo).putLong(dstHi).putLong(dstLo);
        b.putShort((short) sport).putShort((short) dport).putShort((short) (8 + payload)).putShort((short) 0);
        return b.array();
    }

    private static List<byte[]> flows(int n, int dport) {
        List<byte[]> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(udp4(CLIENT_NET | (1 + i % 200), VIP, 10_000 + i, dport, 20, true));
        }
        return l;
    }

    private static int outerDst(byte[] f) {
        return ByteBuffer.wrap(f).getInt(30);
    }

    private static String ip4(int a) {
        return (a >>> 24) + "." + (a >>> 16 & 0xFF) + "." + (a >>> 8 & 0xFF) + "." + (a & 0xFF);
    }

    /** The backend Maglev picks for a sent frame, from the ring the LB would use (same seed, same endpoints). */
    private static int maglevChoice(MaglevTable ring, byte[] frame) {
        FlowKey k = new FlowKey();
        java.lang.foreign.MemorySegment seg = java.lang.foreign.MemorySegment.ofArray(frame);
        assertThat(k.read(seg, 14, frame.length - 14)).isEqualTo(FlowKey.OK);
        return ring.lookup(FlowHash.hash(42L, k));
    }

    /** The ring over the backends (ids = their index in the list), weight 0 for the indexes in {@code drained}. */
    private static MaglevTable ring(List<InetAddress> backends, int... drained) {
        MaglevTable t = new MaglevTable(MaglevTable.DEFAULT_SIZE, MaglevTable.WeightMode.V1);
        List<MaglevTable.Endpoint> eps = new ArrayList<>();
        for (int i = 0; i < backends.size(); i++) {
            int a = ByteBuffer.wrap(backends.get(i).getAddress()).getInt();
            int id = i;
            eps.add(new MaglevTable.Endpoint(i, Arrays.stream(drained).anyMatch(x -> x == id) ? 0 : 1,
                    FlowHash.hash(0, 0, 0x0000_FFFF_0000_0000L | (a & 0xFFFF_FFFFL), 0, 0, 0)));
        }
        t.rebuild(eps);
        return t;
    }

    @Test
    void vipFlowsAreGreEncapsulatedToTheMaglevBackendAndStick() {
        lb.addVip(KEY, EncapType.GRE4, MaglevTable.DEFAULT_SIZE);
        lb.addBackends(KEY, BACKENDS);
        List<byte[]> in = flows(400, 5678);
        c.inject(in);
        run();
        assertThat(s.sent).hasSize(400);
        MaglevTable expect = ring(BACKENDS);
        Map<Integer, Integer> share = new HashMap<>();
        for (int i = 0; i < in.size(); i++) {
            byte[] o = s.sent.get(i), p = in.get(i);
            assertThat(ByteBuffer.wrap(o).getLong(0) >>> 16).isEqualTo(NH_S);
            assertThat(ByteBuffer.wrap(o, 6, 8).getLong() >>> 16).isEqualTo(MAC_S);
            assertThat(ByteBuffer.wrap(o).getShort(12)).isEqualTo((short) 0x0800);
            assertThat(o[14]).isEqualTo((byte) 0x45);
            assertThat(ByteBuffer.wrap(o).getShort(16) & 0xFFFF).as("outer total length").isEqualTo(24 + 48);
            assertThat(o[22] & 0xFF).as("outer TTL 64, decremented by ip4-rewrite").isEqualTo(63);
            assertThat(o[23]).as("GRE").isEqualTo((byte) 47);
            assertThat(GraphForwardingTest.ip4HeaderSum(o)).isEqualTo(0xFFFF);
            assertThat(ByteBuffer.wrap(o).getInt(26)).as("outer source").isEqualTo(0x0A090001);
            int backend = outerDst(o);
            assertThat(ip4(backend)).isEqualTo(BACKENDS.get(maglevChoice(expect, p)).getHostAddress());
            assertThat(ByteBuffer.wrap(o).getInt(34)).as("GRE: no flags, protocol IPv4").isEqualTo(0x0800);
            assertThat(Arrays.copyOfRange(o, 38, o.length)).as("inner packet unchanged")
                    .isEqualTo(Arrays.copyOfRange(p, 14, p.length));
            share.merge(backend, 1, Integer::sum);
        }
        assertThat(share).hasSize(4);
        assertThat(share.values()).allSatisfy(n -> assertThat(n).isBetween(60, 140));
        LoadBalancer.VipCounters vc = lb.vipCounters(KEY);
        assertThat(vc.packets()).isEqualTo(400);
        assertThat(vc.bytes()).isEqualTo(400L * in.get(0).length);
        assertThat(vc.newFlows()).isEqualTo(400);
        assertThat(vc.stickyHits()).isZero();
        for (InetAddress b : BACKENDS) {
            int a = ByteBuffer.wrap(b.getAddress()).getInt();
            assertThat(lb.backendCounters(KEY, b).packets()).isEqualTo((long) share.get(a));
            assertThat(lb.backendCounters(KEY, b).newFlows()).isEqualTo((long) share.get(a));
        }
        // The same flows again: sticky hits to the same backends.
        List<Integer> first = s.sent.stream().map(LbGraphTest::outerDst).toList();
        s.sent.clear();
        c.inject(in);
        run();
        assertThat(s.sent.stream().map(LbGraphTest::outerDst).toList()).isEqualTo(first);
        assertThat(lb.vipCounters(KEY).stickyHits()).isEqualTo(400);
        assertThat(lb.vipCounters(KEY).newFlows()).isEqualTo(400);
        // egress samples carry a maglev_new cookie on each placing packet (VIP, backend, flow), none on sticky hits
        dp.setSamplingRate(1);
        dp.setDirection(DataplaneControl.Direction.TX);
        dp.enableSflow("vflb-s", true);
        SampleFifo fifo = ((SflowNode) w.node(SflowNode.EGRESS)).fifo();
        for (SampleRecord r = fifo.poll(); r != null; r = fifo.poll()) {
            fifo.release(r);
        }
        List<byte[]> fresh = flows(400, 5678).subList(0, 3);
        List<byte[]> newFlows = new java.util.ArrayList<>();
        for (byte[] f : flows(403, 5678).subList(400, 403)) {
            newFlows.add(f);
        }
        c.inject(newFlows);
        c.inject(fresh);
        run();
        List<io.vecflow.netlink.psample.LbDecisionCookie> cookies = new java.util.ArrayList<>();
        int samples = 0;
        for (SampleRecord r = fifo.poll(); r != null; r = fifo.poll()) {
            samples++;
            if (r.cookieLength > 0) {
                try {
                    cookies.add(new io.vecflow.netlink.psample.LbDecisionCookie().decode(r.cookie, 0, r.cookieLength));
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }
            fifo.release(r);
        }
        assertThat(samples).isEqualTo(6);
        assertThat(cookies).as("3 new flows, 3 sticky hits").hasSize(3).allSatisfy(k -> {
            assertThat(k.kind()).isEqualTo(io.vecflow.netlink.psample.LbDecisionCookie.Kind.MAGLEV_NEW);
            assertThat(Arrays.copyOf(k.vip(), 4)).isEqualTo(addr("192.0.2.1").getAddress());
            assertThat(BACKENDS.stream().map(InetAddress::getAddress).anyMatch(a -> Arrays.equals(a,
                    Arrays.copyOf(k.backend(), 4)))).isTrue();
        });
        assertThat(lb.show()).contains("lb vip 192.0.2.1/32 protocol udp port 5678 encap gre4 new_len 65537")
                .contains("packets 806").contains("as 10.1.0.1 used slots ");
        assertThat(lb.showFlows(10)).contains("(first 10 flows shown)").contains("192.0.2.1 5678");
    }

    @Test
    void nonVipTrafficRoutesUntouchedAndVipMissesAreDroppedWithTheirReasons() {
        lb.addVip(KEY, EncapType.GRE4, 7);
        byte[] plain = udp4(CLIENT_NET | 5, 0x0A010009, 1, 2, 10, true);
        c.inject(List.of(plain));
        c.inject(flows(3, 5679)); // VIP address, port not served
        c.inject(flows(2, 5678)); // served, but no backend yet
        run();
        assertThat(s.sent).hasSize(1);
        byte[] o = s.sent.get(0);
        assertThat(o.length).isEqualTo(plain.length);
        assertThat(o[22] & 0xFF).isEqualTo(59);
        assertThat(Arrays.copyOfRange(o, 26, o.length)).isEqualTo(Arrays.copyOfRange(plain, 26, plain.length));
        assertThat(dp.dropped(DropReason.LB_NO_VIP, 1)).isEqualTo(3);
        assertThat(dp.dropped(DropReason.LB_NO_BACKEND, 1)).isEqualTo(2);
        assertThat(lb.vipCounters(KEY).noBackend()).isEqualTo(2);
    }

    @Test
    void tooBigForTheTunnelGetsAnIcmpFragmentationNeededBackToTheClient() {
        lb.addVip(KEY, EncapType.GRE4, 7);
        lb.addBackends(KEY, BACKENDS);
        byte[] big = udp4(CLIENT_NET | 9, VIP, 999, 5678, 1500 - 28, true); // IP 1500 B + 24 > MTU 1500
        byte[] bigNoDf = udp4(CLIENT_NET | 9, VIP, 998, 5678, 1500 - 28, false);
        byte[] fits = udp4(CLIENT_NET | 9, VIP, 997, 5678, 1476 - 28, true);
        c.inject(List.of(big, bigNoDf, fits));
        run();
        assertThat(s.sent).hasSize(1);
        assertThat(s.sent.get(0).length).isEqualTo(14 + 1500);
        assertThat(c.sent).hasSize(1);
        byte[] r = c.sent.get(0);
        ByteBuffer bb = ByteBuffer.wrap(r);
        assertThat(bb.getLong(0) >>> 16).isEqualTo(NH_C);
        assertThat(r[23]).as("ICMP").isEqualTo((byte) 1);
        assertThat(bb.getInt(26)).as("from the VIP").isEqualTo(VIP);
        assertThat(bb.getInt(30)).as("to the client").isEqualTo(CLIENT_NET | 9);
        assertThat(r[34]).as("type 3").isEqualTo((byte) 3);
        assertThat(r[35]).as("code 4").isEqualTo((byte) 4);
        assertThat(bb.getShort(40) & 0xFFFF).as("next-hop MTU = 1500 - 24").isEqualTo(1476);
        assertThat(GraphForwardingTest.ip4HeaderSum(r)).isEqualTo(0xFFFF);
        assertThat(bb.getShort(16) & 0xFFFF).isEqualTo(576);
        assertThat(dp.dropped(DropReason.MTU_EXCEEDED, 1)).isEqualTo(1);
        assertThat(lb.vipCounters(KEY).tooBig()).isEqualTo(2);
    }

    @Test
    void removingABackendDrainsItsFlowsAndMovesOnlyItsShareOfNewOnes() {
        lb.addVip(KEY, EncapType.GRE4, MaglevTable.DEFAULT_SIZE);
        lb.addBackends(KEY, BACKENDS);
        List<byte[]> old = flows(400, 5678);
        c.inject(old);
        run();
        List<Integer> before = s.sent.stream().map(LbGraphTest::outerDst).toList();
        s.sent.clear();
        InetAddress gone = BACKENDS.get(2);
        int goneAddr = ByteBuffer.wrap(gone.getAddress()).getInt();
        lb.delBackends(KEY, List.of(gone), false);
        assertThat(lb.slots(KEY)).containsEntry(gone, 0);
        // Old flows (tracked) keep their backends, the removed one included.
        c.inject(old);
        // New flows: Maglev over the 3 survivors; a flow whose old choice survived keeps it (minimal disruption).
        List<byte[]> fresh = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            fresh.add(udp4(CLIENT_NET | (1 + i % 200), VIP, 30_000 + i, 5678, 20, true));
        }
        c.inject(fresh);
        run();
        assertThat(s.sent.subList(0, 400).stream().map(LbGraphTest::outerDst).toList()).isEqualTo(before);
        MaglevTable all = ring(BACKENDS), survivors = ring(BACKENDS, 2);
        int moved = 0, betweenSurvivors = 0;
        for (int i = 0; i < 400; i++) {
            int now = outerDst(s.sent.get(400 + i));
            assertThat(now).isNotEqualTo(goneAddr);
            assertThat(ip4(now)).as("Maglev over the survivors")
                    .isEqualTo(BACKENDS.get(maglevChoice(survivors, fresh.get(i))).getHostAddress());
            int was = ByteBuffer.wrap(BACKENDS.get(maglevChoice(all, fresh.get(i))).getAddress()).getInt();
            if (was == goneAddr) {
                moved++;
            } else if (now != was) {
                betweenSurvivors++;
            }
        }
        assertThat(moved).isBetween(60, 140);
        // Maglev is near-minimal (paper §3.4, Table 1): only a few slots move between survivors.
        int slotsBetween = 0;
        for (int i = 0; i < all.size(); i++) {
            if (all.slot(i) != 2 && all.slot(i) != survivors.slot(i)) {
                slotsBetween++;
            }
        }
        assertThat(slotsBetween).as("slots moved between survivors").isLessThan(all.size() / 50);
        assertThat(betweenSurvivors).isLessThan(400 / 25);
        assertThat(lb.show()).contains("as 10.1.0.3 draining slots 0");
        // Flush: the removed backend's tracked flows are re-selected among the survivors.
        lb.delBackends(KEY, List.of(gone), true);
        s.sent.clear();
        c.inject(old);
        run();
        for (int i = 0; i < 400; i++) {
            int now = outerDst(s.sent.get(i));
            assertThat(now).isNotEqualTo(goneAddr);
            if (before.get(i) != goneAddr) {
                assertThat(now).isEqualTo(before.get(i));
            }
        }
        assertThat(lb.show()).doesNotContain("10.1.0.3");
    }

    @Test
    void ipv6VipsUseGre6Ipip6AndSrv6AndIpv4VipsCanTunnelOverIpv6() {
        VipKey v6 = key("2001:db8:5::1", 128, null, 0);
        lb.addVip(v6, EncapType.GRE6, 7);
        lb.addBackends(v6, List.of(addr("2001:db8:1::10")));
        c.inject(List.of(udp6(1, 0x20010db800050000L, 1, 1000, 80, 12)));
        run();
        byte[] o = s.sent.get(0);
        assertThat(ByteBuffer.wrap(o).getShort(12)).isEqualTo((short) 0x86DD);
        assertThat(o[20]).as("next header GRE").isEqualTo((byte) 47);
        assertThat(o[21] & 0xFF).isEqualTo(63);
        assertThat(ByteBuffer.wrap(o).getLong(38)).isEqualTo(0x20010db800010000L);
        assertThat(ByteBuffer.wrap(o).getLong(46)).isEqualTo(0x10);
        assertThat(ByteBuffer.wrap(o).getInt(54)).isEqualTo(0x86DD);
        lb.delVip(v6);
        lb.addVip(v6, EncapType.SRV6, 7);
        lb.addBackends(v6, List.of(addr("2001:db8:1::11")));
        lb.addVip(KEY, EncapType.IPIP, 7);
        lb.addBackends(KEY, List.of(addr("2001:db8:1::12")));
        s.sent.clear();
        c.inject(List.of(udp6(1, 0x20010db800050000L, 1, 1000, 80, 12), udp4(CLIENT_NET | 1, VIP, 1, 5678, 10,
                true)));
        run();
        assertThat(s.sent).hasSize(2);
        byte[] srv6 = s.sent.get(0)[20] == 43 ? s.sent.get(0) : s.sent.get(1);
        byte[] ipip = srv6 == s.sent.get(0) ? s.sent.get(1) : s.sent.get(0);
        assertThat(srv6[20]).as("routing header").isEqualTo((byte) 43);
        assertThat(srv6[54 + 2]).as("SRH type 4").isEqualTo((byte) 4);
        assertThat(ByteBuffer.wrap(srv6).getLong(54 + 16)).isEqualTo(0x11);
        assertThat(ipip[20]).as("IPv4 in IPv6").isEqualTo((byte) 4);
        assertThat(ByteBuffer.wrap(ipip).getLong(46)).isEqualTo(0x12);
        assertThat(ByteBuffer.wrap(ipip).getLong(22)).as("outer source").isEqualTo(0x20010db800090000L);
    }

    @Test
    void controlCommandsDriveTheLoadBalancer() throws Exception {
        DataplaneController ctl = new DataplaneController(dp);
        CommandParser.parse("lb vip 192.0.2.1/32 protocol udp port 5678 encap gre4 new_len 7").run(ctl);
        CommandParser.parse("lb as 192.0.2.1/32 protocol udp port 5678 10.1.0.1 10.1.0.2").run(ctl);
        assertThat(lb.slots(KEY)).containsExactly(Map.entry(addr("10.1.0.1"), 4), Map.entry(addr("10.1.0.2"), 3));
        assertThatThrownBy(() -> CommandParser.parse("lb as 192.0.2.1/32 protocol udp port 5678 2001:db8::1")
                .run(ctl)).isInstanceOf(ControlException.class).hasMessageContaining("gre4 needs IPv4 backends");
        assertThatThrownBy(() -> CommandParser.parse("lb vip 192.0.2.1/32 protocol udp port 5678").run(ctl))
                .isInstanceOf(ControlException.class).hasMessageContaining("exists already");
        assertThatThrownBy(() -> CommandParser.parse("lb as 192.0.2.9/32 10.1.0.1").run(ctl))
                .isInstanceOf(ControlException.class).hasMessageContaining("no VIP 192.0.2.9/32");
        // a VIP prefix over the LB's own outer source (10.9.0.1, 2001:db8:9::1) would capture the replies to it
        assertThatThrownBy(() -> CommandParser.parse("lb vip 10.9.0.0/16 encap gre4").run(ctl))
                .isInstanceOf(ControlException.class).hasMessageContaining(
                        "VIP 10.9.0.0/16 covers the LB's own outer source address 10.9.0.1 (lb ip4-src-address)");
        assertThatThrownBy(() -> CommandParser.parse("lb vip 2001:db8::/32 protocol tcp port 80 encap srv6").run(ctl))
                .isInstanceOf(ControlException.class).hasMessageContaining("covers the LB's own outer source address "
                        + "2001:db8:9::1 (lb ip6-src-address)");
        assertThatThrownBy(() -> CommandParser.parse("lb vip 10.9.0.0/31 encap gre4").run(ctl))
                .isInstanceOf(ControlException.class).hasMessageContaining("covers"); // .0 and .1
        CommandParser.parse("lb vip 10.9.0.2/31 encap gre4").run(ctl); // .2 and .3: fine
        CommandParser.parse("lb vip 10.9.0.2/31 del").run(ctl);

        CommandParser.parse("lb as 192.0.2.1/32 protocol udp port 5678 10.1.0.2 del").run(ctl);
        assertThat(CommandParser.parse("show lb").run(ctl)).contains("as 10.1.0.2 draining slots 0")
                .contains("as 10.1.0.1 used slots 7");
        CommandParser.parse("lb as 192.0.2.1/32 protocol udp port 5678 10.1.0.2 del flush").run(ctl);
        assertThat(CommandParser.parse("show lb").run(ctl)).doesNotContain("10.1.0.2");
        assertThat(CommandParser.parse("show lb flows").run(ctl)).startsWith("worker");
        CommandParser.parse("lb vip 192.0.2.1/32 protocol udp port 5678 del").run(ctl);
        assertThat(CommandParser.parse("show lb").run(ctl)).doesNotContain("lb vip");
        assertThat(lb.hasIpv4Vips()).isFalse();
    }


    @Test
    void theLbPathAllocatesNothingPerPacket() throws Exception {
        List<io.vecflow.packet.PcapPacket> frames = new ArrayList<>();
        for (byte[] f : flows(1000, 5678)) {
            frames.add(new io.vecflow.packet.PcapPacket(0, f.length, f));
        }
        for (byte[] f : List.of(udp4(CLIENT_NET | 5, 0x0A010009, 1, 2, 10, true), // routed, not a VIP
                udp4(CLIENT_NET | 9, VIP, 999, 5678, 1500 - 28, true), // too big: ICMP reply
                udp4(CLIENT_NET | 9, VIP, 999, 5679, 10, true))) { // no VIP: dropped
            frames.add(new io.vecflow.packet.PcapPacket(0, f.length, f));
        }
        DataplaneSpec t = new DataplaneSpec();
        t.workers = 1;
        t.interfaces = new InterfaceTable(4);
        t.interfaces.add(new PcapReplayPort("in", new io.vecflow.packet.PcapFile(io.vecflow.packet.LinkType.ETHERNET,
                65535, frames), 1, 1, Long.MAX_VALUE, 0), MAC_C, 1500, true);
        t.interfaces.add(new SinkPort("out", 2, 1), MAC_S, 1500, true);
        t.forwarding = new Forwarding.Builder().neighbour("10.9.0.2", "02:aa:00:00:00:02")
                .route("10.1.0.0/16", "10.9.0.2", 2).route("198.51.100.0/24", "10.9.0.2", 2).build();
        t.samplingRate = 0;
        t.lb = new LoadBalancer.Settings();
        t.lb.ip4Source = addr("10.9.0.1");
        try (Dataplane d = new Dataplane(t, em, null, null)) {
            LoadBalancer l = d.plugin(LoadBalancer.class);
            l.addVip(KEY, EncapType.GRE4, MaglevTable.DEFAULT_SIZE);
            l.addBackends(KEY, BACKENDS);
            Worker wk = d.workers().get(0);
            Runnable round = () -> {
                for (int i = 0; i < 400; i++) {
                    wk.runOnce(); // 102,400 packets: 1,000 flows (sticky hits after the first pass), 3 others
                }
            };
            long best = ThreadAllocation.leastPerRound(round, 20, 5);
            assertThat(best).as("bytes allocated for 102,400 LB/routed/ICMP/dropped packets").isLessThan(1024);
            assertThat(l.vipCounters(KEY).stickyHits()).isGreaterThan(100_000);
            assertThat(l.vipCounters(KEY).tooBig()).isPositive();
            assertThat(d.dropped(DropReason.LB_NO_VIP)).isPositive();
            assertThat(t.interfaces.port(2).counters().sum(PortCounters.TX_PACKETS))
                    .isGreaterThan(100_000);
        }
    }
}
