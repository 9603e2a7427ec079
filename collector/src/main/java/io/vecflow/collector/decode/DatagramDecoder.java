package io.vecflow.collector.decode;

import io.vecflow.collector.schema.CounterRow;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.collector.sink.StreamOffsets;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import io.vecflow.sflow.ByteView;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.DecodeStats;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.LbDecisionRecord;
import io.vecflow.sflow.SflowDecodeException;
import io.vecflow.sflow.SflowDecoder;
import io.vecflow.sflow.SflowVisitor;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes one datagram at a time into rows: decode, parse each sampled header, and hand one {@link FlowRow} per flow
 * or discard sample (and one {@link CounterRow} per counter sample) to every row sink, with loss accounting on the
 * way. One instance per thread; the counters it updates are shared and thread-safe.
 *
 * <p>Rows of a datagram whose sample structure fails part-way carry {@link FlowRow#datagramIncomplete} (the decoder
 * knows it before the first sample). A sample that fails inside its own length becomes no row; it is counted by the
 * decoder at the sample level and reaches the loss tracker as received.
 *
 * <p>A flow sample carrying the "vecflow LB decision" record under the configured enterprise
 * ({@link LbDecisionRecord}; kept raw by the generic decoder as a vendor record) has it decoded into
 * {@link FlowRow#lbDecision} — bounded by the record's length; failures and unknown versions are counted in
 * {@link CollectorStats#lbDecisionErrors} and the row goes on without it.
 */
public final class DatagramDecoder implements SflowVisitor {
    private final SflowDecoder decoder;
    private final FlowSink[] flowSinks; // an array, iterated by index: no iterator object per datagram
    private final CollectorStats stats;
    private final FlowRow row = new FlowRow();
    private final CounterRow counterRow = new CounterRow();
    private final byte[] agent16 = new byte[16];
    private io.vecflow.collector.enrich.Enricher enricher;
    /** This decoder's in-process ingest stream: bit 31 set, 31 random bits (see {@link FlowRow#ingestStream}). */
    private final long localStream = 0x8000_0000L | (java.util.concurrent.ThreadLocalRandom.current().nextInt()
            & 0x7FFF_FFFFL);
    private long localOffset;
    private long ingestStream, ingestOffset;
    private final ParsedPacket parsed = new ParsedPacket();
    private static final Logger log = LoggerFactory.getLogger(DatagramDecoder.class);
    private long lastSinkErrorLog;
    private long receivedNanos;
    private byte[] peer16;
    private int lbDataFormat = LbDecisionRecord.dataFormat(LbDecisionRecord.DEFAULT_ENTERPRISE);
    private int lbCountersDataFormat = io.vecflow.sflow.LbCountersRecord.dataFormat(
            LbDecisionRecord.DEFAULT_ENTERPRISE);

    /**
     * @param decodeStats shared decoder counters
     * @param stats shared collector counters
     * @param flowSinks sinks for decoded rows
     */
    public DatagramDecoder(DecodeStats decodeStats, CollectorStats stats, List<FlowSink> flowSinks) {
        this.decoder = new SflowDecoder(decodeStats);
        this.stats = stats;
        this.flowSinks = flowSinks.toArray(FlowSink[]::new);
    }

    /**
     * Decodes one datagram of this decoder's in-process stream (the next offset of it) into the row sinks.
     *
     * @param data buffer (reused by the caller after return)
     * @param off payload offset
     * @param len payload length in bytes
     * @param receivedNanos receive time, ns since the epoch
     * @param peer16 UDP source address, 16 bytes IPv4-mapped
     * @return null, or the decode failure (already counted; reused by the next call)
     */
    public SflowDecodeException decode(byte[] data, int off, int len, long receivedNanos, byte[] peer16) {
        return decode(data, off, len, receivedNanos, peer16, localStream, ++localOffset);
    }

    /**
     * Processes one datagram read from an ingest stream (the Kafka outlet): decoded, its rows tagged by the stream
     * and offset the datagram came from; no admission, no raw sinks. Counted in
     * {@link CollectorStats#datagramsConsumed}.
     *
     * @param stream ingest stream id (the Kafka partition, 0 ≤ stream &lt; 2^31)
     * @param offset the record's offset in that stream (rising)
     * @return null, or the decode failure (already counted)
     */
    public SflowDecodeException process(byte[] data, int off, int len, long receivedNanos, byte[] peer16,
            int peerPort, long stream, long offset) {
        try {
            return decode(data, off, len, receivedNanos, peer16, stream, offset);
        } finally {
            stats.datagramsConsumed.increment();
        }
    }

    /**
     * Datagrams of {@code stream} at or below {@code offset} were already counted by the loss accounting (the
     * {@code agents} rows hold them): replays of them are decoded into rows (the row sinks skip what they hold) but
     * not counted again.
     */
    public void countedThrough(long stream, long offset) {
        counted.max(stream, offset);
    }

    /** @return the greatest offset of {@code stream} counted by the loss accounting, or -1. */
    public long countedOffset(long stream) {
        return counted.get(stream);
    }

    /**
     * Forgets what was counted of {@code stream} (its counts were not stored and are discarded: the partition's next
     * owner counts it again from what the {@code agents} table holds).
     */
    public void forgetCounted(long stream) {
        counted.remove(stream);
    }

    private SflowDecodeException decode(byte[] data, int off, int len, long receivedNanos, byte[] peer16,
            long stream, long offset) {
        ingestStream = stream;
        ingestOffset = offset;
        this.receivedNanos = receivedNanos;
        this.peer16 = peer16;
        // A datagram of a replayed Kafka offset the loss accounting already counted: rows, no counting.
        track = stream >= 0x8000_0000L || offset > counted.get(stream);
        if (track && stream < 0x8000_0000L) {
            counted.max(stream, offset);
        }
        skipRows = false;
        print = LossTracker.fingerprint(data, off, len);
        return decoder.decode(data, off, len, this);
    }

    /**
     * Sets the enrichment step every row passes through before the sinks, and every counter sample feeds (the agents'
     * own metadata); null = rows as decoded.
     *
     * @param e the shared enricher, or null
     * @return this
     */
    public DatagramDecoder enricher(io.vecflow.collector.enrich.Enricher e) {
        this.enricher = e;
        return this;
    }

    /**
     * Sets the enterprise number of the "vecflow LB decision" flow record and the "vecflow LB counters" counter record
     * (default
     * {@value io.vecflow.sflow.LbDecisionRecord#DEFAULT_ENTERPRISE}; must match the agents' {@code lbEnterprise}).
     *
     * @throws IllegalArgumentException outside 1..2^20−1
     * @return this
     */
    public DatagramDecoder lbEnterprise(int enterprise) {
        lbDataFormat = LbDecisionRecord.dataFormat(enterprise);
        lbCountersDataFormat = io.vecflow.sflow.LbCountersRecord.dataFormat(enterprise);
        return this;
    }

    /**
     * Counts a sink's failure in {@link CollectorStats#sinkErrors} and logs it (at most one line per 10 s for this
     * decoder and the inlet pipeline in front of it).
     *
     * @param sink the sink's name
     * @param e what it threw
     */
    public void sinkError(String sink, RuntimeException e) {
        stats.sinkErrors.increment();
        long now = System.nanoTime();
        if (now - lastSinkErrorLog > 10_000_000_000L || lastSinkErrorLog == 0) { // at most one log line per 10 s
            lastSinkErrorLog = now;
            log.warn("sink {} failed: {}", sink, e.toString());
        }
    }

    private LossTracker.AgentStats agent;
    private boolean track, skipRows;
    private long print;
    private final StreamOffsets counted = new StreamOffsets();

    @Override
    public void onDatagram(DatagramHeader header) {
        agent = track ? stats.loss.onDatagram(header, ingestStream, ingestOffset, print) : null;
        if (agent == LossTracker.DUPLICATE) {
            // The same datagram (sequence and uptime) seen a moment ago: its rows are stored once.
            agent = null;
            skipRows = true;
            stats.datagramsDuplicate.increment();
        }
    }

    @Override
    public void onCounterSample(DatagramHeader h, io.vecflow.sflow.CounterSample s) {
        if (skipRows) {
            return;
        }
        stats.loss.onSample(agent, LossTracker.COUNTERS, s.sourceIdType, s.sourceIdIndex, s.sequenceNumber, -1);
        if (enricher != null) {
            h.writeAgentAddress16(agent16, 0);
            try {
                enricher.learn(agent16, s);
            } catch (RuntimeException e) {
                enrichError(e);
            }
        }
        if (counterRow.set(receivedNanos, h, s)) {
            counterRow.ingestStream = ingestStream;
            counterRow.ingestOffset = ingestOffset;
            stats.counterRows.increment();
            for (int i = 0; i < flowSinks.length; i++) {
                FlowSink sink = flowSinks[i];
                try {
                    sink.acceptCounters(counterRow);
                } catch (RuntimeException e) {
                    sinkError(sink.name(), e);
                }
            }
        }
        lbCounters(h, s);
    }

    /** Each kept "vecflow LB counters" record of the sample becomes an lb_counters row (bad ones are counted). */
    private void lbCounters(DatagramHeader h, io.vecflow.sflow.CounterSample s) {
        boolean filled = false;
        for (int i = 0, n = s.unknownKept(); i < n; i++) {
            if (s.unknownFormats[i] != lbCountersDataFormat) {
                continue;
            }
            var body = s.unknownBodies[i];
            boolean ok;
            try {
                ok = counterRow.lbCounters.decode(body.array, body.offset, body.length);
            } catch (SflowDecodeException e) {
                ok = false;
            }
            if (!ok) {
                stats.lbCounterErrors.increment();
                continue;
            }
            stats.lbCounters.increment();
            if (!filled) {
                counterRow.setSample(receivedNanos, h, s);
                counterRow.ingestStream = ingestStream;
                counterRow.ingestOffset = ingestOffset;
                filled = true;
            }
            for (int k = 0; k < flowSinks.length; k++) {
                FlowSink sink = flowSinks[k];
                try {
                    sink.acceptLbCounters(counterRow);
                } catch (RuntimeException e) {
                    sinkError(sink.name(), e);
                }
            }
        }
    }

    /**
     * A sample that failed inside its own length is no row (its records are incomplete; the decoder counted it at the
     * sample level), but it arrived: when its sequence number and source were read it goes to the loss tracker, so
     * that it is not counted a second time, as a sequence gap. Its {@code drops} are not taken (they may not have been
     * read; the next sample's cumulative value covers them).
     */
    @Override
    public void onSampleError(DatagramHeader h, io.vecflow.sflow.RecordedSample s) {
        if (s.sourceRead) {
            int family = s.kind == io.vecflow.sflow.SflowFormats.DISCARDED_PACKET ? LossTracker.DISCARDS
                    : s instanceof io.vecflow.sflow.CounterSample ? LossTracker.COUNTERS : LossTracker.FLOW;
            stats.loss.onSample(agent, family, s.sourceIdType, s.sourceIdIndex, s.sequenceNumber, -1);
        }
    }

    @Override
    public void onDiscardSample(DatagramHeader h, FlowSample s) {
        if (skipRows) {
            return;
        }
        stats.loss.onSample(agent, LossTracker.DISCARDS, s.sourceIdType, s.sourceIdIndex, s.sequenceNumber, s.drops);
        row(h, s); // discards are rows too (SampleType = discard, DiscardReason, ForwardingStatus)
    }

    @Override
    public void onFlowSample(DatagramHeader h, FlowSample s) {
        if (skipRows) {
            return;
        }
        stats.loss.onSample(agent, LossTracker.FLOW, s.sourceIdType, s.sourceIdIndex, s.sequenceNumber, s.drops);
        row(h, s);
    }

    /** Decodes the first kept LB decision record of the sample into the row, if there is one. */
    private void lbDecision(FlowSample s) {
        for (int i = 0, n = s.unknownKept(); i < n; i++) {
            if (s.unknownFormats[i] == lbDataFormat) {
                var body = s.unknownBodies[i];
                try {
                    row.hasLbDecision = row.lbDecision.decode(body.array, body.offset, body.length);
                } catch (SflowDecodeException e) {
                    row.hasLbDecision = false;
                }
                if (row.hasLbDecision) {
                    stats.lbDecisions.increment();
                } else {
                    stats.lbDecisionErrors.increment();
                }
                return;
            }
        }
    }

    private long lastEnrichErrorLog;

    /** A bug in enrichment costs the row its metadata, never the datagram: counted, logged at most every 10 s. */
    private void enrichError(RuntimeException e) {
        stats.enrichment.errors.increment();
        long now = System.nanoTime();
        if (now - lastEnrichErrorLog > 10_000_000_000L || lastEnrichErrorLog == 0) {
            lastEnrichErrorLog = now;
            log.warn("enrichment failed (row kept without it; vecflow_enrich_rows{{result=\"error\"}}): {}",
                    e.toString());
        }
    }

    private void row(DatagramHeader h, FlowSample s) {
        ParsedPacket p = null;
        if (s.hasSampledHeader) {
            LinkType lt = LinkType.fromSflowHeaderProtocol(s.sampledHeader.headerProtocol);
            if (lt != null) {
                ByteView hb = s.sampledHeader.header;
                PacketParser.parse(hb.array, hb.offset, hb.length, lt, parsed);
                p = parsed;
            } else {
                stats.unknownHeaderProtocol.increment();
            }
        }
        if (s.isDiscard()) {
            stats.discardRows.increment();
        } else if (s.samplingRate == 0) {
            stats.zeroSamplingRate.increment();
        }
        row.set(receivedNanos, peer16, h, s, p);
        if (s.unknownRecords > 0 && !s.isDiscard()) {
            lbDecision(s);
        }
        row.ingestStream = ingestStream;
        row.ingestOffset = ingestOffset;
        if (enricher != null) {
            try {
                enricher.enrich(row);
            } catch (RuntimeException e) {
                enrichError(e); // the row goes on with what it has
            }
        }
        stats.flowRows.increment();
        for (int i = 0; i < flowSinks.length; i++) {
            FlowSink sink = flowSinks[i];
            try {
                sink.accept(row);
            } catch (RuntimeException e) {
                sinkError(sink.name(), e);
            }
        }
    }
}
