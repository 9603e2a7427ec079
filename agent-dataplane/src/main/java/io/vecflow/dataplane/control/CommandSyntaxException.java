package io.vecflow.dataplane.control;

/**
 * A control command line that does not parse: names the offending token, its 1-based position among the words and its
 * 1-based column, e.g. {@code token 3 "sideways" (column 16): expected rx, tx or both}; at the end of the line,
 * {@code after token 2 (end of line): expected a sampling rate}. Exit status {@link ControlProtocol#RC_USAGE}.
 */
public final class CommandSyntaxException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int tokenIndex;
    private final String token;
    private final int column;

    /**
     * @param tokenIndex 1-based index of the bad word; for a missing word, the index it would have had
     * @param token      the bad word, or {@code null} at the end of the line
     * @param column     1-based column of the word in the line (the line length + 1 at the end)
     * @param problem    what was expected or why the word is wrong
     */
    public CommandSyntaxException(int tokenIndex, String token, int column, String problem) {
        super((token == null ? "after token " + (tokenIndex - 1) + " (end of line)"
                : "token " + tokenIndex + " \"" + token + "\" (column " + column + ")") + ": " + problem);
        this.tokenIndex = tokenIndex;
        this.token = token;
        this.column = column;
    }

    /** 1-based index of the offending word (one past the last word when the line ended too early). */
    public int tokenIndex() {
        return tokenIndex;
    }

    /** The offending word, or {@code null} when the line ended too early. */
    public String token() {
        return token;
    }

    /** 1-based column of the offending word. */
    public int column() {
        return column;
    }
}
