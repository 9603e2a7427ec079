package io.vecflow.dataplane.sflow;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jctools.queues.SpscArrayQueue;

/**
 * The per-worker sample FIFO between a worker (producer) and the main thread (consumer): two JCTools SPSC queues over a
 * fixed set of preallocated {@link SampleRecord}s — {@code free} (main → worker) and {@code full} (worker → main) —
 * and the worker's own reserve of records that were never in flight (a stack). A worker that finds no free record
 * drops the sample and counts it (tail drop), like VPP's 2048-slot sample ring. Nothing is allocated after
 * construction.
 *
 * <p>Which record a sample gets matters for speed, not for correctness: the worker claims a record the main thread
 * returned first (recently touched, so still in a cache), and takes one from its reserve only when none came back;
 * when more than {@value #RETURNED_KEPT} returned records wait, each claim also moves one of them into the reserve.
 * The records in use are then the working set of the sampling rate (the samples between two drains), not all of
 * them in turn: with one 2,047-record FIFO cycled in order every record was cold when claimed, which cost ~100 ns per
 * sample (bench/results/2026-12-04-dataplane-overhead).
 */
public final class SampleFifo {
    private final SpscArrayQueue<SampleRecord> free;
    private final SpscArrayQueue<SampleRecord> full;
    private final int capacity;
    private final SampleRecord[] reserve;
    private int reserveCount;
    /** Returned records the free queue may hold before claims move the surplus into the reserve. */
    static final int RETURNED_KEPT = 64;
    // Written by the worker only, read elsewhere: opaque (no fence per sample).
    private long enqueued, dropped;
    private static final VarHandle ENQUEUED, DROPPED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            ENQUEUED = l.findVarHandle(SampleFifo.class, "enqueued", long.class);
            DROPPED = l.findVarHandle(SampleFifo.class, "dropped", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * @param capacity records in flight at most (≥ 1; VPP uses 2047)
     */
    public SampleFifo(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("sample FIFO capacity must be >= 1, got " + capacity);
        }
        this.capacity = capacity;
        this.free = new SpscArrayQueue<>(Math.max(2, capacity));
        this.full = new SpscArrayQueue<>(Math.max(2, capacity));
        this.reserve = new SampleRecord[capacity];
        for (int i = 0; i < capacity; i++) {
            reserve[reserveCount++] = new SampleRecord();
        }
    }

    /**
     * Worker side: takes a free record to fill.
     *
     * @return a record, or null when the FIFO is full — the sample is dropped and counted
     */
    public SampleRecord claim() {
        SampleRecord r = free.relaxedPoll();
        if (r != null) {
            if (free.size() > RETURNED_KEPT) {
                SampleRecord surplus = free.relaxedPoll();
                if (surplus != null) {
                    reserve[reserveCount++] = surplus;
                }
            }
            return r;
        }
        if (reserveCount > 0) {
            return reserve[--reserveCount];
        }
        DROPPED.setOpaque(this, dropped + 1);
        return null;
    }

    /** Worker side: publishes a filled record. Never fails: the record came from {@link #claim()}. */
    public void publish(SampleRecord r) {
        full.offer(r);
        ENQUEUED.setOpaque(this, enqueued + 1);
    }

    /** Main side: @return the next filled record, or null when empty. */
    public SampleRecord poll() {
        return full.relaxedPoll();
    }

    /** Main side: returns a consumed record to the worker. */
    public void release(SampleRecord r) {
        free.offer(r);
    }

    /** @return records published by the worker. */
    public long enqueued() {
        return (long) ENQUEUED.getOpaque(this);
    }

    /** @return samples dropped because the FIFO was full. */
    public long dropped() {
        return (long) DROPPED.getOpaque(this);
    }

    /** @return the configured capacity in records. */
    public int capacity() {
        return capacity;
    }
}
