package io.vecflow.collector;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.client.api.query.QueryResponse;
import com.clickhouse.data.ClickHouseFormat;
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
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batched inserts into ClickHouse through the official Java client (client-v2, HTTP), RowBinary format: flow samples
 * into {@code flows}, discards into {@code drops}, interface counters into {@code if_counters} (the schema is
 * {@link FlowSchema}; it is created or migrated at start, see {@link SchemaMigrator}).
 *
 * <p><b>Batches</b> are bounded by rows ({@link Settings#batchRows}) and time ({@link Settings#flushMs}) per table.
 * <b>Back-pressure</b>: rows waiting for a table are bounded by {@link Settings#maxPendingBytes}; a row that would go
 * beyond is dropped and counted ({@link #rowsDropped()}), so memory stays bounded when ClickHouse is slow or down.
 * <b>Exactly once</b>: each row carries its datagram's ingest stream and offset; a failed insert is retried (3
 * attempts) only after asking the table whether the batch landed anyway (its greatest offset per stream), and rows at
 * or below a loaded watermark ({@link #loadWatermarks}) are skipped as replays, so neither a retried batch nor a Kafka
 * replay after a crash doubles rows. This works on every server version (insert_deduplication_token needs 22.2+).
 *
 * <p>Works with ClickHouse 18.16 (Debian 12) as well as current servers: responses uncompressed, every statement
 * names its FORMAT and fully qualified table (the old server ignores the format and database headers); servers from
 * 21.1 get {@code async_insert=0} explicitly (26.3 made async inserts the default; storage notes §5).
 */
public final class ClickHouseSink implements FlowSink {
    private static final Logger log = LoggerFactory.getLogger(ClickHouseSink.class);

    /** Sink settings. */
    public static final class Settings {
        /** HTTP endpoint, e.g. {@code http://127.0.0.1:8123}. */
        public String url;
        /** User (default {@code default}). */
        public String user = "default";
        /** Password (default empty). */
        public String password = "";
        /** Database (default {@code vecflow}; created if missing). */
        public String database = "vecflow";
        /** Rows per insert (default 50,000; ClickHouse advises 10k–100k). */
        public int batchRows = 50_000;
        /** Longest time a row waits before its insert, ms (default 1000). */
        public long flushMs = 1000;
        /** Bytes of encoded rows that may wait per table before rows are dropped (default 64 MiB). */
        public long maxPendingBytes = 64L << 20;
        /** Retention in days per table name; tables not listed keep {@link FlowSchema.Table#ttlDays()}. */
        public Map<String, Integer> ttlDays = new HashMap<>();
        /** How far back watermark queries look, days (default 7; the raw topic keeps one day). */
        public int watermarkLookbackDays = 7;
        /**
         * Whether the sink flushes by itself (timer and full batches). False when the caller drives flushes, as the
         * Kafka outlet does to commit offsets only after its rows are stored.
         */
        public boolean autoFlush = true;

        /** @return settings for a URL with every other value at its default. */
        public static Settings of(String url) {
            Settings s = new Settings();
            s.url = url;
            return s;
        }
    }

    private final Client client;
    private final String database;
    private final FlowSchema.ServerFeatures features;
    private final Settings settings;
    private final TableBatch flows, drops, counters, lbDecisions, lbCounters;
    private final TableBatch[] batches;
    private final ScheduledExecutorService timer;
    private final Retention retention;
    /** Test hook: this many successful inserts report a failure afterwards (to prove retries do not double rows). */
    volatile int failAfterInsertForTest;

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
     * Connects, probes the server version ({@code SELECT version()}), creates or migrates the schema, and starts the
     * flush timer (and, on servers without TTL, the hourly partition retention, first run 10 minutes after start).
     *
     * @throws IOException if the server cannot be reached, does not answer with a version, or refuses the DDL; the
     *     message names the URL
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
        this.client = new Client.Builder()
                .addEndpoint(s.url)
                .setUsername(s.user)
                .setPassword(s.password == null ? "" : s.password)
                .compressServerResponse(false)
                .compressClientRequest(false)
                .setMaxRetries(2)
                .build();
        String version;
        try {
            version = queryString("SELECT version() FORMAT TabSeparated").trim();
            this.features = FlowSchema.ServerFeatures.fromVersion(version);
            new SchemaMigrator(this, database, features, s.ttlDays).migrate();
        } catch (IOException | RuntimeException e) {
            client.close();
            throw new IOException("ClickHouse at " + s.url + ": " + e.getMessage(), e);
        }
        flows = new TableBatch(FlowSchema.table("flows"));
        drops = new TableBatch(FlowSchema.table("drops"));
        counters = new TableBatch(FlowSchema.table("if_counters"));
        lbDecisions = new TableBatch(FlowSchema.table("lb_decisions"));
        lbCounters = new TableBatch(FlowSchema.table("lb_counters"));
        batches = new TableBatch[] {flows, drops, counters, lbDecisions, lbCounters};
        log.debug("ClickHouse {} at {}: writing {}", version, s.url, database);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "clickhouse-flush");
            t.setDaemon(true);
            return t;
        });
        if (s.autoFlush) {
            timer.scheduleWithFixedDelay(this::flushQuietly, s.flushMs, s.flushMs, TimeUnit.MILLISECONDS);
        }
        retention = features.ttl() ? null : new Retention(this, database, s.ttlDays);
        if (retention != null) {
            // First run 10 minutes after start (not at once: a collector restarted in a loop would otherwise scan
            // system.parts on every start), then hourly.
            timer.scheduleWithFixedDelay(retention::runQuietly, 10, 60, TimeUnit.MINUTES);
        }
    }

    /** @return what the server supports. */
    public FlowSchema.ServerFeatures features() {
        return features;
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
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage();
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

    private void flushQuietly() {
        try {
            flush();
        } catch (Exception e) {
            log.warn("ClickHouse insert failed: {}", rootMessage(e));
        }
    }

    /**
     * Inserts every pending row of every table and waits.
     *
     * @throws IOException if a table's insert failed after retries (its rows are counted in {@link #rowsFailed()})
     */
    @Override
    public void flush() throws IOException {
        IOException first = null;
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

    /**
     * Loads, for the given streams, the greatest offset each table already holds; rows at or below it are skipped
     * from then on (counted in {@link #rowsReplaySkipped()}). The Kafka outlet calls this when partitions are
     * assigned, before it replays from the committed offsets.
     *
     * @param streams stream ids (Kafka partitions)
     * @throws IOException if a query fails
     */
    public void loadWatermarks(long[] streams) throws IOException {
        for (TableBatch b : batches) {
            b.loadWatermarks(streams);
        }
    }

    /**
     * Inserts rows already encoded in RowBinary into another table of the database (used for agents).
     *
     * @param table table name without the database
     * @param columns column list, in the rows' order
     * @param w the encoded rows
     * @throws IOException if the insert fails after retries
     */
    public void insertRows(String table, List<String> columns, RowBinaryWriter w) throws IOException {
        if (w.rows() == 0) {
            return;
        }
        Exception last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                insert(database + "." + table, columns, w);
                return;
            } catch (Exception e) {
                last = e;
            }
        }
        throw new IOException("insert of " + w.rows() + " rows into " + database + "." + table + " failed: "
                + rootMessage(last), last);
    }

    private void insert(String table, List<String> columns, RowBinaryWriter w) throws Exception {
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

    @Override
    public long rowsFailed() {
        return flows.failed.get() + drops.failed.get();
    }

    /** @return rows dropped by back-pressure (pending bytes at the cap), all tables. */
    public long rowsDropped() {
        return flows.dropped.sum() + drops.dropped.sum() + counters.dropped.sum();
    }

    /** @return rows skipped because the table already held their offset (replays), all tables. */
    public long rowsReplaySkipped() {
        return flows.replaySkipped.sum() + drops.replaySkipped.sum() + counters.replaySkipped.sum();
    }

    /** @return batches found already stored when a retry asked (not inserted twice), all tables. */
    public long batchesFoundStored() {
        return flows.foundStored.get() + drops.foundStored.get() + counters.foundStored.get();
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

    /**
     * Per-table counters for metrics: {table, written, failed, dropped, replaySkipped, inserts, lastInsertNanos}.
     *
     * @return one entry per table written by this sink
     */
    public List<TableStats> tableStats() {
        List<TableStats> out = new ArrayList<>();
        for (TableBatch b : batches) {
            out.add(new TableStats(b.table.name(), b.written.get(), b.failed.get(), b.dropped.sum(),
                    b.replaySkipped.sum(), b.inserts.get(), b.lastInsertNanos));
        }
        return out;
    }

    /**
     * Counters of one table.
     *
     * @param table table name
     * @param written rows inserted
     * @param failed rows whose insert failed after retries
     * @param dropped rows refused by back-pressure
     * @param replaySkipped rows skipped as already stored
     * @param inserts successful insert statements
     * @param lastInsertNanos duration of the last successful insert, ns
     */
    public record TableStats(String table, long written, long failed, long dropped, long replaySkipped, long inserts,
            long lastInsertNanos) {}

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

    /** The pending rows of one table, double-buffered: appends go to {@code active} while {@code spare} inserts. */
    private final class TableBatch {
        final FlowSchema.Table table;
        final String qualified;
        final List<String> columns;
        final ReentrantLock appendLock = new ReentrantLock();
        final ReentrantLock flushLock = new ReentrantLock();
        RowBinaryWriter active = new RowBinaryWriter(1 << 16);
        RowBinaryWriter spare = new RowBinaryWriter(1 << 16);
        StreamOffsets activeMax = new StreamOffsets(); // per stream, the greatest offset in active
        StreamOffsets spareMax = new StreamOffsets();
        final StreamOffsets watermarks = new StreamOffsets(); // guarded by appendLock
        volatile int inFlightBytes;
        final AtomicLong written = new AtomicLong(), failed = new AtomicLong(), inserts = new AtomicLong(),
                foundStored = new AtomicLong();
        final LongAdder dropped = new LongAdder(), replaySkipped = new LongAdder();
        volatile long lastInsertNanos;

        TableBatch(FlowSchema.Table table) {
            this.table = table;
            this.qualified = database + "." + table.name();
            this.columns = table.columnNames();
        }

        /** Under appendLock: false (counted) if the row is a replay or back-pressure refuses it. */
        boolean admit(long stream, long offset) {
            if (watermarks.size() > 0 && offset <= watermarks.get(stream)) {
                replaySkipped.increment();
                return false;
            }
            if (active.size() >= settings.maxPendingBytes) {
                dropped.increment();
                return false;
            }
            return true;
        }

        /** Under appendLock, after a row was written. */
        void appended(long stream, long offset) {
            activeMax.max(stream, offset);
        }

        void flushIfFull() {
            if (settings.autoFlush && active.rows() >= settings.batchRows && !flushLock.isLocked()) {
                timer.execute(ClickHouseSink.this::flushQuietly);
            }
        }

        long pendingBytes() {
            return (long) active.size() + inFlightBytes;
        }

        void loadWatermarks(long[] streams) throws IOException {
            if (streams.length == 0) {
                return;
            }
            StreamOffsets loaded = storedMax(streams, 0);
            appendLock.lock();
            try {
                watermarks.clear();
                for (long s : streams) {
                    long o = loaded.get(s);
                    if (o >= 0) {
                        watermarks.max(s, o);
                    }
                }
            } finally {
                appendLock.unlock();
            }
        }

        /** The greatest IngestOffset stored per stream, looking back from {@code sinceSeconds} (0 = lookback). */
        StreamOffsets storedMax(long[] streams, long sinceSeconds) throws IOException {
            StringBuilder in = new StringBuilder();
            for (long s : streams) {
                in.append(in.isEmpty() ? "" : ",").append(s);
            }
            long since = sinceSeconds > 0 ? sinceSeconds
                    : System.currentTimeMillis() / 1000 - settings.watermarkLookbackDays * 86_400L;
            StreamOffsets out = new StreamOffsets();
            for (String[] r : queryRows("SELECT IngestStream, max(IngestOffset) FROM " + qualified
                    + " WHERE IngestStream IN (" + in + ") AND TimeReceived >= toDateTime(" + since
                    + ") GROUP BY IngestStream FORMAT TabSeparated")) {
                out.max(Long.parseLong(r[0]), Long.parseLong(r[1]));
            }
            return out;
        }

        void flush() throws IOException {
            flushLock.lock();
            try {
                RowBinaryWriter batch;
                StreamOffsets batchMax;
                appendLock.lock();
                try {
                    if (active.rows() == 0) {
                        return;
                    }
                    batch = active;
                    active = spare;
                    spare = batch;
                    batchMax = activeMax;
                    activeMax = spareMax;
                    spareMax = batchMax;
                    inFlightBytes = batch.size();
                } finally {
                    appendLock.unlock();
                }
                int rows = batch.rows();
                Exception last = null;
                try {
                    for (int attempt = 0; attempt < 3; attempt++) {
                        try {
                            if (attempt > 0 && stored(batchMax)) {
                                foundStored.incrementAndGet();
                                written.addAndGet(rows);
                                return;
                            }
                            long t0 = System.nanoTime();
                            insert(qualified, columns, batch);
                            if (failAfterInsertForTest > 0) {
                                failAfterInsertForTest--;
                                throw new IOException("injected: the insert landed but its answer was lost");
                            }
                            lastInsertNanos = System.nanoTime() - t0;
                            written.addAndGet(rows);
                            inserts.incrementAndGet();
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
                    throw new IOException("insert of " + rows + " rows into " + qualified + " failed: "
                            + rootMessage(last), last);
                } finally {
                    batch.reset();
                    batchMax.clear();
                    inFlightBytes = 0;
                }
            } finally {
                flushLock.unlock();
            }
        }

        /** Whether an insert that reported failure stored the batch anyway: every stream's offset is there. */
        private boolean stored(StreamOffsets batchMax) throws IOException {
            long[] streams = batchMax.streams();
            StreamOffsets there = storedMax(streams, 0);
            for (long s : streams) {
                if (there.get(s) < batchMax.get(s)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** @return the set of column names of a table on the server (empty if it does not exist). */
    Set<String> columnsOf(String table) throws IOException {
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
        return "ClickHouseSink[" + settings.url + " " + database + ", pending " + Arrays.toString(
                Arrays.stream(batches).mapToLong(TableBatch::pendingBytes).toArray()) + " bytes]";
    }
}
