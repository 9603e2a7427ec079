package io.vecflow.collector.metrics;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vecflow.collector.Collector;
import io.vecflow.common.BasicCredentials;
import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.decode.LossTracker;
import io.vecflow.collector.inlet.Admission;
import io.vecflow.collector.inlet.SocketDrops;
import io.vecflow.collector.inlet.Spooler;
import io.vecflow.collector.outlet.KafkaOutlet;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.collector.sink.RawSink;
import io.vecflow.collector.sink.clickhouse.ClickHouseSink;
import io.vecflow.collector.sink.forward.ForwardSink;
import io.vecflow.common.IpAddresses;
import io.vecflow.sflow.DecodeError;
import java.io.IOException;
import java.net.InetAddress;
import java.util.Map;

/**
 * The collector's Prometheus metrics, served over HTTP at {@code /metrics}: datagrams, bytes, rows, decode errors by
 * kind, sink results, and per agent / source the loss accounting of {@link LossTracker}. Every metric is read from
 * the collector's own counters at scrape time (callback metrics), so the receive path pays nothing for them.
 *
 * Also: admission refusals by reason, ClickHouse rows per table and result, insert latency, pending bytes, the
 * outlet's Kafka lag and commits, and forward counters per target.
 *
 * <p>Names: {@code vecflow_collector_*} for the process, {@code vecflow_agent_*} with labels {@code agent},
 * {@code sub_agent} (and {@code source}, {@code family} for sample counters).
 */
public final class CollectorMetrics implements AutoCloseable {
    private final HTTPServer server;

    /**
     * Registers the metrics and starts the HTTP server without authentication.
     *
     * @param c the collector
     * @param bind address to listen on
     * @param port TCP port (0 = any free port)
     * @throws IOException if the port cannot be bound
     */
    public CollectorMetrics(Collector c, InetAddress bind, int port) throws IOException {
        this(c, bind, port, Map.of());
    }

