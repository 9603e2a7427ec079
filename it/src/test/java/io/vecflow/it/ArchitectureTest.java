package io.vecflow.it;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rules ARCHITECTURE.md states, checked on the compiled classes of every module (this module is last in the
 * reactor, so they are built): dependencies between modules run one way, in main and test code alike; no package
 * cycles; the dataplane's engine, network nodes, ports and plugins stay in their layers; no two main classes share
 * a simple name; every main package says what it owns in a {@code package-info.java}; and a main file over 800
 * lines is on the list below with the one concern it holds.
 *
 * <p>Run after a build of the whole reactor ({@code ./mvnw verify} does that); a module whose classes are missing
 * fails the test with the command that builds it.
 */
class ArchitectureTest {
    /** The repository root (this module's parent directory). */
    static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    /** The Maven modules, their root packages and the modules they may use (ARCHITECTURE.md's table, closed). */
    enum Module {
        COMMON("common", "io.vecflow.common"),
        PACKET("packet", "io.vecflow.packet", COMMON),
        SFLOW("sflow-v5", "io.vecflow.sflow", COMMON, PACKET),
        NETLINK("psample-bridge", "io.vecflow.netlink", COMMON),
        DATAPLANE("agent-dataplane", "io.vecflow.dataplane", COMMON, PACKET, NETLINK),
        HSFLOWD("hsflowd-compat", "io.vecflow.hsflowd", COMMON, PACKET, SFLOW, NETLINK),
        COLLECTOR("collector", "io.vecflow.collector", COMMON, PACKET, SFLOW),
        LAB("lab", "io.vecflow.lab", COMMON, PACKET, NETLINK, DATAPLANE, COLLECTOR, SFLOW),
        KERNEL_LAB("lab/kernel", "io.vecflow.lab.kernel", COMMON, PACKET, SFLOW, NETLINK, HSFLOWD, COLLECTOR),
        DIST("dist", "io.vecflow.cli", COMMON, PACKET, SFLOW, NETLINK, DATAPLANE, HSFLOWD, COLLECTOR, LAB),
        FUZZ("fuzz", "io.vecflow.fuzz", COMMON, PACKET, SFLOW, NETLINK, DATAPLANE, HSFLOWD, COLLECTOR),
        BENCH("bench", "io.vecflow.bench", COMMON, PACKET, SFLOW, NETLINK, DATAPLANE, HSFLOWD, COLLECTOR, LAB, DIST),
        IT("it", "io.vecflow.it", COMMON, PACKET, SFLOW, NETLINK, DATAPLANE, HSFLOWD, COLLECTOR);

        final String dir;
        final String rootPackage;
        /** A list, not an EnumSet: the set cannot be built while the enum's own constants are initialised. */
        final List<Module> uses;

        Module(String dir, String rootPackage, Module... uses) {
            this.dir = dir;
            this.rootPackage = rootPackage;
            this.uses = List.of(uses);
        }

        /** The module whose root package holds {@code className} (the longest root that matches), or null. */
        static Module ofPackage(String className) {
            Module best = null;
            for (Module m : values()) {
                if (className.startsWith(m.rootPackage + ".")
                        && (best == null || m.rootPackage.length() > best.rootPackage.length())) {
                    best = m;
                }
            }
            return best;
        }
    }

    private static final Map<Module, JavaClasses> MAIN = new TreeMap<>();
    private static final Map<Module, JavaClasses> TEST = new TreeMap<>();

    @BeforeAll
    static void importClasses() {
        ClassFileImporter importer = new ClassFileImporter();
        for (Module m : Module.values()) {
            Path main = ROOT.resolve(m.dir).resolve("target/classes");
            Path test = ROOT.resolve(m.dir).resolve("target/test-classes");
            if (m != Module.IT && m != Module.FUZZ) {
                assertThat(main).as("%s's classes: build the reactor first (./mvnw -o install -DskipTests)", m.dir)
                        .isDirectory();
                // it/ does not depend on lab, dist or bench, so `-pl it -am` leaves their classes as they were
                assertThat(newest(ROOT.resolve(m.dir).resolve("src/main"), ".java"))
                        .as("%s's classes are older than its sources: build it too (./mvnw -pl lab,lab/kernel,dist,"
                                + "bench,it -am test -Dtest=ArchitectureTest)", m.dir)
                        .isLessThanOrEqualTo(newest(main, ".class"));
                MAIN.put(m, importer.importPath(main));
            }
            if (Files.isDirectory(test)) {
                TEST.put(m, importer.importPath(test));
            }
        }
    }

