package io.vecflow.packet;

import java.io.IOException;
import java.io.Serial;

/**
 * A pcap file (or a link-type number) that cannot be read: bad magic, unsupported version or
 * link type, an oversized or truncated record.
 *
 * <p>The message names the offending field (as named in the pcap format description, e.g.
 * {@code incl_len}, {@code magic_number}, {@code network}) and the byte offset at which the
 * problem was found; {@link #offset()} returns that offset so callers can report it without
 * parsing the message.
 *
 * <p>Source of the field names: <a href="https://www.tcpdump.org/manpages/pcap-savefile.5.html">
 * pcap-savefile(5)</a> and draft-ietf-opsawg-pcap (the "PCAP Capture File Format" Internet-Draft).
 */
public final class PcapFormatException extends IOException {
    /** Serialization version. */
    @Serial private static final long serialVersionUID = 1L;

    /** Byte offset of the problem, or -1. */
    private final long offset;

    /**
     * Creates the exception.
     *
     * @param message a message naming the field and the offset (callers build it)
     * @param offset  byte offset from the start of the file where the problem is (≥ 0), or
     *                -1 if no file position applies
     */
    public PcapFormatException(String message, long offset) {
        super(message);
        this.offset = offset;
    }

    /**
     * Byte offset from the start of the file (or stream) where the problem was found; for a
     * record-level problem this is the start of that record's 16-byte header unless the message
     * says otherwise. -1 if no file position applies.
     *
     * @return the offset in bytes, or -1
     */
    public long offset() {
        return offset;
    }
}
