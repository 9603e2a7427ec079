package io.vecflow.dataplane.sflow;

import org.jctools.queues.SpscArrayQueue;

/**
 * The per-worker sample FIFO between a worker (producer) and the main thread (consumer): two JCTools SPSC queues over a
 * fixed set of preallocated {@link SampleRecord}s — {@code free} (main → worker) and {@code full} (worker → main).
 * A worker that finds no free record drops the sample and counts it (tail drop), like VPP's 2048-slot sample ring.
 * Nothing is allocated after construction.
 */
public final class SampleFifo {
    private final SpscArrayQueue<SampleRecord> free;
    private final SpscArrayQueue<SampleRecord> full;
    private final int capacity;
    private volatile long enqueued, dropped;

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
        for (int i = 0; i < capacity; i++) {
            free.offer(new SampleRecord());
        }
    }

    /**
     * Worker side: takes a free record to fill.
     *
     * @return a record, or null when the FIFO is full — the sample is dropped and counted
     */
    public SampleRecord claim() {
        SampleRecord r = free.relaxedPoll();
        if (r == null) {
            dropped++;
        }
        return r;
    }

    /** Worker side: publishes a filled record. Never fails: the record came from {@link #claim()}. */
    public void publish(SampleRecord r) {
        full.offer(r);
        enqueued++;
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
        return enqueued;
    }

    /** @return samples dropped because the FIFO was full. */
    public long dropped() {
        return dropped;
    }

    /** @return the configured capacity in records. */
    public int capacity() {
        return capacity;
    }
}
