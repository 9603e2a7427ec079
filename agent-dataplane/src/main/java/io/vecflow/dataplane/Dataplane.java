package io.vecflow.dataplane;

import io.vecflow.dataplane.control.DataplaneControl.Direction;
import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.FeatureArc;
import io.vecflow.dataplane.graph.Graph;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.plugins.DataplanePlugin;
import io.vecflow.dataplane.port.PcapReplayPort;
import io.vecflow.dataplane.port.SinkPort;
import io.vecflow.dataplane.sflow.IngressSampleHold;
import io.vecflow.dataplane.sflow.LbCounterSource;
import io.vecflow.dataplane.sflow.SampleFifo;
import io.vecflow.dataplane.sflow.SflowMainThread;
import io.vecflow.dataplane.sflow.SflowNode;
import io.vecflow.dataplane.vnet.error.DropNode;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.error.ErrorDropNode;
import io.vecflow.dataplane.vnet.ethernet.EthernetInputNode;
import io.vecflow.dataplane.vnet.ethernet.L2XconnectNode;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceOutputNode;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.dataplane.vnet.interfaces.Port;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;
import io.vecflow.dataplane.vnet.interfaces.PortInputNode;
import io.vecflow.dataplane.vnet.interfaces.PortOutputNode;
import io.vecflow.dataplane.vnet.ip.IpInputNode;
import io.vecflow.dataplane.vnet.ip.IpLookupNode;
import io.vecflow.dataplane.vnet.ip.IpRewriteNode;
import io.vecflow.netlink.netdm.NetDmEmitter;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.vpp.VppUsersockEmitter;
import io.vecflow.packet.PcapFile;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A running dataplane: W workers, each with its buffer pool, sample and discard FIFOs and one instance of the graph
 *
 * <pre>
 * port-input → [device-input arc: sflow] → ethernet-input → l2-xconnect ─────────────────────────┐
 *                                                         → ip4-input → [ip4-unicast arc: clove4, lb4] → ip4-lookup →
 * ip4-rewrite ┤                                                         → ip6-input → [ip6-unicast arc: lb6] →
 * ip6-lookup → ip6-rewrite ┤ interface-output → [interface-output arc: sflow-egress] → port-output
 * ◄─┘ error-drop (per reason, per interface) → [error-drop arc: sflow-drop] → drop
 * </pre>
 *
 * and the {@link SflowMainThread} that turns samples into PSAMPLE, discards into NET_DM alerts and port counters
 * into VPP IF_COUNTERS. Settings change at run time through the methods below (the control socket calls them).
 *
 * <p>Plugins ({@link DataplanePlugin}, found by the service loader and ordered by rank) add their feature nodes to the
 * ip4-unicast/ip6-unicast arcs, register their nodes in every worker's graph and enable their features; the dataplane
 * names none of them. {@link #plugin(Class)} reaches a plugin's running part (its load balancer, server agent,
 * vSwitch).
 */
public final class Dataplane implements AutoCloseable {
    /** hsflowd's default {@code vpp { ifOffset }}: the OSINDEX of port i without a configured one is this + i. */
    public static final long DEFAULT_IF_OFFSET = InterfaceTable.DEFAULT_IF_OFFSET;

    /** Replay-demo settings (defaults as in VPP where VPP has one). */
    public static final class Settings {
        /** Worker threads (default 2). */
        public int workers = 2;
        /** sFlow sampling rate N (default 10000, VPP's default; 0 disables). */
        public int samplingRate = 10_000;
        /** Header bytes copied per sample (default 128, max 256). */
        public int headerBytes = 128;
        /** Sample FIFO records per worker (default 2047, VPP's usable ring size). */
        public int fifoCapacity = 2047;
        /** Buffers per worker (default 4096). */
        public int buffersPerWorker = 4096;
        /** ifIndex of the replay port (default 1). */
        public int ifIndex = 1;
        /** ifIndex the xconnect output sends to (default 2). */
        public int xconnectIfIndex = 2;
        /** true: frames are cross-connected to the output port; false: dropped (default true). */
        public boolean xconnect = true;
        /** Capture replays (default 1). */
        public long loops = 1;
        /** Total packets/s, 0 = as fast as possible (default 0). */
        public double packetsPerSecond;
        /** PSAMPLE sample group for ingress samples (default 1). */
        public int sampleGroup = 1;
    }

