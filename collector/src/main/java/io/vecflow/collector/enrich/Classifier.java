package io.vecflow.collector.enrich;

import io.vecflow.collector.schema.ExporterInfo;
import io.vecflow.collector.schema.InterfaceInfo;
import io.vecflow.collector.schema.Label;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The exporter and interface classifiers (Akvorado's, docs/enrichment.md §3, with regular-expression rules instead of
 * its expression language): ordered {@link ClassifierRule}s compiled once at configuration load and evaluated when
 * the metadata cache fills or refreshes an entry, never per row.
 *
 * <p>Exporter rules match {@code address} (text, e.g. {@code 192.0.2.1}) and {@code name}, and set {@code group},
 * {@code role}, {@code site}, {@code region}, {@code tenant}. Interface rules match {@code exporter-address},
 * {@code exporter-name}, {@code index} (decimal ifIndex), {@code name}, {@code description} and {@code speed}
 * (Mb/s, a comparison {@code <, <=, =, >=, >} and a number), and set {@code boundary} ({@code external},
 * {@code internal} or {@code undefined}, literal), {@code provider} and {@code connectivity}.
 *
 * <p>Semantics as Akvorado's: rules run in order; a value set by an earlier rule (or by the metadata source, e.g. a
 * static entry) is never overwritten; evaluation stops once every output is set; values are lower-cased and keep only
 * {@code [a-z0-9.+-]} (a value that normalises to nothing is not set). A rule with an unknown field or output, a bad
 * regular expression, a template naming a group the expression does not have, or a bad comparison is a configuration
 * error naming the rule's line.
 */
public final class Classifier {
    /** Fields an exporter rule may match. */
    public static final List<String> EXPORTER_FIELDS = List.of("address", "name");
    /** Outputs an exporter rule may set. */
    public static final List<String> EXPORTER_OUTPUTS = List.of("group", "role", "site", "region", "tenant");
    /** Fields an interface rule may match. */
    public static final List<String> INTERFACE_FIELDS = List.of("exporter-address", "exporter-name", "index", "name",
            "description", "speed");
    /** Outputs an interface rule may set. */
    public static final List<String> INTERFACE_OUTPUTS = List.of("boundary", "provider", "connectivity");
    private static final int SPEED = INTERFACE_FIELDS.indexOf("speed");
    private static final int BOUNDARY = INTERFACE_OUTPUTS.indexOf("boundary");
    private static final Pattern COMPARISON = Pattern.compile("\\s*(<=|>=|<|>|=)\\s*(\\d{1,12})\\s*");
    private static final Pattern REF = Pattern.compile("\\$(?:(\\d)|\\{([a-z-]+)\\.(\\d)})");

    /** A condition: a field's expression, or a speed comparison. */
    private record Condition(int field, Pattern pattern, String op, long value) {}

    /** A template part: literal text, or group {@code group} of condition {@code condition}. */
    private record Part(String literal, int condition, int group) {}

    /** An output and its template. */
    private record Output(int output, List<Part> parts) {}

    private record Rule(List<Condition> conditions, List<Output> outputs, int line) {}

    private final List<Rule> rules;
    private final int outputs;

    private Classifier(List<Rule> rules, int outputs) {
        this.rules = rules;
        this.outputs = outputs;
    }

    /** A classifier that sets nothing. */
    public static final Classifier NONE = new Classifier(List.of(), 0);

    /** @return true when there are no rules. */
    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /**
     * Compiles exporter rules.
     *
     * @param rules the rules in order
     * @param source configuration file name, for messages
     * @return the classifier
     * @throws IllegalArgumentException naming the source, the rule's line and what is wrong
     */
    public static Classifier exporters(List<ClassifierRule> rules, String source) {
        return compile(rules, source, "exporters", EXPORTER_FIELDS, EXPORTER_OUTPUTS);
    }

    /**
     * Compiles interface rules.
     *
     * @param rules the rules in order
     * @param source configuration file name, for messages
     * @return the classifier
     * @throws IllegalArgumentException naming the source, the rule's line and what is wrong
     */
    public static Classifier interfaces(List<ClassifierRule> rules, String source) {
        return compile(rules, source, "interfaces", INTERFACE_FIELDS, INTERFACE_OUTPUTS);
    }

