package io.vecflow.collector.enrich.geoip;

import static org.assertj.core.api.Assertions.assertThat;

import com.maxmind.db.DatabaseRecord;
import com.maxmind.db.Reader;
import io.vecflow.collector.schema.NetworkInfo;
import io.vecflow.common.IpAddresses;
import java.io.File;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flattened table against a direct evaluation of the precedence rule on random, nested, overlapping sources: for
 * every field, the value of the most specific prefix that sets it (the databases' prefix as MaxMind's reader finds
 * it, the configured networks by containment), a configured network winning a tie, a later one winning over an
 * earlier one. Probed at every prefix boundary (first address, the one before it, last, the one after it) and at
 * random addresses.
 */
class NetworkTableReferenceTest {
    @TempDir
    Path dir;

    private static final String[] COUNTRIES = {"FR", "DE", "US", "JP", "BR"};

    private record Probe(long hi, long lo) {}

    private static long[] randomV6(Random r) {
        // clustered so that prefixes nest and overlap: 2001:db8:XX00::/40 blocks
        long hi = 0x2001_0db8_0000_0000L | ((long) r.nextInt(4) << 24) | (r.nextLong() & 0x00FF_FFFFL);
        return new long[] {hi, r.nextLong()};
    }

    private static int randomV4(Random r) {
        return 0x0A00_0000 | r.nextInt(1 << 20) << 4; // 10.0.0.0/12, nesting likely
    }

    private static IpPrefix randomPrefix(Random r) {
        if (r.nextBoolean()) {
            int len = 8 + r.nextInt(24);
            int mask = len == 0 ? 0 : -1 << (32 - len);
            return IpPrefix.ofIpv4(randomV4(r) & mask, len);
        }
        long[] a = randomV6(r);
        int len = 24 + r.nextInt(60);
        return new IpPrefix(a[0] & ~IpPrefix.hostHi(len), a[1] & ~IpPrefix.hostLo(len), len);
    }

    private static String cidr(IpPrefix p) {
        return p.toString();
    }

