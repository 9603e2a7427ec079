package io.vecflow.collector.inlet;

import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.decode.DatagramDecoder;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.collector.sink.RawSink;
import io.vecflow.sflow.DecodeStats;
import io.vecflow.sflow.SflowDecodeException;
import java.util.List;

/**
 * The per-thread inlet pipeline for one datagram: admission, raw sinks first (the bytes unchanged), then the spooler
 * or straight on to a {@link DatagramDecoder}, which decodes, parses each sampled header, and hands one
 * {@link FlowRow} per flow sample to every row sink. One instance per inlet thread; the counters it updates are shared
 * and thread-safe.
 */
public final class DatagramProcessor {
    private final DatagramDecoder decoder;
    private final boolean decode;
    private final Admission admission;
    private final byte[] agent16 = new byte[16];
    private final RawSink[] rawSinks; // an array, iterated by index: no iterator object per datagram
    private final CollectorStats stats;

    /**
     * @param decodeStats shared decoder counters
     * @param stats shared collector counters
     * @param rawSinks sinks for raw datagrams
     * @param flowSinks sinks for decoded rows
     */
    public DatagramProcessor(DecodeStats decodeStats, CollectorStats stats, List<RawSink> rawSinks,
            List<FlowSink> flowSinks) {
        this(decodeStats, stats, rawSinks, flowSinks, true);
    }

    /**
     * @param decodeStats shared decoder counters
     * @param stats shared collector counters
     * @param rawSinks sinks for raw datagrams
     * @param flowSinks sinks for decoded rows
     * @param decode false for the inlet role: datagrams only reach the raw sinks
     */
    public DatagramProcessor(DecodeStats decodeStats, CollectorStats stats, List<RawSink> rawSinks,
            List<FlowSink> flowSinks, boolean decode) {
        this(decodeStats, stats, rawSinks, flowSinks, decode, null);
    }

    /**
     * @param decodeStats shared decoder counters
     * @param stats shared collector counters
     * @param rawSinks sinks for raw datagrams
     * @param flowSinks sinks for decoded rows
     * @param decode false for the inlet role: datagrams only reach the raw sinks
     * @param admission agent allowlist and rate limit applied before any sink (null = admit all)
     */
    public DatagramProcessor(DecodeStats decodeStats, CollectorStats stats, List<RawSink> rawSinks,
            List<FlowSink> flowSinks, boolean decode, Admission admission) {
        this.decode = decode;
        this.admission = admission;
        this.decoder = new DatagramDecoder(decodeStats, stats, flowSinks);
        this.stats = stats;
        this.rawSinks = rawSinks.toArray(RawSink[]::new);
    }

