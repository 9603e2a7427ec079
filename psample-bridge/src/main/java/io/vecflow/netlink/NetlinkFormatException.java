package io.vecflow.netlink;

import java.io.IOException;

/**
 * A malformed netlink message or attribute received off the wire (or a message of the wrong kind for a codec).
 * The message names the field and its byte offset within the receive buffer, e.g.
 * {@code nlattr at offset 36: nla_len 2 < 4 (nla_type 6)}.
 *
 * <p>Receivers count these ({@code decodeErrors()}) and continue with the next message.
 */
public final class NetlinkFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String field;
    private final long offset;

    /**
     * Creates the exception with the message {@code field at offset N: detail}.
     *
     * @param field  the field or attribute that is wrong, e.g. {@code "nla_len"} or {@code "PSAMPLE_ATTR_IIFINDEX"}
     * @param offset byte offset of that field (or of its attribute header) in the buffer being decoded
     * @param detail what is wrong with it
     */
    public NetlinkFormatException(String field, long offset, String detail) {
        super(field + " at offset " + offset + ": " + detail);
        this.field = field;
        this.offset = offset;
    }

    /** Name of the offending field or attribute. */
    public String field() {
        return field;
    }

    /** Byte offset of the offending field in the decoded buffer. */
    public long offset() {
        return offset;
    }
}
