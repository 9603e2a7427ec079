package io.vecflow.dataplane.plugins.srlb;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.FeatureArc;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.graph.mem.Bytes;
import io.vecflow.dataplane.plugins.lb.DecisionCookies;
import io.vecflow.dataplane.plugins.lb.encap.Decap;
import io.vecflow.dataplane.plugins.lb.encap.Encap;
import io.vecflow.dataplane.plugins.lb.maglev.FlowHash;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import io.vecflow.dataplane.plugins.srlb.state.ServerAgentState;
import io.vecflow.dataplane.plugins.srlb.state.SrlbFlowTable;
import io.vecflow.dataplane.plugins.srlb.state.SrlbSid;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.error.ErrorDropNode;
import io.vecflow.dataplane.vnet.ip.IpLookupNode;
import io.vecflow.netlink.vpp.LbCounters;
import java.lang.foreign.MemorySegment;

/**
 * {@code srlb-sa6}: the SRLB server agent as a feature on the {@code ip6-unicast} arc of a server's own dataplane
 * (docs/load-balancing.md §3 steps 2–5; Oryon/vpp-dev {@code srlb-sa-node.c}), driven by the pure
 * {@link ServerAgentState} machine (NONE → WAIT → DIRECT → TEARDOWN) over a per-worker {@link SrlbFlowTable}.
 *
 * <ul>
 *   <li>Destination inside the agent's SID /80 with an SRH right after the IPv6 header: the SID's FUNCTION
 *       decides. The VIP is Segment List[{@code segments_left − OFFSET}], the LB SID the entry after it; remaining
 *       choices = {@code segments_left − vip index − 2}, this server's choice index = {@code last_entry −
 *       segments_left}. 0x0 CONNECT_IF_AVAILABLE asks the {@code AcceptPolicy} with the {@code LoadSource}'s value
 *       (the last candidate always accepts; a full table never does); 0x1 RECOVER_STICKINESS accepts only with
 *       state; 0x2 ACK_STICKINESS always delivers. Accept: the LB SID is stored, the SRH popped (destination = the
 *       VIP, {@link Decap#srhPop}) and the packet routed by {@code ip6-lookup} to the local server. Pass:
 *       {@code segments_left−−} ({@link Decap#srhAdvance}) and routed to the next candidate. Refused as the last
 *       candidate, or malformed: error-drop {@link DropReason#SRLB_REJECTED}.</li>
 *   <li>Source = one of the agent's VIPs (the local server's reply): DIRECT → on along the arc, straight to the
 *       client; WAIT (or a FIN/RST: TEARDOWN) → SRH [client, SA SID, LB SID fn 0x8 / 0x9] inserted
 *       ({@link Encap#srlbReply}), via the LB; no state → error-drop {@link DropReason#SRLB_REJECTED}.</li>
 *   <li>Anything else: on along the arc, untouched.</li>
 * </ul>
 * The agent SID it signals carries CORE = the worker that owns the flow (the one whose table took its hunting SYN)
 * and ENTRY = the flow's slot there. The last decision's facts stay readable ({@link #lastKind}, {@link #lastChoice},
 * {@link #lastLoad}) for the sample cookie. Allocation-free.
 *
 * <p><b>Several workers.</b> The port spreads a connection's packets over workers by its own hash, so any of them
 * may arrive on a worker that does not own the flow. This node then finds the owner (the SID's CORE/ENTRY on an
 * ACK_STICKINESS packet, the agent's owner index, else a search of the other tables), decides from the owner's entry
 * and sends the packet itself; the state change, if any, goes to the owner's inbox, applied by its
 * {@link SrlbAgentHandoffNode}. Only a flow no worker holds is created here (an accepted SYN, or an ACK_STICKINESS
 * without state), and its owner index entry written. Details and the memory ordering: {@link SrlbAgent}.
 */