    /** Totals over all workers, read while running or after. */
    public record Stats(long packetsReplayed, long bytesReplayed, long samplePool, long samplesTaken,
            long fifoDrops, long psampleSent, long psampleFailed, long fifoDropsCarried, long outputPackets,
            long ip4, long ip6, long otherEthertypes) {}

    private final DataplaneSpec topology;
    private final InterfaceTable interfaces;
    private final AtomicReference<Forwarding> forwarding;
    private final FeatureArc deviceInput = new FeatureArc("device-input", EthernetInputNode.NAME, SflowNode.NAME);
    private final FeatureArc ip4Unicast;
    private final FeatureArc ip6Unicast;
    private final List<DataplanePlugin.Instance> plugins = new ArrayList<>();
    private final FeatureArc interfaceOutput = new FeatureArc("interface-output", PortOutputNode.NAME,
            SflowNode.EGRESS);
    private final FeatureArc errorDrop = new FeatureArc("error-drop", DropNode.NAME, SflowNode.DROP);
    private final List<Worker> workers = new ArrayList<>();
    private final List<SampleFifo> fifos = new ArrayList<>();
    private final List<SampleFifo> discardFifos = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final SflowMainThread main;
    private final Set<String> sflowEnabled = new LinkedHashSet<>();
    private volatile Direction direction;
    private volatile boolean dropMonitoring;
    private volatile int samplingRate, headerBytes;
    private Thread mainThread;
    private final Settings legacy;

    /**
     * Builds the graph and workers (not started).
     *
     * @param t configuration (its ports must have {@code t.workers} queues)
     * @param psample where PSAMPLE messages go (owned by the caller)
     * @param netDm where NET_DM alerts go, or null
     * @param vpp where IF_COUNTERS/STATUS go, or null
     * @throws IllegalArgumentException for inconsistent settings (named)
     */
    public Dataplane(DataplaneSpec t, PsampleEmitter psample, NetDmEmitter netDm, VppUsersockEmitter vpp) {
        this(t, psample, netDm, vpp, null);
    }

