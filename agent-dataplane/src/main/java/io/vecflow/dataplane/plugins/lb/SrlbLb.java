package io.vecflow.dataplane.plugins.lb;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.mem.Bytes;
import io.vecflow.dataplane.plugins.lb.encap.Decap;
import io.vecflow.dataplane.plugins.lb.encap.Encap;
import io.vecflow.dataplane.plugins.lb.maglev.FlowHash;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import io.vecflow.dataplane.plugins.srlb.state.CandidateTable;
import io.vecflow.dataplane.plugins.srlb.state.LbFlowState;
import io.vecflow.dataplane.plugins.srlb.state.SrlbFlowTable;
import io.vecflow.dataplane.plugins.srlb.state.SrlbSid;
import java.lang.foreign.MemorySegment;

/**
 * The SRLB (6LB) load balancer's packet path for one worker, called by {@code lb6} ({@link LbNode}) for the VIPs with
 * {@code encap srlb} (docs/load-balancing.md §3; Oryon/vpp-dev {@code src/plugins/srlb/srlb-lb-node.c}): a per-worker
 * {@link SrlbFlowTable} driven by the pure {@link LbFlowState} machine (LISTEN → HUNTING → STEER → TEARDOWN; active
 * timeout 40 s, teardown 2 s by default, lazy expiry).
 *
 * <ul>
 *   <li>{@link #client}: a client → VIP packet. No live state: HUNTING, and the hunting SRH
 *       [candidate 1, candidate 2, LB SID, VIP] is inserted ({@link Encap#srlbHunt}; FUNCTION 0x0 on a SYN, 0x1
 *       otherwise), candidates from the VIP's {@link CandidateTable} bucket of the flow hash, LB SID = the VIP's /80
 *       with CORE = this worker and ENTRY = the flow's table slot. STEER/TEARDOWN: [server SID fn 0x2, LB SID, VIP]
 *       to the server that accepted ({@link Encap#srlbToServer}).</li>
 *   <li>{@link #signal}: a server agent's packet to the LB SID, SRH [client, SA SID, LB SID]: FUNCTION 0x8
 *       (CREATE_STICKINESS) → STEER, the server learnt (its SID's /80 among the VIP's servers; the SID's low 64 bits
 *       stored so CORE/ENTRY travel back); 0x9 (DELETE_STICKINESS) → TEARDOWN. The SRH is stripped and the packet
 *       goes on to the client ({@link Decap#srhPop}: destination = Segment List[0]). The ENTRY hint is used when CORE
 *       is this worker and the slot holds the flow, else the table is searched.</li>
 * </ul>
 * Both return the new frame length (the IPv6 header stays at the same offset; the caller sends the packet to
 * {@code ip6-lookup}) or a negative code: {@link #NO_CANDIDATE}, {@link #BAD_SIGNAL}, or an {@link Encap} /
 * {@link Decap} error. Per-VIP counters go to the worker's {@link WorkerState}. The last decision's facts
 * ({@link #lastKind}, {@link #lastChoice}, candidates) stay readable until the next packet, for the sample cookie.
 * Allocation-free.
 *
 * <p><b>Workers.</b> The flow table is per worker and the LB SID carries CORE = the owning worker, as in SRLB. A
 * server signal that the port's receive hashing puts on another worker is handed to the owner ({@link SrlbHandoff}):
 * the packet goes on toward the client from where it arrived, and the state change (STEER with the server, or
 * TEARDOWN) is applied by the owner before its next vector — VPP hands the packet itself over; only the state
 * matters here. Path MTU: {@link LbNode} answers a client packet that would not fit the smallest MTU toward the VIP's
 * servers once steered (+56 bytes of SRH) with an ICMPv6 Packet Too Big from the VIP (RFC 4443 §3.2); a hunt adds 72
 * bytes, so a large non-SYN packet of a flow still hunting can exceed that by 16 bytes and is dropped as
 * {@code mtu exceeded} by ip6-rewrite.
 */
final class SrlbLb {
    /** The VIP has no server. */
    static final int NO_CANDIDATE = -100;
    /** A signal with a function other than 0x8/0x9, or without a usable SRH. */
    static final int BAD_SIGNAL = -101;

