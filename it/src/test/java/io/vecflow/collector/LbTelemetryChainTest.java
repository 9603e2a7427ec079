package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vecflow.collector.GrafanaQueryExpander.Context;
import io.vecflow.collector.GrafanaQueryExpander.Variable;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.hsflowd.HsflowdDaemon;
import io.vecflow.hsflowd.SflowAgent;
import io.vecflow.netlink.psample.LbDecisionCookie;
import io.vecflow.netlink.psample.LbDecisionCookie.Kind;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.psample.PsampleSubscriber;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PcapWriter;
import io.vecflow.sflow.LbDecisionRecord;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The load-balancer telemetry path end to end, with real components only: PSAMPLE messages whose USER_COOKIE holds an
 * {@link LbDecisionCookie} go over NETLINK_USERSOCK (unicast) to the hsflowd-compatible agent ({@link SflowAgent} fed
 * by {@link HsflowdDaemon}, as the dist tests use them), which adds the "vecflow LB decision" flow record under a
 * configured enterprise; its datagrams go over UDP to a vecflow collector writing into the dev ClickHouse (database
 * {@code lbtel_…}) and to a plain UDP receiver whose capture tshark decodes. Checked: one {@code lb_decisions} row per
 * decision sample with the cookie's values (VIP, backend, candidates, choice, metric, kind, agent, time, CLOVE
 * fields); a malformed cookie and a sample without one add flows rows but no decision; tshark decodes every datagram
 * without a malformed/expert error and skips the enterprise record by its length; the Load balancer dashboard's
 * panels that read {@code lb_decisions} return these rows.
 */
class LbTelemetryChainTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A private enterprise for the test (not the default), to prove the setting travels. */
    private static final int ENTERPRISE = 4_242;
    private static final String AGENT = "192.0.2.77";
    private static final Duration WAIT = Duration.ofSeconds(15);

    @TempDir
    Path tmp;

    static byte[] ip(String s) {
        try {
            return InetAddress.getByName(s).getAddress();
        } catch (IOException e) {
            throw new IllegalArgumentException(s, e);
        }
    }

    /** The decisions sent, one PSAMPLE sample each. */
    static List<LbDecisionCookie> decisions() {
        List<LbDecisionCookie> d = new ArrayList<>();
        for (int b = 1; b <= 4; b++) { // Maglev: four new flows for 192.0.2.10:80, one per backend
            d.add(new LbDecisionCookie().kind(Kind.MAGLEV_NEW).vip(ip("192.0.2.10")).backend(ip("10.0.0." + b))
                    .flow(6, 80));
        }
        byte[] vip6 = ip("2001:db8:100::1");
        byte[] c1 = ip("2001:db8:200::1");
        byte[] c2 = ip("2001:db8:200::2");
        // SRLB: the LB sends a hunt; candidate 1 (8 busy workers) passes, candidate 2 (3 busy) accepts second; then
        // a flow accepted first by candidate 1 (2 busy); a sticky hit
        d.add(new LbDecisionCookie().kind(Kind.SRLB_HUNT).vip(vip6).addCandidate(c1).addCandidate(c2).flow(6, 443));
        d.add(new LbDecisionCookie().kind(Kind.SRLB_REJECT).vip(vip6).backend(c1).addCandidate(c1).addCandidate(c2)
                .choiceIndex(1).flow(6, 443).policyMetric(8000));
        d.add(new LbDecisionCookie().kind(Kind.SRLB_ACCEPT_SECOND).vip(vip6).backend(c2).addCandidate(c1)
                .addCandidate(c2).choiceIndex(2).flow(6, 443).policyMetric(3000));
        d.add(new LbDecisionCookie().kind(Kind.SRLB_ACCEPT_FIRST).vip(vip6).backend(c1).addCandidate(c1)
                .addCandidate(c2).choiceIndex(1).flow(6, 443).policyMetric(2000));
        d.add(new LbDecisionCookie().kind(Kind.STICKY_HIT).vip(ip("192.0.2.10")).backend(ip("10.0.0.3")).flow(6, 80));
        // CLOVE: a new flowlet on the path of outer source port 49153, weight 0.67
        d.add(new LbDecisionCookie().kind(Kind.CLOVE_FLOWLET).vip(ip("10.1.0.5")).backend(ip("10.2.0.1"))
                .flow(17, 5201).clove(77, 670_000, 49_153).policyMetric(1500));
        return d;
    }

    /** An Ethernet + IPv4/IPv6 + TCP SYN (or UDP) frame to the decision's VIP and port: the sampled packet. */
    static byte[] frame(LbDecisionCookie c) {
        boolean v6 = c.addressLength() == 16;
        int l4 = c.protocol() == 17 ? 8 : 20;
        int l3 = v6 ? 40 : 20;
        ByteBuffer b = ByteBuffer.allocate(14 + l3 + l4);
        b.put(new byte[] {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1}).putShort((short) (v6 ? 0x86DD : 0x0800));
        if (v6) {
            b.putInt(0x6000_0000).putShort((short) l4).put((byte) c.protocol()).put((byte) 64)
                    .put(ip("2001:db8:1::9")).put(c.vip(), 0, 16);
        } else {
            b.put((byte) 0x45).put((byte) 0).putShort((short) (l3 + l4)).putShort((short) 1).putShort((short) 0x4000)
                    .put((byte) 64).put((byte) c.protocol()).putShort((short) 0).put(ip("198.51.100.9"))
                    .put(c.vip(), 0, 4);
        }
        b.putShort((short) 40_000).putShort((short) c.vipPort());
        if (l4 == 20) {
            b.putInt(1).putInt(0).put((byte) 0x50).put((byte) 0x02).putShort((short) 65_535).putInt(0); // SYN
        } else {
            b.putShort((short) 8).putShort((short) 0);
        }
        return b.array();
    }

    @Test
    void decisionCookiesBecomeLbDecisionRowsTsharkCleanAndDashboardPanels() throws Exception {
        String url = TestSupport.clickhouseUrl();
        String db = "lbtel_" + TestSupport.suffix();
        assertThat(ENTERPRISE).as("a non-default enterprise").isNotEqualTo(LbDecisionRecord.DEFAULT_ENTERPRISE);
        List<LbDecisionCookie> decisions = decisions();
        List<byte[]> received = new CopyOnWriteArrayList<>();
        Collector.Settings cs = new Collector.Settings();
        cs.bindAddress = "127.0.0.1";
        cs.port = 0;
        cs.threads = 1;
        cs.clickhouseUrl = url;
        cs.clickhouseDatabase = db;
        cs.lbEnterprise = ENTERPRISE;
        cs.lossIntervalMs = 3_600_000;
        Instant start = Instant.now().minusSeconds(1);
        long agentDatagrams;
        try (Collector c = new Collector(cs); DatagramChannel rx = DatagramChannel.open()) {
            rx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int rxPort = ((InetSocketAddress) rx.getLocalAddress()).getPort();
            Thread reader = Thread.ofPlatform().daemon().start(() -> receive(rx, received));
            HsflowdConfig hc = HsflowdConfig.parse("""
                    sflow {
                      sampling = 1
                      headerBytes = 128
                      agentIP = %s
                      collector { ip = 127.0.0.1 udpport = %d }
                      collector { ip = 127.0.0.1 udpport = %d }
                      psample { group = 1 lbEnterprise = %d }
                    }
                    """.formatted(AGENT, c.localAddress().getPort(), rxPort, ENTERPRISE));
            assertThat(hc.psample.lbEnterprise).isEqualTo(ENTERPRISE);
            try (PsampleSubscriber sub = PsampleSubscriber.openUnicast();
                    PsampleEmitter em = PsampleEmitter.openUnicast(sub.portId(), Psample.Convention.VPP);
                    SflowAgent agent = new SflowAgent(hc, InetAddress.getByName(AGENT));
                    HsflowdDaemon daemon = new HsflowdDaemon(agent, sub)) {
                assertThat(agent.lbDecisionDataFormat()).isEqualTo(ENTERPRISE << 12 | 1);
                PsampleSample s = new PsampleSample(256);
                long seq = 0;
                for (LbDecisionCookie d : decisions) {
                    byte[] f = frame(d);
                    s.clear().iifIndex(3).oifIndex(0).origSize(f.length).sampleGroup(1).groupSeq(++seq)
                            .sampleRate(1).data(f, 0, f.length).userCookie(d);
                    assertThat(em.emit(s)).as("emit " + d).isTrue();
                }
                byte[] plain = frame(decisions.getFirst());
                // a cookie that is not a decision (version 9): the sample goes out without the record
                byte[] bad = new byte[40];
                decisions.getFirst().encode(bad, 0);
                bad[0] = 9;
                s.clear().iifIndex(3).origSize(plain.length).sampleGroup(1).groupSeq(++seq).sampleRate(1)
                        .data(plain, 0, plain.length).userCookie(bad, 0, 32);
                assertThat(em.emit(s)).isTrue();
                // and a sample without a cookie
                s.clear().iifIndex(3).origSize(plain.length).sampleGroup(1).groupSeq(++seq).sampleRate(1)
                        .data(plain, 0, plain.length);
                assertThat(em.emit(s)).isTrue();
                long total = seq;
                TestSupport.await("agent took every sample", WAIT, () -> agent.samplesIn() >= total,
                        () -> "(agent " + agent.samplesIn() + " of " + total + ")");
                agent.flush();
                assertThat(agent.samplesSent()).isEqualTo(total);
                assertThat(agent.lbDecisionsSent()).isEqualTo(decisions.size());
                assertThat(agent.lbCookieErrors()).isEqualTo(1);
                assertThat(agent.sendFailures()).isZero();
                agentDatagrams = agent.datagramsSent() / 2;
            }
            long n = agentDatagrams;
            TestSupport.await("collector and receiver got every datagram", WAIT,
                    () -> c.stats().datagramsReceived.sum() >= n && received.size() >= n);
            c.flush();
            assertThat(c.stats().lbDecisions.sum()).isEqualTo(decisions.size());
            assertThat(c.stats().lbDecisionErrors.sum()).isZero();
            assertThat(c.stats().sinkErrors.sum()).isZero();
            assertThat(c.clickhouse().rowsFailed()).isZero();
            assertThat(c.clickhouse().lbDecisionRowsWritten()).isEqualTo(decisions.size());
            rx.close();
            reader.join(5000);
        }
        try {
            // --- ClickHouse holds one row per decision sample, with the cookie's values
            assertThat(query(url, "SELECT count() FROM " + db + ".flows FORMAT TabSeparated").strip())
                    .isEqualTo(String.valueOf(decisions.size() + 2));
            String rows = query(url,
                    "SELECT Algorithm, Decision, replaceRegexpOne(IPv6NumToString(VIP), '^::ffff:', ''),"
                    + " VIPPort, Proto, replaceRegexpOne(IPv6NumToString(Backend), '^::ffff:', ''), ChoiceIndex,"
                    + " arrayMap(a -> IPv6NumToString(a), Candidates), PolicyMetric, Flows, FlowletId, PathWeight,"
                    + " PathId, IPv6NumToString(AgentAddress), SubAgentId"
                    + " FROM " + db
                            + ".lb_decisions ORDER BY IngestOffset, Decision, VIP, Backend FORMAT TabSeparated");
            List<String> got = new ArrayList<>(List.of(rows.strip().split("\n")));
            List<String> want = List.of(
                    "maglev\tnew\t192.0.2.10\t80\t6\t10.0.0.1\t0\t[]\t0\t1\t0\t0\t0\t::ffff:192.0.2.77\t100000",
                    "maglev\tnew\t192.0.2.10\t80\t6\t10.0.0.2\t0\t[]\t0\t1\t0\t0\t0\t::ffff:192.0.2.77\t100000",
                    "maglev\tnew\t192.0.2.10\t80\t6\t10.0.0.3\t0\t[]\t0\t1\t0\t0\t0\t::ffff:192.0.2.77\t100000",
                    "maglev\tnew\t192.0.2.10\t80\t6\t10.0.0.4\t0\t[]\t0\t1\t0\t0\t0\t::ffff:192.0.2.77\t100000",
                    "srlb\thunt\t2001:db8:100::1\t443\t6\t::\t0\t['2001:db8:200::1','2001:db8:200::2']\t0\t1\t0\t0\t0"
                            + "\t::ffff:192.0.2.77\t100000",
                    "srlb\tpass\t2001:db8:100::1\t443\t6\t2001:db8:200::1\t1\t['2001:db8:200::1','2001:db8:200::2']"
                            + "\t8\t1\t0\t0\t0\t::ffff:192.0.2.77\t100000",
                    "srlb\taccept\t2001:db8:100::1\t443\t6\t2001:db8:200::2\t2\t['2001:db8:200::1','2001:db8:200::2']"
                            + "\t3\t1\t0\t0\t0\t::ffff:192.0.2.77\t100000",
                    "srlb\taccept\t2001:db8:100::1\t443\t6\t2001:db8:200::1\t1\t['2001:db8:200::1','2001:db8:200::2']"
                            + "\t2\t1\t0\t0\t0\t::ffff:192.0.2.77\t100000",
                    "maglev\tsticky\t192.0.2.10\t80\t6\t10.0.0.3\t0\t[]\t0\t1\t0\t0\t0\t::ffff:192.0.2.77\t100000",
                    "clove\tnew\t10.1.0.5\t5201\t17\t10.2.0.1\t0\t[]\t1.5\t1\t77\t0.67\t49153\t::ffff:192.0.2.77"
                            + "\t100000");
            // rows of one datagram share IngestOffset; compare as a multiset, then check the time bounds
            assertThat(got).containsExactlyInAnyOrderElementsOf(want);
            String times = query(url, "SELECT min(toUInt32(TimeReceived)), max(toUInt32(TimeReceived)) FROM " + db
                    + ".lb_decisions FORMAT TabSeparated").strip();
            long[] t = Arrays.stream(times.split("\t")).mapToLong(Long::parseLong).toArray();
            assertThat(t[0]).isGreaterThanOrEqualTo(start.getEpochSecond());
            assertThat(t[1]).isLessThanOrEqualTo(Instant.now().getEpochSecond());

            // --- tshark decodes every datagram, no malformed/expert error; the enterprise record is skipped by length
            tsharkJudges(received);

            // --- the Load balancer dashboard's lb_decisions panels return these rows
            dashboardPanels(url, db);
        } finally {
            if (!Boolean.getBoolean("vecflow.test.keepDatabase")) {
                query(url, "DROP DATABASE IF EXISTS " + db);
            }
        }
    }

    private void tsharkJudges(List<byte[]> datagrams) throws Exception {
        Path pcap = tmp.resolve("lb.pcap");
        try (PcapWriter w = PcapWriter.create(pcap, LinkType.ETHERNET, 65_535)) {
            long ts = 1_700_000_000_000_000_000L;
            for (byte[] d : datagrams) {
                byte[] f = udpFrame(d);
                w.write(ts += 1000, f);
            }
        }
        Process p = new ProcessBuilder("tshark", "-r", pcap.toString(), "-d", "udp.port==6343,sflow", "-V", "-z",
                "expert,note").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).doesNotContain("Malformed").doesNotContain("Expert Info (Error").doesNotContain("[Error")
                .doesNotContain("Exception occurred");
        // every flow sample is decoded; tshark 4.0 shows our record as "Unknown enterprise format", enterprise
        // 4242, with its declared length, and moves on to the next sample
        long samples = out.lines().filter(l -> l.strip().startsWith("Expanded flow sample, seq")).count();
        assertThat(samples).as(out).isEqualTo(decisions().size() + 2);
        long lbRecords = out.lines().filter(l -> l.strip().endsWith("Enterprise: Non-standard sFlow (" + ENTERPRISE
                + ")")).count();
        assertThat(lbRecords).as("tshark records of enterprise " + ENTERPRISE).isEqualTo(decisions().size());
        assertThat(out.lines().filter(l -> l.strip().equals("Unknown enterprise format")).count())
                .isEqualTo(decisions().size());
        assertThat(out).contains("Length: 56", "Length: 120"); // IPv4 without candidates, IPv6 with two
        assertThat(out).contains("Agent address: " + AGENT);
    }

    private static void dashboardPanels(String url, String db) throws Exception {
        JsonNode d = JSON.readTree(DashboardQueriesTest.dashboardDir().resolve("vecflow")
                .resolve("load-balancer.json").toFile());
        Instant to = Instant.now().plusSeconds(60);
        Duration hour = Duration.ofHours(1);
        Context ctx = new Context(to.minus(hour), to, GrafanaQueryExpander.grafanaInterval(hour, 1000));
        List<String> failures = new ArrayList<>();
        Map<String, Variable> vars = DashboardQueriesTest.resolveVariables(url, db, d, ctx, false, "load-balancer",
                failures);
        assertThat(failures).isEmpty();
        assertThat(vars.get("vip").options()).containsExactlyInAnyOrder("::ffff:192.0.2.10", "2001:db8:100::1",
                "::ffff:10.1.0.5");
        int ran = 0;
        for (JsonNode panel : DashboardQueriesTest.panels(d)) {
            for (JsonNode t : panel.path("targets")) {
                String sql = t.path("rawSql").asText();
                if (!sql.contains(".lb_decisions")) {
                    continue;
                }
                String what = "panel '" + panel.path("title").asText() + "'";
                DashboardQueriesTest.Result r = DashboardQueriesTest.run(url, GrafanaQueryExpander.expand(sql, vars,
                        ctx));
                assertThat(r.data()).as(what + ": " + r.sql()).isNotEmpty();
                assertThat(r.anyNonZeroNumber()).as(what + " values " + r.data()).isTrue();
                ran++;
                if (panel.path("title").asText().toLowerCase().contains("backend") && panel.path("type").asText()
                        .equals("table")) {
                    // the backend table: Maglev's four backends each placed one flow; SRLB's two one each
                    String all = r.data().toString();
                    assertThat(all).contains("10.0.0.1", "10.0.0.4", "2001:db8:200::1", "2001:db8:200::2");
                }
            }
        }
        assertThat(ran).as("lb_decisions panel queries").isGreaterThanOrEqualTo(6);
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

    private static void receive(DatagramChannel rx, List<byte[]> out) {
        ByteBuffer b = ByteBuffer.allocate(65_536);
        try {
            while (rx.isOpen()) {
                b.clear();
                rx.receive(b);
                b.flip();
                byte[] d = new byte[b.remaining()];
                b.get(d);
                out.add(d);
            }
        } catch (IOException closed) {
            // the test closed the channel
        }
    }

    /** One Ethernet/IPv4/UDP frame 127.0.0.1:40000 → 127.0.0.1:6343 around an sFlow datagram. */
    static byte[] udpFrame(byte[] payload) {
        ByteBuffer pkt = ByteBuffer.allocate(14 + 20 + 8 + payload.length);
        pkt.put(new byte[] {0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1}).putShort((short) 0x0800);
        int ipStart = pkt.position();
        pkt.put((byte) 0x45).put((byte) 0).putShort((short) (20 + 8 + payload.length)).putShort((short) 1)
                .putShort((short) 0x4000).put((byte) 64).put((byte) 17).putShort((short) 0)
                .putInt(0x7F000001).putInt(0x7F000001);
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += pkt.getShort(ipStart + i) & 0xFFFF;
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        pkt.putShort(ipStart + 10, (short) ~sum);
        pkt.putShort((short) 40000).putShort((short) 6343).putShort((short) (8 + payload.length)).putShort((short) 0)
                .put(payload);
        return pkt.array();
    }
}
