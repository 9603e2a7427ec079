package io.vecflow.collector;

import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.decode.DatagramDecoder;
import io.vecflow.collector.inlet.Admission;
import io.vecflow.collector.inlet.DatagramProcessor;
import io.vecflow.collector.inlet.KafkaRawSink;
import io.vecflow.collector.inlet.Spooler;
import io.vecflow.collector.inlet.UdpInlet;
import io.vecflow.collector.outlet.KafkaOutlet;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.collector.sink.RawSink;
import io.vecflow.collector.sink.clickhouse.ClickHouseSink;
import io.vecflow.collector.sink.clickhouse.LossRecorder;
import io.vecflow.collector.sink.forward.ForwardSink;
import io.vecflow.collector.sink.json.JsonLinesSink;
import io.vecflow.collector.sink.kafka.KafkaConnection;
import io.vecflow.collector.sink.kafka.KafkaDecodedSink;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The collector process in one of three roles ({@link Role}): {@code inlet} (UDP → raw sinks: the Kafka raw topic
 * and forward targets, no decoding), {@code outlet} (Kafka raw topic → decode → row sinks, in a consumer group, see
 * {@link KafkaOutlet}), or {@code all} (both in one process; without Kafka the inlet threads decode in-process and
 * hand rows to the sinks directly). Sinks are chosen by the {@link Settings}.
 */
