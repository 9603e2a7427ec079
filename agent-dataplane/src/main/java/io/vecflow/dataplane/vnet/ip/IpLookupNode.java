package io.vecflow.dataplane.vnet.ip;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.graph.mem.Bytes;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.error.ErrorDropNode;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code ip4-lookup} / {@code ip6-lookup}: longest-prefix match of the destination address in the current
 * {@link Forwarding} (read once per vector, so a route change applies between vectors); the adjacency goes into
 * {@link BufferPool#adjacency} and the packet to {@code ip4-rewrite} / {@code ip6-rewrite}. No route:
 * error-drop with {@link DropReason#IP4_NO_ROUTE} / {@link DropReason#IP6_NO_ROUTE}.
 */
public final class IpLookupNode extends Node {
    /** IPv4 node name. */
    public static final String IP4 = "ip4-lookup";
    /** IPv6 node name. */
    public static final String IP6 = "ip6-lookup";

    private final boolean ip6;
    private final AtomicReference<Forwarding> forwarding;

    /**
     * @param ip6 true for ip6-lookup
     * @param forwarding the current forwarding state
     */
    public IpLookupNode(boolean ip6, AtomicReference<Forwarding> forwarding) {
        super(ip6 ? IP6 : IP4, ip6 ? IpRewriteNode.IP6 : IpRewriteNode.IP4, ErrorDropNode.NAME);
        this.ip6 = ip6;
        this.forwarding = forwarding;
    }

    @Override
    protected void process(Worker w, PacketVector v) {
        BufferPool pool = w.pool();
        MemorySegment d = pool.data();
        Forwarding f = forwarding.get();
        int rewrite = next(0), drop = next(1);
        int noRoute = (ip6 ? DropReason.IP6_NO_ROUTE : DropReason.IP4_NO_ROUTE).ordinal();
        for (int i = 0, n = v.count; i < n; i++) {
            int b = v.buffers[i];
            long base = pool.offset(b) + pool.l3Offset[b];
            int adj = ip6 ? f.fib6().lookup(d.get(Bytes.BE64, base + 24), d.get(Bytes.BE64, base + 32))
                    : f.fib4().lookup(d.get(Bytes.BE32, base + 16));
            if (adj < 0) {
                pool.dropReason[b] = noRoute;
                w.enqueue(drop, b, 0);
            } else {
                pool.adjacency[b] = adj;
                w.enqueue(rewrite, b, 0);
            }
        }
    }
}