public final class SrlbAgentNode extends Node {
    /** Node name (feature on ip6-unicast). */
    public static final String NAME = "srlb-sa6";
    private static final int NEXT_LOOKUP6 = 0, NEXT_DROP = 1;
    /** Decision kinds (LbDecisionCookie codes): none, accept first / second, pass. */
    static final int KIND_NONE = 0, KIND_ACCEPT_FIRST = 4, KIND_ACCEPT_SECOND = 5, KIND_REJECT = 6;

    private final SrlbAgent agent;
    private final SrlbAgent.Worker st;
    private final FeatureArc arc;
    private final int position;
    int lastKind, lastChoice;
    double lastLoad;
    private final DecisionCookies cookies = new DecisionCookies();
    private final long[] cands = new long[4];
    private int lastCandidates;
    private long lastVipHi, lastVipLo;

    /**
     * @param agent the agent
     * @param worker worker index
     * @param bufferBytes the worker's buffer size
     * @param arc the ip6-unicast arc
     */
    public SrlbAgentNode(SrlbAgent agent, int worker, int bufferBytes, FeatureArc arc) {
        super(NAME, IpLookupNode.IP6, ErrorDropNode.NAME);
        this.agent = agent;
        this.st = agent.worker(worker, bufferBytes);
        this.arc = arc;
        this.position = arc.position(NAME);
    }

    @Override
    protected void process(Worker w, PacketVector v) {
        BufferPool pool = w.pool();
        MemorySegment d = pool.data();
        long now = agent.settings.clock.getAsLong();
        SrlbAgent a = agent;
        for (int i = 0, n = v.count; i < n; i++) {
            int b = v.buffers[i];
            int l3 = pool.l3Offset[b];
            int len = pool.length[b];
            long buf = pool.offset(b);
            long p = buf + l3;
            long dHi = Bytes.i64(d, p + 24), dLo = Bytes.i64(d, p + 32);
            int r;
            if (dHi == a.sidHi && ((dLo ^ a.sidLo) & SrlbSid.PREFIX_LO_MASK) == 0) {
                r = segment(d, buf, len, l3, dLo, now);
            } else if (isVip(a, Bytes.i64(d, p + 8), Bytes.i64(d, p + 16))) {
                r = reply(d, buf, len, l3, now);
                if (r == 0) {
                    arc.next(w, b, pool.rxIfIndex[b], position);
                    continue;
                }
            } else {
                arc.next(w, b, pool.rxIfIndex[b], position);
                continue;
            }
            if (r < 0) {
                pool.dropReason[b] = DropReason.SRLB_REJECTED.ordinal();
                w.enqueue(next(NEXT_DROP), b, 0);
            } else {
                if (lastKind != KIND_NONE) {
                    cookie(pool, b);
                }
                pool.length[b] = r;
                w.enqueue(next(NEXT_LOOKUP6), b, 0);
            }
        }
    }

    private static boolean isVip(SrlbAgent a, long hi, long lo) {
        long[] vh = a.vipHi, vl = a.vipLo;
        for (int j = 0; j < vh.length; j++) {
            if (vl[j] == lo && vh[j] == hi) {
                return true;
            }
        }
        return false;
    }

