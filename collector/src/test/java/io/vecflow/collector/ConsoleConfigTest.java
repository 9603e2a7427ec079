package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.console.ConsoleSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code console} section (defaults, listen forms, authentication, errors with their line, masked hashes) and the
 * {@code metrics} section's basic-auth users, checked and masked the same way.
 */
class ConsoleConfigTest {
    @Test
    void defaultsAreOffOnLoopbackWithoutAuthentication() {
        CollectorConfig c = CollectorConfig.parse("json-lines: x.jsonl\n", "c.yaml");
        assertThat(c.console.enabled).isFalse();
        ConsoleSettings s = c.console.settings();
        assertThat(s.host()).isEqualTo("127.0.0.1");
        assertThat(s.port()).isEqualTo(8080);
        assertThat(s.auth()).isEqualTo(ConsoleSettings.Auth.NONE);
    }

    @Test
    void basicUsersAndIpv6Listen() {
        String hash = io.vecflow.common.BasicCredentials.hashPassword("pw".toCharArray());
        CollectorConfig c = CollectorConfig.parse("""
                json-lines: x.jsonl
                console:
                  enabled: true
                  listen: "[::1]:9090"
                  auth: basic
                  users:
                    alice: "%s"
                """.formatted(hash), "c.yaml");
        ConsoleSettings s = c.console.settings();
        assertThat(s.host()).isEqualTo("::1");
        assertThat(s.port()).isEqualTo(9090);
        assertThat(s.users()).containsEntry("alice", hash);
        assertThat(c.toYaml()).contains("alice: \"********\"").doesNotContain(hash);
    }

    @Test
    void badValuesNameTheKeyAndLine() {
        assertThatThrownBy(() -> CollectorConfig.parse("""
                json-lines: x.jsonl
                console:
                  enabled: true
                  auth: basic
                  users:
                    alice: hunter2
                """, "c.yaml")).hasMessageContaining("c.yaml line 5").hasMessageContaining("console.users")
                .hasMessageContaining("not a password hash").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> CollectorConfig.parse("""
                json-lines: x.jsonl
                console:
                  enabled: true
                  listen: 8080
                """, "c.yaml")).hasMessageContaining("c.yaml line 4").hasMessageContaining("console.listen")
                .hasMessageContaining("ADDR:PORT");
        assertThatThrownBy(() -> CollectorConfig.parse("""
                json-lines: x.jsonl
                console:
                  enabled: true
                  auth: kerberos
                """, "c.yaml")).hasMessageContaining("line 4").hasMessageContaining("console.auth")
                .hasMessageContaining("need none, basic or header");
    }

    @Test
    void metricsUsersAreHashesCheckedAndMasked() {
        String hash = io.vecflow.common.BasicCredentials.hashPassword("pw".toCharArray());
        CollectorConfig c = CollectorConfig.parse("""
                json-lines: x.jsonl
                metrics:
                  users:
                    prometheus: "%s"
                """.formatted(hash), "c.yaml");
        assertThat(c.metrics.users).containsEntry("prometheus", hash);
        assertThat(c.toYaml()).contains("prometheus: \"********\"").doesNotContain(hash);
        assertThat(CollectorConfig.parse("json-lines: x.jsonl\nmetrics:\n  users:\n", "c.yaml").metrics.users)
                .isEmpty();
        assertThatThrownBy(() -> CollectorConfig.parse("""
                json-lines: x.jsonl
                metrics:
                  users:
                    prometheus: hunter2
                """, "c.yaml")).hasMessageContaining("metrics.users")
                .hasMessageContaining("metrics user prometheus: not a password hash")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void secretsComeFromFilesAndAFileEveryoneMayReadIsRefused(@TempDir Path dir) throws Exception {
        Path pw = Files.writeString(dir.resolve("ch.pw"), "s3cret\n");
        Files.setPosixFilePermissions(pw, PosixFilePermissions.fromString("rw-------"));
        CollectorConfig c = CollectorConfig.parse("clickhouse:\n  url: http://127.0.0.1:8123\n  password-file: " + pw
                + "\n", "c.yaml");
        assertThat(c.toSettings().clickhousePassword).isEqualTo("s3cret");
        assertThat(c.toYaml()).contains("password-file: \"" + pw + "\"").doesNotContain("s3cret");
        CollectorConfig byRef = CollectorConfig.parse("clickhouse:\n  url: http://127.0.0.1:8123\n  password: \"file:"
                + pw + "\"\n", "c.yaml");
        assertThat(byRef.toSettings().clickhousePassword).isEqualTo("s3cret");
        assertThat(byRef.toYaml()).contains("file:" + pw);
        // a password file every user may read is refused
        Files.setPosixFilePermissions(pw, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> c.toSettings()).hasMessageContaining("clickhouse.password-file")
                .hasMessageContaining("readable by every user").hasMessageNotContaining("s3cret");
        // both keys: refused
        assertThatThrownBy(() -> CollectorConfig.parse("clickhouse:\n  password: x\n  password-file: " + pw + "\n",
                "c.yaml")).hasMessageContaining("clickhouse.password-file").hasMessageContaining("not both");
        // a config file with a password inline: refused when every user may read it, accepted at 0640
        Path cfg = Files.writeString(dir.resolve("collector.yaml"), "clickhouse:\n  url: http://127.0.0.1:8123\n"
                + "  password: hunter2\n");
        Files.setPosixFilePermissions(cfg, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> CollectorConfig.load(cfg)).hasMessageContaining("readable by every user")
                .hasMessageContaining("clickhouse.password").hasMessageContaining("chmod o-rwx")
                .hasMessageNotContaining("hunter2");
        Files.setPosixFilePermissions(cfg, PosixFilePermissions.fromString("rw-r-----"));
        assertThat(CollectorConfig.load(cfg).toSettings().clickhousePassword).isEqualTo("hunter2");
        assertThat(CollectorConfig.load(cfg).toYaml()).doesNotContain("hunter2");
        // without a secret inline the file may be world-readable (the packages' default)
        Path plain = Files.writeString(dir.resolve("plain.yaml"), "clickhouse:\n  url: http://127.0.0.1:8123\n"
                + "  password-file: " + pw + "\n");
        Files.setPosixFilePermissions(plain, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(CollectorConfig.load(plain).clickhouse.passwordFile).isEqualTo(pw.toString());
    }
}
