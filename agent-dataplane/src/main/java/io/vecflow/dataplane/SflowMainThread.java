package io.vecflow.dataplane;

import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.psample.PsampleSample;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The main thread of the sFlow feature (VPP's {@code sflow} process node): wakes every ~1 ms, drains every worker's
 * {@link SampleFifo} and emits each sample as one PSAMPLE message.
 *
 * <p>PSAMPLE fields: IIFINDEX/OIFINDEX (u32, VPP convention), ORIGSIZE = frame length without FCS, SAMPLE_GROUP =
 * the configured group, SAMPLE_RATE = N in force when sampled, DATA = the header bytes, GROUP_SEQ = a per-group
 * sequence that starts at 1 and also advances by every sample the FIFOs dropped since the previous message, so the
 * agent sees FIFO drops as a sequence gap — the standard PSAMPLE way to report lost samples — in order with the
 * samples. The drop counters are read after each record is taken, so a drop is carried by the records that were
 * queued when it happened (with a FIFO of ≥ 2 slots one always follows); drops before the first message ride on the
 * second, since the first is the agent's baseline. A failed send also leaves a gap. Nothing is allocated per sample.
 */
public final class SflowMainThread implements Runnable {
    private final List<SampleFifo> fifos;
    private final PsampleEmitter emitter;
    private final int sampleGroup;
    private final PsampleSample msg = new PsampleSample(SampleRecord.MAX_HEADER_BYTES);
    private final long[] droppedSeen;
    private final int maxPerWake;
    private volatile boolean running = true;
    private volatile boolean finished;
    private long groupSeq;
    private volatile long emitted, emitFailed, fifoDropsCarried;

    /**
     * @param fifos one FIFO per worker
     * @param emitter where samples go (its counters record netlink successes and failures)
     * @param sampleGroup PSAMPLE sample group for ingress samples (hsflowd's default is 1)
     * @param maxPerWake samples drained per FIFO per wake at most (bounds the time away from other duties)
     */
    public SflowMainThread(List<SampleFifo> fifos, PsampleEmitter emitter, int sampleGroup, int maxPerWake) {
        this.fifos = List.copyOf(fifos);
        this.emitter = emitter;
        this.sampleGroup = sampleGroup;
        this.maxPerWake = maxPerWake;
        this.droppedSeen = new long[fifos.size()];
    }

    @Override
    public void run() {
        try {
            while (running) {
                if (drainOnce() == 0) {
                    LockSupport.parkNanos(1_000_000);
                }
            }
            // Final drain after the workers stopped: everything queued goes out.
            while (drainOnce() != 0) {
                // keep going
            }
        } finally {
            finished = true;
        }
    }

    /**
     * Drains each FIFO once (up to {@code maxPerWake} records each).
     *
     * @return records emitted or attempted
     */
    public int drainOnce() {
        int total = 0;
        for (int w = 0; w < fifos.size(); w++) {
            SampleFifo f = fifos.get(w);
            for (int i = 0; i < maxPerWake; i++) {
                SampleRecord r = f.poll();
                if (r == null) {
                    break;
                }
                emit(r);
                f.release(r);
                total++;
            }
        }
        return total;
    }

    private void emit(SampleRecord r) {
        if (emitted + emitFailed == 0) {
            // The first message is the agent's baseline (seq 1, as VPP starts): drops seen before it ride on the next.
            groupSeq = 1;
        } else {
            long gap = 0;
            for (int i = 0; i < droppedSeen.length; i++) {
                long dropped = fifos.get(i).dropped();
                gap += dropped - droppedSeen[i];
                droppedSeen[i] = dropped;
            }
            fifoDropsCarried += gap;
            groupSeq = (groupSeq + 1 + gap) & 0xFFFFFFFFL;
        }
        msg.clear()
                .iifIndex(r.inputIfIndex & 0xFFFFFFFFL)
                .oifIndex(r.outputIfIndex & 0xFFFFFFFFL)
                .origSize(r.frameLength)
                .sampleGroup(sampleGroup)
                .groupSeq(groupSeq)
                .sampleRate(r.samplingRate)
                .data(r.header, 0, r.headerLength);
        if (emitter.emit(msg)) {
            emitted++;
        } else {
            emitFailed++;
        }
    }

    /** Asks the thread to finish: it drains what is queued, then returns. */
    public void stop() {
        running = false;
    }

    /** @return true once the thread has drained and returned. */
    public boolean finished() {
        return finished;
    }

    /** @return PSAMPLE messages the kernel accepted. */
    public long emitted() {
        return emitted;
    }

    /** @return PSAMPLE sends that failed (each leaves a sequence gap). */
    public long emitFailed() {
        return emitFailed;
    }

    /** @return FIFO drops carried to the agent as sequence gaps so far. */
    public long fifoDropsCarried() {
        return fifoDropsCarried;
    }

    /** @return the last GROUP_SEQ used. */
    public long groupSeq() {
        return groupSeq;
    }
}
