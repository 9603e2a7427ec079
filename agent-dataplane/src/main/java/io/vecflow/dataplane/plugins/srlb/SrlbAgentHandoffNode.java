package io.vecflow.dataplane.plugins.srlb;

import io.vecflow.dataplane.graph.InputNode;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.plugins.lb.SrlbHandoff;

/**
 * {@code srlb-sa6-handoff}: an input node (VPP's process-node role) that applies, at the start of every dispatch
 * round of its worker, the SRLB server-agent state changes other workers handed to it for flows in its table
 * ({@link SrlbAgent} "Several workers"; {@link SrlbHandoff}). Registered only when the dataplane has more than one
 * worker. Produces no packets; {@code show runtime} counts the rounds that applied something (vectors) and the
 * changes applied (packets). Allocation-free.
 */
public final class SrlbAgentHandoffNode extends InputNode {
    /** Node name. */
    public static final String NAME = "srlb-sa6-handoff";

    private final SrlbAgent agent;
    private final SrlbAgent.Worker st;

    /**
     * @param agent       the agent
     * @param worker      worker index
     * @param bufferBytes the worker's buffer size (for the shared per-worker state)
     */
    public SrlbAgentHandoffNode(SrlbAgent agent, int worker, int bufferBytes) {
        super(NAME);
        this.agent = agent;
        this.st = agent.worker(worker, bufferBytes);
    }

    @Override
    protected int poll(Worker w) {
        int n = st.drain(agent);
        if (n > 0) {
            vectors++;
            packets += n;
        }
        return 0;
    }

    /** Never holds a worker alive: it only applies what other workers hand over. */
    @Override
    protected boolean exhausted() {
        return true;
    }
}
