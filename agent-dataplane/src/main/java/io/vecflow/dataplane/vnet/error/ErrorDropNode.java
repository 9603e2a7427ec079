package io.vecflow.dataplane.vnet.error;

import io.vecflow.dataplane.graph.BufferHold;
import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.FeatureArc;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;

/**
 * {@code error-drop}: where every dropped packet goes. Counts it by its {@link DropReason} (the node's error counters,
 * {@code show errors}) and by (reason, receive ifIndex), then sends it — per packet, with its own receive interface,
 * unlike VPP which enters the arc once per frame — into the {@code error-drop} feature arc (feature
 * {@code sflow-drop}; the arc ends at {@code drop}, which frees it). A held ingress sample of a dropped packet is
 * published here with output 0 ({@link BufferHold}).
 */
public final class ErrorDropNode extends Node {
    /** Node name. */
    public static final String NAME = "error-drop";

    private final FeatureArc arc;
    private final int maxIfIndex;
    private final long[] byReason = new long[DropReason.count()];
    private final long[] byReasonIf;

    /**
     * @param arc the error-drop arc
     * @param maxIfIndex largest ifIndex counted per interface (higher ones count under ifIndex 0)
     */
    public ErrorDropNode(FeatureArc arc, int maxIfIndex) {
        super(NAME);
        this.arc = arc;
        this.maxIfIndex = maxIfIndex;
        this.byReasonIf = new long[DropReason.count() * (maxIfIndex + 1)];
    }

    @Override
    protected void process(Worker w, PacketVector v) {
        BufferPool pool = w.pool();
        BufferHold held = w.bufferHold();
        if (held != null && held.pending() != 0) {
            for (int i = 0, n = v.count; i < n; i++) {
                held.complete(v.buffers[i], 0); // dropped: no output (the discard sample reports the drop)
            }
        }
        for (int i = 0, n = v.count; i < n; i++) {
            int b = v.buffers[i];
            int r = pool.dropReason[b];
            if (r < 0 || r >= byReason.length) {
                r = 0;
                pool.dropReason[b] = 0;
            }
            int rx = pool.rxIfIndex[b];
            byReason[r]++;
            byReasonIf[r * (maxIfIndex + 1) + (rx > 0 && rx <= maxIfIndex ? rx : 0)]++;
            arc.start(w, b, rx);
        }
    }

    /** @return packets dropped with this reason (racy read from another thread: eventually consistent). */
    public long dropped(DropReason r) {
        return byReason[r.ordinal()];
    }

    /** @return packets dropped with this reason that were received on {@code ifIndex}. */
    public long dropped(DropReason r, int ifIndex) {
        return ifIndex >= 0 && ifIndex <= maxIfIndex ? byReasonIf[r.ordinal() * (maxIfIndex + 1) + ifIndex] : 0;
    }

    /**
     * @return packets dropped that were received on {@code ifIndex}, except for reasons a port counts in its own
     *     interface counters ({@link DropReason#countedByPort()}: receive errors, transmit discards and errors), so
     *     that the receive interface's ifInDiscards does not count a frame the output port already counted
     */
    public long droppedOn(int ifIndex) {
        long s = 0;
        for (DropReason r : DropReason.values()) {
            if (!r.countedByPort()) {
                s += dropped(r, ifIndex);
            }
        }
        return s;
    }
}
