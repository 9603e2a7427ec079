package io.vecflow.collector.enrich.geoip;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A small writer of the MaxMind DB format 2.0 (https://maxmind.github.io/MaxMind-DB/), for tests and the demo data:
 * a binary search tree over the address bits (record size 24, 28 or 32 bits, the smallest that fits unless set),
 * the 16-byte separator, a data section with each distinct record written once, and the metadata map after the
 * "\xAB\xCD\xEFMaxMind.com" marker. An IPv6 database keeps IPv4 networks at ::a.b.c.d/(96+n), where MaxMind's
 * readers look IPv4 addresses up; the aliases MaxMind adds (::ffff:0:0/96, 2002::/16) are not written.
 *
 * <p>Values: String (utf8_string), Integer/Long 0..2^32−1 (uint32), larger Long (uint64), negative Integer (int32),
 * BigInteger (uint128), Double, Float, Boolean, byte[] (bytes), Map with String keys (map, keys sorted, so the output
 * does not depend on the map's order), List (array). A later insert overrides the range it covers. A record map
 * must not change once inserted (the same map inserted again is not encoded again).
 */
public final class MmdbWriter {
    private static final byte[] METADATA_MARKER = {(byte) 0xAB, (byte) 0xCD, (byte) 0xEF, 'M', 'a', 'x', 'M', 'i',
        'n', 'd', '.', 'c', 'o', 'm'};

    private final String databaseType;
    private final int ipVersion;
    private long buildEpoch;
    private int recordSize;
    private String description = "vecflow test database";
    // trie: 0 = empty, > 0 = node, < 0 = -(data id + 1); node 0 is the root
    private int[] left = new int[1024];
    private int[] right = new int[1024];
    private int nodes = 1;
    private final List<byte[]> data = new ArrayList<>();
    private final Map<ByteBuffer, Integer> dataIds = new HashMap<>();
    private final Map<Map<String, ?>, Integer> lastRecords = new IdentityHashMap<>();

    /**
     * @param databaseType the metadata's database_type (e.g. "GeoLite2-ASN", "ipinfo country_asn.mmdb")
     * @param ipVersion 4 (32-bit tree) or 6 (128-bit tree, IPv4 at ::/96)
     */
    public MmdbWriter(String databaseType, int ipVersion) {
        if (ipVersion != 4 && ipVersion != 6) {
            throw new IllegalArgumentException("ip_version must be 4 or 6, got " + ipVersion);
        }
        this.databaseType = databaseType;
        this.ipVersion = ipVersion;
    }

    /** @return this, with the metadata's build_epoch (seconds; default 0, so the output is reproducible) */
    public MmdbWriter buildEpoch(long seconds) {
        this.buildEpoch = seconds;
        return this;
    }

    /** @return this, with the metadata's English description */
    public MmdbWriter description(String text) {
        this.description = text;
        return this;
    }

    /** @return this, with a fixed record size (24, 28 or 32; 0 = the smallest that fits) */
    public MmdbWriter recordSize(int bits) {
        if (bits != 0 && bits != 24 && bits != 28 && bits != 32) {
            throw new IllegalArgumentException("record size must be 24, 28 or 32, got " + bits);
        }
        this.recordSize = bits;
        return this;
    }

    /**
     * Stores a record for every address of a network.
     *
     * @param cidr "1.2.3.0/24" or "2001:db8::/32" (host bits zero)
     * @param record the record (see the class comment for the types)
     * @return this
     * @throws IllegalArgumentException for a bad prefix, an IPv6 prefix in an IPv4 database, a value of no MMDB type
     */
    public MmdbWriter insert(String cidr, Map<String, ?> record) {
        IpPrefix p = IpPrefix.parse(cidr);
        long hi;
        long lo;
        int depth;
        if (p.isIpv4()) {
            hi = ipVersion == 4 ? (long) p.ipv4() << 32 : 0;
            lo = ipVersion == 4 ? 0 : p.ipv4() & 0xFFFF_FFFFL;
            depth = ipVersion == 4 ? p.length() - 96 : p.length();
        } else if (ipVersion == 4) {
            throw new IllegalArgumentException(cidr + ": IPv6 network in an IPv4 database");
        } else {
            hi = p.hi();
            lo = p.lo();
            depth = p.length();
        }
        int leaf = -(dataId(record) + 1);
        if (depth == 0) {
            left[0] = leaf;
            right[0] = leaf;
            return this;
        }
        int node = 0;
        for (int d = 0; d < depth; d++) {
            int bit = (int) (d < 64 ? hi >>> (63 - d) : lo >>> (127 - d)) & 1;
            if (d == depth - 1) {
                set(node, bit, leaf);
                break;
            }
            int rec = bit == 0 ? left[node] : right[node];
            if (rec > 0) {
                node = rec;
                continue;
            }
            int child = newNode(rec); // a record covering the range is pushed down to both halves
            set(node, bit, child);
            node = child;
        }
        return this;
    }

    private void set(int node, int bit, int value) {
        if (bit == 0) {
            left[node] = value;
        } else {
            right[node] = value;
        }
    }

    private int newNode(int fill) {
        if (nodes == left.length) {
            left = Arrays.copyOf(left, nodes * 2);
            right = Arrays.copyOf(right, nodes * 2);
        }
        left[nodes] = fill;
        right[nodes] = fill;
        return nodes++;
    }

    private int dataId(Map<String, ?> record) {
        Integer known = lastRecords.get(record); // the same map inserted again (a converter's cache): no re-encoding
        if (known != null) {
            return known;
        }
        if (lastRecords.size() > 100_000) {
            lastRecords.clear();
        }
        Buf b = new Buf();
        encode(b, record);
        ByteBuffer key = ByteBuffer.wrap(b.toArray());
        Integer id = dataIds.get(key);
        if (id == null) {
            id = data.size();
            data.add(key.array());
            dataIds.put(key, id);
        }
        lastRecords.put(record, id);
        return id;
    }

    /**
     * Writes the database (to a temporary file beside it, then renamed over it: a reader never sees half a file).
     *
     * @param file where
     * @throws IOException when it cannot be written
     */
    public void write(Path file) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(tmp, toBytes());
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** @return the database's bytes */
    public byte[] toBytes() {
        // number the nodes reachable from the root breadth-first (the root stays 0)
        int[] newId = new int[nodes];
        Arrays.fill(newId, -1);
        int[] queue = new int[nodes];
        int head = 0;
        int tail = 0;
        queue[tail++] = 0;
        newId[0] = 0;
        while (head < tail) {
            int x = queue[head++];
            for (int rec : new int[] {left[x], right[x]}) {
                if (rec > 0 && newId[rec] < 0) {
                    newId[rec] = tail;
                    queue[tail++] = rec;
                }
            }
        }
        long nodeCount = tail;
        long[] offset = new long[data.size()];
        long dataSize = 0;
        for (int i = 0; i < data.size(); i++) {
            offset[i] = dataSize;
            dataSize += data.get(i).length;
        }
        long max = nodeCount + 16 + dataSize;
        int rs = recordSize != 0 ? recordSize : max < 1L << 24 ? 24 : max < 1L << 28 ? 28 : 32;
        if (max >= 1L << rs) {
            throw new IllegalStateException("record size " + rs + " cannot point at " + max);
        }
        Buf out = new Buf();
        for (int i = 0; i < tail; i++) {
            int x = queue[i];
            long l = value(left[x], newId, nodeCount, offset);
            long r = value(right[x], newId, nodeCount, offset);
            switch (rs) {
                case 24 -> {
                    out.be(l, 3);
                    out.be(r, 3);
                }
                case 28 -> {
                    out.be(l & 0xFF_FFFF, 3);
                    out.put((int) ((l >>> 24) << 4 | (r >>> 24)));
                    out.be(r & 0xFF_FFFF, 3);
                }
                default -> {
                    out.be(l, 4);
                    out.be(r, 4);
                }
            }
        }
        for (int i = 0; i < 16; i++) {
            out.put(0);
        }
        for (byte[] d : data) {
            out.put(d);
        }
        out.put(METADATA_MARKER);
        Map<String, Object> md = new TreeMap<>();
        md.put("binary_format_major_version", new U16(2));
        md.put("binary_format_minor_version", new U16(0));
        md.put("build_epoch", new U64(buildEpoch));
        md.put("database_type", databaseType);
        md.put("description", Map.of("en", description));
        md.put("ip_version", new U16(ipVersion));
        md.put("languages", List.of("en"));
        md.put("node_count", nodeCount);
        md.put("record_size", new U16(rs));
        encode(out, md);
        return out.toArray();
    }

    private static long value(int rec, int[] newId, long nodeCount, long[] offset) {
        if (rec == 0) {
            return nodeCount;
        }
        if (rec > 0) {
            return newId[rec];
        }
        return nodeCount + 16 + offset[-rec - 1];
    }

    /** An unsigned 16-bit value (metadata fields the spec types uint16). */
    private record U16(int value) {}

    /** An unsigned 64-bit value. */
    private record U64(long value) {}

    private static void encode(Buf b, Object v) {
        switch (v) {
            case String s -> {
                byte[] u = s.getBytes(StandardCharsets.UTF_8);
                ctrl(b, 2, u.length);
                b.put(u);
            }
            case Double d -> {
                ctrl(b, 3, 8);
                b.be(Double.doubleToLongBits(d), 8);
            }
            case byte[] bytes -> {
                ctrl(b, 4, bytes.length);
                b.put(bytes);
            }
            case U16 u -> unsigned(b, 5, u.value());
            case U64 u -> unsigned(b, 9, u.value());
            case Integer i when i < 0 -> {
                ctrl(b, 8, 4);
                b.be(i, 4);
            }
            case Integer i -> unsigned(b, 6, i);
            case Long l when l >= 0 && l <= 0xFFFF_FFFFL -> unsigned(b, 6, l);
            case Long l when l >= 0 -> unsigned(b, 9, l);
            case BigInteger big when big.signum() >= 0 && big.bitLength() <= 128 -> {
                byte[] m = big.toByteArray();
                int skip = m.length > 1 && m[0] == 0 ? 1 : 0;
                int n = big.signum() == 0 ? 0 : m.length - skip;
                ctrl(b, 10, n);
                b.put(Arrays.copyOfRange(m, skip, skip + n));
            }
            case Map<?, ?> m -> {
                TreeMap<String, Object> sorted = new TreeMap<>();
                m.forEach((k, x) -> sorted.put((String) k, x));
                ctrl(b, 7, sorted.size());
                sorted.forEach((k, x) -> {
                    encode(b, k);
                    encode(b, x);
                });
            }
            case List<?> list -> {
                ctrl(b, 11, list.size());
                list.forEach(x -> encode(b, x));
            }
            case Boolean bool -> ctrl(b, 14, bool ? 1 : 0);
            case Float f -> {
                ctrl(b, 15, 4);
                b.be(Float.floatToIntBits(f), 4);
            }
            default -> throw new IllegalArgumentException("no MaxMind DB type for " + v + " (" + v.getClass() + ")");
        }
    }

    private static void unsigned(Buf b, int type, long v) {
        int n = (64 - Long.numberOfLeadingZeros(v) + 7) / 8;
        ctrl(b, type, n);
        b.be(v, n);
    }

    /** Control byte (type in the top 3 bits, 0 = extended: type − 7 in the next byte), then the size bytes. */
    private static void ctrl(Buf b, int type, int size) {
        int sizeBits;
        int extra;
        if (size < 29) {
            sizeBits = size;
            extra = 0;
        } else if (size < 29 + 256) {
            sizeBits = 29;
            extra = 1;
        } else if (size < 285 + 65536) {
            sizeBits = 30;
            extra = 2;
        } else {
            sizeBits = 31;
            extra = 3;
        }
        b.put((type <= 7 ? type : 0) << 5 | sizeBits);
        if (type > 7) {
            b.put(type - 7);
        }
        switch (extra) {
            case 1 -> b.put(size - 29);
            case 2 -> b.be(size - 285, 2);
            case 3 -> b.be(size - 65821, 3);
            default -> { }
        }
    }

    /** A growable byte array. */
    private static final class Buf {
        private byte[] a = new byte[256];
        private int n;

        void put(int x) {
            if (n == a.length) {
                a = Arrays.copyOf(a, n * 2);
            }
            a[n++] = (byte) x;
        }

        void put(byte[] x) {
            for (byte y : x) {
                put(y);
            }
        }

        void be(long v, int bytes) {
            for (int i = bytes - 1; i >= 0; i--) {
                put((int) (v >>> (8 * i)));
            }
        }

        byte[] toArray() {
            return Arrays.copyOf(a, n);
        }
    }
}
