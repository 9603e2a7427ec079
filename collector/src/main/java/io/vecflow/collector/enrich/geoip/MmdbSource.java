package io.vecflow.collector.enrich.geoip;

import com.maxmind.db.CHMCache;
import com.maxmind.db.DatabaseRecord;
import com.maxmind.db.InvalidNetworkException;
import com.maxmind.db.Metadata;
import com.maxmind.db.Network;
import com.maxmind.db.Networks;
import com.maxmind.db.Reader;
import io.vecflow.collector.schema.Label;
import java.io.IOException;
import java.math.BigInteger;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Reads every network of one MaxMind DB file with MaxMind's reader ({@link Reader#networks(Class)}, the file read
 * into memory so that a rewrite while we read cannot fault) and hands the attributes of each to a sink, in the
 * 128-bit space of {@link IpPrefix}. Layouts (MaxMind DB spec, "Database Types"; the vendors' field lists):
 * <ul>
 * <li>ASN: MaxMind GeoLite2-ASN {@code autonomous_system_number} (uint32), {@code autonomous_system_organization};
 *     ipinfo (metadata {@code database_type} starting "ipinfo") {@code asn} as text "AS1234", {@code as_name} or
 *     {@code name}. Either layout's keys are tried when the other's are absent.</li>
 * <li>Country: MaxMind {@code country.iso_code}; sapics ip-location-db {@code country_code}; ipinfo {@code country}
 *     (a code) — a {@code country_code} wins over a textual {@code country} (ipinfo lite puts the name there).</li>
 * </ul>
 * The IPv4 subtree of an IPv6 database (at ::/96) comes out of the reader as IPv4 networks and is mapped to
 * ::ffff:0:0/96; the aliases of that subtree (::ffff:0:0/96, Teredo 2001::/32, 6to4 2002::/16) are not followed:
 * vecflow looks IPv4 up by its mapped address.
 */
final class MmdbSource {
    /** What a file gives. */
    enum Kind {
        /** AS numbers and names. */
        ASN("ASN"),
        /** Countries. */
        GEO("GeoIP country");

        final String what;

        Kind(String what) {
            this.what = what;
        }
    }

    /** Receives one network's attributes. */
    interface Sink {
        /**
         * @param hi network address, high half (128-bit space)
         * @param lo low half
         * @param length prefix length (0..128)
         * @param attrs what the network sets
         */
        void add(long hi, long lo, int length, Attrs attrs);
    }

    /** Decoded records kept by the reader's cache (records shared by many networks decode once). */
    private static final int DECODE_CACHE = 1 << 17;

    private MmdbSource() {}

    /**
     * @param file the database
     * @param kind ASN or country
     * @param sink receives the networks that set something
     * @param labels interns label text
     * @param asNames receives AS number → name (ASN kind; the first name seen for a number is kept)
     * @return the number of networks read (those setting nothing included)
     * @throws IOException naming the file: missing, unreadable, not a MaxMind DB, corrupt
     */
    static long read(Path file, Kind kind, Sink sink, Function<String, Label> labels, Map<Long, Label> asNames)
            throws IOException {
        if (!Files.exists(file)) {
            throw new IOException(kind.what + " database " + file + ": no such file");
        }
        if (!Files.isRegularFile(file)) {
            throw new IOException(kind.what + " database " + file + ": not a regular file");
        }
        Reader reader;
        try {
            reader = new Reader(file.toFile(), Reader.FileMode.MEMORY, new CHMCache(DECODE_CACHE));
        } catch (IOException | RuntimeException e) {
            throw new IOException(kind.what + " database " + file + ": not a readable MaxMind DB file: "
                    + e.getMessage(), e);
        }
        long n = 0;
        try (reader) {
            Metadata md = reader.getMetadata();
            String type = md.databaseType() == null ? "" : md.databaseType();
            boolean ipinfo = type.toLowerCase(Locale.ROOT).startsWith("ipinfo");
            boolean ipv6Tree = md.ipVersion() == 6;
            @SuppressWarnings("rawtypes")
            Networks<Map> it = reader.networks(Map.class);
            while (it.hasNext()) {
                @SuppressWarnings("rawtypes")
                DatabaseRecord<Map> rec = it.next();
                n++;
                Map<?, ?> data = rec.data();
                if (data == null) {
                    continue;
                }
                Attrs a = kind == Kind.ASN ? asnAttrs(data, ipinfo, labels, asNames) : countryAttrs(data, labels);
                if (a != null) {
                    emit(rec.network(), ipv6Tree, a, sink);
                }
            }
        } catch (IOException | InvalidNetworkException | RuntimeException e) {
            throw new IOException(kind.what + " database " + file + ": corrupt after " + n + " networks: "
                    + e.getMessage(), e);
        }
        return n;
    }

    private static void emit(Network net, boolean ipv6Tree, Attrs a, Sink sink) {
        InetAddress addr = net.networkAddress();
        int len = net.prefixLength();
        byte[] b = addr.getAddress();
        if (addr instanceof Inet4Address) {
            int v4 = (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
            IpPrefix p = IpPrefix.ofIpv4(v4, len);
            sink.add(p.hi(), p.lo(), p.length(), a);
            return;
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++) {
            hi = hi << 8 | (b[i] & 0xFF);
            lo = lo << 8 | (b[8 + i] & 0xFF);
        }
        if (ipv6Tree && hi == 0 && (lo >>> 32) == 0 && len >= 96) {
            // the IPv4 subtree, should a reader report it as ::a.b.c.d
            sink.add(0, IpPrefix.MAPPED_LO | lo, len, a);
            return;
        }
        sink.add(hi, lo, len, a);
        if (ipv6Tree && hi == 0 && lo == 0 && len > 80 && len <= 96) {
            // a network around ::/96 holds the IPv4 subtree too; ::/0..::/80 already cover ::ffff:0:0/96
            sink.add(0, IpPrefix.MAPPED_LO, 96, a);
        }
    }

    private static Attrs asnAttrs(Map<?, ?> d, boolean ipinfo, Function<String, Label> labels,
            Map<Long, Label> asNames) {
        Object num = ipinfo ? d.get("asn") : d.get("autonomous_system_number");
        if (num == null) {
            num = ipinfo ? d.get("autonomous_system_number") : d.get("asn");
        }
        long asn = asNumber(num);
        if (asn <= 0) {
            return null;
        }
        Object name = ipinfo ? first(d, "as_name", "name", "autonomous_system_organization")
                : first(d, "autonomous_system_organization", "as_name", "name");
        if (name instanceof String s && !s.isEmpty()) {
            asNames.putIfAbsent(asn, labels.apply(s));
        }
        return Attrs.asn(asn);
    }

    private static Object first(Map<?, ?> d, String a, String b, String c) {
        Object v = d.get(a);
        if (v == null) {
            v = d.get(b);
        }
        return v != null ? v : d.get(c);
    }

    /** @return 1..2^32-1, or -1 for anything else (absent, 0, out of range, not a number) */
    static long asNumber(Object v) {
        long n;
        if (v instanceof Long || v instanceof Integer || v instanceof Short) {
            n = ((Number) v).longValue();
        } else if (v instanceof BigInteger b) {
            n = b.bitLength() > 32 ? -1 : b.longValue();
        } else if (v instanceof String s) {
            String t = s.regionMatches(true, 0, "AS", 0, 2) ? s.substring(2) : s;
            if (t.isEmpty() || t.length() > 10 || !t.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return -1;
            }
            n = Long.parseLong(t);
        } else {
            return -1;
        }
        return n > 0 && n <= 0xFFFF_FFFFL ? n : -1;
    }

    private static Attrs countryAttrs(Map<?, ?> d, Function<String, Label> labels) {
        Object c = d.get("country");
        String code = null;
        if (c instanceof Map<?, ?> m && m.get("iso_code") instanceof String s) {
            code = s;
        } else if (d.get("country_code") instanceof String s) {
            code = s;
        } else if (c instanceof String s) {
            code = s;
        }
        if (code == null || code.isEmpty()) {
            return null;
        }
        return Attrs.country(labels.apply(code));
    }
}
