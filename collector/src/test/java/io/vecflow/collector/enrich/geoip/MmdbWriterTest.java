package io.vecflow.collector.enrich.geoip;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.maxmind.db.DatabaseRecord;
import com.maxmind.db.Metadata;
import com.maxmind.db.Networks;
import com.maxmind.db.Reader;
import java.io.File;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What {@link MmdbWriter} writes, read back with MaxMind's own reader (the judge of the format). */
class MmdbWriterTest {
    @TempDir
    Path dir;

    private static Map<String, Object> get(Reader r, String ip) throws Exception {
        @SuppressWarnings("unchecked")
        Map<String, Object> m = r.get(InetAddress.getByName(ip), Map.class);
        return m;
    }

    @ParameterizedTest
    @ValueSource(ints = {24, 28, 32})
    void ipv6TreeWithIpv4SubtreeReadsBackWithEveryRecordSize(int recordSize) throws Exception {
        Path f = dir.resolve("asn-" + recordSize + ".mmdb");
        new MmdbWriter("GeoLite2-ASN", 6).recordSize(recordSize).buildEpoch(1_750_000_000L)
                .insert("1.0.0.0/24", Map.of("autonomous_system_number", 13335L,
                        "autonomous_system_organization", "Cloudflare, Inc."))
                .insert("8.8.8.0/24", Map.of("autonomous_system_number", 15169L,
                        "autonomous_system_organization", "Google LLC"))
                .insert("2001:4860::/32", Map.of("autonomous_system_number", 15169L,
                        "autonomous_system_organization", "Google LLC"))
                .write(f);
        try (Reader r = new Reader(new File(f.toString()))) {
            Metadata md = r.getMetadata();
            assertThat(md.databaseType()).isEqualTo("GeoLite2-ASN");
            assertThat(md.ipVersion()).isEqualTo(6);
            assertThat(md.recordSize()).isEqualTo(recordSize);
            assertThat(md.binaryFormatMajorVersion()).isEqualTo(2);
            assertThat(md.buildEpoch()).isEqualTo(BigInteger.valueOf(1_750_000_000L));
            assertThat(md.languages()).containsExactly("en");
            assertThat(get(r, "1.0.0.77")).containsEntry("autonomous_system_number", 13335L)
                    .containsEntry("autonomous_system_organization", "Cloudflare, Inc.");
            assertThat(get(r, "8.8.8.8")).containsEntry("autonomous_system_number", 15169L);
            assertThat(get(r, "2001:4860:4860::8888")).containsEntry("autonomous_system_organization", "Google LLC");
            assertThat(get(r, "8.8.9.1")).isNull();
            assertThat(get(r, "2001:4861::1")).isNull();
            assertThat(r.getRecord(InetAddress.getByName("1.0.0.1"), Map.class).network().toString())
                    .isEqualTo("1.0.0.0/24");
            // every network comes back from the reader's iterator, IPv4 ones as IPv4
            List<String> nets = new ArrayList<>();
            @SuppressWarnings("rawtypes")
            Networks<Map> it = r.networks(Map.class);
            while (it.hasNext()) {
                nets.add(it.next().network().toString());
            }
            assertThat(nets).containsExactly("1.0.0.0/24", "8.8.8.0/24", "2001:4860:0:0:0:0:0:0/32");
        }
    }

    @Test
    void ipv4TreeNestedInsertsLaterOverrideAndIdenticalRecordsShareData() throws Exception {
        Path f = dir.resolve("country.mmdb");
        MmdbWriter w = new MmdbWriter("ip-location-db country", 4);
        w.insert("10.0.0.0/8", Map.of("country_code", "FR"));
        w.insert("10.1.0.0/16", Map.of("country_code", "DE")); // splits the /8 leaf
        w.insert("10.1.2.0/24", Map.of("country_code", "FR")); // same data as the /8: written once
        w.insert("192.168.0.0/16", Map.of("country_code", "IT"));
        w.insert("192.168.0.0/16", Map.of("country_code", "ES")); // later wins
        w.write(f);
        try (Reader r = new Reader(new File(f.toString()))) {
            assertThat(r.getMetadata().ipVersion()).isEqualTo(4);
            assertThat(r.getMetadata().recordSize()).isEqualTo(24);
            assertThat(get(r, "10.200.0.1")).containsEntry("country_code", "FR");
            assertThat(get(r, "10.1.200.1")).containsEntry("country_code", "DE");
            assertThat(get(r, "10.1.2.3")).containsEntry("country_code", "FR");
            assertThat(get(r, "192.168.3.4")).containsEntry("country_code", "ES");
            assertThat(get(r, "11.0.0.0")).isNull();
            DatabaseRecord<Map> rec = r.getRecord(InetAddress.getByName("10.1.2.3"), Map.class);
            assertThat(rec.network().prefixLength()).isEqualTo(24);
        }
    }

    @Test
    void everyValueTypeRoundTrips() throws Exception {
        Path f = dir.resolve("types.mmdb");
        Map<String, Object> rec = new LinkedHashMap<>();
        rec.put("s", "héllo");
        rec.put("long_string", "x".repeat(70_000)); // 31 size bits: 3 extra size bytes
        rec.put("mid_string", "y".repeat(300)); // 30: 2 extra bytes
        rec.put("u32", 4_294_967_295L);
        rec.put("zero", 0L);
        rec.put("u64", 1L << 40);
        rec.put("u128", BigInteger.ONE.shiftLeft(100));
        rec.put("i32", -7);
        rec.put("d", 1.5);
        rec.put("f", 2.5f);
        rec.put("b", true);
        rec.put("bytes", new byte[] {1, 2, 3});
        rec.put("array", List.of("a", 2L));
        rec.put("map", Map.of("iso_code", "FR"));
        new MmdbWriter("types", 6).insert("::/0", rec).write(f);
        try (Reader r = new Reader(new File(f.toString()))) {
            Map<String, Object> m = get(r, "2001:db8::1");
            assertThat(m).containsEntry("s", "héllo").containsEntry("u32", 4_294_967_295L)
                    .containsEntry("u64", BigInteger.ONE.shiftLeft(40))
                    .containsEntry("u128", BigInteger.ONE.shiftLeft(100)).containsEntry("i32", -7)
                    .containsEntry("d", 1.5).containsEntry("f", 2.5f).containsEntry("b", true)
                    .containsEntry("map", Map.of("iso_code", "FR")).containsEntry("array", List.of("a", 2L));
            assertThat(m.get("zero")).isEqualTo(0L);
            assertThat((String) m.get("long_string")).hasSize(70_000);
            assertThat((String) m.get("mid_string")).hasSize(300);
            assertThat((byte[]) m.get("bytes")).containsExactly(1, 2, 3);
            assertThat(get(r, "1.2.3.4")).containsEntry("s", "héllo"); // ::/0 holds the IPv4 subtree too
        }
    }

    @Test
    void rejectsWhatItCannotWrite() {
        MmdbWriter w = new MmdbWriter("x", 4);
        assertThatThrownBy(() -> w.insert("2001:db8::/32", Map.of("a", "b")))
                .hasMessageContaining("IPv6 network in an IPv4 database");
        assertThatThrownBy(() -> w.insert("10.0.0.1/8", Map.of("a", "b"))).hasMessageContaining("host bits set");
        assertThatThrownBy(() -> w.insert("10.0.0.0/8", Map.of("a", new Object())))
                .hasMessageContaining("no MaxMind DB type");
        assertThatThrownBy(() -> new MmdbWriter("x", 5)).hasMessageContaining("4 or 6");
    }
}