    private Dataplane(DataplaneSpec t, PsampleEmitter psample, NetDmEmitter netDm, VppUsersockEmitter vpp,
            Settings legacy) {
        if (t.interfaces == null) {
            throw new IllegalArgumentException("topology needs interfaces");
        }
        if (t.workers < 1 || t.workers > 64) {
            throw new IllegalArgumentException("workers must be 1..64, got " + t.workers);
        }
        for (Port p : t.interfaces.ports()) {
            if (p.queues() != t.workers) {
                throw new IllegalArgumentException("port " + p.name() + " has " + p.queues() + " queues for "
                        + t.workers + " workers");
            }
        }
        if (t.ifOffset < 0 || t.ifOffset + t.interfaces.maxIfIndex() > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("if-offset " + t.ifOffset + " + ifIndex " + t.interfaces.maxIfIndex()
                    + " is outside the u32 range");
        }
        this.legacy = legacy;
        this.topology = t;
        this.interfaces = t.interfaces;
        this.forwarding = new AtomicReference<>(t.forwarding);
        this.samplingRate = t.samplingRate;
        this.headerBytes = t.headerBytes;
        this.direction = t.direction;
        List<DataplanePlugin> found = new ArrayList<>();
        ServiceLoader.load(DataplanePlugin.class, DataplanePlugin.class.getClassLoader()).forEach(found::add);
        found.sort(Comparator.comparingInt(DataplanePlugin::rank)); // node indices follow the rank, not the loader
        List<Object> settings = t.pluginSettings();
        Set<Object> taken = Collections.newSetFromMap(new IdentityHashMap<>());
        DataplanePlugin.Context ctx = new DataplanePlugin.Context() {
            @Override
            public int workers() {
                return t.workers;
            }

            @Override
            public InterfaceTable interfaces() {
                return interfaces;
            }

            @Override
            public AtomicReference<Forwarding> forwarding() {
                return forwarding;
            }

            @Override
            public <T> T settings(Class<T> type) {
                for (Object o : settings) {
                    if (type.isInstance(o)) {
                        taken.add(o);
                        return type.cast(o);
                    }
                }
                return null;
            }
        };
        for (DataplanePlugin p : found) {
            DataplanePlugin.Instance in = p.create(ctx);
            if (in != null) {
                plugins.add(in);
            }
        }
        for (Object o : settings) {
            if (!taken.contains(o)) { // a plugin missing from META-INF/services must not vanish silently
                throw new IllegalArgumentException("no dataplane plugin takes " + o.getClass().getName());
            }
        }
        Map<String, TreeMap<Integer, List<String>>> features = new HashMap<>();
        for (DataplanePlugin.Instance in : plugins) {
            in.features((arc, node, order) -> features.computeIfAbsent(arc, k -> new TreeMap<>())
                    .computeIfAbsent(order, k -> new ArrayList<>()).add(node));
        }
        this.ip4Unicast = new FeatureArc("ip4-unicast", IpLookupNode.IP4, features(features, "ip4-unicast"));
        this.ip6Unicast = new FeatureArc("ip6-unicast", IpLookupNode.IP6, features(features, "ip6-unicast"));
        Map<String, FeatureArc> arcs = new HashMap<>();
        for (FeatureArc a : featureArcs()) {
            arcs.put(a.name(), a);
        }
        for (String arc : features.keySet()) {
            if (!arcs.containsKey(arc) || arc.equals("device-input") || arc.equals("interface-output")
                    || arc.equals("error-drop")) {
                throw new IllegalArgumentException("a plugin adds a feature to arc " + arc
                        + "; plugins add features to ip4-unicast and ip6-unicast");
            }
        }
        Port[] ports = interfaces.ports().toArray(Port[]::new);
        for (int w = 0; w < t.workers; w++) {
            SampleFifo fifo = new SampleFifo(t.fifoCapacity);
            SampleFifo discards = new SampleFifo(t.discardFifoCapacity);
            fifos.add(fifo);
            discardFifos.add(discards);
            Graph g = new Graph()
                    .arc(deviceInput).arc(ip4Unicast).arc(ip6Unicast).arc(interfaceOutput).arc(errorDrop)
                    .register(PortInputNode.NAME, i -> new PortInputNode(i, ports, deviceInput, ErrorDropNode.NAME))
                    .register(SflowNode.NAME, i -> new SflowNode(i, SflowNode.Direction.INGRESS, t.samplingRate,
                            t.headerBytes, fifo, deviceInput))
                    .register(EthernetInputNode.NAME, i -> new EthernetInputNode(interfaces))
                    .register(L2XconnectNode.NAME, i -> new L2XconnectNode(interfaces))
                    .register(IpInputNode.IP4, i -> new IpInputNode(false, ip4Unicast))
                    .register(IpInputNode.IP6, i -> new IpInputNode(true, ip6Unicast))
                    .register(IpLookupNode.IP4, i -> new IpLookupNode(false, forwarding))
                    .register(IpLookupNode.IP6, i -> new IpLookupNode(true, forwarding))
                    .register(IpRewriteNode.IP4, i -> new IpRewriteNode(false, forwarding, interfaces))
                    .register(IpRewriteNode.IP6, i -> new IpRewriteNode(true, forwarding, interfaces))
                    .register(InterfaceOutputNode.NAME, i -> new InterfaceOutputNode(interfaceOutput))
                    .register(SflowNode.EGRESS, i -> new SflowNode(i, SflowNode.Direction.EGRESS, t.samplingRate,
                            t.headerBytes, fifo, interfaceOutput))
                    .register(PortOutputNode.NAME, i -> new PortOutputNode(i, interfaces))
                    .register(ErrorDropNode.NAME, i -> new ErrorDropNode(errorDrop, interfaces.maxIfIndex()))
                    .register(SflowNode.DROP, i -> new SflowNode(i, SflowNode.Direction.DROP, 1, t.headerBytes,
                            discards, errorDrop))
                    .register(DropNode.NAME, i -> new DropNode());
            for (DataplanePlugin.Instance in : plugins) {
                in.register(g, w, arcs::get);
            }
            Worker worker = new Worker(w, g, new BufferPool(t.buffersPerWorker, BufferPool.DEFAULT_BUFFER_BYTES));
            worker.bufferHold(IngressSampleHold.class, IngressSampleHold::new); // before start: safely published
            workers.add(worker);
        }
        SflowMainThread.Duties d = new SflowMainThread.Duties();
        d.discardFifos = discardFifos;
        d.netDm = netDm;
        d.discardLimitPerSecond = t.discardLimitPerSecond;
        d.vpp = vpp;
        d.ports = interfaces.ports();
        d.graphDropsOn = this::graphDropsOn;
        d.osIndexOf = this::osIndex;
        d.osIndexAttributeOf = this::osIndexAttribute;
        d.egressGroup = t.egressGroup;
        d.pollingIntervalSeconds = t.pollingIntervalSeconds;
        List<LbCounterSource> lbSources = new ArrayList<>();
        for (DataplanePlugin.Instance in : plugins) {
            lbSources.addAll(in.counterSources());
        }
        d.lbCounters = List.copyOf(lbSources);
        this.main = new SflowMainThread(fifos, psample, t.ingressGroup, 4096, d);
        main.macs(interfaces::mac);
        main.names(interfaces::name);
        for (String name : t.sflowInterfaces) {
            enableSflow(name, true);
        }
        setDropMonitoring(t.dropMonitoring);
        for (DataplanePlugin.Instance in : plugins) {
            in.start(arcs::get);
        }
    }

