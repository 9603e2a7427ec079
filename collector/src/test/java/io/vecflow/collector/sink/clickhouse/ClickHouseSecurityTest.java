package io.vecflow.collector.sink.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.ServiceScript;
import io.vecflow.collector.TlsFixture;
import io.vecflow.collector.query.ClickHouseHttpQueryRunner;
import io.vecflow.collector.query.QueryRunner;
import io.vecflow.collector.schema.ClickHouseUsers;
import io.vecflow.collector.schema.FlowRow;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collector and the console against a real ClickHouse 18.16 over HTTPS with per-role users (issue "Let no one
 * in who doesn't belong"): a server started here by {@code scripts/services/clickhouse.sh} with {@code https_port}
 * on a certificate this test makes ({@link TlsFixture}) and the users {@link ClickHouseUsers#usersXml} renders in
 * its {@code users.d/}. Asserted: the writer creates the schema and stores rows over HTTPS trusting only the test's
 * CA; the reader reads them through the console's query runner; the reader's INSERT and DDL are refused, neither
 * user reaches another database, a wrong password and an untrusted certificate are refused with their reason.
 */
class ClickHouseSecurityTest {
    private static final String DB = "vecsec", WRITER_PW = "writer-pw-1", READER_PW = "reader-pw-2";

    @TempDir
    static Path tmp;

    private static TlsFixture tls, stranger;
    private static int http, tcp, inter, https;
    private static Path serverDir;
    private static URI url;

    @BeforeAll
    static void server() throws Exception {
        tls = TlsFixture.make(tmp.resolve("tls"));
        stranger = TlsFixture.make(tmp.resolve("stranger"));
        Path users = tmp.resolve("vecflow-users.xml");
        Files.writeString(users, ClickHouseUsers.usersXml(DB,
                new ClickHouseUsers.User("vecflow_writer", ClickHouseUsers.sha256Hex(WRITER_PW), List.of("127.0.0.1")),
                new ClickHouseUsers.User("vecflow_reader", ClickHouseUsers.sha256Hex(READER_PW),
                        List.of("127.0.0.1"))));
        http = ServiceScript.freePort();
        tcp = ServiceScript.freePort();
        inter = ServiceScript.freePort();
        https = ServiceScript.freePort();
        serverDir = tmp.resolve("clickhouse");
        url = URI.create("https://127.0.0.1:" + https);
        script("start", Map.of("VF_CH_HTTPS_PORT", Integer.toString(https), "VF_CH_TLS_CERT",
                tls.path("server.pem").toString(), "VF_CH_TLS_KEY", tls.path("server.key").toString(),
                "VF_CH_USERS_D", users.toString()));
    }

    @AfterAll
    static void stop() throws Exception {
        if (serverDir != null) {
            script("stop", Map.of());
        }
    }

    private static void script(String action, Map<String, String> extra) throws IOException, InterruptedException {
        Map<String, String> env = new java.util.HashMap<>(extra);
        env.put("VF_CH_HTTP_PORT", Integer.toString(http));
        env.put("VF_CH_TCP_PORT", Integer.toString(tcp));
        env.put("VF_CH_INTERSERVER_PORT", Integer.toString(inter));
        ServiceScript.run("clickhouse.sh", action, serverDir, env);
    }

    private static ClickHouseSink.Settings writer(String database, Path ca) {
        ClickHouseSink.Settings s = ClickHouseSink.Settings.of(url.toString());
        s.user = "vecflow_writer";
        s.password = WRITER_PW;
        s.database = database;
        s.caFile = ca;
        s.autoFlush = false;
        s.waitForServer = true;
        return s;
    }

    /** POSTs {@code sql} over HTTPS (trusting the test CA) as {@code user}: the status and the body's first line. */
    private static String post(String user, String password, String sql) throws Exception {
        return postUrl(user, password, "/", sql);
    }

    private static String postUrl(String user, String password, String path, String sql) throws Exception {
        HttpClient c = HttpClient.newBuilder().sslContext(ClickHouseHttpQueryRunner.sslContext(tls.path("ca.pem")))
                .build();
        HttpResponse<String> r = c.send(HttpRequest.newBuilder(url.resolve(path))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                        .getBytes(StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.ofString(sql)).build(), HttpResponse.BodyHandlers.ofString());
        return r.statusCode() + " " + r.body().strip().lines().findFirst().orElse("");
    }

    @Test
    void theWriterStoresOverHttpsAndTheReaderReadsThroughTheConsolesRunner() throws Exception {
        List<FlowRow> rows = ClickHouseSinkTest.rows();
        try (ClickHouseSink sink = new ClickHouseSink(writer(DB, tls.path("ca.pem")))) {
            for (FlowRow r : rows) {
                sink.accept(r);
            }
            sink.flush();
            assertThat(sink.rowsWritten()).isEqualTo(rows.size());
            assertThat(sink.rowsFailed()).isZero();
        }
        ClickHouseHttpQueryRunner reader = new ClickHouseHttpQueryRunner(url, DB, "vecflow_reader", READER_PW,
                tls.path("ca.pem"));
        assertThat(reader.serverVersion()).startsWith("18.16");
        assertThat(reader.query("SELECT count(), sum(Bytes) FROM flows", Duration.ofSeconds(10)))
                .containsExactly(List.of(Integer.toString(rows.size()),
                        Long.toUnsignedString(rows.stream().mapToLong(r -> r.bytes).sum())));
    }

    @Test
    void theReaderCannotInsertCreateOrDropAndNeitherUserReachesAnotherDatabase() throws Exception {
        assertThat(post("vecflow_writer", WRITER_PW, "CREATE DATABASE IF NOT EXISTS " + DB)).startsWith("200");
        assertThat(post("vecflow_writer", WRITER_PW, "CREATE TABLE IF NOT EXISTS " + DB
                + ".probe (x UInt8) ENGINE = Memory")).startsWith("200");
        assertThat(post("vecflow_reader", READER_PW, "INSERT INTO " + DB + ".probe VALUES (1)"))
                .startsWith("500").contains("Cannot insert into table in readonly mode");
        assertThat(post("vecflow_reader", READER_PW, "CREATE TABLE " + DB + ".evil (x UInt8) ENGINE = Memory"))
                .startsWith("500").contains("readonly mode");
        assertThat(post("vecflow_reader", READER_PW, "DROP TABLE " + DB + ".probe"))
                .startsWith("500").contains("readonly mode");
        assertThat(post("vecflow_reader", READER_PW, "SELECT count() FROM " + DB + ".probe")).isEqualTo("200 0");
        // no table function (url() would reach other databases through the server's own port), no lifted limit
        assertThat(post("vecflow_reader", READER_PW, "SELECT * FROM url('http://127.0.0.1:" + http
                + "/?query=SELECT%201', TSV, 'x UInt8')")).startsWith("500").contains("readonly mode");
        assertThat(postUrl("vecflow_reader", READER_PW, "/?max_execution_time=0", "SELECT 1")).startsWith("500")
                .contains("Cannot override setting (max_execution_time) in readonly mode");
        assertThat(post("vecflow_reader", READER_PW, "SELECT value FROM system.settings WHERE name = "
                + "'max_execution_time'")).isEqualTo("200 60");
        for (String[] u : new String[][] {{"vecflow_reader", READER_PW}, {"vecflow_writer", WRITER_PW}}) {
            assertThat(post(u[0], u[1], "SELECT count() FROM default.nothing"))
                    .contains("Access denied to database default for user " + u[0]);
        }
        // the collector's own sink, pointed at another database, is refused with the server's reason
        assertThatThrownBy(() -> new ClickHouseSink(writer("elsewhere", tls.path("ca.pem"))).close())
                .isInstanceOf(IOException.class).hasMessageContaining("Access denied to database elsewhere");
    }

    @Test
    void aWrongPasswordAndAnUntrustedCertificateAreRefusedWithTheirReason() {
        ClickHouseHttpQueryRunner wrong = new ClickHouseHttpQueryRunner(url, DB, "vecflow_reader", "guess",
                tls.path("ca.pem"));
        assertThatThrownBy(wrong::serverVersion).isInstanceOf(QueryRunner.StoreException.class)
                .hasMessageContaining("Wrong password for user vecflow_reader").hasMessageNotContaining("guess");
        ClickHouseHttpQueryRunner untrusting = new ClickHouseHttpQueryRunner(url, DB, "vecflow_reader", READER_PW,
                stranger.path("ca.pem"));
        assertThatThrownBy(untrusting::serverVersion).isInstanceOf(QueryRunner.StoreException.class)
                .hasMessageContaining("clickhouse at " + url + ": TLS: ").hasMessageContaining("PKIX")
                .hasMessageContaining("must be signed by the CA file given");
        assertThatThrownBy(() -> new ClickHouseSink(writer(DB, stranger.path("ca.pem"))).close())
                .isInstanceOf(IOException.class)
                .hasMessageContaining("TLS: unable to find valid certification path")
                .hasMessageContaining("signed by clickhouse.ca-file");
    }
}
