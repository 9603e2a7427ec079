package io.vecflow.dataplane.graph;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A worker's packet buffers: one off-heap segment of {@code count × (HEADROOM + bufferBytes)} bytes plus per-buffer
 * metadata in primitive arrays (structure of arrays, like VPP's {@code vlib_buffer_t} fields), and a LIFO free list.
 *
 * <p><b>Headroom.</b> Each buffer starts with {@link #HEADROOM} bytes before its data area, VPP's
 * {@code VLIB_BUFFER_PRE_DATA_SIZE} (FDio/vpp {@code src/vlib/buffer.h}). A frame starts at {@link #offset} — the
 * data area after {@link #alloc} — and an encapsulation may prepend headers into the headroom ({@link #advance}
 * with a negative count, VPP's {@code vlib_buffer_advance}) instead of moving the packet. A frame never extends past
 * its buffer's end, and its start never moves past the data area (only prepends move it), so a frame is at most
 * {@link #bufferBytes} + the headroom it used long; nodes still cap frames at {@link #bufferBytes()}.
 *
 * <p>Owned by one worker thread; not thread-safe. Nothing is allocated after construction.
 */
public final class BufferPool implements AutoCloseable {
    /** Default data bytes per buffer (VPP's default data size is 2048). */
    public static final int DEFAULT_BUFFER_BYTES = 2048;

    /** Bytes of headroom before each buffer's data area (VPP's {@code VLIB_BUFFER_PRE_DATA_SIZE}: 128). */
    public static final int HEADROOM = 128;

    private final Arena arena;
    private final MemorySegment data;
    private final int bufferBytes;
    /** Bytes from one buffer's first byte to the next's: {@link #HEADROOM} + bufferBytes. */
    private final int stride;
    /**
     * Where each buffer's frame starts, in bytes from the buffer's first byte: {@link #HEADROOM} after
     * {@link #alloc}, less after a prepend ({@link #advance}). Never above {@link #HEADROOM}.
     */
    private final int[] start;
    private final int[] free;
    private int freeCount;

    /** Frame length in bytes of the packet in each buffer (without FCS). */
    public final int[] length;
    /** Receiving interface (ifIndex) of each buffer. */
    public final int[] rxIfIndex;
    /** Transmit interface (ifIndex) of each buffer; 0 until an output decision is made. */
    public final int[] txIfIndex;
    /** Ethertype found by ethernet-input (after VLAN tags), 0 before. */
    public final int[] etherType;
    /** Byte offset of the L3 header from the start of the buffer data, -1 when not IP. */
    public final int[] l3Offset;
    /** Receive timestamp (System.nanoTime) of each buffer. */
    public final long[] timestampNanos;
    /**
     * {@code DropReason#ordinal()} set by the node that sends the buffer to error-drop (0 = none: reset by
     * {@link #alloc}; a port's receive sets it to hand a frame it could not deliver straight to error-drop).
     */
    public final int[] dropReason;
    /** Adjacency (next hop) chosen by a lookup node, -1 before. */
    public final int[] adjacency;
    /** Bytes of the decision cookie each buffer carries (0 = none; reset by {@link #alloc}). */
    public final int[] cookieLength;
    /** Bytes per buffer in the cookie area: 96, {@code Psample.MAX_USER_COOKIE}. */
    public static final int COOKIE_BYTES = 96;
    /** Per-buffer decision cookies, {@link #COOKIE_BYTES} each; allocated by the first {@link #cookies()} call. */
    private byte[] cookies;

    /**
     * @param count number of buffers
     * @param bufferBytes data bytes per buffer (packets longer than this are truncated by the port and counted)
     */
    public BufferPool(int count, int bufferBytes) {
        if (count <= 0 || bufferBytes < 64) {
            throw new IllegalArgumentException("buffer pool needs count > 0 and bufferBytes >= 64");
        }
        this.arena = Arena.ofShared();
        this.bufferBytes = bufferBytes;
        this.stride = HEADROOM + bufferBytes;
        this.data = arena.allocate((long) count * stride, 64);
        this.free = new int[count];
        this.start = new int[count];
        this.length = new int[count];
        this.rxIfIndex = new int[count];
        this.txIfIndex = new int[count];
        this.etherType = new int[count];
        this.l3Offset = new int[count];
        this.timestampNanos = new long[count];
        this.dropReason = new int[count];
        this.adjacency = new int[count];
        this.cookieLength = new int[count];
        for (int i = 0; i < count; i++) {
            free[i] = count - 1 - i;
        }
        freeCount = count;
    }

    /**
     * Takes a buffer, its cookie length and drop reason reset to 0. Only input nodes allocate (ports' receive,
     * segmentation of GSO super-frames at receive, the CLOVE probe source): within a dispatch round a freed buffer
     * is not reused, which {@code IngressSampleHold} relies on.
     *
     * @return a free buffer index, or -1 when the pool is exhausted
     */
    public int alloc() {
        if (freeCount == 0) {
            return -1;
        }
        int b = free[--freeCount];
        cookieLength[b] = 0;
        dropReason[b] = 0;
        start[b] = HEADROOM;
        return b;
    }

    /**
     * The decision-cookie area: buffer {@code b}'s cookie is at {@code [b · COOKIE_BYTES, + cookieLength[b])}. A node
     * that decides something about a packet (the load balancer) writes the cookie there and sets
     * {@link #cookieLength}; the sFlow nodes copy it into the sample. Allocated once, on the first call
     * ({@code count × 96} bytes), so pools of dataplanes without decisions do not pay for it.
     */
    public byte[] cookies() {
        byte[] c = cookies;
        if (c == null) {
            c = cookies = new byte[length.length * COOKIE_BYTES];
        }
        return c;
    }

    /** Returns a buffer to the pool. */
    public void free(int buffer) {
        free[freeCount++] = buffer;
    }

    /** Returns all buffers of a vector to the pool and empties it. */
    public void free(PacketVector v) {
        int[] b = v.buffers;
        for (int i = 0, n = v.count; i < n; i++) {
            free[freeCount++] = b[i];
        }
        v.count = 0;
    }

    /** @return buffers in the pool (indexes 0..capacity−1). */
    public int capacity() {
        return free.length;
    }

    /** @return buffers currently free. */
    public int freeCount() {
        return freeCount;
    }

    /** @return the segment holding every buffer's data. */
    public MemorySegment data() {
        return data;
    }

    /**
     * @return the byte offset within {@link #data()} of the frame in {@code buffer} (its data area after
     *         {@link #alloc}; earlier after a prepend)
     */
    public long offset(int buffer) {
        return (long) buffer * stride + start[buffer];
    }

    /** @return bytes free in front of {@code buffer}'s frame (at most {@link #HEADROOM}) for prepending headers */
    public int headroom(int buffer) {
        return start[buffer];
    }

    /**
     * Moves the start of {@code buffer}'s frame by {@code bytes} (VPP's {@code vlib_buffer_advance}): negative after
     * headers were written into the headroom in front of it. The caller sets the new {@link #length}.
     *
     * @throws IllegalArgumentException if the start would leave {@code [0, HEADROOM]}
     */
    public void advance(int buffer, int bytes) {
        int s = start[buffer] + bytes;
        if (s < 0 || s > HEADROOM) {
            throw new IllegalArgumentException("buffer " + buffer + ": frame start " + start[buffer] + " advanced by "
                    + bytes + " bytes leaves the headroom [0, " + HEADROOM + "]");
        }
        start[buffer] = s;
    }

    /** @return data bytes per buffer. */
    public int bufferBytes() {
        return bufferBytes;
    }

    @Override
    public void close() {
        arena.close();
    }
}
