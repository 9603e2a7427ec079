package io.vecflow.dataplane.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.dataplane.DataplaneAssembly;
import io.vecflow.dataplane.config.DataplaneConfig.PortType;
import io.vecflow.dataplane.control.DataplaneControl.Direction;
import io.vecflow.dataplane.plugins.lb.EncapType;
import io.vecflow.dataplane.plugins.srlb.SrlbAgent;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dataplane YAML: the documented example loads with every value; mistakes are named with key path and line. */
class DataplaneConfigTest {
    /** The repository root (tests run in agent-dataplane/); the example's pcap path is relative to it. */
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @TempDir
    Path dir;

    private static DataplaneConfigException problems(String yaml) {
        try {
            DataplaneConfig.parse(yaml, "dp.yaml", null);
        } catch (DataplaneConfigException e) {
            return e;
        }
        throw new AssertionError("no error for:\n" + yaml);
    }

    /** A YAML syntax error keeps SnakeYAML's problem, not only its context ("while parsing a block collection"). */
    @Test
    void aYamlSyntaxErrorSaysWhatIsWrongAndWhere() {
        DataplaneConfigException e =
                problems("ports:\n  - {name: a, type: generator}\n - {name: b, type: generator}\n");
        assertThat(e.problems()).singleElement().asString().startsWith("dp.yaml line ")
                .contains("while parsing a block mapping; expected <block end>, but found '<block sequence start>'");
    }

    @Test
    void aPcapPortOnAFileThatIsNotAPcapNamesThePortAndFileWhenOpened() throws Exception {
        Path notPcap = dir.resolve("notes.txt");
        Files.writeString(notPcap, "workers: 1\n");
        Path f = dir.resolve("dp.yaml");
        Files.writeString(f, "ports:\n  - {name: replay7, type: pcap, pcap: {file: notes.txt}}\nmetrics: {port: 0}\n");
        DataplaneConfig c = DataplaneConfig.load(f);
        assertThatThrownBy(() -> DataplaneAssembly.open(c, m -> { }, false)).isInstanceOf(java.io.IOException.class)
                .hasMessageStartingWith("port replay7: pcap.file " + notPcap + ": not a pcap file: bad magic_number");
    }

    @Test
    void aDirectoryOrUnreadableFileIsNamedInTheError() throws Exception {
        assertThatThrownBy(() -> DataplaneConfig.load(dir)).isInstanceOf(java.io.IOException.class)
                .hasMessage("cannot read " + dir + ": Is a directory");
        Path latin1 = dir.resolve("latin1.yaml");
        Files.write(latin1, new byte[] {'w', 'o', 'r', 'k', 'e', 'r', 's', ':', ' ', '1', ' ', '#', ' ', (byte) 0xe9});
        assertThatThrownBy(() -> DataplaneConfig.load(latin1)).isInstanceOf(java.io.IOException.class)
                .hasMessageStartingWith("cannot read " + latin1 + ": ");
    }

