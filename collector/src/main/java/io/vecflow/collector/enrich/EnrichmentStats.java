package io.vecflow.collector.enrich;

import java.util.concurrent.atomic.LongAdder;

/** Counters of the enrichment stage, shared by every decode thread (exposed as Prometheus metrics). */
public final class EnrichmentStats {
    /** Rows enriched. */
    public final LongAdder rows = new LongAdder();
    /** Rows written with an interface (single ifIndex, not 0 or internal) whose metadata is not known (yet). */
    public final LongAdder interfaceUnknown = new LongAdder();
    /** Rows whose exporter has no name (yet). */
    public final LongAdder exporterUnnamed = new LongAdder();
    /** Interfaces or exporters not cached because the cache is full (their rows get no metadata). */
    public final LongAdder cacheFull = new LongAdder();
    /** Metadata polls sent (one per exporter and batch of ifIndexes). */
    public final LongAdder polls = new LongAdder();
    /** Polls that failed (timeout, refused, authentication). */
    public final LongAdder pollFailures = new LongAdder();
    /** Interfaces the exporter said it does not know. */
    public final LongAdder pollNotFound = new LongAdder();
    /** Metadata updates learnt from the agents' own counter samples (port name, speed, hostname). */
    public final LongAdder sflowUpdates = new LongAdder();
    /** Rows or counter samples whose enrichment failed (a bug: the row is kept without it). */
    public final LongAdder errors = new LongAdder();
    /** Exporters evicted after not being seen for the cache duration. */
    public final LongAdder evictions = new LongAdder();
}
