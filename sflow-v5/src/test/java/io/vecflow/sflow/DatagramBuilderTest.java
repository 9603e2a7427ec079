package io.vecflow.sflow;

import static io.vecflow.sflow.FlowSampleEncoderTest.list;
import static io.vecflow.sflow.FlowSampleEncoderTest.words;
import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.sflow.FlowSampleRoundTripTest.Describe;
import io.vecflow.sflow.FlowSampleRoundTripTest.Gen;
import io.vecflow.sflow.FlowSampleRoundTripTest.SampleVisitor;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link DatagramBuilder} on its {@link XdrWriter}: the agent's hot path, {@code addFlowSample}, and allocation. */
class DatagramBuilderTest {
    private static final byte[] AGENT4 = {10, 0, 0, 1};

    @Test
    void addFlowSampleExpandedKeepsItsExactBytes() {
        // Hand-computed from sFlow v5: header (28), 0:3 sample of 8 + 44 + 8 + 16 + pad4(3) bytes.
        DatagramBuilder b = new DatagramBuilder(1400, AGENT4, 100000);
        byte[] header = {0x77, 0x11, 0x22, 0x33, 0x77};
        assertThat(b.addFlowSampleExpanded(5, 0, 3, 10, 50, 2, 0, 3, 0, 0x3FFFFFFF, 1, 64, 4, header, 1, 3)).isTrue();
        assertThat(b.size()).isEqualTo(28 + DatagramBuilder.flowSampleExpandedBytes(3)).isEqualTo(28 + 80);
        int len = b.finish(9, 1234);
        assertThat(Arrays.copyOf(b.buffer(), len)).isEqualTo(words(
                5, 1, 0x0A000001, 100000, 9, 1234, 1,
                3, 44 + 8 + 20, 5, 0, 3, 10, 50, 2, 0, 3, 0, 0x3FFFFFFF, 1,
                1, 20, 1, 64, 4, 3, 0x11223300));
        // MemorySegment overload: identical bytes.
        DatagramBuilder m = new DatagramBuilder(1400, AGENT4, 100000);
        assertThat(m.addFlowSampleExpanded(5, 0, 3, 10, 50, 2, 0, 3, 0, 0x3FFFFFFF, 1, 64, 4,
                MemorySegment.ofArray(header), 1, 3)).isTrue();
        assertThat(m.finish(9, 1234)).isEqualTo(len);
        assertThat(Arrays.equals(m.buffer(), 0, len, b.buffer(), 0, len)).isTrue();
        assertThat(b.maxHeaderLength()).isEqualTo((1400 - 28 - 76) & ~3);
        assertThat(new DatagramBuilder(1400, new byte[16], 0).maxHeaderLength()).isEqualTo((1400 - 40 - 76) & ~3);
    }

