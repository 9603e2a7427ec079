package io.vecflow.collector.query;

import io.vecflow.collector.query.FilterExpr.Addr;
import io.vecflow.collector.query.FilterExpr.Dec;
import io.vecflow.collector.query.FilterExpr.Literal;
import io.vecflow.collector.query.FilterExpr.Num;
import io.vecflow.collector.query.FilterExpr.Str;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The console's filter language (docs/console-filter.md), after Akvorado's: conditions {@code Column op value}
 * combined with {@code OR} &lt; {@code AND} &lt; {@code NOT} &lt; parentheses; keywords and column names in any case;
 * {@code -- …} and {@code /* … *\/} comments; strings in {@code '…'} or {@code "…"} with {@code \'}, {@code \"},
 * {@code \\} escapes. Operators and values depend on the column's {@link ColumnKind}.
 *
 * <p>Bounded: a filter of at most {@link #MAX_LENGTH} characters, nested at most {@link #MAX_DEPTH} deep
 * (parentheses and NOTs), lists of at most {@link #MAX_LIST} values. Every error is a {@link FilterException} with the
 * 0-based position and a message ending {@code at line L, column C}.
 */
public final class FilterParser {
    /** Longest filter, in characters. */
    public static final int MAX_LENGTH = 4096;
    /** Deepest nesting of parentheses and NOTs. */
    public static final int MAX_DEPTH = 32;
    /** Most values in an IN list. */
    public static final int MAX_LIST = 1000;

    /** IP protocol names (IANA protocol numbers), lower case. */
    public static final Map<String, Integer> PROTOCOLS = Map.ofEntries(Map.entry("icmp", 1), Map.entry("igmp", 2),
            Map.entry("ipip", 4), Map.entry("tcp", 6), Map.entry("udp", 17), Map.entry("ipv6", 41),
            Map.entry("rsvp", 46), Map.entry("gre", 47), Map.entry("esp", 50), Map.entry("ah", 51),
            Map.entry("icmpv6", 58), Map.entry("ospf", 89), Map.entry("pim", 103), Map.entry("vrrp", 112),
            Map.entry("l2tp", 115), Map.entry("sctp", 132), Map.entry("udplite", 136), Map.entry("mpls", 137));

    private static final Set<String> KEYWORDS = Set.of("AND", "OR", "NOT", "IN", "NOTIN", "LIKE", "ILIKE", "UNLIKE",
            "IUNLIKE");

    private enum T { WORD, STRING, LPAREN, RPAREN, COMMA, OP, END }

    private record Tok(T type, String text, String value, int pos) {}

    private final String src;
    private final Source source;
    private final boolean reverse;
    private final List<Tok> toks = new ArrayList<>();
    private int i;
    private int depth;

    private FilterParser(String src, Source source, boolean reverse) {
        this.src = src;
        this.source = source;
        this.reverse = reverse;
    }

    /**
     * Parses a filter.
     *
     * @param source the source whose columns the filter names
     * @param filter the filter text; null, empty or only comments mean no filter
     * @param reverse true to swap Src↔Dst and In↔Out in every column (the reverse direction of a bidirectional graph)
     * @return the tree, or null for no filter
     * @throws FilterException when the filter does not parse
     */
    public static FilterExpr parse(Source source, String filter, boolean reverse) {
        if (filter == null) {
            return null;
        }
        if (filter.length() > MAX_LENGTH) {
            throw new FilterException("filter longer than " + MAX_LENGTH + " characters (" + filter.length() + ")",
                    MAX_LENGTH);
        }
        FilterParser p = new FilterParser(filter, source, reverse);
        p.tokenize();
        if (p.peek().type == T.END) {
            return null;
        }
        FilterExpr e = p.or();
        if (p.peek().type != T.END) {
            throw p.unexpected(p.peek(), "");
        }
        return e;
    }

    /** Same as {@link #parse(Source, String, boolean)} without reversal. */
    public static FilterExpr parse(Source source, String filter) {
        return parse(source, filter, false);
    }

    // ---------------------------------------------------------------- tokens

    private void tokenize() {
        int n = src.length();
        int p = 0;
        while (p < n) {
            char c = src.charAt(p);
            if (Character.isWhitespace(c)) {
                p++;
            } else if (c == '-' && p + 1 < n && src.charAt(p + 1) == '-') {
                while (p < n && src.charAt(p) != '\n') {
                    p++;
                }
            } else if (c == '/' && p + 1 < n && src.charAt(p + 1) == '*') {
                int close = src.indexOf("*/", p + 2);
                if (close < 0) {
                    throw error("unterminated comment", p);
                }
                p = close + 2;
            } else if (c == '(' || c == ')' || c == ',') {
                toks.add(new Tok(c == '(' ? T.LPAREN : c == ')' ? T.RPAREN : T.COMMA, String.valueOf(c), null, p));
                p++;
            } else if (c == '\'' || c == '"') {
                p = string(p, c);
            } else if (c == '=' || c == '<' || c == '>' || c == '!') {
                int start = p;
                String op = src.startsWith("!<<", p) ? "!<<" : src.startsWith("<<", p) ? "<<"
                        : src.startsWith("!=", p) ? "!=" : src.startsWith("<=", p) ? "<="
                        : src.startsWith(">=", p) ? ">=" : c == '!' ? null : String.valueOf(c);
                if (op == null) {
                    throw error("unexpected '!' (did you mean != or !<<?)", p);
                }
                p += op.length();
                toks.add(new Tok(T.OP, op, op, start));
            } else if (wordChar(c)) {
                int start = p;
                while (p < n && wordChar(src.charAt(p)) && !src.startsWith("--", p) && !src.startsWith("/*", p)) {
                    p++;
                }
                String w = src.substring(start, p);
                toks.add(new Tok(T.WORD, w, w, start));
            } else {
                throw error("unexpected character '" + printable(c) + "'", p);
            }
        }
        toks.add(new Tok(T.END, "", null, n));
    }

    private static boolean wordChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.'
                || c == ':' || c == '/' || c == '%' || c == '-';
    }

    private int string(int start, char quote) {
        StringBuilder b = new StringBuilder();
        int p = start + 1;
        while (true) {
            if (p >= src.length()) {
                throw error("unterminated string", start);
            }
            char c = src.charAt(p);
            if (c == quote) {
                p++;
                break;
            }
            if (c == '\\') {
                if (p + 1 >= src.length()) {
                    throw error("unterminated string", start);
                }
                char e = src.charAt(p + 1);
                if (e != '\'' && e != '"' && e != '\\') {
                    throw error("unknown escape '\\" + printable(e) + "' in string (only \\' \\\" \\\\)", p);
                }
                b.append(e);
                p += 2;
                continue;
            }
            if (c < 0x20 || c == 0x7F) {
                throw error("control character in string", p);
            }
            b.append(c);
            p++;
        }
        toks.add(new Tok(T.STRING, src.substring(start, p), b.toString(), start));
        return p;
    }

    private static String printable(char c) {
        return c < 0x20 || c == 0x7F ? String.format("\\u%04x", (int) c) : String.valueOf(c);
    }

    // ---------------------------------------------------------------- grammar

    private Tok peek() {
        return toks.get(i);
    }

    private Tok next() {
        return toks.get(i++);
    }

    private boolean keyword(Tok t, String k) {
        return t.type == T.WORD && t.text.equalsIgnoreCase(k);
    }

    private FilterExpr or() {
        List<FilterExpr> terms = new ArrayList<>();
        terms.add(and());
        while (keyword(peek(), "OR")) {
            next();
            terms.add(and());
        }
        return terms.size() == 1 ? terms.get(0) : new FilterExpr.Or(List.copyOf(terms));
    }

    private FilterExpr and() {
        List<FilterExpr> terms = new ArrayList<>();
        terms.add(not());
        while (keyword(peek(), "AND")) {
            next();
            terms.add(not());
        }
        return terms.size() == 1 ? terms.get(0) : new FilterExpr.And(List.copyOf(terms));
    }

    private FilterExpr not() {
        Tok t = peek();
        if (keyword(t, "NOT")) {
            next();
            enter(t);
            FilterExpr e = new FilterExpr.Not(not());
            depth--;
            return e;
        }
        if (t.type == T.LPAREN) {
            next();
            enter(t);
            FilterExpr e = or();
            Tok close = next();
            if (close.type != T.RPAREN) {
                throw unexpected(close, ", expected ')'");
            }
            depth--;
            return e;
        }
        return condition();
    }

    private void enter(Tok t) {
        if (++depth > MAX_DEPTH) {
            throw error("filter nested deeper than " + MAX_DEPTH + " levels", t.pos);
        }
    }

    private FilterExpr condition() {
        Tok ct = next();
        if (ct.type != T.WORD || KEYWORDS.contains(ct.text.toUpperCase(Locale.ROOT))) {
            throw unexpected(ct, ", expected a column name");
        }
        QueryColumn col = column(ct);
        if (col == null) {
            throw error("unknown column '" + ct.text + "' for source " + source.name(), ct.pos);
        }
        Tok ot = next();
        String op;
        if (ot.type == T.OP) {
            op = ot.text;
        } else if (ot.type == T.WORD && KEYWORDS.contains(ot.text.toUpperCase(Locale.ROOT))
                && !Set.of("AND", "OR", "NOT").contains(ot.text.toUpperCase(Locale.ROOT))) {
            op = ot.text.toUpperCase(Locale.ROOT);
        } else {
            throw unexpected(ot, ", expected an operator after " + col.name());
        }
        if (!col.kind().operators().contains(op)) {
            throw error("operator '" + ot.text + "' does not apply to " + col.name() + " (" + col.kind().label()
                    + ": " + String.join(" ", col.kind().operators()) + ")", ot.pos);
        }
        if (op.equals("IN") || op.equals("NOTIN")) {
            Tok open = next();
            if (open.type != T.LPAREN) {
                throw unexpected(open, ", expected '(' after " + op);
            }
            List<Literal> values = new ArrayList<>();
            while (true) {
                Tok v = next();
                if (values.size() == MAX_LIST) {
                    throw error("more than " + MAX_LIST + " values in " + op + " list", v.pos);
                }
                values.add(literal(col, "=", v));
                Tok sep = next();
                if (sep.type == T.RPAREN) {
                    break;
                }
                if (sep.type != T.COMMA) {
                    throw unexpected(sep, ", expected ',' or ')'");
                }
            }
            return new FilterExpr.InList(col, op.equals("NOTIN"), List.copyOf(values));
        }
        Tok vt = next();
        if (vt.type == T.WORD && !op.equals("<<") && !op.equals("!<<")) {
            QueryColumn other = column(vt);
            if (other != null && comparable(col, other, op)) {
                return new FilterExpr.ColumnCompare(col, op, other);
            }
        }
        return new FilterExpr.Compare(col, op, literal(col, op, vt));
    }

    private QueryColumn column(Tok t) {
        QueryColumn c = source.column(t.text);
        return c == null || !reverse ? c : source.reverse(c);
    }

    private static boolean comparable(QueryColumn a, QueryColumn b, String op) {
        if (a.kind().integral() && b.kind().integral()) {
            return true;
        }
        return a.kind() == b.kind() && (a.kind() == ColumnKind.STRING || a.kind() == ColumnKind.MAC)
                && (op.equals("=") || op.equals("!="));
    }

    private Literal literal(QueryColumn col, String op, Tok t) {
        if (t.type != T.WORD && t.type != T.STRING) {
            throw unexpected(t, ", expected a value for " + col.name());
        }
        if (t.type == T.WORD && KEYWORDS.contains(t.text.toUpperCase(Locale.ROOT))) {
            throw unexpected(t, ", expected a value for " + col.name());
        }
        String v = t.value;
        String lower = v.toLowerCase(Locale.ROOT);
        switch (col.kind()) {
            case IP, IP_ARRAY -> {
                Addresses.Range r = Addresses.parseRange(v);
                if (r == null) {
                    throw error("'" + v + "' is not an IPv4 or IPv6 address or subnet", t.pos);
                }
                if (col.kind() == ColumnKind.IP_ARRAY && !r.single()) {
                    throw error(col.name() + " takes an address, not a subnet", t.pos);
                }
                return new Addr(r);
            }
            case STRING -> {
                return new Str(v);
            }
            case FLOAT -> {
                if (!v.matches("[0-9]{1,15}(\\.[0-9]{1,15})?")) {
                    throw error("'" + v + "' is not a number", t.pos);
                }
                return new Dec(Double.parseDouble(v));
            }
            case BOUNDARY -> {
                return enumValue(col, t, lower, List.of("external", "internal", "undefined"));
            }
            case DIRECTION -> {
                return enumValue(col, t, lower, List.of("ingress", "egress", "undefined"));
            }
            case ETYPE -> {
                if (lower.equals("ipv4")) {
                    return new Num(0x0800);
                }
                if (lower.equals("ipv6")) {
                    return new Num(0x86DD);
                }
                return number(col, t, v, "IPv4, IPv6 or a number");
            }
            case PROTO -> {
                Integer p = PROTOCOLS.get(lower);
                return p != null ? new Num(p) : number(col, t, v, "a protocol number or name (tcp, udp, icmp, "
                        + "icmpv6, gre, esp, sctp ...)");
            }
            case MAC -> {
                if (!v.matches("[0-9A-Fa-f]{2}([:-][0-9A-Fa-f]{2}){5}")) {
                    throw error("'" + v + "' is not a MAC address (00:fe:c8:99:05:47) for " + col.name(), t.pos);
                }
                return new Num(Long.parseLong(v.replaceAll("[:-]", ""), 16));
            }
            case ASN, ASN_ARRAY -> {
                String digits = lower.startsWith("as") ? v.substring(2) : v;
                return number(col, t, digits, "an AS number (AS64496 or 64496)");
            }
            default -> {
                return number(col, t, v, "a number");
            }
        }
    }

    private Literal enumValue(QueryColumn col, Tok t, String lower, List<String> names) {
        if (!names.contains(lower)) {
            throw error("'" + t.value + "' is not a value of " + col.name() + " (" + String.join(", ", names) + ")",
                    t.pos);
        }
        return new Str(lower);
    }

    private Num number(QueryColumn col, Tok t, String digits, String expected) {
        if (digits.isEmpty() || digits.length() > 19 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw error("'" + t.value + "' is not " + expected + " for " + col.name(), t.pos);
        }
        long n = Long.parseLong(digits);
        if (n > col.maxValue()) {
            throw error(t.value + " is out of range for " + col.name() + " (0 to " + col.maxValue() + ")", t.pos);
        }
        return new Num(n);
    }

    // ---------------------------------------------------------------- errors

    private FilterException unexpected(Tok t, String expected) {
        String text = t.text.length() > 40 ? t.text.substring(0, 40) + "…" : t.text;
        String what = t.type == T.END ? "unexpected end of filter" : "unexpected '" + text + "'";
        return new FilterException(what + location(t.pos) + expected, t.pos);
    }

    private FilterException error(String what, int pos) {
        return new FilterException(what + location(pos), pos);
    }

    private String location(int pos) {
        int line = 1;
        int lineStart = 0;
        for (int k = 0; k < pos && k < src.length(); k++) {
            if (src.charAt(k) == '\n') {
                line++;
                lineStart = k + 1;
            }
        }
        return " at line " + line + ", column " + (pos - lineStart + 1);
    }
}
