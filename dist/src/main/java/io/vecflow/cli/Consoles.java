package io.vecflow.cli;

import io.vecflow.collector.Collector;
import io.vecflow.collector.console.ConsoleServer;
import io.vecflow.collector.console.ConsoleSettings;
import io.vecflow.collector.query.ClickHouseHttpQueryRunner;
import io.vecflow.collector.query.ConsoleApi;
import io.vecflow.collector.query.JdbcQueryRunner;
import io.vecflow.collector.query.QueryRunner;
import io.vecflow.collector.query.SqlDialect;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.sink.duckdb.DuckDbStore;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;

/**
 * Starts the console (docs/console-api.md) over a store: the embedded DuckDB of a running collector (further
 * connections into its database, so the collector keeps writing), a DuckDB file no process is writing (opened
 * read-only), or a ClickHouse server (read-only HTTP queries). The returned handle closes the server and the
 * runner together.
 */
final class Consoles {
    private Consoles() {}

    /** A running console and what it reads through. */
    static final class Running implements AutoCloseable {
        private final ConsoleServer server;
        private final AutoCloseable runner;

        Running(ConsoleServer server, AutoCloseable runner) {
            this.server = server;
            this.runner = runner;
        }

        /** @return the console's URL, e.g. {@code http://127.0.0.1:8080/} */
        String url() {
            return server.url();
        }

        @Override
        public void close() throws Exception {
            server.close();
            if (runner != null) {
                runner.close();
            }
        }
    }

    private static String version() {
        String v = Consoles.class.getPackage().getImplementationVersion();
        return "vecflow " + (v == null ? "dev" : v);
    }

    /**
     * @param collector a running collector
     * @param settings the console's listener and authentication
     * @param cs the collector's settings (its ClickHouse URL and credentials)
     * @return the console over what the collector writes (its DuckDB store or its ClickHouse)
     * @throws IOException when the port cannot be bound, or the collector writes no store the console can read
     */
    static Running over(Collector collector, ConsoleSettings settings, Collector.Settings cs) throws IOException {
        if (collector.clickhouse() == null) {
            throw new IOException("the console needs a store: this collector writes neither clickhouse.url nor the "
                    + "embedded duckdb store");
        }
        DuckDbStore store = collector.clickhouse().duckDb();
        // A collector that does not wait for its services opens the file in the background: give it a moment.
        for (int i = 0; i < 100 && store == null && cs.duckdbPath != null; i++) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            store = collector.clickhouse().duckDb();
        }
        if (cs.duckdbPath != null && store == null) {
            throw new IOException("the console's store: DuckDB at " + cs.duckdbPath + " did not open: "
                    + collector.clickhouse().lastError());
        }
        if (store != null) {
            return duckDb(store, settings);
        }
        return clickHouse(URI.create(cs.clickhouseUrl), cs.clickhouseDatabase, cs.clickhouseUser,
                cs.clickhousePassword, cs.clickhouseCaFile, settings);
    }

    /** The console over the embedded store of this process. */
    static Running duckDb(DuckDbStore store, ConsoleSettings settings) throws IOException {
        JdbcQueryRunner runner = store.queryRunner();
        return start(settings, runner, SqlDialect.duckDb());
    }

    /**
     * The console over a DuckDB file that no process writes (a stopped collector's, a copy), opened read-only.
     *
     * @param file the file
     * @param schema the schema holding the tables ({@code vecflow})
     */
    static Running duckDbFile(Path file, String schema, ConsoleSettings settings) throws IOException {
        JdbcQueryRunner runner;
        try {
            runner = JdbcQueryRunner.readOnly(file, schema);
        } catch (IOException e) {
            throw new IOException("--store " + e.getMessage(), e);
        }
        return start(settings, runner, SqlDialect.duckDb());
    }

    /**
     * The console over a ClickHouse server (its version decides the SQL: 18.16's FixedString(16) or IPv6).
     *
     * @param caFile PEM CA certificates of an {@code https://} server, or null for the JVM's CAs
     */
    static Running clickHouse(URI url, String database, String user, String password, Path caFile,
            ConsoleSettings settings) throws IOException {
        ClickHouseHttpQueryRunner runner;
        try {
            runner = new ClickHouseHttpQueryRunner(url, database, user, password, caFile);
        } catch (IllegalArgumentException e) {
            throw new IOException("ClickHouse at " + url + ": " + e.getMessage(), e);
        }
        String version;
        try {
            version = runner.serverVersion();
        } catch (QueryRunner.StoreException e) {
            throw new IOException("ClickHouse at " + url + ": " + e.getMessage(), e);
        }
        return start(settings, runner, SqlDialect.clickHouse(FlowSchema.ServerFeatures.fromVersion(version)));
    }

    private static ConsoleApi api(QueryRunner runner, SqlDialect dialect) {
        return new ConsoleApi(runner, dialect, version());
    }

    private static Running start(ConsoleSettings settings, QueryRunner runner, SqlDialect dialect)
            throws IOException {
        AutoCloseable closer = runner instanceof AutoCloseable a ? a : null;
        try {
            return new Running(ConsoleServer.start(settings, api(runner, dialect)), closer);
        } catch (IOException e) {
            closeQuietly(closer);
            throw e;
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // already failing: the caller reports the first error
            }
        }
    }
}
