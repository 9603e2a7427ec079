package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.vecflow.collector.GrafanaDashboardSchema.Violation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every dashboard under {@code dashboards/json} against Grafana's published dashboard schema ({@code @grafana/schema},
 * type-checked by tsc: {@link GrafanaDashboardSchema}), since no Grafana server runs in the tests; the panels' SQL is
 * {@link DashboardQueriesTest}'s. Needs node and npm (scripts/test.sh installs Debian's nodejs) and the npm registry
 * or a filled cache ({@code VECFLOW_NPM_DIR}, default {@code ~/.cache/vecflow/npm}); without them the test fails with
 * the reason, it never skips.
 */
class DashboardSchemaTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static GrafanaDashboardSchema schema;

    @BeforeAll
    static void fetchSchema() {
        schema = GrafanaDashboardSchema.fetch(Path.of(".."));
    }

    @Test
    void everyDashboardMatchesGrafanasPublishedSchema(@TempDir Path work) throws IOException {
        List<Path> files = DashboardQueriesTest.dashboardFiles();
        assertThat(files).as("dashboards").hasSizeGreaterThanOrEqualTo(4);
        Map<String, List<Violation>> result = schema.check(files, work);
        assertThat(result.keySet()).as("every dashboard checked")
                .containsExactlyElementsOf(files.stream().map(p -> p.getFileName().toString()).toList());
        String report = result.entrySet().stream().filter(e -> !e.getValue().isEmpty())
                .map(e -> e.getKey() + " (" + e.getValue().size() + " violations):\n  "
                        + e.getValue().stream().map(Violation::toString).collect(Collectors.joining("\n  ")))
                .collect(Collectors.joining("\n"));
        assertThat(report).as("violations of @grafana/schema " + schema.schemaVersion()).isEmpty();
    }

    /**
     * Copies of a real dashboard, each with one defect, must each be rejected at the defect's JSON Pointer, the
     * message naming the property; the untouched copy passes (so the defect, not the copying, is what is rejected).
     */
    @Test
    void misspelledOrIllTypedPropertiesAreRejectedWithTheirPath(@TempDir Path work) throws IOException {
        Path source = DashboardQueriesTest.dashboardFiles().stream()
                .filter(p -> p.getFileName().toString().equals("flows.json")).findFirst().orElseThrow();
        ObjectNode original = (ObjectNode) JSON.readTree(source.toFile());
        ArrayNode panels = (ArrayNode) original.get("panels");
        int table = indexOfType(panels, "table");
        int timeseries = indexOfType(panels, "timeseries");

        Map<String, ObjectNode> cases = new LinkedHashMap<>();
        cases.put("untouched", original.deepCopy());
        ObjectNode d = original.deepCopy();
        ObjectNode p0 = (ObjectNode) d.get("panels").get(0);
        p0.set("gridpos", p0.remove("gridPos"));
        cases.put("misspelled-panel-property", d);
        d = original.deepCopy();
        d.set("graphTooltip", new TextNode("shared"));
        cases.put("ill-typed-dashboard-property", d);
        d = original.deepCopy();
        ((ObjectNode) d.get("panels").get(table).get("options")).put("showHeaders", true);
        cases.put("misspelled-table-option", d);
        d = original.deepCopy();
        ((ObjectNode) d.get("panels").get(timeseries).get("fieldConfig").get("defaults")).putObject("custom")
                .put("lineWidth", "2");
        cases.put("ill-typed-timeseries-field-config", d);
        d = original.deepCopy();
        ((ObjectNode) d.get("templating").get("list").get(0)).set("hide", new IntNode(7));
        cases.put("variable-hide-out-of-range", d);
        d = original.deepCopy();
        ((ObjectNode) d.get("panels").get(timeseries)).put("type", "timeseriess");
        cases.put("unknown-panel-type", d);

        List<Path> files = new ArrayList<>();
        Path in = Files.createDirectories(work.resolve("in"));
        for (Map.Entry<String, ObjectNode> c : cases.entrySet()) {
            Path f = in.resolve(c.getKey() + ".json");
            JSON.writerWithDefaultPrettyPrinter().writeValue(f.toFile(), c.getValue());
            files.add(f);
        }
        Map<String, List<Violation>> r = schema.check(files, work.resolve("ts"));
        r.values().forEach(list -> list.forEach(v -> System.out.println("rejected as expected: " + v)));

        assertThat(r.get("untouched.json")).as("the unmodified copy").isEmpty();
        assertOne(r, "misspelled-panel-property", "/panels/0/gridpos", "TS2353", "'\"gridpos\"' does not exist");
        assertOne(r, "ill-typed-dashboard-property", "/graphTooltip", "TS2322",
                "Type 'string' is not assignable to type 'DashboardCursorSync'");
        assertOne(r, "misspelled-table-option", "/panels/" + table + "/options/showHeaders", "TS2353",
                "'\"showHeaders\"' does not exist");
        assertOne(r, "ill-typed-timeseries-field-config",
                "/panels/" + timeseries + "/fieldConfig/defaults/custom/lineWidth", "TS2322",
                "Type 'string' is not assignable to type 'number'");
        assertOne(r, "variable-hide-out-of-range", "/templating/list/0/hide", "TS2322",
                "Type '7' is not assignable to type 'VariableHide");
        assertThat(r.get("unknown-panel-type.json")).as("unknown-panel-type").isNotEmpty()
                .allSatisfy(v -> assertThat(v.pointer()).startsWith("/panels/" + timeseries))
                .anySatisfy(v -> assertThat(v.message()).contains("\"timeseriess\""));
    }

    private static void assertOne(Map<String, List<Violation>> r, String name, String pointer, String code,
            String message) {
        List<Violation> v = r.get(name + ".json");
        assertThat(v).as(name).hasSize(1);
        assertThat(v.getFirst().pointer()).as(name + " " + v.getFirst()).isEqualTo(pointer);
        assertThat(v.getFirst().code()).as(name + " " + v.getFirst()).isEqualTo(code);
        assertThat(v.getFirst().message()).as(name).contains(message);
        assertThat(v.getFirst().toString()).as(name).startsWith(name + ".json:" + v.getFirst().line() + ":")
                .contains(" " + pointer + ": ");
    }

    private static int indexOfType(ArrayNode panels, String type) {
        for (int i = 0; i < panels.size(); i++) {
            JsonNode p = panels.get(i);
            if (type.equals(p.path("type").asText()) && p.has("options") && p.has("fieldConfig")) {
                return i;
            }
        }
        throw new AssertionError("flows.json has no " + type + " panel with options and fieldConfig");
    }
}