    /** @return the newest modification time (ms) of the files below {@code dir} ending in {@code suffix}, or 0 */
    private static long newest(Path dir, String suffix) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.toString().endsWith(suffix)).mapToLong(p -> p.toFile().lastModified()).max()
                    .orElse(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A module uses only the modules below it (its own classes, and those ARCHITECTURE.md lets it depend on): in
     * main code and in test code, which may also use the test helpers of those modules (their test-jars).
     */
    @Test
    void dependenciesBetweenModulesRunOneWay() {
        List<String> violations = new ArrayList<>();
        for (var e : MAIN.entrySet()) {
            check(e.getKey(), "main", e.getValue(), violations);
        }
        for (var e : TEST.entrySet()) {
            check(e.getKey(), "test", e.getValue(), violations);
        }
        assertThat(violations).as("dependencies against the module order").isEmpty();
    }

    private static void check(Module m, String scope, JavaClasses classes, List<String> out) {
        for (JavaClass c : classes) {
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String target = d.getTargetClass().getBaseComponentType().getName();
                Module t = Module.ofPackage(target);
                if (t == null || t == m || m.uses.contains(t)) {
                    continue;
                }
                // a test class in another module's package (it/, dist/) is the code under test's neighbour
                Module own = Module.ofPackage(c.getName());
                if (scope.equals("test") && t == own && m.uses.contains(own)) {
                    continue;
                }
                out.add(m.dir + " (" + scope + ") " + c.getName() + " uses " + target + " of " + t.dir + ": "
                        + d.getDescription());
            }
        }
    }

    /**
     * The packages of a module in layers, lowest first: a class may use its own package and packages of lower layers
     * only (so two packages of one layer do not know each other), and every package of the module is listed.
     */
    private static List<String> layering(Module m, List<List<String>> layers) {
        Map<String, Integer> layerOf = new TreeMap<>();
        for (int i = 0; i < layers.size(); i++) {
            for (String p : layers.get(i)) {
                layerOf.put(p.isEmpty() ? m.rootPackage : m.rootPackage + "." + p, i);
            }
        }
        List<String> out = new ArrayList<>();
        Set<String> unlisted = new TreeSet<>();
        for (JavaClass c : MAIN.get(m)) {
            if (c.getSimpleName().equals("package-info")) {
                continue;
            }
            Integer from = layerOf.get(c.getPackageName());
            if (from == null) {
                unlisted.add(c.getPackageName());
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String pkg = d.getTargetClass().getBaseComponentType().getPackageName();
                Integer to = layerOf.get(pkg);
                if (to != null && !pkg.equals(c.getPackageName()) && to >= from) {
                    out.add(c.getName() + " (layer " + from + ") uses " + d.getTargetClass().getName() + " (layer "
                            + to + "): " + d.getDescription());
                }
            }
        }
        // The compiled classes miss a use that is only a compile-time constant (javac copies its value), so the
        // import lines of the sources are held to the same layers.
        Path src = ROOT.resolve(m.dir).resolve("src/main/java");
        try (Stream<Path> files = Files.walk(src)) {
            for (Path f : files.filter(x -> x.toString().endsWith(".java")).toList()) {
                String pkg = src.relativize(f.getParent()).toString().replace('/', '.');
                Integer from = layerOf.get(pkg);
                for (String line : Files.readAllLines(f)) {
                    java.util.regex.Matcher im = IMPORT.matcher(line);
                    if (from == null || !im.matches()) {
                        continue;
                    }
                    String target = im.group(1);
                    Integer to = layerOf.get(target);
                    if (to != null && !target.equals(pkg) && to >= from) {
                        out.add(ROOT.relativize(f) + " (layer " + from + ") imports " + line.trim().substring(7)
                                + " (layer " + to + ")");
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        unlisted.forEach(p -> out.add(p + " is in no layer of " + m.dir));
        return out;
    }

    /** An import line; group 1 is the package (the segments before the first capitalised one). */
    private static final java.util.regex.Pattern IMPORT = java.util.regex.Pattern.compile(
            "^import (?:static )?((?:[a-z][a-z0-9_]*\\.)*[a-z][a-z0-9_]*)\\.[A-Z].*;$");

    /**
     * The dataplane after VPP's vlib < vnet < plugins: the engine (buffer memory, then the graph) knows no protocol
     * and no plugin; the network nodes and interfaces above it; ports; the sFlow feature; the plugin contract; the
     * plugins' pure parts (Maglev maths, SRLB load sources and state machines, packet rewrites, CLOVE paths) below
     * their nodes and control; the control socket, the YAML model, and the lifecycle on top.
     */
    @Test
    void dataplaneLayers() {
        assertThat(layering(Module.DATAPLANE, List.of(
                List.of("graph.mem"),
                List.of("graph"),
                List.of("vnet.error", "vnet.fib"),
                List.of("vnet.interfaces"),
                List.of("vnet.ip"),
                List.of("vnet.ethernet", "port"),
                List.of("sflow"),
                List.of("plugins"),
                List.of("plugins.lb.maglev", "plugins.srlb.load"),
                List.of("plugins.srlb.state"),
                List.of("plugins.lb.encap"),
                List.of("plugins.lb", "plugins.clove.path"),
                List.of("plugins.srlb", "plugins.clove"),
                List.of("control"),
                List.of("config"),
                List.of("")))).isEmpty();
    }

    /** The engine never lists plugins: {@code Dataplane} reaches every plugin through the contract. */
    @Test
    void theDataplaneNamesNoPlugin() {
        List<String> named = new ArrayList<>();
        for (JavaClass c : MAIN.get(Module.DATAPLANE)) {
            if (!c.getName().equals("io.vecflow.dataplane.Dataplane")
                    && !c.getName().startsWith("io.vecflow.dataplane.Dataplane$")) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String pkg = d.getTargetClass().getBaseComponentType().getPackageName();
                if (pkg.startsWith("io.vecflow.dataplane.plugins.")) {
                    named.add(d.getDescription());
                }
            }
        }
        Path src = ROOT.resolve("agent-dataplane/src/main/java/io/vecflow/dataplane/Dataplane.java");
        try {
            Files.readAllLines(src).stream().filter(l -> l.startsWith("import io.vecflow.dataplane.plugins.")
                    && !l.startsWith("import io.vecflow.dataplane.plugins.DataplanePlugin;")).forEach(named::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(named).isEmpty();
    }

    /**
     * The collector after Akvorado's inlet/outlet split with one schema: the schema (and the console's HTTP server,
     * which knows no collector class) at the bottom, the console's query layer over them, the sink contracts,
     * decoding, the sinks, then the two roles (which do not know each other), the lifecycle, and the metrics that
     * read a running collector.
     */
    @Test
    void collectorLayers() {
        assertThat(layering(Module.COLLECTOR, List.of(
                List.of("schema", "console"),
                List.of("query"),
                List.of("sink"),
                List.of("enrich.geoip", "enrich.snmp"),
                List.of("enrich"),
                List.of("decode"),
                List.of("sink.duckdb"),
                List.of("sink.clickhouse", "sink.kafka", "sink.json", "sink.forward"),
                List.of("inlet", "outlet"),
                List.of(""),
                List.of("metrics")))).isEmpty();
    }

    /**
     * The agent: hsflowd.conf at the bottom, then sockets and the counter sources, the shared datagram, the vpp and
     * psample modules, the agent itself, and dropmon (whose daemon feeds an agent).
     */
    @Test
    void hsflowdLayers() {
        assertThat(layering(Module.HSFLOWD, List.of(
                List.of("config"),
                List.of("net", "counters"),
                List.of("datagram"),
                List.of("vpp"),
                List.of("psample"),
                List.of(""),
                List.of("dropmon")))).isEmpty();
    }

    /** No package of the main code takes part in a cycle with another (every package its own slice). */
    @Test
    void mainPackagesHaveNoCycles() {
        List<String> failures = new ArrayList<>();
        for (var e : MAIN.entrySet()) {
            try {
                slices().matching("io.vecflow.(**)").namingSlices("$1").should().beFreeOfCycles()
                        .as(e.getKey().dir + "'s packages are free of cycles").check(e.getValue());
            } catch (AssertionError x) {
                failures.add(x.getMessage());
            }
        }
        assertThat(failures).as("package cycles").isEmpty();
    }

    /** No two top-level main classes of the whole project share a simple name. */
    @Test
    void noTwoMainClassesShareASimpleName() {
        Map<String, Set<String>> byName = new TreeMap<>();
        for (JavaClasses classes : MAIN.values()) {
            for (JavaClass c : classes) {
                if (c.isTopLevelClass() && !c.getSimpleName().equals("package-info")) {
                    byName.computeIfAbsent(c.getSimpleName(), x -> new TreeSet<>()).add(c.getName());
                }
            }
        }
        byName.values().removeIf(s -> s.size() < 2);
        assertThat(byName).as("simple names held by more than one main class").isEmpty();
    }

    /** Every package of main code has a {@code package-info.java} with a doc comment saying what it owns. */
    @Test
    void everyMainPackageSaysWhatItOwns() throws IOException {
        List<String> missing = new ArrayList<>();
        for (Module m : Module.values()) {
            Path src = ROOT.resolve(m.dir).resolve("src/main/java");
            if (!Files.isDirectory(src)) {
                continue;
            }
            try (Stream<Path> dirs = Files.walk(src)) {
                for (Path d : dirs.filter(Files::isDirectory).toList()) {
                    if (!hasJava(d)) {
                        continue;
                    }
                    Path info = d.resolve("package-info.java");
                    if (!Files.isRegularFile(info) || !Files.readString(info).contains("/**")) {
                        missing.add(ROOT.relativize(d).toString());
                    }
                }
            }
        }
        assertThat(missing).as("main packages without a documented package-info.java").isEmpty();
    }

    private static boolean hasJava(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.anyMatch(p -> p.toString().endsWith(".java") && !p.endsWith("package-info.java"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Main files over 800 lines, each with the one concern it holds (a table, a codec, a parser). A file that grows
     * past 800 lines with a second concern is split; one that is only long is added here with its reason.
     */
    static final Map<String, String> LONG_FILES = Map.of(
            "packet/src/main/java/io/vecflow/packet/PacketParser.java",
            "one parser: the header walk of every protocol, one method per layer",
            "packet/src/main/java/io/vecflow/packet/ParsedPacket.java",
            "one result holder: the parsed fields and their accessors",
            "sflow-v5/src/main/java/io/vecflow/sflow/CounterRecords.java",
            "one table: the sFlow counter record structures, each a small nested class",
            "collector/src/main/java/io/vecflow/collector/sink/clickhouse/ClickHouseSink.java",
            "one sink: the batching, retrying, exactly-once writer of the schema's tables into ClickHouse or the "
                    + "embedded DuckDB, and its counters (per-table batches are TableBatch, agents rows LossRecorder, "
                    + "DDL SchemaMigrator, the DuckDB file DuckDbStore)",
            "agent-dataplane/src/main/java/io/vecflow/dataplane/port/AfPacketPort.java",
            "one port: its TPACKET_V3 receive ring and TX ring per queue and their statistics (socket setup, "
                    + "options and receive-frame fixes are AfPacketSockets, AfPacketOptions and RxFrames)");

    @Test
    void longMainFilesHoldOneConcern() throws IOException {
        Map<String, Long> over = new TreeMap<>();
        for (Module m : Module.values()) {
            Path src = ROOT.resolve(m.dir).resolve("src/main/java");
            if (!Files.isDirectory(src)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(src)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    long lines;
                    try (Stream<String> l = Files.lines(f)) {
                        lines = l.count();
                    }
                    String rel = ROOT.relativize(f).toString();
                    if (lines > 800 && !LONG_FILES.containsKey(rel)) {
                        over.put(rel, lines);
                    }
                }
            }
        }
        assertThat(over).as("main files over 800 lines that are not on the one-concern list").isEmpty();
    }
}
