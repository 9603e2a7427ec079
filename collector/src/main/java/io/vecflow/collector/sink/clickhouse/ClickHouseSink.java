package io.vecflow.collector.sink.clickhouse;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.client.api.query.QueryResponse;
import com.clickhouse.data.ClickHouseFormat;
import io.vecflow.collector.schema.CounterRow;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.collector.sink.RateLimitedLog;
import io.vecflow.collector.sink.StreamOffsets;
import io.vecflow.collector.sink.duckdb.DuckDbStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batched inserts into ClickHouse through the official Java client (client-v2, HTTP), RowBinary format: flow samples
 * into {@code flows}, discards into {@code drops}, interface counters into {@code if_counters} (the schema is
 * {@link FlowSchema}; it is created or migrated when the sink connects, see {@link SchemaMigrator}).
 *
 * <p><b>Batches</b> are bounded by rows ({@link Settings#batchRows}) and time ({@link Settings#flushMs}) per table.
 * <b>Nothing is dropped</b>: a batch whose insert fails is kept and retried (with capped backoff when the sink
 * flushes by itself; by the caller's next {@link #flush()} otherwise), new rows queue behind it. Memory is bounded by
 * the caller, who asks before each datagram: {@link #canAccept()} (the inlet's in-process path, which spools raw
 * datagrams to disk while it says no) or {@link #wantsFlush()} (the Kafka outlet, which flushes and commits, and
 * stops consuming while a flush fails). Per table at most {@link Settings#maxPendingBytes} wait (plus the rows of one
 * datagram), and as much again may be in an insert.
 * <b>Exactly once</b>: each row carries its datagram's ingest stream and offset; a batch is retried only after asking
 * the table whether it landed anyway (its greatest offset per stream), and rows at or below a loaded watermark
 * ({@link #loadWatermarks}) are skipped as replays, so neither a retried batch nor a Kafka replay after a crash doubles
 * rows. This works on every server version (insert_deduplication_token needs 22.2+).
 *
 * <p><b>Starting while ClickHouse is away</b>: with {@link Settings#waitForServer} false the constructor returns at
 * once and a background thread connects (version probe, schema migration) with capped backoff; until then
 * {@link #connected()} is false, rows queue within the bounds above and inserts fail. Repeated failures are logged once
 * a minute with a count.
 *
 * <p><b>The embedded store</b>: with {@link Settings#duckdb} set, the same batches, retries, watermarks and loss rows
 * go into a DuckDB file ({@link DuckDbStore}: one transaction per batch with its rollups) instead of a server; the
 * ClickHouse-only parts (migrations, partition retention, {@link #features()}) are not used then.
 *
 * <p>Works with ClickHouse 18.16 (Debian 12) as well as current servers: responses uncompressed, every statement
 * names its FORMAT and fully qualified table (the old server ignores the format and database headers); per-server
 * insert settings come from {@link FlowSchema.ServerFeatures}.
 */
public final class ClickHouseSink implements FlowSink {
    private static final Logger log = LoggerFactory.getLogger(ClickHouseSink.class);

    /** Sink settings. */
    public static final class Settings {
        /** HTTP endpoint, e.g. {@code http://127.0.0.1:8123} (unused with {@link #duckdb}). */
        public String url;
        /**
         * The embedded store's file instead of a ClickHouse server (null: ClickHouse at {@link #url}); its tables are
         * in the schema {@link #database}, retention by {@link #ttlDays} (rows deleted hourly).
         */
        public java.nio.file.Path duckdb;
        /** User (default {@code default}). */
        public String user = "default";
        /** Password (default empty). */
        public String password = "";
        /** PEM CA certificates that sign an {@code https://} server's certificate, or null for the JVM's CAs. */
        public java.nio.file.Path caFile;
        /** Database (default {@code vecflow}; created if missing). */
        public String database = "vecflow";
        /** Rows per insert (default 50,000; ClickHouse advises 10k–100k). */
        public int batchRows = 50_000;
        /** Longest time a row waits before its insert, ms (default 1000). */
        public long flushMs = 1000;
        /**
         * Bytes of encoded rows that may wait per table (default 64 MiB): {@link #canAccept()} says no beyond it,
         * {@link #wantsFlush()} says yes from half of it.
         */
        public long maxPendingBytes = 64L << 20;
        /**
         * True (default): the constructor connects and throws if ClickHouse cannot be reached. False: it returns at
         * once and connects in the background, retrying with capped backoff (1 s .. 30 s).
         */
        public boolean waitForServer = true;
        /** Retention in days per table name; tables not listed keep {@link FlowSchema.Table#ttlDays()}. */
        public Map<String, Integer> ttlDays = new HashMap<>();
        /** Tables defined outside the collector (the lab's), created and migrated after the collector's own. */
        public List<FlowSchema.Table> extraTables = List.of();
        /** How far back watermark queries look, days (default 7; the raw topic keeps one day). */
        public int watermarkLookbackDays = 7;
        /**
         * Whether the sink flushes by itself (timer and full batches). False when the caller drives flushes, as the
         * Kafka outlet does to commit offsets only after its rows are stored.
         */
        public boolean autoFlush = true;

        /**
         * @param file the DuckDB file
         * @return settings for the embedded store with every other value at its default
         */
        public static Settings duckDb(java.nio.file.Path file) {
            Settings s = new Settings();
            s.duckdb = file;
            return s;
        }

        /** @return where the rows go, for messages: {@code ClickHouse at URL} or {@code DuckDB at FILE} */
        public String where() {
            return duckdb != null ? "DuckDB at " + duckdb : "ClickHouse at " + url;
        }

        /** @return settings for a URL with every other value at its default. */
        public static Settings of(String url) {
            Settings s = new Settings();
            s.url = url;
            return s;
        }
    }

    private final Client client; // null with the embedded store
    private volatile DuckDbStore duck;
    private final String database;
    private volatile FlowSchema.ServerFeatures features;
    final Settings settings;
    private final TableBatch flows, drops, counters, lbDecisions, lbCounters;
    private final TableBatch[] batches;
    final ScheduledExecutorService timer;
    private volatile Retention retention;
    volatile boolean connected, closed;
    volatile String lastError = "";
    private final Thread connector;
    final RateLimitedLog warn = new RateLimitedLog(log, 60_000);
    /** Test hook: this many successful inserts report a failure afterwards (to prove retries do not double rows). */
    public volatile int failAfterInsertForTest;
    /** Test hook: this many successful {@link #insertRows} report a failure afterwards. */
    public volatile int failRowsAfterInsertForTest;
    /** Test hook: while true every insert fails (as when the server is away). */
    public volatile boolean failInsertsForTest;

    /**
     * Connects, probes the server version, creates or migrates the schema.
     *
     * @param url HTTP endpoint, e.g. {@code http://127.0.0.1:8123}
     * @param user user name ({@code default})
     * @param password password (may be empty)
     * @param database database to write into (created if missing)
     * @param batchRows rows per insert
     * @param flushIntervalMs longest time a row waits before it is inserted, in ms
     * @throws IOException if the server cannot be reached, does not answer with a version, or refuses the DDL
     */
    public ClickHouseSink(String url, String user, String password, String database, int batchRows,
            long flushIntervalMs) throws IOException {
        this(settings(url, user, password, database, batchRows, flushIntervalMs));
    }

    private static Settings settings(String url, String user, String password, String database, int batchRows,
            long flushMs) {
        Settings s = Settings.of(url);
        s.user = user;
        s.password = password;
        s.database = database;
        s.batchRows = batchRows;
        s.flushMs = flushMs;
        return s;
    }

    /**
     * Connects ({@code SELECT version()}), creates or migrates the schema, and starts the flush timer (and, on servers
     * without TTL, the hourly partition retention, first run 10 minutes after connecting). With
     * {@link Settings#waitForServer} false, connecting happens in the background and this never fails for an
     * unreachable server.
     *
     * @throws IOException with {@code waitForServer}, if the server cannot be reached, does not answer with a
     *     version, or refuses the DDL; the message names the URL
     * @throws IllegalArgumentException if the database name is not a plain identifier or a setting is out of range
     */
    public ClickHouseSink(Settings s) throws IOException {
        if (s.database == null || !s.database.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("bad ClickHouse database name: " + s.database
                    + " (letters, digits and _ only)");
        }
        if (s.batchRows < 1 || s.flushMs < 1 || s.maxPendingBytes < 1024) {
            throw new IllegalArgumentException("ClickHouse batch-rows and flush-ms must be ≥ 1 and max-pending-bytes "
                    + "≥ 1024 (got " + s.batchRows + ", " + s.flushMs + ", " + s.maxPendingBytes + ")");
        }
        this.settings = s;
        this.database = s.database;
        if (s.duckdb == null) {
            Client.Builder cb = new Client.Builder()
                    .addEndpoint(s.url)
                    .setUsername(s.user)
                    .setPassword(s.password == null ? "" : s.password)
                    .compressServerResponse(false)
                    .compressClientRequest(false)
                    .setMaxRetries(0);
            if (s.caFile != null) {
                cb.setRootCertificate(s.caFile.toString());
            }
            this.client = cb.build();
        } else {
            this.client = null;
        }
        flows = new TableBatch(this, FlowSchema.table("flows"));
        drops = new TableBatch(this, FlowSchema.table("drops"));
        counters = new TableBatch(this, FlowSchema.table("if_counters"));
        lbDecisions = new TableBatch(this, FlowSchema.table("lb_decisions"));
        lbCounters = new TableBatch(this, FlowSchema.table("lb_counters"));
        batches = new TableBatch[] {flows, drops, counters, lbDecisions, lbCounters};
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "clickhouse-flush");
            t.setDaemon(true);
            return t;
        });
        if (s.waitForServer) {
            try {
                connect();
            } catch (IOException | RuntimeException e) {
                timer.shutdownNow();
                if (client != null) {
                    client.close();
                }
                throw new IOException(s.duckdb != null ? e.getMessage() : s.where() + ": " + e.getMessage(), e);
            }
            connector = null;
        } else {
            connector = new Thread(this::connectLoop, "clickhouse-connect");
            connector.setDaemon(true);
            connector.start();
        }
        if (s.autoFlush) {
            timer.scheduleWithFixedDelay(this::flushQuietly, s.flushMs, Math.min(s.flushMs, 100),
                    TimeUnit.MILLISECONDS);
        }
    }

    /** Probes the version, migrates the schema, starts retention; then {@link #connected()} is true. */
    private void connect() throws IOException {
        if (settings.duckdb != null) {
            DuckDbStore d = new DuckDbStore(settings.duckdb, database);
            duck = d;
            timer.scheduleWithFixedDelay(this::duckRetentionQuietly, 0, 60, TimeUnit.MINUTES);
            connected = true;
            return;
        }
        String version = queryString("SELECT version() FORMAT TabSeparated").trim();
        FlowSchema.ServerFeatures f = FlowSchema.ServerFeatures.fromVersion(version);
        new SchemaMigrator(this, database, f, settings.ttlDays, settings.extraTables).migrate();
        this.features = f;
        if (!f.ttl()) {
            Retention r = new Retention(this, database, settings.ttlDays);
            retention = r;
            // First run 10 minutes after connecting (not at once: a collector restarted in a loop would otherwise
            // scan system.parts on every start), then hourly.
            timer.scheduleWithFixedDelay(r::runQuietly, 10, 60, TimeUnit.MINUTES);
        }
        connected = true;
        log.debug("ClickHouse {} at {}: writing {}", version, settings.url, database);
    }

    private void duckRetentionQuietly() {
        try {
            List<String> deleted = duck.retention(settings.ttlDays, System.currentTimeMillis() / 1000);
            if (!deleted.isEmpty()) {
                log.info("{}: retention deleted {}", settings.where(), deleted);
            }
        } catch (IOException | RuntimeException e) {
            warn.warn("retention", "{}: retention failed (retrying in an hour): {}", settings.where(), e.getMessage());
        }
    }

    /** @return the embedded store, or null when the sink writes ClickHouse (or has not opened the file yet) */
    public DuckDbStore duckDb() {
        return duck;
    }

    private void connectLoop() {
        long backoffMs = 1000;
        long t0 = System.nanoTime();
        while (!closed) {
            try {
                connect();
                if (System.nanoTime() - t0 > 2_000_000_000L) {
                    log.info("{} reached after {} s", settings.where(),
                            (System.nanoTime() - t0) / 1_000_000_000L);
                }
                warn.reset("connect");
                return;
            } catch (IOException | RuntimeException e) {
                lastError = rootMessage(e);
                warn.warn("connect", "{} cannot be reached yet (retrying, at most every 30 s): {}",
                        settings.where(), lastError);
            }
            try {
                Thread.sleep(backoffMs);
            } catch (InterruptedException e) {
                return;
            }
            backoffMs = Math.min(backoffMs * 2, 30_000);
        }
    }

    /** @return whether the sink reached the server and set up the schema (false while it keeps trying). */
    public boolean connected() {
        return connected;
    }

    /** @return the last error talking to the server ("" if none yet). */
    public String lastError() {
        return lastError;
    }

    /**
     * @return what the server supports
     * @throws IllegalStateException before the sink connected
     */
    public FlowSchema.ServerFeatures features() {
        FlowSchema.ServerFeatures f = features;
        if (f == null) {
            throw new IllegalStateException(settings.where() + " not reached yet (or not a ClickHouse server)");
        }
        return f;
    }

    /** @return the database written into. */
    public String database() {
        return database;
    }

    /** @return partition retention for servers without TTL, or null when the server applies TTLs itself. */
    public Retention retention() {
        return retention;
    }

    /**
     * Runs a statement that returns nothing.
     *
     * @throws IOException on failure, with the server's message
     */
    public void execute(String sql) throws IOException {
        if (duck != null) {
            duck.execute(sql);
            return;
        }
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
        if (duck != null) { // TabSeparated, as the ClickHouse callers ask
            StringBuilder b = new StringBuilder();
            for (List<String> row : duck.query(sql.replaceFirst("(?i)\\s+FORMAT\\s+TabSeparated\\s*$", ""))) {
                b.append(String.join("\t", row.stream().map(v -> v == null ? "\\N" : v).toList())).append('\n');
            }
            return b.toString();
        }
        try (QueryResponse r = client.query(sql).get(60, TimeUnit.SECONDS); InputStream in = r.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (Exception e) {
            throw new IOException("ClickHouse query failed: " + sql + ": " + rootMessage(e), e);
        }
    }

    /** @return the rows of a TabSeparated query, split into fields (empty result = empty list). */
    List<String[]> queryRows(String sql) throws IOException {
        List<String[]> out = new ArrayList<>();
        for (String line : queryString(sql).split("\n")) {
            if (!line.isEmpty()) {
                out.add(line.split("\t", -1));
            }
        }
        return out;
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        boolean tls = false;
        while (t.getCause() != null) {
            tls |= t instanceof javax.net.ssl.SSLException;
            t = t.getCause();
        }
        tls |= t instanceof javax.net.ssl.SSLException;
        return tls ? "TLS: " + t.getMessage() + " (the server's certificate must be signed by clickhouse.ca-file, or "
                + "by a CA the JVM trusts when it is empty, and name the host in clickhouse.url)" : t.getMessage();
    }

    @Override
    public void accept(FlowRow row) {
        TableBatch b = row.sampleType == FlowRow.DISCARD ? drops : flows;
        b.appendLock.lock();
        try {
            if (!b.admit(row.ingestStream, row.ingestOffset)) {
                return;
            }
            if (b == drops) {
                b.active.writeDrop(row);
            } else {
                b.active.writeFlow(row);
            }
            b.appended(row.ingestStream, row.ingestOffset);
        } finally {
            b.appendLock.unlock();
        }
        b.flushIfFull();
        if (row.hasLbDecision) {
            acceptLbDecision(row);
        }
    }

    /** One lb_decisions row for a flow sample that carried an LB decision record. */
    private void acceptLbDecision(FlowRow row) {
        TableBatch b = lbDecisions;
        b.appendLock.lock();
        try {
            if (!b.admit(row.ingestStream, row.ingestOffset)) {
                return;
            }
            b.active.writeLbDecision(row);
            b.appended(row.ingestStream, row.ingestOffset);
        } finally {
            b.appendLock.unlock();
        }
        b.flushIfFull();
    }

    /** @return lb_decisions rows written. */
    public long lbDecisionRowsWritten() {
        return lbDecisions.written.get();
    }

    /** One lb_counters row for a "vecflow LB counters" record. */
    @Override
    public void acceptLbCounters(CounterRow row) {
        TableBatch b = lbCounters;
        b.appendLock.lock();
        try {
            if (!b.admit(row.ingestStream, row.ingestOffset)) {
                return;
            }
            b.active.writeLbCounters(row);
            b.appended(row.ingestStream, row.ingestOffset);
        } finally {
            b.appendLock.unlock();
        }
        b.flushIfFull();
    }

    /** @return lb_counters rows written. */
    public long lbCounterRowsWritten() {
        return lbCounters.written.get();
    }

    @Override
    public void acceptCounters(CounterRow row) {
        TableBatch b = counters;
        b.appendLock.lock();
        try {
            if (!b.admit(row.ingestStream, row.ingestOffset)) {
                return;
            }
            b.active.writeCounters(row);
            b.appended(row.ingestStream, row.ingestOffset);
        } finally {
            b.appendLock.unlock();
        }
        b.flushIfFull();
    }

    /**
     * Whether the rows of one more datagram may be queued now without going beyond
     * {@link Settings#maxPendingBytes} in any table: false while a table is full, e.g. because ClickHouse is away
     * and its batch waits for a retry. The inlet's in-process path asks before decoding each datagram and spools
     * the datagram while the answer is no.
     */
    public boolean canAccept() {
        for (TableBatch b : batches) {
            if (b.active.size() >= settings.maxPendingBytes) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether the caller should flush now: a table holds {@link Settings#batchRows} rows or half of
     * {@link Settings#maxPendingBytes}. The Kafka outlet asks after each record and then flushes and commits, so
     * its memory stays bounded however far behind it is.
     */
    public boolean wantsFlush() {
        for (TableBatch b : batches) {
            if (b.active.rows() >= settings.batchRows || b.active.size() >= settings.maxPendingBytes / 2) {
                return true;
            }
        }
        return false;
    }

    /** @return whether a batch waits for a retry after a failed insert (in any table). */
    public boolean retrying() {
        for (TableBatch b : batches) {
            if (b.retry) {
                return true;
            }
        }
        return false;
    }

    /** @return rows waiting in batches whose insert failed and will be retried, all tables. */
    public long rowsRetrying() {
        long n = 0;
        for (TableBatch b : batches) {
            n += b.retryRows;
        }
        return n;
    }

    /** @return rows queued and not yet inserted (pending and retrying), all tables. */
    public long rowsPending() {
        long n = 0;
        for (TableBatch b : batches) {
            n += b.active.rows() + b.retryRows;
        }
        return n;
    }

    void flushQuietly() {
        long now = System.nanoTime();
        for (TableBatch b : batches) {
            if (!b.dueForTimedFlush(now)) {
                continue;
            }
            try {
                b.flush();
            } catch (IOException e) {
                // counted and logged by the batch; retried after its backoff
            } catch (RuntimeException e) {
                warn.warn("flush-" + b.table.name(), "ClickHouse flush of {} failed: {}", b.qualified, e.toString());
            }
        }
    }

    /**
     * Inserts every pending row of every table and waits: first any batch kept from a failed insert, then what
     * queued behind it. Rows are never dropped: on failure they stay queued for the next call.
     *
     * @throws IOException if a table's insert failed (its rows stay queued and are counted in
     *     {@link #rowsRetrying()}); the message names the table and the server's answer
     */
    @Override
    public void flush() throws IOException {
        IOException first = null;
        try {
            asNames.write(this);
        } catch (IOException e) {
            first = e; // kept for the next flush; the rows go on
        }
        for (TableBatch b : batches) {
            try {
                b.flush();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private final AsNames asNames = new AsNames();

    /**
     * Queues the AS names of the enrichment's AS databases for the {@code asns} table: written at the next flush
     * (and kept until one succeeds). A newer map replaces one not written yet.
     *
     * @param names AS number → name
     */
    public void asNames(java.util.Map<Long, io.vecflow.collector.schema.Label> names) {
        asNames.offer(names);
    }

    /**
     * Forgets every queued row (pending and retrying) without inserting it: the Kafka outlet calls this when its
     * partitions move to another outlet while a flush fails; the new owner replays them from the committed offsets.
     * Counted in {@link #rowsReleased()}.
     */
    public void release() {
        for (TableBatch b : batches) {
            b.release();
        }
    }

    /**
     * Loads, for the given streams, the greatest offset each table already holds; rows at or below it are skipped
     * from then on (counted in {@link #rowsReplaySkipped()}). The Kafka outlet calls this when partitions are
     * assigned, before it replays from the committed offsets.
     *
     * @param streams stream ids (Kafka partitions)
     * @throws IOException if a query fails (or the sink has not connected yet)
     */
    public void loadWatermarks(long[] streams) throws IOException {
        requireConnected();
        for (TableBatch b : batches) {
            b.loadWatermarks(streams);
        }
    }

    /**
     * The greatest IngestOffset stored per stream in one table of the database (within the watermark lookback).
     *
     * @param table table name without the database, e.g. {@code agents}
     * @param streams stream ids
     * @return stream → greatest offset (absent streams: none stored)
     * @throws IOException if the query fails
     */
    public StreamOffsets storedOffsets(String table, long[] streams) throws IOException {
        requireConnected();
        return storedMax(database + "." + table, streams, 0);
    }

    private void requireConnected() throws IOException {
        if (!connected) {
            throw new IOException(settings.where() + " not reached yet" + (lastError.isEmpty() ? ""
                    : ": " + lastError));
        }
    }

    /**
     * Inserts rows already encoded in RowBinary into another table of the database (used for agents).
     *
     * @param table table name without the database
     * @param columns column list, in the rows' order
     * @param w the encoded rows
     * @throws IOException if the insert fails (one attempt; the caller keeps the rows and retries)
     */
    public void insertRows(String table, List<String> columns, RowBinaryWriter w) throws IOException {
        if (w.rows() == 0) {
            return;
        }
        requireConnected();
        try {
            insert(database + "." + table, columns, w);
            if (failRowsAfterInsertForTest > 0) {
                failRowsAfterInsertForTest--;
                throw new IOException("injected: the insert landed but its answer was lost");
            }
        } catch (Exception e) {
            lastError = rootMessage(e);
            throw new IOException("insert of " + w.rows() + " rows into " + database + "." + table + " failed: "
                    + lastError, e);
        }
    }

    void insert(String table, List<String> columns, RowBinaryWriter w) throws Exception {
        if (failInsertsForTest) {
            throw new IOException("injected: ClickHouse away");
        }
        if (duck != null) {
            duck.insert(unqualified(table), columns, w.buffer(), w.size(), w.rows());
            return;
        }
        InsertSettings is = new InsertSettings();
        if (features.asyncInsertSetting()) {
            is.serverSetting("async_insert", "0");
        }
        client.insert(table, columns, new ByteArrayInputStream(w.buffer(), 0, w.size()), ClickHouseFormat.RowBinary,
                is).get(60, TimeUnit.SECONDS).close();
    }

    @Override
    public long rowsWritten() {
        return flows.written.get() + drops.written.get();
    }

    /** @return 0: rows whose insert fails are kept and retried, never given up ({@link #rowsRetrying()}). */
    @Override
    public long rowsFailed() {
        return 0;
    }

    /** @return insert attempts that failed (each batch is retried until it lands), all tables. */
    public long insertFailures() {
        long n = 0;
        for (TableBatch b : batches) {
            n += b.insertFailures.get();
        }
        return n;
    }

    /** @return rows forgotten by {@link #release()} (to be replayed by another outlet), all tables. */
    public long rowsReleased() {
        long n = 0;
        for (TableBatch b : batches) {
            n += b.released.get();
        }
        return n;
    }

    /** @return rows skipped because the table already held their offset (replays), all tables. */
    public long rowsReplaySkipped() {
        long n = 0;
        for (TableBatch b : batches) {
            n += b.replaySkipped.sum();
        }
        return n;
    }

    /** @return batches found already stored when a retry asked (not inserted twice), all tables. */
    public long batchesFoundStored() {
        long n = 0;
        for (TableBatch b : batches) {
            n += b.foundStored.get();
        }
        return n;
    }

    /** @return if_counters rows written. */
    public long counterRowsWritten() {
        return counters.written.get();
    }

    /** @return successful insert statements (flows, drops, if_counters). */
    public long inserts() {
        return flows.inserts.get() + drops.inserts.get() + counters.inserts.get();
    }

    /** @return bytes of encoded rows waiting, all tables (bounded by 2 × tables × maxPendingBytes). */
    public long pendingBytes() {
        long n = 0;
        for (TableBatch b : batches) {
            n += b.pendingBytes();
        }
        return n;
    }

    /** @return seconds since the last successful insert into any table, or since start when none yet. */
    public double secondsSinceLastInsert() {
        long last = startNanos;
        for (TableBatch b : batches) {
            last = Math.max(last, b.lastSuccessNanos);
        }
        return (System.nanoTime() - last) / 1e9;
    }

    private final long startNanos = System.nanoTime();

    /**
     * Per-table counters for metrics.
     *
     * @return one entry per table written by this sink
     */
    public List<TableStats> tableStats() {
        List<TableStats> out = new ArrayList<>();
        for (TableBatch b : batches) {
            out.add(new TableStats(b.table.name(), b.written.get(), b.retryRows, b.active.rows(),
                    b.replaySkipped.sum(), b.released.get(), b.inserts.get(), b.insertFailures.get(),
                    b.lastInsertNanos));
        }
        return out;
    }

    /**
     * Counters of one table.
     *
     * @param table table name
     * @param written rows inserted
     * @param retrying rows of a batch whose insert failed, waiting for its retry
     * @param pending rows queued behind it
     * @param replaySkipped rows skipped as already stored
     * @param released rows forgotten for another outlet to replay
     * @param inserts successful insert statements
     * @param insertFailures insert attempts that failed
     * @param lastInsertNanos duration of the last successful insert, ns
     */
    public record TableStats(String table, long written, long retrying, long pending, long replaySkipped,
            long released, long inserts, long insertFailures, long lastInsertNanos) {}

    @Override
    public String name() {
        return settings.duckdb != null ? "duckdb" : "clickhouse";
    }

    /**
     * Stops the timer and the connector, makes a last attempt at inserting what is queued, and closes the client.
     *
     * @throws IOException if that last attempt fails: the rows still queued are lost with the process (logged with
     *     their number)
     */
    @Override
    public void close() throws Exception {
        closed = true;
        if (connector != null) {
            connector.interrupt();
        }
        timer.shutdown();
        timer.awaitTermination(10, TimeUnit.SECONDS);
        try {
            if (connected) {
                flush();
            }
        } finally {
            long left = rowsPending();
            if (left > 0) {
                log.warn("{} unreachable at shutdown: {} queued rows not stored", settings.where(), left);
            }
            if (client != null) {
                client.close();
            }
            if (duck != null) {
                duck.close();
            }
        }
    }

    /**
     * The greatest IngestOffset stored per stream in a table, looking back from {@code sinceSeconds} (0 = lookback).
     */
    StreamOffsets storedMax(String qualified, long[] streams, long sinceSeconds) throws IOException {
        StringBuilder in = new StringBuilder();
        for (long s : streams) {
            in.append(in.isEmpty() ? "" : ",").append(s);
        }
        long since = sinceSeconds > 0 ? sinceSeconds
                : System.currentTimeMillis() / 1000 - settings.watermarkLookbackDays * 86_400L;
        StreamOffsets out = new StreamOffsets();
        if (streams.length == 0) {
            return out;
        }
        if (duck != null) {
            return duck.storedMax(unqualified(qualified), streams, since);
        }
        for (String[] r : queryRows("SELECT IngestStream, max(IngestOffset) FROM " + qualified
                + " WHERE IngestStream IN (" + in + ") AND TimeReceived >= toDateTime(" + since
                + ") GROUP BY IngestStream FORMAT TabSeparated")) {
            out.max(Long.parseLong(r[0]), Long.parseLong(r[1]));
        }
        return out;
    }

    private String unqualified(String qualified) {
        return qualified.startsWith(database + ".") ? qualified.substring(database.length() + 1) : qualified;
    }

    /**
     * @param table a table of the database (unqualified), e.g. {@code agents}
     * @param stream an ingest stream
     * @param offset an offset in it
     * @return how many rows of the table carry exactly that stream and offset
     * @throws IOException if the query fails
     */
    public long countAt(String table, long stream, long offset) throws IOException {
        requireConnected();
        if (duck != null) {
            return duck.countAt(table, stream, offset);
        }
        return Long.parseLong(queryString("SELECT count() FROM " + database + "." + table + " WHERE IngestStream = "
                + stream + " AND IngestOffset = " + offset + " FORMAT TabSeparated").trim());
    }

    /** @return the set of column names of a table on the server (empty if it does not exist). */
    public Set<String> columnsOf(String table) throws IOException {
        Set<String> out = new HashSet<>();
        for (String[] r : queryRows("SELECT name FROM system.columns WHERE database = '" + database
                + "' AND table = '" + table + "' FORMAT TabSeparated")) {
            out.add(r[0]);
        }
        return out;
    }

    /** @return the names of the tables (and views) in the database. */
    Set<String> tables() throws IOException {
        Set<String> out = new HashSet<>();
        for (String[] r : queryRows("SELECT name FROM system.tables WHERE database = '" + database
                + "' FORMAT TabSeparated")) {
            out.add(r[0]);
        }
        return out;
    }

    @Override
    public String toString() {
        return "ClickHouseSink[" + settings.where() + " " + database + ", pending " + Arrays.toString(
                Arrays.stream(batches).mapToLong(TableBatch::pendingBytes).toArray()) + " bytes]";
    }
}