    private static Classifier compile(List<ClassifierRule> in, String source, String kind, List<String> fields,
            List<String> outputNames) {
        List<Rule> out = new ArrayList<>();
        for (int r = 0; r < in.size(); r++) {
            ClassifierRule rule = in.get(r);
            String where = source + (rule.line() > 0 ? " line " + rule.line() : "") + ": classifiers." + kind + "["
                    + r + "]";
            if (rule.set().isEmpty()) {
                throw new IllegalArgumentException(where + ": the rule sets nothing (need set: with one of "
                        + outputNames + ")");
            }
            List<Condition> conditions = new ArrayList<>();
            List<String> conditionFields = new ArrayList<>();
            for (Map.Entry<String, String> m : rule.match().entrySet()) {
                int field = fields.indexOf(m.getKey());
                if (field < 0) {
                    throw new IllegalArgumentException(where + ": unknown match field '" + m.getKey() + "' (known: "
                            + fields + ")");
                }
                String expr = m.getValue() == null ? "" : m.getValue();
                if (kind.equals("interfaces") && field == SPEED) {
                    Matcher c = COMPARISON.matcher(expr);
                    if (!c.matches()) {
                        throw new IllegalArgumentException(where + ": match.speed '" + expr
                                + "' is not a comparison (need e.g. '>= 10000', Mb/s)");
                    }
                    conditions.add(new Condition(field, null, c.group(1), Long.parseLong(c.group(2))));
                } else {
                    try {
                        conditions.add(new Condition(field, Pattern.compile(expr), null, 0));
                    } catch (PatternSyntaxException e) {
                        throw new IllegalArgumentException(where + ": match." + m.getKey()
                                + " is not a regular expression: " + e.getDescription() + " at index " + e.getIndex()
                                + " of '" + expr + "'");
                    }
                }
                conditionFields.add(m.getKey());
            }
            List<Output> outputs = new ArrayList<>();
            for (Map.Entry<String, String> s : rule.set().entrySet()) {
                int o = outputNames.indexOf(s.getKey());
                if (o < 0) {
                    throw new IllegalArgumentException(where + ": unknown set output '" + s.getKey() + "' (known: "
                            + outputNames + ")");
                }
                String template = s.getValue() == null ? "" : s.getValue();
                List<Part> parts = template(template, conditions, conditionFields, where + ": set." + s.getKey());
                if (kind.equals("interfaces") && o == BOUNDARY && (parts.size() != 1 || parts.getFirst().literal()
                        == null || !InterfaceInfo.BOUNDARIES.contains(parts.getFirst().literal()))) {
                    throw new IllegalArgumentException(where + ": set.boundary '" + template + "' (need one of "
                            + InterfaceInfo.BOUNDARIES + ")");
                }
                outputs.add(new Output(o, parts));
            }
            out.add(new Rule(List.copyOf(conditions), List.copyOf(outputs), rule.line()));
        }
        return new Classifier(List.copyOf(out), outputNames.size());
    }

    private static List<Part> template(String t, List<Condition> conditions, List<String> fields, String where) {
        List<Part> parts = new ArrayList<>();
        Matcher m = REF.matcher(t);
        int last = 0;
        while (m.find()) {
            if (m.start() > last) {
                parts.add(new Part(t.substring(last, m.start()), -1, 0));
            }
            int condition;
            int group;
            if (m.group(1) != null) {
                List<Integer> regexes = new ArrayList<>();
                for (int i = 0; i < conditions.size(); i++) {
                    if (conditions.get(i).pattern() != null) {
                        regexes.add(i);
                    }
                }
                if (regexes.size() != 1) {
                    throw new IllegalArgumentException(where + ": '" + m.group() + "' needs exactly one regular "
                            + "expression in match (there are " + regexes.size() + "; write ${field.N})");
                }
                condition = regexes.getFirst();
                group = Integer.parseInt(m.group(1));
            } else {
                condition = fields.indexOf(m.group(2));
                if (condition < 0 || conditions.get(condition).pattern() == null) {
                    throw new IllegalArgumentException(where + ": '" + m.group() + "' names no regular expression "
                            + "of this rule's match (have " + fields + ")");
                }
                group = Integer.parseInt(m.group(3));
            }
            int groups = conditions.get(condition).pattern().matcher("").groupCount();
            if (group > groups) {
                throw new IllegalArgumentException(where + ": '" + m.group() + "' but the expression has " + groups
                        + " group(s)");
            }
            parts.add(new Part(null, condition, group));
            last = m.end();
        }
        if (last < t.length() || parts.isEmpty()) {
            parts.add(new Part(t.substring(last), -1, 0));
        }
        return List.copyOf(parts);
    }

