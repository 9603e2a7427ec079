package io.vecflow.hsflowd.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.vecflow.hsflowd.config.HsflowdConfig.AgentCidr;
import io.vecflow.hsflowd.config.HsflowdConfig.Collector;
import io.vecflow.hsflowd.config.HsflowdConfig.Dropmon;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real-world hsflowd.conf shapes (src/test/resources/conf, sources in its README), each parsed to exact values, and
 * broken files (conf/broken) rejected with the exact line and reason.
 */
class HsflowdConfFilesTest {
    @TempDir
    Path dir;

    static Path conf(String name) throws Exception {
        var url = HsflowdConfFilesTest.class.getResource("/conf/" + name);
        assertThat(url).as("test resource conf/%s", name).isNotNull();
        return Path.of(url.toURI());
    }

    static HsflowdConfig load(String name) throws Exception {
        return HsflowdConfig.load(conf(name));
    }

    @Test
    void vppRecommended() throws Exception {
        HsflowdConfig c = load("vpp-recommended.conf");
        assertThat(c.warnings).isEmpty();
        assertThat(c.runChecks()).isEmpty();
        assertThat(c.sampling).isEqualTo(400);
        assertThat(c.polling).isEqualTo(30);
        assertThat(c.headerBytes).isEqualTo(128);
        assertThat(c.datagramBytes).isEqualTo(1400);
        assertThat(c.subAgentId).isEqualTo(100000);
        assertThat(c.agentIP).isNull();
        assertThat(c.collectors).extracting(x -> x.ip, x -> x.udpPort, x -> x.dev, x -> x.namespace, x -> x.line)
                .containsExactly(tuple("127.0.0.1", 6343, null, null, 4));
        assertThat(c.psample.group).isEqualTo(1);
        assertThat(c.psample.ingress).isTrue();
        assertThat(c.psample.egress).isTrue();
        assertThat(c.psample.transport).isEqualTo("genl");
        Dropmon d = c.dropmon;
        assertThat(d).isNotNull();
        assertThat(new boolean[] {d.start, d.force, d.sw, d.hw, d.rn, d.hwUnknown, d.swPassive, d.hwPassive})
                .containsExactly(true, true, true, true, true, false, false, false);
        assertThat(d.limit).isEqualTo(50);
        assertThat(d.max).isEqualTo(100_000L);
        assertThat(d.hide).isNull();
        assertThat(d.hidePattern).isNull();
        assertThat(c.vpp.ifOffset).isEqualTo(1_000_000_000L);
        assertThat(c.vpp.osIndex).isTrue();
        assertThat(c.vpp.usersockGroup).isEqualTo(29);
    }

    @Test
    void vppWithCollectorsInANamespaceAndAVrf() throws Exception {
        HsflowdConfig c = load("vpp-collectors-netns-vrf.conf");
        assertThat(c.collectors).extracting(x -> x.ip, x -> x.udpPort, x -> x.dev, x -> x.namespace, x -> x.line)
                .containsExactly(
                        tuple("127.0.0.1", 6343, null, null, 4),
                        tuple("172.16.1.1", 6343, null, "mgmt", 5),
                        tuple("192.168.100.2", 6343, "mgmt0", null, 6),
                        tuple("2001:db8:100::2", 6344, "vrf-blue", "ns1", 7));
        assertThat(c.collectors()).extracting(Collector::toString).containsExactly("127.0.0.1:6343",
                "172.16.1.1:6343 netns mgmt", "192.168.100.2:6343 dev mgmt0",
                "2001:db8:100::2:6344 dev vrf-blue netns ns1");
        assertThat(c.vpp.ifOffset).isEqualTo(1000);
        assertThat(c.vpp.osIndex).isFalse();
        assertThat(c.psample.egress).isTrue();
        assertThat(c.dropmon).isNull();
        assertThat(c.warnings).as("dev and namespace are implemented: no warning").isEmpty();
    }

