package io.vecflow.netlink.psample;

import static io.vecflow.netlink.psample.PsampleCodecTest.assertSameSample;
import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkReader;
import io.vecflow.netlink.NetlinkSocket;
import io.vecflow.netlink.NetlinkWriter;
import io.vecflow.netlink.TestBytes;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * Live round trips over NETLINK_USERSOCK (root). Other processes may use the same groups at the same time, so
 * assertions pick this test's messages out by the emitter's port id (nlmsg_pid) or the sample's values.
 */
class PsampleUsersockTest {
    private static final Duration WAIT = Duration.ofMillis(500);

    @ParameterizedTest
    @EnumSource(Psample.Convention.class)
    void multicastRoundTripOnGroup30(Psample.Convention convention) throws Exception {
        int group = Psample.USERSOCK_DEFAULT_GROUP;
        try (Arena arena = Arena.ofConfined();
             PsampleSubscriber sub = PsampleSubscriber.open(PsampleTransport.USERSOCK, group);
             NetlinkSocket raw = NetlinkSocket.open(Netlink.NETLINK_USERSOCK);
             PsampleEmitter em = PsampleEmitter.open(PsampleTransport.USERSOCK, group, convention)) {
            raw.bind(0, 0);
            raw.joinGroup(group);
            raw.setReceiveTimeout(WAIT);
            assertThat(sub.receiveBufferBytes()).isGreaterThanOrEqualTo(8 * 1024 * 1024);

            PsampleSample in = convention == Psample.Convention.VPP ? Golden.vppSample() : Golden.kernelSample();
            assertThat(em.emit(in)).isTrue();
            assertThat(em.sent()).isEqualTo(1);
            assertThat(em.sendFailed()).isZero();

            // bytes on the wire: exactly the hand-built vector, with this emitter's seq and port id
            MemorySegment buf = arena.allocate(70_000);
            byte[] got = receiveFrom(raw, buf, em.portId());
            byte[] expected = convention == Psample.Convention.VPP
                    ? Golden.vppUsersockMessage(1, em.portId())
                    : kernelOverUsersock(em.portId());
            assertThat(got).containsExactly(expected);

            // decoded by the subscriber
            List<PsampleSample> samples = pollUntil(sub, 1, in);
            assertThat(samples).hasSize(1);
            assertSameSample(samples.getFirst(), in);
            assertThat(samples.getFirst().ifIndexBits()).isEqualTo(convention == Psample.Convention.VPP ? 32 : 16);
            assertThat(sub.decodeErrors()).isZero();
        }
    }

    @Test
    void unicastRoundTripToThePublishedPortId() throws Exception {
        try (PsampleSubscriber sub = PsampleSubscriber.openUnicast();
             PsampleEmitter em = PsampleEmitter.openUnicast(sub.portId(), Psample.Convention.VPP)) {
            assertThat(sub.portId()).isNotZero();
            assertThat(sub.groupId()).isZero();
            PsampleSample in = Golden.vppSample();
            for (int i = 0; i < 5; i++) {
                assertThat(em.emit(in.groupSeq(100 + i))).isTrue();
            }
            List<PsampleSample> got = new ArrayList<>();
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (got.size() < 5 && System.nanoTime() < deadline) {
                sub.poll(WAIT, s -> got.add(new PsampleSample().copyFrom(s)));
            }
            assertThat(got).extracting(PsampleSample::groupSeq).containsExactly(100L, 101L, 102L, 103L, 104L);
            assertSameSample(got.get(4), in);
            assertThat(sub.samples()).isEqualTo(5);
            assertThat(em.sent()).isEqualTo(5);
        }
        // a vanished subscriber: counted as a send failure, no exception
        // (open the emitter first: a port id freed by close() may be handed to the next autobinding socket)
        PsampleSubscriber gone = PsampleSubscriber.openUnicast();
        try (PsampleEmitter em = PsampleEmitter.openUnicast(gone.portId(), Psample.Convention.VPP)) {
            gone.close();
            assertThat(em.emit(Golden.vppSample())).isFalse();
            assertThat(em.sendFailed()).isEqualTo(1);
            assertThat(em.sent()).isZero();
            assertThat(em.lastErrno()).isEqualTo(io.vecflow.common.Errno.ECONNREFUSED);
        }
    }

