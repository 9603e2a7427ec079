package io.vecflow.dataplane.vnet.interfaces;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.error.ErrorDropNode;

/**
 * {@code port-output}: the device transmit node: groups the vector's frames by transmit ifIndex and hands each group to
 * its port's transmit queue for this worker ({@link Port#tx(int, BufferPool, PacketVector, PacketVector)}), which sends
 * and frees them; the frames a port could not send (too long or short for it, ring full, a fatal send error) come back
 * with their {@link DropReason} and go to error-drop, as does a frame for an ifIndex with no port
 * ({@link DropReason#INTERFACE_DOWN}).
 */
public final class PortOutputNode extends Node {
    /** Node name. */
    public static final String NAME = "port-output";

    private final InterfaceTable interfaces;
    private final int queue;
    private final PacketVector[] perPort;
    private final int[] touched;
    private final PacketVector rejected = new PacketVector();

    /**
     * @param queue this worker's transmit queue index
     * @param interfaces the ports
     */
    public PortOutputNode(int queue, InterfaceTable interfaces) {
        super(NAME, ErrorDropNode.NAME);
        this.queue = queue;
        this.interfaces = interfaces;
        this.perPort = new PacketVector[interfaces.maxIfIndex() + 1];
        for (Port p : interfaces.ports()) {
            perPort[p.ifIndex()] = new PacketVector();
        }
        this.touched = new int[PacketVector.CAPACITY];
    }

    @Override
    protected void process(Worker w, PacketVector v) {
        BufferPool pool = w.pool();
        int nTouched = 0;
        for (int i = 0, n = v.count; i < n; i++) {
            int b = v.buffers[i];
            int tx = pool.txIfIndex[b];
            PacketVector pv = tx > 0 && tx < perPort.length ? perPort[tx] : null;
            if (pv == null) {
                pool.dropReason[b] = DropReason.INTERFACE_DOWN.ordinal();
                w.enqueue(next(0), b, 0);
                continue;
            }
            if (pv.count == 0) {
                touched[nTouched++] = tx;
            }
            pv.add(b);
        }
        int drop = next(0);
        for (int i = 0; i < nTouched; i++) {
            int tx = touched[i];
            interfaces.port(tx).tx(queue, pool, perPort[tx], rejected);
            perPort[tx].count = 0;
            for (int k = 0, n = rejected.count; k < n; k++) {
                w.enqueue(drop, rejected.buffers[k], 0);
            }
            rejected.count = 0;
        }
    }
}
