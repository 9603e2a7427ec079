package io.vecflow.collector.query;

import io.vecflow.collector.schema.FlowSchema.ServerFeatures;
import io.vecflow.common.IpAddresses;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What differs between the stores' SQL: literals (always rendered here, escaped, never concatenated from user
 * text), times, address text, list membership. Two dialects: {@link #duckDb()} over {@code DuckDbSchema}'s tables
 * (addresses {@code BLOB}, enums {@code VARCHAR}, {@code TIMESTAMP} in UTC) and {@link #clickHouse(ServerFeatures)}
 * over {@code FlowSchema}'s (addresses {@code FixedString(16)} on 18.16, {@code IPv6} on current servers; enums
 * {@code Enum8}). Everything else the builder writes is SQL that means the same in both (CASE, sum, count, max,
 * BETWEEN, IN, LIKE).
 */
public abstract sealed class SqlDialect {
    private SqlDialect() {}

    /** @return the DuckDB dialect */
    public static SqlDialect duckDb() {
        return new DuckDb();
    }

    /**
     * @param f the server's features ({@code FlowSchema.ServerFeatures.fromVersion})
     * @return the ClickHouse dialect for that server
     */
    public static SqlDialect clickHouse(ServerFeatures f) {
        return new ClickHouse(f);
    }

    /** @return {@code duckdb} or {@code clickhouse} (the API's {@code store}) */
    public abstract String name();

    /** @return a string literal holding {@code s} exactly */
    public abstract String string(String s);

    /** @return a literal of a 16-byte address, comparable with an address column */
    public abstract String address(byte[] b);

    /** @return a literal of a time, comparable with {@code TimeReceived} */
    public abstract String time(long epochSecond);

    /** @return an integer expression: the seconds since the epoch of a time column */
    public abstract String epochSeconds(String column);

    /**
     * @param column a time column
     * @param start the first bucket's start, seconds since the epoch
     * @param interval the bucket width in seconds
     * @return an integer expression: the bucket index, 0 for [start, start + interval)
     */
    public abstract String bucket(String column, long start, long interval);

    /** @return a text expression of a column's value, decoded by {@link #display} ({@code hex} of an address ...) */
    public abstract String text(QueryColumn c);

    /**
     * @return the display text of an address as {@link #text} rendered it: both stores render the 16 bytes in hex, so
     *     the same text orders ties the same way in both
     */
    public String decodeAddress(String raw) {
        byte[] b = Addresses.fromHex(raw);
        return b == null ? raw : Addresses.format(b);
    }

    /** @return a condition: the list column holds the value */
    public abstract String contains(String column, String literal);

    /** @return a condition: the column matches the pattern, ignoring case */
    public abstract String ilike(String column, String pattern);

    /** @return a query of (ASN as text, latest name) from {@code asns} for the given numbers */
    public abstract String asnNames(List<Long> asns);

    /**
     * The display text of a value as {@link #text} rendered it: addresses as text, AS numbers as {@code AS123},
     * protocols and EtherTypes by name, floats without a trailing {@code .0}, other values as they are.
     *
     * @param c the column
     * @param raw the store's text (null for NULL)
     * @return the text shown
     */
    public String display(QueryColumn c, String raw) {
        if (raw == null) {
            return "";
        }
        return switch (c.kind()) {
            case IP -> decodeAddress(raw);
            case ASN -> "AS" + raw;
            case PROTO -> protoName(raw);
            case ETYPE -> raw.equals("2048") ? "IPv4" : raw.equals("34525") ? "IPv6" : raw;
            case FLOAT -> number(raw);
            case MAC -> mac(raw);
            default -> raw;
        };
    }

    private static String protoName(String raw) {
        for (var e : FilterParser.PROTOCOLS.entrySet()) {
            if (String.valueOf(e.getValue()).equals(raw)) {
                return e.getKey().toUpperCase(java.util.Locale.ROOT).replace("ICMPV6", "ICMPv6");
            }
        }
        return raw;
    }

    /** @return a 48-bit number's text as a MAC address, {@code 00:fe:c8:99:05:47} */
    static String mac(String raw) {
        try {
            String h = String.format("%012x", Long.parseLong(raw));
            StringBuilder b = new StringBuilder(17);
            for (int k = 0; k < 12; k += 2) {
                b.append(k == 0 ? "" : ":").append(h, k, k + 2);
            }
            return b.toString();
        } catch (NumberFormatException e) {
            return raw;
        }
    }

    /** @return a number's text as both stores agree: integral values without a fraction */
    static String number(String raw) {
        try {
            double d = Double.parseDouble(raw);
            return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
        } catch (NumberFormatException e) {
            return raw;
        }
    }

    static String ipv6Text(byte[] b) {
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++) {
            hi = hi << 8 | (b[i] & 0xFF);
            lo = lo << 8 | (b[8 + i] & 0xFF);
        }
        return IpAddresses.ipv6String(hi, lo);
    }

    private static final class DuckDb extends SqlDialect {
        private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
                .withZone(ZoneOffset.UTC);

        @Override
        public String name() {
            return "duckdb";
        }

        @Override
        public String string(String s) {
            StringBuilder b = new StringBuilder("'");
            for (int k = 0; k < s.length(); k++) {
                char c = s.charAt(k);
                if (c == '\'') {
                    b.append("''");
                } else if (c < 0x20 || c == 0x7F) {
                    b.append("' || chr(").append((int) c).append(") || '");
                } else {
                    b.append(c);
                }
            }
            return b.append('\'').toString();
        }

        @Override
        public String address(byte[] b) {
            StringBuilder s = new StringBuilder("'");
            for (byte x : b) {
                s.append(String.format("\\x%02X", x & 0xFF));
            }
            return s.append("'::BLOB").toString();
        }

        @Override
        public String time(long epochSecond) {
            return "TIMESTAMP '" + TS.format(Instant.ofEpochSecond(epochSecond)) + "'";
        }

        @Override
        public String epochSeconds(String column) {
            return "CAST(epoch(" + column + ") AS BIGINT)";
        }

        @Override
        public String bucket(String column, long start, long interval) {
            return "CAST(floor((epoch(" + column + ") - " + start + ") / " + interval + ") AS BIGINT)";
        }

        @Override
        public String text(QueryColumn c) {
            return switch (c.kind()) {
                case IP -> "hex(" + c.name() + ")";
                case STRING, BOUNDARY, DIRECTION -> c.name();
                case ASN_ARRAY -> "array_to_string(" + c.name() + ", ' ')";
                case IP_ARRAY -> "CAST(len(" + c.name() + ") AS VARCHAR)";
                default -> "CAST(" + c.name() + " AS VARCHAR)";
            };
        }

        @Override
        public String contains(String column, String literal) {
            return "list_contains(" + column + ", " + literal + ")";
        }

        @Override
        public String ilike(String column, String pattern) {
            return column + " ILIKE " + pattern;
        }

        @Override
        public String asnNames(List<Long> asns) {
            return "SELECT CAST(ASN AS VARCHAR), arg_max(Name, TimeReceived) FROM asns WHERE ASN IN ("
                    + asns.stream().map(String::valueOf).collect(Collectors.joining(", ")) + ") GROUP BY ASN";
        }
    }

    private static final class ClickHouse extends SqlDialect {
        private final ServerFeatures features;

        ClickHouse(ServerFeatures features) {
            this.features = features;
        }

        @Override
        public String name() {
            return "clickhouse";
        }

        @Override
        public String string(String s) {
            StringBuilder b = new StringBuilder("'");
            for (int k = 0; k < s.length(); k++) {
                char c = s.charAt(k);
                if (c == '\'' || c == '\\') {
                    b.append('\\').append(c);
                } else if (c < 0x20 || c == 0x7F) {
                    b.append(String.format("\\x%02X", (int) c));
                } else {
                    b.append(c);
                }
            }
            return b.append('\'').toString();
        }

        @Override
        public String address(byte[] b) {
            return features.ipv6Type() ? "toIPv6('" + ipv6Text(b) + "')"
                    : "toFixedString(unhex('" + Addresses.hex(b) + "'), 16)";
        }

        @Override
        public String time(long epochSecond) {
            return "toDateTime(" + epochSecond + ")";
        }

        @Override
        public String epochSeconds(String column) {
            return "toInt64(toUInt32(" + column + "))";
        }

        @Override
        public String bucket(String column, long start, long interval) {
            return "intDiv(toInt64(toUInt32(" + column + ")) - " + start + ", " + interval + ")";
        }

        @Override
        public String text(QueryColumn c) {
            return switch (c.kind()) {
                // hex of the 16 bytes, as DuckDB's: the same text orders ties the same way in both stores
                case IP -> features.ipv6Type() ? "hex(IPv6StringToNum(IPv6NumToString(" + c.name() + ")))"
                        : "hex(" + c.name() + ")";
                case ASN_ARRAY -> "arrayStringConcat(arrayMap(x -> toString(x), " + c.name() + "), ' ')";
                case IP_ARRAY -> "toString(length(" + c.name() + "))";
                default -> "toString(" + c.name() + ")";
            };
        }

        @Override
        public String contains(String column, String literal) {
            return "has(" + column + ", " + literal + ")";
        }

        @Override
        public String ilike(String column, String pattern) {
            return "lower(" + column + ") LIKE lower(" + pattern + ")";
        }

        @Override
        public String asnNames(List<Long> asns) {
            return "SELECT toString(ASN), argMax(Name, TimeReceived) FROM asns WHERE ASN IN ("
                    + asns.stream().map(String::valueOf).collect(Collectors.joining(", ")) + ") GROUP BY ASN";
        }
    }
}