    /** Decision kinds of the last packet (LbDecisionCookie kind codes). */
    static final int KIND_NONE = 0, KIND_HUNT = 3, KIND_ACCEPT_FIRST = 4, KIND_ACCEPT_SECOND = 5, KIND_STICKY = 2;

    final SrlbFlowTable table;
    private final LbFlowState machine;
    private final int core;
    private final long seed;
    private final Decap decap = new Decap();
    final int[] ids = new int[CandidateTable.MAX_POOLS];
    private final long[] cands = new long[2 * CandidateTable.MAX_POOLS];
    /** Last packet's decision: kind code, choice index (0 none, 1 first, 2 second), candidates, server slot. */
    int lastKind, lastChoice, lastCandidates, lastServer;
    private long lastVipHi, lastVipLo;
    private int lastProtocol, lastPort;
    private final DecisionCookies cookies = new DecisionCookies();
    private final SrlbHandoff handoff;
    private final long[] handoffRecord = new long[SrlbHandoff.FIELDS];
    private int matchChoice, matchServer;
    private long handedOff, handoffFull, handoffApplied, handoffStale;

    SrlbLb(LoadBalancer lb, int core) {
        LoadBalancer.Settings s = lb.settings();
        this.table = new SrlbFlowTable(s.flowTableSlots);
        this.machine = new LbFlowState(s.srlbActiveTimeoutSeconds * 1_000_000_000L,
                s.srlbTeardownTimeoutSeconds * 1_000_000_000L, new LbFlowState.Counters());
        this.core = core;
        this.seed = lb.seed();
        this.handoff = lb.srlbHandoff();
    }

    /** @return the state machine (its counters are per worker, all VIPs) */
    LbFlowState machine() {
        return machine;
    }

    /**
     * A client packet to SRLB VIP {@code vip}; {@code k} is its key (read by the caller), {@code hash} its flow hash.
     * The SRH goes in with {@code ws.encap}: on success the frame start may have moved back into the
     * {@code headroom} by {@code ws.encap.shift()} bytes (the caller moves the buffer's start).
     *
     * @return new frame length, or a negative code (frame untouched)
     */
    int client(WorkerState ws, LbSnapshot s, int vip, FlowKey k, long hash, long now, MemorySegment d,
            long buf, int headroom, int len, int l3) {
        long pw = k.portsWord();
        int slot = table.slot(k.srcHi, k.srcLo, k.dstHi, k.dstLo, pw, hash, now, true);
        boolean full = slot < 0;
        int st = full ? LbFlowState.LISTEN : table.state(slot);
        long exp = full ? now : table.expires(slot);
        int before = LbFlowState.effective(st, exp, now);
        boolean syn = k.protocol != FlowKey.PROTO_TCP
                || (k.tcpFlags & (FlowKey.TCP_SYN | FlowKey.TCP_ACK)) == FlowKey.TCP_SYN;
        int out = machine.onClientPacket(st, exp, now, syn, full);
        int ns = LbFlowState.state(out);
        long lbLo = LbSnapshot.lbSidLo(vip) | (long) core << 32 | (full ? 0 : slot & 0xFFFF_FFFFL);
        lastChoice = 0;
        lastCandidates = 0;
        int r;
        if (LbFlowState.action(out) == LbFlowState.HUNT) {
            int n = s.cht[vip].candidates(hash, ids);
            if (n == 0) {
                lastKind = KIND_NONE;
                return NO_CANDIDATE;
            }
            for (int i = 0; i < n; i++) {
                cands[2 * i] = s.backendHi[ids[i]];
                cands[2 * i + 1] = s.backendLo[ids[i]];
            }
            r = ws.encap.srlbHunt(d, buf, headroom, len, l3, cands, n, s.srlbSidHi, lbLo,
                    LbFlowState.function(out) == SrlbSid.FN_CONNECT_IF_AVAILABLE);
            if (r < 0) {
                return r;
            }
            lastKind = KIND_HUNT;
            lastCandidates = n;
            lastServer = -1;
            lastVipHi = k.dstHi;
            lastVipLo = k.dstLo;
            lastProtocol = k.protocol;
            lastPort = k.dstPort;
            ws.addVip(vip, LoadBalancer.V_HUNTS, 1);
        } else {
            r = ws.encap.srlbToServer(d, buf, headroom, len, l3, table.sidHi(slot), table.sidLo(slot), s.srlbSidHi,
                    lbLo);
            if (r < 0) {
                return r;
            }
            lastKind = KIND_STICKY;
            lastServer = table.server(slot);
            ws.addVip(vip, LoadBalancer.V_STICKY_HITS, 1);
            if (lastServer >= 0) {
                ws.addBackend(lastServer, LoadBalancer.B_STICKY_HITS, 1);
            }
        }
        if (full) {
            ws.addVip(vip, LoadBalancer.V_TABLE_FULL, 1);
        } else {
            if (before == LbFlowState.LISTEN) {
                ws.addVip(vip, LoadBalancer.V_NEW_FLOWS, 1);
            }
            table.set(slot, ns, machine.expiry(ns, now));
        }
        ws.addVip(vip, LoadBalancer.V_PACKETS, 1);
        ws.addVip(vip, LoadBalancer.V_BYTES, len);
        return r;
    }

