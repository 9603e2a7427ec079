package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The collector's Debian package (scripts/package-deb.sh): control fields, only the collector's jars and its own
 * runtime, the system user its postinst creates (and purge's removal of the spool), the hardened unit as
 * {@code systemd-analyze} sees it, {@code --check-config} of the shipped configuration, and the installed collector
 * run from the scratch root on its bundled runtime and jars alone: sFlow datagrams in on 127.0.0.1, JSON rows out,
 * Prometheus metrics served.
 */
class CollectorPackageIT {
    private static DebPackage pkg;

    @BeforeAll
    static void install() throws Exception {
        pkg = DebPackage.install("vecflow-collector");
    }

    /** Purge (postrm) deletes what the daemon kept, the spool under its StateDirectory, and the package's files. */
    @AfterAll
    static void purge() throws Exception {
        if (pkg == null) {
            return;
        }
        try {
            Path spool = Files.createDirectories(pkg.root.resolve("var/lib/vecflow-collector/spool/udp-6343"));
            Files.writeString(spool.resolve("00000000.seg"), "x");
            DebPackage.Result r = pkg.dpkg("--purge", "vecflow-collector");
            assertThat(r.rc()).as(r.err()).isZero();
            assertThat(pkg.root.resolve("var/lib/vecflow-collector")).doesNotExist();
            assertThat(pkg.root.resolve("usr/lib/vecflow-collector")).doesNotExist();
            assertThat(pkg.root.resolve("etc/vecflow/collector.yaml")).doesNotExist();
        } finally {
            pkg.close();
        }
    }

    @Test
    void controlFieldsUserAndPurge() throws Exception {
        assertThat(pkg.field("Package")).isEqualTo("vecflow-collector");
        assertThat(pkg.field("Depends")).isEqualTo("libc6, passwd");
        assertThat(DebPackage.ok(List.of("dpkg-deb", "-I", pkg.deb.toString(), "conffiles")).strip())
                .isEqualTo("/etc/vecflow/collector.yaml");
        // postinst: a system user and group of its own, no login, no home
        String passwd = Files.readString(pkg.root.resolve("etc/passwd"));
        assertThat(passwd).containsPattern("(?m)^vecflow-collector:x:\\d{3}:\\d{3}:vecflow collector:/nonexistent:"
                + "/usr/sbin/nologin$");
        int uid = Integer.parseInt(passwd.lines().filter(l -> l.startsWith("vecflow-collector:")).findFirst()
                .orElseThrow().split(":")[2]);
        assertThat(uid).as("a system uid").isBetween(100, 999);
        assertThat(Files.readString(pkg.root.resolve("etc/group"))).containsPattern("(?m)^vecflow-collector:x:");
    }

    @Test
    void onlyTheCollectorsJarsAndItsRuntime() throws Exception {
        List<String> files = List.copyOf(pkg.files().keySet());
        assertThat(files).contains("/usr/sbin/vecflow-collector", "/etc/vecflow/collector.yaml",
                "/lib/systemd/system/vecflow-collector.service", "/usr/lib/vecflow-collector/collector.aot",
                "/usr/lib/vecflow-collector/runtime/bin/java", "/usr/share/doc/vecflow-collector/copyright");
        assertThat(pkg.jars()).contains("vecflow", "vecflow-collector", "vecflow-sflow-v5", "kafka-clients",
                "client-v2", "netty-transport-native-epoll", "picocli")
                .doesNotContain("vecflow-hsflowd-compat", "vecflow-agent-dataplane", "vecflow-psample-bridge",
                        "jfreechart", "jctools-core");
        assertThat(pkg.runtimeModules()).contains("java.base", "java.management", "jdk.unsupported")
                .doesNotContain("jdk.compiler", "java.desktop");
    }

    @Test
    void systemdUnit() throws Exception {
        Map<String, String> service = pkg.unitSection("Service");
        assertThat(service.get("ExecStart"))
                .isEqualTo("/usr/sbin/vecflow-collector --config /etc/vecflow/collector.yaml");
        assertThat(service.get("User")).isEqualTo("vecflow-collector");
        assertThat(service.get("StateDirectory")).isEqualTo("vecflow-collector");
        assertThat(service.get("CapabilityBoundingSet")).isEmpty();
        assertThat(service.get("AmbientCapabilities")).isEmpty();
        assertThat(service.get("ProtectSystem")).isEqualTo("strict");
        assertThat(service.get("NoNewPrivileges")).isEqualTo("yes");
        assertThat(service.get("RestartPreventExitStatus")).isEqualTo("2");
        assertThat(pkg.verifyAndExposure()).as("systemd-analyze security exposure").isEqualTo(1.4);
        // the shipped spool directory is the unit's StateDirectory
        assertThat(Files.readString(pkg.root.resolve("etc/vecflow/collector.yaml")))
                .contains("directory: /var/lib/vecflow-collector/spool");
    }

    @Test
    void versionAndCheckConfig() throws Exception {
        DebPackage.Result v = pkg.launch("-XX:AOTMode=on", 60, "--version");
        assertThat(v.rc()).as(v.err()).isZero();
        assertThat(v.out().strip()).matches("vecflow \\S+ \\(Java 25\\)");
        Path conf = pkg.root.resolve("etc/vecflow/collector.yaml");
        DebPackage.Result c = pkg.launch("-XX:AOTMode=on", 60, "--config", conf.toString(), "--check-config");
        assertThat(c.rc()).as(c.err()).isZero();
        assertThat(c.out().strip()).isEqualTo(conf + ": valid; role all, udp 0.0.0.0:6343, sinks: clickhouse "
                + "http://127.0.0.1:8123");
        Path bad = Files.createTempFile("collector", ".yaml");
        try {
            Files.writeString(bad, Files.readString(conf).replace("port: 6343", "port: 70000"));
            c = pkg.launch(null, 60, "--config", bad.toString(), "--check-config");
            assertThat(c.rc()).as("exit status of an invalid file: " + c.out() + c.err()).isEqualTo(2);
            assertThat(c.err()).contains("70000");
        } finally {
            Files.deleteIfExists(bad);
        }
    }

    @Test
    void installedCollectorRunsOnItsOwnJars() throws Exception {
        Path dir = Files.createTempDirectory("vecflow-collector-it");
        Path rows = dir.resolve("rows.jsonl");
        Path log = dir.resolve("log");
        int port;
        int metricsPort;
        try (DatagramSocket s = new DatagramSocket(0, java.net.InetAddress.getLoopbackAddress());
                java.net.ServerSocket m = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
            metricsPort = m.getLocalPort();
        }
        Path conf = dir.resolve("collector.yaml");
        Files.writeString(conf, "listen:\n  address: 127.0.0.1\n  port: " + port + "\n  threads: 1\n"
                + "json-lines: " + rows + "\nspool:\n  directory: " + dir.resolve("spool") + "\n"
                + "metrics:\n  listen: 127.0.0.1\n  port: " + metricsPort + "\n");
        Process p = pkg.daemon("--config", conf.toString()).redirectErrorStream(true).redirectOutput(log.toFile())
                .start();
        try {
            DebPackage.awaitLine(log, "listening on udp 127.0.0.1:" + port, p, 30_000);
            List<byte[]> datagrams = Datagrams.payloads(Path.of("..", "testdata", "sflow",
                    "akvorado-data-sflow-ipv4-data.pcap"));
            assertThat(datagrams).isNotEmpty();
            try (DatagramSocket s = new DatagramSocket()) {
                for (byte[] d : datagrams) {
                    s.send(new DatagramPacket(d, d.length, new InetSocketAddress("127.0.0.1", port)));
                }
            }
            long deadline = System.nanoTime() + 20_000_000_000L;
            while ((!Files.exists(rows) || Files.size(rows) == 0) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(rows).as("JSON rows from the installed collector: " + Files.readString(log)).isNotEmptyFile();
            assertThat(Files.readAllLines(rows).getFirst()).startsWith("{").contains("\"sampling_rate\"");
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + metricsPort + "/metrics")).timeout(Duration.ofSeconds(10))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("vecflow_collector_datagrams");
            p.destroy(); // SIGTERM
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("stops on SIGTERM").isTrue();
            assertThat(p.exitValue()).as(Files.readString(log)).isIn(0, 143);
            assertThat(Files.readString(log)).contains("datagrams received " + datagrams.size());
        } finally {
            p.destroyForcibly();
            try (var s = Files.walk(dir)) {
                for (Path f : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }
}
