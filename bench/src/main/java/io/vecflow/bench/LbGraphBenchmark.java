package io.vecflow.bench;

import io.vecflow.dataplane.BufferPool;
import io.vecflow.dataplane.Dataplane;
import io.vecflow.dataplane.InterfaceTable;
import io.vecflow.dataplane.PacketVector;
import io.vecflow.dataplane.Worker;
import io.vecflow.dataplane.control.DataplaneControl.Encap;
import io.vecflow.dataplane.control.DataplaneControl.Protocol;
import io.vecflow.dataplane.control.DataplaneControl.VipKey;
import io.vecflow.dataplane.fib.Forwarding;
import io.vecflow.dataplane.lb.ConnectionTable;
import io.vecflow.dataplane.lb.LoadBalancer;
import io.vecflow.dataplane.lb.MaglevTable;
import io.vecflow.dataplane.port.Port;
import io.vecflow.dataplane.port.PortCounters;
import io.vecflow.dataplane.port.SinkPort;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The Maglev path through the dataplane graph on one worker, in memory, next to {@code l2-xconnect} in the same run
 * (issue 6: goal Maglev ≤ 2× l2-xconnect per packet; 0 B/op). One operation = one packet; each invocation is one
 * dispatch round of {@value #VECTOR} 64-byte IPv4/UDP frames from a {@link Generator} port (writes the frame — 64-byte
 * template copy plus source address, port and IPv4 header checksum — standing in for the NIC) into a
 * {@link SinkPort}:
 * <ul>
 *   <li>{@code l2-xconnect}: port-input → ethernet-input → l2-xconnect → interface-output → port-output.</li>
 *   <li>{@code lb-hit-N}: port-input → ethernet-input → ip4-input → lb4 → ip4-lookup → ip4-rewrite →
 *       interface-output → port-output, every packet one of N flows already tracked (cycled in a fixed random order):
 *       connection-table hit, GRE4 encapsulation (the inner 50 bytes shifted by 24), outer TTL and MACs.</li>
 *   <li>{@code lb-new-N}: the same path, every packet a never-seen flow, the simulated clock advancing 40 s / N per
 *       packet (UDP idle timeout 40 s), so ≈ N entries are live and each insert reclaims an expired slot: lookup miss,
 *       Maglev table lookup, insert.</li>
 * </ul>
 * Setup: one VIP (192.0.2.1/32 udp 5678, gre4, Maglev M = 65537) over 100 backends behind one route; connection table
 * of {@code 2 × nextPow2(N)} slots (≥ 2048); sFlow off.
 *
 * <p>IPv6 modes (issue 6: goal SRLB ≤ 1.03× Maglev per packet), 74-byte IPv6/TCP frames ({@link Generator6}), VIP
 * [2001:db8:ffff::1]:80 over 100 servers fc00:k:: behind one route, same table sizes:
 * <ul>
 *   <li>{@code lb6-hit-N} / {@code lb6-new-N}: Maglev with SRv6 H.Encaps (outer IPv6 + one-segment SRH, 64 bytes)
 *       — the like-for-like Maglev baseline of SRLB.</li>
 *   <li>{@code srlb-hit-N}: established flows (STEER, learnt in setup from each flow's CREATE_STICKINESS signal):
 *       flow-table hit, [server SID fn 0x2, LB SID, VIP] inserted (56 bytes).</li>
 *   <li>{@code srlb-new-N}: SYNs of never-seen flows (clock 40 s / N per packet): miss, candidate-table lookup,
 *       hunting SRH [c1, c2, LB SID, VIP] inserted (72 bytes), HUNTING stored, decision cookie written.</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms3g", "-Xmx3g", "--enable-native-access=ALL-UNNAMED"})
public class LbGraphBenchmark extends QuietGate {
    static final int VECTOR = 256;
    private static final int VIP = 0xC0000201; // 192.0.2.1
    private static final long MAC_IN = 0x0200000000C1L;

    /**
     * l2-xconnect, lb-{hit,new}-{1k,100k,1m} (Maglev GRE4 over IPv4), lb6-{hit,new}-N (Maglev SRv6 H.Encaps over
     * IPv6, the same TCP frames as SRLB), srlb-{hit,new}-N (SRLB).
     */
    @Param({"l2-xconnect", "lb-hit-1k", "lb-hit-100k", "lb-hit-1m", "lb-new-1k", "lb-new-100k", "lb-new-1m",
        "lb6-hit-1k", "lb6-hit-100k", "lb6-hit-1m", "lb6-new-1k", "lb6-new-100k", "lb6-new-1m",
        "srlb-hit-1k", "srlb-hit-100k", "srlb-hit-1m", "srlb-new-1k", "srlb-new-100k", "srlb-new-1m"})
    public String mode;

    private Dataplane dp;
    private PsampleEmitter emitter;
    private Worker worker;

    /** A port producing 64-byte UDP frames to the VIP from a cycle of flows or from ever-new flows. */
    static final class Generator extends Port {
        private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        private static final ValueLayout.OfShort BE16 =
                ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        private final MemorySegment template = MemorySegment.ofArray(new byte[64]);
        private final int[] srcAddr;
        private final short[] srcPort;
        private final boolean fresh;
        private final long[] clock;
        private final long step;
        private int next;
        private long seq;

        Generator(int ifIndex, int flows, boolean fresh, long[] clock, long step) {
            super("gen", ifIndex, 1);
            this.fresh = fresh;
            this.clock = clock;
            this.step = step;
            template.set(BE32, 0, (int) (MAC_IN >>> 16));
            template.set(BE16, 4, (short) MAC_IN);
            template.set(BE32, 6, 0x02000000);
            template.set(BE16, 10, (short) 0x0099);
            template.set(BE16, 12, (short) 0x0800);
            template.set(BE32, 14, 0x4500_0032); // IPv4, IHL 5, total length 50
            template.set(BE32, 18, 0x0001_4000); // ID 1, DF
            template.set(BE32, 22, 0x4011_0000); // TTL 64, UDP, checksum later
            template.set(BE32, 30, VIP);
            template.set(BE32, 36, 5678 << 16 | 30); // dport 5678, UDP length 30
            srcAddr = new int[fresh ? 0 : flows];
            srcPort = new short[fresh ? 0 : flows];
            SplittableRandom r = new SplittableRandom(7);
            for (int i = 0; i < srcAddr.length; i++) {
                srcAddr[i] = 0x0A800000 | r.nextInt(1 << 22);
                srcPort[i] = (short) (1024 + r.nextInt(60_000));
            }
        }

        @Override
        public int rx(int queue, BufferPool pool, PacketVector out, int max) {
            MemorySegment d = pool.data();
            int n = 0;
            for (; n < max; n++) {
                int b = pool.alloc();
                if (b < 0) {
                    break;
                }
                long o = pool.offset(b);
                MemorySegment.copy(template, 0, d, o, 64);
                int src;
                int sport;
                if (fresh) {
                    long s = seq++;
                    src = 0x0A000000 | (int) (s >>> 16) & 0x00FF_FFFF;
                    sport = (int) s & 0xFFFF;
                } else {
                    src = srcAddr[next];
                    sport = srcPort[next] & 0xFFFF;
                    next = next + 1 == srcAddr.length ? 0 : next + 1;
                }
                d.set(BE32, o + 26, src);
                d.set(BE16, o + 34, (short) sport);
                long sum = 0;
                for (int i = 14; i < 34; i += 2) {
                    sum += d.get(BE16, o + i) & 0xFFFF;
                }
                sum = (sum & 0xFFFF) + (sum >>> 16);
                sum = (sum & 0xFFFF) + (sum >>> 16);
                d.set(BE16, o + 24, (short) ~sum);
                pool.length[b] = 64;
                pool.rxIfIndex[b] = ifIndex();
                pool.txIfIndex[b] = 0;
                out.add(b);
            }
            clock[0] += step * n;
            counters().add(queue, PortCounters.RX_PACKETS, n);
            counters().add(queue, PortCounters.RX_OCTETS, 64L * n);
            return n;
        }

        @Override
        public void tx(int queue, BufferPool pool, PacketVector v) {
            pool.free(v);
        }
    }

    private static final long CLIENT_HI = 0xfd00_000c_0000_0000L, VIP6_HI = 0x2001_0db8_ffff_0000L, VIP6_LO = 1;
    private static final long LB_SID_HI = 0xfd00_00ff_0000_0000L, LB_SID_LO = 1L << 48;

    /**
     * A port producing IPv6/TCP frames (74 bytes: the smallest) from client {@code fd00:c::<i+1>} port 40000 to
     * [2001:db8:ffff::1]:80 — SYNs of ever-new flows, or ACKs of a cycle of N flows — or, in the {@link #signal}
     * phase, each cycle flow's CREATE_STICKINESS from server agent fc00:1:: to the LB SID (130 bytes: SRH
     * [client, SA SID, LB SID fn 0x8]), which puts the flow into STEER before measuring.
     */
    static final class Generator6 extends Port {
        private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        private static final ValueLayout.OfLong BE64 =
                ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        private static final ValueLayout.OfShort BE16 =
                ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        private final MemorySegment client = MemorySegment.ofArray(new byte[74]);
        private final MemorySegment server = MemorySegment.ofArray(new byte[130]);
        private final int flows;
        private final boolean fresh;
        private final long[] clock;
        private final long step;
        private final long[] order;
        boolean signal;
        private int next;
        private long seq;

        Generator6(int ifIndex, int flows, boolean fresh, long[] clock, long step) {
            super("gen6", ifIndex, 1);
            this.flows = flows;
            this.fresh = fresh;
            this.clock = clock;
            this.step = step;
            for (MemorySegment t : new MemorySegment[] {client, server}) {
                t.set(BE32, 0, (int) (MAC_IN >>> 16));
                t.set(BE16, 4, (short) MAC_IN);
                t.set(BE32, 6, 0x02000000);
                t.set(BE16, 10, (short) 0x0099);
                t.set(BE16, 12, (short) 0x86DD);
                t.set(BE32, 14, 0x6000_0000);
            }
            client.set(BE32, 18, 20 << 16 | 6 << 8 | 64); // payload 20, TCP, hop limit 64
            client.set(BE64, 22, CLIENT_HI);
            client.set(BE64, 38, VIP6_HI);
            client.set(BE64, 46, VIP6_LO);
            client.set(BE32, 54, 40000 << 16 | 80);
            client.set(ValueLayout.JAVA_BYTE, 66, (byte) 0x50);
            client.set(ValueLayout.JAVA_BYTE, 67, (byte) (fresh ? 0x02 : 0x10));
            server.set(BE32, 18, 76 << 16 | 43 << 8 | 64); // payload 56 + 20, routing header
            server.set(BE64, 22, VIP6_HI);
            server.set(BE64, 30, VIP6_LO);
            server.set(BE64, 38, LB_SID_HI);
            server.set(BE64, 46, LB_SID_LO | 0x8L << 44); // LB SID, CREATE_STICKINESS
            server.set(BE32, 54, 6 << 24 | 6 << 16 | 4 << 8 | 2); // NH TCP, len 6, type 4, SL 2
            server.set(BE32, 58, 2 << 24); // last entry 2
            server.set(BE64, 62, CLIENT_HI); // [0] client (lo per flow)
            server.set(BE64, 78, 0xfc00_0001_0000_0000L); // [1] SA SID fc00:1::
            server.set(BE64, 94, LB_SID_HI); // [2] LB SID
            server.set(BE64, 102, LB_SID_LO | 0x8L << 44);
            server.set(BE32, 110, 80 << 16 | 40000);
            server.set(ValueLayout.JAVA_BYTE, 122, (byte) 0x50);
            server.set(ValueLayout.JAVA_BYTE, 123, (byte) 0x12);
            order = new long[fresh ? 0 : flows];
            SplittableRandom r = new SplittableRandom(7);
            for (int i = 0; i < order.length; i++) {
                order[i] = i + 1;
            }
            for (int i = order.length - 1; i > 0; i--) { // fixed random visiting order
                int j = r.nextInt(i + 1);
                long x = order[i];
                order[i] = order[j];
                order[j] = x;
            }
        }

        @Override
        public int rx(int queue, BufferPool pool, PacketVector out, int max) {
            MemorySegment d = pool.data();
            int n = 0;
            for (; n < max; n++) {
                int b = pool.alloc();
                if (b < 0) {
                    break;
                }
                long o = pool.offset(b);
                long lo;
                if (fresh) {
                    lo = ++seq;
                } else {
                    lo = order[next];
                    next = next + 1 == flows ? 0 : next + 1;
                }
                if (signal) {
                    MemorySegment.copy(server, 0, d, o, 130);
                    d.set(BE64, o + 70, lo);
                    pool.length[b] = 130;
                } else {
                    MemorySegment.copy(client, 0, d, o, 74);
                    d.set(BE64, o + 30, lo);
                    pool.length[b] = 74;
                }
                pool.rxIfIndex[b] = ifIndex();
                pool.txIfIndex[b] = 0;
                out.add(b);
            }
            clock[0] += step * n;
            counters().add(queue, PortCounters.RX_PACKETS, n);
            counters().add(queue, PortCounters.RX_OCTETS, 74L * n);
            return n;
        }

        @Override
        public void tx(int queue, BufferPool pool, PacketVector v) {
            pool.free(v);
        }
    }

    /** Builds the dataplane for the mode (not started: this thread runs the worker). */
    @Setup
    public void setUp() throws Exception {
        if (mode.startsWith("lb6-") || mode.startsWith("srlb-")) {
            setUp6();
            return;
        }
        boolean l2 = mode.equals("l2-xconnect");
        int flows = l2 ? 1000 : switch (mode.substring(mode.lastIndexOf('-') + 1)) {
            case "1k" -> 1_000;
            case "100k" -> 100_000;
            case "1m" -> 1_000_000;
            default -> throw new IllegalArgumentException(mode);
        };
        boolean fresh = mode.startsWith("lb-new-");
        long[] clock = {1_000_000_000L};
        long idle = ConnectionTable.DEFAULT_TCP_IDLE_NANOS; // 40 s, also set as the UDP timeout below
        Dataplane.Topology t = new Dataplane.Topology();
        t.workers = 1;
        t.interfaces = new InterfaceTable(2);
        t.interfaces.add(new Generator(1, flows, fresh, clock, fresh ? idle / flows : 0), MAC_IN, 1500, !l2);
        t.interfaces.add(new SinkPort("out", 2, 1), 0x0200000000C2L, 1500, !l2);
        if (l2) {
            t.interfaces.xconnect(1, 2);
        }
        t.forwarding = new Forwarding.Builder().neighbour("10.1.255.254", "02:aa:00:00:00:02")
                .route("10.1.0.0/16", "10.1.255.254", 2).build();
        t.samplingRate = 0;
        t.lb = new LoadBalancer.Settings();
        t.lb.ip4Source = InetAddress.ofLiteral("10.9.0.1");
        t.lb.flowTableSlots = Math.max(2048, 2 * Integer.highestOneBit(flows * 2 - 1));
        t.lb.udpTimeoutSeconds = 40;
        t.lb.hashSeed = 0x9E3779B97F4A7C15L;
        t.lb.clock = () -> clock[0];
        emitter = PsampleEmitter.openUnicast(1, Psample.Convention.VPP); // never used: the worker runs alone
        dp = new Dataplane(t, emitter, null, null);
        if (!l2) {
            VipKey key = new VipKey(InetAddress.ofLiteral("192.0.2.1"), 32, Protocol.UDP, 5678);
            LoadBalancer lb = dp.loadBalancer();
            lb.addVip(key, Encap.GRE4, MaglevTable.DEFAULT_SIZE);
            List<InetAddress> backends = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                backends.add(InetAddress.ofLiteral("10.1." + (i / 250) + "." + (1 + i % 250)));
            }
            lb.addBackends(key, backends);
        }
        worker = dp.workers().get(0);
        if (!fresh) {
            for (int i = 0; i < flows / VECTOR + 2; i++) {
                worker.runOnce(); // every flow of the cycle tracked before measuring
            }
        }
    }

    /** The IPv6 modes: Maglev SRv6 or SRLB, 100 servers fc00:1::..fc00:100:: behind one route. */
    private void setUp6() throws Exception {
        boolean srlb = mode.startsWith("srlb-");
        int flows = switch (mode.substring(mode.lastIndexOf('-') + 1)) {
            case "1k" -> 1_000;
            case "100k" -> 100_000;
            case "1m" -> 1_000_000;
            default -> throw new IllegalArgumentException(mode);
        };
        boolean fresh = mode.contains("-new-");
        long[] clock = {1_000_000_000L};
        long idle = ConnectionTable.DEFAULT_TCP_IDLE_NANOS; // 40 s: Maglev TCP and SRLB active timeout
        Dataplane.Topology t = new Dataplane.Topology();
        t.workers = 1;
        t.interfaces = new InterfaceTable(2);
        Generator6 gen = new Generator6(1, flows, fresh, clock, fresh ? idle / flows : 0);
        t.interfaces.add(gen, MAC_IN, 1500, true);
        t.interfaces.add(new SinkPort("out", 2, 1), 0x0200000000C2L, 1500, true);
        t.forwarding = new Forwarding.Builder().neighbour("fd00:9::2", "02:aa:00:00:00:02")
                .route("fc00::/16", "fd00:9::2", 2).route("fd00:c::/64", "fd00:9::2", 2).build();
        t.samplingRate = 0;
        t.lb = new LoadBalancer.Settings();
        t.lb.ip6Source = InetAddress.ofLiteral("fd00:ff::1");
        t.lb.flowTableSlots = Math.max(2048, 2 * Integer.highestOneBit(flows * 2 - 1));
        t.lb.hashSeed = 0x9E3779B97F4A7C15L;
        t.lb.clock = () -> clock[0];
        emitter = PsampleEmitter.openUnicast(1, Psample.Convention.VPP);
        dp = new Dataplane(t, emitter, null, null);
        VipKey key = new VipKey(InetAddress.ofLiteral("2001:db8:ffff::1"), 128, Protocol.TCP, 80);
        LoadBalancer lb = dp.loadBalancer();
        lb.addVip(key, srlb ? Encap.SRLB : Encap.SRV6, MaglevTable.DEFAULT_SIZE);
        List<InetAddress> servers = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            servers.add(InetAddress.ofLiteral("fc00:" + Integer.toHexString(i) + "::"));
        }
        lb.addBackends(key, servers);
        worker = dp.workers().get(0);
        if (!fresh) {
            if (srlb) { // each flow learnt (STEER) from its server's CREATE_STICKINESS, as after its handshake
                gen.signal = true;
                for (int i = 0; i < flows / VECTOR + 2; i++) {
                    worker.runOnce();
                }
                gen.signal = false;
                LoadBalancer.SrlbCounters c = lb.srlbCounters(key);
                long learnt = c.firstChoiceAccepts() + c.secondChoiceAccepts() + c.otherAccepts();
                if (learnt < flows - flows / 1000) { // a few find their 16-slot probe window full (table full)
                    throw new IllegalStateException("SRLB setup: " + learnt + " of " + flows + " flows learnt");
                }
            }
            for (int i = 0; i < flows / VECTOR + 2; i++) {
                worker.runOnce();
            }
        }
    }

    /** Closes the dataplane. */
    @TearDown
    public void tearDown() {
        dp.close();
        emitter.close();
    }

    /** One dispatch round of 256 packets. @return packets */
    @Benchmark
    @OperationsPerInvocation(VECTOR)
    public int round() {
        return worker.runOnce();
    }
}
