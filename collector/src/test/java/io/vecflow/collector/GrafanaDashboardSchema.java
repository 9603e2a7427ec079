package io.vecflow.collector;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Checks Grafana dashboard JSON against Grafana's published dashboard schema, the npm package {@code @grafana/schema}
 * (version pinned in {@code scripts/fetch-grafana-schema.sh}, the Grafana image's version). That package ships the
 * schema as TypeScript types only (no JSON Schema, no CUE), so the check is the TypeScript compiler's: each dashboard
 * becomes {@code export const dashboard: CheckedDashboard = <the file's JSON, verbatim>;} and {@code tsc} (pinned
 * typescript package, {@code strict}) type-checks it. Object literals get TypeScript's excess-property check, so a
 * misspelled or unknown property is an error, as is a value of the wrong type or a missing required property.
 *
 * <p>{@code CheckedDashboard} is the package's {@code Dashboard} with two refinements: (1) enums become the values
 * they stand for (JSON holds {@code "absolute"}, not {@code ThresholdsMode.Absolute}); (2) each panel is checked as
 * the panel type its {@code type} names: {@code options} against that plugin's {@code panelcfg} {@code Options} and
 * {@code fieldConfig.defaults.custom} against its {@code FieldConfig}, both closed (unknown keys and wrong types are
 * errors) but every property optional (Grafana fills a panel's missing options from the plugin's defaults). A panel
 * type with no panelcfg in the package is an error ("not assignable"): the check knows only Grafana's own panels.
 *
 * <p>Every diagnostic is mapped back to the dashboard file: line and column (the JSON is embedded verbatim two lines
 * down) and the JSON Pointer of the property there (RFC 6901, from Jackson's token locations).
 *
 * <p>Packages come from {@code scripts/fetch-grafana-schema.sh} (npm, sha512-verified, cached in
 * {@code $VECFLOW_NPM_DIR} or {@code ~/.cache/vecflow/npm}); node must be on the PATH. Any failure to get or run
 * them is an {@link IllegalStateException} naming what is missing, never a silent pass.
 */
final class GrafanaDashboardSchema {

    /** Lines before the embedded JSON in each generated {@code .ts} file. */
    private static final int PREFIX_LINES = 2;
    private static final long FETCH_TIMEOUT_S = 300;
    private static final long TSC_TIMEOUT_S = 300;
    /** Panelcfg folders whose plugin id differs from the folder name. */
    private static final Map<String, String> PLUGIN_IDS = Map.of("annotationslist", "annolist",
            "dashboardlist", "dashlist");
    /** Panelcfg folders that are not a plugin's current schema (xychart2: xychart's pre-11 draft). */
    private static final List<String> NOT_PLUGINS = List.of("xychart2");
    private static final Pattern DIAGNOSTIC = Pattern.compile("^(.+?)\\((\\d+),(\\d+)\\): error (TS\\d+): (.*)$");

    private final Path schemaPackage;
    private final Path typescriptPackage;

    /**
     * One diagnostic of the check.
     *
     * @param dashboard the dashboard file's name
     * @param line 1-based line in the dashboard file
     * @param column 1-based column (UTF-16 units, as tsc and Jackson count them)
     * @param pointer JSON Pointer of the property or value at that place ("" for the document)
     * @param code the TypeScript diagnostic code (TS2353 excess property, TS2322 wrong type, TS2741 missing ...)
     * @param message tsc's message, continuation lines joined with " / "
     */
    record Violation(String dashboard, int line, int column, String pointer, String code, String message) {
        @Override
        public String toString() {
            return dashboard + ":" + line + ":" + column + " " + (pointer.isEmpty() ? "/" : pointer) + ": " + code
                    + " " + message;
        }
    }

    private GrafanaDashboardSchema(Path schemaPackage, Path typescriptPackage) {
        this.schemaPackage = schemaPackage;
        this.typescriptPackage = typescriptPackage;
    }

    /**
     * Runs {@code scripts/fetch-grafana-schema.sh} (downloads and verifies the pinned packages unless cached).
     *
     * @param repoRoot the repository's root folder
     * @throws IllegalStateException when bash, node, npm, the registry or a package is unavailable (with the
     *     script's message)
     */
    static GrafanaDashboardSchema fetch(Path repoRoot) {
        Path root = repoRoot.toAbsolutePath().normalize();
        Path script = root.resolve("scripts").resolve("fetch-grafana-schema.sh");
        if (!Files.isRegularFile(script)) {
            throw new IllegalStateException("missing " + script);
        }
        Result r = run(List.of("bash", script.toString()), root, FETCH_TIMEOUT_S);
        if (r.exit != 0) {
            throw new IllegalStateException("scripts/fetch-grafana-schema.sh failed (exit " + r.exit
                    + "); the dashboard schema check needs node, npm and the npm registry (or a filled cache,"
                    + " VECFLOW_NPM_DIR):\n" + r.output);
        }
        Map<String, Path> dirs = new LinkedHashMap<>();
        for (String line : r.stdout.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                dirs.put(line.substring(0, eq), Path.of(line.substring(eq + 1)));
            }
        }
        Path schema = dirs.get("@grafana/schema");
        Path ts = dirs.get("typescript");
        if (schema == null || ts == null || !Files.isRegularFile(schema.resolve("dist/types/index.d.ts"))
                || !Files.isRegularFile(ts.resolve("bin/tsc"))) {
            throw new IllegalStateException("scripts/fetch-grafana-schema.sh gave no usable @grafana/schema and"
                    + " typescript folders:\n" + r.output);
        }
        return new GrafanaDashboardSchema(schema, ts);
    }

    /** The {@code @grafana/schema} version in use (its package.json). */
    String schemaVersion() {
        try {
            Matcher m = Pattern.compile("\"version\"\\s*:\\s*\"([^\"]+)\"")
                    .matcher(Files.readString(schemaPackage.resolve("package.json")));
            return m.find() ? m.group(1) : "?";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Checks dashboards in one tsc run.
     *
     * @param dashboards dashboard JSON files (distinct file names)
     * @param workDir an empty or scratch folder for the generated TypeScript project
     * @return for every dashboard file name (in the given order), its violations in file order (empty: valid)
     * @throws IllegalStateException when tsc cannot run, or fails without diagnostics for the dashboards
     */
    Map<String, List<Violation>> check(List<Path> dashboards, Path workDir) throws IOException {
        Files.createDirectories(workDir);
        Files.writeString(workDir.resolve("schema.ts"), schemaSource());
        Map<String, String> tsToDashboard = new LinkedHashMap<>();
        Map<String, String> texts = new LinkedHashMap<>();
        Map<String, List<Violation>> result = new LinkedHashMap<>();
        List<String> files = new ArrayList<>(List.of("schema.ts"));
        for (Path d : dashboards) {
            String name = d.getFileName().toString();
            String text = Files.readString(d);
            String ts = "d" + tsToDashboard.size() + "_" + name.replaceAll("[^A-Za-z0-9_]", "_") + ".ts";
            Files.writeString(workDir.resolve(ts), "import type { CheckedDashboard } from './schema';\n"
                    + "export const dashboard: CheckedDashboard =\n" + text + "\n;\n");
            tsToDashboard.put(ts, name);
            texts.put(name, text);
            result.put(name, new ArrayList<>());
            files.add(ts);
        }
        Files.writeString(workDir.resolve("tsconfig.json"), tsconfig(files));
        Result r = run(List.of("node", typescriptPackage.resolve("bin/tsc").toString(), "-p",
                workDir.resolve("tsconfig.json").toString(), "--pretty", "false"), workDir, TSC_TIMEOUT_S);
        if (r.exit == 0) {
            return result;
        }
        Map<String, TreeMap<Long, String>> pointers = new LinkedHashMap<>();
        Violation last = null;
        int found = 0;
        for (String line : r.stdout.split("\n")) {
            Matcher m = DIAGNOSTIC.matcher(line);
            if (m.matches()) {
                String dashboard = tsToDashboard.get(Path.of(m.group(1)).getFileName().toString());
                if (dashboard == null) {
                    throw new IllegalStateException("tsc reports an error outside the dashboards (the generated"
                            + " schema.ts or the package; a typescript/@grafana/schema mismatch?):\n" + r.output);
                }
                int l = Integer.parseInt(m.group(2)) - PREFIX_LINES;
                int c = Integer.parseInt(m.group(3));
                String pointer = pointers.computeIfAbsent(dashboard, k -> tokenPointers(k, texts.get(k)))
                        .floorEntry(key(l, c)) == null ? ""
                        : pointers.get(dashboard).floorEntry(key(l, c)).getValue();
                last = new Violation(dashboard, l, c, pointer, m.group(4), m.group(5));
                result.get(dashboard).add(last);
                found++;
            } else if (last != null && line.startsWith(" ") && !line.isBlank()) {
                List<Violation> list = result.get(last.dashboard());
                last = new Violation(last.dashboard(), last.line(), last.column(), last.pointer(), last.code(),
                        last.message() + " / " + line.strip());
                list.set(list.size() - 1, last);
            }
        }
        if (found == 0) {
            throw new IllegalStateException("tsc failed (exit " + r.exit + ") without a diagnostic for a dashboard:\n"
                    + r.output);
        }
        return result;
    }

    /** Start of every JSON token (line, column) mapped to the JSON Pointer of its property or value. */
    private static TreeMap<Long, String> tokenPointers(String name, String text) {
        TreeMap<Long, String> out = new TreeMap<>();
        try (JsonParser p = new JsonFactory().createParser(text)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                JsonLocation at = p.currentTokenLocation();
                String pointer;
                if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                    // the context is the new container; its parent names where the container sits
                    pointer = p.getParsingContext().getParent() == null ? ""
                            : p.getParsingContext().getParent().pathAsPointer().toString();
                } else {
                    pointer = p.getParsingContext().pathAsPointer().toString();
                }
                out.putIfAbsent(key(at.getLineNr(), at.getColumnNr()), pointer);
            }
        } catch (IOException e) {
            throw new IllegalStateException(name + " is not valid JSON: " + e.getMessage(), e);
        }
        return out;
    }

    private static long key(int line, int column) {
        return ((long) line << 32) | column;
    }

    private String tsconfig(List<String> files) {
        String types = schemaPackage.resolve("dist/types").toAbsolutePath().toString().replace("\\", "/");
        StringBuilder list = new StringBuilder();
        for (String f : files) {
            list.append(list.isEmpty() ? "" : ", ").append('"').append(f).append('"');
        }
        return """
                {
                  "compilerOptions": {
                    "strict": true, "exactOptionalPropertyTypes": true, "noEmit": true, "skipLibCheck": true,
                    "target": "es2022", "module": "esnext", "moduleResolution": "bundler", "types": [],
                    "paths": {
                      "@grafana/schema": ["%1$s/index.d.ts"],
                      "@grafana/panelcfg/*": ["%1$s/raw/composable/*/panelcfg/x/types.gen.d.ts"]
                    }
                  },
                  "files": [%2$s]
                }
                """.formatted(jsonEscape(types), list);
    }

    private static String jsonEscape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    /** The TypeScript module defining {@code CheckedDashboard} from the package's types (see the class doc). */
    private String schemaSource() throws IOException {
        Path composable = schemaPackage.resolve("dist/types/raw/composable");
        StringBuilder imports = new StringBuilder("import type * as g from '@grafana/schema';\n");
        List<String> members = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(composable)) {
            for (Path dir : dirs.sorted().toList()) {
                String folder = dir.getFileName().toString();
                Path types = dir.resolve("panelcfg/x/types.gen.d.ts");
                if (NOT_PLUGINS.contains(folder) || !Files.isRegularFile(types)) {
                    continue;
                }
                String src = Files.readString(types, StandardCharsets.UTF_8);
                if (!src.contains("export interface Options ")) {
                    continue;
                }
                String alias = "p_" + folder.replaceAll("[^A-Za-z0-9_]", "_");
                imports.append("import type * as ").append(alias).append(" from '@grafana/panelcfg/")
                        .append(folder).append("';\n");
                String fieldConfig = src.contains("export interface FieldConfig ") ? alias + ".FieldConfig"
                        : "Record<string, unknown>";
                members.add("PanelOf<'" + PLUGIN_IDS.getOrDefault(folder, folder) + "', " + alias + ".Options, "
                        + fieldConfig + ">");
            }
        }
        if (members.isEmpty()) {
            throw new IllegalStateException("no panelcfg Options under " + composable + " (package layout changed?)");
        }
        return imports + """
                /** JSON form of a type: enums become their values. */
                export type Json<T> =
                  unknown extends T ? T :
                  T extends string ? `${T}` :
                  T extends number | boolean | null | undefined ? T :
                  T extends readonly (infer U)[] ? Json<U>[] :
                  T extends object ? { [K in keyof T]: Json<T[K]> } : T;
                /** Closed but all-optional: Grafana fills a panel's missing options from the plugin's defaults. */
                export type Open<T> =
                  unknown extends T ? T :
                  T extends string ? `${T}` :
                  T extends number | boolean | null | undefined ? T :
                  T extends readonly (infer U)[] ? Open<U>[] :
                  T extends object ? { [K in keyof T]?: Open<T[K]> } : T;
                type FieldConfigSourceOf<F> = Omit<g.FieldConfigSource, 'defaults'> & {
                  defaults: Omit<g.FieldConfig, 'custom'> & { custom?: Open<F> };
                };
                type PanelOf<T extends string, O, F> = Omit<g.Panel, 'type' | 'options' | 'fieldConfig'> & {
                  type: T; options?: Open<O>; fieldConfig?: FieldConfigSourceOf<F>;
                };
                export type AnyPanel =
                  | %s;
                type Row = Omit<g.RowPanel, 'panels'> & { panels: AnyPanel[] };
                export type CheckedDashboard = Json<Omit<g.Dashboard, 'panels'> & { panels?: Array<AnyPanel | Row> }>;
                """.formatted(String.join("\n  | ", members));
    }

    private record Result(int exit, String stdout, String output) {
    }

    /** Runs a command with a deadline; stdout kept apart, output = stdout + stderr for messages. */
    private static Result run(List<String> command, Path dir, long timeoutSeconds) {
        try {
            Path out = Files.createTempFile("vecflow-grafschema", ".out");
            Path err = Files.createTempFile("vecflow-grafschema", ".err");
            try {
                Process p = new ProcessBuilder(command).directory(dir.toFile())
                        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
                if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IllegalStateException(command.getFirst() + " did not finish within " + timeoutSeconds
                            + " s: " + String.join(" ", command));
                }
                String o = Files.readString(out);
                return new Result(p.exitValue(), o, o + Files.readString(err));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + String.join(" ", command) + ": " + e.getMessage()
                    + " (is " + command.getFirst() + " installed?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command.getFirst(), e);
        }
    }
}