    @Test
    void addFlowSampleExpandedEqualsAddFlowSampleOfTheSameHolder() {
        Random rnd = new Random(11);
        for (int i = 0; i < 2000; i++) {
            byte[] agent = new byte[rnd.nextBoolean() ? 4 : 16];
            rnd.nextBytes(agent);
            DatagramBuilder legacy = new DatagramBuilder(1400, agent, 100000);
            DatagramBuilder holder = new DatagramBuilder(1400, agent, 100000);
            FlowSample s = new FlowSample();
            while (true) {
                long[] v = new long[10];
                for (int k = 0; k < v.length; k++) {
                    v[k] = rnd.nextLong() & 0xFFFFFFFFL;
                }
                byte[] header = new byte[200];
                rnd.nextBytes(header);
                int off = rnd.nextInt(20);
                int n = rnd.nextInt(180);
                boolean segment = rnd.nextBoolean();
                boolean a = segment
                        ? legacy.addFlowSampleExpanded(v[0], (int) v[1], v[2], v[3], v[4], v[5], 0, v[6], 2, v[7],
                                (int) v[8], v[9], 4, MemorySegment.ofArray(header), off, n)
                        : legacy.addFlowSampleExpanded(v[0], (int) v[1], v[2], v[3], v[4], v[5], 0, v[6], 2, v[7],
                                (int) v[8], v[9], 4, header, off, n);
                s.reset();
                s.kind = SflowFormats.FLOW_SAMPLE_EXPANDED;
                s.sequenceNumber = v[0];
                s.sourceIdType = (int) v[1];
                s.sourceIdIndex = v[2];
                s.samplingRate = v[3];
                s.samplePool = v[4];
                s.drops = v[5];
                s.input = v[6];
                s.outputFormat = 2;
                s.output = v[7];
                s.sampledHeader.headerProtocol = (int) v[8];
                s.sampledHeader.frameLength = v[9];
                s.sampledHeader.stripped = 4;
                s.sampledHeader.header.set(header, off, n);
                s.hasSampledHeader = true;
                list(s, SflowFormats.SAMPLED_HEADER);
                assertThat(FlowSampleEncoder.encodedBytes(s)).isEqualTo(DatagramBuilder.flowSampleExpandedBytes(n));
                boolean h = holder.addFlowSample(s);
                assertThat(h).isEqualTo(a);
                assertThat(holder.size()).isEqualTo(legacy.size());
                if (!a) {
                    break;
                }
            }
            int len = legacy.finish(i, 7 * i);
            assertThat(holder.finish(i, 7 * i)).isEqualTo(len);
            assertThat(Arrays.equals(holder.buffer(), 0, len, legacy.buffer(), 0, len)).isTrue();
        }
    }

    @Test
    void addFlowSampleRespectsTheBudgetExactly() {
        FlowSample s = FlowSampleEncoderTest.richSample();
        int size = FlowSampleEncoder.encodedBytes(s);
        int budget = 28 + 2 * size; // two fit exactly
        assertThat(budget).isGreaterThanOrEqualTo(200);
        DatagramBuilder b = new DatagramBuilder(budget, AGENT4, 1);
        assertThat(b.fits(size)).isTrue();
        assertThat(b.addFlowSample(s)).isTrue();
        assertThat(b.addFlowSample(s)).isTrue();
        assertThat(b.size()).isEqualTo(budget);
        assertThat(b.fits(0)).isTrue();
        assertThat(b.fits(1)).isFalse();
        byte[] before = b.buffer().clone();
        assertThat(b.addFlowSample(s)).isFalse();
        assertThat(b.buffer()).isEqualTo(before);
        assertThat(b.sampleCount()).isEqualTo(2);
        // A legacy sample does not fit either; the datagram still decodes to the two samples.
        assertThat(b.addFlowSampleExpanded(1, 0, 1, 1, 1, 0, 0, 1, 0, 0, 1, 100, 4, new byte[4], 0, 0)).isFalse();
        List<String> got = decode(b.buffer(), b.finish(77, 88));
        assertThat(got).containsExactly(Describe.of(s), Describe.of(s));
        // After reset the builder is empty and reusable.
        b.reset();
        assertThat(b.isEmpty()).isTrue();
        assertThat(b.size()).isEqualTo(28);
        assertThat(b.addFlowSample(s)).isTrue();
        assertThat(decode(b.buffer(), b.finish(78, 89))).containsExactly(Describe.of(s));
    }

