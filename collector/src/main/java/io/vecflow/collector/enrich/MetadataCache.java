package io.vecflow.collector.enrich;

import io.vecflow.collector.schema.ExporterInfo;
import io.vecflow.collector.schema.InterfaceInfo;
import io.vecflow.collector.schema.Label;
import io.vecflow.common.IpAddresses;
import io.vecflow.common.LongObjectMap;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exporter and interface metadata for the row path: a bounded cache of immutable snapshots, filled and refreshed
 * in the background from three sources, merged field by field in the configured order (default
 * {@code static, snmp, sflow}: the first source that knows a field gives it), then classified ({@link Classifier}).
 *
 * <ul>
 *   <li>{@code static}: {@link StaticExporter} entries of the configuration;</li>
 *   <li>{@code snmp}: a {@link MetadataPoller}, asked in the background for an exporter's unknown interfaces, and
 *       again for all its known ones every {@link Settings#refreshMs}; after a failure, not before
 *       {@link Settings#failureBackoffMs};</li>
 *   <li>{@code sflow}: the agents' own counter samples: the port name record (0:1005) for the ifName, if_counters
 *       (0:1) ifSpeed for the speed, host_descr (0:2000) hostname for the exporter name.</li>
 * </ul>
 *
 * <p>The row path ({@link #exporter}, {@link Exporter#iface}) reads volatile snapshots without locks or allocation;
 * a miss (new exporter, new ifIndex) takes the exporter's lock once, stores what the sources know now (often nothing)
 * and asks the poller; later rows get the answer. Exporters not seen for {@link Settings#expireMs} are evicted.
 * At most {@link Settings#maxExporters} exporters and {@link Settings#maxInterfaces} interfaces per exporter are
 * kept; beyond, rows get no metadata (counted in {@link EnrichmentStats#cacheFull}).
 */
public final class MetadataCache implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MetadataCache.class);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    /** The metadata sources, by name. */
    public static final List<String> SOURCES = List.of("static", "snmp", "sflow");

    /** Cache settings (Akvorado's defaults where it has them, docs/enrichment.md §4). */
    public static final class Settings {
        /** Source order, a permutation of a subset of {@link #SOURCES}. */
        public List<String> sources = SOURCES;
        /** Re-poll an exporter's interfaces when its last poll is older than this, ms (default 1 h). */
        public long refreshMs = TimeUnit.HOURS.toMillis(1);
        /** Evict an exporter not seen for this long, ms (default 30 min... at least the refresh). */
        public long expireMs = TimeUnit.HOURS.toMillis(2);
        /** Background check interval, ms. */
        public long checkMs = 1000;
        /** After a failed poll, wait this long before asking that exporter again, ms. */
        public long failureBackoffMs = TimeUnit.MINUTES.toMillis(1);
        /** Most exporters cached. */
        public int maxExporters = 10_000;
        /** Most interfaces cached per exporter. */
        public int maxInterfaces = 65_536;
    }

    /** One exporter's metadata: the merged snapshot the row path reads, and what each source gave. */
    public final class Exporter {
        final long hi, lo;
        final String addressText;
        final InetAddress inet;
        final StaticExporter staticEntry;
        /** Merged and classified; read per row. */
        volatile ExporterInfo info = ExporterInfo.EMPTY;
        /** ifIndex → merged and classified interface; immutable once published, replaced on change. */
        volatile LongObjectMap<InterfaceInfo> interfaces = new LongObjectMap<>(8);
        /** Last time a row of this exporter was seen (ns, System.nanoTime; racy, only for eviction). */
        long lastSeenNanos;
        // Guarded by this:
        String snmpName = "";
        final LongObjectMap<StaticExporter.Interface> snmpInterfaces = new LongObjectMap<>(8);
        String sflowName = "";
        final LongObjectMap<StaticExporter.Interface> sflowInterfaces = new LongObjectMap<>(8);
        final Set<Long> pending = new LinkedHashSet<>();
        final Set<Long> known = new LinkedHashSet<>();
        boolean inFlight;
        long lastPollNanos;
        long failedUntilNanos;
        boolean polledOnce;

        Exporter(long hi, long lo, byte[] address16) {
            this.hi = hi;
            this.lo = lo;
            this.addressText = IpAddresses.toString(address16, 0, 16);
            InetAddress a;
            try {
                a = InetAddress.getByAddress(isMapped(hi, lo) ? Arrays.copyOfRange(address16, 12, 16) : address16);
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e);
            }
            this.inet = a;
            this.staticEntry = staticFor(address16);
            if (poller != null) {
                pending.add(0L); // ask for the sysName even before an interface is seen
            }
        }

        /** @return the exporter's merged, classified name and classification (never null). */
        public ExporterInfo info() {
            return info;
        }

        /** @return the exporter's address as text. */
        public String address() {
            return addressText;
        }

        /**
         * The metadata of one interface, for the row path: a snapshot read; on a miss (first row through that
         * ifIndex) what the sources know now, and a poll is requested.
         *
         * @param ifIndex the ifIndex (not 0)
         * @return the interface (never null; {@link InterfaceInfo#EMPTY} when nothing is known)
         */
        public InterfaceInfo iface(long ifIndex) {
            InterfaceInfo v = interfaces.get(ifIndex);
            return v != null ? v : miss(this, ifIndex);
        }
    }

    private final Settings settings;
    private final List<StaticExporter> statics;
    private final Classifier exporterRules;
    private final Classifier interfaceRules;
    private final MetadataPoller poller;
    private final EnrichmentStats stats;
    private final int[] order;
    private final Object tableLock = new Object();
    /** Open addressing by (hi, lo); power-of-two length; replaced (never mutated) when an exporter is added. */
    private volatile Exporter[] table = new Exporter[64];
    private int count;
    private final Thread background;
    private volatile boolean closed;
    /**
     * Coarse clock (System.nanoTime) the background thread refreshes every {@link Settings#checkMs}; rows stamp their
     * exporter with it for eviction (a row's own time may be old: a replay).
     */
    volatile long nowNanos = System.nanoTime();

    /**
     * @param settings cache settings
     * @param statics static exporters
     * @param exporterRules exporter classifier
     * @param interfaceRules interface classifier
     * @param poller SNMP (or another remote source), or null
     * @param stats counters
     * @throws IllegalArgumentException for an unknown or repeated source name
     */
    public MetadataCache(Settings settings, List<StaticExporter> statics, Classifier exporterRules,
            Classifier interfaceRules, MetadataPoller poller, EnrichmentStats stats) {
        this.settings = settings;
        this.statics = List.copyOf(statics);
        this.exporterRules = exporterRules;
        this.interfaceRules = interfaceRules;
        this.stats = stats;
        this.order = new int[settings.sources.size()];
        for (int i = 0; i < order.length; i++) {
            String s = settings.sources.get(i).toLowerCase(Locale.ROOT);
            order[i] = SOURCES.indexOf(s);
            if (order[i] < 0 || settings.sources.subList(0, i).contains(s)) {
                throw new IllegalArgumentException("metadata source '" + s + "' is unknown or repeated (known: "
                        + SOURCES + ")");
            }
        }
        this.poller = settings.sources.contains("snmp") ? poller : null;
        this.background = Thread.ofPlatform().daemon().name("vecflow-metadata").start(this::backgroundLoop);
    }

    /**
     * The exporter of a row (row path): lock-free lookup; the first row of a new exporter adds it.
     *
     * @param address16 the agent address, 16 bytes (IPv4 mapped)
     * @param nowNanos System.nanoTime or the row's time, for eviction
     * @return the exporter, or null when the cache is full
     */
    public Exporter exporter(byte[] address16, long nowNanos) {
        long hi = (long) LONG.get(address16, 0);
        long lo = (long) LONG.get(address16, 8);
        Exporter[] t = table;
        int mask = t.length - 1;
        for (int i = hash(hi, lo) & mask; ; i = (i + 1) & mask) {
            Exporter e = t[i];
            if (e == null) {
                break;
            }
            if (e.hi == hi && e.lo == lo) {
                e.lastSeenNanos = nowNanos;
                return e;
            }
        }
        Exporter e = add(hi, lo, address16);
        if (e != null) {
            e.lastSeenNanos = nowNanos;
        }
        return e;
    }

    private static int hash(long hi, long lo) {
        long h = (hi * 0x9E3779B97F4A7C15L) ^ (lo * 0xC2B2AE3D27D4EB4FL);
        return (int) (h ^ (h >>> 29) ^ (h >>> 41));
    }

    private static boolean isMapped(long hi, long lo) {
        return hi == 0 && (lo >>> 32) == 0xFFFFL;
    }

    private Exporter add(long hi, long lo, byte[] address16) {
        synchronized (tableLock) {
            Exporter found = find(table, hi, lo);
            if (found != null) {
                return found;
            }
            if (count >= settings.maxExporters) {
                stats.cacheFull.increment();
                return null;
            }
            Exporter e = new Exporter(hi, lo, address16);
            synchronized (e) {
                rebuildAll(e);
            }
            Exporter[] t = table;
            int len = (count + 1) * 2 > t.length ? t.length * 2 : t.length;
            Exporter[] n = new Exporter[len];
            for (Exporter x : t) {
                if (x != null) {
                    insert(n, x);
                }
            }
            insert(n, e);
            count++;
            table = n;
            if (poller != null) {
                LockSupport.unpark(background);
            }
            return e;
        }
    }

    private static Exporter find(Exporter[] t, long hi, long lo) {
        int mask = t.length - 1;
        for (int i = hash(hi, lo) & mask; ; i = (i + 1) & mask) {
            Exporter e = t[i];
            if (e == null) {
                return null;
            }
            if (e.hi == hi && e.lo == lo) {
                return e;
            }
        }
    }

    private static void insert(Exporter[] t, Exporter e) {
        int mask = t.length - 1;
        int i = hash(e.hi, e.lo) & mask;
        while (t[i] != null) {
            i = (i + 1) & mask;
        }
        t[i] = e;
    }

    private InterfaceInfo miss(Exporter e, long ifIndex) {
        synchronized (e) {
            InterfaceInfo v = e.interfaces.get(ifIndex);
            if (v != null) {
                return v;
            }
            if (e.interfaces.size() >= settings.maxInterfaces) {
                stats.cacheFull.increment();
                return InterfaceInfo.EMPTY;
            }
            e.known.add(ifIndex);
            v = merged(e, ifIndex);
            publish(e, ifIndex, v);
            if (poller != null) {
                e.pending.add(ifIndex);
                LockSupport.unpark(background);
            }
            return v;
        }
    }

    /** Puts one interface into a copy of the exporter's snapshot. Caller holds the exporter's lock. */
    private static void publish(Exporter e, long ifIndex, InterfaceInfo v) {
        LongObjectMap<InterfaceInfo> old = e.interfaces;
        LongObjectMap<InterfaceInfo> n = new LongObjectMap<>(Math.max(8, old.size() * 2 + 2));
        for (long k : e.known) {
            InterfaceInfo x = old.get(k);
            if (x != null) {
                n.put(k, x);
            }
        }
        n.put(ifIndex, v);
        e.interfaces = n;
    }

    /** Recomputes the exporter and every known interface. Caller holds the exporter's lock. */
    private void rebuildAll(Exporter e) {
        e.info = mergedExporter(e);
        LongObjectMap<InterfaceInfo> n = new LongObjectMap<>(Math.max(8, e.known.size() * 2));
        for (long i : e.known) {
            n.put(i, merged(e, i));
        }
        e.interfaces = n;
    }

    private ExporterInfo mergedExporter(Exporter e) {
        String name = "";
        for (int s : order) {
            String v = switch (s) {
                case 0 -> e.staticEntry == null ? "" : e.staticEntry.exporter().name();
                case 1 -> e.snmpName;
                default -> e.sflowName;
            };
            if (v != null && !v.isEmpty()) {
                name = v;
                break;
            }
        }
        StaticExporter.Exporter st = e.staticEntry == null || !settings.sources.contains("static") ? null
                : e.staticEntry.exporter();
        ExporterInfo in = new ExporterInfo(Label.of(name), Label.of(st == null ? "" : st.group()),
                Label.of(st == null ? "" : st.role()), Label.of(st == null ? "" : st.site()),
                Label.of(st == null ? "" : st.region()), Label.of(st == null ? "" : st.tenant()));
        return exporterRules.classify(e.addressText, in);
    }

    private InterfaceInfo merged(Exporter e, long ifIndex) {
        String name = "";
        String description = "";
        long speed = 0;
        for (int s : order) {
            StaticExporter.Interface v = source(e, s, ifIndex);
            if (v == null) {
                continue;
            }
            name = name.isEmpty() && v.name() != null ? v.name() : name;
            description = description.isEmpty() && v.description() != null ? v.description() : description;
            speed = speed == 0 ? v.speedMbps() : speed;
        }
        StaticExporter.Interface st = settings.sources.contains("static") ? source(e, 0, ifIndex) : null;
        int boundary = st == null || st.boundary() == null || st.boundary().isEmpty() ? InterfaceInfo.UNDEFINED
                : InterfaceInfo.BOUNDARIES.indexOf(st.boundary());
        InterfaceInfo in = new InterfaceInfo(Label.of(name), Label.of(description), speed, Math.max(0, boundary),
                Label.of(st == null ? "" : st.provider()), Label.of(st == null ? "" : st.connectivity()));
        return interfaceRules.classify(e.addressText, e.info.name().text, ifIndex, in);
    }

    private static StaticExporter.Interface source(Exporter e, int source, long ifIndex) {
        return switch (source) {
            case 0 -> e.staticEntry == null ? null
                    : e.staticEntry.interfaces().getOrDefault(ifIndex, e.staticEntry.defaultInterface());
            case 1 -> e.snmpInterfaces.get(ifIndex);
            default -> e.sflowInterfaces.get(ifIndex);
        };
    }

    private StaticExporter staticFor(byte[] address16) {
        StaticExporter best = null;
        int bestLength = -1;
        for (StaticExporter s : statics) {
            int len = Prefixes.matchLength(s.prefix(), address16);
            if (len > bestLength) {
                best = s;
                bestLength = len;
            }
        }
        return best;
    }

    /**
     * What an agent's counter sample says of its interface and itself (the {@code sflow} source): called per counter
     * sample; allocation-free unless something changed.
     *
     * @param agent16 the agent address, 16 bytes
     * @param ifIndex the if_counters ifIndex, or 0 when the sample has none
     * @param ifSpeedBps if_counters ifSpeed in bit/s (0 unknown)
     * @param portName the port name record's bytes (null when absent)
     * @param portNameOff offset of the name
     * @param portNameLen length of the name
     * @param hostname host_descr hostname's bytes (null when absent)
     * @param hostnameOff offset
     * @param hostnameLen length
     * @param nowNanos now (System.nanoTime)
     */
    public void learn(byte[] agent16, long ifIndex, long ifSpeedBps, byte[] portName, int portNameOff,
            int portNameLen, byte[] hostname, int hostnameOff, int hostnameLen, long nowNanos) {
        Exporter e = exporter(agent16, nowNanos);
        if (e == null) {
            return;
        }
        if (hostname != null && hostnameLen > 0 && !same(e.sflowName, hostname, hostnameOff, hostnameLen)) {
            synchronized (e) {
                e.sflowName = text(hostname, hostnameOff, hostnameLen);
                stats.sflowUpdates.increment();
                rebuildAll(e);
            }
        }
        if (ifIndex == 0) {
            return;
        }
        StaticExporter.Interface old = sflowInterface(e, ifIndex);
        long speedMbps = Math.min(Long.divideUnsigned(ifSpeedBps, 1_000_000), 0xFFFF_FFFFL); // ifSpeed is a u64
        boolean nameChanged = portName != null && portNameLen > 0
                && (old == null || !same(old.name(), portName, portNameOff, portNameLen));
        if (old != null && !nameChanged && old.speedMbps() == speedMbps) {
            return;
        }
        synchronized (e) {
            String name = nameChanged ? text(portName, portNameOff, portNameLen) : old == null ? "" : old.name();
            e.sflowInterfaces.put(ifIndex, new StaticExporter.Interface(name, "", speedMbps, "", "", ""));
            stats.sflowUpdates.increment();
            if (e.interfaces.size() < settings.maxInterfaces || e.interfaces.get(ifIndex) != null) {
                if (e.known.add(ifIndex) && poller != null) {
                    e.pending.add(ifIndex); // SNMP, ahead in the order, may know more (description)
                }
                publish(e, ifIndex, merged(e, ifIndex));
            }
        }
    }

    private static StaticExporter.Interface sflowInterface(Exporter e, long ifIndex) {
        synchronized (e) {
            return e.sflowInterfaces.get(ifIndex);
        }
    }

    private static boolean same(String s, byte[] b, int off, int len) {
        if (s.length() != len) {
            return false; // ASCII names compare by length first; a non-ASCII name just re-decodes
        }
        for (int i = 0; i < len; i++) {
            if (s.charAt(i) != (b[off + i] & 0xFF)) {
                return false;
            }
        }
        return true;
    }

    private static String text(byte[] b, int off, int len) {
        return new String(b, off, Math.min(len, Label.MAX_BYTES), java.nio.charset.StandardCharsets.UTF_8)
                .replace("\0", "");
    }

    /** @return exporters cached. */
    public int exporters() {
        return count;
    }

    /** @return interfaces cached, over every exporter. */
    public long interfaces() {
        long n = 0;
        for (Exporter e : table) {
            if (e != null) {
                n += e.interfaces.size();
            }
        }
        return n;
    }

    private void backgroundLoop() {
        while (!closed) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(settings.checkMs));
            if (closed) {
                return;
            }
            try {
                long now = System.nanoTime();
                nowNanos = now;
                for (Exporter e : table) {
                    if (e != null && poller != null) {
                        maybePoll(e, now);
                    }
                }
                evict(now);
            } catch (RuntimeException ex) {
                log.warn("metadata cache background step failed: {}", ex.toString());
            }
        }
    }

    private void maybePoll(Exporter e, long now) {
        long[] ask;
        synchronized (e) {
            if (e.inFlight || now - e.failedUntilNanos < 0) {
                return;
            }
            boolean refresh = e.polledOnce && now - e.lastPollNanos > TimeUnit.MILLISECONDS.toNanos(settings.refreshMs);
            if (e.pending.isEmpty() && !refresh) {
                return;
            }
            Set<Long> s = new LinkedHashSet<>(refresh ? e.known : List.of());
            s.addAll(e.pending);
            s.remove(0L);
            ask = s.stream().mapToLong(Long::longValue).toArray();
            e.pending.clear();
            e.inFlight = true;
            e.lastPollNanos = now;
        }
        stats.polls.increment();
        poller.poll(e.inet, ask).whenComplete((answer, failure) -> {
            synchronized (e) {
                e.inFlight = false;
                if (failure != null) {
                    stats.pollFailures.increment();
                    e.failedUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.failureBackoffMs);
                    for (long i : ask) {
                        e.pending.add(i); // asked again after the back-off
                    }
                    if (ask.length == 0) {
                        e.pending.add(0L);
                    }
                    log.warn("metadata poll of {} failed ({} interfaces; next try in {} s): {}", e.addressText,
                            ask.length, settings.failureBackoffMs / 1000, rootMessage(failure));
                    return;
                }
                e.polledOnce = true;
                e.snmpName = answer.sysName() == null ? "" : answer.sysName();
                answer.interfaces().forEach(e.snmpInterfaces::put);
                stats.pollNotFound.add(answer.notFound().size());
                rebuildAll(e);
            }
        });
    }

    private static String rootMessage(Throwable t) {
        while (t.getCause() != null && (t instanceof java.util.concurrent.CompletionException
                || t instanceof java.util.concurrent.ExecutionException)) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }

    private void evict(long now) {
        long limit = TimeUnit.MILLISECONDS.toNanos(settings.expireMs);
        if (limit <= 0) {
            return;
        }
        synchronized (tableLock) {
            List<Exporter> keep = new ArrayList<>();
            int evicted = 0;
            for (Exporter e : table) {
                if (e == null) {
                    continue;
                }
                if (now - e.lastSeenNanos > limit) {
                    evicted++;
                } else {
                    keep.add(e);
                }
            }
            if (evicted == 0) {
                return;
            }
            Exporter[] n = new Exporter[table.length];
            keep.forEach(x -> insert(n, x));
            count = keep.size();
            table = n;
            stats.evictions.add(evicted);
        }
    }

    @Override
    public void close() {
        closed = true;
        if (background != null) {
            LockSupport.unpark(background);
        }
        if (poller != null) {
            poller.close();
        }
    }
}
