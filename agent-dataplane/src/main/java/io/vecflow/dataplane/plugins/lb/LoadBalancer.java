package io.vecflow.dataplane.plugins.lb;

import io.vecflow.dataplane.graph.mem.Bytes;
import io.vecflow.dataplane.plugins.lb.encap.Encap;
import io.vecflow.dataplane.plugins.lb.maglev.ConnectionTable;
import io.vecflow.dataplane.plugins.lb.maglev.FlowHash;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import io.vecflow.dataplane.plugins.lb.maglev.MaglevTable;
import io.vecflow.dataplane.plugins.srlb.state.CandidateTable;
import io.vecflow.dataplane.sflow.LbCounterSource;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The Maglev load balancer's control side (VPP's lb plugin, FDio/vpp {@code src/plugins/lb/lb.c};
 * docs/load-balancing.md §1–§2): VIPs with their encapsulation and Maglev table, application servers (backends) per
 * VIP, and the per-worker state the {@link LbNode}s use ({@link WorkerState}: connection table, encapsulator, ICMP
 * too-big builder, counters).
 *
 * <p><b>Publication.</b> Every change builds a new immutable {@link LbSnapshot} — VIP match lists, a freshly populated
 * {@link MaglevTable} per changed VIP, backend addresses and generations — and publishes it with one volatile write;
 * workers read the snapshot once per vector, so a packet sees either the old or the new configuration as a whole
 * (VPP rebuilds the new-flow table on every change, docs/load-balancing.md §2). Changes are serialised
 * ({@code synchronized}); they allocate, the packet path does not.
 *
 * <p><b>Backends and flows</b> (VPP semantics): {@link #delBackends} without flush takes the backend out of the
 * Maglev table (weight 0: no new flows) but keeps it, so flows already in a worker's {@link ConnectionTable} stay on
 * it until they go idle ("draining", shown as such); with flush its generation becomes −1, so the connection tables
 * re-select those flows through the current Maglev table at their next packet (docs/load-balancing.md §1, paper §3.3).
 * A flushed backend's slot may be reused; the generation then moves on, so old entries never match the new backend.
 * Deleting a VIP flushes its backends. Re-adding a draining backend puts it back into the table with its flows intact.
 *
 * <p><b>Backend identity hash</b> for the Maglev permutation (Katran uses folly {@code IPAddress::hash()},
 * docs/load-balancing.md §1): {@link FlowHash#hash} at seed 0 of the address as a 128-bit value (IPv4 mapped), ports
 * word 0 — fixed, so the table depends only on the set of backend addresses.
 *
 * <p>Limits: {@value #MAX_VIPS} VIPs and {@value #MAX_BACKENDS} backends (all VIPs together; Katran: 512 / 4096).
 */
public final class LoadBalancer implements LbCounterSource {
    /** Most VIPs. */
    public static final int MAX_VIPS = 256;
    /** Most backends over all VIPs (slots; draining backends count until flushed). */
    public static final int MAX_BACKENDS = 4096;

    /** Encapsulation codes in a {@link LbSnapshot}. */
    static final int E_GRE4 = 0, E_GRE6 = 1, E_IPIP = 2, E_SRV6 = 3, E_SRLB = 4;

    /** Per-VIP counter indices (per worker, summed by {@link #vipCounters}). */
    public static final int V_PACKETS = 0, V_BYTES = 1, V_NEW_FLOWS = 2, V_STICKY_HITS = 3, V_TABLE_FULL = 4,
            V_NO_BACKEND = 5, V_TOO_BIG = 6;
    /**
     * SRLB per-VIP counters (docs/load-balancing.md §3; issue 6 §4): accepts by the first / a later / an unknown
     * candidate, hunts sent (new-flow and retransmitted SYNs), teardowns, server signals for flows the table could not
     * hold.
     */
    public static final int V_FIRST_CHOICE = 7, V_SECOND_CHOICE = 8, V_OTHER_ACCEPT = 9, V_HUNTS = 10,
            V_TEARDOWNS = 11, V_BAD_SIGNAL = 12;
    /**
     * SRLB candidate refusals the LB can see (docs/load-balancing.md §3 step 2): a flow whose first CREATE_STICKINESS
     * comes from candidate i was refused by candidates 0..i−1 — counted once per flow, i per flow, on the VIP and on
     * each refusing backend. Refusals of a flow that no candidate accepted (the last candidate's drop) and refusals of
     * hunts whose accept never reached the LB stay invisible here: the server agents count those (role 3 counters).
     */
    public static final int V_REJECTS = 13;
    static final int VIP_COUNTERS = 14;
    /** Per-backend counter indices; first/second choice and rejects as the VIP's, for SRLB VIPs only. */
    public static final int B_PACKETS = 0, B_BYTES = 1, B_NEW_FLOWS = 2, B_STICKY_HITS = 3, B_TABLE_FULL = 4,
            B_FIRST_CHOICE = 5, B_SECOND_CHOICE = 6, B_REJECTS = 7;
    static final int BACKEND_COUNTERS = 8;

    /** Settings of the {@code lb:} configuration section (VPP {@code lb conf}). */
    public static final class Settings {
        /** Outer IPv4 source of GRE4/IPIP-over-IPv4 packets (VPP {@code ip4-src-address}); null = none. */
        public InetAddress ip4Source;
        /** Outer IPv6 source of GRE6/IP6-in-IP6/SRv6 packets (VPP {@code ip6-src-address}); null = none. */
        public InetAddress ip6Source;
        /** Connection-table slots per worker: a power of two (default 65,536 = 5 MiB per worker). */
        public int flowTableSlots = 1 << 16;
        /** TCP idle timeout, seconds (default 40, VPP {@code lb conf timeout}). */
        public int tcpTimeoutSeconds = 40;
        /** UDP and other idle timeout, seconds (default 30, Katran's UDP re-selection). */
        public int udpTimeoutSeconds = 30;
        /** Outer TTL / hop limit and ICMP reply TTL (default 64). */
        public int ttl = Encap.DEFAULT_TTL;
        /** Flow hash seed; null = random per process (FlowHash: keeps crafted collisions out). */
        public Long hashSeed;
        /**
         * Time source of the idle timers, ns (default {@link System#nanoTime}); read by each lb node once per vector.
         * Benchmarks pass a simulated clock to hold a steady number of live flows under churn.
         */
        public java.util.function.LongSupplier clock = System::nanoTime;
        /**
         * SRLB: the /64 under which each {@code encap srlb} VIP gets its LB SID /80 (docs/load-balancing.md §3 "SID
         * layout": bytes 8–9 = VIP slot + 1, then FUNCTION/OFFSET, CORE, ENTRY); null = the /64 of {@link #ip6Source}.
         * The LB's neighbours route this /64 to the load balancer.
         */
        public InetAddress srlbSidPrefix;
        /**
         * SRLB candidates per flow (pools of the candidate table, docs/load-balancing.md §3; default 2, at most 2 — the
         * cookie's).
         */
        public int srlbChoices = 2;
        /** SRLB candidate-table buckets, a power of two (default 256, docs/load-balancing.md §3). */
        public int srlbCandidateBuckets = CandidateTable.DEFAULT_SIZE;
        /** SRLB active timeout, seconds (default 40, docs/load-balancing.md §3). */
        public int srlbActiveTimeoutSeconds = 40;
        /** SRLB teardown timeout, seconds (default 2: the SRLB code's value, docs/load-balancing.md §3). */
        public int srlbTeardownTimeoutSeconds = 2;
        /** Worker threads (set by the dataplane): with more than one, SRLB signals are handed to their flow's owner. */
        public int workers = 1;
    }

    /**
     * One SRLB VIP's counters, summed over workers: new flows, accepts by the first / a later / an unknown candidate,
     * sticky hits (client packets steered to the accepting server), table full, hunts sent, teardowns, bad signals.
     */
    public record SrlbCounters(long newFlows, long firstChoiceAccepts, long secondChoiceAccepts, long otherAccepts,
            long stickyHits, long tableFull, long hunts, long teardowns, long badSignals) {}

    /**
     * The six decision counters that go out per VIP and per VIP backend (issue 6 §4; the sFlow "vecflow LB counters"
     * record, README "Load-balancer counters"), totals since the VIP / the backend in the VIP was added:
     * <ul>
     *   <li>newFlows (flows) — Maglev: flows placed (connection-table insert or re-selection; a flow placed untracked
     *       because the table was full counts in tableFull instead); SRLB VIP: flows that entered HUNTING; SRLB
     * backend: flows it accepted (first       CREATE_STICKINESS of the flow).</li>
     *   <li>firstChoiceAccepts / secondChoiceAccepts (flows) — SRLB: first CREATE_STICKINESS of a flow from candidate
     *       0 / candidate ≥ 1; Maglev: 0.</li>
     *   <li>rejects (refusals) — SRLB: {@link #V_REJECTS}; Maglev: 0 (Maglev never refuses; a VIP without backends is
     *       {@code no-backend}).</li>
     *   <li>stickyHits (packets) — Maglev: packets whose flow was in the connection table; SRLB: client packets
     *       steered to the accepting server (STEER/TEARDOWN).</li>
     *   <li>tableFull (packets) — packets whose flow could not be installed because the worker's table was full.</li>
     * </ul>
     */
    public record DecisionCounters(long newFlows, long firstChoiceAccepts, long secondChoiceAccepts, long rejects,
            long stickyHits, long tableFull) {}

    /** One VIP's totals. */
    public record VipCounters(long packets, long bytes, long newFlows, long stickyHits, long tableFull,
            long noBackend, long tooBig) {}

    /** One backend's totals. */
    public record BackendCounters(long packets, long bytes, long newFlows, long stickyHits, long tableFull) {}

    final Settings settings;
    private final long seed;
    final VipState[] vips = new VipState[MAX_VIPS];
    final BackendState[] backends = new BackendState[MAX_BACKENDS];
    private final int[] nextGeneration = new int[MAX_BACKENDS];
    final int[] generation = new int[MAX_BACKENDS];
    final List<WorkerState> workers = new ArrayList<>();
    private volatile LbSnapshot snapshot;
    private Runnable onChange = () -> { };

    /**
     * @param s settings (copied where it matters: addresses, sizes, timeouts)
     * @throws IllegalArgumentException for a source address of the wrong family, a flow-table size that is not a
     *                                  power of two in [8, 2<sup>24</sup>], timeouts outside 1..86400 s, TTL outside
     *                                  1..255
     */
    public LoadBalancer(Settings s) {
        this.srlbHandoff = s.workers > 1 ? new SrlbHandoff(s.workers) : null;
        if (s.ip4Source != null && !(s.ip4Source instanceof Inet4Address)) {
            throw new IllegalArgumentException("lb ip4-src-address " + s.ip4Source.getHostAddress()
                    + " is not IPv4");
        }
        if (s.ip6Source != null && !(s.ip6Source instanceof Inet6Address)) {
            throw new IllegalArgumentException("lb ip6-src-address " + s.ip6Source.getHostAddress()
                    + " is not IPv6");
        }
        if (s.flowTableSlots < ConnectionTable.MIN_CAPACITY || s.flowTableSlots > ConnectionTable.MAX_CAPACITY
                || Integer.bitCount(s.flowTableSlots) != 1) {
            throw new IllegalArgumentException("lb flow-table-slots must be a power of two in ["
                    + ConnectionTable.MIN_CAPACITY + ", " + ConnectionTable.MAX_CAPACITY + "], got "
                    + s.flowTableSlots);
        }
        if (s.tcpTimeoutSeconds < 1 || s.tcpTimeoutSeconds > 86_400 || s.udpTimeoutSeconds < 1
                || s.udpTimeoutSeconds > 86_400) {
            throw new IllegalArgumentException("lb timeouts must be 1..86400 s, got tcp " + s.tcpTimeoutSeconds
                    + ", udp " + s.udpTimeoutSeconds);
        }
        if (s.ttl < 1 || s.ttl > 255) {
            throw new IllegalArgumentException("lb ttl must be 1..255, got " + s.ttl);
        }
        if (s.srlbChoices < 1 || s.srlbChoices > 2) {
            throw new IllegalArgumentException("lb srlb choices must be 1..2, got " + s.srlbChoices);
        }
        if (s.srlbActiveTimeoutSeconds < 1 || s.srlbActiveTimeoutSeconds > 86_400
                || s.srlbTeardownTimeoutSeconds < 1 || s.srlbTeardownTimeoutSeconds > 86_400) {
            throw new IllegalArgumentException("lb srlb timeouts must be 1..86400 s, got active "
                    + s.srlbActiveTimeoutSeconds + ", teardown " + s.srlbTeardownTimeoutSeconds);
        }
        if (s.srlbSidPrefix != null && !(s.srlbSidPrefix instanceof Inet6Address)) {
            throw new IllegalArgumentException("lb srlb-sid-prefix " + s.srlbSidPrefix.getHostAddress()
                    + " is not IPv6");
        }
        new CandidateTable(s.srlbCandidateBuckets); // validates the size
        this.settings = s;
        this.seed = s.hashSeed != null ? s.hashSeed : ThreadLocalRandom.current().nextLong();
        Arrays.fill(generation, -1);
        publish();
    }

    /** @return the settings */
    public Settings settings() {
        return settings;
    }

    /** @return the flow hash seed */
    long seed() {
        return seed;
    }

    /** Called (on the changing thread) after every published change; the dataplane enables the arc features. */
    public synchronized void onChange(Runnable r) {
        this.onChange = r;
    }

    LbSnapshot snapshot() {
        return snapshot;
    }

    /** @return whether any IPv4 VIP exists (the lb4 feature is needed) */
    public boolean hasIpv4Vips() {
        return snapshot.v4Count > 0;
    }

    /** @return whether any IPv6 VIP exists */
    public boolean hasIpv6Vips() {
        return snapshot.v6Count > 0;
    }

    final SrlbHandoff srlbHandoff;

    /** @return the SRLB signal handoff between workers, or null with one worker */
    SrlbHandoff srlbHandoff() {
        return srlbHandoff;
    }

    /**
     * The per-worker state, created on first request (graph instantiation, before the workers start).
     *
     * @param worker worker index
     * @param bufferBytes the worker's buffer size, bytes
     * @return the state shared by that worker's lb4 and lb6 nodes
     */
    public synchronized WorkerState worker(int worker, int bufferBytes) {
        while (workers.size() <= worker) {
            workers.add(null);
        }
        WorkerState w = workers.get(worker);
        if (w == null) {
            w = new WorkerState(this, worker, bufferBytes);
            workers.set(worker, w);
        }
        return w;
    }

    private void publish() {
        List<VipState> live = new ArrayList<>();
        for (VipState v : vips) {
            if (v != null) {
                live.add(v);
            }
        }
        snapshot = new LbSnapshot(live, backends, generation, hi(srlbSidPrefix()));
        onChange.run();
    }

    private VipState find(VipKey key) {
        for (VipState v : vips) {
            if (v != null && v.key.equals(key)) {
                return v;
            }
        }
        return null;
    }

    private VipState existing(VipKey key) {
        VipState v = find(key);
        if (v == null) {
            throw new IllegalArgumentException("no VIP " + key);
        }
        return v;
    }

    /**
     * {@code lb vip PREFIX [protocol P port N] encap E new_len M}: adds a VIP with no backends (packets to it are
     * dropped as "lb no backend" until backends are added).
     *
     * @throws IllegalArgumentException the VIP exists, {@value #MAX_VIPS} VIPs exist, encap srlb (not this node's),
     *                                  {@code newLength} not a prime in [2, {@link MaglevTable#MAX_SIZE}], or the
     *                                  encapsulation's outer family has no configured source address
     */
    public synchronized void addVip(VipKey key, EncapType encap, int newLength) {
        if (find(key) != null) {
            throw new IllegalArgumentException("VIP " + key + " exists already");
        }
        MaglevTable.checkSize(newLength);
        if (encap == EncapType.SRLB && !(key.prefix() instanceof Inet6Address)) {
            throw new IllegalArgumentException("encap srlb needs an IPv6 VIP (SRv6), got " + key);
        }
        if (encap == EncapType.SRLB && srlbSidPrefix() == null) {
            throw new IllegalArgumentException("encap srlb needs lb srlb-sid-prefix or ip6-src-address in the "
                    + "configuration (the LB SIDs' /64)");
        }
        if (encap == EncapType.GRE4 && settings.ip4Source == null) {
            throw new IllegalArgumentException("encap gre4 needs lb ip4-src-address in the configuration");
        }
        if ((encap == EncapType.GRE6 || encap == EncapType.SRV6) && settings.ip6Source == null) {
            throw new IllegalArgumentException("encap " + encap.word() + " needs lb ip6-src-address in the "
                    + "configuration");
        }
        for (InetAddress own : new InetAddress[] {settings.ip4Source, settings.ip6Source}) {
            if (own != null && covers(key, own)) {
                byte[] a = own.getAddress();
                throw new IllegalArgumentException("VIP " + key + " covers the LB's own outer source address "
                        + io.vecflow.common.IpAddresses.toString(a, 0, a.length) + " (lb ip" + (a.length == 4 ? "4"
                                : "6")
                        + "-src-address): replies to it (ICMP errors from the backends' path) would be load-balanced");
            }
        }
        int slot = -1;
        for (int i = 0; i < MAX_VIPS && slot < 0; i++) {
            if (vips[i] == null) {
                slot = i;
            }
        }
        if (slot < 0) {
            throw new IllegalArgumentException("at most " + MAX_VIPS + " VIPs");
        }
        VipState v = new VipState(slot, key, encap, newLength);
        v.ring = new MaglevTable(newLength, MaglevTable.WeightMode.V1);
        if (encap == EncapType.SRLB) {
            v.cht = new CandidateTable(settings.srlbCandidateBuckets);
        }
        v.base = vipSums(slot);
        vips[slot] = v;
        publish();
    }

    /**
     * {@code lb vip ... del}: removes a VIP and flushes its backends (their flows are re-selected, i.e. no longer
     * steered: packets to the prefix then go on as ordinary traffic).
     *
     * @throws IllegalArgumentException no such VIP
     */
    public synchronized void delVip(VipKey key) {
        VipState v = existing(key);
        for (int b : v.backends) {
            free(b);
        }
        vips[v.slot] = null;
        publish();
    }

    private void free(int b) {
        backends[b] = null;
        generation[b] = -1;
    }

    /**
     * {@code lb as VIP ADDRESS...}: adds backends (or brings draining ones back) and rebuilds the VIP's Maglev table.
     *
     * @throws IllegalArgumentException no such VIP; an address whose family the VIP's encapsulation cannot carry (gre4:
     *                                  IPv4, gre6 and srv6: IPv6, ipip: either, with a source address of that
     *                                  family); an address already active; no free backend slot
     */
    public synchronized void addBackends(VipKey key, List<InetAddress> addresses) {
        VipState v = existing(key);
        for (InetAddress a : addresses) {
            boolean six = a instanceof Inet6Address;
            switch (v.encap) {
                case GRE4 -> require(!six, a, "gre4 needs IPv4 backends");
                case GRE6 -> require(six, a, "gre6 needs IPv6 backends");
                case SRV6 -> require(six, a, "srv6 needs IPv6 backends (their SIDs)");
                case SRLB -> require(six, a, "srlb needs IPv6 backends (the server agents' SID /80 prefixes)");
                case IPIP -> require(six ? settings.ip6Source != null : settings.ip4Source != null, a,
                        "ipip to an IPv" + (six ? 6 : 4) + " backend needs lb ip" + (six ? 6 : 4)
                                + "-src-address in the configuration");
                default -> { }
            }
            Integer b = backendOf(v, a);
            if (b != null && !backends[b].draining) {
                throw new IllegalArgumentException("backend " + text(a) + " is already in VIP " + key);
            }
        }
        for (InetAddress a : addresses) {
            Integer b = backendOf(v, a);
            if (b != null) {
                backends[b].draining = false;
                continue;
            }
            int slot = -1;
            for (int i = 0; i < MAX_BACKENDS && slot < 0; i++) {
                if (backends[i] == null) {
                    slot = i;
                }
            }
            if (slot < 0) {
                throw new IllegalArgumentException("at most " + MAX_BACKENDS + " backends over all VIPs");
            }
            BackendState s = new BackendState(a, v.slot);
            s.base = backendSums(slot);
            backends[slot] = s;
            generation[slot] = nextGeneration[slot]++ & Integer.MAX_VALUE;
            v.backends.add(slot);
        }
        rebuild(v);
        publish();
    }

    /**
     * {@code lb as VIP ADDRESS... del [flush]}: takes backends out of the VIP's Maglev table (rebuilt: Maglev moves
     * only their slots, paper §3.4). Without flush their tracked flows stay ("draining"); with flush those flows are
     * re-selected at their next packet and the backends are forgotten.
     *
     * @throws IllegalArgumentException no such VIP or backend
     */
    public synchronized void delBackends(VipKey key, List<InetAddress> addresses, boolean flush) {
        VipState v = existing(key);
        for (InetAddress a : addresses) {
            if (backendOf(v, a) == null) {
                throw new IllegalArgumentException("no backend " + text(a) + " in VIP " + key);
            }
        }
        for (InetAddress a : addresses) {
            int b = backendOf(v, a);
            if (flush) {
                free(b);
                v.backends.remove(Integer.valueOf(b));
            } else {
                backends[b].draining = true;
            }
        }
        rebuild(v);
        publish();
    }

    private static void require(boolean ok, InetAddress a, String rule) {
        if (!ok) {
            throw new IllegalArgumentException("backend " + text(a) + ": " + rule);
        }
    }

    private Integer backendOf(VipState v, InetAddress a) {
        for (int b : v.backends) {
            if (backends[b].address.equals(a)) {
                return b;
            }
        }
        return null;
    }

    private void rebuild(VipState v) {
        List<MaglevTable.Endpoint> eps = new ArrayList<>();
        for (int b : v.backends) {
            BackendState s = backends[b];
            eps.add(new MaglevTable.Endpoint(b, s.draining ? 0 : 1, FlowHash.hash(0, s.hi, s.lo, 0, 0, 0)));
        }
        MaglevTable t = new MaglevTable(v.newLength, MaglevTable.WeightMode.V1);
        t.rebuild(eps);
        v.ring = t; // a new table: workers holding the old snapshot keep a consistent old table
        if (v.encap == EncapType.SRLB) {
            List<CandidateTable.Server> servers = new ArrayList<>();
            for (MaglevTable.Endpoint e : eps) {
                if (e.weight() > 0) {
                    servers.add(CandidateTable.Server.of(e.id(), e.hash(),
                            settings.srlbChoices));
                }
            }
            CandidateTable c =
                    new CandidateTable(settings.srlbCandidateBuckets);
            c.rebuild(servers);
            v.cht = c;
        }
    }

    /** @return whether {@code addr} (same family) lies inside the VIP prefix of {@code key} */
    public static boolean covers(VipKey key, InetAddress addr) {
        byte[] p = key.prefix().getAddress(), a = addr.getAddress();
        if (p.length != a.length) {
            return false;
        }
        int bits = key.prefixLength();
        for (int i = 0; i < p.length && bits > 0; i++, bits -= 8) {
            int mask = bits >= 8 ? 0xFF : 0xFF << (8 - bits) & 0xFF;
            if (((p[i] ^ a[i]) & mask) != 0) {
                return false;
            }
        }
        return true;
    }

    /** @return the /64 of the LB SIDs (bytes 8–15 ignored), or null when neither it nor ip6-src-address is set */
    InetAddress srlbSidPrefix() {
        return settings.srlbSidPrefix != null ? settings.srlbSidPrefix : settings.ip6Source;
    }

    /**
     * The LB SID of an {@code encap srlb} VIP (FUNCTION, OFFSET, CORE, ENTRY zero): its server agents send
     * CREATE/DELETE_STICKINESS to this /80, so the LB's neighbours must route the SID /64 to it.
     *
     * @throws IllegalArgumentException no such VIP, or not encap srlb
     */
    public synchronized InetAddress srlbSid(VipKey key) {
        VipState v = existing(key);
        if (v.encap != EncapType.SRLB) {
            throw new IllegalArgumentException("VIP " + key + " is not encap srlb");
        }
        ByteBuffer bb = ByteBuffer.allocate(16).putLong(hi(srlbSidPrefix())).putLong(LbSnapshot.lbSidLo(v.slot));
        try {
            return InetAddress.getByAddress(bb.array());
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The candidates (server addresses, hunting order) a new flow with this 5-tuple would get now from an {@code
     * encap srlb} VIP's candidate table, with this load balancer's hash seed.
     *
     * @throws IllegalArgumentException no such VIP, or not encap srlb
     */
    public synchronized List<InetAddress> srlbCandidatesFor(VipKey key, FlowKey flow) {
        VipState v = existing(key);
        if (v.encap != EncapType.SRLB) {
            throw new IllegalArgumentException("VIP " + key + " is not encap srlb");
        }
        int[] ids = new int[CandidateTable.MAX_POOLS];
        int k = v.cht.candidates(FlowHash.hash(seed, flow), ids);
        List<InetAddress> out = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            out.add(backends[ids[i]].address);
        }
        return out;
    }

    /**
     * An {@code encap srlb} VIP's SRLB counters since it was added, summed over workers (racy reads).
     *
     * @throws IllegalArgumentException no such VIP
     */
    public synchronized SrlbCounters srlbCounters(VipKey key) {
        long[] s = sinceAdded(key);
        return new SrlbCounters(s[V_NEW_FLOWS], s[V_FIRST_CHOICE], s[V_SECOND_CHOICE], s[V_OTHER_ACCEPT],
                s[V_STICKY_HITS], s[V_TABLE_FULL], s[V_HUNTS], s[V_TEARDOWNS], s[V_BAD_SIGNAL]);
    }

    // ---------------------------------------------------------------- counters and show

    private long[] vipSums(int slot) {
        return vipSums(slot, new long[VIP_COUNTERS]);
    }

    /** Sums VIP slot {@code slot}'s counters over the workers into {@code s} (zeroed first). Allocation-free. */
    long[] vipSums(int slot, long[] s) {
        return sums(true, slot, s);
    }

    private long[] backendSums(int slot) {
        return backendSums(slot, new long[BACKEND_COUNTERS]);
    }

    /** Sums backend slot {@code slot}'s counters over the workers into {@code s} (zeroed first). Allocation-free. */
    long[] backendSums(int slot, long[] s) {
        return sums(false, slot, s);
    }

    private long[] sums(boolean vip, int slot, long[] s) {
        java.util.Arrays.fill(s, 0);
        for (int i = 0, n = workers.size(); i < n; i++) {
            WorkerState w = workers.get(i);
            if (w != null) {
                for (int c = 0; c < s.length; c++) {
                    s[c] += vip ? w.vipCounter(slot, c) : w.backendCounter(slot, c);
                }
            }
        }
        return s;
    }

    /** VIP {@code key}'s counters since it was added: the workers' sums less the sums at that time. */
    private long[] sinceAdded(VipKey key) {
        VipState v = existing(key);
        long[] s = vipSums(v.slot);
        for (int c = 0; c < VIP_COUNTERS; c++) {
            s[c] -= v.base[c];
        }
        return s;
    }

    /**
     * A VIP's {@link DecisionCounters} since it was added, summed over workers (racy reads).
     *
     * @throws IllegalArgumentException no such VIP
     */
    public synchronized DecisionCounters decisionCounters(VipKey key) {
        long[] s = sinceAdded(key);
        return new DecisionCounters(s[V_NEW_FLOWS], s[V_FIRST_CHOICE], s[V_SECOND_CHOICE], s[V_REJECTS],
                s[V_STICKY_HITS], s[V_TABLE_FULL]);
    }

    /**
     * A backend's {@link DecisionCounters} since it was added to the VIP (racy reads).
     *
     * @throws IllegalArgumentException no such VIP or backend
     */
    public synchronized DecisionCounters decisionCounters(VipKey key, InetAddress address) {
        long[] s = backendSinceAdded(key, address);
        return new DecisionCounters(s[B_NEW_FLOWS], s[B_FIRST_CHOICE], s[B_SECOND_CHOICE], s[B_REJECTS],
                s[B_STICKY_HITS], s[B_TABLE_FULL]);
    }

    private final LbCounterReport report = new LbCounterReport(this);

    /**
     * Hands every VIP's {@link DecisionCounters} — one message for the VIP's totals (backend index 0), then one per
     * backend of the VIP, draining ones included (backend index = slot + 1) — to {@code sink} in {@code scratch}
     * (role 1 Maglev or 2 SRLB, VIP index = the VIP's slot, a stable index while the VIP exists). Called by the sFlow
     * main thread each polling interval; allocation-free.
     */
    @Override
    public synchronized int reportCounters(io.vecflow.netlink.vpp.LbCounters scratch, Sink sink) {
        return report.send(scratch, sink);
    }

    /**
     * A VIP's counters since it was added, summed over workers (racy reads: eventually consistent).
     *
     * @throws IllegalArgumentException no such VIP
     */
    public synchronized VipCounters vipCounters(VipKey key) {
        long[] s = sinceAdded(key);
        return new VipCounters(s[0], s[1], s[2], s[3], s[4], s[5], s[6]);
    }

    /**
     * @return backend {@code address}'s counter sums over the workers minus their values when it was added to the VIP
     * @throws IllegalArgumentException no such VIP or backend
     */
    private long[] backendSinceAdded(VipKey key, InetAddress address) {
        VipState v = existing(key);
        Integer b = backendOf(v, address);
        if (b == null) {
            throw new IllegalArgumentException("no backend " + text(address) + " in VIP " + key);
        }
        long[] s = backendSums(b);
        for (int c = 0; c < BACKEND_COUNTERS; c++) {
            s[c] -= backends[b].base[c];
        }
        return s;
    }

    /**
     * A backend's counters since it was added to the VIP (draining backends keep counting).
     *
     * @throws IllegalArgumentException no such VIP or backend
     */
    public synchronized BackendCounters backendCounters(VipKey key, InetAddress address) {
        long[] s = backendSinceAdded(key, address);
        return new BackendCounters(s[0], s[1], s[2], s[3], s[4]);
    }

    /**
     * Maglev table slots owned by each active backend of a VIP.
     *
     * @return address → slots, in the order the backends were added (draining ones: 0)
     * @throws IllegalArgumentException no such VIP
     */
    public synchronized java.util.Map<InetAddress, Integer> slots(VipKey key) {
        VipState v = existing(key);
        int[] count = new int[MAX_BACKENDS];
        for (int i = 0; i < v.ring.size(); i++) {
            int b = v.ring.slot(i);
            if (b >= 0) {
                count[b]++;
            }
        }
        java.util.Map<InetAddress, Integer> m = new java.util.LinkedHashMap<>();
        for (int b : v.backends) {
            m.put(backends[b].address, count[b]);
        }
        return m;
    }

    /**
     * The backend a new flow with this 5-tuple would get now: {@code ring[hash mod M]} of the VIP's current table,
     * with this load balancer's hash seed (Katran's {@code getRealForFlow}); tracked flows may be elsewhere.
     *
     * @return the backend's address, or null when the VIP has no active backend
     * @throws IllegalArgumentException no such VIP
     */
    public synchronized InetAddress backendFor(VipKey key, FlowKey flow) {
        VipState v = existing(key);
        int b = v.ring.lookup(FlowHash.hash(seed, flow));
        return b < 0 ? null : backends[b].address;
    }

    /** @return {@code show lb}: settings, then per VIP its counters and its backends with slots and counters. */
    public synchronized String show() {
        return LbShow.show(this);
    }

    /**
     * {@code show lb flows}: live connection-table entries of every worker, at most {@code limit} lines. Reads the
     * tables while workers write them: an entry changing meanwhile may show mixed old/new fields (a diagnostic view;
     * counters are exact).
     */
    public synchronized String showFlows(int limit) {
        return LbShow.showFlows(this, limit);
    }

    /** Idle timeout in ns for the connection tables. */
    long tcpIdleNanos() {
        return TimeUnit.SECONDS.toNanos(settings.tcpTimeoutSeconds);
    }

    long udpIdleNanos() {
        return TimeUnit.SECONDS.toNanos(settings.udpTimeoutSeconds);
    }

    /** RFC 5952 text of an address (IPv6: lower case, longest run of ≥ 2 zero groups as "::"); allocates. */
    public static String text(InetAddress a) {
        if (a instanceof Inet4Address) {
            return a.getHostAddress();
        }
        ByteBuffer bb = ByteBuffer.wrap(a.getAddress());
        return text(bb.getLong(), bb.getLong());
    }

    /** {@link #text(InetAddress)} of a 128-bit value; IPv4-mapped values as dotted quads. */
    public static String text(long hi, long lo) {
        if (hi == 0 && (lo >>> 32) == 0xFFFFL) {
            return Bytes.addressString(hi, lo);
        }
        int[] g = new int[8];
        for (int i = 0; i < 4; i++) {
            g[i] = (int) (hi >>> (48 - 16 * i)) & 0xFFFF;
            g[4 + i] = (int) (lo >>> (48 - 16 * i)) & 0xFFFF;
        }
        int bestAt = -1, bestLen = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestAt = i;
                bestLen = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestAt) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }

    static int v4(InetAddress a) {
        return a == null ? 0 : ByteBuffer.wrap(a.getAddress()).getInt();
    }

    static long hi(InetAddress a) {
        return a == null ? 0 : ByteBuffer.wrap(a.getAddress()).getLong();
    }

    static long lo(InetAddress a) {
        return a == null ? 0 : ByteBuffer.wrap(a.getAddress()).getLong(8);
    }

    /** @return the protocol word of a VIP key (0 for all-port VIPs) */
    static int protocol(Protocol p) {
        return p == null ? 0 : p.number();
    }
}
