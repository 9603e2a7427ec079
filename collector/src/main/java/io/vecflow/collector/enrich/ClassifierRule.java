package io.vecflow.collector.enrich;

import java.util.Map;

/**
 * One classifier rule as written in the configuration ({@code enrichment.classifiers.exporters[]} or
 * {@code .interfaces[]}): conditions and the values to set when they all hold. Compiled by {@link Classifier}.
 *
 * <p>{@code match} maps a field to a Java regular expression that must be <em>found</em> in the field's text (use
 * {@code ^…$} to anchor); numeric fields take a comparison instead ({@code speed: ">= 10000"}). {@code set} maps an
 * output to a template: literal text with {@code $N} (group N of the rule's only regular expression) or
 * {@code ${field.N}} (group N of the expression on {@code field}). Fields and outputs: {@link Classifier}.
 *
 * @param match field → regular expression (or comparison); empty = always
 * @param set output → template; not empty
 * @param line the rule's line in the configuration file (for messages; 0 unknown)
 */
public record ClassifierRule(Map<String, String> match, Map<String, String> set, int line) {
    /** Null maps become empty. */
    public ClassifierRule {
        match = match == null ? Map.of() : Map.copyOf(match);
        set = set == null ? Map.of() : Map.copyOf(set);
    }
}
