package io.vecflow.packet;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Writes classic libpcap files: microsecond magic 0xa1b2c3d4, version 2.4, little-endian (as
 * tcpdump writes on x86), {@code thiszone} and {@code sigfigs} 0.
 *
 * <p>Format: <a href="https://www.tcpdump.org/manpages/pcap-savefile.5.html">pcap-savefile(5)</a>,
 * draft-ietf-opsawg-pcap. Timestamps are truncated (floored) from nanoseconds to microseconds.
 * Packets longer than the snapshot length are cut to it, as a capture would do; their
 * {@code orig_len} keeps the full length.
 *
 * <p>Not thread-safe.
 */
public final class PcapWriter implements AutoCloseable {
    private static final long MAX_SECONDS = 0xFFFF_FFFFL;

    private final OutputStream out;
    private final LinkType linkType;
    private final int snapLength;
    private final byte[] header = new byte[PcapReader.RECORD_HEADER_LENGTH];

    /**
     * Creates (or truncates) {@code path} and writes the file header.
     *
     * @param path       the file to write
     * @param linkType   link type of the packets that will be written
     * @param snapLength snapshot length in bytes, 1..{@link PcapReader#SNAPLEN_SANITY_LIMIT}
     *                   (262144 is libpcap's default)
     * @return the writer; close it to flush
     * @throws IllegalArgumentException if {@code snapLength} is out of range
     * @throws IOException              if the file cannot be created or written
     */
    public static PcapWriter create(Path path, LinkType linkType, int snapLength) throws IOException {
        checkSnapLength(snapLength);
        OutputStream stream = Files.newOutputStream(path);
        try {
            return new PcapWriter(stream, linkType, snapLength);
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
     * Writes the 24-byte file header to {@code out} (which is buffered; the writer owns it from now
     * on and closes it in {@link #close()}).
     *
     * @param out        the destination stream
     * @param linkType   link type of the packets ({@link LinkType#pcapNumber()} is written)
     * @param snapLength snapshot length in bytes, 1..{@link PcapReader#SNAPLEN_SANITY_LIMIT}
     * @throws IllegalArgumentException if {@code snapLength} is out of range
     * @throws NullPointerException     if {@code out} or {@code linkType} is null
     * @throws IOException              if writing fails
     */
    public PcapWriter(OutputStream out, LinkType linkType, int snapLength) throws IOException {
        checkSnapLength(snapLength);
        this.linkType = Objects.requireNonNull(linkType, "linkType");
        this.snapLength = snapLength;
        this.out = new BufferedOutputStream(Objects.requireNonNull(out, "out"), 1 << 16);
        byte[] fh = new byte[PcapReader.FILE_HEADER_LENGTH];
        putIntLE(fh, 0, PcapReader.MAGIC_MICROS);
        fh[4] = 2; // version_major
        fh[6] = 4; // version_minor
        // thiszone (8) and sigfigs (12) stay 0
        putIntLE(fh, 16, snapLength);
        putIntLE(fh, 20, linkType.pcapNumber());
        this.out.write(fh);
    }

    /**
     * The link type written in the file header.
     *
     * @return the link type
     */
    public LinkType linkType() {
        return linkType;
    }

    /**
     * The snapshot length written in the file header, in bytes.
     *
     * @return the snapshot length
     */
    public int snapLength() {
        return snapLength;
    }

    /**
     * Appends one record.
     *
     * @param timestampNanos capture time in ns since the Unix epoch, 0..(2^32 s - 1 ns); written
     *                       as seconds + microseconds (floored)
     * @param data           buffer holding the captured bytes, starting at the link-layer header
     * @param off            offset of the packet in {@code data}
     * @param len            captured bytes available; cut to {@link #snapLength()} if longer
     * @param originalLength length on the wire in bytes, ≥ {@code len}
     * @throws IllegalArgumentException  if the timestamp is out of range or
     *                                   {@code originalLength < len}
     * @throws IndexOutOfBoundsException if {@code off}/{@code len} are outside {@code data}
     * @throws IOException               if writing fails
     */
    public void write(long timestampNanos, byte[] data, int off, int len, int originalLength)
            throws IOException {
        Objects.checkFromIndexSize(off, len, data.length);
        if (timestampNanos < 0 || timestampNanos / 1_000_000_000L > MAX_SECONDS) {
            throw new IllegalArgumentException("timestampNanos " + timestampNanos
                    + " outside the pcap range (0 .. 2^32 s since the epoch)");
        }
        if (originalLength < len) {
            throw new IllegalArgumentException("originalLength " + originalLength
                    + " is smaller than the captured length " + len);
        }
        int incl = Math.min(len, snapLength);
        putIntLE(header, 0, (int) (timestampNanos / 1_000_000_000L));
        putIntLE(header, 4, (int) (timestampNanos % 1_000_000_000L / 1_000L));
        putIntLE(header, 8, incl);
        putIntLE(header, 12, originalLength);
        out.write(header);
        out.write(data, off, incl);
    }

    /**
     * Appends one record whose captured and original lengths are {@code data.length}.
     *
     * @param timestampNanos capture time in ns since the Unix epoch
     * @param data           the whole packet, starting at the link-layer header
     * @throws IllegalArgumentException if the timestamp is out of range
     * @throws IOException              if writing fails
     */
    public void write(long timestampNanos, byte[] data) throws IOException {
        write(timestampNanos, data, 0, data.length, data.length);
    }

    /**
     * Flushes buffered records to the underlying stream.
     *
     * @throws IOException if writing fails
     */
    public void flush() throws IOException {
        out.flush();
    }

    /**
     * Flushes and closes the underlying stream.
     *
     * @throws IOException if writing or closing fails
     */
    @Override
    public void close() throws IOException {
        out.close();
    }

    private static void checkSnapLength(int snapLength) {
        if (snapLength < 1 || snapLength > PcapReader.SNAPLEN_SANITY_LIMIT) {
            throw new IllegalArgumentException("snapLength " + snapLength + " out of range 1.."
                    + PcapReader.SNAPLEN_SANITY_LIMIT);
        }
    }

    private static void putIntLE(byte[] b, int i, int v) {
        b[i] = (byte) v;
        b[i + 1] = (byte) (v >>> 8);
        b[i + 2] = (byte) (v >>> 16);
        b[i + 3] = (byte) (v >>> 24);
    }
}