    @Test
    void ipv6AgentAndMixedSampleKindsInOneDatagram() {
        byte[] agent = new byte[16];
        agent[0] = 0x20;
        agent[1] = 0x01;
        agent[15] = 1;
        DatagramBuilder b = new DatagramBuilder(65507, agent, 5);
        Random rnd = new Random(5);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            if (i % 3 == 0) {
                byte[] header = new byte[64];
                rnd.nextBytes(header);
                assertThat(b.addFlowSampleExpanded(i, 0, 7, 100, 1000, 0, 0, 7, 0, 8, 1, 68, 4, header, 0, 64))
                        .isTrue();
                FlowSample s = new FlowSample();
                s.kind = SflowFormats.FLOW_SAMPLE_EXPANDED;
                s.expanded = true;
                s.sequenceNumber = i;
                s.sourceIdIndex = 7;
                s.samplingRate = 100;
                s.samplePool = 1000;
                s.input = 7;
                s.output = 8;
                s.sampledHeader.headerProtocol = 1;
                s.sampledHeader.frameLength = 68;
                s.sampledHeader.stripped = 4;
                s.sampledHeader.header.set(header);
                s.hasSampledHeader = true;
                list(s, SflowFormats.SAMPLED_HEADER);
                expected.add(Describe.of(s));
            } else {
                FlowSample s = Gen.sample(rnd, FlowSampleRoundTripTest.KINDS[i % 3]);
                assertThat(b.addFlowSample(s)).isTrue();
                expected.add(Describe.of(s));
            }
        }
        int len = b.finish(1, 2);
        String[] agentSeen = new String[1];
        List<String> got = new ArrayList<>();
        assertThat(new SflowDecoder(new DecodeStats()).decode(b.buffer(), 0, len, new SampleVisitor() {
            @Override
            public void onDatagram(DatagramHeader h) {
                agentSeen[0] = h.agentAddressString() + "/" + h.subAgentId + " header=" + h.headerLength;
            }

            @Override
            void onAnySample(FlowSample s) {
                got.add(Describe.of(s));
            }
        })).isNull();
        assertThat(agentSeen[0]).isEqualTo("2001::1/5 header=40");
        assertThat(got).containsExactlyElementsOf(expected);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Allocation
    // ------------------------------------------------------------------------------------------------------------

    /** A prepared 0:3 sample with seven records: header, ethernet, IPv4, switch, gateway, user, a vendor record. */
    static FlowSample preparedSample() {
        FlowSample s = new FlowSample();
        s.kind = SflowFormats.FLOW_SAMPLE_EXPANDED;
        s.expanded = true;
        s.sequenceNumber = 1;
        s.sourceIdIndex = 12;
        s.samplingRate = 1000;
        s.samplePool = 1_000_000;
        s.input = 12;
        s.output = 13;
        byte[] frame = new byte[128];
        new Random(1).nextBytes(frame);
        s.sampledHeader.headerProtocol = 1;
        s.sampledHeader.frameLength = 1518;
        s.sampledHeader.stripped = 4;
        s.sampledHeader.header.set(frame);
        s.hasSampledHeader = true;
        s.sampledEthernet.length = 1514;
        s.sampledEthernet.srcMac = 0x0200_0000_0001L;
        s.sampledEthernet.dstMac = 0x0200_0000_0002L;
        s.sampledEthernet.type = 0x0800;
        s.hasSampledEthernet = true;
        s.sampledIpv4.length = 1500;
        s.sampledIpv4.protocol = 6;
        s.sampledIpv4.src.set(new byte[] {10, 0, 0, 1});
        s.sampledIpv4.dst.set(new byte[] {10, 0, 0, 2});
        s.sampledIpv4.srcPort = 443;
        s.sampledIpv4.dstPort = 51000;
        s.sampledIpv4.tcpFlags = 0x18;
        s.hasSampledIpv4 = true;
        s.extendedSwitch.srcVlan = 10;
        s.extendedSwitch.dstVlan = 20;
        s.hasExtendedSwitch = true;
        var g = s.extendedGateway;
        g.nextHop.set(new byte[16]);
        g.as = 65000;
        g.srcAs = 65001;
        g.segments = 2;
        g.segmentType[0] = 2;
        g.segmentLength[0] = 3;
        g.segmentType[1] = 1;
        g.segmentLength[1] = 2;
        for (int i = 0; i < 5; i++) {
            g.asPath[i] = 64500 + i;
        }
        g.asPathLength = 5;
        g.communityCount = 2;
        g.communities[0] = 1;
        g.communities[1] = 2;
        s.hasExtendedGateway = true;
        s.extendedUser.srcCharset = 106;
        s.extendedUser.srcUser.set("alice".getBytes(StandardCharsets.UTF_8));
        s.extendedUser.dstCharset = 106;
        s.extendedUser.dstUser.set("bob".getBytes(StandardCharsets.UTF_8));
        s.hasExtendedUser = true;
        int vendor = SflowFormats.dataFormat(8800, 2);
        s.unknownFormats[0] = vendor;
        s.unknownBodies[0].set(new byte[12]);
        s.unknownRecords = 1;
        list(s, SflowFormats.SAMPLED_HEADER, SflowFormats.SAMPLED_ETHERNET, SflowFormats.SAMPLED_IPV4,
                SflowFormats.EXTENDED_SWITCH, SflowFormats.EXTENDED_GATEWAY, SflowFormats.EXTENDED_USER, vendor);
        return s;
    }

