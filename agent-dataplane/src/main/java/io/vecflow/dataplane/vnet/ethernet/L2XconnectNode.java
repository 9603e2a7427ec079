package io.vecflow.dataplane.vnet.ethernet;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.error.ErrorDropNode;
import io.vecflow.dataplane.vnet.interfaces.InterfaceOutputNode;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;

/**
 * {@code l2-xconnect}: sends every frame out of its receive port's cross-connect peer unchanged (VPP's
 * {@code l2-output} for an xconnect bridge): sets the transmit ifIndex and hands the frame to
 * {@code interface-output}. A port whose cross-connect was removed meanwhile drops with
 * {@link DropReason#L2_NO_XCONNECT}.
 */
public final class L2XconnectNode extends Node {
    /** Node name. */
    public static final String NAME = "l2-xconnect";
    private static final int NEXT_OUTPUT = 0, NEXT_DROP = 1;

    private final InterfaceTable interfaces;

    /** @param interfaces cross-connect peers */
    public L2XconnectNode(InterfaceTable interfaces) {
        super(NAME, InterfaceOutputNode.NAME, ErrorDropNode.NAME);
        this.interfaces = interfaces;
    }

    @Override
    protected void process(Worker w, PacketVector v) {
        BufferPool pool = w.pool();
        int out = next(NEXT_OUTPUT), drop = next(NEXT_DROP);
        for (int i = 0, n = v.count; i < n; i++) {
            int b = v.buffers[i];
            int peer = interfaces.xconnectPeer(pool.rxIfIndex[b]);
            if (peer == 0) {
                pool.dropReason[b] = DropReason.L2_NO_XCONNECT.ordinal();
                w.enqueue(drop, b, 0);
            } else {
                pool.txIfIndex[b] = peer;
                w.enqueue(out, b, 0);
            }
        }
    }
}
