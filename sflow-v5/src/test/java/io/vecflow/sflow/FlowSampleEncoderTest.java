package io.vecflow.sflow;

import static io.vecflow.sflow.FlowSampleRoundTripTest.u32;
import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.sflow.FlowSampleRoundTripTest.Describe;
import io.vecflow.sflow.FlowSampleRoundTripTest.SampleVisitor;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * {@link FlowSampleEncoder}: exact wire layouts (checked word by word against the sFlow v5 text, independently of the
 * decoder), the samples it refuses, and what happens to bytes real agents send that are not canonical.
 */
class FlowSampleEncoderTest {

    // ------------------------------------------------------------------------------------------------------------
    // Layouts
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void compactFlowSamplePacksSourceIdAndInterfacesAndPadsMacs() {
        FlowSample s = new FlowSample();
        s.kind = SflowFormats.FLOW_SAMPLE;
        s.sequenceNumber = 0x01020304L;
        s.sourceIdType = 2;
        s.sourceIdIndex = 0x123456;
        s.samplingRate = 256;
        s.samplePool = 1000;
        s.drops = 3;
        s.inputFormat = SflowFormats.IF_FORMAT_SINGLE;
        s.input = SflowFormats.IF_INTERNAL;
        s.outputFormat = SflowFormats.IF_FORMAT_MULTIPLE;
        s.output = 7;
        s.sampledEthernet.length = 64;
        s.sampledEthernet.srcMac = 0x001122334455L;
        s.sampledEthernet.dstMac = 0xFFFFFFFFFFFFL;
        s.sampledEthernet.type = 0x0800;
        s.hasSampledEthernet = true;
        list(s, SflowFormats.SAMPLED_ETHERNET);

        assertThat(encode(s)).isEqualTo(words(
                1, 64, // flow_sample, 32 fixed + 8 + 24
                0x01020304, 0x02123456, 256, 1000, 3, 0x3FFFFFFF, 0x80000007, 1,
                2, 24, 64, 0x00112233, 0x44550000, 0xFFFFFFFF, 0xFFFF0000, 0x0800));
        assertThat(FlowSampleEncoder.encodedBytes(s)).isEqualTo(72);
    }

    @Test
    void expandedFlowSampleWritesFormatWordsAndPadsTheHeaderBytes() {
        FlowSample s = new FlowSample();
        s.kind = SflowFormats.FLOW_SAMPLE_EXPANDED;
        s.sequenceNumber = 9;
        s.sourceIdType = 0;
        s.sourceIdIndex = 0x4CA40191L; // never masked (pitfall 7)
        s.samplingRate = 1000;
        s.samplePool = 0xFFFFFFFFL;
        s.drops = 0;
        s.inputFormat = 0;
        s.input = 0xFFFFFFFFL; // internal, expanded form
        s.outputFormat = 1;
        s.output = 258; // discarded: acl
        s.sampledHeader.headerProtocol = 1;
        s.sampledHeader.frameLength = 1518;
        s.sampledHeader.stripped = 4;
        s.sampledHeader.header.set(new byte[] {0, (byte) 0xAA, (byte) 0xAA, (byte) 0xAA, (byte) 0xAA, (byte) 0xAA, 0},
                1, 5);
        s.hasSampledHeader = true;
        list(s, SflowFormats.SAMPLED_HEADER);

        assertThat(encode(s)).isEqualTo(words(
                3, 44 + 8 + 24,
                9, 0, 0x4CA40191, 1000, 0xFFFFFFFF, 0, 0, 0xFFFFFFFF, 1, 258, 1,
                1, 24, 1, 1518, 4, 5, 0xAAAAAAAA, 0xAA000000));
    }

    @Test
    void discardedPacketFollowsSflowDrops() {
        FlowSample s = new FlowSample();
        s.kind = SflowFormats.DISCARDED_PACKET;
        s.sequenceNumber = 1;
        s.sourceIdType = 0;
        s.sourceIdIndex = 5;
        s.drops = 10;
        s.input = 5;
        s.output = 0;
        s.reason = 258;
        s.extendedAcl.number = 7;
        s.extendedAcl.name.set("deny".getBytes(StandardCharsets.US_ASCII));
        s.extendedAcl.direction = 1;
        s.hasExtendedAcl = true;
        s.linuxDropReason.set("abc".getBytes(StandardCharsets.US_ASCII));
        s.hasLinuxDropReason = true;
        list(s, SflowFormats.EXTENDED_ACL, SflowFormats.EXTENDED_LINUX_DROP_REASON);

        assertThat(encode(s)).isEqualTo(words(
                5, 32 + 8 + 16 + 8 + 8,
                1, 0, 5, 10, 5, 0, 258, 2,
                1037, 16, 7, 4, 0x64656E79, 1,
                1042, 8, 3, 0x61626300));
    }

