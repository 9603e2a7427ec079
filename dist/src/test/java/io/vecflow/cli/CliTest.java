package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The command line: --help everywhere, clear errors for bad input. */
class CliTest {
    @TempDir
    Path dir;

    record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        CommandLine cl = VecflowCommand.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void everySubcommandHasHelp() {
        List<List<String>> commands = List.of(List.of(), List.of("demo"), List.of("dataplane"), List.of("hsflowd"),
                List.of("collector"), List.of("psample"), List.of("psample", "listen"));
        for (List<String> cmd : commands) {
            List<String> withHelp = new java.util.ArrayList<>(cmd);
            withHelp.add("--help");
            String[] args = withHelp.toArray(String[]::new);
            Run r = run(args);
            assertThat(r.exit()).as("%s --help", cmd).isZero();
            assertThat(r.out()).as("%s --help", cmd).startsWith("Usage: vecflow" + (cmd.isEmpty() ? "" : " "
                    + String.join(" ", cmd)));
        }
        assertThat(run("demo", "--help").out()).contains("--sampling-rate", "--loops", "--workers", "--capture",
                "--clickhouse", "--kafka", "--out");
    }

    @Test
    void genlListensOrSaysWhatToDo() throws Exception {
        Run r = run("psample", "listen", "--transport", "genl", "--timeout", "1");
        if (io.vecflow.netlink.GenlController.isRegistered("psample")) {
            assertThat(r.exit()).as(r.err()).isZero(); // a kernel with psample: listens for 1 s, sees nothing
        } else {
            assertThat(r.exit()).isEqualTo(1);
            assertThat(r.err()).contains("modprobe psample").contains("--transport usersock");
        }
    }

    @Test
    void badOptionsAndConfigsAreNamed() throws Exception {
        Run r = run("demo", "--sampling-rate", "0");
        assertThat(r.exit()).as("usage errors exit 2").isEqualTo(2);
        assertThat(r.err()).isEqualTo("vecflow demo: --sampling-rate 0 is out of range: need N >= 1\n");
        assertThat(run("demo", "--workers", "0").err()).contains("--workers 0 is out of range: need 1..64");
        assertThat(run("collector", "--threads", "0", "--json", "x").err())
                .isEqualTo("vecflow collector: options: listen.threads = '0' is invalid (need 1..64)\n");
        assertThat(run("psample", "listen", "--count", "-1").err())
                .startsWith("vecflow psample listen: --count -1 is out of range");
        assertThat(run("demo", "--version").out()).startsWith("vecflow ");
        assertThat(run("demo", "--loops", "many").err()).contains("--loops").contains("many");

        Path conf = dir.resolve("hsflowd.conf");
        Files.writeString(conf, "sflow {\n  sampling = 10\n  headerBytes = 999\n  collector { ip = 127.0.0.1 }\n}\n");
        Run check = run("hsflowd", "-f", conf.toString(), "--check");
        assertThat(check.exit()).isEqualTo(2);
        assertThat(check.err()).contains("line 3").contains("999");

        Files.writeString(conf, "sflow {\n  sampling = 10\n  colour = blue\n  collector { ip = 127.0.0.1 }\n"
                + "  psample { transport = usersock }\n}\n");
        Run ok = run("hsflowd", "-f", conf.toString(), "--check");
        assertThat(ok.exit()).isZero();
        assertThat(ok.err()).contains("line 3").contains("colour");
        assertThat(ok.out()).contains("sampling = 10").contains("collector { ip = 127.0.0.1 udpport = 6343 }")
                .contains("# would run: agent ").contains("psample usersock group 30, collectors [127.0.0.1:6343]");
        // hsflowd's -u: the UUID host_descr carries (the config's uuid would win); a bad one is named, exit 2
        Run dashU = run("hsflowd", "-f", conf.toString(), "--check", "-u", "564D4180-E560-251E-88F8-8285B49A7839");
        assertThat(dashU.exit()).isZero();
        assertThat(dashU.out()).contains("host uuid 564d4180-e560-251e-88f8-8285b49a7839 (from command line)");
        Run badU = run("hsflowd", "-f", conf.toString(), "--check", "-u", "1234");
        assertThat(badU.exit()).isEqualTo(2);
        assertThat(badU.err()).contains(conf + ": -u: '1234' is not a UUID");
        // a datagramBytes too small for this host's counters sample: --check warns (hsflowd's lower limit is 200)
        Path tiny = dir.resolve("tiny.conf");
        Files.writeString(tiny, "sflow {\n datagramBytes = 300\n collector { ip = 127.0.0.1 }\n}\n");
        Run small = run("hsflowd", "-f", tiny.toString(), "--check", "--user", "root");
        assertThat(small.exit()).as(small.err()).isZero();
        assertThat(small.err()).contains(tiny + ": warning: datagramBytes = 300 cannot hold this host's counters "
                + "sample (");
        // ... even when the config's uuid would win (hsflowd rejects it while parsing its command line)
        Path withUuid = dir.resolve("with-uuid.conf");
        Files.writeString(withUuid, "sflow {\n uuid = 3e8f5a60-0b3c-4d2e-9f11-5a6b7c8d9e0f\n"
                + " collector { ip = 127.0.0.1 }\n}\n");
        Run badUWithConfig = run("hsflowd", "-f", withUuid.toString(), "--check", "-u", "nonsense", "--user", "root");
        assertThat(badUWithConfig.exit()).isEqualTo(2);
        assertThat(badUWithConfig.err()).contains(": -u: 'nonsense' is not a UUID");
        Run badM = run("hsflowd", "-f", withUuid.toString(), "--check", "-m", "xyz", "--user", "root");
        assertThat(badM.exit()).isEqualTo(2);
        assertThat(badM.err()).contains(": -m: 'xyz' is not a machine id");
        Run absent = run("hsflowd", "-f", dir.resolve("absent.conf").toString(), "--check");
        assertThat(absent.exit()).isEqualTo(2);
        assertThat(absent.err()).contains("absent.conf: no such file");

        Run missing = run("demo", "--capture", dir.resolve("nope.pcap").toString(), "--out", dir.toString());
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.err()).contains("cannot read capture").contains("nope.pcap").contains("no such file");

