package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.psample.PsampleTransport;
import io.vecflow.sflow.CounterSample;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.DecodeStats;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.SflowDecoder;
import io.vecflow.sflow.SflowVisitor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Debian package of the agent (scripts/package-deb.sh, built in dist's package phase; this test runs in
 * integration-test, after it): its control fields, file list, conffiles and unit file as {@code dpkg-deb} shows
 * them; installed into a scratch root with {@code dpkg --root}; the installed launcher's {@code --help} and
 * {@code --check}; and the installed agent run as root: after start every thread is {@code nobody} with no
 * capability, and PSAMPLE sent on NETLINK_USERSOCK still comes out as sFlow datagrams on 127.0.0.1.
 */
class HsflowdPackageIT {
    /** USERSOCK group of this test (other tests use 12, 28, 30, 31). */
    private static final int GROUP = 22;

    private static Path deb;
    private static Path root;

    @BeforeAll
    static void install() throws Exception {
        String dir = System.getProperty("vecflow.deb.dir", "target");
        try (Stream<Path> s = Files.list(Path.of(dir))) {
            List<Path> debs = s.filter(p -> p.getFileName().toString().matches("vecflow-hsflowd_.*_amd64\\.deb"))
                    .toList();
            if (debs.size() != 1) {
                fail("expected exactly one vecflow-hsflowd_*_amd64.deb in " + dir + " (dist's package phase runs "
                        + "scripts/package-deb.sh), found " + debs);
            }
            deb = debs.getFirst();
        }
        // A world-readable scratch root: the agent reads its jars as `nobody` after the privilege drop.
        root = Files.createTempDirectory("vecflow-deb-root");
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path admin = Files.createDirectories(root.resolve("var/lib/dpkg"));
        Files.createDirectories(admin.resolve("info"));
        Files.createDirectories(admin.resolve("updates"));
        Files.writeString(admin.resolve("status"), "");
        Files.writeString(admin.resolve("available"), "");
        Result r = run(List.of(TestEnv.tool("dpkg", "dpkg"), "--root=" + root, "--force-depends", "-i",
                deb.toString()), 120);
        assertThat(r.rc).as("dpkg -i: " + r.err).isZero();
    }

