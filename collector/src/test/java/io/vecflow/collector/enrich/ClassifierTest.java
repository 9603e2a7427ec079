package io.vecflow.collector.enrich;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.schema.ExporterInfo;
import io.vecflow.collector.schema.InterfaceInfo;
import io.vecflow.collector.schema.Label;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The classifiers: captures into templates, first value wins, normalisation, comparisons, and errors with lines. */
class ClassifierTest {
    private static ExporterInfo named(String name) {
        return new ExporterInfo(Label.of(name), null, null, null, null, null);
    }

    private static InterfaceInfo iface(String name, String description, long speed) {
        return new InterfaceInfo(Label.of(name), Label.of(description), speed, InterfaceInfo.UNDEFINED, null, null);
    }

    @Test
    void exporterRulesSetFromCapturesAndTheFirstValueWins() {
        Classifier c = Classifier.exporters(List.of(
                new ClassifierRule(Map.of("name", "^([a-z]+)\\d*-([a-z]+)\\d*\\.([A-Za-z]+)"),
                        Map.of("role", "$1", "site", "$3"), 3),
                new ClassifierRule(Map.of("address", "^192\\.0\\.2\\."), Map.of("group", "Lab Routers!",
                        "role", "never"), 5),
                new ClassifierRule(Map.of(), Map.of("region", "eu-west"), 7)), "t.yaml");
        ExporterInfo out = c.classify("192.0.2.1", named("edge1-r2.PAR"));
        assertThat(out.name().text).isEqualTo("edge1-r2.PAR");
        assertThat(out.role().text).isEqualTo("edge");
        assertThat(out.site().text).isEqualTo("par"); // lower-cased
        assertThat(out.group().text).isEqualTo("labrouters"); // only [a-z0-9.+-] kept
        assertThat(out.region().text).isEqualTo("eu-west");
        assertThat(out.tenant().text).isEmpty();
        // A value the source gave (static) is kept.
        ExporterInfo given = new ExporterInfo(Label.of("edge1-r2.par"), null, Label.of("core"), null, null, null);
        assertThat(c.classify("198.51.100.1", given).role().text).isEqualTo("core");
        assertThat(c.classify("198.51.100.1", given).group().text).isEmpty(); // the address rule did not match
    }

    @Test
    void interfaceRulesClassifyByDescriptionAndSpeed() {
        Classifier c = Classifier.interfaces(List.of(
                new ClassifierRule(Map.of("description", "^(transit|pni|ix):\\s*(\\S+)"),
                        Map.of("connectivity", "$1", "provider", "$2", "boundary", "external"), 10),
                new ClassifierRule(Map.of("speed", ">= 100000", "exporter-name", "^core"),
                        Map.of("connectivity", "backbone"), 12),
                new ClassifierRule(Map.of(), Map.of("boundary", "internal"), 14)), "t.yaml");
        InterfaceInfo t = c.classify("192.0.2.1", "edge1", 7, iface("xe-0/0/1", "transit: Cogent [AS174]", 10_000));
        assertThat(t.boundary()).isEqualTo(InterfaceInfo.EXTERNAL);
        assertThat(t.connectivity().text).isEqualTo("transit");
        assertThat(t.provider().text).isEqualTo("cogent");
        assertThat(t.name().text).isEqualTo("xe-0/0/1");
        InterfaceInfo core = c.classify("192.0.2.9", "core1", 8, iface("et-0/0/0", "to core2", 400_000));
        assertThat(core.connectivity().text).isEqualTo("backbone");
        assertThat(core.boundary()).isEqualTo(InterfaceInfo.INTERNAL);
        InterfaceInfo slow = c.classify("192.0.2.9", "core1", 9, iface("ge-0/0/0", "to core2", 1000));
        assertThat(slow.connectivity().text).isEmpty();
        assertThat(slow.boundary()).isEqualTo(InterfaceInfo.INTERNAL);
        assertThat(Classifier.NONE.classify("a", "b", 1, slow)).isSameAs(slow);
    }

    @Test
    void badRulesAreConfigurationErrorsNamingTheLine() {
        assertThatThrownBy(() -> Classifier.exporters(List.of(new ClassifierRule(Map.of("name", "(unclosed"),
                Map.of("site", "x"), 42)), "c.yaml")).hasMessageStartingWith("c.yaml line 42: classifiers.exporters[0]")
                .hasMessageContaining("not a regular expression").hasMessageContaining("(unclosed");
        assertThatThrownBy(() -> Classifier.exporters(List.of(new ClassifierRule(Map.of("hostname", "x"),
                Map.of("site", "x"), 3)), "c.yaml")).hasMessageContaining("line 3")
                .hasMessageContaining("unknown match field 'hostname'");
        assertThatThrownBy(() -> Classifier.exporters(List.of(new ClassifierRule(Map.of("name", "^(a)"),
                Map.of("site", "$2"), 4)), "c.yaml")).hasMessageContaining("line 4")
                .hasMessageContaining("'$2' but the expression has 1 group(s)");
        assertThatThrownBy(() -> Classifier.interfaces(List.of(new ClassifierRule(Map.of(),
                Map.of("boundary", "outside"), 5)), "c.yaml")).hasMessageContaining("line 5")
                .hasMessageContaining("set.boundary 'outside'");
        assertThatThrownBy(() -> Classifier.interfaces(List.of(new ClassifierRule(Map.of("speed", "fast"),
                Map.of("provider", "x"), 6)), "c.yaml")).hasMessageContaining("line 6")
                .hasMessageContaining("match.speed 'fast' is not a comparison");
        assertThatThrownBy(() -> Classifier.interfaces(List.of(new ClassifierRule(Map.of("name", "x"),
                Map.of("colour", "x"), 7)), "c.yaml")).hasMessageContaining("unknown set output 'colour'");
        assertThatThrownBy(() -> Classifier.interfaces(List.of(new ClassifierRule(Map.of("name", "(x)",
                "description", "(y)"), Map.of("provider", "$1"), 8)), "c.yaml"))
                .hasMessageContaining("needs exactly one regular expression");
        assertThatThrownBy(() -> Classifier.exporters(List.of(new ClassifierRule(Map.of(),
                Map.of("tenant", "${name.1}"), 9)), "c.yaml")).hasMessageContaining("line 9")
                .hasMessageContaining("'${name.1}' names no regular expression of this rule's match");
    }
}