    @Test
    void documentedExampleLoadsWithEveryValue() throws Exception {
        DataplaneConfig c = DataplaneConfig.parse(DataplaneConfig.example(), "dataplane-example.yaml", ROOT);
        assertThat(c.workers).isEqualTo(2);
        assertThat(c.buffersPerWorker).isEqualTo(4096);
        assertThat(c.ports).extracting(p -> p.name).containsExactly("eth0", "eth1", "replay0", "gen0");
        assertThat(c.ports).extracting(DataplaneConfig.PortSpec::portType)
                .containsExactly(PortType.AF_PACKET, PortType.AF_PACKET, PortType.PCAP, PortType.GENERATOR);
        DataplaneConfig.PortSpec eth0 = c.port("eth0");
        assertThat(eth0.ifIndexOr(99)).isEqualTo(1);
        assertThat(eth0.netns).isEqualTo("dp-left");
        assertThat(eth0.mtu).isEqualTo(1500);
        assertThat(eth0.macBytes()).isNull();
        assertThat(eth0.afPacket.device).isEqualTo("veth-dp0");
        assertThat(eth0.afPacket.ringBlocks).isEqualTo(16);
        assertThat(eth0.afPacket.ringBlockBytes).isEqualTo(1 << 20);
        assertThat(c.port("eth1").afPacket.device).isEqualTo("veth-dp1");
        DataplaneConfig.PortSpec replay = c.port("replay0");
        assertThat(replay.pcap.path()).isEqualTo(ROOT.resolve("testdata/traffic/ipv4_tcp_http_xml.pcap"));
        assertThat(replay.pcap.path()).isRegularFile();
        assertThat(replay.pcap.loops).isEqualTo(1);
        assertThat(replay.macBytes()).containsExactly(2, 0, 0, 0, 0, 3);
        DataplaneConfig.Generator g = c.port("gen0").generator;
        assertThat(g.frameBytes()).isZero(); // imix
        assertThat(g.flows).isEqualTo(1024);
        assertThat(g.zipf()).isTrue();
        assertThat(g.zipfExponent).isEqualTo(1.0);
        assertThat(g.ipVersion).isEqualTo(4);
        assertThat(c.xconnects).containsExactly(java.util.List.of("eth0", "eth1"));
        assertThat(c.routes).hasSize(2);
        assertThat(c.routes.get(0).prefixAddress()).isEqualTo(InetAddress.getByName("10.0.2.0"));
        assertThat(c.routes.get(0).prefixLength()).isEqualTo(24);
        assertThat(c.routes.get(0).viaAddress()).isEqualTo(InetAddress.getByName("10.0.1.2"));
        assertThat(c.routes.get(1).prefixAddress()).isEqualTo(InetAddress.getByName("2001:db8:2::"));
        assertThat(c.routes.get(1).prefixLength()).isEqualTo(64);
        assertThat(c.routes.get(1).port).isEqualTo("gen0");
        assertThat(c.neighbours.get(1).inetAddress()).isEqualTo(InetAddress.getByName("2001:db8:1::2"));
        assertThat(c.neighbours.get(1).macBytes()).containsExactly(2, 0, 0, 0, 1, 3);
        DataplaneConfig.Sflow s = c.sflow;
        assertThat(s.samplingRate).isEqualTo(10_000);
        assertThat(s.pollingInterval).isEqualTo(20);
        assertThat(s.headerBytes).isEqualTo(128);
        assertThat(s.directionEnum()).isEqualTo(Direction.RX);
        assertThat(s.interfaces).containsExactly("eth0", "eth1");
        assertThat(s.dropMonitoring).isFalse();
        assertThat(s.psampleIngressGroup).isEqualTo(3);
        assertThat(s.psampleEgressGroup).isEqualTo(4);
        assertThat(s.genl()).isFalse();
        assertThat(s.usersockGroups.psample).isEqualTo(30);
        assertThat(s.usersockGroups.netDm).isEqualTo(31);
        assertThat(s.usersockGroups.counters).isEqualTo(29);
        assertThat(s.netDmFlat()).isFalse();
        assertThat(s.sampleFifoSlots).isEqualTo(2048);
        assertThat(s.discardFifoSlots).isEqualTo(256);
        assertThat(c.controlSocketPath()).isEqualTo(Path.of("/run/vecflow/dataplane.sock"));
        assertThat(c.metrics.listen).isEqualTo("127.0.0.1");
        assertThat(c.metrics.port).isEqualTo(9478);
    }

