package io.vecflow.dataplane.plugins.clove;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.InputNode;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.graph.mem.Bytes;
import io.vecflow.dataplane.plugins.clove.path.PathDiscovery;
import io.vecflow.dataplane.plugins.lb.encap.Encap;
import io.vecflow.dataplane.vnet.ip.IpLookupNode;
import java.lang.foreign.MemorySegment;

/**
 * {@code clove-probe}: an input node (VPP's process-node role) that sends CLOVE's traceroute-style path-discovery
 * probes (docs/load-balancing.md §4 "Path discovery"; {@link PathDiscovery}) on worker 0. Every {@code probe-interval}
 * it starts a round per destination: for each candidate outer UDP source port and each TTL 1..h, one IPv4/UDP packet
 * from this endpoint to the destination's endpoint, to the tunnel port (so it hashes like the data), with
 * {@link PathDiscovery#udpLength}(t) as its UDP Length — the ICMP Time Exceeded quote gives back port and TTL. The
 * round's replies ({@link CloveNode}) are evaluated {@code probe-settle} later and pick the destination's paths.
 *
 * <p>The IPv4 TTL written is t + 1: the probe leaves through this dataplane's own {@code ip4-rewrite}, which
 * decrements it like any routed packet's, so it reaches the wire with t. Checks the clock at most every 10 ms; a
 * round of up to 256 probes goes out in one poll (fewer if the buffer pool runs dry: the rest are skipped and the
 * round is evaluated with what answered). The routers' ICMP rate limits bound how many replies come back at once
 * (Linux: {@code net.ipv4.icmp_ratelimit}, 1 s per peer by default after a burst) — keep {@code candidates × max-ttl}
 * small or let rounds fill in over several intervals. Allocates per round (the plan), never per packet.
 */
public final class CloveProbeNode extends InputNode {
    /** Node name. */
    public static final String NAME = "clove-probe";
    private static final long CHECK_NANOS = 10_000_000;
    private static final int MAX_PER_ROUND = 256;

    private final Clove clove;
    private final Clove.Counters c;
    private final boolean active;
    private final int udpPort;
    private long nextCheck = Long.MIN_VALUE;

    /**
     * @param clove  the shared CLOVE state
     * @param worker this worker's index (only worker 0 probes)
     */
    public CloveProbeNode(Clove clove, int worker) {
        super(NAME, IpLookupNode.IP4);
        this.clove = clove;
        this.c = clove.newCounters();
        this.active = worker == 0;
        this.udpPort = clove.settings().geneve ? Overlay.GENEVE_PORT : Overlay.VXLAN_PORT;
    }

    @Override
    protected int poll(Worker w) {
        if (!active) {
            return 0;
        }
        long now = clove.settings().clock.getAsLong();
        if (nextCheck != Long.MIN_VALUE && now - nextCheck < 0) {
            return 0;
        }
        nextCheck = now + CHECK_NANOS;
        int sent = 0;
        for (int di = 0; di < clove.destinationCount(); di++) {
            Clove.Destination d = clove.destination(di);
            PathDiscovery plan = d.tick(now);
            if (plan == null) {
                continue;
            }
            int n = Math.min(plan.probeCount(), MAX_PER_ROUND);
            for (int i = 0; i < n; i++) {
                if (!send(w, d.vtep, plan.probePort(i), plan.probeTtl(i), plan.probeId(i), now)) {
                    break;
                }
                sent++;
            }
        }
        c.probesSent += sent;
        if (sent > 0) { // show runtime: an input node's calls are the rounds that sent probes
            vectors++;
            packets += sent;
        }
        return sent;
    }

    private boolean send(Worker w, int dstVtep, int srcPort, int ttl, int id, long now) {
        BufferPool pool = w.pool();
        int b = pool.alloc();
        if (b < 0) {
            return false;
        }
        MemorySegment d = pool.data();
        long o = pool.offset(b);
        int udpLen = PathDiscovery.udpLength(ttl);
        int total = 20 + udpLen;
        d.asSlice(o, 14 + total).fill((byte) 0);
        Bytes.put16(d, o + 12, Encap.ETHERTYPE_IPV4);
        long ip = o + 14;
        Bytes.put32(d, ip, 0x4500_0000 | total);
        Bytes.put32(d, ip + 4, (id & 0xFFFF) << 16 | 0x4000);
        Bytes.put32(d, ip + 8, Math.min(255, ttl + 1) << 24 | 17 << 16);
        Bytes.put32(d, ip + 12, clove.settings().vtep);
        Bytes.put32(d, ip + 16, dstVtep);
        Bytes.put16(d, ip + 10, Bytes.ipv4HeaderChecksum(d, ip));
        Bytes.put16(d, ip + 20, srcPort);
        Bytes.put16(d, ip + 22, udpPort);
        Bytes.put16(d, ip + 24, udpLen);
        pool.length[b] = 14 + total;
        pool.l3Offset[b] = 14;
        pool.etherType[b] = Encap.ETHERTYPE_IPV4;
        pool.rxIfIndex[b] = 0;
        pool.txIfIndex[b] = 0;
        pool.adjacency[b] = -1;
        pool.dropReason[b] = 0;
        pool.timestampNanos[b] = now;
        w.enqueue(next(0), b, 0);
        return true;
    }

    /** Never holds a worker: a replay-only dataplane still ends when its pcap does. */
    @Override
    protected boolean exhausted() {
        return true;
    }
}