        Files.writeString(conf, "sflow {\n  collector { ip = 300.1.1.1 }\n}\n");
        Run badIp = run("hsflowd", "-f", conf.toString(), "--check");
        assertThat(badIp.exit()).isEqualTo(2);
        assertThat(badIp.err()).isEqualTo(conf + ": line 2: ip: '300.1.1.1' is not an address (IPv4 parts are "
                + "0..255, found '300')\n");
        Files.writeString(conf, "sflow {\n  collector { ip = no-such-host.invalid }\n}\n");
        Run unrunnable = run("hsflowd", "-f", conf.toString(), "--check");
        assertThat(unrunnable.exit()).as("--check fails a config that cannot run").isEqualTo(2);
        assertThat(unrunnable.err()).as("no psample block is fine: a counters-only agent, as hsflowd")
                .doesNotContain("psample").contains("line 2: collector ip 'no-such-host.invalid' does not resolve");

        // A capture cut short in its last record is replayed up to the last complete packet, with a warning.
        byte[] whole = Files.readAllBytes(TestEnv.capture());
        Files.write(dir.resolve("cut.pcap"), java.util.Arrays.copyOf(whole, 3000));
        java.io.ByteArrayOutputStream warn = new java.io.ByteArrayOutputStream();
        io.vecflow.packet.PcapFile cut = CaptureLoader.load(dir.resolve("cut.pcap"), new java.io.PrintStream(warn));
        assertThat(cut.packets()).isNotEmpty().hasSizeLessThan(179);
        assertThat(warn.toString()).contains("cut.pcap is cut short").contains(cut.packets().size()
                + " complete packets");

