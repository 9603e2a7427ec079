package io.vecflow.dataplane.sflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.vnet.error.CountingOutputNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sflow node's random-skip sampling (FDio/vpp src/plugins/sflow semantics). */
class SflowNodeTest {

    /** Runs a worker to completion while draining its FIFO; returns the packet numbers sampled, in order. */
    private static List<Integer> run(int workerIndex, long packets, int[] vectors, int rate, SampleFifo fifo,
            List<SampleRecord> keep) {
        Worker w = TestGraphs.sflowWorker(workerIndex, packets, vectors, rate, 128, fifo);
        List<Integer> sampled = new ArrayList<>();
        while (!w.inputsExhausted()) {
            w.runOnce();
            for (SampleRecord r = fifo.poll(); r != null; r = fifo.poll()) {
                sampled.add(TestGraphs.packetNumber(r));
                if (keep != null) {
                    SampleRecord c = new SampleRecord();
                    c.frameLength = r.frameLength;
                    c.headerLength = r.headerLength;
                    c.inputIfIndex = r.inputIfIndex;
                    c.samplingRate = r.samplingRate;
                    System.arraycopy(r.header, 0, c.header, 0, r.headerLength);
                    keep.add(c);
                }
                fifo.release(r);
            }
        }
        assertThat(w.pool().freeCount()).as("every buffer back in the pool").isEqualTo(1024);
        return sampled;
    }

    @Test
    void rateOneSamplesEveryPacketWithItsHeader() {
        List<SampleRecord> kept = new ArrayList<>();
        List<Integer> s = run(0, 5000, new int[] {256, 3, 1, 100}, 1, new SampleFifo(8192), kept);
        assertThat(s).hasSize(5000);
        for (int i = 0; i < 5000; i++) {
            assertThat(s.get(i)).isEqualTo(i);
            SampleRecord r = kept.get(i);
            assertThat(r.frameLength).isEqualTo(60 + i % 1000);
            assertThat(r.headerLength).isEqualTo(Math.min(128, 60 + i % 1000));
            assertThat(r.inputIfIndex).isEqualTo(7);
            assertThat(r.samplingRate).isEqualTo(1);
            assertThat(r.header[0]).isEqualTo((byte) 1);
            assertThat(r.header[12]).isEqualTo((byte) 0x08);
        }
    }

    @Test
    void skipsAreUniformOneToTwoNMinusOneAcrossVectorBoundaries() {
        int n = 10;
        long packets = 400_000;
        List<Integer> s = run(1, packets, new int[] {256, 7, 1, 64, 200}, n, new SampleFifo(1 << 16), null);
        int[] histogram = new int[2 * n];
        int prev = -1;
        for (int p : s) {
            int skip = p - prev;
            assertThat(skip).isBetween(1, 2 * n - 1);
            histogram[skip]++;
            prev = p;
        }
        // Mean N: 400,000 / 10 = 40,000 samples. The renewal count has sd ≈ sqrt(packets·Var/N³) ≈ 110.
        assertThat(s.size()).isBetween(39_300, 40_700);
        for (int k = 1; k < 2 * n; k++) {
            // Each of the 19 skips has probability 1/19 (≈ 2,105 of 40,000; sd ≈ 45).
            assertThat(histogram[k]).as("skip %d", k).isBetween(1_800, 2_400);
        }
    }

    @Test
    void samePositionsForTheSameWorkerSeedAndVectorShapeDoesNotMatter() {
        List<Integer> a = run(3, 50_000, new int[] {256}, 100, new SampleFifo(4096), null);
        List<Integer> b = run(3, 50_000, new int[] {1, 2, 3, 250}, 100, new SampleFifo(4096), null);
        List<Integer> c = run(4, 50_000, new int[] {256}, 100, new SampleFifo(4096), null);
        assertThat(a).isEqualTo(b).isNotEqualTo(c);
    }

    @Test
    void rateZeroDisablesSamplingAndThePool() {
        SampleFifo fifo = new SampleFifo(16);
        Worker w = TestGraphs.sflowWorker(0, 10_000, new int[] {256}, 0, 128, fifo);
        while (!w.inputsExhausted()) {
            w.runOnce();
        }
        SflowNode node = (SflowNode) w.node(SflowNode.NAME);
        assertThat(node.samplesTaken()).isZero();
        assertThat(node.samplePool()).isZero();
        assertThat(fifo.poll()).isNull();
        assertThat(((CountingOutputNode) w.node(CountingOutputNode.ERROR_DROP)).outPackets()).isEqualTo(10_000);
    }

    @Test
    void fullFifoDropsAndCountsEverySampleItCannotHold() {
        SampleFifo fifo = new SampleFifo(4);
        Worker w = TestGraphs.sflowWorker(0, 1000, new int[] {256}, 1, 64, fifo);
        while (!w.inputsExhausted()) {
            w.runOnce(); // nobody drains: 4 samples fit, the rest are tail-dropped
        }
        SflowNode node = (SflowNode) w.node(SflowNode.NAME);
        assertThat(node.samplesTaken()).isEqualTo(1000);
        assertThat(fifo.enqueued()).isEqualTo(4);
        assertThat(fifo.dropped()).isEqualTo(996);
        List<Integer> firstFour = new ArrayList<>();
        for (SampleRecord r = fifo.poll(); r != null; r = fifo.poll()) {
            int number = TestGraphs.packetNumber(r);
            firstFour.add(number);
            assertThat(r.headerLength).isEqualTo(60 + number); // frames of 60..63 bytes, all under 64
            fifo.release(r);
        }
        assertThat(firstFour).containsExactly(0, 1, 2, 3);
        assertThat(fifo.claim()).isNotNull(); // released records are reusable
    }
}
