package io.vecflow.cli;

import io.vecflow.sflow.DatagramBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/**
 * The collector's fault matrix (issue 17, "Nothing lost, nothing counted twice"): every scenario runs the collector
 * daemon ({@code vecflow collector --config FILE}) as its own OS processes against a private ClickHouse and Kafka
 * (started with {@code scripts/services/*.sh} on their own ports, stopped and started again for the outages),
 * sends a load of synthetic sFlow agents with unique datagram and sample sequence numbers, waits for the pipeline to
 * settle and counts from ClickHouse what was stored, once or more, against what was sent.
 *
 * <p>Scenarios ({@link #SCENARIOS}): baseline; ClickHouse down (outlet, with Kafka); ClickHouse down (role all, no
 * Kafka: the inlet spools raw datagrams beyond the pending-rows cap); the outlet killed with SIGKILL three times;
 * the Kafka broker down under load; the inlet killed with SIGKILL; a 10 s flood at 10× the base rate; 10 %
 * malformed datagrams; an outlet catching up a backlog. One {@link Row} per scenario: datagrams and samples sent,
 * records in the raw topic, flow rows stored, unique (agent, source, sample sequence), lost = sent − unique,
 * duplicated = stored − unique, the {@code agents} table's datagram gap, what the metrics said, and memory.
 *
 * <p>Goals ({@link Row#failures()}): 0 lost and 0 duplicated, except the inlet kill (the datagrams lost equal the
 * {@code agents} gap exactly) and the flood (the loss is only at the kernel socket: equal to
 * {@code vecflow_collector_socket_drops} and to the {@code agents} gap); peak pending ClickHouse bytes within the
 * documented bound (2 × {@code clickhouse.max-pending-bytes} + {@link #PENDING_SLACK}) and each process's peak RSS
 * under {@link Plan#rssCapBytes}.
 *
 * <p>Run: {@code bench/fault-matrix.sh [--short|--full] [--only S,..] [--out DIR]}; the short form is
 * {@link FaultMatrixTest}. Load goes to 127.0.0.1 only, bounded in count and time.
 */
public final class FaultMatrix {
    /** Scenario names, in the order they run. */
    public static final List<String> SCENARIOS = List.of("baseline", "clickhouse-down-outlet", "clickhouse-down-all",
            "outlet-kill-x3", "kafka-down", "inlet-kill", "flood-10x", "malformed-10pct", "backlog");

    /** Flow samples per datagram (one per data source, each source's sample sequence rising). */
    static final int SAMPLES_PER_DATAGRAM = 2;
    /** The synthetic agents: 192.0.2.1 .. 192.0.2.4 (TEST-NET-1, only written in the datagrams). */
    static final int AGENTS = 4;
    /** Agent address of the malformed datagrams' truncated copies (kept apart from the real agents). */
    static final byte[] MALFORMED_AGENT = {(byte) 192, 0, 2, (byte) 254};
    /** Agent address of the warm-up load (not counted). */
    static final byte[] WARMUP_AGENT = {(byte) 192, 0, 2, 100};
    /** Allowed above 2 × max-pending-bytes: one datagram's rows and the agents table's batch, bytes. */
    static final long PENDING_SLACK = 256 << 10;

    /**
     * Sizes of one form of the matrix.
     *
     * @param form "short" or "full"
     * @param rate base load, datagrams per second
     * @param kafkaDownRate load during the broker outage, datagrams per second
     * @param loadSeconds load of the scenarios without an outage (baseline, malformed)
     * @param outageSeconds ClickHouse and Kafka outages
     * @param leadSeconds load before a fault, and after it
     * @param killGapSeconds time between the outlet's SIGKILLs
     * @param floodSeconds the flood's length (at {@code 10 × rate}, as fast as the sender goes)
     * @param backlogSeconds load sent while no outlet runs
     * @param maxPendingBytes {@code clickhouse.max-pending-bytes}
     * @param heap collector JVM heap, {@code -Xmx}
     * @param rssCapBytes peak resident memory allowed per collector process
     * @param settleSeconds longest wait for the pipeline to settle after the load
     * @param warmupSeconds load from a warm-up agent (192.0.2.100, not counted) before the measured agents send,
     *     at the scenario's rate: the collectors' JIT warm-up is not what a scenario measures (its socket drops
     *     are reported apart)
     * @param floodRate datagrams/s asked during the flood: about 10 × what the pipeline sustains (the outlet catches
     *     up ~50,000/s here); the sender offers what it can and the row says how much
     */
    public record Plan(String form, int rate, int kafkaDownRate, int loadSeconds, int outageSeconds, int leadSeconds,
            int killGapSeconds, int floodSeconds, int backlogSeconds, long maxPendingBytes, String heap,
            long rssCapBytes, int settleSeconds, int warmupSeconds, int floodRate) {
        /** @return the short form: every scenario, 8 s outages, 3,000 datagrams/s, a 30 s backlog. */
        public static Plan shortForm() {
            return new Plan("short", 3000, 3000, 8, 8, 4, 4, 10, 30, 2L << 20, "512m", 1L << 30, 120, 3, 300_000);
        }

        /** @return the full form: 60 s outages, 5,000 datagrams/s (20,000 during the broker outage), a 5 min
         *  backlog. */
        public static Plan fullForm() {
            return new Plan("full", 5_000, 20_000, 30, 60, 10, 10, 10, 300, 16L << 20, "512m", 1L << 30, 600, 10,
                    500_000);
        }
    }

    /** Command-line options of {@link #main}. */
    public static final class Options {
        Plan plan = Plan.shortForm();
        List<String> only = SCENARIOS;
        Path out;
        int chHttp = 38123, chTcp = 39000, chInter = 39009, kafka = 39092, kafkaController = 39093;
        boolean keep;
        int threads = 2;
        /** Flood rate, datagrams/s; 0 = the plan's. */
        double floodRate;
    }

    /** One scenario's outcome: what was sent, in Kafka, stored, and what the metrics said. */
    public static final class Row {
        final String scenario;
        long sentDatagrams, sentSamples, malformedSent;
        long inKafka = -1;
        long stored, unique, uniqueDatagrams;
        long agentsDatagrams, agentsGap, agentsReordered, agentsDuplicated, agentsResets, agentsSamplesLost;
        long socketDrops, decodeErrors, duplicateMetric, spooled, replayed, spoolLost, spoolHeldAtEnd;
        boolean settled = true;
        long peakPending, peakLag, peakSpoolBytes, peakRss;
        double offeredRate, seconds, catchUpSeconds = -1;
        String rssBy = "";
        final List<String> observed = new ArrayList<>();
        final List<String> failures = new ArrayList<>();
        final List<String> logs = new ArrayList<>();
        Plan plan;

        Row(String scenario) {
            this.scenario = scenario;
        }

        /** @return the scenario's name. */
        public String scenario() {
            return scenario;
        }

        /** @return samples sent and never stored. */
        public long lost() {
            return sentSamples - unique;
        }

        /** @return rows stored more than once. */
        public long duplicated() {
            return stored - unique;
        }

        /** @return datagrams of the real agents sent and never stored. */
        public long lostDatagrams() {
            return sentDatagrams - uniqueDatagrams;
        }

        /** @return the goals this row missed (empty = met), each naming the numbers. */
        public List<String> failures() {
            return failures;
        }

        /** @return the collector logs of the scenario (paths). */
        public List<String> logs() {
            return logs;
        }

