package io.vecflow.dataplane;

import io.vecflow.dataplane.port.Port;

/**
 * {@code port-input}: the device input node (VPP's {@code *-input} nodes): each dispatch round it receives up to one
 * vector from this worker's queue of every port and sends each frame into the {@code device-input} feature arc keyed
 * on its receive ifIndex (feature {@code sflow}, then {@code ethernet-input}).
 */
public final class PortInputNode extends InputNode {
    /** Node name. */
    public static final String NAME = "port-input";

    private final Port[] ports;
    private final FeatureArc deviceInput;
    private final int queue;
    private final PacketVector scratch = new PacketVector();

    /**
     * @param queue this worker's queue index
     * @param ports ports to poll
     * @param deviceInput the device-input arc
     */
    public PortInputNode(int queue, Port[] ports, FeatureArc deviceInput) {
        super(NAME);
        this.queue = queue;
        this.ports = ports.clone();
        this.deviceInput = deviceInput;
    }

    @Override
    protected int poll(Worker w) {
        int total = 0;
        BufferPool pool = w.pool();
        for (Port p : ports) {
            scratch.count = 0;
            int n = p.rx(queue, pool, scratch, PacketVector.CAPACITY);
            int ifIndex = p.ifIndex();
            int target = deviceInput.target(ifIndex, 0);
            int[] b = scratch.buffers;
            for (int i = 0; i < n; i++) {
                pool.dropReason[b[i]] = 0;
                pool.adjacency[b[i]] = -1;
                w.enqueue(target, b[i], 0);
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