    @Test
    void gatewayRouterMplsAndUnknownRecordsInListedOrder() {
        FlowSample s = new FlowSample();
        s.kind = SflowFormats.FLOW_SAMPLE_EXPANDED;
        var g = s.extendedGateway;
        g.nextHop.set(new byte[] {10, 0, 0, 1});
        g.as = 65000;
        g.srcAs = 65001;
        g.srcPeerAs = 65002;
        g.segments = 2;
        g.segmentType[0] = 2;
        g.segmentLength[0] = 2;
        g.segmentType[1] = 1;
        g.segmentLength[1] = 1;
        g.asPath[0] = 100;
        g.asPath[1] = 200;
        g.asPath[2] = 300;
        g.asPathLength = 3;
        g.communityCount = 1;
        g.communities[0] = 0xFDE80001L;
        g.localPref = 150;
        s.hasExtendedGateway = true;
        s.extendedMpls.nextHop.clear();
        s.extendedMpls.inDepth = 2;
        s.extendedMpls.inStack[0] = 0x000101FFL;
        s.extendedMpls.inStack[1] = 0x000111FFL;
        s.extendedMpls.outDepth = 0;
        s.hasExtendedMpls = true;
        int vendor = SflowFormats.dataFormat(8800, 2);
        s.unknownFormats[0] = vendor;
        s.unknownBodies[0].set(new byte[] {1, 2, 3, 4, 5});
        s.unknownRecords = 1;
        list(s, vendor, SflowFormats.EXTENDED_GATEWAY, SflowFormats.EXTENDED_MPLS);

        byte[] got = encode(s);
        byte[] fixed = Arrays.copyOfRange(got, 8, 8 + 44);
        assertThat(Arrays.copyOfRange(got, 8 + 44, got.length)).isEqualTo(words(
                vendor, 5, 0x01020304, 0x05000000, // XDR opaque<>: own length, zero padding
                1003, 4 * 16, 1, 0x0A000001, 65000, 65001, 65002, 2, 2, 2, 100, 200, 1, 1, 300, 1, 0xFDE80001, 150,
                1006, 4 * 5, 0, 2, 0x000101FF, 0x000111FF, 0));
        assertThat(u32(fixed, 40)).isEqualTo(3); // record count
    }

    // ------------------------------------------------------------------------------------------------------------
    // What real agents send that is not canonical
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void unpaddedSampledEthernetComesBackAsTheStandard24Bytes() {
        // Huawei S6720 V200R011 (netsampler/goflow2#510): 20-byte sampled_ethernet, MACs not padded.
        byte[] d = datagram(w -> {
            expandedHeader(w, 1);
            w.u32(SflowFormats.SAMPLED_ETHERNET).u32(20).u32(1514);
            w.fixed(new byte[] {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, (byte) 0x88, (byte) 0x99, (byte) 0xAA,
                (byte) 0xBB}, 0, 12);
            w.u32(0x86DD);
        });
        Decoded first = decodeOne(d);
        assertThat(first.text).contains("sampled_ethernet length=1514 src=1122334455 dst=66778899aabb type=34525");
        byte[] again = first.encoded;
        int rec = 8 + 44;
        assertThat(u32(again, rec + 4)).isEqualTo(24);
        assertThat(Arrays.copyOfRange(again, rec + 8, rec + 32)).isEqualTo(words(
                1514, 0x00112233, 0x44550000, 0x66778899, 0xAABB0000, 0x86DD));
        assertThat(decodeOne(wrap(again)).text).isEqualTo(first.text);
    }

