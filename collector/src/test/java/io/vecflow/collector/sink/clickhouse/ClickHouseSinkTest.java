package io.vecflow.collector.sink.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.TestSupport;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.schema.FlowSchema;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link ClickHouseSink} against the real test ClickHouse (18.16 on the test machines; {@code
 * VECFLOW_TEST_CLICKHOUSE_URL}, started by scripts/test.sh). Each run uses its own database, dropped at the end.
 */
class ClickHouseSinkTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static String url;
    private static String db;

    @BeforeAll
    static void names() {
        url = TestSupport.clickhouseUrl();
        db = "vecflow_test_" + TestSupport.suffix();
    }

    @AfterAll
    static void dropDatabases() throws Exception {
        if (db == null) {
            return;
        }
        try (ClickHouseSink admin = new ClickHouseSink(url, "default", "", db, 10, 3_600_000)) {
            admin.execute("DROP DATABASE IF EXISTS " + db);
            admin.execute("DROP DATABASE IF EXISTS " + db + "_dropped");
        }
    }

    /** Five rows with different values in every column: IPv4-mapped and IPv6 addresses, u32 maxima, zeros. */
    static List<FlowRow> rows() {
        List<FlowRow> out = new ArrayList<>();
        String[][] addrs = {
            {"49.49.49.49", "127.0.0.1", "52.52.52.52", "53.53.53.53"},
            {"30::1:1:1", "::1", "2001:db8:4::1", "2001:db8:4::3"},
            {"172.16.0.17", "10.1.2.3", "fe80::d05b:45ff:feee:5ecf", "2001:db8::"},
            {"255.255.255.255", "0.0.0.0", "0.0.0.0", "0.0.0.0"},
            {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "192.0.2.1", "198.51.100.7", "203.0.113.9"},
        };
        for (int i = 0; i < addrs.length; i++) {
            FlowRow r = RowBinaryWriterTest.sampleRow();
            r.sampleType = FlowRow.FLOW; // discards go to the drops table
            r.discardReason = 0;
            r.forwardingStatus = 64;
            r.ingestOffset = i + 1;
            r.timeReceivedNanos = RowBinaryWriterTest.T_NS + i * 1_500_000_123L;
            System.arraycopy(TestSupport.addr16(addrs[i][0]), 0, r.agentAddress, 0, 16);
            System.arraycopy(TestSupport.addr16(addrs[i][1]), 0, r.peerAddress, 0, 16);
            System.arraycopy(TestSupport.addr16(addrs[i][2]), 0, r.srcAddr, 0, 16);
            System.arraycopy(TestSupport.addr16(addrs[i][3]), 0, r.dstAddr, 0, 16);
            r.sampleSequence = i;
            r.subAgentId = i == 3 ? 0xFFFF_FFFFL : 100_000 + i;
            r.samplingRate = i == 3 ? 0 : 1L << (i + 8);
            r.inIf = i == 4 ? 0x3FFF_FFFFL : 29001 + i;
            r.outIf = i == 4 ? 0xFFFF_FFFFL : 1_285_816_721L + i;
            r.srcMac = i == 3 ? 0xFFFF_FFFF_FFFFL : r.srcMac + i;
            r.vlan = i == 3 ? 4095 : 809 + i;
            r.srcPort = i == 3 ? 65535 : 22 + i;
            r.tcpFlags = i * 3;
            r.ttl = i == 3 ? 0 : 255 - i;
            r.bytes = i == 3 ? Long.MAX_VALUE : 1518L * (i + 1);
            out.add(r);
        }
        return out;
    }

    static final String SELECT = "toUInt32(TimeReceived), TimeReceivedNanos, IPv6NumToString(AgentAddress), "
            + "IPv6NumToString(PeerAddress), SubAgentId, DatagramSequence, SampleSequence, SourceIdType, "
                    + "SourceIdIndex, "
            + "SamplingRate, SamplePool, Drops, InIfFormat, InIf, OutIfFormat, OutIf, HeaderProtocol, FrameLength, "
            + "SrcMAC, DstMAC, Vlan, EType, IPv6NumToString(SrcAddr), IPv6NumToString(DstAddr), Proto, SrcPort, "
                    + "DstPort, "
            + "TCPFlags, IPTos, IPTTL, Bytes, Packets";

    /** @return the TabSeparated line ClickHouse should return for {@link #SELECT} of this row. */
    static String expectedLine(FlowRow r) {
        return String.join("\t", List.of(
                Long.toString(r.timeReceivedNanos / 1_000_000_000L), Long.toString(r.timeReceivedNanos),
                ch(r.agentAddress), ch(r.peerAddress), Long.toString(r.subAgentId), Long.toString(r.datagramSequence),
                Long.toString(r.sampleSequence), Integer.toString(r.sourceIdType), Long.toString(r.sourceIdIndex),
                Long.toString(r.samplingRate), Long.toString(r.samplePool), Long.toString(r.drops),
                Integer.toString(r.inIfFormat), Long.toString(r.inIf), Integer.toString(r.outIfFormat),
                Long.toString(r.outIf), Long.toString(r.headerProtocol), Long.toString(r.frameLength),
                Long.toUnsignedString(r.srcMac), Long.toUnsignedString(r.dstMac), Integer.toString(r.vlan),
                Integer.toString(r.etherType), ch(r.srcAddr), ch(r.dstAddr), Integer.toString(r.protocol),
                Integer.toString(r.srcPort), Integer.toString(r.dstPort), Integer.toString(r.tcpFlags),
                Integer.toString(r.tos), Integer.toString(r.ttl), Long.toUnsignedString(r.bytes),
                Long.toUnsignedString(r.packets)));
    }

    /** ClickHouse's IPv6NumToString: IPv4-mapped as ::ffff:a.b.c.d, :: for all zeros, else RFC 5952. */
    static String ch(byte[] a16) {
        String s = TestSupport.addr(a16);
        if (s.isEmpty()) {
            return "::";
        }
        return s.contains(":") ? s : "::ffff:" + s;
    }

    @Test
    void createsTheTableForTheServerAndRoundTripsEveryColumnInTwoBatches() throws Exception {
        try (ClickHouseSink sink = new ClickHouseSink(url, "default", "", db, 3, 3_600_000)) {
            String version = sink.queryString("SELECT version() FORMAT TabSeparated").trim();
            assertThat(sink.features()).isEqualTo(FlowSchema.ServerFeatures.fromVersion(version));
            String ddl = sink.queryString("SHOW CREATE TABLE " + db + ".flows FORMAT TabSeparated");
            if (sink.features().ipv6Type()) {
                assertThat(ddl).contains("AgentAddress IPv6").doesNotContain("FixedString(16)");
            } else { // ClickHouse 18.16, the test machines' server
                assertThat(version).startsWith("18.");
                assertThat(ddl).contains("AgentAddress FixedString(16)").contains("SrcAddr FixedString(16)")
                        .contains("DstAddr FixedString(16)").doesNotContain("IPv6").doesNotContain("CODEC");
            }
            assertThat(sink.queryString("SELECT name FROM system.columns WHERE database = '" + db
                    + "' AND table = 'flows' FORMAT TabSeparated").lines().toList())
                    .isEqualTo(FlowSchema.FLOWS.stream().map(FlowSchema.Column::name).toList());

            List<FlowRow> rows = rows();
            // Batch 1: batchRows = 3 triggers an insert on the sink's own thread.
            for (int i = 0; i < 3; i++) {
                sink.accept(rows.get(i));
            }
            TestSupport.await("the batchRows-triggered insert", WAIT, () -> sink.rowsWritten() == 3,
                    () -> "(written " + sink.rowsWritten() + ", failed " + sink.rowsFailed() + ")");
            assertThat(sink.inserts()).isEqualTo(1);
            assertThat(count(sink)).isEqualTo(3);
            // Batch 2: two rows, inserted by flush().
            sink.accept(rows.get(3));
            sink.accept(rows.get(4));
            assertThat(sink.rowsWritten()).isEqualTo(3);
            sink.flush();
            assertThat(sink.rowsWritten()).isEqualTo(5);
            assertThat(sink.rowsFailed()).isZero();
            assertThat(sink.inserts()).isEqualTo(2);
            sink.flush(); // nothing pending: no empty insert
            assertThat(sink.inserts()).isEqualTo(2);

            List<String> got = sink.queryString("SELECT " + SELECT + " FROM " + db + ".flows ORDER BY SampleSequence "
                    + "FORMAT TabSeparated").lines().toList();
            assertThat(got).containsExactlyElementsOf(rows.stream().map(ClickHouseSinkTest::expectedLine).toList());
            // Spot checks written out by hand, independent of expectedLine().
            assertThat(got.get(1).split("\t")[2]).isEqualTo("30::1:1:1");
            assertThat(got.get(0).split("\t")[2]).isEqualTo("::ffff:49.49.49.49");
            assertThat(got.get(0).split("\t")[15]).isEqualTo("1285816721");
            assertThat(got.get(4).split("\t")[15]).isEqualTo("4294967295");
            assertThat(got.get(3).split("\t")[30]).isEqualTo("9223372036854775807");
        }
    }

    private long count(ClickHouseSink sink) throws IOException {
        return Long.parseLong(sink.queryString("SELECT count() FROM " + db + ".flows FORMAT TabSeparated").trim());
    }

    @Test
    void aClosedPortFailsTheConstructorNamingTheUrl() throws Exception {
        String bad = "http://127.0.0.1:" + TestSupport.closedPort();
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> new ClickHouseSink(bad, "default", "", db + "_never", 10, 1000))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(bad);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(WAIT);
    }

    @Test
    void insertsIntoADroppedTableAreKeptAndRetriedUntilTheTableIsBack() throws Exception {
        String dropped = db + "_dropped";
        try (ClickHouseSink sink = new ClickHouseSink(url, "default", "", dropped, 2, 3_600_000)) {
            sink.execute("DROP TABLE " + dropped + ".flows");
            List<FlowRow> rows = rows();
            // flush() reports the failure to its caller; the rows stay queued.
            sink.accept(rows.get(0));
            assertThatThrownBy(sink::flush).isInstanceOf(IOException.class)
                    .hasMessageContaining("1 rows")
                    .hasMessageContaining(dropped + ".flows");
            assertThat(sink.rowsRetrying()).isEqualTo(1);
            assertThat(sink.retrying()).isTrue();
            assertThat(sink.insertFailures()).isEqualTo(2); // the attempt and its quick retry
            assertThat(sink.rowsWritten()).isZero();
            // Rows that come meanwhile queue behind the kept batch; a batchRows-triggered insert retries it (counted
            // and logged), nothing is dropped.
            sink.accept(rows.get(1));
            sink.accept(rows.get(2));
            assertThat(sink.rowsPending()).isEqualTo(3);
            assertThat(sink.rowsWritten()).isZero();
            assertThat(sink.inserts()).isZero();
            assertThat(sink.rowsFailed()).isZero();
            // Once the table is back, everything lands, in order, once.
            sink.execute(FlowSchema.createFlows(dropped, sink.features(), 15));
            sink.accept(rows.get(3));
            sink.flush();
            assertThat(sink.rowsWritten()).isEqualTo(4);
            assertThat(sink.rowsPending()).isZero();
            assertThat(sink.retrying()).isFalse();
            assertThat(Long.parseLong(sink.queryString("SELECT count() FROM " + dropped
                    + ".flows FORMAT TabSeparated").trim())).isEqualTo(4);
        }
    }

    @Test
    void aSinkThatCannotReachClickHouseStartsAndConnectsLater() throws Exception {
        // Starts against a port where nothing listens yet, queues rows, and stores them once the server answers.
        int port = TestSupport.closedPort();
        ClickHouseSink.Settings s = ClickHouseSink.Settings.of("http://127.0.0.1:" + port);
        s.database = db + "_late";
        s.waitForServer = false;
        s.flushMs = 50;
        try (ClickHouseSink sink = new ClickHouseSink(s)) {
            assertThat(sink.connected()).isFalse();
            sink.accept(rows().get(0));
            Thread.sleep(300);
            assertThat(sink.rowsPending()).isEqualTo(1);
            assertThat(sink.canAccept()).isTrue();
            // A TCP relay on that port to the real server stands for "ClickHouse came up".
            java.net.URI real = java.net.URI.create(url);
            try (TestSupport.TcpRelay relay = new TestSupport.TcpRelay(port, real.getHost(), real.getPort())) {
                TestSupport.await("the sink to connect and insert", Duration.ofSeconds(15),
                        () -> sink.rowsWritten() == 1, () -> "(connected " + sink.connected() + ", "
                                + sink.lastError() + ")");
            }
        }
    }
}
