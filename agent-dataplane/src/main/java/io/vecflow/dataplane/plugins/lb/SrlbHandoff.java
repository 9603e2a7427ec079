package io.vecflow.dataplane.plugins.lb;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Hands SRLB state changes decided on one worker to the worker that owns the flow (docs/load-balancing.md §3: a SID's
 * CORE names the worker whose flow table holds the connection). VPP hands the packet itself to the owner thread; this
 * dataplane keeps the packet where it arrived and hands over the <em>state change</em>: a fixed record (client, VIP,
 * ports, the slot hint, function, choice, server, a SID) in the owner's inbox. Two users, one instance each:
 * <ul>
 *   <li>the LB ({@code SrlbLb}): a server signal on the wrong worker (its SRH is popped and it goes on toward the
 *       client); the record carries the function 0x8/0x9, the choice, the server and the server agent's SID, and the
 *       owner applies it at the start of its next {@code lb6} vector;</li>
 *   <li>the server agent ({@code SrlbAgent}): a packet decided from another worker's entry; the record's function byte
 *       is the event (SID FUNCTION 0x0–0x2, or {@code SrlbAgent.EVENT_REPLY} [| FIN/RST]), {@link #SA_HI}/{@link
 * #SA_LO}       carry the LB SID, {@link #SERVER} is 0 and {@link #GENERATION} is the generation of the owner's entry
 * the       decision was made from ({@code SrlbFlowTable#generation}), which the owner checks; the owner's
 *       {@code SrlbAgentHandoffNode} applies it at the start of its next dispatch round.</li>
 * </ul>
 *
 * <p>One bounded multi-producer, single-consumer ring per worker ({@value #CAPACITY} records of {@value #FIELDS}
 * longs), with a sequence number per record (D. Vyukov's bounded queue): producers claim a position with a CAS on the
 * tail, write the record, then publish its sequence; the owner reads records in order while their sequence says they
 * are complete. Allocation-free; a full inbox refuses the record (the caller counts it and keeps the old behaviour: a
 * local entry).
 */
public final class SrlbHandoff {
    /** Records per inbox. */
    public static final int CAPACITY = 1024;
    /** Longs per record. */
    public static final int FIELDS = 11;
    /** Field positions of a handed-off record (client, VIP, ports, meta, server-agent SID). */
    public static final int C_HI = 0, C_LO = 1, V_HI = 2, V_LO = 3, PORTS = 4, META = 5, SA_HI = 6, SA_LO = 7, HASH = 8,
            SERVER = 9, GENERATION = 10;

    private static final class Inbox {
        final long[] data = new long[CAPACITY * FIELDS];
        final AtomicLongArray seq = new AtomicLongArray(CAPACITY);
        final AtomicLong tail = new AtomicLong();
        long head; // the owner's only

        Inbox() {
            for (int i = 0; i < CAPACITY; i++) {
                seq.set(i, i);
            }
        }
    }

    private final Inbox[] inboxes;

    /** @param workers the dataplane's worker count (1..64) */
    public SrlbHandoff(int workers) {
        inboxes = new Inbox[workers];
        for (int i = 0; i < workers; i++) {
            inboxes[i] = new Inbox();
        }
    }

    /** @return the number of workers (inboxes) */
    int workers() {
        return inboxes.length;
    }

    /** Packs the small fields: hint slot (32 bits), function (8), choice + 1 (8), VIP index (16). */
    public static long meta(int hint, int function, int choice, int vip) {
        return (long) hint << 32 | (long) (function & 0xFF) << 24 | (long) ((choice + 1) & 0xFF) << 16 | vip & 0xFFFF;
    }

    /**
     * Posts a record to worker {@code to}'s inbox (any thread).
     *
     * @param generation the agent's: the generation of the owner's entry read; the LB's: 0 (its signal comes from the
     *                   packet, not from the owner's entry)
     * @return false if the inbox is full (nothing written)
     */
    public boolean offer(int to, long cHi, long cLo, long vHi, long vLo, long ports, long meta, long saHi, long saLo,
            long hash, int server, long generation) {
        Inbox in = inboxes[to];
        long t;
        int i;
        while (true) {
            t = in.tail.get();
            i = (int) t & (CAPACITY - 1);
            long s = in.seq.get(i);
            if (s == t) {
                if (in.tail.compareAndSet(t, t + 1)) {
                    break;
                }
            } else if (s < t) {
                return false; // the owner has not consumed this position yet: full
            }
            // else another producer took t: retry with the new tail
        }
        int o = i * FIELDS;
        long[] d = in.data;
        d[o + C_HI] = cHi;
        d[o + C_LO] = cLo;
        d[o + V_HI] = vHi;
        d[o + V_LO] = vLo;
        d[o + PORTS] = ports;
        d[o + META] = meta;
        d[o + SA_HI] = saHi;
        d[o + SA_LO] = saLo;
        d[o + HASH] = hash;
        d[o + SERVER] = server;
        d[o + GENERATION] = generation;
        in.seq.set(i, t + 1); // volatile write: publishes the record
        return true;
    }

    /**
     * The owner takes its next record, if any, into {@code out} ({@value #FIELDS} longs).
     *
     * @return true if a record was copied
     */
    public boolean poll(int owner, long[] out) {
        Inbox in = inboxes[owner];
        long h = in.head;
        int i = (int) h & (CAPACITY - 1);
        if (in.seq.get(i) != h + 1) {
            return false;
        }
        System.arraycopy(in.data, i * FIELDS, out, 0, FIELDS);
        in.seq.set(i, h + CAPACITY); // the position is free for the producer one lap later
        in.head = h + 1;
        return true;
    }
}