    /**
     * Registers the metrics and starts the HTTP server: {@code /metrics} (the Prometheus text format) and
     * {@code /-/healthy} ("Exporter is healthy."), every other path 404; with users, every path asks for HTTP basic
     * authentication (401 without or with wrong credentials).
     *
     * @param c the collector
     * @param bind address to listen on
     * @param port TCP port (0 = any free port)
     * @param users basic-auth users, name → PBKDF2 hash ({@code vecflow console --hash-password}); empty = none
     * @throws IOException if the port cannot be bound
     */
    public CollectorMetrics(Collector c, InetAddress bind, int port, Map<String, String> users) throws IOException {
        PrometheusRegistry r = new PrometheusRegistry();
        CollectorStats st = c.stats();
        counter(r, "vecflow_collector_datagrams", "UDP datagrams received", st.datagramsReceived::sum);
        counter(r, "vecflow_collector_bytes", "UDP payload bytes received", st.bytesReceived::sum);
        counter(r, "vecflow_collector_datagrams_truncated",
                "UDP datagrams dropped as longer than --max-datagram-bytes (they arrive cut)",
                st.datagramsTruncated::sum);
        counter(r, "vecflow_collector_flow_rows", "rows produced from flow samples and discards", st.flowRows::sum);
        counter(r, "vecflow_collector_discard_rows", "rows produced from discarded_packet samples",
                st.discardRows::sum);
        counter(r, "vecflow_collector_flow_samples", "flow samples decoded", st.decode::flowSamples);
        counter(r, "vecflow_collector_counter_samples", "counter samples decoded", st.decode::counterSamples);
        counter(r, "vecflow_collector_skipped_samples", "samples of unknown types skipped by length",
                st.decode::skippedSamples);
        counter(r, "vecflow_collector_unknown_records", "records of unknown formats skipped by length",
                st.decode::unknownRecords);
        counter(r, "vecflow_collector_sink_errors", "exceptions thrown by row sinks", st.sinkErrors::sum);
        CounterWithCallback.builder().name("vecflow_collector_decode_errors")
                .help("datagrams (level=datagram), samples (level=sample: skipped by their length, the datagram went "
                        + "on) or records (level=record) that failed to decode, by kind")
                .labelNames("level", "kind")
                .callback(cb -> {
                    for (DecodeError e : DecodeError.values()) {
                        cb.call(st.decode.errors(e), "datagram", e.name());
                        cb.call(st.decode.sampleErrors(e), "sample", e.name());
                        cb.call(st.decode.recordErrors(e), "record", e.name());
                    }
                }).register(r);
        CounterWithCallback.builder().name("vecflow_collector_sink_rows")
                .help("rows or datagrams written by each sink (result=written|failed)").labelNames("sink", "result")
                .callback(cb -> {
                    for (FlowSink f : c.flowSinks()) {
                        cb.call(f.rowsWritten(), f.name(), "written");
                        cb.call(f.rowsFailed(), f.name(), "failed");
                    }
                    for (RawSink f : c.rawSinks()) {
                        cb.call(f.written(), f.name(), "written");
                        cb.call(f.failed(), f.name(), "failed");
                    }
                }).register(r);
        var en = st.enrichment;
        CounterWithCallback.builder().name("vecflow_enrich_rows")
                .help("rows enriched (result=enriched), and of them those stored with an interface not known yet "
                        + "(interface_unknown, per interface), an exporter without a name (exporter_unnamed), or no "
                        + "metadata because the cache is full (cache_full)")
                .labelNames("result").callback(cb -> {
                    cb.call(en.rows.sum(), "enriched");
                    cb.call(en.interfaceUnknown.sum(), "interface_unknown");
                    cb.call(en.exporterUnnamed.sum(), "exporter_unnamed");
                    cb.call(en.cacheFull.sum(), "cache_full");
                    cb.call(en.errors.sum(), "error");
                }).register(r);
        CounterWithCallback.builder().name("vecflow_enrich_metadata_polls")
                .help("background metadata polls of exporters (SNMP), by result (sent, failed, not_found = ifIndexes "
                        + "the exporter does not know)")
                .labelNames("result").callback(cb -> {
                    cb.call(en.polls.sum(), "sent");
                    cb.call(en.pollFailures.sum(), "failed");
                    cb.call(en.pollNotFound.sum(), "not_found");
                }).register(r);
        counter(r, "vecflow_enrich_sflow_updates", "metadata learnt from the agents' counter samples",
                en.sflowUpdates::sum);
        GaugeWithCallback.builder().name("vecflow_enrich_cache_entries")
                .help("exporters and interfaces in the metadata cache").labelNames("kind").callback(cb -> {
                    var e = c.enricher();
                    var m = e == null ? null : e.metadata();
                    cb.call(m == null ? 0 : m.exporters(), "exporter");
                    cb.call(m == null ? 0 : m.interfaces(), "interface");
                }).register(r);
        GaugeWithCallback.builder().name("vecflow_enrich_geoip").help("GeoIP and networks table: reloads done, "
                + "reloads failed (the previous table is kept), intervals in the current table")
                .labelNames("kind").callback(cb -> {
                    var e = c.enricher();
                    cb.call(e == null ? 0 : e.databaseReloads(), "reloads");
                    cb.call(e == null ? 0 : e.databaseReloadFailures(), "reload_failures");
                    cb.call(e == null ? 0 : e.networkIntervals(), "intervals");
                }).register(r);
        LossTracker loss = st.loss;
        agentCounter(r, loss, "vecflow_agent_datagrams", "datagrams received from the agent", 0);
        agentCounter(r, loss, "vecflow_agent_datagrams_lost", "datagrams missing from the sequence", 1);
        agentCounter(r, loss, "vecflow_agent_datagrams_reordered", "datagrams that arrived late", 2);
        agentCounter(r, loss, "vecflow_agent_datagrams_duplicated",
                "datagrams seen twice (same sequence, uptime and content): their rows are left out", 4);
        agentCounter(r, loss, "vecflow_agent_restarts",
                "agent restarts (sequence back with an uptime no late copy has, or a jump)", 3);
        sourceCounter(r, loss, "vecflow_agent_samples", "samples received per data source", 0);
        sourceCounter(r, loss, "vecflow_agent_samples_lost", "samples missing from the source's sequence", 1);
        sourceCounter(r, loss, "vecflow_agent_reported_drops", "samples the agent says it dropped (drops)", 2);
        GaugeWithCallback.builder().name("vecflow_agent_untracked")
                .help("agents or sources not tracked because a table was full").callback(cb ->
                        cb.call(loss.overflow())).register(r);
        counter(r, "vecflow_collector_datagrams_consumed", "raw records consumed from Kafka by the outlet",
                st.datagramsConsumed::sum);
        counter(r, "vecflow_collector_counter_rows", "interface counter rows produced", st.counterRows::sum);
        CounterWithCallback.builder().name("vecflow_collector_datagrams_refused")
                .help("datagrams refused by admission, by reason (prefix = agent not in the allowlist, rate = over "
                        + "its per-agent rate limit); they reach no sink")
                .labelNames("reason").callback(cb -> {
                    Admission a = c.admission();
                    cb.call(a == null ? 0 : a.refusedPrefix.sum(), "prefix");
                    cb.call(a == null ? 0 : a.refusedRate.sum(), "rate");
                }).register(r);
        CounterWithCallback.builder().name("vecflow_clickhouse_rows")
                .help("rows per ClickHouse table by result: written, replay_skipped (already stored), released "
                        + "(left to another outlet to replay when partitions moved during an outage)")
                .labelNames("table", "result").callback(cb -> {
                    ClickHouseSink ch = c.clickhouse();
                    if (ch != null) {
                        for (ClickHouseSink.TableStats t : ch.tableStats()) {
                            cb.call(t.written(), t.table(), "written");
                            cb.call(t.replaySkipped(), t.table(), "replay_skipped");
                            cb.call(t.released(), t.table(), "released");
                        }
                    }
                }).register(r);
        GaugeWithCallback.builder().name("vecflow_clickhouse_rows_waiting")
                .help("rows per ClickHouse table not inserted yet: retrying (a batch whose insert failed, retried "
                        + "with backoff) and pending (queued behind it or for the next batch); never dropped")
                .labelNames("table", "state").callback(cb -> {
                    ClickHouseSink ch = c.clickhouse();
                    if (ch != null) {
                        for (ClickHouseSink.TableStats t : ch.tableStats()) {
                            cb.call(t.retrying(), t.table(), "retrying");
                            cb.call(t.pending(), t.table(), "pending");
                        }
                    }
                }).register(r);
        CounterWithCallback.builder().name("vecflow_clickhouse_insert_failures")
                .help("insert attempts that failed per table (the batch is kept and retried)").labelNames("table")
                .callback(cb -> {
                    ClickHouseSink ch = c.clickhouse();
                    if (ch != null) {
                        for (ClickHouseSink.TableStats t : ch.tableStats()) {
                            cb.call(t.insertFailures(), t.table());
                        }
                    }
                }).register(r);
        GaugeWithCallback.builder().name("vecflow_clickhouse_seconds_since_insert")
                .help("seconds since the last successful insert into any table (or since start)")
                .callback(cb -> {
                    if (c.clickhouse() != null) {
                        cb.call(c.clickhouse().secondsSinceLastInsert());
                    }
                }).register(r);
        GaugeWithCallback.builder().name("vecflow_collector_ready")
                .help("1 when a stage is doing its job now, 0 when it is stuck or waiting (stage=inlet: the "
                        + "inlet's downstream takes datagrams, not spooling; outlet: consuming, not paused; "
                        + "clickhouse: connected and no insert waiting for a retry; kafka: the raw topic's "
                        + "producer is not stalled)")
                .labelNames("stage").callback(cb -> {
                    if (c.spooler() != null) {
                        cb.call(c.spooler().spooling() ? 0 : 1, "inlet");
                    }
                    if (c.outlet() != null) {
                        cb.call(c.outlet().isAlive() && c.outlet().state() == KafkaOutlet.State.CONSUMING ? 1 : 0,
                                "outlet");
                    }
                    if (c.clickhouse() != null) {
                        cb.call(c.clickhouse().connected() && !c.clickhouse().retrying() ? 1 : 0, "clickhouse");
                    }
                    if (c.kafkaRaw() != null) {
                        cb.call(c.kafkaRaw().topicReady() && !c.kafkaRaw().stalled() ? 1 : 0, "kafka");
                    }
                }).register(r);
        CounterWithCallback.builder().name("vecflow_inlet_datagrams")
                .help("datagrams by what the inlet did with them: direct (handed to Kafka or the decoder at once), "
                        + "spooled (to disk while the downstream was away or behind), replayed (from the spool), "
                        + "lost (the spool was full or off)")
                .labelNames("result").callback(cb -> {
                    Spooler sp = c.spooler();
                    if (sp != null) {
                        cb.call(sp.direct(), "direct");
                        cb.call(sp.spooled(), "spooled");
                        cb.call(sp.replayed(), "replayed");
                        cb.call(sp.lost(), "lost");
                    }
                }).register(r);
        GaugeWithCallback.builder().name("vecflow_inlet_spool_bytes")
                .help("bytes held in the inlet's spool (state=held) and its limit (state=max)").labelNames("state")
                .callback(cb -> {
                    Spooler sp = c.spooler();
                    if (sp != null && sp.directory() != null) {
                        cb.call(sp.heldBytes(), "held");
                        cb.call(sp.maxBytes(), "max");
                    }
                }).register(r);
        GaugeWithCallback.builder().name("vecflow_inlet_spool_datagrams").help("datagrams held in the inlet's spool")
                .callback(cb -> {
                    if (c.spooler() != null) {
                        cb.call(c.spooler().heldDatagrams());
                    }
                }).register(r);
        GaugeWithCallback.builder().name("vecflow_inlet_spooling_seconds")
                .help("seconds since the inlet began spooling (0 when it delivers directly)").callback(cb -> {
                    if (c.spooler() != null) {
                        cb.call(c.spooler().spoolingSeconds());
                    }
                }).register(r);
        GaugeWithCallback.builder().name("vecflow_kafka_raw_in_flight_bytes")
                .help("datagram bytes handed to the Kafka producer and not acknowledged yet").callback(cb -> {
                    if (c.kafkaRaw() != null) {
                        cb.call(c.kafkaRaw().inFlightBytes());
                    }
                }).register(r);
        counter(r, "vecflow_collector_datagrams_duplicate",
                "datagrams seen twice (same agent, sequence and uptime): their rows are left out",
                st.datagramsDuplicate::sum);
        CounterWithCallback.builder().name("vecflow_collector_socket_drops")
                .help("datagrams the kernel dropped at the collector's own UDP sockets (their receive buffer was "
                        + "full), from /proc/net/udp and udp6")
                .callback(cb -> {
                    if (c.inlet() != null) {
                        cb.call(c.inlet().socketDrops());
                    }
                }).register(r);
        CounterWithCallback.builder().name("vecflow_host_udp_rcvbuf_errors")
                .help("the host's UDP receive buffer errors, all sockets (/proc/net/snmp Udp RcvbufErrors, "
                        + "/proc/net/snmp6 Udp6RcvbufErrors)").labelNames("family")
                .callback(cb -> {
                    long[] v = SocketDrops.hostRcvbufErrors();
                    cb.call(v[0], "ipv4");
                    cb.call(v[1], "ipv6");
                }).register(r);
        CounterWithCallback.builder().name("vecflow_clickhouse_inserts").help("successful inserts per table")
                .labelNames("table").callback(cb -> {
                    ClickHouseSink ch = c.clickhouse();
                    if (ch != null) {
                        for (ClickHouseSink.TableStats t : ch.tableStats()) {
                            cb.call(t.inserts(), t.table());
                        }
                    }
                }).register(r);
        GaugeWithCallback.builder().name("vecflow_clickhouse_last_insert_seconds")
                .help("duration of the last successful insert per table, seconds").labelNames("table").callback(cb -> {
                    ClickHouseSink ch = c.clickhouse();
                    if (ch != null) {
                        for (ClickHouseSink.TableStats t : ch.tableStats()) {
                            cb.call(t.lastInsertNanos() / 1e9, t.table());
                        }
                    }
                }).register(r);
        GaugeWithCallback.builder().name("vecflow_clickhouse_pending_bytes")
                .help("encoded rows waiting for an insert, bytes (bounded by max-pending-bytes per table)")
                .callback(cb -> cb.call(c.clickhouse() == null ? 0 : c.clickhouse().pendingBytes())).register(r);
        GaugeWithCallback.builder().name("vecflow_kafka_outlet_lag")
                .help("records in the raw topic not yet stored and committed by this outlet, summed over its "
                        + "partitions (log end offset - committed offset), also while consumption is paused")
                .callback(cb -> {
                    if (c.outlet() != null) {
                        cb.call(c.outlet().lag());
                    }
                }).register(r);
        GaugeWithCallback.builder().name("vecflow_kafka_outlet_partition_lag")
                .help("records not yet stored and committed, per assigned partition").labelNames("partition")
                .callback(cb -> {
                    if (c.outlet() != null) {
                        c.outlet().partitionLag().forEach((p, l) -> cb.call(l, Integer.toString(p)));
                    }
                }).register(r);
        GaugeWithCallback.builder().name("vecflow_kafka_outlet_state")
                .help("1 for what the outlet is doing now: consuming, retrying (a flush failed: paused, the held "
                        + "rows retried with backoff), loading_watermarks (waiting for ClickHouse before consuming)")
                .labelNames("state").callback(cb -> {
                    if (c.outlet() != null) {
                        for (KafkaOutlet.State s : KafkaOutlet.State.values()) {
                            cb.call(c.outlet().state() == s ? 1 : 0, s.name().toLowerCase(java.util.Locale.ROOT));
                        }
                    }
                }).register(r);
        GaugeWithCallback.builder().name("vecflow_kafka_outlet_seconds_since_commit")
                .help("seconds since the outlet's last offset commit").callback(cb -> {
                    if (c.outlet() != null) {
                        cb.call(c.outlet().secondsSinceCommit());
                    }
                }).register(r);
        GaugeWithCallback.builder().name("vecflow_kafka_outlet_lag_age_seconds")
                .help("seconds since the broker last answered the outlet's lag reading: grows while the broker is "
                        + "away, when the lag gauges hold their last reading").callback(cb -> {
                    if (c.outlet() != null) {
                        cb.call(c.outlet().lagAgeSeconds());
                    }
                }).register(r);
        counter(r, "vecflow_kafka_outlet_commits", "offset commits, each after every row sink flushed",
                () -> c.outlet() == null ? 0 : c.outlet().commits());
        CounterWithCallback.builder().name("vecflow_forward_datagrams")
                .help("raw datagrams re-sent per forward target (result=sent|dropped)").labelNames("target", "result")
                .callback(cb -> {
                    ForwardSink f = c.forward();
                    if (f != null) {
                        for (ForwardSink.TargetStats t : f.targets()) {
                            cb.call(t.datagramsSent(), t.target(), "sent");
                            cb.call(t.datagramsDropped(), t.target(), "dropped");
                        }
                    }
                }).register(r);
        CounterWithCallback.builder().name("vecflow_forward_bytes").help("UDP payload bytes sent per forward target")
                .labelNames("target").callback(cb -> {
                    ForwardSink f = c.forward();
                    if (f != null) {
                        for (ForwardSink.TargetStats t : f.targets()) {
                            cb.call(t.bytesSent(), t.target());
                        }
                    }
                }).register(r);
        this.server = endpoint(bind, port, r, users);
    }

