package io.vecflow.collector.decode;

import io.vecflow.common.LongObjectMap;
import io.vecflow.sflow.DatagramHeader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Loss accounting per agent and per data source, from what the agents say about themselves (sFlow v5 §"sample_
 * datagram_v5" and §"flow_sample": sequence numbers and drops):
 * <ul>
 *   <li>datagram sequence gaps per (agent, sub-agent) — datagrams lost on the way to the collector;</li>
 *   <li>sample sequence gaps per (agent, sub-agent, source_id), separately for flow samples, counter samples and
 *       discards (each has its own sequence per source, sflow_version_5.txt, sflow_drops.txt) — samples
 *       lost (in lost datagrams, or dropped by the agent before sending);</li>
 *   <li>agent restarts — counted, and every sequence of that agent re-baselined (a restart is not a loss);</li>
 *   <li>datagrams arriving out of order or duplicated: counted, not treated as loss;</li>
 *   <li>the agent-reported {@code drops} (samples the agent could not send), as the increase of the cumulative
 *       counter per source.</li>
 * </ul>
 * Sequence arithmetic is modulo 2^32 (u32 wrap is not a gap). Thread-safe (one lock; a few field updates per
 * datagram and per sample); the snapshots for metrics and storage are taken under the same lock.
 *
 * <p><b>Datagram rule</b>, per (agent, sub-agent), comparing a datagram's sequence number {@code s} and uptime
 * {@code u} (ms) with the last in-order datagram's:
 * <ol>
 *   <li><b>Sequence continuing</b> ({@code s} = last + 1, or a forward gap of at most {@link #MAX_GAP}): in order,
 *       the gap counted as lost — <em>whatever the uptime does</em>. The u32 uptime wraps every 49.7 days, and agents
 *       may derive it from the wall clock (hsflowd computes it from a boot time in seconds, sflow/host-sflow#3), so it
 *       can step back while the agent keeps running; the sequence is the authority.</li>
 *   <li><b>Sequence at or behind the last one</b>, by at most {@link #REORDER_WINDOW}: a late or duplicated datagram
 *       only when its uptime is consistent with one — a duplicate carries the same uptime as the copy already seen;
 *       a late datagram was sent before the closest newer datagram seen, by at most {@link #MAX_LATENESS_MS}, and
 *       after the closest older one seen (the tracker remembers the last {@link #RECENT} datagrams' sequence and
 *       uptime). Otherwise — typically the uptime went back to a restarted agent's few seconds, by any amount — the
 *       agent <b>restarted</b>. A late datagram stays counted as lost (it is counted as reordered too).</li>
 *   <li><b>Anything else</b> (a forward jump beyond {@link #MAX_GAP}, a step back beyond the window): restart.</li>
 * </ol>
 * A restart is confirmed by the datagram after it: if that one continues the sequence from before the restart more
 * closely than the restarted one, the restart was one odd datagram (a malformed or forged header, e.g. sequence 0
 * and uptime 0) and the agent's baselines go back to where they were; the restart stays counted, nothing else is.
 * Peers: Elastic Beats' NetFlow/IPFIX input ({@code detect_sequence_reset}) resets a session when the sequence moves
 * by 1000 or more either way and looks at nothing else; this rule also catches a restart whose sequence lands near
 * the old one (an agent restarted after a few datagrams) by the uptime, and never counts an uptime wrap or clock step
 * with a continuing sequence as a restart.
 *
 * <p>Sample sequences (per source and family) use the same arithmetic without uptime: a step back within the window
 * is reordering, a jump beyond {@link #MAX_GAP} a reset of the source's counter; an agent restart re-baselines them.
 */
public final class LossTracker {
    /** Sample families, each with its own sequence per source. */
    public static final int FLOW = 0, COUNTERS = 1, DISCARDS = 2;
    /** Sequence jumps backwards of at most this many count as reordering; more means a restart. */
    static final long REORDER_WINDOW = 1 << 16;
    /** Gaps larger than this are treated as a restart (the agent's counter was reset), not as loss. */
    static final long MAX_GAP = 1L << 24;
    /** Datagrams per agent whose sequence and uptime are remembered to judge late ones (a power of 2). */
    static final int RECENT = 32;
    /**
     * A late datagram was sent at most this long (uptime, ms) before the closest newer datagram already received;
     * more is not network reordering but an agent whose uptime went back: a restart. Covers agents whose uptime
     * moves in whole seconds (hsflowd) with margin.
     */
    static final long MAX_LATENESS_MS = 5_000;
    private static final long U32 = 0xFFFFFFFFL;
    /** Sources tracked per agent at most (a cap against hostile input); more are counted in {@link #overflow}. */
    static final int MAX_SOURCES_PER_AGENT = 65_536;
    /** Agents tracked at most. */
    static final int MAX_AGENTS = 100_000;

    /** Totals for one agent and sub-agent. */
    public static final class AgentStats {
        /** Agent address, 16 bytes (IPv4 mapped). */
        public final byte[] agent = new byte[16];
        /** sub_agent_id. */
        public long subAgentId;
        /** Datagrams seen, lost (sequence gaps), late (reordered), and agent restarts. */
        public long datagrams, datagramsLost, datagramsReordered, resets;
        /** Datagrams seen twice (same sequence and uptime as one already seen): not counted in {@link #datagrams}. */
        public long datagramsDuplicated;
        /** Ingest stream and offset of the agent's latest datagram (what its {@code agents} rows are tagged with). */
        public long lastStream, lastOffset;
        long lastSeq = -1, lastUptime = -1;
        /** The in-order position before the latest restart, until the datagram after it is judged; -1 = none. */
        long prevSeq = -1, prevUptime = -1;
        /**
         * Recent datagrams as {@code seq << 32 | uptime} in slot {@code seq % RECENT}; valid where recentMask is set.
         */
        final long[] recent = new long[RECENT];
        /** Content fingerprints of the recent datagrams (length and last bytes), same slots. */
        final long[] recentPrint = new long[RECENT];
        int recentMask;
        final LongObjectMap<SourceStats> sources = new LongObjectMap<>(16);
        final List<SourceStats> sourceList = new ArrayList<>();

        AgentStats copy() {
            AgentStats c = new AgentStats();
            System.arraycopy(agent, 0, c.agent, 0, 16);
            c.subAgentId = subAgentId;
            c.datagrams = datagrams;
            c.datagramsLost = datagramsLost;
            c.datagramsReordered = datagramsReordered;
            c.resets = resets;
            c.datagramsDuplicated = datagramsDuplicated;
            c.lastStream = lastStream;
            c.lastOffset = lastOffset;
            return c;
        }
    }

    /** Totals for one data source of an agent and one sample family. */
    public static final class SourceStats {
        /** Agent address (16 bytes) and sub-agent. */
        public final byte[] agent = new byte[16];
        /** sub_agent_id. */
        public long subAgentId;
        /** source_id type and index. */
        public int sourceIdType;
        /** source_id index. */
        public long sourceIdIndex;
        /** {@link LossTracker#FLOW}, {@link LossTracker#COUNTERS} or {@link LossTracker#DISCARDS}. */
        public int family;
        /** Samples seen and lost (sequence gaps), reordered; agent-reported drops (increase of {@code drops}). */
        public long samples, samplesLost, samplesReordered, reportedDrops;
        long lastSeq = -1, lastDrops = -1;
        /** The baselines before the agent's latest restart (restored if that restart was one odd datagram). */
        long prevSeq = -1, prevDrops = -1;

        SourceStats copy() {
            SourceStats c = new SourceStats();
            System.arraycopy(agent, 0, c.agent, 0, 16);
            c.subAgentId = subAgentId;
            c.sourceIdType = sourceIdType;
            c.sourceIdIndex = sourceIdIndex;
            c.family = family;
            c.samples = samples;
            c.samplesLost = samplesLost;
            c.samplesReordered = samplesReordered;
            c.reportedDrops = reportedDrops;
            return c;
        }
    }

    /** (agent address, sub-agent); mutable so one probe instance serves every lookup without allocating. */
    private static final class AgentKey {
        long hi, lo, subAgent;

        AgentKey set(long hi, long lo, long subAgent) {
            this.hi = hi;
            this.lo = lo;
            this.subAgent = subAgent;
            return this;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof AgentKey k && k.hi == hi && k.lo == lo && k.subAgent == subAgent;
        }

        @Override
        public int hashCode() {
            long h = hi * 0x9E3779B97F4A7C15L ^ lo * 0xC2B2AE3D27D4EB4FL ^ subAgent;
            return (int) (h ^ (h >>> 32));
        }
    }

    private final AgentKey probe = new AgentKey();

    /**
     * Returned by {@link #onDatagram(DatagramHeader, long, long)} for a datagram seen before (same agent, sub-agent,
     * sequence number and uptime as one of the agent's recent datagrams): a network duplicate or a re-sent copy,
     * whose rows the caller leaves out. Never mutate it.
     */
    public static final AgentStats DUPLICATE = new AgentStats();

    private final Map<AgentKey, AgentStats> agents = new HashMap<>();
    private final byte[] scratch = new byte[16];
    private long overflow;
    private AgentStats lastAgent;
    private long lastHi, lastLo, lastSub = -1;

    /**
     * Records a datagram header; returns the agent's state for the samples that follow.
     *
     * @return the agent, or null when the agent table is full (counted in {@link #overflow()})
     */
    public AgentStats onDatagram(DatagramHeader h) {
        return onDatagram(h, 0x8000_0000L, 0, 0);
    }

    /**
     * A fingerprint of a datagram's content for {@link #onDatagram(DatagramHeader, long, long, long)}: its length,
     * the 64 bytes after the 40 first ones (the datagram header and the first sample's header: its sequence number,
     * source, sampling rate, pool, drops and interfaces), and its last 8 bytes. Cheap (no pass over the whole
     * datagram), and it tells apart datagrams that share a header but not their samples.
     */
    public static long fingerprint(byte[] data, int off, int len) {
        long h = (long) len * 0x9E3779B97F4A7C15L;
        int from = off + Math.min(len, 40), to = off + Math.min(len, 104);
        int i = from;
        for (; i + 8 <= to; i += 8) {
            h = Long.rotateLeft(h ^ (long) LONGS.get(data, i) * 0xC2B2AE3D27D4EB4FL, 31) * 0x9E3779B97F4A7C15L;
        }
        for (; i < to; i++) {
            h = (h ^ (data[i] & 0xFF)) * 0x100000001B3L;
        }
        if (len >= 8) {
            h = Long.rotateLeft(h ^ (long) LONGS.get(data, off + len - 8) * 0xC2B2AE3D27D4EB4FL, 31);
        }
        return h * 0x9E3779B97F4A7C15L;
    }

    private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    /**
     * Records a datagram header read from an ingest stream; returns the agent's state for the samples that follow.
     *
     * @param stream ingest stream of the datagram (Kafka partition, or an in-process stream)
     * @param offset its offset there
     * @param print the datagram's {@link #fingerprint}: a copy has the same sequence, uptime and fingerprint
     * @return the agent; {@link #DUPLICATE} when the datagram was seen before (not counted, its samples must not be
     *     recorded); or null when the agent table is full (counted in {@link #overflow()})
     */
    public synchronized AgentStats onDatagram(DatagramHeader h, long stream, long offset, long print) {
        h.writeAgentAddress16(scratch, 0);
        long hi = be64(scratch, 0), lo = be64(scratch, 8);
        AgentStats a;
        if (lastAgent != null && hi == lastHi && lo == lastLo && h.subAgentId == lastSub) {
            a = lastAgent; // the common case: consecutive datagrams from one agent, no lookup, no key object
        } else {
            a = agents.get(probe.set(hi, lo, h.subAgentId));
            if (a == null) {
                if (agents.size() >= MAX_AGENTS) {
                    overflow++;
                    return null;
                }
                a = new AgentStats();
                System.arraycopy(scratch, 0, a.agent, 0, 16);
                a.subAgentId = h.subAgentId;
                agents.put(new AgentKey().set(hi, lo, h.subAgentId), a);
            }
            lastAgent = a;
            lastHi = hi;
            lastLo = lo;
            lastSub = h.subAgentId;
        }
        long seq = h.sequenceNumber & U32;
        long uptime = h.uptimeMs & U32;
        if (a.lastSeq < 0) {
            a.datagrams++;
            a.lastStream = stream;
            a.lastOffset = offset;
            a.prevSeq = -1;
            inOrder(a, seq, uptime, print);
            return a;
        }
        if (a.prevSeq >= 0) {
            resumeIfTheRestartWasOneOddDatagram(a, seq);
        }
        long ahead = (seq - a.lastSeq) & U32;
        long back = (a.lastSeq - seq) & U32;
        int late = ahead != 0 && ahead <= MAX_GAP ? 0
                : back <= REORDER_WINDOW ? lateOrDuplicate(a, back, uptime, print) : 0;
        if (late == DUPLICATE_COPY) {
            a.datagramsDuplicated++;
            a.lastStream = stream; // a change of the agent's counts is always tagged with a newer offset
            a.lastOffset = offset;
            return DUPLICATE;
        }
        a.datagrams++;
        a.lastStream = stream;
        a.lastOffset = offset;
        if (ahead != 0 && ahead <= MAX_GAP) {
            a.datagramsLost += ahead - 1; // the sequence continues: in order, whatever the uptime does
            inOrder(a, seq, uptime, print);
        } else if (late == LATE) {
            a.datagramsReordered++; // not a loss; the last in-order datagram stays the reference
            if (back < RECENT) {
                remember(a, seq, uptime, print);
            }
        } else {
            restart(a, seq, uptime, print);
        }
        return a;
    }

    private static void inOrder(AgentStats a, long seq, long uptime, long print) {
        a.lastSeq = seq;
        a.lastUptime = uptime;
        remember(a, seq, uptime, print);
    }

    private static void remember(AgentStats a, long seq, long uptime, long print) {
        int slot = (int) (seq & (RECENT - 1));
        a.recent[slot] = seq << 32 | uptime;
        a.recentPrint[slot] = print;
        a.recentMask |= 1 << slot;
    }

    private static final int RESTART = 0, LATE = 1, DUPLICATE_COPY = 2;

    /**
     * @param back how far behind the last in-order sequence the datagram is (0 = the same sequence)
     * @return {@link #DUPLICATE_COPY} if a datagram with that sequence and uptime was seen, {@link #LATE} if the
     *     uptime fits a late datagram (see the class rule), {@link #RESTART} otherwise
     */
    private static int lateOrDuplicate(AgentStats a, long back, long uptime, long print) {
        long newerBack = -1, newerUptime = a.lastUptime, olderBack = -1, olderUptime = 0;
        for (int slot = 0; slot < RECENT; slot++) {
            if ((a.recentMask & 1 << slot) == 0) {
                continue;
            }
            long e = a.recent[slot];
            long eb = (a.lastSeq - (e >>> 32)) & U32;
            long eu = e & U32;
            if (eb == back) {
                // seen before: a copy carries the same uptime and content, a restarted agent another uptime; the
                // same header over other samples is not a copy (counted late)
                return eu != uptime ? RESTART : a.recentPrint[slot] == print ? DUPLICATE_COPY : LATE;
            } else if (eb < back) {
                if (eb > newerBack) { // the closest newer datagram seen
                    newerBack = eb;
                    newerUptime = eu;
                }
            } else if (eb <= REORDER_WINDOW && (olderBack < 0 || eb < olderBack)) { // the closest older one
                olderBack = eb;
                olderUptime = eu;
            }
        }
        if (back == 0) {
            return RESTART; // the last in-order sequence again with another uptime
        }
        long sentBefore = (newerUptime - uptime) & U32; // how long before the closest newer datagram it was sent
        if (sentBefore > MAX_LATENESS_MS) {
            return RESTART; // too early, or after the newer datagram (the difference wraps to nearly 2^32)
        }
        // not before the older one
        return olderBack < 0 || sentBefore <= ((newerUptime - olderUptime) & U32) ? LATE : RESTART;
    }

    private static void restart(AgentStats a, long seq, long uptime, long print) {
        a.resets++;
        a.recentMask = 0;
        a.prevSeq = a.lastSeq;
        a.prevUptime = a.lastUptime;
        inOrder(a, seq, uptime, print);
        for (SourceStats s : a.sourceList) {
            s.prevSeq = s.lastSeq;
            s.prevDrops = s.lastDrops;
            s.lastSeq = -1;
            s.lastDrops = -1;
        }
    }

    /**
     * The datagram after a restart decides whether it was one: when it continues the sequence from before the
     * restart more closely than the restarted one (a forward step of at most {@link #MAX_GAP} from the old
     * position), the "restart" was a single odd datagram — a malformed or forged header (sequence 0, uptime 0), a
     * stray copy from elsewhere — and the agent goes on from where it was: its datagram and sample baselines are put
     * back, so what follows is not counted as a gap from the odd datagram's sequence (hundreds of thousands "lost"
     * per odd datagram). The restart stays counted (it was seen when it came; counts never go back).
     */
    private static void resumeIfTheRestartWasOneOddDatagram(AgentStats a, long seq) {
        long fromOld = (seq - a.prevSeq) & U32;
        long fromNew = (seq - a.lastSeq) & U32;
        if (fromOld != 0 && fromOld <= MAX_GAP && fromOld < fromNew) {
            a.lastSeq = a.prevSeq;
            a.lastUptime = a.prevUptime;
            a.recentMask = 0;
            for (SourceStats s : a.sourceList) {
                s.lastSeq = s.prevSeq;
                s.lastDrops = s.prevDrops;
            }
        }
        a.prevSeq = -1;
    }

    /**
     * Records a sample of an agent.
     *
     * @param a the agent from {@link #onDatagram} (null is ignored)
     * @param family {@link #FLOW}, {@link #COUNTERS} or {@link #DISCARDS}
     * @param drops the sample's cumulative {@code drops}, or -1 when the sample has none (counters)
     */
    public synchronized void onSample(AgentStats a, int family, int sourceIdType, long sourceIdIndex,
            long sequenceNumber, long drops) {
        if (a == null) {
            return;
        }
        long key = (sourceIdIndex & 0xFFFFFFFFL) | ((long) (sourceIdType & 0xFF) << 32) | ((long) family << 40);
        SourceStats s = a.sources.get(key);
        if (s == null) {
            if (a.sources.size() >= MAX_SOURCES_PER_AGENT) {
                overflow++;
                return;
            }
            s = new SourceStats();
            System.arraycopy(a.agent, 0, s.agent, 0, 16);
            s.subAgentId = a.subAgentId;
            s.sourceIdType = sourceIdType;
            s.sourceIdIndex = sourceIdIndex;
            s.family = family;
            a.sources.put(key, s);
            a.sourceList.add(s);
        }
        s.samples++;
        if (s.lastSeq < 0) {
            s.lastSeq = sequenceNumber;
        } else {
            long ahead = (sequenceNumber - s.lastSeq) & 0xFFFFFFFFL;
            if (ahead == 0 || ahead > 0xFFFFFFFFL - REORDER_WINDOW) {
                s.samplesReordered++;
            } else if (ahead > MAX_GAP) {
                s.lastSeq = sequenceNumber; // a counter reset at the source, not a loss
            } else {
                s.samplesLost += ahead - 1;
                s.lastSeq = sequenceNumber;
            }
        }
        if (drops >= 0) {
            if (s.lastDrops >= 0) {
                long inc = (drops - s.lastDrops) & 0xFFFFFFFFL;
                if (inc < MAX_GAP) {
                    s.reportedDrops += inc;
                }
            }
            s.lastDrops = drops;
        }
    }

    /**
     * Forgets the sequence positions of the agents whose latest datagram came from one of {@code streams}: their
     * next datagram and samples start a new baseline (no gap counted across it). For partitions another outlet
     * counted meanwhile; totals are kept.
     *
     * @param streams ingest stream ids
     */
    public synchronized void rebaseline(long[] streams) {
        for (AgentStats a : agents.values()) {
            for (long s : streams) {
                if (a.lastStream == s) {
                    a.lastSeq = -1;
                    a.prevSeq = -1;
                    a.recentMask = 0;
                    for (SourceStats src : a.sourceList) {
                        src.lastSeq = -1;
                        src.lastDrops = -1;
                    }
                    break;
                }
            }
        }
        lastAgent = null;
    }

    /** @return agents or sources not tracked because a table was full. */
    public synchronized long overflow() {
        return overflow;
    }

    /** @return a copy of every agent's totals. */
    public synchronized List<AgentStats> agents() {
        List<AgentStats> out = new ArrayList<>(agents.size());
        for (AgentStats a : agents.values()) {
            out.add(a.copy());
        }
        return out;
    }

    /** @return a copy of every source's totals. */
    public synchronized List<SourceStats> sources() {
        List<SourceStats> out = new ArrayList<>();
        for (AgentStats a : agents.values()) {
            for (SourceStats s : a.sourceList) {
                out.add(s.copy());
            }
        }
        return out;
    }

    /** @return totals over all agents: datagrams, lost, reordered, resets, samples, samples lost, reported drops. */
    public synchronized long[] totals() {
        long[] t = new long[7];
        for (AgentStats a : agents.values()) {
            t[0] += a.datagrams;
            t[1] += a.datagramsLost;
            t[2] += a.datagramsReordered;
            t[3] += a.resets;
            for (SourceStats s : a.sourceList) {
                t[4] += s.samples;
                t[5] += s.samplesLost;
                t[6] += s.reportedDrops;
            }
        }
        return t;
    }

    private static long be64(byte[] b, int o) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | (b[o + i] & 0xFF);
        }
        return v;
    }

    @Override
    public String toString() {
        return "LossTracker" + Arrays.toString(totals());
    }
}
