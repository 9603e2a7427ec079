package io.vecflow.dataplane;

import java.lang.foreign.MemorySegment;

/**
 * {@code port-input} for a {@link PcapReplayPort}: each poll copies up to one vector of the worker's queued packets into
 * pool buffers (as a NIC's DMA would), stamps the receive ifIndex and time, and hands the vector to the next node.
 * Packets longer than a buffer are truncated to it and counted.
 */
public final class ReplayInputNode extends InputNode {
    /** Node name. */
    public static final String NAME = "port-input";

    private final PcapReplayPort port;
    private final long[] offsets;
    private final int[] lengths;
    private final double packetsPerSecond;
    private final long loops;
    private int cursor;
    private long loop;
    private long startNanos;
    private long produced;
    private volatile long rxPackets, rxBytes, truncated, noBuffer;

    ReplayInputNode(PcapReplayPort port, int worker, String next, double packetsPerSecond) {
        super(NAME, next);
        this.port = port;
        this.offsets = port.offsets(worker);
        this.lengths = port.lengths(worker);
        this.packetsPerSecond = packetsPerSecond;
        this.loops = offsets.length == 0 ? 0 : port.loops();
    }

    @Override
    protected int poll(Worker w) {
        if (loop >= loops) {
            return 0;
        }
        long now = System.nanoTime();
        if (startNanos == 0) {
            startNanos = now;
        }
        int budget = PacketVector.CAPACITY;
        if (packetsPerSecond > 0) {
            long allowed = (long) ((now - startNanos) * packetsPerSecond / 1e9) + 1 - produced;
            if (allowed <= 0) {
                return 0;
            }
            budget = (int) Math.min(budget, allowed);
        }
        BufferPool pool = w.pool();
        MemorySegment src = port.data();
        MemorySegment dst = pool.data();
        int bufBytes = pool.bufferBytes();
        int ifIndex = port.ifIndex();
        int next = next(0);
        int n = 0;
        long bytes = 0;
        while (n < budget && loop < loops) {
            int b = pool.alloc();
            if (b < 0) {
                noBuffer++;
                break;
            }
            int len = lengths[cursor];
            if (len > bufBytes) {
                truncated++;
                len = bufBytes;
            }
            MemorySegment.copy(src, offsets[cursor], dst, pool.offset(b), len);
            pool.length[b] = len;
            pool.rxIfIndex[b] = ifIndex;
            pool.txIfIndex[b] = 0;
            pool.timestampNanos[b] = now;
            w.enqueue(next, b, 0);
            bytes += len;
            n++;
            if (++cursor == offsets.length) {
                cursor = 0;
                loop++;
            }
        }
        produced += n;
        rxPackets += n;
        rxBytes += bytes;
        return n;
    }

    @Override
    protected boolean exhausted() {
        return loop >= loops;
    }

    /** @return packets delivered into the graph. */
    public long rxPackets() {
        return rxPackets;
    }

    /** @return bytes delivered. */
    public long rxBytes() {
        return rxBytes;
    }

    /** @return packets truncated to the buffer size. */
    public long truncated() {
        return truncated;
    }

    /** @return polls cut short because the buffer pool was empty. */
    public long noBuffer() {
        return noBuffer;
    }
}
