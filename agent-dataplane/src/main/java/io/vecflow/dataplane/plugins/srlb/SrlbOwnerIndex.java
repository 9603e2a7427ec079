package io.vecflow.dataplane.plugins.srlb;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The SRLB server agent's owner index (shared by its workers): flow hash → the worker whose flow table holds the
 * connection and the slot there. The hunting SYN names no worker (its SID's CORE/ENTRY are the LB's choice of
 * candidate, docs/load-balancing.md §3 step 1), and the server's replies carry no SID at all, so a worker that receives
 * a packet of a connection another worker accepted looks the owner up here; the owner writes the entry when it accepts
 * (or first creates) the connection. An entry is only a hint: the reader checks the key in the named slot, and falls
 * back to searching the other workers' tables when the hint is missing.
 *
 * <p>Layout: {@code capacity} longs (a power of two) in buckets of {@value #WAYS} (64 bytes), bucket = {@code hash &
 * (capacity − 1)} rounded down to a bucket. An entry is {@code tag << 32 | (worker + 1) << 24 | slot}: tag = the high
 * 32 bits of the flow hash (the bucket uses the low bits), worker 0..63, slot &lt; 2<sup>24</sup>
 * ({@code SrlbFlowTable.MAX_CAPACITY}); 0 = empty. Writers claim an entry with a compare-and-set (several owners may
 * write one bucket); there is no deletion — a writer replaces, in this order, an empty entry, an entry with the same
 * tag, an entry whose slot has expired ({@code SrlbAgent} checks), else the entry the hash picks.
 *
 * <p>Memory ordering: the compare-and-set has volatile semantics, so it is a release of everything the owner wrote
 * before it (the flow-table slot: key, state, expiry, LB SID; an owner that finds its entry already there stores it
 * again with release semantics); readers load entries with {@link VarHandle#getAcquire},
 * so a reader that finds the entry sees at least that version of the slot. Allocation-free.
 */
final class SrlbOwnerIndex {
    /** Entries per bucket (one cache line of longs). */
    static final int WAYS = 8;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] e;
    private final int bucketMask;

    /**
     * @param capacity entries, a power of two ≥ {@value #WAYS}
     * @throws IllegalArgumentException otherwise
     */
    SrlbOwnerIndex(int capacity) {
        if (capacity < WAYS || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("owner index entries must be a power of two ≥ " + WAYS + ", got "
                    + capacity);
        }
        e = new long[capacity];
        bucketMask = (capacity - 1) & ~(WAYS - 1);
    }

    /** @return number of entries */
    int capacity() {
        return e.length;
    }

    /** @return index of the first entry of {@code hash}'s bucket */
    int bucket(long hash) {
        return (int) hash & bucketMask;
    }

    /** @return entry {@code i} (acquire load) */
    long get(int i) {
        return (long) LONGS.getAcquire(e, i);
    }

    /** Stores entry {@code i} with release semantics (an owner re-publishing the same entry). */
    void release(int i, long entry) {
        LONGS.setRelease(e, i, entry);
    }

    /** Replaces entry {@code i} if it still holds {@code expected} (volatile semantics). @return whether it did */
    boolean replace(int i, long expected, long entry) {
        return LONGS.compareAndSet(e, i, expected, entry);
    }

    /** @return the entry naming {@code worker} (0..63) and {@code slot} (&lt; 2<sup>24</sup>) for a flow's hash */
    static long entry(long hash, int worker, int slot) {
        return (hash & 0xFFFF_FFFF_0000_0000L) | (long) (worker + 1) << 24 | slot;
    }

    /** @return whether a non-empty entry carries {@code hash}'s tag */
    static boolean tagMatches(long entry, long hash) {
        return entry != 0 && ((entry ^ hash) & 0xFFFF_FFFF_0000_0000L) == 0;
    }

    /** @return the worker an entry names */
    static int worker(long entry) {
        return ((int) (entry >>> 24) & 0xFF) - 1;
    }

    /** @return the slot an entry names */
    static int slot(long entry) {
        return (int) entry & 0xFF_FFFF;
    }
}
