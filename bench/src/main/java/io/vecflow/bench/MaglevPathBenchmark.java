package io.vecflow.bench;

import io.vecflow.dataplane.plugins.lb.encap.Encap;
import io.vecflow.dataplane.plugins.lb.maglev.ConnectionTable;
import io.vecflow.dataplane.plugins.lb.maglev.FlowHash;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import io.vecflow.dataplane.plugins.lb.maglev.MaglevTable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The Maglev data path per packet (issue 6, docs/load-balancing.md §6 "data-path benchmark"): read the 5-tuple of a
 * 64-byte IPv4 TCP frame, {@link FlowHash#hash}, {@link ConnectionTable#select} (which does the {@link
 * MaglevTable#lookup} on a miss) and {@link Encap#gre4}, with {@code flows} active flows. One operation = one packet:
 * the score is ns/packet, and {@code gc.alloc.rate.norm} (with {@code -prof gc}) is bytes/packet.
 *
 * <ul>
 *   <li>{@link #hit}: the packet belongs to one of {@code flows} tracked flows (cycled in a fixed random order over
 *       a table filled in setup): lookup hit, backend usable, idle timer refreshed.</li>
 *   <li>{@link #newFlow}: every packet is a never-seen flow, with the clock advancing 40 s / {@code flows} per packet,
 *       so that ≈ {@code flows} entries are live and each insert reclaims an expired slot (steady-state churn): lookup
 *       miss (two buckets scanned), Maglev lookup, insert.</li>
 *   <li>{@link #rxOnly}: the per-packet work outside the LB that the two others also do — write the frame
 *       (64-byte copy standing in for the NIC/RX, plus the flow's source address and port) and read its key —
 *       to subtract.</li>
 * </ul>
 * Setup: Maglev table of 65,537 slots over 100 backends; connection table of {@code 2 × nextPow2(flows)} slots
 * (≥ 2048); one 2048-byte packet buffer, encapsulated in place (the inner 50-byte IPv4 packet is shifted by 24 bytes).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class MaglevPathBenchmark extends QuietGate {
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final long SEED = 0x9E3779B97F4A7C15L;
    private static final int BACKENDS = 100;
    private static final int VIP = 0xCB00710A; // 203.0.113.10
    private static final long TCP_IDLE = ConnectionTable.DEFAULT_TCP_IDLE_NANOS;

    /** Active flows. */
    @Param({"1000", "100000", "1000000"})
    public int flows;

    private MemorySegment frame; // 64-byte template
    private MemorySegment buf;   // the packet buffer
    private int[] srcAddr;
    private short[] srcPort;
    private int next;
    private long newFlowSeq;
    private long now;
    private long nowStep;
    private final FlowKey key = new FlowKey();
    private ConnectionTable table;
    private MaglevTable ring;
    private int[] generation;
    private int[] backendAddr;
    private Encap encap;

    /**
     * Builds the frame, flows and tables; for {@link #hit} and {@link #rxOnly} the connection table is filled here
     * (for {@link #newFlow} it starts empty and reaches its steady state of ≈ {@code flows} live entries during the
     * warm-up, without a transient of 2 × {@code flows}).
     */
    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) {
        Arena arena = Arena.ofAuto();
        frame = arena.allocate(64, 64);
        buf = arena.allocate(2048, 64);
        // Ethernet + IPv4 (DF, TTL 61) + TCP ACK, 50-byte IP packet, padded to 64 bytes
        byte[] f = new byte[64];
        f[0] = 2; f[5] = 1; f[6] = 2; f[11] = 2; f[12] = 8;
        f[14] = 0x45; f[16] = 0; f[17] = 50; f[20] = 0x40; f[22] = 61; f[23] = 6;
        f[26] = (byte) 198; f[27] = 51; f[28] = 100; f[29] = 7;
        f[30] = (byte) 203; f[31] = 0; f[32] = 113; f[33] = 10;
        f[34] = (byte) 0x9c; f[35] = 0x40; f[36] = 0; f[37] = 80; f[46] = 0x50; f[47] = 0x10;
        MemorySegment.copy(f, 0, frame, ValueLayout.JAVA_BYTE, 0, 64);

        SplittableRandom r = new SplittableRandom(42);
        srcAddr = new int[flows];
        srcPort = new short[flows];
        for (int i = 0; i < flows; i++) {
            srcAddr[i] = r.nextInt();
            srcPort[i] = (short) (1024 + r.nextInt(64512));
        }
        ring = new MaglevTable();
        List<MaglevTable.Endpoint> eps = new ArrayList<>();
        backendAddr = new int[BACKENDS];
        for (int i = 0; i < BACKENDS; i++) {
            eps.add(new MaglevTable.Endpoint(i, 1, 0x0A010000L + i));
            backendAddr[i] = 0x0A010000 + i;
        }
        ring.rebuild(eps);
        generation = new int[BACKENDS];
        table = new ConnectionTable(Math.max(2048, 2 * Integer.highestOneBit(Math.max(1, flows - 1) * 2)));
        encap = new Encap(2048, Encap.DEFAULT_TTL, 0xC0000201, 0, 0);
        now = 1_000_000_000_000L;
        nowStep = TCP_IDLE / flows + 1;
        for (int i = 0; !params.getBenchmark().endsWith(".newFlow") && i < flows; i++) { // every flow tracked
            key.setIpv4(srcAddr[i], VIP, FlowKey.PROTO_TCP, srcPort[i] & 0xFFFF, 80);
            table.select(key, FlowHash.hash(SEED, key), now, ring, generation);
        }
    }

    /** Reports the table counters once per trial (stderr), e.g. to see that "full" stayed rare. */
    @TearDown(Level.Trial)
    public void report() {
        System.err.printf("maglev-path flows=%d: lookups %d hits %d inserts %d expired %d full %d%n", flows,
                table.counter(ConnectionTable.LOOKUPS), table.counter(ConnectionTable.HITS),
                table.counter(ConnectionTable.INSERTS), table.counter(ConnectionTable.EXPIRED),
                table.counter(ConnectionTable.FULL));
    }

    private void receive(int src, int sport) {
        MemorySegment.copy(frame, 0, buf, 0, 64);
        buf.set(BE32, 26, src);
        buf.set(BE16, 34, (short) sport);
    }

    private int lbPath(long nowNanos) {
        if (key.read(buf, 14, 50) != FlowKey.OK) {
            return -1;
        }
        long h = FlowHash.hash(SEED, key);
        int backend = table.select(key, h, nowNanos, ring, generation);
        if (backend < 0) {
            return -2;
        }
        return encap.gre4(buf, 0, 0, 64, 14, backendAddr[backend]) + backend;
    }

    /** A packet of a tracked flow. @return new frame length + backend (defeats dead-code elimination) */
    @Benchmark
    public int hit() {
        int i = next;
        next = i + 1 == flows ? 0 : i + 1;
        receive(srcAddr[i], srcPort[i]);
        return lbPath(now);
    }

    /** The first packet of a new flow, at {@code flows} live entries. @return frame length + backend */
    @Benchmark
    public int newFlow() {
        long j = newFlowSeq++;
        now += nowStep;
        receive((int) j ^ 0x5A000000, 1024 + (int) (j >>> 32 & 0x3FFF)); // distinct for 2^46 packets
        return lbPath(now);
    }

    /** Frame write + key read only (the part of the other two that is not LB work). @return a key field sum */
    @Benchmark
    public int rxOnly() {
        int i = next;
        next = i + 1 == flows ? 0 : i + 1;
        receive(srcAddr[i], srcPort[i]);
        return key.read(buf, 14, 50) + key.srcPort + (int) key.srcLo;
    }
}
