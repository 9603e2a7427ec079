package io.vecflow.collector.enrich.geoip;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads configured networks from a CSV file: a header line naming the columns, among {@code prefix} (required),
 * {@code name}, {@code role}, {@code site}, {@code region}, {@code tenant}, {@code country}, {@code asn}, in any order
 * (case-insensitive); then one network a line. Fields are comma-separated, optionally in double quotes (RFC 4180:
 * a quoted field may hold commas, and {@code ""} is a quote; a field does not span lines); unquoted fields are
 * stripped of surrounding blanks. Blank lines and lines starting with {@code #} are skipped. {@code asn} is a number
 * or "AS" and a number (0 or empty = not set); {@code country} two letters. UTF-8.
 *
 * <pre>
 * prefix,name,role,site,country,asn
 * 10.0.0.0/8,corp,internal,,,
 * 192.0.2.0/24,"dc1, hall 2",servers,par1,FR,AS64500
 * </pre>
 */
public final class NetworksCsv {
    /** The columns a file may have. */
    public static final List<String> COLUMNS = List.of("prefix", "name", "role", "site", "region", "tenant",
            "country", "asn");

    private NetworksCsv() {}

    /**
     * @param file the CSV file
     * @return its networks, in file order ({@link StaticNetwork#source()} = "FILE line N")
     * @throws IOException when the file cannot be read or is not UTF-8 (naming it)
     * @throws IllegalArgumentException naming the file, line and column (number and name) of what is wrong: no
     *         header, an unknown or repeated column, no prefix column, a field count that differs from the header's,
     *         an unterminated quote, a bad prefix, country or AS number
     */
    public static List<StaticNetwork> parse(Path file) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (CharacterCodingException e) {
            throw new IOException("networks file " + file + ": not UTF-8 text", e);
        } catch (IOException e) {
            throw new IOException("networks file " + file + ": cannot be read: " + e, e);
        }
        int[] column = null; // header position → index in COLUMNS
        List<StaticNetwork> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (i == 0 && line.startsWith("\uFEFF")) {
                line = line.substring(1);
            }
            String where = file + " line " + (i + 1);
            if (line.isBlank() || line.stripLeading().startsWith("#")) {
                continue;
            }
            List<String> f = fields(line, where);
            if (column == null) {
                column = header(f, where);
                continue;
            }
            if (f.size() != column.length) {
                throw new IllegalArgumentException(where + ": " + f.size() + " fields, the header has "
                        + column.length);
            }
            String[] v = new String[COLUMNS.size()];
            for (int c = 0; c < column.length; c++) {
                v[column[c]] = f.get(c);
            }
            out.add(network(v, column, where));
        }
        if (column == null) {
            throw new IllegalArgumentException(file + ": no header line (" + String.join(",", COLUMNS) + ")");
        }
        return out;
    }

    private static int[] header(List<String> f, String where) {
        int[] column = new int[f.size()];
        boolean prefix = false;
        for (int c = 0; c < f.size(); c++) {
            String name = f.get(c).toLowerCase(Locale.ROOT);
            int k = COLUMNS.indexOf(name);
            if (k < 0) {
                throw new IllegalArgumentException(where + " column " + (c + 1) + ": unknown column '" + f.get(c)
                        + "' (known: " + String.join(", ", COLUMNS) + ")");
            }
            for (int d = 0; d < c; d++) {
                if (column[d] == k) {
                    throw new IllegalArgumentException(where + " column " + (c + 1) + ": column '" + name
                            + "' appears twice");
                }
            }
            column[c] = k;
            prefix |= k == 0;
        }
        if (!prefix) {
            throw new IllegalArgumentException(where + ": the header has no 'prefix' column");
        }
        return column;
    }

    private static StaticNetwork network(String[] v, int[] column, String where) {
        String prefix = v[0];
        try {
            IpPrefix.parse(prefix);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(at(where, column, 0) + ": " + e.getMessage(), e);
        }
        String country = v[6] == null ? "" : v[6];
        if (!country.isEmpty() && (country.length() != 2
                || !country.chars().allMatch(ch -> (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z')))) {
            throw new IllegalArgumentException(at(where, column, 6) + ": '" + country
                    + "' is not an ISO 3166-1 alpha-2 code (two letters)");
        }
        long asn = 0;
        String a = v[7] == null ? "" : v[7];
        if (!a.isEmpty()) {
            String digits = a.regionMatches(true, 0, "AS", 0, 2) ? a.substring(2) : a;
            if (digits.isEmpty() || digits.length() > 10 || !digits.chars().allMatch(ch -> ch >= '0' && ch <= '9')
                    || Long.parseLong(digits) > 0xFFFF_FFFFL) {
                throw new IllegalArgumentException(at(where, column, 7) + ": '" + a
                        + "' is not an AS number (0..4294967295, optionally after 'AS')");
            }
            asn = Long.parseLong(digits);
        }
        return new StaticNetwork(prefix, v[1], v[2], v[3], v[4], v[5], country.toUpperCase(Locale.ROOT), asn, where);
    }

    /** @return "FILE line N column C (name)" for the column holding COLUMNS[k] */
    private static String at(String where, int[] column, int k) {
        for (int c = 0; c < column.length; c++) {
            if (column[c] == k) {
                return where + " column " + (c + 1) + " (" + COLUMNS.get(k) + ")";
            }
        }
        return where;
    }

    /** Splits one line into fields (quotes as RFC 4180, within the line). */
    static List<String> fields(String line, String where) {
        List<String> f = new ArrayList<>();
        StringBuilder b = new StringBuilder();
        int i = 0;
        int n = line.length();
        while (true) {
            b.setLength(0);
            int start = i;
            while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
                i++;
            }
            if (i < n && line.charAt(i) == '"') {
                int open = i++;
                while (true) {
                    if (i >= n) {
                        throw new IllegalArgumentException(where + " column " + (f.size() + 1)
                                + ": unterminated quote (opened at character " + (open + 1) + ")");
                    }
                    char c = line.charAt(i++);
                    if (c == '"') {
                        if (i < n && line.charAt(i) == '"') {
                            b.append('"');
                            i++;
                        } else {
                            break;
                        }
                    } else {
                        b.append(c);
                    }
                }
                while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
                    i++;
                }
                if (i < n && line.charAt(i) != ',') {
                    throw new IllegalArgumentException(where + " column " + (f.size() + 1)
                            + ": text after the closing quote");
                }
                f.add(b.toString());
            } else {
                int comma = line.indexOf(',', start);
                int end = comma < 0 ? n : comma;
                String raw = line.substring(start, end);
                if (raw.indexOf('"') >= 0) {
                    throw new IllegalArgumentException(where + " column " + (f.size() + 1)
                            + ": a quote inside an unquoted field");
                }
                f.add(raw.strip());
                i = end;
            }
            if (i >= n) {
                return f;
            }
            i++; // the comma
        }
    }
}
