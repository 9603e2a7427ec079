package io.vecflow.lab.out;

import io.vecflow.collector.schema.FlowSchema;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Writes lab results into ClickHouse over its HTTP interface: creates the database and the {@code lab_srlb},
 * {@code lab_sla} and {@code lab_clove} tables as {@link LabTables} defines them (rendered for the server's version
 * by the collector's {@link FlowSchema}), then inserts rows as TabSeparated. The Load-balancer dashboard's "Lab" row
 * reads them.
 */
public final class LabClickHouse implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String url;
    private final String database;

    /**
     * Connects (one {@code SELECT version()}), creates the database and the lab tables if missing.
     *
     * @param url ClickHouse HTTP URL, e.g. {@code http://127.0.0.1:8123} (user/password as URL query parameters if
     *     needed)
     * @param database database name ([A-Za-z_][A-Za-z0-9_]*)
     * @throws IOException naming the statement and ClickHouse's answer when a statement fails
     * @throws IllegalArgumentException on a malformed database name
     */
    public LabClickHouse(String url, String database) throws IOException {
        if (!database.matches("[A-Za-z_][A-Za-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("--clickhouse-database '" + database
                    + "': want a name of letters, digits and _ (not starting with a digit)");
        }
        this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.database = database;
        FlowSchema.ServerFeatures f = FlowSchema.ServerFeatures.fromVersion(exec("SELECT version()").strip());
        exec("CREATE DATABASE IF NOT EXISTS " + database);
        for (FlowSchema.Table table : LabTables.TABLES) {
            exec(FlowSchema.createTable(database, table, f, table.ttlDays()));
        }
    }

    /**
     * Inserts rows into a lab table.
     *
     * @param table table name
     * @param rows cells in the table's column order: String, Number (Double NaN/∞ allowed), Boolean (as 0/1)
     * @throws IOException when ClickHouse rejects the insert
     * @throws IllegalArgumentException when a row's width differs from the table's
     */
    public void insert(String table, List<List<Object>> rows) throws IOException {
        FlowSchema.Table t = LabTables.table(table);
        if (rows.isEmpty()) {
            return;
        }
        StringBuilder b = new StringBuilder();
        for (List<Object> r : rows) {
            if (r.size() != t.columns().size()) {
                throw new IllegalArgumentException(table + ": row of " + r.size() + " cells for " + t.columns().size()
                        + " columns");
            }
            for (int i = 0; i < r.size(); i++) {
                if (i > 0) {
                    b.append('\t');
                }
                b.append(tsv(r.get(i)));
            }
            b.append('\n');
        }
        post("INSERT INTO " + database + "." + table + " (" + String.join(", ", t.columnNames())
                + ") FORMAT TabSeparated", b.toString());
    }

    private static String tsv(Object o) {
        if (o instanceof Double d) {
            return d.isNaN() ? "nan" : d.isInfinite() ? (d > 0 ? "inf" : "-inf") : Double.toString(d);
        }
        if (o instanceof Boolean bo) {
            return bo ? "1" : "0";
        }
        return String.valueOf(o).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n");
    }

    /** @return the text answer of a statement. @throws IOException with ClickHouse's message */
    public String exec(String sql) throws IOException {
        return post(null, sql);
    }

    private String post(String query, String body) throws IOException {
        String u = url + "/" + (query == null ? "" : "?query="
                + java.net.URLEncoder.encode(query, java.nio.charset.StandardCharsets.UTF_8));
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(u)).timeout(Duration.ofSeconds(60))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IOException("ClickHouse " + r.statusCode() + " at " + url + ": " + r.body().strip()
                        + "\n  for: " + (query != null ? query : body.lines().findFirst().orElse("")));
            }
            return r.body();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted talking to ClickHouse at " + url, e);
        } catch (java.net.ConnectException e) {
            throw new IOException("cannot connect to ClickHouse at " + url + ": " + e.getMessage(), e);
        }
    }

    /** @return a fresh run id: the start time and a random suffix, e.g. {@code 20261130T101500-3f2a} */
    public static String newRunId(java.time.Instant start) {
        return String.format(Locale.ROOT, "%tY%<tm%<tdT%<tH%<tM%<tS-%04x", start.atZone(java.time.ZoneOffset.UTC),
                new java.util.Random().nextInt(0x10000));
    }

    @Override
    public void close() {}
}
