package io.vecflow.collector.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The users and grants {@link ClickHouseUsers} renders for modern servers (SQL) and 18.16 (users.d XML). */
class ClickHouseUsersTest {
    private static final ClickHouseUsers.User W = new ClickHouseUsers.User("vecflow_writer",
            ClickHouseUsers.sha256Hex("w"), List.of("10.0.0.0/8", "::1"));
    private static final ClickHouseUsers.User R = new ClickHouseUsers.User("vecflow_reader",
            ClickHouseUsers.sha256Hex("r"), List.of("127.0.0.1"));

    @Test
    void sha256IsTheHexDigestClickHouseCompares() {
        // echo -n w | sha256sum
        assertThat(ClickHouseUsers.sha256Hex("w"))
                .isEqualTo("50e721e49c013f00c62cf59f2163542a9d8df02464efeb615d31051b0fddc326");
    }

    @Test
    void modernServersGetCreateUserAndGrantsOnTheDatabaseOnly() {
        assertThat(ClickHouseUsers.sql("vecflow", W, R)).containsExactly(
                "CREATE USER IF NOT EXISTS vecflow_writer IDENTIFIED WITH sha256_hash BY '"
                        + ClickHouseUsers.sha256Hex("w") + "' HOST IP '10.0.0.0/8', IP '::1';",
                "CREATE USER IF NOT EXISTS vecflow_reader IDENTIFIED WITH sha256_hash BY '"
                        + ClickHouseUsers.sha256Hex("r") + "' HOST IP '127.0.0.1' SETTINGS max_execution_time = 60 "
                        + "READONLY;",
                "GRANT SELECT, INSERT, ALTER TABLE, ALTER VIEW, CREATE DATABASE, CREATE TABLE, CREATE VIEW, "
                        + "DROP TABLE, DROP VIEW, SHOW TABLES ON vecflow.* TO vecflow_writer;",
                "GRANT SELECT ON vecflow.* TO vecflow_reader;");
    }

    @Test
    void oldServersGetAReadonlyProfileAndAllowDatabases() {
        String x = ClickHouseUsers.usersXml("vecflow", W, R);
        assertThat(x).startsWith("<?xml version=\"1.0\"?>").contains("<yandex>").endsWith("</yandex>\n")
                .contains("<vecflow_reader>\n            <readonly>1</readonly>\n"
                        + "            <max_execution_time>60</max_execution_time>\n        </vecflow_reader>")
                .contains("<password_sha256_hex>" + ClickHouseUsers.sha256Hex("w") + "</password_sha256_hex>")
                .contains("<ip>10.0.0.0/8</ip>\n                <ip>::1</ip>")
                .contains("<allow_databases>\n                <database>vecflow</database>")
                .doesNotContain(">w<").doesNotContain(">r<");
        // the writer keeps the server's default profile, the reader gets its own
        assertThat(x.indexOf("<profile>default</profile>")).isLessThan(x.indexOf("<profile>vecflow_reader</profile>"));
    }

    @Test
    void badNamesNetworksAndOneUserForBothRolesAreRefused() {
        assertThatThrownBy(() -> new ClickHouseUsers.User("x'; DROP", ClickHouseUsers.sha256Hex("p"), List.of("::1")))
                .hasMessageContaining("user name");
        assertThatThrownBy(() -> new ClickHouseUsers.User("u", ClickHouseUsers.sha256Hex("p"), List.of("any'")))
                .hasMessageContaining("network 'any''");
        assertThatThrownBy(() -> new ClickHouseUsers.User("u", "plain", List.of("::1")))
                .hasMessageContaining("64 hex digits");
        assertThatThrownBy(() -> ClickHouseUsers.sql("vecflow", W, W)).hasMessageContaining("two users");
        assertThatThrownBy(() -> ClickHouseUsers.usersXml("a-b", W, R)).hasMessageContaining("database 'a-b'");
        assertThatThrownBy(() -> ClickHouseUsers.usersXml("system", W, R)).hasMessageContaining("server's own");
        assertThatThrownBy(() -> new ClickHouseUsers.User("default", ClickHouseUsers.sha256Hex("p"), List.of("::1")))
                .hasMessageContaining("server's own");
        for (String bad : List.of("10.0.0.0/33", "::1/200", "10.1.2.3/8", "300.1.1.1", "::g")) {
            assertThatThrownBy(() -> new ClickHouseUsers.User("u", ClickHouseUsers.sha256Hex("p"), List.of(bad)))
                    .as(bad).hasMessageContaining("network '" + bad + "'");
        }
        assertThat(new ClickHouseUsers.User("u", ClickHouseUsers.sha256Hex("p"), List.of("10.0.0.0/8", "::/0",
                "2001:db8::/32", "192.0.2.7")).networks()).hasSize(4);
    }

    @Test
    void accessControlInSqlStartsAt20Point5() {
        assertThat(FlowSchema.ServerFeatures.fromVersion("18.16.1").sqlAccessControl()).isFalse();
        assertThat(FlowSchema.ServerFeatures.fromVersion("20.4.9").sqlAccessControl()).isFalse();
        assertThat(FlowSchema.ServerFeatures.fromVersion("20.5.2").sqlAccessControl()).isTrue();
        assertThat(FlowSchema.ServerFeatures.fromVersion("25.8.2.29").sqlAccessControl()).isTrue();
    }
}
