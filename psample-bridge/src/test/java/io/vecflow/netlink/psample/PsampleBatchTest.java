package io.vecflow.netlink.psample;

import static io.vecflow.netlink.psample.PsampleCodecTest.assertSameSample;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Several PSAMPLE messages per netlink datagram ({@code batchBytes}), live over NETLINK_USERSOCK unicast (root): the
 * subscriber sees every sample, in order and byte-equal, in fewer datagrams; a batch never passes its limit; an
 * encoding failure in the middle costs only its own sample; close sends what waits.
 */
class PsampleBatchTest {
    private static final Duration WAIT = Duration.ofMillis(200);

    private static List<PsampleSample> receive(PsampleSubscriber sub, int n) throws Exception {
        List<PsampleSample> got = new ArrayList<>();
        long deadline = System.nanoTime() + 3_000_000_000L;
        while (got.size() < n && System.nanoTime() < deadline) {
            sub.poll(WAIT, s -> got.add(new PsampleSample().copyFrom(s)));
        }
        return got;
    }

    @Test
    void batchedSamplesArriveInOrderInFewerDatagramsUnderTheLimit() throws Exception {
        try (PsampleSubscriber sub = PsampleSubscriber.openUnicast();
             PsampleEmitter em = PsampleEmitter.openUnicast(sub.portId(), Psample.Convention.VPP)) {
            em.batchBytes(4096);
            PsampleSample in = Golden.vppSample();
            for (int i = 0; i < 200; i++) {
                assertThat(em.emit(in.groupSeq(1000 + i))).isTrue();
            }
            assertThat(em.pending()).as("the last partial batch waits for flush").isPositive();
            assertThat(em.flush()).isZero();
            assertThat(em.pending()).isZero();
            assertThat(em.flush()).as("nothing left").isZero();
            List<PsampleSample> got = receive(sub, 200);
            assertThat(got).hasSize(200);
            for (int i = 0; i < 200; i++) {
                assertThat(got.get(i).groupSeq()).isEqualTo(1000 + i);
            }
            assertSameSample(got.get(199), in);
            assertThat(em.sent()).isEqualTo(200);
            assertThat(em.sendFailed()).isZero();
            // every datagram ≤ 4096 bytes: at least ceil(200 × message / 4096) of them, far fewer than 200
            int message = new PsampleCodec().encode(in, new io.vecflow.netlink.NetlinkWriter(
                    java.lang.foreign.Arena.ofAuto().allocate(PsampleEmitter.BUFFER_BYTES)),
                    Psample.USERSOCK_MSG_TYPE, 1, 0, Psample.Convention.VPP);
            long perDatagram = 4096 / message;
            assertThat(em.datagrams()).isEqualTo((200 + perDatagram - 1) / perDatagram);
            assertThat(sub.datagrams()).isEqualTo(em.datagrams());
            assertThat(sub.decodeErrors()).isZero();
        }
    }

    @Test
    void anEncodingFailureCostsOnlyItsSampleAndCloseSendsWhatWaits() throws Exception {
        try (PsampleSubscriber sub = PsampleSubscriber.openUnicast()) {
            PsampleEmitter em = PsampleEmitter.openUnicast(sub.portId(), Psample.Convention.KERNEL);
            em.batchBytes(8192);
            PsampleSample ok = Golden.kernelSample();
            assertThat(em.emit(ok.groupSeq(1))).isTrue();
            // KERNEL carries ifindex as u16: 70000 does not fit, the message is refused mid-encoding
            assertThat(em.emit(new PsampleSample().copyFrom(ok).iifIndex(70_000).groupSeq(2))).isFalse();
            assertThat(em.emit(ok.groupSeq(3))).isTrue();
            assertThat(em.pending()).isEqualTo(2);
            em.close();
            List<PsampleSample> got = receive(sub, 2);
            assertThat(got).extracting(PsampleSample::groupSeq).containsExactly(1L, 3L);
            assertThat(em.sent()).isEqualTo(2);
            assertThat(em.sendFailed()).isEqualTo(1);
            assertThat(sub.decodeErrors()).isZero();
        }
    }

    @Test
    void batchLimitsOutsideTheBufferAreRefused() throws Exception {
        try (PsampleEmitter em = PsampleEmitter.openUnicast(1, Psample.Convention.VPP)) {
            assertThatThrownBy(() -> em.batchBytes(100)).hasMessageContaining("0 (off) or 256..");
            assertThatThrownBy(() -> em.batchBytes(1 << 20)).hasMessageContaining("0 (off) or 256..");
            em.batchBytes(0);
            assertThat(em.batchBytes()).isZero();
        }
    }
}
