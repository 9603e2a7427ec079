package io.vecflow.sflow;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Property-style round trips for every counter record type: random holders (seeded {@link Random}) are encoded with
 * {@link CounterSampleEncoder}, wrapped in a minimal datagram, decoded with {@link SflowDecoder} and compared field by
 * field; the decoded sample must also encode back to the same bytes. Layouts: see {@link CounterRecords}.
 */
class CounterRoundTripTest {
    static final int ITERATIONS = 300;
    static final byte[] AGENT = {10, 0, 0, 1};

    /** One record type: its data_format, spec name, a random filler (sets the flag too), the flag and the holder. */
    record Case(int format, String name, BiConsumer<Random, CounterRecords> fill, Predicate<CounterRecords> has,
            Function<CounterRecords, Object> holder) {}

    // ---- random values, biased toward the edges of each XDR type ----

    static long u32(Random rnd) {
        return switch (rnd.nextInt(8)) {
            case 0 -> 0;
            case 1 -> 0xFFFFFFFFL;
            case 2 -> 0x80000000L;
            default -> rnd.nextLong() & 0xFFFFFFFFL;
        };
    }

    static long u64(Random rnd) {
        return switch (rnd.nextInt(8)) {
            case 0 -> 0;
            case 1 -> -1L; // 2^64 - 1 as unsigned
            case 2 -> Long.MIN_VALUE; // 2^63
            default -> rnd.nextLong();
        };
    }

    static int i32(Random rnd) {
        return switch (rnd.nextInt(8)) {
            case 0 -> -1; // "unknown" percentage
            case 1 -> Integer.MIN_VALUE;
            case 2 -> 10000; // 100.00 %
            default -> rnd.nextInt();
        };
    }

    static float f32(Random rnd) {
        float f = switch (rnd.nextInt(8)) {
            case 0 -> 0f;
            case 1 -> -0f;
            case 2 -> rnd.nextFloat() * 64;
            default -> Float.intBitsToFloat(rnd.nextInt());
        };
        return Float.isNaN(f) ? Float.NaN : f; // canonical NaN: signalling NaN bits need not survive a float
    }

    static long mac(Random rnd) {
        return rnd.nextLong() & 0xFFFF_FFFF_FFFFL;
    }

    /** Points {@code v} at {@code 0..max} random bytes (at max a quarter of the time), at a random array offset. */
    static void text(Random rnd, int max, ByteView v) {
        int n = rnd.nextInt(4) == 0 ? max : rnd.nextInt(max + 1);
        int off = rnd.nextInt(4);
        byte[] b = new byte[off + n + rnd.nextInt(4)];
        rnd.nextBytes(b);
        v.set(b, off, n);
    }

    // ---- sample, datagram and decode helpers ----

    /** A fresh sample with a random kind (0:2 / 0:4), sequence and source id, and no records. */
    static CounterSample newSample(Random rnd) {
        CounterSample s = new CounterSample();
        s.expanded = rnd.nextBoolean();
        s.kind = s.expanded ? SflowFormats.COUNTERS_SAMPLE_EXPANDED : SflowFormats.COUNTERS_SAMPLE;
        s.sequenceNumber = u32(rnd);
        if (s.expanded) {
            s.sourceIdType = (int) u32(rnd);
            s.sourceIdIndex = u32(rnd);
        } else {
            s.sourceIdType = rnd.nextInt(256);
            s.sourceIdIndex = rnd.nextInt(1 << 24);
        }
        return s;
    }

    /** Appends a decoded record to the sample's list. */
    static void list(CounterSample s, int format) {
        s.recordFormats[s.recordsListed++] = format;
        s.recordCount = s.recordsListed;
    }

    /** Appends a raw (undecoded) record. */
    static void listRaw(CounterSample s, int format, byte[] body) {
        s.unknownFormats[s.unknownRecords] = format;
        s.unknownBodies[s.unknownRecords].set(body);
        s.unknownRecords++;
        list(s, format);
    }

    /** @return the sample encoded alone (data_format, length, body). */
    static byte[] encodeSample(CounterSample s) {
        XdrWriter w = new XdrWriter(1 << 16);
        assertThat(CounterSampleEncoder.encode(s, w)).as("encode").isTrue();
        return Arrays.copyOf(w.buffer(), w.position());
    }

    /** @return a minimal datagram (version 5, IPv4 agent, sub-agent, seq, uptime, 1 sample) holding the sample. */
    static byte[] datagram(CounterSample s) {
        XdrWriter w = new XdrWriter(1 << 16);
        w.u32(SflowFormats.VERSION_5).u32(SflowFormats.ADDRESS_IPV4).fixed(AGENT, 0, 4);
        w.u32(100000).u32(1).u32(123456).u32(1);
        assertThat(CounterSampleEncoder.encode(s, w)).as("encode").isTrue();
        assertThat(w.overflow()).isFalse();
        return Arrays.copyOf(w.buffer(), w.position());
    }

    /** Decodes a one-sample datagram and returns the decoder's counters sample (views point into {@code d}). */
    static CounterSample decodeOne(byte[] d, DecodeStats stats) {
        SflowDecoder decoder = new SflowDecoder(stats);
        CounterSample[] got = new CounterSample[1];
        SflowDecodeException e = decoder.decode(d, 0, d.length, new SflowVisitor() {
            @Override
            public void onDatagram(DatagramHeader h) {}

            @Override
            public void onFlowSample(DatagramHeader h, FlowSample s) {}

            @Override
            public void onCounterSample(DatagramHeader h, CounterSample s) {
                got[0] = s;
            }
        });
        assertThat(e).as("datagram error").isNull();
        assertThat(got[0]).as("counters sample delivered").isNotNull();
        return got[0];
    }

