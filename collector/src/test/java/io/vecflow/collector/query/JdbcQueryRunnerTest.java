package io.vecflow.collector.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.sink.duckdb.DuckDbStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opening a DuckDB file for the console ({@code vecflow console --store FILE}): a real store read-only, and clear
 * errors for a missing file, a file that is not DuckDB's, a DuckDB file without vecflow's schema, and a file a
 * writer holds; the query timeout cancels a long query.
 */
class JdbcQueryRunnerTest {
    @TempDir
    Path dir;

    @Test
    void aStoreOpensReadOnlyAndBadFilesAreNamedWithTheirCause() throws Exception {
        Path store = dir.resolve("vecflow.duckdb");
        try (DuckDbStore s = new DuckDbStore(store, "vecflow")) {
            s.execute("INSERT INTO flows (TimeReceived) VALUES (TIMESTAMP '2026-12-01 10:00:00')");
            // a writer holds the file: the hint says what to do instead
            assertThatThrownBy(() -> JdbcQueryRunner.readOnly(store, "vecflow")).hasMessageContaining(
                    "cannot be opened read-only (a running collector holds it");
        }
        try (JdbcQueryRunner r = JdbcQueryRunner.readOnly(store, "vecflow")) {
            assertThat(r.query("SELECT count(*) FROM flows", Duration.ofSeconds(5))).containsExactly(List.of("1"));
            assertThatThrownBy(() -> r.query("DELETE FROM flows", Duration.ofSeconds(5)))
                    .isInstanceOf(QueryRunner.StoreException.class).hasMessageContaining("read-only");
        }
        assertThatThrownBy(() -> JdbcQueryRunner.readOnly(dir.resolve("missing.duckdb"), "vecflow"))
                .hasMessageContaining("missing.duckdb: no such file");
        Path garbage = Files.writeString(dir.resolve("garbage.duckdb"), "not a database\n");
        assertThatThrownBy(() -> JdbcQueryRunner.readOnly(garbage, "vecflow"))
                .hasMessageContaining("garbage.duckdb cannot be opened read-only: ")
                .hasMessageContaining("not a valid DuckDB database").hasMessageNotContaining("running collector");
        Path other = dir.resolve("other.duckdb");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + other)) {
            c.createStatement().execute("CREATE TABLE t (x INTEGER)");
        }
        assertThatThrownBy(() -> JdbcQueryRunner.readOnly(other, "vecflow"))
                .hasMessageContaining("holds no schema vecflow (not a vecflow store");
        assertThatThrownBy(() -> JdbcQueryRunner.readOnly(store, "vecflow; DROP"))
                .hasMessageContaining("not an identifier");
    }

    @Test
    void aQueryPastItsTimeIsCancelled() throws Exception {
        Path store = dir.resolve("vecflow.duckdb");
        new DuckDbStore(store, "vecflow").close();
        try (JdbcQueryRunner r = JdbcQueryRunner.readOnly(store, "vecflow")) {
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> r.query("SELECT count(*) FROM range(100000000000) a", Duration.ofMillis(300)))
                    .isInstanceOf(QueryRunner.StoreException.class).hasMessageContaining("timed out after 300 ms");
            assertThat((System.nanoTime() - t0) / 1_000_000).as("ms until the answer").isLessThan(10_000);
        }
    }
}