    @Test
    void aMinimalConfigGetsVppsDefaults() {
        DataplaneConfig c = DataplaneConfig.parse("ports:\n  - {name: g, type: generator}\nsflow:\n", "dp.yaml",
                null);
        assertThat(c.port("g").ifIndexOr(1)).isEqualTo(1);
        assertThat(c.port("g").generator.frameBytes()).isEqualTo(64);
        assertThat(c.port("g").generator.zipf()).isFalse();
        assertThat(c.sflow.samplingRate).isEqualTo(10_000);
        assertThat(c.sflow.pollingInterval).isEqualTo(20);
        assertThat(c.sflow.headerBytes).isEqualTo(128);
        assertThat(c.sflow.directionEnum()).isEqualTo(Direction.RX);
        assertThat(c.sflow.psampleIngressGroup).isEqualTo(3);
        assertThat(c.sflow.psampleEgressGroup).isEqualTo(4);
        assertThat(c.sflow.netDmFlat()).isFalse();
        assertThat(c.sflow.ifOffset).isEqualTo(1_000_000_000L);
        assertThat(c.port("g").osIndex).isNull();
        assertThat(c.sflow.dropMonitoring).isFalse();
        assertThat(c.controlSocket).isEqualTo("/run/vecflow/dataplane.sock");
        assertThat(c.xconnects).isEmpty();
    }

    @Test
    void unknownKeysAndWrongTypesNameKeyAndLine() {
        assertThat(problems("workers: 2\nports:\n  - name: a\n    type: generator\n    nmae: b\n").problems())
                .containsExactly("dp.yaml line 5: ports[0].nmae: unknown key (known here: af-packet, generator, "
                        + "if-index, mac, mode, mtu, name, netns, os-index, pcap, type)");
        assertThat(problems("ports:\n  - name: a\n    type: generator\n    mode: l4\n").problems())
                .containsExactly("dp.yaml line 4: ports[0].mode: \"l4\" is invalid (need l2 or l3)");
        assertThat(problems("workers: two\n").getMessage())
                .isEqualTo("dp.yaml line 1: workers: \"two\" is not a whole number");
        assertThat(problems("ports: {name: x}\n").getMessage())
                .isEqualTo("dp.yaml line 1: ports: expected a list, e.g. [a, b] or one \"- item\" per line");
        assertThat(problems("sflow:\n  header-bytes: 128\n  header-bytes: 64\n").getMessage())
                .startsWith("dp.yaml line 3: ").contains("Duplicate field 'header-bytes'");
    }

