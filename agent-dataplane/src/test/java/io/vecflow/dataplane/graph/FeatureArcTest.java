package io.vecflow.dataplane.graph;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class FeatureArcTest {
    private static FeatureArc arc() {
        FeatureArc a = new FeatureArc("device-input", "ethernet-input", "sflow", "acl");
        Map<String, Integer> index = Map.of("sflow", 5, "acl", 6, "ethernet-input", 9);
        a.resolve(index::get);
        return a;
    }

    @Test
    void commonTargetIsTheEndOnlyWhileNoInterfaceHasALaterFeature() {
        FeatureArc a = arc();
        assertThat(a.commonTarget(0)).isEqualTo(9);
        a.enable("sflow", 3, true);
        assertThat(a.commonTarget(0)).isEqualTo(-1); // interface 3 visits sflow first
        assertThat(a.commonTarget(1)).isEqualTo(9); // after sflow: nobody has acl, all to ethernet-input
        assertThat(a.target(3, 1)).isEqualTo(9);
        a.enable("acl", 7, true);
        assertThat(a.commonTarget(1)).isEqualTo(-1); // interface 7 goes to acl after sflow
        assertThat(a.target(7, 1)).isEqualTo(6);
        assertThat(a.target(3, 1)).isEqualTo(9);
        a.enable("acl", 7, false);
        assertThat(a.commonTarget(1)).isEqualTo(9);
        a.enable("sflow", 3, false);
        assertThat(a.commonTarget(0)).isEqualTo(9);
    }
}
