package io.vecflow.dataplane;

/**
 * {@code interface-output}: sends each frame into the {@code interface-output} feature arc keyed on its transmit
 * ifIndex (feature {@code sflow-egress}; the arc ends at {@code port-output}), as VPP's interface-output enters its
 * output feature arc. Where the graph has decided a packet's output, it also completes the packet's held ingress
 * sample with that transmit ifIndex ({@link IngressSampleHold}).
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
        IngressSampleHold held = w.ingressHold();
        int n = v.count;
        if (held.pending() != 0) {
            // The output is decided here: complete the ingress samples of these packets with their transmit ifIndex.
            for (int i = 0; i < n; i++) {
                int b = v.buffers[i];
                held.complete(b, pool.txIfIndex[b]);
            }
        }
        for (int i = 0; i < n; i++) {
            int b = v.buffers[i];
            arc.start(w, b, pool.txIfIndex[b]);
        }
    }
}
