package io.vecflow.collector;

import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.LongObjectMap;
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
 *   <li>agent restarts: uptime going backwards, or the sequence number restarting low — counted, and every sequence
 *       of that agent re-baselined (a restart is not a loss);</li>
 *   <li>datagrams arriving out of order or duplicated (sequence at or below the last one, within a window): counted,
 *       not treated as loss;</li>
 *   <li>the agent-reported {@code drops} (samples the agent could not send), as the increase of the cumulative
 *       counter per source.</li>
 * </ul>
 * Sequence arithmetic is modulo 2^32 (u32 wrap is not a gap). Thread-safe (one lock; a few field updates per
 * datagram and per sample); the snapshots for metrics and storage are taken under the same lock.
 */
public final class LossTracker {
    /** Sample families, each with its own sequence per source. */
    public static final int FLOW = 0, COUNTERS = 1, DISCARDS = 2;
    /** Sequence jumps backwards of at most this many count as reordering; more means a restart. */
    static final long REORDER_WINDOW = 1 << 16;
    /** Gaps larger than this are treated as a restart (the agent's counter was reset), not as loss. */
    static final long MAX_GAP = 1L << 24;
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
        /** Datagrams seen, lost (sequence gaps), reordered or duplicated, and agent restarts. */
        public long datagrams, datagramsLost, datagramsReordered, resets;
        long lastSeq = -1, lastUptime = -1;
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
    public synchronized AgentStats onDatagram(DatagramHeader h) {
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
        a.datagrams++;
        long seq = h.sequenceNumber;
        boolean restart = a.lastUptime >= 0 && h.uptimeMs < a.lastUptime && (a.lastUptime - h.uptimeMs) > 60_000;
        if (a.lastSeq < 0) {
            a.lastSeq = seq;
        } else if (restart) {
            restart(a, seq);
        } else {
            long ahead = (seq - a.lastSeq) & 0xFFFFFFFFL;
            if (ahead == 0 || ahead > 0xFFFFFFFFL - REORDER_WINDOW) {
                a.datagramsReordered++; // duplicate or late: not a loss, sequence unchanged
            } else if (ahead > MAX_GAP) {
                restart(a, seq);
            } else {
                a.datagramsLost += ahead - 1;
                a.lastSeq = seq;
            }
        }
        a.lastUptime = h.uptimeMs;
        return a;
    }

    private static void restart(AgentStats a, long seq) {
        a.resets++;
        a.lastSeq = seq;
        for (SourceStats s : a.sourceList) {
            s.lastSeq = -1;
            s.lastDrops = -1;
        }
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
