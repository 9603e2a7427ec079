package io.vecflow.dataplane.graph;

/**
 * A node with no predecessor that produces vectors (VPP's {@code VLIB_NODE_TYPE_INPUT}), polled by the worker each
 * dispatch round.
 */
public abstract class InputNode extends Node {
    protected InputNode(String name, String... nextNames) {
        super(name, nextNames);
    }

    /**
     * Produces up to one vector of packets into the next node(s).
     *
     * @param w the worker
     * @return packets produced this round (0 when idle)
     */
    protected abstract int poll(Worker w);

    /** @return true when this input will never produce packets again (end of a replay). */
    protected abstract boolean exhausted();

    @Override
    protected final void process(Worker w, PacketVector v) {
        throw new IllegalStateException("input node " + name() + " has no predecessor");
    }
}
