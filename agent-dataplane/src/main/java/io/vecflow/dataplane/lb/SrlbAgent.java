package io.vecflow.dataplane.lb;

import io.vecflow.dataplane.lb.srlb.AcceptPolicy;
import io.vecflow.dataplane.lb.srlb.LoadSource;
import io.vecflow.dataplane.lb.srlb.ServerAgentState;
import io.vecflow.dataplane.lb.srlb.SettableLoadSource;
import io.vecflow.dataplane.lb.srlb.SrlbFlowTable;
import io.vecflow.netlink.vpp.LbCounters;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The SRLB server agent's control side (shared/specs/lb.md §3; Oryon/vpp-dev {@code srlb-sa.c}): one application
 * instance — its SID /80, the VIPs its server answers from, the connect-if-available {@link AcceptPolicy} and the
 * {@link LoadSource} it reads — and the per-worker state of the {@link SrlbAgentNode}s (flow table, state machine,
 * counters). Runs on a server's own dataplane, in front of the server's network stack.
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
        /** Active timeout, seconds (default 40, lb.md §3). */
        public int activeTimeoutSeconds = 40;
        /** Teardown timeout, seconds (default 2, lb.md §3). */
        public int teardownTimeoutSeconds = 2;
        /** Time source, ns (default System::nanoTime), read once per vector. */
        public java.util.function.LongSupplier clock = System::nanoTime;
    }

    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.arrayElementVarHandle(long[].class);

    /** Most VIPs per agent. */
    public static final int MAX_VIPS = 16;

    /** One worker's agent state; used by that worker's node only. */
    static final class Worker {
        final SrlbFlowTable table;
        final ServerAgentState machine;
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

        Worker(SrlbAgent a, int core, int bufferBytes) {
            Settings s = a.settings;
            table = new SrlbFlowTable(s.flowTableSlots);
            machine = new ServerAgentState(s.activeTimeoutSeconds * 1_000_000_000L,
                    s.teardownTimeoutSeconds * 1_000_000_000L, new ServerAgentState.Counters());
            encap = new Encap(bufferBytes, Encap.DEFAULT_TTL, 0, 0, 0);
            this.core = core;
        }
    }

    final Settings settings;
    final long sidHi, sidLo;
    final long[] vipHi, vipLo;
    final long seed = ThreadLocalRandom.current().nextLong();
    private final List<Worker> workers = new ArrayList<>();

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
        new SrlbFlowTable(s.flowTableSlots); // validates the size
        this.settings = s;
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

    /** The per-worker state, created at graph instantiation. */
    synchronized Worker worker(int worker, int bufferBytes) {
        while (workers.size() <= worker) {
            workers.add(null);
        }
        Worker w = workers.get(worker);
        if (w == null) {
            w = new Worker(this, worker, bufferBytes);
            workers.set(worker, w);
        }
        return w;
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
        for (Worker w : workers) {
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

    /** @return the agent VIP index (0..15) of a VIP address, or −1 when the agent does not serve it. Allocation-free. */
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
     * because the flow table was full — whether passed on or dropped as the last candidate (lb.md §3 step 2);
     * sticky hits = packets delivered for a flow with state (retransmitted SYNs, RECOVER hits, ACK_STICKINESS);
     * table full = hunting SYNs refused because the table was full.
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
        for (int i = 0, n = workers.size(); i < n; i++) {
            Worker w = workers.get(i);
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

    /** @return {@code show srlb}: SID, VIPs, policy, load, counters */
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
        return sb.toString();
    }
}