    @AfterAll
    static void removeRoot() throws IOException {
        if (root != null) {
            try (Stream<Path> s = Files.walk(root)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    @Test
    void controlFields() throws Exception {
        String version = System.getProperty("vecflow.version", "0.1.0-SNAPSHOT").replace("-SNAPSHOT", "~SNAPSHOT");
        Map<String, String> f = new LinkedHashMap<>();
        for (String field : List.of("Package", "Version", "Architecture", "Depends", "Conflicts", "Section",
                "Maintainer", "Installed-Size")) {
            f.put(field, ok(List.of("dpkg-deb", "-f", deb.toString(), field)).strip());
        }
        assertThat(f.get("Package")).isEqualTo("vecflow-hsflowd");
        assertThat(f.get("Version")).isEqualTo(version);
        assertThat(deb.getFileName().toString()).isEqualTo("vecflow-hsflowd_" + version + "_amd64.deb");
        assertThat(f.get("Architecture")).isEqualTo("amd64");
        assertThat(f.get("Depends"))
                .isEqualTo("temurin-25-jre | temurin-25-jdk | openjdk-25-jre-headless | java25-runtime-headless");
        assertThat(f.get("Conflicts")).isEqualTo("hsflowd");
        assertThat(f.get("Section")).isEqualTo("net");
        assertThat(f.get("Maintainer")).isNotBlank();
        assertThat(Long.parseLong(f.get("Installed-Size"))).as("KiB").isBetween(1_000L, 200_000L);
        // the control archive: conffiles names the sample config; md5sums covers every file
        String info = ok(List.of("dpkg-deb", "-I", deb.toString()));
        assertThat(info).contains(" conffiles", " control", " md5sums", " prerm");
        assertThat(ok(List.of("dpkg-deb", "-I", deb.toString(), "conffiles")).strip()).isEqualTo("/etc/hsflowd.conf");
    }

    @Test
    void fileListHoldsOnlyTheUsualPlaces() throws Exception {
        Map<String, String> modes = new LinkedHashMap<>();
        for (String line : ok(List.of("dpkg-deb", "-c", deb.toString())).split("\n")) {
            String[] c = line.strip().split("\\s+");
            assertThat(c[1]).as("owner of " + c[5]).isEqualTo("root/root");
            modes.put(c[5].substring(1), c[0]); // "./usr/sbin/x" -> "/usr/sbin/x"
        }
        List<String> files = modes.keySet().stream().filter(p -> !p.endsWith("/")).toList();
        assertThat(files).allMatch(p -> p.equals("/etc/hsflowd.conf") || p.equals("/usr/sbin/vecflow-hsflowd")
                || p.equals("/lib/systemd/system/vecflow-hsflowd.service")
                || p.matches("/usr/share/vecflow/(vecflow\\.jar|lib/[A-Za-z0-9._-]+\\.jar)")
                || p.matches("/usr/share/doc/vecflow-hsflowd/(copyright|changelog\\.gz)"), "in the usual places");
        assertThat(files).contains("/etc/hsflowd.conf", "/usr/sbin/vecflow-hsflowd",
                "/lib/systemd/system/vecflow-hsflowd.service", "/usr/share/vecflow/vecflow.jar",
                "/usr/share/doc/vecflow-hsflowd/copyright", "/usr/share/doc/vecflow-hsflowd/changelog.gz");
        assertThat(files).anyMatch(p -> p.matches("/usr/share/vecflow/lib/vecflow-hsflowd-compat-.*\\.jar"))
                .anyMatch(p -> p.matches("/usr/share/vecflow/lib/vecflow-psample-bridge-.*\\.jar"))
                .anyMatch(p -> p.matches("/usr/share/vecflow/lib/picocli-.*\\.jar"));
        assertThat(modes.get("/usr/sbin/vecflow-hsflowd")).isEqualTo("-rwxr-xr-x");
        assertThat(files).filteredOn(p -> !p.equals("/usr/sbin/vecflow-hsflowd"))
                .allMatch(p -> modes.get(p).equals("-rw-r--r--"), "files 0644");
        // every jar the launcher's Class-Path names is shipped
        Path jar = root.resolve("usr/share/vecflow/vecflow.jar");
        try (java.util.jar.JarFile j = new java.util.jar.JarFile(jar.toFile())) {
            String cp = j.getManifest().getMainAttributes().getValue("Class-Path");
            for (String e : cp.split(" ")) {
                assertThat(files).as("Class-Path entry " + e).contains("/usr/share/vecflow/" + e);
            }
        }
        // dpkg recorded the install as the package's own files, conffile included
        String status = ok(List.of("dpkg", "--root=" + root, "-s", "vecflow-hsflowd"));
        assertThat(status).contains("Status: install ok installed").contains("Conffiles:\n /etc/hsflowd.conf ");
        assertThat(ok(List.of("dpkg", "--root=" + root, "-L", "vecflow-hsflowd")).lines().toList())
                .containsAll(files);
    }

    @Test
    void systemdUnit() throws Exception {
        Path unit = root.resolve("lib/systemd/system/vecflow-hsflowd.service");
        Map<String, String> service = section(Files.readString(unit), "Service");
        assertThat(service.get("Type")).isEqualTo("simple");
        assertThat(service.get("Restart")).isEqualTo("on-failure");
        assertThat(service.get("RestartPreventExitStatus")).isEqualTo("2");
        assertThat(service.get("SuccessExitStatus")).isEqualTo("143");
        assertThat(service.get("ExecStart")).isEqualTo("/usr/sbin/vecflow-hsflowd -f /etc/hsflowd.conf --user nobody");
        assertThat(service.get("CapabilityBoundingSet").split(" "))
                .containsExactlyInAnyOrder("CAP_NET_ADMIN", "CAP_SYS_ADMIN", "CAP_NET_RAW", "CAP_SETUID", "CAP_SETGID");
        assertThat(service.get("NoNewPrivileges")).isEqualTo("yes");
        assertThat(service.get("RestrictAddressFamilies").split(" "))
                .contains("AF_NETLINK", "AF_INET", "AF_INET6");
        assertThat(service).doesNotContainKey("User").doesNotContainKey("AmbientCapabilities");
        assertThat(section(Files.readString(unit), "Install").get("WantedBy")).isEqualTo("multi-user.target");
        // systemd's own parser: a copy whose ExecStart points into the scratch root must verify without a word
        Path dir = Files.createTempDirectory("vecflow-unit");
        try {
            Path copy = dir.resolve("vecflow-hsflowd.service");
            Files.writeString(copy, Files.readString(unit).replace("ExecStart=/usr/sbin/vecflow-hsflowd",
                    "ExecStart=" + root.resolve("usr/sbin/vecflow-hsflowd")));
            Result r = run(List.of(TestEnv.tool("systemd-analyze", "systemd"), "verify", "--man=no",
                    copy.toString()), 60);
            assertThat(r.rc).as(r.err).isZero();
            assertThat(r.err.strip()).as("systemd-analyze verify").isEmpty();
        } finally {
            Files.deleteIfExists(dir.resolve("vecflow-hsflowd.service"));
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void installedLauncherHelpAndCheck() throws Exception {
        String launcher = root.resolve("usr/sbin/vecflow-hsflowd").toString();
        Result help = run(List.of(launcher, "--help"), 60);
        assertThat(help.rc).as(help.err).isZero();
        assertThat(help.out).startsWith("Usage: vecflow hsflowd").contains("--user=USER", "--check", "-f=FILE");

        Path conf = root.resolve("etc/hsflowd.conf");
        Result check = run(List.of(launcher, "-f", conf.toString(), "--check"), 60);
        if (!io.vecflow.netlink.GenlController.isRegistered("psample")) {
            // --check probes the genl source on this kernel (no psample module): the sample's genl source is
            // reported clearly, and the same file with the usersock transport passes.
            assertThat(check.rc).as(check.err).isEqualTo(2);
            assertThat(check.err).contains("modprobe psample");
            Path us = Files.createTempFile("hsflowd", ".conf");
            try {
                Files.writeString(us, Files.readString(conf).replace("psample { group = 1 }",
                        "psample { group = 1 transport = usersock }"));
                check = run(List.of(launcher, "-f", us.toString(), "--check"), 60);
            } finally {
                Files.deleteIfExists(us);
            }
        }
        assertThat(check.rc).as(check.err).isZero();
        assertThat(check.out).contains("sampling = 400", "polling = 30", "headerBytes = 128", "datagramBytes = 1400",
                "collector { ip = 127.0.0.1 udpport = 6343 }", "psample { group = 1 ");
    }

    @Test
    void installedAgentDropsRootAndStillSamples() throws Exception {
        try (java.nio.channels.DatagramChannel sink = java.nio.channels.DatagramChannel.open()) {
            sink.bind(new InetSocketAddress("127.0.0.1", 0));
            sink.socket().setSoTimeout(200);
            int port = ((InetSocketAddress) sink.getLocalAddress()).getPort();
            Path conf = Files.createTempFile("hsflowd", ".conf");
            Path log = Files.createTempFile("hsflowd", ".log");
            Files.writeString(conf, "sflow {\n  sampling = 1\n  agentIP = 192.0.2.7\n"
                    + "  collector { ip = 127.0.0.1 udpport = " + port + " }\n"
                    + "  psample { group = 1 transport = usersock usersockGroup = " + GROUP + " }\n}\n");
            Files.setPosixFilePermissions(conf, PosixFilePermissions.fromString("rw-r--r--"));
            Process p = new ProcessBuilder(root.resolve("usr/sbin/vecflow-hsflowd").toString(), "-f", conf.toString(),
                    "--user", "nobody").redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                awaitLine(log, "vecflow hsflowd: agent 192.0.2.7", p, 30_000);
                String out = Files.readString(log);
                assertThat(out).contains("vecflow hsflowd: running as nobody (uid 65534, gid 65534), no supplementary "
                        + "groups, no capabilities");

                // every thread of the JVM (the launcher execs java: the pid is the JVM's)
                Path tasks = Path.of("/proc", Long.toString(p.pid()), "task");
                List<Path> tids;
                try (Stream<Path> s = Files.list(tasks)) {
                    tids = s.toList();
                }
                assertThat(tids.size()).as("JVM threads").isGreaterThan(5);
                for (Path t : tids) {
                    Map<String, String> st = new LinkedHashMap<>();
                    for (String l : Files.readAllLines(t.resolve("status"))) {
                        int c = l.indexOf(':');
                        if (c > 0) {
                            st.put(l.substring(0, c), l.substring(c + 1).strip());
                        }
                    }
                    String who = "thread " + t.getFileName() + " (" + st.get("Name") + ")";
                    assertThat(st.get("Uid").split("\\s+")).as(who + " Uid").containsOnly("65534");
                    assertThat(st.get("Gid").split("\\s+")).as(who + " Gid").containsOnly("65534");
                    assertThat(st.get("Groups")).as(who + " Groups").isEmpty();
                    assertThat(st.get("CapEff")).as(who + " CapEff").isEqualTo("0000000000000000");
                    assertThat(st.get("CapPrm")).as(who + " CapPrm").isEqualTo("0000000000000000");
                    assertThat(st.get("CapAmb")).as(who + " CapAmb").isEqualTo("0000000000000000");
                }

                // PSAMPLE from a second (root) socket on the agent's USERSOCK group still arrives after the drop
                int n = 300;
                byte[] frame = new byte[64];
                for (int i = 0; i < 12; i++) {
                    frame[i] = (byte) (i + 1); // dst/src MAC
                }
                frame[12] = 0x08; // IPv4 ethertype, then zeros
                try (PsampleEmitter em = PsampleEmitter.open(PsampleTransport.USERSOCK, GROUP,
                        Psample.Convention.KERNEL)) {
                    PsampleSample s = new PsampleSample();
                    for (int i = 0; i < n; i++) {
                        s.clear().sampleGroup(1).groupSeq(i + 1).iifIndex(3).oifIndex(0).origSize(64).sampleRate(1)
                                .data(frame, 0, frame.length);
                        assertThat(em.emit(s)).as("emit " + i).isTrue();
                    }
                }
                long[] seen = receiveFlowSamples(sink, n, 10_000);
                assertThat(seen[0]).as("flow samples at the sink").isEqualTo(n);
                assertThat(seen[1]).as("sampling_rate 1, input ifIndex 3 on every sample").isEqualTo(n);

                new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor();
                assertThat(p.waitFor(20, TimeUnit.SECONDS)).as("stops on SIGTERM").isTrue();
                assertThat(p.exitValue()).as("128 + SIGTERM, the unit's SuccessExitStatus: " + Files.readString(log))
                        .isEqualTo(143);
                assertThat(Files.readString(log)).contains("samples received " + n + ", sent " + n);
            } finally {
                p.destroyForcibly();
                Files.deleteIfExists(conf);
                Files.deleteIfExists(log);
            }
        }
    }

    /** @return {flow samples, of which with sampling_rate 1 and input 3}, reading until n or the deadline. */
    private static long[] receiveFlowSamples(java.nio.channels.DatagramChannel ch, int n, long timeoutMs)
            throws IOException {
        long[] seen = new long[2];
        SflowDecoder decoder = new SflowDecoder(new DecodeStats());
        SflowVisitor v = new SflowVisitor() {
            @Override
            public void onDatagram(DatagramHeader header) {}

            @Override
            public void onFlowSample(DatagramHeader header, FlowSample sample) {
                seen[0]++;
                if (sample.samplingRate == 1 && sample.input == 3) {
                    seen[1]++;
                }
            }

            @Override
            public void onCounterSample(DatagramHeader header, CounterSample sample) {}
        };
        byte[] buf = new byte[65536];
        java.net.DatagramPacket pkt = new java.net.DatagramPacket(buf, buf.length);
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (seen[0] < n && System.nanoTime() < deadline) {
            try {
                ch.socket().receive(pkt);
            } catch (SocketTimeoutException e) {
                continue;
            }
            assertThat(decoder.decode(buf, 0, pkt.getLength(), v)).as("decode error").isNull();
        }
        return seen;
    }

    private static void awaitLine(Path log, String text, Process p, long timeoutMs) throws Exception {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (System.nanoTime() < deadline) {
            String s = Files.readString(log);
            if (s.contains(text)) {
                return;
            }
            if (!p.isAlive()) {
                fail("agent exited " + p.exitValue() + " before '" + text + "':\n" + s);
            }
            Thread.sleep(100);
        }
        fail("no '" + text + "' within " + timeoutMs + " ms:\n" + Files.readString(log));
    }

    /** key=value lines of one [Section] of a unit file (last one wins, as for these single-valued keys). */
    private static Map<String, String> section(String unit, String name) {
        Map<String, String> m = new LinkedHashMap<>();
        boolean in = false;
        for (String l : unit.split("\n")) {
            String t = l.strip();
            if (t.startsWith("[")) {
                in = t.equals("[" + name + "]");
            } else if (in && !t.isEmpty() && !t.startsWith("#")) {
                int e = t.indexOf('=');
                m.put(t.substring(0, e), t.substring(e + 1));
            }
        }
        return m;
    }

    private record Result(int rc, String out, String err) {}

    private static Result run(List<String> cmd, long timeoutSeconds) throws IOException, InterruptedException {
        Path out = Files.createTempFile("vecflow-deb", ".out");
        Path err = Files.createTempFile("vecflow-deb", ".err");
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("timed out after " + timeoutSeconds + " s: " + cmd);
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static String ok(List<String> cmd) throws IOException, InterruptedException {
        List<String> c = new ArrayList<>(cmd);
        c.set(0, TestEnv.tool(c.getFirst(), c.getFirst().startsWith("dpkg") ? "dpkg" : c.getFirst()));
        Result r = run(c, 60);
        if (r.rc != 0) {
            fail(c + " exited " + r.rc + ": " + r.err);
        }
        return r.out;
    }
}
