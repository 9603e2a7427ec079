package io.vecflow.collector.decode;

import io.vecflow.sflow.DecodeStats;
import java.util.concurrent.atomic.LongAdder;

/** Collector counters, shared by every inlet thread. */
public final class CollectorStats {
    /** UDP datagrams received and handed to every sink (counted after processing, see DatagramProcessor). */
    public final LongAdder datagramsReceived = new LongAdder();
    /** Counters of the enrichment stage. */
    public final io.vecflow.collector.enrich.EnrichmentStats enrichment =
            new io.vecflow.collector.enrich.EnrichmentStats();
    /** Raw records consumed from Kafka and processed by the outlet (counted like {@link #datagramsReceived}). */
    public final LongAdder datagramsConsumed = new LongAdder();
    /** Datagrams refused by admission (agent not allowed, or over its rate); by reason in {@code Admission}. */
    public final LongAdder datagramsRefused = new LongAdder();
    /**
     * UDP datagrams dropped because they were longer than {@code --max-datagram-bytes} and so arrived cut (batched
     * reads; see {@code UdpInlet}); not in {@link #datagramsReceived}, and a gap in the agent's sequence.
     */
    public final LongAdder datagramsTruncated = new LongAdder();
    /** UDP payload bytes received. */
    public final LongAdder bytesReceived = new LongAdder();
    /** Rows produced from discarded_packet samples (included in {@link #flowRows}). */
    public final LongAdder discardRows = new LongAdder();
    /** Flow rows produced (before sinks), discards included. */
    public final LongAdder flowRows = new LongAdder();
    /** Interface counter rows produced (counters samples with generic interface counters). */
    public final LongAdder counterRows = new LongAdder();
    /** Samples whose header_protocol the packet parser does not know (kept, header not parsed). */
    public final LongAdder unknownHeaderProtocol = new LongAdder();
    /** Samples with sampling_rate 0 (flagged; never multiplied by). */
    public final LongAdder zeroSamplingRate = new LongAdder();
    /**
     * Datagrams seen twice (same agent, sub-agent, sequence number and uptime as a recent one: a network duplicate
     * or a re-sent copy): their rows are left out, so each is stored once.
     */
    public final LongAdder datagramsDuplicate = new LongAdder();
    /** Exceptions thrown by a raw or row sink's accept (the datagram still reaches the other sinks). */
    public final LongAdder sinkErrors = new LongAdder();
    /** Flow samples carrying a "vecflow LB decision" record that decoded (each also becomes an lb_decisions row). */
    public final LongAdder lbDecisions = new LongAdder();
    /** LB decision records that failed to decode within their length, or carried an unknown version (kept out). */
    public final LongAdder lbDecisionErrors = new LongAdder();
    /** "vecflow LB counters" records decoded (lb_counters rows offered to the sinks). */
    public final LongAdder lbCounters = new LongAdder();
    /** "vecflow LB counters" records that did not decode (bad length or address type, unknown version). */
    public final LongAdder lbCounterErrors = new LongAdder();
    /** Loss accounting per agent and source: sequence gaps, restarts, agent-reported drops. */
    public final LossTracker loss = new LossTracker();
    /** Decoder counters: datagrams, samples, errors by kind. */
    public final DecodeStats decode = new DecodeStats();
}