    /** An SRv6 packet to this agent's SID. @return new frame length, or −1 to drop */
    private int segment(MemorySegment d, long buf, int len, int l3, long dLo, long now) {
        SrlbAgent.Worker s = st;
        SrlbAgent a = agent;
        long p = buf + l3;
        lastKind = KIND_NONE;
        lastChoice = 0;
        if (len - l3 < 48 || Bytes.u8(d, p + 6) != FlowKey.PROTO_ROUTING || Bytes.u8(d, p + 42) != 4) {
            return -1;
        }
        int sl = Bytes.u8(d, p + 43), last = Bytes.u8(d, p + 44);
        int srhBytes = (Bytes.u8(d, p + 41) + 1) * 8;
        int vipIdx = sl - SrlbSid.offset(dLo);
        if (vipIdx < 0 || vipIdx + 1 > last || sl > last || 8 + 16 * (last + 1) > srhBytes || 40
                + srhBytes > len - l3) {
            return -1;
        }
        FlowKey k = s.key;
        if (k.read(d, p, len - l3) != FlowKey.OK) {
            return -1;
        }
        int fn = SrlbSid.function(dLo);
        long vHi = Bytes.i64(d, p + 48 + 16L * vipIdx), vLo = Bytes.i64(d, p + 56 + 16L * vipIdx);
        long lbHi = Bytes.i64(d, p + 64 + 16L * vipIdx), lbLo = Bytes.i64(d, p + 72 + 16L * vipIdx);
        long pw = SrlbFlowTable.portsWord(k.protocol, k.srcPort, k.dstPort);
        long hash = FlowHash.hash(agent.seed, k.srcHi, k.srcLo, vHi, vLo, pw);
        boolean insert = fn != SrlbSid.FN_RECOVER_STICKINESS;
        SrlbFlowTable t = s.table;
        int me = s.core;
        boolean multi = a.owners != null;
        long o = owner(a, t, me, dLo, fn == SrlbSid.FN_ACK_STICKINESS, k.srcHi, k.srcLo, vHi, vLo, pw, hash, now,
                insert);
        int owner = (int) (o >>> 32), slot = (int) o;
        boolean remote = owner != me;
        SrlbFlowTable ot = remote ? a.peers[owner].table : t;
        boolean full = !remote && insert && slot < 0;
        // the owner's generation, read with its state and expiry (opaque reads, unordered among themselves: an old
        // generation with a new state only loses this change, which the flow's next packet hands over again; a new
        // generation with the old life's state reads an expired entry, i.e. no state)
        long gen = remote ? ot.sharedGeneration(slot) : 0;
        int state = slot < 0 ? ServerAgentState.NONE : remote ? ot.sharedState(slot) : t.state(slot);
        long exp = slot < 0 ? now : remote ? ot.sharedExpires(slot) : t.expires(slot);
        int remaining = sl - vipIdx - 2;
        int choice = last - sl;
        double load = fn == SrlbSid.FN_CONNECT_IF_AVAILABLE ? agent.settings.load.load() : 0;
        // candidates in hunting order: Segment List[last], [last − 1], ... down to vip index + 2
        lastCandidates = Math.min(2, last - vipIdx - 1);
        for (int c = 0; c < lastCandidates; c++) {
            cands[2 * c] = Bytes.i64(d, p + 48 + 16L * (last - c));
            cands[2 * c + 1] = Bytes.i64(d, p + 56 + 16L * (last - c));
        }
        lastVipHi = vHi;
        lastVipLo = vLo;
        int before = ServerAgentState.effective(state, exp, now);
        int out = s.machine.onSegment(state, exp, now, fn, remaining, choice, agent.settings.policy, load, full);
        int ns = ServerAgentState.state(out);
        int action = ServerAgentState.action(out);
        int av = agent.vipIndex(vHi, vLo);
        if (av >= 0) { // per-VIP decision counters (SrlbAgent#decisionCounters)
            if (fn == SrlbSid.FN_CONNECT_IF_AVAILABLE && before == ServerAgentState.NONE) {
                s.count(av, LbCounters.NEW_FLOWS);
                if (action == ServerAgentState.DELIVER) {
                    s.count(av, choice == 0 ? LbCounters.FIRST_CHOICE : LbCounters.SECOND_CHOICE);
                } else {
                    s.count(av, LbCounters.REJECTS);
                    if (full) {
                        s.count(av, LbCounters.TABLE_FULL);
                    }
                }
            } else if (action == ServerAgentState.DELIVER) {
                s.count(av, LbCounters.STICKY_HITS);
            }
        }
        lastLoad = load;
        lastChoice = choice + 1;
        if (action == ServerAgentState.DELIVER) {
            int r = s.decap.srhPop(d, buf, len, l3);
            if (r < 0) {
                return -1;
            }
            if (remote) { // the owner applies the change (one writer per table); only when it changes something
                s.count(SrlbAgent.REMOTE);
                if (a.changes(before, ns, exp, s.machine.expiry(ns, now)) || lbHi != ot.sharedSidHi(slot)
                        || lbLo != ot.sharedSidLo(slot)) {
                    a.handOver(s, owner, slot, gen, fn, k.srcHi, k.srcLo, vHi, vLo, pw, hash, lbHi, lbLo, av);
                }
            } else if (slot >= 0) {
                t.set(slot, ns, s.machine.expiry(ns, now));
                t.setServer(slot, -1, lbHi, lbLo);
                if (multi && before == ServerAgentState.NONE) {
                    a.publish(me, slot, hash, now); // after the slot's writes: the index CAS releases them
                }
            }
            if (fn == SrlbSid.FN_CONNECT_IF_AVAILABLE && before == ServerAgentState.NONE) {
                lastKind = choice == 0 ? KIND_ACCEPT_FIRST : KIND_ACCEPT_SECOND;
            }
            return r;
        }
        if (action == ServerAgentState.PASS) {
            lastKind = fn == SrlbSid.FN_CONNECT_IF_AVAILABLE ? KIND_REJECT : KIND_NONE;
            return s.decap.srhAdvance(d, buf, len, l3) < 0 ? -1 : len;
        }
        return -1;
    }

