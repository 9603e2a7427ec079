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
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Maglev load balancing of real TCP connections through the dataplane on AF_PACKET ports (needs root; every namespace,
 * veth and process is created and removed here, names prefixed {@code vflb-}, see {@link NetnsLab}).
 *
 * <pre>
 *  client ns ── c0/p0 ──► dataplane ns (vecflow, YAML config, 2 workers) ── p1..p4 ──► server ns 1..4
 *  10.200.0.2            VIP 192.0.2.1 tcp 8080 → Maglev → SRv6 H.Encaps            fc00:k::100 → End.DX4 (TUN)
 *      ▲                                                                             VIP on lo, python3 http.server
 *      └──────────────── r_k (10.202.k.0/24): server → client replies, straight (DSR) ─────────┘
 * </pre>
 *
 * The host kernel has neither GRE nor IPIP (no ip_gre/ipip: "Unknown device type") nor, since 6.18's build here, SRv6
 * endpoints (seg6local: "lwt encapsulation type not supported"), so each backend routes its SID into a TUN device
 * where {@code srv6_end_dx4.py} (python3, not vecflow code) performs End.DX4 (RFC 8986 §4.6: walk the extension
 * headers, Segments Left 0, hand the inner IPv4 packet back to the kernel) — the "Maglev + GRE or SRv6"; the
 * packets' bytes are also judged by tshark in the encap tests. Asserted: every connection
 * completes with its server's page; the server is exactly the one {@link LoadBalancer#backendFor} predicts (Maglev
 * table + hash), each backend gets a quarter ± half of it, and the per-backend new-flow counters equal the
 * connections; removing a backend over the control socket keeps connections already open on it alive (finished
 * afterwards by the same server), new connections avoid it, and flows whose old backend survived stay where they were
 * except the few slots Maglev moves between survivors (the new table predicts each one).
 */
class LbNamespaceTest {
    private static final int SERVERS = 4, CONNECTIONS = 200, HELD = 40, HTTP_PORT = 8080;
    private static final String VIP = "192.0.2.1", CLIENT = "10.200.0.2", GW = "10.200.0.1";
    private static final String MAC_P0 = "02:00:00:00:e0:01";
    private static final Duration NSTAT = Duration.ofSeconds(10);

    @TempDir
    Path tmp;

    private NetnsLab lab;

    private static String serverMac(int k) {
        return "02:00:00:00:5e:0" + k;
    }

    @BeforeEach
    void topology() throws Exception {
        lab = NetnsLab.open("vflb");
        List<String> names = new ArrayList<>(List.of("c", "dp"));
        for (int k = 1; k <= SERVERS; k++) {
            names.add("s" + k);
        }
        for (String s : names) {
            lab.namespace(s);
            // replies leave by r_k, not by the interface the request came in on: no reverse-path filtering
            lab.sysctl(lab.ns(s), "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0");
            if (!s.startsWith("s")) {
                lab.sysctl(lab.ns(s), "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1");
            }
        }
        lab.veth(lab.ns("c"), lab.dev("c0"), lab.ns("dp"), lab.dev("p0"));
        lab.ip(lab.ns("dp"), "link", "set", lab.dev("p0"), "address", MAC_P0, "up");
        lab.address(lab.ns("c"), lab.dev("c0"), CLIENT + "/24");
        lab.ip(lab.ns("c"), "link", "set", lab.dev("c0"), "up");
        // veth offloads the TCP checksum (CHECKSUM_PARTIAL: only the pseudo-header sum is in the frame, and AF_PACKET
        // flags it TP_STATUS_CSUM_NOT_READY); the dataplane forwards frames as received, so the client computes it
        lab.txChecksumOff(lab.ns("c"), lab.dev("c0"));
        lab.ip(lab.ns("c"), "neigh", "add", GW, "lladdr", MAC_P0, "dev", lab.dev("c0"), "nud", "permanent");
        lab.route(lab.ns("c"), VIP + "/32 via " + GW + " dev " + lab.dev("c0"));
        for (int k = 1; k <= SERVERS; k++) {
            String s = lab.ns("s" + k);
            lab.sysctl(s, "net.ipv6.conf.all.forwarding=1", "net.ipv6.conf.all.accept_dad=0",
                    "net.ipv6.conf.default.accept_dad=0");
            // dataplane port p_k ↔ server's tunnel-side veth t_k
            lab.veth(s, lab.dev("t" + k), lab.ns("dp"), lab.dev("p" + k));
            lab.ip(lab.ns("dp"), "link", "set", lab.dev("p" + k), "up");
            lab.ip(s, "link", "set", lab.dev("t" + k), "address", serverMac(k), "up");
            lab.address(s, lab.dev("t" + k), "fc00:" + k + "::2/64");
            lab.address(s, "lo", VIP + "/32");
            endDx4(s, lab.dev("u" + k), "fc00:" + k + "::100/128");
            // the direct return link r_k (server) ↔ b_k (client)
            lab.link(s, lab.dev("r" + k), "10.202." + k + ".2/24", lab.ns("c"), lab.dev("b" + k),
                    "10.202." + k + ".1/24");
            lab.route(s, "10.200.0.0/24 via 10.202." + k + ".1 dev " + lab.dev("r" + k));
            lab.sysctl(lab.ns("c"), "net.ipv4.conf." + lab.dev("b" + k) + ".rp_filter=0");
            IdPages.startServer(lab, s, k, VIP, HTTP_PORT, tmp);
        }
        for (int k = 1; k <= SERVERS; k++) {
            lab.awaitListening(lab.ns("s" + k), VIP, HTTP_PORT, Duration.ofSeconds(20));
        }
    }

