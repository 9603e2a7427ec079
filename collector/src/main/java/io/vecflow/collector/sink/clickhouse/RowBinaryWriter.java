package io.vecflow.collector.sink.clickhouse;

import io.vecflow.collector.schema.CounterRow;
import io.vecflow.collector.schema.ExporterInfo;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.schema.InterfaceInfo;
import io.vecflow.collector.schema.Label;
import io.vecflow.collector.schema.NetworkInfo;
import io.vecflow.sflow.ByteView;
import io.vecflow.sflow.CounterRecords;
import io.vecflow.sflow.LbDecisionRecord;
import io.vecflow.sflow.SflowAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Appends rows in ClickHouse's RowBinary format (little-endian fixed-width integers, DateTime as UInt32 seconds,
 * FixedString(16)/IPv6 as 16 raw bytes in network order) to a growable byte buffer. Not thread-safe.
 */
public final class RowBinaryWriter {
    private byte[] buf;
    private int pos;
    private int rows;

    /** @param initialBytes initial capacity in bytes */
    public RowBinaryWriter(int initialBytes) {
        buf = new byte[Math.max(64, initialBytes)];
    }

    /** Appends one flows row, columns in {@link FlowSchema#FLOWS} order. */
    public void writeFlow(FlowRow r) {
        ensure(512);
        u32(r.timeReceivedNanos / 1_000_000_000L);
        u64(r.timeReceivedNanos);
        bytes16(r.agentAddress);
        bytes16(r.peerAddress);
        u32(r.subAgentId);
        u32(r.datagramSequence);
        u32(r.sampleSequence);
        u8(r.sourceIdType);
        u32(r.sourceIdIndex);
        u8(r.sampleType);
        // Direction, Enum8 as its number; a value outside the Enum would make the server refuse the whole batch
        u8(r.direction >= 0 && r.direction < FlowSchema.DIRECTIONS.size() ? r.direction : 0);
        u32(r.discardReason);
        u8(r.forwardingStatus);
        u32(r.samplingRate);
        u32(r.samplePool);
        u32(r.drops);
        u8(r.inIfFormat);
        u32(r.inIf);
        u8(r.outIfFormat);
        u32(r.outIf);
        u32(r.headerProtocol);
        u32(r.frameLength);
        u64(r.srcMac);
        u64(r.dstMac);
        u16(r.vlan);
        u16(r.inVlan);
        u16(r.outVlan);
        u16(r.etherType);
        u8(r.mplsLabels);
        u32(r.mplsTopLabel);
        bytes16(r.srcAddr);
        bytes16(r.dstAddr);
        u8(r.protocol);
        u16(r.srcPort);
        u16(r.dstPort);
        u8(r.tcpFlags);
        u8(r.tos);
        u8(r.ttl);
        bytes16(r.nextHop);
        u8(r.srcMask);
        u8(r.dstMask);
        u32(r.srcAs);
        u32(r.dstAs);
        u32(r.srcPeerAs);
        ensure(10 + 4 * r.dstAsPathLength);
        varint(r.dstAsPathLength);
        for (int i = 0; i < r.dstAsPathLength; i++) {
            u32(r.dstAsPath[i]);
        }
        ensure(64);
        u8(r.encapsulation);
        u32(r.tunnelId);
        bytes16(r.innerSrcAddr);
        bytes16(r.innerDstAddr);
        u8(r.innerProtocol);
        u16(r.innerSrcPort);
        u16(r.innerDstPort);
        u64(r.bytes);
        u64(r.packets);
        ensure(32 + 16 * r.srv6SegmentCount);
        u8(r.srv6SegmentsLeft);
        varint(r.srv6SegmentCount);
        System.arraycopy(r.srv6Segments, 0, buf, pos, 16 * r.srv6SegmentCount);
        pos += 16 * r.srv6SegmentCount;
        u32(r.ingestStream);
        u64(r.ingestOffset);
        u8(r.datagramIncomplete ? 1 : 0);
        writeEnrichment(r);
        rows++;
    }

