package io.vecflow.dataplane.sflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.graph.Worker;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.psample.PsampleSubscriber;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Worker FIFOs → main thread → real NETLINK_USERSOCK PSAMPLE messages. */
class SflowMainThreadTest {

    record Got(long seq, long iif, long oif, long origSize, long rate, long group, int dataLength, byte first) {}

    private static List<Got> receive(PsampleSubscriber sub, int expect) throws Exception {
        List<Got> got = new ArrayList<>();
        long end = System.currentTimeMillis() + 10_000;
        while (got.size() < expect && System.currentTimeMillis() < end) {
            sub.poll(Duration.ofMillis(100), (PsampleSample s) -> got.add(new Got(s.groupSeq(), s.iifIndex(),
                    s.oifIndex(), s.origSize(), s.sampleRate(), s.sampleGroup(), s.dataLength(), s.data()[0])));
        }
        return got;
    }

    @Test
    void everySampleBecomesOnePsampleMessage() throws Exception {
        SampleFifo fifo = new SampleFifo(2048);
        Worker w = TestGraphs.sflowWorker(0, 1500, new int[] {256}, 1, 100, fifo);
        while (!w.inputsExhausted()) {
            w.runOnce();
        }
        try (PsampleSubscriber sub = PsampleSubscriber.openUnicast();
                PsampleEmitter em = PsampleEmitter.openUnicast(sub.portId(), Psample.Convention.VPP)) {
            SflowMainThread main = new SflowMainThread(List.of(fifo), em, 5, 4096);
            assertThat(main.drainOnce()).isEqualTo(1500);
            List<Got> got = receive(sub, 1500);
            assertThat(got).hasSize(1500);
            for (int i = 0; i < 1500; i++) {
                Got g = got.get(i);
                assertThat(g.seq()).isEqualTo(i + 1); // VPP convention: starts at 1
                assertThat(g.iif()).isEqualTo(7);
                assertThat(g.oif()).isZero();
                assertThat(g.origSize()).isEqualTo(60 + i % 1000);
                assertThat(g.rate()).isEqualTo(1);
                assertThat(g.group()).isEqualTo(5);
                assertThat(g.dataLength()).isEqualTo(Math.min(100, 60 + i % 1000));
                assertThat(g.first()).isEqualTo((byte) 1);
            }
            assertThat(main.emitted()).isEqualTo(1500);
            assertThat(main.emitFailed()).isZero();
            assertThat(sub.decodeErrors()).isZero();
        }
    }

    @Test
    void fifoDropsReachTheAgentAsSequenceGaps() throws Exception {
        // A tiny FIFO that nobody drains while the worker runs: 4 samples are kept, 1,996 are dropped.
        SampleFifo fifo = new SampleFifo(4);
        Worker w = TestGraphs.sflowWorker(0, 2000, new int[] {256}, 1, 64, fifo);
        while (!w.inputsExhausted()) {
            w.runOnce();
        }
        assertThat(fifo.dropped()).isEqualTo(1996);
        try (PsampleSubscriber sub = PsampleSubscriber.openUnicast();
                PsampleEmitter em = PsampleEmitter.openUnicast(sub.portId(), Psample.Convention.VPP)) {
            SflowMainThread main = new SflowMainThread(List.of(fifo), em, 1, 4096);
            main.drainOnce();
            List<Got> got = receive(sub, 4);
            // The first message is the baseline; the drops ride on the second one as a gap of 1,996.
            assertThat(got).extracting(Got::seq).containsExactly(1L, 1998L, 1999L, 2000L);
            assertThat(main.fifoDropsCarried()).isEqualTo(1996);
            long gaps = 0;
            for (int i = 1; i < got.size(); i++) {
                gaps += got.get(i).seq() - got.get(i - 1).seq() - 1;
            }
            assertThat(gaps).isEqualTo(fifo.dropped());
        }
    }

    @Test
    void concurrentWorkersAndMainThreadAccountForEverySample() throws Exception {
        // Two workers and the main thread running at once with small FIFOs: whatever is dropped must show up as
        // sequence gaps, and taken = emitted + dropped exactly.
        List<SampleFifo> fifos = List.of(new SampleFifo(8), new SampleFifo(8));
        List<Worker> workers = List.of(TestGraphs.sflowWorker(0, 200_000, new int[] {256}, 1, 64, fifos.get(0)),
                TestGraphs.sflowWorker(1, 200_000, new int[] {256}, 1, 64, fifos.get(1)));
        try (PsampleSubscriber sub = PsampleSubscriber.openUnicast();
                PsampleEmitter em = PsampleEmitter.openUnicast(sub.portId(), Psample.Convention.VPP)) {
            SflowMainThread main = new SflowMainThread(fifos, em, 1, 64);
            Thread mt = Thread.ofPlatform().start(main);
            List<Thread> wt = new ArrayList<>();
            for (Worker w : workers) {
                wt.add(Thread.ofPlatform().start(w));
            }
            long[] lastSeq = {0};
            long[] gaps = {0};
            long[] count = {0};
            Thread reader = Thread.ofPlatform().start(() -> {
                try {
                    long idle = 0;
                    while (idle < 20) {
                        int n = sub.poll(Duration.ofMillis(50), s -> {
                            if (lastSeq[0] != 0) {
                                gaps[0] += s.groupSeq() - lastSeq[0] - 1;
                            }
                            lastSeq[0] = s.groupSeq();
                            count[0]++;
                        });
                        idle = n == 0 && main.finished() ? idle + 1 : 0;
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            for (Thread t : wt) {
                t.join(30_000);
            }
            main.stop();
            mt.join(10_000);
            reader.join(15_000);
            long taken = 0;
            long dropped = 0;
            for (int i = 0; i < 2; i++) {
                taken += ((SflowNode) workers.get(i).node(SflowNode.NAME)).samplesTaken();
                dropped += fifos.get(i).dropped();
            }
            assertThat(taken).isEqualTo(400_000);
            assertThat(main.emitted() + dropped).isEqualTo(taken);
            // A unicast receiver never overruns: Linux's netlink_attachskb makes a full receive queue the user-space
            // sender's EAGAIN, and ENOBUFS is for multicast (netlink_overrun); so every emitted message arrives and
            // the only gaps are the FIFO drops the main thread carried.
            assertThat(sub.overruns()).as("unicast receive overruns").isZero();
            assertThat(count[0]).isEqualTo(main.emitted());
            assertThat(gaps[0]).isEqualTo(main.fifoDropsCarried());
            assertThat(main.fifoDropsCarried()).isEqualTo(dropped);
        }
    }
}
