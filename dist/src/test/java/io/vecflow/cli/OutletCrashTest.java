package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.inlet.DatagramProcessor;
import io.vecflow.collector.inlet.KafkaRawSink;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.sink.FlowSink;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outlet role as its own process, killed with SIGKILL in the middle of a 100,000-datagram run and started again:
 * ClickHouse ends with every datagram's rows exactly once (offsets are committed only after the rows are stored; the
 * replay after the crash skips what ClickHouse already holds). Real Kafka and ClickHouse.
 */
class OutletCrashTest {
    private static final int DATAGRAMS = 100_000;

    @TempDir
    Path dir;

    private static Process start(Path config, Path log) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-cp",
                System.getProperty("java.class.path"), VecflowCommand.class.getName(), "collector", "--config",
                config.toString()));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(
                java.lang.ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    private static long flows(String db) throws Exception {
        String s = TestEnv.clickhouse("SELECT count() FROM system.tables WHERE database = '" + db
                + "' AND name = 'flows' FORMAT TabSeparated").trim();
        return s.equals("1") ? Long.parseLong(TestEnv.clickhouse("SELECT count() FROM " + db
                + ".flows FORMAT TabSeparated").trim()) : 0;
    }

    @Test
    void sigkillMidRunThenRestartStoresEveryRowExactlyOnce() throws Exception {
        List<byte[]> payloads = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(PeerJudges.DIR, "*.pcap")) {
            for (Path p : ds) {
                payloads.addAll(SflowCaptures.udpPayloads(p));
            }
        }
        // The rows each datagram gives, counted by the real decoder.
        CollectorStats st = new CollectorStats();
        long[] perDatagram = new long[payloads.size()];
        long[] n = new long[1];
        FlowSink count = new FlowSink() {
            @Override public void accept(FlowRow row) {
                if (row.sampleType == FlowRow.FLOW) {
                    n[0]++;
                }
            }
            @Override public void flush() {}
            @Override public long rowsWritten() { return 0; }
            @Override public long rowsFailed() { return 0; }
            @Override public String name() { return "count"; }
            @Override public void close() {}
        };
        DatagramProcessor dp = new DatagramProcessor(st.decode, st, List.of(), List.of(count));
        for (int i = 0; i < payloads.size(); i++) {
            long before = n[0];
            byte[] d = payloads.get(i);
            dp.process(d, 0, d.length, 1L, new byte[16], 6343);
            perDatagram[i] = n[0] - before;
        }
        long expected = 0;
        CollectorStats all = new CollectorStats();
        DatagramProcessor loss = new DatagramProcessor(all.decode, all, List.of(), List.of());
        List<byte[]> load = new ArrayList<>();
        for (int i = 0; i < DATAGRAMS; i++) {
            expected += perDatagram[i % payloads.size()];
            // Each copy a datagram of its own (rising sequence and uptime), not a duplicate the collector leaves out.
            byte[] d = payloads.get(i % payloads.size()).clone();
            io.vecflow.sflow.DatagramHeader.rewriteSequence(d, 0, d.length, 1 + i, 10L * (1 + i));
            load.add(d);
            loss.process(d, 0, d.length, 1L, new byte[16], 6343);
        }
        long expectedDatagrams = all.loss.totals()[0];
        assertThat(expected).isGreaterThan(20_000);

        String sfx = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        String topic = "vecflow-raw-crash-" + sfx;
        String db = "crash_" + sfx;
        try (KafkaRawSink raw = new KafkaRawSink(TestEnv.kafka(), topic, 4)) {
            byte[] src = new byte[16];
            long t0 = System.currentTimeMillis() * 1_000_000L;
            for (int i = 0; i < DATAGRAMS; i++) {
                byte[] d = load.get(i);
                raw.accept(d, 0, d.length, t0 + i, src, 6343);
            }
            raw.flush();
            assertThat(raw.written()).isEqualTo(DATAGRAMS);
        }
        Path config = dir.resolve("outlet.yaml");
        Files.writeString(config, String.join("\n",
                "role: outlet",
                "kafka:",
                "  bootstrap: \"" + TestEnv.kafka() + "\"",
                "  raw-topic: " + topic,
                "  consumer-group: outlet-" + sfx,
                "clickhouse:",
                "  url: \"" + TestEnv.clickhouseUrl() + "\"",
                "  database: " + db,
                "  batch-rows: 2000",
                "  flush-ms: 100",
                "metrics:",
                "  port: 0",
                ""));
        Path log = dir.resolve("outlet.log");
        Process first = start(config, log);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (flows(db) < expected / 4) {
                assertThat(first.isAlive()).as("outlet alive: %s", Files.readString(log)).isTrue();
                assertThat(System.nanoTime()).as("a quarter of the rows within 60 s: %s", Files.readString(log))
                        .isLessThan(deadline);
                Thread.sleep(20);
            }
        } finally {
            first.destroyForcibly(); // SIGKILL: no flush, no commit
            first.waitFor(10, TimeUnit.SECONDS);
        }
        long atKill = flows(db);
        System.out.printf("outlet killed with %,d of %,d rows stored%n", atKill, expected);
        assertThat(atKill).isLessThan(expected);

        Process second = start(config, log);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (flows(db) < expected && System.nanoTime() < deadline && second.isAlive()) {
                Thread.sleep(100);
            }
            Thread.sleep(1500); // anything beyond the expected count would show up now
        } finally {
            second.destroy(); // SIGTERM: flush, commit, counters
            assertThat(second.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        String out = Files.readString(log);
        System.out.println(out);
        assertThat(flows(db)).as("rows after the restart; log: %s", out).isEqualTo(expected);
        // Exactly once: no datagram's rows twice — (partition, offset, sample) is unique.
        assertThat(TestEnv.clickhouse("SELECT uniqExact(IngestStream, IngestOffset, SampleSequence, SourceIdIndex, "
                + "SourceIdType) FROM " + db + ".flows FORMAT TabSeparated").trim()).isEqualTo(Long.toString(expected));
        assertThat(TestEnv.clickhouse("SELECT uniqExact(IngestStream, IngestOffset) FROM " + db + ".flows WHERE "
                + "IngestStream < 4 FORMAT TabSeparated").trim()).isNotEqualTo("0");
        assertThat(out).contains("replays skipped");
        // The agents table (loss accounting) carries the offsets it counted: the replay after the kill counts each
        // datagram once, wherever the kill landed (between the agents insert and the commit too), and never as
        // reordering.
        assertThat(TestEnv.clickhouse("SELECT sum(Datagrams), sum(DatagramsReordered), sum(DatagramsDuplicated) FROM "
                + db + ".agents WHERE SampleFamily = 255 FORMAT TabSeparated").trim())
                .isEqualTo(expectedDatagrams + "\t0\t0");
        TestEnv.clickhouse("DROP DATABASE IF EXISTS " + db);
    }
}