    @Test
    void everyProblemIsListedWithItsKeyPathAndLine() {
        String yaml = """
                workers: 0
                ports:
                  - name: eth0
                    type: af_packet
                    if-index: 7
                  - name: eth0
                    type: tap
                  - name: gen
                    type: generator
                    if-index: 7
                    netns: ns1
                    pcap: {file: x.pcap}
                    generator: {size: 59, popularity: pareto}
                xconnects:
                  - [eth0, eth9]
                  - [gen]
                routes:
                  - {prefix: 10.0.2.1/24, via: 10.0.1.2, port: eth0}
                  - {prefix: 10.0.3.0/24, via: 10.0.1.3, port: gen}
                  - {prefix: 2001:db8::/64, via: 10.0.1.2, port: gen}
                neighbours:
                  - {address: 10.0.1.3, mac: "01:00:5e:00:00:01", port: gen}
                sflow:
                  header-bytes: 100
                  polling-interval: 0
                  direction: sideways
                  interfaces: [eth0, nope]
                  psample-egress-group: 3
                  usersock-groups: {counters: 30}
                  net-dm-convention: vpp
                control-socket: ""
                """;
        assertThat(problems(yaml).problems()).containsExactly(
                "dp.yaml line 1: workers: 0 is invalid (need 1..64)",
                "dp.yaml line 6: ports[1].name: \"eth0\" is already the name of ports[0]",
                "dp.yaml line 7: ports[1].type: \"tap\" is invalid (need af_packet, pcap or generator)",
                "dp.yaml line 10: ports[2].if-index: 7 is already the if-index of ports[0]",
                "dp.yaml line 11: ports[2].netns: \"ns1\" is invalid (only af_packet ports live in a network "
                        + "namespace)",
                "dp.yaml line 12: ports[2].pcap: pcap options on a generator port",
                "dp.yaml line 13: ports[2].generator.size: \"59\" is invalid (need imix or 60..9216 bytes)",
                "dp.yaml line 13: ports[2].generator.popularity: \"pareto\" is invalid (need uniform or zipf)",
                "dp.yaml line 15: xconnects[0][1]: no port named \"eth9\" (ports: eth0, gen)",
                "dp.yaml line 16: xconnects[1]: need a pair of two port names, e.g. [eth0, eth1]",
                "dp.yaml line 22: neighbours[0].mac: \"01:00:5e:00:00:01\" is invalid (need a unicast MAC like "
                        + "02:00:00:00:00:02)",
                "dp.yaml line 18: routes[0].prefix: 10.0.2.1/24 has host bits set",
                "dp.yaml line 18: routes[0].via: no neighbour 10.0.1.2 in neighbours (no ARP/ND: every next hop "
                        + "needs a static MAC)",
                "dp.yaml line 19: routes[1].via: no neighbour 10.0.1.3 in neighbours (no ARP/ND: every next hop "
                        + "needs a static MAC)",
                "dp.yaml line 20: routes[2].via: 10.0.1.2 is not of the prefix's address family",
                "dp.yaml line 25: sflow.polling-interval: 0 is invalid (need 1..86400 s (0 is rejected: VPP divides "
                        + "by it))",
                "dp.yaml line 24: sflow.header-bytes: 100 is invalid (need 64..256, a multiple of 32)",
                "dp.yaml line 26: sflow.direction: \"sideways\" is invalid (need rx, tx or both)",
                "dp.yaml line 27: sflow.interfaces[1]: no port named \"nope\" (ports: eth0, gen)",
                "dp.yaml line 28: sflow.psample-egress-group: 3 is also the ingress group: the agent could not tell "
                        + "the directions apart",
                "dp.yaml line 29: sflow.usersock-groups.counters: 30 is also the psample group (VPP's types 1/2 "
                        + "would mix with theirs)",
                "dp.yaml line 30: sflow.net-dm-convention: \"vpp\" is invalid (need nested (kernel) or flat (VPP))",
                "dp.yaml line 31: control-socket: \"\" is invalid (need a path of 1..107 bytes (sun_path))");
    }

    @Test
    void routePortMustBeTheNeighboursAndPcapFilesMustExist() throws Exception {
        Files.writeString(dir.resolve("a.pcap"), "not checked here");
        Path cfg = dir.resolve("dp.yaml");
        Files.writeString(cfg, """
                ports:
                  - {name: p0, type: pcap, pcap: {file: a.pcap}}
                  - {name: p1, type: pcap, pcap: {file: missing.pcap}}
                routes:
                  - {prefix: 0.0.0.0/0, via: 192.0.2.1, port: p0}
                neighbours:
                  - {address: 192.0.2.1, mac: "02:00:00:00:00:09", port: p1}
                """);
        assertThatThrownBy(() -> DataplaneConfig.load(cfg))
                .isInstanceOf(DataplaneConfigException.class)
                .hasMessage(cfg + " line 3: ports[1].pcap.file: no such file " + dir.resolve("missing.pcap") + "\n"
                        + cfg + " line 5: routes[0].port: \"p0\" is not the port of neighbour 192.0.2.1 (p1)");
        Files.writeString(cfg, Files.readString(cfg).replace("missing.pcap", "a.pcap").replace("port: p0}",
                "port: p1}"));
        DataplaneConfig c = DataplaneConfig.load(cfg);
        assertThat(c.port("p1").pcap.path()).isEqualTo(dir.resolve("a.pcap"));
        assertThat(c.routes.getFirst().prefixLength()).isZero();
    }

    @Test
    void emptyDocumentNeedsAPort() {
        assertThat(problems("").problems()).containsExactly("dp.yaml: ports: at least one port is needed");
        assertThat(problems("# nothing\n").problems()).containsExactly("dp.yaml: ports: at least one port is needed");
    }

