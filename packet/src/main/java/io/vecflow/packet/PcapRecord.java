package io.vecflow.packet;

/**
 * A reusable, mutable pcap record filled by {@link PcapReader#next(PcapRecord)}: one per reading
 * thread, so that reading a file allocates nothing per packet once the buffer has grown to the
 * largest record.
 *
 * <p>Only the first {@link #capturedLength()} bytes of {@link #data()} belong to the current
 * record; the rest of the buffer holds stale bytes from earlier records.
 *
 * <p>Fields follow the pcap per-record header (ts_sec, ts_usec/ts_nsec, incl_len, orig_len) of
 * <a href="https://www.tcpdump.org/manpages/pcap-savefile.5.html">pcap-savefile(5)</a>.
 */
public final class PcapRecord {
    private static final int DEFAULT_INITIAL_CAPACITY = 2048;

    long timestampNanos;
    int originalLength;
    int capturedLength;
    byte[] data;
    long fileOffset = -1;

    /** Creates a record with a 2048-byte initial buffer (grown on demand by the reader). */
    public PcapRecord() {
        this(DEFAULT_INITIAL_CAPACITY);
    }

    /**
     * Creates a record with the given initial buffer size.
     *
     * @param initialCapacity initial buffer size in bytes (≥ 0); the reader grows it on demand up
     *     to its {@link PcapReader#maxRecordLength()}
     * @throws IllegalArgumentException if {@code initialCapacity} is negative or larger than
     *     {@link PcapReader#SNAPLEN_SANITY_LIMIT}
     */
    public PcapRecord(int initialCapacity) {
        if (initialCapacity < 0 || initialCapacity > PcapReader.SNAPLEN_SANITY_LIMIT) {
            throw new IllegalArgumentException("initialCapacity " + initialCapacity
                    + " out of range 0.." + PcapReader.SNAPLEN_SANITY_LIMIT);
        }
        this.data = new byte[initialCapacity];
    }

    /**
     * Capture time in nanoseconds since the Unix epoch (UTC). For microsecond-resolution files the
     * last three digits are zero.
     *
     * @return the timestamp in ns
     */
    public long timestampNanos() {
        return timestampNanos;
    }

    /**
     * Length of the packet on the wire ({@code orig_len}), in bytes. Not validated against
     * {@link #capturedLength()}: a few writers store a smaller value than {@code incl_len}.
     *
     * @return the original length in bytes
     */
    public int originalLength() {
        return originalLength;
    }

    /**
     * Number of valid bytes in {@link #data()} ({@code incl_len}), ≤ the reader's
     * {@link PcapReader#maxRecordLength()}.
     *
     * @return the captured length in bytes
     */
    public int capturedLength() {
        return capturedLength;
    }

    /**
     * The reusable buffer; bytes {@code [0, capturedLength())} are the captured packet starting at
     * its link-layer header. The array is replaced (grown) by the reader when a larger record is
     * read, so do not keep a reference across {@code next} calls.
     *
     * @return the backing buffer (not a copy)
     */
    public byte[] data() {
        return data;
    }

    /**
     * Byte offset from the start of the file of this record's 16-byte record header, or -1 if no
     * record has been read into this object.
     *
     * @return the offset in bytes
     */
    public long fileOffset() {
        return fileOffset;
    }

    /** Grows the buffer (amortised doubling, capped at {@code max}) to hold {@code needed} bytes. */
    /** Grows the buffer to at least {@code needed} bytes keeping its first {@code keep} bytes. */
    void growKeeping(int needed, int keep) {
        if (data.length < needed) {
            data = java.util.Arrays.copyOf(data, needed);
        }
    }

    void ensureCapacity(int needed, int max) {
        if (data.length < needed) {
            int grown = (int) Math.min((long) data.length * 2, max);
            data = new byte[Math.max(needed, grown)];
        }
    }
}
