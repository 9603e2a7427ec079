package io.vecflow.dataplane.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.vecflow.dataplane.control.ControlServer;
import io.vecflow.dataplane.control.DataplaneControl.Direction;
import io.vecflow.dataplane.plugins.clove.Clove;
import io.vecflow.dataplane.plugins.lb.EncapType;
import io.vecflow.dataplane.plugins.lb.VipKey;
import io.vecflow.dataplane.plugins.lb.encap.Encap;
import io.vecflow.dataplane.plugins.lb.maglev.MaglevTable;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The dataplane's YAML configuration ({@code ./vecflow dataplane --config FILE}): workers and buffers, ports
 * (AF_PACKET, pcap replay, traffic generator), L2 cross-connects, IPv4/IPv6 routes with static neighbours (no ARP/ND),
 * the sFlow settings of VPP's sflow plugin (docs/netlink.md §8: sampling-rate 10000, polling-interval
 * 20 s, header-bytes 128, direction rx, PSAMPLE groups 3/4), the netlink transports, the control socket and the
 * metrics endpoint. The documented example with every key is {@link #example()} (resource
 * {@code dataplane-example.yaml}).
 *
 * <p>Keys are kebab-case. Unknown keys, wrong types and values out of range are errors naming the source, the line and
 * the key path, e.g. {@code dp.yaml line 12: ports[1].name: "eth0" is already the name of ports[0]}; all problems are
 * reported at once ({@link DataplaneConfigException#problems()}). Relative pcap paths are resolved against the
 * configuration file's directory. After {@link #load}/{@link #parse} the typed accessors
 * ({@link PortSpec#portType()}, {@link RouteSpec#prefixAddress()}, {@link NeighbourSpec#macBytes()}, ...) are valid.
 * Not thread-safe while loading; read-only
 * afterwards.
 */
public final class DataplaneConfig {
    /** Worker threads, 1..{@value #MAX_WORKERS}. */
    public int workers = 2;
    /** Packet buffers per worker pool, {@value #MIN_BUFFERS}..{@value #MAX_BUFFERS}. */
    public int buffersPerWorker = 4096;
    /** Ports, in order; at least one. */
    public List<PortSpec> ports = new ArrayList<>();
    /** L2 cross-connects: pairs of port names, each pair forwarding both ways. */
    public List<List<String>> xconnects = new ArrayList<>();
    /** IPv4 and IPv6 routes. */
    public List<RouteSpec> routes = new ArrayList<>();
    /** Static neighbours (the only way next hops get a MAC: no ARP, no ND). */
    public List<NeighbourSpec> neighbours = new ArrayList<>();
    /** sFlow settings. */
    public Sflow sflow = new Sflow();
    /** Control socket path ({@code ./vecflow ctl}). */
    public String controlSocket = ControlServer.DEFAULT_SOCKET.toString();
    /**
     * Group that owns the control socket (mode 0660: its members may run {@code vecflow ctl}), or empty for the
     * process's own group.
     */
    public String controlSocketGroup = "";
    /** Prometheus endpoint. */
    public Metrics metrics = new Metrics();
    /** Maglev load balancer (VIPs, backends, outer sources, timeouts); absent = no load balancer. */
    public Lb lb;
    /** SRLB server agent of this (server's) dataplane; absent = none (docs/load-balancing.md §3). */
    public SrlbAgentSection srlbAgent;
    /** CLOVE vSwitch (overlay encap per flowlet, probes, ECN relay; docs/load-balancing.md §4); absent = none. */
    public CloveSection clove;

    /**
     * The {@code clove} section: this dataplane as a CLOVE hypervisor vSwitch (docs/load-balancing.md §4): its tunnel
     * endpoint, the encapsulation, the path choice and the destinations (remote endpoints with the inner IPv4 prefixes
     * behind them).
     */
    public static final class CloveSection {
        /** This endpoint's IPv4 address (outer source; tunnelled packets and probe replies come to it). */
        public String vtep;
        /** geneve (UDP 6081; default; carries the ECN feedback option) or vxlan (UDP 4789; edge-flowlet only). */
        public String encap = "geneve";
        /** Virtual network identifier, 0..16777215. */
        public int vni;
        /** ecn (CLOVE-ECN, default) or edge-flowlet. */
        public String mode = "ecn";
        /** Paths per destination (k), 1..probe.candidates (default 4). */
        public int paths = 4;
        /** Flowlet gap, µs, 1..10000000 (default 500, the ns-3 model's). */
        public long flowletGapUs = 500;
        /** Flowlet-table slots per worker: a power of two, 8..16777216 (24 bytes each). */
        public int flowletTableSlots = 1 << 16;
        /** Minimum time between two weight cuts of one path, µs, 0..10000000 (default 40). */
        public long ecnWindowUs = 40;
        /** Outer TTL, 1..255. */
        public int ttl = Encap.DEFAULT_TTL;
        /** Path discovery. */
        public CloveProbe probe = new CloveProbe();
        /** Destinations, 1..64. */
        public List<CloveDestination> destinations = new ArrayList<>();

        @JsonIgnore
        Clove.Settings settings;

        /** The settings for {@link Clove} (valid after loading). */
        public Clove.Settings settings() {
            return settings;
        }
    }

    /** {@code clove.probe}: traceroute-style path discovery (docs/load-balancing.md §4). */
    public static final class CloveProbe {
        /** First candidate outer UDP source port, 1..65535 (default 49152). */
        public int firstPort = 49152;
        /** Candidate ports probed per destination, 1..256 (default 32). */
        public int candidates = 32;
        /** Largest probe TTL, 1..16: the fabric's hop count to the destination (default 3). */
        public int maxTtl = 3;
        /** Seconds between probe rounds, 1..86400 (default 10). */
        public int interval = 10;
        /** Milliseconds after a round before its replies are used, 10..60000 (default 1000). */
        public int settleMs = 1000;
    }

    /** One {@code clove.destinations} entry. */
    public static final class CloveDestination {
        /** The remote tunnel endpoint (IPv4). */
        public String vtep;
        /** Inner IPv4 prefixes behind it, 1..64. */
        public List<String> prefixes = new ArrayList<>();
    }

    /**
     * The {@code srlb-agent} section: one application instance's SID /80, the VIPs its server answers from, and the
     * connect-if-available policy with its load source (docs/load-balancing.md §3 "Acceptance policies").
     */
    public static final class SrlbAgentSection {
        /** The agent's SID /80 prefix, e.g. {@code fc00:1::} (bytes 10–15 must be zero). */
        public String sid;
        /** IPv6 VIP addresses of the local server, 1..16. */
        public List<String> vips = new ArrayList<>();
        /** always-accept (default), always-reject, only-last or static-threshold. */
        public String policy = "always-accept";
        /** static-threshold: accept iff load &lt; threshold (or last candidate). */
        public double threshold = 1;
        /**
         * Load source: {@code test} (settable at run time with {@code srlb load N}; default), {@code apache}
         * (mod_status {@code ?auto} page at {@code load-url}: busy workers, or W slots with {@code load-metric:
         * sending}), {@code nginx} (stub_status at {@code load-url}: active connections) or {@code cgroup} (cgroup v2
         * {@code cpu.stat} at {@code load-cgroup}: CPU use as a fraction of {@code load-cpus}, 0..1).
         */
        public String load = "test";
        /** apache / nginx: the status page URL (http or https). */
        public String loadUrl;
        /** apache: busy-workers (default) or sending. */
        public String loadMetric = "busy-workers";
        /** cgroup: path of the group's {@code cpu.stat}. */
        public String loadCgroup;
        /** cgroup: CPUs that count as 100 % (default 1). */
        public double loadCpus = 1;
        /** apache / nginx / cgroup: refresh interval, ms, 10..60000 (default 100); also the request timeout. */
        public int loadIntervalMs = 100;
        /** Initial value of the test load. */
        public double loadInitial;
        /** Flow-table slots per worker: a power of two, 8..16777216. */
        public int flowTableSlots = 1 << 16;
        /** Active timeout, seconds, 1..86400 (default 40). */
        public int activeTimeout = 40;
        /** Teardown timeout, seconds, 1..86400 (default 2). */
        public int teardownTimeout = 2;

        @JsonIgnore
        InetAddress sidAddress;
        @JsonIgnore
        List<InetAddress> vipAddresses = new ArrayList<>();

        /** The SID (valid after loading). */
        public InetAddress sidAddress() {
            return sidAddress;
        }

        /** The VIPs (valid after loading). */
        public List<InetAddress> vipAddresses() {
            return List.copyOf(vipAddresses);
        }
    }

    /** Largest worker count. */
    public static final int MAX_WORKERS = 64;
    /** Buffer pool bounds per worker. */
    public static final int MIN_BUFFERS = 512, MAX_BUFFERS = 1 << 20;
    /** Most problems listed in one exception. */
    static final int MAX_PROBLEMS = 50;

    /** Port types. */
    public enum PortType {
        /** Linux AF_PACKET socket (TPACKET_V3 ring) on a device, optionally inside a network namespace. */
        AF_PACKET,
        /** Replays an Ethernet pcap file. */
        PCAP,
        /** Synthesises traffic (benchmarks). */
        GENERATOR
    }

    /** One port. */
    public static final class PortSpec {
        /** Port name, used by xconnects, routes, neighbours, sflow.interfaces and the control commands. */
        public String name;
        /** af_packet, pcap or generator. */
        public String type;
        /** ifIndex reported in samples and counters (u32 ≥ 1); absent: see {@link #ifIndexOr(int)}. */
        public Long ifIndex;
        /**
         * The port's number outside the dataplane (IF_COUNTERS OSINDEX and NET_DM IN_PORT: VPP's linux-cp Linux
         * ifindex), 1..4294967295; absent: an af_packet port's own Linux ifindex (its netdev, read at open), for
         * other ports no OSINDEX attribute and {@code sflow.if-offset} + if-index as NET_DM IN_PORT
         * ({@code Dataplane#osIndex}, {@code Dataplane#osIndexAttribute}).
         */
        public Long osIndex;
        /** Network namespace name (af_packet only; {@code ip netns} name under /run/netns). */
        public String netns;
        /** MTU in bytes (L3, without the Ethernet header), 68..65535. */
        public int mtu = 1500;
        /**
         * The port's MAC (source of routed frames); absent: the device's (af_packet) or 02:00:00:00:00:00 + ifIndex.
         */
        public String mac;
        /**
         * l2 (frames go to the cross-connect; none: dropped as "l2 no xconnect") or l3 (IPv4/IPv6 routed); absent: l2
         * for a cross-connected port, else l3 when the config has routes, else l2.
         */
        public String mode;

        /**
         * @param cfg the whole configuration (its xconnects and routes decide the default)
         * @return true when the port routes (L3)
         */
        public boolean routed(DataplaneConfig cfg) {
            if (mode != null) {
                return mode.equals("l3");
            }
            for (List<String> x : cfg.xconnects) {
                if (x.contains(name)) {
                    return false;
                }
            }
            return !cfg.routes.isEmpty();
        }
        /** af_packet options. */
        public AfPacket afPacket;
        /** pcap options. */
        public Pcap pcap;
        /** generator options. */
        public Generator generator;

        @JsonIgnore
        PortType portType;
        @JsonIgnore
        byte[] macBytes;

        /** The type (valid after loading). */
        public PortType portType() {
            return portType;
        }

        /** The configured MAC as 6 bytes, or {@code null} when absent. */
        public byte[] macBytes() {
            return macBytes == null ? null : macBytes.clone();
        }

        /**
         * The ifIndex to use.
         *
         * @param fallback what to use when none is configured (the port's position + 1)
         */
        public long ifIndexOr(int fallback) {
            return ifIndex != null ? ifIndex : fallback;
        }
    }

    /** af_packet options. */
    public static final class AfPacket {
        /** Linux device name (default: the port name), 1..15 characters. */
        @JsonProperty("interface")
        public String device;
        /** TPACKET_V3 receive ring blocks per socket, 2..1024. */
        public int ringBlocks = 16;
        /** Bytes per ring block: a power of two, 4096..16 MiB. */
        public int ringBlockBytes = 1 << 20;
    }

    /** pcap replay options. */
    public static final class Pcap {
        /** The capture (Ethernet link type); relative paths are resolved against the configuration's directory. */
        public String file;
        /** Replays, ≥ 1. */
        public long loops = 1;
        /** Packets per second, 0 = as fast as possible. */
        public double pps;

        @JsonIgnore
        Path path;

        /** The capture path, resolved (valid after loading). */
        public Path path() {
            return path;
        }
    }

    /** Traffic generator options. */
    public static final class Generator {
        /** Frame size in bytes without FCS, 60..9216, or {@code imix} (7:4:1 of 60, 590, 1514 bytes). */
        public String size = "64";
        /** Distinct flows, 1..16777216. */
        public int flows = 1024;
        /** Flow popularity: uniform or zipf. */
        public String popularity = "uniform";
        /** Zipf exponent s > 0 (zipf only). */
        public double zipfExponent = 1.0;
        /** IP version of the generated packets: 4 or 6. */
        public int ipVersion = 4;
        /** Packets per second, 0 = as fast as possible. */
        public double pps;
        /** Packets to send, 0 = until stopped. */
        public long packets;

        @JsonIgnore
        int frameBytes;

        /** Fixed frame size in bytes, or 0 for IMIX (valid after loading). */
        public int frameBytes() {
            return frameBytes;
        }

        /** Whether popularity is Zipf. */
        public boolean zipf() {
            return "zipf".equals(popularity);
        }
    }

    /** One route. */
    public static final class RouteSpec {
        /** Destination prefix, e.g. 10.0.2.0/24 or 2001:db8:2::/64 (host bits clear). */
        public String prefix;
        /** Next-hop address (same family as the prefix). */
        public String via;
        /** Output port name. */
        public String port;

        @JsonIgnore
        InetAddress prefixAddress, viaAddress;
        @JsonIgnore
        int prefixLength;

        /** Network address of the prefix (valid after loading). */
        public InetAddress prefixAddress() {
            return prefixAddress;
        }

        /** Prefix length. */
        public int prefixLength() {
            return prefixLength;
        }

        /** Next-hop address. */
        public InetAddress viaAddress() {
            return viaAddress;
        }
    }

    /** One static neighbour. */
    public static final class NeighbourSpec {
        /** IPv4 or IPv6 address. */
        public String address;
        /** MAC, six colon-separated hex bytes. */
        public String mac;
        /** The port it is reached on. */
        public String port;

        @JsonIgnore
        InetAddress inetAddress;
        @JsonIgnore
        byte[] macBytes;

        /** The address (valid after loading). */
        public InetAddress inetAddress() {
            return inetAddress;
        }

        /** The MAC as 6 bytes. */
        public byte[] macBytes() {
            return macBytes.clone();
        }
    }

    /** The {@code sflow} section. */
    public static final class Sflow {
        /** Mean 1-in-N sampling, 0 = off (VPP default 10000). */
        public int samplingRate = 10_000;
        /** Counter polling interval in seconds, 1..86400 (VPP default 20). */
        public int pollingInterval = 20;
        /** Header bytes per sample: 64..256, a multiple of 32 (VPP default 128). */
        public int headerBytes = 128;
        /** rx, tx or both (VPP default rx). */
        public String direction = "rx";
        /** Port names with sampling enabled at start. */
        public List<String> interfaces = new ArrayList<>();
        /** NET_DM alerts for dropped packets (VPP default off). */
        public boolean dropMonitoring;
        /** PSAMPLE group of ingress samples (VPP 3). */
        public int psampleIngressGroup = 3;
        /** PSAMPLE group of egress samples (VPP 4). */
        public int psampleEgressGroup = 4;
        /** PSAMPLE and NET_DM transport: genl (kernel modules psample / drop_monitor) or usersock. */
        public String transport = "usersock";
        /** NETLINK_USERSOCK groups 1..32 for the usersock transport and VPP's counters channel. */
        public UsersockGroups usersockGroups = new UsersockGroups();
        /**
         * Most bytes of PSAMPLE messages per netlink datagram (several samples per send; receivers read them one
         * after the other), 0 = one sample per datagram; 256..65536, default 8192 (host-sflow reads 8 KiB or 16 KiB
         * per datagram).
         */
        public int psampleBatchBytes = 8192;
        /** NET_DM IN_PORT convention: nested (kernel, default) or flat (VPP). */
        public String netDmConvention = "nested";
        /**
         * NET_DM IN_PORT of a port with no netdev and no {@code os-index} (pcap, generator): if-offset + its if-index
         * (default 1,000,000,000, hsflowd's {@code vpp { ifOffset }}, the number hsflowd then gives its counters);
         * 0..4294967295 − the largest if-index.
         */
        public long ifOffset = InterfaceTable.DEFAULT_IF_OFFSET;
        /** Sample FIFO slots per worker, 2..1048576 (VPP: 2048). */
        public int sampleFifoSlots = 2048;
        /** Discard FIFO slots per worker, 2..1048576 (VPP: 4). */
        public int discardFifoSlots = 256;

        /** Direction as an enum (valid after loading). */
        public Direction directionEnum() {
            return Direction.valueOf(direction.toUpperCase(Locale.ROOT));
        }

        /** Whether NET_DM IN_PORT is VPP's flat u32. */
        public boolean netDmFlat() {
            return "flat".equals(netDmConvention);
        }

        /** Whether PSAMPLE / NET_DM go over generic netlink. */
        public boolean genl() {
            return "genl".equals(transport);
        }
    }

    /** NETLINK_USERSOCK multicast groups. */
    public static final class UsersockGroups {
        /** PSAMPLE over usersock (vecflow convention 30). */
        public int psample = 30;
        /** NET_DM over usersock (vecflow convention 31). */
        public int netDm = 31;
        /** VPP IF_COUNTERS / STATUS (VPP and hsflowd: 29). */
        public int counters = 29;
    }

    /**
     * The {@code lb} section: VPP lb plugin's {@code lb conf} (outer source addresses, flow timeout) plus the VIPs
     * and their application servers ({@code lb vip}, {@code lb as}); docs/load-balancing.md §1–§2.
     */
    public static final class Lb {
        /** Outer IPv4 source for gre4 and IPv4-outer ipip (VPP {@code ip4-src-address}). */
        public String ip4SrcAddress;
        /** Outer IPv6 source for gre6, srv6 and IPv6-outer ipip (VPP {@code ip6-src-address}). */
        public String ip6SrcAddress;
        /** Connection-table slots per worker: a power of two, 8..16777216 (80 bytes each). */
        public int flowTableSlots = 1 << 16;
        /** TCP idle timeout, seconds, 1..86400 (VPP: 40). */
        public int tcpTimeout = 40;
        /** UDP (and other protocols) idle timeout, seconds, 1..86400 (Katran: 30). */
        public int udpTimeout = 30;
        /** Outer TTL / hop limit and ICMP reply TTL, 1..255. */
        public int ttl = Encap.DEFAULT_TTL;
        /** The VIPs. */
        public List<LbVip> vips = new ArrayList<>();
        /** SRLB: the /64 of the LB SIDs (each srlb VIP gets a /80 under it); default the ip6-src-address's /64. */
        public String srlbSidPrefix;

        @JsonIgnore
        InetAddress ip4, ip6, srlbSid;

        /** The SRLB SID /64 (valid after loading), or null. */
        public InetAddress srlbSidPrefixAddress() {
            return srlbSid;
        }

        /** The IPv4 source (valid after loading), or null. */
        public InetAddress ip4Source() {
            return ip4;
        }

        /** The IPv6 source (valid after loading), or null. */
        public InetAddress ip6Source() {
            return ip6;
        }
    }

    /** One VIP of the {@code lb} section. */
    public static final class LbVip {
        /** VIP prefix, e.g. 192.0.2.1/32 or 2001:db8::1/128 (host bits clear). */
        public String prefix;
        /** tcp or udp for a per-port VIP (needs port); absent for an all-port VIP. */
        public String protocol;
        /** 1..65535 with protocol; absent (0) for an all-port VIP. */
        public int port;
        /** gre4, gre6, ipip or srv6 (default gre4, as VPP). */
        public String encap = "gre4";
        /** Maglev table size M, a prime (default 65537). */
        public int newLen = MaglevTable.DEFAULT_SIZE;
        /** Backend (application server) addresses; srv6: their SIDs. */
        public List<String> backends = new ArrayList<>();

        @JsonIgnore
        VipKey key;
        @JsonIgnore
        EncapType encapEnum;
        @JsonIgnore
        List<InetAddress> backendAddresses = new ArrayList<>();

        /** The VIP key (valid after loading). */
        public VipKey key() {
            return key;
        }

        /** The encapsulation (valid after loading). */
        public EncapType encapType() {
            return encapEnum;
        }

        /** The backends (valid after loading). */
        public List<InetAddress> backendAddresses() {
            return List.copyOf(backendAddresses);
        }
    }

    /** The {@code metrics} section. */
    public static final class Metrics {
        /** Address of the Prometheus endpoint. */
        public String listen = "127.0.0.1";
        /** TCP port, 0 = off. */
        public int port = 9478;
        /**
         * Basic-auth users of the endpoint: name → PBKDF2 hash ({@code vecflow console --hash-password}); empty =
         * none. With users, {@code /metrics} and {@code /-/healthy} answer 401 without the right credentials.
         */
        public java.util.Map<String, String> users = new java.util.LinkedHashMap<>();
    }

    /**
     * Reads and validates a configuration file ({@link DataplaneConfigLoader}, {@link DataplaneConfigValidator}).
     *
     * @throws DataplaneConfigException unknown keys, wrong types, values out of range, dangling port names, a missing
     *                                  pcap file (each problem names the file, line and key path)
     * @throws IOException              the file cannot be read (the message names it: a directory, an I/O error)
     */
    public static DataplaneConfig load(Path file) throws IOException {
        return DataplaneConfigLoader.load(file);
    }

    /**
     * Parses and validates YAML text.
     *
     * @param yaml    the text
     * @param source  name used in messages (the file name)
     * @param baseDir directory relative pcap paths resolve against; {@code null} resolves against the working
     *                directory and skips the file-exists check
     * @throws DataplaneConfigException as {@link #load}
     */
    public static DataplaneConfig parse(String yaml, String source, Path baseDir) {
        return DataplaneConfigLoader.parse(yaml, source, baseDir);
    }

    /** The documented example configuration (resource {@code dataplane-example.yaml}). */
    public static String example() {
        return DataplaneConfigLoader.example();
    }


    /** An IPv4 dotted quad or an IPv6 literal, without name lookups; null otherwise. */
    static InetAddress ipLiteral(String s) {
        try {
            if (s.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}")) {
                return Inet4Address.ofLiteral(s);
            }
            if (s.indexOf(':') >= 0 && s.matches("[0-9A-Fa-f:.]+")) {
                return Inet6Address.ofLiteral(s);
            }
        } catch (IllegalArgumentException e) {
            return null;
        }
        return null;
    }

    /** Six colon- or dash-separated hex bytes; null otherwise. */
    static byte[] mac(String s) {
        if (!s.matches("[0-9A-Fa-f]{2}([:-][0-9A-Fa-f]{2}){5}")) {
            return null;
        }
        byte[] b = new byte[6];
        for (int i = 0; i < 6; i++) {
            b[i] = (byte) Integer.parseInt(s.substring(i * 3, i * 3 + 2), 16);
        }
        return b;
    }

    /** Port by name, or {@code null}. */
    public PortSpec port(String name) {
        for (PortSpec p : ports) {
            if (p.name.equals(name)) {
                return p;
            }
        }
        return null;
    }

    /** The control socket as a path. */
    public Path controlSocketPath() {
        return Path.of(controlSocket);
    }
}