    /** Writes the last SYN decision (accept or pass) as the buffer's LbDecisionCookie. */
    private void cookie(BufferPool pool, int b) {
        io.vecflow.netlink.psample.LbDecisionCookie.Kind kind = switch (lastKind) {
            case KIND_ACCEPT_FIRST -> io.vecflow.netlink.psample.LbDecisionCookie.Kind.SRLB_ACCEPT_FIRST;
            case KIND_ACCEPT_SECOND -> io.vecflow.netlink.psample.LbDecisionCookie.Kind.SRLB_ACCEPT_SECOND;
            default -> io.vecflow.netlink.psample.LbDecisionCookie.Kind.SRLB_REJECT;
        };
        boolean accept = lastKind != KIND_REJECT;
        double m = lastLoad * 1000;
        cookies.srlb(pool, b, kind, lastVipHi, lastVipLo, st.key.protocol, st.key.dstPort,
                accept ? agent.sidHi : 0, accept ? agent.sidLo : 0, cands, lastCandidates, lastChoice,
                Double.isNaN(m) ? 0 : (long) m);
    }

    /**
     * The worker whose table holds the flow and its slot there. One worker: this worker's {@link SrlbFlowTable#slot}.
     * Several ({@link SrlbAgent} "Several workers"): the SID hint ({@code bySid}: an ACK_STICKINESS packet's
     * CORE/ENTRY) or the owner index; else this worker's table (claiming a slot if {@code insert}); and when that has
     * no live entry, a search of the other workers' tables (a slot claimed here then stays expired, i.e. free).
     *
     * @return {@code owner << 32 | slot & 0xFFFF_FFFF}; slot −1 = none (this worker's table had no room or no entry)
     */
    private static long owner(SrlbAgent a, SrlbFlowTable t, int me, long sidLo, boolean bySid, long cHi, long cLo,
            long vHi, long vLo, long pw, long hash, long now, boolean insert) {
        if (a.owners == null) {
            return (long) me << 32 | (t.slot(cHi, cLo, vHi, vLo, pw, hash, now, insert) & 0xFFFF_FFFFL);
        }
        long o = a.locate(me, sidLo, bySid, cHi, cLo, vHi, vLo, pw, hash, now);
        if (o >= 0 && (int) (o >>> 32) != me) {
            return o;
        }
        // found here by the index or the SID hint: an expired entry coming back for insertion starts a new life, as
        // through slot() (else a change decided from its earlier life would still apply to it)
        int slot = o >= 0 ? (insert ? t.renew((int) o, now) : (int) o)
                : t.slot(cHi, cLo, vHi, vLo, pw, hash, now, insert);
        if (slot < 0 || ServerAgentState.effective(t.state(slot), t.expires(slot), now) == ServerAgentState.NONE) {
            long r = a.search(me, cHi, cLo, vHi, vLo, pw, hash, now);
            if (r >= 0) {
                return r;
            }
        }
        return (long) me << 32 | (slot & 0xFFFF_FFFFL);
    }

