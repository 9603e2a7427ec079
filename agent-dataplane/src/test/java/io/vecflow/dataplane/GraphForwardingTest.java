package io.vecflow.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.control.DataplaneControl;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;
import io.vecflow.netlink.netdm.NetDm;
import io.vecflow.netlink.netdm.NetDmEmitter;
import io.vecflow.netlink.netdm.NetDmSubscriber;
import io.vecflow.netlink.netdm.NetDmTransport;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.psample.PsampleSubscriber;
import io.vecflow.netlink.vpp.VppIfCounters;
import io.vecflow.netlink.vpp.VppStatus;
import io.vecflow.netlink.vpp.VppUsersock;
import io.vecflow.netlink.vpp.VppUsersockEmitter;
import io.vecflow.netlink.vpp.VppUsersockHandler;
import io.vecflow.netlink.vpp.VppUsersockSubscriber;
import io.vecflow.packet.PcapPacket;
import io.vecflow.packet.PcapReader;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The whole graph in memory: frames of a real capture through l2-xconnect unchanged; routed IPv4/IPv6 with TTL and
 * checksum; every drop reason the issue names counted and sent as NET_DM with its receive interface; ingress and
 * egress samples as PSAMPLE with the right ifIndexes; IF_COUNTERS equal to the ports' counters — all over real
 * NETLINK_USERSOCK sockets.
 */
class GraphForwardingTest {
    private static final Path CAPTURE = Path.of("..", "testdata", "traffic", "tcpreplay-test.pcap");
    private static final long MAC_A = 0x02000000000AL, MAC_R1 = 0x0200000000C1L, MAC_R2 = 0x0200000000C2L;
    private static final long NH_MAC = 0x02AA00000002L, NH6_MAC = 0x02AA00000006L;
    /** NET_DM IN_PORT of a port without netdev nor {@code os-index}: hsflowd's default ifOffset + its ifIndex. */
    private static final long OS = 1_000_000_000L;

