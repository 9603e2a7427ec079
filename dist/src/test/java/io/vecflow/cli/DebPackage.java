package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One built Debian package of dist's package phase (scripts/package-deb.sh) installed into a scratch root, for the
 * {@code *PackageIT} tests: {@code dpkg --root=ROOT --force-script-chrootless -i}, so dpkg runs the package's own
 * maintainer scripts with {@code DPKG_ROOT=ROOT} (the system user goes into ROOT/etc/passwd, systemd is not running
 * there, so no daemon-reload); nothing of the host changes. Also the helpers the three tests share: control fields,
 * the file list, {@code systemd-analyze verify} and {@code security --offline=yes} on the unit, running a command.
 */
final class DebPackage implements AutoCloseable {
    /** The package name, e.g. {@code vecflow-hsflowd}. */
    final String name;
    /** The .deb. */
    final Path deb;
    /** The scratch root it is installed in (world-readable: the agent reads its files as nobody). */
    final Path root;

    private DebPackage(String name, Path deb, Path root) {
        this.name = name;
        this.deb = deb;
        this.root = root;
    }

    /** Finds {@code NAME_*_amd64.deb} in {@code vecflow.deb.dir} and installs it into a new scratch root. */
    static DebPackage install(String name) throws Exception {
        String dir = System.getProperty("vecflow.deb.dir", "target");
        Path deb;
        try (Stream<Path> s = Files.list(Path.of(dir))) {
            List<Path> debs = s.filter(p -> p.getFileName().toString().matches(Pattern.quote(name) + "_.*_amd64\\.deb"))
                    .toList();
            if (debs.size() != 1) {
                fail("expected exactly one " + name + "_*_amd64.deb in " + dir + " (dist's package phase runs "
                        + "scripts/package-deb.sh), found " + debs);
            }
            deb = debs.getFirst();
        }
        Path root = Files.createTempDirectory("vecflow-deb-root");
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path admin = Files.createDirectories(root.resolve("var/lib/dpkg"));
        Files.createDirectories(admin.resolve("info"));
        Files.createDirectories(admin.resolve("updates"));
        Files.writeString(admin.resolve("status"), "");
        Files.writeString(admin.resolve("available"), "");
        // the account files useradd --prefix edits
        Path etc = Files.createDirectories(root.resolve("etc"));
        Files.writeString(etc.resolve("passwd"), "root:x:0:0:root:/root:/bin/sh\n");
        Files.writeString(etc.resolve("group"), "root:x:0:\n");
        Files.writeString(etc.resolve("shadow"), "root:*::0:99999:7:::\n");
        Files.writeString(etc.resolve("gshadow"), "root:*::\n");
        DebPackage p = new DebPackage(name, deb, root);
        Result r = p.dpkg("-i", deb.toString());
        assertThat(r.rc()).as("dpkg -i: " + r.err()).isZero();
        return p;
    }

