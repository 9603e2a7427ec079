package io.vecflow.bench;

import io.vecflow.dataplane.Dataplane;
import io.vecflow.dataplane.DataplaneSpec;
import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.plugins.lb.EncapType;
import io.vecflow.dataplane.plugins.lb.LoadBalancer;
import io.vecflow.dataplane.plugins.lb.Protocol;
import io.vecflow.dataplane.plugins.lb.VipKey;
import io.vecflow.dataplane.plugins.lb.maglev.ConnectionTable;
import io.vecflow.dataplane.plugins.lb.maglev.MaglevTable;
import io.vecflow.dataplane.port.SinkPort;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.dataplane.vnet.interfaces.Port;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;
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
import org.openjdk.jmh.annotations.Level;
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
 *   <li>{@code ip4-routed}: the same frames to 10.1.0.9 (no VIP: lb4 passes them on) — port-input → ethernet-input →
 *       ip4-input → lb4 → ip4-lookup → ip4-rewrite → interface-output → port-output: the routed path every IPv4
 *       packet pays, the reference for how much of {@code lb-*} is the LB itself.</li>
 *   <li>{@code lb-hit-N}: port-input → ethernet-input → ip4-input → lb4 → ip4-lookup → ip4-rewrite →
 *       interface-output → port-output, every packet one of N flows already tracked (cycled in a fixed random order):
 *       connection-table hit, GRE4 encapsulation (the inner 50 bytes shifted by 24), outer TTL and MACs.</li>
 *   <li>{@code lb-new-N}: the same path, every packet a never-seen flow, the simulated clock advancing 40 s / N per
 *       packet (UDP idle timeout 40 s), so ≈ N entries are live and each insert reclaims an expired slot: lookup miss,
 *       Maglev table lookup, insert.</li>
 * </ul>
 * Setup: one VIP (192.0.2.1/32 udp 5678, gre4, Maglev M = 65537) over 100 backends behind one route (with
 * {@link #vips} &gt; 1, other VIPs ahead of it); connection table
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
     * l2-xconnect, ip4-routed, lb-{hit,new}-{1k,100k,1m} (Maglev GRE4 over IPv4), lb6-{hit,new}-N (Maglev SRv6 H.Encaps
     * over IPv6, the same TCP frames as SRLB), srlb-{hit,new}-N (SRLB).
     */
    @Param({"l2-xconnect", "ip4-routed", "lb-hit-1k", "lb-hit-100k", "lb-hit-1m", "lb-new-1k", "lb-new-100k",
            "lb-new-1m",
        "lb6-hit-1k", "lb6-hit-100k", "lb6-hit-1m", "lb6-new-1k", "lb6-new-100k", "lb6-new-1m",
        "srlb-hit-1k", "srlb-hit-100k", "srlb-hit-1m", "srlb-new-1k", "srlb-new-100k", "srlb-new-1m"})
    public String mode;

    /**
     * VIPs configured (1–256): {@code vips − 1} other /32 VIPs (198.51.100.x / 2001:db8:fffe::x, same protocol and
     * port, no backends) are added before the measured one, so that a lookup that scanned the VIP list would reach
     * the measured VIP last. Not used by l2-xconnect; srlb modes take 1 only.
     */
    @Param({"1"})
    public int vips;

    private Dataplane dp;
    private PsampleEmitter emitter;
    private Worker worker;

    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * A port standing in for the NIC: each {@code rx} fills up to {@code max} buffers with {@link #frame} and advances
     * the simulated clock by {@code step} ns per packet; {@code tx} frees.
     */
    abstract static class FrameGenerator extends Port {
        private final long[] clock;
        private final long step;

        FrameGenerator(String name, int ifIndex, long[] clock, long step) {
            super(name, ifIndex, 1);
            this.clock = clock;
            this.step = step;
        }

        /** Writes one frame at {@code o} of {@code d}. @return its length, bytes */
        abstract int frame(MemorySegment d, long o);

        /** Writes the Ethernet header (from 02:00:00:00:00:99 to the input MAC) into a frame template. */
        static void ethernet(MemorySegment t, int etherType) {
            t.set(BE32, 0, (int) (MAC_IN >>> 16));
            t.set(BE16, 4, (short) MAC_IN);
            t.set(BE32, 6, 0x02000000);
            t.set(BE16, 10, (short) 0x0099);
            t.set(BE16, 12, (short) etherType);
        }

        @Override
        public final int rx(int queue, BufferPool pool, PacketVector out, int max) {
            MemorySegment d = pool.data();
            int n = 0;
            long octets = 0;
            for (; n < max; n++) {
                int b = pool.alloc();
                if (b < 0) {
                    break;
                }
                int len = frame(d, pool.offset(b));
                octets += len;
                pool.length[b] = len;
                pool.rxIfIndex[b] = ifIndex();
                pool.txIfIndex[b] = 0;
                out.add(b);
            }
            clock[0] += step * n;
            counters().add(queue, PortCounters.RX_PACKETS, n);
            counters().add(queue, PortCounters.RX_OCTETS, octets);
            return n;
        }

        @Override
        public final void tx(int queue, BufferPool pool, PacketVector v) {
            pool.free(v);
        }
    }

    /** 64-byte UDP frames to {@code dst} port 5678 from a cycle of flows or from ever-new flows. */
    static final class Generator extends FrameGenerator {
        private final MemorySegment template = MemorySegment.ofArray(new byte[64]);
        private final int[] srcAddr;
        private final short[] srcPort;
        private final boolean fresh;
        private int next;
        private long seq;

        Generator(int ifIndex, int dst, int flows, boolean fresh, long[] clock, long step) {
            super("gen", ifIndex, clock, step);
            this.fresh = fresh;
            ethernet(template, 0x0800);
            template.set(BE32, 14, 0x4500_0032); // IPv4, IHL 5, total length 50
            template.set(BE32, 18, 0x0001_4000); // ID 1, DF
            template.set(BE32, 22, 0x4011_0000); // TTL 64, UDP, checksum later
            template.set(BE32, 30, dst);
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
        int frame(MemorySegment d, long o) {
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
            return 64;
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
    static final class Generator6 extends FrameGenerator {
        private final MemorySegment client = MemorySegment.ofArray(new byte[74]);
        private final MemorySegment server = MemorySegment.ofArray(new byte[130]);
        private final int flows;
        private final boolean fresh;
        private final long[] order;
        boolean signal;
        private int next;
        private long seq;

        Generator6(int ifIndex, int flows, boolean fresh, long[] clock, long step) {
            super("gen6", ifIndex, clock, step);
            this.flows = flows;
            this.fresh = fresh;
            for (MemorySegment t : new MemorySegment[] {client, server}) {
                ethernet(t, 0x86DD);
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
        int frame(MemorySegment d, long o) {
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
                return 130;
            }
            MemorySegment.copy(client, 0, d, o, 74);
            d.set(BE64, o + 30, lo);
            return 74;
        }
    }

    /** @return the flow count a mode names by its suffix ({@code -1k}, {@code -100k}, {@code -1m}) */
    static int flows(String mode) {
        return switch (mode.substring(mode.lastIndexOf('-') + 1)) {
            case "1k" -> 1_000;
            case "100k" -> 100_000;
            case "1m" -> 1_000_000;
            default -> throw new IllegalArgumentException("LbGraphBenchmark mode " + mode + ": no flow count");
        };
    }

    /** Builds the dataplane for the mode (not started: this thread runs the worker). */
    @Setup
    public void setUp() throws Exception {
        boolean v6 = mode.startsWith("lb6-") || mode.startsWith("srlb-");
        boolean l2 = mode.equals("l2-xconnect");
        boolean reference = l2 || mode.equals("ip4-routed");
        int flows = reference ? 1000 : flows(mode);
        boolean fresh = mode.contains("-new-");
        long[] clock = {1_000_000_000L};
        // 40 s: Maglev TCP (and UDP, set below) idle timeout and SRLB active timeout; a fresh flow every 40 s / N
        long step = fresh ? ConnectionTable.DEFAULT_TCP_IDLE_NANOS / flows : 0;
        FrameGenerator gen = v6 ? new Generator6(1, flows, fresh, clock, step)
                : new Generator(1, reference && !l2 ? 0x0A010009 : VIP, flows, fresh, clock, step); // 10.1.0.9
        DataplaneSpec t = new DataplaneSpec();
        t.workers = 1;
        t.interfaces = new InterfaceTable(2);
        t.interfaces.add(gen, MAC_IN, 1500, !l2);
        t.interfaces.add(new SinkPort("out", 2, 1), 0x0200000000C2L, 1500, !l2);
        if (l2) {
            t.interfaces.xconnect(1, 2);
        }
        t.forwarding = v6 ? new Forwarding.Builder().neighbour("fd00:9::2", "02:aa:00:00:00:02")
                .route("fc00::/16", "fd00:9::2", 2).route("fd00:c::/64", "fd00:9::2", 2).build()
                : new Forwarding.Builder().neighbour("10.1.255.254", "02:aa:00:00:00:02")
                .route("10.1.0.0/16", "10.1.255.254", 2).build();
        t.samplingRate = 0;
        t.lb = new LoadBalancer.Settings();
        if (v6) {
            t.lb.ip6Source = InetAddress.ofLiteral("fd00:ff::1");
        } else {
            t.lb.ip4Source = InetAddress.ofLiteral("10.9.0.1");
            t.lb.udpTimeoutSeconds = 40;
        }
        t.lb.flowTableSlots = Math.max(2048, 2 * Integer.highestOneBit(flows * 2 - 1));
        t.lb.hashSeed = 0x9E3779B97F4A7C15L;
        t.lb.clock = () -> clock[0];
        emitter = PsampleEmitter.openUnicast(1, Psample.Convention.VPP); // never used: the worker runs alone
        dp = new Dataplane(t, emitter, null, null);
        worker = dp.workers().get(0);
        if (l2) {
            return;
        }
        List<InetAddress> backends = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            backends.add(InetAddress.ofLiteral(v6 ? "fc00:" + Integer.toHexString(i + 1) + "::"
                    : "10.1." + (i / 250) + "." + (1 + i % 250)));
        }
        VipKey key = v6 ? new VipKey(InetAddress.ofLiteral("2001:db8:ffff::1"), 128, Protocol.TCP, 80)
                : new VipKey(InetAddress.ofLiteral("192.0.2.1"), 32, Protocol.UDP, 5678);
        LoadBalancer lb = dp.plugin(LoadBalancer.class);
        if (vips < 1 || vips > LoadBalancer.MAX_VIPS || (vips > 1 && mode.startsWith("srlb-"))) {
            throw new IllegalArgumentException("LbGraphBenchmark vips " + vips + ": 1.." + LoadBalancer.MAX_VIPS
                    + ", and 1 for srlb modes (their signals name VIP slot 0)");
        }
        for (int i = 0; i < vips - 1; i++) {
            lb.addVip(new VipKey(InetAddress.ofLiteral(v6 ? "2001:db8:fffe::" + Integer.toHexString(i + 1)
                    : "198.51.100." + i), v6 ? 128 : 32, key.protocol(), key.port()),
                    v6 ? EncapType.SRV6 : EncapType.GRE4, 251);
        }
        lb.addVip(key, mode.startsWith("srlb-") ? EncapType.SRLB : v6 ? EncapType.SRV6 : EncapType.GRE4,
                MaglevTable.DEFAULT_SIZE);
        lb.addBackends(key, backends);
        if (fresh || reference) {
            return;
        }
        // each flow learnt (STEER) from its server's CREATE_STICKINESS, as after its handshake
        if (mode.startsWith("srlb-")) {
            Generator6 g6 = (Generator6) gen;
            g6.signal = true;
            cycle(flows);
            g6.signal = false;
            LoadBalancer.SrlbCounters c = lb.srlbCounters(key);
            long learnt = c.firstChoiceAccepts() + c.secondChoiceAccepts() + c.otherAccepts();
            if (learnt < flows - flows / 1000) { // a few find their 16-slot probe window full (table full)
                throw new IllegalStateException("SRLB setup: " + learnt + " of " + flows + " flows learnt");
            }
        }
        cycle(flows); // every flow of the cycle tracked before measuring
    }

    /** Runs the worker until the generator has gone through its cycle of {@code flows} once (and a little more). */
    private void cycle(int flows) {
        for (int i = 0; i < flows / VECTOR + 2; i++) {
            worker.runOnce();
        }
    }

    private long[] nodeNanos0;
    private long[] nodePackets0;

    /** Notes each node's runtime counters before an iteration (outside the measured time). */
    @Setup(Level.Iteration)
    public void runtimeBefore() {
        Node[] nodes = worker.nodes();
        nodeNanos0 = new long[nodes.length];
        nodePackets0 = new long[nodes.length];
        for (int i = 0; i < nodes.length; i++) {
            nodeNanos0[i] = nodes[i].nanos();
            nodePackets0[i] = nodes[i].packets();
        }
    }

    /**
     * Prints this iteration's runtime split ({@code show runtime}: per node, ns per packet it processed, and the
     * graph's total per generated packet; the input port's polling is not timed) to stderr, so a run shows which
     * node the time goes to.
     */
    @TearDown(Level.Iteration)
    public void runtimeAfter() {
        Node[] nodes = worker.nodes();
        StringBuilder sb = new StringBuilder("lb-graph runtime ").append(mode).append(':');
        long total = 0, packets = 0;
        for (int i = 0; i < nodes.length; i++) {
            long dn = nodes[i].nanos() - nodeNanos0[i], dp = nodes[i].packets() - nodePackets0[i];
            total += dn;
            if (nodes[i].name().equals("ethernet-input")) {
                packets = dp;
            }
            if (dp > 0) {
                sb.append(String.format(" %s %.1f", nodes[i].name(), (double) dn / dp));
            }
        }
        sb.append(String.format(" | total %.1f ns/packet", packets == 0 ? 0.0 : (double) total / packets));
        System.err.println(sb);
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
