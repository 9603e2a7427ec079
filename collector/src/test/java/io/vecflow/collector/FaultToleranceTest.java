package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.inlet.DatagramProcessor;
import io.vecflow.collector.inlet.EpochNanos;
import io.vecflow.collector.inlet.KafkaRawSink;
import io.vecflow.collector.inlet.KafkaRawSinkTest;
import io.vecflow.collector.inlet.UdpInlet;
import io.vecflow.collector.outlet.KafkaOutlet;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.collector.sink.clickhouse.ClickHouseSink;
import io.vecflow.collector.sink.clickhouse.ClickHouseSinkTestSupport;
import io.vecflow.collector.sink.clickhouse.LossRecorder;
import io.vecflow.collector.sink.clickhouse.RowBinaryWriterTest;
import io.vecflow.collector.sink.json.JsonLinesSink;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the collector keeps through the faults a deployment meets, against the real ClickHouse and Kafka: a backlog
 * larger than the memory cap, ClickHouse away for longer than 30 s (outlet) and for a while (role all without
 * Kafka), ClickHouse away at start, Kafka away at start, the agents rows through a failed insert, replays after a
 * rebalance. ClickHouse "goes away" behind a {@link TestSupport.TcpRelay} (the shared server keeps running). Each
 * test checks the stored rows by their identity (agent, source, sample sequence): every row once.
 */
class FaultToleranceTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final List<String> DATABASES = new ArrayList<>();

    @TempDir
    Path tmp;

    @AfterAll
    static void drop() throws Exception {
        for (String db : DATABASES) {
            ClickHouseSinkTestSupport.query("DROP DATABASE IF EXISTS " + db);
        }
    }

    private static String db(String what) {
        String db = "ft_" + what + "_" + TestSupport.suffix();
        DATABASES.add(db);
        return db;
    }

    private static long q(String sql) throws Exception {
        return Long.parseLong(ClickHouseSinkTestSupport.query(sql + " FORMAT TabSeparated").trim());
    }

    private static long tableCount(String db, String table) throws Exception {
        long exists = q("SELECT count() FROM system.tables WHERE database = '" + db + "' AND name = '" + table + "'");
        return exists == 0 ? 0 : q("SELECT count() FROM " + db + "." + table);
    }

    /** Stored flows rows and how many distinct (agent, source, sample sequence) they hold. */
    private static long[] storedAndUnique(String db) throws Exception {
        String[] f = ClickHouseSinkTestSupport.query("SELECT count(), uniqExact(AgentAddress, SourceIdIndex, "
                + "SampleSequence) FROM " + db + ".flows FORMAT TabSeparated").trim().split("\t");
        return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
    }

    private static URI chUri() {
        return URI.create(TestSupport.clickhouseUrl());
    }

    /** Writes {@code n} datagrams round-robin over the agents straight into the raw topic. */
    private static void produce(String topic, SyntheticAgents agents, int n) throws Exception {
        try (KafkaRawSink raw = new KafkaRawSink(TestSupport.kafkaBootstrap(), topic, 2)) {
            byte[] src = TestSupport.addr16("127.0.0.1");
            for (int i = 0; i < n; i++) {
                byte[] d = agents.next(i % agents.agents());
                raw.accept(d, 0, d.length, EpochNanos.now(), src, 6343);
            }
            raw.flush();
            assertThat(raw.failed()).isZero();
        }
    }

    private Collector.Settings outlet(String db, String topic, String chUrl) {
        Collector.Settings s = new Collector.Settings();
        s.role = Collector.Role.OUTLET;
        s.kafkaBootstrap = TestSupport.kafkaBootstrap();
        s.kafkaRawTopic = topic;
        s.kafkaConsumerGroup = "ft-" + topic;
        s.clickhouseUrl = chUrl;
        s.clickhouseDatabase = db;
        s.clickhouseFlushMs = 200;
        s.waitForServices = false;
        return s;
    }

    /**
     * Item 1: an outlet reading a backlog whose rows are many times the memory cap stores every row once: it
     * flushes and commits by the rows it holds (not by records), so pending bytes stay under the cap and nothing is
     * dropped. (Before: rows beyond max-pending-bytes were dropped and their offsets committed.)
     */
    @Test
    void anOutletCatchingUpABacklogStoresEveryRowWithMemoryUnderTheCap() throws Exception {
        String db = db("backlog");
        String topic = "vecflow-ft-backlog-" + TestSupport.suffix();
        SyntheticAgents agents = new SyntheticAgents(4, 4);
        produce(topic, agents, 20_000); // 80,000 rows, ~14 MB of flows rows
        Collector.Settings s = outlet(db, topic, TestSupport.clickhouseUrl());
        s.clickhouseMaxPendingBytes = 256 << 10;
        s.clickhouseBatchRows = 1_000_000; // only the byte cap makes it flush
        s.waitForServices = true;
        long peak = 0;
        try (Collector c = new Collector(s)) {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (tableCount(db, "flows") < agents.samples() && System.nanoTime() < deadline) {
                peak = Math.max(peak, c.clickhouse().pendingBytes());
                Thread.sleep(5);
            }
            assertThat(c.outlet().commits()).as("commits sized by rows, not records").isGreaterThan(20);
            TestSupport.await("lag 0", WAIT, () -> c.outlet().lag() == 0);
        }
        assertThat(storedAndUnique(db)).containsExactly(agents.samples(), agents.samples());
        // Per table at most the cap (the outlet flushes at half of it) plus one datagram's rows, and one in insert.
        assertThat(peak).isLessThanOrEqualTo(2L * (256 << 10) + 65536);
        assertThat(q("SELECT sum(Datagrams) FROM " + db + ".agents WHERE SampleFamily = 255"))
                .isEqualTo(agents.datagrams());
        assertThat(q("SELECT sum(DatagramsLost) + sum(DatagramsReordered) FROM " + db + ".agents")).isZero();
    }

    /**
     * Items 2, 6 and 11: ClickHouse away for 35 s under an outlet: the outlet keeps retrying (it used to give up
     * after ~30 s, leaving a live process that consumed nothing with lag 0), its lag grows while it is paused, its
     * state and readiness say it is stuck, and when ClickHouse is back every row lands once, with no row counted as
     * failed and no replay counted as reordering. The outlet also starts while ClickHouse is away.
     */
    @Test
    void anOutletRidesOutAClickHouseOutageLongerThanThirtySeconds() throws Exception {
        String db = db("outage");
        String topic = "vecflow-ft-outage-" + TestSupport.suffix();
        SyntheticAgents agents = new SyntheticAgents(2, 2);
        int port = TestSupport.closedPort();
        Collector.Settings s = outlet(db, topic, "http://127.0.0.1:" + port);
        produce(topic, agents, 1000);
        // ClickHouse is away at start: the outlet starts anyway and waits.
        try (Collector c = new Collector(s)) {
            Thread.sleep(2000);
            assertThat(c.outlet().isAlive()).isTrue();
            assertThat(c.clickhouse().connected()).isFalse();
            TestSupport.await("lag to show the 1000 records", WAIT, () -> c.outlet().lag() == 1000);
            try (TestSupport.TcpRelay relay = new TestSupport.TcpRelay(port, chUri().getHost(), chUri().getPort())) {
                TestSupport.await("the first 1000 datagrams stored", WAIT, () -> {
                    try {
                        return tableCount(db, "flows") == 2000;
                    } catch (Exception e) {
                        return false;
                    }
                });
                TestSupport.await("lag 0", WAIT, () -> c.outlet().lag() == 0);
            }
            // Away now, mid-run, for 35 s while records keep coming.
            produce(topic, agents, 1000);
            long end = System.nanoTime() + 35_000_000_000L;
            boolean sawRetrying = false;
            while (System.nanoTime() < end) {
                sawRetrying |= c.outlet().state() == KafkaOutlet.State.RETRYING;
                Thread.sleep(200);
            }
            assertThat(sawRetrying).isTrue();
            assertThat(c.outlet().isAlive()).as("the outlet thread never gives up").isTrue();
            assertThat(c.outlet().state()).isEqualTo(KafkaOutlet.State.RETRYING);
            assertThat(c.outlet().lag()).as("the lag tells the truth while paused").isEqualTo(1000);
            assertThat(c.outlet().secondsSinceCommit()).isGreaterThan(30);
            assertThat(c.clickhouse().retrying()).isTrue();
            try (TestSupport.TcpRelay relay = new TestSupport.TcpRelay(port, chUri().getHost(), chUri().getPort())) {
                // Backoff is capped at 30 s: within that, it stores again by itself.
                long deadline = System.nanoTime() + 45_000_000_000L;
                while (tableCount(db, "flows") < 4000 && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                TestSupport.await("lag 0 again", WAIT, () -> c.outlet().lag() == 0
                        && c.outlet().state() == KafkaOutlet.State.CONSUMING);
                assertThat(c.clickhouse().rowsFailed()).isZero();
                assertThat(c.clickhouse().insertFailures()).isPositive();
            }
        }
        assertThat(storedAndUnique(db)).containsExactly(4000L, 4000L);
        assertThat(q("SELECT sum(Datagrams) FROM " + db + ".agents WHERE SampleFamily = 255")).isEqualTo(2000);
        assertThat(q("SELECT sum(DatagramsReordered) + sum(DatagramsLost) + sum(DatagramsDuplicated) FROM " + db
                + ".agents")).as("no replay counted as reordering or loss").isZero();
        assertThat(q("SELECT sum(Samples) FROM " + db + ".agents WHERE SampleFamily = 0")).isEqualTo(4000);
    }

    /**
     * An outlet whose broker does not answer says so (state BROKER_UNREACHABLE, so not ready; the lag's age grows
     * while the lag holds its last reading) instead of "consuming, lag 0", and consumes by itself once the broker
     * answers. The broker is reached through a relay on a closed port, started 8 s in.
     */
    @Test
    void anOutletWithoutABrokerSaysSoAndConsumesOnceItAnswers() throws Exception {
        String db = db("nobroker");
        String topic = "vecflow-ft-nobroker-" + TestSupport.suffix();
        SyntheticAgents agents = new SyntheticAgents(2, 2);
        produce(topic, agents, 500);
        int port = TestSupport.closedPort();
        Collector.Settings s = outlet(db, topic, TestSupport.clickhouseUrl());
        s.kafkaBootstrap = "127.0.0.1:" + port;
        try (Collector c = new Collector(s)) {
            TestSupport.await("the outlet to say the broker is away", WAIT,
                    () -> c.outlet().state() == KafkaOutlet.State.BROKER_UNREACHABLE);
            assertThat(c.outlet().isAlive()).isTrue();
            assertThat(c.outlet().lagKnown()).isFalse();
            assertThat(c.outlet().lagAgeSeconds()).isGreaterThan(KafkaOutlet.BROKER_GRACE_S);
            String metrics = TestSupport.scrape(c);
            assertThat(metrics).contains("vecflow_collector_ready{stage=\"outlet\"} 0.0")
                    .contains("vecflow_kafka_outlet_state{state=\"broker_unreachable\"} 1.0");
            URI kafka = URI.create("kafka://" + TestSupport.kafkaBootstrap());
            try (TestSupport.TcpRelay relay = new TestSupport.TcpRelay(port, kafka.getHost(), kafka.getPort())) {
                TestSupport.await("every datagram stored", WAIT, () -> {
                    try {
                        return tableCount(db, "flows") == 1000;
                    } catch (Exception e) {
                        return false;
                    }
                });
                TestSupport.await("consuming, lag 0, read just now", WAIT,
                        () -> c.outlet().state() == KafkaOutlet.State.CONSUMING && c.outlet().lag() == 0
                                && c.outlet().lagKnown() && c.outlet().lagAgeSeconds() < 2);
            }
        }
        assertThat(storedAndUnique(db)).containsExactly(1000L, 1000L);
    }

    /**
     * Item 4: role all without Kafka while ClickHouse is away: the batch is kept and retried (it used to be thrown
     * away after 3 attempts, ~1.4 s), rows queue up to the memory cap, and the datagrams beyond it are spooled to
     * disk and decoded when ClickHouse is back: every row once.
     */
    @Test
    void roleAllWithoutKafkaKeepsItsRowsAndSpoolsBeyondTheCapWhileClickHouseIsAway() throws Exception {
        String db = db("allout");
        SyntheticAgents agents = new SyntheticAgents(2, 3);
        int port = TestSupport.closedPort();
        Collector.Settings s = new Collector.Settings();
        s.bindAddress = "127.0.0.1";
        s.port = 0;
        s.threads = 1;
        s.clickhouseUrl = "http://127.0.0.1:" + port;
        s.clickhouseDatabase = db;
        s.clickhouseFlushMs = 100;
        s.clickhouseMaxPendingBytes = 128 << 10;
        s.lossIntervalMs = 500;
        s.spoolDirectory = tmp.resolve("spool");
        s.spoolSegmentBytes = 1 << 20;
        s.spoolMaxBytes = 64 << 20;
        s.waitForServices = false;
        try (TestSupport.TcpRelay first = new TestSupport.TcpRelay(port, chUri().getHost(), chUri().getPort());
                Collector c = new Collector(s); TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            TestSupport.await("connected", WAIT, () -> c.clickhouse().connected());
            List<byte[]> batch = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                batch.add(agents.next(i % 2));
            }
            tx.sendPaced(batch, 32, () -> c.stats().datagramsReceived.sum());
            TestSupport.await("stored", WAIT, () -> c.clickhouse().rowsWritten() == 3000);
            first.close(); // ClickHouse away
            batch.clear();
            for (int i = 0; i < 4000; i++) { // 12,000 rows: several times the 128 KiB cap
                batch.add(agents.next(i % 2));
            }
            tx.sendPaced(batch, 32, () -> c.stats().datagramsReceived.sum());
            TestSupport.await("received", WAIT, () -> c.stats().datagramsReceived.sum() == 5000);
            // more failed inserts than the old 3 attempts allowed, counted as they happen (no fixed pause)
            TestSupport.await("more than 3 failed inserts", WAIT, () -> c.clickhouse().insertFailures() > 3);
            assertThat(c.clickhouse().retrying()).isTrue();
            assertThat(c.spooler().spooled()).as("beyond the cap, datagrams go to the spool").isPositive();
            assertThat(c.spooler().lost()).isZero();
            assertThat(c.clickhouse().rowsWritten()).isEqualTo(3000);
            try (TestSupport.TcpRelay back = new TestSupport.TcpRelay(port, chUri().getHost(), chUri().getPort())) {
                TestSupport.await("every row stored", Duration.ofSeconds(15),
                        () -> c.clickhouse().rowsWritten() == 15_000 && !c.spooler().spooling(),
                        () -> "(written " + c.clickhouse().rowsWritten() + ", spooled " + c.spooler().spooled()
                                + ", replayed " + c.spooler().replayed() + ")");
                c.flush();
            }
        }
        assertThat(storedAndUnique(db)).containsExactly(15_000L, 15_000L);
        assertThat(q("SELECT sum(Datagrams) FROM " + db + ".agents WHERE SampleFamily = 255")).isEqualTo(5000);
        assertThat(q("SELECT sum(DatagramsLost) + sum(DatagramsReordered) FROM " + db + ".agents")).isZero();
    }

    /**
     * Item 5: the agents rows of a period whose insert failed are not lost: the next insert carries the increase
     * over both periods. (Before: the baseline moved before the insert, so the period's counts vanished.)
     */
    @Test
    void agentsRowsKeepTheirCountsThroughAFailedInsert() throws Exception {
        String db = db("agents");
        try (ClickHouseSink sink = new ClickHouseSink(TestSupport.clickhouseUrl(), "default", "", db, 1000,
                3_600_000)) {
            CollectorStats st = new CollectorStats();
            DatagramProcessor p = new DatagramProcessor(st.decode, st, List.of(), List.of());
            LossRecorder rec = new LossRecorder(st.loss, sink, 0);
            SyntheticAgents agents = new SyntheticAgents(1, 1);
            byte[] peer = new byte[16];
            for (int i = 0; i < 10; i++) {
                byte[] d = agents.next(0);
                p.process(d, 0, d.length, EpochNanos.now(), peer, 1);
            }
            rec.record();
            for (int i = 0; i < 5; i++) {
                byte[] d = agents.next(0);
                p.process(d, 0, d.length, EpochNanos.now(), peer, 1);
            }
            sink.failInsertsForTest = true;
            org.assertj.core.api.Assertions.assertThatThrownBy(rec::record).isInstanceOf(java.io.IOException.class);
            sink.failInsertsForTest = false;
            for (int i = 0; i < 3; i++) {
                byte[] d = agents.next(0);
                p.process(d, 0, d.length, EpochNanos.now(), peer, 1);
            }
            rec.record();
            assertThat(rec.failures()).isEqualTo(1);
        }
        assertThat(q("SELECT sum(Datagrams) FROM " + db + ".agents WHERE SampleFamily = 255")).isEqualTo(18);
        assertThat(q("SELECT sum(Samples) FROM " + db + ".agents WHERE SampleFamily = 0")).isEqualTo(18);
        assertThat(q("SELECT count() FROM " + db + ".agents WHERE SampleFamily = 255")).isEqualTo(2);
    }

    /**
     * An agents insert that landed but whose answer was lost is not written again: the next insert first asks the
     * table for one of its rows (by the ingest offset it carries) and, finding it, counts it as stored.
     */
    @Test
    void anAgentsInsertThatLandedButReportedFailureIsNotWrittenTwice() throws Exception {
        String db = db("agentsunsure");
        try (ClickHouseSink sink = new ClickHouseSink(TestSupport.clickhouseUrl(), "default", "", db, 1000,
                3_600_000)) {
            CollectorStats st = new CollectorStats();
            DatagramProcessor p = new DatagramProcessor(st.decode, st, List.of(), List.of());
            LossRecorder rec = new LossRecorder(st.loss, sink, 0);
            SyntheticAgents agents = new SyntheticAgents(2, 1);
            byte[] peer = new byte[16];
            for (int i = 0; i < 10; i++) {
                byte[] d = agents.next(i % 2);
                p.process(d, 0, d.length, EpochNanos.now(), peer, 1);
            }
            sink.failRowsAfterInsertForTest = 1;
            org.assertj.core.api.Assertions.assertThatThrownBy(rec::record).isInstanceOf(java.io.IOException.class);
            for (int i = 0; i < 4; i++) {
                byte[] d = agents.next(i % 2);
                p.process(d, 0, d.length, EpochNanos.now(), peer, 1);
            }
            rec.record();
            assertThat(rec.foundStored()).isEqualTo(1);
        }
        assertThat(q("SELECT sum(Datagrams) FROM " + db + ".agents WHERE SampleFamily = 255")).isEqualTo(14);
        assertThat(q("SELECT sum(Samples) FROM " + db + ".agents WHERE SampleFamily = 0")).isEqualTo(14);
    }

    /**
     * Item 6 (replays): a second outlet in the group takes partitions over from the first, which takes them back
     * when it stops: every datagram is stored once and counted once in the agents table (never as reordering), and
     * the two outlets' JSON-lines files hold each row once.
     */
    @Test
    void partitionsMovingBetweenOutletsStoreAndCountEveryDatagramOnce() throws Exception {
        String db = db("rebalance");
        String topic = "vecflow-ft-rebalance-" + TestSupport.suffix();
        SyntheticAgents agents = new SyntheticAgents(4, 2);
        produce(topic, agents, 2000);
        Collector.Settings a = outlet(db, topic, TestSupport.clickhouseUrl());
        a.jsonLines = tmp.resolve("a.jsonl");
        a.waitForServices = true;
        try (Collector first = new Collector(a)) {
            TestSupport.await("first outlet stores", WAIT, () -> {
                try {
                    return tableCount(db, "flows") == 4000;
                } catch (Exception e) {
                    return false;
                }
            });
            Collector.Settings b = outlet(db, topic, TestSupport.clickhouseUrl());
            b.jsonLines = tmp.resolve("b.jsonl");
            b.waitForServices = true;
            try (Collector second = new Collector(b)) {
                produce(topic, agents, 2000);
                TestSupport.await("both store", WAIT, () -> {
                    try {
                        return tableCount(db, "flows") >= 8000;
                    } catch (Exception e) {
                        return false;
                    }
                });
            }
            produce(topic, agents, 1000);
            TestSupport.await("the first outlet alone again", WAIT, () -> {
                try {
                    return tableCount(db, "flows") >= 10_000 && first.outlet().lag() == 0;
                } catch (Exception e) {
                    return false;
                }
            });
            first.flush();
        }
        assertThat(storedAndUnique(db)).containsExactly(10_000L, 10_000L);
        assertThat(q("SELECT sum(Datagrams) FROM " + db + ".agents WHERE SampleFamily = 255")).isEqualTo(5000);
        assertThat(q("SELECT sum(DatagramsReordered) + sum(DatagramsDuplicated) FROM " + db + ".agents")).isZero();
        long a1 = Files.readAllLines(tmp.resolve("a.jsonl")).size(), b1 = Files.readAllLines(tmp.resolve("b.jsonl"))
                .size();
        assertThat(a1 + b1).as("JSON lines of both outlets: each row once").isEqualTo(10_000);
    }

    /**
     * Items 3 and 11: the inlet starts while Kafka cannot be reached and never blocks on it: every datagram is
     * received at once (no kernel drops), spooled, and delivered in order once the broker answers.
     */
    @Test
    void anInletStartsWithKafkaAwayAndDeliversEverySpooledDatagramInOrder() throws Exception {
        String topic = "vecflow-ft-inlet-" + TestSupport.suffix();
        int port = TestSupport.closedPort();
        String[] real = TestSupport.kafkaBootstrap().split(":");
        Collector.Settings s = new Collector.Settings();
        s.role = Collector.Role.INLET;
        s.bindAddress = "127.0.0.1";
        s.port = 0;
        s.threads = 1;
        s.kafkaBootstrap = "127.0.0.1:" + port; // a relay to the broker, down at first
        s.kafkaRawTopic = topic;
        s.kafkaPartitions = 1;
        s.spoolDirectory = tmp.resolve("spool");
        s.spoolSegmentBytes = 1 << 20;
        s.waitForServices = false;
        SyntheticAgents agents = new SyntheticAgents(1, 1);
        List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            sent.add(agents.next(0));
        }
        try (Collector c = new Collector(s); TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            long t0 = System.nanoTime();
            tx.sendPaced(sent, 64, () -> c.stats().datagramsReceived.sum());
            TestSupport.await("all received", WAIT, () -> c.stats().datagramsReceived.sum() == 5000);
            assertThat((System.nanoTime() - t0) / 1_000_000).as("receiving never waited for Kafka").isLessThan(5000);
            assertThat(c.spooler().spooled()).isEqualTo(5000);
            assertThat(c.inlet().socketDrops()).isZero();
            try (TestSupport.TcpRelay relay = new TestSupport.TcpRelay(port, real[0], Integer.parseInt(real[1]))) {
                TestSupport.await("the spool drained into Kafka", Duration.ofSeconds(15),
                        () -> c.kafkaRaw().written() == 5000, () -> "(written " + c.kafkaRaw().written()
                                + ", spooled " + c.spooler().heldDatagrams() + ")");
            }
        }
        List<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>> got =
                KafkaRawSinkTest.consumeAll(TestSupport.kafkaBootstrap(), topic, 5000);
        assertThat(got).hasSize(5000);
        for (int i = 0; i < 5000; i++) {
            assertThat(got.get(i).value()).as("datagram %d in arrival order", i).isEqualTo(sent.get(i));
        }
    }

    /**
     * Item 6 (socket drops): datagrams the kernel drops at the collector's own socket are counted: with a tiny
     * receive buffer and a decoder held up, sent = received + socket drops, exactly.
     */
    @Test
    void kernelDropsAtTheCollectorsSocketAreCountedExactly() throws Exception {
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        CollectorStats st = new CollectorStats();
        java.util.concurrent.atomic.AtomicLong seen = new java.util.concurrent.atomic.AtomicLong();
        FlowSink slow = new FlowSink() {
            @Override
            public void accept(FlowRow row) {
                try {
                    hold.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                seen.incrementAndGet();
            }

            @Override
            public void flush() {}

            @Override
            public long rowsWritten() {
                return seen.get();
            }

            @Override
            public long rowsFailed() {
                return 0;
            }

            @Override
            public String name() {
                return "slow";
            }

            @Override
            public void close() {}
        };
        SyntheticAgents agents = new SyntheticAgents(1, 1);
        try (UdpInlet in = new UdpInlet(new java.net.InetSocketAddress("127.0.0.1", 0), 1, 65536,
                () -> new DatagramProcessor(st.decode, st, List.of(), List.of(slow)));
                TestSupport.Sender tx = new TestSupport.Sender(in.localAddress())) {
            int n = 3000;
            for (int i = 0; i < n; i++) {
                tx.send(agents.next(0));
            }
            long drops = in.socketDrops();
            hold.countDown();
            TestSupport.await("what the socket held is processed", WAIT,
                    () -> st.datagramsReceived.sum() + in.socketDrops() == n,
                    () -> "(received " + st.datagramsReceived.sum() + ", socket drops " + in.socketDrops() + ")");
            assertThat(drops).as("a 64 KiB buffer cannot hold 3000 datagrams").isPositive();
            // One more datagram after the drops shows them as a sequence gap: the agents gap is the socket drops.
            tx.send(agents.next(0));
            TestSupport.await("the last one", WAIT, () -> st.datagramsReceived.sum() + in.socketDrops() == n + 1);
            assertThat(st.loss.totals()[1]).as("the agents gap is the socket drops").isEqualTo(in.socketDrops());
        }
    }

    /**
     * Item 6 (JSON lines): rows of offsets a JSON-lines sink already wrote, replayed after its partition is
     * assigned again (a replay from the committed offsets), are skipped: each row once in the file.
     */
    @Test
    void aJsonLinesSinkSkipsReplayedOffsetsAfterAnAssignment() throws Exception {
        Path f = tmp.resolve("replay.jsonl");
        FlowRow r = RowBinaryWriterTest.sampleRow();
        try (JsonLinesSink sink = new JsonLinesSink(f)) {
            for (int i = 1; i <= 10; i++) {
                r.ingestStream = 3;
                r.ingestOffset = i;
                sink.accept(r);
            }
            sink.assigned(new long[] {3});
            for (int i = 5; i <= 15; i++) { // the outlet replays from its committed offset 5
                r.ingestStream = 3;
                r.ingestOffset = i;
                sink.accept(r);
            }
            assertThat(sink.rowsReplaySkipped()).isEqualTo(6);
        }
        assertThat(Files.readAllLines(f)).hasSize(15);
    }
}
