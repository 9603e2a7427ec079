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
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A {@link QueryRunner} over ClickHouse's HTTP interface (18.16 and current servers): the statement is POSTed with
 * {@code FORMAT JSONCompact} and the settings {@code max_execution_time} (the timeout, whole seconds, rounded up) then
 * {@code readonly=1} (in that order: a read-only session may not change settings after), in the given database,
 * with HTTP basic authentication when a user is given; for a user whose profile is read-only already (the reader of
 * {@code ClickHouseUsers}) only the settings its profile lets it change. {@code https://} with a CA file trusts that
 * CA only. Values arrive as JSON strings (64-bit integers, text) or numbers and are returned as text.
 */
public final class ClickHouseHttpQueryRunner implements QueryRunner {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final URI base;
    private final String database;
    private final String authorization;
    private final HttpClient http;
    private volatile int serverReadonly = -1;

    /**
     * @param base the server's HTTP address, e.g. {@code http://127.0.0.1:8123}
     * @param database the database the statements' tables are in
     * @param user user name, or null for the server's default user
     * @param password password, or null
     */
    public ClickHouseHttpQueryRunner(URI base, String database, String user, String password) {
        this(base, database, user, password, null);
    }

    /**
     * @param base the server's address, {@code http://} or {@code https://}
     * @param database the database the statements' tables are in
     * @param user user name, or null for the server's default user
     * @param password password, or null
     * @param caFile PEM CA certificates that sign an {@code https://} server's certificate, or null for the JVM's CAs
     * @throws IllegalArgumentException the CA file cannot be read or holds no certificate
     */
    public ClickHouseHttpQueryRunner(URI base, String database, String user, String password, Path caFile) {
        this.base = base;
        this.database = database;
        this.authorization = user == null ? null : "Basic " + Base64.getEncoder().encodeToString(
                (user + ":" + (password == null ? "" : password)).getBytes(StandardCharsets.UTF_8));
        HttpClient.Builder hb = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        if (caFile != null) {
            hb.sslContext(sslContext(caFile));
        }
        this.http = hb.build();
    }

    /**
     * A TLS context that trusts exactly the CA certificates of a PEM file.
     *
     * @param caFile PEM file with one or more {@code BEGIN CERTIFICATE} blocks
     * @return the context (TLS, the JDK's default protocols)
     * @throws IllegalArgumentException the file cannot be read or holds no certificate, naming it
     */
    public static SSLContext sslContext(Path caFile) {
        if (!Files.isRegularFile(caFile) || caFile.toFile().length() > 1 << 20) {
            throw new IllegalArgumentException(caFile + ": not a PEM file of at most 1 MiB (a regular file is needed)");
        }
        try (var in = Files.newInputStream(caFile)) {
            KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
            ks.load(null, null);
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                ks.setCertificateEntry("ca" + i++, c);
            }
            if (i == 0) {
                throw new IllegalArgumentException(caFile + ": no PEM certificate (BEGIN CERTIFICATE)");
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read CA certificates from " + caFile + ": " + e.getMessage(), e);
        }
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

    /**
     * The user's own {@code readonly} setting, asked once: a profile with {@code readonly = 1} refuses every setting
     * in the request and one with {@code 2} refuses {@code readonly} itself (18.16: "Cannot override setting in
     * readonly mode"), so the session's limits are sent only where the server takes them — the server then keeps
     * the user read-only by itself.
     */
    private int serverReadonly() throws StoreException {
        int r = serverReadonly;
        if (r < 0) {
            JsonNode root = post("SELECT value FROM system.settings WHERE name = 'readonly'\nFORMAT JSONCompact",
                    Duration.ofSeconds(10), "");
            String v = root.path("data").path(0).path(0).asText("0");
            r = v.matches("[0-9]") ? Integer.parseInt(v) : 0;
            serverReadonly = r;
        }
        return r;
    }

    private JsonNode post(String body, Duration timeout) throws StoreException {
        long seconds = Math.max(1, (timeout.toMillis() + 999) / 1000);
        int ro = serverReadonly();
        String settings = ro == 1 ? "" : ro == 2 ? "&max_execution_time=" + seconds
                : "&max_execution_time=" + seconds + "&readonly=1";
        return post(body, timeout, settings);
    }

    private JsonNode post(String body, Duration timeout, String settings) throws StoreException {
        String q = "?database=" + URLEncoder.encode(database, StandardCharsets.UTF_8) + settings;
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
        } catch (javax.net.ssl.SSLException e) {
            throw new StoreException("clickhouse at " + base + ": TLS: " + e.getMessage() + " (the server's "
                    + "certificate must be signed by the CA file given, --ca-file or clickhouse.ca-file, or by a CA "
                    + "the JVM trusts, and name the host in the URL)", e);
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