    /**
     * Writes the last packet's decision — a hunt, or the first accept of a flow — as the buffer's
     * {@link io.vecflow.netlink.psample.LbDecisionCookie} (other packets carry none). Call right after a successful
     * {@link #client} / {@link #signal} for that buffer.
     */
    void cookie(BufferPool pool, int buffer, LbSnapshot s) {
        io.vecflow.netlink.psample.LbDecisionCookie.Kind kind = switch (lastKind) {
            case KIND_HUNT -> io.vecflow.netlink.psample.LbDecisionCookie.Kind.SRLB_HUNT;
            case KIND_ACCEPT_FIRST -> io.vecflow.netlink.psample.LbDecisionCookie.Kind.SRLB_ACCEPT_FIRST;
            case KIND_ACCEPT_SECOND -> io.vecflow.netlink.psample.LbDecisionCookie.Kind.SRLB_ACCEPT_SECOND;
            default -> null;
        };
        if (kind == null) {
            return;
        }
        long beHi = lastServer >= 0 ? s.backendHi[lastServer] : 0, beLo = lastServer >= 0 ? s.backendLo[lastServer] : 0;
        cookies.srlb(pool, buffer, kind, lastVipHi, lastVipLo, lastProtocol, lastPort, beHi, beLo, cands,
                lastCandidates, lastChoice, 0);
    }

