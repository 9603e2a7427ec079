package io.vecflow.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz target: {@link PacketParser#parse} — the parser of sFlow sampled headers, AF_PACKET frames and pcap
 * records —
 * on arbitrary bytes, under every {@link LinkType} (and null) and both stock configurations (seeds: the packets of
 * testdata/traffic, their IP layers alone, and the sampled headers of testdata/sflow; see {@link SeedCorpus}).
 *
 * <p>For each link type and configuration the same bytes are parsed three ways, which must agree field by field
 * (every field of {@link ParsedPacket}, read by reflection so that fields added later are covered too):
 * <ol>
 *   <li>the input array itself at offset 0 — a read past {@code len} throws;</li>
 *   <li>a copy at an odd offset inside a larger array filled with junk — catches offsets not relative to
 *       {@code off};</li>
 *   <li>the {@link MemorySegment} overload on an exactly sized slice — a read past {@code len} throws.</li>
 * </ol>
 * A finding is any exception from {@code parse} (the ranges are valid, so it must not throw), a disagreement, a
 * status outside the five constants, an offset outside [-1, len], a count above its cap, an exception from any
 * public accessor within its documented index range, more than {@link Alloc#PARSER_CAP} bytes allocated by the
 * three parse calls, or an input taking more than 5 s.
 */
class PacketParserFuzzTest {
    private static final String METHOD = "parse";

    static final int PAD_OFFSET = 4_099;
    private static final byte JUNK = (byte) 0x5A;
    private static final LinkType[] LINK_TYPES = linkTypes();
    private static final PacketParser.Config[] CONFIGS = {PacketParser.Config.DEFAULT,
            PacketParser.Config.NO_DECAPSULATION};
    /** Every instance field of ParsedPacket (compared between the three parses). */
    private static final Snapshots<ParsedPacket> FIELDS = Snapshots.fields(ParsedPacket.class);
    /** Every public accessor without parameters (called on each result). */
    private static final Snapshots<ParsedPacket> GETTERS = Snapshots.accessors(ParsedPacket.class, "reset");
    /** Public accessors taking an index. */
    private static final Method[] INDEXED = indexed();

    private final ParsedPacket a = new ParsedPacket();
    private final ParsedPacket b = new ParsedPacket();
    private final ParsedPacket c = new ParsedPacket();
    private final byte[] scratch16 = new byte[16];
    private final long[] fa = new long[FIELDS.size()];
    private final long[] fb = new long[FIELDS.size()];
    private final long[] fc = new long[FIELDS.size()];
    private final long[] getters = new long[GETTERS.size()];
    private byte[] padded = junk(PAD_OFFSET + 4096 + 64);

    @FuzzTest(maxDuration = "60s")
    @Timeout(value = 5, unit = TimeUnit.SECONDS)
    void parse(byte[] data) throws Throwable {
        Findings.run(getClass(), METHOD, data, () -> {
            int len = data.length;
            if (padded.length < PAD_OFFSET + len + 64) {
                padded = junk(PAD_OFFSET + len + 64);
            }
            System.arraycopy(data, 0, padded, PAD_OFFSET, len);
            MemorySegment slice = MemorySegment.ofArray(padded).asSlice(PAD_OFFSET, len);
            long cap = Alloc.cap(Alloc.PARSER_CAP, 3 * len);
            for (LinkType lt : LINK_TYPES) {
                for (PacketParser.Config cfg : CONFIGS) {
                    long over = Alloc.overCap(cap, () -> {
                        long t0 = Alloc.now();
                        int sa = PacketParser.parse(data, 0, len, lt, cfg, a);
                        int sb = PacketParser.parse(padded, PAD_OFFSET, len, lt, cfg, b);
                        int sc = PacketParser.parse(slice, 0, len, lt, cfg, c);
                        long used = Alloc.now() - t0;
                        if (sa != a.status() || sb != b.status() || sc != c.status()) {
                            throw new AssertionError("returned status differs from status(): " + sa + "/" + sb + "/"
                                    + sc + " vs " + a.status() + "/" + b.status() + "/" + c.status());
                        }
                        return used;
                    });
                    if (over >= 0) {
                        throw new Alloc.CapExceeded("PacketParser.parse (" + lt + ", " + cfg + ") allocated " + over
                                + " bytes for 3 parses of one " + len + "-byte packet (cap " + cap
                                + ", after " + Alloc.RETRIES + " repetitions)");
                    }
                    check(a, lt, len);
                    FIELDS.read(a, fa);
                    FIELDS.read(b, fb);
                    FIELDS.read(c, fc);
                    same(fa, fb, "byte[] at offset " + PAD_OFFSET, lt, cfg);
                    same(fa, fc, "MemorySegment slice", lt, cfg);
                }
            }
            Arrays.fill(padded, PAD_OFFSET, PAD_OFFSET + len, JUNK);
        });
    }

    /** Invariants of one result, then every public accessor (within its index range) is called. */
    private void check(ParsedPacket p, LinkType lt, int len) throws Throwable {
        int st = p.status();
        if (st != ParsedPacket.OK && st != ParsedPacket.NOT_IP && st != ParsedPacket.TRUNCATED
                && st != ParsedPacket.MALFORMED && st != ParsedPacket.UNSUPPORTED_LINK) {
            throw broken("status " + st);
        }
        if (!((lt == null) == (st == ParsedPacket.UNSUPPORTED_LINK))) {
            throw broken("UNSUPPORTED_LINK iff no link type, got " + ParsedPacket.statusName(st) + " for " + lt);
        }
        if (!(p.linkType() == lt)) {
            throw broken("linkType " + p.linkType() + " != " + lt);
        }
        if (!(p.length() == len)) {
            throw broken("length " + p.length() + " != " + len);
        }
        boolean error = st == ParsedPacket.TRUNCATED || st == ParsedPacket.MALFORMED;
        if (!(p.errorLayer() != null && (p.errorLayer() == ParsedPacket.Layer.NONE) == !error)) {
            throw broken("errorLayer " + p.errorLayer() + " with status " + ParsedPacket.statusName(st));
        }
        if (p.errorDepth() < 0 || p.errorDepth() > PacketParser.MAX_TUNNEL_DEPTH || !error && p.errorDepth() != 0) {
            throw broken("errorDepth " + p.errorDepth() + " with status " + ParsedPacket.statusName(st));
        }
        if (!(error == (p.errorOffset() >= 0))) {
            throw broken("errorOffset " + p.errorOffset() + " with status " + ParsedPacket.statusName(st));
        }
        offset("errorOffset", p.errorOffset(), len);
        offset("truncatedAt", p.truncatedAt(), len);
        offset("l2Offset", p.l2Offset(), len);
        offset("l3Offset", p.l3Offset(), len);
        offset("l4Offset", p.l4Offset(), len);
        offset("innerL2Offset", p.innerL2Offset(), len);
        offset("innerL3Offset", p.innerL3Offset(), len);
        offset("innerL4Offset", p.innerL4Offset(), len);
        if (!(p.vlanCount() >= 0 && p.vlanCount() <= PacketParser.MAX_VLAN_TAGS)) {
            throw broken("vlanCount " + p.vlanCount());
        }
        if (!(p.mplsLabelCount() >= 0 && p.mplsLabelCount() <= PacketParser.MAX_MPLS_LABELS)) {
            throw broken("mplsLabelCount " + p.mplsLabelCount());
        }
        if (!(p.tunnelDepth() >= 0 && p.tunnelDepth() <= PacketParser.MAX_TUNNEL_DEPTH)) {
            throw broken("tunnelDepth " + p.tunnelDepth());
        }
        if (!(p.srhSegmentCount() >= 0)) {
            throw broken("srhSegmentCount " + p.srhSegmentCount());
        }
        if (!(p.ipVersion() == 0 || p.ipVersion() == 4 || p.ipVersion() == 6)) {
            throw broken("ipVersion " + p.ipVersion());
        }
        GETTERS.read(p, getters);
        for (Method m : INDEXED) {
            int n = m.getName().startsWith("mpls") ? p.mplsLabelCount()
                    : m.getName().startsWith("srh") ? Math.min(p.srhSegmentCount(), PacketParser.MAX_SRH_SEGMENTS)
                    : m.getName().equals("encapsulationAt") ? p.tunnelDepth() : 0;
            for (int i = 0; i < n; i++) {
                invoke(m, p, i);
            }
        }
        for (int i = 0; i < Math.min(p.srhSegmentCount(), PacketParser.MAX_SRH_SEGMENTS); i++) {
            p.writeSrhSegment(i, scratch16, 0);
        }
        p.writeSrcAddr(scratch16, 0);
        p.writeDstAddr(scratch16, 0);
        p.writeInnerSrcAddr(scratch16, 0);
        p.writeInnerDstAddr(scratch16, 0);
    }

    private static void offset(String name, int v, int len) {
        if (!(v >= -1 && v <= len)) {
            throw broken(name + " " + v + " outside [-1, " + len + "]");
        }
    }

    private static void invoke(Method m, ParsedPacket p, Object... args) throws Exception {
        try {
            m.invoke(p, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            throw (Error) e.getCause();
        }
    }

    private static void same(long[] x, long[] y, String how, LinkType lt, PacketParser.Config cfg) {
        int i = Snapshots.firstDifference(x, y);
        if (i >= 0) {
            throw new AssertionError("parsing at offset 0 and as " + how + " (" + lt + ", " + cfg
                    + ") disagree on " + FIELDS.name(i) + ": " + x[i] + " vs " + y[i]);
        }
    }

    private static AssertionError broken(String what) {
        return new AssertionError("invariant broken: " + what);
    }

    private static byte[] junk(int n) {
        byte[] b = new byte[n];
        Arrays.fill(b, JUNK);
        return b;
    }

    private static LinkType[] linkTypes() {
        LinkType[] all = Arrays.copyOf(LinkType.values(), LinkType.values().length + 1);
        all[all.length - 1] = null;
        return all;
    }

    private static Method[] indexed() {
        List<Method> out = new ArrayList<>();
        for (Method m : ParsedPacket.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers())
                    && m.getParameterCount() == 1 && m.getParameterTypes()[0] == int.class) {
                out.add(m);
            }
        }
        out.sort(Comparator.comparing(Method::getName));
        return out.toArray(Method[]::new);
    }
}
