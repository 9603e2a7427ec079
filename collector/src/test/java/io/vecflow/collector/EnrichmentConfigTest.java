package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.enrich.EnrichmentSettings;
import io.vecflow.collector.schema.InterfaceInfo;
import io.vecflow.collector.schema.Label;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code enrichment:} section: what it builds, and errors that name the line and the key. */
class EnrichmentConfigTest {
    @TempDir
    Path tmp;

    static final String YAML = """
            enrichment:
              metadata:
                sources: [static, sflow]
                static:
                  - exporter: 192.0.2.0/24
                    name: edge1
                    site: par1
                    interfaces:
                      "7": {name: xe-0/0/7, description: "transit: Cogent", speed: 100000}
              classifiers:
                interfaces:
                  - match: {description: '^transit:\\s*(\\w+)'}
                    set: {provider: '$1', boundary: external, connectivity: transit}
                  - set: {boundary: internal}
              networks:
                - {prefix: 10.0.0.0/8, name: corp, country: fr, asn: 64512}
              as-sources: [flow-except-private, geoip]
            """;

    @Test
    void theSectionBuildsTheEnrichmentSettings() {
        EnrichmentSettings s = CollectorConfig.parse(YAML, "c.yaml").enrichmentSettings("c.yaml");
        assertThat(s.enabled).isTrue();
        assertThat(s.metadata.sources).containsExactly("static", "sflow");
        assertThat(s.statics).hasSize(1);
        assertThat(s.statics.getFirst().line()).isEqualTo(5);
        assertThat(s.statics.getFirst().exporter().site()).isEqualTo("par1");
        assertThat(s.statics.getFirst().interfaces().get(7L).speedMbps()).isEqualTo(100_000);
        InterfaceInfo in = new InterfaceInfo(Label.of("xe-0/0/7"), Label.of("transit: Cogent"), 100_000,
                InterfaceInfo.UNDEFINED, null, null);
        InterfaceInfo out = s.interfaceRules.classify("192.0.2.1", "edge1", 7, in);
        assertThat(out.provider().text).isEqualTo("cogent");
        assertThat(out.boundary()).isEqualTo(InterfaceInfo.EXTERNAL);
        assertThat(s.networks).singleElement().satisfies(n -> {
            assertThat(n.country()).isEqualTo("FR");
            assertThat(n.asn()).isEqualTo(64512);
            assertThat(n.source()).isEqualTo("c.yaml line 16");
        });
        assertThat(s.asSources).containsExactly("flow-except-private", "geoip");
        assertThat(CollectorConfig.parse("", "d.yaml").enrichmentSettings("d.yaml").metadata.sources)
                .containsExactly("static", "snmp", "sflow");
    }

    @Test
    void badRulesSourcesPrefixesAndFilesNameTheLine() throws Exception {
        assertThatThrownBy(() -> CollectorConfig.parse(YAML.replace("(\\w+)'", "(\\w+'"), "c.yaml"))
                .hasMessageStartingWith("c.yaml line 12: classifiers.interfaces[0]")
                .hasMessageContaining("not a regular expression");
        assertThatThrownBy(() -> CollectorConfig.parse(YAML.replace("[static, sflow]", "[static, ldap]"), "c.yaml"))
                .hasMessageStartingWith("c.yaml line 3: enrichment.metadata.sources = 'ldap' is invalid");
        assertThatThrownBy(() -> CollectorConfig.parse(YAML.replace("192.0.2.0/24", "192.0.2.1/24"), "c.yaml"))
                .hasMessageStartingWith("c.yaml line 5: enrichment.metadata.static.exporter")
                .hasMessageContaining("host bits");
        assertThatThrownBy(() -> CollectorConfig.parse(YAML.replace("10.0.0.0/8", "10.0.0.0/33"), "c.yaml"))
                .hasMessageStartingWith("c.yaml line 16: enrichment.networks.prefix")
                .hasMessageContaining("prefix length 33");
        assertThatThrownBy(() -> CollectorConfig.parse(YAML.replace("country: fr", "country: France"), "c.yaml"))
                .hasMessageContaining("line 16").hasMessageContaining("ISO 3166-1 alpha-2");
        assertThatThrownBy(() -> CollectorConfig.parse(YAML.replace("[flow-except-private, geoip]", "[bgp]"),
                "c.yaml")).hasMessageContaining("enrichment.as-sources = 'bgp' is invalid");
        Path missing = tmp.resolve("nope.mmdb");
        assertThatThrownBy(() -> CollectorConfig.parse(YAML + "  geoip:\n    asn-databases: [" + missing + "]\n",
                "c.yaml")).hasMessageContaining("line 19: enrichment.geoip.asn-databases")
                .hasMessageContaining("a readable file");
        assertThatThrownBy(() -> CollectorConfig.parse(YAML.replace("\"7\":", "\"x7\":"), "c.yaml"))
                .hasMessageContaining("line 5").hasMessageContaining("'x7' is not an ifIndex");
        assertThatThrownBy(() -> CollectorConfig.parse(YAML.replace("    sources:", "    sorces:"), "c.yaml"))
                .hasMessageContaining("line 3: unknown key 'enrichment.metadata.sorces'");
        // a null inside a list or map is an error naming the key, not a NullPointerException (ConfigFuzzTest)
        assertThatThrownBy(() -> CollectorConfig.parse(YAML.replace("[flow-except-private, geoip]",
                "[flow, null]"), "c.yaml")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 17").hasMessageContaining("key 'enrichment.as-sources[1]'");
        assertThatThrownBy(() -> CollectorConfig.parse("forward: [\"127.0.0.1:6343\", ~]\n", "c.yaml"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key 'forward[1]'");
    }

    @Test
    void snmpSecretsAreMaskedInThePrintedConfiguration() throws Exception {
        Path secret = tmp.resolve("priv");
        Files.writeString(secret, "c0rrect-horse\n");
        // a secret file readable by its owner only (one every user may read is refused)
        Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        String yaml = """
                enrichment:
                  metadata:
                    snmp:
                      enabled: true
                      communities: [s3cret]
                      user: ops
                      auth-protocol: SHA
                      auth-passphrase: hunter2hunter2
                      priv-protocol: AES
                      priv-passphrase: file:%s
                """.formatted(secret);
        CollectorConfig c = CollectorConfig.parse(yaml, "c.yaml");
        assertThat(c.enrichmentSettings("c.yaml").snmpPrivPassphrase).isEqualTo("c0rrect-horse");
        String printed = c.toYaml();
        assertThat(printed).doesNotContain("s3cret").doesNotContain("hunter2").doesNotContain("c0rrect")
                .contains("file:" + secret).contains("********");
        // A passphrase from an unset variable is refused at its own key, naming the variable.
        assertThatThrownBy(() -> CollectorConfig.parse(yaml.replace("file:" + secret,
                "env:VECFLOW_TEST_UNSET_SNMP_PRIV"), "c.yaml"))
                .hasMessageStartingWith("c.yaml line 10: enrichment.metadata.snmp.priv-passphrase: ")
                .hasMessageContaining("the environment variable VECFLOW_TEST_UNSET_SNMP_PRIV")
                .hasMessageContaining("is not set");
        // A bad protocol name is reported at its own line and key.
        assertThatThrownBy(() -> CollectorConfig.parse(yaml.replace("auth-protocol: SHA", "auth-protocol: sha9"),
                "c.yaml")).hasMessageStartingWith("c.yaml line 7: enrichment.metadata.snmp.auth-protocol: ")
                .hasMessageContaining("unknown SNMPv3 authentication protocol \"sha9\"");
    }
}
