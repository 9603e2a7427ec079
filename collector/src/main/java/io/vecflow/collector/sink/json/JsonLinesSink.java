package io.vecflow.collector.sink.json;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.vecflow.collector.decode.DatagramJsonWriter;
import io.vecflow.collector.schema.ExporterInfo;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.schema.InterfaceInfo;
import io.vecflow.collector.schema.Label;
import io.vecflow.collector.schema.NetworkInfo;
import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.collector.sink.StreamOffsets;
import io.vecflow.common.IpAddresses;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * Writes one JSON object per flow row to a file (JSON Lines), the collector's embedded default sink. Field names are
 * the snake_case sFlow names; addresses are text, MACs {@code aa:bb:cc:dd:ee:ff}; {@code direction} is the flows
 * column's value ({@code ingress}, {@code egress}, {@code undefined}: {@link FlowRow#direction}).
 */
public final class JsonLinesSink implements FlowSink {
    private final OutputStream out;
    private final JsonGenerator gen;
    private final Path file;
    private long written;
    private long failed;
    private long replaySkipped;
    private final StreamOffsets writtenMax = new StreamOffsets(), replayFloor = new StreamOffsets();

    /**
     * @param file output file (created or truncated)
     * @throws IOException if it cannot be created
     */
    public JsonLinesSink(Path file) throws IOException {
        this.file = file;
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        this.out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
        this.gen = new JsonFactory().createGenerator(out, JsonEncoding.UTF8);
        gen.setRootValueSeparator(null);
        // Rows reach the file within a second, whole (rows are written under the same lock), so `tail -f` and
        // `jq` readers never wait for a 64 KiB buffer nor see half a row.
        this.timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jsonl-flush");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::flushQuietly, 1, 1, java.util.concurrent.TimeUnit.SECONDS);
    }

    private final java.util.concurrent.ScheduledExecutorService timer;

    private void flushQuietly() {
        try {
            flush();
        } catch (IOException | RuntimeException e) {
            // counted as failures by the next accept; nothing else to do on a timer thread
        }
    }

    /** @return the output file. */
    public Path file() {
        return file;
    }

    @Override
    public synchronized void assigned(long[] streams) {
        // Offsets already written for these streams are skipped from now on: a replay after a rebalance writes
        // each row once.
        for (long st : streams) {
            long w = written(st);
            if (w >= 0) {
                replayFloor.max(st, w);
            }
        }
    }

    private long written(long stream) {
        return writtenMax.get(stream);
    }

    /** @return rows skipped as replays of offsets already written. */
    public synchronized long rowsReplaySkipped() {
        return replaySkipped;
    }