public final class Collector implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Collector.class);

    /** What the process does (docs/storage.md §1: Akvorado's inlet/outlet split). */
    public enum Role {
        /** UDP → Kafka raw topic (and forward targets); nothing decoded. */
        INLET,
        /** Kafka raw topic → decode → row sinks; no UDP socket. */
        OUTLET,
        /** Both in one process; without Kafka, datagrams go from the inlet to the decoder in-process. */
        ALL
    }

    /** Collector settings; null sink settings mean "off". */
    public static final class Settings {
        /** Role (default {@link Role#ALL}). */
        public Role role = Role.ALL;
        /** Address to bind (default 0.0.0.0). */
        public String bindAddress = "0.0.0.0";
        /** UDP port (default 6343; 0 = any free port). */
        public int port = 6343;
        /** Inlet threads / SO_REUSEPORT sockets (default 2). */
        public int threads = 2;
        /** SO_RCVBUF per socket in bytes (default 8 MiB). */
        public int receiveBufferBytes = 8 << 20;
        /** Largest datagram received whole with batched (recvmmsg) reads, bytes (default 9216; 65507 = no batching). */
        public int maxDatagramBytes = UdpInlet.DEFAULT_MAX_DATAGRAM_BYTES;
        /** Datagrams per read with recvmmsg (default 64). */
        public int readBatch = UdpInlet.DEFAULT_BATCH;
        /** ClickHouse HTTP URL, e.g. http://127.0.0.1:8123, or null. */
        public String clickhouseUrl;
        /**
         * The embedded store's DuckDB file when there is no {@link #clickhouseUrl} (null: none): written like
         * ClickHouse (same batches, watermarks, agents rows; the clickhouse* batch and retention settings apply).
         */
        public java.nio.file.Path duckdbPath;
        /** ClickHouse user (default "default"). */
        public String clickhouseUser = "default";
        /** ClickHouse password (default empty). */
        public String clickhousePassword = "";
        /** PEM CA certificates of an {@code https://} ClickHouse, or null for the JVM's CAs. */
        public Path clickhouseCaFile;
        /** ClickHouse database (default "vecflow"). */
        public String clickhouseDatabase = "vecflow";
        /** Rows per ClickHouse insert (default 50,000). */
        public int clickhouseBatchRows = 50_000;
        /** Longest wait before rows are inserted, ms (default 1000). */
        public long clickhouseFlushMs = 1000;
        /** Kafka bootstrap servers, or null. */
        public String kafkaBootstrap;
        /**
         * Kafka client security properties in kafka-clients' keys (the {@code kafka.security} section rendered by
         * {@link CollectorConfig}); empty = PLAINTEXT.
         */
        public Map<String, Object> kafkaSecurity = Map.of();
        /** Raw datagram topic (default vecflow-raw-v1). */
        public String kafkaRawTopic = KafkaRawSink.DEFAULT_TOPIC;
        /** Partitions when the raw topic is created (default 1). */
        public int kafkaPartitions = 1;
        /** Decoded topic (protobuf FlowMessage per flow sample / discard), or null. */
        public String kafkaDecodedTopic;
        /** Forward targets, host:port, raw datagrams re-sent unchanged (default none). */
        public List<String> forwardTargets = List.of();
        /** Agent prefixes admitted (default empty = all). */
        public List<String> allowPrefixes = List.of();
        /** Datagrams per second per agent, 0 = no limit. */
        public long rateLimit;
        /** Burst in datagrams, 0 = the rate. */
        public long burst;
        /**
         * Where a consumer group without committed offsets starts: {@code earliest} (default: a new outlet group
         * stores the topic's whole retention) or {@code latest} (the demo: only what is written after it joined).
         */
        public String kafkaOffsetReset = "earliest";
        /** Consumer group of outlets (default vecflow-outlet). */
        public String kafkaConsumerGroup = "vecflow-outlet";
        /**
         * Bytes of encoded rows that may wait per ClickHouse table (default 64 MiB): beyond, the outlet flushes and
         * pauses, the in-process path spools raw datagrams; rows are never dropped.
         */
        public long clickhouseMaxPendingBytes = 64L << 20;
        /** Directory of the inlet's spool (datagrams its downstream cannot take now), or null for none. */
        public Path spoolDirectory;
        /** Most bytes the spool holds on disk (default 4 GiB). */
        public long spoolMaxBytes = 4L << 30;
        /** Bytes per spool segment file (default 16 MiB). */
        public int spoolSegmentBytes = 16 << 20;
        /**
         * Whether the constructor waits for ClickHouse and Kafka (true: it throws if they are away, as tests and tools
         * expect) or starts at once and connects in the background (false: the daemon, so that a store or broker
         * outage at start is an outage like any other).
         */
        public boolean waitForServices = true;
        /** ClickHouse retention in days per table; tables not listed keep their default. */
        public java.util.Map<String, Integer> clickhouseTtlDays = new java.util.HashMap<>();
        /**
         * Tables defined outside the collector, created and migrated with its own (the {@code vecflow} command adds
         * the lab's, so the dashboards' lab panels find their tables before a lab run has written to them).
         */
        public List<FlowSchema.Table> clickhouseExtraTables = List.of();
        /** JSON-lines output file, or null. */
        public Path jsonLines;
        /** Interval of agent_loss rows in ClickHouse, ms (default 10,000). */
        public long lossIntervalMs = 10_000;
        /** Enterprise number of the "vecflow LB decision" flow record (default 32473; must match the agents'). */
        public int lbEnterprise = io.vecflow.sflow.LbDecisionRecord.DEFAULT_ENTERPRISE;
        /** Further row sinks supplied by the embedding program (e.g. a summary); closed with the collector. */
        public final List<FlowSink> extraFlowSinks = new ArrayList<>();
        /** Enrichment of rows before the sinks (README "Enrichment"); on by default (metadata from sFlow only). */
        public io.vecflow.collector.enrich.EnrichmentSettings enrichment =
                new io.vecflow.collector.enrich.EnrichmentSettings();
    }

    private final CollectorStats stats = new CollectorStats();
    private final List<RawSink> rawSinks = new ArrayList<>();
    private final List<FlowSink> flowSinks = new ArrayList<>();
    private final Settings settings;
    private UdpInlet inlet;
    private KafkaOutlet outlet;
    private ForwardSink forward;
    private Admission admission;
    private ClickHouseSink clickhouse;
    private LossRecorder lossRecorder;
    private KafkaRawSink kafkaRaw;
    private Spooler spooler;
    private io.vecflow.collector.enrich.Enricher enricher;

    /**
     * Opens the sinks, then binds the UDP port (inlet, all) and starts consuming (outlet, all with Kafka). Between
     * the inlet and what it feeds (the Kafka raw topic, or the in-process decoder and its sinks) sits a
     * {@link Spooler}: datagrams the downstream cannot take now go to the spool directory, never blocking a receive
     * thread.
     *
     * @throws IllegalArgumentException if the role needs Kafka and none is configured
     * @throws Exception if a sink cannot be reached ({@link Settings#waitForServices}), the spool cannot be opened
     *     or the port cannot be bound
     */
    public Collector(Settings s) throws Exception {
        this.settings = s;
        boolean kafka = s.kafkaBootstrap != null && !s.kafkaBootstrap.isBlank();
        if (s.role != Role.ALL && !kafka) {
            throw new IllegalArgumentException("role " + s.role.name().toLowerCase() + " needs kafka.bootstrap");
        }
        // One path for every datagram: with Kafka, role all stores what it consumes back from the raw topic.
        boolean consume = s.role == Role.OUTLET || (s.role == Role.ALL && kafka);
        boolean decodeHere = s.role == Role.ALL && !consume;
        KafkaConnection kafkaConnection = kafka ? new KafkaConnection(s.kafkaBootstrap, s.kafkaSecurity) : null;
        try {
            if (s.role != Role.OUTLET) {
                if (kafka) {
                    kafkaRaw = new KafkaRawSink(kafkaConnection, s.kafkaRawTopic, s.kafkaPartitions,
                            s.waitForServices);
                }
                if (!s.forwardTargets.isEmpty()) {
                    forward = new ForwardSink(s.forwardTargets);
                    rawSinks.add(forward);
                }
            }
            if (s.role != Role.INLET) {
                if (s.clickhouseUrl != null || s.duckdbPath != null) {
                    ClickHouseSink.Settings cs = s.clickhouseUrl != null ? ClickHouseSink.Settings.of(s.clickhouseUrl)
                            : ClickHouseSink.Settings.duckDb(s.duckdbPath);
                    cs.user = s.clickhouseUser;
                    cs.password = s.clickhousePassword;
                    cs.caFile = s.clickhouseCaFile;
                    cs.database = s.clickhouseDatabase;
                    cs.batchRows = s.clickhouseBatchRows;
                    cs.flushMs = s.clickhouseFlushMs;
                    cs.maxPendingBytes = s.clickhouseMaxPendingBytes;
                    cs.ttlDays = s.clickhouseTtlDays;
                    cs.extraTables = s.clickhouseExtraTables;
                    cs.autoFlush = !consume;
                    cs.waitForServer = s.waitForServices;
                    clickhouse = new ClickHouseSink(cs);
                    flowSinks.add(clickhouse);
                    // The outlet records loss rows at each commit (so a replay after a crash counts a datagram's
                    // sequence once: its agents rows were stored only if its offset was committed).
                    lossRecorder = new LossRecorder(stats.loss, clickhouse, consume ? 0 : s.lossIntervalMs);
                }
                if (s.jsonLines != null) {
                    flowSinks.add(new JsonLinesSink(s.jsonLines));
                }
                if (s.kafkaDecodedTopic != null) {
                    if (!kafka) {
                        throw new IllegalArgumentException("kafka.decoded-topic needs kafka.bootstrap");
                    }
                    flowSinks.add(new KafkaDecodedSink(kafkaConnection, s.kafkaDecodedTopic, s.kafkaPartitions,
                            Map.of()));
                }
                flowSinks.addAll(s.extraFlowSinks);
            }
            if (s.role != Role.INLET) {
                enricher = io.vecflow.collector.enrich.Enrichment.open(s.enrichment, stats.enrichment);
                if (enricher != null && clickhouse != null) {
                    enricher.onAsNames(clickhouse::asNames);
                }
            }
            if (consume) {
                outlet = new KafkaOutlet(kafkaConnection, s.kafkaRawTopic, s.kafkaConsumerGroup,
                        new DatagramDecoder(stats.decode, stats, flowSinks).lbEnterprise(s.lbEnterprise)
                                .enricher(enricher),
                        flowSinks, clickhouse, lossRecorder, stats.loss, s.clickhouseFlushMs, s.kafkaOffsetReset);
            }
            if (s.role != Role.OUTLET) {
                if (!s.allowPrefixes.isEmpty() || s.rateLimit > 0) {
                    admission = new Admission(s.allowPrefixes, s.rateLimit, s.burst == 0 ? s.rateLimit : s.burst,
                            Admission.DEFAULT_MAX_AGENTS);
                } else if (!java.net.InetAddress.getByName(s.bindAddress).isLoopbackAddress()) {
                    // Nothing to check: no admission at all; say once that anyone may send (not for loopback-only).
                    log.warn(Admission.NO_ALLOWLIST_WARNING + " (admission.allow in the collector config)");
                }
                // A taken port is the first thing to say (before the spool directory, which the same collector
                // running twice would also hold).
                UdpInlet.requireFree(new InetSocketAddress(s.bindAddress, s.port));
                Spooler.Settings ss = new Spooler.Settings();
                ss.directory = s.spoolDirectory;
                ss.maxBytes = s.spoolMaxBytes;
                ss.segmentBytes = s.spoolSegmentBytes;
                if (kafkaRaw != null) {
                    KafkaRawSink k = kafkaRaw;
                    spooler = new Spooler("kafka", k, k::send, ss);
                } else if (decodeHere) {
                    ClickHouseSink ch = clickhouse;
                    DatagramProcessor drain = new DatagramProcessor(stats.decode, stats, List.of(), flowSinks)
                            .lbEnterprise(s.lbEnterprise).enricher(enricher);
                    spooler = new Spooler("decode", new Spooler.Downstream() {
                        @Override
                        public boolean ready() {
                            return ch == null || ch.canAccept();
                        }

                        @Override
                        public String name() {
                            return ch == null ? "decoder" : s.clickhouseUrl != null ? "ClickHouse at "
                                    + s.clickhouseUrl : "DuckDB at " + s.duckdbPath;
                        }
                    }, drain.decodeTarget(), ss);
                }
                Spooler sp = spooler;
                KafkaRawSink k = kafkaRaw;
                inlet = new UdpInlet(new InetSocketAddress(s.bindAddress, s.port), s.threads, s.receiveBufferBytes,
                        s.maxDatagramBytes, s.readBatch, stats.datagramsTruncated, () -> {
                            DatagramProcessor p = new DatagramProcessor(stats.decode, stats, rawSinks,
                                    decodeHere ? flowSinks : List.of(), decodeHere, admission)
                                    .lbEnterprise(s.lbEnterprise).enricher(enricher);
                            if (sp != null) {
                                p.spooler(sp, k != null ? k::send : p.decodeTarget());
                            }
                            return p;
                        });
            }
        } catch (Exception e) {
            closeAll();
            throw e;
        }
        log.debug("collector {} on udp {} ({} raw sinks, {} row sinks)", s.role, inlet == null ? "-" :
                inlet.localAddress(), rawSinks.size(), flowSinks.size());
    }

    /** @return the settings the collector runs with. */
    public Settings settings() {
        return settings;
    }

    /** @return the enrichment stage, or null (off, or the inlet role). */
    public io.vecflow.collector.enrich.Enricher enricher() {
        return enricher;
    }

    /** @return the Kafka outlet, or null when this process does not consume. */
    public KafkaOutlet outlet() {
        return outlet;
    }

    /** @return admission control of the UDP inlet, or null (outlet role, or no allowlist and no rate limit). */
    public Admission admission() {
        return admission;
    }

    /** @return the forward sink, or null. */
    public ForwardSink forward() {
        return forward;
    }

    /** @return the ClickHouse sink, or null. */
    public ClickHouseSink clickhouse() {
        return clickhouse;
    }

    /** @return the bound UDP address. @throws IllegalStateException for the outlet role (no UDP socket) */
    public InetSocketAddress localAddress() {
        if (inlet == null) {
            throw new IllegalStateException("the outlet role has no UDP socket");
        }
        return inlet.localAddress();
    }

    /** @return counters. */
    public CollectorStats stats() {
        return stats;
    }

    /** @return the raw sinks: the Kafka raw topic (if any) and the forward targets. */
    public List<RawSink> rawSinks() {
        List<RawSink> out = new ArrayList<>();
        if (kafkaRaw != null) {
            out.add(kafkaRaw);
        }
        out.addAll(rawSinks);
        return out;
    }

    /** @return the Kafka raw topic sink, or null. */
    public KafkaRawSink kafkaRaw() {
        return kafkaRaw;
    }

    /** @return the inlet's spooler, or null (outlet role). */
    public Spooler spooler() {
        return spooler;
    }

    /** @return the UDP inlet, or null (outlet role). */
    public UdpInlet inlet() {
        return inlet;
    }

    /** @return the row sinks. */
    public List<FlowSink> flowSinks() {
        return List.copyOf(flowSinks);
    }

    /**
     * Flushes every sink and waits.
     *
     * @throws Exception from the first sink that failed (after trying all)
     */
    public void flush() throws Exception {
        Exception first = null;
        if (spooler != null && !spooler.awaitDrained(30_000)) {
            first = new java.io.IOException("the spool still holds " + spooler.heldDatagrams()
                    + " datagrams: its downstream is not taking them");
        }
        for (RawSink s : rawSinks()) {
            try {
                s.flush();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        for (FlowSink s : flowSinks) {
            try {
                s.flush();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (lossRecorder != null) {
            try {
                lossRecorder.record();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** @return the agent_loss recorder, or null without ClickHouse. */
    public LossRecorder lossRecorder() {
        return lossRecorder;
    }

    private void closeAll() throws InterruptedException {
        if (inlet != null) {
            inlet.close(); // nothing more comes in
        }
        if (spooler != null) {
            spooler.stopDrain(); // nothing more goes out of the spool
        }
        if (kafkaRaw != null) {
            // What the producer holds unacknowledged goes back to the spool, ahead of what is spooled.
            if (spooler != null) {
                kafkaRaw.onUndelivered(spooler.returnUndelivered());
            }
            closeQuietly(kafkaRaw);
        }
        if (outlet != null) {
            outlet.close(); // flushes the row sinks and commits
        }
        closeSinks();
        if (spooler != null) {
            closeQuietly(spooler);
        }
        if (enricher != null) {
            closeQuietly(enricher);
        }
    }

    private void closeSinks() {
        if (lossRecorder != null) {
            closeQuietly(lossRecorder); // before the ClickHouse sink it writes through
        }
        for (AutoCloseable c : rawSinks) {
            closeQuietly(c);
        }
        for (AutoCloseable c : flowSinks) {
            closeQuietly(c);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            String what = c instanceof FlowSink f ? f.name() : c instanceof RawSink r ? r.name()
                    : c.getClass().getSimpleName();
            log.warn("closing {}: {}", what, e.toString());
        }
    }

    @Override
    public void close() throws Exception {
        closeAll();
    }
}
