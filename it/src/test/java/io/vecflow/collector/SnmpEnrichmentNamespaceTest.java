package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.enrich.Classifier;
import io.vecflow.collector.enrich.ClassifierRule;
import io.vecflow.collector.enrich.EnrichmentStats;
import io.vecflow.collector.enrich.MetadataCache;
import io.vecflow.collector.enrich.snmp.SnmpdFixture;
import io.vecflow.collector.schema.InterfaceInfo;
import io.vecflow.common.NetNamespace;
import io.vecflow.dataplane.Dataplane;
import io.vecflow.dataplane.DataplaneAssembly;
import io.vecflow.dataplane.config.DataplaneConfig;
import io.vecflow.dataplane.netns.NetnsLab;
import io.vecflow.hsflowd.HsflowdDaemon;
import io.vecflow.hsflowd.SflowAgent;
import io.vecflow.hsflowd.config.HsflowdConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SNMP enrichment end to end, with real components only (the acceptance test): a router namespace the test
 * creates holds the dataplane's two AF_PACKET ports, veths named {@code xe-0-0-1} (kernel alias
 * {@code transit: ACME (AS64500)}) and {@code xe-0-0-2} (alias {@code core: to core1}), an l2 cross-connect between
 * them, vecflow's hsflowd-compatible agent reading the dataplane's PSAMPLE and IF_COUNTERS there, and Debian's
 * {@code snmpd} ({@link SnmpdFixture}, sysName {@code edge1.lab}, the kernel aliases copied into ifAlias) serving the
 * namespace's interfaces on its management address. The agent sends sFlow from the namespace, agent address = that
 * management address, to a collector in the root namespace, which polls snmpd there in the background and writes
 * ClickHouse ({@code VECFLOW_TEST_CLICKHOUSE_URL}, database {@code snmpns_…}, dropped afterwards).
 *
 * <pre>
 *  ns a ── a / xe-0-0-1 ──► router ns (dataplane: l2 xconnect, sampling 1 rx; agent; snmpd) ── xe-0-0-2 / b ──► ns b
 *                            mgmt0 10.252.X.Y+2/30 ── veth ── root ns: the collector on 10.252.X.Y+1
 * </pre>
 *
 * <p>The dataplane's samples carry each port's OSINDEX, the Linux ifindex of its AF_PACKET netdev, which is the ifIndex
 * snmpd reports for it: that alignment is what makes the rows' names right. UDP goes both ways in two phases; rows of
 * the first may be stored before the poll answered, with the agent's own port names (the {@code sflow} source: the
 * dataplane's p0 and p1, from its counter samples) or nothing (counted in {@code interfaceUnknown}). Rows of the
 * second carry what the real {@code snmpget} (the judge) reads from snmpd — ifName, ifAlias as the description,
 * ifHighSpeed: SNMP comes before sFlow in the source order — and the boundary, provider and connectivity the interface
 * rules give, and the exporter name is snmpd's sysName. Needs root and snmpd; fails (never skips) without them.
 * Every namespace, veth and process is removed afterwards (prefix {@code vfen}, see {@link NetnsLab}).
 */
class SnmpEnrichmentNamespaceTest {
    private static final String TRANSIT = "xe-0-0-1", CORE = "xe-0-0-2", MGMT = "mgmt0";
    private static final String TRANSIT_ALIAS = "transit: ACME (AS64500)", CORE_ALIAS = "core: to core1";
    private static final String SYS_NAME = "edge1.lab";
    private static final String MAC_A = "02:00:00:00:5e:0a", MAC_B = "02:00:00:00:5e:0b";
    private static final String MAC_P0 = "02:00:00:00:5e:10", MAC_P1 = "02:00:00:00:5e:11";
    private static final String ADDR_A = "10.36.0.1", ADDR_B = "10.36.0.2";
    /** UDP datagrams per direction and phase; every one is sampled (1 in 1) once, on its input port. */
    private static final int DATAGRAMS = 20;
    /** The destination port of phase 1 and 2 traffic: how the rows of each phase are told apart. */
    private static final int PORT_PHASE1 = 7001, PORT_PHASE2 = 7002;
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final String IF_NAME = "1.3.6.1.2.1.31.1.1.1.1.", IF_ALIAS = "1.3.6.1.2.1.31.1.1.1.18.";
    private static final String IF_HIGH_SPEED = "1.3.6.1.2.1.31.1.1.1.15.", SYS_NAME_OID = "1.3.6.1.2.1.1.5.0";