    /**
     * A server agent's signal to the LB SID of SRLB VIP {@code vip} (the packet's destination); {@code k} is the
     * packet's key as read (source = the VIP, ports seen from the server).
     *
     * @return new frame length, or a negative code (frame untouched)
     */
    int signal(WorkerState ws, LbSnapshot s, int vip, FlowKey k, long now, MemorySegment d, long buf,
            int len, int l3) {
        long p = buf + l3;
        lastKind = KIND_NONE;
        lastChoice = 0;
        lastCandidates = 0;
        if (len - l3 < 40 + 8 + 32 || Bytes.u8(d, p + 6) != FlowKey.PROTO_ROUTING || Bytes.u8(d, p + 42) != 4
                || Bytes.u8(d, p + 44) < 1) {
            ws.addVip(vip, LoadBalancer.V_BAD_SIGNAL, 1);
            return BAD_SIGNAL;
        }
        long dstLo = Bytes.i64(d, p + 32);
        int fn = SrlbSid.function(dstLo);
        long cHi = Bytes.i64(d, p + 48), cLo = Bytes.i64(d, p + 56); // Segment List[0]: the client
        long saHi = Bytes.i64(d, p + 64), saLo = Bytes.i64(d, p + 72); // [1]: the server agent's SID
        long pw = SrlbFlowTable.portsWord(k.protocol, k.dstPort, k.srcPort);
        long hash = FlowHash.hash(seed, cHi, cLo, k.srcHi, k.srcLo, pw);
        int hint = (int) dstLo;
        int owner = SrlbSid.core(dstLo);
        if (fn != SrlbSid.FN_CREATE_STICKINESS
                && fn != SrlbSid.FN_DELETE_STICKINESS) {
            machine.onServerSignal(LbFlowState.LISTEN, now, now, fn, -1, false); // counts the bad function
            ws.addVip(vip, LoadBalancer.V_BAD_SIGNAL, 1);
            return BAD_SIGNAL;
        }
        int n = match(s, vip, hash, saHi, saLo);
        int choice = matchChoice, server = matchServer;
        int r = decap.srhPop(d, buf, len, l3);
        if (r < 0) {
            ws.addVip(vip, LoadBalancer.V_BAD_SIGNAL, 1);
            return BAD_SIGNAL;
        }
        boolean create = fn == SrlbSid.FN_CREATE_STICKINESS;
        if (owner != core && handoff != null && owner < handoff.workers()) {
            if (handoff.offer(owner, cHi, cLo, k.srcHi, k.srcLo, pw, SrlbHandoff.meta(hint, fn, choice, vip), saHi,
                    saLo, hash, server, 0)) {
                handedOff++;
                if (create && choice >= 0) { // the owner counts it; the decision rides on this packet's sample
                    remember(s, k, n, choice, server);
                }
                return r;
            }
            handoffFull++; // the owner's inbox is full: keep the state here, as without handoff
        }
        int slot = owner == core && table.matches(hint, cHi, cLo, k.srcHi, k.srcLo, pw) ? hint
                : table.slot(cHi, cLo, k.srcHi, k.srcLo, pw, hash, now, true);
        int before = apply(ws, s, vip, slot, now, fn, choice, server, saHi, saLo);
        if (create && slot >= 0 && (before == LbFlowState.LISTEN || before == LbFlowState.HUNTING)) {
            remember(s, k, n, choice, server);
        }
        return r;
    }

    /** Candidates of the flow ({@link #ids}); sets {@link #matchChoice} and {@link #matchServer} for the SA SID. */
    private int match(LbSnapshot s, int vip, long hash, long saHi, long saLo) {
        int choice = -1, server = -1;
        int n = s.cht[vip].candidates(hash, ids);
        for (int i = 0; i < n && choice < 0; i++) {
            if (SrlbSid.samePrefix(s.backendHi[ids[i]], s.backendLo[ids[i]], saHi, saLo)) {
                choice = i;
                server = ids[i];
            }
        }
        int[] all = s.vipBackends[vip];
        for (int i = 0; server < 0 && i < all.length; i++) {
            if (SrlbSid.samePrefix(s.backendHi[all[i]], s.backendLo[all[i]], saHi, saLo)) {
                server = all[i];
            }
        }
        matchChoice = choice;
        matchServer = server;
        return n;
    }

    /** The accept decision's facts for the sample cookie of this packet. */
    private void remember(LbSnapshot s, FlowKey k, int n, int choice, int server) {
        lastKind = choice < 0 ? KIND_NONE : choice == 0 ? KIND_ACCEPT_FIRST : KIND_ACCEPT_SECOND;
        lastChoice = choice + 1;
        lastCandidates = n;
        lastServer = server;
        for (int i = 0; i < n; i++) {
            cands[2 * i] = s.backendHi[ids[i]];
            cands[2 * i + 1] = s.backendLo[ids[i]];
        }
        lastVipHi = k.srcHi;
        lastVipLo = k.srcLo;
        lastProtocol = k.protocol;
        lastPort = k.srcPort;
    }

