package io.vecflow.collector.schema;

import java.nio.charset.StandardCharsets;

/**
 * An immutable text value of an enrichment column (an exporter, interface or network attribute, an AS name) with its
 * UTF-8 bytes encoded once, so that sinks write it per row without encoding or allocating. Compared by text.
 */
public final class Label {
    /** The empty label (column default: no value known). */
    public static final Label EMPTY = new Label("");
    /** Longest label kept, in UTF-8 bytes: longer text is cut at a character boundary (SNMP ifAlias is ≤ 64). */
    public static final int MAX_BYTES = 255;

    /** The text. */
    public final String text;
    /** The text's UTF-8 bytes (at most {@link #MAX_BYTES}); shared, never modify. */
    public final byte[] utf8;

    private Label(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        if (b.length > MAX_BYTES) {
            int n = MAX_BYTES;
            while (n > 0 && (b[n] & 0xC0) == 0x80) {
                n--; // do not cut a multi-byte character
            }
            text = new String(b, 0, n, StandardCharsets.UTF_8);
            b = text.getBytes(StandardCharsets.UTF_8);
        }
        this.text = text;
        this.utf8 = b;
    }

    /**
     * @param text the value (null = empty)
     * @return a label holding it ({@link #EMPTY} for null or "")
     */
    public static Label of(String text) {
        return text == null || text.isEmpty() ? EMPTY : new Label(text);
    }

    /** @return true when the label holds no text. */
    public boolean isEmpty() {
        return utf8.length == 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Label l && l.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }
}
