package io.vecflow.collector;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.QueryResponse;
import com.clickhouse.data.ClickHouseFormat;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batched inserts of flow rows into ClickHouse through the official Java client (client-v2, HTTP), RowBinary format.
 * Rows accumulate in memory and are inserted when {@code batchRows} are pending or every {@code flushInterval}; an
 * insert that fails is retried, then its rows are counted as failed.
 *
 * <p>Works with ClickHouse 18.16 (Debian 12) as well as current servers: responses uncompressed, every statement
 * names its FORMAT and fully qualified table (the old server ignores the format and database headers).
 */
public final class ClickHouseSink implements FlowSink {
    private static final Logger log = LoggerFactory.getLogger(ClickHouseSink.class);

    private static final java.util.List<String> COLUMNS = FlowSchema.columnNames();
    private final Client client;
    private final String database;
    private final String table;
    private final int batchRows;
    private final FlowSchema.ServerFeatures features;
    private final ReentrantLock appendLock = new ReentrantLock();
    private final ReentrantLock flushLock = new ReentrantLock();
    private RowBinaryWriter active = new RowBinaryWriter(1 << 20);
    private RowBinaryWriter spare = new RowBinaryWriter(1 << 20);
    private final AtomicLong written = new AtomicLong(), failed = new AtomicLong(), inserts = new AtomicLong();
    private final ScheduledExecutorService timer;

    /**
     * Connects, probes the server version, and creates the database and {@code flows} table if missing.
     *
     * @param url HTTP endpoint, e.g. {@code http://127.0.0.1:8123}
     * @param user user name ({@code default})
     * @param password password (may be empty)
     * @param database database to write into (created if missing)
     * @param batchRows rows per insert (ClickHouse advises 10k–100k)
     * @param flushIntervalMs longest time a row waits before it is inserted, in ms
     * @throws IOException if the server cannot be reached, does not answer with a version, or refuses the DDL; the
     *     message names the URL
     * @throws IllegalArgumentException if the database name is not a plain identifier
     */
    public ClickHouseSink(String url, String user, String password, String database, int batchRows,
            long flushIntervalMs) throws IOException {
        if (!database.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("bad ClickHouse database name: " + database);
        }
        this.database = database;
        this.table = database + ".flows";
        this.batchRows = batchRows;
        this.client = new Client.Builder()
                .addEndpoint(url)
                .setUsername(user)
                .setPassword(password == null ? "" : password)
                .compressServerResponse(false)
                .compressClientRequest(false)
                .setMaxRetries(2)
                .build();
        String version;
        try {
            version = queryString("SELECT version() FORMAT TabSeparated").trim();
            this.features = FlowSchema.ServerFeatures.fromVersion(version);
            execute("CREATE DATABASE IF NOT EXISTS " + database);
            execute(FlowSchema.createFlows(database, features, 15));
        execute(FlowSchema.createAgentLoss(database, features, 90));
        java.util.Set<String> existing = new java.util.HashSet<>(java.util.Arrays.asList(queryString(
                "SELECT name FROM system.columns WHERE database = '" + database + "' AND table = 'flows' "
                        + "FORMAT TabSeparated").split("\n")));
        for (String alter : FlowSchema.addMissingColumns(database, existing, features)) {
            execute(alter);
            log.info("migrated {}.flows: {}", database, alter);
        }
        } catch (IOException | RuntimeException e) {
            client.close();
            throw new IOException("ClickHouse at " + url + ": " + e.getMessage(), e);
        }
        log.debug("ClickHouse {} at {}: writing {}", version, url, table);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "clickhouse-flush");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::flushQuietly, flushIntervalMs, flushIntervalMs, TimeUnit.MILLISECONDS);
    }

    /** @return what the server supports. */
    public FlowSchema.ServerFeatures features() {
        return features;
    }

    /**
     * Runs a statement that returns nothing.
     *
     * @throws IOException on failure, with the server's message
     */
    public void execute(String sql) throws IOException {
        try {
            client.execute(sql).get(60, TimeUnit.SECONDS).close();
        } catch (Exception e) {
            throw new IOException("ClickHouse refused: " + sql.lines().findFirst().orElse(sql) + ": " + rootMessage(e),
                    e);
        }
    }

    /**
     * Runs a query whose SQL names its output format and returns the response body as text.
     *
     * @throws IOException on failure
     */
    public String queryString(String sql) throws IOException {
        try (QueryResponse r = client.query(sql).get(60, TimeUnit.SECONDS); InputStream in = r.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (Exception e) {
            throw new IOException("ClickHouse query failed: " + sql + ": " + rootMessage(e), e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage();
    }

    @Override
    public void accept(FlowRow row) {
        boolean full;
        appendLock.lock();
        try {
            active.writeFlow(row);
            full = active.rows() >= batchRows;
        } finally {
            appendLock.unlock();
        }
        if (full) {
            timer.execute(this::flushQuietly);
        }
    }

    private void flushQuietly() {
        try {
            flush();
        } catch (Exception e) {
            log.warn("ClickHouse insert failed: {}", rootMessage(e));
        }
    }

    @Override
    public void flush() throws IOException {
        flushLock.lock();
        try {
            RowBinaryWriter batch;
            appendLock.lock();
            try {
                if (active.rows() == 0) {
                    return;
                }
                batch = active;
                active = spare;
                spare = batch;
            } finally {
                appendLock.unlock();
            }
            int rows = batch.rows();
            Exception last = null;
            for (int attempt = 0; attempt < 3; attempt++) {
                try {
                    client.insert(table, COLUMNS, new ByteArrayInputStream(batch.buffer(), 0, batch.size()),
                            ClickHouseFormat.RowBinary).get(60, TimeUnit.SECONDS).close();
                    written.addAndGet(rows);
                    inserts.incrementAndGet();
                    batch.reset();
                    return;
                } catch (Exception e) {
                    last = e;
                    try {
                        Thread.sleep(200L << attempt);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
            failed.addAndGet(rows);
            batch.reset();
            throw new IOException("insert of " + rows + " rows into " + table + " failed: " + rootMessage(last), last);
        } finally {
            flushLock.unlock();
        }
    }

    /**
     * Inserts rows already encoded in RowBinary into another table of the database (used for agent_loss).
     *
     * @param table table name without the database
     * @param columns column list, in the rows' order
     * @param w the encoded rows
     * @throws IOException if the insert fails after retries
     */
    public void insertRows(String table, java.util.List<String> columns, RowBinaryWriter w) throws IOException {
        if (w.rows() == 0) {
            return;
        }
        Exception last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                client.insert(database + "." + table, columns, new ByteArrayInputStream(w.buffer(), 0, w.size()),
                        ClickHouseFormat.RowBinary).get(60, TimeUnit.SECONDS).close();
                return;
            } catch (Exception e) {
                last = e;
            }
        }
        throw new IOException("insert of " + w.rows() + " rows into " + database + "." + table + " failed: "
                + rootMessage(last), last);
    }

    @Override
    public long rowsWritten() {
        return written.get();
    }

    @Override
    public long rowsFailed() {
        return failed.get();
    }

    /** @return successful insert statements. */
    public long inserts() {
        return inserts.get();
    }

    @Override
    public String name() {
        return "clickhouse";
    }

    @Override
    public void close() throws Exception {
        timer.shutdown();
        timer.awaitTermination(10, TimeUnit.SECONDS);
        try {
            flush();
        } finally {
            client.close();
        }
    }
}