    /** The {@link FlowSchema#ENRICHMENT} columns of a row, in order. Allocation-free (labels hold their UTF-8). */
    private void writeEnrichment(FlowRow r) {
        ExporterInfo e = r.exporter;
        label(e.name());
        label(e.group());
        label(e.role());
        label(e.site());
        label(e.region());
        label(e.tenant());
        writeInterface(r.inIfInfo);
        writeInterface(r.outIfInfo);
        writeNetwork(r.srcNet);
        writeNetwork(r.dstNet);
    }

    private void writeInterface(InterfaceInfo i) {
        label(i.name());
        label(i.description());
        ensure(5);
        u32(Math.min(i.speedMbps(), 0xFFFF_FFFFL));
        u8(i.boundary());
        label(i.provider());
        label(i.connectivity());
    }

    private void writeNetwork(NetworkInfo n) {
        label(n.country());
        label(n.name());
        label(n.role());
        label(n.site());
        label(n.region());
        label(n.tenant());
    }

    private void label(Label l) {
        byte[] b = l.utf8;
        ensure(2 + b.length);
        varint(b.length);
        System.arraycopy(b, 0, buf, pos, b.length);
        pos += b.length;
    }

    /**
     * Appends one asns row ({@link FlowSchema#ASNS} order).
     *
     * @param timeSeconds TimeReceived, seconds since the epoch
     * @param asn AS number
     * @param name its name
     */
    public void writeAsName(long timeSeconds, long asn, Label name) {
        ensure(8);
        u32(timeSeconds);
        u32(asn);
        label(name);
        rows++;
    }

    /** Appends one drops row, columns in {@link FlowSchema#DROPS} order: the flows columns, then the reason name. */
    public void writeDrop(FlowRow r) {
        writeFlow(r);
        byte[] name = DiscardReasonNames.utf8(r.discardReason);
        ensure(10 + name.length);
        varint(name.length);
        System.arraycopy(name, 0, buf, pos, name.length);
        pos += name.length;
    }

