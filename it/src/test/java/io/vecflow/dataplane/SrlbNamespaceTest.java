package io.vecflow.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.config.DataplaneConfig;
import io.vecflow.dataplane.control.ControlClient;
import io.vecflow.dataplane.control.ControlProtocol;
import io.vecflow.dataplane.netns.IdPages;
import io.vecflow.dataplane.netns.NetnsLab;
import io.vecflow.dataplane.plugins.lb.LoadBalancer;
import io.vecflow.dataplane.plugins.lb.Protocol;
import io.vecflow.dataplane.plugins.lb.VipKey;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import io.vecflow.dataplane.plugins.srlb.SrlbAgent;
import io.vecflow.dataplane.plugins.srlb.state.ServerAgentState;
import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.psample.LbDecisionCookie;
import io.vecflow.netlink.psample.PsampleSubscriber;
import io.vecflow.netlink.psample.PsampleTransport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SRLB (6LB) load balancing of real TCP connections (needs root; every namespace, veth and process is created and
 * removed here, names prefixed {@code vfsr-}, see {@link NetnsLab}): a client namespace, a load-balancer dataplane, and
 * 3 server namespaces each running <em>our own</em> dataplane with the {@code srlb-sa6} server agent in front of the
 * server's kernel stack and a python3 http.server on the VIP. The LB and the agents run 2 workers each, so a
 * connection's packets meet the worker that does not own it on both sides (handed over: asserted).
 *
 * <pre>
 *  client ns ── c0/p0 ──► LB dataplane ns (vecflow, lb6, VIP [2001:db8:ffff::1]:8080 encap srlb) ── p_k ──┐
 *  fd00:c::2                  hunting SRH [c1, c2, LB SID, VIP]; LB SIDs fd00:ff:0:0:1::/80              │
 *                                                                                                          ▼
 *  server ns k:  t_k ──► SA dataplane (srlb-sa6, SID fc00:k::/80, static threshold c = 1 on the test load) ── a_k/h_k
 * ──► kernel                                                                      VIP on lo, http.server [VIP]:8080
 * </pre>
 *
 * Server 1's test load is set to 5 over its control socket ({@code srlb load 5}), the others stay at 0. Asserted for
 * every connection: it completes, and its page comes from exactly the server SRLB predicts — the flow's first
 * candidate ({@link LoadBalancer#srlbCandidatesFor}) unless that is server 1, whose agent then passes the SYN to the
 * second candidate. Stickiness: connections opened while server 1 is loaded are held half-sent while the loads change
 * (server 1 unloaded, servers 2 and 3 loaded) and still finish on the server that accepted them, as do new
 * connections that now avoid servers 2 and 3 as first choices. Counters: the LB's first/second-choice accepts and
 * the agents' rejects match the predictions.
 */
class SrlbNamespaceTest {
    private static final int SERVERS = 3, CONNECTIONS = 60, HELD = 30, HTTP_PORT = 8080;
    private static final String VIP = "2001:db8:ffff::1", CLIENT = "fd00:c::2", GW = "fd00:c::1";
    private static final String MAC_P0 = "02:00:00:00:e1:01", MAC_C0 = "02:00:00:00:c1:01";
    /** NETLINK_USERSOCK group of this test's PSAMPLE (and +1 NET_DM, +2 counters): not the defaults other tests use. */
    private static final int PSAMPLE_GROUP = 17;
    private static final Duration NSTAT = Duration.ofSeconds(10);

    @TempDir
    Path tmp;

    private NetnsLab lab;

    private static String mac(int kind, int k) {
        return String.format("02:00:00:%02x:00:%02x", kind, k);
    }

    @BeforeEach
    void topology() throws Exception {
        lab = NetnsLab.open("vfsr");
        List<String> names = new ArrayList<>(List.of("c", "lb"));
        for (int k = 1; k <= SERVERS; k++) {
            names.add("s" + k);
        }
        for (String s : names) {
            lab.namespace(s);
            lab.sysctl(lab.ns(s), "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0");
        }
        // the LB namespace's kernel stays out of the way: no IPv6 there (the dataplane owns its veths)
        lab.sysctl(lab.ns("lb"), "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1");
        lab.veth(lab.ns("c"), lab.dev("c0"), lab.ns("lb"), lab.dev("p0"));
        lab.ip(lab.ns("lb"), "link", "set", lab.dev("p0"), "address", MAC_P0, "up");
        lab.ip(lab.ns("c"), "link", "set", lab.dev("c0"), "address", MAC_C0);
        lab.address(lab.ns("c"), lab.dev("c0"), CLIENT + "/64");
        lab.ip(lab.ns("c"), "link", "set", lab.dev("c0"), "up");
        lab.txChecksumOff(lab.ns("c"), lab.dev("c0"));
        lab.ip(lab.ns("c"), "-6", "neigh", "add", GW, "lladdr", MAC_P0, "dev", lab.dev("c0"), "nud", "permanent");
        lab.route(lab.ns("c"), VIP + "/128 via " + GW + " dev " + lab.dev("c0"));
        for (int k = 1; k <= SERVERS; k++) {
            String s = lab.ns("s" + k);
            // LB port p_k ↔ the agent's up port t_k; the agent's local port a_k ↔ the server kernel's h_k
            lab.veth(s, lab.dev("t" + k), lab.ns("lb"), lab.dev("p" + k));
            lab.ip(lab.ns("lb"), "link", "set", lab.dev("p" + k), "address", mac(0xe1, 0x10 + k), "up");
            lab.veth(s, lab.dev("a" + k), s, lab.dev("h" + k));
            lab.sysctl(s, "net.ipv6.conf." + lab.dev("t" + k) + ".disable_ipv6=1",
                    "net.ipv6.conf." + lab.dev("a" + k) + ".disable_ipv6=1");
            lab.ip(s, "link", "set", lab.dev("t" + k), "address", mac(0xa0, k), "up");
            lab.ip(s, "link", "set", lab.dev("a" + k), "address", mac(0xa1, k), "up");
            lab.ip(s, "link", "set", lab.dev("h" + k), "address", mac(0xa2, k));
            lab.address(s, lab.dev("h" + k), "fd00:50:" + k + "::2/64");
            lab.ip(s, "link", "set", lab.dev("h" + k), "up");
            lab.txChecksumOff(s, lab.dev("h" + k));
            lab.address(s, "lo", VIP + "/128");
            lab.ip(s, "-6", "neigh", "add", "fd00:50:" + k + "::1", "lladdr", mac(0xa1, k), "dev", lab.dev("h" + k),
                    "nud", "permanent");
            lab.route(s, "fd00:c::/64 via fd00:50:" + k + "::1 dev " + lab.dev("h" + k));
            IdPages.startServer(lab, s, k, VIP, HTTP_PORT, tmp);
        }
        for (int k = 1; k <= SERVERS; k++) {
            lab.awaitListening(lab.ns("s" + k), VIP, HTTP_PORT, Duration.ofSeconds(20));
        }
    }

    @AfterEach
    void remove() {
        if (lab != null) {
            lab.close();
        }
    }

    private static final String COMMON = """
            workers: 1
            metrics: {port: 0}
            """;

    private static String lbPorts() {
        StringBuilder b = new StringBuilder("p0");
        for (int k = 1; k <= SERVERS; k++) {
            b.append(", p").append(k);
        }
        return b.toString();
    }

    private DataplaneConfig lbConfig() throws IOException {
        // two workers: a server's signal may land on the worker that does not own the flow (handed over)
        StringBuilder y = new StringBuilder(COMMON.replace("workers: 1", "workers: 2")).append("""
                ports:
                  - {name: p0, type: af_packet, if-index: 1, netns: %s, mac: "%s", mode: l3, af-packet: {interface: %s}}
                """.formatted(lab.ns("lb"), MAC_P0, lab.dev("p0")));
        for (int k = 1; k <= SERVERS; k++) {
            y.append("  - {name: p%d, type: af_packet, if-index: %d, netns: %s, mac: \"%s\", mode: l3, af-packet: "
                    .formatted(k, k + 1, lab.ns("lb"), mac(0xe1, 0x10 + k)))
                    .append("{interface: %s}}\n".formatted(lab.dev("p" + k)));
        }
        y.append("routes:\n  - {prefix: \"fd00:c::/64\", via: \"%s\", port: p0}\n".formatted(CLIENT));
        for (int k = 1; k <= SERVERS; k++) {
            y.append("  - {prefix: \"fc00:%d::/64\", via: \"fd00:%d::2\", port: p%d}\n".formatted(k, k, k));
        }
        y.append("neighbours:\n  - {address: \"%s\", mac: \"%s\", port: p0}\n".formatted(CLIENT, MAC_C0));
        for (int k = 1; k <= SERVERS; k++) {
            y.append("  - {address: \"fd00:%d::2\", mac: \"%s\", port: p%d}\n".formatted(k, mac(0xa0, k), k));
        }
        StringBuilder backends = new StringBuilder();
        for (int k = 1; k <= SERVERS; k++) {
            backends.append(k > 1 ? ", " : "").append("\"fc00:").append(k).append("::\"");
        }
        y.append("""
                sflow:
                  sampling-rate: 1
                  direction: tx
                  interfaces: [%s]
                  usersock-groups: {psample: %d, net-dm: %d, counters: %d}
                control-socket: %s
                lb:
                  ip6-src-address: "fd00:ff::1"
                  vips:
                    - prefix: "%s/128"
                      protocol: tcp
                      port: %d
                      encap: srlb
                      backends: [%s]
                """.formatted(lbPorts(), PSAMPLE_GROUP, PSAMPLE_GROUP + 1, PSAMPLE_GROUP + 2, tmp.resolve("lb.sock"),
                VIP, HTTP_PORT, backends));
        Path f = tmp.resolve("lb.yaml");
        Files.writeString(f, y.toString());
        return DataplaneConfig.load(f);
    }

    private DataplaneConfig agentConfig(int k) throws IOException {
        // two workers: the SYN (to the SA SID, on up) and the server's replies (from the VIP, on local) are spread by
        // independent fanout hashes, so about half of the connections are decided on both workers (SrlbAgent)
        String y = COMMON.replace("workers: 1", "workers: 2") + """
                ports:
                  - {name: up, type: af_packet, if-index: %14$d, netns: %1$s, mac: "%2$s", mode: l3, \
                    af-packet: {interface: %3$s}}
                  - {name: local, type: af_packet, if-index: %15$d, netns: %1$s, mac: "%4$s", mode: l3, \
                    af-packet: {interface: %5$s}}
                routes:
                  - {prefix: "::/0", via: "fd00:%6$d::1", port: up}
                  - {prefix: "%7$s/128", via: "fd00:50:%6$d::2", port: local}
                neighbours:
                  - {address: "fd00:%6$d::1", mac: "%8$s", port: up}
                  - {address: "fd00:50:%6$d::2", mac: "%9$s", port: local}
                sflow:
                  sampling-rate: 1
                  direction: tx
                  interfaces: [up, local]
                  usersock-groups: {psample: %11$d, net-dm: %12$d, counters: %13$d}
                control-socket: %10$s
                srlb-agent:
                  sid: "fc00:%6$d::"
                  vips: ["%7$s"]
                  policy: static-threshold
                  threshold: 1
                """.formatted(lab.ns("s" + k), mac(0xa0, k), lab.dev("t" + k), mac(0xa1, k), lab.dev("a" + k), k, VIP,
                mac(0xe1, 0x10 + k), mac(0xa2, k), tmp.resolve("sa" + k + ".sock"), PSAMPLE_GROUP, PSAMPLE_GROUP + 1,
                PSAMPLE_GROUP + 2, 10 * k + 1, 10 * k + 2); // ifIndexes unique over the host: one sFlow agent reads all
        Path f = tmp.resolve("sa" + k + ".yaml");
        Files.writeString(f, y);
        return DataplaneConfig.load(f);
    }

    /** Opens connections from the client namespace, bound to the given local ports. */
    private List<Socket> connect(int firstPort, int n) throws Exception {
        return IdPages.connect(lab.ns("c"), CLIENT, firstPort, n, VIP, HTTP_PORT);
    }

    /** Finishes the request on {@code s} and returns the server number the page names. */
    private static int finish(Socket s) throws IOException {
        return IdPages.finish(s, SERVERS);
    }

    private static FlowKey flow(int clientPort) {
        ByteBuffer c = ByteBuffer.wrap(InetAddress.ofLiteral(CLIENT).getAddress());
        ByteBuffer v = ByteBuffer.wrap(InetAddress.ofLiteral(VIP).getAddress());
        return new FlowKey().setIpv6(c.getLong(), c.getLong(), v.getLong(), v.getLong(), FlowKey.PROTO_TCP,
                clientPort, HTTP_PORT);
    }

    private static int serverOf(InetAddress sid) {
        return sid.getAddress()[3]; // fc00:k:: → k
    }

    private void control(String sock, String cmd) throws IOException {
        ControlProtocol.Reply r = ControlClient.send(tmp.resolve(sock), cmd, Duration.ofSeconds(10));
        assertThat(r.rc()).as(cmd + ": " + r.text()).isZero();
    }

    @Test
    void aLoadedFirstCandidatePassesTheSynAndConnectionsStickToTheServerThatAccepted() throws Exception {
        List<DataplaneAssembly> all = new ArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean listening = new java.util.concurrent.atomic.AtomicBoolean(true);
        List<LbDecisionCookie> decisions = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicLong badCookies = new java.util.concurrent.atomic.AtomicLong();
        byte[] vip = InetAddress.ofLiteral(VIP).getAddress();
        PsampleSubscriber sub = PsampleSubscriber.open(PsampleTransport.USERSOCK, PSAMPLE_GROUP);
        // the telemetry chain: the same PSAMPLE group → hsflowd-compatible agent → sFlow → collector → ClickHouse
        String url = System.getenv("VECFLOW_TEST_CLICKHOUSE_URL");
        if (url == null || url.isBlank()) {
            throw new IllegalStateException("SrlbNamespaceTest needs ClickHouse: set VECFLOW_TEST_CLICKHOUSE_URL "
                    + "(scripts/"
                    + "test.sh sets http://127.0.0.1:18123)");
        }
        String db = "srlbnodes_" + lab.id() + String.format("%04x", ThreadLocalRandom.current().nextInt(0x10000));
        io.vecflow.collector.Collector.Settings cs = new io.vecflow.collector.Collector.Settings();
        cs.bindAddress = "127.0.0.1";
        cs.port = 0;
        cs.threads = 1;
        cs.clickhouseUrl = url;
        cs.clickhouseDatabase = db;
        cs.lossIntervalMs = 3_600_000;
        io.vecflow.collector.Collector collector = new io.vecflow.collector.Collector(cs);
        io.vecflow.hsflowd.config.HsflowdConfig hc = io.vecflow.hsflowd.config.HsflowdConfig.parse("""
                sflow {
                  sampling = 1
                  headerBytes = 128
                  agentIP = 192.0.2.88
                  collector { ip = 127.0.0.1 udpport = %d }
                  psample { group = 3 egress = on transport = usersock usersockGroup = %d }
                }
                """.formatted(collector.localAddress().getPort(), PSAMPLE_GROUP));
        PsampleSubscriber agentSub = PsampleSubscriber.open(PsampleTransport.USERSOCK, PSAMPLE_GROUP);
        io.vecflow.hsflowd.SflowAgent agent = new io.vecflow.hsflowd.SflowAgent(hc,
                InetAddress.ofLiteral("192.0.2.88"));
        io.vecflow.hsflowd.HsflowdDaemon daemon = new io.vecflow.hsflowd.HsflowdDaemon(agent, agentSub);
        Thread listener = Thread.ofPlatform().name("vfsr-psample").start(() -> {
            LbDecisionCookie c = new LbDecisionCookie();
            while (listening.get()) {
                try {
                    sub.poll(Duration.ofMillis(100), s -> {
                        try {
                            if (c.decodeFrom(s) && java.util.Arrays.equals(c.vip(), 0, 16, vip, 0, 16)) {
                                decisions.add(new LbDecisionCookie().copyFrom(c));
                            }
                        } catch (NetlinkFormatException e) {
                            badCookies.incrementAndGet();
                        }
                    });
                } catch (Exception e) {
                    badCookies.incrementAndGet();
                }
            }
        });
        try {
            DataplaneAssembly lbA = DataplaneAssembly.open(lbConfig(), System.err::println, true);
            all.add(lbA);
            for (int k = 1; k <= SERVERS; k++) {
                all.add(DataplaneAssembly.open(agentConfig(k), System.err::println, true));
            }
            for (DataplaneAssembly a : all) {
                a.dataplane().start();
            }
            try {
                scenario(lbA.dataplane().plugin(LoadBalancer.class), all);
                // the signals and the client's packets hash independently over the LB's two workers: about half
                // of the CREATE_STICKINESS signals land on the worker that does not own the flow and are handed over
                String lbShow = lbA.dataplane().plugin(LoadBalancer.class).show();
                long handed = 0, stale = 0;
                java.util.regex.Matcher hm = java.util.regex.Pattern.compile(
                        "signals handed off (\\d+) \\(inbox full 0\\), applied from others \\d+ \\(stale (\\d+)\\)")
                        .matcher(lbShow);
                while (hm.find()) {
                    handed += Long.parseLong(hm.group(1));
                    stale += Long.parseLong(hm.group(2));
                }
                assertThat(handed).as("signals handed to the owning worker\n" + lbShow).isPositive();
                assertThat(stale).as(lbShow).isZero();
                // the agents: packets decided on the worker that does not own the flow, state changes handed over
                long remote = 0, agentHanded = 0, lost = 0;
                StringBuilder agentShow = new StringBuilder();
                for (int k = 1; k <= SERVERS; k++) {
                    SrlbAgent sa = all.get(k).dataplane().plugin(SrlbAgent.class);
                    SrlbAgent.Sharing sh = sa.sharing();
                    remote += sh.remote();
                    agentHanded += sh.handedOver();
                    lost += sh.inboxFull() + sh.stale();
                    agentShow.append(sa.show());
                }
                assertThat(remote).as("agent packets decided from the other worker's entry\n" + agentShow)
                        .isPositive();
                assertThat(agentHanded).as("agent state changes handed to the owner\n" + agentShow).isPositive();
                assertThat(lost).as("changes refused (inbox full) or stale\n" + agentShow).isZero();
                System.out.printf("srlb namespace test: agents decided %d packets on the non-owner worker, handed %d "
                        + "state changes over%n", remote, agentHanded);
                decisionsArrived(lbA.dataplane().plugin(LoadBalancer.class), all, decisions);
                assertThat(badCookies.get()).as("undecodable cookies / subscriber errors").isZero();
                inClickHouse(lbA.dataplane().plugin(LoadBalancer.class), all, decisions.size(), agent, collector, url,
                        db);
            } catch (Throwable t) {
                for (DataplaneAssembly a : all) {
                    Dataplane d = a.dataplane();
                    System.err.println("DIAGNOSTICS\n" + d.showErrors() + d.showInterfaces()
                            + (d.plugin(LoadBalancer.class) != null ? d.plugin(LoadBalancer.class).show()
                                    : d.plugin(SrlbAgent.class).show()));
                }
                for (int k = 1; k <= SERVERS; k++) {
                    System.err.println("server " + k + ":\n" + lab.exec(lab.ns("s" + k), NSTAT, "nstat", "-a"));
                }
                System.err.println("client:\n" + lab.exec(lab.ns("c"), NSTAT, "nstat", "-a"));
                throw t;
            } finally {
                for (DataplaneAssembly a : all) {
                    a.dataplane().stop();
                }
            }
        } finally {
            for (DataplaneAssembly a : all) {
                a.close();
            }
            listening.set(false);
            listener.join(5_000);
            sub.close();
            daemon.close();
            agent.close();
            agentSub.close();
            collector.close();
            if (!Boolean.getBoolean("vecflow.test.keepDatabase")) {
                query(url, "DROP DATABASE IF EXISTS " + db);
            }
        }
    }

    private static String query(String url, String sql) throws IOException, InterruptedException {
        java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(url + "/")).timeout(Duration.ofSeconds(30))
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(sql)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("ClickHouse " + r.statusCode() + ": " + r.body().strip() + "\n  for: " + sql);
        }
        return r.body().strip();
    }

    /**
     * The collector's view (issue 6 "Done means"): {@code lb_decisions} holds one srlb row per decision sample —
     * hunts, passes (with the loaded agent's metric 5), accepts (agent + LB) — and {@code flows} shows the hunting
     * SRHs in its SRv6 columns (segments left 3 on the LB's egress, 2 after a pass or on steered packets).
     */
    private static void inClickHouse(LoadBalancer lb, List<DataplaneAssembly> all, int decisionsSeen,
            io.vecflow.hsflowd.SflowAgent agent, io.vecflow.collector.Collector collector, String url, String db)
            throws Exception {
        long end = System.nanoTime() + 15_000_000_000L;
        while (agent.lbDecisionsSent() < decisionsSeen && System.nanoTime() < end) {
            Thread.sleep(50);
        }
        agent.flush();
        assertThat(agent.lbDecisionsSent()).as("LB decision records the agent sent").isEqualTo(decisionsSeen);
        assertThat(agent.lbCookieErrors()).isZero();
        long sent = agent.datagramsSent();
        end = System.nanoTime() + 15_000_000_000L;
        while (collector.stats().datagramsReceived.sum() < sent && System.nanoTime() < end) {
            Thread.sleep(50);
        }
        collector.flush();
        assertThat(collector.clickhouse().rowsFailed()).isZero();
        VipKey key = new VipKey(InetAddress.ofLiteral(VIP), 128, Protocol.TCP, HTTP_PORT);
        LoadBalancer.SrlbCounters c = lb.srlbCounters(key);
        long rejects = 0;
        for (int k = 1; k <= SERVERS; k++) {
            rejects += all.get(k).dataplane().plugin(SrlbAgent.class).counters().rejects;
        }
        String byDecision = query(url, "SELECT Decision, ChoiceIndex, count(), min(PolicyMetric), max(PolicyMetric)"
                + " FROM " + db + ".lb_decisions WHERE Algorithm = 'srlb' AND VIP = IPv6StringToNum('" + VIP + "')"
                + " AND VIPPort = " + HTTP_PORT + " GROUP BY Decision, ChoiceIndex ORDER BY Decision, ChoiceIndex"
                + " FORMAT TabSeparated");
        // metrics: the LB's rows 0; an agent's its load — first-choice accepts only happen at load 0 (< c = 1), passes
        // at 5, and a last candidate accepts whatever its load (0 or 5)
        String[] rows = byDecision.split("\n");
        assertThat(rows).hasSize(4);
        assertThat(rows[0]).isEqualTo("accept\t1\t" + 2 * c.firstChoiceAccepts() + "\t0\t0");
        assertThat(rows[1]).matches("accept\t2\t" + 2 * c.secondChoiceAccepts() + "\t0\t[05]");
        assertThat(rows[2]).isEqualTo("hunt\t0\t" + c.hunts() + "\t0\t0");
        assertThat(rows[3]).isEqualTo("pass\t1\t" + rejects + "\t5\t5");
        String candidates = query(url, "SELECT count() FROM " + db + ".lb_decisions WHERE Decision = 'hunt' AND"
                + " length(Candidates) = 2 AND Candidates[1] != Candidates[2] FORMAT TabSeparated");
        assertThat(candidates).isEqualTo(String.valueOf(c.hunts()));
        String srv6 = query(url, "SELECT countIf(SRv6SegmentsLeft = 3 AND length(SRv6Segments) = 4),"
                + " countIf(SRv6SegmentsLeft = 2 AND length(SRv6Segments) = 3),"
                + " countIf(SRv6SegmentsLeft = 2 AND length(SRv6Segments) = 4) FROM " + db + ".flows"
                + " FORMAT TabSeparated");
        long[] f = java.util.Arrays.stream(srv6.split("\t")).mapToLong(Long::parseLong).toArray();
        assertThat(f[0]).as("flows rows of hunting SYNs leaving the LB: SRH [c1, c2, LB SID, VIP], segments left 3")
                .isEqualTo(c.hunts());
        assertThat(f[1]).as("rows of 3-segment SRHs: steered client packets, agents' signals").isPositive();
        assertThat(f[2]).as("rows of passed SYNs (segments left 2), on the agent's and the LB's egress")
                .isEqualTo(2 * rejects);
        System.out.printf("srlb namespace test: ClickHouse %s lb_decisions%n%s%nflows SRv6 %s%n", db, byDecision,
                srv6);
    }

    /**
     * The PSAMPLE USER_COOKIEs the dataplanes sent (egress samples, 1 in 1): one SRLB_HUNT per hunting SYN, one
     * SRLB_REJECT per SYN an agent passed (with the loaded agents' metric, 5 → 5000), and each connection's accept
     * twice — from the agent that accepted and from the LB when it learnt the server.
     */
    private static void decisionsArrived(LoadBalancer lb, List<DataplaneAssembly> all, List<LbDecisionCookie> got)
            throws InterruptedException {
        VipKey key = new VipKey(InetAddress.ofLiteral(VIP), 128, Protocol.TCP, HTTP_PORT);
        LoadBalancer.SrlbCounters c = lb.srlbCounters(key);
        long rejects = 0;
        for (int k = 1; k <= SERVERS; k++) {
            rejects += all.get(k).dataplane().plugin(SrlbAgent.class).counters().rejects;
        }
        long expected = c.hunts() + rejects + 2 * (c.firstChoiceAccepts() + c.secondChoiceAccepts());
        long end = System.nanoTime() + 10_000_000_000L;
        while (got.size() < expected && System.nanoTime() < end) {
            Thread.sleep(50);
        }
        Map<LbDecisionCookie.Kind, Long> byKind = new java.util.EnumMap<>(LbDecisionCookie.Kind.class);
        List<LbDecisionCookie> copy;
        synchronized (got) {
            copy = new ArrayList<>(got);
        }
        for (LbDecisionCookie d : copy) {
            byKind.merge(d.kind(), 1L, Long::sum);
        }
        assertThat(byKind.getOrDefault(LbDecisionCookie.Kind.SRLB_HUNT, 0L)).isEqualTo(c.hunts());
        assertThat(byKind.getOrDefault(LbDecisionCookie.Kind.SRLB_REJECT, 0L)).isEqualTo(rejects);
        assertThat(byKind.getOrDefault(LbDecisionCookie.Kind.SRLB_ACCEPT_FIRST, 0L))
                .isEqualTo(2 * c.firstChoiceAccepts());
        assertThat(byKind.getOrDefault(LbDecisionCookie.Kind.SRLB_ACCEPT_SECOND, 0L))
                .isEqualTo(2 * c.secondChoiceAccepts());
        assertThat(copy).filteredOn(d -> d.kind() == LbDecisionCookie.Kind.SRLB_REJECT)
                .allSatisfy(d -> assertThat(d.policyMetric()).isEqualTo(5000));
        assertThat(copy).filteredOn(d -> d.kind() == LbDecisionCookie.Kind.SRLB_HUNT)
                .allSatisfy(d -> assertThat(d.candidateCount()).isEqualTo(2));
        System.out.printf("srlb namespace test: PSAMPLE decisions %s%n", byKind);
    }

    private void scenario(LoadBalancer lb, List<DataplaneAssembly> all) throws Exception {
        VipKey key = new VipKey(InetAddress.ofLiteral(VIP), 128, Protocol.TCP, HTTP_PORT);
        control("sa1.sock", "srlb load 5");
        // 1. Server 1 loaded: its first-choice SYNs pass to the second candidate; every other SYN is accepted first.
        List<Socket> first = connect(30_000, CONNECTIONS);
        int passed = 0;
        Map<Integer, Integer> share = new HashMap<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            List<InetAddress> c = lb.srlbCandidatesFor(key, flow(30_000 + i));
            assertThat(c).hasSize(2);
            int c1 = serverOf(c.get(0)), c2 = serverOf(c.get(1));
            int expected = c1 == 1 ? c2 : c1;
            passed += c1 == 1 ? 1 : 0;
            IdPages.begin(first.get(i));
            int server = finish(first.get(i));
            assertThat(server).as("connection %d: candidates %d, %d", i, c1, c2).isEqualTo(expected);
            share.merge(server, 1, Integer::sum);
        }
        assertThat(passed).as("connections whose first candidate was the loaded server 1").isPositive();
        ServerAgentState.Counters s1 = all.get(1).dataplane().plugin(SrlbAgent.class).counters();
        LoadBalancer.SrlbCounters lc = lb.srlbCounters(key);
        // a SYN the client retransmits (a slow first answer on this shared machine) is hunted and passed again
        long retransmittedSyns = lc.hunts() - lc.newFlows();
        assertThat(s1.rejects).as("server 1's agent passed those SYNs (+ retransmissions)")
                .isBetween((long) passed, passed + retransmittedSyns);
        assertThat(s1.firstChoiceAccepts).isZero();
        assertThat(lc.firstChoiceAccepts()).isEqualTo(CONNECTIONS - passed);
        assertThat(lc.secondChoiceAccepts()).isEqualTo(passed);
        assertThat(lc.newFlows()).isEqualTo(CONNECTIONS);

        // 2. Stickiness: connections opened now are held half-sent while every load changes.
        List<Socket> held = connect(31_000, HELD);
        Map<Integer, Integer> heldOn = new HashMap<>();
        for (int i = 0; i < HELD; i++) {
            List<InetAddress> c = lb.srlbCandidatesFor(key, flow(31_000 + i));
            int c1 = serverOf(c.get(0));
            heldOn.put(i, c1 == 1 ? serverOf(c.get(1)) : c1);
            IdPages.begin(held.get(i));
        }
        control("sa1.sock", "srlb load 0");
        control("sa2.sock", "srlb load 5");
        control("sa3.sock", "srlb load 5");
        // 3. New connections now pass servers 2 and 3 as first choices (the last candidate still accepts).
        List<Socket> after = connect(32_000, CONNECTIONS);
        for (int i = 0; i < CONNECTIONS; i++) {
            List<InetAddress> c = lb.srlbCandidatesFor(key, flow(32_000 + i));
            int c1 = serverOf(c.get(0)), c2 = serverOf(c.get(1));
            IdPages.begin(after.get(i));
            assertThat(finish(after.get(i))).as("new connection %d: candidates %d, %d", i, c1, c2)
                    .isEqualTo(c1 == 1 ? 1 : c2);
        }
        // 4. The held connections finish on the server that accepted them.
        for (int i = 0; i < HELD; i++) {
            assertThat(finish(held.get(i))).as("held connection %d", i).isEqualTo(heldOn.get(i));
        }
        String show = ControlClient.send(tmp.resolve("sa1.sock"), "show srlb", Duration.ofSeconds(10)).text();
        assertThat(show).contains("policy static-threshold c=1");
        LoadBalancer.SrlbCounters end = lb.srlbCounters(key);
        assertThat(end.newFlows()).isEqualTo(2L * CONNECTIONS + HELD);
        assertThat(end.firstChoiceAccepts() + end.secondChoiceAccepts()).isEqualTo(2L * CONNECTIONS + HELD);
        assertThat(end.stickyHits()).isPositive();
        assertThat(end.teardowns()).isPositive();
        System.out.printf("srlb namespace test: first round %s, %d of %d passed by the loaded server 1; %s%n",
                share, passed, CONNECTIONS, end);
    }
}
