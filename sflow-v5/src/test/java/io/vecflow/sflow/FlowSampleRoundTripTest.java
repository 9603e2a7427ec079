package io.vecflow.sflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Round-trip properties of {@link FlowSampleEncoder} against {@link SflowDecoder}, written as seeded
 * {@link Random} generators with many iterations rather than with jqwik: jqwik 1.10.x is built on JUnit Platform 1.x
 * (this project runs Platform 6), and its maintainers ask that it not be used through AI coding agents.
 *
 * <p>Every case derives its own seed from {@link #BASE_SEED} and its index, and a failure names it, so a failing case
 * re-runs alone with {@code Gen.sample(new Random(seed), kind)}.
 */
class FlowSampleRoundTripTest {
    static final long BASE_SEED = 0x5F10_7E5CL;
    /** Cases per sample kind for the single-sample round trip. */
    static final int CASES_PER_KIND = 10_000;

    static final int[] KINDS = {SflowFormats.FLOW_SAMPLE, SflowFormats.FLOW_SAMPLE_EXPANDED,
        SflowFormats.DISCARDED_PACKET};

    /** Every flow record format the decoder decodes into a holder. */
    static final int[] KNOWN = {SflowFormats.SAMPLED_HEADER, SflowFormats.SAMPLED_ETHERNET, SflowFormats.SAMPLED_IPV4,
        SflowFormats.SAMPLED_IPV6, SflowFormats.EXTENDED_SWITCH, SflowFormats.EXTENDED_ROUTER,
        SflowFormats.EXTENDED_GATEWAY, SflowFormats.EXTENDED_USER, SflowFormats.EXTENDED_URL,
        SflowFormats.EXTENDED_MPLS, SflowFormats.EXTENDED_NAT, SflowFormats.EXTENDED_VLAN_TUNNEL,
        SflowFormats.EXTENDED_EGRESS_QUEUE, SflowFormats.EXTENDED_ACL, SflowFormats.EXTENDED_FUNCTION,
        SflowFormats.EXTENDED_TRANSIT, SflowFormats.EXTENDED_QUEUE, SflowFormats.EXTENDED_HW_TRAP,
        SflowFormats.EXTENDED_LINUX_DROP_REASON, SflowFormats.EXTENDED_TIMESTAMP};

    // ------------------------------------------------------------------------------------------------------------
    // Properties on generated samples
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void generatedSamplesRoundTripThroughTheDecoderFieldForField() {
        DatagramBuilder b = new DatagramBuilder(65507, new byte[] {10, 1, 2, 3}, 7);
        SflowDecoder decoder = new SflowDecoder(new DecodeStats());
        XdrWriter first = new XdrWriter(65507);
        XdrWriter second = new XdrWriter(65507);
        int[] recordsSeen = new int[4096 + 1];
        FlowSample s = new FlowSample(); // reused, as the agent and the decoder reuse theirs
        long cases = 0;
        for (int kind : KINDS) {
            for (int i = 0; i < CASES_PER_KIND; i++) {
                long seed = BASE_SEED * 31 + kind * 1_000_003L + i;
                new Gen(new Random(seed)).fill(s, kind);
                String expected = Describe.of(s);
                int size = FlowSampleEncoder.encodedBytes(s);
                check(size > 0, seed, "encodedBytes " + size);

                first.reset(0);
                check(FlowSampleEncoder.encode(s, first), seed, "encode");
                check(first.position() == size, seed, "position");

                b.reset();
                check(b.addFlowSample(s), seed, "addFlowSample");
                int len = b.finish(i, 1000 + i);
                byte[] datagram = Arrays.copyOf(b.buffer(), len);
                List<String> got = new ArrayList<>();
                SflowDecodeException err = decoder.decode(datagram, 0, len, new SampleVisitor() {
                    @Override
                    void onAnySample(FlowSample d) {
                        got.add(Describe.of(d));
                        // decode -> encode is the identity on canonical bytes
                        second.reset(0);
                        check(FlowSampleEncoder.encode(d, second), seed, "re-encode");
                        check(Arrays.equals(first.buffer(), 0, first.position(), second.buffer(), 0,
                                second.position()), seed, "re-encoded bytes differ");
                    }
                });
                check(err == null, seed, "decode failed: " + err);
                if (got.size() != 1 || !got.getFirst().equals(expected)) {
                    // Let AssertJ show the difference.
                    assertThat(got).as("seed %d", seed).containsExactly(expected);
                }
                // The sample sits in the datagram exactly as the standalone encoding.
                check(Arrays.equals(datagram, SflowFormats.HEADER_BYTES_IPV4, len, first.buffer(), 0, size), seed,
                        "datagram bytes");
                for (int k = 0; k < s.recordsListed; k++) {
                    recordsSeen[Math.min(4096, indexOfKnown(s.recordFormats[k]))]++;
                }
                cases++;
            }
        }
        assertThat(cases).isEqualTo(3L * CASES_PER_KIND);
        // Coverage: every known record type and unknown records appeared many times.
        for (int k = 0; k < KNOWN.length; k++) {
            assertThat(recordsSeen[k]).as("record %d", KNOWN[k]).isGreaterThan(CASES_PER_KIND);
        }
        assertThat(recordsSeen[4096]).isGreaterThan(CASES_PER_KIND);
    }

    private static void check(boolean ok, long seed, String what) {
        if (!ok) {
            fail(what + " (seed " + seed + ")");
        }
    }

    private static int indexOfKnown(int format) {
        for (int k = 0; k < KNOWN.length; k++) {
            if (KNOWN[k] == format) {
                return k;
            }
        }
        return 4096;
    }

    @Test
    void samplesPackedUnderA1400ByteBudgetDecodeInOrder() {
        Random rnd = new Random(BASE_SEED ^ 0x1400);
        DatagramBuilder b = new DatagramBuilder(1400, new byte[] {(byte) 192, (byte) 168, 0, 1}, 100000);
        SflowDecoder decoder = new SflowDecoder(new DecodeStats());
        List<String> pending = new ArrayList<>();
        int datagrams = 0;
        int refusedForRoom = 0;
        int tooBigForAnyDatagram = 0;
        for (int i = 0; i < 5000; i++) {
            FlowSample s = Gen.sample(rnd, KINDS[rnd.nextInt(3)]);
            int size = FlowSampleEncoder.encodedBytes(s);
            int before = b.size();
            byte[] snapshot = Arrays.copyOf(b.buffer(), before);
            boolean added = b.addFlowSample(s);
            assertThat(added).isEqualTo(before + size <= 1400);
            if (!added) {
                refusedForRoom++;
                assertThat(b.size()).isEqualTo(before);
                assertThat(Arrays.equals(b.buffer(), 0, before, snapshot, 0, before)).isTrue();
                datagrams += flushAndCheck(b, decoder, pending, datagrams);
                added = b.addFlowSample(s);
                assertThat(added).isEqualTo(SflowFormats.HEADER_BYTES_IPV4 + size <= 1400);
                if (!added) {
                    tooBigForAnyDatagram++;
                    continue;
                }
            }
            pending.add(Describe.of(s));
            assertThat(b.sampleCount()).isEqualTo(pending.size());
        }
        datagrams += flushAndCheck(b, decoder, pending, datagrams);
        assertThat(datagrams).isGreaterThan(100);
        assertThat(refusedForRoom).isGreaterThan(100);
        assertThat(tooBigForAnyDatagram).isPositive();
    }

    private static int flushAndCheck(DatagramBuilder b, SflowDecoder decoder, List<String> expected, int seq) {
        if (b.isEmpty()) {
            return 0;
        }
        int len = b.finish(seq, 42);
        assertThat(len).isLessThanOrEqualTo(1400);
        List<String> got = new ArrayList<>();
        long[] headerSeen = new long[2];
        SflowDecodeException err = decoder.decode(b.buffer(), 0, len, new SampleVisitor() {
            @Override
            public void onDatagram(DatagramHeader h) {
                headerSeen[0] = h.sequenceNumber;
                headerSeen[1] = h.numSamples;
            }

            @Override
            void onAnySample(FlowSample d) {
                got.add(Describe.of(d));
            }
        });
        assertThat(err).isNull();
        assertThat(headerSeen).containsExactly(seq, expected.size());
        assertThat(got).containsExactlyElementsOf(expected);
        expected.clear();
        b.reset();
        return 1;
    }

    @Test
    void encodeThatDoesNotFitWritesNothingAndRollsBack() {
        Random rnd = new Random(BASE_SEED ^ 0xF111);
        int cases = 0;
        for (int i = 0; i < 10_000; i++) {
            FlowSample s = Gen.sample(rnd, KINDS[rnd.nextInt(3)]);
            int size = FlowSampleEncoder.encodedBytes(s);
            int prefix = 4 * rnd.nextInt(8);
            int capacity = prefix + rnd.nextInt(size); // always short by at least one byte
            XdrWriter w = new XdrWriter(capacity);
            for (int k = 0; k < prefix / 4; k++) {
                w.u32(0xA5A5A5A5L + k);
            }
            byte[] before = w.buffer().clone();
            assertThat(FlowSampleEncoder.encode(s, w)).isFalse();
            assertThat(w.position()).isEqualTo(prefix);
            assertThat(w.overflow()).isFalse();
            assertThat(w.buffer()).isEqualTo(before);
            // With exactly enough room it fits.
            XdrWriter exact = new XdrWriter(prefix + size);
            exact.seek(prefix);
            assertThat(FlowSampleEncoder.encode(s, exact)).isTrue();
            assertThat(exact.position()).isEqualTo(prefix + size);
            cases++;
        }
        assertThat(cases).isEqualTo(10_000);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Real captures: decode -> encode -> decode
    // ------------------------------------------------------------------------------------------------------------

    /**
     * Captures whose agents are not canonical: they leave non-zero bytes in the XDR padding after the sampled_header
     * bytes (tcpdump sflow_expanded: 122 header bytes + 0x00 0x64; akvorado data-icmpv6: 2 pad bytes 0x2C 0x2D). The
     * encoder writes zero padding, so there only the padding differs.
     */
    static final List<String> NON_CANONICAL = List.of("akvorado-data-icmpv6.pcap", "tcpdump-sflow_expanded.pcap");

    @Test
    void capturesDecodeEncodeDecodeToIdenticalHoldersAndCanonicalBytes() throws IOException {
        List<String> captures;
        try (Stream<Path> files = Files.list(Captures.sflow(""))) {
            captures = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".pcap")).sorted().toList();
        }
        assertThat(captures).hasSizeGreaterThanOrEqualTo(14);
        DatagramBuilder b = new DatagramBuilder(65507, new byte[] {1, 1, 1, 1}, 0);
        SflowDecoder first = new SflowDecoder(new DecodeStats());
        SflowDecoder second = new SflowDecoder(new DecodeStats());
        XdrWriter w = new XdrWriter(65507);
        int[] samples = new int[3]; // total, byte-identical, identical but for pad bytes
        TreeSet<String> nonCanonical = new TreeSet<>();
        TreeSet<Integer> formats = new TreeSet<>();
        for (String capture : captures) {
            for (byte[] payload : Captures.udpPayloads(capture)) {
                first.decode(payload, 0, payload.length, new SampleVisitor() {
                    @Override
                    void onAnySample(FlowSample s) {
                        samples[0]++;
                        for (int k = 0; k < s.recordsListed; k++) {
                            formats.add(s.recordFormats[k]);
                        }
                        String original = Describe.of(s);
                        w.reset(0);
                        assertThat(FlowSampleEncoder.encode(s, w)).as(capture).isTrue();
                        b.reset();
                        assertThat(b.addFlowSample(s)).isTrue();
                        int len = b.finish(1, 1);
                        List<String> again = new ArrayList<>();
                        assertThat(second.decode(b.buffer(), 0, len, new SampleVisitor() {
                            @Override
                            void onAnySample(FlowSample d) {
                                again.add(Describe.of(d));
                            }
                        })).isNull();
                        assertThat(again).as(capture).containsExactly(original);

                        int origLen = 8 + s.length;
                        if (Arrays.equals(w.buffer(), 0, w.position(), s.buffer, s.offset, s.offset + origLen)) {
                            samples[1]++;
                            return;
                        }
                        // Not canonical: same length, and every differing byte is sampled_header padding that the
                        // encoder zeroed.
                        nonCanonical.add(capture);
                        assertThat(w.position()).as(capture).isEqualTo(origLen);
                        boolean[] pad = sampledHeaderPadding(w.buffer(), w.position(), s.kind);
                        for (int q = 0; q < origLen; q++) {
                            if (w.buffer()[q] != s.buffer[s.offset + q]) {
                                assertThat(pad[q]).as("%s: byte %d of the sample differs", capture, q).isTrue();
                                assertThat(w.buffer()[q]).isZero();
                            }
                        }
                        samples[2]++;
                    }
                });
            }
        }
        assertThat(samples[0]).isEqualTo(25);
        assertThat(samples[1]).isEqualTo(23);
        assertThat(samples[2]).isEqualTo(2);
        assertThat(nonCanonical).containsExactlyElementsOf(NON_CANONICAL);
        // The captures exercise sampled_header, sampled_ethernet, sampled_ipv4, switch, router, gateway, 1036, 1037.
        assertThat(formats).contains(1, 2, 3, 1001, 1002, 1003, 1036, 1037);
    }

    /** @return for each byte of an encoded sample, whether it is XDR padding after sampled_header bytes. */
    static boolean[] sampledHeaderPadding(byte[] b, int len, int kind) {
        boolean[] pad = new boolean[len];
        int p = 8 + (kind == SflowFormats.FLOW_SAMPLE_EXPANDED ? 44 : 32);
        int n = u32(b, p - 4);
        for (int i = 0; i < n; i++) {
            int format = u32(b, p);
            int length = u32(b, p + 4);
            if (format == SflowFormats.SAMPLED_HEADER) {
                int headerLength = u32(b, p + 8 + 12);
                int from = p + 8 + 16 + headerLength;
                for (int q = from; q < p + 8 + 16 + SflowFormats.pad4(headerLength); q++) {
                    pad[q] = true;
                }
            }
            p += 8 + SflowFormats.pad4(length);
        }
        return pad;
    }

    static int u32(byte[] b, int p) {
        return (b[p] & 0xFF) << 24 | (b[p + 1] & 0xFF) << 16 | (b[p + 2] & 0xFF) << 8 | (b[p + 3] & 0xFF);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Shared helpers (used by the other Flow*/DatagramBuilder* tests)
    // ------------------------------------------------------------------------------------------------------------

    /** Visitor that sends flow and discard samples to one method. */
    abstract static class SampleVisitor implements SflowVisitor {
        @Override
        public void onDatagram(DatagramHeader h) {}

        @Override
        public void onFlowSample(DatagramHeader h, FlowSample s) {
            onAnySample(s);
        }

        @Override
        public void onDiscardSample(DatagramHeader h, FlowSample s) {
            onAnySample(s);
        }

        @Override
        public void onSkippedSample(DatagramHeader h, int dataFormat, int offset, int length) {
            fail("sample skipped: " + dataFormat);
        }

        abstract void onAnySample(FlowSample s);
    }

    /**
     * A canonical text of every field of a {@link FlowSample} that the wire carries: the sample header, the record
     * list in order, every field of every present record, the unknown formats and raw bodies, the loss counters, and
     * the presence flags. Two samples with equal text are equal holders. Position fields ({@code offset},
     * {@code length}, {@code buffer}) are left out: they describe where the bytes were, not what they say.
     */
    static final class Describe {
        private static final HexFormat HEX = HexFormat.of();

        static String of(FlowSample s) {
            StringBuilder b = new StringBuilder(512);
            b.append("kind=").append(s.kind).append(" expanded=").append(s.expanded)
                    .append(" seq=").append(s.sequenceNumber)
                    .append(" source=").append(s.sourceIdType).append(':').append(s.sourceIdIndex)
                    .append(" rate=").append(s.samplingRate).append(" pool=").append(s.samplePool)
                    .append(" drops=").append(s.drops)
                    .append(" in=").append(s.inputFormat).append('/').append(s.input)
                    .append(" out=").append(s.outputFormat).append('/').append(s.output)
                    .append(" reason=").append(s.reason)
                    .append(" records=").append(s.recordCount).append('/').append(s.recordsListed)
                    .append(" unknown=").append(s.unknownRecords)
                    .append(" errors=").append(s.recordErrors).append(" duplicates=").append(s.duplicateRecords)
                    .append(" flags=").append(flags(s)).append('\n');
            int unknown = 0;
            for (int i = 0; i < s.recordsListed; i++) {
                int f = s.recordFormats[i];
                b.append("  ").append(f >>> 12).append(':').append(f & 0xFFF).append(' ');
                if (!record(s, f, b)) {
                    if (unknown < s.unknownKept()) {
                        b.append("unknown kept as ").append(s.unknownFormats[unknown] >>> 12).append(':')
                                .append(s.unknownFormats[unknown] & 0xFFF).append(" body=")
                                .append(hex(s.unknownBodies[unknown]));
                    } else {
                        b.append("unknown not kept");
                    }
                    unknown++;
                }
                b.append('\n');
            }
            return b.toString();
        }

        private static String flags(FlowSample s) {
            boolean[] f = {s.hasSampledHeader, s.hasSampledEthernet, s.hasSampledIpv4, s.hasSampledIpv6,
                s.hasExtendedSwitch, s.hasExtendedRouter, s.hasExtendedGateway, s.hasExtendedUser, s.hasExtendedUrl,
                s.hasExtendedMpls, s.hasExtendedNat, s.hasExtendedVlanTunnel, s.hasEgressQueue, s.hasExtendedAcl,
                s.hasFunction, s.hasTransitDelay, s.hasQueueDepth, s.hasHwTrap, s.hasLinuxDropReason,
                s.hasTimestamp};
            StringBuilder b = new StringBuilder();
            for (boolean x : f) {
                b.append(x ? '1' : '0');
            }
            return b.toString();
        }

        /** Appends the holder of a known record; false for a format the decoder keeps raw. */
        private static boolean record(FlowSample s, int f, StringBuilder b) {
            switch (f) {
                case SflowFormats.SAMPLED_HEADER -> {
                    var h = s.sampledHeader;
                    b.append("sampled_header protocol=").append(h.headerProtocol).append(" frame=")
                            .append(h.frameLength).append(" stripped=").append(h.stripped).append(" header=")
                            .append(hex(h.header));
                }
                case SflowFormats.SAMPLED_ETHERNET -> {
                    var e = s.sampledEthernet;
                    b.append("sampled_ethernet length=").append(e.length).append(" src=")
                            .append(Long.toHexString(e.srcMac)).append(" dst=").append(Long.toHexString(e.dstMac))
                            .append(" type=").append(e.type);
                }
                case SflowFormats.SAMPLED_IPV4 -> ip(b.append("sampled_ipv4 "), s.sampledIpv4);
                case SflowFormats.SAMPLED_IPV6 -> ip(b.append("sampled_ipv6 "), s.sampledIpv6);
                case SflowFormats.EXTENDED_SWITCH -> {
                    var x = s.extendedSwitch;
                    b.append("switch ").append(x.srcVlan).append(',').append(x.srcPriority).append(',')
                            .append(x.dstVlan).append(',').append(x.dstPriority);
                }
                case SflowFormats.EXTENDED_ROUTER -> {
                    var x = s.extendedRouter;
                    addr(b.append("router nexthop="), x.nextHop).append(" masks=").append(x.srcMaskLen).append(',')
                            .append(x.dstMaskLen);
                }
                case SflowFormats.EXTENDED_GATEWAY -> {
                    var g = s.extendedGateway;
                    addr(b.append("gateway nexthop="), g.nextHop).append(" as=").append(g.as).append(" src_as=")
                            .append(g.srcAs).append(" src_peer_as=").append(g.srcPeerAs).append(" segments=[");
                    int k = 0;
                    for (int i = 0; i < g.segments; i++) {
                        b.append(g.segmentType[i]).append(':');
                        for (int j = 0; j < g.segmentLength[i]; j++) {
                            b.append(g.asPath[k++]).append(j + 1 < g.segmentLength[i] ? "," : "");
                        }
                        b.append(' ');
                    }
                    b.append("] path_length=").append(g.asPathLength).append(" communities=")
                            .append(Arrays.toString(Arrays.copyOf(g.communities, g.communityCount)))
                            .append(" localpref=").append(g.localPref);
                }
                case SflowFormats.EXTENDED_USER -> {
                    var u = s.extendedUser;
                    b.append("user ").append(u.srcCharset).append(':').append(hex(u.srcUser)).append(' ')
                            .append(u.dstCharset).append(':').append(hex(u.dstUser));
                }
                case SflowFormats.EXTENDED_URL -> {
                    var u = s.extendedUrl;
                    b.append("url ").append(u.direction).append(' ').append(hex(u.url)).append(' ')
                            .append(hex(u.host));
                }
                case SflowFormats.EXTENDED_MPLS -> {
                    var m = s.extendedMpls;
                    addr(b.append("mpls nexthop="), m.nextHop).append(" in=")
                            .append(Arrays.toString(Arrays.copyOf(m.inStack, m.inDepth))).append(" out=")
                            .append(Arrays.toString(Arrays.copyOf(m.outStack, m.outDepth)));
                }
                case SflowFormats.EXTENDED_NAT -> addr(addr(b.append("nat "), s.extendedNat.src).append(' '),
                        s.extendedNat.dst);
                case SflowFormats.EXTENDED_VLAN_TUNNEL -> b.append("vlantunnel ").append(
                        Arrays.toString(Arrays.copyOf(s.extendedVlanTunnel.stack, s.extendedVlanTunnel.depth)));
                case SflowFormats.EXTENDED_EGRESS_QUEUE -> b.append("egress_queue ").append(s.egressQueue);
                case SflowFormats.EXTENDED_ACL -> b.append("acl ").append(s.extendedAcl.number).append(' ')
                        .append(hex(s.extendedAcl.name)).append(' ').append(s.extendedAcl.direction);
                case SflowFormats.EXTENDED_FUNCTION -> b.append("function ").append(hex(s.function));
                case SflowFormats.EXTENDED_TRANSIT -> b.append("transit ").append(s.transitDelayNanos);
                case SflowFormats.EXTENDED_QUEUE -> b.append("queue ").append(s.queueDepthBytes);
                case SflowFormats.EXTENDED_HW_TRAP -> b.append("hw_trap ").append(hex(s.hwTrap.group)).append(' ')
                        .append(hex(s.hwTrap.trap));
                case SflowFormats.EXTENDED_LINUX_DROP_REASON -> b.append("linux_drop_reason ")
                        .append(hex(s.linuxDropReason));
                case SflowFormats.EXTENDED_TIMESTAMP -> b.append("timestamp ")
                        .append(Long.toUnsignedString(s.timestampNanos));
                default -> {
                    return false;
                }
            }
            return true;
        }

        private static void ip(StringBuilder b, FlowRecords.SampledIp ip) {
            b.append("length=").append(ip.length).append(" protocol=").append(ip.protocol).append(' ');
            addr(b, ip.src).append(" -> ");
            addr(b, ip.dst).append(" ports=").append(ip.srcPort).append(',').append(ip.dstPort).append(" flags=")
                    .append(ip.tcpFlags).append(" tos=").append(ip.tos);
        }

        private static StringBuilder addr(StringBuilder b, SflowAddress a) {
            return b.append(a.type).append('/').append(HEX.formatHex(a.bytes));
        }

        private static String hex(ByteView v) {
            return v.length + ":" + HEX.formatHex(v.array, v.offset, v.offset + v.length);
        }
    }

    /**
     * Random {@link FlowSample}s as the decoder would deliver them: each field within its range (edge values
     * favoured), a random subset of every known record in random order, random strings and opaques, multi-segment
     * AS paths, MPLS and VLAN stacks, unknown/IPv4/IPv6 addresses, and unknown records of random (enterprise, format)
     * with random bodies (some of a length that is not a multiple of 4).
     */
    static final class Gen {
        private static final long[] EDGE_U32 = {0, 1, 2, 0x7FFFFFFFL, 0x80000000L, 0xFFFFFFFEL, 0xFFFFFFFFL};

        private final Random r;

        private Gen(Random r) {
            this.r = r;
        }

        /** @return a new random sample of {@code kind} (0:1, 0:3 or 0:5). */
        static FlowSample sample(Random r, int kind) {
            FlowSample s = new FlowSample();
            new Gen(r).fill(s, kind);
            return s;
        }

        long u32() {
            return r.nextInt(6) == 0 ? EDGE_U32[r.nextInt(EDGE_U32.length)] : r.nextLong() & 0xFFFFFFFFL;
        }

        private long upTo(long max) {
            return switch (r.nextInt(5)) {
                case 0 -> 0;
                case 1 -> max;
                default -> (r.nextLong() & Long.MAX_VALUE) % (max + 1);
            };
        }

        private byte[] bytes(int n) {
            byte[] b = new byte[n];
            r.nextBytes(b);
            return b;
        }

        /** A random string or opaque: usually short, sometimes empty, sometimes long, any length mod 4. */
        private void view(ByteView v) {
            int n = switch (r.nextInt(8)) {
                case 0 -> 0;
                case 1 -> 64 + r.nextInt(400);
                default -> 1 + r.nextInt(40);
            };
            // Sometimes a view into the middle of a larger array, as a decoded holder has.
            int off = r.nextInt(4) == 0 ? r.nextInt(9) : 0;
            byte[] a = bytes(off + n + r.nextInt(3));
            v.set(a, off, n);
        }

        private void address(SflowAddress a) {
            switch (r.nextInt(3)) {
                case 0 -> a.clear();
                case 1 -> a.set(bytes(4));
                default -> a.set(bytes(16));
            }
        }

        void fill(FlowSample s, int kind) {
            s.reset();
            s.kind = kind;
            s.expanded = kind != SflowFormats.FLOW_SAMPLE;
            s.sequenceNumber = u32();
            switch (kind) {
                case SflowFormats.FLOW_SAMPLE -> {
                    s.sourceIdType = (int) upTo(0xFF);
                    s.sourceIdIndex = upTo(0xFFFFFF);
                    s.samplingRate = u32();
                    s.samplePool = u32();
                    s.drops = u32();
                    s.inputFormat = (int) upTo(3);
                    s.input = upTo(0x3FFFFFFF);
                    s.outputFormat = (int) upTo(3);
                    s.output = upTo(0x3FFFFFFF);
                }
                case SflowFormats.FLOW_SAMPLE_EXPANDED -> {
                    s.sourceIdType = (int) u32();
                    s.sourceIdIndex = u32();
                    s.samplingRate = u32();
                    s.samplePool = u32();
                    s.drops = u32();
                    s.inputFormat = r.nextBoolean() ? r.nextInt(3) : (int) u32();
                    s.input = u32();
                    s.outputFormat = r.nextBoolean() ? r.nextInt(3) : (int) u32();
                    s.output = u32();
                }
                default -> {
                    s.sourceIdType = (int) u32();
                    s.sourceIdIndex = u32();
                    s.drops = u32();
                    s.input = u32();
                    s.output = u32();
                    s.reason = r.nextBoolean() ? r.nextInt(373) : u32();
                }
            }
            List<Integer> formats = new ArrayList<>();
            for (int f : KNOWN) {
                if (r.nextInt(8) < 5) {
                    formats.add(f);
                    known(s, f);
                }
            }
            int unknown = switch (r.nextInt(10)) {
                case 0, 1, 2, 3 -> 0;
                case 9 -> FlowSample.MAX_UNKNOWN_KEPT - r.nextInt(3);
                default -> 1 + r.nextInt(4);
            };
            List<Integer> unknownFormats = new ArrayList<>();
            for (int i = 0; i < unknown; i++) {
                int f = unknownFormat();
                formats.add(f);
                unknownFormats.add(f);
            }
            java.util.Collections.shuffle(formats, r);
            for (int f : formats) {
                s.recordFormats[s.recordsListed++] = f;
            }
            s.recordCount = s.recordsListed;
            // Unknown bodies are kept in wire order.
            int k = 0;
            for (int i = 0; i < s.recordsListed; i++) {
                int f = s.recordFormats[i];
                if (indexOfKnown(f) == 4096) {
                    s.unknownFormats[k] = f;
                    int len = r.nextInt(6) == 0 ? r.nextInt(23) : 4 * r.nextInt(30);
                    int off = r.nextInt(3) == 0 ? r.nextInt(7) : 0;
                    s.unknownBodies[k].set(bytes(off + len), off, len);
                    k++;
                }
            }
            s.unknownRecords = k;
        }

        private int unknownFormat() {
            if (r.nextBoolean()) { // another enterprise (vendor records, pitfall 4)
                return SflowFormats.dataFormat(1 + r.nextInt(0xFFFFF), r.nextInt(4096));
            }
            while (true) { // enterprise 0, a format vecflow does not decode (tunnels 1021-1030, MPLS 1008-1011, ...)
                int f = r.nextBoolean() ? 1008 + r.nextInt(30) : r.nextInt(4096);
                if (indexOfKnown(f) == 4096) {
                    return f;
                }
            }
        }

        private void known(FlowSample s, int f) {
            switch (f) {
                case SflowFormats.SAMPLED_HEADER -> {
                    var h = s.sampledHeader;
                    h.headerProtocol = r.nextBoolean() ? 1 + r.nextInt(18) : (int) u32();
                    h.frameLength = u32();
                    h.stripped = u32();
                    int n = r.nextInt(8) == 0 ? 0 : r.nextInt(257);
                    int off = r.nextInt(4) == 0 ? r.nextInt(14) : 0;
                    h.header.set(bytes(off + n), off, n);
                    s.hasSampledHeader = true;
                }
                case SflowFormats.SAMPLED_ETHERNET -> {
                    var e = s.sampledEthernet;
                    e.length = u32();
                    e.srcMac = r.nextLong() & 0xFFFF_FFFF_FFFFL;
                    e.dstMac = r.nextInt(6) == 0 ? 0xFFFF_FFFF_FFFFL : r.nextLong() & 0xFFFF_FFFF_FFFFL;
                    e.type = r.nextBoolean() ? 0x0800 : u32();
                    s.hasSampledEthernet = true;
                }
                case SflowFormats.SAMPLED_IPV4 -> {
                    sampledIp(s.sampledIpv4, 4);
                    s.hasSampledIpv4 = true;
                }
                case SflowFormats.SAMPLED_IPV6 -> {
                    sampledIp(s.sampledIpv6, 16);
                    s.hasSampledIpv6 = true;
                }
                case SflowFormats.EXTENDED_SWITCH -> {
                    var x = s.extendedSwitch;
                    x.srcVlan = r.nextBoolean() ? upTo(4095) : u32();
                    x.srcPriority = r.nextBoolean() ? upTo(7) : u32();
                    x.dstVlan = r.nextBoolean() ? upTo(4095) : u32();
                    x.dstPriority = r.nextBoolean() ? upTo(7) : u32();
                    s.hasExtendedSwitch = true;
                }
                case SflowFormats.EXTENDED_ROUTER -> {
                    var x = s.extendedRouter;
                    address(x.nextHop);
                    x.srcMaskLen = r.nextBoolean() ? upTo(128) : u32();
                    x.dstMaskLen = r.nextBoolean() ? upTo(128) : u32();
                    s.hasExtendedRouter = true;
                }
                case SflowFormats.EXTENDED_GATEWAY -> {
                    var g = s.extendedGateway;
                    address(g.nextHop);
                    g.as = u32();
                    g.srcAs = u32();
                    g.srcPeerAs = u32();
                    g.segments = r.nextInt(5) == 0 ? 0 : 1 + r.nextInt(6);
                    g.asPathLength = 0;
                    for (int i = 0; i < g.segments; i++) {
                        g.segmentType[i] = r.nextInt(4) == 0 ? (int) u32() : 1 + r.nextInt(2);
                        int n = r.nextInt(6) == 0 ? 0 : 1 + r.nextInt(12);
                        g.segmentLength[i] = n;
                        for (int j = 0; j < n; j++) {
                            g.asPath[g.asPathLength++] = u32();
                        }
                    }
                    g.communityCount = r.nextInt(4) == 0 ? 0 : r.nextInt(16);
                    for (int i = 0; i < g.communityCount; i++) {
                        g.communities[i] = u32();
                    }
                    g.localPref = u32();
                    s.hasExtendedGateway = true;
                }
                case SflowFormats.EXTENDED_USER -> {
                    var u = s.extendedUser;
                    u.srcCharset = r.nextBoolean() ? 106 : u32();
                    view(u.srcUser);
                    u.dstCharset = r.nextBoolean() ? 106 : u32();
                    view(u.dstUser);
                    s.hasExtendedUser = true;
                }
                case SflowFormats.EXTENDED_URL -> {
                    var u = s.extendedUrl;
                    u.direction = r.nextBoolean() ? 1 + r.nextInt(2) : u32();
                    view(u.url);
                    view(u.host);
                    s.hasExtendedUrl = true;
                }
                case SflowFormats.EXTENDED_MPLS -> {
                    var m = s.extendedMpls;
                    address(m.nextHop);
                    m.inDepth = stack(m.inStack);
                    m.outDepth = stack(m.outStack);
                    s.hasExtendedMpls = true;
                }
                case SflowFormats.EXTENDED_NAT -> {
                    address(s.extendedNat.src);
                    address(s.extendedNat.dst);
                    s.hasExtendedNat = true;
                }
                case SflowFormats.EXTENDED_VLAN_TUNNEL -> {
                    s.extendedVlanTunnel.depth = stack(s.extendedVlanTunnel.stack);
                    s.hasExtendedVlanTunnel = true;
                }
                case SflowFormats.EXTENDED_EGRESS_QUEUE -> {
                    s.egressQueue = u32();
                    s.hasEgressQueue = true;
                }
                case SflowFormats.EXTENDED_ACL -> {
                    s.extendedAcl.number = u32();
                    view(s.extendedAcl.name);
                    s.extendedAcl.direction = r.nextBoolean() ? upTo(2) : u32();
                    s.hasExtendedAcl = true;
                }
                case SflowFormats.EXTENDED_FUNCTION -> {
                    view(s.function);
                    s.hasFunction = true;
                }
                case SflowFormats.EXTENDED_TRANSIT -> {
                    s.transitDelayNanos = u32();
                    s.hasTransitDelay = true;
                }
                case SflowFormats.EXTENDED_QUEUE -> {
                    s.queueDepthBytes = u32();
                    s.hasQueueDepth = true;
                }
                case SflowFormats.EXTENDED_HW_TRAP -> {
                    view(s.hwTrap.group);
                    view(s.hwTrap.trap);
                    s.hasHwTrap = true;
                }
                case SflowFormats.EXTENDED_LINUX_DROP_REASON -> {
                    view(s.linuxDropReason);
                    s.hasLinuxDropReason = true;
                }
                case SflowFormats.EXTENDED_TIMESTAMP -> {
                    s.timestampNanos = r.nextInt(8) == 0 ? -1L : r.nextLong();
                    s.hasTimestamp = true;
                }
                default -> throw new AssertionError(f);
            }
        }

        private void sampledIp(FlowRecords.SampledIp ip, int addrLen) {
            ip.length = u32();
            ip.protocol = r.nextBoolean() ? upTo(255) : u32();
            ip.src.set(bytes(addrLen));
            ip.dst.set(bytes(addrLen));
            ip.srcPort = r.nextBoolean() ? upTo(65535) : u32();
            ip.dstPort = r.nextBoolean() ? upTo(65535) : u32();
            ip.tcpFlags = r.nextBoolean() ? upTo(0x1FF) : u32();
            ip.tos = r.nextBoolean() ? upTo(255) : u32();
        }

        /** @return a random depth (usually small, sometimes the full capacity), values as RFC 3032 words or any. */
        private int stack(long[] out) {
            int n = switch (r.nextInt(8)) {
                case 0 -> 0;
                case 1 -> FlowRecords.MAX_STACK;
                default -> 1 + r.nextInt(6);
            };
            for (int i = 0; i < n; i++) {
                out[i] = u32();
            }
            return n;
        }
    }
}
