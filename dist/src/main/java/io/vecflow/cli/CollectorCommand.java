package io.vecflow.cli;

import io.vecflow.collector.Collector;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code vecflow collector}: the sFlow collector. */
@Command(name = "collector", mixinStandardHelpOptions = true,
        description = "sFlow v5 collector: UDP inlet -> decode -> ClickHouse / JSON lines, raw datagrams -> Kafka.")
final class CollectorCommand implements Callable<Integer> {
    @Option(names = "--listen", defaultValue = "0.0.0.0", description = "Address to bind (default ${DEFAULT-VALUE}).")
    String listen;

    @Option(names = "--port", defaultValue = "6343", description = "UDP port (default ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--threads", defaultValue = "2", description = "SO_REUSEPORT sockets / threads (default ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--clickhouse", paramLabel = "URL", description = "ClickHouse HTTP URL.")
    String clickhouse;

    @Option(names = "--clickhouse-database", defaultValue = "vecflow", description = "Database (default ${DEFAULT-VALUE}).")
    String database;

    @Option(names = "--kafka", paramLabel = "HOST:PORT", description = "Kafka bootstrap servers for the raw topic.")
    String kafka;

    @Option(names = "--kafka-topic", defaultValue = "vecflow-raw-v1", description = "Raw topic (default ${DEFAULT-VALUE}).")
    String topic;

    @Option(names = "--json", paramLabel = "FILE", description = "Write flows as JSON lines to FILE.")
    Path json;

    @Override
    public Integer call() throws Exception {
        Collector.Settings s = new Collector.Settings();
        s.bindAddress = listen;
        s.port = port;
        s.threads = threads;
        s.clickhouseUrl = clickhouse;
        s.clickhouseDatabase = database;
        s.kafkaBootstrap = kafka;
        s.kafkaRawTopic = topic;
        s.jsonLines = json;
        if (clickhouse == null && kafka == null && json == null) {
            throw new IllegalArgumentException("no sink: give --clickhouse URL, --kafka HOST:PORT and/or --json FILE");
        }
        try (Collector c = new Collector(s)) {
            System.err.println("vecflow collector listening on udp " + c.localAddress());
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
            stop.await();
            c.flush();
        }
        return 0;
    }
}
