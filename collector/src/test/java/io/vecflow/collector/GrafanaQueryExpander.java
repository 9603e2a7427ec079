package io.vecflow.collector;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a dashboard panel's {@code rawSql} into the SQL that Grafana with the grafana-clickhouse-datasource plugin
 * (v4.x) sends to ClickHouse, in the same three steps and order:
 *
 * <ol>
 *   <li>{@link #applyConditionalAll}: the plugin's frontend {@code Datasource.applyConditionalAll}
 *       ({@code src/data/CHDatasource.ts}): {@code $__conditionalAll(condition, $var)} becomes {@code 1=1} when the
 *       variable's current value is "All" ({@code $__all}) or empty, else the condition as written.</li>
 *   <li>{@link #replaceVariables}: Grafana's {@code templateSrv.replace} with the plugin's default formatter:
 *       {@code $var}, {@code ${var}}, {@code ${var:format}}, {@code [[var]]}; formats singlequote, doublequote, csv,
 *       raw; an unformatted multi-value becomes {@code 'a','b'}; "All" expands to every option value. Names that are
 *       no variable (the backend macros) are left alone.</li>
 *   <li>{@link #interpolate}: the plugin's backend macros ({@code pkg/macros/macros.go}) merged over the SDK's
 *       defaults ({@code grafana-plugin-sdk-go data/sqlutil/macros.go}), applied longest name first, each
 *       {@code $__name} (word boundary) with an optional bracketed argument list (nesting-aware, arguments trimmed),
 *       every occurrence of the matched text replaced.</li>
 * </ol>
 *
 * <p>Times are rendered in UTC (Grafana's plugin process runs in UTC). Test support only: nothing here runs in the
 * collector.
 */
final class GrafanaQueryExpander {
    private GrafanaQueryExpander() {}

    /** The value Grafana stores for a variable's "All" option. */
    static final String ALL = "$__all";

    /**
     * A dashboard variable's state.
     *
     * @param name variable name
     * @param multi whether several values may be selected (the value is then a list)
     * @param all whether "All" is selected
     * @param selected selected values (ignored when {@code all})
     * @param options every option value (what "All" expands to)
     * @param allValue the variable's custom all value, or null
     */
    record Variable(String name, boolean multi, boolean all, List<String> selected, List<String> options,
            String allValue) {
        /** A single-valued variable (constant, hidden query variable). */
        static Variable single(String name, String value) {
            return new Variable(name, false, false, List.of(value), List.of(value), null);
        }

        /** A multi-value variable with "All" selected. */
        static Variable all(String name, List<String> options) {
            return new Variable(name, true, true, List.of(), List.copyOf(options), null);
        }

        /** A multi-value variable with the given values selected. */
        static Variable of(String name, List<String> selected, List<String> options) {
            return new Variable(name, true, false, List.copyOf(selected), List.copyOf(options), null);
        }

        /** The variable's {@code current.value.toString()} as the plugin's JavaScript sees it. */
        String currentValueString() {
            if (all) {
                return ALL;
            }
            return String.join(",", selected);
        }
    }

    /**
     * The query context the backend macros read.
     *
     * @param from range start (Grafana's time picker), rendered in whole seconds for the second-based macros
     * @param to range end
     * @param interval Grafana's panel interval ({@code intervalMs})
     */
    record Context(Instant from, Instant to, Duration interval) {}

    /**
     * All three steps.
     *
     * @throws IllegalArgumentException for a macro with the wrong argument count or an unclosed bracket, an
     *         unsupported variable format, or a condition the plugin's string replace would mangle
     */
    static String expand(String rawSql, Map<String, Variable> vars, Context ctx) {
        return interpolate(replaceVariables(applyConditionalAll(rawSql, vars), vars, ctx), ctx);
    }

    // ------------------------------------------------------------------ step 1: $__conditionalAll (frontend)

    private static final String CONDITIONAL_ALL = "$__conditionalAll(";
    private static final Pattern CONDITIONAL_VAR = Pattern.compile("(?<=\\$\\{)[\\w\\d]+(?=\\})|(?<=\\$)[\\w\\d]+");
    /** Replacement-string patterns JavaScript's String.replace interprets ($$, $&, $`, $', $1..$99). */
    private static final Pattern JS_REPLACE_SPECIAL = Pattern.compile("\\$[$&`'0-9]");

    /**
     * The plugin's {@code applyConditionalAll}: from the last {@code $__conditionalAll(} backwards, split the bracketed
     * arguments at top-level commas; with other than two arguments the query is returned as it stands (the plugin
     * does the same); the variable named in the second argument ({@code $var} or {@code ${var}}) decides.
     *
     * @throws IllegalArgumentException when a condition contains a {@code $} pattern JavaScript's replace would
     *         interpret (the plugin replaces with {@code String.prototype.replace} and a string replacement)
     */
    static String applyConditionalAll(String rawQuery, Map<String, Variable> vars) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return rawQuery;
        }
        int guard = rawQuery.length() / CONDITIONAL_ALL.length() + 1;
        int macroIndex = rawQuery.lastIndexOf(CONDITIONAL_ALL);
        while (macroIndex != -1) {
            if (guard-- <= 0) {
                throw new IllegalStateException("$__conditionalAll expansion does not terminate: " + rawQuery);
            }
            List<String> params = macroArgs(rawQuery, macroIndex + CONDITIONAL_ALL.length() - 1);
            if (params.size() != 2) {
                return rawQuery;
            }
            String phrase = params.get(0);
            Matcher m = CONDITIONAL_VAR.matcher(params.get(1).trim());
            if (m.find()) {
                Variable v = vars.get(m.group());
                String value = v == null ? null : v.currentValueString();
                if ("".equals(value) || ALL.equals(value)) {
                    phrase = "1=1";
                }
            }
            if (JS_REPLACE_SPECIAL.matcher(phrase).find()) {
                throw new IllegalArgumentException("$__conditionalAll condition contains a $ pattern that the plugin's "
                        + "String.replace would rewrite: " + phrase);
            }
            String whole = CONDITIONAL_ALL + params.get(0) + "," + params.get(1) + ")";
            int at = rawQuery.indexOf(whole); // JavaScript replaces the first occurrence
            rawQuery = rawQuery.substring(0, at) + phrase + rawQuery.substring(at + whole.length());
            macroIndex = rawQuery.lastIndexOf(CONDITIONAL_ALL);
        }
        return rawQuery;
    }

    /** The plugin's {@code getMacroArgs}: arguments of the bracket at {@code argsIndex}; empty when unclosed. */
    static List<String> macroArgs(String query, int argsIndex) {
        List<String> args = new ArrayList<>();
        String s = query.substring(argsIndex);
        int depth = 0;
        int lastArgEnd = 1;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '(' && c != ')' && c != ',') {
                continue;
            }
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            }
            if (c == ',' && depth == 1) {
                args.add(s.substring(lastArgEnd, i));
                lastArgEnd = i + 1;
            }
            if (depth == 0) {
                args.add(s.substring(lastArgEnd, i));
                return args;
            }
        }
        return List.of();
    }

    // ------------------------------------------------------------------ step 2: template variables (frontend)

    /** Grafana's {@code variableRegex} (public/app/features/variables/utils.ts). */
    private static final Pattern VARIABLE = Pattern.compile(
            "\\$(\\w+)|\\[\\[(\\w+?)(?::(\\w+))?]]|\\$\\{(\\w+)(?:\\.([^:^}]+))?(?::([^}]+))?}");

    /**
     * Grafana's {@code templateSrv.replace(sql, scopedVars, datasource.format)}: dashboard variables plus the global
     * {@code __from}, {@code __to} (epoch ms), {@code __interval}, {@code __interval_ms}, {@code __range_s}.
     *
     * @throws IllegalArgumentException for a format this emulation does not implement, or a field path
     */
    static String replaceVariables(String sql, Map<String, Variable> vars, Context ctx) {
        Map<String, Variable> all = new LinkedHashMap<>(vars);
        long rangeMs = ctx.to().toEpochMilli() - ctx.from().toEpochMilli();
        all.putIfAbsent("__from", Variable.single("__from", Long.toString(ctx.from().toEpochMilli())));
        all.putIfAbsent("__to", Variable.single("__to", Long.toString(ctx.to().toEpochMilli())));
        all.putIfAbsent("__interval", Variable.single("__interval", formatInterval(ctx.interval())));
        all.putIfAbsent("__interval_ms", Variable.single("__interval_ms",
                Long.toString(ctx.interval().toMillis())));
        all.putIfAbsent("__range_s", Variable.single("__range_s", Long.toString(Math.round(rangeMs / 1000.0))));
        Matcher m = VARIABLE.matcher(sql);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(4);
            String format = m.group(3) != null ? m.group(3) : m.group(6);
            Variable v = all.get(name);
            String replacement;
            if (v == null) {
                replacement = m.group();
            } else {
                if (m.group(5) != null) {
                    throw new IllegalArgumentException("field path ." + m.group(5) + " of ${" + name + "} unsupported");
                }
                replacement = format(v, format);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String format(Variable v, String format) {
        if (v.all() && v.allValue() != null) {
            return v.allValue(); // Grafana leaves a custom all value unformatted
        }
        List<String> values = v.all() ? v.options() : v.selected();
        boolean list = v.multi() || v.all();
        if (format == null) { // the plugin's Datasource.format
            return list ? "'" + String.join("','", values) + "'" : values.getFirst();
        }
        return switch (format) {
            case "singlequote" -> quoteEach(values, '\'');
            case "doublequote" -> quoteEach(values, '"');
            case "csv", "raw" -> String.join(",", values);
            default -> throw new IllegalArgumentException("variable format :" + format + " of " + v.name()
                    + " is not emulated");
        };
    }

    private static String quoteEach(List<String> values, char q) {
        List<String> out = new ArrayList<>(values.size());
        for (String s : values) {
            out.add(q + s.replace(String.valueOf(q), "\\" + q) + q);
        }
        return String.join(",", out);
    }

    // ------------------------------------------------------------------ step 3: backend macros

    @FunctionalInterface
    private interface Macro {
        String apply(Context ctx, List<String> args);
    }

    private static final DateTimeFormatter RFC3339 = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ssXXX")
            .withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC);

    private static final Map<String, Macro> MACROS = macros();

    private static Map<String, Macro> macros() {
        Map<String, Macro> m = new LinkedHashMap<>();
        // grafana-plugin-sdk-go sqlutil DefaultMacros
        m.put("interval", (c, a) -> formatInterval(c.interval()));
        m.put("interval_ms", (c, a) -> Long.toString(c.interval().toMillis()));
        m.put("timeFrom", (c, a) -> arg1("timeFrom", a) + " >= '" + RFC3339.format(c.from()) + "'");
        m.put("timeTo", (c, a) -> arg1("timeTo", a) + " <= '" + RFC3339.format(c.to()) + "'");
        m.put("timeGroup", GrafanaQueryExpander::sdkTimeGroup);
        m.put("table", (c, a) -> "");
        m.put("column", (c, a) -> "");
        // grafana/clickhouse-datasource pkg/macros/macros.go (replaces the SDK's timeFilter)
        m.put("fromTime", (c, a) -> dateTime(c.from()));
        m.put("toTime", (c, a) -> dateTime(c.to()));
        m.put("fromTime_ms", (c, a) -> dateTime64(c.from()));
        m.put("toTime_ms", (c, a) -> dateTime64(c.to()));
        m.put("timeFilter", (c, a) -> {
            String col = arg1("timeFilter", a);
            return col + " >= " + dateTime(c.from()) + " AND " + col + " <= " + dateTime(c.to());
        });
        m.put("timeFilter_ms", (c, a) -> {
            String col = arg1("timeFilter_ms", a);
            return col + " >= " + dateTime64(c.from()) + " AND " + col + " <= " + dateTime64(c.to());
        });
        m.put("dateFilter", (c, a) -> {
            String col = arg1("dateFilter", a);
            return col + " >= " + date(c.from()) + " AND " + col + " <= " + date(c.to());
        });
        m.put("dateTimeFilter", GrafanaQueryExpander::dateTimeFilter);
        m.put("dt", GrafanaQueryExpander::dateTimeFilter);
        m.put("timeInterval", (c, a) -> "toStartOfInterval(toDateTime(" + arg1("timeInterval", a) + "), INTERVAL "
                + intervalSeconds(c) + " second)");
        m.put("timeInterval_ms", (c, a) -> "toStartOfInterval(toDateTime64(" + arg1("timeInterval_ms", a)
                + ", 3), INTERVAL " + Math.max(c.interval().toMillis(), 1) + " millisecond)");
        m.put("interval_s", (c, a) -> Long.toString(intervalSeconds(c)));
        return m;
    }

    /** @return the macro names, longest first (ties by name, for a deterministic order). */
    static List<String> macroNames() {
        List<String> names = new ArrayList<>(MACROS.keySet());
        names.sort(Comparator.comparingInt(String::length).reversed().thenComparing(Comparator.naturalOrder()));
        return names;
    }

    private static final Map<String, Pattern> MACRO_PATTERNS = new LinkedHashMap<>();

    static {
        for (String n : MACROS.keySet()) {
            MACRO_PATTERNS.put(n, Pattern.compile("\\$__" + Pattern.quote(n) + "\\b"));
        }
    }

    /**
     * The SDK's {@code sqlutil.Interpolate} with the plugin's macros.
     *
     * @throws IllegalArgumentException for an unclosed argument bracket or a wrong argument count (the plugin fails
     *         the query the same way)
     */
    static String interpolate(String rawSql, Context ctx) {
        String sql = rawSql;
        for (String name : macroNames()) {
            Matcher m = MACRO_PATTERNS.get(name).matcher(sql);
            List<String> matches = new ArrayList<>(); // the full text of each occurrence
            List<List<String>> argLists = new ArrayList<>();
            while (m.find()) {
                String rest = sql.substring(m.end());
                int[] length = new int[1];
                List<String> args = parseArgs(rest, length);
                if (length[0] < 0) {
                    throw new IllegalArgumentException("failed to parse macro arguments (missing close bracket?) of $__"
                            + name + " at offset " + m.start());
                }
                matches.add(sql.substring(m.start(), m.end() + length[0]));
                argLists.add(args);
            }
            for (int i = 0; i < matches.size(); i++) {
                String res = MACROS.get(name).apply(ctx, argLists.get(i));
                sql = sql.replace(matches.get(i), res); // Go: strings.ReplaceAll
            }
        }
        return sql;
    }

    /** The SDK's {@code parseArgs}: null and length 0 without a bracket; length -1 when unclosed. */
    static List<String> parseArgs(String s, int[] length) {
        if (!s.startsWith("(")) {
            length[0] = 0;
            return null;
        }
        List<String> args = new ArrayList<>();
        int depth = 0;
        StringBuilder arg = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char r = s.charAt(i);
            switch (r) {
                case '(' -> {
                    depth++;
                    if (depth == 1) {
                        continue;
                    }
                }
                case ')' -> {
                    depth--;
                    if (depth == 0) {
                        args.add(arg.toString().strip());
                        length[0] = i + 1;
                        return args;
                    }
                }
                case ',' -> {
                    if (depth == 1) {
                        args.add(arg.toString().strip());
                        arg.setLength(0);
                        continue;
                    }
                }
                default -> { }
            }
            arg.append(r);
        }
        length[0] = -1;
        return null;
    }

    private static String arg1(String macro, List<String> args) {
        int n = args == null ? 0 : args.size();
        if (n != 1) {
            throw new IllegalArgumentException("$__" + macro + ": unexpected number of arguments: expected 1 argument, "
                    + "received " + n);
        }
        return args.getFirst();
    }

    private static String dateTimeFilter(Context c, List<String> a) {
        int n = a == null ? 0 : a.size();
        if (n != 2) {
            throw new IllegalArgumentException("$__dateTimeFilter: unexpected number of arguments: expected 2 "
                    + "arguments, received " + n);
        }
        return "(" + a.get(0) + " >= " + date(c.from()) + " AND " + a.get(0) + " <= " + date(c.to()) + ") AND ("
                + a.get(1) + " >= " + dateTime(c.from()) + " AND " + a.get(1) + " <= " + dateTime(c.to()) + ")";
    }

    private static String sdkTimeGroup(Context c, List<String> a) {
        int n = a == null ? 0 : a.size();
        if (n != 2) {
            throw new IllegalArgumentException("$__timeGroup: unexpected number of arguments: expected 1 argument, "
                    + "received " + n);
        }
        String col = a.get(0);
        List<String> parts = List.of("minute", "hour", "day", "month", "year");
        int from = parts.indexOf(a.get(1));
        if (from < 0) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < parts.size(); i++) {
            sb.append("datepart(").append(parts.get(i)).append(", ").append(col).append(')');
            if (i < parts.size() - 1) {
                sb.append(',');
            }
        }
        return sb.toString();
    }

    private static long intervalSeconds(Context c) {
        return (long) Math.max(c.interval().toNanos() / 1e9, 1);
    }

    private static String dateTime(Instant t) {
        return "toDateTime(" + Math.floorDiv(t.toEpochMilli(), 1000) + ")";
    }

    private static String dateTime64(Instant t) {
        return "fromUnixTimestamp64Milli(" + t.toEpochMilli() + ")";
    }

    private static String date(Instant t) {
        return "toDate('" + DATE.format(t) + "')";
    }

    /** The SDK's {@code gtime.FormatInterval}: largest whole unit, y d h m s ms. */
    static String formatInterval(Duration d) {
        long ms = d.toMillis();
        long year = 365L * 86_400_000, day = 86_400_000, hour = 3_600_000, minute = 60_000, second = 1000;
        if (ms >= year) {
            return ms / year + "y";
        }
        if (ms >= day) {
            return ms / day + "d";
        }
        if (ms >= hour) {
            return ms / hour + "h";
        }
        if (ms >= minute) {
            return ms / minute + "m";
        }
        if (ms >= second) {
            return ms / second + "s";
        }
        return ms >= 1 ? ms + "ms" : "1ms";
    }

    /**
     * Grafana's panel interval for a range: {@code roundInterval(range / maxDataPoints)} (rangeutil.roundInterval).
     *
     * @param range the time range
     * @param maxDataPoints the panel's resolution (about its width in pixels)
     */
    static Duration grafanaInterval(Duration range, int maxDataPoints) {
        double ms = (double) range.toMillis() / maxDataPoints;
        long[][] ladder = {
            {10, 1}, {15, 10}, {35, 20}, {75, 50}, {150, 100}, {350, 200}, {750, 500}, {1500, 1000}, {3500, 2000},
            {7500, 5000}, {12500, 10000}, {17500, 15000}, {25000, 20000}, {45000, 30000}, {90000, 60000},
            {210000, 120000}, {450000, 300000}, {750000, 600000}, {1050000, 900000}, {1500000, 1200000},
            {2700000, 1800000}, {5400000, 3600000}, {9000000, 7200000}, {16200000, 10800000}, {32400000, 21600000},
            {86400000, 43200000}, {604800000, 86400000}, {1814400000, 604800000}, {3628800000L, 2592000000L}};
        for (long[] step : ladder) {
            if (ms < step[0]) {
                return Duration.ofMillis(step[1]);
            }
        }
        return Duration.ofMillis(31536000000L);
    }
}
