package io.vecflow.collector.enrich.geoip;

import static org.assertj.core.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The real GeoIP data of scripts/fetch-geoip.sh (sapics' ip-location-db npm packages; testdata/geoip/README.md), in
 * the folder {@code VECFLOW_TEST_GEOIP_DIR} names (scripts/test.sh sets it). A test that needs it fails, never
 * skips, when it is not there.
 */
public final class GeoIpTestData {
    private GeoIpTestData() {}

    /** @return the data folder; fails the test when the variable is unset or the folder lacks the files */
    public static Path dir() {
        String d = System.getenv("VECFLOW_TEST_GEOIP_DIR");
        if (d == null || d.isBlank()) {
            fail("VECFLOW_TEST_GEOIP_DIR is not set: run scripts/fetch-geoip.sh DIR and export "
                    + "VECFLOW_TEST_GEOIP_DIR=DIR (scripts/test.sh does both)");
        }
        Path dir = Path.of(d);
        for (Path f : List.of(dir.resolve("geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb"),
                dir.resolve("asn/asn-ipv4.csv"))) {
            if (!Files.isRegularFile(f)) {
                fail(f + " is missing: run scripts/fetch-geoip.sh " + dir);
            }
        }
        return dir;
    }

    /** @return the IPv4+IPv6 country database (field country_code) */
    public static Path countryMmdb() {
        return dir().resolve("geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb");
    }

    /** @return the IPv4 country database */
    static Path countryIpv4Mmdb() {
        return dir().resolve("geo-whois-asn-country-mmdb/geo-whois-asn-country-ipv4.mmdb");
    }

    /** @return the IPv6 country database */
    static Path countryIpv6Mmdb() {
        return dir().resolve("geo-whois-asn-country-mmdb/geo-whois-asn-country-ipv6.mmdb");
    }

    /** @return the AS CSV files, IPv4 then IPv6 (start,end,asn,"organisation", inclusive ranges) */
    public static List<Path> asnCsvs() {
        return List.of(dir().resolve("asn/asn-ipv4.csv"), dir().resolve("asn/asn-ipv6.csv"));
    }

    /** A range of the AS CSV, decided by a filter before it is written. */
    public interface RangeFilter {
        /**
         * @param start first address (IPv4-mapped for IPv4), as an unsigned 128-bit number
         * @param end last address
         * @return whether to keep the range
         */
        boolean keep(BigInteger start, BigInteger end);
    }

    /**
     * Writes the AS CSV ranges into a GeoLite2-ASN layout database (each range cut into the CIDR blocks that cover
     * it exactly): {@code autonomous_system_number} uint32, {@code autonomous_system_organization}.
     *
     * @param csvs the CSV files
     * @param filter which ranges to keep
     * @param w the writer (IPv6 tree)
     * @return the number of networks inserted
     */
    public static long asnCsvToMmdb(List<Path> csvs, RangeFilter filter, MmdbWriter w) throws IOException {
        Map<String, Map<String, Object>> records = new HashMap<>();
        long networks = 0;
        for (Path csv : csvs) {
            try (BufferedReader in = Files.newBufferedReader(csv, StandardCharsets.UTF_8)) {
                String line;
                int n = 0;
                while ((line = in.readLine()) != null) {
                    n++;
                    if (line.isBlank()) {
                        continue;
                    }
                    List<String> f = NetworksCsv.fields(line, csv + " line " + n);
                    if (f.size() != 4) {
                        fail(csv + " line " + n + ": " + f.size() + " fields, expected start,end,asn,org");
                    }
                    IpPrefix s = IpPrefix.parse(f.get(0));
                    IpPrefix e = IpPrefix.parse(f.get(1));
                    BigInteger start = big(s.hi(), s.lo());
                    BigInteger end = big(e.hi(), e.lo());
                    if (!filter.keep(start, end)) {
                        continue;
                    }
                    long asn = Long.parseLong(f.get(2));
                    String org = f.get(3);
                    Map<String, Object> rec = records.computeIfAbsent(asn + "\u0000" + org,
                            k -> Map.of("autonomous_system_number", asn, "autonomous_system_organization", org));
                    for (String cidr : cidrs(start, end)) {
                        w.insert(cidr, rec);
                        networks++;
                    }
                }
            }
        }
        return networks;
    }

    /** @return the 128-bit number */
    static BigInteger big(long hi, long lo) {
        return new BigInteger(1, java.nio.ByteBuffer.allocate(16).putLong(hi).putLong(lo).array());
    }

    /** @return the CIDR blocks that cover start..end exactly, as text (IPv4 for the mapped range) */
    static List<String> cidrs(BigInteger start, BigInteger end) {
        List<String> out = new java.util.ArrayList<>();
        BigInteger s = start;
        while (s.compareTo(end) <= 0) {
            int k = s.signum() == 0 ? 128 : s.getLowestSetBit();
            while (k > 0 && s.add(BigInteger.ONE.shiftLeft(k)).subtract(BigInteger.ONE).compareTo(end) > 0) {
                k--;
            }
            long hi = s.shiftRight(64).longValue();
            long lo = s.longValue();
            out.add(new IpPrefix(hi, lo, 128 - k).toString());
            s = s.add(BigInteger.ONE.shiftLeft(k));
        }
        return out;
    }
}