    /**
     * The Prometheus HTTP server with {@code /metrics} and {@code /-/healthy} only (the library's landing page and any
     * other path answer 404), optionally behind basic authentication.
     */
    static HTTPServer endpoint(InetAddress bind, int port, PrometheusRegistry r, Map<String, String> users)
            throws IOException {
        HTTPServer.Builder b = HTTPServer.builder().inetAddress(bind).port(port).registry(r)
                .registerHealthHandler(true).defaultHandler(x -> {
                    byte[] body = "not found: this endpoint serves /metrics and /-/healthy\n"
                            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    x.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
                    x.sendResponseHeaders(404, body.length);
                    try (var out = x.getResponseBody()) {
                        out.write(body);
                    }
                });
        BasicCredentials basic = new BasicCredentials(users);
        if (basic.enabled()) {
            b.authenticator(new Authenticator() {
                @Override
                public Result authenticate(HttpExchange x) {
                    String user = basic.check(x.getRequestHeaders().getFirst("Authorization"));
                    if (user != null) {
                        return new Success(new HttpPrincipal(user, "vecflow-metrics"));
                    }
                    x.getResponseHeaders().set("WWW-Authenticate",
                            "Basic realm=\"vecflow-metrics\", charset=\"UTF-8\"");
                    return new Failure(401);
                }
            });
        }
        return b.buildAndStart();
    }

