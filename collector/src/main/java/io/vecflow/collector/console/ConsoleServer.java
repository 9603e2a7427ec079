package io.vecflow.collector.console;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.vecflow.common.BasicCredentials;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's HTTP server: the browser UI at {@code /} (files from the jar), the echarts bundle at {@code
 * /assets/echarts.min.js} (from the {@code org.webjars.npm:echarts} jar; no CDN), and the JSON API at {@code
 * /api/v0/*} answered by an {@link ApiHandler} (docs/console-api.md).
 *
 * <p>Limits: GET (and HEAD for files) and POST only, else 405; a request body over {@link #MAX_BODY_BYTES} gets 413
 * before the handler sees it; each connection on a virtual thread of its own (a client that sends slowly holds only
 * its own; the JDK server drops a request not read within {@code sun.net.httpserver.maxReqTime}, 30 s here unless
 * set), and at most {@link #THREADS} API requests at the store at once (a slow query holds one of those);
 * a handler exception is logged here and answered 500 {@code {"error":"internal error"}}, never with its message or
 * stack. Every answer carries a Content-Security-Policy that allows only this origin's scripts, styles and data
 * ({@code default-src 'self'}: no inline script, no CDN), {@code X-Content-Type-Options: nosniff}, {@code
 * X-Frame-Options: DENY} and {@code Referrer-Policy: no-referrer}; API answers are {@code no-store}.
 *
 * <p>Authentication (all paths alike) per {@link ConsoleSettings#auth()}: basic checks the PBKDF2 hash once per
 * distinct credential and remembers a success (by its SHA-256, at most 64, for 10 minutes), so a page's dozen
 * requests cost one hash.
 */
public final class ConsoleServer implements AutoCloseable {
    /** Largest request body accepted, bytes. */
    public static final int MAX_BODY_BYTES = 64 * 1024;
    /** API requests answered at once (the store's concurrent queries). */
    public static final int THREADS = 4;

    static {
        // read by the JDK server once, before its first use: a request whose headers and body take longer is dropped
        if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
            System.setProperty("sun.net.httpserver.maxReqTime", "30");
        }
    }

    private static final Logger log = LoggerFactory.getLogger(ConsoleServer.class);
    private static final String UI = "io/vecflow/collector/console/ui/";
    private static final String CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; "
            + "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8", "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8", "png", "image/png", "svg", "image/svg+xml",
            "json", "application/json", "ico", "image/x-icon");

    private final ConsoleSettings settings;
    private final BasicCredentials basic;
    private final boolean loopback;
    private final java.util.concurrent.Semaphore queries = new java.util.concurrent.Semaphore(THREADS, true);
    private final ApiHandler api;
    private final HttpServer server;
    private final ExecutorService executor;
    private final String echartsResource;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();

    private ConsoleServer(ConsoleSettings settings, ApiHandler api) throws IOException {
        this.settings = settings;
        this.basic = new BasicCredentials(settings.users());
        this.loopback = isLoopback(settings.host());
        this.api = api;
        this.echartsResource = echartsResource();
        this.server = HttpServer.create(new InetSocketAddress(settings.host(), settings.port()), 64);
        this.executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("vecflow-console-", 1)
                .factory());
        server.setExecutor(executor);
        server.createContext("/", this::serve);
    }

    /**
     * Binds and starts serving.
     *
     * @param settings where to listen and whom to let in
     * @param api what answers {@code /api/v0/*}
     * @return the running server
     * @throws IOException if the address cannot be bound (the message names it)
     */
    public static ConsoleServer start(ConsoleSettings settings, ApiHandler api) throws IOException {
        if (settings.auth() == ConsoleSettings.Auth.NONE && !isLoopback(settings.host())) {
            log.warn("console: listening on {} without authentication: anyone who reaches it reads every flow "
                    + "(set console.auth, or keep it on 127.0.0.1 behind a reverse proxy)", settings.host());
        }
        ConsoleServer s;
        try {
            s = new ConsoleServer(settings, api);
        } catch (java.net.BindException e) {
            throw new IOException("console: cannot listen on " + settings.host() + ":" + settings.port() + ": "
                    + e.getMessage(), e);
        }
        s.server.start();
        log.info("{} listening on {}", settings, s.url());
        return s;
    }

    /** @return the bound address (the actual port when 0 was asked). */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    /** @return the URL a browser opens, e.g. {@code http://127.0.0.1:8080/}. */
    public String url() {
        InetSocketAddress a = address();
        String host = a.getAddress().getHostAddress();
        if (a.getAddress().isAnyLocalAddress()) {
            host = "127.0.0.1";
        }
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort() + "/";
    }

    /** @return requests answered. */
    public long requests() {
        return requests.get();
    }

    /** @return requests answered 500 (handler failures). */
    public long errors() {
        return errors.get();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void serve(HttpExchange x) throws IOException {
        requests.incrementAndGet();
        try (x) {
            String method = x.getRequestMethod();
            String path = x.getRequestURI().getRawPath();
            String refused = foreignOrigin(x);
            if (refused != null) {
                error(x, 403, refused);
                return;
            }
            if (!authenticated(x)) {
                return;
            }
            if (path.startsWith("/api/v0/")) {
                serveApi(x, method, path.substring("/api/v0/".length()));
            } else if (!method.equals("GET") && !method.equals("HEAD")) {
                x.getResponseHeaders().set("Allow", "GET, HEAD");
                error(x, 405, "method " + method + " not allowed on " + path);
            } else {
                serveFile(x, path, method.equals("HEAD"));
            }
        } catch (IOException e) {
            log.debug("console: client went away: {}", e.toString());
        } catch (RuntimeException e) {
            errors.incrementAndGet();
            log.warn("console: request {} failed", x.getRequestURI(), e);
        }
    }

    private static boolean isLoopback(String host) {
        java.net.InetAddress a = new InetSocketAddress(host, 0).getAddress();
        return a != null && a.isLoopbackAddress();
    }

    /**
     * DNS rebinding and cross-site requests: on a loopback listener, the Host header must name loopback
     * ({@code localhost}, {@code 127.0.0.1}, {@code [::1]}) — a page of another site that rebinds its name to
     * 127.0.0.1 sends its own name; and a request with an {@code Origin} must come from the Host it is sent to.
     *
     * @return why the request is refused, or null
     */
    private String foreignOrigin(HttpExchange x) {
        String host = x.getRequestHeaders().getFirst("Host");
        String name = host == null ? "" : host.replaceFirst(":\\d{1,5}$", "").toLowerCase(java.util.Locale.ROOT);
        if (loopback && !(name.equals("localhost") || name.equals("127.0.0.1") || name.equals("[::1]")
                || name.startsWith("127."))) {
            return "Host '" + (host == null ? "" : host) + "' is not this console's (a loopback console answers "
                    + "localhost, 127.0.0.1 and [::1]; put a reverse proxy in front to serve it under a name)";
        }
        String origin = x.getRequestHeaders().getFirst("Origin");
        if (origin != null && host != null && !origin.equalsIgnoreCase("http://" + host)
                && !origin.equalsIgnoreCase("https://" + host)) {
            return "cross-origin request from " + origin + " refused";
        }
        return null;
    }

    private boolean authenticated(HttpExchange x) throws IOException {
        switch (settings.auth()) {
            case NONE -> {
                return true;
            }
            case HEADER -> {
                String user = x.getRequestHeaders().getFirst(settings.header());
                if (user == null || user.isBlank()) {
                    error(x, 401, "authentication required: no " + settings.header() + " header (the console "
                            + "expects a reverse proxy that authenticates users)");
                    return false;
                }
                return true;
            }
            case BASIC -> {
                if (basic.check(x.getRequestHeaders().getFirst("Authorization")) != null) {
                    return true;
                }
                x.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"vecflow\", charset=\"UTF-8\"");
                error(x, 401, "authentication required");
                return false;
            }
            default -> throw new IllegalStateException();
        }
    }

    private void serveApi(HttpExchange x, String method, String path) throws IOException {
        if (!method.equals("GET") && !method.equals("POST")) {
            x.getResponseHeaders().set("Allow", "GET, POST");
            error(x, 405, "method " + method + " not allowed on /api/v0/" + path);
            return;
        }
        String body = "";
        if (method.equals("POST")) {
            byte[] b = readCapped(x.getRequestBody());
            if (b == null) {
                error(x, 413, "request body over " + MAX_BODY_BYTES + " bytes");
                return;
            }
            try {
                body = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(b)).toString();
            } catch (java.nio.charset.CharacterCodingException e) {
                error(x, 400, "body: not UTF-8");
                return;
            }
        }
        ApiHandler.Response r;
        try {
            queries.acquire();
            try {
                r = api.handle(method, path, body);
            } finally {
                queries.release();
            }
        } catch (Exception e) {
            errors.incrementAndGet();
            log.warn("console: {} /api/v0/{} failed", method, path, e);
            r = new ApiHandler.Response(500, "{\"error\":\"internal error\"}");
        }
        x.getResponseHeaders().set("Cache-Control", "no-store");
        send(x, r.status(), "application/json", r.json().getBytes(StandardCharsets.UTF_8), false);
    }

    private void serveFile(HttpExchange x, String path, boolean head) throws IOException {
        String resource;
        if (path.equals("/") || path.equals("/index.html")) {
            resource = UI + "index.html";
        } else if (path.equals("/assets/echarts.min.js")) {
            resource = echartsResource;
        } else if (path.matches("/[a-z0-9][a-z0-9_-]{0,40}\\.(js|css|png|svg|ico)")) {
            resource = UI + path.substring(1);
        } else {
            error(x, 404, "no such page: " + path);
            return;
        }
        byte[] bytes = resource == null ? null : read(resource);
        if (bytes == null) {
            error(x, 404, "no such page: " + path);
            return;
        }
        String ext = resource.substring(resource.lastIndexOf('.') + 1);
        x.getResponseHeaders().set("Cache-Control", resource.equals(echartsResource) ? "public, max-age=86400"
                : "no-cache");
        send(x, 200, TYPES.getOrDefault(ext, "application/octet-stream"), bytes, head);
    }

    private static byte[] read(String resource) throws IOException {
        try (InputStream in = ConsoleServer.class.getClassLoader().getResourceAsStream(resource)) {
            return in == null ? null : in.readAllBytes();
        }
    }

    private static byte[] readCapped(InputStream in) throws IOException {
        byte[] b = in.readNBytes(MAX_BODY_BYTES + 1);
        if (b.length > MAX_BODY_BYTES) {
            in.skip(Long.MAX_VALUE);
            return null;
        }
        return b;
    }

    private void error(HttpExchange x, int status, String message) throws IOException {
        String json = "{\"error\":\"" + jsonEscape(message) + "\"}";
        x.getResponseHeaders().set("Cache-Control", "no-store");
        send(x, status, "application/json", json.getBytes(StandardCharsets.UTF_8), false);
    }

    private static void send(HttpExchange x, int status, String type, byte[] body, boolean head) throws IOException {
        var h = x.getResponseHeaders();
        h.set("Content-Type", type);
        h.set("Content-Security-Policy", CSP);
        h.set("X-Content-Type-Options", "nosniff");
        h.set("X-Frame-Options", "DENY");
        h.set("Referrer-Policy", "no-referrer");
        if (head) {
            h.set("Content-Length", Integer.toString(body.length));
            x.sendResponseHeaders(status, -1);
            return;
        }
        x.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(body);
        }
    }

    /**
     * Escapes text for a JSON string (quotes, backslash, control characters).
     *
     * @param s the text
     * @return the escaped text, without the surrounding quotes
     */
    public static String jsonEscape(String s) {
        StringBuilder b = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c == '<' || c == '>' || c == '&') {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }

    private static String echartsResource() {
        Properties p = new Properties();
        try (InputStream in = ConsoleServer.class.getClassLoader()
                .getResourceAsStream("META-INF/maven/org.webjars.npm/echarts/pom.properties")) {
            if (in == null) {
                log.warn("console: the echarts webjar is not on the class path; charts will not draw");
                return null;
            }
            p.load(in);
        } catch (IOException e) {
            return null;
        }
        return "META-INF/resources/webjars/echarts/" + p.getProperty("version") + "/dist/echarts.min.js";
    }
}
