package io.vecflow.dataplane.sflow;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.FeatureArc;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.vnet.error.DropReason;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * {@code sflow} / {@code sflow-egress} / {@code sflow-drop}: 1-in-N packet sampling with a random skip, exactly as
 * FDio/vpp {@code src/plugins/sflow} samples: the skip to the next sample is uniform in [1, 2N−1] (mean N) from a
 * per-worker PRNG seeded with the worker index; skip 1 takes the next packet; when the skip exceeds the rest of the
 * vector the whole vector passes and the skip shrinks by its size. N = 1 samples every packet, N = 0 disables sampling.
 * Every packet goes on to the next node.
 *
 * <p>Three directions, as feature nodes: {@code sflow} on the {@code device-input} arc (ingress: input ifIndex = the
 * receive port; output = the transmit port the graph then gives the packet — the record is held in the worker's
 * {@link IngressSampleHold} and published at the end of the dispatch round with the buffer's transmit ifIndex, or
 * with output 0 at {@code error-drop}; VPP's plugin always reports 0 there), {@code sflow-egress} on
 * {@code interface-output} (input = receive port, output = transmit port), {@code sflow-drop} on {@code error-drop} —
 * which takes <em>every</em> dropped packet (no skip; the discard FIFO and the main thread's rate limit bound them)
 * with its own receive ifIndex and {@link DropReason}.
 *
 * <p>A sample copies up to {@code headerBytes} bytes of the frame into a {@link SampleRecord} from the worker's
 * {@link SampleFifo}, with the decision cookie the packet carries ({@link BufferPool#cookieLength}, set by a
 * load-balancer node), if any; a full FIFO drops the sample and counts it. No allocation per packet or sample.
 */
public final class SflowNode extends Node {
    /** Ingress node name. */
    public static final String NAME = "sflow";
    /** Egress node name. */
    public static final String EGRESS = "sflow-egress";
    /** Drop node name. */
    public static final String DROP = "sflow-drop";

    /** Sampling direction, as in {@link SampleRecord#direction}. */
    public enum Direction {
        /** Received packets. */
        INGRESS,
        /** Transmitted packets. */
        EGRESS,
        /** Dropped packets. */
        DROP
    }

    private final SampleFifo fifo;
    private final Direction direction;
    private final FeatureArc arc;
    private final int position;
    private volatile int samplingRate;
    private volatile int headerBytes;
    private long rng;
    private long skip;
    private int lastRate;
    // Written by this worker only, read by the main and control threads: opaque (no fence per vector or sample).
    private long samplePoolCount, samples;
    private static final VarHandle SAMPLE_POOL, SAMPLES;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            SAMPLE_POOL = l.findVarHandle(SflowNode.class, "samplePoolCount", long.class);
            SAMPLES = l.findVarHandle(SflowNode.class, "samples", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * @param worker worker index (seeds the PRNG, as VPP seeds with the thread index)
     * @param samplingRate N (0 disables)
     * @param headerBytes header bytes to copy, 1..256
     * @param fifo this worker's sample FIFO
     * @param next the next node name
     */
    public SflowNode(int worker, int samplingRate, int headerBytes, SampleFifo fifo, String next) {
        this(NAME, worker, Direction.INGRESS, samplingRate, headerBytes, fifo, null, next);
    }

    /**
     * A feature node on an arc.
     *
     * @param worker worker index (seeds the PRNG)
     * @param direction which arc: INGRESS on device-input, EGRESS on interface-output, DROP on error-drop
     * @param samplingRate N (0 disables; ignored for DROP, which takes every packet unless N = 0)
     * @param headerBytes header bytes to copy, 1..256
     * @param fifo this worker's sample FIFO (the discard FIFO for DROP)
     * @param arc the arc this feature sits on
     */
    public SflowNode(int worker, Direction direction, int samplingRate, int headerBytes, SampleFifo fifo,
            FeatureArc arc) {
        this(switch (direction) {
            case INGRESS -> NAME;
            case EGRESS -> EGRESS;
            case DROP -> DROP;
        }, worker, direction, samplingRate, headerBytes, fifo, arc, null);
    }

    private SflowNode(String name, int worker, Direction direction, int samplingRate, int headerBytes,
            SampleFifo fifo, FeatureArc arc, String next) {
        super(name, next == null ? new String[0] : new String[] {next});
        this.direction = direction;
        this.arc = arc;
        this.position = arc == null ? -1 : arc.position(name);
        if (headerBytes < 1 || headerBytes > SampleRecord.MAX_HEADER_BYTES) {
            throw new IllegalArgumentException("header-bytes must be 1..256, got " + headerBytes);
        }
        if (samplingRate < 0) {
            throw new IllegalArgumentException("sampling-rate must be >= 0, got " + samplingRate);
        }
        this.fifo = fifo;
        this.samplingRate = samplingRate;
        this.headerBytes = headerBytes;
        this.rng = 0x9E3779B97F4A7C15L * (worker + 1) + direction.ordinal();
        this.skip = nextSkip(samplingRate);
        this.lastRate = samplingRate;
    }

    /** xorshift64* step; returns 64 random bits. */
    private long nextRandom() {
        long x = rng;
        x ^= x >>> 12;
        x ^= x << 25;
        x ^= x >>> 27;
        rng = x;
        return x * 0x2545F4914F6CDD1DL;
    }

    /** @return a skip uniform in [1, 2N−1]; 1 when N ≤ 1. */
    private long nextSkip(int n) {
        if (n <= 1) {
            return 1;
        }
        long range = 2L * n - 1;
        return 1 + (((nextRandom() >>> 32) * range) >>> 32);
    }

    @Override
    protected void process(Worker w, PacketVector v) {
        int n = v.count;
        int rate = samplingRate;
        BufferPool pool = w.pool();
        if (direction == Direction.DROP) {
            if (rate != 0) {
                SAMPLE_POOL.setOpaque(this, samplePoolCount + n);
                for (int i = 0; i < n; i++) {
                    take(w, pool, v.buffers[i], 1);
                }
            }
        } else {
            if (rate != lastRate) {
                lastRate = rate;
                skip = nextSkip(rate);
            }
            if (rate != 0) {
                SAMPLE_POOL.setOpaque(this, samplePoolCount + n);
                long s = skip;
                int i = 0;
                while (s <= n - i) {
                    int idx = i + (int) s - 1;
                    take(w, pool, v.buffers[idx], rate);
                    i = idx + 1;
                    s = nextSkip(rate);
                }
                skip = s - (n - i);
            }
        }
        if (arc == null) {
            w.enqueueAll(next(0), v);
            return;
        }
        // No interface has a later feature on this arc (the usual case): the whole vector goes to the end node.
        int common = arc.commonTarget(position + 1);
        if (common >= 0) {
            w.enqueueAll(common, v);
            return;
        }
        // Vectors usually hold one interface's packets (port-input enqueues per port): then the whole vector goes to
        // the same next node in one bulk copy; otherwise packet by packet.
        int[] ifs = direction == Direction.EGRESS ? pool.txIfIndex : pool.rxIfIndex;
        int first = ifs[v.buffers[0]];
        boolean uniform = true;
        for (int i = 1; i < n && uniform; i++) {
            uniform = ifs[v.buffers[i]] == first;
        }
        if (uniform) {
            w.enqueueAll(arc.target(first, position + 1), v);
            return;
        }
        for (int i = 0; i < n; i++) {
            int b = v.buffers[i];
            arc.next(w, b, ifs[b], position);
        }
        v.count = 0;
    }

    private void take(Worker w, BufferPool pool, int b, int rate) {
        SAMPLES.setOpaque(this, samples + 1);
        SampleRecord r = fifo.claim();
        if (r == null) {
            return;
        }
        int len = pool.length[b];
        int h = Math.min(len, headerBytes);
        r.samplingRate = rate;
        r.inputIfIndex = pool.rxIfIndex[b];
        r.outputIfIndex = direction == Direction.INGRESS ? 0 : pool.txIfIndex[b]; // ingress: filled on completion
        r.frameLength = len;
        r.headerLength = h;
        r.dropReason = direction == Direction.DROP ? pool.dropReason[b] : -1;
        r.direction = direction.ordinal();
        r.timestampNanos = pool.timestampNanos[b];
        MemorySegment.copy(pool.data(), ValueLayout.JAVA_BYTE, pool.offset(b), r.header, 0, h);
        int cl = pool.cookieLength[b];
        r.cookieLength = cl;
        if (cl > 0) {
            System.arraycopy(pool.cookies(), b * BufferPool.COOKIE_BYTES, r.cookie, 0, cl);
        }
        if (direction == Direction.INGRESS) {
            // published once the graph decided the packet's output
            w.bufferHold(IngressSampleHold.class, IngressSampleHold::new).hold(b, r, fifo);
        } else {
            fifo.publish(r);
        }
    }

    /**
     * Changes the header bytes copied per sample at run time (VPP {@code sflow header-bytes B}).
     *
     * @param b bytes, 1..256
     * @throws IllegalArgumentException outside that range
     */
    public void setHeaderBytes(int b) {
        if (b < 1 || b > SampleRecord.MAX_HEADER_BYTES) {
            throw new IllegalArgumentException("header-bytes must be 1..256, got " + b);
        }
        headerBytes = b;
    }

    /** @return the sampling direction. */
    public Direction direction() {
        return direction;
    }

    /**
     * Changes N at run time (VPP {@code sflow sampling-rate N}); the current skip is redrawn.
     *
     * @param n new rate, 0 disables
     */
    public void setSamplingRate(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("sampling-rate must be >= 0, got " + n);
        }
        samplingRate = n;
    }

    /** @return N in force. */
    public int samplingRate() {
        return samplingRate;
    }

    /** @return packets seen while sampling was enabled (the sFlow sample_pool). */
    public long samplePool() {
        return (long) SAMPLE_POOL.getOpaque(this);
    }

    /** @return samples taken (including those the FIFO then dropped). */
    public long samplesTaken() {
        return (long) SAMPLES.getOpaque(this);
    }

    /** @return the FIFO this node fills. */
    public SampleFifo fifo() {
        return fifo;
    }
}
