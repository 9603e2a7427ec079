package io.vecflow.dataplane;

import io.vecflow.dataplane.sflow.SampleFifo;
import io.vecflow.dataplane.sflow.SampleRecord;
import io.vecflow.dataplane.sflow.SflowNode;
import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.psample.LbDecisionCookie;
import java.util.ArrayList;
import java.util.List;

/** Reads what worker 0's {@code sflow-egress} node sampled, for the load-balancer decision tests. */
final class EgressSamples {
    private EgressSamples() {}

    /**
     * The decision cookies of the egress samples a dataplane took since the last call, decoded, in order (samples
     * without a cookie are consumed and skipped).
     *
     * @throws NetlinkFormatException a cookie does not decode (the test fails with the field and offset)
     */
    static List<LbDecisionCookie> decisions(Dataplane d) throws NetlinkFormatException {
        SampleFifo f = ((SflowNode) d.workers().get(0).node(SflowNode.EGRESS)).fifo();
        List<LbDecisionCookie> out = new ArrayList<>();
        for (SampleRecord r = f.poll(); r != null; r = f.poll()) {
            if (r.cookieLength > 0) {
                out.add(new LbDecisionCookie().decode(r.cookie, 0, r.cookieLength));
            }
            f.release(r);
        }
        return out;
    }
}
