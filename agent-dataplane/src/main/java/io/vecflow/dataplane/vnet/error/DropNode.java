package io.vecflow.dataplane.vnet.error;

import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;

/** {@code drop}: the end of the error-drop arc; frees every buffer (VPP's drop node after error-drop). */
public final class DropNode extends Node {
    /** Node name. */
    public static final String NAME = "drop";

    /** Creates the node. */
    public DropNode() {
        super(NAME);
    }

    @Override
    protected void process(Worker w, PacketVector v) {
        w.pool().free(v);
    }
}
