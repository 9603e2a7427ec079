package io.vecflow.collector.query;

import io.vecflow.collector.query.FilterExpr.Addr;
import io.vecflow.collector.query.FilterExpr.Dec;
import io.vecflow.collector.query.FilterExpr.Literal;
import io.vecflow.collector.query.FilterExpr.Num;
import io.vecflow.collector.query.FilterExpr.Str;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Renders the console's statements for one store's {@link SqlDialect}: the WHERE clause of a query (time range,
 * filter, each packet once by direction), the metric aggregates per source and table, and the statements of the
 * graphs (top tuples, series folded into "Other", totals) and of the latest-rows listing. Column names come from
 * the schema ({@link QueryColumn#name()}), literals from the dialect; no user text reaches SQL any other way.
 */
public final class SqlBuilder {
    private final SqlDialect d;

    /** @param dialect the store's dialect */
    public SqlBuilder(SqlDialect dialect) {
        this.d = dialect;
    }

    /** @return the dialect */
    public SqlDialect dialect() {
        return d;
    }

    /**
     * @param e a filter tree
     * @return its SQL condition
     */
    public String filter(FilterExpr e) {
        return switch (e) {
            case FilterExpr.Or o -> "(" + o.terms().stream().map(this::filter).collect(Collectors.joining(" OR "))
                    + ")";
            case FilterExpr.And a -> "(" + a.terms().stream().map(this::filter)
                    .collect(Collectors.joining(" AND ")) + ")";
            case FilterExpr.Not n -> "NOT " + filter(n.term());
            case FilterExpr.ColumnCompare c -> "(" + c.left().name() + " " + c.op() + " " + c.right().name() + ")";
            case FilterExpr.Compare c -> compare(c.column(), c.op(), c.value());
            case FilterExpr.InList in -> in(in);
        };
    }

    private String compare(QueryColumn c, String op, Literal v) {
        String col = c.name();
        switch (c.kind()) {
            case IP -> {
                Addresses.Range r = ((Addr) v).range();
                boolean negated = op.equals("!=") || op.equals("!<<");
                String cond = r.single() ? col + " = " + d.address(r.first())
                        : col + " BETWEEN " + d.address(r.first()) + " AND " + d.address(r.last());
                return negated ? "NOT (" + cond + ")" : "(" + cond + ")";
            }
            case IP_ARRAY, ASN_ARRAY -> {
                String has = d.contains(col, literal(v));
                return op.equals("!=") ? "NOT " + has : has;
            }
            case STRING -> {
                String lit = literal(v);
                return switch (op) {
                    case "LIKE" -> "(" + col + " LIKE " + lit + ")";
                    case "UNLIKE" -> "NOT (" + col + " LIKE " + lit + ")";
                    case "ILIKE" -> "(" + d.ilike(col, lit) + ")";
                    case "IUNLIKE" -> "NOT (" + d.ilike(col, lit) + ")";
                    default -> "(" + col + " " + op + " " + lit + ")";
                };
            }
            default -> {
                return "(" + col + " " + op + " " + literal(v) + ")";
            }
        }
    }

    private String in(FilterExpr.InList in) {
        String col = in.column().name();
        String cond;
        if (in.column().kind() == ColumnKind.IP) {
            cond = "(" + in.values().stream().map(v -> compare(in.column(), "=", v))
                    .collect(Collectors.joining(" OR ")) + ")";
        } else {
            cond = col + " IN (" + in.values().stream().map(this::literal).collect(Collectors.joining(", ")) + ")";
        }
        return in.negated() ? "NOT (" + cond + ")" : "(" + cond + ")";
    }

    private String literal(Literal v) {
        return switch (v) {
            case Num n -> Long.toString(n.value());
            case Dec x -> new BigDecimal(x.value()).toPlainString();
            case Str s -> d.string(s.value());
            case Addr a -> d.address(a.range().first());
        };
    }

    /**
     * The WHERE clause of a query.
     *
     * @param source the source
     * @param expr the filter, or null
     * @param start first second, inclusive (seconds since the epoch)
     * @param end last second, exclusive
     * @return {@code WHERE TimeReceived >= … AND TimeReceived < … [AND (filter)] [AND Direction != 'egress']}
     */
    public String where(Source source, FilterExpr expr, long start, long end) {
        StringBuilder b = new StringBuilder("WHERE TimeReceived >= ").append(d.time(start))
                .append(" AND TimeReceived < ").append(d.time(end));
        if (expr != null) {
            b.append(" AND ").append(filter(expr));
        }
        if (source.countOnce() && !FilterExpr.columnNames(expr).contains("Direction")) {
            b.append(" AND Direction != ").append(d.string("egress"));
        }
        return b.toString();
    }

    /**
     * The aggregate of a metric (a sum over the rows; per second is the caller's division).
     *
     * @param source the source
     * @param metric one of the source's metrics
     * @param rollup true when the table is a rollup (Bytes and Packets already × SamplingRate, Samples = rows)
     * @return the SQL aggregate
     * @throws IllegalArgumentException for a metric the source does not have
     */
    public static String metric(Source source, String metric, boolean rollup) {
        return switch (source.name() + "/" + metric) {
            case "flows/bps" -> rollup ? "sum(Bytes) * 8" : "sum(Bytes * SamplingRate) * 8";
            case "flows/pps" -> rollup ? "sum(Packets)" : "sum(Packets * SamplingRate)";
            case "flows/samples" -> rollup ? "sum(Samples)" : "count(*)";
            case "drops/pps" -> "sum(greatest(SamplingRate, 1))";
            case "drops/samples", "lb_decisions/samples" -> "count(*)";
            case "lb_decisions/flows" -> "sum(Flows)";
            case "agents/samples" -> "sum(Samples)";
            case "agents/samples_lost" -> "sum(SamplesLost)";
            case "agents/datagrams" -> "sum(Datagrams)";
            case "agents/datagrams_lost" -> "sum(DatagramsLost)";
            case "agents/reported_drops" -> "sum(ReportedDrops)";
            default -> throw new IllegalArgumentException("no metric " + metric + " for " + source.name());
        };
    }

    private List<String> dimSelect(List<QueryColumn> dims) {
        List<String> out = new ArrayList<>();
        for (int k = 0; k < dims.size(); k++) {
            out.add(d.text(dims.get(k)) + " AS d" + k);
        }
        return out;
    }

    private static String aliases(int n) {
        List<String> out = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            out.add("d" + k);
        }
        return String.join(", ", out);
    }

    /**
     * The top tuples: {@code d0 … dn, v} ordered by v descending, at most {@code limit}.
     *
     * @param table the table
     * @param dims one or more dimensions
     * @param metric the aggregate
     * @param where the WHERE clause
     * @param byPeak true to rank by the greatest bucket (limitType max), false by the total (avg)
     * @param start the first bucket's start (byPeak)
     * @param interval the bucket width (byPeak)
     * @param limit most tuples
     * @return the statement
     */
    public String top(String table, List<QueryColumn> dims, String metric, String where, boolean byPeak, long start,
            long interval, int limit) {
        String a = aliases(dims.size());
        if (!byPeak) {
            return "SELECT " + String.join(", ", dimSelect(dims)) + ", " + metric + " AS v FROM " + table + " "
                    + where + " GROUP BY " + a + " ORDER BY v DESC, " + a + " LIMIT " + limit;
        }
        return "SELECT " + a + ", max(v) AS m FROM (SELECT " + String.join(", ", dimSelect(dims)) + ", "
                + d.bucket("TimeReceived", start, interval) + " AS b, " + metric + " AS v FROM " + table + " "
                + where + " GROUP BY " + a + ", b) AS per_bucket GROUP BY " + a + " ORDER BY m DESC, " + a
                + " LIMIT " + limit;
    }

    /**
     * The condition "this row's tuple is one of the top tuples".
     *
     * @param dims the dimensions
     * @param tuples the tuples as the store's text ({@link SqlDialect#text})
     * @return the condition (FALSE-equivalent {@code 1 = 0} when there are none)
     */
    public String inTop(List<QueryColumn> dims, List<List<String>> tuples) {
        if (tuples.isEmpty()) {
            return "1 = 0";
        }
        List<String> ors = new ArrayList<>();
        for (List<String> t : tuples) {
            List<String> ands = new ArrayList<>();
            for (int k = 0; k < dims.size(); k++) {
                ands.add(d.text(dims.get(k)) + " = " + d.string(t.get(k) == null ? "" : t.get(k)));
            }
            ors.add("(" + String.join(" AND ", ands) + ")");
        }
        return "(" + String.join(" OR ", ors) + ")";
    }

    /**
     * The series: {@code o, d0 … dn, b, v} per bucket, tuples outside the top folded into one row with o = 1.
     *
     * @param table the table
     * @param dims the dimensions (may be empty: one series)
     * @param inTop {@link #inTop} for the top tuples
     * @param metric the aggregate
     * @param where the WHERE clause
     * @param start first bucket's start
     * @param interval bucket width
     * @return the statement
     */
    public String series(String table, List<QueryColumn> dims, String inTop, String metric, String where,
            long start, long interval) {
        StringBuilder b = new StringBuilder("SELECT ");
        if (!dims.isEmpty()) {
            b.append("CASE WHEN ").append(inTop).append(" THEN 0 ELSE 1 END AS o, ");
            for (int k = 0; k < dims.size(); k++) {
                b.append("CASE WHEN ").append(inTop).append(" THEN ").append(d.text(dims.get(k)))
                        .append(" ELSE '' END AS d").append(k).append(", ");
            }
        }
        b.append(d.bucket("TimeReceived", start, interval)).append(" AS b, ").append(metric).append(" AS v FROM ")
                .append(table).append(' ').append(where).append(" GROUP BY ")
                .append(dims.isEmpty() ? "" : "o, " + aliases(dims.size()) + ", ").append('b');
        return b.toString();
    }

    /** @return the statement of one number: the metric over the whole WHERE */
    public String total(String table, String metric, String where) {
        return "SELECT " + metric + " AS v FROM " + table + " " + where;
    }

    /**
     * The latest rows: the source's listing columns as text, newest first (ties by the columns in order, so both
     * stores list the same rows).
     *
     * @param source the source
     * @param where the WHERE clause
     * @param limit most rows
     * @return the statement; its first column is TimeReceived in seconds since the epoch
     */
    public String rows(Source source, String where, int limit) {
        List<String> sel = new ArrayList<>();
        List<String> order = new ArrayList<>();
        for (String name : source.rowsColumns()) {
            if (name.equals("TimeReceived")) {
                sel.add(d.epochSeconds("TimeReceived") + " AS t");
                order.add("TimeReceived DESC");
            } else {
                QueryColumn c = source.column(name);
                sel.add(d.text(c) + " AS c" + sel.size());
                order.add(c.name());
            }
        }
        return "SELECT " + String.join(", ", sel) + " FROM " + source.table() + " " + where + " ORDER BY "
                + String.join(", ", order) + " LIMIT " + limit;
    }

    /**
     * @param tables table names
     * @return the statement of (table, seconds of the oldest TimeReceived) per table; NULL or 0 when empty
     */
    public String oldest(List<String> tables) {
        return tables.stream().map(t -> "SELECT " + d.string(t) + " AS t, " + d.epochSeconds("min(TimeReceived)")
                + " AS s FROM " + t).collect(Collectors.joining(" UNION ALL "));
    }

    /** @return the statement of the oldest and newest TimeReceived (seconds) of a table */
    public String range(String table) {
        return "SELECT " + d.epochSeconds("min(TimeReceived)") + ", " + d.epochSeconds("max(TimeReceived)")
                + ", count(*) FROM " + table;
    }
}
