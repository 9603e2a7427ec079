package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.sink.clickhouse.ClickHouseSinkTestSupport;
import io.vecflow.sflow.DatagramBuilder;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Loss accounting stored in ClickHouse's agents table (real ClickHouse 18.16). */
class AgentLossClickHouseTest {
    @Test
    void gapsAndDropsLandInAgentLoss() throws Exception {
        String db = "loss_" + TestSupport.suffix();
        Collector.Settings s = new Collector.Settings();
        s.bindAddress = "127.0.0.1";
        s.port = 0;
        s.threads = 1;
        s.clickhouseUrl = TestSupport.clickhouseUrl();
        s.clickhouseDatabase = db;
        s.lossIntervalMs = 3_600_000; // only the explicit flush writes
        try (Collector c = new Collector(s); TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            DatagramBuilder b = new DatagramBuilder(1400, new byte[] {10, 1, 2, 3}, 7);
            MemorySegment hdr = MemorySegment.ofArray(new byte[64]);
            int sent = 0;
            for (int seq = 1; seq <= 10; seq++) {
                b.reset();
                // one sample per datagram from source 0:5; sample sequence = datagram sequence; drops grows to 4
                b.addFlowSampleExpanded(seq, 0, 5, 100, seq * 100L, seq >= 8 ? 4 : 0, 0, 5, 0, 0, 1, 64, 4, hdr, 0,
                        60);
                int len = b.finish(seq, seq * 1000L);
                if (seq != 4 && seq != 5) { // two datagrams lost on the way
                    tx.send(java.util.Arrays.copyOf(b.buffer(), len));
                    sent++;
                }
            }
            final int n = sent;
            TestSupport.await("datagrams", Duration.ofSeconds(10), () -> c.stats().datagramsReceived.sum() == n);
            c.flush();
            String agent = ClickHouseSinkTestSupport.query("SELECT sum(Datagrams), sum(DatagramsLost), sum(Resets) "
                    + "FROM " + db + ".agents WHERE SampleFamily = 255 AND SubAgentId = 7 "
                    + "AND AgentAddress = IPv6StringToNum('::ffff:10.1.2.3') FORMAT TabSeparated");
            assertThat(agent.trim()).isEqualTo("8\t2\t0");
            String source = ClickHouseSinkTestSupport.query("SELECT SourceIdIndex, sum(Samples), sum(SamplesLost), "
                    + "sum(ReportedDrops) FROM " + db + ".agents WHERE SampleFamily = 0 GROUP BY SourceIdIndex "
                    + "FORMAT TabSeparated");
            assertThat(source.trim()).isEqualTo("5\t8\t2\t4");
            // A second flush with nothing new writes no rows.
            long before = c.lossRecorder().rowsWritten();
            c.flush();
            assertThat(c.lossRecorder().rowsWritten()).isEqualTo(before);
        } finally {
            ClickHouseSinkTestSupport.query("DROP DATABASE IF EXISTS " + db);
        }
    }
}
