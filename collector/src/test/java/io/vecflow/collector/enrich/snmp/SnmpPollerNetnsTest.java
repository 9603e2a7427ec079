package io.vecflow.collector.enrich.snmp;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.enrich.snmp.SnmpPoller.InterfaceResult;
import io.vecflow.collector.enrich.snmp.SnmpPoller.Result;
import io.vecflow.collector.enrich.snmp.SnmpPoller.Settings;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The poller in this (the root) namespace polls a real snmpd that runs inside a network namespace the test creates,
 * over a veth pair (an unused 10.251.x.y/30: .1 here, .2 inside), as the collector polls a router: the namespace's
 * end of the pair is {@code xe-0-0-1} with the kernel alias {@code transit: ACME (AS64500)} (a veth reports 10000
 * Mb/s), next to twelve more ports ({@code ge-0-0-0..11}, veth pairs inside the namespace). The real snmpget is the
 * judge of what the agent serves. Needs root; fails (never skips) without it or without snmpd.
 */
class SnmpPollerNetnsTest {
    private static final String ALIAS = "transit: ACME (AS64500)";
    private static final int PORTS = 12;
    private static String ns;
    private static String hostVeth;
    /** Host side and namespace side of the /30. */
    private static String hostAddress;
    private static String agentAddress;
    private static SnmpdFixture snmpd;
    private static SnmpPoller poller;
    /** ifIndex → name of every interface in the namespace (from /sys). */
    private static final Map<Long, String> INTERFACES = new LinkedHashMap<>();

    @BeforeAll
    static void setUp() throws Exception {
        String id = HexFormat.of().formatHex(randomBytes(3));
        ns = "vf-snmp-" + id;
        hostVeth = "vfsn" + id;
        SnmpdFixture.sh("ip", "netns", "add", ns);
        SnmpdFixture.sh("ip", "link", "add", hostVeth, "type", "veth", "peer", "name", "xe-0-0-1", "netns", ns);
        int[] net = freeSubnet();
        hostAddress = "10.251." + net[0] + "." + (net[1] + 1);
        agentAddress = "10.251." + net[0] + "." + (net[1] + 2);
        SnmpdFixture.sh("ip", "addr", "add", hostAddress + "/30", "dev", hostVeth);
        SnmpdFixture.sh("ip", "link", "set", hostVeth, "up");
        ip("addr", "add", agentAddress + "/30", "dev", "xe-0-0-1");
        ip("link", "set", "dev", "xe-0-0-1", "alias", ALIAS);
        ip("link", "set", "xe-0-0-1", "up");
        ip("link", "set", "lo", "up");
        for (int i = 0; i < PORTS; i += 2) { // veth pairs inside the namespace (no dummy module on every kernel)
            ip("link", "add", "ge-0-0-" + i, "type", "veth", "peer", "name", "ge-0-0-" + (i + 1));
        }
        for (int i = 0; i < PORTS; i++) {
            if (i % 3 == 0) {
                ip("link", "set", "dev", "ge-0-0-" + i, "alias", "customer " + i);
            } else if (i % 3 == 1) {
                ip("link", "set", "dev", "ge-0-0-" + i, "alias", "ge-0-0-" + i); // alias = name: no description
            }
        }
        String names = SnmpdFixture.sh("ip", "netns", "exec", ns, "ls", "/sys/class/net");
        for (String name : names.strip().split("\\s+")) {
            INTERFACES.put(SnmpdFixture.ifIndex(ns, name), name);
        }
        snmpd = SnmpdFixture.builder().namespace(ns).address(agentAddress).sysName("edge1.lab.example").start();
        assertThat(snmpd.copyKernelAliases()).containsValue(ALIAS).hasSize(1 + 2 * PORTS / 3);
        poller = new SnmpPoller(new Settings(1000, 1, 161, 10));
    }

    @AfterAll
    static void tearDown() throws Exception {
        if (poller != null) {
            poller.close();
        }
        if (snmpd != null) {
            snmpd.close();
        }
        if (hostVeth != null) {
            quietly("ip", "link", "del", hostVeth); // also removes the namespace's end
        }
        if (ns != null) {
            SnmpdFixture.sh("ip", "netns", "del", ns);
        }
    }

    private static void ip(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ip", "-n", ns));
        cmd.addAll(List.of(args));
        SnmpdFixture.sh(cmd.toArray(String[]::new));
    }

    private static void quietly(String... cmd) {
        try {
            SnmpdFixture.sh(cmd);
        } catch (IOException e) {
            // already gone
        }
    }

