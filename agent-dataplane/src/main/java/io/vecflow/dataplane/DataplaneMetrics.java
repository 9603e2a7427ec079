package io.vecflow.dataplane;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vecflow.common.BasicCredentials;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.plugins.clove.Clove;
import io.vecflow.dataplane.plugins.lb.LoadBalancer;
import io.vecflow.dataplane.plugins.srlb.SrlbAgent;
import io.vecflow.dataplane.sflow.LbCounterSource;
import io.vecflow.dataplane.sflow.SampleFifo;
import io.vecflow.dataplane.sflow.SflowMainThread;
import io.vecflow.dataplane.sflow.SflowNode;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.dataplane.vnet.interfaces.Port;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;
import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;

/**
 * The dataplane's Prometheus metrics at {@code /metrics}, the same counters {@code show interfaces}, {@code show
 * errors}, {@code show sflow} and {@code show runtime} print, read from the workers' own counters at scrape time (the
 * packet path pays nothing):
 * <ul>
 *   <li>{@code vecflow_dataplane_interface_packets|octets|discards|errors} {interface, direction=rx|tx}</li>
 *   <li>{@code vecflow_dataplane_drops} {reason, interface}: packets sent to error-drop, by {@link DropReason}</li>
 *   <li>{@code vecflow_dataplane_sflow_samples} {direction=ingress|egress|drop}, {@code vecflow_dataplane_sflow_pool},
 *       {@code vecflow_dataplane_sflow_fifo_drops} {fifo=sample|discard}, {@code
 * vecflow_dataplane_sflow_sampling_rate}</li>   <li>{@code vecflow_dataplane_netlink_messages}
 * {channel=psample|net_dm|if_counters|status, result=sent|failed},       {@code
 * vecflow_dataplane_net_dm_rate_limited}</li>   <li>{@code vecflow_dataplane_node_vectors|packets|seconds} {node}:
 * VPP's runtime statistics per graph node</li>   <li>{@code vecflow_dataplane_lb_decisions}
 * {role=maglev|srlb|srlb-agent, vip, protocol, port, backend (address,       or "all" for the VIP's totals),
 * counter=new_flows|first_choice_accepts|second_choice_accepts|rejects|       sticky_hits|table_full}: the load
 * balancer's / SRLB agent's decision counters (issue 6 §4)</li>   <li>{@code vecflow_dataplane_clove_path_weight}
 * {destination, port}: CLOVE-ECN weight of each path (outer UDP       source port) per destination endpoint; {@code
 * vecflow_dataplane_clove_events} {event=encapsulated|
 * decapsulated|new_flowlets|ce_received|ce_to_inner|feedback_sent|feedback_received|weight_cuts|probes_sent|
 * probe_replies|probes_received|errors|refused|not_tunnel|unknown_peer} (docs/load-balancing.md §4)</li>
 * </ul>
 */
public final class DataplaneMetrics implements AutoCloseable {
    private final HTTPServer server;

    /**
     * Registers the metrics and starts the HTTP server.
     *
     * @param dp the dataplane
     * @param bind address to listen on
     * @param port TCP port (0 = any free port)
     * @throws IOException if the port cannot be bound; the message names the address and port (config
     *     {@code metrics.listen} / {@code metrics.port}) and the cause, e.g. "Address already in use"
     */
    public DataplaneMetrics(Dataplane dp, InetAddress bind, int port) throws IOException {
        this(dp, bind, port, Map.of());
    }

