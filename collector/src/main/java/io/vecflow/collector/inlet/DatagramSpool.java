package io.vecflow.collector.inlet;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded first-in first-out queue of raw datagrams on disk: where the inlet puts what its downstream (the Kafka
 * producer, or the in-process decoder and ClickHouse) cannot take now, and from which it replays them in order when
 * the downstream is back. It survives a restart and a {@code kill -9} of the process (not a power loss: nothing is
 * fsynced; the kernel's page cache holds what was written).
 *
 * <p><b>Layout.</b> A directory of segment files {@code NNNNNNNNNNNNNNNNNNNN.spool} (ids rising, each
 * {@code segmentBytes} long, zero-filled when created so that a full disk fails the creation, never a write into the
 * mapping), mapped with {@link FileChannel#map(FileChannel.MapMode, long, long, Arena)}, plus {@code cursor} (the
 * reader's segment id and position, 16 bytes, also mapped). Each record, 8-byte aligned, little-endian:
 * <pre>
 *   0  i32  payload length L (1..65535); 0 = nothing written after this point; -1 = continue in the next segment
 *   4  i32  CRC-32C of bytes 8 .. 36+L
 *   8  i64  receive time, ns since the epoch
 *  16  16B  UDP source address (IPv4 mapped)
 *  32  u16  UDP source port, then 2 bytes zero
 *  36  L    the datagram
 * </pre>
 * The length is written last, so a record torn by a kill reads as the end of its segment. At open, segments before
 * the cursor are deleted; a record whose CRC does not match (a torn write after a power loss) ends its segment and is
 * counted ({@link #corruptSegments()}); the writer always starts a new segment.
 *
 * <p><b>Bounds.</b> {@link #append} refuses (returns false, counted by the caller) a record that would take the
 * bytes held beyond {@code maxBytes}; a record never needs more than one segment. Thread-safe: one lock for writers
 * and the reader (a copy into page-cache memory per record; no system call except at segment boundaries).
 */
public final class DatagramSpool implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DatagramSpool.class);
    /** Bytes before each datagram. */
    public static final int HEADER = 36;
    /** Longest datagram a record holds. */
    public static final int MAX_DATAGRAM = 65_535;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final String SUFFIX = ".spool";

    /** One datagram read back from the spool; buffers reused by each {@link #poll}. */
    public static final class Entry {
        /** The datagram, {@code length} bytes from 0. */
        public final byte[] data = new byte[MAX_DATAGRAM];
        /** Datagram length in bytes. */
        public int length;
        /** Receive time, ns since the epoch. */
        public long receivedNanos;
        /** UDP source address, 16 bytes (IPv4 mapped). */
        public final byte[] peer16 = new byte[16];
        /** UDP source port. */
        public int peerPort;
    }

    private final Path dir;
    private final long maxBytes;
    private final int segmentBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Segment> segments = new ArrayDeque<>(); // oldest first; the last is the writer's
    private final CRC32C crc = new CRC32C();
    private final byte[] scratch = new byte[HEADER - 8];
    private final Arena cursorArena;
    private final FileChannel cursorChannel;
    private final MemorySegment cursor;
    private long nextId;
    private long heldBytes, heldRecords;
    private long appended, replayed, refused, corrupt;
    private boolean closed;

    private static final class Segment {
        final long id;
        final Path file;
        final Arena arena;
        final FileChannel channel;
        final MemorySegment map;
        long readPos;
        long writePos;
        boolean sealed; // no more appends (the writer moved on, or a segment found at open)

        Segment(long id, Path file, Arena arena, FileChannel channel, MemorySegment map) {
            this.id = id;
            this.file = file;
            this.arena = arena;
            this.channel = channel;
            this.map = map;
        }

        void close() {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing left to do with it
            }
            arena.close();
        }
    }

    /**
     * Opens (or creates) a spool directory and finds what an earlier run left in it.
     *
     * @param dir the directory (created if missing); one process at a time
     * @param maxBytes most bytes of records held (headers included), ≥ {@code segmentBytes}
     * @param segmentBytes size of each segment file, 1 MiB .. 1 GiB (a multiple of 8)
     * @throws IOException if the directory or its files cannot be created, read or mapped
     * @throws IllegalArgumentException for sizes out of range
     */
    public DatagramSpool(Path dir, long maxBytes, int segmentBytes) throws IOException {
        if (segmentBytes < 1 << 20 || segmentBytes > 1 << 30 || (segmentBytes & 7) != 0 || maxBytes < segmentBytes) {
            throw new IllegalArgumentException("spool segment-bytes must be 1 MiB..1 GiB (multiple of 8) and max-bytes "
                    + "at least one segment (got " + segmentBytes + ", " + maxBytes + ")");
        }
        this.dir = dir;
        this.maxBytes = maxBytes;
        this.segmentBytes = segmentBytes;
        Files.createDirectories(dir);
        cursorArena = Arena.ofShared();
        Path cursorFile = dir.resolve("cursor");
        cursorChannel = FileChannel.open(cursorFile, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        if (cursorChannel.size() < 16) {
            cursorChannel.write(ByteBuffer.allocate(16), 0);
        }
        cursor = cursorChannel.map(FileChannel.MapMode.READ_WRITE, 0, 16, cursorArena);
        recover();
    }

    private void recover() throws IOException {
        long curId = cursor.get(LONG, 0), curPos = cursor.get(LONG, 8);
        List<Long> ids = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path p : ds) {
                String n = p.getFileName().toString();
                try {
                    ids.add(Long.parseLong(n.substring(0, n.length() - SUFFIX.length())));
                } catch (NumberFormatException e) {
                    log.warn("spool {}: ignoring {} (not a segment name)", dir, n);
                }
            }
        }
        ids.sort(null);
        for (long id : ids) {
            Path f = file(id);
            if (id < curId || Files.size(f) != segmentBytes) {
                Files.delete(f); // read before the last run stopped (or another segment size: nothing we can trust)
                continue;
            }
            Segment s = map(id, f);
            s.sealed = true;
            s.readPos = id == curId ? Math.min(curPos, segmentBytes) : 0;
            s.writePos = scanEnd(s);
            if (s.writePos <= s.readPos) {
                drop(s);
                continue;
            }
            segments.addLast(s);
            heldBytes += s.writePos - s.readPos;
            heldRecords += countRecords(s);
        }
        nextId = ids.isEmpty() ? Math.max(1, curId) : Math.max(ids.getLast() + 1, curId);
        if (heldRecords > 0) {
            log.info("spool {}: {} datagrams ({} bytes) left by an earlier run, replayed first", dir, heldRecords,
                    heldBytes);
        }
    }

    /** The end of the records written in a segment found at open: the first zero or torn record. */
    private long scanEnd(Segment s) {
        long p = s.readPos;
        while (p + HEADER <= segmentBytes) {
            int len = s.map.get(INT, p);
            if (len == 0 || len == -1) {
                return p;
            }
            if (len < 0 || len > MAX_DATAGRAM || p + HEADER + len > segmentBytes || !crcOk(s, p, len)) {
                corrupt++;
                log.warn("spool {}: segment {} has a bad record at byte {} (length {}); the rest of it is skipped",
                        dir, s.id, p, len);
                return p;
            }
            p = align(p + HEADER + len);
        }
        return p;
    }

    private long countRecords(Segment s) {
        long n = 0;
        for (long p = s.readPos; p < s.writePos; p = align(p + HEADER + s.map.get(INT, p))) {
            n++;
        }
        return n;
    }

    private boolean crcOk(Segment s, long p, int len) {
        crc.reset();
        crc.update(s.map.asSlice(p + 8, HEADER - 8 + len).asByteBuffer());
        return (int) crc.getValue() == s.map.get(INT, p + 4);
    }

    private static long align(long p) {
        return (p + 7) & ~7L;
    }

    private Path file(long id) {
        return dir.resolve(String.format("%020d%s", id, SUFFIX));
    }

    private Segment map(long id, Path f) throws IOException {
        Arena arena = Arena.ofShared();
        FileChannel ch = null;
        try {
            ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE);
            return new Segment(id, f, arena, ch, ch.map(FileChannel.MapMode.READ_WRITE, 0, segmentBytes, arena));
        } catch (IOException | RuntimeException e) {
            if (ch != null) {
                ch.close();
            }
            arena.close();
            throw e;
        }
    }

    /** A new zero-filled segment (written, not sparse: a full disk fails here, not as SIGBUS in a mapped write). */
    private Segment create() throws IOException {
        long id = nextId++;
        Path f = file(id);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
            for (long p = 0; p < segmentBytes; p += zeros.capacity()) {
                zeros.clear();
                while (zeros.hasRemaining()) {
                    ch.write(zeros, p + zeros.position());
                }
            }
        } catch (IOException e) {
            Files.deleteIfExists(f);
            throw e;
        }
        return map(id, f);
    }

    /**
     * Appends one datagram.
     *
     * @param data buffer holding the datagram
     * @param off its offset
     * @param len its length in bytes, 1..{@value #MAX_DATAGRAM}
     * @param receivedNanos receive time, ns since the epoch
     * @param peer16 UDP source address, 16 bytes
     * @param peerPort UDP source port
     * @return false when the spool is full (maxBytes), closed, or a new segment cannot be created (disk full); the
     *     datagram is not held and the caller counts it as lost
     */
    public boolean append(byte[] data, int off, int len, long receivedNanos, byte[] peer16, int peerPort) {
        return appendIf(null, data, off, len, receivedNanos, peer16, peerPort) == APPENDED;
    }

    /** {@link #appendIf} results. */
    public static final int APPENDED = 1, NOT_WANTED = 0, REFUSED = -1;

    /**
     * Appends one datagram if {@code wanted} (checked under the spool's lock, the lock {@link #whenEmpty} holds)
     * says so.
     *
     * @param wanted checked under the lock; null = always
     * @return {@link #APPENDED}; {@link #NOT_WANTED} ({@code wanted} said no, nothing written); {@link #REFUSED}
     *     (full, closed, or disk full; the caller counts the datagram as lost)
     */
    public int appendIf(java.util.function.BooleanSupplier wanted, byte[] data, int off, int len, long receivedNanos,
            byte[] peer16, int peerPort) {
        if (len < 1 || len > MAX_DATAGRAM) {
            throw new IllegalArgumentException("datagram length " + len + " outside 1.." + MAX_DATAGRAM);
        }
        long need = align(HEADER + len);
        lock.lock();
        try {
            if (wanted != null && !wanted.getAsBoolean()) {
                return NOT_WANTED;
            }
            if (closed || heldBytes + need > maxBytes) {
                refused++;
                return REFUSED;
            }
            Segment w = segments.peekLast();
            if (w == null || w.sealed || w.writePos + need > segmentBytes) {
                Segment next;
                try {
                    next = create();
                } catch (IOException e) {
                    refused++;
                    log.warn("spool {}: cannot create a segment: {}", dir, e.toString());
                    return REFUSED;
                }
                if (w != null && !w.sealed) {
                    if (w.writePos + HEADER <= segmentBytes) {
                        w.map.set(INT, w.writePos, -1); // continue in the next segment
                    }
                    w.sealed = true;
                }
                segments.addLast(next);
                w = next;
            }
            long p = w.writePos;
            MemorySegment m = w.map;
            byte[] h = scratch; // bytes 8..36 of the record, little-endian, for the copy and the CRC
            for (int i = 0; i < 8; i++) {
                h[i] = (byte) (receivedNanos >>> (8 * i));
            }
            System.arraycopy(peer16, 0, h, 8, 16);
            h[24] = (byte) peerPort;
            h[25] = (byte) (peerPort >>> 8);
            h[26] = h[27] = 0;
            MemorySegment.copy(h, 0, m, ValueLayout.JAVA_BYTE, p + 8, h.length);
            MemorySegment.copy(data, off, m, ValueLayout.JAVA_BYTE, p + HEADER, len);
            crc.reset();
            crc.update(h, 0, h.length);
            crc.update(data, off, len);
            m.set(INT, p + 4, (int) crc.getValue());
            m.set(INT, p, len); // last: a record torn by a kill reads as the end
            w.writePos = p + need;
            heldBytes += need;
            heldRecords++;
            appended++;
            return APPENDED;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes the oldest datagram out of the spool into {@code e}; the cursor moves past it at once, so a datagram
     * handed on is not replayed again after a restart.
     *
     * @return false when the spool is empty
     */
    public boolean poll(Entry e) {
        lock.lock();
        try {
            if (!peek(e)) {
                return false;
            }
            advance();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Reads the oldest datagram into {@code e} and leaves it in the spool; {@link #advance()} takes it out.
     *
     * @return false when the spool is empty
     */
    public boolean peek(Entry e) {
        lock.lock();
        try {
            Segment s = head();
            if (s == null) {
                return false;
            }
            long p = s.readPos;
            int len = s.map.get(INT, p);
            e.length = len;
            e.receivedNanos = s.map.get(LONG, p + 8);
            MemorySegment.copy(s.map, ValueLayout.JAVA_BYTE, p + 16, e.peer16, 0, 16);
            e.peerPort = s.map.get(SHORT, p + 32) & 0xFFFF;
            MemorySegment.copy(s.map, ValueLayout.JAVA_BYTE, p + HEADER, e.data, 0, len);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes the oldest datagram out (the one {@link #peek} read); the cursor moves past it.
     *
     * @throws IllegalStateException if the spool is empty
     */
    public void advance() {
        lock.lock();
        try {
            Segment s = head();
            if (s == null) {
                throw new IllegalStateException("spool " + dir + " is empty");
            }
            long need = align(HEADER + s.map.get(INT, s.readPos));
            s.readPos += need;
            heldBytes -= need;
            heldRecords--;
            replayed++;
            cursor.set(LONG, 0, s.id);
            cursor.set(LONG, 8, s.readPos);
        } finally {
            lock.unlock();
        }
    }

    /** The segment holding the oldest record (drained segments removed), or null when nothing is held. */
    private Segment head() {
        while (true) {
            Segment s = segments.peekFirst();
            if (s == null) {
                return null;
            }
            if (s.readPos < s.writePos) {
                return s;
            }
            if (!s.sealed) {
                return null; // the writer's segment, read up to where it writes
            }
            segments.pollFirst();
            drop(s);
        }
    }

    private void drop(Segment s) {
        s.close();
        try {
            Files.deleteIfExists(s.file);
        } catch (IOException e) {
            log.warn("spool {}: cannot delete {}: {}", dir, s.file, e.toString());
        }
    }

    /** @return whether no datagram is held. */
    public boolean isEmpty() {
        lock.lock();
        try {
            return heldRecords == 0;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Runs {@code ifEmpty} under the spool's lock when it holds nothing, so that no append can come in between (the
     * inlet clears its "spooling" state this way).
     *
     * @return true if the spool was empty and {@code ifEmpty} ran
     */
    public boolean whenEmpty(Runnable ifEmpty) {
        lock.lock();
        try {
            if (heldRecords != 0) {
                return false;
            }
            ifEmpty.run();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code r} under the spool's lock (appends and polls wait). */
    public void locked(Runnable r) {
        lock.lock();
        try {
            r.run();
        } finally {
            lock.unlock();
        }
    }

    /** @return datagrams held now. */
    public long records() {
        lock.lock();
        try {
            return heldRecords;
        } finally {
            lock.unlock();
        }
    }

    /** @return bytes held now (records with their headers). */
    public long bytes() {
        lock.lock();
        try {
            return heldBytes;
        } finally {
            lock.unlock();
        }
    }

    /** @return the most bytes the spool holds. */
    public long maxBytes() {
        return maxBytes;
    }

    /** @return datagrams appended since open. */
    public long appended() {
        lock.lock();
        try {
            return appended;
        } finally {
            lock.unlock();
        }
    }

    /** @return datagrams taken out (replayed) since open. */
    public long replayed() {
        lock.lock();
        try {
            return replayed;
        } finally {
            lock.unlock();
        }
    }

    /** @return datagrams refused since open (spool full, closed, or disk full). */
    public long refused() {
        lock.lock();
        try {
            return refused;
        } finally {
            lock.unlock();
        }
    }

    /** @return segments found with a bad record at open (the rest of each was skipped). */
    public long corruptSegments() {
        return corrupt;
    }

    /** @return the directory. */
    public Path directory() {
        return dir;
    }

    /** Unmaps every segment; what is held stays on disk for the next run. */
    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            for (Segment s : segments) {
                boolean empty = s.readPos >= s.writePos;
                s.close();
                if (empty) {
                    Files.deleteIfExists(s.file);
                }
            }
            segments.clear();
            cursorChannel.close();
            cursorArena.close();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "DatagramSpool[" + dir + ", " + records() + " datagrams, " + bytes() + " bytes]";
    }
}