    @Override
    public synchronized void accept(FlowRow r) {
        if (r.ingestOffset <= replayFloor.get(r.ingestStream)) {
            replaySkipped++;
            return;
        }
        writtenMax.max(r.ingestStream, r.ingestOffset);
        try {
            gen.writeStartObject();
            gen.writeStringField("time_received", Instant.ofEpochSecond(0, r.timeReceivedNanos).toString());
            gen.writeStringField("agent", addr(r.agentAddress));
            gen.writeNumberField("sub_agent_id", r.subAgentId);
            gen.writeNumberField("datagram_sequence", r.datagramSequence);
            gen.writeNumberField("sample_sequence", r.sampleSequence);
            gen.writeStringField("source_id", r.sourceIdType + ":" + r.sourceIdIndex);
            gen.writeStringField("sample_type", r.sampleType == FlowRow.DISCARD ? "discard" : "flow");
            gen.writeStringField("direction", FlowSchema.DIRECTIONS.get(
                    r.direction >= 0 && r.direction < FlowSchema.DIRECTIONS.size() ? r.direction : 0));
            if (r.sampleType == FlowRow.DISCARD) {
                gen.writeNumberField("discard_reason", r.discardReason);
                gen.writeStringField("discard_reason_name", io.vecflow.sflow.DiscardReasons.name(r.discardReason));
                gen.writeNumberField("forwarding_status", r.forwardingStatus);
            }
            gen.writeNumberField("sampling_rate", r.samplingRate);
            gen.writeNumberField("sample_pool", r.samplePool);
            gen.writeNumberField("drops", r.drops);
            gen.writeNumberField("input_format", r.inIfFormat);
            gen.writeNumberField("input", r.inIf);
            gen.writeNumberField("output_format", r.outIfFormat);
            gen.writeNumberField("output", r.outIf);
            gen.writeNumberField("header_protocol", r.headerProtocol);
            gen.writeNumberField("frame_length", r.frameLength);
            gen.writeStringField("src_mac", DatagramJsonWriter.mac(r.srcMac));
            gen.writeStringField("dst_mac", DatagramJsonWriter.mac(r.dstMac));
            gen.writeNumberField("vlan", r.vlan);
            if (r.inVlan != 0 || r.outVlan != 0) {
                gen.writeNumberField("in_vlan", r.inVlan);
                gen.writeNumberField("out_vlan", r.outVlan);
            }
            gen.writeNumberField("ethertype", r.etherType);
            if (r.mplsLabels > 0) {
                gen.writeNumberField("mpls_labels", r.mplsLabels);
                gen.writeNumberField("mpls_top_label", r.mplsTopLabel);
            }
            gen.writeStringField("src_addr", addr(r.srcAddr));
            gen.writeStringField("dst_addr", addr(r.dstAddr));
            gen.writeNumberField("protocol", r.protocol);
            gen.writeNumberField("src_port", r.srcPort);
            gen.writeNumberField("dst_port", r.dstPort);
            gen.writeNumberField("tcp_flags", r.tcpFlags);
            gen.writeNumberField("tos", r.tos);
            gen.writeNumberField("ttl", r.ttl);
            String nh = addr(r.nextHop);
            if (!nh.isEmpty()) {
                gen.writeStringField("next_hop", nh);
                gen.writeNumberField("src_mask", r.srcMask);
                gen.writeNumberField("dst_mask", r.dstMask);
            }
            if (r.srcAs != 0 || r.dstAs != 0 || r.dstAsPathLength > 0) {
                gen.writeNumberField("src_as", r.srcAs);
                gen.writeNumberField("dst_as", r.dstAs);
                gen.writeNumberField("src_peer_as", r.srcPeerAs);
                gen.writeArrayFieldStart("dst_as_path");
                for (int i = 0; i < r.dstAsPathLength; i++) {
                    gen.writeNumber(r.dstAsPath[i]);
                }
                gen.writeEndArray();
            }
            if (r.encapsulation != 0) {
                gen.writeStringField("encapsulation",
                        io.vecflow.packet.ParsedPacket.Encapsulation.values()[r.encapsulation].name().toLowerCase(
                                java.util.Locale.ROOT));
                gen.writeNumberField("tunnel_id", r.tunnelId);
                gen.writeStringField("inner_src_addr", addr(r.innerSrcAddr));
                gen.writeStringField("inner_dst_addr", addr(r.innerDstAddr));
                gen.writeNumberField("inner_protocol", r.innerProtocol);
                gen.writeNumberField("inner_src_port", r.innerSrcPort);
                gen.writeNumberField("inner_dst_port", r.innerDstPort);
            }
            gen.writeNumberField("bytes", r.bytes);
            gen.writeNumberField("packets", r.packets);
            if (r.datagramIncomplete) {
                gen.writeBooleanField("datagram_incomplete", true); // the datagram stopped decoding part-way
            }
            writeEnrichment(r);
            gen.writeEndObject();
            gen.writeRaw('\n');
            written++;
        } catch (IOException | RuntimeException e) {
            failed++;
            throw new IllegalStateException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** The enrichment values that are known, under the flow.proto field names (empty ones are left out). */
    private void writeEnrichment(FlowRow r) throws IOException {
        ExporterInfo e = r.exporter;
        label("exporter_name", e.name());
        label("exporter_group", e.group());
        label("exporter_role", e.role());
        label("exporter_site", e.site());
        label("exporter_region", e.region());
        label("exporter_tenant", e.tenant());
        iface("in_if_", r.inIfInfo);
        iface("out_if_", r.outIfInfo);
        network("src_", r.srcNet, r.srcAsName);
        network("dst_", r.dstNet, r.dstAsName);
    }

    private void iface(String p, InterfaceInfo i) throws IOException {
        label(p + "name", i.name());
        label(p + "description", i.description());
        if (i.speedMbps() != 0) {
            gen.writeNumberField(p + "speed", i.speedMbps());
        }
        if (i.boundary() != InterfaceInfo.UNDEFINED) {
            gen.writeStringField(p + "boundary", InterfaceInfo.BOUNDARIES.get(i.boundary()));
        }
        label(p + "provider", i.provider());
        label(p + "connectivity", i.connectivity());
    }

    private void network(String p, NetworkInfo n, Label asName) throws IOException {
        label(p + "as_name", asName);
        label(p + "country", n.country());
        label(p + "net_name", n.name());
        label(p + "net_role", n.role());
        label(p + "net_site", n.site());
        label(p + "net_region", n.region());
        label(p + "net_tenant", n.tenant());
    }

    private void label(String field, Label l) throws IOException {
        if (!l.isEmpty()) {
            gen.writeStringField(field, l.text);
        }
    }

    static String addr(byte[] a16) {
        return IpAddresses.toString(a16, 0, 16);
    }

    @Override
    public synchronized void flush() throws IOException {
        if (!gen.isClosed()) {
            gen.flush();
            out.flush();
        }
    }

    @Override
    public synchronized long rowsWritten() {
        return written;
    }

    /** @return rows whose write failed (I/O error, closed sink); each also threw from {@link #accept}. */
    @Override
    public synchronized long rowsFailed() {
        return failed;
    }

    @Override
    public String name() {
        return "jsonl:" + file;
    }

    @Override
    public void close() throws IOException {
        timer.shutdownNow();
        synchronized (this) {
            gen.close();
            out.close();
        }
    }
}
