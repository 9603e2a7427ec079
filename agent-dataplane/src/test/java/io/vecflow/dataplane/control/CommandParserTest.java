package io.vecflow.dataplane.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Parser and dispatch: each command line makes exactly the expected call; bad lines name word, position, column. */
class CommandParserTest {

    private static String run(String line) throws Exception {
        RecordingControl d = new RecordingControl();
        CommandParser.parse(line).run(d);
        assertThat(d.calls).hasSize(1);
        return d.calls.getFirst();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "sflow sampling-rate 10000                 | samplingRate 10000",
        "sflow sampling-rate 0                     | samplingRate 0",
        "  sflow   sampling-rate\t2147483647       | samplingRate 2147483647",
        "sflow polling-interval 20                 | pollingInterval 20",
        "sflow header-bytes 64                     | headerBytes 64",
        "sflow header-bytes 256                    | headerBytes 256",
        "sflow direction both                      | direction BOTH",
        "sflow direction tx                        | direction TX",
        "sflow enable eth0                         | interfaceSampling eth0 true",
        "sflow disable eth1                        | interfaceSampling eth1 false",
        "sflow enable-disable eth1                 | interfaceSampling eth1 true",
        "sflow enable-disable eth1 disable         | interfaceSampling eth1 false",
        "sflow drop-monitoring enable              | dropMonitoring true",
        "sflow drop-monitoring disable             | dropMonitoring false",
        "show sflow                                | showSflow",
        "show errors                               | showErrors",
        "show interfaces                           | showInterfaces",
        "show lb                                   | showLb",
        "show lb flows                             | showLbFlows",
        "show srlb                                 | showSrlb",
        "show clove                                | showClove",
        "srlb load 3                               | setSrlbLoad 3.0",
        "srlb load 0.25                            | setSrlbLoad 0.25",
        "lb vip 192.0.2.1/32 encap gre4            | addVip 192.0.2.1/32 encap gre4 new_len 65537",
        "lb vip 192.0.2.1/32                       | addVip 192.0.2.1/32 encap gre4 new_len 65537",
        "lb vip add 2001:db8::/64 protocol tcp port 80 encap srv6 new_len 1009"
            + " | addVip 2001:db8::/64 protocol tcp port 80 encap srv6 new_len 1009",
        "lb vip 198.51.100.0/24 protocol udp port 53 encap ipip | addVip 198.51.100.0/24 protocol udp port 53 encap "
                + "ipip new_len 65537",
        "lb vip 2001:db8::1/128 encap srlb         | addVip 2001:db8::1/128 encap srlb new_len 65537",
        "lb vip 192.0.2.1/32 del                   | delVip 192.0.2.1/32",
        "lb vip del 192.0.2.1/32 protocol tcp port 443 | delVip 192.0.2.1/32 protocol tcp port 443",
        "lb as 192.0.2.1/32 10.0.0.1 10.0.0.2      | addBackends 192.0.2.1/32 10.0.0.1,10.0.0.2",
        "lb as add 192.0.2.1/32 protocol tcp port 80 10.0.0.1 | addBackends 192.0.2.1/32 protocol tcp port 80 10.0.0.1",
        "lb as 2001:db8::1/128 2001:db8:1::5 del   | delBackends 2001:db8::1/128 2001:db8:1:0:0:0:0:5",
        "lb as del 192.0.2.1/32 10.0.0.2 flush     | delBackends 192.0.2.1/32 10.0.0.2 flush",
    })
    void linesMakeTheirCall(String line, String call) throws Exception {
        assertThat(run(line)).isEqualTo(call);
    }

    @Test
    void helpListsEveryCommandAndCallsNothing() throws Exception {
        RecordingControl d = new RecordingControl();
        String text = CommandParser.parse("help").run(d);
        assertThat(d.calls).isEmpty();
        assertThat(text).contains("sflow sampling-rate N", "sflow header-bytes B",
                "show sflow | errors | interfaces | runtime | lb | lb flows",
                "lb vip [add|del] PREFIX", "lb as [add|del] VIP-PREFIX");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "''                                     | after token 0 (end of line): an empty command: type help for the "
                + "list",
        "frobnicate                             | token 1 \"frobnicate\" (column 1): unknown command; expected sflow, "
                + "show, lb, srlb or help",
        "sflow                                  | after token 1 (end of line): expected sampling-rate, "
                + "polling-interval, header-bytes, direction, enable, disable or drop-monitoring",
        "sflow sampling-rate                    | after token 2 (end of line): expected a sampling rate N (0 "
                + "disables, else 1..2147483647)",
        "sflow sampling-rate ten                | token 3 \"ten\" (column 21): expected a sampling rate N (0 "
                + "disables, else 1..2147483647)",
        "sflow sampling-rate -1                 | token 3 \"-1\" (column 21): expected a sampling rate N (0 disables, "
                + "else 1..2147483647)",
        "sflow sampling-rate 4294967296         | token 3 \"4294967296\" (column 21): 4294967296 is out of range: "
                + "expected a sampling rate N (0 disables, else 1..2147483647)",
        "sflow sampling-rate 100 please         | token 4 \"please\" (column 25): unexpected word; the command ends "
                + "before it",
        "sflow polling-interval 0               | token 3 \"0\" (column 24): a polling interval of 0 s is not allowed "
                + "(VPP divides by it); use 1..86400",
        "sflow header-bytes 100                 | token 3 \"100\" (column 20): header bytes must be 64..256 and a "
                + "multiple of 32 (64, 96, 128, 160, 192, 224 or 256)",
        "sflow header-bytes 32                  | token 3 \"32\" (column 20): header bytes must be 64..256 and a "
                + "multiple of 32 (64, 96, 128, 160, 192, 224 or 256)",
        "sflow header-bytes 288                 | token 3 \"288\" (column 20): header bytes must be 64..256 and a "
                + "multiple of 32 (64, 96, 128, 160, 192, 224 or 256)",
        "sflow direction sideways               | token 3 \"sideways\" (column 17): expected rx, tx or both",
        "sflow drop-monitoring on               | token 3 \"on\" (column 23): expected enable or disable",
        "sflow enable                           | after token 2 (end of line): expected an interface name",
        "show                                   | after token 1 (end of line): expected sflow, errors, interfaces, "
                + "runtime, lb, srlb or clove",
        "show lb vips                           | token 3 \"vips\" (column 9): expected flows or the end of the line",
        "lb vip 192.0.2.1                       | token 3 \"192.0.2.1\" (column 8): expected a VIP prefix such as "
                + "192.0.2.1/32 or 2001:db8::1/128",
        "lb vip 192.0.2.1/33                    | token 3 \"192.0.2.1/33\" (column 8): prefix length must be 0..32",
        "lb vip 192.0.2.1/24                    | token 3 \"192.0.2.1/24\" (column 8): host bits are set; did you "
                + "mean 192.0.2.0/24?",
        "lb vip vip.example/32                  | token 3 \"vip.example/32\" (column 8): expected a VIP prefix such "
                + "as 192.0.2.1/32 or 2001:db8::1/128",
        "lb vip 192.0.2.1/32 encap l3dsr        | token 5 \"l3dsr\" (column 27): VPP's encap l3dsr is not implemented "
                + "by vecflow; use gre4, gre6, ipip, srv6 or srlb",
        "lb vip 192.0.2.1/32 encap vxlan        | token 5 \"vxlan\" (column 27): expected gre4, gre6, ipip, srv6 or "
                + "srlb",
        "lb vip 192.0.2.1/32 protocol tcp       | token 4 \"protocol\" (column 21): protocol needs port N too (a "
                + "per-port VIP); leave both out for an all-port VIP",
        "lb vip 192.0.2.1/32 port 80            | token 4 \"port\" (column 21): port needs protocol tcp or udp too (a "
                + "per-port VIP)",
        "lb vip 192.0.2.1/32 protocol sctp port 1 | token 5 \"sctp\" (column 30): expected tcp or udp",
        "lb vip 192.0.2.1/32 protocol tcp port 0 | token 7 \"0\" (column 39): 0 is out of range: expected a port "
                + "number (1..65535)",
        "lb vip 192.0.2.1/32 new_len 1000       | token 5 \"1000\" (column 29): new_len must be a prime (the Maglev "
                + "table size; e.g. 65537, 1009, 16777213)",
        "lb vip 192.0.2.1/32 encap gre4 encap gre6 | token 6 \"encap\" (column 32): given twice (first as token 4)",
        "lb vip add 192.0.2.1/32 del            | token 5 \"del\" (column 25): del contradicts add (token 3)",
        "lb vip 192.0.2.1/32 encap gre6 del     | token 4 \"encap\" (column 21): encap applies only when adding a VIP",
        "lb vip 192.0.2.1/32 dscp 3             | token 4 \"dscp\" (column 21): VPP's dscp applies to its l3dsr/nat "
                + "encaps, which vecflow does not implement",
        "lb as 192.0.2.1/32                     | after token 3 (end of line): expected one or more server addresses",
        "lb as 192.0.2.1/32 10.0.0.1 10.0.0.1   | token 5 \"10.0.0.1\" (column 29): address given twice (first as "
                + "token 4)",
        "lb as 192.0.2.1/32 10.0.0.0/8          | token 4 \"10.0.0.0/8\" (column 20): expected a server address, not "
                + "a prefix",
        "lb as 192.0.2.1/32 backend1            | token 4 \"backend1\" (column 20): expected a server address (IPv4 "
                + "or IPv6 literal), protocol, port, del or flush",
        "lb as 192.0.2.1/32 10.0.0.1 flush      | token 5 \"flush\" (column 29): flush applies only with del (it "
                + "drops the removed servers' flows)",
        "lb as 192.0.2.1/32 300.0.0.1           | token 4 \"300.0.0.1\" (column 20): expected a server address (IPv4 "
                + "or IPv6 literal), protocol, port, del or flush",
        "lb mangle                              | token 2 \"mangle\" (column 4): expected vip or as",
        "srlb load                              | after token 2 (end of line): expected a load value N (a finite "
                + "number, e.g. 3 busy workers)",
        "srlb load NaN                          | token 3 \"NaN\" (column 11): expected a finite decimal number",
        "srlb load 1e400                        | token 3 \"1e400\" (column 11): expected a finite decimal number",
        "srlb weight 3                          | token 2 \"weight\" (column 6): expected load",
    })
    void badLinesNameTheWordAndWhere(String line, String message) {
        assertThatThrownBy(() -> CommandParser.parse(line))
                .isInstanceOf(CommandSyntaxException.class)
                .hasMessage(message);
    }

    @Test
    void syntaxErrorCarriesItsPosition() {
        CommandSyntaxException e = org.junit.jupiter.api.Assertions.assertThrows(CommandSyntaxException.class,
                () -> CommandParser.parse("sflow direction up"));
        assertThat(e.tokenIndex()).isEqualTo(3);
        assertThat(e.token()).isEqualTo("up");
        assertThat(e.column()).isEqualTo(17);
    }

    @Test
    void replyFramingEscapesPercentLinesAndRoundTrips() throws Exception {
        byte[] wire = ControlProtocol.encodeReply("a\n%rc 0\n%%b\nc\n", 1);
        assertThat(new String(wire, java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("a\n%%rc 0\n%%%b\nc\n%rc 1\n");
        ControlProtocol.Reply r = ControlProtocol.decodeReply(new String(wire,
                java.nio.charset.StandardCharsets.UTF_8));
        assertThat(r.rc()).isEqualTo(1);
        assertThat(r.text()).isEqualTo("a\n%rc 0\n%%b\nc\n");
        assertThat(ControlProtocol.decodeReply("%rc 0\n")).isEqualTo(new ControlProtocol.Reply(0, ""));
        assertThatThrownBy(() -> ControlProtocol.decodeReply("half a reply\n"))
                .hasMessageContaining("closed without a status line");
        assertThatThrownBy(() -> ControlProtocol.decodeReply("%rc x\n"))
                .hasMessage("malformed status line \"%rc x\" from the control socket");
    }
}
