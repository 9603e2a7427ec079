package io.vecflow.collector.sink.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.ConsoleFixture;
import io.vecflow.collector.Collector;
import io.vecflow.collector.TestSupport;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.sink.duckdb.DuckDbStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded store: {@link ClickHouseSink} writing a real DuckDB file ({@link DuckDbStore}) — the same rows as
 * ClickHouse gets, each batch stored with its rollup rows in one transaction, replays skipped by the watermarks
 * after a reopen, a batch that does not decode refused whole with its row, column and offset, and a real capture
 * through a real collector.
 */
class DuckDbSinkTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    private static ClickHouseSink open(Path file) throws IOException {
        ClickHouseSink.Settings s = ClickHouseSink.Settings.duckDb(file);
        s.batchRows = 1000;
        s.autoFlush = false;
        return new ClickHouseSink(s);
    }

    private static long count(ClickHouseSink sink, String sql) throws IOException {
        return Long.parseLong(sink.queryString(sql).strip());
    }

    @Test
    void rowsAndTheirRollupsLandOnceAcrossAReopenAndAReplay(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("store").resolve("vecflow.duckdb");
        List<FlowRow> rows = ClickHouseSinkTest.rows();
        long now = System.currentTimeMillis() * 1_000_000L; // within the watermarks' look-back
        for (int i = 0; i < rows.size(); i++) {
            rows.get(i).timeReceivedNanos = now + i * 1_500_000_123L;
        }
        try (ClickHouseSink sink = open(file)) {
            assertThat(sink.name()).isEqualTo("duckdb");
            for (int i = 0; i < 3; i++) {
                sink.accept(rows.get(i));
            }
            sink.flush();
            assertThat(sink.rowsWritten()).isEqualTo(3);
            assertThat(sink.duckDb().batches()).isEqualTo(1);
        }
        try (ClickHouseSink sink = open(file)) {
            // As the Kafka outlet does after a restart: load what the store holds, then replay from older offsets.
            sink.loadWatermarks(new long[] {rows.get(0).ingestStream});
            for (FlowRow r : rows) {
                sink.accept(r);
            }
            sink.flush();
            assertThat(sink.rowsReplaySkipped()).isEqualTo(3);
            assertThat(count(sink, "SELECT count(*) FROM flows")).isEqualTo(5);
            assertThat(count(sink, "SELECT count(DISTINCT IngestOffset) FROM flows")).isEqualTo(5);
            // Every rollup holds every sample once, and the bytes times the sampling rate.
            long bytes = 0;
            for (FlowRow r : rows) {
                bytes += r.bytes * r.samplingRate;
            }
            for (String t : List.of("flows_1m", "flows_5m", "flows_1h")) {
                assertThat(count(sink, "SELECT sum(Samples) FROM " + t)).as(t).isEqualTo(5);
                assertThat(sink.queryString("SELECT CAST(sum(Bytes) AS HUGEINT) FROM " + t).strip()).as(t)
                        .isEqualTo(Long.toUnsignedString(bytes));
            }
            // The values as stored: addresses as 16 bytes, enums by name, the time in seconds.
            assertThat(sink.queryString("SELECT hex(AgentAddress), Direction, CAST(epoch(TimeReceived) AS BIGINT), "
                    + "SamplingRate FROM flows WHERE IngestOffset = 2").strip()).isEqualTo(
                    "00300000000000000000000100010001\t" + FlowSchema.DIRECTIONS.get(rows.get(1).direction) + "\t"
                            + rows.get(1).timeReceivedNanos / 1_000_000_000L + "\t" + rows.get(1).samplingRate);
        }
    }

    @Test
    void aBatchThatDoesNotDecodeIsRefusedWholeNamingWhere(@TempDir Path dir) throws Exception {
        try (DuckDbStore store = new DuckDbStore(dir.resolve("v.duckdb"), "vecflow")) {
            RowBinaryWriter w = new RowBinaryWriter(1 << 12);
            for (FlowRow r : ClickHouseSinkTest.rows()) {
                w.writeFlow(r);
            }
            List<String> columns = FlowSchema.table("flows").columnNames();
            assertThatThrownBy(() -> store.insert("flows", columns, w.buffer(), w.size() - 7, w.rows()))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("flows row 4 column ")
                    .hasMessageContaining("at offset ")
                    .hasMessageContaining("truncated");
            assertThat(store.query("SELECT count(*) FROM flows")).containsExactly(List.of("0"));
            assertThat(store.query("SELECT count(*) FROM flows_1m")).containsExactly(List.of("0"));
            // The same batch whole lands, with its rollup rows.
            store.insert("flows", columns, w.buffer(), w.size(), w.rows());
            assertThat(store.query("SELECT count(*), sum(IngestOffset) FROM flows"))
                    .containsExactly(List.of("5", "15"));
            assertThat(store.query("SELECT CAST(sum(Samples) AS BIGINT) FROM flows_1m")).containsExactly(List.of("5"));
            assertThatThrownBy(() -> store.insert("flows", List.of("TimeReceived"), w.buffer(), w.size(), w.rows()))
                    .hasMessageContaining("not in the table's columns");
        }
    }

    /** Every capture of testdata/sflow through a real collector into the embedded store, loss rows included. */
    @Test
    void aRealCaptureThroughTheCollector(@TempDir Path dir) throws Exception {
        List<byte[]> datagrams = ConsoleFixture.datagrams();
        Collector.Settings s = ConsoleFixture.embedded(dir.resolve("vecflow.duckdb"));
        s.lossIntervalMs = 3_600_000;
        long flows;
        try (Collector c = new Collector(s); TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            tx.sendPaced(datagrams, 16, () -> c.stats().datagramsReceived.sum());
            final long n = datagrams.size();
            TestSupport.await("all datagrams processed", WAIT, () -> c.stats().datagramsReceived.sum() == n,
                    () -> "(received " + c.stats().datagramsReceived.sum() + " of " + n + ")");
            c.flush();
            assertThat(c.stats().sinkErrors.sum()).isZero();
            ClickHouseSink sink = c.clickhouse();
            assertThat(sink.name()).isEqualTo("duckdb");
            flows = count(sink, "SELECT count(*) FROM flows");
            assertThat(flows).isEqualTo(sink.rowsWritten() - count(sink, "SELECT count(*) FROM drops")).isPositive();
            assertThat(count(sink, "SELECT CAST(sum(Samples) AS BIGINT) FROM flows_5m")).isEqualTo(flows);
            assertThat(count(sink, "SELECT count(*) FROM if_counters")).isPositive();
            // The agents rows hold what the loss tracker counted, datagram for datagram.
            long counted = c.stats().loss.agents().stream().mapToLong(a -> a.datagrams).sum();
            assertThat(counted).isPositive();
            assertThat(count(sink, "SELECT CAST(sum(Datagrams) AS BIGINT) FROM agents WHERE SampleFamily = 255"))
                    .isEqualTo(counted);
            assertThat(count(sink, "SELECT count(*) FROM exporters")).isPositive();
            // the load balancer's decisions, one row each
            assertThat(count(sink, "SELECT count(*) FROM lb_decisions")).isEqualTo(15);
            assertThat(count(sink, "SELECT count(*) FROM lb_decisions WHERE Decision = 'accept' AND ChoiceIndex = 2"))
                    .isEqualTo(ConsoleFixture.SRLB_SECOND);
        }
        // The file outlives the collector: what was acknowledged is there after it closed.
        try (DuckDbStore store = new DuckDbStore(dir.resolve("vecflow.duckdb"), "vecflow")) {
            assertThat(store.query("SELECT count(*) FROM flows")).containsExactly(List.of(Long.toString(flows)));
        }
    }
}
