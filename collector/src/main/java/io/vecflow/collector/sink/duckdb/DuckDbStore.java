package io.vecflow.collector.sink.duckdb;

import io.vecflow.collector.schema.DuckDbSchema;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.schema.FlowSchema.Column;
import io.vecflow.collector.schema.FlowSchema.Table;
import io.vecflow.collector.schema.InterfaceInfo;
import io.vecflow.collector.sink.StreamOffsets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * The embedded store of one box: a DuckDB database file holding {@link FlowSchema}'s tables as
 * {@link DuckDbSchema} renders them, in a schema named like the ClickHouse database ({@code vecflow}), so that the
 * batching sink that writes ClickHouse ({@code ClickHouseSink}) writes it the same way: the same batches, the same
 * exactly-once watermarks by ingest stream and offset, the same loss accounting.
 *
 * <p><b>One transaction per batch</b>: {@link #insert} takes a batch encoded in ClickHouse's RowBinary (the sink's
 * one encoding, in the table's column order), appends it to a connection-local staging table with DuckDB's
 * appender, then in one transaction inserts it into the table and runs the table's {@link DuckDbSchema#feeds}
 * (rollups, inventories) over the same rows, and commits. A batch is therefore stored with its rollup rows or not at
 * all, and a crash (kill -9) loses only what was not committed, which the sink's caller has not acknowledged
 * (DuckDB's write-ahead log makes a commit durable).
 *
 * <p><b>One writer process</b>: DuckDB lets one process open a file for writing; the collector owns it and serves
 * the console from it ({@link #readConnection()}: further connections into the same database, safe to use from other
 * threads while the writer writes). Thread-safe: writes are serialised.
 *
 * <p>Source: DuckDB's documentation (concurrency: one writer process, connections within it; appender; transactions).
 */
public final class DuckDbStore implements AutoCloseable {
    /** Longest string a RowBinary field may declare (a cap before any allocation from the encoded length). */
    private static final int MAX_STRING = 1 << 20;
    /** Most elements an encoded array may declare. */
    private static final int MAX_ARRAY = 1 << 16;
    private static final HexFormat HEX = HexFormat.of().withUpperCase();

    private final Path file;
    private final String schema;
    private final DuckDBConnection conn;
    private final Map<String, Table> tables = new LinkedHashMap<>();
    private final byte[] ip = new byte[16];
    private String use; // USE catalog.schema (the file's catalog may be named like the schema)
    private long batches;
    private boolean closed;

    /**
     * Opens (creating it and its folder if needed) the database file and creates the tables that are missing.
     *
     * @param file the database file, e.g. {@code /var/lib/vecflow/vecflow.duckdb}
     * @param schema the schema holding the tables, a plain identifier (the ClickHouse database name)
     * @throws IOException when the file cannot be opened (another process holds it, a bad path) or the DDL fails
     */
    public DuckDbStore(Path file, String schema) throws IOException {
        if (schema == null || !schema.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("bad DuckDB schema name: " + schema + " (letters, digits and _ only)");
        }
        this.file = file.toAbsolutePath();
        this.schema = schema;
        try {
            Path dir = this.file.getParent();
            if (dir != null) {
                Files.createDirectories(dir);
            }
            conn = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:" + this.file);
        } catch (SQLException | IOException e) {
            throw new IOException("DuckDB at " + this.file + " cannot be opened (is another process writing it?): "
                    + firstLine(e.getMessage()), e);
        }
        try (Statement s = conn.createStatement()) {
            String qualified;
            try (ResultSet rs = s.executeQuery("SELECT current_database()")) {
                rs.next();
                qualified = "\"" + rs.getString(1).replace("\"", "\"\"") + "\"." + schema;
            }
            s.execute("CREATE SCHEMA IF NOT EXISTS " + qualified);
            use = "USE " + qualified;
            s.execute(use);
            for (Table t : FlowSchema.TABLES) {
                s.execute(DuckDbSchema.createTable(t));
                tables.put(t.name(), t);
                s.execute("CREATE OR REPLACE TEMP TABLE " + stage(t) + " (" + stageColumns(t) + ")");
                s.execute("CREATE OR REPLACE TEMP VIEW " + batch(t) + " AS SELECT " + converted(t) + " FROM "
                        + stage(t));
            }
            conn.setAutoCommit(false);
        } catch (SQLException e) {
            close();
            throw new IOException("DuckDB at " + this.file + ": creating the tables failed: " + firstLine(
                    e.getMessage()), e);
        }
    }

    private static String stage(Table t) {
        return "vf_stage_" + t.name();
    }

    private static String batch(Table t) {
        return "vf_batch_" + t.name();
    }

    /** Lists are staged as text (the appender takes no unsigned or BLOB lists) and converted by {@link #batch}. */
    private static String stageColumns(Table t) {
        List<String> out = new ArrayList<>();
        for (Column c : t.columns()) {
            boolean list = c.type() == FlowSchema.Type.ARRAY_UINT32 || c.type() == FlowSchema.Type.ARRAY_IP;
            out.add(c.name() + " " + (list ? "VARCHAR" : DuckDbSchema.type(c.type())));
        }
        return String.join(", ", out);
    }

    private static String converted(Table t) {
        List<String> out = new ArrayList<>();
        for (Column c : t.columns()) {
            out.add(switch (c.type()) {
                case ARRAY_UINT32 -> "CAST(" + c.name() + " AS UINTEGER[]) AS " + c.name();
                case ARRAY_IP -> "CASE WHEN " + c.name() + " = '' THEN []::BLOB[] ELSE list_transform(string_split("
                        + c.name() + ", ','), lambda x: unhex(x)) END AS " + c.name();
                default -> c.name();
            });
        }
        return String.join(", ", out);
    }

    /** @return the database file */
    public Path file() {
        return file;
    }

    /** @return the schema holding the tables */
    public String schema() {
        return schema;
    }

    /** @return batches committed since the store opened */
    public synchronized long batches() {
        return batches;
    }

    /**
     * Stores one batch and its feeds in one transaction.
     *
     * @param table the table (unqualified, one of {@link FlowSchema#TABLES})
     * @param columns the rows' columns; must be the table's, in order
     * @param buf the rows in ClickHouse RowBinary
     * @param len bytes of {@code buf} used
     * @param rows the number of rows encoded
     * @throws IOException when the rows do not decode (the message names the table, row, column and offset) or
     *     DuckDB refuses them; nothing of the batch is stored then
     */
    public synchronized void insert(String table, List<String> columns, byte[] buf, int len, int rows)
            throws IOException {
        Table t = tables.get(table);
        if (t == null) {
            throw new IOException("DuckDB: no table " + table);
        }
        if (!columns.equals(t.columnNames())) {
            throw new IOException("DuckDB: the rows for " + table + " are not in the table's columns and order");
        }
        requireOpen();
        try {
            try (DuckDBAppender a = conn.createAppender("temp", "main", stage(t))) {
                Reader r = new Reader(buf, len, table);
                for (int row = 0; row < rows; row++) {
                    r.row = row;
                    a.beginRow();
                    for (Column c : t.columns()) {
                        r.column = c.name();
                        append(a, c.type(), r);
                    }
                    a.endRow();
                }
                if (r.pos != len) {
                    throw new IOException("DuckDB: " + (len - r.pos) + " bytes left after " + rows + " rows of "
                            + table);
                }
                a.flush();
            }
            try (Statement s = conn.createStatement()) {
                String key = DuckDbSchema.primaryKey(t);
                if (key == null) {
                    s.execute("INSERT INTO " + table + " SELECT * FROM " + batch(t));
                } else {
                    // A ReplacingMergeTree table (asns, exporters…): the newest row per key replaces what the file
                    // holds (a re-run, a restart), and a batch's own repeats of a key collapse to its last row.
                    s.execute("INSERT OR REPLACE INTO " + table + " SELECT * EXCLUDE (vf_row) FROM (SELECT *, "
                            + "row_number() OVER () AS vf_row FROM " + batch(t) + ") QUALIFY row_number() OVER "
                            + "(PARTITION BY " + key + " ORDER BY vf_row DESC) = 1");
                }
                for (DuckDbSchema.Feed f : DuckDbSchema.feedsOf(table)) {
                    s.execute(f.insert(batch(t)));
                }
                s.execute("DELETE FROM " + stage(t));
            }
            conn.commit();
            batches++;
        } catch (SQLException | IOException | RuntimeException e) {
            rollback(t);
            if (e instanceof IOException io) {
                throw io;
            }
            throw new IOException("DuckDB insert of " + rows + " rows into " + table + " failed: "
                    + firstLine(e.getMessage()), e);
        }
    }

    private void rollback(Table t) {
        try {
            conn.rollback();
            try (Statement s = conn.createStatement()) {
                s.execute("DELETE FROM " + stage(t));
            }
            conn.commit();
        } catch (SQLException ignored) {
            // the connection is gone: the next insert reports it
        }
    }

    private void append(DuckDBAppender a, FlowSchema.Type type, Reader r) throws SQLException, IOException {
        switch (type) {
            case DATETIME -> a.appendEpochMicros(r.u32() * 1_000_000L);
            case UINT8 -> a.append((byte) r.u8());
            case UINT16 -> a.append((short) r.u16());
            case UINT32 -> a.append((int) r.u32());
            case UINT64 -> a.append(r.u64());
            case FLOAT64 -> a.append(Double.longBitsToDouble(r.u64()));
            case IP -> {
                r.bytes(ip);
                a.append(ip);
            }
            case STRING, LC_STRING -> a.append(r.string());
            case DIRECTION -> a.append(name(FlowSchema.DIRECTIONS, r.u8(), r));
            case BOUNDARY -> a.append(name(InterfaceInfo.BOUNDARIES, r.u8(), r));
            case ARRAY_UINT32 -> {
                int n = r.count();
                StringBuilder b = new StringBuilder("[");
                for (int i = 0; i < n; i++) {
                    b.append(i == 0 ? "" : ", ").append(r.u32());
                }
                a.append(b.append(']').toString());
            }
            case ARRAY_IP -> {
                int n = r.count();
                StringBuilder b = new StringBuilder();
                for (int i = 0; i < n; i++) {
                    r.bytes(ip);
                    b.append(i == 0 ? "" : ",").append(HEX.formatHex(ip));
                }
                a.append(b.toString());
            }
        }
    }

    private static String name(List<String> names, int n, Reader r) throws IOException {
        if (n >= names.size()) {
            throw r.error("enum value " + n + " out of range (0.." + (names.size() - 1) + ")");
        }
        return names.get(n);
    }

    /** A cursor over RowBinary that names the table, row, column and offset of what does not decode. */
    private static final class Reader {
        final byte[] b;
        final int len;
        final String table;
        int pos;
        int row;
        String column = "";

        Reader(byte[] b, int len, String table) {
            this.b = b;
            this.len = len;
            this.table = table;
        }

        IOException error(String what) {
            return new IOException("DuckDB: " + table + " row " + row + " column " + column + " at offset " + pos
                    + ": " + what);
        }

        private void need(int n) throws IOException {
            if (n < 0 || len - pos < n) {
                throw error("truncated (" + n + " bytes wanted, " + (len - pos) + " left)");
            }
        }

        int u8() throws IOException {
            need(1);
            return b[pos++] & 0xFF;
        }

        int u16() throws IOException {
            need(2);
            int v = (b[pos] & 0xFF) | (b[pos + 1] & 0xFF) << 8;
            pos += 2;
            return v;
        }

        long u32() throws IOException {
            need(4);
            long v = (b[pos] & 0xFFL) | (b[pos + 1] & 0xFFL) << 8 | (b[pos + 2] & 0xFFL) << 16
                    | (b[pos + 3] & 0xFFL) << 24;
            pos += 4;
            return v;
        }

        long u64() throws IOException {
            long lo = u32();
            long hi = u32();
            return lo | hi << 32;
        }

        void bytes(byte[] out) throws IOException {
            need(out.length);
            System.arraycopy(b, pos, out, 0, out.length);
            pos += out.length;
        }

        long varint() throws IOException {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                int x = u8();
                v |= (long) (x & 0x7F) << shift;
                if ((x & 0x80) == 0) {
                    return v;
                }
            }
            throw error("varint longer than 10 bytes");
        }

        int count() throws IOException {
            long n = varint();
            if (n > MAX_ARRAY) {
                throw error("array of " + n + " elements (at most " + MAX_ARRAY + ")");
            }
            return (int) n;
        }

        String string() throws IOException {
            long n = varint();
            if (n > MAX_STRING) {
                throw error("string of " + n + " bytes (at most " + MAX_STRING + ")");
            }
            need((int) n);
            String s = new String(b, pos, (int) n, StandardCharsets.UTF_8);
            pos += (int) n;
            return s;
        }
    }

    /**
     * The greatest {@code IngestOffset} stored per stream in a table, from rows received at or after a time.
     *
     * @param table the table (unqualified)
     * @param streams stream ids
     * @param sinceEpochSeconds rows older than this are not asked
     * @return stream → greatest offset (absent: none stored)
     * @throws IOException when the query fails
     */
    public synchronized StreamOffsets storedMax(String table, long[] streams, long sinceEpochSeconds)
            throws IOException {
        StreamOffsets out = new StreamOffsets();
        if (streams.length == 0) {
            return out;
        }
        StringBuilder in = new StringBuilder();
        for (long s : streams) {
            in.append(in.isEmpty() ? "" : ",").append(s);
        }
        for (List<String> r : query("SELECT IngestStream, max(IngestOffset) FROM " + table(table)
                + " WHERE IngestStream IN (" + in + ") AND TimeReceived >= make_timestamp("
                + sinceEpochSeconds * 1_000_000L + ") GROUP BY IngestStream")) {
            out.max(Long.parseLong(r.get(0)), Long.parseLong(r.get(1)));
        }
        return out;
    }

    /**
     * @param table the table (unqualified)
     * @param stream an ingest stream
     * @param offset an offset in it
     * @return the rows of the table holding exactly that stream and offset
     * @throws IOException when the query fails
     */
    public synchronized long countAt(String table, long stream, long offset) throws IOException {
        return Long.parseLong(query("SELECT count(*) FROM " + table(table) + " WHERE IngestStream = " + stream
                + " AND IngestOffset = " + offset).get(0).get(0));
    }

    private String table(String name) {
        if (!tables.containsKey(name)) {
            throw new IllegalArgumentException("DuckDB: no table " + name);
        }
        return name;
    }

    /**
     * Deletes the rows older than each table's retention.
     *
     * @param ttlDays days per table name; tables not listed keep {@link Table#ttlDays()} (0: kept for ever)
     * @param nowEpochSeconds the present
     * @return {@code table: rows} for each table that lost rows
     * @throws IOException when a statement fails (nothing of that table is deleted then)
     */
    public synchronized List<String> retention(Map<String, Integer> ttlDays, long nowEpochSeconds)
            throws IOException {
        requireOpen();
        List<String> out = new ArrayList<>();
        for (Table t : tables.values()) {
            int days = ttlDays.getOrDefault(t.name(), t.ttlDays());
            if (days <= 0 || t.columns().stream().noneMatch(c -> c.name().equals("TimeReceived"))) {
                continue;
            }
            long cutoff = nowEpochSeconds - days * 86_400L;
            try (Statement s = conn.createStatement()) {
                int n = s.executeUpdate("DELETE FROM " + t.name() + " WHERE TimeReceived < make_timestamp("
                        + cutoff * 1_000_000L + ")");
                conn.commit();
                if (n > 0) {
                    out.add(t.name() + ": " + n);
                }
            } catch (SQLException e) {
                try {
                    conn.rollback();
                } catch (SQLException ignored) {
                    // reported below
                }
                throw new IOException("DuckDB retention of " + t.name() + " failed: " + firstLine(e.getMessage()), e);
            }
        }
        return out;
    }

    /**
     * Runs one statement on the writer's connection and commits it.
     *
     * @param sql the statement
     * @throws IOException when DuckDB refuses it
     */
    public synchronized void execute(String sql) throws IOException {
        requireOpen();
        try (Statement s = conn.createStatement()) {
            s.execute(sql);
            conn.commit();
        } catch (SQLException e) {
            try {
                conn.rollback();
            } catch (SQLException ignored) {
                // reported below
            }
            throw new IOException("DuckDB refused: " + firstLine(sql) + ": " + firstLine(e.getMessage()), e);
        }
    }

    /**
     * Runs a query on the writer's connection.
     *
     * @param sql a SELECT (tables unqualified or qualified by the schema)
     * @return the rows, every value as text (NULL as null)
     * @throws IOException when DuckDB refuses it
     */
    public synchronized List<List<String>> query(String sql) throws IOException {
        requireOpen();
        try (Statement s = conn.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            List<List<String>> out = new ArrayList<>();
            while (rs.next()) {
                List<String> row = new ArrayList<>(n);
                for (int k = 1; k <= n; k++) {
                    row.add(rs.getString(k));
                }
                out.add(row);
            }
            conn.commit();
            return out;
        } catch (SQLException e) {
            throw new IOException("DuckDB query failed: " + firstLine(sql) + ": " + firstLine(e.getMessage()), e);
        }
    }

    /**
     * The console's runner over this store (each query on a further connection, {@link #readConnection()}), so
     * callers outside the collector name no JDBC type.
     *
     * @return the runner (closing it leaves the store open)
     */
    public io.vecflow.collector.query.JdbcQueryRunner queryRunner() {
        return new io.vecflow.collector.query.JdbcQueryRunner(this::readConnection);
    }

    /**
     * A new connection into the same database for readers (the console), its default schema set to the store's.
     * The caller closes it; it sees what the writer committed.
     *
     * @return the connection
     * @throws SQLException when the store is closed
     */
    public Connection readConnection() throws SQLException {
        DuckDBConnection c = conn.duplicate();
        try (Statement s = c.createStatement()) {
            s.execute(use);
        }
        return c;
    }

    private void requireOpen() throws IOException {
        if (closed) {
            throw new IOException("DuckDB at " + file + " is closed");
        }
    }

    static String firstLine(String m) {
        if (m == null) {
            return "error without a message";
        }
        String s = m.strip();
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** Closes the database (what was committed stays in the file). */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            conn.close();
        } catch (SQLException ignored) {
            // closing: nothing left to tell
        }
    }

    @Override
    public String toString() {
        return "DuckDbStore[" + file + " " + schema + "]";
    }
}