    /**
     * Processes one UDP payload from the inlet: admission, then every raw sink (forward targets: the bytes unchanged),
     * then the datagram goes on — through the {@linkplain #spooler(Spooler, Spooler.Target) spooler} when there is
     * one (to Kafka, or to this processor's decoding, spooled to disk while that downstream is away), else straight
     * to decoding (when this processor decodes). Decoding hands one row per flow sample to every row sink. Never
     * throws for bad input or a failing sink: decode failures are counted in {@link CollectorStats#decode}, sink
     * exceptions in {@link CollectorStats#sinkErrors}. The datagram is counted in
     * {@link CollectorStats#datagramsReceived} only once every sink has seen it (or it was spooled), so a reader that
     * sees the count reach N can flush the sinks and find the rows of the first N datagrams there.
     *
     * @param data buffer (reused by the caller after return)
     * @param off payload offset
     * @param len payload length in bytes
     * @param receivedNanos receive time, ns since the epoch
     * @param peer16 UDP source address, 16 bytes IPv4-mapped
     * @param peerPort UDP source port
     * @return null, or the decode failure (already counted; reused by the next call)
     */
    public SflowDecodeException process(byte[] data, int off, int len, long receivedNanos, byte[] peer16,
            int peerPort) {
        try {
            // Admission before any sink: a refused datagram reaches neither Kafka nor storage (counted by reason). A
            // datagram whose header cannot be read goes on to the decoder, which counts it as a decode error.
            if (admission != null) {
                boolean readable = Admission.readAgentAddress(data, off, len, agent16);
                // With an allowlist, a datagram whose agent cannot be read has no allowed agent: refused (it would
                // otherwise reach Kafka and the forward targets). Without one it goes on to the decoder, which
                // counts it as a decode error.
                if (readable ? admission.admit(agent16, receivedNanos) != Admission.ADMIT : !admission.acceptsAll()
                        && admission.refuseUnreadable()) {
                    stats.datagramsRefused.increment();
                    return null;
                }
            }
            for (int i = 0; i < rawSinks.length; i++) {
                RawSink s = rawSinks[i];
                try {
                    s.accept(data, off, len, receivedNanos, peer16, peerPort);
                } catch (RuntimeException e) {
                    sinkError(s.name(), e);
                }
            }
            if (spooler != null) {
                spooler.offer(data, off, len, receivedNanos, peer16, peerPort, spoolTarget);
                return null;
            }
            if (!decode) {
                return null;
            }
            return decoder.decode(data, off, len, receivedNanos, peer16);
        } finally {
            stats.bytesReceived.add(len);
            stats.datagramsReceived.increment();
        }
    }

    /**
     * Puts a spooler between the raw sinks and what follows: datagrams go through {@code spooler} to {@code direct}
     * (e.g. the Kafka raw sink's {@link KafkaRawSink#send}, or {@link #decodeTarget()} of this processor).
     *
     * @return this
     */
    public DatagramProcessor spooler(Spooler spooler, Spooler.Target direct) {
        this.spooler = spooler;
        this.spoolTarget = direct;
        return this;
    }

    /**
     * @return a target that decodes each datagram with this processor into its row sinks, as a datagram of its own
     *     in-process stream (for a {@link Spooler}: a receive thread's direct target, or the drain thread's)
     */
    public Spooler.Target decodeTarget() {
        return (d, o, l, t, p, port) -> {
            decoder.decode(d, o, l, t, p);
            return true;
        };
    }

    /**
     * Processes one datagram read from an ingest stream: {@link DatagramDecoder#process(byte[], int, int, long,
     * byte[], int, long, long)} of this processor's decoder (no admission, no raw sinks).
     *
     * @param stream ingest stream id (the Kafka partition, 0 ≤ stream &lt; 2^31)
     * @param offset the record's offset in that stream (rising)
     * @return null, or the decode failure (already counted)
     */
    public SflowDecodeException process(byte[] data, int off, int len, long receivedNanos, byte[] peer16,
            int peerPort, long stream, long offset) {
        return decoder.process(data, off, len, receivedNanos, peer16, peerPort, stream, offset);
    }

    /** @return the decoder behind this processor (the rows of datagrams it passes on in process). */
    public DatagramDecoder decoder() {
        return decoder;
    }

    /**
     * Sets the enterprise number of the LB records on this processor's decoder
     * ({@link DatagramDecoder#lbEnterprise}).
     *
     * @throws IllegalArgumentException outside 1..2^20−1
     * @return this
     */
    public DatagramProcessor lbEnterprise(int enterprise) {
        decoder.lbEnterprise(enterprise);
        return this;
    }

    /**
     * Sets the enrichment step of this processor's decoder ({@link DatagramDecoder#enricher}).
     *
     * @param e the shared enricher, or null
     * @return this
     */
    public DatagramProcessor enricher(io.vecflow.collector.enrich.Enricher e) {
        decoder.enricher(e);
        return this;
    }

    private void sinkError(String sink, RuntimeException e) {
        decoder.sinkError(sink, e);
    }

    private Spooler spooler;
    private Spooler.Target spoolTarget;
}
