package io.vecflow.collector.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The DuckDB rendering of the schema on a real in-memory DuckDB: DDL runs, feeds sum rollups and replace inventory. */
class DuckDbSchemaTest {
    @Test
    void everyTableIsCreatedWithTheSchemasColumnsInOrder() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            for (String ddl : DuckDbSchema.ddl()) {
                s.execute(ddl);
            }
            for (FlowSchema.Table t : FlowSchema.TABLES) {
                List<String> names = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT column_name FROM information_schema.columns WHERE "
                        + "table_name = '" + t.name() + "' ORDER BY ordinal_position")) {
                    while (rs.next()) {
                        names.add(rs.getString(1));
                    }
                }
                assertThat(names).as(t.name()).isEqualTo(t.columnNames());
            }
        }
    }

    @Test
    void rollupFeedsSumByBucketAndInventoryKeepsTheLatestRow() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            for (String ddl : DuckDbSchema.ddl()) {
                s.execute(ddl);
            }
            s.execute("INSERT INTO flows (TimeReceived, AgentAddress, Proto, Direction, Bytes, Packets, SamplingRate) "
                    + "VALUES (TIMESTAMP '2026-12-01 10:00:10', '\\x00\\x01'::BLOB, 6, 'ingress', 100, 1, 10), "
                    + "(TIMESTAMP '2026-12-01 10:00:50', '\\x00\\x01'::BLOB, 6, 'ingress', 200, 2, 10), "
                    + "(TIMESTAMP '2026-12-01 10:04:59', '\\x00\\x01'::BLOB, 6, 'ingress', 300, 3, 10), "
                    + "(TIMESTAMP '2026-12-01 10:05:00', '\\x00\\x01'::BLOB, 17, 'egress', 400, 4, 1)");
            for (DuckDbSchema.Feed f : DuckDbSchema.feedsOf("flows")) {
                s.execute(f.insert("flows"));
            }
            assertThat(rows(s, "SELECT strftime(TimeReceived, '%H:%M'), Proto, Direction, Bytes, Packets, Samples "
                    + "FROM flows_1m ORDER BY 1, 2")).containsExactly(
                    "10:00 6 ingress 3000 30 2", "10:04 6 ingress 3000 30 1", "10:05 17 egress 400 4 1");
            assertThat(rows(s, "SELECT strftime(TimeReceived, '%H:%M'), Bytes, Samples FROM flows_5m ORDER BY 1"))
                    .containsExactly("10:00 6000 3", "10:05 400 1");
            assertThat(rows(s, "SELECT strftime(TimeReceived, '%H:%M'), sum(Bytes) FROM flows_1h GROUP BY 1"))
                    .containsExactly("10:00 6400");

            s.execute("INSERT INTO agents (TimeReceived, AgentAddress, SubAgentId, SampleFamily, Datagrams) VALUES "
                    + "(TIMESTAMP '2026-12-01 10:00:00', '\\x01'::BLOB, 0, 255, 5), "
                    + "(TIMESTAMP '2026-12-01 10:01:00', '\\x01'::BLOB, 0, 255, 7), "
                    + "(TIMESTAMP '2026-12-01 10:01:00', '\\x01'::BLOB, 0, 1, 99)");
            for (DuckDbSchema.Feed f : DuckDbSchema.feedsOf("agents")) {
                s.execute(f.insert("agents"));
            }
            s.execute("INSERT INTO agents (TimeReceived, AgentAddress, SubAgentId, SampleFamily, Datagrams) VALUES "
                    + "(TIMESTAMP '2026-12-01 10:02:00', '\\x01'::BLOB, 0, 255, 9)");
            for (DuckDbSchema.Feed f : DuckDbSchema.feedsOf("agents")) {
                s.execute(f.insert("(SELECT * FROM agents WHERE TimeReceived = TIMESTAMP '2026-12-01 10:02:00')"));
            }
            assertThat(rows(s, "SELECT strftime(TimeReceived, '%H:%M'), Datagrams FROM exporters"))
                    .containsExactly("10:02 9");
        }
    }

    private static List<String> rows(Statement s, String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder b = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    b.append(i == 1 ? "" : " ").append(rs.getString(i));
                }
                out.add(b.toString());
            }
        }
        return out;
    }
}
