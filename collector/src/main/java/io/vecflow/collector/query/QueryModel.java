package io.vecflow.collector.query;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The query model of docs/console-api.md: the requests (read from JSON and validated against the schema and the
 * limits) and the responses (serialised by Jackson with the document's field names). A request that breaks a rule
 * is a {@link BadRequest} whose message names the field ({@code points: must be an integer from 5 to 2000}).
 */
public final class QueryModel {
    private QueryModel() {}

    /**
     * The limits of the API ({@code limits} of GET configuration).
     *
     * @param maxRangeDays longest range
     * @param maxPoints most points of a line graph (the least is 5)
     * @param maxLimit most top rows of a graph
     * @param maxRows most rows of the latest-rows listing
     * @param queryTimeoutMs each statement's timeout
     */
    public record Limits(int maxRangeDays, int maxPoints, int maxLimit, int maxRows, long queryTimeoutMs) {
        /** The document's defaults: 400 days, 2000 points, 50 rows, 500 listed rows, 10 s. */
        public static final Limits DEFAULT = new Limits(400, 2000, 50, 500, 10_000);
    }

    /** A request that breaks a rule: HTTP 400, the message names the field. */
    public static final class BadRequest extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final Integer position;

        /**
         * @param message what and where ({@code limit: must be an integer from 1 to 50})
         * @param position the filter position for filter errors, else null
         */
        public BadRequest(String message, Integer position) {
            super(message, null, false, false);
            this.position = position;
        }

        /** @return the 0-based filter position, or null when the error is not in the filter */
        public Integer position() {
            return position;
        }
    }

    /** How the top rows are ranked. */
    public enum LimitType {
        /** By the total over the range. */
        AVG,
        /** By the peak bucket. */
        MAX
    }

    /**
     * A graph request (line, sankey, table-interval).
     *
     * @param source the source
     * @param start range start, seconds since the epoch (inclusive)
     * @param end range end, seconds (exclusive)
     * @param dimensions 0–6 distinct dimensions
     * @param filter the filter tree, or null
     * @param reverseFilter the filter with Src↔Dst and In↔Out swapped (bidirectional), or null
     * @param metric the metric
     * @param limit top rows
     * @param limitType ranking
     * @param points wanted buckets
     * @param bidirectional true to add the reverse direction
     */
    public record GraphQuery(Source source, long start, long end, List<QueryColumn> dimensions, FilterExpr filter,
            FilterExpr reverseFilter, String metric, int limit, LimitType limitType, int points,
            boolean bidirectional) {
        /** @return every column the query needs besides time and the metric (dimensions and filter, both ways) */
        public List<String> columnsUsed() {
            List<String> out = new ArrayList<>();
            dimensions.forEach(c -> out.add(c.name()));
            if (bidirectional) {
                dimensions.forEach(c -> out.add(source.reverse(c).name()));
                out.addAll(FilterExpr.columnNames(reverseFilter));
            }
            out.addAll(FilterExpr.columnNames(filter));
            return out;
        }
    }

    /**
     * A latest-rows request.
     *
     * @param source the source
     * @param start range start (seconds, inclusive)
     * @param end range end (seconds, exclusive)
     * @param filter the filter tree, or null
     * @param limit most rows
     */
    public record RowsQuery(Source source, long start, long end, FilterExpr filter, int limit) {}

    /**
     * Reads a graph request.
     *
     * @param body the parsed JSON body
     * @param limits the limits
     * @param kind {@code line}, {@code sankey} or {@code table-interval}
     * @return the validated request
     * @throws BadRequest when a field is missing, of the wrong type or out of range
     */
    public static GraphQuery graph(JsonNode body, Limits limits, String kind) {
        object(body);
        Source source = source(body);
        long[] range = range(body, limits);
        List<QueryColumn> dims = new ArrayList<>();
        JsonNode dn = body.get("dimensions");
        if (dn != null && !dn.isNull()) {
            if (!dn.isArray()) {
                throw new BadRequest("dimensions: must be a list of column names", null);
            }
            if (dn.size() > 6) {
                throw new BadRequest("dimensions: at most 6, got " + dn.size(), null);
            }
            for (JsonNode n : dn) {
                if (!n.isTextual()) {
                    throw new BadRequest("dimensions: must be a list of column names", null);
                }
                QueryColumn c = source.column(n.asText());
                if (c == null) {
                    throw new BadRequest("dimensions: unknown dimension '" + clip(n.asText()) + "' for source "
                            + source.name(), null);
                }
                if (!c.dimension()) {
                    throw new BadRequest("dimensions: " + c.name() + " is not a dimension (a metric or bookkeeping "
                            + "column)", null);
                }
                if (dims.contains(c)) {
                    throw new BadRequest("dimensions: " + c.name() + " named twice", null);
                }
                dims.add(c);
            }
        }
        if (kind.equals("sankey") && dims.size() < 2) {
            throw new BadRequest("dimensions: a sankey needs at least 2", null);
        }
        String metric = text(body, "metric", source.metrics().get(0)).toLowerCase(Locale.ROOT);
        if (!source.metrics().contains(metric)) {
            throw new BadRequest("metric: unknown metric '" + clip(metric) + "' for source " + source.name() + " ("
                    + String.join(", ", source.metrics()) + ")", null);
        }
        int limit = integer(body, "limit", 10, 1, limits.maxLimit());
        String lt = text(body, "limitType", "avg").toLowerCase(Locale.ROOT);
        if (!lt.equals("avg") && !lt.equals("max")) {
            throw new BadRequest("limitType: must be avg or max", null);
        }
        int points = integer(body, "points", 200, 5, limits.maxPoints());
        boolean bidi = bool(body, "bidirectional");
        String filterText = text(body, "filter", "");
        FilterExpr filter = filter(source, filterText, false);
        FilterExpr reverse = bidi ? filter(source, filterText, true) : null;
        return new GraphQuery(source, range[0], range[1], List.copyOf(dims), filter, reverse, metric, limit,
                lt.equals("max") ? LimitType.MAX : LimitType.AVG, points, bidi);
    }

    /**
     * Reads a latest-rows request.
     *
     * @param body the parsed JSON body
     * @param limits the limits
     * @return the validated request
     * @throws BadRequest when a field is wrong
     */
    public static RowsQuery rows(JsonNode body, Limits limits) {
        object(body);
        Source source = source(body);
        long[] range = range(body, limits);
        FilterExpr filter = filter(source, text(body, "filter", ""), false);
        return new RowsQuery(source, range[0], range[1], filter, integer(body, "limit", 50, 1, limits.maxRows()));
    }

    /** @throws BadRequest unless the body is a JSON object */
    static void object(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw new BadRequest("body: must be a JSON object", null);
        }
    }

    /** @return the request's source @throws BadRequest when missing or unknown */
    static Source source(JsonNode body) {
        JsonNode n = body.get("source");
        if (n == null || n.isNull()) {
            throw new BadRequest("source: missing (" + String.join(", ", Source.names()) + ")", null);
        }
        if (!n.isTextual()) {
            throw new BadRequest("source: must be a string", null);
        }
        Source s = Source.named(n.asText());
        if (s == null) {
            throw new BadRequest("source: unknown source '" + clip(n.asText()) + "' ("
                    + String.join(", ", Source.names()) + ")", null);
        }
        return s;
    }

    /** @return the filter tree of a source's filter text @throws BadRequest with the position when it is wrong */
    static FilterExpr filter(Source source, String text, boolean reverse) {
        try {
            return FilterParser.parse(source, text, reverse);
        } catch (FilterException e) {
            throw new BadRequest("filter: " + e.getMessage(), e.position());
        }
    }

    private static long[] range(JsonNode body, Limits limits) {
        Instant start = time(body, "start");
        Instant end = time(body, "end");
        if (!end.isAfter(start)) {
            throw new BadRequest("end: must be after start", null);
        }
        if (end.getEpochSecond() - start.getEpochSecond() > limits.maxRangeDays() * 86_400L) {
            throw new BadRequest("range: longer than " + limits.maxRangeDays() + " days", null);
        }
        long s = start.getEpochSecond();
        long e = end.getEpochSecond() + (end.getNano() > 0 ? 1 : 0);
        return new long[] {s, Math.max(e, s + 1)};
    }

    private static Instant time(JsonNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            throw new BadRequest(field + ": missing (an RFC 3339 time, e.g. 2026-12-01T10:00:00Z)", null);
        }
        if (!n.isTextual() || n.asText().length() > 40) {
            throw new BadRequest(field + ": must be an RFC 3339 time, e.g. 2026-12-01T10:00:00Z", null);
        }
        Instant t;
        try {
            t = Instant.parse(n.asText());
        } catch (DateTimeParseException e) {
            throw new BadRequest(field + ": not an RFC 3339 time: '" + clip(n.asText()) + "'", null);
        }
        if (t.getEpochSecond() < 0 || t.getEpochSecond() > 0xFFFF_FFFEL) {
            throw new BadRequest(field + ": outside 1970-01-01 to 2106-02-07", null);
        }
        return t;
    }

    private static String text(JsonNode body, String field, String dflt) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return dflt;
        }
        if (!n.isTextual()) {
            throw new BadRequest(field + ": must be a string", null);
        }
        return n.asText();
    }

    private static int integer(JsonNode body, String field, int dflt, int min, int max) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return dflt;
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt() || n.asInt() < min || n.asInt() > max) {
            throw new BadRequest(field + ": must be an integer from " + min + " to " + max, null);
        }
        return n.asInt();
    }

    private static boolean bool(JsonNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return false;
        }
        if (!n.isBoolean()) {
            throw new BadRequest(field + ": must be true or false", null);
        }
        return n.asBoolean();
    }

    private static String clip(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "…" : s;
    }

    // ------------------------------------------------------------------ responses

    /**
     * The answer of POST graph/line.
     *
     * @param t bucket starts (RFC 3339)
     * @param rows dimension tuples (display text), then "Other"; {@code ["Total"]} without dimensions
     * @param points per row, the metric per second in each bucket (gaps 0)
     * @param axis per row, 1 (direct) or 2 (reverse)
     * @param average per row, mean of its points
     * @param min per row, least point
     * @param max per row, greatest point
     * @param last per row, last point
     * @param p95 per row, 95th percentile of its points (nearest rank)
     * @param total per row, the metric's sum over the range (bits, packets, samples…: not per second)
     * @param table the table read
     * @param interval bucket width in seconds
     * @param sql the statements run, separated by {@code ;\n}
     */
    public record LineResponse(List<String> t, List<List<String>> rows, List<List<Double>> points,
            List<Integer> axis, List<Double> average, List<Double> min, List<Double> max, List<Double> last,
            @JsonProperty("95th") List<Double> p95, List<Double> total, String table, long interval, String sql) {}

    /**
     * One link of a sankey.
     *
     * @param source node {@code Dim: value}
     * @param target node of the next dimension
     * @param xps the metric per second through it
     */
    public record Link(String source, String target, double xps) {}

    /**
     * The answer of POST graph/sankey.
     *
     * @param rows dimension tuples, then "Other"
     * @param xps per row, the metric averaged over the range (per second)
     * @param nodes {@code Dim: value}, in order of first appearance
     * @param links between consecutive dimensions, summed
     * @param table the table read
     * @param interval the table's interval for the range
     * @param sql the statements run
     */
    public record SankeyResponse(List<List<String>> rows, List<Double> xps, List<String> nodes, List<Link> links,
            String table, long interval, String sql) {}

    /**
     * The answer of POST rows.
     *
     * @param columns column names
     * @param rows newest first; numbers as JSON numbers, the rest text
     * @param sql the statement run
     */
    public record RowsResponse(List<String> columns, List<List<Object>> rows, String sql) {}

    /**
     * The answer of POST graph/table-interval.
     *
     * @param table the table a graph would read
     * @param interval its bucket width in seconds
     */
    public record TableInterval(String table, long interval) {}

    /**
     * The answer of POST filter/validate.
     *
     * @param valid true when the filter parses
     * @param error the message, when not
     * @param position the 0-based position, when not
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Validation(boolean valid, String error, Integer position) {}
}