        Files.write(dir.resolve("ppp.pcap"), Files.readAllBytes(Path.of("..", "testdata", "traffic",
                "mpls-traceroute.pcap")));
        Run ppp = run("demo", "--capture", dir.resolve("ppp.pcap").toString(), "--out", dir.toString());
        assertThat(ppp.exit()).isEqualTo(1);
        assertThat(ppp.err()).contains("link type 9");
    }

    @Test
    void collectorConfigFileIsValidatedWithKeyAndLine() throws Exception {
        Path conf = dir.resolve("collector.yaml");
        Files.writeString(conf, "role: all\nlisten:\n  port: 6343\n  colour: blue\n");
        Run r = run("collector", "--config", conf.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("vecflow collector: " + conf + " line 4: unknown key 'listen.colour'");
        Files.writeString(conf, "clickhouse:\n  batch-rows: lots\n");
        assertThat(run("collector", "--config", conf.toString()).err())
                .startsWith("vecflow collector: " + conf + " line 2: key 'clickhouse.batch-rows'");
        Files.writeString(conf, "role: outlet\nclickhouse:\n  url: http://127.0.0.1:8123\n");
        assertThat(run("collector", "--config", conf.toString()).err()).isEqualTo("vecflow collector: " + conf
                + ": kafka.bootstrap = '' is invalid (need set for role outlet)\n");
        Files.writeString(conf, "forward: [\"127.0.0.1:99999\"]\n");
        assertThat(run("collector", "--config", conf.toString()).err()).contains("127.0.0.1:99999");
        Files.writeString(conf, "json-lines: /tmp/x.jsonl\nadmission:\n  allow: [10.1.2.3/8]\n");
        assertThat(run("collector", "--config", conf.toString()).err()).contains("host bits set");
        assertThat(run("collector", "--config", dir.resolve("missing.yaml").toString()).err())
                .contains("no such file");
        // Range errors name the line of the key; an empty section means its defaults.
        Files.writeString(conf, "json-lines: /tmp/x.jsonl\nlisten:\n  # the port\n  port: 70000\n");
        assertThat(run("collector", "--config", conf.toString()).err())
                .isEqualTo("vecflow collector: " + conf
                        + " line 4: listen.port = '70000' is invalid (need 1..65535)\n");
        Files.writeString(conf, "json-lines: /tmp/x.jsonl\nlisten:\nmetrics:\n  port: 0\n");
        Run empty = run("collector", "--config", conf.toString(), "--print-config");
        assertThat(empty.exit()).as(empty.err()).isZero();
        assertThat(empty.out()).contains("  port: 6343");
        Files.writeString(conf,
                "json-lines: /tmp/x.jsonl\nclickhouse:\n  url: http://a:8123\nclickhouse:\n  user: x\n");
        assertThat(run("collector", "--config", conf.toString()).err()).contains("line 4").contains("Duplicate");
        Files.writeString(conf, "json-lines: /tmp/x.jsonl\nlisten:\n  threads: 1.5\n");
        assertThat(run("collector", "--config", conf.toString()).err()).contains("line 3: key 'listen.threads'");
        Files.writeString(conf, "clickhouse:\n  url: http://127.0.0.1\n");
        assertThat(run("collector", "--config", conf.toString()).err()).isEqualTo("vecflow collector: " + conf
                + " line 2: clickhouse.url = 'http://127.0.0.1' is invalid (need http://host:port (https for TLS) or "
                + "empty; the user and password go in clickhouse.user and clickhouse.password-file, never in the "
                + "URL)\n");
        Files.writeString(conf, "json-lines: /tmp/x.jsonl\nkafka:\n  bootstrap: localhost\n");
        assertThat(run("collector", "--config", conf.toString()).err()).contains("line 3: kafka.bootstrap");
    }

    @Test
    void collectorExampleConfigIsTheDefaultsAndPrintConfigShowsOverrides() throws Exception {
        Run ex = run("collector", "--example-config");
        assertThat(ex.exit()).isZero();
        Path conf = dir.resolve("example.yaml");
        Files.writeString(conf, ex.out());
        // The documented example parses, and equals the built-in defaults key for key.
        assertThat(io.vecflow.collector.CollectorConfig.load(conf).toYaml())
                .isEqualTo(new io.vecflow.collector.CollectorConfig().toYaml());
        Run p = run("collector", "--config", conf.toString(), "--port", "16343", "--json", "/tmp/f.jsonl",
                "--print-config");
        assertThat(p.exit()).isZero();
        assertThat(p.out()).contains("  port: 16343").contains("json-lines: \"/tmp/f.jsonl\"")
                .contains("role: \"all\"");
    }

    @Test
    void hsflowdCheckOpensTheSourcesAndChecksTheUser() throws Exception {
        Path conf = dir.resolve("genl.conf");
        Files.writeString(conf, "sflow {\n collector { ip = 127.0.0.1 }\n psample { group = 1 }\n}\n");
        Run r = run("hsflowd", "-f", conf.toString(), "--check");
        if (io.vecflow.netlink.GenlController.isRegistered("psample")) {
            assertThat(r.exit()).as(r.err()).isZero(); // a kernel with psample: the genl source opens
        } else {
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err()).contains("psample: ").contains("modprobe psample")
                    .contains("psample { transport = usersock }");
        }
        Files.writeString(conf, "sflow {\n collector { ip = 127.0.0.1 }\n psample { transport = usersock }\n}\n");
        assertThat(run("hsflowd", "-f", conf.toString(), "--check").exit()).isZero();
        Run u = run("hsflowd", "-f", conf.toString(), "--check", "--user", "no-such-user-vf");
        assertThat(u.exit()).isEqualTo(2);
        assertThat(u.err()).contains("--user no-such-user-vf: no such user");
    }

    @Test
    void dataplaneConfigMistakesExitTwoAndCheckConfigNamesTheSections(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Run missing = run("dataplane", "--config", dir.resolve("nope.yaml").toString(), "--check-config");
        assertThat(missing.exit()).as("a missing config file is a usage error").isEqualTo(2);
        assertThat(missing.err()).isEqualTo("vecflow dataplane: cannot open " + dir.resolve("nope.yaml")
                + ": no such file or directory\n");
        Path conf = dir.resolve("dp.yaml");
        java.nio.file.Files.writeString(conf, """
                workers: 1
                ports:
                  - {name: vm, type: generator, mode: l3, mac: "02:00:00:00:00:01"}
                  - {name: up, type: generator, mode: l3, mac: "02:00:00:00:00:02"}
                clove:
                  vtep: 10.255.1.2
                  destinations:
                    - {vtep: 10.255.2.2, prefixes: ["10.0.2.0/24"]}
                """);
        Run ok = run("dataplane", "--config", conf.toString(), "--check-config");
        assertThat(ok.exit()).isZero();
        assertThat(ok.out()).isEqualTo(conf + ": valid (2 ports, 0 xconnects, 0 routes, 0 neighbours, clove 1 "
                + "destinations)\n");
        java.nio.file.Files.writeString(conf, java.nio.file.Files.readString(conf).replace("10.255.2.2",
                "10.255.2.2, paths: 9"));
        Run bad = run("dataplane", "--config", conf.toString(), "--check-config");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("line 8: clove.destinations[0].paths", "unknown");
    }

    /** The embedded store alone is a sink (it was refused as "no sink" before). */
    @Test
    void aCollectorWithOnlyTheEmbeddedStoreIsValid(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path conf = dir.resolve("c.yaml");
        java.nio.file.Files.writeString(conf, "duckdb:\n  path: " + dir.resolve("s.duckdb") + "\n");
        Run ok = run("collector", "--config", conf.toString(), "--check-config");
        assertThat(ok.exit()).as(ok.err()).isZero();
        assertThat(ok.out()).contains("valid; role all").contains("sinks: duckdb " + dir.resolve("s.duckdb"));
        java.nio.file.Files.writeString(conf, "duckdb:\n  path: \"off\"\n");
        Run none = run("collector", "--config", conf.toString(), "--check-config");
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.err()).contains("no sink").contains("duckdb.path");
    }

    @Test
    void clickhouseUsersPrintsHashesOnlyAndRefusesPasswordsEveryUserCanRead() throws Exception {
        Path w = dir.resolve("w");
        Path r = dir.resolve("r");
        Files.writeString(w, "writer-secret\n");
        Files.writeString(r, "reader-secret\n");
        for (Path p : List.of(w, r)) {
            Files.setPosixFilePermissions(p, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        }
        Run xml = run("clickhouse-users", "--server-version", "18.16.1", "--writer-password-file", w.toString(),
                "--reader-password-file", r.toString(), "--network", "10.1.0.0/16");
        assertThat(xml.exit()).as(xml.err()).isZero();
        assertThat(xml.out()).contains("<readonly>1</readonly>").contains("<ip>10.1.0.0/16</ip>")
                .contains(io.vecflow.collector.schema.ClickHouseUsers.sha256Hex("writer-secret"))
                .doesNotContain("writer-secret").doesNotContain("reader-secret");
        Run sql = run("clickhouse-users", "--server-version", "25.8.2.29", "--database", "flows",
                "--writer-password-file", w.toString(), "--reader-password-file", r.toString());
        assertThat(sql.exit()).as(sql.err()).isZero();
        assertThat(sql.out()).contains("GRANT SELECT ON flows.* TO vecflow_reader;")
                .contains("HOST IP '127.0.0.1', IP '::1'").doesNotContain("secret");
        Files.setPosixFilePermissions(r, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        Run open = run("clickhouse-users", "--server-version", "18.16.1", "--writer-password-file", w.toString(),
                "--reader-password-file", r.toString());
        assertThat(open.exit()).isEqualTo(2);
        assertThat(open.err()).contains("--reader-password-file").contains("readable by every user");
        Run noVersion = run("clickhouse-users", "--writer-password-file", w.toString(), "--reader-password-file",
                r.toString());
        assertThat(noVersion.exit()).isEqualTo(2);
        assertThat(noVersion.err()).contains("--server-version");
    }

    @Test
    void checkConfigResolvesSecretsAndNoCommandTakesAPasswordInAUrl() throws Exception {
        Path conf = dir.resolve("c.yaml");
        Files.writeString(conf, "kafka:\n  bootstrap: 127.0.0.1:9093\n  security:\n    protocol: SASL_SSL\n"
                + "    sasl: {username: u, password: \"env:VECFLOW_TEST_UNSET_4711\"}\n");
        Run unset = run("collector", "--config", conf.toString(), "--check-config");
        assertThat(unset.exit()).isEqualTo(2);
        assertThat(unset.err()).contains("VECFLOW_TEST_UNSET_4711").contains("is not set");
        Run url = run("console", "--clickhouse", "https://reader:Pw-Secret@127.0.0.1:8443");
        assertThat(url.exit()).isEqualTo(2);
        assertThat(url.err()).contains("--user NAME and --password-file FILE").doesNotContain("Pw-Secret");
        Run noConfig = run("dataplane", "--user", "nobody");
        assertThat(noConfig.exit()).isEqualTo(2);
        assertThat(noConfig.err()).contains("--user needs --config");
    }
}
