package io.vecflow.packet;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Streaming reader for classic libpcap capture files.
 *
 * <p>Format (<a href="https://www.tcpdump.org/manpages/pcap-savefile.5.html">pcap-savefile(5)</a>,
 * draft-ietf-opsawg-pcap): a 24-byte file header — {@code magic_number} (offset 0),
 * {@code version_major} (4), {@code version_minor} (6), {@code thiszone} (8), {@code sigfigs}
 * (12), {@code snaplen} (16), {@code network} (20) — then records made of a 16-byte header —
 * {@code ts_sec}, {@code ts_usec} (or {@code ts_nsec}), {@code incl_len}, {@code orig_len} — and
 * {@code incl_len} bytes of packet data. The magic selects the byte order and the timestamp
 * resolution: 0xa1b2c3d4 = microseconds, 0xa1b23c4d = nanoseconds, each either as written by a
 * big-endian or a little-endian host (byte-swapped magic). pcapng (block type 0x0a0d0d0a) is
 * rejected with a hint to convert it.
 *
 * <p>Memory is bounded: a record's {@code incl_len} must not exceed {@link #maxRecordLength()} =
 * max({@code snaplen}, 262144), or 262144 if {@code snaplen} is 0 or above
 * {@link #SNAPLEN_SANITY_LIMIT}; nothing is allocated from an unchecked length.
 *
 * <p>Not thread-safe. {@link #next(PcapRecord)} allocates nothing once the record's buffer has
 * grown to the largest packet.
 */
public final class PcapReader implements AutoCloseable {
    /** libpcap's MAXIMUM_SNAPLEN (262144 bytes): the default cap on {@code incl_len}. */
    public static final int LIBPCAP_MAX_SNAPLEN = 262_144;
    /**
     * {@code snaplen} values above this (16 MiB) are treated as absurd, and the record cap falls
     * back to {@link #LIBPCAP_MAX_SNAPLEN}.
     */
    public static final int SNAPLEN_SANITY_LIMIT = 16 * 1024 * 1024;
    /** Size of the pcap file header in bytes. */
    public static final int FILE_HEADER_LENGTH = 24;
    /** Size of a pcap record header in bytes. */
    public static final int RECORD_HEADER_LENGTH = 16;

    static final int MAGIC_MICROS = 0xa1b2c3d4;
    static final int MAGIC_NANOS = 0xa1b23c4d;
    private static final int MAGIC_MICROS_SWAPPED = 0xd4c3b2a1;
    private static final int MAGIC_NANOS_SWAPPED = 0x4d3cb2a1;
    private static final int PCAPNG_SHB = 0x0a0d0d0a;
    private static final int MODIFIED_PCAP = 0xa1b2cd34;
    private static final int MODIFIED_PCAP_SWAPPED = 0x34cdb2a1;

    private final InputStream in;
    private final boolean bigEndian;
    private final boolean nanos;
    private final LinkType linkType;
    private final int snapLength;
    private final int maxRecordLength;
    private final byte[] header = new byte[RECORD_HEADER_LENGTH];
    private long position;

    /**
     * Opens a pcap file for streaming.
     *
     * @param path the file
     * @return a reader positioned at the first record; close it when done
     * @throws PcapFormatException if the file header is invalid (see {@link #PcapReader(InputStream)})
     * @throws IOException         if the file cannot be opened or read
     */
    public static PcapReader open(Path path) throws IOException {
        InputStream stream = Files.newInputStream(path);
        try {
            return new PcapReader(stream);
        } catch (IOException | RuntimeException e) {
            try {
                stream.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Reads the whole file into memory (load-time convenience, not for the hot path).
     *
     * @param path the file
     * @return the link type, snaplen and all packets (immutable)
     * @throws PcapFormatException on any format error (bad header, oversized or truncated record)
     * @throws IOException         if the file cannot be read
     */
    public static PcapFile readAll(Path path) throws IOException {
        try (PcapReader reader = open(path)) {
            List<PcapPacket> packets = new ArrayList<>();
            PcapRecord rec = new PcapRecord();
            while (reader.next(rec)) {
                packets.add(new PcapPacket(rec.timestampNanos, rec.originalLength,
                        java.util.Arrays.copyOf(rec.data, rec.capturedLength)));
            }
            return new PcapFile(reader.linkType, reader.snapLength, packets);
        }
    }

    /**
     * Reads the 24-byte file header from {@code in} (which is wrapped in a buffer; the reader owns
     * it from now on and closes it in {@link #close()}). If this constructor throws, the caller
     * still owns and must close {@code in}.
     *
     * @param in the stream, positioned at the start of the file (offset 0)
     * @throws PcapFormatException if the header is truncated (offset = bytes available), the magic
     *     is unknown or pcapng (offset 0), {@code version_major} is not 2 (offset 4) or the link
     *     type is unsupported (offset 20)
     * @throws IOException         if reading fails
     */
    public PcapReader(InputStream in) throws IOException {
        this.in = new BufferedInputStream(Objects.requireNonNull(in, "in"), 1 << 16);
        byte[] fh = new byte[FILE_HEADER_LENGTH];
        int n = readFully(fh, FILE_HEADER_LENGTH);
        position = n;
        if (n < 4) {
            throw new PcapFormatException((n == 0 ? "empty file" : "truncated file")
                    + ": no pcap file header (magic_number) at offset 0, need 24 bytes, got " + n, n);
        }
        int magic = getIntBE(fh, 0);
        switch (magic) {
            case MAGIC_MICROS -> { bigEndian = true; nanos = false; }
            case MAGIC_NANOS -> { bigEndian = true; nanos = true; }
            case MAGIC_MICROS_SWAPPED -> { bigEndian = false; nanos = false; }
            case MAGIC_NANOS_SWAPPED -> { bigEndian = false; nanos = true; }
            case PCAPNG_SHB -> throw new PcapFormatException(
                    "pcapng is not supported yet; convert with `editcap -F pcap in.pcapng out.pcap`"
                            + " (magic_number 0x0a0d0d0a, a pcapng Section Header Block, at offset 0)", 0);
            case MODIFIED_PCAP, MODIFIED_PCAP_SWAPPED -> throw new PcapFormatException(
                    "\"modified\" (Kuznetzov) pcap is not supported; convert with `editcap -F pcap`"
                            + " (magic_number 0x" + Integer.toHexString(magic) + " at offset 0)", 0);
            default -> throw new PcapFormatException("not a pcap file: bad magic_number 0x"
                    + String.format("%08x", magic) + " at offset 0 (expected 0xa1b2c3d4 or 0xa1b23c4d,"
                    + " in either byte order)", 0);
        }
        if (n < FILE_HEADER_LENGTH) {
            throw new PcapFormatException("truncated pcap file header at offset " + n
                    + ": need 24 bytes, got " + n, n);
        }
        int versionMajor = getU16(fh, 4);
        if (versionMajor != 2) {
            throw new PcapFormatException("unsupported pcap version_major " + versionMajor
                    + " at offset 4 (expected 2)", 4);
        }
        long snap = getU32(fh, 16);
        this.snapLength = (int) Math.min(snap, Integer.MAX_VALUE);
        this.maxRecordLength = snap == 0 || snap > SNAPLEN_SANITY_LIMIT
                ? LIBPCAP_MAX_SNAPLEN
                : (int) Math.max(snap, LIBPCAP_MAX_SNAPLEN);
        this.linkType = LinkType.fromPcap(getU32(fh, 20));
    }

    /**
     * Link type from the file header ({@code network}, offset 20).
     *
     * @return the link type of every packet in the file
     */
    public LinkType linkType() {
        return linkType;
    }

    /**
     * {@code snaplen} from the file header (offset 16), in bytes; values above
     * {@link Integer#MAX_VALUE} are reported as {@link Integer#MAX_VALUE}.
     *
     * @return the snapshot length in bytes
     */
    public int snapLength() {
        return snapLength;
    }

    /**
     * The cap on a record's {@code incl_len}, in bytes: max(snaplen, 262144), or 262144 when
     * snaplen is 0 or above {@link #SNAPLEN_SANITY_LIMIT}.
     *
     * @return the maximum record length in bytes
     */
    public int maxRecordLength() {
        return maxRecordLength;
    }

    /**
     * Whether timestamps are in nanoseconds (magic 0xa1b23c4d) rather than microseconds.
     *
     * @return true for nanosecond resolution
     */
    public boolean nanosecondResolution() {
        return nanos;
    }

    /**
     * Whether the file was written big-endian (magic read as 0xa1b2c3d4 / 0xa1b23c4d in network
     * byte order).
     *
     * @return true for big-endian files
     */
    public boolean bigEndian() {
        return bigEndian;
    }

    /**
     * Reads the next record into {@code rec}, reusing its buffer (grown if needed, up to
     * {@link #maxRecordLength()}).
     *
     * <p>{@code orig_len} is not checked against {@code incl_len}; sub-second fields at or above
     * one second are rejected.
     *
     * @param rec the record to fill
     * @return true if a record was read, false at a clean end of file (no bytes left)
     * @throws PcapFormatException "truncated record header at offset N" (N = record start),
     *     "truncated record data at offset N" (N = start of the data), {@code incl_len} above the
     *     cap or {@code orig_len} / {@code ts_usec} / {@code ts_nsec} out of range (offset = record
     *     start; the message also gives the field's own offset)
     * @throws IOException         if reading fails
     */
    public boolean next(PcapRecord rec) throws IOException {
        long recordOffset = position;
        int n = readFully(header, RECORD_HEADER_LENGTH);
        position += n;
        if (n == 0) {
            return false;
        }
        if (n < RECORD_HEADER_LENGTH) {
            throw new PcapFormatException("truncated record header at offset " + recordOffset
                    + ": need 16 bytes, got " + n, recordOffset);
        }
        long seconds = getU32(header, 0);
        long fraction = getU32(header, 4);
        long inclLen = getU32(header, 8);
        long origLen = getU32(header, 12);
        if (fraction >= (nanos ? 1_000_000_000L : 1_000_000L)) {
            throw new PcapFormatException("record at offset " + recordOffset + ": "
                    + (nanos ? "ts_nsec " : "ts_usec ") + fraction + " (at offset " + (recordOffset + 4)
                    + ") is not below one second", recordOffset);
        }
        if (inclLen > maxRecordLength) {
            throw new PcapFormatException("record at offset " + recordOffset + ": incl_len " + inclLen
                    + " (at offset " + (recordOffset + 8) + ") exceeds the limit of " + maxRecordLength
                    + " bytes (snaplen " + snapLength + ")", recordOffset);
        }
        if (origLen > Integer.MAX_VALUE) {
            throw new PcapFormatException("record at offset " + recordOffset + ": orig_len " + origLen
                    + " (at offset " + (recordOffset + 12) + ") is absurd", recordOffset);
        }
        int len = (int) inclLen;
        // Grow beyond libpcap's usual maximum only as bytes actually arrive: a header claiming a huge record in a
        // short file must not make the reader allocate what the claim says.
        int step = Math.min(len, LIBPCAP_MAX_SNAPLEN);
        rec.ensureCapacity(step, maxRecordLength);
        int got = readFully(rec.data, 0, step);
        while (got == step && step < len) {
            int next = (int) Math.min(len, (long) step * 2);
            rec.growKeeping(next, got);
            got += readFully(rec.data, got, next - got);
            step = next;
        }
        long dataOffset = position;
        position += got;
        if (got < len) {
            throw new PcapFormatException("truncated record data at offset " + dataOffset
                    + " (record at offset " + recordOffset + "): incl_len " + len + " but only " + got
                    + " bytes left", dataOffset);
        }
        rec.timestampNanos = seconds * 1_000_000_000L + (nanos ? fraction : fraction * 1_000L);
        rec.capturedLength = len;
        rec.originalLength = (int) origLen;
        rec.fileOffset = recordOffset;
        return true;
    }

    /**
     * Closes the underlying stream.
     *
     * @throws IOException if closing fails
     */
    @Override
    public void close() throws IOException {
        in.close();
    }

    /** Reads up to {@code len} bytes into {@code buf[0..len)}; returns the count (less only at EOF). */
    private int readFully(byte[] buf, int len) throws IOException {
        return readFully(buf, 0, len);
    }

    /** Reads up to {@code len} bytes into {@code buf[off..]}; returns the bytes read (fewer only at EOF). */
    private int readFully(byte[] buf, int off, int len) throws IOException {
        int total = 0;
        while (total < len) {
            int r = in.read(buf, off + total, len - total);
            if (r < 0) {
                break;
            }
            total += r;
        }
        return total;
    }

    private static int getIntBE(byte[] b, int i) {
        return (b[i] & 0xFF) << 24 | (b[i + 1] & 0xFF) << 16 | (b[i + 2] & 0xFF) << 8 | (b[i + 3] & 0xFF);
    }

    private long getU32(byte[] b, int i) {
        int v = getIntBE(b, i);
        return Integer.toUnsignedLong(bigEndian ? v : Integer.reverseBytes(v));
    }

    private int getU16(byte[] b, int i) {
        return bigEndian ? (b[i] & 0xFF) << 8 | (b[i + 1] & 0xFF) : (b[i + 1] & 0xFF) << 8 | (b[i] & 0xFF);
    }
}
