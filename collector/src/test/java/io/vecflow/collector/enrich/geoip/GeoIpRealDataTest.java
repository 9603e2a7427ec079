package io.vecflow.collector.enrich.geoip;

import static org.assertj.core.api.Assertions.assertThat;

import com.maxmind.db.DatabaseRecord;
import com.maxmind.db.Networks;
import com.maxmind.db.Reader;
import io.vecflow.collector.schema.NetworkInfo;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table built from real data (scripts/fetch-geoip.sh: sapics' ip-location-db, pinned npm versions) answers what
 * MaxMind's reader answers on the same files, address by address: countries from the real country MMDB, AS numbers
 * and names from an MMDB this test writes from the real AS CSV (RouteViews + DB-IP, CC BY 4.0). Measures the load
 * time, the table's size and the lookup cost, printed to the test output. Fails when the data is not fetched.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GeoIpRealDataTest {
    private Path asnMmdb;
    private long asnNetworks;

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().threadId());
    }

    private static long usedHeap() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return rt.totalMemory() - rt.freeMemory();
    }

    /** @return a sum over reps × n lookups and AS-name lookups (kept so that the JIT cannot drop them) */
    private static long lookups(NetworkTable t, byte[] addrs, int n, int reps) {
        long sink = 0;
        for (int rep = 0; rep < reps; rep++) {
            for (int i = 0; i < n; i++) {
                sink += t.lookup(addrs, 16 * i).asn();
            }
        }
        return sink;
    }

    /** @return a sum over reps × n AS-name lookups */
    private static long asNames(NetworkTable t, long[] asns, int reps) {
        long sink = 0;
        for (int rep = 0; rep < reps; rep++) {
            for (long asn : asns) {
                sink += t.asName(asn).utf8.length;
            }
        }
        return sink;
    }

    @BeforeAll
    void writeTheAsnDatabaseFromTheRealCsv(@TempDir Path dir) throws Exception {
        long t0 = System.nanoTime();
        MmdbWriter w = new MmdbWriter("GeoLite2-ASN", 6).description("ip-location-db asn 2.3.2026061719");
        asnNetworks = GeoIpTestData.asnCsvToMmdb(GeoIpTestData.asnCsvs(), (s, e) -> true, w);
        asnMmdb = dir.resolve("asn.mmdb");
        w.write(asnMmdb);
        System.out.printf("real ASN CSV → MMDB: %d networks in %d ms%n", asnNetworks,
                (System.nanoTime() - t0) / 1_000_000);
    }

    /** Addresses to compare at: named ones, one inside every k-th network of the file, and random ones. */
    private static List<InetAddress> sample(Path mmdb, int fromNetworks, int random, long seed) throws Exception {
        List<InetAddress> out = new ArrayList<>();
        for (String s : List.of("1.1.1.1", "8.8.8.8", "9.9.9.9", "2001:4860:4860::8888", "2606:4700:4700::1111",
                "193.0.6.139", "2001:67c:2e8:22::c100:68b", "0.0.0.0", "255.255.255.255", "10.1.2.3")) {
            out.add(InetAddress.getByName(s));
        }
        Random r = new Random(seed);
        List<DatabaseRecord<?>> nets = new ArrayList<>();
        try (Reader reader = new Reader(new File(mmdb.toString()))) {
            @SuppressWarnings("rawtypes")
            Networks<Map> it = reader.networks(Map.class);
            while (it.hasNext()) {
                nets.add(it.next());
            }
        }
        for (int i = 0; i < fromNetworks; i++) {
            DatabaseRecord<?> n = nets.get(r.nextInt(nets.size()));
            byte[] a = n.network().networkAddress().getAddress();
            int host = a.length * 8 - n.network().prefixLength();
            for (int b = 0; b < Math.min(host, 24); b++) { // a random address inside (the low 24 host bits)
                if (r.nextBoolean()) {
                    a[a.length - 1 - b / 8] |= (byte) (1 << (b % 8));
                }
            }
            out.add(InetAddress.getByAddress(a));
        }
        for (int i = 0; i < random; i++) {
            byte[] a = new byte[i % 2 == 0 ? 4 : 16];
            r.nextBytes(a);
            if (a.length == 16) {
                a[0] = (byte) (0x20 | (a[0] & 0x1F)); // 2000::/3, where IPv6 is allocated (no IPv4 aliases)
            }
            out.add(InetAddress.getByAddress(a));
        }
        return out;
    }

    private static byte[] mapped(InetAddress a) {
        byte[] b = a.getAddress();
        if (b.length == 16) {
            return b;
        }
        byte[] m = new byte[16];
        m[10] = (byte) 0xFF;
        m[11] = (byte) 0xFF;
        System.arraycopy(b, 0, m, 12, 4);
        return m;
    }

    private static String countryOf(Reader r, InetAddress a) throws Exception {
        @SuppressWarnings("unchecked")
        Map<String, Object> m = r.get(a, Map.class);
        return m == null ? "" : (String) m.get("country_code");
    }

    @Test
    void realCountryDatabaseAgreesWithMaxMindsReader() throws Exception {
        Path mmdb = GeoIpTestData.countryMmdb();
        long t0 = System.nanoTime();
        NetworkTable t = NetworkTableBuilder.build(List.of(), List.of(mmdb), List.of());
        System.out.printf("real country MMDB: %s built in %d ms, %.1f bytes/interval%n", t,
                (System.nanoTime() - t0) / 1_000_000, (double) t.intervalBytes() / t.intervals());
        assertThat(t.intervals()).isGreaterThan(100_000);
        List<InetAddress> sample = sample(mmdb, 1000, 1000, 42);
        int known = 0;
        try (Reader r = new Reader(new File(mmdb.toString()))) {
            for (InetAddress a : sample) {
                String want = countryOf(r, a);
                assertThat(t.lookup(mapped(a), 0).country().text).as(a.getHostAddress()).isEqualTo(want);
                known += want.isEmpty() ? 0 : 1;
            }
            assertThat(countryOf(r, InetAddress.getByName("1.1.1.1"))).isEqualTo("AU");
        }
        assertThat(known).isGreaterThan(1000);
        assertThat(t.lookup(mapped(InetAddress.getByName("8.8.8.8")), 0).country().text).isEqualTo("US");
        assertThat(t.lookup(mapped(InetAddress.getByName("2001:4860:4860::8888")), 0).country().text)
                .isEqualTo("US");
    }

    @Test
    void theIpv4AndIpv6FilesMergeAndAgreeWithTheirReaders() throws Exception {
        Path v4 = GeoIpTestData.countryIpv4Mmdb();
        Path v6 = GeoIpTestData.countryIpv6Mmdb();
        NetworkTable t = NetworkTableBuilder.build(List.of(), List.of(v4, v6), List.of());
        try (Reader r4 = new Reader(new File(v4.toString())); Reader r6 = new Reader(new File(v6.toString()))) {
            for (InetAddress a : sample(GeoIpTestData.countryMmdb(), 500, 500, 7)) {
                String want = countryOf(a instanceof Inet4Address ? r4 : r6, a);
                assertThat(t.lookup(mapped(a), 0).country().text).as(a.getHostAddress()).isEqualTo(want);
            }
        }
    }

    @Test
    void realAsnDataAgreesWithMaxMindsReaderAndTheCsv() throws Exception {
        long t0 = System.nanoTime();
        NetworkTable t = NetworkTableBuilder.build(List.of(asnMmdb), List.of(), List.of());
        System.out.printf("real ASN MMDB (%d networks): %s built in %d ms%n", asnNetworks, t,
                (System.nanoTime() - t0) / 1_000_000);
        int known = 0;
        try (Reader r = new Reader(new File(asnMmdb.toString()))) {
            for (InetAddress a : sample(asnMmdb, 1000, 1000, 99)) {
                @SuppressWarnings("unchecked")
                Map<String, Object> m = r.get(a, Map.class);
                NetworkInfo got = t.lookup(mapped(a), 0);
                long asn = m == null ? 0 : (Long) m.get("autonomous_system_number");
                String name = m == null ? "" : (String) m.get("autonomous_system_organization");
                assertThat(got.asn()).as(a.getHostAddress()).isEqualTo(asn);
                // one name per AS number (the first the file gives): equal to this network's unless the CSV names
                // one AS two ways
                assertThat(got.asName()).isEqualTo(t.asName(asn));
                if (m != null) {
                    known++;
                    assertThat(t.asNames()).containsKey(asn);
                    assertThat(got.asName().text.isEmpty()).isEqualTo(name.isEmpty());
                }
            }
        }
        assertThat(known).isGreaterThan(1000);
        // as the CSV says: 1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."
        NetworkInfo cf = t.lookup(mapped(InetAddress.getByName("1.0.0.1")), 0);
        assertThat(cf.asn()).isEqualTo(13335);
        assertThat(cf.asName().text).isEqualTo("Cloudflare, Inc.");
        assertThat(t.asName(15169).text).isNotEmpty();
        assertThat(t.asNames().size()).isGreaterThan(50_000);
    }

    @Test
    void fullRealLoadTimeMemoryAndLookupCost() throws Exception {
        long heap0 = usedHeap();
        long t0 = System.nanoTime();
        NetworkTable t = NetworkTableBuilder.build(List.of(asnMmdb), List.of(GeoIpTestData.countryMmdb()),
                List.of(StaticNetwork.named("10.0.0.0/8", "corp")));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        long heap = usedHeap() - heap0;
        System.out.printf("real ASN + country: %s built in %d ms; arrays %d bytes (%.1f bytes/interval); "
                + "heap held by the table ~%d MiB%n", t, ms, t.intervalBytes(),
                (double) t.intervalBytes() / t.intervals(), heap >> 20);
        assertThat(ms).as("build time, ms").isLessThan(60_000);
        assertThat(heap).as("heap held").isLessThan(512L << 20);
        // lookups: a mix of real addresses (the samples) of both families; warm, then best of several rounds
        List<InetAddress> s = sample(GeoIpTestData.countryMmdb(), 2000, 2000, 5);
        byte[] addrs = new byte[16 * s.size()];
        for (int i = 0; i < s.size(); i++) {
            System.arraycopy(mapped(s.get(i)), 0, addrs, 16 * i, 16);
        }
        int n = s.size();
        long sink = 0;
        long[] asns = new long[n];
        for (int i = 0; i < n; i++) {
            asns[i] = t.lookup(addrs, 16 * i).asn();
        }
        for (int w = 0; w < 300; w++) {
            sink += lookups(t, addrs, n, 1) + asNames(t, asns, 1);
        }
        long overhead = Long.MAX_VALUE; // what reading the counter costs itself
        for (int i = 0; i < 5; i++) {
            long a0 = allocated();
            overhead = Math.min(overhead, allocated() - a0);
        }
        double bestNs = Double.MAX_VALUE;
        double bestNameNs = Double.MAX_VALUE;
        long bestAlloc = Long.MAX_VALUE;
        for (int round = 0; round < 40 && (bestAlloc > 0 || round < 10); round++) {
            long a0 = allocated();
            long c0 = System.nanoTime();
            sink += lookups(t, addrs, n, 50);
            long c1 = System.nanoTime();
            sink += asNames(t, asns, 50);
            long c2 = System.nanoTime();
            long a1 = allocated();
            bestNs = Math.min(bestNs, (c1 - c0) / (50.0 * n));
            bestNameNs = Math.min(bestNameNs, (c2 - c1) / (50.0 * n));
            bestAlloc = Math.min(bestAlloc, a1 - a0 - overhead);
        }
        System.out.printf("on the real table, %d addresses of both families in turn: lookup %.1f ns, asName %.1f ns "
                + "(best round); %d bytes allocated per %d lookups + %d asName (sink %d)%n", n, bestNs, bestNameNs,
                bestAlloc, 50 * n, 50 * n, sink);
        assertThat(bestAlloc).as("bytes allocated by 400k lookups").isZero();
        assertThat(bestNs).as("ns per lookup").isLessThan(2_000);
    }
}
