package io.vecflow.cli;

import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.common.IpAddresses;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An in-memory row sink for the demo summary: estimated bytes (frame_length × sampling_rate) and samples per 5-tuple.
 */
final class TopFlows implements FlowSink {
    record Key(String src, String dst, int protocol, int srcPort, int dstPort, String srcWhere, String dstWhere) {
        @Override
        public String toString() {
            String t = tuple();
            return srcWhere.isEmpty() && dstWhere.isEmpty() ? t
                    : t + "  [" + (srcWhere.isEmpty() ? "?" : srcWhere) + " -> " + (dstWhere.isEmpty() ? "?"
                            : dstWhere) + "]";
        }

        private String tuple() {
            String p = switch (protocol) {
                case 1 -> "ICMP";
                case 6 -> "TCP";
                case 17 -> "UDP";
                case 58 -> "ICMPv6";
                case 0 -> "non-IP";
                default -> "proto " + protocol;
            };
            if (protocol == 6 || protocol == 17) {
                return p + " " + hostPort(src, srcPort) + " -> " + hostPort(dst, dstPort);
            }
            return protocol == 0 && src.isEmpty() ? p : p + " " + src + " -> " + dst;
        }
    }

    private static String hostPort(String host, int port) {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /** Estimated bytes and samples of one flow. */
    static final class Totals {
        long bytes;
        long samples;
    }

    private final Map<Key, Totals> flows = new HashMap<>();
    private long rows;

    @Override
    public synchronized void accept(FlowRow r) {
        Key k = new Key(text(r.srcAddr), text(r.dstAddr), r.protocol, r.srcPort, r.dstPort,
                where(r.srcAs, r.srcAsName.text, r.srcNet), where(r.dstAs, r.dstAsName.text, r.dstNet));
        Totals t = flows.computeIfAbsent(k, x -> new Totals());
        t.bytes += r.bytes * r.samplingRate;
        t.samples++;
        rows++;
    }

    /** "AS15169 Google LLC, US" or "lan (users)": what the enrichment says of an address. */
    private static String where(long as, String asName, io.vecflow.collector.schema.NetworkInfo n) {
        StringBuilder b = new StringBuilder();
        if (as != 0) {
            b.append("AS").append(as).append(asName.isEmpty() ? "" : " " + asName);
        } else if (!n.name().isEmpty()) {
            b.append(n.name().text).append(n.role().isEmpty() ? "" : " (" + n.role().text + ")");
        }
        if (!n.country().isEmpty()) {
            b.append(b.isEmpty() ? "" : ", ").append(n.country().text);
        }
        return b.toString();
    }

    static String text(byte[] a16) {
        return IpAddresses.toString(a16, 0, 16);
    }

    /** @return the n flows with the most estimated bytes, with their totals. */
    synchronized List<Map.Entry<Key, Totals>> top(int n) {
        return flows.entrySet().stream()
                .sorted(Comparator.comparingLong((Map.Entry<Key, Totals> e) -> e.getValue().bytes).reversed()
                        .thenComparing(e -> e.getKey().toString()))
                .limit(n).toList();
    }

    /** @return distinct 5-tuples seen. */
    synchronized int distinctFlows() {
        return flows.size();
    }

    @Override
    public void flush() {}

    @Override
    public synchronized long rowsWritten() {
        return rows;
    }

    @Override
    public long rowsFailed() {
        return 0;
    }

    @Override
    public String name() {
        return "summary";
    }

    @Override
    public void close() {}
}
