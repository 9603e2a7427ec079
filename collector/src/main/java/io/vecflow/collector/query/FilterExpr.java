package io.vecflow.collector.query;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A parsed filter (docs/console-filter.md): a tree of {@link Or}, {@link And}, {@link Not} over conditions on
 * columns. Literals are typed ({@link Literal}) and never SQL: {@link SqlBuilder} renders them through the store's
 * {@link SqlDialect}.
 */
public sealed interface FilterExpr {
    /** Either term holds. @param terms two or more */
    record Or(List<FilterExpr> terms) implements FilterExpr {}

    /** Every term holds. @param terms two or more */
    record And(List<FilterExpr> terms) implements FilterExpr {}

    /** The term does not hold. @param term the negated term */
    record Not(FilterExpr term) implements FilterExpr {}

    /**
     * A column against a literal.
     *
     * @param column the column
     * @param op {@code = != < <= > >= << !<< LIKE ILIKE UNLIKE IUNLIKE}
     * @param value the literal
     */
    record Compare(QueryColumn column, String op, Literal value) implements FilterExpr {}

    /**
     * A column against another column of the same kind.
     *
     * @param left the left column
     * @param op {@code = != < <= > >=}
     * @param right the right column
     */
    record ColumnCompare(QueryColumn left, String op, QueryColumn right) implements FilterExpr {}

    /**
     * A column in (or, negated, not in) a list of literals.
     *
     * @param column the column
     * @param negated true for {@code NOTIN}
     * @param values one to 1000 literals
     */
    record InList(QueryColumn column, boolean negated, List<Literal> values) implements FilterExpr {}

    /** A typed literal. */
    sealed interface Literal {}

    /** An unsigned integer (ports, AS numbers, protocols, EtherTypes...). @param value 0 ≤ value */
    record Num(long value) implements Literal {}

    /** A floating-point number. @param value the number */
    record Dec(double value) implements Literal {}

    /** A text value (strings, enum names in the column's spelling). @param value the text */
    record Str(String value) implements Literal {}

    /** An address or subnet. @param range the addresses it covers */
    record Addr(Addresses.Range range) implements Literal {}

    /**
     * Visits every condition's columns.
     *
     * @param e a tree
     * @param sink called for each column a condition names
     */
    static void columns(FilterExpr e, Consumer<QueryColumn> sink) {
        switch (e) {
            case Or o -> o.terms().forEach(t -> columns(t, sink));
            case And a -> a.terms().forEach(t -> columns(t, sink));
            case Not n -> columns(n.term(), sink);
            case Compare c -> sink.accept(c.column());
            case ColumnCompare c -> {
                sink.accept(c.left());
                sink.accept(c.right());
            }
            case InList i -> sink.accept(i.column());
        }
    }

    /**
     * @param e a tree, or null for no filter
     * @return the names of the columns it uses (schema spelling), empty for null
     */
    static List<String> columnNames(FilterExpr e) {
        List<String> out = new ArrayList<>();
        if (e != null) {
            columns(e, c -> {
                if (!out.contains(c.name())) {
                    out.add(c.name());
                }
            });
        }
        return out;
    }
}
