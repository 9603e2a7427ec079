package io.vecflow.dataplane.plugins.lb;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.FeatureArc;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.graph.mem.Bytes;
import io.vecflow.dataplane.plugins.lb.encap.Encap;
import io.vecflow.dataplane.plugins.lb.encap.IcmpTooBig;
import io.vecflow.dataplane.plugins.lb.maglev.ConnectionTable;
import io.vecflow.dataplane.plugins.lb.maglev.FlowHash;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import io.vecflow.dataplane.plugins.lb.maglev.MaglevTable;
import io.vecflow.dataplane.plugins.srlb.state.SrlbFlowTable;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.error.ErrorDropNode;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.dataplane.vnet.ip.IpLookupNode;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code lb4} / {@code lb6}: the Maglev load balancer as a feature on the {@code ip4-unicast} / {@code ip6-unicast}
 * arc (the model is VPP's lb plugin, FDio/vpp {@code src/plugins/lb/node.c}; Maglev, Eisenbud et al. NSDI'16 §3).
 * Per packet:
 * <ol>
 *   <li>Destination outside every VIP prefix: on along the arc, untouched.</li>
 *   <li>Inside a VIP prefix but no VIP for its protocol/port (only per-port VIPs cover it): error-drop
 *       {@link DropReason#LB_NO_VIP}. A 5-tuple that cannot be read (ports cut off): error-drop
 *       {@link DropReason#IP4_BAD_HEADER} / {@link DropReason#IP6_BAD_HEADER}.</li>
 *   <li>The backend: {@link ConnectionTable#select} on the worker's table — a tracked flow keeps its backend (sticky
 *       hit), a new flow takes {@code ring[hash mod M]} of the VIP's {@link MaglevTable} and is inserted (or, table
 *       full, forwarded untracked). No backend: error-drop {@link DropReason#LB_NO_BACKEND}.</li>
 *   <li>Path MTU: if the inner IP packet plus the encapsulation overhead exceeds the L3 MTU of the interface the FIB
 *       sends the backend out of, {@link IcmpTooBig} turns the packet into an ICMP fragmentation-needed / Packet Too
 *       Big reply from the VIP (RFC 1191, RFC 4443 §3.2), which goes to the inner family's lookup node and leaves by
 *       the normal path (back toward the client); packets that may not get one (DF clear, ICMP errors, ...) go to
 *       error-drop {@link DropReason#MTU_EXCEEDED}.</li>
 *   <li>{@link Encap}: gre4, gre6, ipip (IPv4 or IPv6 outer per the backend) or srv6 (H.Encaps, one-segment SRH) with
 *       the configured outer source; {@link BufferPool#l3Offset} = 14 and the ethertype set for the outer header, then
 *       to {@code ip4-lookup} or {@code ip6-lookup} of the <em>outer</em> family, which forwards to the backend (the
 *       rest of the arc is skipped, as VPP's lb node goes straight to lookup).</li>
 * </ol>
 * VIPs with {@code encap srlb} (IPv6) and packets to an SRLB VIP's LB SID /80 take the SRLB path instead
 * ({@link SrlbLb}: hunting SRH on a new flow, server signals learnt and stripped, steered packets; then to
 * {@code ip6-lookup}), writing a decision cookie onto hunts and learnt accepts; a Maglev packet that places a new
 * flow carries a {@code maglev_new} cookie.
 * Counters per VIP (packets, bytes = received frame bytes, new flows, sticky hits, table full, no backend, too big)
 * and per backend (packets, bytes, new flows, sticky hits, table full) live in the worker's {@link WorkerState}.
 *
 * <p>Reads the {@link LoadBalancer}'s snapshot and the forwarding state once per vector; allocates nothing. A vector
 * is processed in four passes (VPP's lb node prefetches its sticky-table bucket the same way): the 5-tuple, VIP and
 * hash of every Maglev packet; then {@link ConnectionTable#touchTags} of all their hashes (the two bucket lines of
 * each, loads independent of each other), then {@link ConnectionTable#touch} (the record line each tag points at), so
 * that the vector's table cache misses are in flight together (at 100k–1M flows the table does not fit in the
 * caches); then the decisions, rewrites and counters in packet order, with the keys, hashes and found slots of the
 * earlier passes (nothing is computed or searched twice). The encapsulation prepends its headers into the buffer's
 * headroom ({@link BufferPool#advance}).
 */
public final class LbNode extends Node {
    /** IPv4 node name (feature on ip4-unicast). */
    public static final String IP4 = "lb4";
    /** IPv6 node name (feature on ip6-unicast). */
    public static final String IP6 = "lb6";
    private static final int NEXT_LOOKUP4 = 0, NEXT_LOOKUP6 = 1, NEXT_DROP = 2;
    /** {@link #classify} verdicts other than a VIP. */
    private static final int NOT_A_VIP = -1, OTHER = -2;
    /** classify() code of SRLB VIP {@code v}: {@code SRLB_VIP - v} (below every other code). */
    private static final int SRLB_VIP = -3;

    private final boolean ip6;
    private final LoadBalancer lb;
    private final WorkerState st;
    private final FeatureArc arc;
    private final int position;
    private final AtomicReference<Forwarding> forwarding;
    private final InterfaceTable interfaces;
    private final long seed;
    private final java.util.function.LongSupplier clock;

    /**
     * @param ip6 true for lb6
     * @param lb the load balancer
     * @param st this worker's LB state (shared with the other family's node)
     * @param arc the ip4-unicast or ip6-unicast arc this node is a feature of
     * @param forwarding the forwarding state (egress MTU toward backends)
     * @param interfaces MTUs
     */
    public LbNode(boolean ip6, LoadBalancer lb, WorkerState st, FeatureArc arc, AtomicReference<Forwarding> forwarding,
            InterfaceTable interfaces) {
        super(ip6 ? IP6 : IP4, IpLookupNode.IP4, IpLookupNode.IP6, ErrorDropNode.NAME);
        this.ip6 = ip6;
        this.lb = lb;
        this.st = st;
        this.arc = arc;
        this.position = arc.position(ip6 ? IP6 : IP4);
        this.forwarding = forwarding;
        this.interfaces = interfaces;
        this.seed = lb.seed();
        this.clock = lb.settings().clock;
    }

    /** @return this worker's LB state */
    public WorkerState state() {
        return st;
    }

    @Override
    protected void process(Worker w, PacketVector v) {
        BufferPool pool = w.pool();
        MemorySegment d = pool.data();
        LbSnapshot s = lb.snapshot();
        Forwarding f = forwarding.get();
        st.refresh(s, f);
        long now = clock.getAsLong();
        if (ip6) {
            st.srlb.drainHandoff(st, s, now); // SRLB signals other workers received for this worker's flows
        }
        WorkerState ws = st;
        int n = v.count;
        // Pass 1: key, VIP and hash of every Maglev and SRLB client packet (reads only); passes 2 and 3: their
        // connection-table bucket lines, then record lines (or SRLB flow-table lines), read for the whole vector at
        // once, so that the cache misses overlap; pass 4: decisions and rewrites, in order.
        int[] vips = ws.vips;
        long[] hashes = ws.hashes;
        int[] slots = ws.slots;
        FlowKey[] keys = ws.keys;
        ConnectionTable table = ws.table;
        for (int i = 0; i < n; i++) {
            vips[i] = classify(d, pool, v.buffers[i], s, keys[i]);
            if (vips[i] >= 0 || vips[i] <= SRLB_VIP) {
                hashes[i] = FlowHash.hash(seed, keys[i]);
            }
        }
        long touched = 0;
        SrlbFlowTable srlbTable = ws.srlb.table;
        for (int i = 0; i < n; i++) {
            if (vips[i] >= 0) {
                touched += table.touchTags(hashes[i]); // stage 1: every tag word in flight at once
            }
        }
        for (int i = 0; i < n; i++) {
            if (vips[i] >= 0) {
                touched ^= table.touch(hashes[i]); // stage 2: the record lines behind them
                slots[i] = table.touchedSlot();
            } else if (vips[i] <= SRLB_VIP) {
                touched ^= srlbTable.touch(hashes[i]);
            }
        }
        ws.touched = touched;
        int drop = next(NEXT_DROP);
        for (int i = 0; i < n; i++) {
            int b = v.buffers[i];
            if (vips[i] >= 0) {
                maglev(w, pool, d, s, f, b, keys[i], hashes[i], slots[i], vips[i], now, drop);
            } else if (vips[i] <= SRLB_VIP) {
                srlbClient(w, pool, d, s, f, b, keys[i], hashes[i], SRLB_VIP - vips[i], now, drop);
            } else if (vips[i] == NOT_A_VIP) {
                arc.next(w, b, pool.rxIfIndex[b], position); // outside every VIP prefix: on along the arc
            } else {
                other(w, pool, d, s, f, b, now, drop);
            }
        }
    }

    /**
     * Pass 1 of {@link #process}: fills {@code k} and returns the VIP when the packet is for a Maglev (not SRLB) VIP
     * and its 5-tuple reads; {@link #NOT_A_VIP} when its destination is outside every VIP prefix (and not an SRLB LB
     * SID); {@link #OTHER} for everything else (left to {@link #other}). Reads only.
     */
    private int classify(MemorySegment d, BufferPool pool, int b, LbSnapshot s, FlowKey k) {
        int l3 = pool.l3Offset[b];
        long base = pool.offset(b) + l3;
        int at;
        if (ip6) {
            long dHi = Bytes.i64(d, base + 24), dLo = Bytes.i64(d, base + 32);
            if (s.srlbVipOfSid(dHi, dLo) >= 0) {
                return OTHER;
            }
            at = s.prefix6(dHi, dLo);
        } else {
            at = s.prefix4(Bytes.i32(d, base + 16));
        }
        if (at < 0) {
            return NOT_A_VIP;
        }
        if (k.read(d, base, pool.length[b] - l3) != FlowKey.OK) {
            return OTHER;
        }
        int vip = ip6 ? s.vip6(at, k.dstHi, k.dstLo, k.protocol, k.dstPort)
                : s.vip4(at, k.dstIpv4(), k.protocol, k.dstPort);
        return vip < 0 ? OTHER : s.encap[vip] == LoadBalancer.E_SRLB ? SRLB_VIP - vip : vip;
    }

    /** A packet {@link #classify} left: an SRLB LB SID or VIP, an unreadable 5-tuple, or no VIP for its port. */
    private void other(Worker w, BufferPool pool, MemorySegment d, LbSnapshot s, Forwarding f, int b,
            long now, int drop) {
        WorkerState ws = st;
        FlowKey k = ws.key;
        int l3 = pool.l3Offset[b];
        int len = pool.length[b];
        long buf = pool.offset(b);
        long base = buf + l3;
        int at;
        if (ip6) {
            long dHi = Bytes.i64(d, base + 24), dLo = Bytes.i64(d, base + 32);
            int sidVip = s.srlbVipOfSid(dHi, dLo);
            if (sidVip >= 0) {
                if (k.read(d, base, len - l3) != FlowKey.OK) {
                    pool.dropReason[b] = DropReason.IP6_BAD_HEADER.ordinal();
                    w.enqueue(drop, b, 0);
                    return;
                }
                int r = ws.srlb.signal(ws, s, sidVip, k, now, d, buf, len, l3);
                if (r >= 0) {
                    ws.srlb.cookie(pool, b, s);
                }
                srlbDone(w, pool, b, r, drop);
                return;
            }
            at = s.prefix6(dHi, dLo);
        } else {
            at = s.prefix4(Bytes.i32(d, base + 16));
        }
        if (at < 0) {
            arc.next(w, b, pool.rxIfIndex[b], position);
            return;
        }
        if (k.read(d, base, len - l3) != FlowKey.OK) {
            pool.dropReason[b] = (ip6 ? DropReason.IP6_BAD_HEADER : DropReason.IP4_BAD_HEADER).ordinal();
            w.enqueue(drop, b, 0);
            return;
        }
        int vip = ip6 ? s.vip6(at, k.dstHi, k.dstLo, k.protocol, k.dstPort)
                : s.vip4(at, k.dstIpv4(), k.protocol, k.dstPort);
        if (vip < 0) {
            pool.dropReason[b] = DropReason.LB_NO_VIP.ordinal();
            w.enqueue(drop, b, 0);
            return;
        }
        long hash = FlowHash.hash(seed, k);
        if (s.encap[vip] == LoadBalancer.E_SRLB) {
            srlbClient(w, pool, d, s, f, b, k, hash, vip, now, drop); // classify takes these; kept for completeness
            return;
        }
        maglev(w, pool, d, s, f, b, k, hash, ConnectionTable.NONE, vip, now, drop); // classify takes these; kept
    }

    /** A client packet to SRLB VIP {@code vip} with its key and hash: path MTU, then hunt or steer (SrlbLb). */
    private void srlbClient(Worker w, BufferPool pool, MemorySegment d, LbSnapshot s, Forwarding f, int b,
            FlowKey k, long hash, int vip, long now, int drop) {
        WorkerState ws = st;
        int l3 = pool.l3Offset[b];
        int len = pool.length[b];
        long buf = pool.offset(b);
        // path MTU toward the servers: a steered packet gains the SRH [server, LB SID, VIP] (56 bytes)
        if (tooBig(w, pool, d, b, buf, len, l3, ws.srlbMtu(vip, s, f, interfaces), Encap.srlbSrhBytes(1), vip,
                drop)) {
            return;
        }
        int r = ws.srlb.client(ws, s, vip, k, hash, now, d, buf, pool.headroom(b), len, l3);
        if (r == SrlbLb.NO_CANDIDATE) {
            ws.addVip(vip, LoadBalancer.V_NO_BACKEND, 1);
        } else if (r >= 0) {
            pool.advance(b, ws.encap.shift()); // the SRH went in by moving the headers back into the headroom
            ws.srlb.cookie(pool, b, s);
        }
        srlbDone(w, pool, b, r, drop);
    }

    /**
     * A Maglev VIP's packet with its key, hash and the slot pass 2 found ({@code hint}, or NONE): backend, path MTU,
     * encapsulation, counters, next node.
     */
    private void maglev(Worker w, BufferPool pool, MemorySegment d, LbSnapshot s, Forwarding f, int b,
            FlowKey k, long hash, int hint, int vip, long now, int drop) {
        WorkerState ws = st;
        ConnectionTable table = ws.table;
        int l3 = pool.l3Offset[b];
        int len = pool.length[b];
        long buf = pool.offset(b);
        int be = table.select(k, hash, hint, now, s.ring[vip], s.generation);
        if (be < 0) {
            ws.addVip(vip, LoadBalancer.V_NO_BACKEND, 1);
            pool.dropReason[b] = DropReason.LB_NO_BACKEND.ordinal();
            w.enqueue(drop, b, 0);
            return;
        }
        int outcome = table.lastOutcome();
        int enc = s.encap[vip];
        boolean outer6 = enc == LoadBalancer.E_GRE6 || enc == LoadBalancer.E_SRV6
                || (enc == LoadBalancer.E_IPIP && s.backend6[be]);
        int overhead = switch (enc) {
            case LoadBalancer.E_GRE4 -> Encap.GRE4_OVERHEAD;
            case LoadBalancer.E_GRE6 -> Encap.GRE6_OVERHEAD;
            case LoadBalancer.E_SRV6 -> Encap.SRV6_ENCAPS_OVERHEAD;
            default -> outer6 ? Encap.IPIP6_OVERHEAD : Encap.IPIP4_OVERHEAD;
        };
        if (tooBig(w, pool, d, b, buf, len, l3, ws.egressMtu(be, s, f, interfaces), overhead, vip, drop)) {
            return;
        }
        int room = pool.headroom(b);
        Encap e = ws.encap;
        int r = switch (enc) {
            case LoadBalancer.E_GRE4 -> e.gre4(d, buf, room, len, l3, s.backend4[be]);
            case LoadBalancer.E_GRE6 -> e.gre6(d, buf, room, len, l3, s.backendHi[be], s.backendLo[be], hash);
            case LoadBalancer.E_SRV6 -> e.srv6Encaps(d, buf, room, len, l3, s.backendHi[be], s.backendLo[be], hash);
            default -> outer6 ? e.ipip6(d, buf, room, len, l3, s.backendHi[be], s.backendLo[be], hash)
                    : e.ipip4(d, buf, room, len, l3, s.backend4[be]);
        };
        if (r < 0) {
            // the buffer cannot hold the encapsulated packet, or the inner lengths are inconsistent
            pool.dropReason[b] = (r == Encap.ERR_NO_ROOM ? DropReason.MTU_EXCEEDED
                    : ip6 ? DropReason.IP6_BAD_HEADER : DropReason.IP4_BAD_HEADER).ordinal();
            w.enqueue(drop, b, 0);
            return;
        }
        ws.addVip(vip, LoadBalancer.V_PACKETS, 1);
        ws.addVip(vip, LoadBalancer.V_BYTES, len);
        ws.addBackend(be, LoadBalancer.B_PACKETS, 1);
        ws.addBackend(be, LoadBalancer.B_BYTES, len);
        if (outcome == ConnectionTable.HITS) {
            ws.addVip(vip, LoadBalancer.V_STICKY_HITS, 1);
            ws.addBackend(be, LoadBalancer.B_STICKY_HITS, 1);
        } else if (outcome == ConnectionTable.INSERTS || outcome == ConnectionTable.RESELECTED) {
            ws.addVip(vip, LoadBalancer.V_NEW_FLOWS, 1);
            ws.addBackend(be, LoadBalancer.B_NEW_FLOWS, 1);
            ws.cookies.maglev(pool, b, ip6, k.dstIpv4(), k.dstHi, k.dstLo, k.protocol, k.dstPort, s.backend6[be],
                    s.backend4[be], s.backendHi[be], s.backendLo[be]); // the placement rides on this packet's sample
        } else if (outcome == ConnectionTable.FULL) {
            ws.addVip(vip, LoadBalancer.V_TABLE_FULL, 1);
            ws.addBackend(be, LoadBalancer.B_TABLE_FULL, 1);
        }
        pool.advance(b, e.shift()); // headers prepended into the headroom: the frame now starts earlier
        pool.length[b] = r;
        pool.l3Offset[b] = Encap.ETHERNET_HEADER;
        pool.etherType[b] = outer6 ? Encap.ETHERTYPE_IPV6 : Encap.ETHERTYPE_IPV4;
        w.enqueue(next(outer6 ? NEXT_LOOKUP6 : NEXT_LOOKUP4), b, 0);
    }

    /**
     * Path MTU: if the IP packet plus {@code overhead} exceeds {@code mtu} (0 = unknown, not checked), the packet
     * becomes the ICMP fragmentation-needed / Packet Too Big reply from the VIP and goes back toward the client, or is
     * dropped as {@code mtu exceeded} when it may not get one; either way counted on the VIP.
     *
     * @return true if the packet was taken (reply or drop)
     */
    private boolean tooBig(Worker w, BufferPool pool, MemorySegment d, int b, long buf, int len, int l3, int mtu,
            int overhead, int vip, int drop) {
        if (mtu <= 0 || len - l3 + overhead <= mtu) {
            return false; // unknown MTU, or even the whole frame after l3 fits (the IP packet is no longer)
        }
        WorkerState ws = st;
        int c = ws.icmp.check(d, buf, len, l3, mtu, overhead);
        if (c == 0) {
            return false;
        }
        ws.addVip(vip, LoadBalancer.V_TOO_BIG, 1);
        if (c > 0) {
            pool.length[b] = c;
            w.enqueue(next(ip6 ? NEXT_LOOKUP6 : NEXT_LOOKUP4), b, 0);
        } else {
            pool.dropReason[b] = DropReason.MTU_EXCEEDED.ordinal();
            w.enqueue(drop, b, 0);
        }
        return true;
    }

    /** An SRLB packet's result: a frame length → ip6-lookup (the IPv6 header stays at l3); a code → error-drop. */
    private void srlbDone(Worker w, BufferPool pool, int b, int r, int drop) {
        if (r < 0) {
            pool.dropReason[b] = (r == SrlbLb.NO_CANDIDATE ? DropReason.LB_NO_BACKEND
                    : r == Encap.ERR_NO_ROOM ? DropReason.MTU_EXCEEDED : DropReason.SRLB_REJECTED).ordinal();
            w.enqueue(drop, b, 0);
            return;
        }
        pool.length[b] = r;
        w.enqueue(next(NEXT_LOOKUP6), b, 0);
    }
}
