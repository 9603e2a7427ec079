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
 * runtime, its system user, the unit (root until the drop to --user vecflow-dataplane, a bounded capability set) as
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
        assertThat(service.get("ExecStart")).isEqualTo(
                "/usr/sbin/vecflow-dataplane --config /etc/vecflow/dataplane.yaml --user vecflow-dataplane");
        assertThat(service).doesNotContainKeys("User", "AmbientCapabilities"); // root until the drop, then none
        assertThat(service.get("CapabilityBoundingSet").split(" ")).containsExactlyInAnyOrder("CAP_NET_RAW",
                "CAP_NET_ADMIN", "CAP_SETUID", "CAP_SETGID");
        assertThat(service.get("SystemCallFilter")).doesNotContain("@privileged"); // setuid, capset
        assertThat(service.get("RuntimeDirectory")).isEqualTo("vecflow");
        assertThat(service.get("NoNewPrivileges")).isEqualTo("yes");
        assertThat(service.get("ProtectSystem")).isEqualTo("strict");
        assertThat(service.get("RestrictAddressFamilies").split(" ")).contains("AF_PACKET", "AF_NETLINK");
        // 2.8, not the 2.1 of a unit with User=: systemd-analyze scores the start as root, not the drop that follows
        assertThat(pkg.verifyAndExposure()).as("systemd-analyze security exposure").isEqualTo(2.8);
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

    /**
     * The installed dataplane started as root with {@code --user nobody} on an AF_PACKET port in a namespace made
     * here: after the drop every thread is nobody with no capability — but the main thread, which keeps
     * CAP_NET_ADMIN with {@code transport: genl} only — and the workers still receive on their rings: each ping frame
     * sent into the port becomes a PSAMPLE message (usersock) a subscriber here receives.
     */
    @Test
    void installedDataplaneDropsRootKeepingOnlyWhatItSends() throws Exception {
        for (String transport : List.of("usersock", "genl")) {
            try (io.vecflow.dataplane.netns.NetnsLab lab = io.vecflow.dataplane.netns.NetnsLab.open("vfpv");
                    PsampleSubscriber sub = PsampleSubscriber.open(PsampleTransport.USERSOCK, GROUP)) {
                lab.namespace("dp");
                lab.namespace("c");
                lab.veth(lab.ns("c"), lab.dev("c0"), lab.ns("dp"), lab.dev("p0"));
                lab.ip(lab.ns("dp"), "link", "set", lab.dev("p0"), "up");
                lab.address(lab.ns("c"), lab.dev("c0"), "10.77.0.1/24");
                lab.ip(lab.ns("c"), "link", "set", lab.dev("c0"), "up");
                lab.ip(lab.ns("c"), "neigh", "add", "10.77.0.2", "lladdr", "02:00:00:00:aa:01", "dev", lab.dev("c0"),
                        "nud", "permanent");
                Path dir = Files.createTempDirectory("vfpv");
                Path conf = dir.resolve("dataplane.yaml");
                Files.writeString(conf, """
                        workers: 2
                        ports:
                          - {name: p0, type: af_packet, if-index: 1, netns: %s, mac: "02:00:00:00:aa:01", \
                        af-packet: {interface: %s}}
                        sflow:
                          sampling-rate: 1
                          interfaces: [p0]
                          transport: %s
                          usersock-groups: {psample: %d, net-dm: 24, counters: 25}
                        control-socket: %s
                        metrics: {port: 0}
                        """.formatted(lab.ns("dp"), lab.dev("p0"), transport, GROUP, dir.resolve("dp.sock")));
                Path log = dir.resolve("dataplane.log");
                Process p = pkg.daemon("--config", conf.toString(), "--user", "nobody").redirectErrorStream(true)
                        .redirectOutput(log.toFile()).start();
                try {
                    DebPackage.awaitLine(log, "dataplane: running as nobody", p, 30_000);
                    long keep = transport.equals("genl") ? 1L << 12 : 0; // CAP_NET_ADMIN
                    assertThat(Files.readString(log)).contains("running as nobody (uid 65534, gid 65534), "
                            + (keep == 0 ? "no capability on any thread"
                            : "CAP_NET_ADMIN on vecflow-main only (genl), no capability on any other thread"));
                    int threads = 0;
                    boolean sawMain = false;
                    try (var tasks = Files.list(Path.of("/proc", Long.toString(p.pid()), "task"))) {
                        for (Path t : tasks.toList()) {
                            Map<String, String> st = new java.util.LinkedHashMap<>();
                            for (String l : Files.readAllLines(t.resolve("status"))) {
                                int c = l.indexOf(':');
                                if (c > 0) {
                                    st.put(l.substring(0, c), l.substring(c + 1).strip());
                                }
                            }
                            boolean main = st.get("Name").equals("vecflow-main");
                            sawMain |= main;
                            threads++;
                            String who = transport + " thread " + t.getFileName() + " (" + st.get("Name") + ")";
                            String caps = String.format("%016x", main ? keep : 0);
                            assertThat(st.get("Uid").split("\\s+")).as(who + " Uid").containsOnly("65534");
                            assertThat(st.get("Gid").split("\\s+")).as(who + " Gid").containsOnly("65534");
                            assertThat(st.get("Groups")).as(who + " Groups").isEmpty();
                            assertThat(st.get("CapEff")).as(who + " CapEff").isEqualTo(caps);
                            assertThat(st.get("CapPrm")).as(who + " CapPrm").isEqualTo(caps);
                            assertThat(st.get("CapAmb")).as(who + " CapAmb").isEqualTo("0000000000000000");
                        }
                    }
                    assertThat(sawMain).as("the main thread is named vecflow-main").isTrue();
                    assertThat(threads).as("JVM threads").isGreaterThan(5);
                    if (transport.equals("usersock")) {
                        // 20 Ethernet/IPv4 frames into c0 from a raw socket (python3; iputils is not a dependency)
                        Process ping = new ProcessBuilder("ip", "netns", "exec", lab.ns("c"), "python3", "-c",
                                "import socket,time\ns=socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\n"
                                + "s.bind(('" + lab.dev("c0") + "', 0))\nf=bytes.fromhex('02000000aa01020000000c01"
                                + "0800' '4500002000004000401100000a4d00010a4d0002') + bytes(12)\n"
                                + "for i in range(20):\n  s.send(f); time.sleep(0.01)\nprint('sent 20')")
                                .redirectErrorStream(true).start();
                        long[] got = new long[1];
                        String pinged = new String(ping.getInputStream().readAllBytes());
                        ping.waitFor(30, TimeUnit.SECONDS);
                        long deadline = System.nanoTime() + 10_000_000_000L;
                        while (got[0] < 20 && System.nanoTime() < deadline) {
                            sub.poll(Duration.ofMillis(100), x -> got[0]++);
                        }
                        var shown = io.vecflow.dataplane.control.ControlClient.send(dir.resolve("dp.sock"),
                                "show interfaces", Duration.ofSeconds(10));
                        assertThat(got[0]).as("PSAMPLE after the drop: " + Files.readString(log) + "\n" + pinged
                                + "\n" + shown.text()).isGreaterThanOrEqualTo(20);
                    }
                    assertThat(p.isAlive()).as(Files.readString(log)).isTrue();
                } finally {
                    p.destroy();
                    p.waitFor(20, TimeUnit.SECONDS);
                    p.destroyForcibly();
                }
            }
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
