package io.vecflow.sflow;

/**
 * XDR writes (RFC 4506, big-endian, 4-byte units) into a fixed-capacity buffer, for assembling sFlow datagrams under a
 * byte budget. A write past the capacity writes nothing and sets {@link #overflow()}; the caller then rolls back to
 * a {@link #mark()} — so encoding never throws and never allocates. Not thread-safe.
 */
public final class XdrWriter {
    private final byte[] buf;
    private int pos;
    private boolean overflow;

    /** @param capacity bytes available */
    public XdrWriter(int capacity) {
        this.buf = new byte[capacity];
    }

    /** @return the buffer (valid up to {@link #position()}). */
    public byte[] buffer() {
        return buf;
    }

    /** @return bytes written. */
    public int position() {
        return pos;
    }

    /** @return the capacity in bytes. */
    public int capacity() {
        return buf.length;
    }

    /** @return true if a write did not fit since the last {@link #reset(int)}. */
    public boolean overflow() {
        return overflow;
    }

    /** @return a mark to roll back to. */
    public int mark() {
        return pos;
    }

    /** Rolls back to a mark (or 0 to empty) and clears the overflow flag. */
    public void reset(int mark) {
        pos = mark;
        overflow = false;
    }

    /** Moves to an absolute position (to patch a field), without changing the overflow flag. */
    public void seek(int position) {
        pos = position;
    }

    private boolean room(int n) {
        if (overflow || pos + n > buf.length) {
            overflow = true;
            return false;
        }
        return true;
    }

    /** Writes an unsigned int (the low 32 bits of {@code v}). */
    public XdrWriter u32(long v) {
        if (room(4)) {
            buf[pos] = (byte) (v >>> 24);
            buf[pos + 1] = (byte) (v >>> 16);
            buf[pos + 2] = (byte) (v >>> 8);
            buf[pos + 3] = (byte) v;
            pos += 4;
        }
        return this;
    }

    /** Writes an unsigned hyper (8 bytes). */
    public XdrWriter u64(long v) {
        u32(v >>> 32);
        return u32(v);
    }

    /** Writes an IEEE-754 single. */
    public XdrWriter f32(float v) {
        return u32(Float.floatToRawIntBits(v) & 0xFFFFFFFFL);
    }

    /** Writes {@code len} raw bytes then zero padding to a multiple of 4 (fixed {@code opaque[n]}). */
    public XdrWriter fixed(byte[] src, int off, int len) {
        int padded = SflowFormats.pad4(len);
        if (room(padded)) {
            System.arraycopy(src, off, buf, pos, len);
            for (int i = len; i < padded; i++) {
                buf[pos + i] = 0;
            }
            pos += padded;
        }
        return this;
    }

    /** Writes a variable {@code opaque<>}/{@code string<>}: u32 length, the bytes, zero padding. */
    public XdrWriter opaque(ByteView v) {
        u32(v.length);
        return fixed(v.array, v.offset, v.length);
    }

    /** Writes an sFlow {@code address}: u32 type then 0, 4 or 16 bytes. */
    public XdrWriter address(SflowAddress a) {
        u32(a.type);
        return fixed(a.bytes, 0, a.length());
    }

    /** Writes a {@code u32<>} array: count then values. */
    public XdrWriter u32Array(long[] values, int count) {
        u32(count);
        for (int i = 0; i < count; i++) {
            u32(values[i]);
        }
        return this;
    }

    /** Writes a 48-bit MAC as 6 bytes plus 2 zero bytes (sFlow {@code mac} is 8 bytes on the wire). */
    public XdrWriter mac(long mac) {
        if (room(8)) {
            for (int i = 0; i < 6; i++) {
                buf[pos + i] = (byte) (mac >>> (40 - 8 * i));
            }
            buf[pos + 6] = 0;
            buf[pos + 7] = 0;
            pos += 8;
        }
        return this;
    }

    /**
     * Starts a length-prefixed structure (sample or record body): writes a placeholder length.
     *
     * @return a token for {@link #endLength(int)}
     */
    public int beginLength() {
        int at = pos;
        u32(0);
        return at;
    }

    /** Back-patches the length written by {@link #beginLength()} with the bytes written since. */
    public void endLength(int token) {
        if (overflow) {
            return;
        }
        int len = pos - token - 4;
        buf[token] = (byte) (len >>> 24);
        buf[token + 1] = (byte) (len >>> 16);
        buf[token + 2] = (byte) (len >>> 8);
        buf[token + 3] = (byte) len;
    }
}