    @TempDir
    Path tmp;

    /** The router namespace's dataplane and agent, opened inside it (their netlink sockets live there). */
    private static final class Router implements AutoCloseable {
        final List<AutoCloseable> owned = new ArrayList<>();
        DataplaneAssembly dataplane;
        SflowAgent agent;

        @Override
        public void close() {
            List<AutoCloseable> reverse = new ArrayList<>(owned);
            Collections.reverse(reverse);
            for (AutoCloseable c : reverse) {
                try {
                    c.close();
                } catch (Exception e) {
                    System.err.println("closing " + c + ": " + e);
                }
            }
        }
    }

    @Test
    void rowsCarryTheNamesDescriptionsAndSpeedsSnmpdServesAndTheBoundaryTheRulesGive() throws Exception {
        String url = TestSupport.clickhouseUrl();
        String db = "snmpns_" + TestSupport.suffix();
        long started = System.nanoTime();
        String rootVeth = null;
        try (NetnsLab lab = NetnsLab.open("vfen")) {
            String a = lab.namespace("a"), b = lab.namespace("b"), r = lab.namespace("r");
            for (String ns : List.of(a, b, r)) { // IPv4 only: no router solicitations among the sampled frames
                lab.sysctl(ns, "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1");
            }
            // the router's ports: veths named as a router names them, with their aliases as descriptions
            lab.veth(a, lab.dev("a"), r, TRANSIT);
            lab.veth(b, lab.dev("b"), r, CORE);
            lab.ip(r, "link", "set", "dev", TRANSIT, "alias", TRANSIT_ALIAS);
            lab.ip(r, "link", "set", "dev", CORE, "alias", CORE_ALIAS);
            lab.ip(a, "link", "set", lab.dev("a"), "address", MAC_A, "up");
            lab.ip(b, "link", "set", lab.dev("b"), "address", MAC_B, "up");
            lab.ip(r, "link", "set", TRANSIT, "address", MAC_P0, "up");
            lab.ip(r, "link", "set", CORE, "address", MAC_P1, "up");
            lab.address(a, lab.dev("a"), ADDR_A + "/24");
            lab.address(b, lab.dev("b"), ADDR_B + "/24");
            lab.ip(a, "neigh", "add", ADDR_B, "lladdr", MAC_B, "dev", lab.dev("a"), "nud", "permanent");
            lab.ip(b, "neigh", "add", ADDR_A, "lladdr", MAC_A, "dev", lab.dev("b"), "nud", "permanent");
            lab.txChecksumOff(a, lab.dev("a"));
            lab.txChecksumOff(b, lab.dev("b"));
            // the management link: root namespace ↔ the router's mgmt0, an unused 10.252.X.Y/30
            int[] net = freeSubnet();
            String collectorAddress = "10.252." + net[0] + "." + (net[1] + 1);
            String agentAddress = "10.252." + net[0] + "." + (net[1] + 2);
            rootVeth = lab.dev("m");
            SnmpdFixture.sh("ip", "link", "add", rootVeth, "type", "veth", "peer", "name", MGMT, "netns", r);
            SnmpdFixture.sh("ip", "addr", "add", collectorAddress + "/30", "dev", rootVeth);
            SnmpdFixture.sh("ip", "link", "set", rootVeth, "up");
            lab.address(r, MGMT, agentAddress + "/30");
            lab.ip(r, "link", "set", MGMT, "up");

            long transit = SnmpdFixture.ifIndex(r, TRANSIT), core = SnmpdFixture.ifIndex(r, CORE);
            try (SnmpdFixture snmpd = SnmpdFixture.builder().namespace(r).address(agentAddress).sysName(SYS_NAME)
                    .start()) {
                assertThat(snmpd.copyKernelAliases()).containsEntry(transit, TRANSIT_ALIAS)
                        .containsEntry(core, CORE_ALIAS);
                Map<String, String> judge = snmpd.snmpget(SYS_NAME_OID, IF_NAME + transit, IF_ALIAS + transit,
                        IF_HIGH_SPEED + transit, IF_NAME + core, IF_ALIAS + core, IF_HIGH_SPEED + core);
                assertThat(judge.get(SYS_NAME_OID)).isEqualTo(SYS_NAME);
                assertThat(judge.get(IF_NAME + transit)).isEqualTo(TRANSIT);
                assertThat(judge.get(IF_NAME + core)).isEqualTo(CORE);
                assertThat(judge.get(IF_HIGH_SPEED + transit)).as("a veth's ifHighSpeed").isEqualTo("10000");
                assertThat(judge.get(IF_HIGH_SPEED + core)).isEqualTo("10000");

                Collector.Settings cs = collectorSettings(url, db, collectorAddress, snmpd.port());
                EnrichmentStats es;
                long unknownAfterPhase1;
                try (Collector c = new Collector(cs)) {
                    es = c.stats().enrichment;
                    try (Router router = openRouter(r, agentAddress, collectorAddress,
                            c.localAddress().getPort())) {
                        Dataplane d = router.dataplane.dataplane();
                        // the alignment under test: each port's OSINDEX is the ifIndex snmpd reports for it
                        assertThat(d.osIndexAttribute(1)).as("OSINDEX of p0 = ifindex of " + TRANSIT)
                                .isEqualTo(transit);
                        assertThat(d.osIndexAttribute(2)).as("OSINDEX of p1 = ifindex of " + CORE).isEqualTo(core);
                        d.start();
                        try {
                            exchange(a, b, PORT_PHASE1, router.agent, c, 1);
                            // the poll answered: the cache holds snmpd's names (bounded; later rows get them)
                            byte[] exporter16 = TestSupport.addr16(agentAddress);
                            MetadataCache cache = c.enricher().metadata();
                            TestSupport.await("the metadata cache to hold snmpd's answer", WAIT,
                                    () -> snmpKnown(cache, exporter16, transit, core),
                                    () -> "(polls " + es.polls.sum() + ", failures " + es.pollFailures.sum() + ")");
                            unknownAfterPhase1 = es.interfaceUnknown.sum();
                            exchange(a, b, PORT_PHASE2, router.agent, c, 2);
                        } finally {
                            d.stop();
                        }
                    }
                    c.flush();
                    assertThat(c.clickhouse().rowsFailed()).isZero();
                    assertThat(c.stats().sinkErrors.sum()).isZero();
                    // the collector's counters: polled, never failed, every ifIndex asked for exists
                    assertThat(es.polls.sum()).as("polls sent").isGreaterThanOrEqualTo(1);
                    assertThat(es.pollFailures.sum()).as("poll failures; snmpd log: " + snmpd.log()).isZero();
                    assertThat(es.pollNotFound.sum()).as("ifIndexes snmpd does not know").isZero();
                    assertThat(es.errors.sum()).isZero();
                    assertThat(es.cacheFull.sum()).isZero();
                    assertThat(es.interfaceUnknown.sum()).as("no row of phase 2 without its interfaces")
                            .isEqualTo(unknownAfterPhase1);
                    assertThat(es.rows.sum()).isGreaterThanOrEqualTo(4L * DATAGRAMS);
                }

                // phase 1: every row stored, with or without metadata (the poll may not have answered yet)
                String phase1 = query(url, "SELECT count(), countIf(InIfName = ''), arrayStringConcat(arraySort("
                        + "groupUniqArray(InIfName)), ',') FROM " + db + ".flows WHERE DstPort = " + PORT_PHASE1
                        + " AND Proto = 17 FORMAT TabSeparated");
                assertThat(phase1.split("\t")[0]).as("phase 1 rows").isEqualTo(String.valueOf(2 * DATAGRAMS));
                // phase 2: the names, descriptions and speeds snmpget reads, the rules' boundary, snmpd's sysName
                String rows = query(url, "SELECT InIf, OutIf, InIfName, OutIfName, InIfDescription, OutIfDescription,"
                        + " InIfSpeed, OutIfSpeed, InIfBoundary, OutIfBoundary, InIfProvider, OutIfProvider,"
                        + " InIfConnectivity, OutIfConnectivity, ExporterName, IPv6NumToString(AgentAddress),"
                        + " IPv6NumToString(PeerAddress), count() FROM " + db + ".flows WHERE DstPort = " + PORT_PHASE2
                        + " AND Proto = 17 GROUP BY InIf, OutIf, InIfName, OutIfName, InIfDescription,"
                        + " OutIfDescription, InIfSpeed, OutIfSpeed, InIfBoundary, OutIfBoundary, InIfProvider,"
                        + " OutIfProvider, InIfConnectivity, OutIfConnectivity, ExporterName, AgentAddress,"
                        + " PeerAddress ORDER BY InIf FORMAT TabSeparated");
                Map<Long, Expected> want = Map.of(
                        transit, new Expected(judge.get(IF_NAME + transit), judge.get(IF_ALIAS + transit),
                                judge.get(IF_HIGH_SPEED + transit), "external", "acme", "transit"),
                        core, new Expected(judge.get(IF_NAME + core), judge.get(IF_ALIAS + core),
                                judge.get(IF_HIGH_SPEED + core), "internal", "", ""));
                assertThat(want.get(transit).description()).isEqualTo(TRANSIT_ALIAS);
                assertThat(want.get(core).description()).isEqualTo(CORE_ALIAS);
                List<String> expected = new ArrayList<>();
                for (long[] io : transit < core ? new long[][] {{transit, core}, {core, transit}}
                        : new long[][] {{core, transit}, {transit, core}}) {
                    Expected in = want.get(io[0]), out = want.get(io[1]);
                    expected.add(String.join("\t", String.valueOf(io[0]), String.valueOf(io[1]), in.name(),
                            out.name(), in.description(), out.description(), in.speed(), out.speed(),
                            in.boundary(), out.boundary(), in.provider(), out.provider(), in.connectivity(),
                            out.connectivity(), judge.get(SYS_NAME_OID), "::ffff:" + agentAddress,
                            "::ffff:" + agentAddress, String.valueOf(DATAGRAMS)));
                }
                assertThat(rows.strip().split("\n")).as("phase 2 rows by interface").containsExactlyElementsOf(
                        expected);
                System.out.printf("snmp enrichment namespace test: phase 1 rows (total, without InIfName, names) %s;"
                        + " interfaceUnknown %d, polls %d; %d ms%n%s%n", phase1.replace('\t', ' '),
                        es.interfaceUnknown.sum(), es.polls.sum(), (System.nanoTime() - started) / 1_000_000, rows);
            }
        } finally {
            if (rootVeth != null) {
                quietly("ip", "link", "del", rootVeth); // gone with the namespace already, normally
            }
            if (!Boolean.getBoolean("vecflow.test.keepDatabase")) {
                query(url, "DROP DATABASE IF EXISTS " + db);
            }
        }
    }

