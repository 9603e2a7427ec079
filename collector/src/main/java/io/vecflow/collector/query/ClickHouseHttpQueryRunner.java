package io.vecflow.collector.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A {@link QueryRunner} over ClickHouse's HTTP interface (18.16 and current servers): the statement is POSTed with
 * {@code FORMAT JSONCompact} and the settings {@code max_execution_time} (the timeout, whole seconds, rounded up) then
 * {@code readonly=1} (in that order: a read-only session may not change settings after), in the given database,
 * with HTTP basic authentication when a user is given. Values arrive as JSON strings (64-bit integers, text) or
 * numbers and are returned as text.
 */
public final class ClickHouseHttpQueryRunner implements QueryRunner {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final URI base;
    private final String database;
    private final String authorization;
    private final HttpClient http;

    /**
     * @param base the server's HTTP address, e.g. {@code http://127.0.0.1:8123}
     * @param database the database the statements' tables are in
     * @param user user name, or null for the server's default user
     * @param password password, or null
     */
    public ClickHouseHttpQueryRunner(URI base, String database, String user, String password) {
        this.base = base;
        this.database = database;
        this.authorization = user == null ? null : "Basic " + Base64.getEncoder().encodeToString(
                (user + ":" + (password == null ? "" : password)).getBytes(StandardCharsets.UTF_8));
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    @Override
    public List<List<String>> query(String sql, Duration timeout) throws StoreException {
        JsonNode root = post(sql + "\nFORMAT JSONCompact", timeout);
        JsonNode data = root.path("data");
        List<List<String>> out = new ArrayList<>();
        for (JsonNode row : data) {
            List<String> r = new ArrayList<>(row.size());
            for (JsonNode v : row) {
                r.add(v.isNull() ? null : v.asText());
            }
            out.add(r);
        }
        return out;
    }

    /**
     * @return the text of {@code SELECT version()} (for {@code FlowSchema.ServerFeatures.fromVersion})
     * @throws StoreException when the server cannot be asked
     */
    public String serverVersion() throws StoreException {
        List<List<String>> r = query("SELECT version()", Duration.ofSeconds(10));
        if (r.isEmpty() || r.get(0).isEmpty()) {
            throw new StoreException("clickhouse: SELECT version() returned nothing", null);
        }
        return r.get(0).get(0);
    }

    private JsonNode post(String body, Duration timeout) throws StoreException {
        long seconds = Math.max(1, (timeout.toMillis() + 999) / 1000);
        String q = "?database=" + URLEncoder.encode(database, StandardCharsets.UTF_8) + "&max_execution_time="
                + seconds + "&readonly=1";
        HttpRequest.Builder rb = HttpRequest.newBuilder(base.resolve("/" + q))
                .timeout(timeout.plusSeconds(2))
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (authorization != null) {
            rb.header("Authorization", authorization);
        }
        HttpResponse<String> resp;
        try {
            resp = http.send(rb.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (java.net.http.HttpTimeoutException e) {
            throw new StoreException("query timed out after " + timeout.toMillis() + " ms", e);
        } catch (IOException e) {
            throw new StoreException("clickhouse unreachable at " + base + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while querying clickhouse", e);
        }
        if (resp.statusCode() != 200) {
            String m = JdbcQueryRunner.firstLine(resp.body());
            if (m.contains("Code: 159") || m.contains("TIMEOUT_EXCEEDED")) {
                throw new StoreException("query timed out after " + timeout.toMillis() + " ms", null);
            }
            throw new StoreException("clickhouse: HTTP " + resp.statusCode() + ": " + m, null);
        }
        try {
            return JSON.readTree(resp.body());
        } catch (IOException e) {
            throw new StoreException("clickhouse: answer is not JSON: "
                    + JdbcQueryRunner.firstLine(resp.body()), e);
        }
    }
}
