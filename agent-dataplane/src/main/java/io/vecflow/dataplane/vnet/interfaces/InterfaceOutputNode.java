package io.vecflow.dataplane.vnet.interfaces;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.FeatureArc;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;

/**
 * {@code interface-output}: sends each frame into the {@code interface-output} feature arc keyed on its transmit
 * ifIndex (feature {@code sflow-egress}; the arc ends at {@code port-output}), as VPP's interface-output enters its
 * output feature arc.
 */
public final class InterfaceOutputNode extends Node {
    /** Node name. */
    public static final String NAME = "interface-output";

    private final FeatureArc arc;

    /** @param arc the interface-output arc */
    public InterfaceOutputNode(FeatureArc arc) {
        super(NAME);
        this.arc = arc;
    }

    @Override
    protected void process(Worker w, PacketVector v) {
        BufferPool pool = w.pool();
        for (int i = 0, n = v.count; i < n; i++) {
            int b = v.buffers[i];
            arc.start(w, b, pool.txIfIndex[b]);
        }
    }
}
