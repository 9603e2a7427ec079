package io.vecflow.cli;

import io.vecflow.collector.Collector;
import io.vecflow.collector.CollectorConfig;
import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.collector.sink.RawSink;
import io.vecflow.lab.out.LabTables;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code vecflow collector}: the sFlow collector. */
@Command(name = "collector", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
        description = {"sFlow v5 collector in one of three roles: inlet (UDP -> Kafka raw topic, forward targets), "
            + "outlet (Kafka raw topic -> decode -> ClickHouse / decoded topic / JSON lines, in a consumer group), "
            + "all (both; without Kafka the datagrams go to the decoder in-process).",
            "Settings come from --config FILE (YAML; --example-config prints every key with its default); options "
            + "given on the command line override the file. Runs until Ctrl-C or SIGTERM, then flushes every sink "
            + "and prints its counters."})
final class CollectorCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-c", "--config"}, paramLabel = "FILE", description = "YAML configuration file.")
    Path config;

    @Option(names = "--example-config", description =
            "Print the documented configuration (every key at its default) and exit.")
    boolean exampleConfig;

    @Option(names = "--print-config", description = "Print the effective configuration (file + options) and exit.")
    boolean printConfig;

    @Option(names = "--check-config", description = "Load and validate the configuration (file + options: keys, "
            + "values, a sink for the role) without opening a socket or connecting anywhere, print one line saying "
            + "what would run, exit: 0 if valid, 2 if not (the message names the file, key and rule).")
    boolean checkConfig;

    @Option(names = "--role", paramLabel = "ROLE", description = "inlet, outlet or all (default all).")
    String role;

    @Option(names = "--listen", paramLabel = "ADDR", description = "Address to bind (default 0.0.0.0).")
    String listen;

    @Option(names = "--port", paramLabel = "PORT", description = "UDP port, 1..65535 (default 6343).")
    Integer port;

    @Option(names = "--threads", paramLabel = "N", description =
            "Receive threads (SO_REUSEPORT sockets), 1..64 (default 2).")
    Integer threads;

    @Option(names = "--max-datagram-bytes", paramLabel = "BYTES", description =
            "Largest datagram received whole; up to 64 datagrams are read per system call (recvmmsg), a longer one "
                    + "arrives cut, so it is dropped and counted (vecflow_collector_datagrams_truncated). 65507 = any "
                            + "size, one per call (default 9216).")
    Integer maxDatagramBytes;

    @Option(names = "--clickhouse", paramLabel = "URL", description =
            "ClickHouse HTTP URL, e.g. http://127.0.0.1:8123.")
    String clickhouse;

    @Option(names = "--clickhouse-database", paramLabel = "DB", description = "Database (default vecflow).")
    String database;

    @Option(names = "--kafka", paramLabel = "HOST:PORT", description = "Kafka bootstrap servers for the raw topic.")
    String kafka;

    @Option(names = "--kafka-topic", paramLabel = "TOPIC", description = "Raw topic (default vecflow-raw-v1).")
    String topic;

    @Option(names = "--forward", paramLabel = "HOST:PORT", split = ",", description =
            "Re-send every raw datagram unchanged to these targets (ntopng/nProbe, Akvorado, any sFlow collector).")
    java.util.List<String> forward;

    @Option(names = "--json", paramLabel = "FILE", description =
            "Write flows as JSON lines to FILE (flushed every second).")
    Path json;

    @Option(names = "--metrics-port", paramLabel = "PORT", description =
            "Prometheus metrics at http://LISTEN:PORT/metrics, 0 = off (default 9477).")
    Integer metricsPort;

    @Option(names = "--metrics-listen", paramLabel = "ADDR", description =
            "Address of the metrics endpoint (default 127.0.0.1).")
    String metricsListen;

    /** @return the configuration: the file (or defaults) with the options given on the command line applied. */
    CollectorConfig effectiveConfig() {
        String source = config == null ? "(defaults)" : config.toString();
        CollectorConfig c;
        try {
            // The lab's tables are created next to the collector's (the dashboards' lab panels read them).
            c = config == null ? CollectorConfig.parse("", source, LabTables.TABLES)
                    : CollectorConfig.load(config, LabTables.TABLES);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new VecflowCommand.UsageException("--config " + config + ": no such file");
        } catch (java.io.IOException e) {
            throw new VecflowCommand.UsageException("--config " + config + ": " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new VecflowCommand.UsageException(e.getMessage());
        }
        if (role != null) {
            c.role = role;
        }
        if (listen != null) {
            c.listen.address = listen;
        }
        if (port != null) {
            c.listen.port = port;
        }
        if (threads != null) {
            c.listen.threads = threads;
        }
        if (maxDatagramBytes != null) {
            c.listen.maxDatagramBytes = maxDatagramBytes;
        }
        if (clickhouse != null) {
            c.clickhouse.url = clickhouse;
        }
        if (database != null) {
            c.clickhouse.database = database;
        }
        if (kafka != null) {
            c.kafka.bootstrap = kafka;
        }
        if (topic != null) {
            c.kafka.rawTopic = topic;
        }
        if (forward != null) {
            c.forward = forward;
        }
        if (json != null) {
            c.jsonLines = json.toString();
        }
        if (metricsPort != null) {
            c.metrics.port = metricsPort;
        }
        if (metricsListen != null) {
            c.metrics.listen = metricsListen;
        }
        try {
            c.validate(config == null ? "options" : source + " with options");
            if (c.clickhouse.url.isEmpty() && c.kafka.bootstrap.isEmpty() && c.jsonLines.isEmpty()
                    && c.forward.isEmpty() && c.kafka.decodedTopic.isEmpty() && c.embeddedStore() == null) {
                throw new IllegalArgumentException("no sink: give --clickhouse URL, --kafka HOST:PORT, --json FILE, "
                        + "--forward HOST:PORT, or --config FILE with one of clickhouse.url, duckdb.path, "
                        + "kafka.bootstrap, json-lines, forward, kafka.decoded-topic");
            }
            c.requireSinks(config == null ? "options" : source + " with options");
        } catch (IllegalArgumentException e) {
            throw new VecflowCommand.UsageException(e.getMessage());
        }
        return c;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (exampleConfig) {
            out.print(CollectorConfig.example());
            out.flush();
            return 0;
        }
        CollectorConfig cfg = effectiveConfig();
        if (printConfig) {
            out.print(cfg.toYaml());
            out.flush();
            return 0;
        }
        if (checkConfig) {
            try {
                cfg.toSettings(); // secrets resolved (env:, file:), key stores opened with their passwords
            } catch (IllegalArgumentException e) {
                throw new VecflowCommand.UsageException(e.getMessage());
            }
            out.printf("%s: valid; role %s, udp %s:%d, sinks:%s%s%s%s%s%n", config == null ? "options" : config,
                    cfg.role, cfg.listen.address, cfg.listen.port,
                    cfg.clickhouse.url.isEmpty() ? "" : " clickhouse " + cfg.clickhouse.url,
                    cfg.embeddedStore() == null ? "" : " duckdb " + cfg.embeddedStore(),
                    cfg.kafka.bootstrap.isEmpty() ? "" : " kafka " + cfg.kafka.bootstrap,
                    cfg.jsonLines.isEmpty() ? "" : " json " + cfg.jsonLines,
                    cfg.forward.isEmpty() ? "" : " forward " + String.join(",", cfg.forward));
            out.flush();
            return 0;
        }
        Collector.Settings s = cfg.toSettings();
        // The daemon starts whether or not ClickHouse and Kafka answer: an outage at start is an outage like any
        // other (rows wait, datagrams spool, the metrics say so).
        s.waitForServices = false;
        try (Shutdown sd = Shutdown.install()) {
            Collector c = new Collector(s);
            io.vecflow.collector.metrics.CollectorMetrics metrics = null;
            Consoles.Running console = null;
            try {
                if (cfg.metrics.port != 0) {
                    try {
                        metrics = new io.vecflow.collector.metrics.CollectorMetrics(c,
                                InetAddress.getByName(cfg.metrics.listen), cfg.metrics.port, cfg.metrics.users);
                    } catch (java.io.IOException e) {
                        throw new java.io.IOException("cannot serve metrics on " + cfg.metrics.listen + ":"
                                + cfg.metrics.port + " (" + e.getMessage()
                                + "); use --metrics-port to pick another, or 0 for none", e);
                    }
                }
                if (cfg.console.enabled) {
                    console = Consoles.over(c, cfg.console.settings(), s);
                }
                out.printf("vecflow collector (%s): %s; sinks:%s%s%s%s%s%s; metrics %s; console %s%n", cfg.role,
                        s.role == Collector.Role.OUTLET ? "consuming kafka " + s.kafkaBootstrap + "/" + s.kafkaRawTopic
                                + " (group " + s.kafkaConsumerGroup + ")"
                                : "listening on udp " + s.bindAddress + ":" + c.localAddress().getPort() + " ("
                                        + s.threads + " thread" + (s.threads == 1 ? "" : "s") + ")",
                        s.jsonLines != null ? " json " + s.jsonLines : "",
                        s.clickhouseUrl != null && s.role != Collector.Role.INLET
                                ? " clickhouse " + s.clickhouseUrl + "/" + s.clickhouseDatabase : "",
                        s.duckdbPath != null ? " duckdb " + s.duckdbPath : "",
                        s.kafkaBootstrap != null && s.role != Collector.Role.OUTLET
                                ? " kafka " + s.kafkaBootstrap + "/" + s.kafkaRawTopic : "",
                        s.forwardTargets.isEmpty() ? "" : " forward " + String.join(",", s.forwardTargets),
                        s.kafkaDecodedTopic != null ? " decoded " + s.kafkaDecodedTopic : "",
                        metrics != null ? "http://" + cfg.metrics.listen + ":" + metrics.port() + "/metrics" : "off",
                        console != null ? console.url() : "off");
                out.flush();
                sd.await();
            } finally {
                if (console != null) {
                    try {
                        console.close();
                    } catch (Exception e) {
                        out.printf("closing the console failed: %s%n", e.getMessage());
                    }
                }
                if (metrics != null) {
                    metrics.close();
                }
                try {
                    if (c.clickhouse() == null || c.clickhouse().connected()) {
                        c.flush();
                    }
                } catch (Exception e) {
                    out.printf("flush at shutdown failed (closing retries what is left; the totals below say what "
                            + "was stored): %s%n", e.getMessage());
                } finally {
                    c.close();
                    printStats(out, c);
                }
            }
        }
        return 0;
    }

    static void printStats(PrintWriter out, Collector c) {
        CollectorStats st = c.stats();
        out.printf("datagrams received %,d (%,d bytes, %,d longer than max-datagram-bytes dropped), flow rows %,d, "
                + "decode errors %s%n", st.datagramsReceived.sum(), st.bytesReceived.sum(), st.datagramsTruncated.sum(),
                st.flowRows.sum(),
                st.decode.errorsByKind().isEmpty() ? "0" : st.decode.errorsByKind().toString());
        long[] t = st.loss.totals();
        out.printf("agents: datagrams %,d, lost %,d, reordered %,d, restarts %,d; samples %,d, lost %,d, "
                + "agent-reported drops %,d%n", t[0], t[1], t[2], t[3], t[4], t[5], t[6]);
        if (st.datagramsDuplicate.sum() > 0) {
            out.printf("duplicated datagrams left out: %,d%n", st.datagramsDuplicate.sum());
        }
        if (c.spooler() != null && (c.spooler().spooled() > 0 || c.spooler().heldDatagrams() > 0
                || c.spooler().lost() > 0)) {
            out.printf("spool: %,d datagrams spooled, %,d replayed, %,d kept for the next run, %,d lost (spool full)%n",
                    c.spooler().spooled(), c.spooler().replayed(), c.spooler().heldDatagrams(), c.spooler().lost());
        }
        if (st.datagramsConsumed.sum() > 0 || c.outlet() != null) {
            out.printf("outlet: %,d raw records consumed, %,d commits%n", st.datagramsConsumed.sum(),
                    c.outlet() == null ? 0 : c.outlet().commits());
        }
        if (st.datagramsRefused.sum() > 0) {
            out.printf("admission refused %,d datagrams (%,d agent not allowed, %,d over rate)%n",
                    st.datagramsRefused.sum(), c.admission().refusedPrefix.sum(), c.admission().refusedRate.sum());
        }
        for (RawSink r : c.rawSinks()) {
            out.printf("  %s: %,d datagrams written, %,d failed%n", r.name(), r.written(), r.failed());
        }
        for (FlowSink f : c.flowSinks()) {
            out.printf("  %s: %,d rows written, %,d failed%n", f.name(), f.rowsWritten(), f.rowsFailed());
            if (f instanceof io.vecflow.collector.sink.clickhouse.ClickHouseSink ch) {
                out.printf("  clickhouse: %,d if_counters rows, %,d replays skipped, %,d insert failures (retried), "
                        + "%,d rows not stored at shutdown%n", ch.counterRowsWritten(), ch.rowsReplaySkipped(),
                        ch.insertFailures(), ch.rowsPending());
            }
        }
        out.flush();
    }
}
