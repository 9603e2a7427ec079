package io.vecflow.collector.query;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vecflow.collector.console.ApiHandler;
import io.vecflow.collector.query.QueryModel.BadRequest;
import io.vecflow.collector.query.QueryModel.GraphQuery;
import io.vecflow.collector.query.QueryModel.Limits;
import io.vecflow.collector.query.QueryRunner.StoreException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The console's JSON API v0 (docs/console-api.md) over one store: {@link #handle} takes the method, the path after
 * {@code /api/v0/} and the body, and answers GET {@code configuration}, POST {@code graph/line}, {@code graph/sankey},
 * {@code rows}, {@code filter/validate} and {@code graph/table-interval}. Bodies are at most 64 KiB of JSON, nested
 * at most 32 deep, numbers at most 64 digits; unknown fields are ignored. A bad request is 400 with a message naming
 * the field; a store that fails is 503; anything else 500 with a fixed message. No stack trace is ever returned.
 *
 * <p>Thread-safe: the HTTP server may call {@link #handle} from several threads.
 */
public final class ConsoleApi implements ApiHandler {
    /** Largest body, in bytes. */
    public static final int MAX_BODY = 64 * 1024;

    private static final System.Logger LOG = System.getLogger(ConsoleApi.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(32).maxNumberLength(64)
                    .maxStringLength(MAX_BODY).build()).build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final QueryRunner runner;
    private final SqlDialect dialect;
    private final String version;
    private final Limits limits;
    private final Graphs graphs;

    /**
     * @param runner the store
     * @param dialect the store's dialect
     * @param version the {@code version} of GET configuration (e.g. {@code vecflow 0.1.0})
     * @param limits the limits
     * @param nanos clock for the table cache (System::nanoTime)
     */
    public ConsoleApi(QueryRunner runner, SqlDialect dialect, String version, Limits limits, LongSupplier nanos) {
        this.runner = runner;
        this.dialect = dialect;
        this.version = version;
        this.limits = limits;
        SqlBuilder sql = new SqlBuilder(dialect);
        Duration timeout = Duration.ofMillis(limits.queryTimeoutMs());
        this.graphs = new Graphs(runner, sql, new TableChooser(runner, sql, nanos, Duration.ofSeconds(30), timeout),
                timeout);
    }

    /** The API with the default limits and the system clock. */
    public ConsoleApi(QueryRunner runner, SqlDialect dialect, String version) {
        this(runner, dialect, version, Limits.DEFAULT, System::nanoTime);
    }

    /**
     * Answers one request.
     *
     * @param method HTTP method (GET, POST)
     * @param path the path after {@code /api/v0/}, e.g. {@code graph/line} (a query string is ignored)
     * @param body the request body (UTF-8 text), or null
     * @return the status and JSON body
     */
    @Override
    public ApiHandler.Response handle(String method, String path, String body) {
        String p = path == null ? "" : path;
        int q = p.indexOf('?');
        p = q < 0 ? p : p.substring(0, q);
        while (p.startsWith("/")) {
            p = p.substring(1);
        }
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        boolean get = "GET".equals(method);
        boolean post = "POST".equals(method);
        try {
            switch (p) {
                case "configuration" -> {
                    return get ? ok(configuration()) : notAllowed("GET");
                }
                case "graph/line", "graph/sankey", "rows", "filter/validate", "graph/table-interval" -> {
                    if (!post) {
                        return notAllowed("POST");
                    }
                    if (body != null && body.length() > MAX_BODY / 4
                            && body.getBytes(StandardCharsets.UTF_8).length > MAX_BODY) {
                        return error(413, "body: larger than " + MAX_BODY + " bytes", null);
                    }
                    JsonNode json = parse(body);
                    return switch (p) {
                        case "graph/line" -> ok(graphs.line(QueryModel.graph(json, limits, "line")));
                        case "graph/sankey" -> ok(graphs.sankey(QueryModel.graph(json, limits, "sankey")));
                        case "rows" -> ok(graphs.rows(QueryModel.rows(json, limits)));
                        case "filter/validate" -> ok(validate(json));
                        default -> {
                            GraphQuery g = QueryModel.graph(json, limits, "table-interval");
                            TableChooser.Choice c = graphs.choose(g);
                            yield ok(new QueryModel.TableInterval(c.table(), c.interval()));
                        }
                    };
                }
                default -> {
                    return error(404, "no endpoint /api/v0/" + clip(p), null);
                }
            }
        } catch (BadRequest e) {
            return error(400, e.getMessage(), e.position());
        } catch (StoreException e) {
            return error(503, e.getMessage(), null);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "console API " + method + " " + clip(p) + " failed", e);
            return error(500, "internal error (logged by the server)", null);
        }
    }

    private static JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            throw new BadRequest("body: empty (a JSON object is required)", null);
        }
        try {
            return JSON.readTree(body);
        } catch (JsonProcessingException e) {
            String m = e.getOriginalMessage();
            m = m == null ? "malformed" : JdbcQueryRunner.firstLine(m);
            var loc = e.getLocation();
            throw new BadRequest("body: not valid JSON: " + m + (loc == null ? "" : " (line " + loc.getLineNr()
                    + ", column " + loc.getColumnNr() + ")"), null);
        }
    }

    private QueryModel.Validation validate(JsonNode body) {
        QueryModel.object(body);
        Source source = QueryModel.source(body);
        JsonNode f = body.get("filter");
        if (f != null && !f.isNull() && !f.isTextual()) {
            throw new BadRequest("filter: must be a string", null);
        }
        try {
            FilterParser.parse(source, f == null || f.isNull() ? "" : f.asText());
            return new QueryModel.Validation(true, null, null);
        } catch (FilterException e) {
            return new QueryModel.Validation(false, e.getMessage(), e.position());
        }
    }

    private ObjectNode configuration() throws StoreException {
        ObjectNode root = JSON.createObjectNode();
        root.put("store", dialect.name());
        root.put("version", version);
        ObjectNode sources = root.putObject("sources");
        for (String name : Source.names()) {
            Source s = Source.named(name);
            ObjectNode sn = sources.putObject(name);
            ArrayNode dims = sn.putArray("dimensions");
            ArrayNode filterOnly = sn.putArray("filterColumns");
            for (QueryColumn c : s.columns().values()) {
                ObjectNode cn = (c.dimension() ? dims : filterOnly).addObject();
                cn.put("name", c.name());
                cn.put("kind", c.kind().label());
            }
            ArrayNode metrics = sn.putArray("metrics");
            s.metrics().forEach(metrics::add);
            sn.putArray("defaultDimensions").add(s.defaultDimension());
        }
        List<List<String>> r = runner.query(new SqlBuilder(dialect).range("flows"),
                Duration.ofMillis(limits.queryTimeoutMs()));
        if (r.isEmpty() || r.get(0).get(2) == null || Double.parseDouble(r.get(0).get(2)) == 0) {
            root.putNull("range");
        } else {
            ObjectNode range = root.putObject("range");
            range.put("oldest", Instant.ofEpochSecond((long) Double.parseDouble(r.get(0).get(0))).toString());
            range.put("newest", Instant.ofEpochSecond((long) Double.parseDouble(r.get(0).get(1))).toString());
        }
        ObjectNode l = root.putObject("limits");
        l.put("maxRangeDays", limits.maxRangeDays());
        l.put("maxPoints", limits.maxPoints());
        l.put("maxLimit", limits.maxLimit());
        l.put("maxRows", limits.maxRows());
        l.put("queryTimeoutMs", limits.queryTimeoutMs());
        return root;
    }

    private static ApiHandler.Response ok(Object body) {
        try {
            return new ApiHandler.Response(200, JSON.writeValueAsString(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise the answer", e);
        }
    }

    private static ApiHandler.Response notAllowed(String allowed) {
        return error(405, "method not allowed (use " + allowed + ")", null);
    }

    private static ApiHandler.Response error(int status, String message, Integer position) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("error", message);
        if (position != null) {
            m.put("position", position);
        }
        try {
            return new ApiHandler.Response(status, JSON.writeValueAsString(m));
        } catch (JsonProcessingException e) {
            return new ApiHandler.Response(500, "{\"error\": \"internal error\"}");
        }
    }

    private static String clip(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }
}