        void judge() {
            boolean lossAllowed = scenario.equals("inlet-kill") || scenario.equals("flood-10x");
            if (duplicated() != 0) {
                failures.add("duplicated " + duplicated() + " rows (stored " + stored + ", unique " + unique + ")");
            }
            if (agentsDuplicated != 0) {
                failures.add("agents says " + agentsDuplicated + " datagrams were duplicated");
            }
            if (lost() != lostDatagrams() * SAMPLES_PER_DATAGRAM) {
                failures.add("lost samples " + lost() + " != " + SAMPLES_PER_DATAGRAM + " x lost datagrams "
                        + lostDatagrams() + ": a datagram stored in part");
            }
            if (!lossAllowed) {
                if (lost() != 0) {
                    failures.add("lost " + lost() + " of " + sentSamples + " samples (" + lostDatagrams()
                            + " datagrams)");
                }
                if (agentsGap != 0) {
                    failures.add("agents gap " + agentsGap + " where nothing was lost");
                }
            } else {
                if (lostDatagrams() != agentsGap) {
                    failures.add("lost datagrams " + lostDatagrams() + " != agents gap " + agentsGap);
                }
                if (scenario.equals("flood-10x") && lostDatagrams() != socketDrops) {
                    failures.add("lost datagrams " + lostDatagrams() + " != socket drops " + socketDrops
                            + " (loss outside the kernel socket)");
                }
            }
            if (agentsDatagrams != uniqueDatagrams) {
                failures.add("agents counts " + agentsDatagrams + " datagrams, " + uniqueDatagrams + " stored");
            }
            if (!settled) {
                failures.add("the pipeline did not settle within " + plan.settleSeconds() + " s");
            }
            if (spoolHeldAtEnd != 0) {
                failures.add("the inlet's spool still held " + spoolHeldAtEnd + " datagrams at the end, its "
                        + "downstream ready (spooled " + spooled + ", replayed " + replayed + ")");
            }
            if (spoolLost != 0) {
                failures.add("the spool lost " + spoolLost + " datagrams");
            }
            if (scenario.equals("malformed-10pct") && decodeErrors != malformedSent) {
                failures.add("decode errors " + decodeErrors + " != malformed datagrams sent " + malformedSent);
            }
            // ClickHouseSink's bound: per table max-pending-bytes waiting (plus one datagram's rows) and as much
            // again in an insert; flows holds nearly all of it, agents a few KiB.
            if (peakPending > 2 * plan.maxPendingBytes + PENDING_SLACK) {
                failures.add("pending ClickHouse bytes peaked at " + peakPending + " > 2 x max-pending-bytes "
                        + plan.maxPendingBytes + " + " + PENDING_SLACK);
            }
            if (peakRss > plan.rssCapBytes) {
                failures.add("peak RSS " + mib(peakRss) + " > cap " + mib(plan.rssCapBytes) + " (" + rssBy + ")");
            }
        }

        String metrics() {
            StringBuilder b = new StringBuilder();
            b.append("spooled ").append(spooled).append("/replayed ").append(replayed);
            if (spoolLost != 0) {
                b.append("/lost ").append(spoolLost);
            }
            b.append(", socket drops ").append(socketDrops);
            b.append(", dup ").append(duplicateMetric);
            if (decodeErrors != 0 || malformedSent != 0) {
                b.append(", decode errors ").append(decodeErrors);
            }
            b.append(", peak lag ").append(peakLag);
            if (peakSpoolBytes > 0) {
                b.append(", peak spool ").append(mib(peakSpoolBytes));
            }
            for (String o : observed) {
                b.append("; ").append(o);
            }
            return b.toString();
        }
    }

    // ---------------------------------------------------------------------------------------------- services

    /** The private ClickHouse and Kafka: {@code scripts/services/*.sh start|stop DIR} on the matrix's own ports. */
    static final class Services implements AutoCloseable {
        final Path root;
        final Path dir;
        final Options o;
        final Path log;
        boolean chUp;
        boolean kafkaUp;

        Services(Path root, Path dir, Options o) {
            this.root = root;
            this.dir = dir;
            this.o = o;
            this.log = dir.resolve("services.log");
        }

        String clickhouseUrl() {
            return "http://127.0.0.1:" + o.chHttp;
        }

        String kafka() {
            return "127.0.0.1:" + o.kafka;
        }

        private void script(String name, String action, String sub) throws IOException, InterruptedException {
            Path s = root.resolve("scripts/services/" + name);
            if (!Files.isExecutable(s)) {
                throw new IllegalStateException(s + " is missing or not executable");
            }
            ProcessBuilder pb = new ProcessBuilder("bash", s.toString(), action, dir.resolve(sub).toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            Map<String, String> env = pb.environment();
            env.put("VF_CH_HTTP_PORT", Integer.toString(o.chHttp));
            env.put("VF_CH_TCP_PORT", Integer.toString(o.chTcp));
            env.put("VF_CH_INTERSERVER_PORT", Integer.toString(o.chInter));
            env.put("VF_KAFKA_PORT", Integer.toString(o.kafka));
            env.put("VF_KAFKA_CONTROLLER_PORT", Integer.toString(o.kafkaController));
            env.put("JAVA_HOME", System.getProperty("java.home"));
            Process p = pb.start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(name + " " + action + " took more than 300 s; " + tail(log, 40));
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(name + " " + action + " failed (exit " + p.exitValue() + "): "
                        + tail(log, 40));
            }
        }

        void startClickHouse() throws Exception {
            script("clickhouse.sh", "start", "clickhouse");
            chUp = true;
        }

        void stopClickHouse() throws Exception {
            chUp = false;
            script("clickhouse.sh", "stop", "clickhouse");
        }

        void startKafka() throws Exception {
            script("kafka.sh", "start", "kafka");
            kafkaUp = true;
        }

        void stopKafka() throws Exception {
            kafkaUp = false;
            script("kafka.sh", "stop", "kafka");
        }

        void ensureUp() throws Exception {
            if (!chUp) {
                startClickHouse();
            }
            if (!kafkaUp) {
                startKafka();
            }
        }

        @Override
        public void close() {
            try {
                script("kafka.sh", "stop", "kafka");
            } catch (Exception e) {
                System.err.println("fault matrix: stopping Kafka: " + e.getMessage());
            }
            try {
                script("clickhouse.sh", "stop", "clickhouse");
            } catch (Exception e) {
                System.err.println("fault matrix: stopping ClickHouse: " + e.getMessage());
            }
        }
    }

    // ------------------------------------------------------------------------------------- collector processes

    /** One collector daemon ({@code vecflow collector --config FILE}) as its own OS process, restartable. */
    static final class Proc {
        final String name;
        final Path config;
        final Path log;
        final String heap;
        final String yamlTemplate;
        volatile Process process;
        volatile int metricsPort;
        volatile Map<String, Double> current = Map.of();
        final List<Map<String, Double>> past = new CopyOnWriteArrayList<>();
        volatile long peakRss;
        int starts;

        Proc(String name, Path dir, String heap, String yamlTemplate) {
            this.name = name;
            this.config = dir.resolve(name + ".yaml");
            this.log = dir.resolve(name + ".log");
            this.heap = heap;
            this.yamlTemplate = yamlTemplate;
        }