    /** One interface as the judge (snmpget) and the rules describe it. */
    private record Expected(String name, String description, String speed, String boundary, String provider,
            String connectivity) {}

    private static Collector.Settings collectorSettings(String url, String db, String bind, int snmpPort) {
        Collector.Settings cs = new Collector.Settings();
        cs.bindAddress = bind; // the management link's root end: the router's agent sends there
        cs.port = 0;
        cs.threads = 1;
        cs.clickhouseUrl = url;
        cs.clickhouseDatabase = db;
        cs.lossIntervalMs = 3_600_000;
        cs.enrichment.snmp = true;
        cs.enrichment.snmpCommunities = List.of(SnmpdFixture.COMMUNITY);
        cs.enrichment.snmpPort = snmpPort;
        cs.enrichment.metadata.checkMs = 50;
        cs.enrichment.interfaceRules = Classifier.interfaces(List.of(
                new ClassifierRule(Map.of("description", "^(transit|pni|ix):\\s*(\\S+)"),
                        Map.of("boundary", "external", "provider", "$2", "connectivity", "$1"), 0),
                new ClassifierRule(Map.of(), Map.of("boundary", "internal"), 0)), "test");
        return cs;
    }

    /**
     * Opens the dataplane (ports p0 = xe-0-0-1 and p1 = xe-0-0-2 cross-connected, sampling 1 in 1 on receive,
     * counters every second) and the agent ({@code psample} and {@code vpp {}} modules, agent address = the
     * management address, sending from the router namespace) inside the router namespace.
     */
    private Router openRouter(String r, String agentAddress, String collectorAddress,
            int collectorPort) throws Exception {
        String yaml = """
                workers: 1
                ports:
                  - {name: p0, type: af_packet, if-index: 1, netns: %1$s, mac: "%2$s", mode: l2, \
                    af-packet: {interface: %3$s}}
                  - {name: p1, type: af_packet, if-index: 2, netns: %1$s, mac: "%4$s", mode: l2, \
                    af-packet: {interface: %5$s}}
                xconnects:
                  - [p0, p1]
                sflow:
                  sampling-rate: 1
                  direction: rx
                  polling-interval: 1
                  interfaces: [p0, p1]
                  usersock-groups: {psample: 30, net-dm: 31, counters: 29}
                metrics: {port: 0}
                """.formatted(r, MAC_P0, TRANSIT, MAC_P1, CORE);
        Path f = tmp.resolve("router.yaml");
        Files.writeString(f, yaml);
        DataplaneConfig dc = DataplaneConfig.load(f);
        HsflowdConfig hc = HsflowdConfig.parse("""
                sflow {
                  sampling = 1
                  agentIP = %s
                  collector { ip = %s udpport = %d namespace = %s }
                  psample { transport = usersock usersockGroup = 30 }
                  vpp { usersockGroup = 29 }
                }
                """.formatted(agentAddress, collectorAddress, collectorPort, r));
        Router router = new Router();
        try {
            // netlink groups are per namespace: the dataplane's emitters and the agent's subscribers meet in the
            // router's, whatever other tests use in the root namespace
            NetNamespace.callIn(r, () -> {
                router.dataplane = DataplaneAssembly.open(dc, System.err::println, false);
                router.owned.add(router.dataplane);
                var sub = HsflowdDaemon.openSubscriber(hc);
                router.owned.add(sub);
                var vpp = HsflowdDaemon.openVppSubscriber(hc);
                router.owned.add(vpp);
                router.agent = new SflowAgent(hc, InetAddress.getByName(agentAddress));
                router.owned.add(router.agent);
                router.owned.remove(sub);
                router.owned.remove(vpp);
                router.owned.add(new HsflowdDaemon(router.agent, sub, vpp, null, null)); // owns both subscribers
                return null;
            });
        } catch (Exception | Error e) {
            router.close();
            throw e;
        }
        return router;
    }