    private static InetAddress inet(long hi, long lo) throws Exception {
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (hi >>> (56 - 8 * i));
            b[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        return InetAddress.getByAddress(b); // IPv4-mapped comes back as an Inet4Address
    }

    private static boolean contains(IpPrefix p, long hi, long lo) {
        return ((hi ^ p.hi()) & ~IpPrefix.hostHi(p.length())) == 0
                && ((lo ^ p.lo()) & ~IpPrefix.hostLo(p.length())) == 0;
    }

    @Test
    void flattenedTableEqualsThePrecedenceRuleEvaluatedDirectly() throws Exception {
        Random r = new Random(20260617);
        List<IpPrefix> all = new ArrayList<>();
        MmdbWriter asnW = new MmdbWriter("GeoLite2-ASN", 6);
        for (int i = 0; i < 400; i++) {
            IpPrefix p = randomPrefix(r);
            long asn = 64512 + r.nextInt(40);
            asnW.insert(cidr(p), Map.of("autonomous_system_number", asn,
                    "autonomous_system_organization", "org of " + asn));
            all.add(p);
        }
        MmdbWriter geo4 = new MmdbWriter("ip-location-db country", 4);
        MmdbWriter geo6 = new MmdbWriter("ip-location-db country", 6);
        for (int i = 0; i < 400; i++) {
            IpPrefix p = randomPrefix(r);
            Map<String, Object> rec = Map.of("country_code", COUNTRIES[r.nextInt(COUNTRIES.length)]);
            (p.isIpv4() ? geo4 : geo6).insert(cidr(p), rec);
            all.add(p);
        }
        List<StaticNetwork> nets = new ArrayList<>();
        List<IpPrefix> netPrefixes = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            IpPrefix p = i > 0 && r.nextInt(8) == 0 ? netPrefixes.get(r.nextInt(i)) : randomPrefix(r);
            String[] f = new String[6];
            for (int k = 0; k < 6; k++) {
                f[k] = r.nextInt(3) == 0 ? (k == 5 ? COUNTRIES[r.nextInt(5)] : "v" + k + "-" + r.nextInt(5)) : "";
            }
            long asn = r.nextInt(4) == 0 ? 64512 + r.nextInt(50) : 0;
            nets.add(new StaticNetwork(cidr(p), f[0], f[1], f[2], f[3], f[4], f[5], asn, "net " + i));
            netPrefixes.add(p);
            all.add(p);
        }
        Path asnDb = dir.resolve("asn.mmdb");
        Path g4 = dir.resolve("g4.mmdb");
        Path g6 = dir.resolve("g6.mmdb");
        asnW.write(asnDb);
        geo4.write(g4);
        geo6.write(g6);
        NetworkTable t = NetworkTableBuilder.build(List.of(asnDb), List.of(g4, g6), nets);

        List<Probe> probes = new ArrayList<>();
        for (IpPrefix p : all) {
            long eh = p.endHi();
            long el = p.endLo();
            probes.add(new Probe(p.hi(), p.lo()));
            probes.add(new Probe(eh, el));
            probes.add(new Probe(p.lo() == 0 ? p.hi() - 1 : p.hi(), p.lo() - 1));
            probes.add(new Probe(el == -1 ? eh + 1 : eh, el + 1));
        }
        for (int i = 0; i < 3000; i++) {
            long[] a = randomV6(r);
            probes.add(new Probe(a[0], a[1]));
            probes.add(new Probe(0, IpPrefix.MAPPED_LO | (randomV4(r) + r.nextInt(16) & 0xFFFF_FFFFL)));
        }
        int checked = 0;
        int[] filled = new int[3]; // probes with an AS, a country, a name
        try (Reader ar = new Reader(new File(asnDb.toString()));
                Reader r4 = new Reader(new File(g4.toString()));
                Reader r6 = new Reader(new File(g6.toString()))) {
            for (Probe pr : probes) {
                boolean v4 = pr.hi() == 0 && (pr.lo() >>> 32) == 0xFFFFL;
                InetAddress ip = inet(pr.hi(), pr.lo());
                // the databases' answers, with their prefix lengths in the 128-bit space
                String[] best = new String[6];
                int[] bestLen = new int[7];
                java.util.Arrays.fill(bestLen, -1);
                long bestAsn = 0;
                @SuppressWarnings("rawtypes")
                DatabaseRecord<Map> a = ar.getRecord(ip, Map.class);
                if (a.data() != null) {
                    bestAsn = (Long) a.data().get("autonomous_system_number");
                    bestLen[6] = a.network().prefixLength() + (v4 ? 96 : 0);
                }
                @SuppressWarnings("rawtypes")
                DatabaseRecord<Map> g = (v4 ? r4 : r6).getRecord(ip, Map.class);
                if (g.data() != null) {
                    best[5] = (String) g.data().get("country_code");
                    bestLen[5] = g.network().prefixLength() + (v4 ? 96 : 0);
                }
                // configured networks: the longest containing prefix per field, later ones winning ties
                for (int i = 0; i < nets.size(); i++) {
                    IpPrefix p = netPrefixes.get(i);
                    if (!contains(p, pr.hi(), pr.lo())) {
                        continue;
                    }
                    StaticNetwork s = nets.get(i);
                    String[] f = {s.name(), s.role(), s.site(), s.region(), s.tenant(), s.country()};
                    for (int k = 0; k < 6; k++) {
                        if (!f[k].isEmpty() && p.length() >= bestLen[k]) {
                            best[k] = f[k];
                            bestLen[k] = p.length();
                        }
                    }
                    if (s.asn() != 0 && p.length() >= bestLen[6]) {
                        bestAsn = s.asn();
                        bestLen[6] = p.length();
                    }
                }
                NetworkInfo got = t.lookup(pr.hi(), pr.lo());
                String where = IpAddresses.ipv6String(pr.hi(), pr.lo());
                assertThat(got.name().text).as(where).isEqualTo(best[0] == null ? "" : best[0]);
                assertThat(got.role().text).as(where).isEqualTo(best[1] == null ? "" : best[1]);
                assertThat(got.site().text).as(where).isEqualTo(best[2] == null ? "" : best[2]);
                assertThat(got.region().text).as(where).isEqualTo(best[3] == null ? "" : best[3]);
                assertThat(got.tenant().text).as(where).isEqualTo(best[4] == null ? "" : best[4]);
                assertThat(got.country().text).as(where).isEqualTo(best[5] == null ? "" : best[5]);
                assertThat(got.asn()).as(where).isEqualTo(bestAsn);
                boolean named = bestAsn >= 64512 && bestAsn < 64552 && t.asNames().containsKey(bestAsn);
                assertThat(got.asName().text).as(where).isEqualTo(named ? "org of " + bestAsn : "");
                checked++;
                filled[0] += bestAsn != 0 ? 1 : 0;
                filled[1] += best[5] != null ? 1 : 0;
                filled[2] += best[0] != null ? 1 : 0;
            }
        }
        assertThat(checked).isGreaterThan(9000);
        assertThat(java.util.Arrays.stream(filled).min().orElse(0)).as("probes with AS, country, name %s",
                java.util.Arrays.toString(filled)).isGreaterThan(1000);
        // one instance per distinct attribute set
        assertThat(t.distinctValues()).isLessThanOrEqualTo(t.intervals());
    }
}