    @Test
    void overDeclaredRecordKeepsItsFieldsAndIsWrittenAtItsTrueLength() {
        // Brocade FastIron declares 4 bytes more than it writes (sflow/sflowtool#8): extended_switch of length 20.
        byte[] d = datagram(w -> {
            expandedHeader(w, 1);
            w.u32(SflowFormats.EXTENDED_SWITCH).u32(20).u32(10).u32(1).u32(20).u32(2).u32(0xDEADBEEFL);
        });
        Decoded first = decodeOne(d);
        assertThat(first.text).contains("switch 10,1,20,2");
        assertThat(u32(first.encoded, 8 + 44 + 4)).isEqualTo(16);
        assertThat(first.encoded).hasSize(8 + 44 + 8 + 16);
        assertThat(decodeOne(wrap(first.encoded)).text).isEqualTo(first.text);
    }

    @Test
    void nonZeroPaddingIsZeroedAndOddUnknownLengthsAreKept() {
        byte[] d = datagram(w -> {
            expandedHeader(w, 2);
            // sampled_header with 6 header bytes and garbage in the 2 pad bytes (as in tcpdump sflow_expanded.pcap)
            w.u32(SflowFormats.SAMPLED_HEADER).u32(16 + 8).u32(1).u32(64).u32(4).u32(6);
            w.u32(0x01020304L).u32(0x0506EEFFL);
            // a vendor record declaring 5 bytes (not a multiple of 4), padded with garbage
            w.u32(SflowFormats.dataFormat(4413, 7)).u32(5).u32(0xA1A2A3A4L).u32(0xA5CCCCCCL);
        });
        Decoded first = decodeOne(d);
        assertThat(first.text).contains("header=6:010203040506").contains("body=5:a1a2a3a4a5");
        assertThat(first.encoded).hasSize(8 + 44 + 8 + 24 + 8 + 8);
        assertThat(Arrays.copyOfRange(first.encoded, 8 + 44, first.encoded.length)).isEqualTo(words(
                1, 24, 1, 64, 4, 6, 0x01020304, 0x05060000,
                SflowFormats.dataFormat(4413, 7), 5, 0xA1A2A3A4, 0xA5000000));
        assertThat(decodeOne(wrap(first.encoded)).text).isEqualTo(first.text);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Limits: what cannot be re-encoded is refused as a whole
    // ------------------------------------------------------------------------------------------------------------

    @Test
    void sixteenUnknownRecordsRoundTripButSeventeenAreRefused() {
        for (int unknown : new int[] {FlowSample.MAX_UNKNOWN_KEPT, FlowSample.MAX_UNKNOWN_KEPT + 1}) {
            byte[] d = datagram(w -> {
                expandedHeader(w, unknown + 1);
                w.u32(SflowFormats.EXTENDED_EGRESS_QUEUE).u32(4).u32(3);
                for (int i = 0; i < unknown; i++) {
                    w.u32(SflowFormats.dataFormat(1 + i, i)).u32(4).u32(i);
                }
            });
            Decoded first = decodeOne(d);
            if (unknown <= FlowSample.MAX_UNKNOWN_KEPT) {
                assertThat(first.size).isPositive();
                assertThat(decodeOne(wrap(first.encoded)).text).isEqualTo(first.text);
            } else {
                assertThat(first.text).contains("unknown=17").contains("unknown not kept");
                assertThat(first.size).isEqualTo(-1);
                assertThat(first.encoded).isNull();
                assertThat(first.builderAccepted).isFalse();
            }
        }
    }

    @Test
    void recordsBeyondMaxRecordsListedAreRefused() {
        // 65 records: decoded, counted, but only 64 listed (and, being all the same type, duplicates too).
        byte[] d = datagram(w -> {
            expandedHeader(w, FlowSample.MAX_RECORDS_LISTED + 1);
            for (int i = 0; i <= FlowSample.MAX_RECORDS_LISTED; i++) {
                w.u32(SflowFormats.EXTENDED_QUEUE).u32(4).u32(i);
            }
        });
        Decoded first = decodeOne(d);
        assertThat(first.text).contains("records=65/64");
        assertThat(first.size).isEqualTo(-1);
        assertThat(first.builderAccepted).isFalse();

        // The same condition on a hand-filled holder, without duplicates.
        FlowSample s = queueSample(SflowFormats.FLOW_SAMPLE_EXPANDED);
        assertThat(FlowSampleEncoder.encodedBytes(s)).isPositive();
        s.recordCount = s.recordsListed + 1;
        assertRefused(s);
    }

    @Test
    void samplesWithRecordErrorsOrDuplicatesAreRefused() {
        byte[] bad = datagram(w -> {
            expandedHeader(w, 2);
            w.u32(SflowFormats.EXTENDED_QUEUE).u32(4).u32(1);
            w.u32(SflowFormats.EXTENDED_FUNCTION).u32(8).u32(9999).u32(0); // string longer than its record
        });
        Decoded first = decodeOne(bad);
        assertThat(first.text).contains("errors=1");
        assertThat(first.size).isEqualTo(-1);
        assertThat(first.builderAccepted).isFalse();

        byte[] dup = datagram(w -> {
            expandedHeader(w, 2);
            w.u32(SflowFormats.EXTENDED_QUEUE).u32(4).u32(1);
            w.u32(SflowFormats.EXTENDED_QUEUE).u32(4).u32(2);
        });
        Decoded second = decodeOne(dup);
        assertThat(second.text).contains("duplicates=1");
        assertThat(second.size).isEqualTo(-1);
    }

    @Test
    void valuesTheChosenEncodingCannotCarryAreRefused() {
        FlowSample s = queueSample(SflowFormats.FLOW_SAMPLE);
        assertThat(FlowSampleEncoder.encodedBytes(s)).isEqualTo(8 + 32 + 8 + 4);
        s.sourceIdIndex = 0x1000000; // ifIndex >= 2^24: only 0:3 carries it (spec §4)
        assertRefused(s);
        s.kind = SflowFormats.FLOW_SAMPLE_EXPANDED;
        assertThat(FlowSampleEncoder.encodedBytes(s)).isEqualTo(8 + 44 + 8 + 4);

        s = queueSample(SflowFormats.FLOW_SAMPLE);
        s.sourceIdType = 256;
        assertRefused(s);
        s = queueSample(SflowFormats.FLOW_SAMPLE);
        s.input = 0x40000000L;
        assertRefused(s);
        s = queueSample(SflowFormats.FLOW_SAMPLE);
        s.outputFormat = 4;
        assertRefused(s);

        s = queueSample(SflowFormats.DISCARDED_PACKET);
        assertThat(FlowSampleEncoder.encodedBytes(s)).isPositive();
        s.inputFormat = 1; // 0:5 carries plain ifIndexes
        assertRefused(s);
        s = queueSample(SflowFormats.DISCARDED_PACKET);
        s.reason = -1; // FlowSample's "not a discard" value
        assertRefused(s);
        s.reason = 0x1_0000_0000L;
        assertRefused(s);

        for (int kind : new int[] {0, SflowFormats.COUNTERS_SAMPLE, SflowFormats.COUNTERS_SAMPLE_EXPANDED, 6}) {
            s = queueSample(SflowFormats.FLOW_SAMPLE_EXPANDED);
            s.kind = kind;
            assertRefused(s);
        }
    }

    @Test
    void recordsTheDecoderWouldRejectOrTheHolderDoesNotHoldAreRefused() {
        List<Consumer<FlowSample>> breakers = List.of(
                s -> s.hasEgressQueue = false, // listed but not present
                s -> s.extendedRouter.nextHop.type = 3,
                s -> s.sampledIpv4.src.set(new byte[16]),
                s -> s.sampledIpv6.dst.set(new byte[4]),
                s -> s.function.set(new byte[FlowRecords.MAX_STRING + 1]),
                s -> s.extendedGateway.asPathLength++,
                s -> s.extendedGateway.segmentLength[0] = -1,
                s -> s.extendedGateway.segments = FlowRecords.MAX_AS_SEGMENTS + 1,
                s -> s.extendedGateway.communityCount = FlowRecords.MAX_AS_PATH + 1,
                s -> s.extendedMpls.outDepth = FlowRecords.MAX_STACK + 1,
                s -> s.extendedVlanTunnel.depth = -1,
                s -> s.unknownFormats[0] = 0x12345, // does not match the listed unknown format
                s -> s.unknownRecords = 0, // listed unknown record with no kept body
                s -> s.unknownRecords = 2, // a kept body no listed record uses
                s -> s.recordsListed = FlowSample.MAX_RECORDS_LISTED + 1);
        for (int i = 0; i < breakers.size(); i++) {
            FlowSample s = richSample();
            assertThat(FlowSampleEncoder.encodedBytes(s)).as("valid before breaker %d", i).isPositive();
            breakers.get(i).accept(s);
            assertRefused(s);
        }
        // Edges that are still fine.
        FlowSample s = richSample();
        s.function.set(new byte[FlowRecords.MAX_STRING]);
        s.extendedMpls.outDepth = FlowRecords.MAX_STACK;
        s.recordCount = 0; // recordCount below recordsListed is ignored: recordsListed says what is written
        assertThat(FlowSampleEncoder.encodedBytes(s)).isPositive();
        assertThat(decodeOne(wrap(encode(s))).text).contains("records=" + s.recordsListed + "/" + s.recordsListed);
    }

    @Test
    void aWriterThatAlreadyOverflowedIsLeftAlone() {
        XdrWriter w = new XdrWriter(8);
        w.u32(1).u32(2).u32(3); // overflows
        assertThat(w.overflow()).isTrue();
        assertThat(FlowSampleEncoder.encode(queueSample(SflowFormats.FLOW_SAMPLE), w)).isFalse();
        assertThat(w.overflow()).isTrue();
        assertThat(w.position()).isEqualTo(8);
    }

    @Test
    void encodingIsDeterministicAndLeavesTheHolderUntouched() {
        Random rnd = new Random(3);
        for (int i = 0; i < 200; i++) {
            FlowSample s = FlowSampleRoundTripTest.Gen.sample(rnd, FlowSampleRoundTripTest.KINDS[i % 3]);
            String before = Describe.of(s);
            byte[] a = encode(s);
            byte[] b = encode(s);
            assertThat(a).isEqualTo(b);
            assertThat(Describe.of(s)).isEqualTo(before);
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Helpers
    // ------------------------------------------------------------------------------------------------------------

    static void list(FlowSample s, int... formats) {
        for (int f : formats) {
            s.recordFormats[s.recordsListed++] = f;
        }
        s.recordCount = s.recordsListed;
    }

    static byte[] words(long... words) {
        byte[] b = new byte[4 * words.length];
        for (int i = 0; i < words.length; i++) {
            long v = words[i];
            b[4 * i] = (byte) (v >>> 24);
            b[4 * i + 1] = (byte) (v >>> 16);
            b[4 * i + 2] = (byte) (v >>> 8);
            b[4 * i + 3] = (byte) v;
        }
        return b;
    }

    /** @return the encoded sample (tag included); fails if refused. */
    static byte[] encode(FlowSample s) {
        XdrWriter w = new XdrWriter(65536);
        assertThat(FlowSampleEncoder.encode(s, w)).isTrue();
        assertThat(w.position()).isEqualTo(FlowSampleEncoder.encodedBytes(s));
        return Arrays.copyOf(w.buffer(), w.position());
    }

    static void assertRefused(FlowSample s) {
        assertThat(FlowSampleEncoder.encodedBytes(s)).isEqualTo(-1);
        XdrWriter w = new XdrWriter(65536);
        w.u32(0xCAFEL);
        assertThat(FlowSampleEncoder.encode(s, w)).isFalse();
        assertThat(w.position()).isEqualTo(4);
        assertThat(w.overflow()).isFalse();
        DatagramBuilder b = new DatagramBuilder(65507, new byte[4], 0);
        assertThat(b.addFlowSample(s)).isFalse();
        assertThat(b.size()).isEqualTo(SflowFormats.HEADER_BYTES_IPV4);
        assertThat(b.sampleCount()).isZero();
    }

    /** An 0:1/0:3/0:5 sample with one extended_egress_queue record. */
    static FlowSample queueSample(int kind) {
        FlowSample s = new FlowSample();
        s.kind = kind;
        s.expanded = kind != SflowFormats.FLOW_SAMPLE;
        s.sequenceNumber = 1;
        s.sourceIdIndex = 3;
        s.input = 3;
        if (kind == SflowFormats.DISCARDED_PACKET) {
            s.reason = 259;
        } else {
            s.samplingRate = 100;
        }
        s.egressQueue = 2;
        s.hasEgressQueue = true;
        list(s, SflowFormats.EXTENDED_EGRESS_QUEUE);
        return s;
    }

    /** A valid 0:3 sample with a router, gateway, MPLS, VLAN tunnel, IPv4/IPv6, function and an unknown record. */
    static FlowSample richSample() {
        FlowSample s = queueSample(SflowFormats.FLOW_SAMPLE_EXPANDED);
        s.extendedRouter.nextHop.set(new byte[16]);
        s.hasExtendedRouter = true;
        s.sampledIpv4.src.set(new byte[] {1, 2, 3, 4});
        s.sampledIpv4.dst.set(new byte[] {5, 6, 7, 8});
        s.hasSampledIpv4 = true;
        s.sampledIpv6.src.set(new byte[16]);
        s.sampledIpv6.dst.set(new byte[16]);
        s.hasSampledIpv6 = true;
        s.function.set("nf_hook_slow".getBytes(StandardCharsets.US_ASCII));
        s.hasFunction = true;
        var g = s.extendedGateway;
        g.nextHop.clear();
        g.segments = 1;
        g.segmentType[0] = 2;
        g.segmentLength[0] = 2;
        g.asPath[0] = 64512;
        g.asPath[1] = 64513;
        g.asPathLength = 2;
        s.hasExtendedGateway = true;
        s.extendedMpls.nextHop.set(new byte[] {10, 0, 0, 2});
        s.extendedMpls.inDepth = 1;
        s.extendedMpls.inStack[0] = 0x00010100L;
        s.hasExtendedMpls = true;
        s.extendedVlanTunnel.depth = 1;
        s.extendedVlanTunnel.stack[0] = 0x81000064L;
        s.hasExtendedVlanTunnel = true;
        int vendor = SflowFormats.dataFormat(43874, 1);
        s.unknownFormats[0] = vendor;
        s.unknownBodies[0].set(new byte[] {9, 9, 9, 9});
        s.unknownRecords = 1;
        list(s, SflowFormats.EXTENDED_ROUTER, SflowFormats.SAMPLED_IPV4, SflowFormats.SAMPLED_IPV6,
                SflowFormats.EXTENDED_FUNCTION, SflowFormats.EXTENDED_GATEWAY, vendor, SflowFormats.EXTENDED_MPLS,
                SflowFormats.EXTENDED_VLAN_TUNNEL);
        return s;
    }

    /** Writes the 0:3 fixed part with {@code records} records declared (the sample length is back-patched). */
    static void expandedHeader(XdrWriter w, int records) {
        w.u32(7).u32(0).u32(42).u32(512).u32(4096).u32(0).u32(0).u32(42).u32(0).u32(43).u32(records);
    }

    /** @return a datagram (IPv4 agent 10.0.0.9) carrying one 0:3 sample whose body {@code body} writes. */
    static byte[] datagram(Consumer<XdrWriter> body) {
        XdrWriter w = new XdrWriter(65536);
        w.u32(5).u32(1).u32(0x0A000009L).u32(100000).u32(1).u32(1000).u32(1);
        w.u32(SflowFormats.FLOW_SAMPLE_EXPANDED);
        int len = w.beginLength();
        body.accept(w);
        w.endLength(len);
        assertThat(w.overflow()).isFalse();
        return Arrays.copyOf(w.buffer(), w.position());
    }

    /** @return a datagram (IPv4 agent) carrying the already-encoded sample bytes. */
    static byte[] wrap(byte[] sample) {
        XdrWriter w = new XdrWriter(65536);
        w.u32(5).u32(1).u32(0x0A000009L).u32(100000).u32(2).u32(2000).u32(1);
        w.fixed(sample, 0, sample.length);
        return Arrays.copyOf(w.buffer(), w.position());
    }

    /** What one decoded sample looked like, and what the encoder made of it (inside the visitor call). */
    record Decoded(String text, int size, byte[] encoded, boolean builderAccepted) {}

    static Decoded decodeOne(byte[] datagram) {
        List<Decoded> out = new ArrayList<>();
        SflowDecodeException e = new SflowDecoder(new DecodeStats()).decode(datagram, 0, datagram.length,
                new SampleVisitor() {
                    @Override
                    void onAnySample(FlowSample s) {
                        int size = FlowSampleEncoder.encodedBytes(s);
                        XdrWriter w = new XdrWriter(65536);
                        boolean ok = FlowSampleEncoder.encode(s, w);
                        assertThat(ok).isEqualTo(size > 0);
                        DatagramBuilder b = new DatagramBuilder(65507, new byte[4], 0);
                        boolean accepted = b.addFlowSample(s);
                        assertThat(accepted).isEqualTo(ok);
                        assertThat(b.size()).isEqualTo(SflowFormats.HEADER_BYTES_IPV4 + (ok ? size : 0));
                        out.add(new Decoded(Describe.of(s), size, ok ? Arrays.copyOf(w.buffer(), w.position()) : null,
                                accepted));
                    }
                });
        assertThat(e).isNull();
        assertThat(out).hasSize(1);
        return out.getFirst();
    }
}
