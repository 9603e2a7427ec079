package io.vecflow.collector.query;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link QueryRunner} over JDBC (DuckDB: {@code DriverManager.getConnection("jdbc:duckdb:…")}, or a
 * {@code DuckDBConnection.duplicate()} of the writer's database). Each query takes a connection from the supplier
 * and closes it after; the timeout is enforced by {@link Statement#cancel()} from a timer thread (DuckDB interrupts
 * the running query), since not every driver honours {@link Statement#setQueryTimeout}.
 */
public final class JdbcQueryRunner implements QueryRunner, AutoCloseable {
    /** Opens a connection for one query. */
    @FunctionalInterface
    public interface Connections {
        /** @return a new connection, closed by the runner after the query @throws SQLException when it fails */
        Connection open() throws SQLException;
    }

    private final Connections connections;
    private final AutoCloseable onClose;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "console-query-timeout");
        t.setDaemon(true);
        return t;
    });

    /** @param connections opens a connection per query */
    public JdbcQueryRunner(Connections connections) {
        this(connections, null);
    }

    private JdbcQueryRunner(Connections connections, AutoCloseable onClose) {
        this.connections = connections;
        this.onClose = onClose;
    }

    /**
     * A runner over a DuckDB file no process writes (a stopped collector's, a copy), opened read-only; closing the
     * runner closes the file.
     *
     * @param file the DuckDB file
     * @param schema the schema holding the tables ({@code vecflow})
     * @return the runner
     * @throws IOException when the file is missing or cannot be opened read-only (a running collector holds it)
     */
    public static JdbcQueryRunner readOnly(Path file, String schema) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException(file + ": no such file (the collector's duckdb.path, by default "
                    + "/var/lib/vecflow/vecflow.duckdb)");
        }
        if (!schema.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IOException("schema " + schema + ": not an identifier");
        }
        Properties p = new Properties();
        p.setProperty("duckdb.read_only", "true");
        Connection shared;
        try {
            shared = DriverManager.getConnection("jdbc:duckdb:" + file.toAbsolutePath(), p);
        } catch (SQLException e) {
            String m = firstLine(e.getMessage());
            String lower = m.toLowerCase(java.util.Locale.ROOT);
            // another process: "Could not set lock on file"; this process: "same database file with a different
            // configuration"
            boolean locked = lower.contains("lock") || lower.contains("same database file");
            throw new IOException(file + " cannot be opened read-only" + (locked ? " (a running collector holds "
                    + "it: turn on its console: section instead)" : "") + ": " + m, e);
        }
        try (Statement s = shared.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM information_schema.schemata WHERE schema_name = '"
                        + schema + "'")) {
            if (!rs.next() || rs.getLong(1) == 0) {
                shared.close();
                throw new IOException(file + " holds no schema " + schema + " (not a vecflow store, or another "
                        + "--database)");
            }
        } catch (SQLException e) {
            try {
                shared.close();
            } catch (SQLException ignored) {
                // already failing: the first error is the one to report
            }
            throw new IOException(file + ": " + firstLine(e.getMessage()), e);
        }
        org.duckdb.DuckDBConnection base = (org.duckdb.DuckDBConnection) shared;
        return new JdbcQueryRunner(() -> {
            Connection c = base.duplicate();
            try (Statement s = c.createStatement()) {
                s.execute("USE " + schema);
            }
            return c;
        }, shared);
    }

    @Override
    public List<List<String>> query(String sql, Duration timeout) throws StoreException {
        try (Connection c = connections.open(); Statement s = c.createStatement()) {
            AtomicBoolean cancelled = new AtomicBoolean();
            ScheduledFuture<?> f = timer.schedule(() -> {
                cancelled.set(true);
                try {
                    s.cancel();
                } catch (SQLException e) {
                    // the statement finished or closed meanwhile: nothing to stop
                }
            }, timeout.toMillis(), TimeUnit.MILLISECONDS);
            try (ResultSet rs = s.executeQuery(sql)) {
                int n = rs.getMetaData().getColumnCount();
                List<List<String>> out = new ArrayList<>();
                while (rs.next()) {
                    if (cancelled.get()) {
                        throw new StoreException("query timed out after " + timeout.toMillis() + " ms", null);
                    }
                    List<String> row = new ArrayList<>(n);
                    for (int k = 1; k <= n; k++) {
                        row.add(rs.getString(k));
                    }
                    out.add(row);
                }
                return out;
            } catch (SQLException e) {
                if (cancelled.get()) {
                    throw new StoreException("query timed out after " + timeout.toMillis() + " ms", e);
                }
                throw e;
            } finally {
                f.cancel(false);
            }
        } catch (SQLException e) {
            throw new StoreException("store: " + firstLine(e.getMessage()), e);
        }
    }

    static String firstLine(String m) {
        if (m == null) {
            return "error without a message";
        }
        String s = m.strip();
        int nl = s.indexOf('\n');
        s = nl < 0 ? s : s.substring(0, nl);
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        if (onClose != null) {
            try {
                onClose.close();
            } catch (Exception e) {
                // closing a read-only file: nothing was written, nothing to report
            }
        }
    }
}