    /**
     * Starts {@code srv6_end_dx4.py} on TUN device {@code tun} in namespace {@code ns} and routes {@code sid} into it.
     */
    private void endDx4(String ns, String tun, String sid) throws Exception {
        Path script = tmp.resolve("srv6_end_dx4.py");
        if (!Files.exists(script)) {
            try (var in = LbNamespaceTest.class.getResourceAsStream("netns/srv6_end_dx4.py")) {
                Files.write(script, in.readAllBytes());
            }
        }
        Path ready = tmp.resolve(tun + ".ready");
        lab.start(ns, tmp.resolve(tun + ".log"), "python3", script.toString(), tun, ready.toString());
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!Files.exists(ready)) {
            if (System.nanoTime() > deadline) {
                throw new IOException("srv6_end_dx4.py made no TUN device " + tun + " in 10 s: "
                        + (Files.exists(tmp.resolve(tun + ".log")) ? Files.readString(tmp.resolve(tun + ".log")) : ""));
            }
            Thread.sleep(20);
        }
        lab.ip(ns, "link", "set", tun, "up");
        lab.route(ns, sid + " dev " + tun);
    }

    @AfterEach
    void remove() {
        if (lab != null) {
            lab.close();
        }
    }

    private DataplaneConfig config() throws IOException {
        StringBuilder y = new StringBuilder("""
                workers: 2
                ports:
                  - {name: p0, type: af_packet, if-index: 1, netns: %1$s, mac: "%2$s", mode: l3, \
                    af-packet: {interface: %3$s}}
                """.formatted(lab.ns("dp"), MAC_P0, lab.dev("p0")));
        for (int k = 1; k <= SERVERS; k++) {
            y.append("  - {name: p%d, type: af_packet, if-index: %d, netns: %s, mac: \"02:00:00:00:e0:1%d\", mode: l3, "
                    .formatted(k, k + 1, lab.ns("dp"), k))
                    .append("af-packet: {interface: %s}}\n".formatted(lab.dev("p" + k)));
        }
        y.append("routes:\n");
        for (int k = 1; k <= SERVERS; k++) {
            y.append("  - {prefix: \"fc00:%d::/64\", via: \"fc00:%d::2\", port: p%d}\n".formatted(k, k, k));
        }
        y.append("neighbours:\n");
        for (int k = 1; k <= SERVERS; k++) {
            y.append("  - {address: \"fc00:%d::2\", mac: \"%s\", port: p%d}\n".formatted(k, serverMac(k), k));
        }
        y.append("""
                sflow:
                  sampling-rate: 0
                  usersock-groups: {psample: 24, net-dm: 25, counters: 26}
                control-socket: %s
                lb:
                  ip6-src-address: "fc00:ff::1"
                  vips:
                    - prefix: %s/32
                      protocol: tcp
                      port: %d
                      encap: srv6
                      backends: ["fc00:1::100", "fc00:2::100", "fc00:3::100", "fc00:4::100"]
                """.formatted(tmp.resolve("dp.sock"), VIP, HTTP_PORT));
        Path f = tmp.resolve("lb.yaml");
        Files.writeString(f, y.toString());
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

    private static int request(Socket s) throws IOException {
        return IdPages.request(s, SERVERS);
    }

    private static FlowKey flow(int clientPort) {
        int c = 0x0AC80002, v = 0xC0000201;
        return new FlowKey().setIpv4(c, v, FlowKey.PROTO_TCP, clientPort, HTTP_PORT);
    }

    private static int serverOf(InetAddress sid) {
        return sid.getAddress()[3]; // fc00:k::100 → k
    }

    @Test
    void maglevSpreadsRealConnectionsAndABackendRemovalKeepsOpenOnesAndMovesOnlyItsShare() throws Exception {
        try (DataplaneAssembly a = DataplaneAssembly.open(config(), System.err::println, true)) {
            Dataplane dp = a.dataplane();
            LoadBalancer lb = dp.plugin(LoadBalancer.class);
            VipKey key = new VipKey(InetAddress.ofLiteral(VIP), 32, Protocol.TCP, HTTP_PORT);
            dp.start();
            try {
                scenario(dp, lb, key);
            } catch (Throwable t) {
                System.err.println("DIAGNOSTICS\n" + dp.showErrors() + dp.showInterfaces() + lb.show());
                for (int k = 1; k <= SERVERS; k++) {
                    System.err.println("server " + k + ":\n" + lab.exec(lab.ns("s" + k), NSTAT, "nstat", "-a"));
                }
                System.err.println("client:\n" + lab.exec(lab.ns("c"), NSTAT, "nstat", "-a"));
                throw t;
            } finally {
                dp.stop();
            }
        }
    }

    private void scenario(Dataplane dp, LoadBalancer lb, VipKey key) throws Exception {
        {
            // 1. 200 connections, each answered by the server Maglev picks.
            List<Socket> first = connect(20_000, CONNECTIONS);
            Map<Integer, Integer> share = new HashMap<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                int server = request(first.get(i));
                assertThat(server).as("connection %d: Maglev's choice", i)
                        .isEqualTo(serverOf(lb.backendFor(key, flow(20_000 + i))));
                share.merge(server, 1, Integer::sum);
            }
            assertThat(share).as("shares").hasSize(SERVERS);
            // tolerance: 50 ± 25 each (binomial(200, 1/4) has sigma 6.1: a 4-sigma band)
            assertThat(share.values()).allSatisfy(n -> assertThat(n).isBetween(25, 75));
            for (int k = 1; k <= SERVERS; k++) {
                assertThat(lb.backendCounters(key, InetAddress.ofLiteral("fc00:" + k + "::100")).newFlows())
                        .as("new flows counted for server %d", k).isEqualTo((long) share.get(k));
            }
            // 2. Connections held open (request half sent) across the removal of server 3.
            List<Socket> held = connect(21_000, HELD);
            Map<Integer, Integer> heldOn = new HashMap<>();
            for (int i = 0; i < HELD; i++) {
                IdPages.begin(held.get(i));
                heldOn.put(i, serverOf(lb.backendFor(key, flow(21_000 + i))));
            }
            assertThat(heldOn.values()).as("some held connections are on server 3").contains(3);
            Map<Integer, Integer> before = new HashMap<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                before.put(i, serverOf(lb.backendFor(key, flow(22_000 + i))));
            }
            ControlProtocol.Reply r = ControlClient.send(tmp.resolve("dp.sock"),
                    "lb as " + VIP + "/32 protocol tcp port " + HTTP_PORT + " fc00:3::100 del", Duration.ofSeconds(10));
            assertThat(r.rc()).as(r.text()).isZero();
            String show = ControlClient.send(tmp.resolve("dp.sock"), "show lb", Duration.ofSeconds(10)).text();
            assertThat(show).contains("as fc00:3::100 draining slots 0");
            // 3. New connections avoid server 3; survivors keep theirs except Maglev's few between-survivor moves.
            List<Socket> after = connect(22_000, CONNECTIONS);
            int moved = 0, betweenSurvivors = 0;
            for (int i = 0; i < CONNECTIONS; i++) {
                int server = request(after.get(i));
                assertThat(server).isNotEqualTo(3)
                        .isEqualTo(serverOf(lb.backendFor(key, flow(22_000 + i))));
                if (before.get(i) == 3) {
                    moved++;
                } else if (before.get(i) != server) {
                    betweenSurvivors++;
                }
            }
            assertThat(moved).as("flows that were server 3's").isBetween(25, 75);
            assertThat(betweenSurvivors).as("flows moved between survivors").isLessThan(CONNECTIONS / 25);
            // 4. The held connections finish on the server they started on, server 3 included.
            for (int i = 0; i < HELD; i++) {
                assertThat(finish(held.get(i))).as("held connection %d", i).isEqualTo(heldOn.get(i));
            }
            String flows = ControlClient.send(tmp.resolve("dp.sock"), "show lb flows", Duration.ofSeconds(10)).text();
            assertThat(flows).contains("fc00:3::100 draining");
            LoadBalancer.VipCounters c = lb.vipCounters(key);
            assertThat(c.newFlows()).isEqualTo(2L * CONNECTIONS + HELD);
            assertThat(c.stickyHits()).isPositive();
            assertThat(c.noBackend() + c.tooBig() + c.tableFull()).isZero();
            System.out.printf("lb namespace test: shares %s; after removing server 3: %d of %d new flows moved off "
                    + "it, %d between survivors; %s%n", share, moved, CONNECTIONS, betweenSurvivors, c);
        }
    }
}
