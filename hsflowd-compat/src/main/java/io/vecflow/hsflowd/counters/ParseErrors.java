package io.vecflow.hsflowd.counters;

/**
 * Counts lines of {@code /proc} files the host parsers could not read, and remembers the first one (file, 1-based line
 * and field: constants, so recording allocates nothing). Parsers skip a bad line and keep going.
 */
public final class ParseErrors {
    private long count;
    private String file;
    private int line;
    private String field;

    /** Records one bad line. */
    void add(String file, int line, String field) {
        if (count++ == 0) {
            this.file = file;
            this.line = line;
            this.field = field;
        }
    }

    /** @return bad lines seen so far. */
    public long count() {
        return count;
    }

    /** @return e.g. {@code "/proc/loadavg line 1: proc_run"} for the first bad line, or null if none (allocates). */
    public String first() {
        return count == 0 ? null : file + " line " + line + ": " + field;
    }

    @Override
    public String toString() {
        return count == 0 ? "no parse errors" : count + " parse errors, first " + first();
    }
}