        /** Starts a new instance (a new metrics port each time) and waits for its metrics endpoint. */
        void start() throws Exception {
            metricsPort = freeTcpPort();
            Files.writeString(config, yamlTemplate.replace("@METRICS_PORT@", Integer.toString(metricsPort)));
            List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx" + heap, "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                    "-cp", System.getProperty("java.class.path"), VecflowCommand.class.getName(), "collector",
                    "--config", config.toString());
            Files.writeString(log, "---- start " + (++starts) + " at " + Instant.now() + "\n",
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            current = Map.of();
            process = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (true) {
                if (!process.isAlive()) {
                    throw new IllegalStateException(name + " exited at start (" + process.exitValue() + "): "
                            + tail(log, 30));
                }
                Map<String, Double> m = scrape();
                if (m != null) {
                    current = m;
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(name + ": no /metrics within 90 s: " + tail(log, 30));
                }
                Thread.sleep(200);
            }
        }

        boolean alive() {
            Process p = process;
            return p != null && p.isAlive();
        }

        /** SIGKILL: no flush, no commit. */
        void kill9() throws InterruptedException {
            Process p = process;
            if (p != null) {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
                past.add(current);
                current = Map.of();
                process = null;
            }
        }

        /** SIGTERM and wait: flushes, commits, writes the last agents rows. */
        void term() throws InterruptedException {
            Process p = process;
            if (p != null) {
                Map<String, Double> m = scrape();
                if (m != null) {
                    current = m;
                }
                p.destroy();
                if (!p.waitFor(90, TimeUnit.SECONDS)) {
                    System.err.println("fault matrix: " + name + " did not stop within 90 s of SIGTERM: killed");
                    p.destroyForcibly();
                    p.waitFor(30, TimeUnit.SECONDS);
                }
                past.add(current);
                current = Map.of();
                process = null;
            }
        }

        /** @return the metrics of the running instance, or null when it does not answer. */
        Map<String, Double> scrape() {
            try {
                HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                        .timeout(Duration.ofSeconds(3)).GET().build();
                HttpResponse<String> r = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    return null;
                }
                return parseMetrics(r.body());
            } catch (IOException e) {
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        /** Samples RSS and metrics (the monitor thread). */
        void sample() {
            Process p = process;
            if (p == null || !p.isAlive()) {
                return;
            }
            long rss = rssBytes(p.pid());
            if (rss > peakRss) {
                peakRss = rss;
            }
            Map<String, Double> m = scrape();
            if (m != null && process == p) {
                current = m;
            }
        }

        /** @return a counter summed over every instance so far (each instance's last scrape). */
        long total(String name, String labelFilter) {
            double t = sum(current, name, labelFilter);
            for (Map<String, Double> m : past) {
                t += sum(m, name, labelFilter);
            }
            return Math.round(t);
        }

        /** @return a metric of the running instance (summed over label sets matching the filter), or 0. */
        double now(String name, String labelFilter) {
            return sum(current, name, labelFilter);
        }
    }

    static Map<String, Double> parseMetrics(String body) {
        Map<String, Double> m = new HashMap<>();
        for (String line : body.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int sp = line.lastIndexOf(' ');
            if (sp <= 0) {
                continue;
            }
            try {
                m.put(line.substring(0, sp).trim(), Double.parseDouble(line.substring(sp + 1).trim()));
            } catch (NumberFormatException e) {
                // not a sample line
            }
        }
        return m;
    }

    /** Sum of {@code name} (or {@code name_total}) over the label sets containing {@code labelFilter}. */
    static double sum(Map<String, Double> m, String name, String labelFilter) {
        double t = 0;
        for (Map.Entry<String, Double> e : m.entrySet()) {
            String k = e.getKey();
            int brace = k.indexOf('{');
            String n = brace < 0 ? k : k.substring(0, brace);
            if (!n.equals(name) && !n.equals(name + "_total")) {
                continue;
            }
            if (labelFilter != null && !labelFilter.isEmpty() && (brace < 0 || !k.contains(labelFilter))) {
                continue;
            }
            t += e.getValue();
        }
        return t;
    }

