package io.vecflow.bench;

import io.vecflow.dataplane.Dataplane;
import io.vecflow.dataplane.DataplaneSpec;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.port.PcapReplayPort;
import io.vecflow.dataplane.port.SinkPort;
import io.vecflow.dataplane.sflow.SampleFifo;
import io.vecflow.dataplane.sflow.SampleRecord;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PcapFile;
import io.vecflow.packet.PcapPacket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
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
 * (d) The dataplane graph on one worker, in memory: one operation = one packet (each invocation is one dispatch round
 * of {@value #VECTOR} packets: {@code port-input → [sflow] → ethernet-input → l2-xconnect | ip4-input → ip4-lookup →
 * ip4-rewrite → interface-output → port-output}), from a {@link PcapReplayPort} looping in memory into a
 * {@link SinkPort}. The score is packets/s; {@code gc.alloc.rate.norm} is bytes per packet.
 *
 * <p>Modes: {@code l2-off}, {@code l2-10000}, {@code l2-1000}, {@code l2-100}: the real tcpreplay capture (179 frames,
 * testdata/traffic) cross-connected, ingress sFlow off or at 1:N; {@code ip4-1k-off}, {@code ip4-1k-1000}: 1,000
 * synthetic UDP packets to 1,000 destinations routed by a 1,000-route FIB (plus a default), TTL decremented, MACs
 * rewritten. Samples are drained in the same thread after each round (poll + release, as the main thread would; its
 * netlink send is not included), so the sampling cost measured is the worker's plus the dequeue.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", "--enable-native-access=ALL-UNNAMED"})
public class DataplaneBenchmark extends QuietGate {
    static final int VECTOR = 256;

    @Param({"l2-off", "l2-10000", "l2-1000", "l2-100", "ip4-1k-off", "ip4-1k-1000"})
    public String mode;

    private Dataplane dp;
    private PsampleEmitter emitter;
    private Worker worker;
    private SampleFifo fifo;

    static byte[] udp4(int dst, int payload) {
        ByteBuffer b = ByteBuffer.allocate(14 + 28 + payload);
        b.putShort((short) 0x0200).putInt(0xC1).putShort((short) 0x0200).putInt(0x99).putShort((short) 0x0800);
        b.put((byte) 0x45).put((byte) 0).putShort((short) (28 + payload)).putShort((short) 1)
                .putShort((short) 0x4000).put((byte) 64).put((byte) 17).putShort((short) 0).putInt(0x0A090001)
                .putInt(dst);
        b.putShort((short) 1234).putShort((short) 5678).putShort((short) (8 + payload)).putShort((short) 0);
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

    /** Builds the dataplane for the mode (not started: this thread runs the worker). */
    @Setup
    public void setUp() throws Exception {
        boolean l2 = mode.startsWith("l2-");
        String rate = mode.substring(mode.lastIndexOf('-') + 1);
        PcapFile cap;
        DataplaneSpec t = new DataplaneSpec();
        t.workers = 1;
        t.interfaces = new InterfaceTable(2);
        Forwarding.Builder fb = new Forwarding.Builder().neighbour("10.0.4.2", "02:aa:00:00:00:02");
        if (l2) {
            cap = null;
            for (java.nio.file.Path p : BenchData.pcaps("traffic")) {
                if (p.getFileName().toString().equals("tcpreplay-test.pcap")) {
                    cap = io.vecflow.packet.PcapReader.readAll(p);
                }
            }
            if (cap == null) {
                throw new IllegalStateException("tcpreplay-test.pcap not found in the bench's testdata");
            }
        } else {
            List<PcapPacket> frames = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                int dst = 0x0A000000 | (i % 200) << 16 | (i / 200) << 8 | 7;
                fb.route("10." + (i % 200) + "." + (i / 200) + ".0/24", "10.0.4.2", 2);
                byte[] f = udp4(dst, 18 + (i * 37) % 400);
                frames.add(new PcapPacket(0, f.length, f));
            }
            fb.route("0.0.0.0/0", "10.0.4.2", 2);
            cap = new PcapFile(LinkType.ETHERNET, 65535, frames);
        }
        t.interfaces.add(new PcapReplayPort("in", cap, 1, 1, Long.MAX_VALUE, 0), 0x0200000000C1L, 9000, !l2);
        t.interfaces.add(new SinkPort("out", 2, 1), 0x0200000000C2L, 9000, !l2);
        if (l2) {
            t.interfaces.xconnect(1, 2);
        }
        t.forwarding = fb.build();
        t.samplingRate = rate.equals("off") ? 0 : Integer.parseInt(rate);
        t.headerBytes = 128;
        t.fifoCapacity = Integer.getInteger("vecflow.bench.fifo", 2047);
        if (!rate.equals("off")) {
            t.sflowInterfaces.add("in");
        }
        emitter = PsampleEmitter.openUnicast(1, Psample.Convention.VPP); // never used: the worker runs alone
        dp = new Dataplane(t, emitter, null, null);
        worker = dp.workers().get(0);
        fifo = dp.sampleFifos().get(0);
    }

    /** @return the dataplane (DataplaneOverhead switches its sampling between slices) */
    Dataplane dataplane() {
        return dp;
    }

    /** Closes the dataplane. */
    @TearDown
    public void tearDown() {
        dp.close();
        emitter.close();
    }

    /** One dispatch round of 256 packets, then the samples it produced are dequeued. @return packets */
    @Benchmark
    @OperationsPerInvocation(VECTOR)
    public int round() {
        int n = worker.runOnce();
        for (SampleRecord r = fifo.poll(); r != null; r = fifo.poll()) {
            fifo.release(r);
        }
        return n;
    }
}
