package io.vecflow.cli;

import static io.vecflow.cli.VecflowCommand.require;

import io.vecflow.collector.Collector;
import io.vecflow.collector.CollectorStats;
import io.vecflow.collector.FlowSink;
import io.vecflow.collector.RawSink;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code vecflow collector}: the sFlow collector. */
@Command(name = "collector", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
        description = "sFlow v5 collector: UDP inlet -> decode -> ClickHouse / JSON lines, raw datagrams -> Kafka. "
            + "Runs until Ctrl-C or SIGTERM, then flushes every sink and prints its counters.")
final class CollectorCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--listen", defaultValue = "0.0.0.0", description = "Address to bind (default ${DEFAULT-VALUE}).")
    String listen;

    @Option(names = "--port", defaultValue = "6343", description = "UDP port, 1..65535 (default ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--threads", defaultValue = "2", description = "Receive threads (SO_REUSEPORT sockets), 1..64 (default ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--max-datagram-bytes", defaultValue = "9216", description = "Largest datagram received whole; up to 64 datagrams are read per system call (recvmmsg), a longer one is cut and counted as a decode error. 65507 = any size, one per call (default ${DEFAULT-VALUE}).")
    int maxDatagramBytes;

    @Option(names = "--clickhouse", paramLabel = "URL", description = "ClickHouse HTTP URL, e.g. http://127.0.0.1:8123.")
    String clickhouse;

    @Option(names = "--clickhouse-database", defaultValue = "vecflow", description = "Database (default ${DEFAULT-VALUE}).")
    String database;

    @Option(names = "--kafka", paramLabel = "HOST:PORT", description = "Kafka bootstrap servers for the raw topic.")
    String kafka;

    @Option(names = "--kafka-topic", defaultValue = "vecflow-raw-v1", description = "Raw topic (default ${DEFAULT-VALUE}).")
    String topic;

    @Option(names = "--json", paramLabel = "FILE", description = "Write flows as JSON lines to FILE (flushed every second).")
    Path json;

    @Option(names = "--metrics-port", defaultValue = "9477", description = "Prometheus metrics at http://LISTEN:PORT/metrics, 0 = off (default ${DEFAULT-VALUE}).")
    int metricsPort;

    @Option(names = "--metrics-listen", defaultValue = "127.0.0.1", description = "Address of the metrics endpoint (default ${DEFAULT-VALUE}).")
    String metricsListen;

    @Override
    public Integer call() throws Exception {
        require(port >= 1 && port <= 65535, "--port", port, "need 1..65535");
        require(threads >= 1 && threads <= 64, "--threads", threads, "need 1..64");
        require(metricsPort >= 0 && metricsPort <= 65535, "--metrics-port", metricsPort, "need 0..65535");
        require(maxDatagramBytes >= 1500 && maxDatagramBytes <= 65507, "--max-datagram-bytes", maxDatagramBytes,
                "need 1500..65507");
        if (clickhouse == null && kafka == null && json == null) {
            throw new VecflowCommand.UsageException("no sink: give --clickhouse URL, --kafka HOST:PORT and/or --json FILE");
        }
        try {
            InetAddress.getByName(listen);
        } catch (UnknownHostException e) {
            throw new VecflowCommand.UsageException("--listen " + listen + ": not an address of this host");
        }
        Collector.Settings s = new Collector.Settings();
        s.bindAddress = listen;
        s.port = port;
        s.threads = threads;
        s.maxDatagramBytes = maxDatagramBytes;
        s.clickhouseUrl = clickhouse;
        s.clickhouseDatabase = database;
        s.kafkaBootstrap = kafka;
        s.kafkaRawTopic = topic;
        s.jsonLines = json;
        PrintWriter out = spec.commandLine().getOut();
        try (Shutdown sd = Shutdown.install()) {
            Collector c = new Collector(s);
            io.vecflow.collector.CollectorMetrics metrics = null;
            try {
                if (metricsPort != 0) {
                    try {
                        metrics = new io.vecflow.collector.CollectorMetrics(c, InetAddress.getByName(metricsListen),
                                metricsPort);
                    } catch (java.io.IOException e) {
                        throw new java.io.IOException("cannot serve metrics on " + metricsListen + ":" + metricsPort
                                + " (" + e.getMessage() + "); use --metrics-port to pick another, or 0 for none", e);
                    }
                }
                out.printf("vecflow collector: listening on udp %s:%d (%d thread%s); sinks:%s%s%s; metrics %s%n",
                        listen, port, threads, threads == 1 ? "" : "s", json != null ? " json " + json : "",
                        clickhouse != null ? " clickhouse " + clickhouse + "/" + database : "",
                        kafka != null ? " kafka " + kafka + "/" + topic : "",
                        metrics != null ? "http://" + metricsListen + ":" + metrics.port() + "/metrics" : "off");
                out.flush();
                sd.await();
            } finally {
                if (metrics != null) {
                    metrics.close();
                }
                try {
                    c.flush();
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
        out.printf("datagrams received %,d (%,d bytes), flow rows %,d, decode errors %s%n",
                st.datagramsReceived.sum(), st.bytesReceived.sum(), st.flowRows.sum(),
                st.decode.errorsByKind().isEmpty() ? "0" : st.decode.errorsByKind().toString());
        long[] t = st.loss.totals();
        out.printf("agents: datagrams %,d, lost %,d, reordered %,d, restarts %,d; samples %,d, lost %,d, "
                + "agent-reported drops %,d%n", t[0], t[1], t[2], t[3], t[4], t[5], t[6]);
        for (RawSink r : c.rawSinks()) {
            out.printf("  %s: %,d datagrams written, %,d failed%n", r.name(), r.written(), r.failed());
        }
        for (FlowSink f : c.flowSinks()) {
            out.printf("  %s: %,d rows written, %,d failed%n", f.name(), f.rowsWritten(), f.rowsFailed());
        }
        out.flush();
    }
}
