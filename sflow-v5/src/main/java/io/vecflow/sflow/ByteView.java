package io.vecflow.sflow;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A view of {@code length} bytes at {@code offset} in {@code array}. The decoder points views into the datagram
 * buffer (no copy, valid only during the visitor call); the encoder reads whatever a view points at. Used for
 * sampled headers, XDR strings and opaque values.
 */
public final class ByteView {
    private static final byte[] EMPTY = new byte[0];

    /** Backing array. */
    public byte[] array = EMPTY;
    /** Offset of the first byte. */
    public int offset;
    /** Number of bytes. */
    public int length;

    /** Points this view at {@code array[offset, offset + length)}; returns this. */
    public ByteView set(byte[] array, int offset, int length) {
        this.array = array;
        this.offset = offset;
        this.length = length;
        return this;
    }

    /** Points this view at a copy-free wrap of the whole array; returns this. */
    public ByteView set(byte[] array) {
        return set(array, 0, array.length);
    }

    /** Empties the view. */
    public void clear() {
        array = EMPTY;
        offset = 0;
        length = 0;
    }

    /** @return byte {@code i} of the view (0-based), unsigned. */
    public int get(int i) {
        return array[offset + i] & 0xFF;
    }

    /** @return a copy of the bytes (allocates). */
    public byte[] toArray() {
        return Arrays.copyOfRange(array, offset, offset + length);
    }

    /** @return the bytes decoded as UTF-8 (allocates; malformed sequences become U+FFFD). */
    public String asString() {
        return new String(array, offset, length, StandardCharsets.UTF_8);
    }

    /** @return true if both views hold the same bytes. */
    public boolean contentEquals(ByteView o) {
        return Arrays.equals(array, offset, offset + length, o.array, o.offset, o.offset + o.length);
    }

    @Override
    public String toString() {
        return asString();
    }
}
