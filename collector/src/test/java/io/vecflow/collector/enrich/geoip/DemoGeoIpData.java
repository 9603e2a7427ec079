package io.vecflow.collector.enrich.geoip;

import com.maxmind.db.DatabaseRecord;
import com.maxmind.db.Reader;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import io.vecflow.packet.PcapFile;
import io.vecflow.packet.PcapFormatException;
import io.vecflow.packet.PcapPacket;
import io.vecflow.packet.PcapReader;
import java.io.File;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Makes the demo's GeoIP files, {@code testdata/geoip/demo-asn.mmdb} and {@code demo-country.mmdb}: the networks of
 * the real data (scripts/fetch-geoip.sh) that hold a public address of the captures in {@code testdata/traffic}
 * (outer and tunnelled addresses, read with vecflow's pcap reader and parser; a capture of a link type the reader
 * does not take is left out, as the demo cannot replay it), and nothing else, so that the files
 * stay small. The country file keeps the source's layout ({@code country_code}, the network the reader gives for the
 * address); the AS file is in the GeoLite2-ASN layout, every AS CSV range holding such an address cut into CIDR
 * blocks. Deterministic: the same data and captures give the same bytes. Run by {@link DemoGeoIpDataTest}.
 */
public final class DemoGeoIpData {
    /** The source versions (testdata/geoip/README.md). */
    static final String VERSION = "2.3.2026061719";
    /** Their build time, 2026-06-17 19:00 UTC (the version's date), as build_epoch. */
    static final long BUILD_EPOCH = Instant.parse("2026-06-17T19:00:00Z").getEpochSecond();

    private DemoGeoIpData() {}

    /**
     * @param args the fetched data folder (scripts/fetch-geoip.sh) and the output folder
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: DemoGeoIpData DATA_DIR OUT_DIR");
        }
        Path data = Path.of(args[0]);
        Path out = Path.of(args[1]);
        NavigableSet<BigInteger> addrs = publicAddresses(Path.of("..", "testdata", "traffic"));
        write(addrs, data.resolve("geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb"),
                List.of(data.resolve("asn/asn-ipv4.csv"), data.resolve("asn/asn-ipv6.csv")), out);
    }

    /**
     * @param country the real country MMDB
     * @param asnCsvs the real AS CSVs
     * @param out where demo-country.mmdb and demo-asn.mmdb go
     * @return a line saying what was written
     */
    static String write(NavigableSet<BigInteger> addrs, Path country, List<Path> asnCsvs, Path out)
            throws IOException {
        Map<BigInteger, String[]> nets = new TreeMap<>(); // network start → {cidr, code}
        try (Reader r = new Reader(new File(country.toString()))) {
            for (BigInteger a : addrs) {
                @SuppressWarnings("rawtypes")
                DatabaseRecord<Map> rec = r.getRecord(inet(a), Map.class);
                if (rec.data() != null && rec.data().get("country_code") instanceof String code) {
                    InetAddress n = rec.network().networkAddress();
                    IpPrefix p = IpPrefix.parse(n.getHostAddress() + "/" + rec.network().prefixLength());
                    nets.put(GeoIpTestData.big(p.hi(), p.lo()), new String[] {p.toString(), code});
                }
            }
        }
        MmdbWriter cw = new MmdbWriter("vecflow-demo-country", 6).buildEpoch(BUILD_EPOCH)
                .description("vecflow demo: networks of @ip-location-db/geo-whois-asn-country-mmdb " + VERSION
                        + " (CC0-1.0) holding the public addresses of testdata/traffic");
        for (String[] n : nets.values()) {
            cw.insert(n[0], Map.of("country_code", n[1]));
        }
        MmdbWriter aw = new MmdbWriter("GeoLite2-ASN", 6).buildEpoch(BUILD_EPOCH)
                .description("vecflow demo: AS ranges of @ip-location-db/asn " + VERSION + " (CC BY 4.0: RouteViews, "
                        + "DB-IP, NRO) holding the public addresses of testdata/traffic");
        long asnNets = GeoIpTestData.asnCsvToMmdb(asnCsvs, (s, e) -> {
            BigInteger first = addrs.ceiling(s);
            return first != null && first.compareTo(e) <= 0;
        }, aw);
        Files.createDirectories(out);
        cw.write(out.resolve("demo-country.mmdb"));
        aw.write(out.resolve("demo-asn.mmdb"));
        return addrs.size() + " public addresses; " + nets.size() + " country networks, " + asnNets
                + " AS networks written to " + out;
    }

    private static InetAddress inet(BigInteger a) throws IOException {
        byte[] b = new byte[16];
        byte[] m = a.toByteArray();
        int n = Math.min(16, m.length);
        System.arraycopy(m, m.length - n, b, 16 - n, n);
        return InetAddress.getByAddress(b);
    }

    /** @return the public unicast addresses (outer and innermost) of every capture in the folder, as numbers */
    static NavigableSet<BigInteger> publicAddresses(Path trafficDir) throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.list(trafficDir)) {
            s.filter(p -> p.toString().endsWith(".pcap")).sorted().forEach(files::add);
        }
        NavigableSet<BigInteger> out = new TreeSet<>();
        ParsedPacket pp = new ParsedPacket();
        for (Path f : files) {
            PcapFile file;
            try {
                file = PcapReader.readAll(f);
            } catch (PcapFormatException e) {
                // a link type the reader does not take (mpls-traceroute.pcap is PPP): the demo cannot replay it
                System.out.println("demo GeoIP data: " + f.getFileName() + " left out: " + e.getMessage());
                continue;
            }
            for (PcapPacket p : file.packets()) {
                byte[] d = p.data();
                PacketParser.parse(d, 0, d.length, file.linkType(), pp);
                if (pp.ipVersion() != 0) {
                    add(out, pp.srcAddrHi(), pp.srcAddrLo());
                    add(out, pp.dstAddrHi(), pp.dstAddrLo());
                }
                if (pp.innerIpVersion() != 0) {
                    add(out, pp.innerSrcAddrHi(), pp.innerSrcAddrLo());
                    add(out, pp.innerDstAddrHi(), pp.innerDstAddrLo());
                }
            }
        }
        return out;
    }

    private static void add(NavigableSet<BigInteger> out, long hi, long lo) {
        if (isPublic(hi, lo)) {
            out.add(GeoIpTestData.big(hi, lo));
        }
    }

    /** Special-purpose ranges (RFC 6890 and the IANA registries): never in a GeoIP answer that means anything. */
    private static final List<IpPrefix> SPECIAL = Stream.of("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10",
            "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24",
            "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
            "2001::/23", "2001:db8::/32", "2002::/16").map(IpPrefix::parse).toList();

    /** @return true for a global unicast address: IPv4 outside the special ranges, IPv6 in 2000::/3 outside them */
    static boolean isPublic(long hi, long lo) {
        boolean v4 = hi == 0 && (lo >>> 32) == 0xFFFFL;
        if (!v4 && (hi >>> 61) != 1) {
            return false;
        }
        for (IpPrefix p : SPECIAL) {
            if (((hi ^ p.hi()) & ~IpPrefix.hostHi(p.length())) == 0
                    && ((lo ^ p.lo()) & ~IpPrefix.hostLo(p.length())) == 0) {
                return false;
            }
        }
        return true;
    }
}
