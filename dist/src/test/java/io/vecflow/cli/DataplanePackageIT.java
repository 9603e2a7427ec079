package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.netlink.psample.PsampleSubscriber;
import io.vecflow.netlink.psample.PsampleTransport;
import java.io.IOException;
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
 * The dataplane's Debian package (scripts/package-deb.sh): control fields, only the dataplane's jars and its own
 * runtime, its system user, the unit (a non-root user with CAP_NET_RAW and CAP_NET_ADMIN only, ambient) as
 * {@code systemd-analyze} sees it, {@code --check-config} of the shipped configuration, and the installed dataplane
 * run from the scratch root on its bundled runtime and jars alone: replaying its capture, it emits PSAMPLE on
 * NETLINK_USERSOCK that a subscriber here receives.
 */
class DataplanePackageIT {
    /** USERSOCK group of this test (others use 12, 22, 28, 30, 31; the package build's training 26). */
    private static final int GROUP = 23;

    private static DebPackage pkg;

    @BeforeAll
    static void install() throws Exception {
        pkg = DebPackage.install("vecflow-dataplane");
    }

    @AfterAll
    static void remove() throws IOException {
        if (pkg != null) {
            pkg.close();
        }
    }

    @Test
    void controlFieldsAndUser() throws Exception {
        assertThat(pkg.field("Package")).isEqualTo("vecflow-dataplane");
        assertThat(pkg.field("Depends")).isEqualTo("libc6, passwd");
        assertThat(DebPackage.ok(List.of("dpkg-deb", "-I", pkg.deb.toString(), "conffiles")).strip())
                .isEqualTo("/etc/vecflow/dataplane.yaml");
        assertThat(Files.readString(pkg.root.resolve("etc/passwd")))
                .containsPattern("(?m)^vecflow-dataplane:x:\\d{3}:\\d{3}:vecflow dataplane:/nonexistent:"
                        + "/usr/sbin/nologin$");
    }

    @Test
    void onlyTheDataplanesJarsAndItsRuntime() throws Exception {
        List<String> files = List.copyOf(pkg.files().keySet());
        assertThat(files).contains("/usr/sbin/vecflow-dataplane", "/etc/vecflow/dataplane.yaml",
                "/lib/systemd/system/vecflow-dataplane.service", "/usr/lib/vecflow-dataplane/dataplane.aot",
                "/usr/lib/vecflow-dataplane/runtime/bin/java");
        assertThat(pkg.jars()).contains("vecflow", "vecflow-agent-dataplane", "vecflow-psample-bridge", "jctools-core",
                "jackson-dataformat-yaml", "prometheus-metrics-core", "picocli")
                .doesNotContain("vecflow-collector", "vecflow-hsflowd-compat", "vecflow-sflow-v5", "kafka-clients",
                        "client-v2", "netty-transport", "jfreechart");
        assertThat(pkg.runtimeModules()).contains("java.base", "jdk.httpserver", "jdk.unsupported")
                .doesNotContain("java.desktop", "jdk.compiler");
    }

    @Test
    void systemdUnit() throws Exception {
        Map<String, String> service = pkg.unitSection("Service");
        assertThat(service.get("ExecStart"))
                .isEqualTo("/usr/sbin/vecflow-dataplane --config /etc/vecflow/dataplane.yaml");
        assertThat(service.get("User")).isEqualTo("vecflow-dataplane");
        assertThat(service.get("AmbientCapabilities").split(" ")).containsExactlyInAnyOrder("CAP_NET_RAW",
                "CAP_NET_ADMIN");
        assertThat(service.get("CapabilityBoundingSet").split(" ")).containsExactlyInAnyOrder("CAP_NET_RAW",
                "CAP_NET_ADMIN");
        assertThat(service.get("RuntimeDirectory")).isEqualTo("vecflow");
        assertThat(service.get("NoNewPrivileges")).isEqualTo("yes");
        assertThat(service.get("ProtectSystem")).isEqualTo("strict");
        assertThat(service.get("RestrictAddressFamilies").split(" ")).contains("AF_PACKET", "AF_NETLINK");
        assertThat(pkg.verifyAndExposure()).as("systemd-analyze security exposure").isEqualTo(2.1);
        assertThat(Files.readString(pkg.root.resolve("etc/vecflow/dataplane.yaml")))
                .contains("control-socket: /run/vecflow/dataplane.sock");
    }

    @Test
    void versionAndCheckConfig() throws Exception {
        DebPackage.Result v = pkg.launch("-XX:AOTMode=on", 60, "--version");
        assertThat(v.rc()).as(v.err()).isZero();
        assertThat(v.out().strip()).matches("vecflow \\S+ \\(Java 25\\)");
        Path conf = pkg.root.resolve("etc/vecflow/dataplane.yaml");
        DebPackage.Result c = pkg.launch("-XX:AOTMode=on", 60, "--config", conf.toString(), "--check-config");
        assertThat(c.rc()).as(c.err()).isZero();
        assertThat(c.out().strip()).isEqualTo(conf + ": valid (2 ports, 1 xconnects, 0 routes, 0 neighbours)");
        Path bad = Files.createTempFile("dataplane", ".yaml");
        try {
            Files.writeString(bad, Files.readString(conf).replace("workers: 2", "workers: 0"));
            c = pkg.launch(null, 60, "--config", bad.toString(), "--check-config");
            assertThat(c.rc()).as("exit status of an invalid file: " + c.out() + c.err()).isEqualTo(2);
            assertThat(c.err()).contains("workers");
        } finally {
            Files.deleteIfExists(bad);
        }
    }

    @Test
    void installedDataplaneEmitsPsample() throws Exception {
        Path log = Files.createTempFile("dataplane", ".log");
        try (PsampleSubscriber sub = PsampleSubscriber.open(PsampleTransport.USERSOCK, GROUP)) {
            Process p = pkg.daemon("--transport", "usersock", "--netlink-group", Integer.toString(GROUP),
                    "--sampling-rate", "1", "--loops", "3").redirectErrorStream(true).redirectOutput(log.toFile())
                    .start();
            try {
                long[] got = new long[1];
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (System.nanoTime() < deadline && (p.isAlive() || got[0] == 0)) {
                    sub.poll(Duration.ofMillis(100), s -> got[0]++);
                    if (!p.isAlive() && got[0] == 0 && System.nanoTime() > deadline - 25_000_000_000L) {
                        break;
                    }
                }
                sub.poll(Duration.ofMillis(200), s -> got[0]++);
                assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("replay ends").isTrue();
                assertThat(p.exitValue()).as(Files.readString(log)).isZero();
                assertThat(got[0]).as("PSAMPLE messages from the installed dataplane: " + Files.readString(log))
                        .isPositive();
            } finally {
                p.destroyForcibly();
            }
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
