package io.vecflow.dataplane;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.vnet.interfaces.Port;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Test port: receives given lists of frames once (queue 0 by default, or the queue named), records a copy of every
 * transmitted frame.
 */
final class MemoryPort extends Port {
    private final ConcurrentLinkedQueue<byte[]> toReceive = new ConcurrentLinkedQueue<>();
    private final List<ConcurrentLinkedQueue<byte[]>> queues = new ArrayList<>();
    final List<byte[]> sent = java.util.Collections.synchronizedList(new ArrayList<>());

    MemoryPort(String name, int ifIndex, int queues) {
        super(name, ifIndex, queues);
        this.queues.add(toReceive);
        for (int q = 1; q < queues; q++) {
            this.queues.add(new ConcurrentLinkedQueue<>());
        }
    }

    void inject(List<byte[]> frames) {
        toReceive.addAll(frames);
    }

    /** Frames for receive queue {@code queue} (the worker of that index polls it). */
    void inject(int queue, List<byte[]> frames) {
        queues.get(queue).addAll(frames);
    }

    @Override
    public int rx(int queue, BufferPool pool, PacketVector out, int max) {
        ConcurrentLinkedQueue<byte[]> toReceive = queues.get(queue);
        int n = 0;
        long bytes = 0;
        while (n < max && !toReceive.isEmpty()) {
            int b = pool.alloc();
            if (b < 0) {
                break;
            }
            byte[] f = toReceive.poll();
            MemorySegment.copy(f, 0, pool.data(), ValueLayout.JAVA_BYTE, pool.offset(b), f.length);
            pool.length[b] = f.length;
            pool.rxIfIndex[b] = ifIndex();
            pool.txIfIndex[b] = 0;
            pool.timestampNanos[b] = System.nanoTime();
            out.add(b);
            n++;
            bytes += f.length;
        }
        counters().add(queue, PortCounters.RX_PACKETS, n);
        counters().add(queue, PortCounters.RX_OCTETS, bytes);
        return n;
    }

    @Override
    public boolean rxExhausted(int queue) {
        return queues.get(queue).isEmpty();
    }

    @Override
    public void tx(int queue, BufferPool pool, PacketVector v) {
        long bytes = 0;
        for (int i = 0; i < v.count; i++) {
            int b = v.buffers[i];
            sent.add(pool.data().asSlice(pool.offset(b), pool.length[b]).toArray(ValueLayout.JAVA_BYTE));
            bytes += pool.length[b];
        }
        counters().add(queue, PortCounters.TX_PACKETS, v.count);
        counters().add(queue, PortCounters.TX_OCTETS, bytes);
        pool.free(v);
    }
}
