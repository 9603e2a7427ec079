package io.vecflow.collector.inlet;

import io.vecflow.common.IpAddresses;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.SflowFormats;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collector admission control: which sFlow agents may send, and how fast. A datagram is admitted when its agent
 * address falls in one of the allowlisted prefixes (an empty allowlist admits every address) and the agent's token
 * bucket holds a datagram (a rate of 0 disables the limit). What is refused is counted per reason
 * ({@link #refusedPrefix}, {@link #refusedRate}) and per agent ({@link #topRefused}); the caller drops it before any
 * sink, so it never reaches storage.
 *
 * <h2>Which address</h2>
 * The address to pass is the <b>sFlow agent address from the datagram header</b> (sFlow v5 {@code sample_datagram_v5
 * .agent_address}), which is the exporter identity everywhere else in vecflow (FlowRow.agentAddress, LossTracker,
 * storage spec: "exporter = agent address inside the datagram"). Relays and UDP tees forward datagrams from their
 * own source address, so the UDP source is not the agent. Note that neither address is authenticated: UDP sources
 * and header fields are both trivially spoofed, so this is a guard against misconfigured or noisy agents, not an
 * access-control boundary; put a firewall in front for that. The API takes any 16-byte address, so a deployment that
 * prefers the UDP source (e.g. no relays, and the network filters spoofed sources) can pass that instead.
 * {@link #readAgentAddress} reads the agent address from the raw datagram without decoding it, so a datagram can be
 * refused before the raw sinks (Kafka) see it.
 *
 * <h2>Prefixes</h2>
 * Entries are CIDR prefixes: IPv4 {@code 10.0.0.0/8}, IPv6 {@code 2001:db8::/32}, or a bare address ({@code /32},
 * {@code /128}). IPv4 prefixes are held as IPv4-mapped IPv6 ({@code ::ffff:a.b.c.d}, length + 96), which is how the
 * collector holds IPv4 agents, so {@code 10.0.0.0/8} matches the agent {@code ::ffff:10.1.2.3}; the same prefix can
 * also be written {@code ::ffff:10.0.0.0/104}. {@code ::/0} admits everything, {@code 0.0.0.0/0} every IPv4 agent.
 * Parsing is strict and never resolves names: IPv4 must be four decimal octets without leading zeros (some tools
 * read {@code 010} as octal 8), IPv6 is RFC 4291 text without zone ({@code %eth0}) or brackets. An entry with host
 * bits set (e.g. {@code 10.1.2.3/8}) is <b>rejected</b>, not normalised: in an allowlist such a typo usually means a
 * single host and normalising would silently admit a whole network; the message names both readings.
 *
 * <h2>Rate limit</h2>
 * One token bucket per agent address (sub-agents share their agent's bucket): capacity {@code burst} datagrams,
 * refilled at {@code rate} datagrams per second, full when the agent is first seen. Arithmetic is exact in integers
 * (a datagram is 10^9 "nanotokens", a nanosecond refills {@code rate} of them), so over an interval of D ns after
 * the bucket is drained exactly {@code floor(D * rate / 10^9)} more datagrams are admitted. Refused datagrams take no
 * token. A clock going backwards refills nothing (the bucket keeps its latest time). Each bucket is guarded by its
 * own monitor: uncontended in practice, as SO_REUSEPORT sends one agent's datagrams to one inlet thread.
 *
 * <h2>Agent table and its bound</h2>
 * Per-agent state lives in an open-addressing table keyed by the two 64-bit halves of the address; lookups take no
 * lock and allocate nothing; an agent's entry is allocated once, when it is first seen. Entries are never removed.
 * Two kinds are bounded separately by {@code maxAgents} each, so a flood of addresses outside the allowlist cannot
 * crowd out allowed agents: admitted-prefix agents (tracked only when a rate is set: they hold the bucket) and agents
 * refused by prefix (tracked only when there is an allowlist: they hold the per-agent refusal count). When a kind is
 * full, a new agent of that kind is <b>untracked</b>: every datagram of it counts in {@link #untracked}; an untracked
 * allowed agent is still rate-limited, but all untracked agents share one overflow bucket with the same rate and
 * burst (so a flood of spoofed agents cannot bypass the limit, at the price of new legitimate agents being squeezed
 * while the table is full); an untracked refused agent is refused as usual but not counted per agent. The first time
 * a kind fills up one warning is logged.
 *
 * <h2>Hot path</h2>
 * {@link #admit} allocates nothing in the steady state (no boxing, no key object, no iterator) and is thread-safe:
 * any number of inlet threads may call it concurrently. With no allowlist and no rate it only counts.
 */
public final class Admission {
    private static final Logger log = LoggerFactory.getLogger(Admission.class);

    /** {@link #admit} result: the datagram may proceed. */
    public static final int ADMIT = 0;
    /** {@link #admit} result: the agent address is in no allowlisted prefix. */
    public static final int REFUSED_PREFIX = 1;
    /** {@link #admit} result: the agent's token bucket is empty (over its rate). */
    public static final int REFUSED_RATE = 2;

    /** Default bound on tracked agents of each kind (allowed, refused by prefix). */
    public static final int DEFAULT_MAX_AGENTS = 65_536;
    /** Largest accepted rate, datagrams per second (one token per ns). */
    public static final long MAX_RATE = 1_000_000_000L;
    /** Largest accepted burst, datagrams (keeps the bucket arithmetic within a long). */
    public static final long MAX_BURST = 1_000_000_000L;
    /** Largest accepted {@code maxAgents}. */
    public static final int MAX_MAX_AGENTS = 1 << 24;

    /** The warning logged once at construction when the allowlist is empty. */
    public static final String NO_ALLOWLIST_WARNING = "no agent allowlist: accepting sFlow from any address";

    private static final long NANOS = 1_000_000_000L;
    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(Agent[].class);

    /** Datagrams admitted. */
    public final LongAdder admitted = new LongAdder();
    /** Datagrams refused because the agent is in no allowlisted prefix. */
    public final LongAdder refusedPrefix = new LongAdder();
    /** Datagrams refused because the agent (or the shared overflow bucket) was over the rate. */
    public final LongAdder refusedRate = new LongAdder();
    /** Datagrams (admitted or refused) of agents not tracked individually because their table kind was full. */
    public final LongAdder untracked = new LongAdder();

    private final long[] prefixHi, prefixLo, maskHi, maskLo;
    private final int[] prefixLen; // in the 128-bit space
    private final boolean acceptAll;
    private final long rate, burst, capacity, fullAfterNanos;
    private final int maxAgents;
    private final boolean trackAllowed, trackRefused, passThrough;
    private final Agent overflow;

    private final Object tableLock = new Object();
    private volatile Agent[] table;
    private volatile int allowedAgents, refusedAgents; // written under tableLock
    private volatile boolean warnedAllowedFull, warnedRefusedFull; // set under tableLock

    /**
     * Per-agent state. The key and kind are final, so a reader that finds the entry in the table sees them set; the
     * bucket fields are guarded by the entry's monitor, {@code refused} is updated atomically.
     */
    private static final class Agent {
        static final VarHandle REFUSED;

        static {
            try {
                REFUSED = MethodHandles.lookup().findVarHandle(Agent.class, "refused", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final long hi, lo;
        final boolean allowed;
        long tokens; // nanotokens: 10^9 per datagram; guarded by this
        long last; // ns of the latest refill; guarded by this
        boolean started; // guarded by this
        volatile long refused;

        Agent(long hi, long lo, boolean allowed) {
            this.hi = hi;
            this.lo = lo;
            this.allowed = allowed;
        }

        void addRefused() {
            REFUSED.getAndAdd(this, 1L);
        }
    }

    /**
     * An agent and how many of its datagrams were refused.
     *
     * @param hi first 8 bytes of the agent address (16 bytes, IPv4-mapped), big-endian
     * @param lo last 8 bytes
     * @param reason {@link #REFUSED_PREFIX} or {@link #REFUSED_RATE}
     * @param refused datagrams refused
     */
    public record AgentRefusals(long hi, long lo, int reason, long refused) {
        /** @return the agent address as text: dotted quad for IPv4-mapped, RFC 5952 otherwise (allocates). */
        public String address() {
            return IpAddresses.toString(address16(), 0, 16);
        }

        /** @return the agent address as 16 bytes, IPv4-mapped (a new array). */
        public byte[] address16() {
            byte[] a = new byte[16];
            for (int i = 0; i < 8; i++) {
                a[i] = (byte) (hi >>> (56 - 8 * i));
                a[8 + i] = (byte) (lo >>> (56 - 8 * i));
            }
            return a;
        }
    }

    /**
     * An admission policy with the burst equal to the rate and {@link #DEFAULT_MAX_AGENTS}.
     *
     * @param prefixes allowlist entries (see the class comment); empty admits every address
     * @param ratePerSecond datagrams per second per agent; 0 = unlimited
     * @throws IllegalArgumentException for a bad entry (naming it and why) or a bad rate
     */
    public Admission(List<String> prefixes, long ratePerSecond) {
        this(prefixes, ratePerSecond, ratePerSecond, DEFAULT_MAX_AGENTS);
    }

    /**
     * An admission policy.
     *
     * @param prefixes allowlist entries (see the class comment; surrounding blanks are ignored); empty admits every
     *     address and logs {@value #NO_ALLOWLIST_WARNING} once
     * @param ratePerSecond datagrams per second per agent, 0..{@link #MAX_RATE}; 0 = unlimited
     * @param burst bucket capacity in datagrams, 1..{@link #MAX_BURST} when a rate is set (ignored when it is 0)
     * @param maxAgents agents tracked at most per kind (allowed, refused by prefix), 1..{@link #MAX_MAX_AGENTS}
     * @throws IllegalArgumentException for a bad entry (the message names the entry, its position and why: bad
     *     address, prefix length out of range, host bits set) or an out-of-range number
     * @throws NullPointerException if {@code prefixes} or an entry is null
     */
    public Admission(List<String> prefixes, long ratePerSecond, long burst, int maxAgents) {
        if (ratePerSecond < 0 || ratePerSecond > MAX_RATE) {
            throw new IllegalArgumentException("agent rate limit must be 0 (unlimited) .. " + MAX_RATE
                    + " datagrams/s, got " + ratePerSecond);
        }
        if (ratePerSecond > 0 && (burst < 1 || burst > MAX_BURST)) {
            throw new IllegalArgumentException("agent rate burst must be 1.." + MAX_BURST + " datagrams, got "
                    + burst);
        }
        if (maxAgents < 1 || maxAgents > MAX_MAX_AGENTS) {
            throw new IllegalArgumentException("maxAgents must be 1.." + MAX_MAX_AGENTS + ", got " + maxAgents);
        }
        int n = prefixes.size();
        prefixHi = new long[n];
        prefixLo = new long[n];
        maskHi = new long[n];
        maskLo = new long[n];
        prefixLen = new int[n];
        for (int i = 0; i < n; i++) {
            parse(i, prefixes.get(i));
        }
        this.acceptAll = n == 0;
        this.rate = ratePerSecond;
        this.burst = ratePerSecond > 0 ? burst : 0;
        this.capacity = this.burst * NANOS;
        this.fullAfterNanos = rate > 0 ? (capacity + rate - 1) / rate : 0;
        this.maxAgents = maxAgents;
        this.trackAllowed = rate > 0;
        this.trackRefused = !acceptAll;
        this.passThrough = acceptAll && rate == 0;
        this.overflow = new Agent(0, 0, true);
        this.table = new Agent[16];
        if (acceptAll) {
            log.warn(NO_ALLOWLIST_WARNING);
        }
    }

    private void parse(int i, String raw) {
        String entry = raw.strip();
        String where = "agent allowlist entry " + (i + 1) + " \"" + raw + "\"";
        if (entry.isEmpty()) {
            throw new IllegalArgumentException(where + ": empty");
        }
        int slash = entry.indexOf('/');
        String addr = slash < 0 ? entry : entry.substring(0, slash);
        boolean v6 = addr.indexOf(':') >= 0;
        long hi, lo;
        if (v6) {
            for (int k = 0; k < addr.length(); k++) {
                char c = addr.charAt(k);
                if (!(c == ':' || c == '.' || Character.digit(c, 16) >= 0)) {
                    throw new IllegalArgumentException(where + ": bad IPv6 address \"" + addr + "\" (character '"
                            + c + "'; zones and brackets are not allowed)");
                }
            }
            InetAddress a;
            try {
                a = Inet6Address.ofLiteral(addr); // a literal only: never resolves a name
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": bad IPv6 address \"" + addr + "\"");
            }
            byte[] b = a.getAddress();
            if (b.length == 4) { // ::ffff:a.b.c.d comes back as IPv4; keep it in the mapped space
                hi = 0;
                lo = 0xFFFF_0000_0000L | (be32(b, 0) & 0xFFFFFFFFL);
            } else {
                hi = be64(b, 0);
                lo = be64(b, 8);
            }
        } else {
            hi = 0;
            lo = 0xFFFF_0000_0000L | (parseIpv4(where, addr) & 0xFFFFFFFFL);
        }
        int max = v6 ? 128 : 32;
        int len = max;
        if (slash >= 0) {
            String l = entry.substring(slash + 1);
            if (l.isEmpty() || l.length() > 3 || !l.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new IllegalArgumentException(where + ": bad prefix length \"" + l + "\" (a number 0.." + max
                        + " expected)");
            }
            len = Integer.parseInt(l);
            if (len > max) {
                throw new IllegalArgumentException(where + ": prefix length " + len + " out of range 0.." + max
                        + " for an " + (v6 ? "IPv6" : "IPv4") + " address");
            }
        }
        int len128 = v6 ? len : len + 96;
        long mh = len128 >= 64 ? -1L : len128 == 0 ? 0 : -1L << (64 - len128);
        long ml = len128 <= 64 ? 0 : len128 == 128 ? -1L : -1L << (128 - len128);
        if ((hi & ~mh) != 0 || (lo & ~ml) != 0) {
            String net = text(hi & mh, lo & ml, v6);
            throw new IllegalArgumentException(where + ": host bits set beyond /" + len + " (did you mean " + net
                    + "/" + len + ", or the single address " + addr + "/" + max + "?)");
        }
        prefixHi[i] = hi;
        prefixLo[i] = lo;
        maskHi[i] = mh;
        maskLo[i] = ml;
        prefixLen[i] = len128;
    }

    private static int parseIpv4(String where, String addr) {
        String[] parts = addr.split("\\.", -1);
        boolean ok = parts.length == 4;
        int v = 0;
        for (int k = 0; ok && k < 4; k++) {
            String p = parts[k];
            ok = !p.isEmpty() && p.length() <= 3 && p.chars().allMatch(c -> c >= '0' && c <= '9')
                    && !(p.length() > 1 && p.charAt(0) == '0');
            if (ok) {
                int o = Integer.parseInt(p);
                ok = o <= 255;
                v = v << 8 | o;
            }
        }
        if (!ok) {
            throw new IllegalArgumentException(where + ": bad IPv4 address \"" + addr
                    + "\" (four decimal octets 0..255 without leading zeros expected)");
        }
        return v;
    }

    private static String text(long hi, long lo, boolean v6) {
        if (!v6) {
            return IpAddresses.dottedQuad((int) lo);
        }
        return IpAddresses.ipv6String(hi, lo);
    }

    /**
     * Decides one datagram (hot path: no allocation in the steady state, thread-safe).
     *
     * @param agent16 agent address, 16 bytes, IPv4 as {@code ::ffff:a.b.c.d} (see the class comment for which
     *     address); read, not kept
     * @param nowNanos the current time in ns on any clock that the caller uses consistently (the collector's
     *     receive time, ns since the epoch, is fine)
     * @return {@link #ADMIT}, {@link #REFUSED_PREFIX} or {@link #REFUSED_RATE}
     * @throws ArrayIndexOutOfBoundsException if {@code agent16} is shorter than 16 bytes
     */
    public int admit(byte[] agent16, long nowNanos) {
        return admit(be64(agent16, 0), be64(agent16, 8), nowNanos);
    }

    /**
     * Decides one datagram by the agent address of its decoded header (hot path, as {@link #admit(byte[], long)}).
     *
     * @param h a decoded sFlow v5 datagram header
     * @param nowNanos current time, ns
     * @return {@link #ADMIT}, {@link #REFUSED_PREFIX} or {@link #REFUSED_RATE}
     */
    public int admit(DatagramHeader h, long nowNanos) {
        byte[] a = h.agentAddress;
        if (h.agentAddressType == SflowFormats.ADDRESS_IPV6) {
            return admit(be64(a, 0), be64(a, 8), nowNanos);
        }
        return admit(0, 0xFFFF_0000_0000L | (be32(a, 0) & 0xFFFFFFFFL), nowNanos);
    }

    /**
     * Decides one datagram by its agent address as two big-endian halves (hot path, as
     * {@link #admit(byte[], long)}).
     *
     * @param hi first 8 bytes of the 16-byte (IPv4-mapped) address
     * @param lo last 8 bytes
     * @param nowNanos current time, ns
     * @return {@link #ADMIT}, {@link #REFUSED_PREFIX} or {@link #REFUSED_RATE}
     */
    public int admit(long hi, long lo, long nowNanos) {
        if (passThrough) {
            admitted.increment();
            return ADMIT;
        }
        Agent a = find(table, hi, lo);
        boolean allowed;
        if (a != null) {
            allowed = a.allowed;
        } else {
            allowed = acceptAll || inAllowlist(hi, lo);
            if (allowed ? trackAllowed : trackRefused) {
                a = track(hi, lo, allowed);
                if (a == null) {
                    untracked.increment();
                }
            }
        }
        if (!allowed) {
            refusedPrefix.increment();
            if (a != null) {
                a.addRefused();
            }
            return REFUSED_PREFIX;
        }
        if (rate == 0) {
            admitted.increment();
            return ADMIT;
        }
        if (take(a != null ? a : overflow, nowNanos)) {
            admitted.increment();
            return ADMIT;
        }
        refusedRate.increment();
        return REFUSED_RATE;
    }

    /** Takes one token from {@code b} if it holds one; counts a refusal in the bucket otherwise. */
    private boolean take(Agent b, long now) {
        synchronized (b) {
            if (!b.started) {
                b.started = true;
                b.last = now;
                b.tokens = capacity;
            } else if (now > b.last) {
                long elapsed = now - b.last;
                b.last = now;
                b.tokens = elapsed >= fullAfterNanos || elapsed < 0 /* overflowed */ ? capacity : Math.min(capacity,
                        b.tokens + elapsed * rate);
            }
            if (b.tokens >= NANOS) {
                b.tokens -= NANOS;
                return true;
            }
        }
        b.addRefused();
        return false;
    }

    private boolean inAllowlist(long hi, long lo) {
        for (int i = 0; i < prefixHi.length; i++) {
            if ((hi & maskHi[i]) == prefixHi[i] && (lo & maskLo[i]) == prefixLo[i]) {
                return true;
            }
        }
        return false;
    }

    private static int slot(long hi, long lo, int mask) {
        long h = hi * 0x9E3779B97F4A7C15L ^ lo * 0xC2B2AE3D27D4EB4FL;
        h ^= h >>> 29;
        return (int) (h ^ (h >>> 32)) & mask;
    }

    /** Lock-free lookup; the table's load is at most 1/2, so the probe ends at a null slot. */
    private static Agent find(Agent[] t, long hi, long lo) {
        int mask = t.length - 1;
        for (int i = slot(hi, lo, mask); ; i = (i + 1) & mask) {
            Agent a = (Agent) SLOTS.getAcquire(t, i);
            if (a == null) {
                return null;
            }
            if (a.hi == hi && a.lo == lo) {
                return a;
            }
        }
    }

    /** Adds an agent (once per agent); null when its kind is full. */
    private Agent track(long hi, long lo, boolean allowed) {
        if ((allowed ? allowedAgents : refusedAgents) >= maxAgents) {
            // Full: no lock on this path (a flood of new addresses must not serialise the inlet threads). The count
            // is written after the entry is published, so an agent added since our lookup missed is found here.
            Agent again = find(table, hi, lo);
            if (again == null && !(allowed ? warnedAllowedFull : warnedRefusedFull)) {
                warnFull(allowed);
            }
            return again;
        }
        synchronized (tableLock) {
            Agent[] t = table;
            Agent a = find(t, hi, lo);
            if (a != null) {
                return a;
            }
            if ((allowed ? allowedAgents : refusedAgents) >= maxAgents) {
                return null;
            }
            a = new Agent(hi, lo, allowed);
            int size = allowedAgents + refusedAgents + 1;
            if (size * 2 > t.length) {
                Agent[] g = new Agent[t.length * 2];
                for (Agent e : t) {
                    if (e != null) {
                        insert(g, e);
                    }
                }
                insert(g, a);
                table = g; // volatile publish; readers of the old array miss only entries added since, then retry here
            } else {
                insert(t, a);
            }
            if (allowed) {
                allowedAgents++;
            } else {
                refusedAgents++;
            }
            return a;
        }
    }

    private void warnFull(boolean allowed) {
        synchronized (tableLock) {
            if (allowed && !warnedAllowedFull) {
                warnedAllowedFull = true;
                log.warn("agent table full ({} allowed agents): further agents share one rate bucket and are counted "
                        + "only in the untracked total", maxAgents);
            } else if (!allowed && !warnedRefusedFull) {
                warnedRefusedFull = true;
                log.warn("agent table full ({} agents refused by prefix): further refusals are counted only in the "
                        + "totals", maxAgents);
            }
        }
    }

    private static void insert(Agent[] t, Agent a) {
        int mask = t.length - 1;
        int i = slot(a.hi, a.lo, mask);
        while (t[i] != null) {
            i = (i + 1) & mask;
        }
        SLOTS.setRelease(t, i, a);
    }

    /**
     * The agents with the most refused datagrams, for metrics (allocates; not for the hot path). Agents refused by
     * prefix and agents over their rate are ranked together; untracked agents are not listed (see {@link #untracked};
     * refusals by the shared overflow bucket are in {@link #refusedRate} only).
     *
     * @param n how many agents at most (≥ 0)
     * @return up to {@code n} agents with at least one refusal, most refusals first (ties: by address)
     * @throws IllegalArgumentException if {@code n} is negative
     */
    public List<AgentRefusals> topRefused(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n must be >= 0, got " + n);
        }
        if (n == 0) {
            return List.of();
        }
        java.util.Comparator<AgentRefusals> order = java.util.Comparator.comparingLong(AgentRefusals::refused)
                .thenComparing(AgentRefusals::hi, (x, y) -> -Long.compareUnsigned(x, y))
                .thenComparing(AgentRefusals::lo, (x, y) -> -Long.compareUnsigned(x, y));
        PriorityQueue<AgentRefusals> top = new PriorityQueue<>(order); // head = the weakest kept
        for (Agent a : table) {
            if (a == null) {
                continue;
            }
            long r = a.refused;
            if (r == 0) {
                continue;
            }
            AgentRefusals x = new AgentRefusals(a.hi, a.lo, a.allowed ? REFUSED_RATE : REFUSED_PREFIX, r);
            if (top.size() < n) {
                top.add(x);
            } else if (order.compare(x, top.peek()) > 0) {
                top.poll();
                top.add(x);
            }
        }
        List<AgentRefusals> out = new ArrayList<>(top);
        out.sort(order.reversed());
        return Collections.unmodifiableList(out);
    }

    /** @return agents tracked individually: allowed ones (holding a bucket) plus ones refused by prefix. */
    public int trackedAgents() {
        return allowedAgents + refusedAgents;
    }

    /**
     * @param result {@link #ADMIT}, {@link #REFUSED_PREFIX} or {@link #REFUSED_RATE}
     * @return datagrams with that result so far
     * @throws IllegalArgumentException for another value
     */
    public long count(int result) {
        return switch (result) {
            case ADMIT -> admitted.sum();
            case REFUSED_PREFIX -> refusedPrefix.sum();
            case REFUSED_RATE -> refusedRate.sum();
            default -> throw new IllegalArgumentException("no admission result " + result);
        };
    }

    /**
     * @param result an {@link #admit} result
     * @return its label for metrics and logs: {@code admitted}, {@code prefix}, {@code rate}
     */
    public static String resultName(int result) {
        return switch (result) {
            case ADMIT -> "admitted";
            case REFUSED_PREFIX -> "prefix";
            case REFUSED_RATE -> "rate";
            default -> throw new IllegalArgumentException("no admission result " + result);
        };
    }

    /**
     * Counts a datagram whose agent address cannot be read (too short, not sFlow v5, unknown address type) as refused
     * by prefix: with an allowlist it has no allowed agent.
     *
     * @return true (for use in a condition)
     */
    public boolean refuseUnreadable() {
        refusedPrefix.increment();
        return true;
    }

    /** @return true when the allowlist is empty (every address passes the prefix check). */
    public boolean acceptsAll() {
        return acceptAll;
    }

    /** @return the allowlist, normalised ({@code 10.0.0.0/8}, {@code 2001:db8::/32}), in the given order. */
    public List<String> prefixes() {
        List<String> out = new ArrayList<>(prefixHi.length);
        for (int i = 0; i < prefixHi.length; i++) {
            boolean mapped = prefixHi[i] == 0 && (prefixLo[i] >>> 32) == 0xFFFFL && prefixLen[i] >= 96;
            out.add(mapped ? IpAddresses.dottedQuad((int) prefixLo[i]) + "/" + (prefixLen[i] - 96)
                    : IpAddresses.ipv6String(prefixHi[i], prefixLo[i]) + "/" + prefixLen[i]);
        }
        return out;
    }

    /** @return the rate limit, datagrams per second per agent (0 = unlimited). */
    public long ratePerSecond() {
        return rate;
    }

    /** @return the bucket capacity, datagrams (0 when there is no rate limit). */
    public long burst() {
        return burst;
    }

    /**
     * Reads the agent address from a raw sFlow v5 datagram without decoding it (sFlow v5 {@code sample_datagram_v5}:
     * version, agent address type, agent address), so that admission can run before the raw sinks. Allocates nothing.
     *
     * @param data datagram buffer
     * @param off offset of the datagram
     * @param len datagram length, bytes
     * @param dst16 receives the address, 16 bytes, IPv4-mapped
     * @return false (and {@code dst16} unchanged) when the datagram is too short, not version 5 or has an unknown
     *     address type; the decoder then rejects and counts it
     */
    public static boolean readAgentAddress(byte[] data, int off, int len, byte[] dst16) {
        if (len < 12 || be32(data, off) != SflowFormats.VERSION_5) {
            return false;
        }
        int type = be32(data, off + 4);
        if (type == SflowFormats.ADDRESS_IPV4) {
            java.util.Arrays.fill(dst16, 0, 10, (byte) 0);
            dst16[10] = (byte) 0xFF;
            dst16[11] = (byte) 0xFF;
            System.arraycopy(data, off + 8, dst16, 12, 4);
            return true;
        }
        if (type == SflowFormats.ADDRESS_IPV6 && len >= 24) {
            System.arraycopy(data, off + 8, dst16, 0, 16);
            return true;
        }
        return false;
    }

    @Override
    public String toString() {
        return "Admission[" + (acceptAll ? "any address" : String.join(",", prefixes())) + ", "
                + (rate == 0 ? "no rate limit" : rate + "/s per agent, burst " + burst) + "]";
    }

    private static int be32(byte[] a, int o) {
        return (a[o] & 0xFF) << 24 | (a[o + 1] & 0xFF) << 16 | (a[o + 2] & 0xFF) << 8 | (a[o + 3] & 0xFF);
    }

    private static long be64(byte[] a, int o) {
        return (long) be32(a, o) << 32 | (be32(a, o + 4) & 0xFFFFFFFFL);
    }
}