    /**
     * Classifies an exporter: fills the outputs {@code in} leaves empty.
     *
     * @param address the exporter's address as text
     * @param in what the metadata sources gave (name, and any classification they carry)
     * @return {@code in} when nothing changed, else a new value
     */
    public ExporterInfo classify(String address, ExporterInfo in) {
        if (rules.isEmpty()) {
            return in;
        }
        String[] values = {address, in.name().text};
        String[] set = {in.group().text, in.role().text, in.site().text, in.region().text, in.tenant().text};
        if (!run(values, set, -1)) {
            return in;
        }
        return new ExporterInfo(in.name(), Label.of(set[0]), Label.of(set[1]), Label.of(set[2]), Label.of(set[3]),
                Label.of(set[4]));
    }

    /**
     * Classifies an interface: fills the outputs {@code in} leaves empty (boundary {@code undefined} counts as empty).
     *
     * @param exporterAddress the exporter's address as text
     * @param exporterName the exporter's name (may be empty)
     * @param ifIndex the interface's ifIndex
     * @param in what the metadata sources gave
     * @return {@code in} when nothing changed, else a new value
     */
    public InterfaceInfo classify(String exporterAddress, String exporterName, long ifIndex, InterfaceInfo in) {
        if (rules.isEmpty()) {
            return in;
        }
        String[] values = {exporterAddress, exporterName, Long.toString(ifIndex), in.name().text,
                in.description().text, null};
        String[] set = {in.boundary() == InterfaceInfo.UNDEFINED ? "" : InterfaceInfo.BOUNDARIES.get(in.boundary()),
                in.provider().text, in.connectivity().text};
        if (!run(values, set, in.speedMbps())) {
            return in;
        }
        int boundary = set[0].isEmpty() ? InterfaceInfo.UNDEFINED : InterfaceInfo.BOUNDARIES.indexOf(set[0]);
        return new InterfaceInfo(in.name(), in.description(), in.speedMbps(), boundary, Label.of(set[1]),
                Label.of(set[2]));
    }

    /** Runs the rules over {@code values}, filling empty entries of {@code set}; returns whether any was set. */
    private boolean run(String[] values, String[] set, long speed) {
        boolean changed = false;
        Matcher[] matchers = new Matcher[8];
        for (Rule r : rules) {
            if (full(set)) {
                break;
            }
            boolean all = true;
            for (int i = 0; i < r.conditions().size() && all; i++) {
                Condition c = r.conditions().get(i);
                if (c.pattern() == null) {
                    all = compare(speed, c.op(), c.value());
                } else {
                    Matcher m = c.pattern().matcher(values[c.field()]);
                    all = m.find();
                    if (i < matchers.length) {
                        matchers[i] = m;
                    }
                }
            }
            if (!all) {
                continue;
            }
            for (Output o : r.outputs()) {
                if (!set[o.output()].isEmpty()) {
                    continue;
                }
                StringBuilder b = new StringBuilder();
                for (Part p : o.parts()) {
                    if (p.literal() != null) {
                        b.append(p.literal());
                    } else {
                        String g = matchers[p.condition()].group(p.group());
                        b.append(g == null ? "" : g);
                    }
                }
                String v = normalise(b.toString());
                if (!v.isEmpty()) {
                    set[o.output()] = v;
                    changed = true;
                }
            }
        }
        return changed;
    }

    private boolean full(String[] set) {
        for (int i = 0; i < outputs; i++) {
            if (set[i].isEmpty()) {
                return false;
            }
        }
        return true;
    }

    private static boolean compare(long v, String op, long ref) {
        return switch (op) {
            case "<" -> v < ref;
            case "<=" -> v <= ref;
            case "=" -> v == ref;
            case ">=" -> v >= ref;
            default -> v > ref;
        };
    }

    /**
     * Akvorado's normalisation of classifier values: lower case, only {@code [a-z0-9.+-]} kept.
     *
     * @param s a value
     * @return the normalised value (may be empty)
     */
    public static String normalise(String s) {
        String l = s.toLowerCase(Locale.ROOT);
        StringBuilder b = new StringBuilder(l.length());
        for (int i = 0; i < l.length(); i++) {
            char c = l.charAt(i);
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-') {
                b.append(c);
            }
        }
        return b.toString();
    }
}