    static long rssBytes(long pid) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // the process is gone
        }
        return 0;
    }

    // ------------------------------------------------------------------------------------------------- load

    /**
     * The synthetic agents' load: {@link #AGENTS} agents (192.0.2.1..), round robin, each datagram with the agent's
     * next datagram sequence number and {@link #SAMPLES_PER_DATAGRAM} expanded flow samples (one per data source,
     * ifIndex 1 and 2, each source's sample sequence number rising by one), each with a 42-byte Ethernet/IPv4/UDP
     * sampled header; paced to {@link #rate} (changeable while running) with a credit that catches up short stalls;
     * sent from 127.0.0.1 to 127.0.0.1:port. A datagram counts as sent once {@code send} returned. Bounded by
     * {@code maxSeconds} and {@code maxDatagrams}.
     */
    static final class Load implements Runnable {
        final int port;
        volatile double rate;
        volatile boolean stop;
        /** Every n-th datagram is malformed (0 = none). */
        final int malformedEvery;
        final long maxNanos;
        final long maxDatagrams;
        final long[] seq = new long[AGENTS];
        volatile long sent;
        volatile long malformed;
        final DatagramBuilder[] builders = new DatagramBuilder[AGENTS];
        final DatagramBuilder bad = new DatagramBuilder(1400, MALFORMED_AGENT, 1);
        long badSeq;
        /** While true every datagram comes from the warm-up agent. */
        volatile boolean warmup;
        final DatagramBuilder warm = new DatagramBuilder(1400, WARMUP_AGENT, 0);
        volatile long warmupSent;
        final byte[] header = new byte[42];
        final SplittableRandom random = new SplittableRandom(17);
        long t0;
        volatile long sendingNanos;
        volatile Throwable error;
        private Thread thread;
        /** Nanos and datagrams at the last {@link #mark()}: the rate of a phase. */
        private volatile long markNanos, markSent;

        Load(int port, double rate, int malformedEvery, long maxSeconds, long maxDatagrams) {
            this.port = port;
            this.rate = rate;
            this.malformedEvery = malformedEvery;
            this.maxNanos = TimeUnit.SECONDS.toNanos(maxSeconds);
            this.maxDatagrams = maxDatagrams;
            for (int a = 0; a < AGENTS; a++) {
                builders[a] = new DatagramBuilder(1400, new byte[] {(byte) 192, 0, 2, (byte) (a + 1)}, 0);
            }
            // Ethernet (02:..:01 -> 02:..:02, IPv4), IPv4 198.51.100.1 -> 203.0.113.1 UDP, UDP 5000 -> 6000.
            byte[] h = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 8, 0, 0x45, 0, 0, 50, 0, 1, 0, 0, 64, 17, 0, 0,
                (byte) 198, 51, 100, 1, (byte) 203, 0, 113, 1, 0x13, (byte) 0x88, 0x17, 0x70, 0, 30, 0, 0};
            System.arraycopy(h, 0, header, 0, h.length);
        }

        void start() {
            thread = new Thread(this, "fault-matrix-load");
            thread.setDaemon(true);
            thread.start();
        }

        void stopAndJoin() throws InterruptedException {
            stop = true;
            if (thread != null) {
                thread.join(30_000);
            }
            if (error != null) {
                throw new IllegalStateException("load generator failed", error);
            }
        }

        void mark() {
            markSent = sent;
            markNanos = System.nanoTime();
        }

        /** @return datagrams per second since the last {@link #mark()}. */
        double rateSinceMark() {
            double s = (System.nanoTime() - markNanos) / 1e9;
            return s <= 0 ? 0 : (sent - markSent) / s;
        }

        long realDatagrams() {
            long n = 0;
            for (long s : seq) {
                n += s;
            }
            return n;
        }

        @Override
        public void run() {
            try (DatagramChannel ch = DatagramChannel.open()) {
                ch.bind(new InetSocketAddress("127.0.0.1", 0));
                InetSocketAddress to = new InetSocketAddress("127.0.0.1", port);
                t0 = System.nanoTime();
                long last = t0;
                double credit = 0;
                while (!stop && sent < maxDatagrams && System.nanoTime() - t0 < maxNanos) {
                    long now = System.nanoTime();
                    credit += rate * (now - last) / 1e9;
                    last = now;
                    if (credit < 1) {
                        LockSupport.parkNanos(200_000);
                        continue;
                    }
                    int burst = (int) Math.min(credit, 2000);
                    for (int i = 0; i < burst && !stop && sent < maxDatagrams; i++) {
                        sendOne(ch, to);
                        credit--;
                    }
                }
                sendingNanos = System.nanoTime() - t0;
            } catch (Throwable t) {
                error = t;
            }
        }

        private void sendOne(DatagramChannel ch, InetSocketAddress to) throws IOException {
            long k = sent;
            if (warmup) {
                long s = warmupSent + 1;
                warm.reset();
                warm.addFlowSampleExpanded(s, 0, 1, 1000, s * 1000, 0, 0, 1, 0, 2, 1, 64, 4, header, 0, header.length);
                int len = warm.finish(s, uptime());
                send(ch, ByteBuffer.wrap(warm.buffer(), 0, len), to);
                warmupSent = s;
                sent = k + 1;
                return;
            }
            if (malformedEvery > 0 && k % malformedEvery == malformedEvery - 1) {
                ByteBuffer b;
                if ((k / malformedEvery) % 2 == 0) {
                    // Not sFlow at all: a version word of 0x99, then random bytes.
                    byte[] r = new byte[64 + random.nextInt(200)];
                    random.nextBytes(r);
                    r[0] = 0;
                    r[1] = 0;
                    r[2] = 0;
                    r[3] = (byte) 0x99;
                    b = ByteBuffer.wrap(r);
                } else {
                    // A real datagram of its own agent (192.0.2.254), cut inside its first sample.
                    bad.reset();
                    bad.addFlowSampleExpanded(++badSeq, 0, 1, 1000, badSeq * 1000, 0, 0, 1, 0, 2, 1, 64, 4,
                            header, 0, header.length);
                    bad.finish(badSeq, uptime());
                    b = ByteBuffer.wrap(bad.buffer(), 0, 28 + 24);
                }
                send(ch, b, to);
                malformed++;
                sent = k + 1;
                return;
            }
            int a = (int) (realDatagrams() % AGENTS);
            long s = seq[a] + 1;
            DatagramBuilder b = builders[a];
            b.reset();
            for (int src = 0; src < SAMPLES_PER_DATAGRAM; src++) {
                header[41] = (byte) s; // vary the payload a little
                b.addFlowSampleExpanded(s, 0, src + 1, 1000, s * 1000, 0, 0, src + 1, 0, src + 10, 1, 64, 4,
                        header, 0, header.length);
            }
            int len = b.finish(s, uptime());
            send(ch, ByteBuffer.wrap(b.buffer(), 0, len), to);
            seq[a] = s;
            sent = k + 1;
        }

        private long uptime() {
            return 60_000 + (System.nanoTime() - t0) / 1_000_000;
        }

        private static void send(DatagramChannel ch, ByteBuffer b, InetSocketAddress to) throws IOException {
            for (int attempt = 0; ; attempt++) {
                try {
                    ch.send(b, to);
                    return;
                } catch (java.net.PortUnreachableException e) {
                    // An ICMP error of an earlier datagram (the port was closed): this one was not sent; again.
                    if (attempt > 3) {
                        throw e;
                    }
                }
            }
        }
    }

    // --------------------------------------------------------------------------------------------- scenario

    /** One scenario's processes, names and monitor. */
    final class Ctx implements AutoCloseable {
        final String scenario;
        final Path dir;
        final String db;
        final String topic;
        final String group;
        final Path spool;
        final int udpPort;
        final Row row;
        final List<Proc> procs = new CopyOnWriteArrayList<>();
        private final Thread monitor;
        private volatile boolean monitoring = true;
        final long t0 = System.nanoTime();
        long dropsAtWarmUp;

        Ctx(String scenario) throws IOException {
            this.scenario = scenario;
            this.dir = Files.createDirectories(out.resolve(scenario));
            String sfx = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
            String id = scenario.replaceAll("[^a-z0-9]", "_") + "_" + sfx;
            this.db = "fm_" + id;
            this.topic = "fm-raw-" + id.replace('_', '-');
            this.group = "fm-outlet-" + sfx;
            this.spool = dir.resolve("spool");
            this.udpPort = freeUdpPort();
            this.row = new Row(scenario);
            row.plan = plan;
            this.monitor = new Thread(() -> {
                while (monitoring) {
                    try {
                        sampleAll();
                    } catch (RuntimeException e) {
                        row.observed.add("monitor: " + e);
                    }
                    try {
                        Thread.sleep(500);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "fault-matrix-monitor");
            monitor.setDaemon(true);
            monitor.start();
        }

        private void sampleAll() {
                    for (Proc p : procs) {
                        p.sample();
                        long pending = Math.round(p.now("vecflow_clickhouse_pending_bytes", null));
                        row.peakPending = Math.max(row.peakPending, pending);
                        row.peakLag = Math.max(row.peakLag, Math.round(p.now("vecflow_kafka_outlet_lag", null)));
                        row.peakSpoolBytes = Math.max(row.peakSpoolBytes,
                                Math.round(p.now("vecflow_inlet_spool_bytes", "state=\"held\"")));
                    }
        }

        private String kafkaYaml() {
            return "kafka:\n  bootstrap: \"" + services.kafka() + "\"\n  raw-topic: " + topic
                    + "\n  partitions: 4\n  consumer-group: " + group + "\n";
        }

        private String clickhouseYaml() {
            return "clickhouse:\n  url: \"" + services.clickhouseUrl() + "\"\n  database: " + db
                    + "\n  max-pending-bytes: " + plan.maxPendingBytes() + "\n";
        }

        private String listenYaml() {
            return "listen:\n  address: 127.0.0.1\n  port: " + udpPort + "\n  threads: " + threads + "\n"
                    + "spool:\n  directory: \"" + spool + "\"\n";
        }

        private static String metricsYaml() {
            return "metrics:\n  listen: 127.0.0.1\n  port: @METRICS_PORT@\nloss-interval-ms: 1000\n";
        }

        Proc inlet() {
            return add(new Proc("inlet", dir, plan.heap(), "role: inlet\n" + listenYaml() + kafkaYaml()
                    + metricsYaml()));
        }

        Proc outlet() {
            return add(new Proc("outlet", dir, plan.heap(), "role: outlet\n" + kafkaYaml() + clickhouseYaml()
                    + metricsYaml()));
        }

        Proc allNoKafka() {
            return add(new Proc("all", dir, plan.heap(), "role: all\n" + listenYaml() + clickhouseYaml()
                    + metricsYaml()));
        }

        private Proc add(Proc p) {
            procs.add(p);
            row.logs.add(p.log.toString());
            return p;
        }

        Load load(double rate, int malformedEvery) {
            long maxSeconds = 3L * (plan.backlogSeconds() + plan.outageSeconds() + 120);
            Load l = new Load(udpPort, rate, malformedEvery, maxSeconds, 50_000_000L);
            l.warmup = plan.warmupSeconds() > 0;
            return l;
        }

        /** Lets the warm-up agent send for {@link Plan#warmupSeconds}, then the measured agents. */
        void warmUp(Load l, Proc inlet) throws InterruptedException {
            Thread.sleep(plan.warmupSeconds() * 1000L);
            inlet.sample();
            dropsAtWarmUp = inlet.total("vecflow_collector_socket_drops", null);
            long w = l.warmupSent;
            l.warmup = false;
            l.mark();
            row.observed.add(String.format(Locale.ROOT, "warm-up: %,d datagrams in %d s, %d socket drops", w,
                    plan.warmupSeconds(), dropsAtWarmUp));
        }

        double elapsed() {
            return (System.nanoTime() - t0) / 1e9;
        }

        /** Waits until the outlet's lag is 0, the spool empty and the unique rows stop growing (or reach all). */
        void settle(Load load, Proc inlet, Proc outlet) throws Exception {
            long expect = load.realDatagrams() * SAMPLES_PER_DATAGRAM;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(plan.settleSeconds());
            long lastUnique = -1;
            long stableSince = System.nanoTime();
            long quietNanos = TimeUnit.SECONDS.toNanos(plan.form().equals("full") ? 20 : 8);
            while (System.nanoTime() < deadline) {
                Thread.sleep(1000);
                long u = uniqueSamples();
                boolean lagZero = outlet == null || (outlet.alive() && outlet.now("vecflow_kafka_outlet_lag", null) == 0
                        && outlet.now("vecflow_collector_ready", "stage=\"outlet\"") == 1);
                boolean spoolEmpty = inlet == null || inlet.now("vecflow_inlet_spool_datagrams", null) == 0;
                if (u != lastUnique) {
                    lastUnique = u;
                    stableSince = System.nanoTime();
                }
                if (lagZero && spoolEmpty && (u >= expect || System.nanoTime() - stableSince > quietNanos)) {
                    Thread.sleep(2000); // anything beyond would show now
                    return;
                }
            }
            row.settled = false;
        }

        long uniqueSamples() {
            try {
                if (!services.chUp || !tableExists("flows")) {
                    return 0;
                }
                return Long.parseLong(ch("SELECT uniqExact(AgentAddress, SourceIdIndex, SampleSequence) FROM " + db
                        + ".flows WHERE " + realAgents()));
            } catch (Exception e) {
                return -1;
            }
        }

        boolean tableExists(String t) throws Exception {
            return ch("SELECT count() FROM system.tables WHERE database = '" + db + "' AND name = '" + t + "'")
                    .equals("1");
        }

        /** Stops every process (SIGTERM), then counts from ClickHouse and Kafka. */
        void finish(Load load, Proc inlet, Proc outlet, boolean kafka) throws Exception {
            monitoring = false;
            monitor.join(5000);
            for (Proc p : procs) {
                p.sample();
            }
            if (inlet != null) {
                row.socketDrops = inlet.total("vecflow_collector_socket_drops", null) - dropsAtWarmUp;
                row.spooled = inlet.total("vecflow_inlet_datagrams", "result=\"spooled\"");
                row.replayed = inlet.total("vecflow_inlet_datagrams", "result=\"replayed\"");
                row.spoolLost = inlet.total("vecflow_inlet_datagrams", "result=\"lost\"");
                row.spoolHeldAtEnd = Math.round(inlet.now("vecflow_inlet_spool_datagrams", null));
            }
            for (Proc p : procs) {
                p.term();
            }
            Proc dec = outlet != null ? outlet : inlet;
            row.decodeErrors = dec.total("vecflow_collector_decode_errors", "level=\"datagram\"");
            row.duplicateMetric = dec.total("vecflow_collector_datagrams_duplicate", null);
            for (Proc p : procs) {
                if (p.peakRss > row.peakRss) {
                    row.peakRss = p.peakRss;
                }
                row.rssBy += (row.rssBy.isEmpty() ? "" : ", ") + p.name + " " + mib(p.peakRss);
            }
            row.sentDatagrams = load.realDatagrams();
            row.sentSamples = row.sentDatagrams * SAMPLES_PER_DATAGRAM;
            row.malformedSent = load.malformed;
            String where = " WHERE " + realAgents();
            row.stored = Long.parseLong(ch("SELECT count() FROM " + db + ".flows" + where));
            row.unique = uniqueSamples();
            row.uniqueDatagrams = Long.parseLong(ch("SELECT uniqExact(AgentAddress, DatagramSequence) FROM " + db
                    + ".flows" + where));
            String[] a = ch("SELECT sum(Datagrams), sum(DatagramsLost), sum(DatagramsDuplicated), sum(Resets), "
                    + "sum(DatagramsReordered) FROM " + db + ".agents" + where + " AND SampleFamily = 255")
                    .split("\t");
            row.agentsDatagrams = Long.parseLong(a[0]);
            row.agentsGap = Long.parseLong(a[1]);
            row.agentsDuplicated = Long.parseLong(a[2]);
            row.agentsResets = Long.parseLong(a[3]);
            row.agentsReordered = Long.parseLong(a[4]);
            if (row.agentsReordered > 0 || row.agentsResets > 0) {
                row.observed.add("agents: " + row.agentsReordered + " reordered, " + row.agentsResets + " restarts");
            }
            if (kafka) {
                // Where an agent's datagrams go back in sequence in the raw topic's order (partition, offset).
                for (int ag = 1; ag <= AGENTS; ag++) {
                    String back = ch("SELECT IngestStream, IngestOffset, DatagramSequence, d FROM (SELECT "
                            + "IngestStream, IngestOffset, DatagramSequence, runningDifference(DatagramSequence) AS d "
                            + "FROM (SELECT DISTINCT IngestStream, IngestOffset, DatagramSequence FROM " + db
                            + ".flows WHERE IPv6NumToString(AgentAddress) = '::ffff:192.0.2." + ag
                            + "' ORDER BY IngestStream, IngestOffset)) WHERE d < 0 OR d > 1 LIMIT 5");
                    if (!back.isEmpty()) {
                        row.observed.add("192.0.2." + ag + " sequence steps (partition, offset, seq, step): "
                                + back.replace("\n", "; ").replace("\t", " "));
                    }
                }
            }
            row.agentsSamplesLost = Long.parseLong(ch("SELECT sum(SamplesLost) FROM " + db + ".agents" + where
                    + " AND SampleFamily = 0"));
            if (kafka) {
                // The raw topic's records less the warm-up agent's (all stored: nothing is lost after Kafka).
                row.inKafka = kafkaRecords(topic) - Long.parseLong(ch("SELECT uniqExact(DatagramSequence) FROM " + db
                        + ".flows WHERE IPv6NumToString(AgentAddress) = '::ffff:192.0.2.100'"));
            }
            row.seconds = elapsed();
        }

        @Override
        public void close() throws Exception {
            monitoring = false;
            for (Proc p : procs) {
                if (p.alive()) {
                    p.kill9();
                }
            }
        }
    }

    static String realAgents() {
        StringBuilder b = new StringBuilder("IPv6NumToString(AgentAddress) IN (");
        for (int a = 1; a <= AGENTS; a++) {
            b.append(a > 1 ? ", " : "").append("'::ffff:192.0.2.").append(a).append("'");
        }
        return b.append(")").toString();
    }

    // ------------------------------------------------------------------------------------------------ state

    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    final Plan plan;
    final Services services;
    final Path out;
    final int threads;
    final double floodRate;

    FaultMatrix(Plan plan, Services services, Path out, int threads, double floodRate) {
        this.threads = threads;
        this.floodRate = floodRate > 0 ? floodRate : plan.floodRate();
        this.plan = plan;
        this.services = services;
        this.out = out;
    }

    String ch(String sql) throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(URI.create(services.clickhouseUrl() + "/"))
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(sql + " FORMAT TabSeparated"))
                .build();
        HttpResponse<String> r = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("ClickHouse answered " + r.statusCode() + " to " + sql + ": " + r.body());
        }
        return r.body().trim();
    }

    long kafkaRecords(String topic) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, services.kafka());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 20_000);
        try (Admin admin = Admin.create(p)) {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(topic);
            Map<TopicPartition, OffsetSpec> early = new HashMap<>();
            Map<TopicPartition, OffsetSpec> late = new HashMap<>();
            d.partitions().forEach(pi -> {
                early.put(new TopicPartition(topic, pi.partition()), OffsetSpec.earliest());
                late.put(new TopicPartition(topic, pi.partition()), OffsetSpec.latest());
            });
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e = admin.listOffsets(early).all()
                    .get(30, TimeUnit.SECONDS);
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> l = admin.listOffsets(late).all()
                    .get(30, TimeUnit.SECONDS);
            long n = 0;
            for (TopicPartition tp : l.keySet()) {
                n += l.get(tp).offset() - e.get(tp).offset();
            }
            return n;
        }
    }

    // ---------------------------------------------------------------------------------------------- scenarios

    Row run(String scenario) throws Exception {
        services.ensureUp();
        try (Ctx c = new Ctx(scenario)) {
            switch (scenario) {
                case "baseline" -> pair(c, plan.loadSeconds(), 0);
                case "malformed-10pct" -> pair(c, plan.loadSeconds(), 10);
                case "clickhouse-down-outlet" -> clickhouseDownOutlet(c);
                case "clickhouse-down-all" -> clickhouseDownAll(c);
                case "outlet-kill-x3" -> outletKill(c);
                case "kafka-down" -> kafkaDown(c);
                case "inlet-kill" -> inletKill(c);
                case "flood-10x" -> flood(c);
                case "backlog" -> backlog(c);
                default -> throw new IllegalArgumentException("unknown scenario " + scenario + "; known: " + SCENARIOS);
            }
            c.row.judge();
            return c.row;
        }
    }

    /** Inlet + outlet with Kafka, the load for {@code seconds}, nothing else. */
    private void pair(Ctx c, int seconds, int malformedEvery) throws Exception {
        Proc in = c.inlet();
        Proc outl = c.outlet();
        in.start();
        awaitReady(in, "kafka", 60);
        outl.start();
        awaitReady(outl, "outlet", 60);
        Load l = c.load(plan.rate(), malformedEvery);
        l.start();
        c.warmUp(l, in);
        Thread.sleep(seconds * 1000L);
        l.stopAndJoin();
        c.row.offeredRate = l.sent / (l.sendingNanos / 1e9);
        c.settle(l, in, outl);
        c.finish(l, in, outl, true);
    }

    private void clickhouseDownOutlet(Ctx c) throws Exception {
        Proc in = c.inlet();
        Proc outl = c.outlet();
        in.start();
        awaitReady(in, "kafka", 60);
        outl.start();
        awaitReady(outl, "outlet", 60);
        Load l = c.load(plan.rate(), 0);
        l.start();
        c.warmUp(l, in);
        Thread.sleep(plan.leadSeconds() * 1000L);
        services.stopClickHouse();
        long down = System.nanoTime();
        sleepUntil(down, plan.outageSeconds() * 1000L - 2000);
        // The outlet must say it is stuck and how far behind it is.
        outl.sample();
        c.row.observed.add(String.format(Locale.ROOT, "at %ds down: outlet ready %s, clickhouse ready %s, lag %.0f",
                plan.outageSeconds() - 2, fmt(outl.now("vecflow_collector_ready", "stage=\"outlet\"")),
                fmt(outl.now("vecflow_collector_ready", "stage=\"clickhouse\"")),
                outl.now("vecflow_kafka_outlet_lag", null)));
        if (outl.now("vecflow_collector_ready", "stage=\"outlet\"") != 0
                || outl.now("vecflow_kafka_outlet_lag", null) <= 0) {
            c.row.failures.add("during the ClickHouse outage the outlet's metrics did not show it not ready with "
                    + "a lag > 0");
        }
        sleepUntil(down, plan.outageSeconds() * 1000L);
        services.startClickHouse();
        c.row.observed.add(String.format(Locale.ROOT, "ClickHouse down %.0f s", (System.nanoTime() - down) / 1e9));
        Thread.sleep(plan.leadSeconds() * 1000L);
        l.stopAndJoin();
        c.row.offeredRate = l.sent / (l.sendingNanos / 1e9);
        c.settle(l, in, outl);
        c.finish(l, in, outl, true);
    }

    private void clickhouseDownAll(Ctx c) throws Exception {
        Proc all = c.allNoKafka();
        all.start();
        awaitReady(all, "clickhouse", 60);
        Load l = c.load(plan.rate(), 0);
        l.start();
        c.warmUp(l, all);
        Thread.sleep(plan.leadSeconds() * 1000L);
        services.stopClickHouse();
        long down = System.nanoTime();
        sleepUntil(down, plan.outageSeconds() * 1000L - 2000);
        all.sample();
        double inletReady = all.now("vecflow_collector_ready", "stage=\"inlet\"");
        double chReady = all.now("vecflow_collector_ready", "stage=\"clickhouse\"");
        double spooledNow = all.now("vecflow_inlet_datagrams", "result=\"spooled\"");
        c.row.observed.add(String.format(Locale.ROOT, "at %ds down: clickhouse ready %s, inlet ready %s, spooled %.0f",
                plan.outageSeconds() - 2, fmt(chReady), fmt(inletReady), spooledNow));
        if (chReady != 0 || inletReady != 0 || spooledNow <= 0) {
            c.row.failures.add("during the ClickHouse outage the metrics did not show ClickHouse and the inlet not "
                    + "ready with datagrams spooled");
        }
        sleepUntil(down, plan.outageSeconds() * 1000L);
        services.startClickHouse();
        c.row.observed.add(String.format(Locale.ROOT, "ClickHouse down %.0f s", (System.nanoTime() - down) / 1e9));
        Thread.sleep(plan.leadSeconds() * 1000L);
        l.stopAndJoin();
        c.row.offeredRate = l.sent / (l.sendingNanos / 1e9);
        c.settle(l, all, null);
        c.finish(l, all, null, false);
    }

    private void outletKill(Ctx c) throws Exception {
        Proc in = c.inlet();
        Proc outl = c.outlet();
        in.start();
        awaitReady(in, "kafka", 60);
        outl.start();
        awaitReady(outl, "outlet", 60);
        Load l = c.load(plan.rate(), 0);
        l.start();
        c.warmUp(l, in);
        Thread.sleep(plan.leadSeconds() * 1000L);
        for (int k = 1; k <= 3; k++) {
            long stored = c.uniqueSamples();
            outl.kill9();
            Thread.sleep(1000);
            outl.start();
            // Kill the next outlet only once it stores again (a new member waits for the dead one's session to
            // time out before the group gives it the partitions).
            long t = System.nanoTime();
            long deadline = t + TimeUnit.SECONDS.toNanos(120);
            while (c.uniqueSamples() <= stored && System.nanoTime() < deadline) {
                Thread.sleep(250);
            }
            c.row.observed.add(String.format(Locale.ROOT, "kill %d at %d rows, storing again %.1f s after the restart",
                    k, stored, (System.nanoTime() - t) / 1e9));
            Thread.sleep(plan.killGapSeconds() * 1000L);
        }
        Thread.sleep(plan.leadSeconds() * 1000L);
        l.stopAndJoin();
        c.row.offeredRate = l.sent / (l.sendingNanos / 1e9);
        c.settle(l, in, outl);
        c.finish(l, in, outl, true);
    }

    private void kafkaDown(Ctx c) throws Exception {
        Proc in = c.inlet();
        Proc outl = c.outlet();
        in.start();
        awaitReady(in, "kafka", 60);
        outl.start();
        awaitReady(outl, "outlet", 60);
        Load l = c.load(plan.kafkaDownRate(), 0);
        l.start();
        c.warmUp(l, in);
        Thread.sleep(plan.leadSeconds() * 1000L);
        services.stopKafka();
        long down = System.nanoTime();
        l.mark();
        sleepUntil(down, plan.outageSeconds() * 1000L - 2000);
        in.sample();
        double kafkaReady = in.now("vecflow_collector_ready", "stage=\"kafka\"");
        double inletReady = in.now("vecflow_collector_ready", "stage=\"inlet\"");
        double spool = in.now("vecflow_inlet_spool_bytes", "state=\"held\"");
        c.row.observed.add(String.format(Locale.ROOT, "at %ds down: kafka ready %s, inlet ready %s, spool %s, "
                + "load %.0f/s", plan.outageSeconds() - 2, fmt(kafkaReady), fmt(inletReady), mib((long) spool),
                l.rateSinceMark()));
        if (kafkaReady != 0 || inletReady != 0 || spool <= 0) {
            c.row.failures.add("during the broker outage the inlet's metrics did not show Kafka and the inlet not "
                    + "ready with a spool");
        }
        sleepUntil(down, plan.outageSeconds() * 1000L);
        services.startKafka();
        c.row.observed.add(String.format(Locale.ROOT, "broker down %.0f s", (System.nanoTime() - down) / 1e9));
        Thread.sleep(plan.leadSeconds() * 1000L);
        l.stopAndJoin();
        c.row.offeredRate = l.sent / (l.sendingNanos / 1e9);
        c.settle(l, in, outl);
        c.finish(l, in, outl, true);
    }

    private void inletKill(Ctx c) throws Exception {
        Proc in = c.inlet();
        Proc outl = c.outlet();
        in.start();
        awaitReady(in, "kafka", 60);
        outl.start();
        awaitReady(outl, "outlet", 60);
        Load l = c.load(plan.rate(), 0);
        l.start();
        c.warmUp(l, in);
        Thread.sleep(plan.leadSeconds() * 1000L);
        long before = l.sent;
        in.kill9();
        long killed = System.nanoTime();
        Thread.sleep(2000);
        in.start();
        c.row.observed.add(String.format(Locale.ROOT, "inlet down %.1f s (%d datagrams sent meanwhile)",
                (System.nanoTime() - killed) / 1e9, l.sent - before));
        Thread.sleep(plan.leadSeconds() * 1000L);
        l.stopAndJoin();
        c.row.offeredRate = l.sent / (l.sendingNanos / 1e9);
        c.settle(l, in, outl);
        c.finish(l, in, outl, true);
    }

    private void flood(Ctx c) throws Exception {
        Proc in = c.inlet();
        Proc outl = c.outlet();
        in.start();
        awaitReady(in, "kafka", 60);
        outl.start();
        awaitReady(outl, "outlet", 60);
        Load l = c.load(plan.rate(), 0);
        l.start();
        c.warmUp(l, in);
        Thread.sleep(plan.leadSeconds() * 1000L);
        l.mark();
        l.rate = floodRate;
        Thread.sleep(plan.floodSeconds() * 1000L);
        double offered = l.rateSinceMark();
        l.rate = plan.rate();
        c.row.observed.add(String.format(Locale.ROOT, "flood offered %.0f/s for %d s (asked %.0f/s)", offered,
                plan.floodSeconds(), floodRate));
        Thread.sleep(plan.leadSeconds() * 1000L);
        l.stopAndJoin();
        c.row.offeredRate = offered;
        c.settle(l, in, outl);
        c.finish(l, in, outl, true);
    }

    private void backlog(Ctx c) throws Exception {
        Proc in = c.inlet();
        Proc outl = c.outlet();
        in.start();
        awaitReady(in, "kafka", 60);
        Load l = c.load(plan.rate(), 0);
        l.start();
        c.warmUp(l, in);
        Thread.sleep(plan.backlogSeconds() * 1000L);
        l.stopAndJoin();
        c.row.offeredRate = l.sent / (l.sendingNanos / 1e9);
        // The backlog is in Kafka (the inlet's spool drained) before the outlet starts.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (in.now("vecflow_inlet_spool_datagrams", null) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(500);
        }
        long backlog = kafkaRecords(c.topic);
        long t = System.nanoTime();
        outl.start();
        long expect = l.realDatagrams() * SAMPLES_PER_DATAGRAM;
        long end = t + TimeUnit.SECONDS.toNanos(plan.settleSeconds());
        while (System.nanoTime() < end && c.uniqueSamples() < expect) {
            Thread.sleep(500);
        }
        c.row.catchUpSeconds = (System.nanoTime() - t) / 1e9;
        c.row.observed.add(String.format(Locale.ROOT, "backlog %d datagrams (%.0f s of load) caught up in %.1f s "
                + "(%.0f datagrams/s, outlet start included)", backlog, l.sendingNanos / 1e9, c.row.catchUpSeconds,
                backlog / c.row.catchUpSeconds));
        c.settle(l, in, outl);
        c.finish(l, in, outl, true);
    }

    private static void awaitReady(Proc p, String stage, int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            Map<String, Double> m = p.scrape();
            if (m != null) {
                p.current = m;
                if (sum(m, "vecflow_collector_ready", "stage=\"" + stage + "\"") == 1) {
                    return;
                }
            }
            if (!p.alive()) {
                throw new IllegalStateException(p.name + " died: " + tail(p.log, 30));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(p.name + ": stage " + stage + " not ready within " + seconds + " s: "
                        + tail(p.log, 30));
            }
            Thread.sleep(200);
        }
    }

    private static void sleepUntil(long startNanos, long ms) throws InterruptedException {
        long left = startNanos + TimeUnit.MILLISECONDS.toNanos(ms) - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    // ------------------------------------------------------------------------------------------------ running

    /**
     * Runs the scenarios of the options against private services (started here, stopped at the end, also on
     * failure) and returns one row each. A scenario that throws becomes a row with that failure.
     *
     * @throws IllegalStateException when a service cannot be started (missing ClickHouse, Kafka jars, a JDK)
     */
    public static List<Row> run(Options o) throws Exception {
        Path root = repoRoot();
        Path outDir = o.out != null ? o.out : Files.createTempDirectory("vecflow-fault-matrix");
        Files.createDirectories(outDir);
        Path svcDir = Files.createTempDirectory("vecflow-fm-services");
        List<Row> rows = new ArrayList<>();
        try (Services s = new Services(root, svcDir, o)) {
            s.startClickHouse();
            s.startKafka();
            FaultMatrix fm = new FaultMatrix(o.plan, s, outDir, o.threads, o.floodRate);
            for (String sc : o.only) {
                long t = System.nanoTime();
                System.out.printf("fault matrix (%s): %s ...%n", o.plan.form(), sc);
                Row r;
                try {
                    r = fm.run(sc);
                } catch (Exception e) {
                    r = new Row(sc);
                    r.plan = o.plan;
                    r.failures.add("scenario failed: " + e);
                    e.printStackTrace();
                }
                r.seconds = (System.nanoTime() - t) / 1e9;
                rows.add(r);
                System.out.println(table(List.of(r), o.plan, false));
            }
        } finally {
            if (!o.keep) {
                deleteTree(svcDir);
            }
        }
        String t = table(rows, o.plan, true);
        Files.writeString(outDir.resolve("table.md"), t);
        return rows;
    }

    /** @return the rows as a Markdown table (one row per scenario) plus the failures under it. */
    public static String table(List<Row> rows, Plan plan, boolean header) {
        StringBuilder b = new StringBuilder();
        if (header) {
            b.append(String.format(Locale.ROOT, "Fault matrix, %s form: base %,d datagrams/s (broker outage %,d/s), "
                    + "%d flow samples per datagram, %d agents; outages %d s; backlog %d s; max-pending-bytes %s; "
                    + "heap -Xmx%s%n%n", plan.form(), plan.rate(), plan.kafkaDownRate(), SAMPLES_PER_DATAGRAM,
                    AGENTS, plan.outageSeconds(), plan.backlogSeconds(), mib(plan.maxPendingBytes()), plan.heap()));
        }
        b.append("| scenario | sent datagrams (samples) | in Kafka | stored | unique | lost | duplicated | agents gap "
                + "| what the metrics said | memory peak (pending, RSS) | s | goal |\n");
        b.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Row r : rows) {
            b.append(String.format(Locale.ROOT, "| %s | %,d (%,d)%s | %s | %,d | %,d | %,d | %,d | %,d | %s | %s, %s "
                            + "| %.0f | %s |%n", r.scenario, r.sentDatagrams, r.sentSamples,
                    r.malformedSent > 0 ? String.format(Locale.ROOT, " + %,d malformed", r.malformedSent) : "",
                    r.inKafka < 0 ? "–" : String.format(Locale.ROOT, "%,d", r.inKafka), r.stored, r.unique,
                    r.lost(), r.duplicated(), r.agentsGap, r.metrics() + String.format(Locale.ROOT,
                            "; offered %,.0f/s", r.offeredRate), mib(r.peakPending), r.rssBy, r.seconds,
                    r.failures.isEmpty() ? "met" : "**MISSED**"));
        }
        for (Row r : rows) {
            for (String f : r.failures) {
                b.append("\n- ").append(r.scenario).append(": ").append(f);
            }
        }
        return b.append('\n').toString();
    }

    static Path repoRoot() {
        String p = System.getProperty("vecflow.repo");
        if (p != null && !p.isBlank()) {
            return Path.of(p).toAbsolutePath();
        }
        Path d = Path.of("").toAbsolutePath();
        for (Path x = d; x != null; x = x.getParent()) {
            if (Files.isRegularFile(x.resolve("scripts/services/clickhouse.sh"))) {
                return x;
            }
        }
        throw new IllegalStateException("cannot find the repository (scripts/services/clickhouse.sh) above " + d
                + "; set -Dvecflow.repo=DIR");
    }

    static int freeTcpPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(0, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    static String tail(Path f, int lines) {
        try {
            List<String> l = Files.readAllLines(f, StandardCharsets.UTF_8);
            return "\n---- tail " + f + " ----\n" + String.join("\n", l.subList(Math.max(0, l.size() - lines),
                    l.size()));
        } catch (IOException e) {
            return "(no log " + f + ")";
        }
    }

    static void deleteTree(Path p) {
        try (var s = Files.walk(p)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static final String USAGE = """
            usage: FaultMatrix [--short | --full] [--only SCENARIO[,SCENARIO..]] [--out DIR] [--keep] [--threads N]
                               [--flood-rate N] [--ports CH_HTTP,CH_TCP,CH_INTERSERVER,KAFKA,KAFKA_CONTROLLER]

            Runs the collector's fault matrix against a private ClickHouse and Kafka (scripts/services/*.sh,
            default ports 38123,39000,39009,39092,39093) and prints one row per scenario: datagrams and samples sent,
            records in the raw topic, rows stored, unique, lost, duplicated, the agents table's gap, what the metrics
            said, memory. Exit 0 when every goal is met, 1 otherwise.

              --short   8 s outages, 3,000 datagrams/s, a 30 s backlog (default; the test command runs it)
              --full    60 s outages, 5,000 datagrams/s (20,000/s during the broker outage), a 5 min backlog
              --only    scenarios, of: %s
              --out     directory for the collectors' configs, logs and table.md (default a new temp dir)
              --keep    leave the services' directory in place
              --threads the collectors' listen.threads (default 2)
              --flood-rate  datagrams/s asked during the flood (default 300,000 short, 500,000 full: about
                        10 x what the pipeline sustains; the sender offers what it can, the row says how much)
            """.formatted(String.join(", ", SCENARIOS));

    /**
     * Command line: see {@link #USAGE}.
     *
     * @param args options
     */
    public static void main(String[] args) throws Exception {
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--short" -> o.plan = Plan.shortForm();
                case "--full" -> o.plan = Plan.fullForm();
                case "--only" -> {
                    List<String> l = Arrays.asList(args[++i].split(","));
                    for (String s : l) {
                        if (!SCENARIOS.contains(s)) {
                            System.err.println("unknown scenario " + s + "; known: " + SCENARIOS);
                            System.exit(2);
                        }
                    }
                    o.only = l;
                }
                case "--out" -> o.out = Path.of(args[++i]);
                case "--keep" -> o.keep = true;
                case "--threads" -> o.threads = Integer.parseInt(args[++i]);
                case "--flood-rate" -> o.floodRate = Double.parseDouble(args[++i]);
                case "--ports" -> {
                    int[] p = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                    if (p.length != 5) {
                        System.err.println("--ports needs 5 ports");
                        System.exit(2);
                    }
                    o.chHttp = p[0];
                    o.chTcp = p[1];
                    o.chInter = p[2];
                    o.kafka = p[3];
                    o.kafkaController = p[4];
                }
                case "-h", "--help" -> {
                    System.out.print(USAGE);
                    return;
                }
                default -> {
                    System.err.print("unknown option " + args[i] + "\n" + USAGE);
                    System.exit(2);
                }
            }
        }
        List<Row> rows = run(o);
        System.out.println();
        System.out.print(table(rows, o.plan, true));
        boolean ok = rows.stream().allMatch(r -> r.failures.isEmpty());
        System.exit(ok ? 0 : 1);
    }
}
