package io.vecflow.sflow;

/**
 * Bounds-checked XDR reads (RFC 4506) over one datagram buffer, shared by the sample and record decoders. Every read
 * names its field and checks the enclosing structure's end ({@code end}), so a record never reads past its declared
 * length; failures reuse one preallocated {@link SflowDecodeException}. Not thread-safe.
 */
public final class XdrReader {
    byte[] buf;
    private final SflowDecodeException failure = new SflowDecodeException();

    /** @return the buffer being decoded. */
    public byte[] buffer() {
        return buf;
    }

    /** @return the u32 at {@code p} as an unsigned long. */
    public long u32(int p, int end, String field) throws SflowDecodeException {
        if (p + 4 > end || p < 0) {
            throw fail(DecodeError.TRUNCATED, field, p, -1);
        }
        byte[] b = buf;
        return (b[p] & 0xFFL) << 24 | (b[p + 1] & 0xFF) << 16 | (b[p + 2] & 0xFF) << 8 | (b[p + 3] & 0xFF);
    }

    /** @return the u32 at {@code p} as an int (for values that are known to fit or are bit patterns). */
    public int i32(int p, int end, String field) throws SflowDecodeException {
        return (int) u32(p, end, field);
    }

    /** @return the u64 (unsigned hyper) at {@code p}; callers treat it as unsigned. */
    public long u64(int p, int end, String field) throws SflowDecodeException {
        if (p + 8 > end || p < 0) {
            throw fail(DecodeError.TRUNCATED, field, p, -1);
        }
        return u32(p, end, field) << 32 | u32(p + 4, end, field);
    }

    /** @return the IEEE-754 single at {@code p}. */
    public float f32(int p, int end, String field) throws SflowDecodeException {
        return Float.intBitsToFloat(i32(p, end, field));
    }

    /** Fails unless {@code n} bytes are available at {@code p}. */
    public void need(int p, int n, int end, String field) throws SflowDecodeException {
        if (n < 0 || p + n > end || p < 0) {
            throw fail(DecodeError.TRUNCATED, field, p, n);
        }
    }

    /**
     * Reads a variable-length {@code opaque<>} or {@code string<>}: u32 length, bytes, pad to 4.
     *
     * @param max the largest length accepted (a sane cap); longer fails with LENGTH_OUT_OF_BOUNDS
     * @param out set to point at the bytes (no copy)
     * @return the position after the padding
     */
    public int opaque(int p, int end, String field, int max, ByteView out) throws SflowDecodeException {
        long n = u32(p, end, field);
        if (n > max || n > end - p - 4) {
            throw fail(DecodeError.LENGTH_OUT_OF_BOUNDS, field, p, n);
        }
        int len = (int) n;
        out.set(buf, p + 4, len);
        int next = p + 4 + SflowFormats.pad4(len);
        if (next > end) {
            throw failure.set(DecodeError.TRUNCATED, field, " padding", p + 4 + len, -1);
        }
        return next;
    }

    /**
     * Reads an sFlow {@code address}: u32 type, then 4 (IPv4) or 16 (IPv6) bytes, nothing for type 0.
     *
     * @return the position after it
     */
    public int address(int p, int end, String field, SflowAddress out) throws SflowDecodeException {
        long type = u32(p, end, field);
        int n;
        if (type == SflowFormats.ADDRESS_IPV4) {
            n = 4;
        } else if (type == SflowFormats.ADDRESS_IPV6) {
            n = 16;
        } else if (type == SflowFormats.ADDRESS_UNKNOWN) {
            n = 0;
        } else {
            throw failure.set(DecodeError.BAD_AGENT_ADDRESS_TYPE, field, ".type", p, type);
        }
        need(p + 4, n, end, field);
        out.type = (int) type;
        java.util.Arrays.fill(out.bytes, (byte) 0);
        System.arraycopy(buf, p + 4, out.bytes, 0, n);
        return p + 4 + n;
    }

    /**
     * Reads a {@code u32<>} array (count then values) into {@code out}, at most {@code out.length} values.
     *
     * @return the number of values; the caller advances by 4 + 4 × count
     */
    public int u32Array(int p, int end, String field, long[] out) throws SflowDecodeException {
        long n = u32(p, end, field);
        if (n > out.length || n * 4 > end - p - 4) {
            throw fail(DecodeError.COUNT_OUT_OF_BOUNDS, field, p, n);
        }
        for (int i = 0; i < n; i++) {
            out[i] = u32(p + 4 + 4 * i, end, field);
        }
        return (int) n;
    }

    /** @return the shared failure, filled in. */
    public SflowDecodeException fail(DecodeError kind, String field, int offset, long value) {
        return failure.set(kind, field, offset, value);
    }
}
