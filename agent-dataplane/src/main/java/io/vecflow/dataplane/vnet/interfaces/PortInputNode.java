package io.vecflow.dataplane.vnet.interfaces;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.FeatureArc;
import io.vecflow.dataplane.graph.InputNode;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;

/**
 * {@code port-input}: the device input node (VPP's {@code *-input} nodes): each dispatch round it receives up to one
 * vector from this worker's queue of every port and sends each frame into the {@code device-input} feature arc keyed
 * on its receive ifIndex (feature {@code sflow}, then {@code ethernet-input}). A frame the port could not deliver
 * (it set {@link BufferPool#dropReason}, e.g. a GSO super-frame it cannot segment) goes to {@code error-drop} instead,
 * or is freed when the node was built without it.
 */
public final class PortInputNode extends InputNode {
    /** Node name. */
    public static final String NAME = "port-input";

    private final Port[] ports;
    private final FeatureArc deviceInput;
    private final int queue;
    private final boolean errorDrop;
    private final PacketVector scratch = new PacketVector();

    /**
     * A port-input without an error-drop next node: frames a port rejects on receive are freed (counted by the port).
     *
     * @param queue this worker's queue index
     * @param ports ports to poll
     * @param deviceInput the device-input arc
     */
    public PortInputNode(int queue, Port[] ports, FeatureArc deviceInput) {
        super(NAME);
        this.queue = queue;
        this.ports = ports.clone();
        this.deviceInput = deviceInput;
        this.errorDrop = false;
    }

    /**
     * @param queue this worker's queue index
     * @param ports ports to poll
     * @param deviceInput the device-input arc
     * @param errorDrop name of the error-drop node (next node 0), where frames a port rejects on receive go
     */
    public PortInputNode(int queue, Port[] ports, FeatureArc deviceInput, String errorDrop) {
        super(NAME, errorDrop);
        this.queue = queue;
        this.ports = ports.clone();
        this.deviceInput = deviceInput;
        this.errorDrop = true;
    }

    @Override
    protected int poll(Worker w) {
        int total = 0;
        BufferPool pool = w.pool();
        int[] reason = pool.dropReason;
        for (Port p : ports) {
            scratch.count = 0;
            int n = p.rx(queue, pool, scratch, PacketVector.CAPACITY);
            int ifIndex = p.ifIndex();
            int target = deviceInput.target(ifIndex, 0);
            int[] b = scratch.buffers;
            for (int i = 0; i < n; i++) {
                int x = b[i];
                if (reason[x] != 0) {
                    if (errorDrop) {
                        w.enqueue(next(0), x, 0);
                    } else {
                        pool.free(x);
                    }
                    continue;
                }
                pool.adjacency[x] = -1;
                w.enqueue(target, x, 0);
            }
            total += n;
        }
        if (total > 0) {
            packets += total;
            vectors++;
        }
        return total;
    }

    @Override
    protected boolean exhausted() {
        for (Port p : ports) {
            if (!p.rxExhausted(queue)) {
                return false;
            }
        }
        return true;
    }
}
