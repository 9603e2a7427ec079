package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.vecflow.hsflowd.config.HsflowdConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The repository's {@code compose.yaml} and the files it mounts.
 *
 * <ul>
 *   <li>It validates against the Compose specification's JSON schema (draft-07, committed as
 *       {@code src/test/resources/compose/compose-spec.json}; origin in {@code SOURCE.md} beside it), with zero
 *       errors — and broken copies of it do not.</li>
 *   <li>What the schema cannot see: every bind-mounted host path and every build context and Dockerfile exists in the
 *       repository, every named volume is declared, {@code network_mode: service:X} names a service.</li>
 *   <li>The wiring between files: the Grafana datasource has the fixed uid {@code vecflow-clickhouse} and points at
 *       the compose ClickHouse service and a user defined for it; the dashboard provider reads the folder compose
 *       mounts; the agent's hsflowd.conf (parsed by the real parser) sends to the collector service's port and
 *       listens on the netlink group and sampling rate the demo service emits with; every vecflow service's command
 *       parses with the real command line.</li>
 * </ul>
 * Needs no service: it reads files only.
 */
class ComposeFileTest {
    /** Surefire runs in {@code dist/}; compose paths are relative to the repository root. */
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Set<String> SERVICES = Set.of("kafka", "clickhouse", "grafana", "collector", "agent", "demo");

    private static Schema schema;
    private static JsonNode compose;

