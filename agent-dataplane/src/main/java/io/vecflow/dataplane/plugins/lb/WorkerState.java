package io.vecflow.dataplane.plugins.lb;

import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.plugins.lb.encap.Encap;
import io.vecflow.dataplane.plugins.lb.encap.IcmpTooBig;
import io.vecflow.dataplane.plugins.lb.maglev.ConnectionTable;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import io.vecflow.dataplane.plugins.srlb.state.SrlbFlowTable;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One worker's load-balancer state, shared by its {@code lb4} and {@code lb6} nodes (same thread): the Maglev
 * {@link ConnectionTable} (one per worker, paper §3.3), the {@link FlowKey} scratch, the {@link Encap} with the
 * configured outer sources, the {@link IcmpTooBig} builder, per-VIP and per-backend counters, and a cache of the egress
 * MTU toward each backend. Allocates nothing after construction.
 *
 * <p>Counters are written by the worker only (opaque stores) and read by the control thread ({@link LoadBalancer}'s
 * sums).
 */
public final class WorkerState {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    final ConnectionTable table;
    final FlowKey key = new FlowKey();
    /** Per packet of the vector being processed ({@link LbNode}'s first pass): key, hash, Maglev VIP (&lt; 0: none). */
    final FlowKey[] keys = new FlowKey[PacketVector.CAPACITY];
    final long[] hashes = new long[PacketVector.CAPACITY];
    /** Per packet: the connection-table slot {@link ConnectionTable#touch} found in pass 2 (a hint), or NONE. */
    final int[] slots = new int[PacketVector.CAPACITY];
    final int[] vips = new int[PacketVector.CAPACITY];
    /** Keeps {@link ConnectionTable#touch}'s reads observable (never read). */
    long touched;
    final Encap encap;
    final IcmpTooBig icmp;
    /** This worker's decision-cookie writer (Maglev placements). */
    final DecisionCookies cookies = new DecisionCookies();
    /** The SRLB path of this worker (flow table, state machine). */
    final SrlbLb srlb;
    /**
     * Longs of padding before and after each counter array (128 bytes): each worker's arrays are its own, and the
     * padding keeps another object's hot fields — or another worker's counters — off the cache lines (and the
     * adjacent-line prefetch pair) the worker writes.
     */
    public static final int PAD = 16;
    /**
     * Per-VIP counters at {@code PAD + vip * VIP_COUNTERS + c}; per-backend at {@code PAD + b * BACKEND_COUNTERS + c}.
     */
    private final long[] vipCounters = new long[PAD + LoadBalancer.MAX_VIPS * LoadBalancer.VIP_COUNTERS + PAD];
    private final long[] backendCounters =
            new long[PAD + LoadBalancer.MAX_BACKENDS * LoadBalancer.BACKEND_COUNTERS + PAD];
    /** Egress MTU per backend slot (bytes; 0 = no route, not checked), valid when mtuEpoch[b] == epoch. */
    private final int[] mtu = new int[LoadBalancer.MAX_BACKENDS];
    private final int[] mtuEpoch = new int[LoadBalancer.MAX_BACKENDS];
    private int epoch = 1;
    /** Smallest egress MTU over an SRLB VIP's servers (bytes; 0 = none known), valid when vipMtuEpoch[v] == epoch. */
    private final int[] vipMtu = new int[LoadBalancer.MAX_VIPS];
    private final int[] vipMtuEpoch = new int[LoadBalancer.MAX_VIPS];
    private LbSnapshot cachedFor;
    private Forwarding cachedForwarding;

    WorkerState(LoadBalancer lb, int worker, int bufferBytes) {
        LoadBalancer.Settings s = lb.settings();
        this.table = new ConnectionTable(s.flowTableSlots, lb.tcpIdleNanos(), lb.udpIdleNanos(), false);
        this.encap = new Encap(bufferBytes, s.ttl, LoadBalancer.v4(s.ip4Source), LoadBalancer.hi(s.ip6Source),
                LoadBalancer.lo(s.ip6Source));
        this.icmp = new IcmpTooBig(bufferBytes, s.ttl);
        this.srlb = new SrlbLb(lb, worker);
        for (int i = 0; i < keys.length; i++) {
            keys[i] = new FlowKey();
        }
    }

    /** @return this worker's SRLB flow table (diagnostics; written by the worker only) */
    public SrlbFlowTable srlbTable() {
        return srlb.table;
    }

    /** @return this worker's connection table (counters readable from any thread) */
    public ConnectionTable table() {
        return table;
    }

    /** @return this worker's ICMP too-big builder (counters readable from any thread) */
    public IcmpTooBig icmp() {
        return icmp;
    }

    long vipCounter(int vip, int c) {
        return (long) LONGS.getOpaque(vipCounters, PAD + vip * LoadBalancer.VIP_COUNTERS + c);
    }

    long backendCounter(int b, int c) {
        return (long) LONGS.getOpaque(backendCounters, PAD + b * LoadBalancer.BACKEND_COUNTERS + c);
    }

    void addVip(int vip, int c, long n) {
        int i = PAD + vip * LoadBalancer.VIP_COUNTERS + c;
        LONGS.setOpaque(vipCounters, i, (long) LONGS.getOpaque(vipCounters, i) + n);
    }

    void addBackend(int b, int c, long n) {
        int i = PAD + b * LoadBalancer.BACKEND_COUNTERS + c;
        LONGS.setOpaque(backendCounters, i, (long) LONGS.getOpaque(backendCounters, i) + n);
    }

    /** Starts a vector: the MTU cache is dropped when the LB snapshot or the forwarding state changed. */
    void refresh(LbSnapshot s, Forwarding f) {
        if (s != cachedFor || f != cachedForwarding) {
            cachedFor = s;
            cachedForwarding = f;
            epoch++;
        }
    }

    /**
     * @return the L3 MTU (bytes) of the interface the FIB sends backend {@code b} out of, or 0 when no route (the
     *         lookup node then drops the packet as "no route")
     */
    int egressMtu(int b, LbSnapshot s, Forwarding f, InterfaceTable interfaces) {
        if (mtuEpoch[b] == epoch) {
            return mtu[b];
        }
        int adj = s.backend6[b] ? f.fib6().lookup(s.backendHi[b], s.backendLo[b]) : f.fib4().lookup(s.backend4[b]);
        int m = 0;
        if (adj >= 0) {
            int tx = f.adjacencyIfIndex(adj);
            m = interfaces.port(tx) == null ? 0 : interfaces.mtu(tx);
        }
        mtu[b] = m;
        mtuEpoch[b] = epoch;
        return m;
    }

    /**
     * @return the smallest L3 MTU (bytes) of the interfaces the FIB sends SRLB VIP {@code vip}'s servers out of, or 0
     *         when none has a route (cached until the snapshot or the forwarding state changes)
     */
    int srlbMtu(int vip, LbSnapshot s, Forwarding f, InterfaceTable interfaces) {
        if (vipMtuEpoch[vip] == epoch) {
            return vipMtu[vip];
        }
        int m = 0;
        for (int b : s.vipBackends[vip]) {
            int e = egressMtu(b, s, f, interfaces);
            if (e > 0 && (m == 0 || e < m)) {
                m = e;
            }
        }
        vipMtu[vip] = m;
        vipMtuEpoch[vip] = epoch;
        return m;
    }
}