    /**
     * As {@link #DataplaneMetrics(Dataplane, InetAddress, int)}, with HTTP basic authentication on every path when
     * {@code users} is not empty (401 without or with wrong credentials).
     *
     * @param users name → PBKDF2 hash ({@code metrics.users}, checked by the config validator)
     * @throws IOException if the port cannot be bound
     */
    public DataplaneMetrics(Dataplane dp, InetAddress bind, int port, Map<String, String> users) throws IOException {
        PrometheusRegistry r = new PrometheusRegistry();
        InterfaceTable it = dp.interfaces();
        portCounter(r, dp, "vecflow_dataplane_interface_packets", "frames per interface and direction",
                PortCounters.RX_PACKETS, PortCounters.TX_PACKETS);
        portCounter(r, dp, "vecflow_dataplane_interface_octets", "octets (frame bytes without FCS)",
                PortCounters.RX_OCTETS, PortCounters.TX_OCTETS);
        portCounter(r, dp, "vecflow_dataplane_interface_discards",
                "frames discarded by the port (no buffer, kernel ring loss, transmit ring full)",
                PortCounters.RX_DISCARDS, PortCounters.TX_DISCARDS);
        portCounter(r, dp, "vecflow_dataplane_interface_errors", "frames that could not be read or sent",
                PortCounters.RX_ERRORS, PortCounters.TX_ERRORS);
        CounterWithCallback.builder().name("vecflow_dataplane_drops")
                .help("packets dropped by the graph, by drop reason and receive interface").labelNames("reason",
                        "interface")
                .callback(cb -> {
                    for (Port p : it.ports()) {
                        for (DropReason d : DropReason.values()) {
                            long n = dp.dropped(d, p.ifIndex());
                            if (n != 0) {
                                cb.call(n, d.counterName(), it.name(p.ifIndex()));
                            }
                        }
                    }
                }).register(r);
        CounterWithCallback.builder().name("vecflow_dataplane_sflow_samples")
                .help("samples taken by direction (including those a full FIFO then dropped)").labelNames("direction")
                .callback(cb -> {
                    cb.call(sum(dp, SflowNode.NAME, false), "ingress");
                    cb.call(sum(dp, SflowNode.EGRESS, false), "egress");
                    cb.call(sum(dp, SflowNode.DROP, false), "drop");
                }).register(r);
        CounterWithCallback.builder().name("vecflow_dataplane_sflow_pool")
                .help("packets seen while sampling was enabled (sFlow sample_pool)")
                .callback(cb -> cb.call(sum(dp, SflowNode.NAME, true) + sum(dp, SflowNode.EGRESS, true)))
                .register(r);
        CounterWithCallback.builder().name("vecflow_dataplane_sflow_fifo_drops")
                .help("samples lost to a full worker FIFO").labelNames("fifo")
                .callback(cb -> {
                    cb.call(fifoDrops(dp.sampleFifos()), "sample");
                    cb.call(fifoDrops(dp.discardFifos()), "discard");
                }).register(r);
        GaugeWithCallback.builder().name("vecflow_dataplane_sflow_sampling_rate").help("1-in-N in force (0 = off)")
                .callback(cb -> cb.call(((SflowNode) dp.workers().get(0).node(SflowNode.NAME)).samplingRate()))
                .register(r);
        SflowMainThread m = dp.mainThread();
        CounterWithCallback.builder().name("vecflow_dataplane_netlink_messages")
                .help("netlink messages by channel and result").labelNames("channel", "result")
                .callback(cb -> {
                    cb.call(m.emitted(), "psample", "sent");
                    cb.call(m.emitFailed(), "psample", "failed");
                    cb.call(m.discardsSent(), "net_dm", "sent");
                    cb.call(m.discardsFailed(), "net_dm", "failed");
                    cb.call(m.ifCountersSent(), "if_counters", "sent");
                    cb.call(m.statusSent(), "status", "sent");
                    cb.call(m.vppFailed(), "if_counters_or_status", "failed");
                }).register(r);
        CounterWithCallback.builder().name("vecflow_dataplane_net_dm_rate_limited")
                .help("discards not sent as NET_DM because of the per-second limit")
                .callback(cb -> cb.call(m.discardsLimited())).register(r);
        nodeCounter(r, dp, "vecflow_dataplane_node_vectors", "vectors (calls) per graph node", 0);
        List<LbCounterSource> lbSources = new java.util.ArrayList<>();
        if (dp.plugin(LoadBalancer.class) != null) {
            lbSources.add(dp.plugin(LoadBalancer.class));
        }
        if (dp.plugin(SrlbAgent.class) != null) {
            lbSources.add(dp.plugin(SrlbAgent.class));
        }
        if (!lbSources.isEmpty()) {
            lbCounter(r, lbSources);
        }
        if (dp.plugin(Clove.class) != null) {
            cloveMetrics(r, dp.plugin(Clove.class));
        }
        nodeCounter(r, dp, "vecflow_dataplane_node_packets", "packets per graph node", 1);
        nodeCounter(r, dp, "vecflow_dataplane_node_seconds", "time spent per graph node, seconds", 2);
        try {
            // /metrics and /-/healthy only: the library's landing page and every other path answer 404
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
                b.authenticator(new com.sun.net.httpserver.Authenticator() {
                    @Override
                    public Result authenticate(com.sun.net.httpserver.HttpExchange x) {
                        String user = basic.check(x.getRequestHeaders().getFirst("Authorization"));
                        if (user != null) {
                            return new Success(new com.sun.net.httpserver.HttpPrincipal(user, "vecflow-metrics"));
                        }
                        x.getResponseHeaders().set("WWW-Authenticate",
                                "Basic realm=\"vecflow-metrics\", charset=\"UTF-8\"");
                        return new Failure(401);
                    }
                });
            }
            this.server = b.buildAndStart();
        } catch (IOException e) {
            throw new IOException("metrics endpoint " + new java.net.InetSocketAddress(bind, port) + " (metrics.listen"
                    + ", metrics.port; 0 = off): " + e.getMessage(), e);
        }
    }

    /** The names of the six LB decision counters, in {@link io.vecflow.netlink.vpp.LbCounters} slot order. */
    private static final String[] LB_COUNTERS = {"new_flows", "first_choice_accepts", "second_choice_accepts",
        "rejects", "sticky_hits", "table_full"};

    private static void lbCounter(PrometheusRegistry r, List<LbCounterSource> sources) {
        CounterWithCallback.builder().name("vecflow_dataplane_lb_decisions")
                .help("load-balancer decision counters per VIP (backend=\"all\") and per VIP backend: new flows and "
                        + "first/second-choice accepts and rejects (flows), sticky hits and table full (packets)")
                .labelNames("role", "vip", "protocol", "port", "backend", "counter").callback(cb -> {
                    io.vecflow.netlink.vpp.LbCounters scratch = new io.vecflow.netlink.vpp.LbCounters();
                    for (LbCounterSource src : sources) {
                        src.reportCounters(scratch, c -> {
                            String role = switch (c.role) {
                                case io.vecflow.netlink.vpp.LbCounters.ROLE_MAGLEV -> "maglev";
                                case io.vecflow.netlink.vpp.LbCounters.ROLE_SRLB_LB -> "srlb";
                                default -> "srlb-agent";
                            };
                            String vip = address(c.vip, c.vipLength);
                            String be = c.backendLength == 0 ? "all" : address(c.backend, c.backendLength);
                            for (int k = 0; k < LB_COUNTERS.length; k++) {
                                cb.call(c.counters[k], role, vip, Long.toString(c.protocol), Long.toString(c.port), be,
                                        LB_COUNTERS[k]);
                            }
                            return true;
                        });
                    }
                }).register(r);
    }

    private static void cloveMetrics(PrometheusRegistry r, Clove clove) {
        GaugeWithCallback.builder().name("vecflow_dataplane_clove_path_weight")
                .help("CLOVE path weight per destination endpoint and outer UDP source port (1.0 initially)")
                .labelNames("destination", "port").callback(cb -> {
                    for (int i = 0; i < clove.destinationCount(); i++) {
                        Clove.Destination d = clove.destination(i);
                        int[] ports = d.ports();
                        double[] w = d.weights();
                        String dst = Clove.ipv4Text(d.vtep());
                        for (int k = 0; k < ports.length; k++) {
                            cb.call(w[k], dst, Integer.toString(ports[k]));
                        }
                    }
                }).register(r);
        CounterWithCallback.builder().name("vecflow_dataplane_clove_events")
                .help("CLOVE vSwitch events: packets encapsulated/decapsulated, flowlets, CE marks, feedback entries, "
                        + "weight cuts, probes, errors")
                .labelNames("event").callback(cb -> {
                    Clove.Counters t = clove.totals();
                    cb.call(t.encapsulated, "encapsulated");
                    cb.call(t.decapsulated, "decapsulated");
                    cb.call(t.newFlowlets, "new_flowlets");
                    cb.call(t.ceReceived, "ce_received");
                    cb.call(t.ceToInner, "ce_to_inner");
                    cb.call(t.feedbackSent, "feedback_sent");
                    cb.call(t.feedbackReceived, "feedback_received");
                    cb.call(t.weightCuts, "weight_cuts");
                    cb.call(t.probesSent, "probes_sent");
                    cb.call(t.probeReplies, "probe_replies");
                    cb.call(t.probesReceived, "probes_received");
                    cb.call(t.errors, "errors");
                    cb.call(t.unknownPeer, "unknown_peer");
                    cb.call(t.refused, "refused");
                    cb.call(t.notTunnel, "not_tunnel");
                }).register(r);
    }

    private static String address(byte[] b, int n) {
        try {
            return LoadBalancer.text(InetAddress.getByAddress(java.util.Arrays.copyOf(b, n)));
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e); // 4 or 16 bytes always make an address
        }
    }

    private static long sum(Dataplane dp, String node, boolean pool) {
        long s = 0;
        for (Worker w : dp.workers()) {
            SflowNode n = (SflowNode) w.node(node);
            s += pool ? n.samplePool() : n.samplesTaken();
        }
        return s;
    }

    private static long fifoDrops(List<SampleFifo> fifos) {
        long s = 0;
        for (SampleFifo f : fifos) {
            s += f.dropped();
        }
        return s;
    }

    private static void portCounter(PrometheusRegistry r, Dataplane dp, String name, String help, int rx, int tx) {
        CounterWithCallback.builder().name(name).help(help).labelNames("interface", "direction").callback(cb -> {
            for (Port p : dp.interfaces().ports()) {
                String n = dp.interfaces().name(p.ifIndex());
                cb.call(p.counters().sum(rx), n, "rx");
                cb.call(p.counters().sum(tx), n, "tx");
            }
        }).register(r);
    }

    private static void nodeCounter(PrometheusRegistry r, Dataplane dp, String name, String help, int which) {
        CounterWithCallback.builder().name(name).help(help).labelNames("node").callback(cb -> {
            List<Worker> ws = dp.workers();
            Node[] first = ws.get(0).nodes();
            for (int k = 0; k < first.length; k++) {
                double v = 0;
                for (Worker w : ws) {
                    Node n = w.nodes()[k];
                    v += which == 0 ? n.vectors() : which == 1 ? n.packets() : n.nanos() / 1e9;
                }
                cb.call(v, first[k].name());
            }
        }).register(r);
    }

    /** @return the port the server listens on. */
    public int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.close();
    }
}