    @BeforeAll
    static void load() throws Exception {
        Path file = ROOT.resolve("compose.yaml");
        assertThat(file).as("compose.yaml at the repository root").isRegularFile();
        String text = Files.readString(file);
        // Jackson reads a YAML alias of a mapping as its name, so the tree validated would not be the file
        // Compose reads: keep compose.yaml free of anchors and aliases.
        assertThat(text.lines().map(String::strip).filter(l -> !l.startsWith("#"))
                .filter(l -> l.matches(".*(^|[:\\-] )[&*][A-Za-z].*")).toList())
                .as("YAML anchors/aliases in compose.yaml").isEmpty();
        compose = YAML.readTree(text);
        assertThat(ComposeFileTest.class.getResource("/compose/compose-spec.json"))
                .as("test resource compose/compose-spec.json").isNotNull();
        // Loaded by location: the schema's relative "$id" (compose_spec.json) needs a base to resolve against.
        schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7)
                .getSchema(SchemaLocation.of("classpath:compose/compose-spec.json"));
    }

    private static List<String> validate(JsonNode doc) {
        List<String> out = new ArrayList<>();
        for (Error e : schema.validate(doc)) {
            out.add(e.getInstanceLocation() + ": " + e.getMessage());
        }
        return out;
    }

    private static JsonNode service(String name) {
        JsonNode s = compose.path("services").path(name);
        assertThat(s.isObject()).as("service %s in compose.yaml", name).isTrue();
        return s;
    }

    private static JsonNode yamlFile(String relative) throws Exception {
        Path p = ROOT.resolve(relative);
        assertThat(p).as(relative).isRegularFile();
        return YAML.readTree(Files.readString(p));
    }

    /** Bind mounts of a service: container target → host path relative to the repository root (short syntax). */
    private static Map<String, String> bindMounts(String serviceName) {
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode v : service(serviceName).path("volumes")) {
            String[] parts = v.asString().split(":");
            if (parts[0].startsWith(".") || parts[0].startsWith("/")) {
                out.put(parts[1], parts[0]);
            }
        }
        return out;
    }

    private static List<String> command(String serviceName) {
        List<String> out = new ArrayList<>();
        JsonNode c = service(serviceName).path("command");
        assertThat(c.isArray()).as("%s: command is a list (exec form)", serviceName).isTrue();
        c.forEach(n -> out.add(n.asString()));
        return out;
    }

    private static String optionValue(List<String> args, String option) {
        int i = args.indexOf(option);
        assertThat(i).as("%s in %s", option, args).isNotNegative();
        return args.get(i + 1);
    }

    @Test
    void composeFileValidatesAgainstTheComposeSpecification() {
        assertThat(validate(compose)).isEmpty();
        Set<String> names = new TreeSet<>(compose.path("services").propertyNames());
        assertThat(names).isEqualTo(new TreeSet<>(SERVICES));
        assertThat(new TreeSet<>(compose.path("volumes").propertyNames()))
                .containsExactly("clickhouse-data", "grafana-data", "kafka-data");
    }

    @Test
    void brokenCopiesFailValidation() {
        // An unknown service key (a typo of healthcheck).
        ObjectNode typo = (ObjectNode) compose.deepCopy();
        ((ObjectNode) typo.path("services").path("collector")).set("healtcheck", YAML.createObjectNode());
        assertThat(validate(typo)).isNotEmpty().anySatisfy(e -> assertThat(e).contains("/services/collector"));

        // A depends_on condition outside the specification's enum.
        ObjectNode condition = (ObjectNode) compose.deepCopy();
        ((ObjectNode) condition.path("services").path("agent").path("depends_on").path("collector"))
                .put("condition", "service_ready");
        assertThat(validate(condition)).isNotEmpty()
                .anySatisfy(e -> assertThat(e).contains("/services/agent/depends_on"));

        // A healthcheck test that is a number, and a service name the specification's pattern rejects.
        ObjectNode types = (ObjectNode) compose.deepCopy();
        ((ObjectNode) types.path("services").path("kafka").path("healthcheck")).put("test", 42);
        ((ObjectNode) types.path("services")).set("bad name!", YAML.createObjectNode().put("image", "x"));
        List<String> errors = validate(types);
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("/services/kafka/healthcheck/test"));
        assertThat(errors).anySatisfy(e -> assertThat(e).contains("bad name!"));

        // An unknown top-level key.
        ObjectNode top = (ObjectNode) compose.deepCopy();
        top.put("service", "kafka");
        assertThat(validate(top)).isNotEmpty();
    }

    @Test
    void everyMountedFileAndBuildContextExists() {
        Set<String> declaredVolumes = new LinkedHashSet<>(compose.path("volumes").propertyNames());
        Set<String> usedVolumes = new LinkedHashSet<>();
        int binds = 0;
        for (String name : compose.path("services").propertyNames()) {
            JsonNode s = service(name);
            for (JsonNode v : s.path("volumes")) {
                assertThat(v.isString()).as("%s: volumes use the short syntax", name).isTrue();
                String[] parts = v.asString().split(":");
                assertThat(parts.length).as("%s: volume %s is source:target[:mode]", name, v).isBetween(2, 3);
                String source = parts[0];
                assertThat(parts[1]).as("%s: target of %s", name, v).startsWith("/");
                if (source.startsWith(".") || source.startsWith("/")) {
                    assertThat(source).as("%s: bind source %s is inside the repository", name, source)
                            .startsWith("./").doesNotContain("..").doesNotContain("$");
                    assertThat(ROOT.resolve(source)).as("%s: bind-mounted %s", name, source).exists();
                    if (parts.length == 3) {
                        assertThat(parts[2]).as("%s: %s is mounted read-only", name, source).isEqualTo("ro");
                    }
                    binds++;
                } else {
                    assertThat(declaredVolumes).as("%s: named volume %s is declared", name, source).contains(source);
                    usedVolumes.add(source);
                }
            }
            JsonNode build = s.path("build");
            if (!build.isMissingNode()) {
                Path context = ROOT.resolve(build.isString() ? build.asString() : build.path("context").asString("."));
                assertThat(context).as("%s: build context", name).isDirectory();
                String dockerfile = build.isObject() ? build.path("dockerfile").asString("Dockerfile") : "Dockerfile";
                assertThat(context.resolve(dockerfile)).as("%s: Dockerfile", name).isRegularFile();
                assertThat(context.resolve(".dockerignore")).as("%s: .dockerignore", name).isRegularFile();
            }
            assertThat(build.isMissingNode() && s.path("image").isMissingNode())
                    .as("%s: has an image or a build", name).isFalse();
            String networkMode = s.path("network_mode").asString("");
            if (networkMode.startsWith("service:")) {
                String other = networkMode.substring("service:".length());
                assertThat(SERVICES).as("%s: network_mode names a service", name).contains(other);
                assertThat(s.path("depends_on").has(other)).as("%s depends on %s", name, other).isTrue();
            }
        }
        assertThat(usedVolumes).as("every declared volume is used").isEqualTo(declaredVolumes);
        assertThat(binds).as("bind mounts checked").isEqualTo(5);
    }

    @Test
    void healthChecksAndPublishedPorts() {
        for (String name : List.of("kafka", "clickhouse", "grafana", "collector")) {
            assertThat(service(name).path("healthcheck").path("test").isArray())
                    .as("%s has a health check", name).isTrue();
        }
        assertThat(service("collector").path("depends_on").path("kafka").path("condition").asString())
                .isEqualTo("service_healthy");
        assertThat(service("collector").path("depends_on").path("clickhouse").path("condition").asString())
                .isEqualTo("service_healthy");
        List<String> ports = new ArrayList<>();
        for (String name : compose.path("services").propertyNames()) {
            service(name).path("ports").forEach(p -> ports.add(name + " " + p.asString()));
        }
        assertThat(ports).containsExactlyInAnyOrder("collector 6343:6343/udp",
                "grafana ${VECFLOW_UI_BIND:-127.0.0.1}:3000:3000",
                "clickhouse ${VECFLOW_UI_BIND:-127.0.0.1}:8123:8123");
    }

    @Test
    void grafanaDatasourceAndDashboardProvider() throws Exception {
        Map<String, String> grafana = bindMounts("grafana");
        assertThat(grafana).containsEntry("/etc/grafana/provisioning", "./dashboards/provisioning");
        String dashboardsTarget = null;
        for (Map.Entry<String, String> e : grafana.entrySet()) {
            if (e.getValue().equals("./dashboards/json")) {
                dashboardsTarget = e.getKey();
            }
        }
        assertThat(dashboardsTarget).as("grafana mounts ./dashboards/json").isNotNull();
        assertThat(ROOT.resolve("dashboards/json/vecflow")).isDirectory();

        JsonNode ds = yamlFile("dashboards/provisioning/datasources/clickhouse.yaml");
        assertThat(ds.path("apiVersion").asInt()).isEqualTo(1);
        assertThat(ds.path("datasources").size()).isEqualTo(1);
        JsonNode d = ds.path("datasources").get(0);
        assertThat(d.path("uid").asString()).isEqualTo("vecflow-clickhouse");
        assertThat(d.path("type").asString()).isEqualTo("grafana-clickhouse-datasource");
        JsonNode j = d.path("jsonData");
        assertThat(j.path("host").asString()).isEqualTo("clickhouse");
        assertThat(SERVICES).contains(j.path("host").asString());
        assertThat(j.path("port").asInt()).isEqualTo(8123);
        assertThat(j.path("protocol").asString()).isEqualTo("http");
        JsonNode collector = yamlFile("deploy/collector.yaml");
        assertThat(j.path("defaultDatabase").asString())
                .isEqualTo(collector.path("clickhouse").path("database").asString()).isEqualTo("vecflow");
        // The password comes from Grafana's environment, which compose sets.
        String password = d.path("secureJsonData").path("password").asString();
        assertThat(password).startsWith("$");
        assertThat(service("grafana").path("environment").has(password.substring(1))).isTrue();

        Map<String, String> users = clickHouseUsers();
        assertThat(users).as("ClickHouse users and their profiles")
                .containsEntry(j.path("username").asString(), "vecflow_readonly")
                .containsKey(collector.path("clickhouse").path("user").asString());

        JsonNode prov = yamlFile("dashboards/provisioning/dashboards/vecflow.yaml");
        assertThat(prov.path("apiVersion").asInt()).isEqualTo(1);
        assertThat(prov.path("providers").size()).isEqualTo(1);
        JsonNode p = prov.path("providers").get(0);
        assertThat(p.path("type").asString()).isEqualTo("file");
        assertThat(p.path("orgId").asInt()).isEqualTo(1);
        assertThat(p.path("folder").asString()).as("folder must be empty with foldersFromFilesStructure").isEmpty();
        assertThat(p.path("options").path("foldersFromFilesStructure").asBoolean()).isTrue();
        assertThat(p.path("options").path("path").asString()).isEqualTo(dashboardsTarget);
    }

    /** Users defined in deploy/clickhouse/users.d/vecflow.xml → their profile; passwords come from the environment. */
    private static Map<String, String> clickHouseUsers() throws Exception {
        assertThat(bindMounts("clickhouse"))
                .containsEntry("/etc/clickhouse-server/users.d/vecflow.xml", "./deploy/clickhouse/users.d/vecflow.xml");
        Element root = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(ROOT.resolve("deploy/clickhouse/users.d/vecflow.xml").toFile()).getDocumentElement();
        assertThat(root.getTagName()).isEqualTo("clickhouse");
        Element usersElement = (Element) root.getElementsByTagName("users").item(0);
        Map<String, String> users = new HashMap<>();
        for (Node n = usersElement.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element u) {
                Element pw = (Element) u.getElementsByTagName("password").item(0);
                String env = pw.getAttribute("from_env");
                assertThat(env).as("user %s: password from_env", u.getTagName()).isNotEmpty();
                assertThat(service("clickhouse").path("environment").has(env))
                        .as("clickhouse environment sets %s", env).isTrue();
                users.put(u.getTagName(), u.getElementsByTagName("profile").item(0).getTextContent());
            }
        }
        return users;
    }

    @Test
    void agentDemoAndCollectorAgree() throws Exception {
        JsonNode collector = yamlFile("deploy/collector.yaml");
        int listenPort = collector.path("listen").path("port").asInt();
        assertThat(listenPort).isEqualTo(6343);
        assertThat(collector.path("role").asString()).isEqualTo("all");
        assertThat(collector.path("kafka").path("bootstrap").asString()).isEqualTo("kafka:9092");
        assertThat(collector.path("clickhouse").path("url").asString()).isEqualTo("http://clickhouse:8123");
        assertThat(bindMounts("collector")).containsEntry("/etc/vecflow/collector.yaml", "./deploy/collector.yaml");
        assertThat(optionValue(command("collector"), "--config")).isEqualTo("/etc/vecflow/collector.yaml");
        // The health check reads the metrics port the config opens.
        assertThat(service("collector").path("healthcheck").path("test").toString())
                .contains(":" + collector.path("metrics").path("port").asInt() + "/metrics");

        assertThat(bindMounts("agent")).containsEntry("/etc/hsflowd.conf", "./deploy/hsflowd.conf");
        assertThat(optionValue(command("agent"), "-f")).isEqualTo("/etc/hsflowd.conf");
        HsflowdConfig h = HsflowdConfig.parse(Files.readString(ROOT.resolve("deploy/hsflowd.conf")));
        assertThat(h.warnings).isEmpty();
        assertThat(h.collectors).hasSize(1);
        assertThat(h.collectors.getFirst().ip).isEqualTo("collector");
        assertThat(h.collectors.getFirst().udpPort).isEqualTo(listenPort);

        List<String> demo = command("demo");
        assertThat(demo.getFirst()).isEqualTo("dataplane");
        assertThat(service("demo").path("network_mode").asString()).isEqualTo("service:agent");
        assertThat(h.psample).isNotNull();
        assertThat(h.psample.transport).isEqualTo(optionValue(demo, "--transport")).isEqualTo("usersock");
        assertThat(h.psample.usersockGroup).isEqualTo(Integer.parseInt(optionValue(demo, "--netlink-group")));
        assertThat(h.psample.group).isEqualTo(Integer.parseInt(optionValue(demo, "--sample-group")));
        assertThat(h.sampling).isEqualTo(Integer.parseInt(optionValue(demo, "--sampling-rate")));
        assertThat(service("agent").path("cap_add").toString()).contains("NET_ADMIN");
    }

    @Test
    void everyVecflowCommandParses() {
        for (String name : List.of("collector", "agent", "demo")) {
            List<String> args = command(name);
            CommandLine.ParseResult r;
            try {
                r = VecflowCommand.commandLine().parseArgs(args.toArray(String[]::new));
            } catch (CommandLine.ParameterException e) {
                throw new AssertionError("compose.yaml service " + name + ": the vecflow command line rejects "
                        + args + ": " + e.getMessage(), e);
            }
            assertThat(r.hasSubcommand()).as("%s: %s", name, args).isTrue();
            assertThat(r.subcommand().unmatched()).as("%s: %s", name, args).isEmpty();
        }
        // The check itself rejects an option the command line does not have.
        assertThatThrownBy(() -> VecflowCommand.commandLine().parseArgs("dataplane", "--no-such-option", "1"))
                .isInstanceOf(CommandLine.ParameterException.class);
    }

    @Test
    void dockerfileBuildsTheDistAndRunsTheLauncherFlags() throws Exception {
        String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));
        assertThat(dockerfile).contains("FROM eclipse-temurin:25-jdk AS build", "FROM eclipse-temurin:25-jre",
                "-pl dist -am package", "dist/target/vecflow.jar", "dist/target/lib");
        // The same JVM flags as the ./vecflow launcher.
        String launcher = Files.readString(ROOT.resolve("vecflow"));
        for (String flag : List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow")) {
            assertThat(launcher).contains(flag);
            assertThat(dockerfile).contains(flag);
        }
        // The build context keeps what the dist build reads: the bundled capture and every module's pom.
        List<String> ignored = Files.readAllLines(ROOT.resolve(".dockerignore")).stream()
                .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        assertThat(ignored).doesNotContain("testdata", "testdata/traffic", "*.pcap", "pom.xml", "mvnw", ".mvn")
                .contains(".git", "**/target");
    }
}