    @Test
    void malformedMessagesAreCountedWithOffsetsAndTheNextGoodOneDecodes() throws Exception {
        int group = 26;
        try (Arena arena = Arena.ofConfined();
             PsampleSubscriber sub = PsampleSubscriber.open(PsampleTransport.USERSOCK, group);
             NetlinkSocket tx = NetlinkSocket.open(Netlink.NETLINK_USERSOCK)) {
            tx.bind(0, 0);
            int mask = Netlink.groupMask(group);
            byte[] good = Golden.vppUsersockMessage(1, tx.portId());

            byte[] nlaLen2 = good.clone();
            nlaLen2[36] = 2; // ORIGSIZE nla_len 2
            byte[] pastEnd = good.clone();
            pastEnd[68] = (byte) 200; // DATA nla_len 200 > 76 bytes left in the message
            byte[] oifWidth = good.clone();
            oifWidth[28] = 40; // OIFINDEX nla_len 40: inside the message, but neither u16 nor u32
            byte[] nlmsgPastBuffer = java.util.Arrays.copyOf(good, 40); // nlmsg_len says 144, datagram has 40
            byte[] absurdData = good.clone();
            absurdData[68] = (byte) 0xFF;
            absurdData[69] = (byte) 0xFF;

            String[] expectedErrors = {
                "nlattr PSAMPLE_ATTR_ORIGSIZE (2) at offset 36: nla_len 2 is smaller than the 4-byte header",
                "nlattr PSAMPLE_ATTR_DATA (6) at offset 68: nla_len 200 runs past the end of the message "
                        + "(76 bytes left)",
                "nlmsg_len at offset 0: value 144 runs past the end of the buffer (40 bytes left of 40)",
                "nlattr PSAMPLE_ATTR_DATA (6) at offset 68: nla_len 65535 runs past the end of the message",
                "nlattr PSAMPLE_ATTR_OIFINDEX (1) at offset 28: nla_len 40, expected 6 (u16) or 8 (u32)",
            };
            byte[][] bad = {nlaLen2, pastEnd, nlmsgPastBuffer, absurdData, oifWidth};
            for (int i = 0; i < bad.length; i++) {
                tx.send(TestBytes.nativeCopy(arena, bad[i]), bad[i].length, 0, mask);
                PsampleSample in = Golden.vppSample().groupSeq(1000 + i);
                byte[] next = encode(in, tx.portId());
                tx.send(TestBytes.nativeCopy(arena, next), next.length, 0, mask);

                List<PsampleSample> got = pollUntil(sub, 1, in);
                assertThat(got).as("good message after bad #%d", i).hasSize(1);
                assertSameSample(got.getFirst(), in);
                assertThat(sub.decodeErrors()).isEqualTo(i + 1);
                assertThat(sub.lastDecodeError()).startsWith(expectedErrors[i]);
            }

            // one datagram: [bad message][good message] — the bad one is skipped, the good one still decodes
            PsampleSample in = Golden.vppSample().groupSeq(2000);
            byte[] goodNext = encode(in, tx.portId());
            byte[] both = new byte[nlaLen2.length + goodNext.length];
            System.arraycopy(nlaLen2, 0, both, 0, nlaLen2.length);
            System.arraycopy(goodNext, 0, both, nlaLen2.length, goodNext.length);
            tx.send(TestBytes.nativeCopy(arena, both), both.length, 0, mask);
            List<PsampleSample> got = pollUntil(sub, 1, in);
            assertThat(got).hasSize(1);
            assertThat(sub.decodeErrors()).isEqualTo(6);
            assertThat(sub.lastDecodeError()).startsWith("nlattr PSAMPLE_ATTR_ORIGSIZE (2) at offset 36");

            // other nlmsg_types on the group are ignored, not errors
            byte[] other = good.clone();
            other[4] = 0x11;
            long ignoredBefore = sub.ignored();
            tx.send(TestBytes.nativeCopy(arena, other), other.length, 0, mask);
            in = Golden.vppSample().groupSeq(3000);
            byte[] last = encode(in, tx.portId());
            tx.send(TestBytes.nativeCopy(arena, last), last.length, 0, mask);
            assertThat(pollUntil(sub, 1, in)).hasSize(1);
            assertThat(sub.ignored()).isGreaterThan(ignoredBefore);
            assertThat(sub.decodeErrors()).isEqualTo(6);
        }
    }