    @Test
    void dockerHostWithSeveralCollectorsAndUnsupportedModules() throws Exception {
        HsflowdConfig c = load("docker-host-multi-collector.conf");
        assertThat(c.sampling).isEqualTo(1000);
        assertThat(c.polling).isEqualTo(10);
        assertThat(c.agentCidrs).extracting(AgentCidr::text, AgentCidr::exclude, x -> x.network().getHostAddress(),
                AgentCidr::prefixBits, AgentCidr::line).containsExactly(tuple("10.0.0.0/8", false, "10.0.0.0", 8, 5));
        assertThat(c.collectors).extracting(x -> x.ip, x -> x.udpPort).containsExactly(tuple("10.100.12.13", 6343),
                tuple("10.122.1.2", 6343), tuple("10.144.1.2", 6344));
        assertThat(c.psample).isNull();
        assertThat(c.runChecks()).as("no psample block: runs counters-only, as hsflowd").isEmpty();
        assertThat(c.warnings).containsExactly(
                "line 11: 'pcap { }' is an hsflowd module vecflow does not implement; ignored",
                "line 12: 'pcap { }' is an hsflowd module vecflow does not implement; ignored",
                "line 13: 'docker { }' is an hsflowd module vecflow does not implement; ignored");
    }

    @Test
    void perLinkSpeedSampling() throws Exception {
        HsflowdConfig c = load("link-speed-sampling.conf");
        assertThat(c.sampling).isEqualTo(400);
        assertThat(c.samplingBySpeed).containsExactly(Map.entry("100M", 100), Map.entry("1G", 1000),
                Map.entry("10G", 10000), Map.entry("40G", 40000));
        assertThat(c.samplingBpsRatio).isNull();
        assertThat(c.samplingByApp).containsExactly(Map.entry("http", 50));
        assertThat(c.warnings).containsExactly(
                "line 11: 'sampling.http' (application sampling) is not used by vecflow; ignored");
        assertThat(c.agentCidrs).singleElement().extracting(AgentCidr::text).isEqualTo("192.168.0.0/16");
        // hsflowd lookupPacketSamplingRate: speed key, else speed / 1e6 (at least 100), unknown speed -> sampling
        assertThat(c.samplingFor(100_000_000L)).isEqualTo(100);
        assertThat(c.samplingFor(1_000_000_000L)).isEqualTo(1000);
        assertThat(c.samplingFor(10_000_000_000L)).isEqualTo(10000);
        assertThat(c.samplingFor(40_000_000_000L)).isEqualTo(40000);
        assertThat(c.samplingFor(25_000_000_000L)).isEqualTo(25000);
        assertThat(c.samplingFor(2_500_000_000L)).as("2.5G is named 2G by hsflowd; no key").isEqualTo(2500);
        assertThat(c.samplingFor(10_000_000L)).as("floor of 100").isEqualTo(100);
        assertThat(c.samplingFor(0)).isEqualTo(400);
        assertThat(c.samplingFor(-1)).isEqualTo(400);
    }

    @Test
    void bpsRatio() throws Exception {
        HsflowdConfig off = HsflowdConfig.parse("sflow { sampling = 500 sampling.bps_ratio = 0 sampling.1G = 7 "
                + "collector { ip = 10.0.0.1 } }");
        assertThat(off.samplingBpsRatio).isZero();
        assertThat(off.samplingFor(10_000_000_000L)).isEqualTo(500);
        assertThat(off.samplingFor(1_000_000_000L)).isEqualTo(7);
        HsflowdConfig r = HsflowdConfig.parse("sflow { sampling.bps_ratio = 2M collector { ip = 10.0.0.1 } }");
        assertThat(r.samplingBpsRatio).isEqualTo(2_000_000);
        assertThat(r.samplingFor(10_000_000_000L)).isEqualTo(5000);
        assertThat(r.samplingFor(1_000_000L)).as("at least 1").isEqualTo(1);
        assertThat(HsflowdConfig.parse(r.describe()).samplingBpsRatio).isEqualTo(2_000_000);
    }

