package io.vecflow.collector.query;

import io.vecflow.collector.query.QueryModel.GraphQuery;
import io.vecflow.collector.query.QueryModel.LineResponse;
import io.vecflow.collector.query.QueryModel.Link;
import io.vecflow.collector.query.QueryModel.RowsQuery;
import io.vecflow.collector.query.QueryModel.RowsResponse;
import io.vecflow.collector.query.QueryModel.SankeyResponse;
import io.vecflow.collector.query.QueryRunner.StoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The console's graphs over one store (docs/console-api.md): a line graph is two statements — the top {@code limit}
 * dimension tuples over the range ({@link SqlBuilder#top}), then the series per bucket with every other tuple folded
 * into "Other" ({@link SqlBuilder#series}) — gap-filled here with zeros and divided by the interval (per second); a
 * sankey is the top tuples and the total; the latest rows are one statement. AS numbers are shown with their name
 * from {@code asns} when it has one ({@code AS64500 Example}).
 *
 * <p>Stateless but for the {@link TableChooser}'s cache; thread-safe.
 */
final class Graphs {
    private static final String OTHER = "Other";

    private final QueryRunner runner;
    private final SqlBuilder sql;
    private final TableChooser chooser;
    private final Duration timeout;

    /**
     * @param runner the store
     * @param sql the store's builder
     * @param chooser picks the table of a graph
     * @param timeout each statement's timeout
     */
    Graphs(QueryRunner runner, SqlBuilder sql, TableChooser chooser, Duration timeout) {
        this.runner = runner;
        this.sql = sql;
        this.chooser = chooser;
        this.timeout = timeout;
    }

    /** @return the table and interval a graph reads @throws StoreException when the store cannot be asked */
    TableChooser.Choice choose(GraphQuery q) throws StoreException {
        return chooser.choose(q);
    }

    /** One direction's series: display tuples and their values per bucket (not yet per second). */
    private record Series(List<List<String>> rows, List<double[]> values) {}

    /**
     * @param q a validated line query
     * @return the graph
     * @throws StoreException when a statement fails
     */
    LineResponse line(GraphQuery q) throws StoreException {
        TableChooser.Choice c = chooser.choose(q);
        List<String> statements = new ArrayList<>();
        Series direct = series(q, c, q.dimensions(), q.filter(), statements);
        List<List<String>> rows = new ArrayList<>(direct.rows());
        List<double[]> values = new ArrayList<>(direct.values());
        List<Integer> axis = new ArrayList<>();
        direct.rows().forEach(r -> axis.add(1));
        if (q.bidirectional()) {
            List<QueryColumn> reversed = q.dimensions().stream().map(d -> q.source().reverse(d)).toList();
            Series back = series(q, c, reversed, q.reverseFilter(), statements);
            rows.addAll(back.rows());
            values.addAll(back.values());
            back.rows().forEach(r -> axis.add(2));
        }
        List<String> t = new ArrayList<>(c.buckets());
        for (int j = 0; j < c.buckets(); j++) {
            t.add(Instant.ofEpochSecond(c.start() + j * c.interval()).toString());
        }
        List<List<Double>> points = new ArrayList<>();
        List<Double> average = new ArrayList<>();
        List<Double> min = new ArrayList<>();
        List<Double> max = new ArrayList<>();
        List<Double> last = new ArrayList<>();
        List<Double> p95 = new ArrayList<>();
        List<Double> total = new ArrayList<>();
        for (double[] v : values) {
            List<Double> row = new ArrayList<>(v.length);
            double sum = 0;
            double[] perSecond = new double[v.length];
            for (int j = 0; j < v.length; j++) {
                perSecond[j] = v[j] / c.interval();
                row.add(perSecond[j]);
                sum += v[j];
            }
            points.add(row);
            total.add(sum);
            average.add(sum / c.interval() / v.length);
            double[] sorted = perSecond.clone();
            Arrays.sort(sorted);
            min.add(sorted[0]);
            max.add(sorted[sorted.length - 1]);
            last.add(perSecond[perSecond.length - 1]);
            p95.add(sorted[Math.max(0, (int) Math.ceil(0.95 * sorted.length) - 1)]);
        }
        return new LineResponse(t, rows, points, axis, average, min, max, last, p95, total, c.table(), c.interval(),
                String.join(";\n", statements));
    }

    private Series series(GraphQuery q, TableChooser.Choice c, List<QueryColumn> dims, FilterExpr filter,
            List<String> statements) throws StoreException {
        String metric = SqlBuilder.metric(q.source(), q.metric(), c.rollup());
        String where = sql.where(q.source(), filter, c.start(), c.end());
        if (dims.isEmpty()) {
            String s = sql.series(c.table(), dims, null, metric, where, c.start(), c.interval());
            statements.add(s);
            double[] v = new double[c.buckets()];
            for (List<String> r : run(s)) {
                add(v, r.get(0), r.get(1));
            }
            return new Series(List.of(List.of("Total")), List.of(v));
        }
        String top = sql.top(c.table(), dims, metric, where, q.limitType() == QueryModel.LimitType.MAX, c.start(),
                c.interval(), q.limit());
        statements.add(top);
        List<List<String>> tuples = new ArrayList<>();
        for (List<String> r : run(top)) {
            tuples.add(r.subList(0, dims.size()));
        }
        String s = sql.series(c.table(), dims, sql.inTop(dims, tuples), metric, where, c.start(), c.interval());
        statements.add(s);
        Map<List<String>, double[]> byTuple = new LinkedHashMap<>();
        tuples.forEach(tp -> byTuple.put(tp, new double[c.buckets()]));
        double[] other = new double[c.buckets()];
        boolean anyOther = false;
        int n = dims.size();
        for (List<String> r : run(s)) {
            boolean isOther = !"0".equals(r.get(0));
            double[] v = isOther ? other : byTuple.get(nulls(r.subList(1, 1 + n)));
            if (v == null) {
                continue; // a tuple whose text changed between the statements (a row arriving): counted next time
            }
            anyOther |= isOther && Double.parseDouble(r.get(n + 2)) != 0;
            add(v, r.get(n + 1), r.get(n + 2));
        }
        Map<Long, String> names = asNames(dims, tuples);
        List<List<String>> rows = new ArrayList<>();
        List<double[]> values = new ArrayList<>();
        for (Map.Entry<List<String>, double[]> e : byTuple.entrySet()) {
            rows.add(display(dims, e.getKey(), names));
            values.add(e.getValue());
        }
        if (anyOther) {
            rows.add(java.util.Collections.nCopies(n, OTHER));
            values.add(other);
        }
        return new Series(rows, values);
    }

    /**
     * @param q a validated sankey query (two or more dimensions)
     * @return the sankey
     * @throws StoreException when a statement fails
     */
    SankeyResponse sankey(GraphQuery q) throws StoreException {
        TableChooser.Choice c = chooser.choose(q);
        String metric = SqlBuilder.metric(q.source(), q.metric(), c.rollup());
        String where = sql.where(q.source(), q.filter(), c.start(), c.end());
        List<QueryColumn> dims = q.dimensions();
        String top = sql.top(c.table(), dims, metric, where, false, c.start(), c.interval(), q.limit());
        String all = sql.total(c.table(), metric, where);
        double seconds = c.end() - c.start();
        List<List<String>> tuples = new ArrayList<>();
        List<Double> sums = new ArrayList<>();
        double topSum = 0;
        for (List<String> r : run(top)) {
            tuples.add(r.subList(0, dims.size()));
            double v = number(r.get(dims.size()));
            sums.add(v);
            topSum += v;
        }
        List<List<String>> totalRows = run(all);
        double total = totalRows.isEmpty() ? 0 : number(totalRows.get(0).get(0));
        Map<Long, String> names = asNames(dims, tuples);
        List<List<String>> rows = new ArrayList<>();
        List<Double> xps = new ArrayList<>();
        for (int k = 0; k < tuples.size(); k++) {
            rows.add(display(dims, tuples.get(k), names));
            xps.add(sums.get(k) / seconds);
        }
        double rest = total - topSum;
        if (rest > 1e-9 * Math.max(1, total)) {
            rows.add(java.util.Collections.nCopies(dims.size(), OTHER));
            xps.add(rest / seconds);
        }
        LinkedHashSet<String> nodes = new LinkedHashSet<>();
        Map<List<String>, Double> links = new LinkedHashMap<>();
        for (int k = 0; k < rows.size(); k++) {
            List<String> row = rows.get(k);
            for (int j = 0; j < dims.size(); j++) {
                nodes.add(node(dims.get(j), row.get(j)));
                if (j > 0) {
                    links.merge(List.of(node(dims.get(j - 1), row.get(j - 1)), node(dims.get(j), row.get(j))),
                            xps.get(k), Double::sum);
                }
            }
        }
        List<Link> linkList = new ArrayList<>();
        links.forEach((k, v) -> linkList.add(new Link(k.get(0), k.get(1), v)));
        return new SankeyResponse(rows, xps, List.copyOf(nodes), linkList, c.table(), c.interval(),
                top + ";\n" + all);
    }

    private static String node(QueryColumn c, String value) {
        return c.name() + ": " + value;
    }

    /**
     * @param q a validated rows query
     * @return the latest rows, newest first
     * @throws StoreException when the statement fails
     */
    RowsResponse rows(RowsQuery q) throws StoreException {
        String s = sql.rows(q.source(), sql.where(q.source(), q.filter(), q.start(), q.end()), q.limit());
        List<String> columns = q.source().rowsColumns();
        List<List<Object>> out = new ArrayList<>();
        for (List<String> r : run(s)) {
            List<Object> row = new ArrayList<>(columns.size());
            for (int k = 0; k < columns.size(); k++) {
                String raw = r.get(k);
                if (k == 0) {
                    row.add(raw == null ? null : Instant.ofEpochSecond((long) number(raw)).toString());
                    continue;
                }
                QueryColumn c = q.source().column(columns.get(k));
                boolean numeric = c.kind() == ColumnKind.UINT || c.kind() == ColumnKind.FLOAT;
                row.add(raw == null ? null : numeric ? jsonNumber(raw) : sql.dialect().display(c, raw));
            }
            out.add(row);
        }
        return new RowsResponse(columns, out, s);
    }

    private static Object jsonNumber(String raw) {
        double d = number(raw);
        return d == Math.rint(d) && Math.abs(d) < 9e15 ? (Object) (long) d : (Object) d;
    }

    private List<List<String>> run(String statement) throws StoreException {
        return runner.query(statement, timeout);
    }

    private static void add(double[] v, String bucket, String value) {
        long b = (long) number(bucket);
        if (b >= 0 && b < v.length && value != null) {
            v[(int) b] += number(value);
        }
    }

    private static double number(String s) {
        return s == null || s.isEmpty() ? 0 : Double.parseDouble(s);
    }

    private static List<String> nulls(List<String> t) {
        List<String> out = new ArrayList<>(t.size());
        for (String s : t) {
            out.add(s == null ? "" : s);
        }
        return out;
    }

    private List<String> display(List<QueryColumn> dims, List<String> raw, Map<Long, String> names) {
        List<String> out = new ArrayList<>(dims.size());
        for (int k = 0; k < dims.size(); k++) {
            QueryColumn c = dims.get(k);
            String text = sql.dialect().display(c, raw.get(k));
            if (c.kind() == ColumnKind.ASN && raw.get(k) != null) {
                String name = names.get((long) number(raw.get(k)));
                text = name == null || name.isEmpty() ? text : text + " " + name;
            }
            out.add(text);
        }
        return out;
    }

    /** The names of the AS numbers among the tuples, from {@code asns}; empty when it has none or cannot answer. */
    private Map<Long, String> asNames(List<QueryColumn> dims, List<List<String>> tuples) {
        List<Long> asns = new ArrayList<>();
        for (List<String> t : tuples) {
            for (int k = 0; k < dims.size(); k++) {
                if (dims.get(k).kind() == ColumnKind.ASN && t.get(k) != null) {
                    long a = (long) number(t.get(k));
                    if (!asns.contains(a)) {
                        asns.add(a);
                    }
                }
            }
        }
        Map<Long, String> out = new HashMap<>();
        if (asns.isEmpty()) {
            return out;
        }
        try {
            for (List<String> r : run(sql.dialect().asnNames(asns))) {
                if (r.get(0) != null && r.get(1) != null) {
                    out.put((long) number(r.get(0)), r.get(1));
                }
            }
        } catch (StoreException e) {
            // names are a courtesy: the numbers alone still answer the graph
        }
        return out;
    }
}