    private static final byte[] MAGLEV = ascii("maglev"), SRLB = ascii("srlb"), CLOVE = ascii("clove"),
            NONE = new byte[0], NEW = ascii("new"), STICKY = ascii("sticky"), HUNT = ascii("hunt"),
            ACCEPT = ascii("accept"), PASS = ascii("pass"), UNKNOWN = ascii("unknown");

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Appends one lb_decisions row from a row that carries an LB decision ({@link FlowRow#hasLbDecision}), columns in
     * {@link FlowSchema#LB_DECISIONS} order: the sample's time and agent, Algorithm and Decision from the record's
     * kind ({@link LbDecisionRecord#algorithm()}, {@link LbDecisionRecord#decision()}), VIP, VIP port, protocol,
     * backend (zeros when unknown), choice index, Policy (empty: record version 1 names no policy), PolicyMetric =
     * policy_metric / 1000, Flows = the sampling rate (at least 1), the candidates, CLOVE's flowlet id, path weight
     * (/ 1,000,000) and path id, the sub-agent, ingest stream and offset. Allocation-free.
     */
    public void writeLbDecision(FlowRow r) {
        LbDecisionRecord d = r.lbDecision;
        ensure(256);
        u32(r.timeReceivedNanos / 1_000_000_000L);
        bytes16(r.agentAddress);
        string(switch (d.kind) {
            case LbDecisionRecord.MAGLEV_NEW, LbDecisionRecord.STICKY_HIT -> MAGLEV;
            case LbDecisionRecord.SRLB_HUNT, LbDecisionRecord.SRLB_ACCEPT_FIRST, LbDecisionRecord.SRLB_ACCEPT_SECOND,
                    LbDecisionRecord.SRLB_REJECT -> SRLB;
            case LbDecisionRecord.CLOVE_FLOWLET -> CLOVE;
            default -> NONE;
        });
        address(d.vip);
        u16(d.vipPort);
        u8(d.protocol);
        address(d.backend);
        u8(d.choiceIndex);
        string(switch (d.kind) {
            case LbDecisionRecord.MAGLEV_NEW, LbDecisionRecord.CLOVE_FLOWLET -> NEW;
            case LbDecisionRecord.STICKY_HIT -> STICKY;
            case LbDecisionRecord.SRLB_HUNT -> HUNT;
            case LbDecisionRecord.SRLB_ACCEPT_FIRST, LbDecisionRecord.SRLB_ACCEPT_SECOND -> ACCEPT;
            case LbDecisionRecord.SRLB_REJECT -> PASS;
            default -> UNKNOWN;
        });
        string(NONE);
        f64(d.policyMetric / 1000.0);
        u64(Math.max(1, r.samplingRate));
        varint(d.candidateCount);
        for (int i = 0; i < d.candidateCount; i++) {
            address(d.candidates[i]);
        }
        u32(d.flowletId);
        f64(d.pathWeight / 1_000_000.0);
        u16(d.pathId);
        u32(r.subAgentId);
        u32(r.ingestStream);
        u64(r.ingestOffset);
        rows++;
    }

    private static final byte[] SRLB_AGENT = ascii("srlb-agent");

    /**
     * Appends one lb_counters row, columns in {@link FlowSchema#LB_COUNTERS} order: the sample's time, agent,
     * sub-agent, sequence and source index, then the record's role name, VIP index, VIP, port, protocol, backend
     * index, backend (zeros for the VIP's totals), the six counters, ingest stream and offset. Allocation-free.
     */
    public void writeLbCounters(CounterRow r) {
        io.vecflow.sflow.LbCountersRecord c = r.lbCounters;
        ensure(200);
        u32(r.timeReceivedNanos / 1_000_000_000L);
        bytes16(r.agentAddress);
        u32(r.subAgentId);
        u32(r.sampleSequence);
        u32(r.sourceIdIndex);
        string(switch (c.role) {
            case io.vecflow.sflow.LbCountersRecord.ROLE_MAGLEV -> MAGLEV;
            case io.vecflow.sflow.LbCountersRecord.ROLE_SRLB_LB -> SRLB;
            case io.vecflow.sflow.LbCountersRecord.ROLE_SRLB_AGENT -> SRLB_AGENT;
            default -> NONE;
        });
        u32(c.vipIndex);
        address(c.vip);
        u16(c.vipPort);
        u8(c.protocol);
        u32(c.backendIndex);
        address(c.backend);
        u64(c.newFlows);
        u64(c.firstChoiceAccepts);
        u64(c.secondChoiceAccepts);
        u64(c.rejects);
        u64(c.stickyHits);
        u64(c.tableFull);
        u32(r.ingestStream);
        u64(r.ingestOffset);
        rows++;
    }

    private void address(SflowAddress a) {
        a.writeMapped16(buf, pos);
        pos += 16;
    }

    private void string(byte[] s) {
        varint(s.length);
        System.arraycopy(s, 0, buf, pos, s.length);
        pos += s.length;
    }

    private void f64(double v) {
        u64(Double.doubleToRawLongBits(v));
    }

    /** Appends one if_counters row, columns in {@link FlowSchema#IF_COUNTERS} order. */
    public void writeCounters(CounterRow r) {
        CounterRecords c = r.records;
        CounterRecords.IfCounters g = c.ifCounters;
        ByteView name = c.hasPortName ? c.portName.name : null;
        int nameLength = name == null ? 0 : name.length;
        ensure(400 + nameLength);
        u32(r.timeReceivedNanos / 1_000_000_000L);
        bytes16(r.agentAddress);
        u32(r.subAgentId);
        u32(r.sampleSequence);
        u8(r.sourceIdType);
        u32(r.sourceIdIndex);
        u32(g.ifIndex);
        varint(nameLength);
        if (nameLength > 0) {
            System.arraycopy(name.array, name.offset, buf, pos, nameLength);
            pos += nameLength;
        }
        u32(g.ifType);
        u64(g.ifSpeed);
        u8(g.ifDirection);
        u8(g.ifStatus & 1);
        u8((g.ifStatus >>> 1) & 1);
        u64(g.inOctets);
        u64(g.inUcastPkts);
        u64(g.inMulticastPkts);
        u64(g.inBroadcastPkts);
        u64(g.inDiscards);
        u64(g.inErrors);
        u64(g.inUnknownProtos);
        u64(g.outOctets);
        u64(g.outUcastPkts);
        u64(g.outMulticastPkts);
        u64(g.outBroadcastPkts);
        u64(g.outDiscards);
        u64(g.outErrors);
        u8(g.promiscuousMode);
        CounterRecords.EthernetCounters e = c.ethernet;
        boolean eth = c.hasEthernet;
        u8(eth ? 1 : 0);
        u64(eth ? e.alignmentErrors : 0);
        u64(eth ? e.fcsErrors : 0);
        u64(eth ? e.singleCollisionFrames : 0);
        u64(eth ? e.multipleCollisionFrames : 0);
        u64(eth ? e.lateCollisions : 0);
        u64(eth ? e.excessiveCollisions : 0);
        u64(eth ? e.internalMacTransmitErrors : 0);
        u64(eth ? e.carrierSenseErrors : 0);
        u64(eth ? e.frameTooLongs : 0);
        u64(eth ? e.internalMacReceiveErrors : 0);
        u64(eth ? e.symbolErrors : 0);
        u32(r.ingestStream);
        u64(r.ingestOffset);
        rows++;
    }

    private void ensure(int n) {
        if (pos + n > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
        }
    }

    /**
     * Appends one agents (loss accounting) row, columns in {@link FlowSchema#AGENTS} order.
     *
     * @param timeSeconds row time, seconds since the epoch
     * @param agent16 agent address, 16 bytes
     * @param family sample family (0 flow, 1 counters, 2 discards, 255 datagram-level)
     * @param counts Datagrams, DatagramsLost, DatagramsReordered, Resets, Samples, SamplesLost, SamplesReordered,
     *        ReportedDrops, DatagramsDuplicated (9 values)
     * @param ingestStream the stream of the agent's latest datagram counted (Kafka partition, or in-process)
     * @param ingestOffset its offset: the outlet skips counting datagrams at or below the greatest one stored
     */
    public void writeLoss(long timeSeconds, byte[] agent16, long subAgentId, int sourceIdType, long sourceIdIndex,
            int family, long[] counts, long ingestStream, long ingestOffset) {
        ensure(160);
        u32(timeSeconds);
        bytes16(agent16);
        u32(subAgentId);
        u8(sourceIdType);
        u32(sourceIdIndex);
        u8(family);
        for (int i = 0; i < 9; i++) {
            u64(counts[i]);
        }
        u32(ingestStream);
        u64(ingestOffset);
        rows++;
    }

    /** Unsigned LEB128, as RowBinary writes array sizes. */
    private void varint(long v) {
        while ((v & ~0x7FL) != 0) {
            buf[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[pos++] = (byte) v;
    }

    private void u8(long v) {
        buf[pos++] = (byte) v;
    }

    private void u16(long v) {
        buf[pos++] = (byte) v;
        buf[pos++] = (byte) (v >>> 8);
    }

    private void u32(long v) {
        for (int i = 0; i < 4; i++) {
            buf[pos++] = (byte) (v >>> (8 * i));
        }
    }

    private void u64(long v) {
        for (int i = 0; i < 8; i++) {
            buf[pos++] = (byte) (v >>> (8 * i));
        }
    }

    private void bytes16(byte[] b) {
        System.arraycopy(b, 0, buf, pos, 16);
        pos += 16;
    }

    /** @return rows written since the last reset. */
    public int rows() {
        return rows;
    }

    /** @return bytes written. */
    public int size() {
        return pos;
    }

    /** @return the backing buffer, valid up to {@link #size()}. */
    public byte[] buffer() {
        return buf;
    }

    /** Empties the writer, keeping its capacity. */
    public void reset() {
        pos = 0;
        rows = 0;
    }
}
