package io.vecflow.hsflowd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        assertThat(c.warnings).isEmpty();
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
            sampling 400                           | 3 | sampling | expected '='
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
        assertThatThrownBy(() -> HsflowdConfig.parse("sflow {\n  sampling\n  polling = 20\n  collector { ip = 1.2.3.4 }\n}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("line 2:")
                .hasMessageContaining("expected '=' after 'sampling'");
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
        assertThat(b.warnings).isEmpty();
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