    /**
     * Applies a CREATE/DELETE_STICKINESS signal to the flow in {@code slot} (−1: the table had no room) and counts
     * it; {@link #ids} must hold the flow's candidates.
     *
     * @return the flow's effective state before the signal
     */
    private int apply(WorkerState ws, LbSnapshot s, int vip, int slot, long now, int fn, int choice,
            int server, long saHi, long saLo) {
        boolean full = slot < 0;
        int st = full ? LbFlowState.LISTEN : table.state(slot);
        long exp = full ? now : table.expires(slot);
        int before = LbFlowState.effective(st, exp, now);
        int out = machine.onServerSignal(st, exp, now, fn, choice, full);
        int ns = LbFlowState.state(out);
        boolean create = fn == SrlbSid.FN_CREATE_STICKINESS;
        if (!full) {
            table.set(slot, ns, machine.expiry(ns, now));
            if (create && ns == LbFlowState.STEER) {
                table.setServer(slot, server, saHi, saLo);
            }
        }
        if (create && !full && (before == LbFlowState.LISTEN || before == LbFlowState.HUNTING)) {
            ws.addVip(vip, choice == 0 ? LoadBalancer.V_FIRST_CHOICE : choice > 0 ? LoadBalancer.V_SECOND_CHOICE
                    : LoadBalancer.V_OTHER_ACCEPT, 1);
            if (server >= 0) {
                ws.addBackend(server, LoadBalancer.B_NEW_FLOWS, 1);
                if (choice >= 0) {
                    ws.addBackend(server, choice == 0 ? LoadBalancer.B_FIRST_CHOICE : LoadBalancer.B_SECOND_CHOICE, 1);
                }
            }
            // docs/load-balancing.md §3 step 2: the candidates before the accepting one refused the flow
            if (choice > 0) {
                ws.addVip(vip, LoadBalancer.V_REJECTS, choice);
                for (int i = 0; i < choice; i++) {
                    ws.addBackend(ids[i], LoadBalancer.B_REJECTS, 1);
                }
            }
        } else if (fn == SrlbSid.FN_DELETE_STICKINESS && before != LbFlowState.TEARDOWN) {
            ws.addVip(vip, LoadBalancer.V_TEARDOWNS, 1);
        }
        if (full) {
            ws.addVip(vip, LoadBalancer.V_TABLE_FULL, 1);
            if (server >= 0) {
                ws.addBackend(server, LoadBalancer.B_TABLE_FULL, 1);
            }
        }
        return before;
    }

    /**
     * The owner's side of the handoff: applies the signals other workers received for flows in this worker's table
     * (call at the start of each lb6 vector, before any packet). Records for a VIP that is gone or a flow no longer
     * in the table are counted and dropped.
     */
    void drainHandoff(WorkerState ws, LbSnapshot s, long now) {
        if (handoff == null) {
            return;
        }
        long[] rec = handoffRecord;
        while (handoff.poll(core, rec)) {
            long meta = rec[SrlbHandoff.META];
            int hint = (int) (meta >>> 32), fn = (int) (meta >>> 24) & 0xFF, choice = ((int) (meta >>> 16) & 0xFF) - 1;
            int vip = (int) meta & 0xFFFF;
            if (vip >= s.encap.length || s.encap[vip] != LoadBalancer.E_SRLB || s.cht[vip] == null) {
                handoffStale++;
                continue;
            }
            long cHi = rec[SrlbHandoff.C_HI], cLo = rec[SrlbHandoff.C_LO], vHi = rec[SrlbHandoff.V_HI];
            long vLo = rec[SrlbHandoff.V_LO], pw = rec[SrlbHandoff.PORTS], hash = rec[SrlbHandoff.HASH];
            int slot = table.matches(hint, cHi, cLo, vHi, vLo, pw) ? hint
                    : table.slot(cHi, cLo, vHi, vLo, pw, hash, now, false);
            if (slot < 0) {
                handoffStale++;
                continue;
            }
            int server = (int) rec[SrlbHandoff.SERVER];
            if (server >= s.backendHi.length) {
                server = -1;
            }
            s.cht[vip].candidates(hash, ids);
            apply(ws, s, vip, slot, now, fn, choice, server, rec[SrlbHandoff.SA_HI], rec[SrlbHandoff.SA_LO]);
            handoffApplied++;
        }
    }

    /** @return signals handed to their owner worker, owner inbox full (kept here), applied here, stale (dropped) */
    long[] handoffCounters() {
        return new long[] {handedOff, handoffFull, handoffApplied, handoffStale};
    }
}
