package io.vecflow.cli;

import io.vecflow.collector.Collector;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.collector.sink.RawSink;
import io.vecflow.common.Errno;
import io.vecflow.dataplane.Dataplane;
import io.vecflow.hsflowd.HsflowdDaemon;
import io.vecflow.hsflowd.SflowAgent;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.psample.PsampleSubscriber;
import io.vecflow.netlink.psample.PsampleTransport;
import io.vecflow.packet.PcapFile;
import io.vecflow.sflow.DecodeError;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The whole chain in one process, on real sockets: pcap replay → dataplane workers → sample FIFOs → main thread →
 * netlink PSAMPLE (NETLINK_USERSOCK) → hsflowd-compatible agent → sFlow v5 over UDP → collector → sinks (JSON lines
 * by default; ClickHouse and Kafka when given). Every datagram the agent sends is also written to
 * {@code OUT/datagrams.pcap}.
 */
public final class Demo {
    /** Name of the bundled capture (tcpreplay's test capture, 179 packets; see testdata/SOURCES.md). */
    public static final String BUNDLED_CAPTURE = CaptureLoader.BUNDLED;

    /** Demo options (the CLI flags). */
    public static final class Options {
        /** Capture to replay, or null for the bundled one. */
        public Path capture;
        /** Capture replays. */
        public long loops = 1;
        /** Sampling rate N. */
        public int samplingRate = 1;
        /** Dataplane workers. */
        public int workers = 2;
        /** Header bytes per sample. */
        public int headerBytes = 128;
        /** Per-worker sample FIFO size. */
        public int fifoSize = 2047;
        /** Replay rate, packets/s (0 = as fast as possible). */
        public double packetsPerSecond;
        /** Output folder. */
        public Path out = Path.of("vecflow-out");
        /** ClickHouse URL or null. */
        public String clickhouse;
        /** ClickHouse database. */
        public String clickhouseDatabase = "vecflow";
        /** Kafka bootstrap or null. */
        public String kafka;
        /** Kafka raw topic. */
        public String kafkaTopic = "vecflow-raw-v1";
        /** NETLINK_USERSOCK multicast group for PSAMPLE (1..32), or 0 for unicast to the agent's port id. */
        public int netlinkGroup;
        /** Collector UDP port on 127.0.0.1 (0 = any free port). */
        public int collectorPort = 6343;
        /** sFlow datagram budget in bytes. */
        public int datagramBytes = 1400;
        /**
         * Called after the replay with the collector still open (its stores readable), or null: {@code demo
         * --serve} serves the console from it until Ctrl-C.
         */
        public Hold hold;
    }

    /** What runs between the end of the replay and the collector's close. */
    @FunctionalInterface
    public interface Hold {
        /**
         * @param collector the demo's collector, every row stored
         * @param result what the demo did
         * @throws Exception to abort the demo
         */
        void hold(Collector collector, Result result) throws Exception;
    }

    /** What the demo did, for the summary and for tests. */
    public record Result(String capture, int capturePackets, Dataplane.Stats dataplane, String netlink,
            long agentSamplesIn, long agentDatagramsSent, long agentSequenceGapDrops, long agentLastDrops,
            long collectorDatagrams, long collectorFlowRows, Map<DecodeError, Long> decodeErrors,
            List<String> sinks, Path datagramsPcap, long datagramsInPcap, int collectorPort,
            List<String> topFlows, int distinctFlows, long elapsedMs) {}

    private Demo() {}

    /**
     * Runs the chain to completion.
     *
     * @param o options
     * @param log where progress lines go
     * @return the result
     * @throws Exception if a stage cannot start (netlink, ports, services) or the chain does not drain in time
     */
    /**
     * @param out the demo's output folder
     * @return the embedded store's file under it ({@code OUT/store/vecflow.duckdb})
     */
    public static Path storeFile(Path out) {
        return out.resolve("store").resolve("vecflow.duckdb");
    }

