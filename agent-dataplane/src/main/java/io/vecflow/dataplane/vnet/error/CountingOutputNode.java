package io.vecflow.dataplane.vnet.error;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;

/**
 * A terminal node that counts packets and bytes, then frees the buffers: {@code error-drop} (packets discarded) and,
 * until real ports exist, {@code l2-xconnect} (packets that would be transmitted on the cross-connected interface).
 */
public final class CountingOutputNode extends Node {
    /** Name of the drop node. */
    public static final String ERROR_DROP = "error-drop";
    /** Name of the L2 cross-connect output node. */
    public static final String L2_XCONNECT = "l2-xconnect";

    private final int txIfIndex;
    private volatile long outPackets, outBytes;

    /**
     * @param name {@link #ERROR_DROP} or {@link #L2_XCONNECT}
     * @param txIfIndex the interface packets leave on (0 for drops)
     */
    public CountingOutputNode(String name, int txIfIndex) {
        super(name);
        this.txIfIndex = txIfIndex;
    }

    @Override
    protected void process(Worker w, PacketVector v) {
        BufferPool pool = w.pool();
        long bytes = 0;
        for (int i = 0, n = v.count; i < n; i++) {
            int b = v.buffers[i];
            pool.txIfIndex[b] = txIfIndex;
            bytes += pool.length[b];
        }
        outPackets += v.count;
        outBytes += bytes;
        pool.free(v);
    }

    /** @return packets counted. */
    public long outPackets() {
        return outPackets;
    }

    /** @return bytes counted (frame length without FCS). */
    public long outBytes() {
        return outBytes;
    }
}
