package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.inlet.DatagramProcessor;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.sink.clickhouse.ClickHouseSink;
import io.vecflow.collector.sink.clickhouse.ClickHouseSinkTestSupport;
import io.vecflow.collector.sink.clickhouse.RowBinaryWriterTest;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ClickHouse schema on the real server (18.16 on the test machines): every capture lands in every table it
 * should, rollups equal the raw sums, a retried insert that landed is not doubled, replays below a watermark are
 * skipped, back-pressure bounds memory and counts, old partitions are dropped, and the skeleton's schema migrates
 * without losing a row.
 */
class StorageTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final List<String> DATABASES = new ArrayList<>();
    private static String url;

    @BeforeAll
    static void url() {
        url = TestSupport.clickhouseUrl();
    }

    @AfterAll
    static void drop() throws Exception {
        for (String db : DATABASES) {
            ClickHouseSinkTestSupport.query("DROP DATABASE IF EXISTS " + db);
        }
    }

    private static String db(String what) {
        String db = "st_" + what + "_" + TestSupport.suffix();
        DATABASES.add(db);
        return db;
    }

    private static long count(String sql) throws Exception {
        return Long.parseLong(ClickHouseSinkTestSupport.query(sql).trim());
    }

    private static String q(String sql) throws Exception {
        return ClickHouseSinkTestSupport.query(sql).trim();
    }

    @Test
    void everyCaptureLandsInItsTablesAndRollupsEqualTheRawSums() throws Exception {
        String db = db("ingest");
        List<byte[]> sent = new ArrayList<>();
        for (String c : Captures.all()) {
            sent.addAll(Captures.udpPayloads(c));
        }
        Collector.Settings s = new Collector.Settings();
        s.bindAddress = "127.0.0.1";
        s.port = 0;
        s.clickhouseUrl = url;
        s.clickhouseDatabase = db;
        s.lossIntervalMs = 3_600_000;
        try (Collector c = new Collector(s); TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            tx.sendPaced(sent, 8, () -> c.stats().datagramsReceived.sum());
            TestSupport.await("every datagram", WAIT, () -> c.stats().datagramsReceived.sum() >= sent.size());
            c.flush();
            CollectorStats st = c.stats();
            long flowRows = st.flowRows.sum() - st.discardRows.sum();
            assertThat(flowRows).isPositive();
            assertThat(st.discardRows.sum()).as("the goflow2 drop captures hold discards").isPositive();
            assertThat(st.counterRows.sum()).isPositive();
            assertThat(count("SELECT count() FROM " + db + ".flows")).isEqualTo(flowRows);
            assertThat(count("SELECT count() FROM " + db + ".flows WHERE SampleType != 0")).isZero();
            assertThat(count("SELECT count() FROM " + db + ".drops")).isEqualTo(st.discardRows.sum());
            assertThat(count("SELECT count() FROM " + db + ".drops WHERE DiscardReasonName = ''")).isZero();
            assertThat(count("SELECT count() FROM " + db + ".if_counters")).isEqualTo(st.counterRows.sum());
            // One row per agent and data source per interval; the datagram-level rows add up to what was received.
            long[] totals = st.loss.totals();
            assertThat(count("SELECT sum(Datagrams) FROM " + db + ".agents WHERE SampleFamily = 255"))
                    .isEqualTo(totals[0]);
            assertThat(count("SELECT sum(Samples) FROM " + db + ".agents WHERE SampleFamily != 255"))
                    .isEqualTo(totals[4]);
            // Inventory: every agent that sent, every interface that reported counters.
            assertThat(count("SELECT uniqExact(AgentAddress) FROM " + db + ".exporters"))
                    .isEqualTo(st.loss.agents().stream().map(a -> java.util.HexFormat.of().formatHex(a.agent))
                            .distinct().count());
            assertThat(count("SELECT uniqExact(AgentAddress, IfIndex) FROM " + db + ".interfaces"))
                    .isEqualTo(count("SELECT uniqExact(AgentAddress, IfIndex) FROM " + db + ".if_counters"));
            assertThat(count("SELECT uniqExact(AgentAddress, IfIndex) FROM " + db + ".interfaces WHERE IfName != ''"))
                    .isEqualTo(count("SELECT uniqExact(AgentAddress, IfIndex) FROM " + db + ".if_counters "
                            + "WHERE IfName != ''"));
            // Rollups: bytes and packets scaled by sampling_rate, and one Samples per raw row — at every resolution.
            String raw = q("SELECT sum(Bytes * SamplingRate), sum(Packets * SamplingRate), count() FROM " + db
                    + ".flows");
            assertThat(raw).doesNotStartWith("0\t");
            for (String t : List.of("flows_1m", "flows_5m", "flows_1h")) {
                assertThat(q("SELECT sum(Bytes), sum(Packets), sum(Samples) FROM " + db + "." + t)).as(t)
                        .isEqualTo(raw);
            }
            assertThat(q("SELECT sum(Bytes) FROM " + db + ".flows_1m WHERE TimeReceived != toStartOfMinute("
                    + "TimeReceived)")).isEqualTo("0");
        }
    }

    /**
     * Decoded datagrams through the row sinks into ClickHouse: u64 counters above 2^63 (the all-ones "unknown"
     * included) land as the unsigned values sent — RowBinary carries the bits, the UInt64 columns read them unsigned,
     * and a difference across 2^63 is the plain one — and DatagramIncomplete is 1 on the rows of a datagram cut
     * part-way, 0 on the others, in flows and drops.
     */
    @Test
    void u64CountersAndTheIncompleteMarkLandAsDecoded() throws Exception {
        String db = db("unsigned");
        int[] w = new int[22]; // if_counters words: ifSpeed 2-3, ifInOctets 6-7, ifOutOctets 14-15
        w[0] = 3;
        w[2] = 0x8000_0000; // ifSpeed 2^63
        w[6] = 0x7FFF_FFFF;
        w[7] = -10; // ifInOctets 2^63 - 10
        w[14] = -1;
        w[15] = -1; // ifOutOctets all ones
        byte[] first = io.vecflow.sflow.HandDatagram.datagram(1, 1000, io.vecflow.sflow.HandDatagram.counterSample(1,
                io.vecflow.sflow.HandDatagram.record(io.vecflow.sflow.CounterRecords.IF_COUNTERS, w)));
        w[6] = 0x8000_0000;
        w[7] = 5; // ifInOctets 2^63 + 5: 15 more
        byte[] second = io.vecflow.sflow.HandDatagram.datagram(2, 2000, io.vecflow.sflow.HandDatagram.counterSample(2,
                io.vecflow.sflow.HandDatagram.record(io.vecflow.sflow.CounterRecords.IF_COUNTERS, w)));
        // A discard (0:5, reason 258) and two flow samples, then the same cut inside its last sample.
        java.nio.ByteBuffer discard = java.nio.ByteBuffer.allocate(8 + 32);
        discard.putInt(io.vecflow.sflow.SflowFormats.DISCARDED_PACKET).putInt(32).putInt(9).putInt(0).putInt(7)
                .putInt(0).putInt(3).putInt(0).putInt(258).putInt(0);
        byte[] flows = io.vecflow.sflow.HandDatagram.datagram(3, 3000, discard.array(),
                io.vecflow.sflow.HandDatagram.flowSample(10), io.vecflow.sflow.HandDatagram.flowSample(11));
        CollectorStats st = new CollectorStats();
        long now = System.currentTimeMillis() * 1_000_000L;
        try (ClickHouseSink sink = new ClickHouseSink(url, "default", "", db, 1000, 3_600_000)) {
            DatagramProcessor p = new DatagramProcessor(st.decode, st, List.of(), List.of(sink));
            p.process(first, 0, first.length, now, new byte[16], 6343);
            p.process(second, 0, second.length, now + 1, new byte[16], 6343);
            p.process(flows, 0, flows.length, now + 2, new byte[16], 6343);
            assertThat(p.process(flows, 0, flows.length - 4, now + 3, new byte[16], 6343)).isNotNull();
            sink.flush();
            assertThat(q("SELECT IfSpeed, InOctets, OutOctets FROM " + db + ".if_counters ORDER BY SampleSequence "
                    + "FORMAT TSV")).isEqualTo("9223372036854775808\t9223372036854775798\t18446744073709551615\n"
                    + "9223372036854775808\t9223372036854775813\t18446744073709551615");
            assertThat(q("SELECT max(InOctets) - min(InOctets) FROM " + db + ".if_counters")).isEqualTo("15");
            assertThat(q("SELECT groupArray(DatagramIncomplete) FROM (SELECT DatagramIncomplete FROM " + db
                    + ".flows ORDER BY TimeReceivedNanos, SampleSequence)")).isEqualTo("[0,0,1]");
            assertThat(q("SELECT groupArray(DatagramIncomplete) FROM (SELECT DatagramIncomplete FROM " + db
                    + ".drops ORDER BY TimeReceivedNanos)")).isEqualTo("[0,1]");
        }
    }

    private static FlowRow row(long stream, long offset) {
        FlowRow r = RowBinaryWriterTest.sampleRow();
        r.sampleType = FlowRow.FLOW;
        r.timeReceivedNanos = System.currentTimeMillis() * 1_000_000L;
        r.ingestStream = stream;
        r.ingestOffset = offset;
        r.sampleSequence = offset;
        return r;
    }

    @Test
    void eachInsertBlockReachesARollupAsOneRowPerKey() throws Exception {
        String db = db("rollupblock");
        long minute = System.currentTimeMillis() / 60_000 * 60_000;
        try (ClickHouseSink sink = new ClickHouseSink(url, "default", "", db, 10_000, 3_600_000)) {
            for (int i = 1; i <= 500; i++) {
                FlowRow r = row(0x8000_0003L, i);
                r.timeReceivedNanos = (minute + i % 50) * 1_000_000L; // one minute, one hour: one rollup key
                r.outIf = i <= 400 ? 2 : 3; // two keys
                sink.accept(r);
            }
            sink.flush();
        }
        long bytes = RowBinaryWriterTest.sampleRow().bytes * RowBinaryWriterTest.sampleRow().samplingRate;
        for (String t : List.of("flows_1m", "flows_5m", "flows_1h")) {
            // no OPTIMIZE: the view aggregated the insert's block itself (migration 6)
            assertThat(q("SELECT OutIf, count(), sum(Samples), sum(Bytes) FROM " + db + "." + t
                    + " GROUP BY OutIf ORDER BY OutIf FORMAT TSV")).as(t)
                    .isEqualTo("2\t1\t400\t" + 400 * bytes + "\n3\t1\t100\t" + 100 * bytes);
            assertThat(q("SHOW CREATE TABLE " + db + "." + t + "_mv")).as(t).contains("GROUP BY");
        }
    }

    @Test
    void aRetriedBatchThatLandedIsNotInsertedTwice() throws Exception {
        String db = db("retry");
        try (ClickHouseSink sink = new ClickHouseSink(url, "default", "", db, 1000, 3_600_000)) {
            for (int i = 1; i <= 10; i++) {
                sink.accept(row(0x8000_0001L, i));
            }
            sink.failAfterInsertForTest = 1;
            sink.flush();
            assertThat(sink.batchesFoundStored()).isEqualTo(1);
            assertThat(sink.rowsWritten()).isEqualTo(10);
            assertThat(count("SELECT count() FROM " + db + ".flows")).isEqualTo(10);
            // A batch whose insert really failed is retried and lands once.
            for (int i = 11; i <= 15; i++) {
                sink.accept(row(0x8000_0001L, i));
            }
            sink.flush();
            assertThat(count("SELECT count() FROM " + db + ".flows")).isEqualTo(15);
            assertThat(sink.batchesFoundStored()).isEqualTo(1);
        }
    }

    @Test
    void replaysAtOrBelowTheWatermarkAreSkipped() throws Exception {
        String db = db("replay");
        try (ClickHouseSink sink = new ClickHouseSink(url, "default", "", db, 1000, 3_600_000)) {
            for (int i = 0; i < 10; i++) {
                sink.accept(row(3, i));
                sink.accept(row(4, 100 + i));
            }
            sink.flush();
        }
        // A new outlet takes partitions 3, 4 and 5 and replays from older offsets.
        try (ClickHouseSink sink = new ClickHouseSink(url, "default", "", db, 1000, 3_600_000)) {
            sink.loadWatermarks(new long[] {3, 4, 5});
            for (int i = 0; i < 15; i++) {
                sink.accept(row(3, i));
                sink.accept(row(4, 100 + i));
                sink.accept(row(5, i));
            }
            sink.flush();
            assertThat(sink.rowsReplaySkipped()).isEqualTo(20);
            assertThat(sink.rowsWritten()).isEqualTo(25);
        }
        assertThat(q("SELECT IngestStream, count(), uniqExact(IngestOffset), min(IngestOffset), max(IngestOffset) "
                + "FROM " + db + ".flows GROUP BY IngestStream ORDER BY IngestStream FORMAT TSV"))
                .isEqualTo("3\t15\t15\t0\t14\n4\t15\t15\t100\t114\n5\t15\t15\t0\t14");
    }

    @Test
    void aFloodKeepsPendingRowsUnderTheCapSpoolsTheRestAndStoresEveryRow(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path spool) throws Exception {
        String db = db("flood");
        List<byte[]> payloads = new ArrayList<>();
        for (String c : Captures.all()) {
            payloads.addAll(Captures.udpPayloads(c));
        }
        Collector.Settings s = new Collector.Settings();
        s.bindAddress = "127.0.0.1";
        s.port = 0;
        s.clickhouseUrl = url;
        s.clickhouseDatabase = db;
        s.clickhouseBatchRows = 1_000_000;      // no size-triggered insert,
        s.clickhouseFlushMs = 3_600_000;        // no timed insert: every row stays pending
        s.clickhouseMaxPendingBytes = 256 << 10;
        s.lossIntervalMs = 3_600_000;
        s.spoolDirectory = spool;
        s.spoolMaxBytes = 64 << 20;
        s.spoolSegmentBytes = 1 << 20;
        try (Collector c = new Collector(s); TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            ClickHouseSink ch = c.clickhouse();
            long maxPending = 0;
            int sent = 0;
            long deadline = System.nanoTime() + 10_000_000_000L;
            // Bounded: at most 20,000 datagrams or 10 s.
            while (sent < 20_000 && System.nanoTime() < deadline) {
                // Each copy a datagram of its own (a fresh sequence number), not a duplicate to leave out.
                byte[] d = payloads.get(sent % payloads.size()).clone();
                io.vecflow.sflow.DatagramHeader.rewriteSequence(d, 0, d.length, 1_000_000 + sent, 1000L * sent);
                tx.send(d);
                sent++;
                if (sent % 64 == 0) {
                    maxPending = Math.max(maxPending, ch.pendingBytes());
                    long want = sent;
                    TestSupport.await("the collector to keep up", WAIT,
                            () -> c.stats().datagramsReceived.sum() >= want - 64);
                }
            }
            int total = sent;
            TestSupport.await("every datagram", WAIT, () -> c.stats().datagramsReceived.sum() >= total);
            maxPending = Math.max(maxPending, ch.pendingBytes());
            long spooled = c.spooler().spooled();
            System.out.printf("flood: %d datagrams, pending peak %d bytes (cap %d per table), %d datagrams spooled%n",
                    total, maxPending, s.clickhouseMaxPendingBytes, spooled);
            // Five tables, each at most the cap plus the rows of the one datagram that crossed it.
            assertThat(maxPending).isLessThanOrEqualTo(5 * (s.clickhouseMaxPendingBytes + 65536));
            assertThat(spooled).as("datagrams beyond the cap go to the spool").isPositive();
            assertThat(c.spooler().lost()).isZero();
            for (ClickHouseSink.TableStats t : ch.tableStats()) {
                assertThat(t.written()).isZero();
            }
            // Inserting frees the cap, the spool drains behind it: every row of every datagram lands, none twice.
            long end = System.nanoTime() + 45_000_000_000L; // a loaded 2-core box inserts slowly
            while ((c.spooler().spooling() || ch.rowsPending() > 0) && System.nanoTime() < end) {
                ch.flush();
                Thread.sleep(20);
            }
            assertThat(c.spooler().spooling()).as("spooling after 45 s: held %d, replayed %d of %d, pending rows %d, "
                    + "can accept %s", c.spooler().heldDatagrams(), c.spooler().replayed(), c.spooler().spooled(),
                    ch.rowsPending(), ch.canAccept()).isFalse();
            assertThat(c.spooler().replayed()).isEqualTo(spooled);
            long stored = 0;
            for (ClickHouseSink.TableStats t : ch.tableStats()) {
                if (t.table().equals("flows") || t.table().equals("drops") || t.table().equals("if_counters")) {
                    stored += t.written();
                }
            }
            assertThat(stored).isEqualTo(c.stats().flowRows.sum() + c.stats().counterRows.sum());
            assertThat(count("SELECT count() FROM " + db + ".flows") + count("SELECT count() FROM " + db
                    + ".drops")).isEqualTo(c.stats().flowRows.sum());
        }
    }

    @Test
    void retentionDropsWholePartitionsOlderThanEachTablesLimit() throws Exception {
        String db = db("retention");
        try (ClickHouseSink sink = new ClickHouseSink(url, "default", "", db, 1000, 3_600_000)) {
            if (sink.features().ttl()) {
                // A server with TTL expires rows itself; the DDL carries it (FlowSchemaTest pins it).
                assertThat(sink.retention()).isNull();
                return;
            }
            LocalDate today = LocalDate.now(ZoneOffset.UTC);
            long day = 86_400L * 1_000_000_000L;
            long now = today.atStartOfDay(ZoneOffset.UTC).toEpochSecond() * 1_000_000_000L + 3_600_000_000_000L;
            for (int age : new int[] {0, 14, 16, 40}) {
                FlowRow r = row(0x8000_0002L, age + 1);
                r.timeReceivedNanos = now - age * day;
                sink.accept(r);
            }
            sink.flush();
            List<String> dropped = sink.retention().run(today);
            // flows keeps 15 days: the rows 16 and 40 days old go, with their day partitions; the 1-minute rollup
            // keeps 7 days: its 14-day-old partition goes too. Monthly partitions (5m, 1h) stay whole.
            java.util.function.IntFunction<String> d = age -> today.minusDays(age).toString().replace("-", "");
            assertThat(dropped).containsExactlyInAnyOrder("flows/" + d.apply(16), "flows/" + d.apply(40),
                    "flows_1m/" + d.apply(14), "flows_1m/" + d.apply(16), "flows_1m/" + d.apply(40));
            assertThat(q("SELECT groupArray(IngestOffset) FROM (SELECT IngestOffset FROM " + db + ".flows "
                    + "ORDER BY IngestOffset)")).isEqualTo("[1,15]");
            // The 7-day 1-minute rollup lost its 14-day-old row too; the monthly 5-minute one keeps the month.
            assertThat(count("SELECT sum(Samples) FROM " + db + ".flows_1m")).isEqualTo(1);
            assertThat(sink.retention().run(today)).isEmpty();
        }
    }

    @Test
    void theSkeletonSchemaMigratesWithoutLosingARow() throws Exception {
        String db = db("migrate");
        ClickHouseSinkTestSupport.query("CREATE DATABASE " + db);
        FlowSchema.ServerFeatures f = FlowSchema.ServerFeatures.fromVersion(q("SELECT version()"));
        // The skeleton's tables: flows without the SRv6 and ingest columns, holding flows and discards, and
        // agent_loss instead of agents.
        List<FlowSchema.Column> old = FlowSchema.FLOWS.subList(0, FlowSchema.FLOWS.indexOf(
                FlowSchema.FLOWS.stream().filter(c -> c.name().equals("SRv6SegmentsLeft")).findFirst().orElseThrow()));
        ClickHouseSinkTestSupport.query(FlowSchema.createTable(db, new FlowSchema.Table("flows", old, "MergeTree",
                "toYYYYMMDD(TimeReceived)", "(TimeReceived, AgentAddress, InIf, OutIf)", 15), f, 15));
        ClickHouseSinkTestSupport.query(FlowSchema.createTable(db, new FlowSchema.Table("agent_loss",
                FlowSchema.AGENTS, "MergeTree", "toYYYYMMDD(TimeReceived)", "(AgentAddress, TimeReceived)", 90), f,
                        90));
        ClickHouseSinkTestSupport.query("INSERT INTO " + db + ".flows (TimeReceived, SampleType, DiscardReason, "
                + "Bytes, Packets, SamplingRate) VALUES (now(), 0, 0, 100, 1, 10), (now(), 0, 0, 200, 1, 10), "
                + "(now(), 1, 258, 60, 1, 1)");
        ClickHouseSinkTestSupport.query("INSERT INTO " + db + ".agent_loss (TimeReceived, SampleFamily, Datagrams) "
                + "VALUES (now(), 255, 42)");
        try (ClickHouseSink sink = new ClickHouseSink(url, "default", "", db, 1000, 3_600_000)) {
            assertThat(q("SELECT groupArray(Version) FROM (SELECT Version FROM " + db
                    + ".schema_migrations ORDER BY Version)")).isEqualTo("[1,2,3,4,5,6]");
            assertThat(count("SELECT count() FROM system.tables WHERE database = '" + db
                    + "' AND name = 'agent_loss'")).isZero();
            assertThat(count("SELECT sum(Datagrams) FROM " + db + ".agents")).isEqualTo(42);
            assertThat(q("SELECT DiscardReason, DiscardReasonName, Bytes FROM " + db + ".drops FORMAT TSV"))
                    .isEqualTo("258\t\t60");
            TestSupport.await("the discard to leave flows (ALTER DELETE runs as a mutation)", WAIT, () -> {
                try {
                    return count("SELECT count() FROM " + db + ".flows") == 2;
                } catch (Exception e) {
                    return false;
                }
            });
            assertThat(q("SELECT sum(Bytes), sum(Samples) FROM " + db + ".flows_1h")).isEqualTo("3000\t2");
            assertThat(sink.columnsOf("flows")).containsAll(FlowSchema.columnNames());
        }
        // A second start does nothing more.
        try (ClickHouseSink sink = new ClickHouseSink(url, "default", "", db, 1000, 3_600_000)) {
            assertThat(count("SELECT count() FROM " + db + ".schema_migrations")).isEqualTo(6);
            assertThat(q("SELECT sum(Bytes), sum(Samples) FROM " + db + ".flows_1h")).isEqualTo("3000\t2");
        }
    }
}
