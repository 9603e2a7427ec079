package io.vecflow.collector;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The collector process: a {@link UdpInlet} feeding per-thread {@link DatagramProcessor}s, with raw sinks (Kafka) and
 * row sinks (ClickHouse, JSON lines) chosen by the {@link Settings}.
 */
public final class Collector implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Collector.class);

    /** Collector settings; null sink settings mean "off". */
    public static final class Settings {
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
        /** ClickHouse user (default "default"). */
        public String clickhouseUser = "default";
        /** ClickHouse password (default empty). */
        public String clickhousePassword = "";
        /** ClickHouse database (default "vecflow"). */
        public String clickhouseDatabase = "vecflow";
        /** Rows per ClickHouse insert (default 50,000). */
        public int clickhouseBatchRows = 50_000;
        /** Longest wait before rows are inserted, ms (default 1000). */
        public long clickhouseFlushMs = 1000;
        /** Kafka bootstrap servers, or null. */
        public String kafkaBootstrap;
        /** Raw datagram topic (default vecflow-raw-v1). */
        public String kafkaRawTopic = KafkaRawSink.DEFAULT_TOPIC;
        /** Partitions when the raw topic is created (default 1). */
        public int kafkaPartitions = 1;
        /** JSON-lines output file, or null. */
        public Path jsonLines;
        /** Interval of agent_loss rows in ClickHouse, ms (default 10,000). */
        public long lossIntervalMs = 10_000;
        /** Further row sinks supplied by the embedding program (e.g. a summary); closed with the collector. */
        public final List<FlowSink> extraFlowSinks = new ArrayList<>();
    }

    private final CollectorStats stats = new CollectorStats();
    private final List<RawSink> rawSinks = new ArrayList<>();
    private final List<FlowSink> flowSinks = new ArrayList<>();
    private final UdpInlet inlet;
    private LossRecorder lossRecorder;

    /**
     * Opens the sinks, then binds the UDP port.
     *
     * @throws Exception if a sink cannot be reached or the port cannot be bound
     */
    public Collector(Settings s) throws Exception {
        try {
            if (s.kafkaBootstrap != null) {
                rawSinks.add(new KafkaRawSink(s.kafkaBootstrap, s.kafkaRawTopic, s.kafkaPartitions));
            }
            if (s.clickhouseUrl != null) {
                ClickHouseSink ch = new ClickHouseSink(s.clickhouseUrl, s.clickhouseUser, s.clickhousePassword,
                        s.clickhouseDatabase, s.clickhouseBatchRows, s.clickhouseFlushMs);
                flowSinks.add(ch);
                lossRecorder = new LossRecorder(stats.loss, ch, s.lossIntervalMs);
            }
            if (s.jsonLines != null) {
                flowSinks.add(new JsonLinesSink(s.jsonLines));
            }
            flowSinks.addAll(s.extraFlowSinks);
            inlet = new UdpInlet(new InetSocketAddress(s.bindAddress, s.port), s.threads, s.receiveBufferBytes,
                    s.maxDatagramBytes, s.readBatch,
                    () -> new DatagramProcessor(stats.decode, stats, rawSinks, flowSinks));
        } catch (Exception e) {
            closeSinks();
            throw e;
        }
        log.debug("collector listening on udp {} ({} sinks)", inlet.localAddress(), rawSinks.size() + flowSinks.size());
    }

    /** @return the bound UDP address. */
    public InetSocketAddress localAddress() {
        return inlet.localAddress();
    }

    /** @return counters. */
    public CollectorStats stats() {
        return stats;
    }

    /** @return the raw sinks. */
    public List<RawSink> rawSinks() {
        return List.copyOf(rawSinks);
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
        for (RawSink s : rawSinks) {
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
            log.warn("closing {}: {}", c, e.toString());
        }
    }

    @Override
    public void close() throws Exception {
        inlet.close();
        closeSinks();
    }
}
