package io.vecflow.dataplane.sflow;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.Graph;
import io.vecflow.dataplane.graph.InputNode;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.vnet.error.CountingOutputNode;
import io.vecflow.dataplane.vnet.ethernet.EthernetInputNode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Small graph pieces for tests. */
public final class TestGraphs {
    private TestGraphs() {}

    /**
     * An input node that produces {@code total} synthetic Ethernet/IPv4 frames in vectors whose sizes cycle through
     * {@code vectorSizes}; frame i carries i (big-endian) at byte 14 so samples can be traced back to their packet.
     */
    static final class CountingInput extends InputNode {
        private static final ValueLayout.OfInt BE_INT =
                ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
        private final long total;
        private final int[] vectorSizes;
        private final int ifIndex;
        long produced;
        private int turn;

        CountingInput(long total, int[] vectorSizes, int ifIndex, String next) {
            super("port-input", next);
            this.total = total;
            this.vectorSizes = vectorSizes;
            this.ifIndex = ifIndex;
        }

        @Override
        protected int poll(Worker w) {
            int n = (int) Math.min(vectorSizes[turn++ % vectorSizes.length], total - produced);
            BufferPool pool = w.pool();
            for (int i = 0; i < n; i++) {
                int b = pool.alloc();
                MemorySegment d = pool.data();
                long off = pool.offset(b);
                for (int k = 0; k < 12; k++) {
                    d.set(ValueLayout.JAVA_BYTE, off + k, (byte) (k + 1));
                }
                d.set(ValueLayout.JAVA_BYTE, off + 12, (byte) 0x08);
                d.set(ValueLayout.JAVA_BYTE, off + 13, (byte) 0x00);
                d.set(BE_INT, off + 14, (int) produced);
                int len = 60 + (int) (produced % 1000);
                pool.length[b] = len;
                pool.rxIfIndex[b] = ifIndex;
                w.enqueue(next(0), b, 0);
                produced++;
            }
            return n;
        }

        @Override
        protected boolean exhausted() {
            return produced >= total;
        }
    }

    /** @return the packet number a sample came from (written by {@link CountingInput}). */
    static int packetNumber(SampleRecord r) {
        return (r.header[14] & 0xFF) << 24 | (r.header[15] & 0xFF) << 16 | (r.header[16] & 0xFF) << 8
                | (r.header[17] & 0xFF);
    }

    /** A worker running input → ethernet-input → sflow → error-drop. */
    public static Worker sflowWorker(int workerIndex, long packets, int[] vectorSizes, int rate, int headerBytes,
            SampleFifo fifo) {
        Graph g = new Graph()
                .register("port-input", i -> new CountingInput(packets, vectorSizes, 7, EthernetInputNode.NAME))
                .register(EthernetInputNode.NAME, i -> new EthernetInputNode(SflowNode.NAME,
                        CountingOutputNode.ERROR_DROP))
                .register(SflowNode.NAME, i -> new SflowNode(i, rate, headerBytes, fifo, CountingOutputNode.ERROR_DROP))
                .register(CountingOutputNode.ERROR_DROP, i -> new CountingOutputNode(CountingOutputNode.ERROR_DROP, 0));
        return new Worker(workerIndex, g, new BufferPool(1024, 2048));
    }
}