    @Test
    void speedKeysAreHsflowdsPrintSpeed() throws Exception {
        assertThat(HsflowdConfig.speedKey(0)).isEqualTo("0");
        assertThat(HsflowdConfig.speedKey(999)).isEqualTo("999");
        assertThat(HsflowdConfig.speedKey(1000)).isEqualTo("1K");
        assertThat(HsflowdConfig.speedKey(100_000_000L)).isEqualTo("100M");
        assertThat(HsflowdConfig.speedKey(2_500_000_000L)).isEqualTo("2G");
        assertThat(HsflowdConfig.speedKey(400_000_000_000L)).isEqualTo("400G");
        assertThat(HsflowdConfig.speedKey(10_000_000_000_000L)).isEqualTo("10T");
        // A key hsflowd would never match (it prints 10G) is kept under the name it means, with a warning.
        HsflowdConfig c = HsflowdConfig.parse("sflow {\n sampling.10000M = 9\n sampling.25g = 25\n"
                + " collector { ip = 10.0.0.1 }\n}");
        assertThat(c.samplingBySpeed).containsExactly(Map.entry("10G", 9), Map.entry("25G", 25));
        assertThat(c.warnings).containsExactly("line 2: 'sampling.10000M': hsflowd names this link speed '10G' and "
                + "matches names exactly, so there it would never apply; vecflow applies it as sampling.10G");
    }

    @Test
    void agentCidrSelection() throws Exception {
        HsflowdConfig c = load("agent-cidr.conf");
        assertThat(c.agentCidrs).extracting(AgentCidr::text, AgentCidr::exclude, x -> HsflowdConfig.literal(
                x.network()), AgentCidr::prefixBits, AgentCidr::line).containsExactly(
                tuple("10.1.0.0/16", false, "10.1.0.0", 16, 4),
                tuple("10.0.0.5/8", false, "10.0.0.0", 8, 5),
                tuple("!10.99.0.0/16", true, "10.99.0.0", 16, 6),
                tuple("2001:db8::/32", false, "2001:db8::", 32, 7));
        assertThat(c.agentDevice).isEqualTo("eth1");
        assertThat(c.warnings).containsExactly("line 5: agent.cidr = 10.0.0.5/8 has host bits set: taken as "
                + "10.0.0.0/8");
        HsflowdConfig.AgentSelection sel = c.agentSelection();
        assertThat(sel.agentIP()).isNull();
        assertThat(sel.device()).isEqualTo("eth1");
        assertThat(sel.cidrs()).hasSize(4);
        // hsflowd walks the CIDRs last-in-file first and boosts by that 1-based position: the first match in that
        // walk counts, so 10.1.2.3 gets 10.0.0.0/8's boost (3), not 10.1.0.0/16's.
        assertThat(sel.cidrBoost(InetAddress.ofLiteral("10.1.2.3"))).isEqualTo(3);
        assertThat(sel.cidrBoost(InetAddress.ofLiteral("10.2.3.4"))).isEqualTo(3);
        assertThat(sel.cidrBoost(InetAddress.ofLiteral("10.99.1.1"))).isEqualTo(-1);
        assertThat(sel.cidrBoost(InetAddress.ofLiteral("2001:db8:5::1"))).isEqualTo(1);
        assertThat(sel.cidrBoost(InetAddress.ofLiteral("192.168.1.1"))).isZero();
        assertThat(sel.cidrBoost(InetAddress.ofLiteral("2001:db9::1"))).isZero();
        // With only the /16 first and the /8 last, the /16 wins for its addresses.
        HsflowdConfig two = HsflowdConfig.parse("sflow { agent.cidr = 10.0.0.0/8 agent.cidr = 172.16.0.0/12 "
                + "collector { ip = 10.0.0.1 } }");
        assertThat(two.agentSelection().cidrBoost(InetAddress.ofLiteral("10.9.9.9"))).isEqualTo(2);
        assertThat(two.agentSelection().cidrBoost(InetAddress.ofLiteral("172.20.0.1"))).isEqualTo(1);
        // contains() at odd prefix lengths
        AgentCidr odd = two.agentCidrs.get(1);
        assertThat(odd.contains(InetAddress.ofLiteral("172.31.255.255"))).isTrue();
        assertThat(odd.contains(InetAddress.ofLiteral("172.32.0.0"))).isFalse();
        assertThat(odd.contains(InetAddress.ofLiteral("::ffff:1"))).isFalse();
    }

