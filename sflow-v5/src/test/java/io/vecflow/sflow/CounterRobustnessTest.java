package io.vecflow.sflow;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Malformed counter data never escapes {@link SflowDecoder#decode} as an exception: truncated datagrams fail as a
 * whole (counted), records cut short inside an intact sample fail alone (counted in
 * {@link DecodeStats#recordErrorsByKind()}, the sample kept), and counts above the holders' capacities are rejected
 * with COUNT_OUT_OF_BOUNDS naming the field. Real datagrams come from testdata/sflow (tcpdump test suite, BSD).
 */
class CounterRobustnessTest {
    static final List<String> CAPTURES =
            List.of(CounterCaptureTest.COUNTERS_30, CounterCaptureTest.PRINT_V6);

    /** Where one counter record sits in a datagram. */
    record RecordAt(int sampleOffset, int format, int headerOffset, int length) {}

    static int u32(byte[] b, int p) {
        return (b[p] & 0xFF) << 24 | (b[p + 1] & 0xFF) << 16 | (b[p + 2] & 0xFF) << 8 | (b[p + 3] & 0xFF);
    }

    static void put32(byte[] b, int p, int v) {
        b[p] = (byte) (v >>> 24);
        b[p + 1] = (byte) (v >>> 16);
        b[p + 2] = (byte) (v >>> 8);
        b[p + 3] = (byte) v;
    }

    /** Lists the counter records of a well-formed sFlow v5 datagram (test-side walk, independent of the decoder). */
    static List<RecordAt> counterRecords(byte[] d) {
        List<RecordAt> out = new ArrayList<>();
        if (d.length < 28 || u32(d, 0) != 5) {
            return out;
        }
        int p = u32(d, 4) == 2 ? 40 : 28;
        int n = u32(d, p - 4);
        for (int i = 0; i < n; i++) {
            int format = u32(d, p);
            int length = u32(d, p + 4);
            if (format == 2 || format == 4) {
                int q = p + 8 + (format == 4 ? 12 : 8);
                int records = u32(d, q);
                q += 4;
                for (int k = 0; k < records; k++) {
                    int len = u32(d, q + 4);
                    out.add(new RecordAt(p, u32(d, q), q, len));
                    q += 8 + SflowFormats.pad4(len);
                }
            }
            p += 8 + length;
        }
        return out;
    }

    /** @return the datagram with one record's declared length set to {@code k} and its body cut to k bytes. */
    static byte[] cutRecord(byte[] d, RecordAt r, int k) {
        int body = r.headerOffset() + 8;
        int padded = SflowFormats.pad4(k);
        byte[] m = new byte[d.length - r.length() + padded];
        System.arraycopy(d, 0, m, 0, body);
        System.arraycopy(d, body, m, body, k); // pad bytes stay zero
        System.arraycopy(d, body + r.length(), m, body + padded, d.length - body - r.length());
        put32(m, r.headerOffset() + 4, k);
        put32(m, r.sampleOffset() + 4, u32(d, r.sampleOffset() + 4) - r.length() + padded);
        return m;
    }

    /** Counts samples and keeps a check on the sample at one offset. */
    static final class Watch implements SflowVisitor {
        final int offset;
        int samples;
        CounterSample seen;
        int recordErrors = -1;
        int duplicates = -1;
        final List<Integer> present = new ArrayList<>();

        Watch(int offset) {
            this.offset = offset;
        }

        @Override
        public void onDatagram(DatagramHeader h) {}

        @Override
        public void onFlowSample(DatagramHeader h, FlowSample s) {}

        @Override
        public void onCounterSample(DatagramHeader h, CounterSample s) {
            samples++;
            if (s.offset == offset) {
                seen = s;
                recordErrors = s.recordErrors;
                duplicates = s.duplicateRecords;
                for (CounterRoundTripTest.Case c : CounterRoundTripTest.CASES) {
                    if (c.has().test(s.records)) {
                        present.add(c.format());
                    }
                }
            }
        }
    }

    @Test
    void everyPrefixOfTheRealDatagramsIsCountedNotThrown() throws Exception {
        for (String capture : CAPTURES) {
            DecodeStats stats = new DecodeStats();
            SflowDecoder decoder = new SflowDecoder(stats);
            long failures = 0;
            for (byte[] p : Captures.udpPayloads(capture)) {
                Watch full = new Watch(-1);
                boolean sflow = decoder.decode(p, 0, p.length, full) == null;
                for (int len = 0; len < p.length; len++) {
                    Watch w = new Watch(-1);
                    SflowDecodeException e = decoder.decode(p, 0, len, w); // must not throw
                    assertThat(e).as("%s: a %d-byte prefix of %d", capture, len, p.length).isNotNull();
                    assertThat(w.samples).isLessThanOrEqualTo(full.samples);
                    failures++;
                }
                failures += sflow ? 0 : 1;
            }
            assertThat(stats.badDatagrams()).as(capture).isEqualTo(failures);
            assertThat(stats.badRecords()).as(capture).isZero(); // a cut datagram fails at the sample level
        }
    }

    @Test
    void everyRecordCutShortIsCountedAndItsSampleKept() throws Exception {
        for (String capture : CAPTURES) {
            DecodeStats stats = new DecodeStats();
            SflowDecoder decoder = new SflowDecoder(stats);
            long cases = 0;
            Map<Integer, Map<DecodeError, Long>> kindsByFormat = new java.util.TreeMap<>();
            for (byte[] p : Captures.udpPayloads(capture)) {
                List<RecordAt> records = counterRecords(p);
                for (RecordAt r : records) {
                    Watch whole = new Watch(r.sampleOffset());
                    assertThat(decoder.decode(p, 0, p.length, whole)).isNull();
                    for (int k = 0; k < r.length(); k++) {
                        byte[] m = cutRecord(p, r, k);
                        Map<DecodeError, Long> before = stats.recordErrorsByKind();
                        Watch w = new Watch(r.sampleOffset());
                        SflowDecodeException e = decoder.decode(m, 0, m.length, w);
                        String ctx = capture + ": record 0:" + r.format() + " cut to " + k + " of " + r.length();
                        assertThat(e).as(ctx).isNull();
                        assertThat(w.samples).as(ctx).isEqualTo(whole.samples);
                        assertThat(w.recordErrors).as(ctx).isEqualTo(1);
                        List<Integer> expected = new ArrayList<>(whole.present);
                        expected.remove(Integer.valueOf(r.format()));
                        assertThat(w.present).as(ctx + ": the other records still decode").isEqualTo(expected);
                        cases++;
                        Map<DecodeError, Long> after = stats.recordErrorsByKind();
                        for (DecodeError kind : after.keySet()) {
                            long delta = after.get(kind) - before.getOrDefault(kind, 0L);
                            if (delta != 0) {
                                kindsByFormat.computeIfAbsent(r.format(), f -> new EnumMap<>(DecodeError.class))
                                        .merge(kind, delta, Long::sum);
                            }
                        }
                    }
                }
            }
            Map<DecodeError, Long> kinds = stats.recordErrorsByKind();
            assertThat(kinds.values().stream().mapToLong(Long::longValue).sum()).as(capture).isEqualTo(cases);
            assertThat(stats.badRecords()).isEqualTo(cases);
            assertThat(stats.badDatagrams()).isZero();
            assertThat(kinds.keySet()).isSubsetOf(DecodeError.TRUNCATED, DecodeError.LENGTH_OUT_OF_BOUNDS,
                    DecodeError.COUNT_OUT_OF_BOUNDS);
            // fixed-size records fail TRUNCATED; string and array records also fail on their lengths and counts
            assertThat(kindsByFormat.get(CounterRecords.IF_COUNTERS)).containsOnlyKeys(DecodeError.TRUNCATED);
            assertThat(kindsByFormat.get(CounterRecords.ETHERNET)).containsOnlyKeys(DecodeError.TRUNCATED);
            if (capture.equals(CounterCaptureTest.COUNTERS_30)) {
                assertThat(cases).isEqualTo(142 * (88 + 52) + (60 + 64) + (36 + 68) + 2 * (68 + 72 + 52 + 40));
                assertThat(kindsByFormat.get(CounterRecords.HOST_DESCR)).containsKeys(DecodeError.TRUNCATED,
                        DecodeError.LENGTH_OUT_OF_BOUNDS);
                assertThat(kindsByFormat.get(CounterRecords.HOST_ADAPTERS)).containsKeys(DecodeError.TRUNCATED,
                        DecodeError.COUNT_OUT_OF_BOUNDS);
                for (int f : new int[] {CounterRecords.HOST_CPU, CounterRecords.HOST_MEMORY,
                    CounterRecords.HOST_DISK_IO, CounterRecords.HOST_NET_IO}) {
                    assertThat(kindsByFormat.get(f)).as("0:%d", f).containsOnlyKeys(DecodeError.TRUNCATED);
                }
            } else {
                assertThat(cases).isEqualTo(48 * (88 + 52));
            }
        }
    }

    // ---- capacities and limits, read directly and through the decoder ----

    /** Runs the record decoder on a bare body and returns its failure (or null). */
    static SflowDecodeException decodeBody(int format, byte[] body, CounterRecords into) {
        XdrReader r = new XdrReader();
        r.buf = body;
        try {
            assertThat(into.decode(r, format, 0, body.length, new CounterSample())).isTrue();
            return null;
        } catch (SflowDecodeException e) {
            return e;
        }
    }

    static byte[] words(long... values) {
        XdrWriter w = new XdrWriter(values.length * 4);
        for (long v : values) {
            w.u32(v);
        }
        return w.buffer();
    }

    static void assertRejected(int format, byte[] body, DecodeError kind, String field, long value) {
        CounterRecords r = new CounterRecords();
        SflowDecodeException e = decodeBody(format, body, r);
        assertThat(e).as("0:%d %s", format, field).isNotNull();
        assertThat(e.kind()).as(e.getMessage()).isEqualTo(kind);
        assertThat(e.field()).isEqualTo(field);
        assertThat(e.value()).isEqualTo(value);
    }

    @Test
    void countsAboveCapacityOrBeyondTheRecordAreRejectedNamingTheField() {
        // host_adapters: 65 adapters of 8 bytes each would fit the bytes, not the capacity (64)
        long[] a = new long[1 + 65 * 2];
        a[0] = 65;
        assertRejected(CounterRecords.HOST_ADAPTERS, words(a), DecodeError.COUNT_OUT_OF_BOUNDS,
                "host_adapters.adapters", 65);
        // 2 adapters declared, room for one
        assertRejected(CounterRecords.HOST_ADAPTERS, words(2, 7, 0), DecodeError.COUNT_OUT_OF_BOUNDS,
                "host_adapters.adapters", 2);
        // 17 MACs (capacity 16), with room for them
        long[] m = new long[3 + 17 * 2];
        m[0] = 1;
        m[1] = 7;
        m[2] = 17;
        assertRejected(CounterRecords.HOST_ADAPTERS, words(m), DecodeError.COUNT_OUT_OF_BOUNDS,
                "host_adapters.adapter.mac_address", 17);
        // 3 MACs declared, room for 2
        assertRejected(CounterRecords.HOST_ADAPTERS, words(1, 7, 3, 0, 0, 0, 0), DecodeError.COUNT_OUT_OF_BOUNDS,
                "host_adapters.adapter.mac_address", 3);
        // the maximum is accepted
        long[] max = new long[1 + 64 * (2 + 16 * 2)];
        max[0] = 64;
        for (int i = 0; i < 64; i++) {
            max[1 + i * 34] = i;
            max[2 + i * 34] = 16;
        }
        CounterRecords ok = new CounterRecords();
        assertThat(decodeBody(CounterRecords.HOST_ADAPTERS, words(max), ok)).isNull();
        assertThat(ok.hostAdapters.count).isEqualTo(64);
        assertThat(ok.hostAdapters.adapters[63].ifIndex).isEqualTo(63);
        assertThat(ok.hostAdapters.adapters[63].macsCount).isEqualTo(16);
        // sfp: 17 lanes (capacity 16) with room for them; 2 lanes with room for 1
        long[] s = new long[5 + 17 * 10];
        s[4] = 17;
        assertRejected(CounterRecords.SFP, words(s), DecodeError.COUNT_OUT_OF_BOUNDS, "sfp.lanes", 17);
        long[] s2 = new long[5 + 10];
        s2[4] = 2;
        assertRejected(CounterRecords.SFP, words(s2), DecodeError.COUNT_OUT_OF_BOUNDS, "sfp.lanes", 2);
        // strings above their declared maximum
        assertRejected(CounterRecords.HOST_DESCR, words(65), DecodeError.LENGTH_OUT_OF_BOUNDS,
                "host_descr.hostname", 65);
        long[] d = new long[1 + 4 + 2 + 1];
        d[7] = 33;
        assertRejected(CounterRecords.HOST_DESCR, words(d), DecodeError.LENGTH_OUT_OF_BOUNDS,
                "host_descr.os_release", 33);
        assertRejected(CounterRecords.PORT_NAME, words(256), DecodeError.LENGTH_OUT_OF_BOUNDS, "port_name.name", 256);
        assertRejected(CounterRecords.JVM_RUNTIME, words(65), DecodeError.LENGTH_OUT_OF_BOUNDS,
                "jvm_runtime.vm_name", 65);
        // a record one word short names its missing field
        assertRejected(CounterRecords.IF_COUNTERS, new byte[84], DecodeError.TRUNCATED,
                "if_counters.ifPromiscuousMode", -1);
        // host_cpu longer than 68 but shorter than 80: the December 2014 tail is cut
        assertRejected(CounterRecords.HOST_CPU, new byte[72], DecodeError.TRUNCATED, "host_cpu.cpu_guest", -1);
    }

    @Test
    void isDecodedAgreesWithTheDecoder() throws Exception {
        byte[] zeros = new byte[4096]; // a valid body for every decoded record: zero counts, empty strings
        int decoded = 0;
        for (int enterprise : new int[] {0, 1, 4413, 5703, 8800, (1 << 20) - 1}) {
            for (int f = 0; f < 4096; f++) {
                int format = enterprise << 12 | f;
                XdrReader r = new XdrReader();
                r.buf = zeros;
                CounterRecords records = new CounterRecords();
                boolean known = records.decode(r, format, 0, zeros.length, new CounterSample());
                assertThat(known).as("0x%08x", format).isEqualTo(CounterRecords.isDecoded(format));
                decoded += known ? 1 : 0;
            }
        }
        assertThat(decoded).isEqualTo(CounterRoundTripTest.CASES.size());
    }

    @Test
    void aRejectedRecordIsCountedAndTheRestOfItsSampleKept() {
        XdrWriter w = new XdrWriter(4096);
        w.u32(5).u32(1).u32(0x0A000001).u32(100000).u32(7).u32(1000).u32(1);
        w.u32(SflowFormats.COUNTERS_SAMPLE_EXPANDED);
        int sample = w.beginLength();
        w.u32(1).u32(2).u32(1).u32(3); // seq, source 2:1, 3 records
        w.u32(CounterRecords.HOST_ADAPTERS);
        int rec = w.beginLength();
        w.u32(65);
        for (int i = 0; i < 65; i++) {
            w.u32(i).u32(0);
        }
        w.endLength(rec);
        w.u32(CounterRecords.HOST_PARENT).u32(8).u32(2).u32(1);
        w.u32(CounterRecords.SFP);
        rec = w.beginLength();
        w.u32(1).u32(4).u32(3300).u32(-5000).u32(17);
        for (int i = 0; i < 17 * 10; i++) {
            w.u32(i);
        }
        w.endLength(rec);
        w.endLength(sample);
        byte[] d = Arrays.copyOf(w.buffer(), w.position());
        DecodeStats stats = new DecodeStats();
        Watch watch = new Watch(28);
        assertThat(new SflowDecoder(stats).decode(d, 0, d.length, watch)).isNull();
        assertThat(watch.samples).isEqualTo(1);
        assertThat(watch.recordErrors).isEqualTo(2);
        assertThat(watch.present).containsExactly(CounterRecords.HOST_PARENT);
        assertThat(watch.seen.records.hostParent.containerType).isEqualTo(2);
        assertThat(stats.recordErrorsByKind()).containsExactly(Map.entry(DecodeError.COUNT_OUT_OF_BOUNDS, 2L));
    }

    @Test
    void longerRecordsIgnoreTheirExtraBytes() {
        Random rnd = new Random(17);
        for (CounterRoundTripTest.Case c : CounterRoundTripTest.CASES) {
            for (int it = 0; it < 20; it++) {
                CounterSample s = CounterRoundTripTest.newSample(rnd);
                s.kind = SflowFormats.COUNTERS_SAMPLE_EXPANDED;
                s.expanded = true;
                c.fill().accept(rnd, s.records);
                s.records.hostCpu.hasStealGuest = true; // a shorter tail than 12/8 bytes would be cut, not extra
                s.records.jvmStatistics.hasFdCounts = true;
                CounterRoundTripTest.list(s, c.format());
                byte[] b = CounterRoundTripTest.encodeSample(s);
                int length = u32(b, 28);
                int extra = 1 + rnd.nextInt(16);
                byte[] body = Arrays.copyOfRange(b, 32, 32 + length + extra);
                for (int i = length; i < body.length; i++) {
                    body[i] = (byte) rnd.nextInt();
                }
                CounterRecords got = new CounterRecords();
                assertThat(decodeBody(c.format(), body, got)).as("%s + %d bytes", c.name(), extra).isNull();
                assertThat(c.has().test(got)).isTrue();
                CounterRoundTripTest.assertHolderEquals(c, got, s.records, c.name() + " + " + extra + " bytes");
            }
        }
    }

    @Test
    void duplicatesAreCountedTheLastKeptAndAFailedCopyClearsTheFlag() {
        for (boolean secondCut : new boolean[] {false, true}) {
            XdrWriter w = new XdrWriter(1024);
            w.u32(5).u32(1).u32(0x0A000001).u32(1).u32(1).u32(1).u32(1);
            w.u32(SflowFormats.COUNTERS_SAMPLE);
            int sample = w.beginLength();
            w.u32(9).u32(7).u32(2);
            w.u32(CounterRecords.ETHERNET).u32(52);
            for (int i = 0; i < 13; i++) {
                w.u32(i);
            }
            w.u32(CounterRecords.ETHERNET).u32(secondCut ? 8 : 52);
            for (int i = 0; i < (secondCut ? 2 : 13); i++) {
                w.u32(100 + i);
            }
            w.endLength(sample);
            byte[] d = Arrays.copyOf(w.buffer(), w.position());
            DecodeStats stats = new DecodeStats();
            Watch watch = new Watch(28);
            assertThat(new SflowDecoder(stats).decode(d, 0, d.length, watch)).isNull();
            assertThat(watch.duplicates).isEqualTo(1);
            if (secondCut) {
                assertThat(watch.recordErrors).isEqualTo(1);
                assertThat(watch.present).isEmpty();
                assertThat(stats.recordErrors(DecodeError.TRUNCATED)).isEqualTo(1);
            } else {
                assertThat(watch.recordErrors).isZero();
                assertThat(watch.present).containsExactly(CounterRecords.ETHERNET);
                assertThat(watch.seen.records.ethernet.alignmentErrors).isEqualTo(100);
                assertThat(watch.seen.records.ethernet.symbolErrors).isEqualTo(112);
            }
        }
    }

    @Test
    void randomCorruptionOfCounterDatagramsIsContained() throws Exception {
        Random rnd = new Random(4242);
        DecodeStats stats = new DecodeStats();
        SflowDecoder decoder = new SflowDecoder(stats);
        List<byte[]> payloads = new ArrayList<>();
        for (String capture : CAPTURES) {
            payloads.addAll(Captures.udpPayloads(capture));
        }
        List<byte[]> host = List.of(payloads.get(11), payloads.get(17)); // the host-record datagrams
        Watch sink = new Watch(-1);
        for (int it = 0; it < 40_000; it++) {
            byte[] src = it % 2 == 0 ? host.get(rnd.nextInt(2)) : payloads.get(rnd.nextInt(payloads.size()));
            byte[] m = src.clone();
            int flips = 1 + rnd.nextInt(4);
            for (int f = 0; f < flips; f++) {
                int at = rnd.nextInt(m.length);
                m[at] = switch (rnd.nextInt(4)) {
                    case 0 -> 0;
                    case 1 -> (byte) 0xFF;
                    case 2 -> (byte) (m[at] + 1);
                    default -> (byte) rnd.nextInt();
                };
            }
            decoder.decode(m, 0, m.length, sink); // any exception fails the test
        }
        assertThat(stats.datagrams() + stats.errors(DecodeError.NOT_SFLOW_V5)).isPositive();
    }
}