    @Test
    void portModeDefaultsFromXconnectsAndRoutes() {
        String ports = "ports:\n  - {name: a, type: generator}\n  - {name: b, type: generator}\n"
                + "  - {name: c, type: generator}\n  - {name: d, type: generator, mode: l2}\n";
        DataplaneConfig l2only = DataplaneConfig.parse(ports + "xconnects:\n  - [a, b]\n", "dp.yaml", null);
        assertThat(l2only.port("a").routed(l2only)).isFalse();
        assertThat(l2only.port("c").routed(l2only)).as("no routes: l2").isFalse();
        DataplaneConfig mixed = DataplaneConfig.parse(ports + "xconnects:\n  - [a, b]\nneighbours:\n"
                + "  - {address: 10.0.0.2, mac: \"02:00:00:00:00:02\", port: c}\nroutes:\n"
                + "  - {prefix: 10.1.0.0/16, via: 10.0.0.2, port: c}\n", "dp.yaml", null);
        assertThat(mixed.port("a").routed(mixed)).as("cross-connected stays l2").isFalse();
        assertThat(mixed.port("c").routed(mixed)).as("routes configured: l3").isTrue();
        assertThat(mixed.port("d").routed(mixed)).as("explicit mode wins").isFalse();
    }

    @Test
    void exampleLbSectionLoads() {
        DataplaneConfig c = DataplaneConfig.parse(DataplaneConfig.example(), "dataplane-example.yaml", ROOT);
        assertThat(c.lb.ip4Source()).isEqualTo(InetAddress.ofLiteral("10.0.1.1"));
        assertThat(c.lb.ip6Source()).isEqualTo(InetAddress.ofLiteral("2001:db8:1::1"));
        assertThat(c.lb.flowTableSlots).isEqualTo(65536);
        assertThat(c.lb.tcpTimeout).isEqualTo(40);
        assertThat(c.lb.udpTimeout).isEqualTo(30);
        assertThat(c.lb.vips).hasSize(1);
        DataplaneConfig.LbVip v = c.lb.vips.get(0);
        assertThat(v.key().toString()).isEqualTo("192.0.2.1/32 protocol tcp port 80");
        assertThat(v.encapType()).isEqualTo(EncapType.GRE4);
        assertThat(v.newLen).isEqualTo(65537);
        assertThat(v.backendAddresses()).containsExactly(InetAddress.ofLiteral("10.0.2.10"),
                InetAddress.ofLiteral("10.0.2.11"));
        assertThat(DataplaneConfig.parse("ports:\n  - {name: g, type: generator}\n", "dp.yaml", null).lb).isNull();
    }

    @Test
    void aVipOverTheLbsOwnSourceAddressIsRefused() {
        String yaml = """
                ports:
                  - {name: g, type: generator}
                lb:
                  ip4-src-address: 10.9.0.1
                  ip6-src-address: "2001:db8:9::1"
                  vips:
                    - prefix: 10.9.0.0/16
                      encap: gre4
                    - prefix: 10.9.0.2/31
                      encap: gre4
                    - prefix: "2001:db8::/32"
                      encap: srv6
                """;
        assertThat(problems(yaml).problems()).containsExactly(
                "dp.yaml line 7: lb.vips[0].prefix: VIP 10.9.0.0/16 covers lb.ip4-src-address 10.9.0.1, the LB's own "
                        + "outer source: replies to it would be load-balanced",
                "dp.yaml line 11: lb.vips[2].prefix: VIP 2001:db8::/32 covers lb.ip6-src-address 2001:db8:9::1, "
                        + "the LB's own outer source: replies to it would be load-balanced");
    }