    /** @return {X, Y} of a 10.251.X.Y/30 (Y a multiple of 4) no address of this namespace is in */
    private static int[] freeSubnet() throws IOException {
        String addrs = SnmpdFixture.sh("ip", "-4", "-o", "addr", "show");
        for (int attempt = 0; attempt < 50; attempt++) {
            int x = ThreadLocalRandom.current().nextInt(256);
            int y = ThreadLocalRandom.current().nextInt(64) * 4;
            boolean used = false;
            for (int h = y; h < y + 4; h++) {
                used |= addrs.contains(" 10.251." + x + "." + h + "/");
            }
            if (!used) {
                return new int[] {x, y};
            }
        }
        throw new IOException("no free /30 in 10.251.0.0/16");
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }

    private static Result get(java.util.concurrent.CompletableFuture<Result> f) throws Exception {
        try {
            return f.get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("poll failed: " + e.getCause().getMessage() + "; snmpd log: " + snmpd.log(),
                    e.getCause());
        }
    }

    /** The judge's view of one interface: what the poller must report. */
    private static InterfaceResult judged(long ifIndex) throws IOException {
        List<String> v = List.copyOf(snmpd.snmpget("1.3.6.1.2.1.2.2.1.2." + ifIndex,
                "1.3.6.1.2.1.31.1.1.1.1." + ifIndex, "1.3.6.1.2.1.31.1.1.1.18." + ifIndex,
                "1.3.6.1.2.1.31.1.1.1.15." + ifIndex).values());
        String descr = v.get(0);
        String name = v.get(1);
        String alias = v.get(2);
        String description = !alias.isEmpty() && !alias.equals(name) ? alias : !descr.equals(name) ? descr : "";
        return new InterfaceResult(ifIndex, name, description, Long.parseLong(v.get(3)));
    }

    @Test
    void transitInterfaceInsideTheNamespace() throws Exception {
        long xe = SnmpdFixture.ifIndex(ns, "xe-0-0-1");
        for (SnmpCredentials c : List.of(SnmpCredentials.v2c(SnmpdFixture.COMMUNITY),
                SnmpdFixture.USER.credentials())) {
            Result r = get(poller.poll(snmpd.agent(), c, new long[] {xe}));
            assertThat(r.exporter()).isEqualTo(InetAddress.getByName(agentAddress));
            assertThat(r.sysName()).isEqualTo("edge1.lab.example")
                    .isEqualTo(snmpd.snmpget("1.3.6.1.2.1.1.5.0").get("1.3.6.1.2.1.1.5.0"));
            assertThat(r.interfaces()).containsExactly(new InterfaceResult(xe, "xe-0-0-1", ALIAS, 10_000))
                    .containsExactly(judged(xe));
            assertThat(r.notFound()).isEmpty();
        }
    }

    @Test
    void fiftyIndexesInFewRequestsFoundAndNotFound() throws Exception {
        long[] asked = new long[50];
        for (int i = 0; i < asked.length; i++) {
            asked[i] = i + 1;
        }
        List<Long> present = new ArrayList<>();
        List<Long> absent = new ArrayList<>();
        for (long i : asked) {
            (INTERFACES.containsKey(i) ? present : absent).add(i);
        }
        assertThat(present).as("lo, xe-0-0-1 and the ge ports have small ifIndexes in a new namespace")
                .hasSize(INTERFACES.size());

        long requests = poller.requests();
        Result r = get(poller.poll(snmpd.agent(), SnmpCredentials.v2c(SnmpdFixture.COMMUNITY), asked));

        assertThat(poller.requests() - requests).as("50 interfaces at 10 per request").isEqualTo(5);
        assertThat(r.interfaces()).extracting(InterfaceResult::ifIndex).containsExactlyElementsOf(present);
        assertThat(r.notFound()).containsExactlyElementsOf(absent);
        for (InterfaceResult i : r.interfaces()) {
            assertThat(i.name()).isEqualTo(INTERFACES.get(i.ifIndex()));
            assertThat(i).isEqualTo(judged(i.ifIndex()));
        }
        assertThat(r.interfaces()).filteredOn(i -> i.name().equals("ge-0-0-0")).singleElement()
                .extracting(InterfaceResult::description).isEqualTo("customer 0");
        assertThat(r.interfaces()).filteredOn(i -> i.name().equals("ge-0-0-1")).singleElement()
                .extracting(InterfaceResult::description).as("alias = name, ifDescr = name").isEqualTo("");
    }
}