    /** Runs dpkg on the scratch root, maintainer scripts outside a chroot with DPKG_ROOT set. */
    Result dpkg(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(TestEnv.tool("dpkg", "dpkg"), "--root=" + root,
                "--force-script-chrootless", "--force-depends"));
        cmd.addAll(List.of(args));
        return run(cmd, Map.of(), 120);
    }

    /** @return one control field of the .deb ({@code dpkg-deb -f}). */
    String field(String field) throws IOException, InterruptedException {
        return ok(List.of("dpkg-deb", "-f", deb.toString(), field)).strip();
    }

    /** @return path → mode ({@code -rw-r--r--}) of every regular file in the .deb, checking all are root/root. */
    Map<String, String> files() throws IOException, InterruptedException {
        Map<String, String> modes = new LinkedHashMap<>();
        for (String line : ok(List.of("dpkg-deb", "-c", deb.toString())).split("\n")) {
            String[] c = line.strip().split("\\s+");
            assertThat(c[1]).as("owner of " + c[5]).isEqualTo("root/root");
            if (!c[5].endsWith("/") && !c[0].startsWith("l")) {
                modes.put(c[5].substring(1), c[0]); // "./usr/sbin/x" -> "/usr/sbin/x"
            }
        }
        return modes;
    }

    /** @return the jar file names under /usr/lib/NAME/lib/, without their versions ({@code picocli}). */
    Set<String> jars() throws IOException, InterruptedException {
        Set<String> names = new TreeSet<>();
        String prefix = "/usr/lib/" + name + "/lib/";
        for (String f : files().keySet()) {
            if (f.startsWith(prefix)) {
                assertThat(f).endsWith(".jar");
                names.add(f.substring(prefix.length()).replaceFirst("-[0-9][^/]*\\.jar$", "").replace(".jar", ""));
            }
        }
        return names;
    }

    /** @return the modules of the bundled runtime ({@code runtime/bin/java --list-modules}, versions cut). */
    List<String> runtimeModules() throws IOException, InterruptedException {
        Result r = run(List.of(root.resolve("usr/lib/" + name + "/runtime/bin/java").toString(), "--list-modules"),
                Map.of(), 60);
        assertThat(r.rc()).as(r.err()).isZero();
        return r.out().lines().map(l -> l.replaceFirst("@.*", "")).toList();
    }

    /** The unit file as installed. */
    Path unit() {
        return root.resolve("lib/systemd/system/" + name + ".service");
    }

    /** @return key → value of one [Section] of the unit (the last of a repeated key). */
    Map<String, String> unitSection(String section) throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        boolean in = false;
        for (String l : Files.readString(unit()).split("\n")) {
            String t = l.strip();
            if (t.startsWith("[")) {
                in = t.equals("[" + section + "]");
            } else if (in && !t.isEmpty() && !t.startsWith("#")) {
                int e = t.indexOf('=');
                m.put(t.substring(0, e), t.substring(e + 1));
            }
        }
        return m;
    }

    /**
     * Runs {@code systemd-analyze verify} on a copy of the unit whose ExecStart points into the scratch root (it
     * checks the executable exists), expecting no word from it; then {@code systemd-analyze security --offline=yes}.
     *
     * @return the overall exposure level systemd prints (0.0 safest .. 10.0)
     */
    double verifyAndExposure() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("vecflow-unit");
        Path copy = dir.resolve(name + ".service");
        try {
            Files.writeString(copy, Files.readString(unit()).replace("ExecStart=/usr/sbin/" + name,
                    "ExecStart=" + root.resolve("usr/sbin/" + name)));
            String analyze = TestEnv.tool("systemd-analyze", "systemd");
            Result r = run(List.of(analyze, "verify", "--man=no", copy.toString()), Map.of(), 60);
            assertThat(r.rc()).as(r.err()).isZero();
            assertThat(r.err().strip()).as("systemd-analyze verify").isEmpty();
            // --offline=yes reads the file alone (no running systemd); the exit status is the threshold test
            r = run(List.of(analyze, "security", "--offline=yes", "--no-pager", copy.toString()), Map.of(), 60);
            Matcher m = Pattern.compile("Overall exposure level for \\S+: (\\d+\\.\\d+)").matcher(r.out());
            if (!m.find()) {
                fail("systemd-analyze security printed no exposure level (rc " + r.rc() + "):\n" + r.out() + r.err());
            }
            return Double.parseDouble(m.group(1));
        } finally {
            Files.deleteIfExists(copy);
            Files.deleteIfExists(dir);
        }
    }

    /** Runs the installed launcher /usr/sbin/NAME with args (bounded), VECFLOW_JAVA_OPTS as given. */
    Result launch(String javaOpts, long timeoutSeconds, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(root.resolve("usr/sbin/" + name).toString()));
        cmd.addAll(List.of(args));
        return run(cmd, javaOpts == null ? Map.of() : Map.of("VECFLOW_JAVA_OPTS", javaOpts), timeoutSeconds);
    }

    /**
     * A process builder for the installed launcher with no Java on PATH and no JAVA_HOME, so only the bundled runtime
     * can run it; {@code -XX:AOTMode=on} makes the JVM fail at start unless the package's AOT cache matches the
     * bundled runtime and class path as installed here (relocated from where it was trained).
     */
    ProcessBuilder daemon(String... args) {
        List<String> cmd = new ArrayList<>(List.of(root.resolve("usr/sbin/" + name).toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("JAVA_HOME");
        pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        pb.environment().put("VECFLOW_JAVA_OPTS", "-XX:AOTMode=on");
        return pb;
    }

    /** Purges the package (maintainer scripts run) and deletes the scratch root. */
    @Override
    public void close() throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    record Result(int rc, String out, String err) {}

    static Result run(List<String> cmd, Map<String, String> env, long timeoutSeconds)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile("vecflow-deb", ".out");
        Path err = Files.createTempFile("vecflow-deb", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
            pb.environment().remove("JAVA_HOME");
            pb.environment().putAll(env);
            Process p = pb.start();
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

    static String ok(List<String> cmd) throws IOException, InterruptedException {
        List<String> c = new ArrayList<>(cmd);
        c.set(0, TestEnv.tool(c.getFirst(), c.getFirst().startsWith("dpkg") ? "dpkg" : c.getFirst()));
        Result r = run(c, Map.of(), 60);
        if (r.rc() != 0) {
            fail(c + " exited " + r.rc() + ": " + r.err());
        }
        return r.out();
    }

    static void awaitLine(Path log, String text, Process p, long timeoutMs) throws Exception {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (System.nanoTime() < deadline) {
            String s = Files.readString(log);
            if (s.contains(text)) {
                return;
            }
            if (!p.isAlive()) {
                fail("exited " + p.exitValue() + " before '" + text + "':\n" + s);
            }
            Thread.sleep(50);
        }
        fail("no '" + text + "' within " + timeoutMs + " ms:\n" + Files.readString(log));
    }
}