    @Test
    void holderCapacityTruncatesDataAndCountsIt() throws Exception {
        int group = 25;
        try (PsampleSubscriber sub = PsampleSubscriber.open(PsampleTransport.USERSOCK, group, 32);
             PsampleEmitter em = PsampleEmitter.open(PsampleTransport.USERSOCK, group, Psample.Convention.VPP)) {
            PsampleSample in = Golden.vppSample().groupSeq(777);
            assertThat(em.emit(in)).isTrue();
            List<PsampleSample> got = new ArrayList<>();
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (got.isEmpty() && System.nanoTime() < deadline) {
                sub.poll(WAIT, s -> {
                    if (s.groupSeq() == 777) {
                        got.add(new PsampleSample().copyFrom(s));
                        assertThat(s.dataTruncated()).isTrue();
                    }
                });
            }
            assertThat(got).hasSize(1);
            assertThat(got.getFirst().dataLength()).isEqualTo(32);
            assertThat(sub.dataTruncated()).isEqualTo(1);
        }
    }

    @Test
    void emitterNeverThrowsOnAnUnencodableSample() throws Exception {
        try (PsampleEmitter em = PsampleEmitter.open(PsampleTransport.USERSOCK, 24, Psample.Convention.KERNEL)) {
            assertThat(em.emit(Golden.kernelSample().iifIndex(100_000))).isFalse(); // u16 ifindex cannot hold it
            assertThat(em.sendFailed()).isEqualTo(1);
            assertThat(em.lastErrno()).isEqualTo(io.vecflow.common.Errno.EMSGSIZE);
            assertThat(em.emit(Golden.kernelSample())).isTrue();
            assertThat(em.sent()).isEqualTo(1);
        }
    }

    private static byte[] kernelOverUsersock(int pid) {
        byte[] b = Golden.kernelMessage(Psample.USERSOCK_MSG_TYPE);
        b[12] = (byte) pid;
        b[13] = (byte) (pid >>> 8);
        b[14] = (byte) (pid >>> 16);
        b[15] = (byte) (pid >>> 24);
        return b;
    }

    private static byte[] encode(PsampleSample s, int pid) {
        NetlinkWriter w = new NetlinkWriter(MemorySegment.ofArray(new byte[512]));
        int len = new PsampleCodec().encode(s, w, Psample.USERSOCK_MSG_TYPE, 1, pid, Psample.Convention.VPP);
        return TestBytes.toArray(w.segment(), len);
    }

    /** Receives datagrams until one whose first message comes from {@code pid}. */
    private static byte[] receiveFrom(NetlinkSocket raw, MemorySegment buf, int pid) throws Exception {
        NetlinkReader r = new NetlinkReader();
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < deadline) {
            int n = raw.receive(buf);
            if (n == 0) {
                continue;
            }
            r.reset(buf, n);
            if (r.next() && r.pid() == pid) {
                return TestBytes.toArray(buf, n);
            }
        }
        throw new AssertionError("no datagram from port id " + pid);
    }

    /** Polls until {@code count} samples equal to {@code like} (group seq and group) arrived, or 2 s passed. */
    static List<PsampleSample> pollUntil(PsampleSubscriber sub, int count, PsampleSample like) throws Exception {
        List<PsampleSample> got = new ArrayList<>();
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (got.size() < count && System.nanoTime() < deadline) {
            sub.poll(WAIT, s -> {
                if (s.groupSeq() == like.groupSeq() && s.sampleGroup() == like.sampleGroup()
                        && s.origSize() == like.origSize()) {
                    got.add(new PsampleSample().copyFrom(s));
                }
            });
        }
        return got;
    }
}
