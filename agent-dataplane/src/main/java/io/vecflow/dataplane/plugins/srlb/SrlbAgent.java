package io.vecflow.dataplane.plugins.srlb;

import io.vecflow.dataplane.plugins.lb.LoadBalancer;
import io.vecflow.dataplane.plugins.lb.SrlbHandoff;
import io.vecflow.dataplane.plugins.lb.WorkerState;
import io.vecflow.dataplane.plugins.lb.encap.Decap;
import io.vecflow.dataplane.plugins.lb.encap.Encap;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import io.vecflow.dataplane.plugins.srlb.load.AcceptPolicy;
import io.vecflow.dataplane.plugins.srlb.load.LoadSource;
import io.vecflow.dataplane.plugins.srlb.load.SettableLoadSource;
import io.vecflow.dataplane.plugins.srlb.state.ServerAgentState;
import io.vecflow.dataplane.plugins.srlb.state.SrlbFlowTable;
import io.vecflow.dataplane.plugins.srlb.state.SrlbSid;
import io.vecflow.dataplane.sflow.LbCounterSource;
import io.vecflow.netlink.vpp.LbCounters;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The SRLB server agent's control side (docs/load-balancing.md §3; Oryon/vpp-dev {@code srlb-sa.c}): one application
 * instance — its SID /80, the VIPs its server answers from, the connect-if-available {@link AcceptPolicy} and the
 * {@link LoadSource} it reads — and the per-worker state of the {@link SrlbAgentNode}s (flow table, state machine,
 * counters). Runs on a server's own dataplane, in front of the server's network stack.
 *
 * <p><b>Several workers.</b> Each worker owns a flow table with one writer (SRLB's tables are per core). A connection
 * lives in the table of the worker that accepted its hunting SYN, and the SA SID the agent signals names that worker
 * (CORE) and slot (ENTRY). The port spreads a connection's packets over workers by a hash of its own (AF_PACKET
 * fanout, RSS; the SYN's outer destination is this SID, the replies' source the VIP), so the server's replies, the
 * LB's ACK_STICKINESS packets, a retransmitted SYN, a RECOVER_STICKINESS or a FIN can arrive on another worker. That
 * worker
 * <ol>
 *   <li>finds the owner: the SID's CORE/ENTRY (ACK_STICKINESS), else the shared {@link SrlbOwnerIndex} (flow hash →
 *       worker, slot; the owner writes it when it accepts), else its own table, else a search of the other tables
 *       ({@link #locate}, {@link #search});</li>
 *   <li>reads the owner's entry ({@code SrlbFlowTable.shared*}: opaque reads of a table it does not write), runs the
 *       same {@link ServerAgentState} transition, counts it, and sends the packet itself;</li>
 *   <li>hands the resulting state change, if any, to the owner through {@link SrlbHandoff} (one bounded MPSC inbox
 *       per worker): a new state (WAIT → DIRECT, → TEARDOWN), a new LB SID (RECOVER_STICKINESS after the LB lost its
 *       state), or an expiry that moves by at least a quarter of the state's timeout ({@link #changes}). The owner
 *       applies it with its own clock and entry in its {@link SrlbAgentHandoffNode}, at the start of its next
 *       dispatch round.</li>
 * </ol>
 * Why not the alternatives: handing the packet itself to the owner (VPP's handoff) needs a copy of every such packet,
 * since buffers belong to a worker's {@code BufferPool} — and most of them are the server's DIRECT data, which changes
 * no state; one table written by every worker would need atomic updates of multi-word entries. This way every table
 * keeps one writer, the packet path allocates nothing, and a packet on a non-owner costs one index line and the
 * owner's entry.
 *
 * <p>Memory ordering: the owner writes its entry (key, state, expiry, LB SID) with plain stores, then
 * compare-and-sets the index entry (volatile: a release); readers load index entries with acquire, so they see at
 * least the entry as accepted. Later updates are plain: another worker may act on an older version of the entry, or
 * on fields of two consecutive versions of the same flow — as if its packet had arrived a moment earlier (a reply may
 * still signal 0x8 after the first ACK_STICKINESS; one right after a FIN may still go straight). Fields of two flows
 * mix only if the owner reuses an expired flow's slot during the read: a reply of that expired flow may then go via
 * the LB with the new flow's LB SID, whose ENTRY the LB checks against the flow's key. Inbox records are published by
 * a volatile store of their sequence number ({@link SrlbHandoff}). A change the owner's inbox has no room for is
 * counted ({@code inbox full} in {@link #show}, {@link #sharing}) and lost; the flow's next packet hands it over again.
 *
 * <p>Thread use: settings are fixed at construction except the load of a {@link SettableLoadSource}
 * ({@link #setLoad}, the control command {@code srlb load N}); counters are written by workers and read here racily
 * (eventually consistent).
 */
public final class SrlbAgent implements LbCounterSource {
    /** Settings of the {@code srlb-agent:} configuration section. */
    public static final class Settings {
        /** This application instance's SID /80 (bytes 10–15 ignored); required, IPv6. */
        public InetAddress sid;
        /** The VIPs the local server answers from (its replies are recognised by source address); 1..16, IPv6. */
        public List<InetAddress> vips = new ArrayList<>();
        /** Connect-if-available policy (default always-accept, SRLB's default). */
        public AcceptPolicy policy = AcceptPolicy.ALWAYS_ACCEPT;
        /** The policy's load metric (default: a settable test source at 0). */
        public LoadSource load = new SettableLoadSource("test", 0);
        /** Flow-table slots per worker, a power of two (default 65,536). */
        public int flowTableSlots = 1 << 16;
        /** Active timeout, seconds (default 40, docs/load-balancing.md §3). */
        public int activeTimeoutSeconds = 40;
        /** Teardown timeout, seconds (default 2, docs/load-balancing.md §3). */
        public int teardownTimeoutSeconds = 2;
        /** Time source, ns (default System::nanoTime), read once per vector. */
        public java.util.function.LongSupplier clock = System::nanoTime;
        /** Workers of the dataplane, 1..64 (set by {@code Dataplane} from its topology; default 1). */
        public int workers = 1;
    }

    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.arrayElementVarHandle(long[].class);

    /** Most VIPs per agent. */
    public static final int MAX_VIPS = 16;

    /** Sharing counters of a worker ({@link Worker#count(int)}). */
    static final int REMOTE = 0, SEARCHED = 1, HANDED = 2, INBOX_FULL = 3, APPLIED = 4, STALE = 5, SHARING = 6;

    /**
     * One worker's agent state; used by that worker's nodes ({@link SrlbAgentNode}, {@link SrlbAgentHandoffNode}),
     * except its table, which other workers read ({@code SrlbFlowTable.shared*}).
     */
    static final class Worker {
        final SrlbFlowTable table;
        final ServerAgentState machine;
        /** The owner's transitions for handed-over changes; its counters are not reported (the decider counted). */
        final ServerAgentState applier;
        private final long[] record = new long[SrlbHandoff.FIELDS];
        /** Sharing counters at {@code PAD + REMOTE..STALE}; written by this worker only (opaque). */
        private final long[] sharing = new long[WorkerState.PAD + SHARING + WorkerState.PAD];
        final Encap encap;
        final Decap decap = new Decap();
        final FlowKey key = new FlowKey();
        final int core;
        /**
         * Decision counters per agent VIP ({@link LbCounters} slots), at {@code PAD + vip * COUNTERS + slot}; written
         * by this worker only (opaque), summed by {@link SrlbAgent#decisionCounters}.
         */
        private final long[] vipCounters = new long[WorkerState.PAD + MAX_VIPS * LbCounters.COUNTERS
                + WorkerState.PAD];

        void count(int vip, int slot) {
            int i = WorkerState.PAD + vip * LbCounters.COUNTERS + slot;
            LONGS.setOpaque(vipCounters, i, (long) LONGS.getOpaque(vipCounters, i) + 1);
        }

        long counter(int vip, int slot) {
            return (long) LONGS.getOpaque(vipCounters, WorkerState.PAD + vip * LbCounters.COUNTERS + slot);
        }

        /** Counts one event of sharing counter {@code c} ({@link #REMOTE} .. {@link #STALE}). */
        void count(int c) {
            int i = WorkerState.PAD + c;
            LONGS.setOpaque(sharing, i, (long) LONGS.getOpaque(sharing, i) + 1);
        }

        long sharing(int c) {
            return (long) LONGS.getOpaque(sharing, WorkerState.PAD + c);
        }

        Worker(SrlbAgent a, int core, int bufferBytes) {
            Settings s = a.settings;
            table = new SrlbFlowTable(s.flowTableSlots);
            machine = new ServerAgentState(s.activeTimeoutSeconds * 1_000_000_000L,
                    s.teardownTimeoutSeconds * 1_000_000_000L, new ServerAgentState.Counters());
            applier = new ServerAgentState(s.activeTimeoutSeconds * 1_000_000_000L,
                    s.teardownTimeoutSeconds * 1_000_000_000L, new ServerAgentState.Counters());
            encap = new Encap(bufferBytes, Encap.DEFAULT_TTL, 0, 0, 0);
            this.core = core;
        }

        /**
         * The owner's side of the handoff: applies the state changes other workers decided for flows in this
         * worker's table, at most {@value SrlbHandoff#CAPACITY} per call (one inbox's worth). A record whose flow is
         * no longer live here (expired meanwhile), or whose entry is a later life of the same key (another generation),
         * is counted stale and dropped. Allocation-free.
         *
         * @return records taken
         */
        int drain(SrlbAgent a) {
            SrlbHandoff h = a.handoff;
            if (h == null) {
                return 0;
            }
            long[] rec = record;
            long now = 0;
            int n = 0;
            while (n < SrlbHandoff.CAPACITY && h.poll(core, rec)) {
                if (n++ == 0) {
                    now = a.settings.clock.getAsLong();
                }
                apply(rec, now);
            }
            return n;
        }

        private void apply(long[] rec, long now) {
            long meta = rec[SrlbHandoff.META];
            int hint = (int) (meta >>> 32), event = (int) (meta >>> 24) & 0xFF;
            long cHi = rec[SrlbHandoff.C_HI], cLo = rec[SrlbHandoff.C_LO], vHi = rec[SrlbHandoff.V_HI];
            long vLo = rec[SrlbHandoff.V_LO], pw = rec[SrlbHandoff.PORTS];
            SrlbFlowTable t = table;
            int slot = t.matches(hint, cHi, cLo, vHi, vLo, pw) ? hint
                    : t.slot(cHi, cLo, vHi, vLo, pw, rec[SrlbHandoff.HASH], now, false);
            int st = slot < 0 ? ServerAgentState.NONE : t.state(slot);
            long exp = slot < 0 ? now : t.expires(slot);
            // gone since, or a later flow with the same key (the entry expired and the key came back): not this one's
            if (ServerAgentState.effective(st, exp, now) == ServerAgentState.NONE
                    || t.generation(slot) != rec[SrlbHandoff.GENERATION]) {
                count(STALE);
                return;
            }
            if ((event & EVENT_REPLY) != 0) {
                int out = applier.onServerPacket(st, exp, now, (event & EVENT_FIN_OR_RST) != 0);
                int ns = ServerAgentState.state(out);
                if (ServerAgentState.action(out) == ServerAgentState.VIA_LB) {
                    t.set(slot, ns, applier.expiry(ns, now));
                }
            } else {
                int out = applier.onSegment(st, exp, now, event, 1, 0, AcceptPolicy.ALWAYS_ACCEPT, 0, false);
                int ns = ServerAgentState.state(out);
                if (ServerAgentState.action(out) == ServerAgentState.DELIVER) {
                    t.set(slot, ns, applier.expiry(ns, now));
                    t.setServer(slot, -1, rec[SrlbHandoff.SA_HI], rec[SrlbHandoff.SA_LO]);
                }
            }
            count(APPLIED);
        }
    }

    /** Handoff event codes (the record's function byte): an SRv6 packet's SID FUNCTION 0x0–0x2, or a reply. */
    static final int EVENT_REPLY = 0x10, EVENT_FIN_OR_RST = 0x01;

    final Settings settings;
    final long sidHi, sidLo;
    final long[] vipHi, vipLo;
    final long seed = ThreadLocalRandom.current().nextLong();
    /** The workers' state by index (filled at graph instantiation, before the workers start). */
    final Worker[] peers;
    /** Inboxes of handed-over state changes, and the owner index; null with one worker. */
    final SrlbHandoff handoff;
    final SrlbOwnerIndex owners;
    /**
     * A non-owner hands over an expiry refresh only when it would move the owner's expiry by at least a quarter of the
     * state's timeout (10 s of the default 40 s active, 500 ms of the 2 s teardown), ns.
     */
    private final long activeRefreshNanos, teardownRefreshNanos;

    /**
     * @param s settings
     * @throws IllegalArgumentException no or a non-IPv6 SID, no VIP / more than {@value #MAX_VIPS} / a non-IPv6 VIP,
     *                                  a flow-table size that is not a power of two in [8, 2<sup>24</sup>], timeouts
     *                                  outside 1..86400 s, no policy or load source
     */
    public SrlbAgent(Settings s) {
        if (!(s.sid instanceof Inet6Address)) {
            throw new IllegalArgumentException("srlb-agent sid must be an IPv6 /80 prefix, got " + s.sid);
        }
        if (s.vips.isEmpty() || s.vips.size() > MAX_VIPS) {
            throw new IllegalArgumentException("srlb-agent needs 1.." + MAX_VIPS + " vips, got " + s.vips.size());
        }
        for (InetAddress v : s.vips) {
            if (!(v instanceof Inet6Address)) {
                throw new IllegalArgumentException("srlb-agent vip " + v.getHostAddress() + " is not IPv6");
            }
        }
        if (s.activeTimeoutSeconds < 1 || s.activeTimeoutSeconds > 86_400 || s.teardownTimeoutSeconds < 1
                || s.teardownTimeoutSeconds > 86_400) {
            throw new IllegalArgumentException("srlb-agent timeouts must be 1..86400 s, got active "
                    + s.activeTimeoutSeconds + ", teardown " + s.teardownTimeoutSeconds);
        }
        if (s.policy == null || s.load == null) {
            throw new IllegalArgumentException("srlb-agent needs a policy and a load source");
        }
        if (s.workers < 1 || s.workers > 64) {
            throw new IllegalArgumentException("srlb-agent workers must be 1..64, got " + s.workers);
        }
        new SrlbFlowTable(s.flowTableSlots); // validates the size
        this.settings = s;
        peers = new Worker[s.workers];
        handoff = s.workers > 1 ? new SrlbHandoff(s.workers) : null;
        // 2 entries per flow-table slot of all workers: buckets of 8 seldom overflow at the tables' usual load ≤ 50 %
        owners = s.workers > 1 ? new SrlbOwnerIndex((int) Math.min(1L << 23,
                Long.highestOneBit(Math.max(64, 2L * s.flowTableSlots * s.workers - 1)) << 1)) : null;
        activeRefreshNanos = s.activeTimeoutSeconds * 1_000_000_000L / 4;
        teardownRefreshNanos = s.teardownTimeoutSeconds * 1_000_000_000L / 4;
        ByteBuffer bb = ByteBuffer.wrap(s.sid.getAddress());
        sidHi = bb.getLong();
        sidLo = bb.getLong() & SrlbSid.PREFIX_LO_MASK;
        vipHi = new long[s.vips.size()];
        vipLo = new long[s.vips.size()];
        for (int i = 0; i < vipHi.length; i++) {
            ByteBuffer v = ByteBuffer.wrap(s.vips.get(i).getAddress());
            vipHi[i] = v.getLong();
            vipLo[i] = v.getLong();
        }
    }

    /** @return the settings */
    public Settings settings() {
        return settings;
    }

    /**
     * The per-worker state, created at graph instantiation.
     *
     * @throws IllegalArgumentException for a worker index outside {@code 0..settings.workers − 1}
     */
    synchronized Worker worker(int worker, int bufferBytes) {
        if (worker < 0 || worker >= peers.length) {
            throw new IllegalArgumentException("srlb-agent worker " + worker + " outside 0.." + (peers.length - 1)
                    + " (settings.workers)");
        }
        Worker w = peers[worker];
        if (w == null) {
            w = new Worker(this, worker, bufferBytes);
            peers[worker] = w;
        }
        return w;
    }

    /**
     * Whether a non-owner that moved a flow from {@code before} to {@code after} should hand the change over: a new
     * state, or an expiry that moves by at least a quarter of the state's timeout.
     *
     * @param expires the owner's expiry as read, ns
     * @param newExpires the expiry the transition sets, ns
     */
    boolean changes(int before, int after, long expires, long newExpires) {
        return after != before || newExpires - expires
                >= (after == ServerAgentState.TEARDOWN ? teardownRefreshNanos : activeRefreshNanos);
    }

    /** @return {@code owner << 32 | slot}, for {@link #locate} and {@link #search} */
    private static long at(int owner, int slot) {
        return (long) owner << 32 | slot;
    }

    /**
     * Worker {@code me}'s look-up of a flow's owner with several workers: the SID hint (an ACK_STICKINESS packet's
     * CORE/ENTRY, when {@code bySid}), then the {@link SrlbOwnerIndex} entries with the flow's tag. A candidate counts
     * if its slot holds the key — on another worker only while live ({@code now < expires}). Allocation-free.
     *
     * @return {@code owner << 32 | slot}, or −1 (not found this way)
     */
    long locate(int me, long sidLo, boolean bySid, long cHi, long cLo, long vHi, long vLo, long pw, long hash,
            long now) {
        if (bySid) {
            long r = check(me, SrlbSid.core(sidLo), SrlbSid.entry(sidLo), cHi, cLo, vHi, vLo, pw, now);
            if (r >= 0) {
                return r;
            }
        }
        SrlbOwnerIndex ix = owners;
        int b = ix.bucket(hash);
        for (int j = 0; j < SrlbOwnerIndex.WAYS; j++) {
            long e = ix.get(b + j);
            if (SrlbOwnerIndex.tagMatches(e, hash)) {
                long r = check(me, SrlbOwnerIndex.worker(e), SrlbOwnerIndex.slot(e), cHi, cLo, vHi, vLo, pw, now);
                if (r >= 0) {
                    return r;
                }
            }
        }
        return -1;
    }

    private long check(int me, int w, int slot, long cHi, long cLo, long vHi, long vLo, long pw, long now) {
        if (w < 0 || w >= peers.length || peers[w] == null) {
            return -1;
        }
        SrlbFlowTable t = peers[w].table;
        if (w == me) {
            return t.matches(slot, cHi, cLo, vHi, vLo, pw) ? at(w, slot) : -1;
        }
        return t.sharedMatches(slot, cHi, cLo, vHi, vLo, pw) && now - t.sharedExpires(slot) < 0 ? at(w, slot) : -1;
    }

    /**
     * Worker {@code me}'s fallback when {@link #locate} found nothing and its own table has no live entry: searches
     * the other workers' tables (up to {@code SrlbFlowTable.PROBE} slots each). Allocation-free.
     *
     * @return {@code owner << 32 | slot} of a live entry, or −1
     */
    long search(int me, long cHi, long cLo, long vHi, long vLo, long pw, long hash, long now) {
        for (int w = 0; w < peers.length; w++) {
            if (w == me || peers[w] == null) {
                continue;
            }
            SrlbFlowTable t = peers[w].table;
            int slot = t.sharedFind(cHi, cLo, vHi, vLo, pw, hash);
            if (slot >= 0 && now - t.sharedExpires(slot) < 0) {
                peers[me].count(SEARCHED);
                return at(w, slot);
            }
        }
        return -1;
    }

    /**
     * Worker {@code me}, having just accepted (or created) the flow in its {@code slot}, writes its owner index
     * entry; see {@link SrlbOwnerIndex} for the choice of entry. Bounded: {@value SrlbOwnerIndex#WAYS} attempts.
     */
    void publish(int me, int slot, long hash, long now) {
        SrlbOwnerIndex ix = owners;
        long v = SrlbOwnerIndex.entry(hash, me, slot);
        int b = ix.bucket(hash);
        for (int attempt = 0; attempt < SrlbOwnerIndex.WAYS; attempt++) {
            int victim = (int) (hash >>> 29) & (SrlbOwnerIndex.WAYS - 1);
            int rank = 3;
            for (int j = 0; j < SrlbOwnerIndex.WAYS; j++) {
                long e = ix.get(b + j);
                if (e == v) { // the flow is back in the same slot: store it again, to release the slot's new writes
                    ix.release(b + j, v);
                    return;
                }
                int r = e == 0 ? 0 : SrlbOwnerIndex.tagMatches(e, hash) ? 1 : expired(e, now) ? 2 : 3;
                if (r < rank) {
                    rank = r;
                    victim = j;
                }
            }
            if (ix.replace(b + victim, ix.get(b + victim), v)) {
                return;
            }
        }
    }

    private boolean expired(long e, long now) {
        int w = SrlbOwnerIndex.worker(e), slot = SrlbOwnerIndex.slot(e);
        if (w < 0 || w >= peers.length || peers[w] == null || slot >= peers[w].table.capacity()) {
            return true;
        }
        return now - peers[w].table.sharedExpires(slot) >= 0;
    }

    /**
     * Worker {@code from} hands a state change of a flow that lives in worker {@code owner}'s {@code slot} to that
     * owner (docs/load-balancing.md §3 state: the owner's table has one writer). Counts it, or counts the full inbox.
     *
     * @param generation the generation of the owner's entry the decision was made from
     *                   ({@code SrlbFlowTable#sharedGeneration}, read before its state and expiry): the owner applies
     *                   the change only to that life of the flow
     * @param event SID FUNCTION 0x0–0x2 of an SRv6 packet (with its LB SID), or {@link #EVENT_REPLY}
     *              [| {@link #EVENT_FIN_OR_RST}]
     */
    void handOver(Worker from, int owner, int slot, long generation, int event, long cHi, long cLo, long vHi,
            long vLo, long pw, long hash, long lbHi, long lbLo, int vip) {
        if (handoff.offer(owner, cHi, cLo, vHi, vLo, pw, SrlbHandoff.meta(slot, event, -1, Math.max(vip, 0)), lbHi,
                lbLo, hash, 0, generation)) {
            from.count(HANDED);
        } else {
            from.count(INBOX_FULL);
        }
    }

    /**
     * {@code srlb load N}: sets the value of the agent's test load source.
     *
     * @param load the new metric value (the policy's unit, e.g. busy workers)
     * @throws IllegalArgumentException when the load source is not the settable test source, or NaN
     */
    public void setLoad(double load) {
        if (!(settings.load instanceof SettableLoadSource t)) {
            throw new IllegalArgumentException("srlb load needs the test load source; this agent reads "
                    + settings.load.name());
        }
        if (Double.isNaN(load)) {
            throw new IllegalArgumentException("srlb load must be a number");
        }
        t.set(load);
    }

    /** Sums of the workers' {@link ServerAgentState.Counters} (racy reads). */
    public synchronized ServerAgentState.Counters counters() {
        ServerAgentState.Counters t = new ServerAgentState.Counters();
        for (Worker w : peers) {
            if (w == null) {
                continue;
            }
            ServerAgentState.Counters c = w.machine.counters();
            t.firstChoiceAccepts += c.firstChoiceAccepts;
            t.secondChoiceAccepts += c.secondChoiceAccepts;
            t.rejects += c.rejects;
            t.lastCandidateDrops += c.lastCandidateDrops;
            t.tableFull += c.tableFull;
            t.stickyHits += c.stickyHits;
            t.recoverMisses += c.recoverMisses;
            t.noStateDrops += c.noStateDrops;
            t.teardowns += c.teardowns;
        }
        return t;
    }

    /**
     * @return the agent VIP index (0..15) of a VIP address, or −1 when the agent does not serve it. Allocation-free.
     */
    int vipIndex(long hi, long lo) {
        for (int j = 0; j < vipHi.length; j++) {
            if (vipLo[j] == lo && vipHi[j] == hi) {
                return j;
            }
        }
        return -1;
    }

    /**
     * Agent VIP {@code vip}'s decision counters, summed over workers (racy reads), role 3 (issue 6 §4; README
     * "Load-balancer counters"): new flows = hunting SYNs (CONNECT_IF_AVAILABLE) for a flow without state here;
     * first / second-choice accepts = those accepted as candidate 0 / ≥ 1; rejects = those refused — by the policy or
     * because the flow table was full — whether passed on or dropped as the last candidate (docs/load-balancing.md §3
     * step 2); sticky hits = packets delivered for a flow with state (retransmitted SYNs, RECOVER hits,
     * ACK_STICKINESS); table full = hunting SYNs refused because the table was full.
     *
     * @param vip agent VIP index, 0..vips−1
     * @return the six counters by {@link LbCounters} slot
     * @throws IllegalArgumentException for an index outside the agent's VIPs
     */
    public synchronized long[] decisionCounters(int vip) {
        if (vip < 0 || vip >= vipHi.length) {
            throw new IllegalArgumentException("agent VIP index " + vip + " outside 0.." + (vipHi.length - 1));
        }
        return sums(vip, new long[LbCounters.COUNTERS]);
    }

    private long[] sums(int vip, long[] out) {
        java.util.Arrays.fill(out, 0);
        for (Worker w : peers) {
            if (w != null) {
                for (int c = 0; c < LbCounters.COUNTERS; c++) {
                    out[c] += w.counter(vip, c);
                }
            }
        }
        return out;
    }

    /** One message per agent VIP (role 3, VIP index = its position in the settings, no backend). Allocation-free. */
    @Override
    public synchronized int reportCounters(LbCounters scratch, Sink sink) {
        int sent = 0;
        for (int v = 0; v < vipHi.length; v++) {
            scratch.clear();
            scratch.role = LbCounters.ROLE_SRLB_AGENT;
            scratch.vipIndex = v;
            scratch.vip(true, vipHi[v], vipLo[v]);
            sums(v, scratch.counters);
            if (sink.send(scratch)) {
                sent++;
            }
        }
        return sent;
    }

    /**
     * The workers' sharing counters, summed (racy reads): {@code remote} packets decided from another worker's entry,
     * {@code searched} owners found by searching the other tables (the owner index had no entry), state changes
     * {@code handedOver} to the owner and refused because its inbox was {@code inboxFull}, changes {@code applied} by
     * owners and {@code stale} ones (the flow had expired meanwhile, or its entry is a later life of the same key:
     * another generation). All 0 with one worker.
     */
    public record Sharing(long remote, long searched, long handedOver, long inboxFull, long applied, long stale) {}

    /** @return the sharing counters summed over workers */
    public synchronized Sharing sharing() {
        long[] c = new long[SHARING];
        for (Worker w : peers) {
            if (w != null) {
                for (int i = 0; i < SHARING; i++) {
                    c[i] += w.sharing(i);
                }
            }
        }
        return new Sharing(c[REMOTE], c[SEARCHED], c[HANDED], c[INBOX_FULL], c[APPLIED], c[STALE]);
    }

    /** @return {@code show srlb}: SID, VIPs, policy, load, counters, per-worker flow tables and sharing */
    public String show() {
        ServerAgentState.Counters c = counters();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "srlb agent sid %s/80 policy %s load %s = %s%n",
                LoadBalancer.text(sidHi, sidLo), settings.policy.name(), settings.load.name(),
                settings.load.load()));
        for (int i = 0; i < vipHi.length; i++) {
            long[] d = decisionCounters(i);
            sb.append("  vip ").append(LoadBalancer.text(vipHi[i], vipLo[i])).append(String.format(Locale.ROOT,
                    " new-flows %d first-choice %d second-choice %d rejects %d sticky-hits %d table-full %d%n",
                    d[0], d[1], d[2], d[3], d[4], d[5]));
        }
        sb.append(String.format(Locale.ROOT, "  first-choice-accepts %d second-choice-accepts %d rejects %d "
                + "last-candidate-drops %d table-full %d sticky-hits %d recover-misses %d no-state-drops %d "
                + "teardowns %d%n", c.firstChoiceAccepts, c.secondChoiceAccepts, c.rejects, c.lastCandidateDrops,
                c.tableFull, c.stickyHits, c.recoverMisses, c.noStateDrops, c.teardowns));
        long now = settings.clock.getAsLong();
        for (int i = 0; i < peers.length; i++) {
            Worker w = peers[i];
            if (w == null) {
                continue;
            }
            SrlbFlowTable t = w.table;
            sb.append(String.format(Locale.ROOT, "  worker %d flow table: live %d of %d, inserts %d, full %d", i,
                    t.live(now), t.capacity(), t.inserts(), t.fullCount()));
            if (handoff != null) {
                sb.append(String.format(Locale.ROOT, "; decided from other workers' entries %d (found by search %d), "
                        + "state changes handed over %d (inbox full %d), applied from others %d (stale %d)",
                        w.sharing(REMOTE), w.sharing(SEARCHED), w.sharing(HANDED), w.sharing(INBOX_FULL),
                        w.sharing(APPLIED), w.sharing(STALE)));
            }
            sb.append(System.lineSeparator());
        }
        return sb.toString();
    }
}
