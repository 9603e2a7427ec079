package io.vecflow.collector.query;

/**
 * A filter that does not parse: the message names what and where ({@code unexpected 'AND' at line 1, column 12}),
 * {@link #position()} is the 0-based character offset the API returns as {@code position}.
 */
public final class FilterException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int position;

    /**
     * @param message what is wrong, already ending with its location
     * @param position 0-based character offset into the filter
     */
    public FilterException(String message, int position) {
        super(message, null, false, false);
        this.position = position;
    }

    /** @return the 0-based character offset into the filter */
    public int position() {
        return position;
    }
}
