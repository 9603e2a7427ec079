package io.vecflow.collector.sink;

import io.vecflow.collector.schema.FlowRow;
import java.util.Arrays;

/**
 * A map from ingest stream id (unsigned 32-bit, see {@link FlowRow#ingestStream}) to the greatest offset recorded
 * for it: open addressing over primitive arrays, so {@link #max} and {@link #get} allocate nothing (the table grows by
 * doubling when three quarters full). Not thread-safe.
 */
public final class StreamOffsets {
    private static final long EMPTY = -1L;
    private long[] keys;
    private long[] values;
    private int size;

    /** An empty map. */
    public StreamOffsets() {
        keys = new long[16];
        values = new long[16];
        Arrays.fill(keys, EMPTY);
    }

    /** Records {@code offset} for {@code stream}, keeping the greater of it and the value already there. */
    public void max(long stream, long offset) {
        int i = slot(stream);
        if (keys[i] == EMPTY) {
            keys[i] = stream;
            values[i] = offset;
            if (++size * 4 > keys.length * 3) {
                grow();
            }
        } else if (offset > values[i]) {
            values[i] = offset;
        }
    }

    /** @return the offset recorded for {@code stream}, or -1 when there is none */
    public long get(long stream) {
        int i = slot(stream);
        return keys[i] == EMPTY ? -1 : values[i];
    }

    /** Removes {@code stream} (backward-shift deletion keeps lookups allocation-free). */
    public void remove(long stream) {
        int i = slot(stream);
        if (keys[i] == EMPTY) {
            return;
        }
        keys[i] = EMPTY;
        size--;
        int mask = keys.length - 1;
        for (int j = (i + 1) & mask; keys[j] != EMPTY; j = (j + 1) & mask) {
            long k = keys[j], v = values[j];
            keys[j] = EMPTY;
            size--;
            max(k, v);
        }
    }

    /** @return the number of streams recorded. */
    public int size() {
        return size;
    }

    /** @return the stream ids recorded, in no particular order (a new array). */
    public long[] streams() {
        long[] out = new long[size];
        int n = 0;
        for (long k : keys) {
            if (k != EMPTY) {
                out[n++] = k;
            }
        }
        return out;
    }

    /** Empties the map, keeping its capacity. */
    public void clear() {
        Arrays.fill(keys, EMPTY);
        size = 0;
    }

    private int slot(long stream) {
        int mask = keys.length - 1;
        int i = (int) (stream * 0x9E3779B97F4A7C15L >>> 40) & mask;
        while (keys[i] != EMPTY && keys[i] != stream) {
            i = (i + 1) & mask;
        }
        return i;
    }

    private void grow() {
        long[] k = keys, v = values;
        keys = new long[k.length * 2];
        values = new long[k.length * 2];
        Arrays.fill(keys, EMPTY);
        size = 0;
        for (int i = 0; i < k.length; i++) {
            if (k[i] != EMPTY) {
                max(k[i], v[i]);
            }
        }
    }
}