    @Test
    void addFlowSampleAllocatesNothingAfterWarmUp() {
        com.sun.management.ThreadMXBean mx = threadMx();
        DatagramBuilder b = new DatagramBuilder(1400, AGENT4, 100000);
        FlowSample s = preparedSample();
        assertThat(decodeAfter(b, s)).containsExactly(Describe.of(s));
        long best = measure(mx, () -> addOrFlush(b, s));
        assertThat(best).as("bytes allocated by %d addFlowSample calls", CALLS).isZero();
    }

    @Test
    void addFlowSampleExpandedAllocatesNothingAfterWarmUp() {
        com.sun.management.ThreadMXBean mx = threadMx();
        DatagramBuilder b = new DatagramBuilder(1400, AGENT4, 100000);
        byte[] frame = new byte[128];
        MemorySegment segment = MemorySegment.ofArray(frame);
        long arrays = measure(mx, () -> {
            if (!b.addFlowSampleExpanded(1, 0, 3, 10, 50, 2, 0, 3, 0, 4, 1, 1518, 4, frame, 0, 128)) {
                b.finish(1, 2);
                b.reset();
            }
        });
        long segments = measure(mx, () -> {
            if (!b.addFlowSampleExpanded(1, 0, 3, 10, 50, 2, 0, 3, 0, 4, 1, 1518, 4, segment, 0, 128)) {
                b.finish(1, 2);
                b.reset();
            }
        });
        assertThat(arrays).as("byte[] overload").isZero();
        assertThat(segments).as("MemorySegment overload").isZero();
    }

    private static final int CALLS = 20_000;

    private static void addOrFlush(DatagramBuilder b, FlowSample s) {
        if (!b.addFlowSample(s)) {
            b.finish(1, 2);
            b.reset();
            b.addFlowSample(s);
        }
    }

    private static com.sun.management.ThreadMXBean threadMx() {
        // The allocation checks need HotSpot's per-thread counter: fail, never skip, without it.
        assertThat(ManagementFactory.getThreadMXBean()).isInstanceOf(com.sun.management.ThreadMXBean.class);
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertThat(mx.isThreadAllocatedMemorySupported()).as("per-thread allocation counter").isTrue();
        mx.setThreadAllocatedMemoryEnabled(true);
        return mx;
    }

    /**
     * Warms {@code op} up (so the JIT has compiled it), then counts the bytes this thread allocates over
     * {@link #CALLS} calls, five times.
     *
     * @return the fewest bytes of the five rounds (a round can catch a one-off JVM-internal allocation)
     */
    private static long measure(com.sun.management.ThreadMXBean mx, Runnable op) {
        for (int i = 0; i < 200_000; i++) {
            op.run();
        }
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < CALLS; i++) {
                op.run();
            }
            long after = mx.getCurrentThreadAllocatedBytes();
            best = Math.min(best, after - before);
        }
        return best;
    }

    // ------------------------------------------------------------------------------------------------------------

    private static List<String> decodeAfter(DatagramBuilder b, FlowSample s) {
        b.reset();
        assertThat(b.addFlowSample(s)).isTrue();
        List<String> got = decode(b.buffer(), b.finish(1, 1));
        b.reset();
        return got;
    }

    private static List<String> decode(byte[] buf, int len) {
        List<String> got = new ArrayList<>();
        assertThat(new SflowDecoder(new DecodeStats()).decode(buf, 0, len, new SampleVisitor() {
            @Override
            void onAnySample(FlowSample s) {
                got.add(Describe.of(s));
            }
        })).isNull();
        return got;
    }
}