    public static Result run(Options o, PrintStream log) throws Exception {
        long t0 = System.nanoTime();
        Files.createDirectories(o.out);
        String captureName = o.capture == null ? BUNDLED_CAPTURE + " (bundled)" : o.capture.toString();
        PcapFile capture = CaptureLoader.load(o.capture, log);

        Collector.Settings cs = new Collector.Settings();
        cs.bindAddress = "127.0.0.1";
        cs.port = o.collectorPort;
        cs.threads = 2;
        cs.jsonLines = o.out.resolve("flows.jsonl");
        cs.clickhouseUrl = o.clickhouse;
        // Without ClickHouse the rows go into the embedded store under --out, which the console (--serve) reads.
        cs.duckdbPath = o.clickhouse == null ? storeFile(o.out) : null;
        cs.clickhouseDatabase = o.clickhouseDatabase;
        cs.clickhouseExtraTables = io.vecflow.lab.out.LabTables.TABLES;
        cs.clickhouseFlushMs = 500;
        cs.kafkaBootstrap = o.kafka;
        cs.kafkaRawTopic = o.kafkaTopic;
        if (o.kafka != null) {
            // One path: datagrams -> raw topic -> this run's outlet -> sinks. A group of its own that starts at the
            // end of the topic stores this run's datagrams, not the topic's history, and shares no partition.
            cs.kafkaConsumerGroup = "vecflow-demo-" + java.util.UUID.randomUUID();
            cs.kafkaOffsetReset = "latest";
        }
        cs.enrichment = DemoEnrichment.settings(o.out);
        TopFlows top = new TopFlows();
        cs.extraFlowSinks.add(top);

        try (Collector collector = new Collector(cs)) {
            int port = collector.localAddress().getPort();
            if (collector.outlet() != null) {
                waitFor(() -> collector.outlet().hasPartitions(), 30_000, "the outlet to join its consumer group");
            }
            HsflowdConfig hc = HsflowdConfig.parse("""
                    # written by vecflow demo
                    sflow {
                      sampling = %d
                      headerBytes = %d
                      datagramBytes = %d
                      agentIP = 127.0.0.1
                      collector { ip = 127.0.0.1 udpport = %d }
                      psample { group = 1 transport = usersock usersockGroup = %d }
                    }
                    """.formatted(o.samplingRate, o.headerBytes, o.datagramBytes, port,
                    o.netlinkGroup == 0 ? Psample.USERSOCK_DEFAULT_GROUP : o.netlinkGroup));
            Files.writeString(o.out.resolve("hsflowd.conf"), "# The agent configuration this demo ran with. "
                    + (o.netlinkGroup == 0 ? "The demo hands PSAMPLE to the agent by netlink unicast;\n# a standalone "
                    + "`vecflow hsflowd -f` with this file listens on the usersock group below instead.\n" : "\n")
                    + hc.describe());

            PsampleSubscriber sub;
            PsampleEmitter emitter;
            String netlink;
            int group = o.netlinkGroup;
            if (group != 0) {
                try {
                    sub = PsampleSubscriber.open(PsampleTransport.USERSOCK, group);
                } catch (NetlinkException e) {
                    if (e.errno() != Errno.EPERM) {
                        throw e;
                    }
                    log.println("vecflow demo: joining NETLINK_USERSOCK group " + group
                            + " needs root (CAP_NET_ADMIN); using unicast to the agent instead");
                    group = 0;
                    sub = null;
                }
            } else {
                sub = null;
            }
            if (group != 0) {
                emitter = PsampleEmitter.open(PsampleTransport.USERSOCK, group, Psample.Convention.VPP);
                netlink = "NETLINK_USERSOCK multicast group " + group;
            } else {
                // Unicast to the agent's port id: private to this run, and needs no privilege.
                sub = PsampleSubscriber.openUnicast();
                emitter = PsampleEmitter.openUnicast(sub.portId(), Psample.Convention.VPP);
                netlink = "NETLINK_USERSOCK unicast to the agent's port id " + sub.portId();
            }
            final PsampleSubscriber subscriber = sub;
            SflowAgent agent = new SflowAgent(hc, InetAddress.getByName("127.0.0.1"));
            Path pcapFile = o.out.resolve("datagrams.pcap");
            DatagramPcapWriter pcap = new DatagramPcapWriter(pcapFile, agent.agentAddress(), agent.localPort());
            agent.addListener(pcap);

            Dataplane.Settings ds = new Dataplane.Settings();
            ds.workers = o.workers;
            ds.samplingRate = o.samplingRate;
            ds.headerBytes = o.headerBytes;
            ds.fifoCapacity = o.fifoSize;
            ds.loops = o.loops;
            ds.packetsPerSecond = o.packetsPerSecond;
            Dataplane.Stats dps;
            try (HsflowdDaemon daemon = new HsflowdDaemon(agent, subscriber);
                    Dataplane dp = new Dataplane(ds, capture, emitter)) {
                log.printf("vecflow demo: replaying %s (%d packets) x %d loops on %d workers, sampling 1-in-%d%n",
                        captureName, capture.packets().size(), o.loops, o.workers, o.samplingRate);
                dp.start();
                dp.awaitCompletion();
                dps = dp.stats();
                // Everything the main thread sent must reach the agent (or be counted lost by netlink).
                waitFor(() -> agent.samplesIn() + subscriber.overruns() >= dps.psampleSent(), 15_000,
                        "agent to receive " + dps.psampleSent() + " PSAMPLE messages");
                agent.flush();
                waitFor(() -> collector.stats().datagramsReceived.sum() >= agent.datagramsSent(), 15_000,
                        "collector to receive " + agent.datagramsSent() + " datagrams");
                collector.flush();
                if (collector.outlet() != null && !collector.outlet().awaitCaughtUp(30_000)) {
                    throw new IllegalStateException("timed out after 30000 ms waiting for the outlet to store the "
                            + "raw topic's records (lag " + collector.outlet().lag() + ")");
                }
            } finally {
                emitter.close();
                pcap.close();
            }
            List<String> sinks = new ArrayList<>();
            for (RawSink r : collector.rawSinks()) {
                sinks.add(r.name() + ": " + r.written() + " datagrams" + (r.failed() > 0 ? ", " + r.failed()
                        + " failed" : ""));
            }
            for (FlowSink f : collector.flowSinks()) {
                if (f != top) {
                    sinks.add(f.name() + ": " + f.rowsWritten() + " rows" + (f.rowsFailed() > 0 ? ", "
                            + f.rowsFailed() + " failed" : ""));
                }
            }
            List<String> topFlows = new ArrayList<>();
            for (var e : top.top(5)) {
                long n = e.getValue().samples;
                topFlows.add(String.format("%,14d bytes  %5d sample%s  %s", e.getValue().bytes, n, n == 1 ? " " : "s",
                        e.getKey()));
            }
            Result result = new Result(captureName, capture.packets().size(), dps, netlink, agent.samplesIn(),
                    agent.datagramsSent(), agent.sequenceGapDrops(), agent.lastDropsField(),
                    collector.stats().datagramsReceived.sum(), collector.stats().flowRows.sum(),
                    collector.stats().decode.errorsByKind(), sinks, pcapFile, pcap.written(), port, topFlows,
                    top.distinctFlows(), (System.nanoTime() - t0) / 1_000_000);
            if (collector.clickhouse() != null && collector.clickhouse().duckDb() != null) {
                // Everything in the file itself, not only in its write-ahead log: a demo stopped while it serves
                // (Ctrl-C, SIGTERM) leaves a store that opens and copies whole.
                collector.clickhouse().duckDb().execute("CHECKPOINT");
            }
            if (o.hold != null) {
                o.hold.hold(collector, result);
            }
            return result;
        }
    }