    @Test
    void lbMistakesNameKeyAndLine() {
        String yaml = """
                ports:
                  - {name: g, type: generator}
                lb:
                  ip4-src-address: 2001:db8::1
                  flow-table-slots: 1000
                  tcp-timeout: 0
                  vips:
                    - prefix: 192.0.2.1/24
                      encap: gre4
                    - prefix: 192.0.2.1/32
                      protocol: sctp
                      port: 80
                    - prefix: 2001:db8::1/128
                      encap: srv6
                      new-len: 65536
                      backends: [10.0.0.1, 2001:db8:1::1, 2001:db8:1::1]
                    - prefix: 192.0.2.2/32
                      port: 80
                      encap: vxlan
                """;
        assertThat(problems(yaml).problems()).containsExactly(
                "dp.yaml line 4: lb.ip4-src-address: \"2001:db8::1\" is invalid (need an IPv4 address)",
                "dp.yaml line 5: lb.flow-table-slots: 1000 is invalid (need a power of two, 8..16777216)",
                "dp.yaml line 6: lb.tcp-timeout: 0 is invalid (need 1..86400 s)",
                "dp.yaml line 8: lb.vips[0].prefix: 192.0.2.1/24 has host bits set",
                "dp.yaml line 9: lb.vips[0].encap: gre4 needs lb.ip4-src-address",
                "dp.yaml line 11: lb.vips[1].protocol: \"sctp\" is invalid (need tcp or udp)",
                "dp.yaml line 10: lb.vips[1].encap: gre4 needs lb.ip4-src-address",
                "dp.yaml line 14: lb.vips[2].encap: srv6 needs lb.ip6-src-address",
                "dp.yaml line 15: lb.vips[2].new-len: 65536 is invalid (need a prime, 2..16777213 (default 65537))",
                "dp.yaml line 16: lb.vips[2].backends[0]: \"10.0.0.1\" is invalid (srv6 needs IPv6 backends)",
                "dp.yaml line 16: lb.vips[2].backends[2]: 2001:db8:1::1 is listed twice",
                "dp.yaml line 18: lb.vips[3].port: a per-port VIP needs both protocol and port (1..65535); an "
                        + "all-port VIP neither",
                "dp.yaml line 19: lb.vips[3].encap: \"vxlan\" is invalid (need gre4, gre6, ipip, srv6 or srlb)");
    }

    @Test
    void srlbVipAndServerAgentLoadAndTheirMistakesAreNamed() throws Exception {
        DataplaneConfig c = DataplaneConfig.parse("""
                ports:
                  - {name: g, type: generator}
                lb:
                  srlb-sid-prefix: "fd00:ff::"
                  vips:
                    - {prefix: "2001:db8::1/128", protocol: tcp, port: 80, encap: srlb, backends: ["fc00:1::", \
                    "fc00:2::"]}
                srlb-agent:
                  sid: "fc00:1::"
                  vips: ["2001:db8::1"]
                  policy: static-threshold
                  threshold: 3
                  load-initial: 1.5
                """, "dp.yaml", null);
        assertThat(c.lb.srlbSidPrefixAddress()).isEqualTo(InetAddress.ofLiteral("fd00:ff::"));
        assertThat(c.lb.vips.get(0).encapType()).isEqualTo(EncapType.SRLB);
        assertThat(c.srlbAgent.sidAddress()).isEqualTo(InetAddress.ofLiteral("fc00:1::"));
        assertThat(c.srlbAgent.vipAddresses()).containsExactly(InetAddress.ofLiteral("2001:db8::1"));
        assertThat(c.srlbAgent.threshold).isEqualTo(3.0);
        assertThat(c.srlbAgent.loadInitial).isEqualTo(1.5);
        assertThat(problems("""
                ports:
                  - {name: g, type: generator}
                lb:
                  vips:
                    - {prefix: "2001:db8::1/128", encap: srlb, backends: [10.0.0.1]}
                srlb-agent:
                  sid: "fc00:1::5"
                  vips: [10.0.0.1]
                  policy: sometimes
                  load: apache
                  flow-table-slots: 100
                """).problems()).containsExactly(
                "dp.yaml line 5: lb.vips[0].encap: srlb needs lb.srlb-sid-prefix or lb.ip6-src-address",
                "dp.yaml line 5: lb.vips[0].backends[0]: \"10.0.0.1\" is invalid (srlb needs IPv6 backends)",
                "dp.yaml line 7: srlb-agent.sid: \"fc00:1::5\" is invalid (bytes 10-15 must be zero (FUNCTION, CORE, "
                        + "ENTRY go there))",
                "dp.yaml line 8: srlb-agent.vips[0]: \"10.0.0.1\" is invalid (need an IPv6 address)",
                "dp.yaml line 9: srlb-agent.policy: \"sometimes\" is invalid (need always-accept, always-reject, "
                        + "only-last or static-threshold)",
                "dp.yaml line 6: srlb-agent.load-url: is missing (need the status page's http(s) URL, e.g. "
                        + "http://127.0.0.1/server-status?auto)",
                "dp.yaml line 11: srlb-agent.flow-table-slots: 100 is invalid (need a power of two, 8..16777216)");
    }

