package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vecflow.collector.GrafanaQueryExpander.Context;
import io.vecflow.collector.GrafanaQueryExpander.Variable;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.hsflowd.HsflowdDaemon;
import io.vecflow.hsflowd.SflowAgent;
import io.vecflow.netlink.psample.PsampleSubscriber;
import io.vecflow.netlink.vpp.LbCounters;
import io.vecflow.netlink.vpp.VppUsersockEmitter;
import io.vecflow.netlink.vpp.VppUsersockSubscriber;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The LB counters path end to end with real components: LB_COUNTERS messages multicast on a private USERSOCK group
 * (as the dataplane's sFlow main thread sends them) are read by the hsflowd-compatible agent's VPP subscriber
 * ({@link HsflowdDaemon}), become counters samples with the "vecflow LB counters" record under a configured
 * enterprise, go over UDP to a collector that writes {@code lb_counters} in the dev ClickHouse (database
 * {@code lbcount_…}, env {@code VECFLOW_TEST_CLICKHOUSE_URL}, failing loudly without it); the rows hold the messages'
 * values, and the Load balancer dashboard's lb_counters panel returns them. Needs root (joining a USERSOCK group).
 */
class LbCountersChainTest {
    private static final int ENTERPRISE = 4_243;
    private static final int GROUP = 18; // a private test group no other test uses
    private static final String AGENT = "192.0.2.78";
    private static final Duration WAIT = Duration.ofSeconds(15);

    private static LbCounters message(int role, int vip, int backend, long[] counters) {
        LbCounters c = new LbCounters();
        c.role = role;
        c.vipIndex = vip;
        if (role == LbCounters.ROLE_MAGLEV) {
            c.vip(false, 0, 0xC000_020AL); // 192.0.2.10
            c.port = 80;
        } else {
            c.vip(true, 0x2001_0db8_0100_0000L, 1); // 2001:db8:100::1
            c.port = 443;
        }
        c.protocol = 6;
        c.backendIndex = backend;
        if (backend > 0) {
            c.backend(true, 0x2001_0db8_0200_0000L, backend);
        }
        System.arraycopy(counters, 0, c.counters, 0, 6);
        return c;
    }

    @Test
    void lbCountersMessagesBecomeLbCounterRowsAndTheDashboardPanelShowsThem() throws Exception {
        String url = TestSupport.clickhouseUrl();
        String db = "lbcount_" + TestSupport.suffix();
        Collector.Settings cs = new Collector.Settings();
        cs.bindAddress = "127.0.0.1";
        cs.port = 0;
        cs.threads = 1;
        cs.clickhouseUrl = url;
        cs.clickhouseDatabase = db;
        cs.lbEnterprise = ENTERPRISE;
        cs.lossIntervalMs = 3_600_000;
        List<LbCounters> sent = List.of(
                message(LbCounters.ROLE_SRLB_LB, 0, 0, new long[] {2, 1, 1, 1, 3, 0}),
                message(LbCounters.ROLE_SRLB_LB, 0, 1, new long[] {1, 1, 0, 1, 1, 0}),
                message(LbCounters.ROLE_SRLB_LB, 0, 2, new long[] {1, 0, 1, 0, 2, 0}),
                message(LbCounters.ROLE_MAGLEV, 1, 0, new long[] {40, 0, 0, 0, 400, 7}),
                // the next polling interval: the SRLB VIP's totals have grown
                message(LbCounters.ROLE_SRLB_LB, 0, 0, new long[] {5, 3, 2, 2, 9, 1}));
        try (Collector c = new Collector(cs)) {
            HsflowdConfig hc = HsflowdConfig.parse("""
                    sflow {
                      agentIP = %s
                      collector { ip = 127.0.0.1 udpport = %d }
                      psample { group = 1 lbEnterprise = %d }
                      vpp { usersockGroup = %d }
                    }
                    """.formatted(AGENT, c.localAddress().getPort(), ENTERPRISE, GROUP));
            try (PsampleSubscriber sub = PsampleSubscriber.openUnicast();
                    VppUsersockSubscriber vppSub = HsflowdDaemon.openVppSubscriber(hc);
                    VppUsersockEmitter em = VppUsersockEmitter.open(GROUP);
                    SflowAgent agent = new SflowAgent(hc, InetAddress.getByName(AGENT));
                    HsflowdDaemon daemon = new HsflowdDaemon(agent, sub, vppSub, null, null)) {
                for (LbCounters m : sent) {
                    assertThat(em.sendLbCounters(m)).isTrue();
                }
                TestSupport.await("agent took every LB_COUNTERS", WAIT, () -> agent.lbCountersSent() >= sent.size(),
                        () -> "(agent " + agent.lbCountersSent() + " of " + sent.size() + ")");
                agent.flush();
                assertThat(agent.lbCountersIgnored()).isZero();
            }
            TestSupport.await("collector stored every record", WAIT,
                    () -> c.stats().lbCounters.sum() >= sent.size());
            c.flush();
            assertThat(c.stats().lbCounterErrors.sum()).isZero();
            assertThat(c.clickhouse().rowsFailed()).isZero();
            assertThat(c.clickhouse().lbCounterRowsWritten()).isEqualTo(sent.size());
        }
        try {
            String rows = query(url, "SELECT Role, VIPIndex, replaceRegexpOne(IPv6NumToString(VIP), '^::ffff:', ''), "
                    + "VIPPort, Proto, BackendIndex, IPv6NumToString(Backend), NewFlows, FirstChoiceAccepts, "
                    + "SecondChoiceAccepts, Rejects, StickyHits, TableFull, SampleSequence, SourceIdIndex, "
                    + "IPv6NumToString(AgentAddress) FROM " + db + ".lb_counters "
                    + "ORDER BY VIPIndex, BackendIndex, SampleSequence FORMAT TabSeparated");
            assertThat(rows.strip().split("\n")).containsExactly(
                    "srlb\t0\t2001:db8:100::1\t443\t6\t0\t::\t2\t1\t1\t1\t3\t0\t1\t2000000000\t::ffff:192.0.2.78",
                    "srlb\t0\t2001:db8:100::1\t443\t6\t0\t::\t5\t3\t2\t2\t9\t1\t2\t2000000000\t::ffff:192.0.2.78",
                    "srlb\t0\t2001:db8:100::1\t443\t6\t1\t2001:db8:200::1\t1\t1\t0\t1\t1\t0\t1\t2000000001"
                            + "\t::ffff:192.0.2.78",
                    "srlb\t0\t2001:db8:100::1\t443\t6\t2\t2001:db8:200::2\t1\t0\t1\t0\t2\t0\t1\t2000000002"
                            + "\t::ffff:192.0.2.78",
                    "maglev\t1\t192.0.2.10\t80\t6\t0\t::\t40\t0\t0\t0\t400\t7\t1\t2000008192\t::ffff:192.0.2.78");
            // the dashboard panel's query (as Grafana expands it, all agents and VIPs, last hour): the SRLB VIP's
            // totals grew by 3 new flows, 2 first-choice, 1 second-choice, 1 reject, 6 sticky hits, 1 table full
            JsonNode d = new ObjectMapper().readTree(DashboardQueriesTest.dashboardDir().resolve("vecflow")
                    .resolve("load-balancer.json").toFile());
            Instant to = Instant.now().plusSeconds(60);
            Duration hour = Duration.ofHours(1);
            Context ctx = new Context(to.minus(hour), to, GrafanaQueryExpander.grafanaInterval(hour, 1000));
            List<String> failures = new ArrayList<>();
            Map<String, Variable> vars = DashboardQueriesTest.resolveVariables(url, db, d, ctx, false,
                    "load-balancer", failures);
            assertThat(failures).isEmpty();
            int ran = 0;
            for (JsonNode panel : DashboardQueriesTest.panels(d)) {
                for (JsonNode t : panel.path("targets")) {
                    String sql = t.path("rawSql").asText();
                    if (!sql.contains(".lb_counters")) {
                        continue;
                    }
                    DashboardQueriesTest.Result r = DashboardQueriesTest.run(url, GrafanaQueryExpander.expand(sql,
                            vars, ctx));
                    assertThat(r.data().toString()).as(r.sql())
                            .contains("[2001:db8:100::1, 443, srlb, all, 3, 2, 1, 1, 6, 1]")
                            .contains("[2001:db8:100::1, 443, srlb, 2001:db8:200::1, 0, 0, 0, 0, 0, 0]");
                    ran++;
                }
            }
            assertThat(ran).as("lb_counters panel queries").isEqualTo(1);
        } finally {
            if (!Boolean.getBoolean("vecflow.test.keepDatabase")) {
                query(url, "DROP DATABASE IF EXISTS " + db);
            }
        }
    }

    private static String query(String url, String sql) throws IOException, InterruptedException {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + "/"))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(sql)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("ClickHouse " + r.statusCode() + ": " + r.body().strip() + "\n  for: " + sql);
        }
        return r.body();
    }
}
