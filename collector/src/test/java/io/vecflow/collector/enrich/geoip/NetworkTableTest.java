package io.vecflow.collector.enrich.geoip;

import static io.vecflow.collector.TestSupport.addr16;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.schema.Label;
import io.vecflow.collector.schema.NetworkInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The flattened table: Akvorado's precedence, coalescing, interning, both families, the errors. */
class NetworkTableTest {
    @TempDir
    Path dir;

    private static NetworkInfo at(NetworkTable t, String ip) {
        return t.lookup(addr16(ip), 0);
    }

    private static Map<String, Object> asn(long n, String org) {
        return Map.of("autonomous_system_number", n, "autonomous_system_organization", org);
    }

    private Path asnDb() throws IOException {
        Path f = dir.resolve("asn.mmdb");
        new MmdbWriter("GeoLite2-ASN", 6)
                .insert("1.0.0.0/24", asn(13335, "Cloudflare, Inc."))
                .insert("8.8.8.0/24", asn(15169, "Google LLC"))
                .insert("8.8.4.0/24", asn(15169, "Google LLC"))
                .insert("192.0.2.0/24", asn(64500, "Example AS"))
                .insert("198.51.100.0/25", asn(64501, "Half A"))
                .insert("198.51.100.128/25", asn(64501, "Half A"))
                .insert("2001:4860::/32", asn(15169, "Google LLC"))
                .write(f);
        return f;
    }

    private Path countryDb() throws IOException {
        Path f = dir.resolve("country.mmdb");
        new MmdbWriter("GeoLite2-Country", 6)
                .insert("1.0.0.0/16", Map.of("country", Map.of("iso_code", "AU", "names", Map.of("en", "Australia"))))
                .insert("8.0.0.0/8", Map.of("country", Map.of("iso_code", "US")))
                .insert("192.0.2.0/24", Map.of("country", Map.of("iso_code", "DE")))
                .insert("2001:4860::/32", Map.of("country", Map.of("iso_code", "US")))
                .insert("10.0.0.0/8", Map.of("registered_country", Map.of("iso_code", "ZZ"))) // no country: nothing
                .write(f);
        return f;
    }

