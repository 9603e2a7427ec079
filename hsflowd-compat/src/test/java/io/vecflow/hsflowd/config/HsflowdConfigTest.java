package io.vecflow.hsflowd.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** hsflowd.conf parsing: fields, defaults, warnings, errors (line + reason) and the describe() round trip. */
class HsflowdConfigTest {
    /** A realistic file: comments, mixed case, several pairs per line, nested blocks, two collectors. */
    static final String FULL = """
            # /etc/hsflowd.conf written by hand
            SFLOW {   # top block, upper case
              Sampling = 1000  Polling=20   # two pairs on one line
              HEADERBYTES = 64
              datagramBytes = 1200
              agentIP = 192.0.2.7
              agent = eth0
              subAgentId = 100005
              collector {
                ip = 127.0.0.1   UdpPort = 6343
              }
              collector { IP = 2001:db8::1 udpport = 9999 }
              psample { group = 5 ingress = off egress = on
                        Transport = USERSOCK usersockGroup = 31 }
              vpp { ifOffset = 2000 osIndex = off usersockGroup = 28 }
            }
            """;

    @Test
    void dropmonTransportReachesTheDropmonSettings() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("sflow {\n collector { ip = 10.1.2.3 }\n dropmon { limit = 50 "
                + "transport = usersock usersockGroup = 12 max = 4000000000 }\n}\n");
        io.vecflow.hsflowd.dropmon.DropmonSettings d = io.vecflow.hsflowd.dropmon.DropmonSettings.from(c.dropmon);
        org.assertj.core.api.Assertions.assertThat(d.transport).isEqualTo("usersock");
        org.assertj.core.api.Assertions.assertThat(d.usersockGroup).isEqualTo(12);
        org.assertj.core.api.Assertions.assertThat(d.limit).isEqualTo(50);
        org.assertj.core.api.Assertions.assertThat(d.max).isEqualTo(Integer.MAX_VALUE);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n collector { ip = "
                + "10.1.2.3 }\n dropmon {\n transport = carrier-pigeon }\n}\n"))
                .hasMessageContaining("line 4").hasMessageContaining("must be genl or usersock");
    }

    @Test
    void fullFileSetsEveryField() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse(FULL);
        assertThat(c.sampling).isEqualTo(1000);
        assertThat(c.polling).isEqualTo(20);
        assertThat(c.headerBytes).isEqualTo(64);
        assertThat(c.datagramBytes).isEqualTo(1200);
        assertThat(c.agentIP).isEqualTo("192.0.2.7");
        assertThat(c.agentDevice).isEqualTo("eth0");
        assertThat(c.subAgentId).isEqualTo(100005);
        assertThat(c.collectors).hasSize(2);
        assertThat(c.collectors.get(0).ip).isEqualTo("127.0.0.1");
        assertThat(c.collectors.get(0).udpPort).isEqualTo(6343);
        assertThat(c.collectors.get(1).ip).isEqualTo("2001:db8::1");
        assertThat(c.collectors.get(1).udpPort).isEqualTo(9999);
        assertThat(c.psample).isNotNull();
        assertThat(c.psample.group).isEqualTo(5);
        assertThat(c.psample.ingress).isFalse();
        assertThat(c.psample.egress).isTrue();
        assertThat(c.psample.transport).isEqualTo("usersock");
        assertThat(c.psample.usersockGroup).isEqualTo(31);
        assertThat(c.vpp).isNotNull();
        assertThat(c.vpp.ifOffset).isEqualTo(2000);
        assertThat(c.vpp.osIndex).isFalse();
        assertThat(c.vpp.usersockGroup).isEqualTo(28);
        // hsflowd's selectAgentAddress: a configured agentIP wins over agent = DEVICE
        assertThat(c.warnings).containsExactly(
                "line 7: agent = eth0 is ignored: agentIP = 192.0.2.7 (line 6) fixes the agent address");
    }

    @Test
    void loadReadsAFile(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("hsflowd.conf");
        Files.writeString(f, FULL.replace("\n", "\r\n")); // CRLF line ends too
        HsflowdConfig c = HsflowdConfig.load(f);
        assertThat(c.sampling).isEqualTo(1000);
        assertThat(c.psample.usersockGroup).isEqualTo(31);
        assertThat(c.collectors).extracting(Object::toString).containsExactly("127.0.0.1:6343", "2001:db8::1:9999");
    }

    @Test
    void defaultsWhenKeysAreAbsent() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("sflow { collector { ip = 10.1.2.3 } psample { } vpp { } }");
        assertThat(c.sampling).isEqualTo(400);
        assertThat(c.polling).isEqualTo(30);
        assertThat(c.headerBytes).isEqualTo(128);
        assertThat(c.datagramBytes).isEqualTo(1400);
        assertThat(c.subAgentId).isEqualTo(100000);
        assertThat(c.agentIP).isNull();
        assertThat(c.agentDevice).isNull();
        assertThat(c.collectors).hasSize(1);
        assertThat(c.collectors.getFirst().ip).isEqualTo("10.1.2.3");
        assertThat(c.collectors.getFirst().udpPort).isEqualTo(6343);
        assertThat(c.psample.group).isEqualTo(1);
        assertThat(c.psample.ingress).isTrue();
        assertThat(c.psample.egress).isFalse();
        assertThat(c.psample.transport).isEqualTo("genl");
        assertThat(c.psample.usersockGroup).isEqualTo(30);
        assertThat(c.vpp.ifOffset).isEqualTo(1_000_000_000L);
        assertThat(c.vpp.osIndex).isTrue();
        assertThat(c.vpp.usersockGroup).isEqualTo(29);
        assertThat(c.warnings).isEmpty();
    }

    @Test
    void absentBlocksStayNull() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("sflow {\n collector { ip = 10.1.2.3 }\n}\n");
        assertThat(c.psample).isNull();
        assertThat(c.vpp).isNull();
    }

    @Test
    void unknownKeysWarnWithLineAndKey() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("""
                sflow {
                  collector { ip = 10.1.2.3 }
                  frobnicate = 7
                  psample { colour = blue }
                  collector { ip = 10.1.2.4 weight = 3 }
                  dnssd { domain = example.com }
                }
                """);
        assertThat(c.warnings).hasSize(4);
        assertThat(c.warnings.get(0)).contains("line 3").contains("frobnicate");
        assertThat(c.warnings.get(1)).contains("line 4").contains("colour");
        assertThat(c.warnings.get(2)).contains("line 5").contains("weight");
        assertThat(c.warnings.get(3)).contains("line 6").contains("dnssd");
        assertThat(c.collectors).hasSize(2); // the rest still parsed
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            sampling = abc                         | 3 | sampling | not a number
            sampling = -1                          | 3 | sampling | out of range
            sampling = 10000001                    | 3 | sampling | out of range
            polling = 301                          | 3 | polling | out of range
            headerBytes = 300                      | 3 | headerBytes | out of range
            datagramBytes = 100                    | 3 | datagramBytes | out of range
            datagramBytes = 8193                   | 3 | datagramBytes | out of range
            subAgentId = 200000                    | 3 | subAgentId | out of range
            collector { ip = 10.0.0.1 udpport = 70000 } | 3 | udpport | out of range
            collector { udpport = 6343 }           | 3 | collector | without ip
            psample { transport = foo }            | 3 | transport | genl or usersock
            psample { egress = maybe }             | 3 | egress | on/off
            psample { usersockGroup = 33 }         | 3 | usersockGroup | out of range
            sampling =                             | 3 | sampling | missing value
            """)
    void invalidValuesNameTheLineAndTheReason(String line3, int line, String key, String reason) {
        String text = "# comment\nsflow {\n  " + line3 + "\n  collector { ip = 10.1.2.3 }\n}\n";
        assertThatThrownBy(() -> HsflowdConfig.parse(text))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("line " + line + ":")
                .hasMessageContaining(key)
                .hasMessageContaining(reason)
                .satisfies(e -> assertThat(((ConfigException) e).line()).isEqualTo(line));
    }

    @Test
    void missingEqualsNamesTheKeysLineEvenWhenTheNextTokenIsOnTheNextLine() {
        assertThatThrownBy(() ->
                HsflowdConfig.parse("sflow {\n  sampling\n  polling = 20\n  collector { ip = 1.2.3.4 }\n}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("line 2:")
                .hasMessageContaining("missing value for 'sampling'");
    }

    @Test
    void equalsIsASeparatorAsInHsflowd() throws Exception {
        HsflowdConfig c =
                HsflowdConfig.parse("sflow {\n  polling 10\n  sampling=20\n  collector { ip 1.2.3.4 udpport 6344 }\n}");
        assertThat(c.polling).isEqualTo(10);
        assertThat(c.sampling).isEqualTo(20);
        assertThat(c.collectors.get(0).udpPort).isEqualTo(6344);
    }

    @Test
    void unterminatedBlockNamesWhereItOpened() {
        assertThatThrownBy(() -> HsflowdConfig.parse("# c\nsflow {\n  sampling = 10\n  collector { ip = 1.2.3.4 }\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("line 2:")
                .hasMessageContaining("sflow")
                .hasMessageContaining("end of file");
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n  sampling = 10\n  collector { ip = 1.2.3.4\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("line 3:")
                .hasMessageContaining("collector")
                .hasMessageContaining("end of file");
    }

    @Test
    void noCollectorIsAnErrorNamingTheBlock() {
        assertThatThrownBy(() -> HsflowdConfig.parse("\n\nsflow {\n  sampling = 10\n}\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("line 3:")
                .hasMessageContaining("no collector");
    }

    @Test
    void otherSyntaxErrors() {
        assertThatThrownBy(() -> HsflowdConfig.parse("")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("no 'sflow");
        assertThatThrownBy(() -> HsflowdConfig.parse("\nsampling = 5\n")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("line 2:").hasMessageContaining("expected 'sflow {'");
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n collector { ip = 1.2.3.4 }\n}\n}\n"))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("line 4:");
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n collector { ip = 1.2/3 }\n}\n"))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("line 2:")
                .hasMessageContaining("not an address");
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n collector { ip = 1.2.3.4 x { } }\n}\n"))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("line 2:");
    }

    @Test
    void rangeBoundsAreAccepted() throws Exception {
        HsflowdConfig lo = HsflowdConfig.parse("sflow { sampling=0 polling=0 headerBytes=1 datagramBytes=200 "
                + "subAgentId=0 collector { ip=h udpport=1 } }");
        assertThat(lo.sampling).isZero();
        assertThat(lo.datagramBytes).isEqualTo(200);
        HsflowdConfig hi = HsflowdConfig.parse("sflow { sampling=10000000 polling=300 headerBytes=256 "
                + "datagramBytes=8192 subAgentId=199999 collector { ip=h udpport=65535 } }");
        assertThat(hi.sampling).isEqualTo(10_000_000);
        assertThat(hi.headerBytes).isEqualTo(256);
        assertThat(hi.datagramBytes).isEqualTo(8192);
        assertThat(hi.subAgentId).isEqualTo(199_999);
        assertThat(hi.collectors.getFirst().udpPort).isEqualTo(65535);
    }

    @Test
    void describeRoundTrips() throws Exception {
        HsflowdConfig a = HsflowdConfig.parse(FULL);
        String text = a.describe();
        HsflowdConfig b = HsflowdConfig.parse(text);
        assertThat(b.warnings).singleElement().asString().contains("agent = eth0 is ignored");
        assertSame(a, b);
        assertThat(b.describe()).isEqualTo(text);

        // genl transport with a non-default usersock group, no vpp block
        HsflowdConfig c = HsflowdConfig.parse("sflow { collector { ip = 10.1.1.1 } "
                + "psample { group = 7 usersockGroup = 12 } }");
        HsflowdConfig d = HsflowdConfig.parse(c.describe());
        assertSame(c, d);

        // the smallest file: defaults only
        HsflowdConfig e = HsflowdConfig.parse("sflow { collector { ip = 10.1.1.1 } }");
        assertSame(e, HsflowdConfig.parse(e.describe()));
    }

    @Test
    void numbersTakeHsflowdsSuffixesAndHex() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("sflow { sampling = 2k polling = 0x1E datagramBytes = 1K "
                + "subAgentId = 0 collector { ip = h } dropmon { max = 4G } }");
        assertThat(c.sampling).isEqualTo(2000);
        assertThat(c.polling).isEqualTo(30);
        assertThat(c.datagramBytes).isEqualTo(1000);
        assertThat(c.dropmon.max).isEqualTo(4_000_000_000L);
        assertThat(c.warnings).isEmpty();
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n dropmon { max = 5G }\n collector { ip = h } }"))
                .hasMessage("line 2: max: 5G (= 5000000000) is out of range 1..4294967295");
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n polling = 0x12C1\n collector { ip = h } }"))
                .hasMessage("line 2: polling: 0x12C1 is out of range 0..300");
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n sampling = 99999999999999999999\n"
                + " collector { ip = h } }")).hasMessage("line 2: sampling: 99999999999999999999 is out of range "
                + "0..10000000");
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n sampling = K\n collector { ip = h } }"))
                .hasMessage("line 2: sampling: 'K' is not a number");
    }

    @Test
    void aLeadingZeroIsDecimalWithAWarning() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("sflow {\n sampling = 0400\n collector { ip = h } }");
        assertThat(c.sampling).isEqualTo(400);
        assertThat(c.warnings).containsExactly("line 2: sampling = 0400 is read as decimal 400; hsflowd would read "
                + "the leading 0 as octal");
    }

    @Test
    void keysAreCaseInsensitiveAndHsflowdAliasesWork() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("SFlow { PACKETSAMPLINGRATE = 77 CounterPollingInterval = 5 "
                + "Collector { IP = 10.0.0.1 UDPPORT = 7000 DEV = eth0 NameSpace = blue } "
                + "PSample { Group = 2 INGRESS = OFF Egress = ON } VPP { IFOFFSET = 0 OSINDEX = Off } "
                + "DropMon { HW_UNKNOWN = on Limit = 10 } }");
        assertThat(c.sampling).isEqualTo(77);
        assertThat(c.polling).isEqualTo(5);
        assertThat(c.collectors.getFirst().toString()).isEqualTo("10.0.0.1:7000 dev eth0 netns blue");
        assertThat(c.psample.group).isEqualTo(2);
        assertThat(c.psample.ingress).isFalse();
        assertThat(c.psample.egress).isTrue();
        assertThat(c.vpp.ifOffset).isZero();
        assertThat(c.vpp.osIndex).isFalse();
        assertThat(c.dropmon.hwUnknown).isTrue();
        assertThat(c.dropmon.limit).isEqualTo(10);
    }

    @Test
    void repeatedKeysAndBlocksWarnAndTheLastWins() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("""
                sflow {
                  sampling = 100
                  packetSamplingRate = 200
                  collector { ip = 10.0.0.1 udpport = 1 udpport = 2 }
                  collector { ip = 10.0.0.1 udpport = 2 }
                  psample { group = 1 }
                  psample { group = 9 }
                }
                """);
        assertThat(c.sampling).isEqualTo(200);
        assertThat(c.psample.group).isEqualTo(9);
        assertThat(c.collectors).hasSize(2);
        assertThat(c.warnings).containsExactly(
                "line 3: 'packetSamplingRate' is set again (first at line 2); the last value wins",
                "line 4: 'udpport' is set again (first at line 4); the last value wins",
                "line 5: collector 10.0.0.1:2 is listed twice (also at line 4): every datagram goes to it twice",
                "line 7: a second 'psample { }' block (the first is at line 6): this one replaces it, as in hsflowd");
    }

    @Test
    void suspiciousCombinationsWarn() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("""
                sflow {
                  collector { ip = 10.0.0.1 }
                  psample { group = 3 ingress = on }
                  vpp { }
                }
                """);
        assertThat(c.warnings).containsExactly("psample { group = 3 } with a vpp { } block: VPP's samples arrive on "
                + "groups 3 (ingress) and 4 (egress) and the vpp module takes them already, so they would be "
                + "counted twice (host-sflow PR #91); use psample { group = 1 }");
        HsflowdConfig none = HsflowdConfig.parse("sflow {\n collector { ip = 10.0.0.1 }\n"
                + " psample { ingress = off }\n}");
        assertThat(none.warnings).containsExactly("line 3: psample { ingress = off egress = off } takes no samples");
        HsflowdConfig both = HsflowdConfig.parse("sflow { collector { ip = 10.0.0.1 } psample { group = 2 "
                + "ingress = off egress = on } vpp { } }");
        assertThat(both.warnings).singleElement().asString().startsWith("psample { group = 2 } with a vpp");
    }

    @Test
    void unsupportedHsflowdSettingsWarnAndMisusedNamesFail() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("""
                sflow {
                  collector { ip = 10.0.0.1 }
                  jsonPort = 36343
                  polling.http = 20
                  kvm { }
                  sonic { unixsock = on }
                  vpp { colour = red }
                  dropmon { colour = blue }
                }
                """);
        assertThat(c.pollingByApp).containsEntry("http", 20);
        assertThat(c.warnings).containsExactly(
                "line 3: 'jsonPort' is an hsflowd setting vecflow does not implement; ignored",
                "line 4: 'polling.http' (application polling) is not used by vecflow; ignored",
                "line 5: 'kvm { }' is an hsflowd module vecflow does not implement; ignored",
                "line 6: 'sonic { }' is an hsflowd module vecflow does not implement; ignored",
                "line 7: unknown key 'colour' in vpp { } ignored",
                "line 8: unknown key 'colour' in dropmon { } ignored");
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n collector { ip = h }\n sampling { }\n}"))
                .hasMessage("line 3: 'sampling' is a setting, not a block: write sampling = VALUE");
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n collector = 10.0.0.1\n}"))
                .hasMessage("line 2: 'collector' is a block, not a setting: write collector { ... }");
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n collector { ip = h }\n pcap = eth0\n}"))
                .hasMessage("line 3: 'pcap' is a block, not a setting: write pcap { ... }");
    }

    @Test
    void tokenizerErrors(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n dropmon { hide = \"abc }\n}"))
                .hasMessage("line 2: unterminated quoted string: a \"...\" value must end on its line");
        String longWord = "x".repeat(256);
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n\n " + longWord + " = 1\n}"))
                .hasMessageStartingWith("line 3: a word of 256 characters (at most 255)");
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n \"ip\" = 1\n}"))
                .hasMessage("line 2: expected a key, found the quoted string \"ip\"");
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n = 1\n}"))
                .hasMessage("line 2: unexpected '=' without a key before it");
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n { }\n}"))
                .hasMessage("line 2: unexpected '{' without a block name before it");
        Path big = dir.resolve("big.conf");
        Files.writeString(big, "#".repeat(HsflowdConfig.MAX_FILE_BYTES + 1));
        assertThatThrownBy(() -> HsflowdConfig.load(big)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("larger than any hsflowd.conf");
        assertThatThrownBy(() -> HsflowdConfig.load(dir.resolve("none.conf"))).isInstanceOf(java.io.IOException.class)
                .hasMessageContaining("none.conf: no such file");
        // '#' ends a line's content, also right after a value; a quoted value keeps spaces, braces and '='
        HsflowdConfig c = HsflowdConfig.parse("sflow {\n collector { ip = h }# c\n dropmon { hide = \"a{1} = b\" }\n}");
        assertThat(c.dropmon.hide).isEqualTo("a{1} = b");
    }

    @Test
    void addressesHostNamesAndInterfaceNames() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("sflow { agentIP = fe80::1%eth9 collector { ip = collector.example.com } "
                + "collector { ip = my_host-1 } collector { ip = ::ffff:10.1.2.3 dev = vrf.mgmt-0 namespace = x.y } }");
        assertThat(c.agentIP).isEqualTo("fe80::1%eth9"); // the zone is syntax here; eth9 need not exist
        assertThat(c.collectors).extracting(x -> x.ip).containsExactly("collector.example.com", "my_host-1",
                "::ffff:10.1.2.3");
        for (String bad : new String[] {"-lead.example", "a..b", "10.0.0", "1.2.3.4.5", "1:2:3", "a b"}) {
            String text = "sflow {\n collector { ip = \"" + bad + "\" }\n}";
            assertThatThrownBy(() -> HsflowdConfig.parse(text)).as(bad).isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("line 2: ip: '" + bad + "' is not an address (");
        }
        for (String bad : new String[] {"a/b", "a:b", ".", "..", "sixteen-chars-xx"}) {
            String text = "sflow {\n agent = \"" + bad + "\"\n collector { ip = h }\n}";
            assertThatThrownBy(() -> HsflowdConfig.parse(text)).as(bad)
                    .hasMessage("line 2: agent: '" + bad + "' is not an interface name (1..15 characters, no '/', "
                            + "':' or spaces)");
        }
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n collector { ip = h namespace = a/b }\n}"))
                .hasMessage("line 2: namespace: 'a/b' is not a network namespace name (an `ip netns` name: no '/')");
    }

    @Test
    void cidrForms() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("sflow { agent.cidr = 0.0.0.0/0 agent.cidr = 2001:db8:1::5/48 "
                + "agent.cidr = !::1/128 collector { ip = h } }");
        assertThat(c.agentCidrs).extracting(x -> HsflowdConfig.literal(x.network()) + "/" + x.prefixBits())
                .containsExactly("0.0.0.0/0", "2001:db8:1::/48", "::1/128");
        assertThat(c.warnings).containsExactly("line 1: agent.cidr = 2001:db8:1::5/48 has host bits set: taken as "
                + "2001:db8:1::/48");
        assertThat(c.agentCidrs.get(0).contains(InetAddress.ofLiteral("203.0.113.9"))).isTrue();
        assertThat(c.agentCidrs.get(0).contains(InetAddress.ofLiteral("::1"))).isFalse();
        for (String bad : new String[] {"10.0.0.0/", "/8", "10.0.0.0/8/8", "2001:db8::/129", "host/8", "10.0.0.0/-1"}) {
            assertThatThrownBy(() -> HsflowdConfig.parse("sflow { agent.cidr = " + bad + " collector { ip = h } }"))
                    .as(bad).hasMessageStartingWith("line 1: agent.cidr: '" + bad + "' is not a CIDR");
        }
        assertThat(HsflowdConfig.literal(InetAddress.ofLiteral("1:0:0:1:0:0:0:1"))).isEqualTo("1:0:0:1::1");
        assertThat(HsflowdConfig.literal(InetAddress.ofLiteral("2001:db8:0:1:1:1:1:1"))).isEqualTo(
                "2001:db8:0:1:1:1:1:1");
        assertThat(HsflowdConfig.literal(InetAddress.ofLiteral("::"))).isEqualTo("::");
    }

    private static void assertSame(HsflowdConfig a, HsflowdConfig b) {
        assertThat(b.sampling).isEqualTo(a.sampling);
        assertThat(b.polling).isEqualTo(a.polling);
        assertThat(b.headerBytes).isEqualTo(a.headerBytes);
        assertThat(b.datagramBytes).isEqualTo(a.datagramBytes);
        assertThat(b.agentIP).isEqualTo(a.agentIP);
        assertThat(b.agentDevice).isEqualTo(a.agentDevice);
        assertThat(b.subAgentId).isEqualTo(a.subAgentId);
        assertThat(b.collectors).extracting(c -> c.ip, c -> c.udpPort) // (their line numbers differ, naturally)
                .isEqualTo(a.collectors.stream().map(c -> org.assertj.core.groups.Tuple.tuple(c.ip, c.udpPort))
                        .toList());
        assertThat(b.psample).usingRecursiveComparison().isEqualTo(a.psample);
        assertThat(b.vpp).usingRecursiveComparison().isEqualTo(a.vpp);
    }
}