    @Test
    void agentIpOverridesAgentAndCidr() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("sflow {\n agent.cidr = 10.0.0.0/8\n agentIP = 192.0.2.1\n"
                + " collector { ip = 10.0.0.1 }\n}");
        assertThat(c.agentSelection().agentIP()).isEqualTo("192.0.2.1");
        assertThat(c.warnings).containsExactly("line 2: agent.cidr is ignored: agentIP = 192.0.2.1 (line 3) fixes "
                + "the agent address");
    }

    @Test
    void dropmonEveryKey() throws Exception {
        HsflowdConfig c = load("dropmon-full.conf");
        Dropmon d = c.dropmon;
        assertThat(new boolean[] {d.start, d.force, d.sw, d.hw, d.rn, d.hwUnknown, d.swPassive, d.hwPassive})
                .containsExactly(false, false, false, true, false, true, true, true);
        assertThat(d.limit).isEqualTo(500);
        assertThat(d.max).isEqualTo(2000L);
        assertThat(d.hide).isEqualTo("^(vpp_ip4-input|udp_.*)$");
        assertThat(d.hidePattern.matcher("vpp_ip4-input").matches()).isTrue();
        assertThat(d.hidePattern.matcher("udp_csum").matches()).isTrue();
        assertThat(d.hidePattern.matcher("tcp_drop").matches()).isFalse();
        assertThat(c.psample.transport).isEqualTo("usersock");
        assertThat(c.warnings).containsExactly(
                "line 11: dropmon group is deprecated in hsflowd (NET_DM's group is fixed); ignored",
                "line 12: dropmon hw_function is deprecated in hsflowd; ignored");
        assertThat(Dropmon.MAX_TRIP_SECONDS).isEqualTo(2);
    }

    @Test
    void everyKeyOfTheNotes() throws Exception {
        HsflowdConfig c = load("notes-section5.conf");
        assertThat(c.sampling).isEqualTo(2000);
        assertThat(c.polling).isEqualTo(15);
        assertThat(c.headerBytes).isEqualTo(96);
        assertThat(c.datagramBytes).isEqualTo(1472);
        assertThat(c.agentIP).isEqualTo("2001:db8::10");
        assertThat(c.subAgentId).isEqualTo(100001);
        assertThat(c.uuid).isEqualTo("3e8f5a60-0b3c-4d2e-9f11-5a6b7c8d9e0f");
        assertThat(c.collectors).extracting(x -> x.ip, x -> x.udpPort).containsExactly(tuple("192.0.2.50", 9343));
        assertThat(c.psample).usingRecursiveComparison().isEqualTo(psample(5, true, true, "usersock", 31));
        assertThat(c.warnings).containsExactly(
                "line 12: 'DNSSD' is an hsflowd setting vecflow does not implement; ignored",
                "line 13: 'dns-sd { }' is an hsflowd module vecflow does not implement; ignored");
    }

    private static HsflowdConfig.Psample psample(int group, boolean in, boolean out, String transport, int ug) {
        HsflowdConfig.Psample p = new HsflowdConfig.Psample();
        p.group = group;
        p.ingress = in;
        p.egress = out;
        p.transport = transport;
        p.usersockGroup = ug;
        return p;
    }

    @Test
    void oneLineWithSemicolonsSuffixesAndHex() throws Exception {
        HsflowdConfig c = load("one-line.conf");
        assertThat(c.sampling).isEqualTo(1000);
        assertThat(c.polling).isZero();
        assertThat(c.collectors).extracting(x -> x.ip, x -> x.udpPort, x -> x.line)
                .containsExactly(tuple("127.0.0.1", 6343, 1));
        assertThat(c.psample.group).isEqualTo(1);
        assertThat(c.vpp.osIndex).isFalse();
        assertThat(c.warnings).isEmpty();
    }

    @Test
    void allmanBracesTabsAndCrlf() throws Exception {
        Path crlf = dir.resolve("crlf.conf");
        Files.writeString(crlf, Files.readString(conf("allman-braces.conf")).replace("\n", "\r\n"));
        HsflowdConfig c = HsflowdConfig.load(crlf);
        assertThat(c.sampling).isEqualTo(512);
        assertThat(c.collectors).extracting(x -> x.ip, x -> x.line).containsExactly(tuple("::1", 5));
        assertThat(c.psample.group).isEqualTo(7);
        assertThat(c.warnings).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"vpp-recommended.conf", "vpp-collectors-netns-vrf.conf", "docker-host-multi-collector.conf",
        "link-speed-sampling.conf", "agent-cidr.conf", "dropmon-full.conf", "notes-section5.conf", "one-line.conf",
        "allman-braces.conf"})
    void describeIsAFixedPoint(String name) throws Exception {
        String once = load(name).describe();
        HsflowdConfig again = HsflowdConfig.parse(once);
        assertThat(again.describe()).isEqualTo(once);
        assertThat(again.warnings).isEmpty();
    }

    /** Broken files: the exact message, which starts with the exact line. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            unclosed-block.conf      | 2 | `'sflow {' opened here is never closed: unexpected end of file (a '}' is \
            missing; the last block to close, 'collector {' of line 4, took the '}' at line 6)`
            unclosed-sflow.conf      | 2 | `'sflow {' opened here is never closed: unexpected end of file (a '}' is \
            missing)`
            extra-close.conf         | 2 | `this '}' closes the 'sflow {' block of line 1, yet 'psample' follows at \
            line 3 (one '}' too many?)`
            bad-number.conf          | 3 | `sampling: '1O00' is not a number`
            header-bytes-range.conf  | 3 | `headerBytes: 512 is out of range 1..256`
            datagram-bytes-range.conf | 4 | `datagramBytes: 9000 is out of range 200..8192`
            datagram-bytes-small.conf | 2 | `datagramBytes: 199 is out of range 200..8192`
            sampling-range.conf      | 3 | `sampling: 20M (= 20000000) is out of range 0..10000000`
            speed-sampling-range.conf | 3 | `sampling.10G: 10000001 is out of range 0..10000000`
            bad-ipv4.conf            | 4 | `ip: '10.0.0.256' is not an address (IPv4 parts are 0..255, found '256')`
            bad-ipv6.conf            | 2 | `ip: '2001:db8::g1' is not an address (not a valid IPv6 address)`
            bad-agentip.conf         | 2 | `agentIP: '192.168.1' is not an address (an IPv4 address has 4 \
            dot-separated parts)`
            bad-cidr-prefix.conf     | 2 | `agent.cidr: '10.0.0.0/33' is not a CIDR: the prefix length must be \
            0..32, found '33'`
            bad-cidr-noslash.conf    | 3 | `agent.cidr: '10.0.0.0' is not a CIDR (ADDRESS/BITS, e.g. 10.0.0.0/8 or \
            2001:db8::/32, '!' in front to exclude)`
            bad-cidr-address.conf    | 3 | `agent.cidr: '10.0.300.0/24' is not a CIDR: '10.0.300.0': IPv4 parts are \
            0..255, found '300'`
            bad-udpport.conf         | 2 | `udpport: 0 is out of range 1..65535`
            bad-onoff.conf           | 4 | `start: 'maybe' is not on/off`
            dropmon-limit-range.conf | 3 | `limit: 20000 is out of range 1..10000`
            bad-regex.conf           | 3 | `hide: 'vpp_(ip4' is not a valid regular expression: Unclosed group at \
            index 8`
            bad-dev.conf             | 2 | `dev: 'a-very-long-vrf-name' is not an interface name (1..15 characters, \
            no '/', ':' or spaces)`
            bad-uuid.conf            | 2 | `uuid: '1234' is not a UUID (32 hex digits, as 8-4-4-4-12)`
            too-deep.conf            | 3 | `'c {' nests too deep: hsflowd.conf has at most 3 levels of blocks`
            no-collector.conf        | 2 | `no collector { ip = ... } block in 'sflow {': nowhere to send datagrams`
            two-sflow-blocks.conf    | 4 | `a second 'sflow {' block (the first opens at line 1): put every setting \
            in one`
            missing-value.conf       | 3 | `missing value for 'polling'`
            vpp-ifoffset-range.conf  | 3 | `ifOffset: 4294967296 is out of range 0..4294967295`
            transport.conf           | 3 | `transport: must be genl or usersock, got 'netlink'`
            """)
    void brokenFilesNameTheLineAndTheReason(String file, int line, String reason) throws Exception {
        Path p = conf("broken/" + file);
        assertThatThrownBy(() -> HsflowdConfig.load(p))
                .isInstanceOf(ConfigException.class)
                .hasMessage("line " + line + ": " + reason)
                .satisfies(e -> assertThat(((ConfigException) e).line()).isEqualTo(line));
    }

    @Test
    void everyBrokenFileIsInTheTable() throws Exception {
        try (var files = Files.list(conf("broken"))) {
            assertThat(files.map(f -> f.getFileName().toString()).sorted()).hasSize(27);
        }
    }
}
