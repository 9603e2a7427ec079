package io.vecflow.common;

import java.util.function.LongFunction;

/**
 * Open-addressing map from a {@code long} key to an object, for per-source state on the sample paths of the agent and
 * the collector (keyed by ifIndex or source_id): lookups of
 * existing keys allocate nothing (a {@code HashMap<Long, V>} boxes every key above 127). Linear probing, power-of-two
 * capacity, load factor ≤ 1/2; no removal. Not thread-safe.
 *
 * @param <V> value type
 */
public final class LongObjectMap<V> {
    private long[] keys;
    private Object[] values;
    private int size;

    /** @param initialCapacity expected number of keys */
    public LongObjectMap(int initialCapacity) {
        int cap = Integer.highestOneBit(Math.max(4, initialCapacity - 1)) << 1;
        keys = new long[cap];
        values = new Object[cap];
    }

    /** @return the number of keys. */
    public int size() {
        return size;
    }

    /** @return the value for {@code key}, or null. */
    @SuppressWarnings("unchecked")
    public V get(long key) {
        int mask = keys.length - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            Object v = values[i];
            if (v == null) {
                return null;
            }
            if (keys[i] == key) {
                return (V) v;
            }
        }
    }

    /** @return the value for {@code key}, created with {@code create} (which must not return null) if absent. */
    public V computeIfAbsent(long key, LongFunction<V> create) {
        V v = get(key);
        if (v != null) {
            return v;
        }
        v = create.apply(key);
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        insert(key, v);
        size++;
        return v;
    }

    /**
     * Adds or replaces a value.
     *
     * @param value non-null value
     */
    public void put(long key, V value) {
        java.util.Objects.requireNonNull(value, "value");
        int mask = keys.length - 1;
        for (int i = slot(key, mask); values[i] != null; i = (i + 1) & mask) {
            if (keys[i] == key) {
                values[i] = value;
                return;
            }
        }
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        insert(key, value);
        size++;
    }

    /** Calls {@code action} for every value, in no particular order. */
    @SuppressWarnings("unchecked")
    public void forEachValue(java.util.function.Consumer<? super V> action) {
        for (Object v : values) {
            if (v != null) {
                action.accept((V) v);
            }
        }
    }

    private void insert(long key, Object v) {
        int mask = keys.length - 1;
        int i = slot(key, mask);
        while (values[i] != null) {
            i = (i + 1) & mask;
        }
        keys[i] = key;
        values[i] = v;
    }

    private void grow() {
        long[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new Object[oldValues.length * 2];
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] != null) {
                insert(oldKeys[i], oldValues[i]);
            }
        }
    }

    private static int slot(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L; // Fibonacci hashing spreads consecutive ifIndexes
        return (int) (h ^ (h >>> 32)) & mask;
    }

    @Override
    public String toString() {
        return "LongObjectMap[size=" + size + ", capacity=" + keys.length + "]";
    }
}
