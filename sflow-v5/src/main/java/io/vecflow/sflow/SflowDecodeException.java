package io.vecflow.sflow;

/**
 * A decode failure: what ({@link #kind()}), which field, and the byte offset in the datagram.
 *
 * <p>Instances are reused by a {@link SflowDecoder} and carry no stack trace, so a flood of hostile datagrams does not
 * allocate; copy the values out if they must outlive the next decode call.
 */
public final class SflowDecodeException extends Exception {
    private static final long serialVersionUID = 1L;
    private DecodeError kind;
    private String field;
    private String suffix;
    private int offset;
    private long value;

    SflowDecodeException() {
        super(null, null, false, false);
    }

    SflowDecodeException set(DecodeError kind, String field, int offset, long value) {
        return set(kind, field, null, offset, value);
    }

    /** Sets the failure; {@code suffix} (may be null) is appended to the field name only when it is read. */
    SflowDecodeException set(DecodeError kind, String field, String suffix, int offset, long value) {
        this.kind = kind;
        this.field = field;
        this.suffix = suffix;
        this.offset = offset;
        this.value = value;
        return this;
    }

    /** Makes the offset relative to a datagram that starts {@code start} bytes into the buffer. */
    void rebase(int start) {
        offset -= start;
    }

    /** @return the error kind. */
    public DecodeError kind() {
        return kind;
    }

    /** @return the field being read, e.g. {@code "flow_record.length"}. */
    public String field() {
        return suffix == null ? field : field + suffix;
    }

    /** @return the field name without its suffix (a constant: reading it never allocates). */
    String fieldBase() {
        return field;
    }

    /** @return the constant appended to {@link #fieldBase()}, or null. */
    String fieldSuffix() {
        return suffix;
    }

    /** @return byte offset of the field within the datagram. */
    public int offset() {
        return offset;
    }

    /** @return the offending value when there is one (a length or count), else -1. */
    public long value() {
        return value;
    }

    @Override
    public String getMessage() {
        return kind + ": " + field() + " at offset " + offset + (value >= 0 ? " (value " + value + ")" : "");
    }
}
