package io.vecflow.collector.enrich.geoip;

import io.vecflow.collector.schema.Label;
import io.vecflow.collector.schema.NetworkInfo;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Builds a {@link NetworkTable} from AS databases, country databases (MaxMind DB files, see {@link MmdbSource} for
 * the layouts read) and the configured networks, with Akvorado's precedence:
 * <ul>
 * <li>for one address and one field, the most specific prefix that sets the field gives it, whatever its source: a
 *     prefix inherits the fields it leaves unset from the prefixes around it (the tree is flattened);</li>
 * <li>for the same prefix, configured networks override the databases field by field where they set a field (a
 *     later configured network with the same prefix overrides an earlier one; likewise a later database file);</li>
 * <li>AS number and AS name go together: the name is the ASN databases' name of the number that wins (a configured
 *     {@code asn} takes its name from there too).</li>
 * </ul>
 * The result is cut into disjoint intervals, adjacent intervals with the same attributes merged, every distinct
 * attribute set held once. Several files of one kind (an IPv4 and an IPv6 file) simply add up.
 *
 * <p>Cost: the databases are read in full with MaxMind's reader (its decoding dominates). On this project's 2-core
 * test machine the real ip-location-db AS and country data (1.74 million networks) builds in 2–6 s into 971,000
 * intervals (12.8 bytes each, 48 MiB of heap with the values and AS names; GeoIpRealDataTest prints the figures);
 * while building, the networks take about 40 bytes each in primitive arrays.
 */
public final class NetworkTableBuilder {
    /** At most this many networks from all sources together (a bound on memory while building). */
    static final int MAX_NETWORKS = 1 << 26;

    private long[] hi = new long[1024];
    private long[] lo = new long[1024];
    private byte[] len = new byte[1024];
    private int[] attr = new int[1024];
    private int n;
    private final List<Attrs> attrList = new ArrayList<>();
    private final Map<Attrs, Integer> attrIds = new HashMap<>();
    private final Map<String, Label> labels = new HashMap<>();
    private final Map<Long, Label> asNames = new HashMap<>();

    private NetworkTableBuilder() {}

    /**
     * Reads the sources and flattens them.
     *
     * @param asnDatabases MaxMind DB files with AS numbers and names (GeoLite2-ASN or ipinfo layout), in order
     * @param geoDatabases MaxMind DB files with countries (GeoLite2-Country/City, sapics ip-location-db, ipinfo)
     * @param networks the configured networks (override the databases for the same prefix)
     * @return the table
     * @throws IOException naming the file, when a database is missing, unreadable or corrupt
     * @throws IllegalArgumentException naming {@link StaticNetwork#source()} and the value, for a bad prefix
     *         (garbage, length over 32/128, host bits set), country or AS number
     */
    public static NetworkTable build(List<Path> asnDatabases, List<Path> geoDatabases, List<StaticNetwork> networks)
            throws IOException {
        NetworkTableBuilder b = new NetworkTableBuilder();
        for (Path p : asnDatabases) {
            MmdbSource.read(p, MmdbSource.Kind.ASN, b::add, b::label, b.asNames);
        }
        for (Path p : geoDatabases) {
            MmdbSource.read(p, MmdbSource.Kind.GEO, b::add, b::label, b.asNames);
        }
        for (StaticNetwork s : networks) {
            b.addStatic(s);
        }
        return b.flatten();
    }

    private Label label(String text) {
        return labels.computeIfAbsent(text, Label::of);
    }

    private void add(long h, long l, int length, Attrs a) {
        if (n == hi.length) {
            if (n >= MAX_NETWORKS) {
                throw new IllegalStateException("more than " + MAX_NETWORKS + " networks in the GeoIP sources");
            }
            int cap = (int) Math.min(MAX_NETWORKS, n * 2L);
            hi = Arrays.copyOf(hi, cap);
            lo = Arrays.copyOf(lo, cap);
            len = Arrays.copyOf(len, cap);
            attr = Arrays.copyOf(attr, cap);
        }
        Integer id = attrIds.get(a);
        if (id == null) {
            id = attrList.size();
            attrList.add(a);
            attrIds.put(a, id);
        }
        hi[n] = h;
        lo[n] = l;
        len[n] = (byte) length;
        attr[n] = id;
        n++;
    }

