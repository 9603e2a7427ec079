package io.vecflow.dataplane;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code sflow}: 1-in-N ingress packet sampling with a random skip, exactly as FDio/vpp {@code src/plugins/sflow}
 * samples: the skip to the next sample is uniform in [1, 2N−1] (mean N) from a per-worker PRNG seeded with the worker
 * index; skip 1 takes the next packet; when the skip exceeds the rest of the vector the whole vector passes and the
 * skip shrinks by its size. N = 1 samples every packet, N = 0 disables sampling. Every packet goes on to the next node.
 *
 * <p>A sample copies up to {@code headerBytes} bytes of the frame into a {@link SampleRecord} from the worker's
 * {@link SampleFifo}; a full FIFO drops the sample and counts it. No allocation per packet or sample.
 */
public final class SflowNode extends Node {
    /** Node name. */
    public static final String NAME = "sflow";

    private final SampleFifo fifo;
    private volatile int samplingRate;
    private volatile int headerBytes;
    private long rng;
    private long skip;
    private int lastRate;
    private volatile long pool, samples;

    /**
     * @param worker worker index (seeds the PRNG, as VPP seeds with the thread index)
     * @param samplingRate N (0 disables)
     * @param headerBytes header bytes to copy, 1..256
     * @param fifo this worker's sample FIFO
     * @param next the next node name
     */
    public SflowNode(int worker, int samplingRate, int headerBytes, SampleFifo fifo, String next) {
        super(NAME, next);
        if (headerBytes < 1 || headerBytes > SampleRecord.MAX_HEADER_BYTES) {
            throw new IllegalArgumentException("header-bytes must be 1..256, got " + headerBytes);
        }
        if (samplingRate < 0) {
            throw new IllegalArgumentException("sampling-rate must be >= 0, got " + samplingRate);
        }
        this.fifo = fifo;
        this.samplingRate = samplingRate;
        this.headerBytes = headerBytes;
        this.rng = 0x9E3779B97F4A7C15L * (worker + 1);
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
        if (rate != lastRate) {
            lastRate = rate;
            skip = nextSkip(rate);
        }
        if (rate != 0) {
            pool += n;
            long s = skip;
            int i = 0;
            while (s <= n - i) {
                int idx = i + (int) s - 1;
                take(w.pool(), v.buffers[idx], rate);
                i = idx + 1;
                s = nextSkip(rate);
            }
            skip = s - (n - i);
        }
        w.enqueueAll(next(0), v);
    }

    private void take(BufferPool pool, int b, int rate) {
        samples++;
        SampleRecord r = fifo.claim();
        if (r == null) {
            return;
        }
        int len = pool.length[b];
        int h = Math.min(len, headerBytes);
        r.samplingRate = rate;
        r.inputIfIndex = pool.rxIfIndex[b];
        r.outputIfIndex = 0;
        r.frameLength = len;
        r.headerLength = h;
        r.dropReason = -1;
        r.direction = 0;
        r.timestampNanos = pool.timestampNanos[b];
        MemorySegment.copy(pool.data(), ValueLayout.JAVA_BYTE, pool.offset(b), r.header, 0, h);
        fifo.publish(r);
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
        return pool;
    }

    /** @return samples taken (including those the FIFO then dropped). */
    public long samplesTaken() {
        return samples;
    }

    /** @return the FIFO this node fills. */
    public SampleFifo fifo() {
        return fifo;
    }
}
