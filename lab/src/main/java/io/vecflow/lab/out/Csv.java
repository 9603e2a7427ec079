package io.vecflow.lab.out;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Minimal RFC 4180 CSV writer for the lab's result tables (numbers in {@link Locale#ROOT}, doubles to 6 s.f.). */
public final class Csv {
    private Csv() {}

    /**
     * Writes a header and rows.
     *
     * @param file target (overwritten)
     * @param header column names
     * @param rows cells; {@link Double}s printed with {@code %.6g}, others with {@code toString}
     * @throws IOException on write failure
     * @throws IllegalArgumentException if a row's width differs from the header's
     */
    public static void write(Path file, List<String> header, List<List<Object>> rows) throws IOException {
        StringBuilder b = new StringBuilder();
        line(b, List.copyOf(header));
        for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).size() != header.size()) {
                throw new IllegalArgumentException(file + " row " + i + ": " + rows.get(i).size() + " cells for "
                        + header.size() + " columns");
            }
            line(b, rows.get(i));
        }
        Files.writeString(file, b.toString(), StandardCharsets.UTF_8);
    }

    private static void line(StringBuilder b, List<?> cells) {
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(cell(cells.get(i)));
        }
        b.append('\n');
    }

    /** @return the CSV text of one cell */
    static String cell(Object o) {
        String s;
        if (o instanceof Double d) {
            s = d.isNaN() ? "" : String.format(Locale.ROOT, "%.6g", d);
        } else {
            s = String.valueOf(o);
        }
        if (s.contains(",") || s.contains("\"") || s.contains("\n")) {
            s = "\"" + s.replace("\"", "\"\"") + "\"";
        }
        return s;
    }
}
