package io.vecflow.dataplane.plugins.clove;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.FeatureArc;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.graph.mem.Bytes;
import io.vecflow.dataplane.plugins.clove.path.FlowletTable;
import io.vecflow.dataplane.plugins.clove.path.PathDiscovery;
import io.vecflow.dataplane.plugins.lb.DecisionCookies;
import io.vecflow.dataplane.plugins.lb.encap.Encap;
import io.vecflow.dataplane.plugins.lb.maglev.FlowHash;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.error.ErrorDropNode;
import io.vecflow.dataplane.vnet.ip.IpLookupNode;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.ParsedPacket;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code clove4}: the CLOVE vSwitch as a feature on the {@code ip4-unicast} arc (docs/load-balancing.md §4;
 * {@link Clove}). Per IPv4 packet:
 * <ol>
 *   <li>To this endpoint's address, UDP to the tunnel port: {@link Overlay#decap}; an outer CE is recorded for relay
 *       to the sender (per outer source port), Geneve feedback entries cut the sender-side weights of the paths they
 *       name; the inner packet goes to {@code ip4-lookup}/{@code ip6-lookup}. A probe that reached this endpoint is
 *       counted and freed. A malformed tunnel packet goes to error-drop ({@link DropReason#IP4_BAD_HEADER}).</li>
 *   <li>To this endpoint's address, ICMP: a reply to one of our probes ({@link PathDiscovery#parseReply}) is recorded
 *       for its destination and freed; any other ICMP goes on along the arc.</li>
 *   <li>To an inner prefix of a destination: the flowlet table picks the path (a new flowlet asks the destination's
 *       selector and gets a CLOVE decision cookie), pending feedback for that destination rides along, and
 *       {@link Overlay#encap} wraps the packet; on to {@code ip4-lookup} for the outer header.</li>
 *   <li>Anything else: on along the arc, untouched.</li>
 * </ol>
 * Allocation-free per packet; the destination's lock is taken only for a new flowlet, a CE mark, feedback and probe
 * replies. Inner IPv4 only: the node sits on the ip4-unicast arc (an IPv6 inner family would need a clove6 node).
 */
public final class CloveNode extends Node {
    /** Node name. */
    public static final String NAME = "clove4";
    private static final int NEXT_LOOKUP4 = 0, NEXT_LOOKUP6 = 1, NEXT_DROP = 2;
    private static final int REPLY_COPY_BYTES = 256;

    private final Clove clove;
    private final Clove.Counters c;
    private final Overlay overlay;
    private final FlowletTable flowlets;
    private final FlowKey key = new FlowKey();
    private final FeatureArc arc;
    private final int position;
    private final int vtep;
    private final long seed;
    private final boolean ecn;
    private final int[] fbPorts = new int[Overlay.MAX_FEEDBACK];
    private final int[] fbMarks = new int[Overlay.MAX_FEEDBACK];
    private final byte[] replyCopy = new byte[REPLY_COPY_BYTES];
    private final ParsedPacket parsed = new ParsedPacket();
    private final DecisionCookies cookies = new DecisionCookies();

    /**
     * @param clove       the shared CLOVE state
     * @param bufferBytes bytes per packet buffer
     * @param arc         the ip4-unicast arc
     */
    public CloveNode(Clove clove, int bufferBytes, FeatureArc arc) {
        super(NAME, IpLookupNode.IP4, IpLookupNode.IP6, ErrorDropNode.NAME);
        Clove.Settings s = clove.settings();
        this.clove = clove;
        this.c = clove.newCounters();
        this.overlay = new Overlay(s.geneve, bufferBytes, s.ttl, s.vtep, s.vni);
        this.flowlets = new FlowletTable(s.flowletSlots, s.flowletGapNanos);
        this.arc = arc;
        this.position = arc.position(NAME);
        this.vtep = s.vtep;
        this.seed = s.seed;
        this.ecn = s.mode == Clove.Mode.ECN;
    }

    @Override
    protected void process(Worker w, PacketVector v) {
        BufferPool pool = w.pool();
        MemorySegment d = pool.data();
        long now = clove.settings().clock.getAsLong();
        int drop = next(NEXT_DROP);
        for (int i = 0, n = v.count; i < n; i++) {
            int b = v.buffers[i];
            int l3 = pool.l3Offset[b];
            int len = pool.length[b];
            long buf = pool.offset(b);
            long base = buf + l3;
            if (len - l3 < 20) {
                arc.next(w, b, pool.rxIfIndex[b], position);
                continue;
            }
            int dst = Bytes.i32(d, base + 16);
            if (dst == vtep) {
                local(w, pool, d, b, buf, len, l3, now, drop);
                continue;
            }
            int di = clove.destinationOf(dst);
            if (di < 0) {
                arc.next(w, b, pool.rxIfIndex[b], position);
                continue;
            }
            Clove.Destination dest = clove.destination(di);
            if (key.read(d, base, len - l3) != FlowKey.OK) {
                c.errors++;
                pool.dropReason[b] = DropReason.IP4_BAD_HEADER.ordinal();
                w.enqueue(drop, b, 0);
                continue;
            }
            int path = flowlets.path(FlowHash.hash(seed, key), now, dest);
            int port = dest.port(path);
            if (flowlets.lastWasNew()) {
                c.newFlowlets++;
                cookies.clove(pool, b, dest.vtep, key.protocol, key.dstPort, flowlets.lastFlowletId(),
                        dest.weightMicro(path), port);
            }
            int fb = dest.relayPending ? dest.drainRelay(fbPorts, fbMarks, Overlay.MAX_FEEDBACK) : 0;
            int r = overlay.encap(d, buf, pool.headroom(b), len, l3, dest.vtep, port, ecn, fbPorts, fbMarks, fb);
            if (r < 0) {
                c.errors++;
                pool.dropReason[b] = (r == Overlay.ERR_NO_ROOM ? DropReason.MTU_EXCEEDED : DropReason.IP4_BAD_HEADER)
                        .ordinal();
                w.enqueue(drop, b, 0);
                continue;
            }
            c.feedbackSent += fb;
            c.encapsulated++;
            pool.advance(b, overlay.shift()); // headers prepended into the headroom: the frame starts earlier
            pool.length[b] = r;
            pool.l3Offset[b] = Encap.ETHERNET_HEADER;
            pool.etherType[b] = Encap.ETHERTYPE_IPV4;
            w.enqueue(next(NEXT_LOOKUP4), b, 0);
        }
    }

    /** A packet addressed to this endpoint: tunnel, probe, probe reply, or something else (dropped). */
    private void local(Worker w, BufferPool pool, MemorySegment d, int b, long buf, int len, int l3, long now,
            int drop) {
        int proto = Bytes.u8(d, buf + l3 + 9);
        if (proto == FlowKey.PROTO_ICMP) {
            if (looksLikeProbeReply(d, buf + l3, len - l3)) { // allocation only past these checks
                int n = Math.min(len, REPLY_COPY_BYTES);
                MemorySegment.copy(d, ValueLayout.JAVA_BYTE, buf, replyCopy, 0, n);
                PathDiscovery.Reply reply;
                try {
                    reply = PathDiscovery.parseReply(replyCopy, 0, n, LinkType.ETHERNET, parsed);
                } catch (PathDiscovery.ReplyFormatException e) {
                    reply = null;
                }
                int di = reply == null ? -1 : clove.destinationByVtep(ipv4(reply.quotedDst()));
                if (di >= 0 && clove.destination(di).onProbeReply(reply)) {
                    c.probeReplies++;
                    pool.free(b);
                    return;
                }
            }
            notTunnel(w, pool, b, drop);
            return;
        }
        int r = overlay.decap(d, buf, len, l3, vtep);
        if (r == Overlay.NOT_TUNNEL) {
            notTunnel(w, pool, b, drop);
            return;
        }
        if (r == Overlay.PROBE) {
            c.probesReceived++;
            pool.free(b);
            return;
        }
        if (r < 0) {
            c.errors++;
            if (r == Overlay.ERR_REFUSED) {
                c.refused++;
            }
            c.lastError = r;
            c.lastErrorOffset = overlay.errorOffset();
            pool.dropReason[b] = DropReason.CLOVE_DECAP_ERROR.ordinal();
            w.enqueue(drop, b, 0);
            return;
        }
        c.decapsulated++;
        int from = clove.destinationByVtep(overlay.outerSource());
        if (overlay.outerEcn() == 3) {
            c.ceReceived++;
            if (overlay.innerCe() > 0) {
                c.ceToInner++;
            }
            if (from >= 0) {
                clove.destination(from).onCe(overlay.outerSourcePort());
            } else {
                c.unknownPeer++;
            }
            if (!ecn && overlay.innerCe() < 0) {
                // edge-flowlet mode never sets ECT on a Not-ECT inner packet's outer header, so the inner transport
                // cannot take this mark: RFC 6040 §4.2 drops it (ECN mode: our own ECT(0), the mark is for us)
                pool.dropReason[b] = DropReason.CLOVE_CE_NOT_ECT.ordinal();
                w.enqueue(drop, b, 0);
                return;
            }
        }
        int fb = overlay.feedbackCount();
        if (fb > 0) {
            c.feedbackReceived += fb;
            if (from < 0) {
                c.unknownPeer++;
            } else {
                Clove.Destination dest = clove.destination(from);
                for (int i = 0; i < fb; i++) {
                    if (overlay.feedbackMarks(i) > 0 && dest.onFeedback(overlay.feedbackPort(i), now)) {
                        c.weightCuts++;
                    }
                }
            }
        }
        boolean v6 = Bytes.u16(d, buf + 12) == Encap.ETHERTYPE_IPV6;
        pool.length[b] = r;
        pool.l3Offset[b] = Encap.ETHERNET_HEADER;
        pool.etherType[b] = v6 ? Encap.ETHERTYPE_IPV6 : Encap.ETHERTYPE_IPV4;
        w.enqueue(next(v6 ? NEXT_LOOKUP6 : NEXT_LOOKUP4), b, 0);
    }

    private void notTunnel(Worker w, BufferPool pool, int b, int drop) {
        c.notTunnel++;
        pool.dropReason[b] = DropReason.CLOVE_NOT_TUNNEL.ordinal();
        w.enqueue(drop, b, 0);
    }

    /**
     * Cheap, allocation-free checks before a reply is parsed: ICMPv4 Time Exceeded (11/0) or Port Unreachable (3/3)
     * quoting an IPv4/UDP packet from this endpoint to the tunnel port, from one of the candidate source ports.
     */
    private boolean looksLikeProbeReply(MemorySegment d, long ip, int avail) {
        int ihl = (Bytes.u8(d, ip) & 0xF) * 4;
        if (ihl < 20 || avail < ihl + 8 + 28) {
            return false;
        }
        long icmp = ip + ihl;
        int type = Bytes.u8(d, icmp), code = Bytes.u8(d, icmp + 1);
        if (!(type == 11 && code == 0) && !(type == 3 && code == 3)) {
            return false;
        }
        long q = icmp + 8;
        int qihl = (Bytes.u8(d, q) & 0xF) * 4;
        if ((Bytes.u8(d, q) >>> 4) != 4 || qihl < 20 || avail < ihl + 8 + qihl + 8 || Bytes.u8(d, q + 9) != 17
                || Bytes.i32(d, q + 12) != vtep) {
            return false;
        }
        int sport = Bytes.u16(d, q + qihl), dport = Bytes.u16(d, q + qihl + 2);
        Clove.Settings s = clove.settings();
        return dport == overlay.udpPort() && sport >= s.probeFirstPort && sport < s.probeFirstPort + s.probeCandidates;
    }

    private static int ipv4(String dotted) {
        int a = 0, part = 0, parts = 0;
        for (int i = 0; i < dotted.length(); i++) {
            char ch = dotted.charAt(i);
            if (ch == '.') {
                a = a << 8 | part;
                part = 0;
                parts++;
            } else if (ch >= '0' && ch <= '9') {
                part = part * 10 + (ch - '0');
            } else {
                return 0; // an IPv6 quote: no IPv4 destination
            }
        }
        return parts == 3 ? a << 8 | part : 0;
    }

    /** @return this worker's counters */
    public Clove.Counters counters() {
        return c;
    }
}