    /**
     * One phase: {@link #DATAGRAMS} UDP datagrams a → b and as many b → a to {@code port}, through the dataplane;
     * waits until all arrived, the agent took every sample and the collector received every datagram the agent sent.
     */
    private static void exchange(String a, String b, int port, SflowAgent agent, Collector c, int phase)
            throws Exception {
        long samplesBefore = agent.samplesIn();
        try (DatagramChannel rxA = NetNamespace.callIn(a, () -> DatagramChannel.open().bind(
                        new InetSocketAddress(ADDR_A, port)));
                DatagramChannel rxB = NetNamespace.callIn(b, () -> DatagramChannel.open().bind(
                        new InetSocketAddress(ADDR_B, port)));
                DatagramChannel txA = NetNamespace.callIn(a, DatagramChannel::open);
                DatagramChannel txB = NetNamespace.callIn(b, DatagramChannel::open)) {
            rxA.configureBlocking(false);
            rxB.configureBlocking(false);
            for (int i = 0; i < DATAGRAMS; i++) {
                txA.send(ByteBuffer.wrap(new byte[100 + i]), new InetSocketAddress(ADDR_B, port));
                txB.send(ByteBuffer.wrap(new byte[100 + i]), new InetSocketAddress(ADDR_A, port));
            }
            int[] arrived = new int[2];
            ByteBuffer buf = ByteBuffer.allocate(2048);
            TestSupport.await("phase " + phase + " datagrams through the dataplane", WAIT, () -> {
                try {
                    for (int k = 0; k < 2; k++) {
                        buf.clear();
                        while ((k == 0 ? rxA : rxB).receive(buf) != null) {
                            arrived[k]++;
                            buf.clear();
                        }
                    }
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
                return arrived[0] >= DATAGRAMS && arrived[1] >= DATAGRAMS;
            }, () -> "(a got " + arrived[0] + ", b got " + arrived[1] + ")");
            assertThat(arrived).containsExactly(DATAGRAMS, DATAGRAMS);
        }
        TestSupport.await("phase " + phase + " samples at the agent", WAIT,
                () -> agent.samplesIn() - samplesBefore >= 2 * DATAGRAMS,
                () -> "(" + (agent.samplesIn() - samplesBefore) + " of " + 2 * DATAGRAMS + ")");
        agent.flush();
        long sent = agent.datagramsSent();
        TestSupport.await("phase " + phase + " datagrams at the collector", WAIT,
                () -> c.stats().datagramsReceived.sum() >= sent,
                () -> "(" + c.stats().datagramsReceived.sum() + " of " + sent + ")");
        assertThat(agent.sendFailures()).isZero();
    }

    /** Whether the cache's snapshot of the exporter holds snmpd's sysName and both interfaces' ifNames. */
    private static boolean snmpKnown(MetadataCache cache, byte[] exporter16, long transit, long core) {
        MetadataCache.Exporter e = cache.exporter(exporter16, System.nanoTime());
        if (e == null || !e.info().name().text.equals(SYS_NAME)) {
            return false;
        }
        InterfaceInfo t = e.iface(transit), k = e.iface(core);
        return t.name().text.equals(TRANSIT) && k.name().text.equals(CORE);
    }

    /** @return {X, Y} of a 10.252.X.Y/30 (Y a multiple of 4) that no address or route of this namespace is in */
    private static int[] freeSubnet() throws IOException {
        String used = SnmpdFixture.sh("ip", "-4", "-o", "addr", "show") + SnmpdFixture.sh("ip", "-4", "route", "show");
        for (int attempt = 0; attempt < 50; attempt++) {
            int x = ThreadLocalRandom.current().nextInt(256);
            int y = ThreadLocalRandom.current().nextInt(64) * 4;
            boolean taken = used.contains(" 10.252." + x + "." + y + "/") || used.contains("10.252." + x + "." + y
                    + "/30");
            for (int h = y; h < y + 4; h++) {
                taken |= used.contains(" 10.252." + x + "." + h + "/");
            }
            if (!taken) {
                return new int[] {x, y};
            }
        }
        throw new IOException("no free /30 in 10.252.0.0/16");
    }

    private static void quietly(String... cmd) {
        try {
            SnmpdFixture.sh(cmd);
        } catch (IOException e) {
            // already gone
        }
    }

    private static String query(String url, String sql) throws IOException, InterruptedException {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + "/"))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(sql)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("ClickHouse " + r.statusCode() + ": " + r.body().strip() + "\n  for: " + sql);
        }
        return r.body().strip();
    }
}
