package io.vecflow.hsflowd.counters;

import io.vecflow.common.LongObjectMap;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.sflow.CounterSample;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's counter polling (hsflowd's pollers): every {@code polling} seconds one expanded counters sample (0:4)
 * per interface (source 0:ifIndex, {@link InterfaceCounters}; the counters are totals since the interface was first
 * seen, as hsflowd reports them, {@link CounterAccumulator}: the first sample of an interface carries zeros) and one
 * for the host (source 2:1, {@link HostCounters}), handed to the agent ({@link Sink}), which packs them into its
 * datagrams with the flow samples.
 *
 * <p>Polls are staggered across the interval as VPP's sflow plugin does (docs/netlink.md §8, "Counter polling"): a
 * source is due in the seconds whose number since the poller started is congruent to its key modulo the interval — the
 * ifIndex for an interface, 0 for the host — so the host and interfaces 0, interval, 2·interval, … go at once and the
 * others spread over the following seconds. (hsflowd draws a random start per poller instead.) An interface found later
 * is polled at its next slot. If the calling thread stalls for several seconds, every slot passed meanwhile is polled
 * at the next tick. Each source keeps its own sequence_number, starting at 1 (sflow_version_5.txt: per source_id,
 * separate from the flow samples').
 *
 * <p>Interfaces come from an RTM_GETLINK dump ({@link RtnlLinkDumper}) made once per second that has a due source;
 * ifSpeed and duplex from {@code /sys/class/net/NAME/{speed,duplex}} (paths built once per interface). Interfaces whose
 * dump carried no IFLA_STATS64 are skipped, so are loopback interfaces (IFF_LOOPBACK: hsflowd never reports
 * loopback; host-sflow {@code readInterfaces.c} marks them and adds no poller), and so are those whose ifIndex a VPP
 * port's IF_COUNTERS report ({@link Sink#vppCountsInterface}: one port, one counters source, as hsflowd). With
 * {@code vpp { osIndex = off }} no Linux interface is reported at all (hsflowd's mod_vpp then suppresses every
 * interface counter sample that is not a VPP port's, {@code evt_cntr_sample}); the host sample still goes. A failed
 * dump or unreadable /proc file is counted and logged once, and polling goes on. Interface polls allocate only the
 * sysfs file streams; host polls what {@link HostCounters} says.
 * Not thread-safe: call from one thread (the agent's module loop).
 */
public final class CounterPoller implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CounterPoller.class);
    private static final long SECOND = 1_000_000_000L;

    /** Per-interface state, created once per ifIndex seen. */
    private static final class IfState {
        final CounterAccumulator counters = new CounterAccumulator(LinkTable.STATS64_FIELDS,
                new int[] {LinkTable.RX_BYTES, LinkTable.TX_BYTES},
                new int[] {LinkTable.RX_PACKETS, LinkTable.TX_PACKETS});
        long sequence;
        long seenInDump;
        Path speed;
        Path duplex;
    }

    /**
     * Where the poller's samples go: the agent ({@code io.vecflow.hsflowd.SflowAgent} implements it), so that this
     * module does not depend on the agent's package.
     */
    public interface Sink {
        /**
         * @param ifIndex an interface's ifIndex (u32)
         * @return true when a VPP port's IF_COUNTERS already report it (the poller then sends none of its own)
         */
        boolean vppCountsInterface(long ifIndex);

        /**
         * @param s a counters sample (read during the call only)
         * @return false if it could not be put into a datagram
         */
        boolean onCounterSample(CounterSample s);
    }

    private final Sink agent;
    private final int interval;
    /** Whether Linux interfaces are reported (false with {@code vpp { osIndex = off }}). */
    private final boolean linuxInterfaces;
    private final RtnlLinkDumper dumper;
    private final HostCounters host;
    private final Path sysClassNet;
    private final SysNet sysNet = new SysNet();
    private final LinkTable links = new LinkTable();
    private final CounterSample sample = new CounterSample();
    private LongObjectMap<IfState> states = new LongObjectMap<>(64);
    private final long startNanos;
    private long lastSecond = -1;
    private long hostSequence;
    private long dumpCount;
    private long dumpErrors, interfaceSamples, hostSamples, refused, vppCounted, loopbacksSkipped;
    private String lastError;

    /**
     * @param agent where samples go
     * @param pollingSeconds the interval (hsflowd {@code polling}), ≥ 1
     * @param dumper the interface source (owned: closed by {@link #close()})
     * @param host the host record reader
     * @param sysClassNet where interface speed/duplex files are ({@code /sys/class/net})
     * @param startNanos {@link System#nanoTime()} of second 0
     * @throws IllegalArgumentException if {@code pollingSeconds < 1}
     */
    public CounterPoller(Sink agent, int pollingSeconds, RtnlLinkDumper dumper, HostCounters host,
            Path sysClassNet, long startNanos) {
        this(agent, pollingSeconds, dumper, host, sysClassNet, startNanos, true);
    }

    /**
     * As the six-argument constructor, choosing whether Linux interfaces are reported.
     *
     * @param linuxInterfaces false to send only the host sample ({@code vpp { osIndex = off }}: VPP's ports are the
     *        only interfaces, as hsflowd's mod_vpp does then)
     */
    public CounterPoller(Sink agent, int pollingSeconds, RtnlLinkDumper dumper, HostCounters host,
            Path sysClassNet, long startNanos, boolean linuxInterfaces) {
        this.linuxInterfaces = linuxInterfaces;
        if (pollingSeconds < 1) {
            throw new IllegalArgumentException("polling interval must be >= 1 s, got " + pollingSeconds);
        }
        this.agent = agent;
        this.interval = pollingSeconds;
        this.dumper = dumper;
        this.host = host;
        this.sysClassNet = sysClassNet;
        this.startNanos = startNanos;
    }

    /**
     * Opens the poller the config asks for: none when {@code polling = 0} (counters off; VPP divides by zero on 0,
     * docs/netlink.md §6 rule 15), else one on the host's /proc, /sys and the calling thread's network namespace.
     *
     * @return the poller, or null when polling is off
     * @throws NetlinkException if the NETLINK_ROUTE socket cannot be opened
     */
    public static CounterPoller open(HsflowdConfig config, Sink agent) throws NetlinkException {
        return config.polling <= 0 ? null : open(config, agent, HostUuid.forConfig(config).bytes());
    }

    /**
     * As {@link #open(HsflowdConfig, Sink)} with the host UUID already chosen (the command chose it once, so
     * dmidecode is not run again).
     *
     * @param hostUuid the 16 bytes host_descr carries
     */
    public static CounterPoller open(HsflowdConfig config, Sink agent, byte[] hostUuid) throws NetlinkException {
        if (config.polling <= 0) {
            return null;
        }
        return new CounterPoller(agent, config.polling, RtnlLinkDumper.open(), new HostCounters(Path.of("/proc"),
                Path.of("/sys"), hostUuid), Path.of("/sys/class/net"), System.nanoTime(),
                config.vpp == null || config.vpp.osIndex);
    }

    /**
     * Polls what is due at {@code nowNanos}; does nothing if the whole second has not changed since the last call.
     * Call at least once a second (the module loop calls it every 100 ms).
     *
     * @param nowNanos {@link System#nanoTime()}
     */
    public void tick(long nowNanos) {
        long second = Math.floorDiv(nowNanos - startNanos, SECOND);
        if (second <= lastSecond) {
            return;
        }
        long gap = second - lastSecond;
        long from = lastSecond + 1;
        lastSecond = second;
        poll(from, gap);
    }

    /** Polls the host and every interface now, whatever the schedule (tests, and `--check`-style one-shots). */
    public void pollAll() {
        poll(0, interval);
    }

    /** Polls the sources whose slot lies in seconds {@code [from, from + gap)}. */
    private void poll(long from, long gap) {
        try {
            dumper.dump(links);
            dumpCount++;
        } catch (NetlinkException e) {
            dumpErrors++;
            error("interface dump failed: " + e.getMessage());
            links.count = 0;
        }
        if (due(0, from, gap)) {
            hostSequence = (hostSequence + 1) & 0xFFFFFFFFL;
            host.fill(links, hostSequence, sample);
            send(true);
        }
        for (int i = 0; i < links.count; i++) {
            LinkTable.Link l = links.links[i];
            long ifIndex = Integer.toUnsignedLong(l.ifIndex);
            IfState st = states.get(ifIndex);
            if (st == null) {
                st = new IfState();
                String name = l.nameString();
                st.speed = sysClassNet.resolve(name).resolve("speed");
                st.duplex = sysClassNet.resolve(name).resolve("duplex");
                states.put(ifIndex, st);
            }
            st.seenInDump = dumpCount;
            if (!l.hasStats || !linuxInterfaces || !due(ifIndex, from, gap)) {
                continue;
            }
            if ((l.flags & InterfaceCounters.IFF_LOOPBACK) != 0) {
                loopbacksSkipped++; // hsflowd never reports loopback
                continue;
            }
            if (agent.vppCountsInterface(ifIndex)) {
                vppCounted++; // VPP's IF_COUNTERS report this port (hsflowd: procNetDev = NO)
                continue;
            }
            st.sequence = (st.sequence + 1) & 0xFFFFFFFFL;
            InterfaceCounters.fill(l, st.counters.accumulate(l.stats), sysNet.speedBps(st.speed),
                    sysNet.direction(st.duplex), st.sequence, sample);
            send(false);
        }
        if (states.size() > 2 * links.count + 256) {
            prune();
        }
    }

    private boolean due(long key, long from, long gap) {
        if (gap >= interval) {
            return true;
        }
        long slot = Math.floorMod(key - from, interval); // seconds from `from` to this key's next slot
        return slot < gap;
    }

    private void send(boolean isHost) {
        if (agent.onCounterSample(sample)) {
            if (isHost) {
                hostSamples++;
            } else {
                interfaceSamples++;
            }
        } else {
            refused++;
            error("a counters sample for source " + sample.sourceIdType + ":" + sample.sourceIdIndex
                    + " does not fit datagramBytes");
        }
    }

    /** Drops the state of interfaces gone from the dumps (rare: rebuilds the map). */
    private void prune() {
        LongObjectMap<IfState> kept = new LongObjectMap<>(Math.max(64, links.count * 2));
        for (int i = 0; i < links.count; i++) {
            long k = Integer.toUnsignedLong(links.links[i].ifIndex);
            IfState st = states.get(k);
            if (st != null) {
                kept.put(k, st);
            }
        }
        states = kept;
    }

    private void error(String message) {
        if (lastError == null) {
            log.warn("counter polling: {} (further errors counted only)", message);
        }
        lastError = message;
    }

    /** @return interface counter samples handed to the agent. */
    public long interfaceSamples() {
        return interfaceSamples;
    }

    /** @return interface polls left to the vpp module, whose IF_COUNTERS report that ifIndex. */
    public long vppCounted() {
        return vppCounted;
    }

    /** @return interface polls skipped because the interface is a loopback (IFF_LOOPBACK). */
    public long loopbacksSkipped() {
        return loopbacksSkipped;
    }

    /** @return host counter samples handed to the agent. */
    public long hostSamples() {
        return hostSamples;
    }

    /** @return samples the agent could not fit in a datagram. */
    public long refused() {
        return refused;
    }

    /** @return failed interface dumps. */
    public long dumpErrors() {
        return dumpErrors;
    }

    /** @return the last error message, or null. */
    public String lastError() {
        return lastError;
    }

    /** @return the host record reader (its read and parse error counters). */
    public HostCounters host() {
        return host;
    }

    /** @return the interfaces of the last dump. */
    public LinkTable links() {
        return links;
    }

    @Override
    public void close() {
        dumper.close();
    }
}