    @Test
    void srlbAgentLoadSourcesAreCheckedAndPolled(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        assertThat(problems("""
                ports:
                  - {name: g, type: generator}
                srlb-agent:
                  sid: "fc00:1::"
                  vips: ["2001:db8::1"]
                  load: cgroup
                  load-cpus: 0
                  load-interval-ms: 5
                """).problems()).containsExactly(
                "dp.yaml line 3: srlb-agent.load-cgroup: is missing (need the path of the group's cpu.stat, e.g. "
                        + "/sys/fs/cgroup/system.slice/nginx.service/cpu.stat)",
                "dp.yaml line 7: srlb-agent.load-cpus: 0.0 is invalid (need a CPU count > 0)",
                "dp.yaml line 8: srlb-agent.load-interval-ms: 5 is invalid (need 10..60000 ms)");
        assertThat(problems("""
                ports:
                  - {name: g, type: generator}
                srlb-agent:
                  sid: "fc00:1::"
                  vips: ["2001:db8::1"]
                  load: apache
                  load-url: "ftp://x/status"
                  load-metric: idle
                """).problems()).containsExactly(
                "dp.yaml line 7: srlb-agent.load-url: \"ftp://x/status\" is invalid (need the status page's http(s) "
                        + "URL, e.g. http://127.0.0.1/server-status?auto)",
                "dp.yaml line 8: srlb-agent.load-metric: \"idle\" is invalid (need busy-workers or sending)");
        // a real nginx-format stub_status page, polled into the agent's policy metric
        com.sun.net.httpserver.HttpServer http = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/status", x -> {
            byte[] b = ("Active connections: 7 \nserver accepts handled requests\n 10 10 20 \nReading: 0 Writing: 1 "
                    + "Waiting: 6 \n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            x.sendResponseHeaders(200, b.length);
            x.getResponseBody().write(b);
            x.close();
        });
        http.start();
        try {
            DataplaneConfig c = DataplaneConfig.parse("""
                    workers: 1
                    ports:
                      - {name: g, type: generator, generator: {packets: 0}}
                    sflow: {sampling-rate: 0, usersock-groups: {psample: 24, net-dm: 25, counters: 26}}
                    metrics: {port: 0}
                    srlb-agent:
                      sid: "fc00:1::"
                      vips: ["2001:db8::1"]
                      policy: static-threshold
                      threshold: 5
                      load: nginx
                      load-url: "http://127.0.0.1:%d/status"
                      load-interval-ms: 50
                    """.formatted(http.getAddress().getPort()), "dp.yaml", null);
            try (DataplaneAssembly a = DataplaneAssembly.open(c, m -> { }, false)) {
                long end = System.nanoTime() + 10_000_000_000L;
                String show = a.dataplane().plugin(SrlbAgent.class).show();
                while (!show.contains("= 7.0") && System.nanoTime() < end) {
                    Thread.sleep(20);
                    show = a.dataplane().plugin(SrlbAgent.class).show();
                }
                assertThat(show).contains("policy static-threshold c=5", "load nginx", "= 7.0");
            }
        } finally {
            http.stop(0);
        }
    }

    @Test
    void eachPortGetsOneOsIndexFromOsIndexOrIfOffset() throws Exception {
        DataplaneConfig c = DataplaneConfig.parse("""
                workers: 1
                ports:
                  - {name: a, type: generator, if-index: 3, os-index: 77, generator: {packets: 0}}
                  - {name: b, type: generator, if-index: 9, generator: {packets: 0}}
                sflow: {sampling-rate: 0, if-offset: 5000, usersock-groups: {psample: 24, net-dm: 25, counters: 26}}
                metrics: {port: 0}
                """, "dp.yaml", null);
        try (DataplaneAssembly a = DataplaneAssembly.open(c, m -> { }, false)) {
            assertThat(a.dataplane().osIndex(3)).isEqualTo(77);
            assertThat(a.dataplane().osIndex(9)).isEqualTo(5009);
        }
        assertThat(problems("ports:\n  - {name: a, type: generator, os-index: 0}\n").problems())
                .containsExactly("dp.yaml line 2: ports[0].os-index: 0 is invalid (need 1..4294967295)");
        assertThat(problems("ports:\n  - {name: a, type: generator, os-index: 7}\n"
                + "  - {name: b, type: generator, os-index: 7}\n").problems())
                .containsExactly("dp.yaml line 3: ports[1].os-index: 7 is already the os-index of ports[0]");
        assertThat(problems("ports:\n  - {name: a, type: generator, if-index: 5}\nsflow: {if-offset: 4294967291}\n")
                .problems()).containsExactly("dp.yaml line 3: sflow.if-offset: 4294967291 is invalid (need "
                        + "0..4294967290 (if-offset + the largest if-index is a u32 OSINDEX))");
    }

    @Test
    void cloveVtepsMustBeUsableUnicastAddressesAndNotThisEndpoint() {
        String base = """
                ports:
                  - {name: p, type: generator}
                clove:
                  vtep: %s
                  destinations:
                    - {vtep: %s, prefixes: ["10.62.0.0/16"]}
                """;
        for (String bad : new String[] {"0.0.0.0", "255.255.255.255", "224.0.0.5", "127.0.0.1"}) {
            assertThat(problems(base.formatted(bad, "10.255.2.2")).getMessage())
                    .contains("dp.yaml line 4: clove.vtep: \"" + bad + "\" is invalid (need a unicast IPv4 address");
            assertThat(problems(base.formatted("10.255.1.2", bad)).getMessage())
                    .contains("dp.yaml line 6: clove.destinations[0].vtep: \"" + bad
                            + "\" is invalid (need a unicast IPv4 address");
        }
        assertThat(problems(base.formatted("10.255.1.2", "10.255.1.2")).getMessage())
                .contains("dp.yaml line 6: clove.destinations[0].vtep: 10.255.1.2 is this endpoint's own clove.vtep");
        DataplaneConfig ok = DataplaneConfig.parse(base.formatted("10.255.1.2", "10.255.2.2"), "dp.yaml", null);
        assertThat(ok.clove.settings().destinations).hasSize(1);
    }

    @Test
    void metricsUsersTakeHashesAndRefuseAPlainPasswordWithoutPrintingIt() throws Exception {
        String ok = io.vecflow.common.BasicCredentials.hashPassword("pw".toCharArray());
        DataplaneConfig c = DataplaneConfig.parse("ports:\n  - {name: a, type: generator}\nmetrics:\n  users: {prom: \""
                + ok + "\"}\n", "dp.yaml", null);
        assertThat(c.metrics.users).containsEntry("prom", ok);
        DataplaneConfigException e = problems("ports:\n  - {name: a, type: generator}\nmetrics:\n"
                + "  users: {prom: hunter2}\n");
        assertThat(e.getMessage()).contains("metrics.users").contains("not a password hash")
                .doesNotContain("hunter2");
    }
}
