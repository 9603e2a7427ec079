package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.maxmind.db.Reader;
import io.vecflow.collector.enrich.EnrichmentSettings;
import io.vecflow.collector.enrich.geoip.GeoIpTestData;
import io.vecflow.collector.enrich.geoip.MmdbWriter;
import io.vecflow.collector.schema.FlowRow;
import java.io.File;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rows through a real collector with real GeoIP data (scripts/fetch-geoip.sh: the ip-location-db country database as
 * published, and its AS data written as a MaxMind DB): each row's country, AS and AS name equal what MaxMind's reader
 * returns for the row's addresses; the sFlow gateway record's AS wins over the database with {@code [flow, geoip]}
 * and loses with {@code [geoip, flow]}; a rewritten AS database is picked up by the running collector.
 * Captures: tcpdump-sflow_expanded (52.52.52.52 → 53.53.53.53 with src_as 203476, AS path ending 203361) and
 * akvorado-data-sflow-raw-ipv4 (69.58.92.107 → 92.222.186.1, no gateway record), testdata/MANIFEST.md.
 */
class EnrichmentRealDataTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final List<String> ADDRESSES = List.of("52.52.52.52", "53.53.53.53", "69.58.92.107",
            "92.222.186.1");

    @TempDir
    Path tmp;

    /** The real AS ranges that hold one of {@link #ADDRESSES}, as a GeoLite2-ASN layout database. */
    private Path asnDatabase(Path file) throws Exception {
        List<BigInteger> wanted = ADDRESSES.stream().map(a -> new BigInteger(1, TestSupport.addr16(a))).toList();
        MmdbWriter w = new MmdbWriter("GeoLite2-ASN", 6);
        long n = GeoIpTestData.asnCsvToMmdb(GeoIpTestData.asnCsvs(), (s, e) -> wanted.stream()
                .anyMatch(x -> x.compareTo(s) >= 0 && x.compareTo(e) <= 0), w);
        assertThat(n).as("AS networks holding the capture addresses").isPositive();
        w.write(file);
        return file;
    }

    /** A collector on 127.0.0.1 with this enrichment and {@code sink} as its only row sink. */
    private static Collector.Settings collector(EnrichmentSettings e, TestSupport.CopyingSink sink) {
        Collector.Settings s = new Collector.Settings();
        s.bindAddress = "127.0.0.1";
        s.port = 0;
        s.threads = 1;
        s.enrichment = e;
        s.extraFlowSinks.add(sink);
        return s;
    }

    private List<FlowRow> collect(EnrichmentSettings e) throws Exception {
        TestSupport.CopyingSink sink = new TestSupport.CopyingSink();
        Collector.Settings s = collector(e, sink);
        List<byte[]> datagrams = new java.util.ArrayList<>(Captures.udpPayloads("tcpdump-sflow_expanded.pcap"));
        datagrams.addAll(Captures.udpPayloads("akvorado-data-sflow-raw-ipv4.pcap"));
        try (Collector c = new Collector(s); TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            tx.sendPaced(datagrams, 8, () -> c.stats().datagramsReceived.sum());
            TestSupport.await("datagrams processed", WAIT, () -> c.stats().datagramsReceived.sum()
                    == datagrams.size());
            assertThat(c.stats().enrichment.errors.sum()).isZero();
        }
        assertThat(sink.rows()).hasSizeGreaterThanOrEqualTo(3);
        return sink.rows();
    }

    private static EnrichmentSettings settings(Path asn, List<String> order) {
        EnrichmentSettings e = new EnrichmentSettings();
        e.asnDatabases.add(asn);
        e.geoDatabases.add(GeoIpTestData.countryMmdb());
        e.asSources = order;
        e.reloadCheckSeconds = 1;
        return e;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> record(Reader r, byte[] a16) throws Exception {
        byte[] raw = TestSupport.addr(a16).contains(":") ? a16 : java.util.Arrays.copyOfRange(a16, 12, 16);
        Map<String, Object> m = r.get(InetAddress.getByAddress(raw), Map.class);
        return m == null ? Map.of() : m;
    }

    private static long asn(Map<String, Object> m) {
        Object v = m.get("autonomous_system_number");
        return v == null ? 0 : ((Number) v).longValue();
    }

    @Test
    void countryAsAndAsNameAreTheReadersAndTheGatewayAsWinsWhenFirst() throws Exception {
        Path asnFile = asnDatabase(tmp.resolve("asn.mmdb"));
        try (Reader asns = new Reader(asnFile.toFile()); Reader countries = new Reader(new File(
                GeoIpTestData.countryMmdb().toString()))) {
            for (List<String> order : List.of(List.of("flow", "geoip"), List.of("geoip", "flow"))) {
                boolean flowFirst = order.getFirst().equals("flow");
                List<FlowRow> rows = collect(settings(asnFile, order));
                int withGateway = 0;
                for (FlowRow r : rows) {
                    String what = order + " " + TestSupport.addr(r.srcAddr) + " -> " + TestSupport.addr(r.dstAddr);
                    assertThat(ADDRESSES).as(what).contains(TestSupport.addr(r.srcAddr));
                    Map<String, Object> src = record(asns, r.srcAddr);
                    Map<String, Object> dst = record(asns, r.dstAddr);
                    Object srcCountry = record(countries, r.srcAddr).get("country_code");
                    Object dstCountry = record(countries, r.dstAddr).get("country_code");
                    assertThat(r.srcNet.country().text).as(what).isEqualTo(srcCountry == null ? "" : srcCountry);
                    assertThat(r.dstNet.country().text).as(what).isEqualTo(dstCountry == null ? "" : dstCountry);
                    assertThat(r.srcNet.asn()).as(what).isEqualTo(asn(src));
                    boolean gateway = TestSupport.addr(r.srcAddr).equals("52.52.52.52");
                    if (gateway) {
                        withGateway++;
                        assertThat(r.srcAs).as(what).isEqualTo(flowFirst ? 203476 : asn(src));
                        assertThat(r.dstAs).as(what).isEqualTo(flowFirst ? 203361 : asn(dst));
                    } else {
                        assertThat(r.srcAs).as(what).isEqualTo(asn(src));
                        assertThat(r.dstAs).as(what).isEqualTo(asn(dst));
                    }
                    if (r.srcAs == asn(src)) {
                        assertThat(r.srcAsName.text).as(what).isEqualTo(src.get("autonomous_system_organization"));
                    }
                    if (r.dstAs == asn(dst)) {
                        assertThat(r.dstAsName.text).as(what).isEqualTo(dst.get("autonomous_system_organization"));
                    }
                }
                assertThat(withGateway).as("rows of the capture with a gateway record").isPositive();
            }
            // The real data knows these addresses: the test is not comparing empty with empty.
            assertThat(asn(record(asns, TestSupport.addr16("92.222.186.1")))).isPositive();
            assertThat(record(countries, TestSupport.addr16("92.222.186.1"))).containsKey("country_code");
        }
    }

    @Test
    void aRewrittenAsDatabaseIsPickedUpByTheRunningCollector() throws Exception {
        Path asnFile = tmp.resolve("asn.mmdb");
        new MmdbWriter("GeoLite2-ASN", 6).insert("92.222.0.0/16", Map.of("autonomous_system_number", 64501L,
                "autonomous_system_organization", "Before")).write(asnFile);
        TestSupport.CopyingSink sink = new TestSupport.CopyingSink();
        Collector.Settings s = collector(settings(asnFile, List.of("geoip")), sink);
        List<byte[]> datagrams = Captures.udpPayloads("akvorado-data-sflow-raw-ipv4.pcap");
        try (Collector c = new Collector(s); TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            tx.sendPaced(datagrams, 8, () -> c.stats().datagramsReceived.sum());
            TestSupport.await("first rows", WAIT, () -> sink.rows().stream().anyMatch(r -> r.dstAs == 64501));
            assertThat(sink.rows().stream().filter(r -> TestSupport.addr(r.dstAddr).equals("92.222.186.1"))
                    .map(r -> r.dstAsName.text)).containsOnly("Before");
            new MmdbWriter("GeoLite2-ASN", 6).insert("92.222.0.0/16", Map.of("autonomous_system_number", 64502L,
                    "autonomous_system_organization", "After")).write(asnFile);
            TestSupport.await("the rewritten database loaded", WAIT, () -> c.enricher().databaseReloads() >= 1);
            // The same datagrams again would be exact duplicates, which the collector stores once: new sequence
            // numbers (the datagram header's, bytes 16..19 for an IPv4 agent).
            List<byte[]> later = new java.util.ArrayList<>();
            for (byte[] d : datagrams) {
                byte[] x = d.clone();
                x[16] ^= 0x40;
                later.add(x);
            }
            tx.sendPaced(later, 8, () -> c.stats().datagramsReceived.sum());
            TestSupport.await("rows after the rewrite", WAIT, () -> sink.rows().stream().anyMatch(r -> r.dstAs
                    == 64502));
            assertThat(sink.rows().stream().filter(r -> r.dstAs == 64502).map(r -> r.dstAsName.text))
                    .as("rows after the rewrite").isNotEmpty().containsOnly("After");
            assertThat(c.enricher().databaseReloads()).isGreaterThanOrEqualTo(1);
        }
    }
}
