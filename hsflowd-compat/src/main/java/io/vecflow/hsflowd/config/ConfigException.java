package io.vecflow.hsflowd.config;

/** An invalid hsflowd.conf: the message names the file line and the reason. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int line;

    /**
     * @param line 1-based line number in the file (0 when not tied to a line)
     * @param message what is wrong
     */
    public ConfigException(int line, String message) {
        super(line > 0 ? "line " + line + ": " + message : message);
        this.line = line;
    }

    /** @return 1-based line number, or 0. */
    public int line() {
        return line;
    }
}