    private void addStatic(StaticNetwork s) {
        IpPrefix p;
        try {
            p = IpPrefix.parse(s.prefix());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(s.source() + ": prefix " + e.getMessage(), e);
        }
        Label country = null;
        if (!s.country().isEmpty()) {
            String c = s.country().strip();
            if (c.length() != 2 || !c.chars().allMatch(ch -> (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z'))) {
                throw new IllegalArgumentException(s.source() + ": country '" + s.country()
                        + "' is not an ISO 3166-1 alpha-2 code (two letters)");
            }
            country = label(c.toUpperCase(Locale.ROOT));
        }
        if (s.asn() < 0 || s.asn() > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(s.source() + ": asn " + s.asn() + " is outside 0..4294967295");
        }
        add(p.hi(), p.lo(), p.length(), new Attrs(set(s.name()), set(s.role()), set(s.site()), set(s.region()),
                set(s.tenant()), country, s.asn() == 0 ? -1 : s.asn()));
    }

    private Label set(String text) {
        return text.isEmpty() ? null : label(text);
    }

    // ---- flattening

    private int count;
    private long[] uHi = new long[1024];
    private long[] uLo = new long[1024];
    private int[] uVal = new int[1024];
    private final Map<NetworkInfo, Integer> valueIds = new HashMap<>();
    private final List<NetworkInfo> values = new ArrayList<>();
    private final Map<Attrs, Integer> mergedValue = new HashMap<>();

    private NetworkTable flatten() {
        values.add(NetworkInfo.EMPTY);
        valueIds.put(NetworkInfo.EMPTY, 0);
        int[] order = sortedOrder();
        int[] rootValue = new int[attrList.size()];
        Arrays.fill(rootValue, -1);
        long[] sEndHi = new long[64];
        long[] sEndLo = new long[64];
        int[] sVal = new int[64];
        Attrs[] sAttrs = new Attrs[64];
        int depth = 0;
        emit(0, 0, 0);
        for (int idx : order) {
            long h = hi[idx];
            long l = lo[idx];
            int length = len[idx] & 0xFF;
            while (depth > 0 && lessUnsigned(sEndHi[depth - 1], sEndLo[depth - 1], h, l)) {
                depth--;
                emitAfter(sEndHi[depth], sEndLo[depth], depth > 0 ? sVal[depth - 1] : 0);
            }
            Attrs a = attrList.get(attr[idx]);
            int v;
            if (depth == 0) {
                v = rootValue[attr[idx]];
                if (v < 0) {
                    v = valueOf(a);
                    rootValue[attr[idx]] = v;
                }
            } else {
                a = a.over(sAttrs[depth - 1]);
                v = valueOf(a);
            }
            emit(h, l, v);
            if (depth == sVal.length) {
                sEndHi = Arrays.copyOf(sEndHi, depth * 2);
                sEndLo = Arrays.copyOf(sEndLo, depth * 2);
                sVal = Arrays.copyOf(sVal, depth * 2);
                sAttrs = Arrays.copyOf(sAttrs, depth * 2);
            }
            sEndHi[depth] = h | IpPrefix.hostHi(length);
            sEndLo[depth] = l | IpPrefix.hostLo(length);
            sVal[depth] = v;
            sAttrs[depth] = a;
            depth++;
        }
        while (depth > 0) {
            depth--;
            emitAfter(sEndHi[depth], sEndLo[depth], depth > 0 ? sVal[depth - 1] : 0);
        }
        // release the inputs before the split copies
        hi = null;
        lo = null;
        return split();
    }

    private int valueOf(Attrs a) {
        Integer cached = mergedValue.get(a);
        if (cached != null) {
            return cached;
        }
        long asn = Math.max(0, a.asn());
        NetworkInfo info = new NetworkInfo(a.name(), a.role(), a.site(), a.region(), a.tenant(), a.country(), asn,
                asn > 0 ? asNames.getOrDefault(asn, Label.EMPTY) : Label.EMPTY);
        Integer id = valueIds.get(info);
        if (id == null) {
            id = values.size();
            values.add(info);
            valueIds.put(info, id);
        }
        mergedValue.put(a, id);
        return id;
    }

    private static boolean lessUnsigned(long aHi, long aLo, long bHi, long bLo) {
        int c = Long.compareUnsigned(aHi, bHi);
        return c < 0 || (c == 0 && Long.compareUnsigned(aLo, bLo) < 0);
    }

    /** A change of value at the address after (endHi, endLo); nothing after the last address. */
    private void emitAfter(long endHi, long endLo, int v) {
        if (endHi == -1L && endLo == -1L) {
            return;
        }
        long l = endLo + 1;
        emit(l == 0 ? endHi + 1 : endHi, l, v);
    }

    /** Value v from (h, l) on: replaces a change at the same address, drops a change to the same value. */
    private void emit(long h, long l, int v) {
        if (count > 0 && uHi[count - 1] == h && uLo[count - 1] == l) {
            uVal[count - 1] = v;
            if (count > 1 && uVal[count - 2] == v) {
                count--;
            }
            return;
        }
        if (count > 0 && uVal[count - 1] == v) {
            return;
        }
        if (count == uHi.length) {
            uHi = Arrays.copyOf(uHi, count * 2);
            uLo = Arrays.copyOf(uLo, count * 2);
            uVal = Arrays.copyOf(uVal, count * 2);
        }
        uHi[count] = h;
        uLo[count] = l;
        uVal[count] = v;
        count++;
    }

    /** @return the index of the last interval starting at or before (h, l) */
    private int intervalAt(long h, long l) {
        int a = 0;
        int b = count - 1;
        while (a < b) {
            int mid = (a + b + 1) >>> 1;
            if (lessUnsigned(h, l, uHi[mid], uLo[mid])) {
                b = mid - 1;
            } else {
                a = mid;
            }
        }
        return a;
    }

    /** Cuts the one 128-bit interval list into the IPv4 (mapped range) and IPv6 (the rest) tables. */
    private NetworkTable split() {
        long mStart = IpPrefix.MAPPED_LO;
        long mEnd = IpPrefix.MAPPED_LO | 0xFFFF_FFFFL;
        long after = mEnd + 1;
        int iM = intervalAt(0, mStart);
        int end4 = intervalAt(0, mEnd);
        int n4 = end4 - iM + 1;
        int[] v4Start = new int[n4];
        int[] v4Val = new int[n4];
        for (int i = iM; i <= end4; i++) {
            v4Start[i - iM] = i == iM ? 0 : (int) uLo[i];
            v4Val[i - iM] = uVal[i];
        }
        int vAfter = uVal[intervalAt(0, after)];
        long[] h6 = new long[count + 1];
        long[] l6 = new long[count + 1];
        int[] v6 = new int[count + 1];
        int k = 0;
        boolean placed = false;
        for (int i = 0; i < count; i++) {
            if (lessUnsigned(uHi[i], uLo[i], 0, mStart)) {
                k = append(h6, l6, v6, k, uHi[i], uLo[i], uVal[i]);
            } else if (!lessUnsigned(0, after, uHi[i], uLo[i])) {
                continue; // inside the mapped range (looked up in the IPv4 table), or at its end
            } else {
                if (!placed) {
                    k = append(h6, l6, v6, k, 0, after, vAfter);
                    placed = true;
                }
                k = append(h6, l6, v6, k, uHi[i], uLo[i], uVal[i]);
            }
        }
        if (!placed) {
            k = append(h6, l6, v6, k, 0, after, vAfter);
        }
        uHi = null;
        uLo = null;
        return new NetworkTable(v4Start, v4Val, Arrays.copyOf(h6, k), Arrays.copyOf(l6, k), Arrays.copyOf(v6, k),
                values.toArray(NetworkInfo[]::new), asNames);
    }

    /**
     * Appends a change of value unless it is the value already in force (the range inside ::ffff:0:0/96 of the IPv6
     * list so takes whatever value comes before it: it is never looked up there).
     */
    private static int append(long[] h6, long[] l6, int[] v6, int k, long h, long l, int v) {
        if (k > 0 && v6[k - 1] == v) {
            return k;
        }
        h6[k] = h;
        l6[k] = l;
        v6[k] = v;
        return k + 1;
    }

    /** @return entry indices sorted by (start, length, insertion order): a parent before its children */
    private int[] sortedOrder() {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        // natural merge sort: the databases come in address order, so there are few runs to merge
        int[] runs = new int[16];
        int r = 0;
        runs[r++] = 0;
        for (int i = 1; i < n; i++) {
            if (greater(i - 1, i)) {
                if (r == runs.length) {
                    runs = Arrays.copyOf(runs, r * 2);
                }
                runs[r++] = i;
            }
        }
        if (r == 1) {
            return a;
        }
        int[] b = new int[n];
        while (r > 1) {
            int nr = 0;
            for (int j = 0; j < r; j += 2) {
                int from = runs[j];
                int mid = j + 1 < r ? runs[j + 1] : n;
                int to = j + 2 < r ? runs[j + 2] : n;
                merge(a, b, from, mid, to);
                runs[nr++] = from;
            }
            r = nr;
            int[] t = a;
            a = b;
            b = t;
        }
        return a;
    }

    private void merge(int[] src, int[] dst, int from, int mid, int to) {
        int i = from;
        int j = mid;
        for (int k = from; k < to; k++) {
            if (i < mid && (j >= to || !greater(src[i], src[j]))) {
                dst[k] = src[i++];
            } else {
                dst[k] = src[j++];
            }
        }
    }

    /** @return true when entry x sorts after entry y by (start, length); ties keep insertion order */
    private boolean greater(int x, int y) {
        int c = Long.compareUnsigned(hi[x], hi[y]);
        if (c == 0) {
            c = Long.compareUnsigned(lo[x], lo[y]);
        }
        if (c == 0) {
            c = Integer.compare(len[x] & 0xFF, len[y] & 0xFF);
        }
        return c > 0;
    }
}