    /** Prints the summary the demo command shows. */
    public static void printSummary(Result r, PrintStream out) {
        Dataplane.Stats d = r.dataplane();
        out.println();
        out.println("vecflow demo summary (" + r.elapsedMs() + " ms)");
        out.printf("  capture      %s, %d packets%n", r.capture(), r.capturePackets());
        out.printf("  dataplane    packets replayed %,d (IPv4 %,d, IPv6 %,d, other %,d), forwarded %,d%n",
                d.packetsReplayed(), d.ip4(), d.ip6(), d.otherEthertypes(), d.outputPackets());
        out.printf("  sampling     samples taken %,d, samples dropped in FIFOs %,d (carried to the agent as PSAMPLE "
                + "sequence gaps: %,d)%n", d.samplesTaken(), d.fifoDrops(), d.fifoDropsCarried());
        out.printf("  netlink      PSAMPLE sent %,d, send failures %,d, via %s%n", d.psampleSent(), d.psampleFailed(),
                r.netlink());
        out.printf("  agent        samples received %,d, datagrams sent %,d, drops reported %,d (last drops field "
                + "%,d)%n",
                r.agentSamplesIn(), r.agentDatagramsSent(), r.agentSequenceGapDrops(), r.agentLastDrops());
        out.printf("  collector    datagrams received %,d on udp 127.0.0.1:%d, flow rows %,d, decode errors %s%n",
                r.collectorDatagrams(), r.collectorPort(), r.collectorFlowRows(),
                r.decodeErrors().isEmpty() ? "0" : r.decodeErrors().toString());
        for (String s : r.sinks()) {
            out.println("  sink         " + s);
        }
        out.printf("  datagrams    %s (%d datagrams; read with: tshark -r %s -d udp.port==%d,sflow -V)%n",
                r.datagramsPcap(), r.datagramsInPcap(), r.datagramsPcap(), r.collectorPort());
        out.printf("Top 5 of %d flows by estimated bytes (sampled frame bytes x sampling rate):%n", r.distinctFlows());
        for (String f : r.topFlows()) {
            out.println("  " + f);
        }
    }

    private static void waitFor(BooleanSupplier cond, long timeoutMs, String what) throws Exception {
        long end = System.currentTimeMillis() + timeoutMs;
        while (!cond.getAsBoolean()) {
            if (System.currentTimeMillis() > end) {
                throw new IllegalStateException("timed out after " + timeoutMs + " ms waiting for " + what);
            }
            Thread.sleep(5);
        }
    }

}