    private static String[] features(Map<String, TreeMap<Integer, List<String>>> features, String arc) {
        List<String> names = new ArrayList<>();
        features.getOrDefault(arc, new TreeMap<>()).values().forEach(names::addAll);
        return names.toArray(String[]::new);
    }

    /**
     * The running part of a plugin ({@link DataplanePlugin.Instance#component()}): the load balancer, the SRLB server
     * agent, the CLOVE vSwitch.
     *
     * @param type the component's class
     * @param <T> its type
     * @return the component of that type, or null when no plugin of this dataplane has one
     */
    public <T> T plugin(Class<T> type) {
        for (DataplanePlugin.Instance in : plugins) {
            Object c = in.component();
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }

    /**
     * The replay demo: a {@link PcapReplayPort} (ifIndex {@code s.ifIndex}) cross-connected to a sink port (ifIndex
     * {@code s.xconnectIfIndex}), or dropping everything when {@code s.xconnect} is false, sFlow ingress sampling on
     * the replay port into PSAMPLE group {@code s.sampleGroup}.
     *
     * @param s settings
     * @param capture Ethernet capture to replay
     * @param emitter where the main thread sends PSAMPLE messages (owned by the caller)
     */
    public Dataplane(Settings s, PcapFile capture, PsampleEmitter emitter) {
        this(topology(s, capture), emitter, null, null, s);
    }

    private static DataplaneSpec topology(Settings s, PcapFile capture) {
        DataplaneSpec t = new DataplaneSpec();
        t.workers = s.workers;
        t.buffersPerWorker = s.buffersPerWorker;
        t.fifoCapacity = s.fifoCapacity;
        t.samplingRate = s.samplingRate;
        t.headerBytes = s.headerBytes;
        t.ingressGroup = s.sampleGroup;
        t.egressGroup = s.sampleGroup + 1;
        t.interfaces = new InterfaceTable(Math.max(s.ifIndex, s.xconnectIfIndex));
        PcapReplayPort in = new PcapReplayPort("pcap0", capture, s.ifIndex, s.workers, s.loops, s.packetsPerSecond);
        t.interfaces.add(in, 0x020000000001L, 9000, false);
        t.interfaces.add(new SinkPort("null0", s.xconnectIfIndex, s.workers), 0x020000000002L, 9000, false);
        if (s.xconnect) {
            t.interfaces.xconnect(s.ifIndex, s.xconnectIfIndex);
        }
        t.sflowInterfaces.add("pcap0");
        return t;
    }

    /** Starts the main thread and the workers. */
    public synchronized void start() {
        mainThread = Thread.ofPlatform().name("vecflow-main").start(main);
        for (Worker w : workers) {
            threads.add(Thread.ofPlatform().name("vecflow-wk-" + w.index()).start(w));
        }
    }

    /**
     * Starts the main thread and the workers, each worker running {@code workerInit} before its first packet (the
     * privilege drop: a worker gives up the capabilities its creator kept for the main thread), and returns once every
     * worker has run it.
     *
     * @param workerInit run first on every worker thread; a failure stops that worker and is rethrown here
     * @throws IllegalStateException a worker's init failed, or they did not all run it within 10 s
     */
    public synchronized void start(Callable<Void> workerInit) {
        CountDownLatch ran = new CountDownLatch(workers.size());
        AtomicReference<Exception> failed = new AtomicReference<>();
        mainThread = Thread.ofPlatform().name("vecflow-main").start(main);
        for (Worker w : workers) {
            threads.add(Thread.ofPlatform().name("vecflow-wk-" + w.index()).start(() -> {
                try {
                    workerInit.call();
                } catch (Exception e) {
                    failed.compareAndSet(null, e);
                    ran.countDown();
                    return;
                }
                ran.countDown();
                w.run();
            }));
        }
        try {
            if (!ran.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the workers did not start within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted starting the workers", e);
        }
        if (failed.get() != null) {
            throw new IllegalStateException("a worker could not start: " + failed.get().getMessage(), failed.get());
        }
    }

    /**
     * Waits until every input is exhausted (replay/generator count), then lets the main thread drain every FIFO.
     *
     * @throws InterruptedException if interrupted
     */
    public void awaitCompletion() throws InterruptedException {
        for (Thread t : threads) {
            t.join();
        }
        main.stop();
        mainThread.join();
    }

    /** Stops workers and the main thread early. */
    public void stop() throws InterruptedException {
        for (Worker w : workers) {
            w.stop();
        }
        awaitCompletion();
    }

    // ---------------------------------------------------------------- control (any thread)

    /**
     * {@code sflow sampling-rate N}: changes N on every worker; 0 disables sampling.
     *
     * @throws IllegalArgumentException for a negative N
     */
    public void setSamplingRate(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("sampling-rate must be >= 0, got " + n);
        }
        samplingRate = n;
        for (Worker w : workers) {
            ((SflowNode) w.node(SflowNode.NAME)).setSamplingRate(n);
            ((SflowNode) w.node(SflowNode.EGRESS)).setSamplingRate(n);
        }
    }

    /**
     * {@code sflow header-bytes B}.
     *
     * @throws IllegalArgumentException unless 64 ≤ B ≤ 256 and B is a multiple of 32
     */
    public void setHeaderBytes(int b) {
        if (b < 64 || b > 256 || b % 32 != 0) {
            throw new IllegalArgumentException("header-bytes must be 64..256 and a multiple of 32, got " + b);
        }
        headerBytes = b;
        for (Worker w : workers) {
            for (String n : new String[] {SflowNode.NAME, SflowNode.EGRESS, SflowNode.DROP}) {
                ((SflowNode) w.node(n)).setHeaderBytes(b);
            }
        }
    }

    /**
     * {@code sflow polling-interval S}.
     *
     * @throws IllegalArgumentException for S &lt; 1
     */
    public void setPollingInterval(int seconds) {
        main.setPollingInterval(seconds);
    }

    /** {@code sflow direction rx|tx|both}: re-applies the features on every sFlow-enabled interface. */
    public synchronized void setDirection(Direction d) {
        direction = d;
        for (String name : sflowEnabled) {
            applySflow(interfaces.port(name).ifIndex(), true);
        }
    }

    /**
     * {@code sflow enable IF} / {@code sflow disable IF}.
     *
     * @param name interface name
     * @param enable true to enable
     * @throws IllegalArgumentException for an unknown interface (the message lists the known ones)
     */
    public synchronized void enableSflow(String name, boolean enable) {
        Port p = interfaces.port(name);
        if (p == null) {
            List<String> known = new ArrayList<>();
            interfaces.ports().forEach(x -> known.add(interfaces.name(x.ifIndex())));
            throw new IllegalArgumentException("unknown interface '" + name + "'; interfaces: " + known);
        }
        if (enable) {
            sflowEnabled.add(name);
        } else {
            sflowEnabled.remove(name);
        }
        applySflow(p.ifIndex(), enable);
    }

    private void applySflow(int ifIndex, boolean enable) {
        Direction d = direction;
        deviceInput.enable(SflowNode.NAME, ifIndex, enable && d != Direction.TX);
        interfaceOutput.enable(SflowNode.EGRESS, ifIndex, enable && d != Direction.RX);
    }

    /** {@code sflow drop-monitoring enable|disable}: the sflow-drop feature on every interface. */
    public synchronized void setDropMonitoring(boolean on) {
        dropMonitoring = on;
        for (Port p : interfaces.ports()) {
            errorDrop.enable(SflowNode.DROP, p.ifIndex(), on);
        }
    }

    /**
     * Replaces the forwarding state (routes, neighbours); workers pick it up at their next vector.
     *
     * @param f the new state
     */
    public void setForwarding(Forwarding f) {
        forwarding.set(f);
    }

    // ---------------------------------------------------------------- show (any thread)

    /** @return {@code show sflow}: settings, per-direction samples, FIFO drops, netlink sent/failed. */
    public String showSflow() {
        long pool = 0, in = 0, eg = 0, dr = 0, fd = 0, dd = 0, withOut = 0, noOut = 0;
        for (int i = 0; i < workers.size(); i++) {
            Worker w = workers.get(i);
            IngressSampleHold hold = w.bufferHold(IngressSampleHold.class, IngressSampleHold::new);
            withOut += hold.completedWithOutput();
            noOut += hold.completedWithoutOutput();
            SflowNode a = (SflowNode) w.node(SflowNode.NAME);
            SflowNode b = (SflowNode) w.node(SflowNode.EGRESS);
            SflowNode c = (SflowNode) w.node(SflowNode.DROP);
            pool += a.samplePool() + b.samplePool();
            in += a.samplesTaken();
            eg += b.samplesTaken();
            dr += c.samplesTaken();
            fd += fifos.get(i).dropped();
            dd += discardFifos.get(i).dropped();
        }
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "sflow sampling-rate %d%n", samplingRate));
        sb.append(String.format(Locale.ROOT, "sflow polling-interval %d%n", main.pollingInterval()));
        sb.append(String.format(Locale.ROOT, "sflow header-bytes %d%n", headerBytes));
        sb.append(String.format(Locale.ROOT, "sflow direction %s%n", direction.name().toLowerCase(Locale.ROOT)));
        sb.append(String.format(Locale.ROOT, "sflow drop-monitoring %s%n", dropMonitoring ? "enabled" : "disabled"));
        sb.append(String.format(Locale.ROOT, "sflow psample groups ingress %d egress %d%n", topology.ingressGroup,
                topology.egressGroup));
        synchronized (this) {
            sb.append("interfaces enabled: ").append(sflowEnabled.isEmpty() ? "none" : String.join(" ", sflowEnabled))
                    .append('\n');
        }
        sb.append(String.format(Locale.ROOT, "packets seen while sampling %d%n", pool));
        sb.append(String.format(Locale.ROOT, "samples taken ingress %d egress %d, discards taken %d%n", in, eg, dr));
        sb.append(String.format(Locale.ROOT, "ingress samples with output %d, without (dropped or consumed) %d%n",
                withOut, noOut));
        sb.append(String.format(Locale.ROOT, "sample fifo drops %d, discard fifo drops %d%n", fd, dd));
        sb.append(String.format(Locale.ROOT, "psample sent %d failed %d%n", main.emitted(), main.emitFailed()));
        sb.append(String.format(Locale.ROOT, "net_dm sent %d failed %d rate-limited %d%n", main.discardsSent(),
                main.discardsFailed(), main.discardsLimited()));
        sb.append(String.format(Locale.ROOT, "if_counters sent %d, status sent %d, usersock failed %d%n",
                main.ifCountersSent(), main.statusSent(), main.vppFailed()));
        return sb.toString();
    }

    /** @return {@code show errors}: count, node, reason, sFlow code — non-zero reasons only. */
    public String showErrors() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%12s  %-28s %s%n", "Count", "Reason",
                "sFlow discard code"));
        for (DropReason r : DropReason.values()) {
            long n = dropped(r);
            if (n != 0) {
                sb.append(String.format(Locale.ROOT, "%12d  %-28s %d%n", n, r.counterName(), r.sflowCode()));
            }
        }
        return sb.toString();
    }

    /**
     * @return {@code show interfaces}: per port rx/tx packets and octets, discards, errors, graph drops (of packets
     *     received on the port, not counting the reasons a port counts itself: {@link DropReason#countedByPort()})
     */
    public String showInterfaces() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "%-12s %5s %14s %16s %14s %16s %10s %10s %10s %10s %10s%n", "Name", "Idx", "rx packets", "rx octets",
                "tx packets", "tx octets", "rx disc", "tx disc", "rx err", "tx err", "drops"));
        for (Port p : interfaces.ports()) {
            PortCounters c = p.counters();
            sb.append(String.format(Locale.ROOT, "%-12s %5d %14d %16d %14d %16d %10d %10d %10d %10d %10d%n",
                    interfaces.name(p.ifIndex()), p.ifIndex(), c.sum(PortCounters.RX_PACKETS),
                    c.sum(PortCounters.RX_OCTETS), c.sum(PortCounters.TX_PACKETS), c.sum(PortCounters.TX_OCTETS),
                    c.sum(PortCounters.RX_DISCARDS), c.sum(PortCounters.TX_DISCARDS), c.sum(PortCounters.RX_ERRORS),
                    c.sum(PortCounters.TX_ERRORS), graphDropsOn(p.ifIndex())));
        }
        return sb.toString();
    }

    /** @return {@code show runtime}: per node over all workers: calls (vectors), packets, vectors/call, ns/packet. */
    public String showRuntime() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-20s %14s %16s %12s %12s%n", "Name",
                "Calls", "Vectors", "Vectors/Call", "ns/packet"));
        Node[] first = workers.get(0).nodes();
        for (int k = 0; k < first.length; k++) {
            long calls = 0, pk = 0, ns = 0;
            for (Worker w : workers) {
                Node n = w.nodes()[k];
                calls += n.vectors();
                pk += n.packets();
                ns += n.nanos();
            }
            sb.append(String.format(Locale.ROOT, "%-20s %14d %16d %12.2f %12.2f%n", first[k].name(), calls, pk,
                    calls == 0 ? 0.0 : (double) pk / calls, pk == 0 ? 0.0 : (double) ns / pk));
        }
        return sb.toString();
    }

    /** @return packets dropped for a reason, over all workers. */
    public long dropped(DropReason r) {
        long n = 0;
        for (Worker w : workers) {
            n += ((ErrorDropNode) w.node(ErrorDropNode.NAME)).dropped(r);
        }
        return n;
    }

    /**
     * The number a port has outside the dataplane — one per port, for every sFlow record about it: sent as
     * IF_COUNTERS OSINDEX, so hsflowd's mod_vpp (and vecflow's agent) map the port's PSAMPLE index to it for flow
     * samples (source, input, output) and counter samples, and as NET_DM IN_PORT (kernel convention), which
     * mod_dropmon takes as the discard's input and source unmapped. VPP reports the Linux ifindex of a port's linux-cp
     * pair there; a port configured with {@link InterfaceTable#setOsIndex} reports that one, any other
     * {@link DataplaneSpec#ifOffset} + ifIndex — the number hsflowd makes up for a VPP port without OSINDEX, sent
     * explicitly so that its drops carry it too, and so that hsflowd treats the port as active (it passes no flow
     * samples of a port whose OSINDEX is absent).
     *
     * @param ifIndex the dataplane's ifIndex (PSAMPLE IIFINDEX/OIFINDEX, IF_COUNTERS IFINDEX)
     * @return the OSINDEX, u32
     */
    public long osIndex(int ifIndex) {
        long os = interfaces.osIndex(ifIndex);
        return os != 0 ? os : (topology.ifOffset + ifIndex) & 0xFFFF_FFFFL;
    }

    /**
     * The IF_COUNTERS OSINDEX attribute of a port, as VPP sends it: the Linux ifindex of the port's netdev where it
     * has one — a configured {@code os-index:}, else an AF_PACKET port's own interface (its ifindex in its network
     * namespace, read at open), as VPP with linux-cp reports the pair's — and none (0: the attribute is left out)
     * for a port without a netdev (pcap, generator). hsflowd's default {@code vpp { }} samples only ports that sent
     * OSINDEX (host-sflow mod_vpp.c {@code portSetOsIndex}); a port without one is still counted, as
     * {@link DataplaneSpec#ifOffset} + ifIndex, the number {@link #osIndex} gives its drops too.
     *
     * @param ifIndex the dataplane's ifIndex
     * @return the OSINDEX to send, or 0 for none
     */
    public long osIndexAttribute(int ifIndex) {
        return interfaces.osIndex(ifIndex);
    }

    /** @return packets dropped for a reason that were received on {@code ifIndex}, over all workers. */
    public long dropped(DropReason r, int ifIndex) {
        long n = 0;
        for (Worker w : workers) {
            n += ((ErrorDropNode) w.node(ErrorDropNode.NAME)).dropped(r, ifIndex);
        }
        return n;
    }

    private long graphDropsOn(int ifIndex) {
        long n = 0;
        for (Worker w : workers) {
            n += ((ErrorDropNode) w.node(ErrorDropNode.NAME)).droppedOn(ifIndex);
        }
        return n;
    }

    /** @return the interfaces. */
    public InterfaceTable interfaces() {
        return interfaces;
    }

    /** @return the main thread (netlink counters). */
    public SflowMainThread mainThread() {
        return main;
    }

    /** @return the sample FIFOs, one per worker (for a caller that drains them itself instead of the main thread). */
    public List<SampleFifo> sampleFifos() {
        return List.copyOf(fifos);
    }

    /** @return the discard FIFOs, one per worker. */
    public List<SampleFifo> discardFifos() {
        return List.copyOf(discardFifos);
    }

    /** @return the feature arcs every worker's graph holds, in registration order. */
    public List<FeatureArc> featureArcs() {
        return List.of(deviceInput, ip4Unicast, ip6Unicast, interfaceOutput, errorDrop);
    }

    /** @return the workers. */
    public List<Worker> workers() {
        return List.copyOf(workers);
    }

    /** @return the replay port of the demo constructor, or null. */
    public PcapReplayPort port() {
        return legacy == null ? null : (PcapReplayPort) interfaces.port(legacy.ifIndex);
    }

    /** @return the demo settings, or null for a topology-built dataplane. */
    public Settings settings() {
        return legacy;
    }

    /** @return totals over all workers (the replay counters refer to the demo's replay port, else to every port). */
    public Stats stats() {
        long pk = 0, by = 0, pool = 0, taken = 0, drops = 0, v4 = 0, v6 = 0, oth = 0;
        for (Port p : interfaces.ports()) {
            if (legacy == null || p.ifIndex() == legacy.ifIndex) {
                pk += p.counters().sum(PortCounters.RX_PACKETS);
                by += p.counters().sum(PortCounters.RX_OCTETS);
            }
        }
        for (int i = 0; i < workers.size(); i++) {
            Worker w = workers.get(i);
            SflowNode sf = (SflowNode) w.node(SflowNode.NAME);
            SflowNode eg = (SflowNode) w.node(SflowNode.EGRESS);
            EthernetInputNode eth = (EthernetInputNode) w.node(EthernetInputNode.NAME);
            pool += sf.samplePool() + eg.samplePool();
            taken += sf.samplesTaken() + eg.samplesTaken();
            drops += fifos.get(i).dropped();
            v4 += eth.ip4();
            v6 += eth.ip6();
            oth += eth.other();
        }
        long out;
        if (legacy != null && !legacy.xconnect) {
            out = 0;
            for (DropReason r : DropReason.values()) {
                out += dropped(r);
            }
        } else {
            out = 0;
            for (Port p : interfaces.ports()) {
                out += p.counters().sum(PortCounters.TX_PACKETS);
            }
        }
        return new Stats(pk, by, pool, taken, drops, main.emitted(), main.emitFailed(), main.fifoDropsCarried(), out,
                v4, v6, oth);
    }

    @Override
    public void close() {
        for (Worker w : workers) {
            w.pool().close();
        }
        for (Port p : interfaces.ports()) {
            p.close();
        }
    }
}
