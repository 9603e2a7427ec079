package io.vecflow.collector.schema;

import io.vecflow.sflow.CounterRecords;
import io.vecflow.sflow.CounterSample;
import io.vecflow.sflow.DatagramHeader;

/**
 * One interface counter sample as stored in {@code if_counters}: the generic interface counters (sFlow v5
 * counters 0:1, RFC 2863 ifTable/ifXTable values), the Ethernet ones (0:2, RFC 3635 dot3StatsTable) and the port name
 * (0:1005). Filled only for counter samples that carry generic interface counters; mutable, reused per decode thread.
 */
public final class CounterRow {
    /** Receive time, ns since the UNIX epoch. */
    public long timeReceivedNanos;
    /** Agent address, 16 bytes IPv4-mapped. */
    public final byte[] agentAddress = new byte[16];
    /** sub_agent_id, sample sequence_number, source_id index. */
    public long subAgentId, sampleSequence, sourceIdIndex;
    /** source_id type. */
    public int sourceIdType;
    /** The counters (generic, ethernet, port name) as decoded; valid until the next sample. */
    public CounterRecords records;
    /** The "vecflow LB counters" record being stored (valid during {@code FlowSink#acceptLbCounters}). */
    public final io.vecflow.sflow.LbCountersRecord lbCounters = new io.vecflow.sflow.LbCountersRecord();
    /** Ingest stream and offset (see {@link FlowRow#ingestStream}). */
    public long ingestStream, ingestOffset;

    /**
     * Fills the row.
     *
     * @return false if the sample has no generic interface counters (then nothing is stored)
     */
    public boolean set(long timeReceivedNanos, DatagramHeader h, CounterSample s) {
        if (!s.records.hasIfCounters) {
            return false;
        }
        setSample(timeReceivedNanos, h, s);
        return true;
    }

    /** Fills the sample's time, agent, sequence and source (for lb_counters rows, which need no if_counters). */
    public void setSample(long timeReceivedNanos, DatagramHeader h, CounterSample s) {
        this.timeReceivedNanos = timeReceivedNanos;
        h.writeAgentAddress16(agentAddress, 0);
        subAgentId = h.subAgentId;
        sampleSequence = s.sequenceNumber;
        sourceIdType = s.sourceIdType;
        sourceIdIndex = s.sourceIdIndex;
        records = s.records;
    }
}
