package io.vecflow.dataplane;

import io.vecflow.dataplane.config.DataplaneConfig;
import io.vecflow.dataplane.control.ControlServer;
import io.vecflow.dataplane.plugins.lb.LoadBalancer;
import io.vecflow.dataplane.plugins.srlb.SrlbAgent;
import io.vecflow.dataplane.plugins.srlb.load.AcceptPolicy;
import io.vecflow.dataplane.plugins.srlb.load.ApacheStatusSource;
import io.vecflow.dataplane.plugins.srlb.load.CgroupCpuSource;
import io.vecflow.dataplane.plugins.srlb.load.LoadSource;
import io.vecflow.dataplane.plugins.srlb.load.LoadSourcePoller;
import io.vecflow.dataplane.plugins.srlb.load.NginxStatusSource;
import io.vecflow.dataplane.plugins.srlb.load.PolledLoadSource;
import io.vecflow.dataplane.plugins.srlb.load.SettableLoadSource;
import io.vecflow.dataplane.plugins.srlb.load.StaticThreshold;
import io.vecflow.dataplane.port.AfPacketOptions;
import io.vecflow.dataplane.port.AfPacketPort;
import io.vecflow.dataplane.port.GeneratorPort;
import io.vecflow.dataplane.port.PcapReplayPort;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.dataplane.vnet.interfaces.Port;
import io.vecflow.netlink.netdm.NetDm;
import io.vecflow.netlink.netdm.NetDmEmitter;
import io.vecflow.netlink.netdm.NetDmTransport;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.psample.PsampleTransport;
import io.vecflow.netlink.vpp.VppUsersockEmitter;
import io.vecflow.packet.PcapReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A dataplane built from a {@link DataplaneConfig}: opens the ports (AF_PACKET sockets in their namespaces, pcap
 * replays, generators), builds the forwarding state, opens the netlink emitters (PSAMPLE and NET_DM over the
 * configured transport, IF_COUNTERS/STATUS on the VPP USERSOCK group), the load balancer's VIPs and backends
 * ({@code lb:}) and the control socket. {@link #close()} undoes
 * all of it, also after a failure half way.
 */
public final class DataplaneAssembly implements AutoCloseable {
    private final List<AutoCloseable> owned = new ArrayList<>();
    private final Dataplane dataplane;
    private final ControlServer control;
    private final DataplaneMetrics metrics;

    private DataplaneAssembly(DataplaneConfig c, Consumer<String> log, boolean controlSocket) throws Exception {
        try {
            Set<String> routed = new HashSet<>();
            c.ports.forEach(pc -> {
                if (pc.routed(c)) {
                    routed.add(pc.name);
                }
            });
            int maxIf = 1;
            for (int i = 0; i < c.ports.size(); i++) {
                maxIf = (int) Math.max(maxIf, c.ports.get(i).ifIndexOr(i + 1));
            }
            InterfaceTable it = new InterfaceTable(maxIf);
            for (int i = 0; i < c.ports.size(); i++) {
                DataplaneConfig.PortSpec pc = c.ports.get(i);
                int ifIndex = (int) pc.ifIndexOr(i + 1);
                Port p = openPort(pc, ifIndex, c.workers);
                owned.add(p);
                if (p instanceof AfPacketPort ap) {
                    log.accept(offloadLine(pc.name, ap, pc.netns));
                }
                long mac = mac(pc, p, routed.contains(pc.name), i);
                it.add(p, pc.name, mac, pc.mtu, routed.contains(pc.name));
                if (pc.osIndex != null) {
                    it.setOsIndex(ifIndex, pc.osIndex);
                } else if (p instanceof AfPacketPort ap && ap.linuxIfIndex() > 0) {
                    // a Linux netdev: its ifindex is the port's OSINDEX, as VPP with linux-cp reports the pair's
                    it.setOsIndex(ifIndex, ap.linuxIfIndex());
                }
            }
            for (List<String> pair : c.xconnects) {
                it.xconnect(it.port(pair.get(0)).ifIndex(), it.port(pair.get(1)).ifIndex());
            }
            Forwarding.Builder fb = new Forwarding.Builder();
            for (DataplaneConfig.NeighbourSpec n : c.neighbours) {
                fb.neighbour(n.address, n.mac);
            }
            for (DataplaneConfig.RouteSpec r : c.routes) {
                fb.route(r.prefix, r.via, it.port(r.port).ifIndex());
            }
            DataplaneSpec t = new DataplaneSpec();
            t.workers = c.workers;
            t.buffersPerWorker = c.buffersPerWorker;
            t.interfaces = it;
            t.forwarding = fb.build();
            DataplaneConfig.Sflow s = c.sflow;
            t.samplingRate = s.samplingRate;
            t.headerBytes = s.headerBytes;
            t.pollingIntervalSeconds = s.pollingInterval;
            t.direction = s.directionEnum();
            t.sflowInterfaces.addAll(s.interfaces);
            t.dropMonitoring = s.dropMonitoring;
            t.ingressGroup = s.psampleIngressGroup;
            t.egressGroup = s.psampleEgressGroup;
            t.ifOffset = s.ifOffset;
            t.fifoCapacity = s.sampleFifoSlots - 1;
            t.discardFifoCapacity = s.discardFifoSlots;
            if (c.lb != null) {
                LoadBalancer.Settings ls = new LoadBalancer.Settings();
                ls.ip4Source = c.lb.ip4Source();
                ls.ip6Source = c.lb.ip6Source();
                ls.flowTableSlots = c.lb.flowTableSlots;
                ls.tcpTimeoutSeconds = c.lb.tcpTimeout;
                ls.udpTimeoutSeconds = c.lb.udpTimeout;
                ls.ttl = c.lb.ttl;
                ls.srlbSidPrefix = c.lb.srlbSidPrefixAddress();
                t.lb = ls;
            }
            if (c.srlbAgent != null) {
                DataplaneConfig.SrlbAgentSection a = c.srlbAgent;
                SrlbAgent.Settings as = new SrlbAgent.Settings();
                as.sid = a.sidAddress();
                as.vips = a.vipAddresses();
                as.policy = switch (a.policy) {
                    case "always-reject" -> AcceptPolicy.ALWAYS_REJECT;
                    case "only-last" -> AcceptPolicy.ONLY_LAST;
                    case "static-threshold" -> new StaticThreshold(a.threshold);
                    default -> AcceptPolicy.ALWAYS_ACCEPT;
                };
                as.load = loadSource(a);
                as.flowTableSlots = a.flowTableSlots;
                as.activeTimeoutSeconds = a.activeTimeout;
                as.teardownTimeoutSeconds = a.teardownTimeout;
                t.srlbAgent = as;
            }
            if (c.clove != null) {
                t.clove = c.clove.settings();
            }
            PsampleEmitter ps = PsampleEmitter.open(s.genl() ? PsampleTransport.GENL : PsampleTransport.USERSOCK,
                    s.usersockGroups.psample, Psample.Convention.VPP);
            owned.add(ps);
            ps.batchBytes(s.psampleBatchBytes);
            NetDmEmitter nd = NetDmEmitter.open(s.genl() ? NetDmTransport.GENL : NetDmTransport.USERSOCK,
                    s.usersockGroups.netDm, s.netDmFlat() ? NetDm.Convention.VPP : NetDm.Convention.KERNEL, log);
            owned.add(nd);
            VppUsersockEmitter vpp = VppUsersockEmitter.open(s.usersockGroups.counters);
            owned.add(vpp);
            dataplane = new Dataplane(t, ps, nd, vpp);
            owned.add(dataplane);
            if (c.lb != null) {
                for (DataplaneConfig.LbVip v : c.lb.vips) {
                    dataplane.plugin(LoadBalancer.class).addVip(v.key(), v.encapType(), v.newLen);
                    if (!v.backendAddresses().isEmpty()) {
                        dataplane.plugin(LoadBalancer.class).addBackends(v.key(), v.backendAddresses());
                    }
                }
            }
            if (c.metrics.port > 0) {
                metrics = new DataplaneMetrics(dataplane,
                        Forwarding.parseAddress(c.metrics.listen), c.metrics.port, c.metrics.users);
                owned.add(metrics);
            } else {
                metrics = null;
            }
            if (controlSocket) {
                Path sock = Path.of(c.controlSocket);
                if (sock.getParent() != null) {
                    Files.createDirectories(sock.getParent());
                }
                control = ControlServer.start(sock, new DataplaneController(dataplane), ControlServer.REQUEST_TIMEOUT,
                        c.controlSocketGroup == null || c.controlSocketGroup.isEmpty() ? null : c.controlSocketGroup);
                owned.add(control);
            } else {
                control = null;
            }
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    /**
     * Builds everything (not started).
     *
     * @param c a validated configuration
     * @param log where one-time warnings go (e.g. a missing genl family)
     * @param controlSocket false to skip the control socket (tests, benches)
     * @return the assembly
     * @throws Exception a port, socket or emitter could not be opened (message names it); everything opened so far
     *     is closed
     */
    public static DataplaneAssembly open(DataplaneConfig c, Consumer<String> log, boolean controlSocket)
            throws Exception {
        return new DataplaneAssembly(c, log, controlSocket);
    }

    /**
     * The srlb-agent's load source; a polled one (apache, nginx, cgroup) is refreshed every {@code load-interval-ms}
     * by a {@link LoadSourcePoller} thread that {@link #close()} stops.
     */
    private LoadSource loadSource(DataplaneConfig.SrlbAgentSection a) {
        java.time.Duration every = java.time.Duration.ofMillis(a.loadIntervalMs);
        PolledLoadSource polled = switch (a.load) {
            case "apache" -> new ApacheStatusSource(java.net.http.HttpClient
                    .newHttpClient(), java.net.URI.create(a.loadUrl), "sending".equals(a.loadMetric)
                    ? ApacheStatusSource.Metric.SENDING
                    : ApacheStatusSource.Metric.BUSY_WORKERS, every);
            case "nginx" -> new NginxStatusSource(java.net.http.HttpClient
                    .newHttpClient(), java.net.URI.create(a.loadUrl), every);
            case "cgroup" -> new CgroupCpuSource(Path.of(a.loadCgroup), a.loadCpus);
            default -> null;
        };
        if (polled == null) {
            return new SettableLoadSource("test", a.loadInitial);
        }
        LoadSourcePoller poller = new LoadSourcePoller();
        owned.add(poller);
        poller.add(polled, every);
        return polled;
    }

    private static Port openPort(DataplaneConfig.PortSpec pc, int ifIndex, int workers) throws Exception {
        return switch (pc.portType()) {
            case AF_PACKET -> {
                DataplaneConfig.AfPacket a = pc.afPacket != null ? pc.afPacket : new DataplaneConfig.AfPacket();
                AfPacketOptions o = AfPacketOptions.defaults().blockCount(a.ringBlocks)
                        .blockSize(a.ringBlockBytes);
                yield AfPacketPort.open(pc.netns, a.device != null ? a.device : pc.name, ifIndex, workers, o);
            }
            case PCAP -> {
                io.vecflow.packet.PcapFile f;
                try {
                    f = PcapReader.readAll(pc.pcap.path());
                } catch (io.vecflow.packet.PcapFormatException e) {
                    throw new IOException("port " + pc.name + ": pcap.file " + pc.pcap.path() + ": " + e.getMessage(),
                            e);
                }
                yield new PcapReplayPort(pc.name, f, ifIndex, workers, pc.pcap.loops, pc.pcap.pps);
            }
            case GENERATOR -> {
                DataplaneConfig.Generator g = pc.generator != null ? pc.generator : new DataplaneConfig.Generator();
                GeneratorPort.Options o = GeneratorPort.Options
                        .defaults().flows(g.flows).ipv6Fraction(g.ipVersion == 6 ? 1.0 : 0.0)
                        .count(g.packets).packetsPerSecond(g.pps);
                o = g.size.equals("imix") ? o.imix() : o.frameSize(g.frameBytes());
                o = g.zipf() ? o.zipf(g.zipfExponent) : o.uniform();
                yield new GeneratorPort(pc.name, ifIndex, workers, o);
            }
        };
    }

    /**
     * The one line logged per af_packet port at open: what it does with offloaded frames (nothing is switched off on
     * the interface, so nothing needs restoring at exit).
     */
    static String offloadLine(String name, AfPacketPort p, String netns) {
        return "port " + name + " (af_packet " + p.name() + (netns == null ? "" : " in netns " + netns) + ", MTU "
                + p.mtu() + "): " + (p.vnetHeader()
                        ? "PACKET_VNET_HDR on: GSO/GRO super-frames are cut into segments on receive, partial "
                                + "checksums completed; the interface's offloads (TSO/GSO/GRO, checksums) are left "
                                + "as they are"
                        : "PACKET_VNET_HDR off: GSO/GRO super-frames are cut to a buffer (rx errors)");
    }

    private static long mac(DataplaneConfig.PortSpec pc, Port p, boolean routed, int position) {
        if (pc.mac != null) {
            return Forwarding.parseMac(pc.mac);
        }
        // read by the open port with SIOCGIFHWADDR inside its namespace: /sys/class/net shows only the JVM's
        if (p instanceof AfPacketPort a && a.hardwareAddress() != 0) {
            return a.hardwareAddress();
        }
        if (routed) {
            throw new IllegalArgumentException("ports[" + position + "] (" + pc.name + "): routed ports need "
                    + "mac: (the source MAC of routed frames) unless the device is an Ethernet af_packet port");
        }
        return 0x020000000000L | position + 1; // locally administered; unused on an L2 port
    }

    /** @return the dataplane. */
    public Dataplane dataplane() {
        return dataplane;
    }

    /** @return the metrics endpoint, or null when {@code metrics.port} is 0. */
    public DataplaneMetrics metrics() {
        return metrics;
    }

    /** @return the control server, or null. */
    public ControlServer control() {
        return control;
    }

    @Override
    public void close() {
        for (int i = owned.size() - 1; i >= 0; i--) {
            try {
                owned.get(i).close();
            } catch (Exception ignored) {
                // best effort: keep closing the rest
            }
        }
        owned.clear();
    }
}