    @Test
    void asnAndCountryDatabasesMergeFieldByField() throws IOException {
        NetworkTable t = NetworkTableBuilder.build(List.of(asnDb()), List.of(countryDb()), List.of());
        NetworkInfo cf = at(t, "1.0.0.1");
        assertThat(cf.asn()).isEqualTo(13335);
        assertThat(cf.asName().text).isEqualTo("Cloudflare, Inc.");
        assertThat(cf.country().text).isEqualTo("AU");
        assertThat(at(t, "1.0.1.1").asn()).isZero(); // outside the /24: country only
        assertThat(at(t, "1.0.1.1").country().text).isEqualTo("AU");
        assertThat(at(t, "8.8.8.8").asName().text).isEqualTo("Google LLC");
        assertThat(at(t, "8.8.8.8").country().text).isEqualTo("US");
        assertThat(at(t, "8.1.2.3").asn()).isZero();
        assertThat(at(t, "2001:4860:4860::8888").asn()).isEqualTo(15169);
        assertThat(at(t, "2001:4860:4860::8888").country().text).isEqualTo("US");
        assertThat(at(t, "2001:4861::1")).isSameAs(NetworkInfo.EMPTY);
        assertThat(at(t, "10.1.2.3")).isSameAs(NetworkInfo.EMPTY);
        assertThat(at(t, "0.0.0.0")).isSameAs(NetworkInfo.EMPTY);
        assertThat(at(t, "255.255.255.255")).isSameAs(NetworkInfo.EMPTY);
        assertThat(at(t, "::")).isSameAs(NetworkInfo.EMPTY);
        assertThat(at(t, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")).isSameAs(NetworkInfo.EMPTY);
        // identical attribute sets are one instance: AS15169 + US on 8.8.8.0/24, 8.8.4.0/24 and 2001:4860::/32
        assertThat(at(t, "8.8.8.8")).isSameAs(at(t, "8.8.4.4")).isSameAs(at(t, "2001:4860::1"));
        assertThat(t.asName(15169).text).isEqualTo("Google LLC");
        assertThat(t.asName(1)).isSameAs(Label.EMPTY);
        assertThat(t.asNames()).containsOnlyKeys(13335L, 15169L, 64500L, 64501L);
        // the IPv4 lookup on its own and the two-halves lookup agree with the byte one
        assertThat(t.lookupIpv4(0x08080808)).isSameAs(at(t, "8.8.8.8"));
        assertThat(t.lookup(0, 0x0000_FFFF_0808_0808L)).isSameAs(at(t, "8.8.8.8"));
        byte[] buf = new byte[40];
        System.arraycopy(addr16("1.0.0.200"), 0, buf, 17, 16);
        assertThat(t.lookup(buf, 17)).isSameAs(cf);
        assertThatThrownBy(() -> t.lookup(buf, 30)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void adjacentIntervalsWithTheSameValueAreOne() throws IOException {
        Path f = dir.resolve("halves.mmdb");
        new MmdbWriter("GeoLite2-ASN", 4)
                .insert("198.51.100.0/25", asn(64501, "Half A"))
                .insert("198.51.100.128/25", asn(64501, "Half A"))
                .write(f);
        NetworkTable t = NetworkTableBuilder.build(List.of(f), List.of(), List.of());
        // IPv4: nothing, 198.51.100.0 → AS64501, 198.51.101.0 → nothing; IPv6: one interval
        assertThat(t.ipv4Intervals()).isEqualTo(3);
        assertThat(t.intervals()).isEqualTo(4);
        assertThat(t.distinctValues()).isEqualTo(2);
        assertThat(at(t, "198.51.99.255").asn()).isZero();
        assertThat(at(t, "198.51.100.0").asn()).isEqualTo(64501);
        assertThat(at(t, "198.51.100.255").asn()).isEqualTo(64501);
        assertThat(at(t, "198.51.101.0").asn()).isZero();
    }

    @Test
    void staticNetworksOverrideTheSamePrefixAndTheMostSpecificPrefixWinsPerField() throws IOException {
        List<StaticNetwork> nets = List.of(
                new StaticNetwork("192.0.0.0/8", "big", "transit", "par", "eu", "acme", "FR", 0, "cfg line 1"),
                new StaticNetwork("192.0.2.0/24", "", "customer", "", "", "", "", 65000, "cfg line 2"),
                new StaticNetwork("192.0.2.128/25", "small", "", "", "", "", "", 0, "cfg line 3"),
                new StaticNetwork("8.8.8.0/24", "", "", "", "", "", "us", 0, "cfg line 4"),
                new StaticNetwork("8.8.8.0/24", "dns", "", "", "", "", "", 0, "cfg line 5"), // adds to line 4
                new StaticNetwork("8.8.0.0/16", "goog", "", "", "", "", "CH", 64500, "cfg line 6"));
        NetworkTable t = NetworkTableBuilder.build(List.of(asnDb()), List.of(countryDb()), nets);
        // 192.0.2.0/24: geo DE and AS64500 at /24, static /24 sets the AS (65000) → static wins at equal length;
        // country from the geo /24 (more specific than the static /8's FR); name, site... inherited from the /8
        NetworkInfo a = at(t, "192.0.2.1");
        assertThat(a.name().text).isEqualTo("big");
        assertThat(a.role().text).isEqualTo("customer");
        assertThat(a.site().text).isEqualTo("par");
        assertThat(a.region().text).isEqualTo("eu");
        assertThat(a.tenant().text).isEqualTo("acme");
        assertThat(a.country().text).isEqualTo("DE");
        assertThat(a.asn()).isEqualTo(65000);
        assertThat(a.asName()).isSameAs(Label.EMPTY); // 65000 has no name in the ASN database
        NetworkInfo b = at(t, "192.0.2.200");
        assertThat(b.name().text).isEqualTo("small");
        assertThat(b.role().text).isEqualTo("customer");
        assertThat(b.asn()).isEqualTo(65000);
        NetworkInfo c = at(t, "192.1.0.1");
        assertThat(c.name().text).isEqualTo("big");
        assertThat(c.country().text).isEqualTo("FR");
        assertThat(c.asn()).isZero();
        // 8.8.8.0/24: the static /24 (country US upper-cased, name dns) over the geo /8 and the static /16;
        // the AS of the ASN database's /24 beats the static /16's
        NetworkInfo d = at(t, "8.8.8.8");
        assertThat(d.name().text).isEqualTo("dns");
        assertThat(d.country().text).isEqualTo("US");
        assertThat(d.asn()).isEqualTo(15169);
        assertThat(d.asName().text).isEqualTo("Google LLC");
        // 8.8.4.0/24: the static /16's country CH beats the less specific geo /8; the AS is the database's /24
        NetworkInfo e = at(t, "8.8.4.4");
        assertThat(e.name().text).isEqualTo("goog");
        assertThat(e.country().text).isEqualTo("CH");
        assertThat(e.asn()).isEqualTo(15169);
        NetworkInfo f = at(t, "8.8.9.9");
        assertThat(f.asn()).isEqualTo(64500);
        assertThat(f.asName().text).isEqualTo("Example AS"); // a static AS takes its name from the ASN database
    }

    @Test
    void ipv6PrefixesAroundTheMappedRangeCoverIpv4AndTheTopOfTheSpace() throws IOException {
        NetworkTable t = NetworkTableBuilder.build(List.of(), List.of(), List.of(
                StaticNetwork.named("::/0", "everything"),
                StaticNetwork.named("::ffff:10.0.0.0/104", "ten"),
                StaticNetwork.named("ffff:ffff:ffff:ffff::/64", "top"),
                StaticNetwork.named("::ffff:0:0/96", "v4"),
                StaticNetwork.named("0:0:0:0:1::/80", "after-mapped"),
                StaticNetwork.named("2001:db8::1", "host")));
        assertThat(at(t, "10.1.2.3").name().text).isEqualTo("ten");
        assertThat(at(t, "11.1.2.3").name().text).isEqualTo("v4");
        assertThat(at(t, "2001:db8::2").name().text).isEqualTo("everything");
        assertThat(at(t, "2001:db8::1").name().text).isEqualTo("host");
        assertThat(at(t, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff").name().text).isEqualTo("top");
        assertThat(at(t, "::1").name().text).isEqualTo("everything");
        assertThat(at(t, "::1:0:0:0").name().text).isEqualTo("after-mapped");
        assertThat(at(t, "::fffe:ffff:ffff").name().text).isEqualTo("everything");
    }

    @Test
    void theIpv6TableRestartsAfterTheMappedRange() throws IOException {
        // an interval that starts inside ::ffff:0:0/96 and runs past it: the IPv6 table must still know
        // ::1:0:0:0 belongs to it
        NetworkTable t = NetworkTableBuilder.build(List.of(), List.of(), List.of(
                StaticNetwork.named("::/64", "low"),
                StaticNetwork.named("::ffff:192.0.2.0/120", "v4net")));
        assertThat(at(t, "::1:0:0:0").name().text).isEqualTo("low");
        assertThat(at(t, "::fffe:0:0").name().text).isEqualTo("low");
        assertThat(at(t, "192.0.2.9").name().text).isEqualTo("v4net");
        assertThat(at(t, "192.0.3.9").name().text).isEqualTo("low");
        assertThat(at(t, "::1:0:0:0:0").name().text).isEmpty();
    }

    @Test
    void ipinfoAndSapicsLayoutsAreRead() throws IOException {
        Path ipinfo = dir.resolve("ipinfo.mmdb");
        new MmdbWriter("ipinfo country_asn.mmdb", 6)
                .insert("1.1.1.0/24", Map.of("asn", "AS13335", "as_name", "Cloudflare, Inc.", "country", "AU",
                        "country_name", "Australia"))
                .insert("2606:4700::/32", Map.of("asn", "AS13335", "name", "Cloudflare", "country_code", "US",
                        "country", "United States")) // ipinfo lite: a name in country, the code in country_code
                .write(ipinfo);
        Path sapics = dir.resolve("sapics.mmdb");
        new MmdbWriter("country", 4).insert("9.0.0.0/8", Map.of("country_code", "US")).write(sapics);
        NetworkTable t = NetworkTableBuilder.build(List.of(ipinfo), List.of(ipinfo, sapics), List.of());
        assertThat(at(t, "1.1.1.1").asn()).isEqualTo(13335);
        assertThat(at(t, "1.1.1.1").asName().text).isEqualTo("Cloudflare, Inc.");
        assertThat(at(t, "1.1.1.1").country().text).isEqualTo("AU");
        assertThat(at(t, "2606:4700::1").country().text).isEqualTo("US");
        assertThat(at(t, "2606:4700::1").asName().text).isEqualTo("Cloudflare, Inc."); // one name per AS
        assertThat(at(t, "9.9.9.9").country().text).isEqualTo("US");
    }

    @Test
    void badPrefixesNameTheSourceAndTheValue() {
        for (String[] c : new String[][] {
            {"10.0.0.1/8", "host bits set (the network is 10.0.0.0/8)"},
            {"10.0.0.0/33", "IPv4 prefix length 33 > 32"},
            {"2001:db8::/129", "IPv6 prefix length 129 > 128"},
            {"2001:db8::1/32", "host bits set (the network is 2001:db8::/32)"},
            {"example.com/24", "is not an IPv4 or IPv6 address"},
            {"10.0.0/8", "is not an IPv4 or IPv6 address"},
            {"10.0.0.256/32", "IPv4 part 256 > 255"},
            {"010.0.0.0/8", "bad IPv4 part '010'"},
            {"10.0.0.0/x", "prefix length 'x' is not a number"},
            {"10.0.0.0/", "prefix length '' is not a number"},
            {"1::2::3/64", "more than one '::'"},
            {"1:2:3:4:5:6:7:8:9/64", "does not have 8 groups"},
            {"12345::/16", "bad IPv6 group '12345'"},
            {"", "empty prefix"}}) {
            assertThatThrownBy(() -> NetworkTableBuilder.build(List.of(), List.of(),
                    List.of(StaticNetwork.named("10.0.0.0/8", "ok"),
                            new StaticNetwork(c[0], "x", "", "", "", "", "", 0, "networks.csv line 7"))))
                    .as(c[0]).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("networks.csv line 7: prefix").hasMessageContaining(c[1]);
        }
        assertThatThrownBy(() -> NetworkTableBuilder.build(List.of(), List.of(),
                List.of(new StaticNetwork("10.0.0.0/8", "", "", "", "", "", "FRA", 0, "cfg line 3"))))
                .hasMessage("cfg line 3: country 'FRA' is not an ISO 3166-1 alpha-2 code (two letters)");
        assertThatThrownBy(() -> NetworkTableBuilder.build(List.of(), List.of(),
                List.of(new StaticNetwork("10.0.0.0/8", "", "", "", "", "", "", 1L << 32, "cfg line 4"))))
                .hasMessage("cfg line 4: asn 4294967296 is outside 0..4294967295");
    }

    @Test
    void missingOrCorruptDatabasesNameTheFile() throws IOException {
        Path missing = dir.resolve("nope.mmdb");
        assertThatThrownBy(() -> NetworkTableBuilder.build(List.of(missing), List.of(), List.of()))
                .isInstanceOf(IOException.class).hasMessage("ASN database " + missing + ": no such file");
        Path garbage = dir.resolve("garbage.mmdb");
        Files.writeString(garbage, "this is not a database\n".repeat(100));
        assertThatThrownBy(() -> NetworkTableBuilder.build(List.of(), List.of(garbage), List.of()))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("GeoIP country database " + garbage + ": not a readable MaxMind DB file: ")
                .hasMessageContaining("metadata");
        // a real database whose search tree is cut: the metadata is there, the tree points past the end
        byte[] good = Files.readAllBytes(asnDb());
        byte[] cut = new byte[good.length];
        System.arraycopy(good, 0, cut, 0, good.length);
        for (int i = 0; i < 60; i++) {
            cut[i] = (byte) 0xFF; // records of the first nodes point far beyond the data section
        }
        Path broken = dir.resolve("broken.mmdb");
        Files.write(broken, cut);
        assertThatThrownBy(() -> NetworkTableBuilder.build(List.of(broken), List.of(), List.of()))
                .isInstanceOf(IOException.class).hasMessageStartingWith("ASN database " + broken + ": ");
        Path empty = dir.resolve("empty.mmdb");
        Files.write(empty, new byte[0]);
        assertThatThrownBy(() -> NetworkTableBuilder.build(List.of(empty), List.of(), List.of()))
                .isInstanceOf(IOException.class).hasMessageStartingWith("ASN database " + empty + ": not a");
        assertThatThrownBy(() -> NetworkTableBuilder.build(List.of(dir), List.of(), List.of()))
                .isInstanceOf(IOException.class).hasMessage("ASN database " + dir + ": not a regular file");
    }

    @Test
    void theEmptyTableKnowsNothing() {
        assertThat(NetworkTable.EMPTY.lookup(addr16("1.1.1.1"), 0)).isSameAs(NetworkInfo.EMPTY);
        assertThat(NetworkTable.EMPTY.lookup(addr16("2001:db8::1"), 0)).isSameAs(NetworkInfo.EMPTY);
        assertThat(NetworkTable.EMPTY.asName(13335)).isSameAs(Label.EMPTY);
        assertThat(NetworkTable.EMPTY.asNames()).isEmpty();
        assertThat(NetworkTable.EMPTY.intervals()).isEqualTo(2);
    }
}
