package io.vecflow.dataplane.port;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.vnet.interfaces.Port;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;

/**
 * A port that receives nothing and whose transmit counts and frees frames (a null device): the output side of the
 * replay demo and of in-memory benchmarks.
 */
public final class SinkPort extends Port {
    /**
     * @param name interface name
     * @param ifIndex dataplane ifIndex
     * @param queues one per worker
     */
    public SinkPort(String name, int ifIndex, int queues) {
        super(name, ifIndex, queues);
    }

    @Override
    public int rx(int queue, BufferPool pool, PacketVector out, int max) {
        return 0;
    }

    @Override
    public boolean rxExhausted(int queue) {
        return true;
    }

    @Override
    public void tx(int queue, BufferPool pool, PacketVector v) {
        long bytes = 0;
        for (int i = 0; i < v.count; i++) {
            bytes += pool.length[v.buffers[i]];
        }
        counters().add(queue, PortCounters.TX_PACKETS, v.count);
        counters().add(queue, PortCounters.TX_OCTETS, bytes);
        pool.free(v);
    }
}