    /** A packet from the local server (source = a VIP). @return 0 to go on untouched, a frame length, or −1 */
    private int reply(MemorySegment d, long buf, int len, int l3, long now) {
        SrlbAgent.Worker s = st;
        SrlbAgent a = agent;
        long p = buf + l3;
        lastKind = KIND_NONE;
        FlowKey k = s.key;
        if (k.read(d, p, len - l3) != FlowKey.OK) {
            return -1;
        }
        long pw = SrlbFlowTable.portsWord(k.protocol, k.dstPort, k.srcPort);
        long hash = FlowHash.hash(a.seed, k.dstHi, k.dstLo, k.srcHi, k.srcLo, pw);
        SrlbFlowTable t = s.table;
        int me = s.core;
        long o = owner(a, t, me, 0, false, k.dstHi, k.dstLo, k.srcHi, k.srcLo, pw, hash, now, false);
        int owner = (int) (o >>> 32), slot = (int) o;
        boolean remote = owner != me;
        SrlbFlowTable ot = remote ? a.peers[owner].table : t;
        long gen = remote ? ot.sharedGeneration(slot) : 0;
        int state = slot < 0 ? ServerAgentState.NONE : remote ? ot.sharedState(slot) : t.state(slot);
        long exp = slot < 0 ? now : remote ? ot.sharedExpires(slot) : t.expires(slot);
        boolean finOrRst = k.protocol == FlowKey.PROTO_TCP && (k.tcpFlags & (FlowKey.TCP_FIN | FlowKey.TCP_RST)) != 0;
        int out = s.machine.onServerPacket(state, exp, now, finOrRst);
        int ns = ServerAgentState.state(out);
        switch (ServerAgentState.action(out)) {
            case ServerAgentState.DIRECT_TO_CLIENT -> {
                if (remote) {
                    s.count(SrlbAgent.REMOTE);
                }
                return 0;
            }
            case ServerAgentState.VIA_LB -> {
                long lbHi, lbSidLo;
                if (remote) {
                    s.count(SrlbAgent.REMOTE);
                    lbHi = ot.sharedSidHi(slot);
                    lbSidLo = ot.sharedSidLo(slot);
                    int before = ServerAgentState.effective(state, exp, now);
                    if (a.changes(before, ns, exp, s.machine.expiry(ns, now))) {
                        a.handOver(s, owner, slot, gen,
                                SrlbAgent.EVENT_REPLY | (finOrRst ? SrlbAgent.EVENT_FIN_OR_RST : 0), k.dstHi, k.dstLo,
                                k.srcHi, k.srcLo, pw, hash, 0, 0, a.vipIndex(k.srcHi, k.srcLo));
                    }
                } else {
                    t.set(slot, ns, s.machine.expiry(ns, now));
                    lbHi = t.sidHi(slot);
                    lbSidLo = t.sidLo(slot);
                }
                long lbLo = SrlbSid.withFunctionAndOffset(lbSidLo, ServerAgentState.function(out), 0);
                long saLo = a.sidLo | (long) owner << 32 | (slot & 0xFFFF_FFFFL);
                return s.encap.srlbReply(d, buf, len, l3, a.sidHi, saLo, lbHi, lbLo);
            }
            default -> {
                return -1;
            }
        }
    }
}
