package io.vecflow.collector.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The console's HTTP server on a real socket: limits, headers, files, authentication, failures. */
class ConsoleServerTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private final List<String> calls = new CopyOnWriteArrayList<>();

    private final ApiHandler echo = (method, path, body) -> {
        calls.add(method + " " + path + " " + body.length());
        if (path.equals("boom")) {
            throw new IllegalStateException("secret detail at com.example.Foo.bar(Foo.java:42)");
        }
        return new ApiHandler.Response(200, "{\"path\":\"" + path + "\"}");
    };

    private static ConsoleSettings settings(ConsoleSettings.Auth auth, Map<String, String> users) {
        return new ConsoleSettings("127.0.0.1", 0, auth, users, null);
    }

    private static HttpResponse<String> get(ConsoleServer s, String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(s.url() + path.substring(1)));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return HTTP.send(b.GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> send(ConsoleServer s, String method, String path, byte[] body)
            throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(s.url() + path.substring(1)))
                .method(method, HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesTheUiTheChartBundleAndTheApiWithSafeHeaders() throws Exception {
        try (ConsoleServer s = ConsoleServer.start(settings(ConsoleSettings.Auth.NONE, Map.of()), echo)) {
            assertThat(s.address().getAddress().isLoopbackAddress()).isTrue();
            var index = get(s, "/");
            assertThat(index.statusCode()).isEqualTo(200);
            assertThat(index.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
            assertThat(index.headers().firstValue("Content-Security-Policy").orElseThrow())
                    .contains("default-src 'self'").contains("script-src 'self'").doesNotContain("unsafe-inline");
            assertThat(index.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
            assertThat(index.body()).contains("<script src=\"/app.js\"").doesNotContain("http://", "https://");
            var js = get(s, "/app.js");
            assertThat(js.headers().firstValue("Content-Type")).hasValue("text/javascript; charset=utf-8");
            assertThat(js.body()).contains("/api/v0/");
            var echarts = get(s, "/assets/echarts.min.js");
            assertThat(echarts.statusCode()).isEqualTo(200);
            assertThat(echarts.body().length()).isGreaterThan(500_000);
            assertThat(echarts.body()).contains("echarts");
            assertThat(get(s, "/app.css").headers().firstValue("Content-Type")).hasValue("text/css; charset=utf-8");

            var api = send(s, "POST", "/api/v0/graph/line", "{}".getBytes(StandardCharsets.UTF_8));
            assertThat(api.statusCode()).isEqualTo(200);
            assertThat(api.body()).isEqualTo("{\"path\":\"graph/line\"}");
            assertThat(api.headers().firstValue("Cache-Control")).hasValue("no-store");
            assertThat(calls).containsExactly("POST graph/line 2");
        }
    }

    @Test
    void refusesWhatItDoesNotServe() throws Exception {
        try (ConsoleServer s = ConsoleServer.start(settings(ConsoleSettings.Auth.NONE, Map.of()), echo)) {
            var missing = get(s, "/nope.html");
            assertThat(missing.statusCode()).isEqualTo(404);
            assertThat(missing.body()).startsWith("{\"error\":\"no such page");
            assertThat(get(s, "/../../etc/passwd").statusCode()).isEqualTo(404);
            assertThat(get(s, "/%2e%2e/ConsoleServer.class").statusCode()).isEqualTo(404);
            assertThat(get(s, "/io/vecflow/collector/console/ConsoleServer.class").statusCode()).isEqualTo(404);

            var put = send(s, "PUT", "/api/v0/graph/line", new byte[1]);
            assertThat(put.statusCode()).isEqualTo(405);
            assertThat(put.headers().firstValue("Allow")).hasValue("GET, POST");
            assertThat(send(s, "POST", "/", new byte[1]).statusCode()).isEqualTo(405);

            byte[] big = new byte[ConsoleServer.MAX_BODY_BYTES + 1];
            var tooBig = send(s, "POST", "/api/v0/graph/line", big);
            assertThat(tooBig.statusCode()).isEqualTo(413);
            assertThat(tooBig.body()).contains("over 65536 bytes");
            assertThat(send(s, "POST", "/api/v0/graph/line", new byte[ConsoleServer.MAX_BODY_BYTES]).statusCode())
                    .isEqualTo(200);
            assertThat(calls).containsExactly("POST graph/line 65536");
        }
    }

    @Test
    void aHandlerFailureIsA500WithoutItsDetail() throws Exception {
        try (ConsoleServer s = ConsoleServer.start(settings(ConsoleSettings.Auth.NONE, Map.of()), echo)) {
            var r = get(s, "/api/v0/boom");
            assertThat(r.statusCode()).isEqualTo(500);
            assertThat(r.body()).isEqualTo("{\"error\":\"internal error\"}");
            assertThat(s.errors()).isEqualTo(1);
            assertThat(get(s, "/api/v0/configuration").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void basicAuthenticationChecksThePbkdf2HashOnEveryPath() throws Exception {
        String hash = io.vecflow.common.BasicCredentials.hashPassword("s3cret pass".toCharArray());
        assertThat(hash).matches("pbkdf2-sha256\\$600000\\$[A-Za-z0-9+/=]{24}\\$[A-Za-z0-9+/=]{44}");
        assertThat(io.vecflow.common.BasicCredentials.verify("s3cret pass".toCharArray(), hash)).isTrue();
        assertThat(io.vecflow.common.BasicCredentials.verify("s3cret pasS".toCharArray(), hash)).isFalse();
        assertThat(io.vecflow.common.BasicCredentials.hashPassword("s3cret pass".toCharArray())).isNotEqualTo(hash);
        try (ConsoleServer s = ConsoleServer.start(settings(ConsoleSettings.Auth.BASIC, Map.of("alice", hash)),
                echo)) {
            var none = get(s, "/");
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate").orElseThrow())
                    .startsWith("Basic realm=\"vecflow\"");
            assertThat(get(s, "/api/v0/configuration").statusCode()).isEqualTo(401);
            assertThat(get(s, "/", "Authorization", basic("alice", "wrong")).statusCode()).isEqualTo(401);
            assertThat(get(s, "/", "Authorization", basic("bob", "s3cret pass")).statusCode()).isEqualTo(401);
            assertThat(get(s, "/", "Authorization", "Basic !!!notbase64").statusCode()).isEqualTo(401);
            assertThat(get(s, "/", "Authorization", basic("alice", "s3cret pass")).statusCode()).isEqualTo(200);
            assertThat(get(s, "/api/v0/configuration", "Authorization", basic("alice", "s3cret pass")).statusCode())
                    .isEqualTo(200);
            assertThat(calls).containsExactly("GET configuration 0");
        }
    }

    @Test
    void headerAuthenticationNeedsTheProxysHeader() throws Exception {
        try (ConsoleServer s = ConsoleServer.start(settings(ConsoleSettings.Auth.HEADER, Map.of()), echo)) {
            var r = get(s, "/api/v0/configuration");
            assertThat(r.statusCode()).isEqualTo(401);
            assertThat(r.body()).contains("no Remote-User header");
            assertThat(get(s, "/app.js").statusCode()).isEqualTo(401);
            assertThat(get(s, "/api/v0/configuration", "Remote-User", "alice").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void settingsRefusePlainPasswordsAndBadValues() {
        assertThatThrownBy(() -> settings(ConsoleSettings.Auth.BASIC, Map.of("alice", "hunter2")))
                .hasMessageContaining("console user alice: not a password hash")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> settings(ConsoleSettings.Auth.BASIC, Map.of()))
                .hasMessageContaining("no users");
        assertThatThrownBy(() -> new ConsoleSettings("127.0.0.1", 70000, null, null, null))
                .hasMessageContaining("console port 70000");
        assertThatThrownBy(() -> ConsoleSettings.Auth.parse("ldap")).hasMessageContaining("need none, basic or header");
        String hash = io.vecflow.common.BasicCredentials.hashPassword("x".toCharArray());
        assertThat(settings(ConsoleSettings.Auth.BASIC, Map.of("alice", hash)).toString())
                .isEqualTo("console 127.0.0.1:0 auth basic users [alice]").doesNotContain("pbkdf2");
    }

    @Test
    void aBusyPortIsNamed() throws Exception {
        try (ConsoleServer s = ConsoleServer.start(settings(ConsoleSettings.Auth.NONE, Map.of()), echo)) {
            int port = s.address().getPort();
            assertThatThrownBy(() -> ConsoleServer.start(new ConsoleSettings("127.0.0.1", port, null, null, null),
                    echo)).hasMessageContaining("console: cannot listen on 127.0.0.1:" + port);
        }
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /** One raw HTTP/1.1 request (headers the JDK client may not set, e.g. Host); returns the status line. */
    private static String raw(ConsoleServer s, String request) throws Exception {
        try (java.net.Socket sock = new java.net.Socket(s.address().getAddress(), s.address().getPort())) {
            sock.setSoTimeout(10_000);
            sock.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            sock.getOutputStream().flush();
            return new java.io.BufferedReader(new java.io.InputStreamReader(sock.getInputStream(),
                    StandardCharsets.ISO_8859_1)).readLine();
        }
    }

    @Test
    void foreignHostsOriginsAndSlowClientsDoNotReachTheApi() throws Exception {
        try (ConsoleServer s = ConsoleServer.start(settings(ConsoleSettings.Auth.NONE, Map.of()), echo)) {
            String port = Integer.toString(s.address().getPort());
            // DNS rebinding: another site's name pointed at 127.0.0.1
            assertThat(raw(s, "GET /api/v0/configuration HTTP/1.1\r\nHost: evil.example.com:" + port
                    + "\r\nConnection: close\r\n\r\n")).contains(" 403");
            assertThat(raw(s, "GET /api/v0/configuration HTTP/1.1\r\nHost: localhost:" + port
                    + "\r\nConnection: close\r\n\r\n")).contains(" 200");
            // a cross-site POST (a form or a text/plain fetch) from another origin
            assertThat(raw(s, "POST /api/v0/rows HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nOrigin: http://evil."
                    + "example.com\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"))
                    .contains(" 403");
            assertThat(raw(s, "POST /api/v0/rows HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nOrigin: http://127.0.0.1:"
                    + port + "\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")).contains(" 200");
            // a body that is not UTF-8
            var bad = send(s, "POST", "/api/v0/rows", new byte[] {'{', '"', (byte) 0xFF, (byte) 0xFE, '"', '}'});
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(bad.body()).contains("not UTF-8");
            // 16 clients that never finish their request do not stop the next one
            List<java.net.Socket> stalled = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < 16; i++) {
                    java.net.Socket c = new java.net.Socket(s.address().getAddress(), s.address().getPort());
                    c.getOutputStream().write(("POST /api/v0/graph/line HTTP/1.1\r\nHost: 127.0.0.1:" + port
                            + "\r\nContent-Length: 1000\r\n\r\n{").getBytes(StandardCharsets.ISO_8859_1));
                    c.getOutputStream().flush();
                    stalled.add(c);
                }
                long t0 = System.nanoTime();
                assertThat(get(s, "/api/v0/configuration").statusCode()).isEqualTo(200);
                assertThat((System.nanoTime() - t0) / 1_000_000).as("ms for an answer").isLessThan(5_000);
            } finally {
                for (java.net.Socket c : stalled) {
                    c.close();
                }
            }
        }
    }
}