    private static void counter(PrometheusRegistry r, String name, String help, java.util.function.LongSupplier v) {
        CounterWithCallback.builder().name(name).help(help).callback(cb -> cb.call(v.getAsLong())).register(r);
    }

    private static String agent(byte[] a16) {
        return IpAddresses.toString(a16, 0, 16);
    }

    private static void agentCounter(PrometheusRegistry r, LossTracker loss, String name, String help, int which) {
        CounterWithCallback.builder().name(name).help(help).labelNames("agent", "sub_agent").callback(cb -> {
            for (LossTracker.AgentStats a : loss.agents()) {
                long v = switch (which) {
                    case 0 -> a.datagrams;
                    case 1 -> a.datagramsLost;
                    case 2 -> a.datagramsReordered;
                    case 4 -> a.datagramsDuplicated;
                    default -> a.resets;
                };
                cb.call(v, agent(a.agent), Long.toString(a.subAgentId));
            }
        }).register(r);
    }

    private static void sourceCounter(PrometheusRegistry r, LossTracker loss, String name, String help, int which) {
        CounterWithCallback.builder().name(name).help(help).labelNames("agent", "sub_agent", "source", "family")
                .callback(cb -> {
                    for (LossTracker.SourceStats s : loss.sources()) {
                        long v = switch (which) {
                            case 0 -> s.samples;
                            case 1 -> s.samplesLost;
                            default -> s.reportedDrops;
                        };
                        String family = s.family == LossTracker.FLOW ? "flow"
                                : s.family == LossTracker.COUNTERS ? "counters" : "discards";
                        cb.call(v, agent(s.agent), Long.toString(s.subAgentId), s.sourceIdType + ":"
                                + s.sourceIdIndex, family);
                    }
                }).register(r);
    }

    /** @return the bound port. */
    public int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.close();
    }
}
