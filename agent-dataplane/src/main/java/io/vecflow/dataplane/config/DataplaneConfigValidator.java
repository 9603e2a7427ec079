package io.vecflow.dataplane.config;

import static io.vecflow.dataplane.config.DataplaneConfig.MAX_BUFFERS;
import static io.vecflow.dataplane.config.DataplaneConfig.MAX_PROBLEMS;
import static io.vecflow.dataplane.config.DataplaneConfig.MAX_WORKERS;
import static io.vecflow.dataplane.config.DataplaneConfig.MIN_BUFFERS;
import static io.vecflow.dataplane.config.DataplaneConfig.ipLiteral;
import static io.vecflow.dataplane.config.DataplaneConfig.mac;

import io.vecflow.dataplane.config.DataplaneConfig.AfPacket;
import io.vecflow.dataplane.config.DataplaneConfig.CloveDestination;
import io.vecflow.dataplane.config.DataplaneConfig.CloveProbe;
import io.vecflow.dataplane.config.DataplaneConfig.CloveSection;
import io.vecflow.dataplane.config.DataplaneConfig.Generator;
import io.vecflow.dataplane.config.DataplaneConfig.Lb;
import io.vecflow.dataplane.config.DataplaneConfig.LbVip;
import io.vecflow.dataplane.config.DataplaneConfig.Metrics;
import io.vecflow.dataplane.config.DataplaneConfig.NeighbourSpec;
import io.vecflow.dataplane.config.DataplaneConfig.Pcap;
import io.vecflow.dataplane.config.DataplaneConfig.PortSpec;
import io.vecflow.dataplane.config.DataplaneConfig.PortType;
import io.vecflow.dataplane.config.DataplaneConfig.RouteSpec;
import io.vecflow.dataplane.config.DataplaneConfig.Sflow;
import io.vecflow.dataplane.config.DataplaneConfig.SrlbAgentSection;
import io.vecflow.dataplane.config.DataplaneConfig.UsersockGroups;
import io.vecflow.dataplane.control.CommandParser;
import io.vecflow.dataplane.graph.FeatureArc;
import io.vecflow.dataplane.plugins.clove.Clove;
import io.vecflow.dataplane.plugins.clove.path.PathWeights;
import io.vecflow.dataplane.plugins.lb.EncapType;
import io.vecflow.dataplane.plugins.lb.LoadBalancer;
import io.vecflow.dataplane.plugins.lb.Protocol;
import io.vecflow.dataplane.plugins.lb.VipKey;
import io.vecflow.dataplane.plugins.lb.maglev.ConnectionTable;
import io.vecflow.dataplane.plugins.lb.maglev.MaglevTable;
import io.vecflow.dataplane.plugins.srlb.SrlbAgent;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a loaded {@link DataplaneConfig}: ranges, names that must exist or be unique, addresses and prefixes,
 * sections that depend on each other; fills the typed fields the sections expose after loading (addresses, MACs,
 * prefixes). Collects every problem (at most {@value DataplaneConfig#MAX_PROBLEMS}) with the source, line and key path,
 * then throws them together.
 */
final class DataplaneConfigValidator {
    private final DataplaneConfig cfg;

    private DataplaneConfigValidator(DataplaneConfig cfg) {
        this.cfg = cfg;
    }

    /**
     * Validates {@code c} (and fills its typed fields).
     *
     * @param c the configuration as read
     * @param source name used in messages (the file name)
     * @param yaml the text it was read from (for line numbers)
     * @param baseDir directory relative pcap paths resolve against, or {@code null}
     * @throws DataplaneConfigException every problem found
     */
    static void validate(DataplaneConfig c, String source, String yaml, Path baseDir) {
        new DataplaneConfigValidator(c).validate(new Problems(source, YamlLines.of(yaml)), baseDir);
    }

    private void validate(Problems p, Path baseDir) {
        // sections written with no value (e.g. "sflow:") are YAML null: the defaults
        cfg.ports = cfg.ports == null ? new ArrayList<>() : cfg.ports;
        cfg.xconnects = cfg.xconnects == null ? new ArrayList<>() : cfg.xconnects;
        cfg.routes = cfg.routes == null ? new ArrayList<>() : cfg.routes;
        cfg.neighbours = cfg.neighbours == null ? new ArrayList<>() : cfg.neighbours;
        cfg.sflow = cfg.sflow == null ? new Sflow() : cfg.sflow;
        cfg.metrics = cfg.metrics == null ? new Metrics() : cfg.metrics;
        if (cfg.sflow.interfaces == null) {
            cfg.sflow.interfaces = new ArrayList<>();
        }
        if (cfg.sflow.usersockGroups == null) {
            cfg.sflow.usersockGroups = new UsersockGroups();
        }

        p.check(cfg.workers >= 1 && cfg.workers <= MAX_WORKERS, "workers", cfg.workers, "need 1.." + MAX_WORKERS);
        p.check(cfg.buffersPerWorker >= MIN_BUFFERS && cfg.buffersPerWorker <= MAX_BUFFERS, "buffers-per-worker",
                cfg.buffersPerWorker, "need " + MIN_BUFFERS + ".." + MAX_BUFFERS);
        Map<String, Integer> byName = validatePorts(p, baseDir);
        validateXconnects(p, byName);
        Map<InetAddress, NeighbourSpec> neigh = validateNeighbours(p, byName);
        validateRoutes(p, byName, neigh);
        validateSflow(p, byName);
        if (cfg.lb != null) {
            validateLb(p);
        }
        if (cfg.srlbAgent != null) {
            validateSrlbAgent(p);
        }
        if (cfg.clove != null) {
            validateClove(p);
        }
        p.check(cfg.controlSocket != null && !cfg.controlSocket.isBlank()
                && cfg.controlSocket.getBytes(StandardCharsets.UTF_8).length <= 107, "control-socket",
                cfg.controlSocket, "need a path of 1..107 bytes (sun_path)");
        p.check(cfg.controlSocketGroup == null || cfg.controlSocketGroup.isEmpty()
                || cfg.controlSocketGroup.matches("[a-z_][a-z0-9_-]{0,31}\\$?"), "control-socket-group",
                cfg.controlSocketGroup, "need a group name (or empty for the process's group)");
        p.check(cfg.metrics.port >= 0 && cfg.metrics.port <= 65535, "metrics.port", cfg.metrics.port,
                "need 0..65535 (0 = off)");
        p.check(cfg.metrics.listen != null && ipLiteral(cfg.metrics.listen) != null, "metrics.listen",
                cfg.metrics.listen, "need an IP address");
        cfg.metrics.users = cfg.metrics.users == null ? new java.util.LinkedHashMap<>() : cfg.metrics.users;
        try {
            io.vecflow.common.BasicCredentials.checkUsers("metrics", cfg.metrics.users);
        } catch (IllegalArgumentException e) {
            p.check(false, "metrics.users", "(hidden)", e.getMessage());
        }
        if (!p.list.isEmpty()) {
            throw new DataplaneConfigException(p.list);
        }
    }

    private Map<String, Integer> validatePorts(Problems p, Path baseDir) {
        Map<String, Integer> byName = new LinkedHashMap<>();
        Map<Long, Integer> byIfIndex = new HashMap<>();
        Map<Long, Integer> byOsIndex = new HashMap<>();
        Map<String, Integer> byDevice = new HashMap<>();
        if (cfg.ports.isEmpty()) {
            p.add("ports", "at least one port is needed");
        }
        for (int i = 0; i < cfg.ports.size(); i++) {
            String at = "ports[" + i + "]";
            PortSpec port = cfg.ports.get(i);
            if (port == null) {
                p.add(at, "empty port entry");
                continue;
            }
            if (port.name == null) {
                p.add(at, "name is required");
            } else if (p.check(port.name.matches("[A-Za-z0-9_.:/-]{1,63}"), at + ".name", port.name,
                    "need 1..63 of A-Z a-z 0-9 _ . : / -")) {
                Integer prev = byName.putIfAbsent(port.name, i);
                if (prev != null) {
                    p.add(at + ".name", quote(port.name) + " is already the name of ports[" + prev + "]");
                }
            }
            if (port.type == null) {
                p.add(at, "type is required (af_packet, pcap or generator)");
            } else {
                port.portType = switch (port.type) {
                    case "af_packet" -> PortType.AF_PACKET;
                    case "pcap" -> PortType.PCAP;
                    case "generator" -> PortType.GENERATOR;
                    default -> null;
                };
                p.check(port.portType != null, at + ".type", port.type, "need af_packet, pcap or generator");
                p.check(port.mode == null || port.mode.equals("l2") || port.mode.equals("l3"), at + ".mode", port.mode,
                        "need l2 or l3");
            }
            if (port.ifIndex != null && p.check(port.ifIndex >= 1 && port.ifIndex <= FeatureArc.MAX_IF_INDEX,
                    at + ".if-index", port.ifIndex, "need 1.." + FeatureArc.MAX_IF_INDEX)) {
                Integer prev = byIfIndex.putIfAbsent(port.ifIndex, i);
                if (prev != null) {
                    p.add(at + ".if-index", port.ifIndex + " is already the if-index of ports[" + prev + "]");
                }
            }
            if (port.osIndex != null && p.check(port.osIndex >= 1 && port.osIndex <= 0xFFFF_FFFFL, at + ".os-index",
                    port.osIndex, "need 1..4294967295")) {
                Integer prev = byOsIndex.putIfAbsent(port.osIndex, i);
                if (prev != null) {
                    p.add(at + ".os-index", port.osIndex + " is already the os-index of ports[" + prev + "]");
                }
            }
            p.check(port.mtu >= 68 && port.mtu <= 65535, at + ".mtu", port.mtu, "need 68..65535 bytes");
            if (port.mac != null) {
                port.macBytes = mac(port.mac);
                p.check(port.macBytes != null && (port.macBytes[0] & 1) == 0, at + ".mac", port.mac,
                        "need a unicast MAC like 02:00:00:00:00:01");
            }
            if (port.netns != null) {
                p.check(port.netns.matches("[A-Za-z0-9_.-]{1,64}") && !port.netns.startsWith("."), at + ".netns",
                        port.netns, "need a network namespace name of 1..64 of A-Z a-z 0-9 _ . -");
                p.check(port.portType == null || port.portType == PortType.AF_PACKET, at + ".netns", port.netns,
                        "only af_packet ports live in a network namespace");
            }
            checkOptionSections(p, at, port);
            if (port.portType == PortType.AF_PACKET) {
                AfPacket a = port.afPacket == null ? (port.afPacket = new AfPacket()) : port.afPacket;
                if (a.device == null) {
                    a.device = port.name;
                }
                if (a.device != null && p.check(a.device.matches("[^\\s/:]{1,15}") && !a.device.equals(".")
                        && !a.device.equals(".."), at + ".af-packet.interface", a.device,
                        "need a Linux interface name of 1..15 characters without blanks, / or :")) {
                    String key = (port.netns == null ? "" : port.netns) + "/" + a.device;
                    Integer prev = byDevice.putIfAbsent(key, i);
                    if (prev != null) {
                        p.add(at + ".af-packet.interface", quote(a.device) + (port.netns == null ? ""
                                : " in netns " + port.netns) + " is already used by ports[" + prev + "]");
                    }
                }
                p.check(a.ringBlocks >= 2 && a.ringBlocks <= 1024, at + ".af-packet.ring-blocks", a.ringBlocks,
                        "need 2..1024");
                p.check(a.ringBlockBytes >= 4096 && a.ringBlockBytes <= 16 << 20
                        && Integer.bitCount(a.ringBlockBytes) == 1, at + ".af-packet.ring-block-bytes",
                        a.ringBlockBytes, "need a power of two, 4096..16777216");
            } else if (port.portType == PortType.PCAP) {
                Pcap c = port.pcap;
                if (c == null || c.file == null || c.file.isBlank()) {
                    p.add(at + (c == null ? "" : ".pcap"), "a pcap port needs pcap.file");
                } else {
                    Path f = Path.of(c.file);
                    c.path = baseDir == null || f.isAbsolute() ? f : baseDir.resolve(f).normalize();
                    if (baseDir != null && !Files.isRegularFile(c.path)) {
                        p.add(at + ".pcap.file", "no such file " + c.path);
                    }
                }
                if (c != null) {
                    p.check(c.loops >= 1, at + ".pcap.loops", c.loops, "need >= 1");
                    p.check(c.pps >= 0 && Double.isFinite(c.pps), at + ".pcap.pps", c.pps,
                            "need >= 0 packets/s (0 = as fast as possible)");
                }
            } else if (port.portType == PortType.GENERATOR) {
                Generator g = port.generator == null ? (port.generator = new Generator()) : port.generator;
                String s = g.size == null ? "" : g.size.trim();
                if (s.equals("imix")) {
                    g.frameBytes = 0;
                } else if (s.matches("[0-9]{1,5}") && Integer.parseInt(s) >= 60 && Integer.parseInt(s) <= 9216) {
                    g.frameBytes = Integer.parseInt(s);
                } else {
                    p.add(at + ".generator.size", quote(g.size) + " is invalid (need imix or 60..9216 bytes)");
                }
                p.check(g.flows >= 1 && g.flows <= 1 << 24, at + ".generator.flows", g.flows, "need 1..16777216");
                p.check("uniform".equals(g.popularity) || "zipf".equals(g.popularity), at + ".generator.popularity",
                        g.popularity, "need uniform or zipf");
                p.check(g.zipfExponent > 0 && g.zipfExponent <= 10, at + ".generator.zipf-exponent", g.zipfExponent,
                        "need 0 < s <= 10");
                p.check(g.ipVersion == 4 || g.ipVersion == 6, at + ".generator.ip-version", g.ipVersion,
                        "need 4 or 6");
                p.check(g.pps >= 0 && Double.isFinite(g.pps), at + ".generator.pps", g.pps,
                        "need >= 0 packets/s (0 = as fast as possible)");
                p.check(g.packets >= 0, at + ".generator.packets", g.packets, "need >= 0 (0 = until stopped)");
            }
        }
        return byName;
    }

    /** Options of one type given on a port of another type are a mistake worth naming. */
    private static void checkOptionSections(Problems p, String at, PortSpec port) {
        if (port.portType == null) {
            return;
        }
        if (port.afPacket != null && port.portType != PortType.AF_PACKET) {
            p.add(at + ".af-packet", "af-packet options on a " + port.type + " port");
        }
        if (port.pcap != null && port.portType != PortType.PCAP) {
            p.add(at + ".pcap", "pcap options on a " + port.type + " port");
        }
        if (port.generator != null && port.portType != PortType.GENERATOR) {
            p.add(at + ".generator", "generator options on a " + port.type + " port");
        }
    }

    private boolean knownPort(Problems p, Map<String, Integer> byName, String path, String name) {
        if (name == null) {
            p.add(path, "a port name is required");
            return false;
        }
        if (!byName.containsKey(name)) {
            p.add(path, "no port named " + quote(name) + " (ports: " + String.join(", ", byName.keySet()) + ")");
            return false;
        }
        return true;
    }

    private void validateXconnects(Problems p, Map<String, Integer> byName) {
        Map<String, Integer> used = new HashMap<>();
        for (int i = 0; i < cfg.xconnects.size(); i++) {
            String at = "xconnects[" + i + "]";
            List<String> pair = cfg.xconnects.get(i);
            if (pair == null || pair.size() != 2) {
                p.add(at, "need a pair of two port names, e.g. [eth0, eth1]");
                continue;
            }
            if (pair.get(0) != null && pair.get(0).equals(pair.get(1))) {
                p.add(at + "[1]", "a port cannot be cross-connected to itself");
                continue;
            }
            for (int j = 0; j < 2; j++) {
                String path = at + "[" + j + "]";
                if (knownPort(p, byName, path, pair.get(j))) {
                    Integer prev = used.putIfAbsent(pair.get(j), i);
                    if (prev != null) {
                        p.add(path, quote(pair.get(j)) + " is already in xconnects[" + prev + "]");
                    }
                }
            }
        }
    }

    private Map<InetAddress, NeighbourSpec> validateNeighbours(Problems p, Map<String, Integer> byName) {
        Map<InetAddress, NeighbourSpec> out = new HashMap<>();
        Map<InetAddress, Integer> first = new HashMap<>();
        for (int i = 0; i < cfg.neighbours.size(); i++) {
            String at = "neighbours[" + i + "]";
            NeighbourSpec n = cfg.neighbours.get(i);
            if (n == null) {
                p.add(at, "empty neighbour entry");
                continue;
            }
            n.inetAddress = n.address == null ? null : ipLiteral(n.address);
            boolean ok = p.check(n.inetAddress != null, at + ".address", n.address, "need an IPv4 or IPv6 address");
            n.macBytes = n.mac == null ? null : mac(n.mac);
            ok &= p.check(n.macBytes != null && (n.macBytes[0] & 1) == 0, at + ".mac", n.mac,
                    "need a unicast MAC like 02:00:00:00:00:02");
            ok &= knownPort(p, byName, at + ".port", n.port);
            if (n.inetAddress != null) {
                Integer prev = first.putIfAbsent(n.inetAddress, i);
                if (prev != null) {
                    p.add(at + ".address", n.address + " is already neighbours[" + prev + "]");
                    ok = false;
                }
            }
            if (ok) {
                out.put(n.inetAddress, n);
            }
        }
        return out;
    }

    private void validateRoutes(Problems p, Map<String, Integer> byName, Map<InetAddress, NeighbourSpec> neigh) {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < cfg.routes.size(); i++) {
            String at = "routes[" + i + "]";
            RouteSpec r = cfg.routes.get(i);
            if (r == null) {
                p.add(at, "empty route entry");
                continue;
            }
            boolean prefixOk = parsePrefix(p, at + ".prefix", r);
            if (prefixOk && !seen.add(r.prefixAddress.getHostAddress() + "/" + r.prefixLength)) {
                p.add(at + ".prefix", r.prefix + " is routed twice");
            }
            r.viaAddress = r.via == null ? null : ipLiteral(r.via);
            boolean viaOk = p.check(r.viaAddress != null, at + ".via", r.via, "need a next-hop IPv4 or IPv6 address");
            if (prefixOk && viaOk && r.viaAddress.getClass() != r.prefixAddress.getClass()) {
                p.add(at + ".via", r.via + " is not of the prefix's address family");
                viaOk = false;
            }
            boolean portOk = knownPort(p, byName, at + ".port", r.port);
            if (viaOk && portOk) {
                NeighbourSpec n = neigh.get(r.viaAddress);
                if (n == null) {
                    p.add(at + ".via", "no neighbour " + r.via + " in neighbours (no ARP/ND: every next hop needs a "
                            + "static MAC)");
                } else if (!n.port.equals(r.port)) {
                    p.add(at + ".port", quote(r.port) + " is not the port of neighbour " + r.via + " (" + n.port
                            + ")");
                }
            }
        }
    }

    private static boolean parsePrefix(Problems p, String path, RouteSpec r) {
        String s = r.prefix;
        int slash = s == null ? -1 : s.indexOf('/');
        InetAddress a = slash < 0 ? null : ipLiteral(s.substring(0, slash));
        String len = slash < 0 ? "" : s.substring(slash + 1);
        if (a == null || !len.matches("[0-9]{1,3}") || Integer.parseInt(len) > a.getAddress().length * 8) {
            p.add(path, quote(s) + " is invalid (need a prefix like 10.0.2.0/24 or 2001:db8::/64)");
            return false;
        }
        int n = Integer.parseInt(len);
        byte[] b = a.getAddress();
        for (int bit = n; bit < b.length * 8; bit++) {
            if ((b[bit / 8] & (0x80 >>> (bit % 8))) != 0) {
                p.add(path, s + " has host bits set");
                return false;
            }
        }
        r.prefixAddress = a;
        r.prefixLength = n;
        return true;
    }

    private void validateSflow(Problems p, Map<String, Integer> byName) {
        Sflow s = cfg.sflow;
        p.check(s.samplingRate >= 0, "sflow.sampling-rate", s.samplingRate, "need 0 (off) or 1..2147483647");
        p.check(s.pollingInterval >= 1 && s.pollingInterval <= CommandParser.MAX_POLLING_INTERVAL_S,
                "sflow.polling-interval", s.pollingInterval, "need 1.." + CommandParser.MAX_POLLING_INTERVAL_S
                        + " s (0 is rejected: VPP divides by it)");
        p.check(s.headerBytes >= CommandParser.MIN_HEADER_BYTES && s.headerBytes <= CommandParser.MAX_HEADER_BYTES
                && s.headerBytes % CommandParser.HEADER_BYTES_STEP == 0, "sflow.header-bytes", s.headerBytes,
                "need 64..256, a multiple of 32");
        p.check(List.of("rx", "tx", "both").contains(s.direction), "sflow.direction", s.direction,
                "need rx, tx or both");
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < s.interfaces.size(); i++) {
            String at = "sflow.interfaces[" + i + "]";
            if (knownPort(p, byName, at, s.interfaces.get(i)) && !seen.add(s.interfaces.get(i))) {
                p.add(at, quote(s.interfaces.get(i)) + " is listed twice");
            }
        }
        p.check(s.psampleIngressGroup >= 1, "sflow.psample-ingress-group", s.psampleIngressGroup,
                "need a PSAMPLE group >= 1 (VPP: 3)");
        p.check(s.psampleEgressGroup >= 1, "sflow.psample-egress-group", s.psampleEgressGroup,
                "need a PSAMPLE group >= 1 (VPP: 4)");
        if (s.psampleIngressGroup == s.psampleEgressGroup) {
            p.add("sflow.psample-egress-group", s.psampleEgressGroup + " is also the ingress group: the agent could "
                    + "not tell the directions apart");
        }
        p.check(s.psampleBatchBytes == 0 || (s.psampleBatchBytes >= 256 && s.psampleBatchBytes <= 65536),
                "sflow.psample-batch-bytes", s.psampleBatchBytes, "need 0 (off) or 256..65536");
        p.check("genl".equals(s.transport) || "usersock".equals(s.transport), "sflow.transport", s.transport,
                "need genl or usersock");
        UsersockGroups g = s.usersockGroups;
        p.check(g.psample >= 1 && g.psample <= 32, "sflow.usersock-groups.psample", g.psample, "need 1..32");
        p.check(g.netDm >= 1 && g.netDm <= 32, "sflow.usersock-groups.net-dm", g.netDm, "need 1..32");
        p.check(g.counters >= 1 && g.counters <= 32, "sflow.usersock-groups.counters", g.counters,
                "need 1..32 (VPP and hsflowd: 29)");
        if ("usersock".equals(s.transport)) {
            if (g.psample == g.netDm) {
                p.add("sflow.usersock-groups.net-dm", g.netDm + " is also the psample group");
            }
            if (g.counters == g.psample || g.counters == g.netDm) {
                p.add("sflow.usersock-groups.counters", g.counters + " is also the "
                        + (g.counters == g.psample ? "psample" : "net-dm") + " group (VPP's types 1/2 would mix "
                        + "with theirs)");
            }
        }
        p.check("nested".equals(s.netDmConvention) || "flat".equals(s.netDmConvention), "sflow.net-dm-convention",
                s.netDmConvention, "need nested (kernel) or flat (VPP)");
        long maxIf = 1;
        for (int i = 0; i < cfg.ports.size(); i++) {
            if (cfg.ports.get(i) != null) {
                maxIf = Math.max(maxIf, cfg.ports.get(i).ifIndexOr(i + 1));
            }
        }
        p.check(s.ifOffset >= 0 && s.ifOffset + maxIf <= 0xFFFF_FFFFL, "sflow.if-offset", s.ifOffset,
                "need 0.." + (0xFFFF_FFFFL - maxIf) + " (if-offset + the largest if-index is a u32 OSINDEX)");
        p.check(s.sampleFifoSlots >= 2 && s.sampleFifoSlots <= 1 << 20, "sflow.sample-fifo-slots",
                s.sampleFifoSlots, "need 2..1048576");
        p.check(s.discardFifoSlots >= 2 && s.discardFifoSlots <= 1 << 20, "sflow.discard-fifo-slots",
                s.discardFifoSlots, "need 2..1048576");
    }

    private void validateLb(Problems p) {
        Lb l = cfg.lb;
        if (l.vips == null) {
            l.vips = new ArrayList<>();
        }
        if (l.ip4SrcAddress != null) {
            l.ip4 = ipLiteral(l.ip4SrcAddress);
            if (!p.check(l.ip4 instanceof Inet4Address, "lb.ip4-src-address", l.ip4SrcAddress,
                    "need an IPv4 address")) {
                l.ip4 = null;
            }
        }
        if (l.ip6SrcAddress != null) {
            l.ip6 = ipLiteral(l.ip6SrcAddress);
            if (!p.check(l.ip6 instanceof Inet6Address, "lb.ip6-src-address", l.ip6SrcAddress,
                    "need an IPv6 address")) {
                l.ip6 = null;
            }
        }
        if (l.srlbSidPrefix != null) {
            l.srlbSid = ipLiteral(l.srlbSidPrefix);
            if (!p.check(l.srlbSid instanceof Inet6Address, "lb.srlb-sid-prefix", l.srlbSidPrefix,
                    "need an IPv6 address (the LB SIDs' /64)")) {
                l.srlbSid = null;
            }
        }
        p.check(l.flowTableSlots >= ConnectionTable.MIN_CAPACITY
                && l.flowTableSlots <= ConnectionTable.MAX_CAPACITY
                && Integer.bitCount(l.flowTableSlots) == 1, "lb.flow-table-slots", l.flowTableSlots,
                "need a power of two, 8..16777216");
        p.check(l.tcpTimeout >= 1 && l.tcpTimeout <= 86_400, "lb.tcp-timeout", l.tcpTimeout, "need 1..86400 s");
        p.check(l.udpTimeout >= 1 && l.udpTimeout <= 86_400, "lb.udp-timeout", l.udpTimeout, "need 1..86400 s");
        p.check(l.ttl >= 1 && l.ttl <= 255, "lb.ttl", l.ttl, "need 1..255");
        p.check(l.vips.size() <= LoadBalancer.MAX_VIPS, "lb.vips", l.vips.size() + " VIPs",
                "at most " + LoadBalancer.MAX_VIPS);
        Map<VipKey, Integer> seen = new HashMap<>();
        for (int i = 0; i < l.vips.size(); i++) {
            String at = "lb.vips[" + i + "]";
            LbVip v = l.vips.get(i);
            if (v == null) {
                p.add(at, "empty VIP entry");
                continue;
            }
            RouteSpec r = new RouteSpec();
            r.prefix = v.prefix;
            boolean ok = parsePrefix(p, at + ".prefix", r);
            Protocol proto = null;
            if (v.protocol != null) {
                proto = switch (v.protocol) {
                    case "tcp" -> Protocol.TCP;
                    case "udp" -> Protocol.UDP;
                    default -> null;
                };
                ok &= p.check(proto != null, at + ".protocol", v.protocol, "need tcp or udp");
            }
            if ((v.protocol == null) != (v.port == 0)) {
                p.add(at + (v.protocol == null ? ".port" : ".protocol"), "a per-port VIP needs both protocol and "
                        + "port (1..65535); an all-port VIP neither");
                ok = false;
            }
            ok &= p.check(v.port >= 0 && v.port <= 65535, at + ".port", v.port, "need 1..65535");
            v.encapEnum = switch (v.encap == null ? "" : v.encap) {
                case "gre4" -> EncapType.GRE4;
                case "gre6" -> EncapType.GRE6;
                case "ipip" -> EncapType.IPIP;
                case "srv6" -> EncapType.SRV6;
                case "srlb" -> EncapType.SRLB;
                default -> null;
            };
            ok &= p.check(v.encapEnum != null, at + ".encap", v.encap, "need gre4, gre6, ipip, srv6 or srlb");
            if (v.encapEnum == EncapType.SRLB && l.ip6 == null
                    && l.srlbSid == null) {
                p.add(at + ".encap", "srlb needs lb.srlb-sid-prefix or lb.ip6-src-address");
            }
            if (v.encapEnum == EncapType.GRE4 && l.ip4 == null) {
                p.add(at + ".encap", "gre4 needs lb.ip4-src-address");
            }
            if ((v.encapEnum == EncapType.GRE6
                    || v.encapEnum == EncapType.SRV6) && l.ip6 == null) {
                p.add(at + ".encap", v.encap + " needs lb.ip6-src-address");
            }
            ok &= p.check(v.newLen >= 2 && v.newLen <= MaglevTable.MAX_SIZE
                    && java.math.BigInteger.valueOf(v.newLen).isProbablePrime(30), at + ".new-len", v.newLen,
                    "need a prime, 2.." + MaglevTable.MAX_SIZE + " (default 65537)");
            if (ok) {
                v.key = new VipKey(r.prefixAddress, r.prefixLength,
                        proto, v.port);
                Integer prev = seen.putIfAbsent(v.key, i);
                if (prev != null) {
                    p.add(at, "VIP " + v.key + " is already lb.vips[" + prev + "]");
                }
                for (InetAddress own : new InetAddress[] {l.ip4, l.ip6}) {
                    if (own != null && LoadBalancer.covers(v.key, own)) {
                        p.add(at + ".prefix", "VIP " + v.key + " covers lb.ip" + (own instanceof Inet6Address ? 6 : 4)
                                + "-src-address " + io.vecflow.common.IpAddresses.toString(own.getAddress(), 0,
                                own.getAddress().length) + ", the LB's own outer source: replies to it "
                                + "would be load-balanced");
                    }
                }
            }
            v.backendAddresses = new ArrayList<>();
            if (v.backends == null) {
                v.backends = new ArrayList<>();
            }
            for (int j = 0; j < v.backends.size(); j++) {
                String bat = at + ".backends[" + j + "]";
                String text = v.backends.get(j);
                InetAddress a = text == null ? null : ipLiteral(text);
                if (!p.check(a != null, bat, text, "need an IPv4 or IPv6 address")) {
                    continue;
                }
                boolean six = a instanceof Inet6Address;
                if (v.encapEnum != null) {
                    switch (v.encapEnum) {
                        case GRE4 -> p.check(!six, bat, text, "gre4 needs IPv4 backends");
                        case GRE6, SRV6, SRLB -> p.check(six, bat, text, v.encap + " needs IPv6 backends");
                        case IPIP -> p.check(six ? l.ip6 != null : l.ip4 != null, bat, text, "ipip to this family "
                                + "needs lb.ip" + (six ? 6 : 4) + "-src-address");
                        default -> { }
                    }
                }
                if (v.backendAddresses.contains(a)) {
                    p.add(bat, text + " is listed twice");
                } else {
                    v.backendAddresses.add(a);
                }
            }
        }
    }

    private void validateSrlbAgent(Problems p) {
        SrlbAgentSection a = cfg.srlbAgent;
        a.sidAddress = a.sid == null ? null : ipLiteral(a.sid);
        if (p.check(a.sidAddress instanceof Inet6Address, "srlb-agent.sid", a.sid, "need an IPv6 /80 prefix")) {
            byte[] b = a.sidAddress.getAddress();
            boolean clear = true;
            for (int i = 10; i < 16; i++) {
                clear &= b[i] == 0;
            }
            p.check(clear, "srlb-agent.sid", a.sid, "bytes 10-15 must be zero (FUNCTION, CORE, ENTRY go there)");
        }
        a.vipAddresses = new ArrayList<>();
        if (a.vips == null) {
            a.vips = new ArrayList<>();
        }
        p.check(!a.vips.isEmpty() && a.vips.size() <= SrlbAgent.MAX_VIPS, "srlb-agent.vips",
                a.vips.size() + " VIPs", "need 1.." + SrlbAgent.MAX_VIPS);
        for (int i = 0; i < a.vips.size(); i++) {
            InetAddress v = a.vips.get(i) == null ? null : ipLiteral(a.vips.get(i));
            if (p.check(v instanceof Inet6Address, "srlb-agent.vips[" + i + "]", a.vips.get(i),
                    "need an IPv6 address")) {
                a.vipAddresses.add(v);
            }
        }
        p.check(java.util.Set.of("always-accept", "always-reject", "only-last", "static-threshold")
                .contains(String.valueOf(a.policy)), "srlb-agent.policy", a.policy,
                "need always-accept, always-reject, only-last or static-threshold");
        p.check(Double.isFinite(a.threshold), "srlb-agent.threshold", a.threshold, "need a finite number");
        if (p.check(java.util.Set.of("test", "apache", "nginx", "cgroup").contains(String.valueOf(a.load)),
                "srlb-agent.load", a.load, "need test, apache, nginx or cgroup")) {
            if (a.load.equals("apache") || a.load.equals("nginx")) {
                java.net.URI u = null;
                try {
                    u = a.loadUrl == null ? null : new java.net.URI(a.loadUrl);
                } catch (java.net.URISyntaxException e) {
                    u = null;
                }
                p.check(u != null && u.getHost() != null && ("http".equals(u.getScheme())
                        || "https".equals(u.getScheme())), "srlb-agent.load-url", a.loadUrl,
                        "need the status page's http(s) URL, e.g. http://127.0.0.1/server-status?auto");
            }
            if (a.load.equals("apache")) {
                p.check("busy-workers".equals(a.loadMetric) || "sending".equals(a.loadMetric),
                        "srlb-agent.load-metric", a.loadMetric, "need busy-workers or sending");
            }
            if (a.load.equals("cgroup")) {
                p.check(a.loadCgroup != null && !a.loadCgroup.isBlank(), "srlb-agent.load-cgroup", a.loadCgroup,
                        "need the path of the group's cpu.stat, e.g. /sys/fs/cgroup/system.slice/nginx.service/"
                                + "cpu.stat");
                p.check(a.loadCpus > 0 && Double.isFinite(a.loadCpus), "srlb-agent.load-cpus", a.loadCpus,
                        "need a CPU count > 0");
            }
        }
        p.check(a.loadIntervalMs >= 10 && a.loadIntervalMs <= 60_000, "srlb-agent.load-interval-ms",
                a.loadIntervalMs, "need 10..60000 ms");
        p.check(Double.isFinite(a.loadInitial), "srlb-agent.load-initial", a.loadInitial, "need a finite number");
        p.check(a.flowTableSlots >= 8 && a.flowTableSlots <= 1 << 24 && Integer.bitCount(a.flowTableSlots) == 1,
                "srlb-agent.flow-table-slots", a.flowTableSlots, "need a power of two, 8..16777216");
        p.check(a.activeTimeout >= 1 && a.activeTimeout <= 86_400, "srlb-agent.active-timeout", a.activeTimeout,
                "need 1..86400 s");
        p.check(a.teardownTimeout >= 1 && a.teardownTimeout <= 86_400, "srlb-agent.teardown-timeout",
                a.teardownTimeout, "need 1..86400 s");
    }

    private void validateClove(Problems p) {
        CloveSection c = cfg.clove;
        Clove.Settings s = new Clove.Settings();
        InetAddress v = c.vtep == null ? null : ipLiteral(c.vtep);
        if (p.check(v instanceof Inet4Address, "clove.vtep", c.vtep, "need an IPv4 address")
                && p.check(unicastVtep(v), "clove.vtep", c.vtep, VTEP_UNICAST)) {
            s.vtep = ipv4Int(v);
        }
        if (p.check("geneve".equals(c.encap) || "vxlan".equals(c.encap), "clove.encap", c.encap,
                "need geneve or vxlan")) {
            s.geneve = "geneve".equals(c.encap);
        }
        if (p.check("ecn".equals(c.mode) || "edge-flowlet".equals(c.mode), "clove.mode", c.mode,
                "need ecn or edge-flowlet (CLOVE-INT needs INT-capable switches)")) {
            s.mode = "ecn".equals(c.mode) ? Clove.Mode.ECN
                    : Clove.Mode.EDGE_FLOWLET;
            p.check(!("ecn".equals(c.mode) && "vxlan".equals(c.encap)), "clove.mode", c.mode,
                    "CLOVE-ECN relays marks in a Geneve option: use encap geneve, or mode edge-flowlet");
        }
        p.check(c.vni >= 0 && c.vni <= 0xFF_FFFF, "clove.vni", c.vni, "need 0..16777215");
        p.check(c.flowletGapUs >= 1 && c.flowletGapUs <= 10_000_000, "clove.flowlet-gap-us", c.flowletGapUs,
                "need 1..10000000 µs");
        p.check(c.flowletTableSlots >= 8 && c.flowletTableSlots <= 1 << 24
                && Integer.bitCount(c.flowletTableSlots) == 1, "clove.flowlet-table-slots", c.flowletTableSlots,
                "need a power of two, 8..16777216");
        p.check(c.ecnWindowUs >= 0 && c.ecnWindowUs <= 10_000_000, "clove.ecn-window-us", c.ecnWindowUs,
                "need 0..10000000 µs");
        p.check(c.ttl >= 1 && c.ttl <= 255, "clove.ttl", c.ttl, "need 1..255");
        CloveProbe pr = c.probe == null ? new CloveProbe() : c.probe;
        p.check(pr.candidates >= 1 && pr.candidates <= 256, "clove.probe.candidates", pr.candidates, "need 1..256");
        p.check(pr.firstPort >= 1 && pr.firstPort + pr.candidates <= 0x10000, "clove.probe.first-port",
                pr.firstPort, "need 1..65535 with first-port + candidates - 1 <= 65535");
        p.check(pr.maxTtl >= 1 && pr.maxTtl <= 16, "clove.probe.max-ttl", pr.maxTtl, "need 1..16");
        p.check(pr.interval >= 1 && pr.interval <= 86_400, "clove.probe.interval", pr.interval, "need 1..86400 s");
        p.check(pr.settleMs >= 10 && pr.settleMs <= 60_000, "clove.probe.settle-ms", pr.settleMs,
                "need 10..60000 ms");
        p.check(c.paths >= 1 && c.paths <= Math.min(pr.candidates, PathWeights.MAX_PATHS),
                "clove.paths", c.paths, "need 1..probe.candidates");
        if (c.destinations == null) {
            c.destinations = new ArrayList<>();
        }
        p.check(!c.destinations.isEmpty() && c.destinations.size() <= Clove.MAX_DESTINATIONS,
                "clove.destinations", c.destinations.size() + " destinations",
                "need 1.." + Clove.MAX_DESTINATIONS);
        int before = p.list.size();
        Set<InetAddress> seen = new HashSet<>();
        for (int i = 0; i < c.destinations.size(); i++) {
            CloveDestination d = c.destinations.get(i);
            String at = "clove.destinations[" + i + "]";
            if (d == null) {
                p.add(at, "is empty");
                continue;
            }
            InetAddress dv = d.vtep == null ? null : ipLiteral(d.vtep);
            if (p.check(dv instanceof Inet4Address, at + ".vtep", d.vtep, "need an IPv4 address")
                    && p.check(unicastVtep(dv), at + ".vtep", d.vtep, VTEP_UNICAST)) {
                if (dv.equals(v)) {
                    p.add(at + ".vtep", d.vtep + " is this endpoint's own clove.vtep");
                } else if (!seen.add(dv)) {
                    p.add(at + ".vtep", d.vtep + " is listed twice");
                }
            }
            List<String> pf = d.prefixes == null ? List.of() : d.prefixes;
            p.check(!pf.isEmpty() && pf.size() <= Clove.MAX_PREFIXES, at + ".prefixes",
                    pf.size() + " prefixes", "need 1.." + Clove.MAX_PREFIXES);
            int[] addrs = new int[pf.size()], lens = new int[pf.size()];
            for (int j = 0; j < pf.size(); j++) {
                RouteSpec r = new RouteSpec();
                r.prefix = pf.get(j);
                if (parsePrefix(p, at + ".prefixes[" + j + "]", r)
                        && p.check(r.prefixAddress instanceof Inet4Address, at + ".prefixes[" + j + "]", pf.get(j),
                                "need an IPv4 prefix (the clove4 node carries inner IPv4)")) {
                    addrs[j] = ipv4Int(r.prefixAddress);
                    lens[j] = r.prefixLength;
                }
            }
            if (p.list.size() == before && dv != null && !pf.isEmpty()) {
                s.destinations.add(new Clove.DestinationSpec(ipv4Int(dv), addrs, lens));
            }
        }
        s.vni = c.vni;
        s.paths = c.paths;
        s.flowletGapNanos = c.flowletGapUs * 1000;
        s.flowletSlots = c.flowletTableSlots;
        s.ecnWindowNanos = c.ecnWindowUs * 1000;
        s.ttl = c.ttl;
        s.probeFirstPort = pr.firstPort;
        s.probeCandidates = pr.candidates;
        s.probeMaxTtl = pr.maxTtl;
        s.probeIntervalNanos = pr.interval * 1_000_000_000L;
        s.probeSettleNanos = pr.settleMs * 1_000_000L;
        c.settings = s;
    }

    private static final String VTEP_UNICAST =
            "need a unicast IPv4 address: not 0.0.0.0/8, loopback, multicast, 240/4 or broadcast";

    /** A tunnel endpoint must be a unicast address another host can send to (RFC 1122 §3.2.1.3, RFC 5771). */
    private static boolean unicastVtep(InetAddress a) {
        return !(a.isAnyLocalAddress() || a.isLoopbackAddress() || a.isMulticastAddress()
                || ipv4Int(a) == 0xFFFF_FFFF || (ipv4Int(a) >>> 28) == 0xF || (ipv4Int(a) >>> 24) == 0);
    }

    private static int ipv4Int(InetAddress a) {
        byte[] b = a.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | b[3] & 0xFF;
    }

    /** Collects problems with their lines. */
    static final class Problems {
        final String source;
        final YamlLines lines;
        final List<String> list = new ArrayList<>();

        Problems(String source, YamlLines lines) {
            this.source = source;
            this.lines = lines;
        }

        void add(String path, String problem) {
            if (list.size() < MAX_PROBLEMS) {
                int l = lines.line(path);
                list.add(source + (l > 0 ? " line " + l : "") + ": " + path + ": " + problem);
            }
        }

        boolean check(boolean ok, String path, Object value, String rule) {
            if (!ok) {
                add(path, value == null ? "is missing (" + rule + ")" : quote(value) + " is invalid (" + rule + ")");
            }
            return ok;
        }
    }

    static String quote(Object v) {
        return v instanceof String s ? "\"" + s + "\"" : String.valueOf(v);
    }
}
