package io.vecflow.collector.enrich;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.TestSupport;
import io.vecflow.collector.schema.InterfaceInfo;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The metadata cache's merge, background polling and row path. The remote source here is a scripted
 * {@link MetadataPoller} (the cache's contract; the real SNMP poller is tested against Debian's snmpd).
 */
class MetadataCacheTest {
    /** Answers from a table, or fails while {@link #down} is set; records what it was asked. */
    static final class ScriptedPoller implements MetadataPoller {
        final List<long[]> asked = Collections.synchronizedList(new ArrayList<>());
        final AtomicBoolean down = new AtomicBoolean();

        @Override
        public CompletableFuture<Answer> poll(InetAddress exporter, long[] ifIndexes) {
            asked.add(ifIndexes);
            if (down.get()) {
                return CompletableFuture.failedFuture(new java.io.IOException(exporter.getHostAddress()
                        + ": timeout after 1000 ms"));
            }
            Map<Long, StaticExporter.Interface> found = new java.util.HashMap<>();
            List<Long> missing = new ArrayList<>();
            for (long i : ifIndexes) {
                if (i < 100) {
                    found.put(i, new StaticExporter.Interface("ge-0/0/" + i, "uplink " + i, 1000, "", "", ""));
                } else {
                    missing.add(i);
                }
            }
            return CompletableFuture.completedFuture(new Answer("rtr1.snmp", found, missing));
        }

        @Override
        public void close() {}
    }

    private static MetadataCache.Settings fast() {
        MetadataCache.Settings s = new MetadataCache.Settings();
        s.checkMs = 20;
        s.failureBackoffMs = 200;
        return s;
    }

    private static void await(java.util.function.BooleanSupplier c) throws InterruptedException {
        long end = System.nanoTime() + 5_000_000_000L;
        while (!c.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within 5 s").isLessThan(end);
            Thread.sleep(10);
        }
    }

    @Test
    void staticFirstThenSnmpThenSflowFieldByFieldAndClassified() throws Exception {
        byte[] agent = TestSupport.addr16("192.0.2.1");
        StaticExporter st = new StaticExporter("192.0.2.0/24", new StaticExporter.Exporter("", "lab", "", "", "",
                ""), Map.of(1L, new StaticExporter.Interface("", "transit: ACME", 0, "", "", "")), null, 1);
        Classifier rules = Classifier.interfaces(List.of(new ClassifierRule(
                Map.of("description", "^transit:\\s*(\\w+)"),
                Map.of("boundary", "external", "provider", "$1"), 1)), "t");
        ScriptedPoller p = new ScriptedPoller();
        EnrichmentStats stats = new EnrichmentStats();
        try (MetadataCache c = new MetadataCache(fast(), List.of(st), Classifier.NONE, rules, p, stats)) {
            MetadataCache.Exporter e = c.exporter(agent, System.nanoTime());
            byte[] port = "xe-9/9/9".getBytes(StandardCharsets.US_ASCII);
            // sflow: name and speed
            c.learn(agent, 2, 25_000_000_000L, port, 0, port.length, null, 0, 0, System.nanoTime());
            assertThat(e.iface(2).name().text).isEqualTo("xe-9/9/9");
            assertThat(e.iface(2).speedMbps()).isEqualTo(25_000);
            InterfaceInfo first = e.iface(1); // a miss: static knows only the description; a poll is asked
            assertThat(first.name().text).isEmpty();
            assertThat(first.description().text).isEqualTo("transit: ACME");
            assertThat(first.boundary()).isEqualTo(InterfaceInfo.EXTERNAL);
            await(() -> e.iface(1).name().text.equals("ge-0/0/1"));
            InterfaceInfo one = e.iface(1);
            assertThat(one.description().text).as("static wins over SNMP").isEqualTo("transit: ACME");
            assertThat(one.speedMbps()).isEqualTo(1000);
            assertThat(one.provider().text).isEqualTo("acme");
            assertThat(e.info().name().text).isEqualTo("rtr1.snmp");
            assertThat(e.info().group().text).isEqualTo("lab");
            await(() -> e.iface(2).name().text.equals("ge-0/0/2"));
            assertThat(e.iface(2).speedMbps()).as("SNMP before sflow").isEqualTo(1000);
            assertThat(e.iface(500)).isEqualTo(InterfaceInfo.EMPTY);
            await(() -> stats.pollNotFound.sum() == 1);
        }
    }

    @Test
    void aFailingPollerBacksOffAndTheRowsGoOnWithEmptyMetadata() throws Exception {
        ScriptedPoller p = new ScriptedPoller();
        p.down.set(true);
        EnrichmentStats stats = new EnrichmentStats();
        try (MetadataCache c = new MetadataCache(fast(), List.of(), Classifier.NONE, Classifier.NONE, p, stats)) {
            MetadataCache.Exporter e = c.exporter(TestSupport.addr16("2001:db8::1"), System.nanoTime());
            assertThat(e.iface(3)).isEqualTo(InterfaceInfo.EMPTY);
            await(() -> stats.pollFailures.sum() >= 1);
            int askedAtFailure = p.asked.size();
            Thread.sleep(100); // within the back-off: not asked again
            assertThat(p.asked).hasSize(askedAtFailure);
            p.down.set(false);
            await(() -> e.iface(3).name().text.equals("ge-0/0/3"));
            assertThat(e.info().name().text).isEqualTo("rtr1.snmp");
        }
    }

    @Test
    void theRowPathAllocatesNothingOnHitsAndTheCacheIsBounded() throws Exception {
        MetadataCache.Settings s = fast();
        s.maxExporters = 2;
        s.maxInterfaces = 3;
        EnrichmentStats stats = new EnrichmentStats();
        try (MetadataCache c = new MetadataCache(s, List.of(), Classifier.NONE, Classifier.NONE, null, stats)) {
            byte[] a = TestSupport.addr16("192.0.2.1");
            for (long i = 1; i <= 3; i++) {
                c.exporter(a, System.nanoTime()).iface(i);
            }
            assertThat(c.exporter(a, System.nanoTime()).iface(4)).isEqualTo(InterfaceInfo.EMPTY);
            assertThat(stats.cacheFull.sum()).isEqualTo(1);
            c.exporter(TestSupport.addr16("192.0.2.2"), System.nanoTime());
            assertThat(c.exporter(TestSupport.addr16("192.0.2.3"), System.nanoTime())).isNull();
            assertThat(c.exporters()).isEqualTo(2);
            var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long sink = 0;
            long seen = System.nanoTime(); // "seen now": an exporter seen at time 0 is evicted once uptime > 2 h
            long allocated = Long.MAX_VALUE;
            for (int round = 0; round < 20 && allocated > 0; round++) {
                long before = mx.getCurrentThreadAllocatedBytes();
                for (int k = 0; k < 100_000; k++) {
                    sink += c.exporter(a, seen + k).iface(1 + k % 3).speedMbps() + 1;
                }
                allocated = mx.getCurrentThreadAllocatedBytes() - before;
            }
            assertThat(sink).isPositive();
            assertThat(allocated).as("bytes allocated by 100k cache hits").isZero();
        }
    }
}