    // ---- comparisons ----

    /** Asserts the decoded holder of {@code c} equals the expected one, field by field (strings by content). */
    static void assertHolderEquals(Case c, CounterRecords actual, CounterRecords expected, String ctx) {
        String d = diff(c.holder().apply(actual), c.holder().apply(expected), "");
        if (d != null) {
            throw new AssertionError(ctx + ": " + d);
        }
    }

    /**
     * Compares two holders through their public instance fields: numbers and flags by value, floats by bit pattern,
     * {@link ByteView}s and byte arrays by content, and arrays paired with a count field ({@code <array>Count} or
     * {@code count}) over their first count entries only (the rest is stale by design).
     *
     * @return null if equal, else the first difference
     */
    static String diff(Object a, Object e, String path) {
        try {
            for (java.lang.reflect.Field f : a.getClass().getFields()) {
                if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                String name = path + f.getName();
                Object x = f.get(a);
                Object y = f.get(e);
                String d = switch (y) {
                    case Float fy -> Float.floatToIntBits((Float) x) == Float.floatToIntBits(fy) ? null
                            : name + ": " + x + " != " + y;
                    case ByteView vy -> ((ByteView) x).contentEquals(vy) ? null
                            : name + ": " + HexFormat.of().formatHex(((ByteView) x).toArray()) + " != "
                                    + HexFormat.of().formatHex(vy.toArray());
                    case byte[] by -> Arrays.equals((byte[]) x, by) ? null : name + ": bytes differ";
                    case long[] ly -> {
                        int n = count(e, f);
                        yield Arrays.equals((long[]) x, 0, n, ly, 0, n) ? null : name + ": first " + n + " differ";
                    }
                    case Object[] oy -> {
                        int n = count(e, f);
                        String first = null;
                        for (int i = 0; i < n && first == null; i++) {
                            first = diff(((Object[]) x)[i], oy[i], name + "[" + i + "].");
                        }
                        yield first;
                    }
                    default -> y.equals(x) ? null : name + ": " + x + " != " + y;
                };
                if (d != null) {
                    return d;
                }
            }
            return null;
        } catch (ReflectiveOperationException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static int count(Object holder, java.lang.reflect.Field array) throws ReflectiveOperationException {
        try {
            return holder.getClass().getField(array.getName() + "Count").getInt(holder);
        } catch (NoSuchFieldException ex) {
            return holder.getClass().getField("count").getInt(holder);
        }
    }

    /** Asserts the sample header fields and record list match. */
    static void assertSampleHeader(CounterSample actual, CounterSample expected, String ctx) {
        assertThat(actual.kind).as(ctx + " kind").isEqualTo(expected.kind);
        assertThat(actual.expanded).as(ctx + " expanded").isEqualTo(expected.expanded);
        assertThat(actual.sequenceNumber).as(ctx + " sequence").isEqualTo(expected.sequenceNumber);
        assertThat(actual.sourceIdType).as(ctx + " source type").isEqualTo(expected.sourceIdType);
        assertThat(actual.sourceIdIndex).as(ctx + " source index").isEqualTo(expected.sourceIdIndex);
        assertThat(actual.recordCount).as(ctx + " records").isEqualTo(expected.recordsListed);
        assertThat(Arrays.copyOf(actual.recordFormats, actual.recordsListed)).as(ctx + " record formats")
                .containsExactly(Arrays.copyOf(expected.recordFormats, expected.recordsListed));
        assertThat(actual.recordErrors).as(ctx + " record errors").isZero();
        assertThat(actual.duplicateRecords).as(ctx + " duplicates").isZero();
    }

    static Case caseOf(int format) {
        return CASES.stream().filter(c -> c.format() == format).findFirst().orElseThrow();
    }

    // ---- tests ----

    @Test
    void everyRecordTypeRoundTripsThroughTheDecoder() {
        assertThat(CASES).hasSize(27);
        for (Case c : CASES) {
            assertThat(CounterRecords.isDecoded(c.format())).as(c.name()).isTrue();
            Random rnd = new Random(0x5F10_0000L + c.format());
            for (int it = 0; it < ITERATIONS; it++) {
                String ctx = c.name() + " #" + it;
                CounterSample s = newSample(rnd);
                c.fill().accept(rnd, s.records);
                list(s, c.format());
                byte[] d = datagram(s);
                DecodeStats stats = new DecodeStats();
                CounterSample got = decodeOne(d, stats);
                assertSampleHeader(got, s, ctx);
                assertThat(got.unknownRecords).as(ctx).isZero();
                for (Case other : CASES) {
                    if (other.has().test(got.records) != (other == c)) {
                        throw new AssertionError(ctx + ": has " + other.name());
                    }
                }
                assertHolderEquals(c, got.records, s.records, ctx);
                assertThat(stats.badRecords()).as(ctx).isZero();
                assertThat(stats.badDatagrams()).as(ctx).isZero();
                // decode -> encode gives the same bytes
                XdrWriter w = new XdrWriter(1 << 16);
                assertThat(CounterSampleEncoder.encode(got, w)).as(ctx).isTrue();
                assertThat(Arrays.copyOf(w.buffer(), w.position())).as(ctx + " re-encoded")
                        .isEqualTo(Arrays.copyOfRange(d, SflowFormats.HEADER_BYTES_IPV4, d.length));
            }
        }
    }

    @Test
    void mixedSamplesWithRawRecordsRoundTrip() {
        int[] rawFormats = {6, 1002, 1004, 2201, 2207, (4413 << 12) + 3, (5703 << 12) + 1, (8800 << 12) + 2};
        Random rnd = new Random(20260501L);
        for (int it = 0; it < ITERATIONS; it++) {
            String ctx = "mixed #" + it;
            CounterSample s = newSample(rnd);
            List<Case> chosen = new ArrayList<>(CASES);
            Collections.shuffle(chosen, rnd);
            chosen = chosen.subList(0, 1 + rnd.nextInt(CASES.size()));
            int raws = rnd.nextInt(5);
            int rawAt = 0;
            for (int k = 0; k < chosen.size() + raws; k++) {
                boolean raw = rawAt < raws && (k >= chosen.size() || rnd.nextInt(3) == 0);
                if (raw) {
                    int f = rnd.nextBoolean() ? rawFormats[rnd.nextInt(rawFormats.length)]
                            : (1 + rnd.nextInt((1 << 20) - 1)) << 12 | rnd.nextInt(4096);
                    assertThat(CounterRecords.isDecoded(f)).isFalse();
                    byte[] body = new byte[rnd.nextInt(41)];
                    rnd.nextBytes(body);
                    listRaw(s, f, body);
                    rawAt++;
                } else {
                    Case c = chosen.get(k - rawAt);
                    c.fill().accept(rnd, s.records);
                    list(s, c.format());
                }
            }
            byte[] d = datagram(s);
            DecodeStats stats = new DecodeStats();
            CounterSample got = decodeOne(d, stats);
            assertSampleHeader(got, s, ctx);
            for (Case c : CASES) {
                if (c.has().test(got.records) != chosen.contains(c)) {
                    throw new AssertionError(ctx + ": has " + c.name());
                }
                if (chosen.contains(c)) {
                    assertHolderEquals(c, got.records, s.records, ctx);
                }
            }
            assertThat(got.unknownRecords).as(ctx).isEqualTo(s.unknownRecords);
            for (int i = 0; i < s.unknownRecords; i++) {
                assertThat(got.unknownFormats[i]).as(ctx).isEqualTo(s.unknownFormats[i]);
                assertThat(got.unknownBodies[i].contentEquals(s.unknownBodies[i])).as(ctx + " raw body " + i).isTrue();
            }
            assertThat(stats.unknownRecords()).isEqualTo(s.unknownRecords);
            XdrWriter w = new XdrWriter(1 << 16);
            assertThat(CounterSampleEncoder.encode(got, w)).as(ctx).isTrue();
            assertThat(Arrays.copyOf(w.buffer(), w.position())).as(ctx + " re-encoded")
                    .isEqualTo(Arrays.copyOfRange(d, SflowFormats.HEADER_BYTES_IPV4, d.length));
        }
    }

    @Test
    void lengthDependentTailsFollowTheFlags() {
        Random rnd = new Random(7);
        int[][] expect = {{CounterRecords.HOST_CPU, 68, 80}, {CounterRecords.JVM_STATISTICS, 100, 108}};
        for (int[] e : expect) {
            for (boolean tail : new boolean[] {false, true}) {
                CounterSample s = newSample(rnd);
                s.kind = SflowFormats.COUNTERS_SAMPLE_EXPANDED;
                s.expanded = true;
                caseOf(e[0]).fill().accept(rnd, s.records);
                s.records.hostCpu.hasStealGuest = tail;
                s.records.jvmStatistics.hasFdCounts = tail;
                list(s, e[0]);
                byte[] b = encodeSample(s);
                // 8 (sample tag) + 16 (0:4 fixed part) + 4 (record data_format), then the record length
                int length = (b[28] & 0xFF) << 24 | (b[29] & 0xFF) << 16 | (b[30] & 0xFF) << 8 | (b[31] & 0xFF);
                assertThat(length).as("record %d tail %s", e[0], tail).isEqualTo(tail ? e[2] : e[1]);
                assertThat(b).hasSize(32 + length);
                CounterSample got = decodeOne(datagramOf(b), new DecodeStats());
                assertThat(got.records.hostCpu.hasStealGuest || got.records.jvmStatistics.hasFdCounts).isEqualTo(tail);
            }
        }
    }

    /** Wraps already-encoded sample bytes in a one-sample datagram. */
    static byte[] datagramOf(byte[] sample) {
        XdrWriter w = new XdrWriter(sample.length + 28);
        w.u32(SflowFormats.VERSION_5).u32(SflowFormats.ADDRESS_IPV4).fixed(AGENT, 0, 4);
        w.u32(100000).u32(1).u32(123456).u32(1).fixed(sample, 0, sample.length);
        return w.buffer();
    }

    @Test
    void overflowAtEveryCapacityRollsBackToTheMark() {
        Random rnd = new Random(99);
        CounterSample s = newSample(rnd);
        for (Case c : CASES) {
            c.fill().accept(rnd, s.records);
            list(s, c.format());
        }
        listRaw(s, 2201, new byte[] {1, 2, 3, 4, 5});
        byte[] full = encodeSample(s);
        byte[] prefix = {9, 8, 7, 6, 5, 4, 3, 2};
        for (int cap = prefix.length; cap < prefix.length + full.length; cap++) {
            XdrWriter w = new XdrWriter(cap);
            w.fixed(prefix, 0, prefix.length);
            assertThat(CounterSampleEncoder.encode(s, w)).as("capacity %d", cap).isFalse();
            assertThat(w.position()).as("capacity %d", cap).isEqualTo(prefix.length);
            assertThat(w.overflow()).as("capacity %d", cap).isFalse();
            assertThat(Arrays.copyOf(w.buffer(), prefix.length)).isEqualTo(prefix);
        }
        XdrWriter w = new XdrWriter(prefix.length + full.length);
        w.fixed(prefix, 0, prefix.length);
        assertThat(CounterSampleEncoder.encode(s, w)).isTrue();
        assertThat(Arrays.copyOfRange(w.buffer(), prefix.length, w.position())).isEqualTo(full);
    }

    @Test
    void samplesThatCannotBeEncodedFaithfullyAreRefused() {
        Random rnd = new Random(5);
        List<CounterSample> bad = new ArrayList<>();
        CounterSample s = newSample(rnd); // kind not 0:2 / 0:4
        s.kind = SflowFormats.FLOW_SAMPLE;
        bad.add(s);
        s = newSample(rnd); // compact source index needs more than 24 bits
        s.kind = SflowFormats.COUNTERS_SAMPLE;
        s.expanded = false;
        s.sourceIdIndex = 1 << 24;
        bad.add(s);
        s = newSample(rnd); // listed but its holder is not present (e.g. the record failed to decode)
        list(s, CounterRecords.ETHERNET);
        bad.add(s);
        s = newSample(rnd); // raw record listed without a kept body
        list(s, 2201);
        bad.add(s);
        s = newSample(rnd); // raw body kept for another format
        listRaw(s, 2201, new byte[4]);
        s.recordFormats[0] = 2202;
        bad.add(s);
        s = newSample(rnd); // fewer records listed than declared
        caseOf(CounterRecords.IF_COUNTERS).fill().accept(rnd, s.records);
        list(s, CounterRecords.IF_COUNTERS);
        s.recordCount = 2;
        bad.add(s);
        s = newSample(rnd); // string above its maximum
        caseOf(CounterRecords.HOST_DESCR).fill().accept(rnd, s.records);
        s.records.hostDescr.hostname.set(new byte[CounterRecords.MAX_HOSTNAME + 1]);
        list(s, CounterRecords.HOST_DESCR);
        bad.add(s);
        s = newSample(rnd); // count above capacity
        caseOf(CounterRecords.HOST_ADAPTERS).fill().accept(rnd, s.records);
        s.records.hostAdapters.count = CounterRecords.MAX_ADAPTERS + 1;
        list(s, CounterRecords.HOST_ADAPTERS);
        bad.add(s);
        s = newSample(rnd);
        caseOf(CounterRecords.SFP).fill().accept(rnd, s.records);
        s.records.sfp.lanesCount = -1;
        list(s, CounterRecords.SFP);
        bad.add(s);
        for (CounterSample b : bad) {
            XdrWriter w = new XdrWriter(4096);
            w.u32(42);
            assertThat(CounterSampleEncoder.encode(b, w)).isFalse();
            assertThat(w.position()).isEqualTo(4);
            assertThat(w.overflow()).isFalse();
        }
        // a writer that already overflowed is left as it is
        CounterSample ok = newSample(rnd);
        XdrWriter w = new XdrWriter(4);
        w.u32(1).u32(2);
        assertThat(w.overflow()).isTrue();
        assertThat(CounterSampleEncoder.encode(ok, w)).isFalse();
        assertThat(w.overflow()).isTrue();
        assertThat(w.position()).isEqualTo(4);
    }

    @Test
    void resetClearsEveryFlag() {
        CounterRecords r = new CounterRecords();
        Random rnd = new Random(3);
        for (Case c : CASES) {
            c.fill().accept(rnd, r);
            assertThat(c.has().test(r)).isTrue();
        }
        r.reset();
        for (Case c : CASES) {
            assertThat(c.has().test(r)).as(c.name()).isFalse();
        }
    }

    @Test
    void encodingDoesNotAllocate() {
        var bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Random rnd = new Random(11);
        CounterSample s = newSample(rnd);
        for (Case c : CASES) {
            c.fill().accept(rnd, s.records);
            list(s, c.format());
        }
        listRaw(s, 2201, new byte[] {1, 2, 3});
        XdrWriter w = new XdrWriter(1 << 16);
        for (int i = 0; i < 20_000; i++) { // warm up (JIT)
            w.reset(0);
            CounterSampleEncoder.encode(s, w);
        }
        long before = bean.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 20_000; i++) {
            w.reset(0);
            if (!CounterSampleEncoder.encode(s, w)) {
                throw new AssertionError("encode failed");
            }
        }
        long allocated = bean.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated by 20000 encodes").isLessThan(20_000);
    }

    /** Every decoded counter record type: how to fill it at random, its flag and its holder. */
    static final List<Case> CASES = List.of(
            new Case(CounterRecords.IF_COUNTERS, "if_counters", (rnd, r) -> {
                fillIfCounters(rnd, r.ifCounters);
                r.hasIfCounters = true;
            }, r -> r.hasIfCounters, r -> r.ifCounters),
            new Case(CounterRecords.ETHERNET, "ethernet_counters", (rnd, r) -> {
                fillEthernet(rnd, r.ethernet);
                r.hasEthernet = true;
            }, r -> r.hasEthernet, r -> r.ethernet),
            new Case(CounterRecords.TOKEN_RING, "tokenring_counters", (rnd, r) -> {
                fillTokenRing(rnd, r.tokenRing);
                r.hasTokenRing = true;
            }, r -> r.hasTokenRing, r -> r.tokenRing),
            new Case(CounterRecords.VG, "vg_counters", (rnd, r) -> {
                fillVg(rnd, r.vg);
                r.hasVg = true;
            }, r -> r.hasVg, r -> r.vg),
            new Case(CounterRecords.VLAN, "vlan_counters", (rnd, r) -> {
                fillVlan(rnd, r.vlan);
                r.hasVlan = true;
            }, r -> r.hasVlan, r -> r.vlan),
            new Case(CounterRecords.LACP, "lacp", (rnd, r) -> {
                fillLacp(rnd, r.lacp);
                r.hasLacp = true;
            }, r -> r.hasLacp, r -> r.lacp),
            new Case(CounterRecords.SFP, "sfp", (rnd, r) -> {
                fillSfp(rnd, r.sfp);
                r.hasSfp = true;
            }, r -> r.hasSfp, r -> r.sfp),
            new Case(CounterRecords.PROCESSOR, "processor", (rnd, r) -> {
                fillProcessor(rnd, r.processor);
                r.hasProcessor = true;
            }, r -> r.hasProcessor, r -> r.processor),
            new Case(CounterRecords.PORT_NAME, "port_name", (rnd, r) -> {
                fillPortName(rnd, r.portName);
                r.hasPortName = true;
            }, r -> r.hasPortName, r -> r.portName),
            new Case(CounterRecords.HOST_DESCR, "host_descr", (rnd, r) -> {
                fillHostDescr(rnd, r.hostDescr);
                r.hasHostDescr = true;
            }, r -> r.hasHostDescr, r -> r.hostDescr),
            new Case(CounterRecords.HOST_ADAPTERS, "host_adapters", (rnd, r) -> {
                fillHostAdapters(rnd, r.hostAdapters);
                r.hasHostAdapters = true;
            }, r -> r.hasHostAdapters, r -> r.hostAdapters),
            new Case(CounterRecords.HOST_PARENT, "host_parent", (rnd, r) -> {
                fillHostParent(rnd, r.hostParent);
                r.hasHostParent = true;
            }, r -> r.hasHostParent, r -> r.hostParent),
            new Case(CounterRecords.HOST_CPU, "host_cpu", (rnd, r) -> {
                fillHostCpu(rnd, r.hostCpu);
                r.hasHostCpu = true;
            }, r -> r.hasHostCpu, r -> r.hostCpu),
            new Case(CounterRecords.HOST_MEMORY, "host_memory", (rnd, r) -> {
                fillHostMemory(rnd, r.hostMemory);
                r.hasHostMemory = true;
            }, r -> r.hasHostMemory, r -> r.hostMemory),
            new Case(CounterRecords.HOST_DISK_IO, "host_disk_io", (rnd, r) -> {
                fillHostDiskIo(rnd, r.hostDiskIo);
                r.hasHostDiskIo = true;
            }, r -> r.hasHostDiskIo, r -> r.hostDiskIo),
            new Case(CounterRecords.HOST_NET_IO, "host_net_io", (rnd, r) -> {
                fillHostNetIo(rnd, r.hostNetIo);
                r.hasHostNetIo = true;
            }, r -> r.hasHostNetIo, r -> r.hostNetIo),
            new Case(CounterRecords.MIB2_IP, "mib2_ip_group", (rnd, r) -> {
                fillMib2Ip(rnd, r.mib2Ip);
                r.hasMib2Ip = true;
            }, r -> r.hasMib2Ip, r -> r.mib2Ip),
            new Case(CounterRecords.MIB2_ICMP, "mib2_icmp_group", (rnd, r) -> {
                fillMib2Icmp(rnd, r.mib2Icmp);
                r.hasMib2Icmp = true;
            }, r -> r.hasMib2Icmp, r -> r.mib2Icmp),
            new Case(CounterRecords.MIB2_TCP, "mib2_tcp_group", (rnd, r) -> {
                fillMib2Tcp(rnd, r.mib2Tcp);
                r.hasMib2Tcp = true;
            }, r -> r.hasMib2Tcp, r -> r.mib2Tcp),
            new Case(CounterRecords.MIB2_UDP, "mib2_udp_group", (rnd, r) -> {
                fillMib2Udp(rnd, r.mib2Udp);
                r.hasMib2Udp = true;
            }, r -> r.hasMib2Udp, r -> r.mib2Udp),
            new Case(CounterRecords.VIRT_NODE, "virt_node", (rnd, r) -> {
                fillVirtNode(rnd, r.virtNode);
                r.hasVirtNode = true;
            }, r -> r.hasVirtNode, r -> r.virtNode),
            new Case(CounterRecords.VIRT_CPU, "virt_cpu", (rnd, r) -> {
                fillVirtCpu(rnd, r.virtCpu);
                r.hasVirtCpu = true;
            }, r -> r.hasVirtCpu, r -> r.virtCpu),
            new Case(CounterRecords.VIRT_MEMORY, "virt_memory", (rnd, r) -> {
                fillVirtMemory(rnd, r.virtMemory);
                r.hasVirtMemory = true;
            }, r -> r.hasVirtMemory, r -> r.virtMemory),
            new Case(CounterRecords.VIRT_DISK_IO, "virt_disk_io", (rnd, r) -> {
                fillVirtDiskIo(rnd, r.virtDiskIo);
                r.hasVirtDiskIo = true;
            }, r -> r.hasVirtDiskIo, r -> r.virtDiskIo),
            new Case(CounterRecords.VIRT_NET_IO, "virt_net_io", (rnd, r) -> {
                fillVirtNetIo(rnd, r.virtNetIo);
                r.hasVirtNetIo = true;
            }, r -> r.hasVirtNetIo, r -> r.virtNetIo),
            new Case(CounterRecords.JVM_RUNTIME, "jvm_runtime", (rnd, r) -> {
                fillJvmRuntime(rnd, r.jvmRuntime);
                r.hasJvmRuntime = true;
            }, r -> r.hasJvmRuntime, r -> r.jvmRuntime),
            new Case(CounterRecords.JVM_STATISTICS, "jvm_statistics", (rnd, r) -> {
                fillJvmStatistics(rnd, r.jvmStatistics);
                r.hasJvmStatistics = true;
            }, r -> r.hasJvmStatistics, r -> r.jvmStatistics));

    static void fillIfCounters(Random rnd, CounterRecords.IfCounters c) {
        c.ifIndex = u32(rnd);
        c.ifType = u32(rnd);
        c.ifSpeed = u64(rnd);
        c.ifDirection = u32(rnd);
        c.ifStatus = u32(rnd);
        c.inOctets = u64(rnd);
        c.inUcastPkts = u32(rnd);
        c.inMulticastPkts = u32(rnd);
        c.inBroadcastPkts = u32(rnd);
        c.inDiscards = u32(rnd);
        c.inErrors = u32(rnd);
        c.inUnknownProtos = u32(rnd);
        c.outOctets = u64(rnd);
        c.outUcastPkts = u32(rnd);
        c.outMulticastPkts = u32(rnd);
        c.outBroadcastPkts = u32(rnd);
        c.outDiscards = u32(rnd);
        c.outErrors = u32(rnd);
        c.promiscuousMode = u32(rnd);
    }

    static void fillEthernet(Random rnd, CounterRecords.EthernetCounters c) {
        c.alignmentErrors = u32(rnd);
        c.fcsErrors = u32(rnd);
        c.singleCollisionFrames = u32(rnd);
        c.multipleCollisionFrames = u32(rnd);
        c.sqeTestErrors = u32(rnd);
        c.deferredTransmissions = u32(rnd);
        c.lateCollisions = u32(rnd);
        c.excessiveCollisions = u32(rnd);
        c.internalMacTransmitErrors = u32(rnd);
        c.carrierSenseErrors = u32(rnd);
        c.frameTooLongs = u32(rnd);
        c.internalMacReceiveErrors = u32(rnd);
        c.symbolErrors = u32(rnd);
    }

    static void fillTokenRing(Random rnd, CounterRecords.TokenRingCounters c) {
        c.lineErrors = u32(rnd);
        c.burstErrors = u32(rnd);
        c.acErrors = u32(rnd);
        c.abortTransErrors = u32(rnd);
        c.internalErrors = u32(rnd);
        c.lostFrameErrors = u32(rnd);
        c.receiveCongestions = u32(rnd);
        c.frameCopiedErrors = u32(rnd);
        c.tokenErrors = u32(rnd);
        c.softErrors = u32(rnd);
        c.hardErrors = u32(rnd);
        c.signalLoss = u32(rnd);
        c.transmitBeacons = u32(rnd);
        c.recoverys = u32(rnd);
        c.lobeWires = u32(rnd);
        c.removes = u32(rnd);
        c.singles = u32(rnd);
        c.freqErrors = u32(rnd);
    }

    static void fillVg(Random rnd, CounterRecords.VgCounters c) {
        c.inHighPriorityFrames = u32(rnd);
        c.inHighPriorityOctets = u64(rnd);
        c.inNormPriorityFrames = u32(rnd);
        c.inNormPriorityOctets = u64(rnd);
        c.inIpmErrors = u32(rnd);
        c.inOversizeFrameErrors = u32(rnd);
        c.inDataErrors = u32(rnd);
        c.inNullAddressedFrames = u32(rnd);
        c.outHighPriorityFrames = u32(rnd);
        c.outHighPriorityOctets = u64(rnd);
        c.transitionIntoTrainings = u32(rnd);
        c.hcInHighPriorityOctets = u64(rnd);
        c.hcInNormPriorityOctets = u64(rnd);
        c.hcOutHighPriorityOctets = u64(rnd);
    }

    static void fillVlan(Random rnd, CounterRecords.VlanCounters c) {
        c.vlanId = u32(rnd);
        c.octets = u64(rnd);
        c.ucastPkts = u32(rnd);
        c.multicastPkts = u32(rnd);
        c.broadcastPkts = u32(rnd);
        c.discards = u32(rnd);
    }

    static void fillLacp(Random rnd, CounterRecords.LacpCounters c) {
        c.actorSystemId = mac(rnd);
        c.partnerSystemId = mac(rnd);
        c.attachedAggId = u32(rnd);
        c.actorAdminState = rnd.nextInt(256);
        c.actorOperState = rnd.nextInt(256);
        c.partnerAdminState = rnd.nextInt(256);
        c.partnerOperState = rnd.nextInt(256);
        c.lacpdusRx = u32(rnd);
        c.markerPdusRx = u32(rnd);
        c.markerResponsePdusRx = u32(rnd);
        c.unknownRx = u32(rnd);
        c.illegalRx = u32(rnd);
        c.lacpdusTx = u32(rnd);
        c.markerPdusTx = u32(rnd);
        c.markerResponsePdusTx = u32(rnd);
    }

    static void fillSfp(Random rnd, CounterRecords.SfpCounters c) {
        c.moduleId = u32(rnd);
        c.moduleTotalLanes = u32(rnd);
        c.moduleSupplyVoltage = u32(rnd);
        c.moduleTemperature = i32(rnd);
        c.lanesCount = rnd.nextInt(CounterRecords.MAX_SFP_LANES + 1);
        for (int i = 0; i < c.lanesCount; i++) {
            CounterRecords.SfpCounters.Lane l = c.lanes[i];
            l.laneIndex = u32(rnd);
            l.txBiasCurrent = u32(rnd);
            l.txPower = u32(rnd);
            l.txPowerMin = u32(rnd);
            l.txPowerMax = u32(rnd);
            l.txWavelength = u32(rnd);
            l.rxPower = u32(rnd);
            l.rxPowerMin = u32(rnd);
            l.rxPowerMax = u32(rnd);
            l.rxWavelength = u32(rnd);
        }
    }

    static void fillProcessor(Random rnd, CounterRecords.ProcessorCounters c) {
        c.cpu5s = i32(rnd);
        c.cpu1m = i32(rnd);
        c.cpu5m = i32(rnd);
        c.totalMemory = u64(rnd);
        c.freeMemory = u64(rnd);
    }

    static void fillPortName(Random rnd, CounterRecords.PortName c) {
        text(rnd, CounterRecords.MAX_PORT_NAME, c.name);
    }

    static void fillHostDescr(Random rnd, CounterRecords.HostDescr c) {
        text(rnd, CounterRecords.MAX_HOSTNAME, c.hostname);
        rnd.nextBytes(c.uuid);
        c.machineType = u32(rnd);
        c.osName = u32(rnd);
        text(rnd, CounterRecords.MAX_OS_RELEASE, c.osRelease);
    }

    static void fillHostAdapters(Random rnd, CounterRecords.HostAdapters c) {
        c.count = rnd.nextInt(4) == 0 ? CounterRecords.MAX_ADAPTERS : rnd.nextInt(CounterRecords.MAX_ADAPTERS + 1);
        for (int i = 0; i < c.count; i++) {
            CounterRecords.HostAdapters.Adapter a = c.adapters[i];
            a.ifIndex = u32(rnd);
            a.macsCount = rnd.nextInt(CounterRecords.MAX_MACS_PER_ADAPTER + 1);
            for (int k = 0; k < a.macsCount; k++) {
                a.macs[k] = mac(rnd);
            }
        }
    }

    static void fillHostParent(Random rnd, CounterRecords.HostParent c) {
        c.containerType = u32(rnd);
        c.containerIndex = u32(rnd);
    }

    static void fillHostCpu(Random rnd, CounterRecords.HostCpu c) {
        c.loadOne = f32(rnd);
        c.loadFive = f32(rnd);
        c.loadFifteen = f32(rnd);
        c.procRun = u32(rnd);
        c.procTotal = u32(rnd);
        c.cpuNum = u32(rnd);
        c.cpuSpeed = u32(rnd);
        c.uptime = u32(rnd);
        c.cpuUser = u32(rnd);
        c.cpuNice = u32(rnd);
        c.cpuSystem = u32(rnd);
        c.cpuIdle = u32(rnd);
        c.cpuWio = u32(rnd);
        c.cpuIntr = u32(rnd);
        c.cpuSintr = u32(rnd);
        c.interrupts = u32(rnd);
        c.contexts = u32(rnd);
        c.hasStealGuest = rnd.nextBoolean();
        if (!c.hasStealGuest) {
            c.cpuSteal = 0;
            c.cpuGuest = 0;
            c.cpuGuestNice = 0;
            return;
        }
        c.cpuSteal = u32(rnd);
        c.cpuGuest = u32(rnd);
        c.cpuGuestNice = u32(rnd);
    }

    static void fillHostMemory(Random rnd, CounterRecords.HostMemory c) {
        c.memTotal = u64(rnd);
        c.memFree = u64(rnd);
        c.memShared = u64(rnd);
        c.memBuffers = u64(rnd);
        c.memCached = u64(rnd);
        c.swapTotal = u64(rnd);
        c.swapFree = u64(rnd);
        c.pageIn = u32(rnd);
        c.pageOut = u32(rnd);
        c.swapIn = u32(rnd);
        c.swapOut = u32(rnd);
    }

    static void fillHostDiskIo(Random rnd, CounterRecords.HostDiskIo c) {
        c.diskTotal = u64(rnd);
        c.diskFree = u64(rnd);
        c.partMaxUsed = i32(rnd);
        c.reads = u32(rnd);
        c.bytesRead = u64(rnd);
        c.readTime = u32(rnd);
        c.writes = u32(rnd);
        c.bytesWritten = u64(rnd);
        c.writeTime = u32(rnd);
    }

    static void fillHostNetIo(Random rnd, CounterRecords.HostNetIo c) {
        c.bytesIn = u64(rnd);
        c.pktsIn = u32(rnd);
        c.errsIn = u32(rnd);
        c.dropsIn = u32(rnd);
        c.bytesOut = u64(rnd);
        c.pktsOut = u32(rnd);
        c.errsOut = u32(rnd);
        c.dropsOut = u32(rnd);
    }

    static void fillMib2Ip(Random rnd, CounterRecords.Mib2IpGroup c) {
        c.ipForwarding = u32(rnd);
        c.ipDefaultTTL = u32(rnd);
        c.ipInReceives = u32(rnd);
        c.ipInHdrErrors = u32(rnd);
        c.ipInAddrErrors = u32(rnd);
        c.ipForwDatagrams = u32(rnd);
        c.ipInUnknownProtos = u32(rnd);
        c.ipInDiscards = u32(rnd);
        c.ipInDelivers = u32(rnd);
        c.ipOutRequests = u32(rnd);
        c.ipOutDiscards = u32(rnd);
        c.ipOutNoRoutes = u32(rnd);
        c.ipReasmTimeout = u32(rnd);
        c.ipReasmReqds = u32(rnd);
        c.ipReasmOKs = u32(rnd);
        c.ipReasmFails = u32(rnd);
        c.ipFragOKs = u32(rnd);
        c.ipFragFails = u32(rnd);
        c.ipFragCreates = u32(rnd);
    }

    static void fillMib2Icmp(Random rnd, CounterRecords.Mib2IcmpGroup c) {
        c.icmpInMsgs = u32(rnd);
        c.icmpInErrors = u32(rnd);
        c.icmpInDestUnreachs = u32(rnd);
        c.icmpInTimeExcds = u32(rnd);
        c.icmpInParamProbs = u32(rnd);
        c.icmpInSrcQuenchs = u32(rnd);
        c.icmpInRedirects = u32(rnd);
        c.icmpInEchos = u32(rnd);
        c.icmpInEchoReps = u32(rnd);
        c.icmpInTimestamps = u32(rnd);
        c.icmpInAddrMasks = u32(rnd);
        c.icmpInAddrMaskReps = u32(rnd);
        c.icmpOutMsgs = u32(rnd);
        c.icmpOutErrors = u32(rnd);
        c.icmpOutDestUnreachs = u32(rnd);
        c.icmpOutTimeExcds = u32(rnd);
        c.icmpOutParamProbs = u32(rnd);
        c.icmpOutSrcQuenchs = u32(rnd);
        c.icmpOutRedirects = u32(rnd);
        c.icmpOutEchos = u32(rnd);
        c.icmpOutEchoReps = u32(rnd);
        c.icmpOutTimestamps = u32(rnd);
        c.icmpOutTimestampReps = u32(rnd);
        c.icmpOutAddrMasks = u32(rnd);
        c.icmpOutAddrMaskReps = u32(rnd);
    }

    static void fillMib2Tcp(Random rnd, CounterRecords.Mib2TcpGroup c) {
        c.tcpRtoAlgorithm = u32(rnd);
        c.tcpRtoMin = u32(rnd);
        c.tcpRtoMax = u32(rnd);
        c.tcpMaxConn = u32(rnd);
        c.tcpActiveOpens = u32(rnd);
        c.tcpPassiveOpens = u32(rnd);
        c.tcpAttemptFails = u32(rnd);
        c.tcpEstabResets = u32(rnd);
        c.tcpCurrEstab = u32(rnd);
        c.tcpInSegs = u32(rnd);
        c.tcpOutSegs = u32(rnd);
        c.tcpRetransSegs = u32(rnd);
        c.tcpInErrs = u32(rnd);
        c.tcpOutRsts = u32(rnd);
        c.tcpInCsumErrors = u32(rnd);
    }

    static void fillMib2Udp(Random rnd, CounterRecords.Mib2UdpGroup c) {
        c.udpInDatagrams = u32(rnd);
        c.udpNoPorts = u32(rnd);
        c.udpInErrors = u32(rnd);
        c.udpOutDatagrams = u32(rnd);
        c.udpRcvbufErrors = u32(rnd);
        c.udpSndbufErrors = u32(rnd);
        c.udpInCsumErrors = u32(rnd);
    }

    static void fillVirtNode(Random rnd, CounterRecords.VirtNode c) {
        c.mhz = u32(rnd);
        c.cpus = u32(rnd);
        c.memory = u64(rnd);
        c.memoryFree = u64(rnd);
        c.numDomains = u32(rnd);
    }

    static void fillVirtCpu(Random rnd, CounterRecords.VirtCpu c) {
        c.state = u32(rnd);
        c.cpuTime = u32(rnd);
        c.nrVirtCpu = u32(rnd);
    }

    static void fillVirtMemory(Random rnd, CounterRecords.VirtMemory c) {
        c.memory = u64(rnd);
        c.maxMemory = u64(rnd);
    }

    static void fillVirtDiskIo(Random rnd, CounterRecords.VirtDiskIo c) {
        c.capacity = u64(rnd);
        c.allocation = u64(rnd);
        c.available = u64(rnd);
        c.rdReq = u32(rnd);
        c.rdBytes = u64(rnd);
        c.wrReq = u32(rnd);
        c.wrBytes = u64(rnd);
        c.errs = u32(rnd);
    }

    static void fillVirtNetIo(Random rnd, CounterRecords.VirtNetIo c) {
        c.rxBytes = u64(rnd);
        c.rxPackets = u32(rnd);
        c.rxErrs = u32(rnd);
        c.rxDrop = u32(rnd);
        c.txBytes = u64(rnd);
        c.txPackets = u32(rnd);
        c.txErrs = u32(rnd);
        c.txDrop = u32(rnd);
    }

    static void fillJvmRuntime(Random rnd, CounterRecords.JvmRuntime c) {
        text(rnd, CounterRecords.MAX_VM_NAME, c.vmName);
        text(rnd, CounterRecords.MAX_VM_VENDOR, c.vmVendor);
        text(rnd, CounterRecords.MAX_VM_VERSION, c.vmVersion);
    }

    static void fillJvmStatistics(Random rnd, CounterRecords.JvmStatistics c) {
        c.heapInitial = u64(rnd);
        c.heapUsed = u64(rnd);
        c.heapCommitted = u64(rnd);
        c.heapMax = u64(rnd);
        c.nonHeapInitial = u64(rnd);
        c.nonHeapUsed = u64(rnd);
        c.nonHeapCommitted = u64(rnd);
        c.nonHeapMax = u64(rnd);
        c.gcCount = u32(rnd);
        c.gcTime = u32(rnd);
        c.classesLoaded = u32(rnd);
        c.classesTotal = u32(rnd);
        c.classesUnloaded = u32(rnd);
        c.compilationTime = u32(rnd);
        c.threadNumLive = u32(rnd);
        c.threadNumDaemon = u32(rnd);
        c.threadNumStarted = u32(rnd);
        c.hasFdCounts = rnd.nextBoolean();
        if (!c.hasFdCounts) {
            c.fdOpenCount = 0;
            c.fdMaxCount = 0;
            return;
        }
        c.fdOpenCount = u32(rnd);
        c.fdMaxCount = u32(rnd);
    }
}
