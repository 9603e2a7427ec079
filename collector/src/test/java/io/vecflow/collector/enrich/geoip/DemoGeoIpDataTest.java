package io.vecflow.collector.enrich.geoip;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.schema.NetworkInfo;
import io.vecflow.common.IpAddresses;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.NavigableSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's GeoIP files (testdata/geoip): made by {@link DemoGeoIpData} from the pinned real data, byte for byte,
 * and answering for the captures' public addresses what the full real data answers. Regenerate them with
 * {@code ./mvnw -pl collector test -Dtest=DemoGeoIpDataTest -Dvecflow.geoip.writeDemo=true} (needs
 * VECFLOW_TEST_GEOIP_DIR, see scripts/fetch-geoip.sh).
 */
class DemoGeoIpDataTest {
    private static final Path TESTDATA = Path.of("..", "testdata", "geoip");

    @TempDir
    Path dir;

    @Test
    void committedDemoFilesAreWhatThePinnedDataGives() throws Exception {
        NavigableSet<BigInteger> addrs = DemoGeoIpData.publicAddresses(Path.of("..", "testdata", "traffic"));
        boolean writeDemo = Boolean.getBoolean("vecflow.geoip.writeDemo");
        Path out = writeDemo ? TESTDATA : dir;
        String what = DemoGeoIpData.write(addrs, GeoIpTestData.countryMmdb(), GeoIpTestData.asnCsvs(), out);
        System.out.println("demo GeoIP data: " + what);
        for (String f : List.of("demo-country.mmdb", "demo-asn.mmdb")) {
            assertThat(Files.readAllBytes(TESTDATA.resolve(f))).as("testdata/geoip/" + f + " is not what the "
                    + "pinned data gives: regenerate it with -Dvecflow.geoip.writeDemo=true")
                    .isEqualTo(Files.readAllBytes(out.resolve(f)));
        }
        // the demo tables answer as the full data does, for every address of the captures
        NetworkTable demo = NetworkTableBuilder.build(List.of(TESTDATA.resolve("demo-asn.mmdb")),
                List.of(TESTDATA.resolve("demo-country.mmdb")), List.of());
        Path fullAsn = dir.resolve("full-asn.mmdb");
        MmdbWriter w = new MmdbWriter("GeoLite2-ASN", 6);
        GeoIpTestData.asnCsvToMmdb(GeoIpTestData.asnCsvs(), (s, e) -> true, w);
        w.write(fullAsn);
        NetworkTable full = NetworkTableBuilder.build(List.of(fullAsn), List.of(GeoIpTestData.countryMmdb()),
                List.of());
        for (BigInteger a : addrs) {
            long hi = a.shiftRight(64).longValue();
            long lo = a.longValue();
            NetworkInfo d = demo.lookup(hi, lo);
            NetworkInfo f = full.lookup(hi, lo);
            assertThat(d.country()).as(a.toString(16)).isEqualTo(f.country());
            assertThat(d.asn()).as(a.toString(16)).isEqualTo(f.asn());
            assertThat(d.asName()).as(a.toString(16)).isEqualTo(f.asName());
        }
    }

    @Test
    void theDemoFilesKnowThePublicAddressesOfTheCaptures() throws Exception {
        NavigableSet<BigInteger> addrs = DemoGeoIpData.publicAddresses(Path.of("..", "testdata", "traffic"));
        assertThat(addrs.size()).isGreaterThan(10);
        NetworkTable t = NetworkTableBuilder.build(List.of(TESTDATA.resolve("demo-asn.mmdb")),
                List.of(TESTDATA.resolve("demo-country.mmdb")), List.of());
        int country = 0;
        int asn = 0;
        for (BigInteger a : addrs) {
            NetworkInfo n = t.lookup(a.shiftRight(64).longValue(), a.longValue());
            System.out.printf("demo GeoIP: %s %s AS%d %s%n",
                    IpAddresses.ipv6String(a.shiftRight(64).longValue(), a.longValue()), n.country(), n.asn(),
                    n.asName());
            country += n.country().isEmpty() ? 0 : 1;
            asn += n.asn() != 0 && !n.asName().isEmpty() ? 1 : 0;
        }
        // 13 public addresses in the captures (2026-06 data): 10 known, 3 in the unallocated 2200::/16
        assertThat(country).as("addresses with a country of %d", addrs.size()).isGreaterThanOrEqualTo(10);
        assertThat(asn).as("addresses with an AS and its name of %d", addrs.size()).isGreaterThanOrEqualTo(10);
        NetworkInfo google = t.lookup(0, 0x0000_FFFF_4A7D_1311L); // 74.125.19.17 (tcpreplay-test.pcap)
        assertThat(google.country().text).isEqualTo("US");
        assertThat(google.asn()).isEqualTo(15169);
        assertThat(google.asName().text).isEqualTo("Google LLC");
        NetworkInfo cf = t.lookup(0x2606_4700_0000_0000L, 0x0000_0000_6812_069cL); // 2606:4700::6812:69c
        assertThat(cf.asn()).isEqualTo(13335);
        assertThat(cf.asName().text).isEqualTo("Cloudflare, Inc.");
        assertThat(t.lookup(0x2200_0000_0000_0211L, 0x0002_0000_0000_0002L)).isSameAs(NetworkInfo.EMPTY);
        assertThat(DemoGeoIpData.isPublic(0, 0x0000_FFFF_0A00_0001L)).isFalse(); // 10.0.0.1
        assertThat(DemoGeoIpData.isPublic(0, 0x0000_FFFF_0808_0808L)).isTrue(); // 8.8.8.8
        assertThat(DemoGeoIpData.isPublic(0xfe80_0000_0000_0000L, 1)).isFalse();
        assertThat(DemoGeoIpData.isPublic(0x2001_0db8_0000_0000L, 1)).isFalse();
        assertThat(DemoGeoIpData.isPublic(0x2a00_1450_0000_0000L, 1)).isTrue();
    }
}