    static byte[] ip4Udp(long dstMac, int src, int dst, int ttl, int payload) {
        ByteBuffer b = ByteBuffer.allocate(14 + 20 + 8 + payload);
        b.putShort((short) (dstMac >>> 32)).putInt((int) dstMac).putShort((short) 0x0200).putInt(0x00000099)
                .putShort((short) 0x0800);
        b.put((byte) 0x45).put((byte) 0).putShort((short) (28 + payload)).putShort((short) 1).putShort((short) 0x4000)
                .put((byte) ttl).put((byte) 17).putShort((short) 0).putInt(src).putInt(dst);
        b.putShort((short) 1234).putShort((short) 5678).putShort((short) (8 + payload)).putShort((short) 0);
        byte[] a = b.array();
        int sum = 0;
        for (int i = 14; i < 34; i += 2) {
            sum += (a[i] & 0xFF) << 8 | (a[i + 1] & 0xFF);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        a[24] = (byte) (~sum >>> 8);
        a[25] = (byte) ~sum;
        return a;
    }

    static byte[] ip6Udp(long dstMac, long dstHi, long dstLo, int hop, int payload) {
        ByteBuffer b = ByteBuffer.allocate(14 + 40 + 8 + payload);
        b.putShort((short) (dstMac >>> 32)).putInt((int) dstMac).putShort((short) 0x0200).putInt(0x00000099)
                .putShort((short) 0x86DD);
        b.putInt(0x60000000).putShort((short) (8 + payload)).put((byte) 17).put((byte) hop)
                .putLong(0x20010db800090000L).putLong(1).putLong(dstHi).putLong(dstLo);
        b.putShort((short) 1234).putShort((short) 5678).putShort((short) (8 + payload)).putShort((short) 0);
        return b.array();
    }

    static int ip4HeaderSum(byte[] f) {
        int sum = 0;
        for (int i = 14; i < 34; i += 2) {
            sum += (f[i] & 0xFF) << 8 | (f[i + 1] & 0xFF);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return sum;
    }

    record Sample(long group, long iif, long oif, long len) {}

    record Alert(long inPort, String reason, String trap, long origLen) {}

    @Test
    void forwardsDropsSamplesAndCountsThroughRealNetlink() throws Exception {
        MemoryPort a = new MemoryPort("vfgt-a", 1, 1), b = new MemoryPort("vfgt-b", 2, 1);
        MemoryPort r1 = new MemoryPort("vfgt-r1", 3, 1), r2 = new MemoryPort("vfgt-r2", 4, 1);
        MemoryPort lonely = new MemoryPort("vfgt-x", 5, 1);
        DataplaneSpec t = new DataplaneSpec();
        t.workers = 1;
        t.interfaces = new InterfaceTable(8);
        t.interfaces.add(a, MAC_A, 9000, false);
        t.interfaces.add(b, MAC_A + 1, 9000, false);
        t.interfaces.add(r1, MAC_R1, 1500, true);
        t.interfaces.add(r2, MAC_R2, 1500, true);
        t.interfaces.add(lonely, MAC_A + 5, 1500, false);
        t.interfaces.xconnect(1, 2);
        t.forwarding = new Forwarding.Builder().neighbour("10.0.4.2", "02:aa:00:00:00:02")
                .neighbour("2001:db8:4::2", "02:aa:00:00:00:06")
                .route("10.2.0.0/16", "10.0.4.2", 4).route("10.4.0.0/24", null, 4)
                .route("2001:db8:2::/48", "2001:db8:4::2", 4).build();
        t.samplingRate = 1;
        t.direction = DataplaneControl.Direction.BOTH;
        t.sflowInterfaces.addAll(List.of("vfgt-a", "vfgt-b", "vfgt-r1", "vfgt-r2", "vfgt-x"));
        t.dropMonitoring = true;
        t.discardLimitPerSecond = 0;
        t.pollingIntervalSeconds = 1;

        List<byte[]> capture = new ArrayList<>();
        for (PcapPacket p : PcapReader.readAll(CAPTURE).packets()) {
            capture.add(p.data());
        }
        List<byte[]> routed = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            routed.add(ip4Udp(MAC_R1, 0x0A090001, 0x0A020000 | i, 64, 20 + i));
        }
        for (int i = 0; i < 10; i++) {
            routed.add(ip6Udp(MAC_R1, 0x20010db800020000L, i, 9, 30));
        }
        List<byte[]> bad = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            bad.add(ip4Udp(MAC_R1, 0x0A090001, 0x0A020001, 1, 10)); // TTL 1
        }
        for (int i = 0; i < 5; i++) {
            bad.add(ip4Udp(MAC_R1, 0x0A090001, 0xC0000201, 64, 10)); // no route
        }
        for (int i = 0; i < 3; i++) {
            bad.add(ip4Udp(MAC_R1, 0x0A090001, 0x0A040009, 64, 10)); // connected, no neighbour
        }
        bad.add(ip6Udp(MAC_R1, 0x20010db800020000L, 1, 1, 10)); // hop limit 1
        byte[] arp = ip4Udp(MAC_R1, 1, 2, 64, 10);
        arp[12] = 0x08;
        arp[13] = 0x06;
        bad.add(arp); // bad ethertype on a routed port
        a.inject(capture);
        r1.inject(routed);
        r1.inject(bad);
        lonely.inject(capture.subList(0, 4)); // l2 no xconnect

        int expectDrops = 7 + 5 + 3 + 1 + 1 + 4;
        List<Sample> samples = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Alert> alerts = java.util.Collections.synchronizedList(new ArrayList<>());
        Map<Long, long[]> counters = new java.util.concurrent.ConcurrentHashMap<>();
        try (PsampleSubscriber psub = PsampleSubscriber.openUnicast();
                PsampleEmitter pem = PsampleEmitter.openUnicast(psub.portId(), Psample.Convention.VPP);
                NetDmSubscriber dsub = NetDmSubscriber.open(NetDmTransport.USERSOCK, 23);
                NetDmEmitter dem = NetDmEmitter.openUsersock(23, NetDm.Convention.KERNEL);
                VppUsersockSubscriber vsub = VppUsersockSubscriber.open(VppUsersock.GROUP);
                VppUsersockEmitter vem = VppUsersockEmitter.open(VppUsersock.GROUP);
                Dataplane dp = new Dataplane(t, pem, dem, vem)) {
            // The agent side reads while the dataplane runs (a netlink socket buffer holds only ~200 messages).
            var failed = new java.util.concurrent.atomic.AtomicReference<Throwable>();
            var done = new java.util.concurrent.atomic.AtomicBoolean();
            List<Thread> readers = List.of(
                    reader(done, failed, () -> psub.poll(Duration.ofMillis(20), (PsampleSample s) -> samples.add(
                            new Sample(s.sampleGroup(), s.iifIndex(), s.oifIndex(), s.origSize())))),
                    reader(done, failed, () -> dsub.poll(Duration.ofMillis(20), al -> alerts.add(new Alert(
                            al.inPortIfIndex(), al.reason(), al.hwTrapName(), al.origLen())))),
                    reader(done, failed, () -> vsub.poll(Duration.ofMillis(20), new VppUsersockHandler() {
                        @Override
                        public void onStatus(VppStatus status) {}

                        @Override
                        public void onIfCounters(VppIfCounters c) {
                            if (c.portNameString().startsWith("vfgt-")) {
                                counters.put(c.ifIndex(), new long[] {c.counter(VppUsersock.ATTR_RX_PKTS),
                                        c.counter(VppUsersock.ATTR_RX_OCTETS), c.counter(VppUsersock.ATTR_TX_PKTS),
                                        c.counter(VppUsersock.ATTR_TX_OCTETS),
                                        c.counter(VppUsersock.ATTR_RX_DISCARDS),
                                        c.has(VppUsersock.ATTR_OSINDEX) ? c.osIndex() : -1});
                            }
                        }
                    })));
            dp.start();
            dp.awaitCompletion();
            done.set(true);
            for (Thread r : readers) {
                r.join(35_000);
            }
            assertThat(failed.get()).isNull();
            assertThat(psub.overruns()).as("receive buffer overruns").isZero();
            // L2: the capture crosses a → b byte for byte, in order.
            assertThat(b.sent).hasSize(capture.size());
            for (int i = 0; i < capture.size(); i++) {
                assertThat(b.sent.get(i)).isEqualTo(capture.get(i));
            }
            // L3: 60 routed packets out of r2 with TTL - 1, valid checksum, rewritten MACs.
            assertThat(r2.sent).hasSize(60);
            for (int i = 0; i < 50; i++) {
                byte[] out = r2.sent.get(i);
                byte[] in = routed.get(i);
                assertThat(out.length).isEqualTo(in.length);
                assertThat(ByteBuffer.wrap(out).getLong(0) >>> 16).isEqualTo(NH_MAC);
                assertThat(ByteBuffer.wrap(out, 6, 8).getLong() >>> 16).isEqualTo(MAC_R2);
                assertThat(out[22] & 0xFF).isEqualTo(63);
                assertThat(ip4HeaderSum(out)).isEqualTo(0xFFFF);
                assertThat(java.util.Arrays.copyOfRange(out, 34, out.length))
                        .isEqualTo(java.util.Arrays.copyOfRange(in, 34, in.length));
            }
            for (int i = 50; i < 60; i++) {
                byte[] out = r2.sent.get(i);
                assertThat(ByteBuffer.wrap(out).getLong(0) >>> 16).isEqualTo(NH6_MAC);
                assertThat(out[14 + 7] & 0xFF).isEqualTo(8);
            }
            // Drops, per reason and per receive interface.
            assertThat(dp.dropped(DropReason.IP4_TTL_EXPIRED, 3)).isEqualTo(7);
            assertThat(dp.dropped(DropReason.IP4_NO_ROUTE, 3)).isEqualTo(5);
            assertThat(dp.dropped(DropReason.NO_NEIGHBOUR, 3)).isEqualTo(3);
            assertThat(dp.dropped(DropReason.IP6_HOP_LIMIT_EXCEEDED, 3)).isEqualTo(1);
            assertThat(dp.dropped(DropReason.BAD_ETHERTYPE, 3)).isEqualTo(1);
            assertThat(dp.dropped(DropReason.L2_NO_XCONNECT, 5)).isEqualTo(4);
            assertThat(dp.showErrors()).contains("ip4 ttl expired").contains("l2 no xconnect");
            // NET_DM: one alert per drop, with the packet's own receive interface — as the port's OSINDEX, the number
            // its IF_COUNTERS carry, so the agent gives drops, samples and counters one ifIndex — and the reasons.
            assertThat(alerts).hasSize(expectDrops);
            assertThat(alerts.stream().filter(x -> x.inPort() == OS + 3 && x.trap().equals("ttl_value_is_too_small")
                    && x.reason().equals("IP4_TTL_EXPIRED"))).hasSize(7);
            assertThat(alerts.stream().filter(x -> x.inPort() == OS + 3 && x.reason().equals("IP_INNOROUTES")))
                    .hasSize(5);
            assertThat(alerts.stream().filter(x -> x.inPort() == OS + 5 && x.trap().equals("port_list_is_empty")))
                    .hasSize(4);
            // PSAMPLE: ingress (group 3) per received packet, egress (group 4) per sent packet. An ingress sample
            // carries the output the packet was then given (the xconnect peer, the route's port), 0 when dropped.
            assertThat(samples.stream().filter(s -> s.group() == 3 && s.iif() == 1 && s.oif() == 2))
                    .hasSize(capture.size());
            assertThat(samples.stream().filter(s -> s.group() == 4 && s.iif() == 1 && s.oif() == 2))
                    .hasSize(capture.size());
            assertThat(samples.stream().filter(s -> s.group() == 4 && s.iif() == 3 && s.oif() == 4)).hasSize(60);
            assertThat(samples.stream().filter(s -> s.group() == 3 && s.iif() == 3 && s.oif() == 4))
                    .hasSize(routed.size());
            assertThat(samples.stream().filter(s -> s.group() == 3 && s.iif() == 3 && s.oif() == 0))
                    .hasSize(bad.size());
            assertThat(samples.stream().filter(s -> s.group() == 3 && s.iif() == 5 && s.oif() == 0)).hasSize(4);
            assertThat(samples.stream().filter(s -> s.group() == 3)).hasSize(capture.size() + routed.size()
                    + bad.size() + 4);
            // IF_COUNTERS equal the ports' own counters (the final flush after the workers stopped).
            for (MemoryPort p : List.of(a, b, r1, r2, lonely)) {
                long[] c = counters.get((long) p.ifIndex());
                assertThat(c).as(p.name()).isNotNull();
                assertThat(c[0]).isEqualTo(p.counters().sum(PortCounters.RX_PACKETS));
                assertThat(c[1]).isEqualTo(p.counters().sum(PortCounters.RX_OCTETS));
                assertThat(c[2]).isEqualTo(p.counters().sum(PortCounters.TX_PACKETS));
                assertThat(c[3]).isEqualTo(p.counters().sum(PortCounters.TX_OCTETS));
                assertThat(c[5]).as(p.name() + ": no netdev, no OSINDEX (as VPP without linux-cp)").isEqualTo(-1);
            }
            assertThat(counters.get(1L)[0]).isEqualTo(capture.size());
            assertThat(counters.get(4L)[2]).isEqualTo(60);
            assertThat(counters.get(3L)[4]).as("r1 rx discards = graph drops received there").isEqualTo(17);
            assertThat(dp.showSflow()).contains("ingress samples with output " + (capture.size() + routed.size())
                    + ", without (dropped or consumed) " + (bad.size() + 4));
            assertThat(dp.showRuntime()).contains("ip4-lookup").contains("l2-xconnect");
            assertThat(dp.showInterfaces()).contains("vfgt-r2");
        }
    }

    /** Polls one subscriber on its own thread until {@code done} is set, then 500 ms more. */
    private static Thread reader(java.util.concurrent.atomic.AtomicBoolean done,
            java.util.concurrent.atomic.AtomicReference<Throwable> failed, java.util.concurrent.Callable<?> poll) {
        return Thread.ofPlatform().start(() -> {
            try {
                long quietUntil = Long.MAX_VALUE;
                long end = System.currentTimeMillis() + 30_000;
                while (System.currentTimeMillis() < Math.min(end, quietUntil)) {
                    poll.call();
                    if (done.get() && quietUntil == Long.MAX_VALUE) {
                        quietUntil = System.currentTimeMillis() + 500;
                    }
                }
            } catch (Throwable e) {
                failed.set(e);
            }
        });
    }
}
