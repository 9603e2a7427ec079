package io.vecflow.hsflowd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.hsflowd.UdpReceiver.Datagram;
import io.vecflow.hsflowd.UdpReceiver.Sample;
import io.vecflow.hsflowd.config.HsflowdConfig;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The agent against a real UDP collector socket on 127.0.0.1; what arrives is read back with SflowDecoder. */
class SflowAgentTest {
    private static final long WAIT_MS = 3000;
    private static final int RATE = 512;

    private UdpReceiver rx;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        rx = new UdpReceiver();
        open.add(rx);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
    }

    private SflowAgent agent(String extra) throws Exception {
        // sampling = 1 unless a test sets it: no sub-sampling gets in the way of exact expectations.
        String sampling = extra.contains("sampling") ? "" : " sampling = 1\n";
        HsflowdConfig c = HsflowdConfig.parse("sflow {\n agentIP = 192.0.2.10\n" + sampling + extra
                + "\n collector { ip = 127.0.0.1 udpport = " + rx.port() + " }\n}\n");
        SflowAgent a = new SflowAgent(c, InetAddress.getByName("192.0.2.10"));
        open.add(a);
        return a;
    }

    static byte[] frame(int len, int seed) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            b[i] = (byte) (seed * 31 + i * 7);
        }
        return b;
    }

    @Test
    void oneSampleOneDatagramWithHsflowdFields() throws Exception {
        SflowAgent a = agent("psample { group = 1 }");
        byte[] data = frame(200, 1);
        // 3 samples from iif 7, one from iif 9, spread over two flushes
        a.onSample(1, 1, 7, 3, 1500, RATE, data, 10, 100);
        assertThat(rx.awaitDatagrams(1, 100)).as("nothing is sent before flush or tick").isZero();
        a.flush();
        assertThat(rx.awaitDatagrams(1, WAIT_MS)).isEqualTo(1);
        Thread.sleep(20);
        a.onSample(1, 2, 7, 3, 60, RATE, data, 0, 60);
        a.onSample(1, 3, 9, 0, 64, RATE, data, 0, 64);
        a.onSample(1, 4, 7, 3, 1514, RATE, data, 0, 200);
        a.flush();
        a.flush(); // nothing pending: no datagram
        assertThat(rx.awaitDatagrams(2, WAIT_MS)).isEqualTo(2);
        assertThat(rx.awaitDatagrams(3, 200)).isEqualTo(2);

        Datagram d1 = rx.datagrams.get(0);
        Datagram d2 = rx.datagrams.get(1);
        for (Datagram d : List.of(d1, d2)) {
            assertThat(d.version()).isEqualTo(5);
            assertThat(d.agentAddress()).containsExactly(192, 0, 2, 10);
            assertThat(d.subAgentId()).isEqualTo(100000);
            assertThat(d.uptimeMs()).isGreaterThanOrEqualTo(0).isLessThan(10_000);
            assertThat(d.from().getPort()).isEqualTo(a.localPort());
            assertThat(d.numSamples()).isEqualTo(d.samples().size());
        }
        assertThat(d1.sequence()).isEqualTo(1);
        assertThat(d2.sequence()).isEqualTo(2);
        assertThat(d2.uptimeMs()).isGreaterThan(d1.uptimeMs());
        assertThat(d1.samples()).hasSize(1);
        assertThat(d2.samples()).hasSize(3);
        assertThat(d1.length()).isEqualTo(28 + 8 + 44 + 8 + 16 + 100);

        Sample s = d1.samples().getFirst();
        assertThat(s.expanded()).isTrue();
        assertThat(s.sourceType()).isZero();
        assertThat(s.sourceIndex()).isEqualTo(7);
        assertThat(s.seq()).isEqualTo(1);
        assertThat(s.rate()).isEqualTo(RATE);
        assertThat(s.pool()).isEqualTo(RATE);
        assertThat(s.drops()).isZero();
        assertThat(s.inputFormat()).isZero();
        assertThat(s.input()).isEqualTo(7);
        assertThat(s.outputFormat()).isZero();
        assertThat(s.output()).isEqualTo(3);
        assertThat(s.recordCount()).isEqualTo(1);
        assertThat(s.hasHeader()).isTrue();
        assertThat(s.headerProtocol()).isEqualTo(1);
        assertThat(s.frameLength()).isEqualTo(1504);
        assertThat(s.stripped()).isEqualTo(4);
        assertThat(s.header()).containsExactly(Arrays.copyOfRange(data, 10, 110));

        Sample s2 = d2.samples().get(0);
        Sample other = d2.samples().get(1);
        Sample s3 = d2.samples().get(2);
        assertThat(s2.seq()).isEqualTo(2);
        assertThat(s2.pool()).isEqualTo(2L * RATE);
        assertThat(s2.frameLength()).isEqualTo(64);
        assertThat(s2.header()).containsExactly(Arrays.copyOf(data, 60));
        assertThat(s3.seq()).isEqualTo(3);
        assertThat(s3.pool()).isEqualTo(3L * RATE);
        assertThat(s3.frameLength()).isEqualTo(1518);
        assertThat(s3.header()).as("min(len, headerBytes = 128)").containsExactly(Arrays.copyOf(data, 128));
        // a separate source: its own sequence and pool
        assertThat(other.sourceIndex()).isEqualTo(9);
        assertThat(other.seq()).isEqualTo(1);
        assertThat(other.pool()).isEqualTo(RATE);
        assertThat(other.input()).isEqualTo(9);
        assertThat(other.output()).isZero();
        assertThat(other.header()).containsExactly(Arrays.copyOf(data, 64));

        assertThat(a.samplesIn()).isEqualTo(4);
        assertThat(a.samplesSent()).isEqualTo(4);
        assertThat(a.datagramsSent()).isEqualTo(2);
        assertThat(a.datagramSequence()).isEqualTo(2);
        assertThat(a.sendFailures()).isZero();
        assertThat(a.bytesSent()).isEqualTo(d1.length() + d2.length());
    }

    @Test
    void sourcesSamplingMoreOftenThanConfiguredAreSubSampled() throws Exception {
        // hsflowd: incoming 1-in-10 samples with sampling = 100 are kept with probability 10/100 and reported at 100.
        SflowAgent a = agent("sampling = 100 psample { group = 1 }");
        byte[] data = frame(64, 2);
        int n = 20_000;
        for (int i = 1; i <= n; i++) {
            a.onSample(1, i, 5, 0, 60, 10, data, 0, 64);
            if (i % 500 == 0) {
                a.flush();
            }
        }
        a.flush();
        long kept = a.samplesSent();
        assertThat(kept + a.subSampledOut()).isEqualTo(n);
        // Binomial(20,000, 0.1): mean 2,000, sd 42; ±5 sd.
        assertThat(kept).isBetween(1_790L, 2_210L);
        assertThat(rx.awaitSamples((int) kept, WAIT_MS)).isEqualTo((int) kept);
        List<Sample> all = rx.samples();
        assertThat(all).allMatch(x -> x.rate() == 100);
        Sample last = all.getLast();
        assertThat(last.seq()).isEqualTo(kept); // contiguous per-source sequence over kept samples
        // The pool counts every packet the source could sample, kept or not: 10 per incoming sample, so the last
        // kept sample carries 10 × its position among the incoming ones (P(100 rejections in a row) ≈ 3e-5).
        long prevPool = 0;
        for (Sample x : all) {
            assertThat(x.pool() % 10).isZero();
            assertThat(x.pool()).isGreaterThan(prevPool);
            prevPool = x.pool();
        }
        assertThat(last.pool()).isBetween(10L * (n - 100), 10L * n);
        assertThat(all.getFirst().pool() / 10 + kept - 1).as("pool grew by more than the kept samples")
                .isLessThan(last.pool() / 10 + 1);
        assertThat(last.drops()).isZero();

        // A source sampling less often than configured is passed through at its own rate.
        a.onSample(1, n + 1, 6, 0, 60, 1000, data, 0, 64);
        a.flush();
        assertThat(rx.awaitSamples((int) kept + 1, WAIT_MS)).isEqualTo((int) kept + 1);
        assertThat(rx.samples().getLast().rate()).isEqualTo(1000);
    }

    @Test
    void headerBytesConfiguredSmallerTruncatesTheHeader() throws Exception {
        SflowAgent a = agent("headerBytes = 64 psample { }");
        byte[] data = frame(128, 5);
        a.onSample(1, 1, 4, 0, 1000, 100, data, 0, 128);
        a.onSample(1, 2, 4, 0, 30, 100, data, 0, 30); // shorter than headerBytes: not padded up
        a.onSample(1, 3, 4, 0, 0, 100, data, 0, 0);   // no header bytes at all
        a.flush();
        assertThat(rx.awaitSamples(3, WAIT_MS)).isEqualTo(3);
        List<Sample> s = rx.samples();
        assertThat(s.get(0).header()).containsExactly(Arrays.copyOf(data, 64));
        assertThat(s.get(1).header()).containsExactly(Arrays.copyOf(data, 30));
        assertThat(s.get(2).header()).isEmpty();
        assertThat(s.get(2).frameLength()).isEqualTo(4);
    }

    @Test
    void ipv6AgentAddress() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("sflow { subAgentId = 7 sampling = 10 psample { } "
                + "collector { ip = 127.0.0.1 udpport = " + rx.port() + " } }");
        SflowAgent a = new SflowAgent(c, InetAddress.getByName("2001:db8::5"));
        open.add(a);
        a.onSample(1, 1, 1, 0, 100, 10, frame(100, 2), 0, 100);
        a.flush();
        assertThat(rx.awaitDatagrams(1, WAIT_MS)).isEqualTo(1);
        Datagram d = rx.datagrams.getFirst();
        assertThat(d.agentAddress()).containsExactly(InetAddress.getByName("2001:db8::5").getAddress());
        assertThat(d.subAgentId()).isEqualTo(7);
        assertThat(d.length()).isEqualTo(40 + 76 + 100);
        assertThat(a.agentAddress()).isEqualTo(InetAddress.getByName("2001:db8::5"));
    }

    @Test
    void groupSequenceGapsAddToDrops() throws Exception {
        SflowAgent a = agent("psample { group = 1 }");
        byte[] data = frame(64, 3);
        long[] seqs = {1, 2, 5, 6, 7};
        for (long q : seqs) {
            a.onSample(1, q, 11, 0, 64, RATE, data, 0, 64);
        }
        assertThat(a.sequenceGapDrops()).isEqualTo(2);
        assertThat(a.lastDropsField()).isEqualTo(2);
        // wrap: 0xFFFFFFFE, 0xFFFFFFFF, 0, 1 is continuous ... but 7 -> 0xFFFFFFFE is a huge forward gap
        // (> 0x7FFFFFFF) which hsflowd counts as 1
        a.onSample(1, 0xFFFFFFFEL, 11, 0, 64, RATE, data, 0, 64);
        assertThat(a.sequenceGapDrops()).isEqualTo(3);
        a.onSample(1, 0xFFFFFFFFL, 11, 0, 64, RATE, data, 0, 64);
        a.onSample(1, 0, 11, 0, 64, RATE, data, 0, 64);
        a.onSample(1, 1, 11, 0, 64, RATE, data, 0, 64);
        assertThat(a.sequenceGapDrops()).as("wrap from 0xFFFFFFFF to 0 is no gap").isEqualTo(3);
        // a big backwards jump (e.g. the dataplane restarted and counts from 1 again) counts 1
        a.onSample(1, 1_000_000, 11, 0, 64, RATE, data, 0, 64); // forward gap of 999,998
        a.onSample(1, 10, 11, 0, 64, RATE, data, 0, 64);
        assertThat(a.sequenceGapDrops()).isEqualTo(3 + 999_998 + 1);
        // a gap in the group is charged to the sampler of the sample that revealed it
        a.onSample(1, 13, 12, 0, 64, RATE, data, 0, 64);
        a.flush();
        assertThat(rx.awaitSamples(12, WAIT_MS)).isEqualTo(12);
        List<Sample> s = rx.samples();
        assertThat(s).extracting(Sample::drops).containsExactly(0L, 0L, 2L, 2L, 2L, 3L, 3L, 3L, 3L,
                3L + 999_998, 3L + 999_998 + 1, 2L);
        assertThat(s.get(11).sourceIndex()).isEqualTo(12);
        assertThat(a.lastDropsField()).isEqualTo(2);
        assertThat(s).extracting(Sample::seq).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 1L);
    }

    @Test
    void firstSampleOfAGroupIsNoGapWhateverItsSequence() throws Exception {
        SflowAgent a = agent("psample { group = 1 egress = on }");
        byte[] data = frame(64, 3);
        a.onSample(1, 500, 1, 0, 64, RATE, data, 0, 64);   // kernel starts at 0, VPP at 1: neither is a gap
        a.onSample(2, 77, 0, 2, 64, RATE, data, 0, 64);    // egress group has its own sequence
        a.onSample(1, 501, 1, 0, 64, RATE, data, 0, 64);
        a.onSample(2, 78, 0, 2, 64, RATE, data, 0, 64);
        assertThat(a.sequenceGapDrops()).isZero();
        a.onSample(2, 80, 0, 2, 64, RATE, data, 0, 64);
        assertThat(a.sequenceGapDrops()).isEqualTo(1);
    }

    @Test
    void withoutPsampleBlockEveryGroupCountsItsOwnSequence() throws Exception {
        SflowAgent a = agent("");
        byte[] data = frame(64, 3);
        // groups 1 and 65 (and 3/4, VPP's) interleaved: each group's sequence is continuous on its own
        for (int i = 0; i < 3; i++) {
            a.onSample(1, 1 + i, 1, 0, 64, RATE, data, 0, 64);
            a.onSample(65, 100 + i, 2, 0, 64, RATE, data, 0, 64);
            a.onSample(3, 7 + i, 3, 0, 64, RATE, data, 0, 64);
            a.onSample(4, 1000 + i, 4, 5, 64, RATE, data, 0, 64);
        }
        assertThat(a.samplesIgnored()).isZero();
        assertThat(a.samplesSent()).isEqualTo(12);
        assertThat(a.sequenceGapDrops()).isZero();
        a.onSample(65, 104, 2, 0, 64, RATE, data, 0, 64); // 103 missing
        assertThat(a.sequenceGapDrops()).isEqualTo(1);
    }

    @Test
    void unconfiguredGroupsAreIgnoredAndCounted() throws Exception {
        SflowAgent a = agent("psample { group = 1 }");
        byte[] data = frame(64, 4);
        a.onSample(1, 1, 5, 0, 64, RATE, data, 0, 64);
        a.onSample(2, 1, 5, 6, 64, RATE, data, 0, 64); // egress group, egress off
        a.onSample(3, 1, 5, 0, 64, RATE, data, 0, 64); // VPP's ingress group, not configured
        a.onSample(4, 1, 5, 6, 64, RATE, data, 0, 64);
        a.onSample(65, 1, 5, 0, 64, RATE, data, 0, 64);
        a.onSample(1, 2, 5, 0, 64, RATE, data, 0, 64);
        assertThat(a.samplesIn()).isEqualTo(6);
        assertThat(a.samplesIgnored()).isEqualTo(4);
        assertThat(a.samplesSent()).isEqualTo(2);
        assertThat(a.sequenceGapDrops()).as("ignored groups do not disturb group 1's sequence").isZero();
        a.flush();
        assertThat(rx.awaitSamples(2, WAIT_MS)).isEqualTo(2);
        assertThat(rx.awaitDatagrams(2, 200)).isEqualTo(1);
        assertThat(rx.samples()).extracting(Sample::seq).containsExactly(1L, 2L);
        assertThat(rx.samples()).extracting(Sample::pool).containsExactly((long) RATE, 2L * RATE);
    }

    @Test
    void egressGroupWhenEnabledUsesTheOutputPortAsSource() throws Exception {
        SflowAgent a = agent("psample { group = 5 ingress = on egress = on }");
        byte[] data = frame(64, 6);
        a.onSample(5, 1, 21, 0, 64, RATE, data, 0, 64);  // ingress on 21
        a.onSample(6, 1, 21, 22, 64, RATE, data, 0, 64); // egress 21 -> 22: sampler 22
        a.onSample(6, 2, 23, 21, 64, RATE, data, 0, 64); // egress 23 -> 21: shares sampler 21 with ingress
        a.onSample(1, 1, 21, 0, 64, RATE, data, 0, 64);  // not ours
        a.flush();
        assertThat(rx.awaitSamples(3, WAIT_MS)).isEqualTo(3);
        List<Sample> s = rx.samples();
        assertThat(s.get(0).sourceIndex()).isEqualTo(21);
        assertThat(s.get(0).seq()).isEqualTo(1);
        assertThat(s.get(1).sourceIndex()).isEqualTo(22);
        assertThat(s.get(1).seq()).isEqualTo(1);
        assertThat(s.get(1).input()).isEqualTo(21);
        assertThat(s.get(1).output()).isEqualTo(22);
        assertThat(s.get(2).sourceIndex()).isEqualTo(21);
        assertThat(s.get(2).seq()).isEqualTo(2);
        assertThat(s.get(2).pool()).isEqualTo(2L * RATE);
        assertThat(a.samplesIgnored()).isEqualTo(1);

        SflowAgent egressOnly = agent("psample { group = 5 ingress = off egress = on }");
        egressOnly.onSample(5, 1, 21, 0, 64, RATE, data, 0, 64);
        egressOnly.onSample(6, 1, 21, 22, 64, RATE, data, 0, 64);
        assertThat(egressOnly.samplesIgnored()).isEqualTo(1);
        assertThat(egressOnly.samplesSent()).isEqualTo(1);
    }

    @Test
    void largeIfIndexesKeepSeparateSamplers() throws Exception {
        SflowAgent a = agent("psample { }");
        byte[] data = frame(64, 7);
        long[] ifs = {1_000_000_001L, 4096, 4095, 0xFFFFFFFFL, 1_000_000_001L, 4096, 0xFFFFFFFFL};
        for (int i = 0; i < ifs.length; i++) {
            a.onSample(1, i + 1, ifs[i], 0, 64, RATE, data, 0, 64);
        }
        a.flush();
        assertThat(rx.awaitSamples(ifs.length, WAIT_MS)).isEqualTo(ifs.length);
        List<Sample> s = rx.samples();
        assertThat(s).extracting(Sample::sourceIndex).containsExactly(1_000_000_001L, 4096L, 4095L, 0xFFFFFFFFL,
                1_000_000_001L, 4096L, 0xFFFFFFFFL);
        assertThat(s).extracting(Sample::seq).containsExactly(1L, 1L, 1L, 1L, 2L, 2L, 2L);
        assertThat(s).extracting(Sample::input).containsExactly(1_000_000_001L, 4096L, 4095L, 0xFFFFFFFFL,
                1_000_000_001L, 4096L, 0xFFFFFFFFL);
    }

    @Test
    void datagramBytes200CarriesOneSampleEach() throws Exception {
        SflowAgent a = agent("datagramBytes = 200 psample { }");
        byte[] data = frame(128, 8);
        int n = 10;
        for (int i = 0; i < n; i++) {
            a.onSample(1, i + 1, 3, 0, 1000, RATE, data, 0, 128);
        }
        a.flush();
        assertThat(rx.awaitDatagrams(n, WAIT_MS)).isEqualTo(n);
        for (Datagram d : rx.datagrams) {
            assertThat(d.samples()).hasSize(1);
            assertThat(d.length()).isLessThanOrEqualTo(200);
            // 128 header bytes do not fit a 200-byte datagram (28 + 76 + 128 = 232): the header is cut to 96
            Sample s = d.samples().getFirst();
            assertThat(s.header()).containsExactly(Arrays.copyOf(data, 96));
            assertThat(s.frameLength()).isEqualTo(1004);
        }
        assertThat(rx.datagrams).extracting(Datagram::sequence).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L,
                10L);
        assertThat(a.samplesSent()).isEqualTo(n);
    }

    @Test
    void datagramBytes1400HoldsAsManyAsFit() throws Exception {
        SflowAgent a = agent("psample { }");
        byte[] data = frame(256, 9);
        int n = 1000;
        int[] lens = {128, 64, 0, 1, 127, 200, 33};
        for (int i = 0; i < n; i++) {
            long ifIndex = 1 + i % 5;
            a.onSample(1, i + 1, ifIndex, 0, 100 + i, RATE, data, 0, lens[i % lens.length]);
        }
        a.flush();
        assertThat(rx.awaitSamples(n, 5000)).isEqualTo(n);
        assertThat(rx.awaitDatagrams(rx.datagrams.size() + 1, 100)).as("no extra datagram").isEqualTo(
                rx.datagrams.size());
        assertThat(a.datagramsSent()).isEqualTo(rx.datagrams.size());
        int maxSample = 76 + 128;
        for (int i = 0; i < rx.datagrams.size(); i++) {
            Datagram d = rx.datagrams.get(i);
            assertThat(d.length()).isLessThanOrEqualTo(1400);
            assertThat(d.sequence()).isEqualTo(i + 1);
            if (i < rx.datagrams.size() - 1) {
                // flushed only when the next sample would not fit
                assertThat(d.length() + maxSample).isGreaterThan(1400);
            }
        }
        // per-source sequence numbers are contiguous from 1, and the pool follows them
        Map<Long, Long> lastSeq = new HashMap<>();
        List<Sample> all = rx.samples();
        for (int i = 0; i < n; i++) {
            Sample s = all.get(i);
            long expect = lastSeq.getOrDefault(s.sourceIndex(), 0L) + 1;
            assertThat(s.seq()).isEqualTo(expect);
            assertThat(s.pool()).isEqualTo(expect * RATE);
            lastSeq.put(s.sourceIndex(), expect);
            assertThat(s.sourceIndex()).isEqualTo(1 + i % 5);
            assertThat(s.frameLength()).isEqualTo(104 + i);
            assertThat(s.header()).containsExactly(Arrays.copyOf(data, Math.min(128, lens[i % lens.length])));
            assertThat(s.drops()).isZero();
        }
        assertThat(lastSeq).containsOnlyKeys(1L, 2L, 3L, 4L, 5L).allSatisfy((k, v) -> assertThat(v).isEqualTo(200));
    }

    @Test
    void maximalDatagramIsExactlyFull() throws Exception {
        // 28 + 6 x (76 + 128) = 1252; with datagramBytes = 28 + 6 x 204 the sixth sample still fits exactly
        SflowAgent a = agent("datagramBytes = 1252 psample { }");
        byte[] data = frame(128, 10);
        for (int i = 0; i < 7; i++) {
            a.onSample(1, i + 1, 2, 0, 500, RATE, data, 0, 128);
        }
        a.flush();
        assertThat(rx.awaitDatagrams(2, WAIT_MS)).isEqualTo(2);
        assertThat(rx.datagrams.get(0).length()).isEqualTo(1252);
        assertThat(rx.datagrams.get(0).samples()).hasSize(6);
        assertThat(rx.datagrams.get(1).samples()).hasSize(1);
    }

    /**
     * A datagram goes out once its oldest sample is 1 s old on the agent's own clock (stepped here, so a stall of
     * the test machine cannot move the window), and its uptime is that clock's milliseconds since the agent started.
     */
    @Test
    void tickFlushesASampleOnceItIsOneSecondOld() throws Exception {
        long[] now = {5_000_000_000L};
        HsflowdConfig c = HsflowdConfig.parse("sflow {\n agentIP = 192.0.2.10\n sampling = 1\n psample { }\n"
                + " collector { ip = 127.0.0.1 udpport = " + rx.port() + " }\n}\n");
        SflowAgent a = new SflowAgent(c, InetAddress.getByName("192.0.2.10"), () -> now[0]);
        open.add(a);
        now[0] += 250_000_000L;
        a.onSample(1, 1, 2, 0, 64, RATE, frame(64, 11), 0, 64); // the datagram's oldest sample, at 250 ms
        for (long step : new long[] {1, 500_000_000L, 499_999_998L}) { // up to 1 ns before the sample is 1 s old
            now[0] += step;
            a.tick();
            assertThat(a.datagramsSent()).as("at %d ns after the sample", now[0] - 5_250_000_000L).isZero();
        }
        now[0] += 1;
        a.tick();
        assertThat(a.datagramsSent()).as("the sample is 1 s old").isEqualTo(1);
        assertThat(rx.awaitSamples(1, WAIT_MS)).isEqualTo(1);
        assertThat(rx.datagrams.get(0).uptimeMs()).as("ms on the agent's clock since it started").isEqualTo(1250);
        // a later sample starts a new 1 s window
        a.onSample(1, 2, 2, 0, 64, RATE, frame(64, 11), 0, 64);
        a.tick();
        assertThat(a.datagramsSent()).isEqualTo(1);
        now[0] += 1_000_000_000L;
        a.tick();
        assertThat(a.datagramsSent()).isEqualTo(2);
    }

    @Test
    void everyCollectorReceivesEveryDatagram() throws Exception {
        UdpReceiver rx2 = new UdpReceiver();
        open.add(rx2);
        HsflowdConfig c = HsflowdConfig.parse("sflow { collector { ip = 127.0.0.1 udpport = " + rx.port()
                + " } collector { ip = 127.0.0.1 udpport = " + rx2.port() + " } psample { } }");
        SflowAgent a = new SflowAgent(c, InetAddress.getByName("10.0.0.1"));
        open.add(a);
        List<String> seen = new ArrayList<>();
        a.addListener((buf, len, to, ok) -> seen.add(to.getPort() + ":" + len + ":" + ok));
        byte[] data = frame(128, 12);
        for (int i = 0; i < 20; i++) {
            a.onSample(1, i + 1, 1, 0, 300, RATE, data, 0, 128);
        }
        a.flush();
        int datagrams = (int) a.datagramSequence();
        assertThat(datagrams).isEqualTo(4); // 6 + 6 + 6 + 2
        assertThat(rx.awaitDatagrams(datagrams, WAIT_MS)).isEqualTo(datagrams);
        assertThat(rx2.awaitDatagrams(datagrams, WAIT_MS)).isEqualTo(datagrams);
        assertThat(a.datagramsSent()).isEqualTo(2L * datagrams);
        assertThat(seen).hasSize(2 * datagrams);
        for (int i = 0; i < datagrams; i++) {
            Datagram d1 = rx.datagrams.get(i);
            Datagram d2 = rx2.datagrams.get(i);
            assertThat(d2.sequence()).isEqualTo(d1.sequence()).isEqualTo(i + 1);
            assertThat(d2.length()).isEqualTo(d1.length());
            assertThat(d2.samples()).usingRecursiveFieldByFieldElementComparator().isEqualTo(d1.samples());
        }
        assertThat(rx.samples()).hasSize(20);
    }

    @Test
    void closeFlushesAndBadArgumentsLeaveNoTrace() throws Exception {
        SflowAgent a = agent("psample { }");
        byte[] data = frame(64, 13);
        assertThatThrownBy(() -> a.onSample(1, 1, 1, 0, 64, RATE, data, 10, 64))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> a.onSample(1, 1, 1, 0, 64, RATE, data, 0, -1))
                .isInstanceOf(IndexOutOfBoundsException.class);
        a.onSample(1, 1, 1, 0, 64, RATE, data, 0, 64);
        a.close();
        a.close(); // idempotent
        assertThat(rx.awaitSamples(1, WAIT_MS)).isEqualTo(1);
        Sample s = rx.samples().getFirst();
        assertThat(s.seq()).as("rejected calls did not advance the sampler").isEqualTo(1);
        assertThat(s.pool()).isEqualTo(RATE);
        assertThat(a.samplesSent()).isEqualTo(1);
    }

    @Test
    void unresolvableCollectorFailsAtConstruction() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("sflow { collector { ip = no-such-host.invalid } }");
        assertThatThrownBy(() -> new SflowAgent(c, InetAddress.getByName("10.0.0.1")))
                .isInstanceOf(java.io.IOException.class).hasMessageContaining("no-such-host.invalid");
    }
}
