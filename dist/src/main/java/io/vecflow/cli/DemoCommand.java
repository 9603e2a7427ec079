package io.vecflow.cli;

import static io.vecflow.cli.VecflowCommand.require;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import io.vecflow.collector.console.ConsoleSettings;
import picocli.CommandLine.Option;

/** {@code vecflow demo}: the whole chain on a capture, in one process. */
@Command(name = "demo", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
        description = {"Runs the whole chain on a real capture: pcap replay -> dataplane workers -> FIFOs -> "
            + "netlink PSAMPLE -> sFlow agent -> collector -> JSON lines (default), ClickHouse and Kafka (when given).",
            "Writes OUT/flows.jsonl, OUT/datagrams.pcap (every datagram the agent sent) and OUT/hsflowd.conf, "
            + "then prints a summary."})
final class DemoCommand implements Callable<Integer> {
    @Option(names = "--capture", paramLabel = "FILE",
            description = "Ethernet pcap to replay (default: the bundled tcpreplay-test.pcap, 179 packets).")
    Path capture;

    @Option(names = "--loops", defaultValue = "1", description =
            "Times the capture is replayed, >= 1 (default ${DEFAULT-VALUE}).")
    long loops;

    @Option(names = "--sampling-rate", defaultValue = "1", paramLabel = "N",
            description = "Sample 1-in-N packets, N >= 1 (default ${DEFAULT-VALUE}: every packet).")
    int samplingRate;

    @Option(names = "--workers", defaultValue = "2", description =
            "Dataplane worker threads, 1..64 (default ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--header-bytes", defaultValue = "128", description =
            "Header bytes per sample, 1..256 (default ${DEFAULT-VALUE}).")
    int headerBytes;

    @Option(names = "--fifo-size", defaultValue = "2047", description =
            "Sample FIFO slots per worker, >= 2 (default ${DEFAULT-VALUE}).")
    int fifoSize;

    @Option(names = "--pps", defaultValue = "0", description =
            "Replay rate in packets/s over all workers, 0 = as fast as possible (default ${DEFAULT-VALUE}).")
    double pps;

    @Option(names = "--out", defaultValue = "vecflow-out", paramLabel = "DIR", description =
            "Output folder (default ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--clickhouse", paramLabel = "URL", description =
            "ClickHouse HTTP URL, e.g. http://127.0.0.1:8123: also write flows there.")
    String clickhouse;

    @Option(names = "--clickhouse-database", defaultValue = "vecflow", paramLabel = "DB", description =
            "ClickHouse database (default ${DEFAULT-VALUE}).")
    String clickhouseDatabase;

    @Option(names = "--kafka", paramLabel = "HOST:PORT", description =
            "Kafka bootstrap servers: the collector writes every raw datagram to the topic and stores what its own "
                    + "outlet consumes back from it (one path).")
    String kafka;

    @Option(names = "--kafka-topic", defaultValue = "vecflow-raw-v1", description =
            "Raw datagram topic (default ${DEFAULT-VALUE}).")
    String kafkaTopic;

    @Option(names = "--netlink-group", defaultValue = "0", description =
            "NETLINK_USERSOCK multicast group for PSAMPLE, 1..32, so `vecflow psample listen --transport usersock` "
                    + "can watch (needs root); 0 = unicast to the agent, private to this run (default "
                            + "${DEFAULT-VALUE}).")
    int netlinkGroup;

    @Option(names = "--collector-port", defaultValue = "6343", description =
            "Collector UDP port on 127.0.0.1, 0 = any free port (default ${DEFAULT-VALUE}).")
    int collectorPort;

    @Option(names = "--serve", description = "After the replay, keep the collector and its console up until Ctrl-C "
            + "and print the console's URL (without ClickHouse it reads the embedded store under --out).")
    boolean serve;

    @Option(names = "--listen", defaultValue = "127.0.0.1:8080", paramLabel = "ADDR:PORT", description =
            "With --serve, where the console listens (default ${DEFAULT-VALUE}; port 0 = any free port).")
    String listen;

    @Override
    public Integer call() throws Exception {
        require(loops >= 1, "--loops", loops, "need >= 1");
        require(samplingRate >= 1, "--sampling-rate", samplingRate, "need N >= 1");
        require(workers >= 1 && workers <= 64, "--workers", workers, "need 1..64");
        require(headerBytes >= 1 && headerBytes <= 256, "--header-bytes", headerBytes, "need 1..256");
        require(fifoSize >= 2, "--fifo-size", fifoSize, "need >= 2");
        require(pps >= 0, "--pps", pps, "need >= 0 packets/s");
        require(netlinkGroup >= 0 && netlinkGroup <= 32, "--netlink-group", netlinkGroup, "need 0..32");
        require(collectorPort >= 0 && collectorPort <= 65535, "--collector-port", collectorPort, "need 0..65535");
        Demo.Options o = new Demo.Options();
        o.capture = capture;
        o.loops = loops;
        o.samplingRate = samplingRate;
        o.workers = workers;
        o.headerBytes = headerBytes;
        o.fifoSize = fifoSize;
        o.packetsPerSecond = pps;
        o.out = out;
        o.clickhouse = clickhouse;
        o.clickhouseDatabase = clickhouseDatabase;
        o.kafka = kafka;
        o.kafkaTopic = kafkaTopic;
        o.netlinkGroup = netlinkGroup;
        o.collectorPort = collectorPort;
        if (serve) {
            ConsoleSettings settings = ConsoleCommand.listen(listen, "--listen");
            o.hold = (collector, result) -> {
                Demo.printSummary(result, System.out);
                try (Shutdown sd = Shutdown.install();
                        Consoles.Running console = Consoles.over(collector, settings, collector.settings())) {
                    System.out.println();
                    System.out.println("Browse the flows: " + console.url() + "   (Ctrl-C stops the demo)");
                    System.out.flush();
                    sd.await();
                }
            };
        }
        Demo.Result r = Demo.run(o, System.out);
        if (!serve) {
            Demo.printSummary(r, System.out);
            if (clickhouse == null) {
                System.out.println("Browse them: ./vecflow demo --serve, or ./vecflow console --store "
                        + Demo.storeFile(out));
            }
        }
        return 0;
    }
}
