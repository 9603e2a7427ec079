package io.vecflow.hsflowd.datagram;

import io.vecflow.hsflowd.net.DatagramSender;
import io.vecflow.sflow.CounterSample;
import io.vecflow.sflow.DatagramBuilder;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.FlowSampleEncoder;

/**
 * The datagram being filled, which every module shares: samples go into one {@link DatagramBuilder}; the datagram is
 * sent ({@link DatagramSender}) when the next sample would not fit, or when its oldest sample is 1 s old
 * ({@link #tick()}). Datagram sequence numbers start at 1; uptime is ms since the agent (or its latest address) was
 * created, from a monotonic clock ({@link System#nanoTime()} unless one is given), so wall-clock steps change
 * neither uptime nor the 1 s flush.
 * Allocation-free per sample. Not thread-safe (the agent calls it under its lock).
 */
public final class PendingDatagram {
    private static final long U32 = 0xFFFFFFFFL;

    private final int datagramBytes;
    private final long subAgentId;
    private final DatagramSender sender;
    private final java.util.function.LongSupplier clock;
    private DatagramBuilder builder;
    private long startNanos;
    private long datagramSequence;
    private long oldestSampleNanos;
    private long counterSamplesSent, counterSamplesRefused;
    private long discardsSent, discardsRefused;

    /**
     * @param builder the builder for the first agent address
     * @param datagramBytes datagram size limit (for builders of later addresses)
     * @param subAgentId the sub-agent id (for builders of later addresses)
     * @param sender where finished datagrams go
     */
    public PendingDatagram(DatagramBuilder builder, int datagramBytes, long subAgentId, DatagramSender sender) {
        this(builder, datagramBytes, subAgentId, sender, System::nanoTime);
    }

    /**
     * As {@link #PendingDatagram(DatagramBuilder, int, long, DatagramSender)} on a given monotonic clock.
     *
     * @param clock nanoseconds, monotonic (tests pass their own to step time by events, not by sleeping)
     */
    public PendingDatagram(DatagramBuilder builder, int datagramBytes, long subAgentId, DatagramSender sender,
            java.util.function.LongSupplier clock) {
        this.clock = clock;
        this.startNanos = clock.getAsLong();
        this.builder = builder;
        this.datagramBytes = datagramBytes;
        this.subAgentId = subAgentId;
        this.sender = sender;
    }

    /** @return the builder samples go into now (replaced by {@link #restart}). */
    public DatagramBuilder builder() {
        return builder;
    }

    /**
     * Sends the pending datagram with the old address, then starts over for a new agent address: the next datagram
     * has sequence 1 and uptime counts from 0.
     *
     * @param agentAddress the new address (4 or 16 bytes)
     */
    public void restart(byte[] agentAddress) {
        flush();
        builder = new DatagramBuilder(datagramBytes, agentAddress, subAgentId);
        datagramSequence = 0;
        startNanos = clock.getAsLong();
    }

    /** Records {@code nowNanos} as the oldest sample's time when the datagram holds no sample yet. */
    public void startIfEmpty(long nowNanos) {
        if (builder.isEmpty()) {
            oldestSampleNanos = nowNanos;
        }
    }

    /**
     * Records {@code nowNanos} as the oldest sample's time when the sample just added is the datagram's only one.
     */
    public void startIfFirst(long nowNanos) {
        if (builder.sampleCount() == 1) {
            oldestSampleNanos = nowNanos;
        }
    }

    /**
     * Adds one discarded_packet sample (0:5) to the pending datagram, flushing first when it does not fit.
     *
     * @param s a 0:5 holder (its views must be valid during the call; not kept)
     * @return false, counted in {@link #discardsRefused()}, if the encoder refuses it or it does not fit even an empty
     *         datagram
     */
    public boolean addDiscardSample(FlowSample s) {
        int need = FlowSampleEncoder.encodedBytes(s);
        if (need < 0) {
            discardsRefused++;
            return false;
        }
        if (!builder.fits(need)) {
            flush();
            if (!builder.fits(need)) {
                discardsRefused++;
                return false;
            }
        }
        if (builder.isEmpty()) {
            oldestSampleNanos = clock.getAsLong();
        }
        builder.addFlowSample(s);
        discardsSent++;
        return true;
    }

    /**
     * Adds one counters sample, flushing first when it does not fit.
     *
     * @param s the sample (read during the call only)
     * @return false, with nothing added (counted in {@link #counterSamplesRefused()}), if the sample cannot be encoded
     *         or is larger than an empty datagram
     */
    public boolean addCounterSample(CounterSample s) {
        boolean wasEmpty = builder.isEmpty();
        if (!builder.addCounterSample(s)) {
            if (wasEmpty) {
                counterSamplesRefused++;
                return false;
            }
            flush();
            wasEmpty = true;
            if (!builder.addCounterSample(s)) {
                counterSamplesRefused++;
                return false;
            }
        }
        if (wasEmpty) {
            oldestSampleNanos = clock.getAsLong();
        }
        counterSamplesSent++;
        return true;
    }

    /**
     * Adds one counters sample as the vpp module's IF_COUNTERS do: flushing and trying once more when it does not
     * fit; counted as sent on success, not counted otherwise (the caller counts its own drop).
     *
     * @return false when it does not fit even after a flush
     */
    public boolean addCounterSampleOrFlush(CounterSample s) {
        if (!builder.addCounterSample(s)) {
            flush();
            if (!builder.addCounterSample(s)) {
                return false;
            }
        }
        if (builder.sampleCount() == 1) {
            oldestSampleNanos = clock.getAsLong();
        }
        counterSamplesSent++;
        return true;
    }

    /** Flushes the pending datagram if its oldest sample is at least 1 s old. Call at least every 100 ms. */
    public void tick() {
        if (!builder.isEmpty() && clock.getAsLong() - oldestSampleNanos >= 1_000_000_000L) {
            flush();
        }
    }

    /** Sends the pending datagram now, if it holds any sample. */
    public void flush() {
        if (builder.isEmpty()) {
            return;
        }
        datagramSequence = (datagramSequence + 1) & U32;
        int len = builder.finish(datagramSequence, ((clock.getAsLong() - startNanos) / 1_000_000L) & U32);
        sender.send(builder.buffer(), len);
        builder.reset();
    }

    /** @return the last datagram sequence number used. */
    public long datagramSequence() {
        return datagramSequence;
    }

    /** @return counters samples put into datagrams. */
    public long counterSamplesSent() {
        return counterSamplesSent;
    }

    /** @return counters samples refused (unencodable, or larger than an empty datagram). */
    public long counterSamplesRefused() {
        return counterSamplesRefused;
    }

    /** @return discarded_packet samples put into datagrams. */
    public long discardsSent() {
        return discardsSent;
    }

    /** @return discarded_packet samples refused (encoder refusal or larger than a datagram). */
    public long discardsRefused() {
        return discardsRefused;
    }
}
