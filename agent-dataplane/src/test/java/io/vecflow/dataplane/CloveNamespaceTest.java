package io.vecflow.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.common.NetNamespace;
import io.vecflow.dataplane.config.DataplaneConfig;
import io.vecflow.dataplane.control.ControlClient;
import io.vecflow.dataplane.netns.NetnsLab;
import io.vecflow.dataplane.plugins.clove.Clove;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CLOVE on a leaf–spine of Linux namespaces (docs/load-balancing.md §4; needs root; every namespace, veth and rule is
 * created and removed here by {@link NetnsLab}, names prefixed {@code vfcl-}):
 *
 * <pre>
 *  h1 ── hv1 (vecflow, clove vtep 10.255.1.2) ── leaf1 ═╦═ spine1 ═╗
 *  10.0.1.1                                            ╠═ spine2 ═╣
 *                                                      ╠═ spine3 ═╣  (tbf 8 Mbit/s + ECN marking toward leaf2)
 *                                                      ╚═ spine4 ═╩═ leaf2 ── hv2 (vecflow, vtep 10.255.2.2) ── h2
 *                                                                                                       10.0.2.1
 * </pre>
 *
 * The leaves route the other leaf's endpoint network over four equal-cost next hops, hashing on the outer 5-tuple
 * ({@code fib_multipath_hash_policy=1}), so the Geneve source port picks the spine. Asserted: the probes find four
 * ports that each cross a different spine (the routers' ICMP Time Exceeded, sourced from the inbound interface);
 * bulk TCP from h1 to h2 in flowlets (bursts with 3 ms gaps), with spine3's link toward leaf2 limited and marking
 * CE on what exceeds 75 % of its rate, makes hv2 relay the marks and hv1 cut spine3's weight below 0.3 while every
 * other path's weight only grows (above 1.0, never cut); every byte arrives.
 *
 * <p>This kernel has no netem, red or fq_codel qdisc (only tbf, htb, pfifo, bfifo), so the marking is an nftables
 * rate meter in front of the tbf bottleneck ({@code limit rate over … ip ecn set ce}) instead of a queue-length AQM.
 */
class CloveNamespaceTest {
    private static final int SPINES = 4, CONNECTIONS = 6, CHUNK = 48 * 1024, PORT = 5001;
    private static final String H1 = "10.0.1.1", H2 = "10.0.2.1", VTEP1 = "10.255.1.2", VTEP2 = "10.255.2.2";
    private static final String MAC_HV1_VM = "02:00:00:c1:00:01", MAC_HV1_UP = "02:00:00:c1:00:02";
    private static final String MAC_HV2_VM = "02:00:00:c2:00:01", MAC_HV2_UP = "02:00:00:c2:00:02";
    private static final String MAC_H1 = "02:00:00:c1:01:01", MAC_H2 = "02:00:00:c2:01:01";
    private static final String MAC_LEAF1 = "02:00:00:c1:02:01", MAC_LEAF2 = "02:00:00:c2:02:01";

    @TempDir
    Path tmp;

    private NetnsLab lab;

    private String ns(String s) {
        return lab.ns(s);
    }

    private String dev(String s) {
        return lab.dev(s);
    }

    /** A veth pair between two namespaces, both ends up, each with an optional address and MAC. */
    private void link(String nsA, String a, String addrA, String macA, String nsB, String b, String addrB,
            String macB) throws Exception {
        lab.veth(ns(nsA), dev(a), ns(nsB), dev(b));
        for (String[] e : new String[][] {{nsA, a, addrA, macA}, {nsB, b, addrB, macB}}) {
            if (e[3] != null) {
                lab.ip(ns(e[0]), "link", "set", dev(e[1]), "address", e[3]);
            }
            lab.address(ns(e[0]), dev(e[1]), e[2]);
            lab.ip(ns(e[0]), "link", "set", dev(e[1]), "up");
        }
    }

    private void topology() throws Exception {
        lab = NetnsLab.open("vfcl");
        List<String> names = new ArrayList<>(List.of("h1", "hv1", "leaf1", "leaf2", "hv2", "h2"));
        for (int k = 1; k <= SPINES; k++) {
            names.add("s" + k);
        }
        for (String n : names) {
            lab.namespace(n);
            lab.sysctl(ns(n), "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1");
            if (n.startsWith("leaf") || n.startsWith("s")) {
                lab.sysctl(ns(n), "net.ipv4.ip_forward=1", "net.ipv4.icmp_ratelimit=0",
                        "net.ipv4.icmp_errors_use_inbound_ifaddr=1", "net.ipv4.conf.all.rp_filter=0",
                        "net.ipv4.conf.default.rp_filter=0");
            }
        }
        lab.sysctl(ns("leaf1"), "net.ipv4.fib_multipath_hash_policy=1");
        lab.sysctl(ns("leaf2"), "net.ipv4.fib_multipath_hash_policy=1");
        // hosts ↔ their hypervisor's dataplane ports (no ARP in the dataplane: static neighbours both ways)
        link("h1", "h1", H1 + "/24", MAC_H1, "hv1", "vm1", null, MAC_HV1_VM);
        link("h2", "h2", H2 + "/24", MAC_H2, "hv2", "vm2", null, MAC_HV2_VM);
        for (String[] h : new String[][] {{"h1", "h1", "10.0.1.254", MAC_HV1_VM, "10.0.2.0/24"},
            {"h2", "h2", "10.0.2.254", MAC_HV2_VM, "10.0.1.0/24"}}) {
            lab.ip(ns(h[0]), "link", "set", dev(h[1]), "mtu", "1400"); // + 36..52 bytes of Geneve ≤ 1500
            lab.txChecksumOff(ns(h[0]), dev(h[1])); // also SG and TSO: MTU-sized frames with full checksums
            lab.ip(ns(h[0]), "neigh", "add", h[2], "lladdr", h[3], "dev", dev(h[1]), "nud", "permanent");
            lab.route(ns(h[0]), h[4] + " via " + h[2] + " dev " + dev(h[1]));
        }
        // hypervisor uplinks ↔ leaves
        link("hv1", "up1", null, MAC_HV1_UP, "leaf1", "l1", "10.255.1.1/24", MAC_LEAF1);
        link("hv2", "up2", null, MAC_HV2_UP, "leaf2", "l2", "10.255.2.1/24", MAC_LEAF2);
        lab.ip(ns("leaf1"), "neigh", "add", VTEP1, "lladdr", MAC_HV1_UP, "dev", dev("l1"), "nud", "permanent");
        lab.ip(ns("leaf2"), "neigh", "add", VTEP2, "lladdr", MAC_HV2_UP, "dev", dev("l2"), "nud", "permanent");
        // the fabric: leaf1 ═ spine k ═ leaf2
        StringBuilder up = new StringBuilder("10.255.2.0/24"), down = new StringBuilder("10.255.1.0/24");
        for (int k = 1; k <= SPINES; k++) {
            lab.link(ns("leaf1"), dev("a" + k), "10.1." + k + ".1/24", ns("s" + k), dev("x" + k), "10.1." + k
                    + ".2/24");
            lab.link(ns("s" + k), dev("y" + k), "10.2." + k + ".2/24", ns("leaf2"), dev("b" + k), "10.2." + k
                    + ".1/24");
            lab.route(ns("s" + k), "10.255.2.0/24 via 10.2." + k + ".1");
            lab.route(ns("s" + k), "10.255.1.0/24 via 10.1." + k + ".1");
            up.append(" nexthop via 10.1.").append(k).append(".2 dev ").append(dev("a" + k));
            down.append(" nexthop via 10.2.").append(k).append(".2 dev ").append(dev("b" + k));
        }
        lab.route(ns("leaf1"), up.toString());
        lab.route(ns("leaf2"), down.toString());
    }

    /** Spine 3's link toward leaf2: 8 Mbit/s, and CE on tunnel packets beyond 75 % of it. */
    private void congestSpine3() throws Exception {
        lab.exec(ns("s3"), NetnsLab.COMMAND_TIMEOUT, "tc", "qdisc", "add", "dev", dev("y3"), "root", "tbf", "rate",
                "8mbit", "burst", "16kb", "latency", "50ms");
        Path rules = tmp.resolve("mark.nft");
        Files.writeString(rules, """
                table ip clove_lab {
                  chain forward {
                    type filter hook forward priority 0; policy accept;
                    ip daddr 10.255.2.0/24 udp dport 6081 limit rate over 750 kbytes/second ip ecn set ce
                  }
                }
                """);
        lab.exec(ns("s3"), NetnsLab.COMMAND_TIMEOUT, "nft", "-f", rules.toString());
    }

    @AfterEach
    void remove() {
        if (lab != null) {
            lab.close();
        }
    }

    private DataplaneConfig config(String name, String vm, String upDev, String macVm, String macUp, String host,
            String hostMac, String leaf, String leafMac, String vtep, String peerVtep, String peerPrefix)
            throws IOException {
        String y = """
                workers: 1
                ports:
                  - {name: vm, type: af_packet, if-index: 1, netns: %1$s, mac: "%2$s", mode: l3, \
                    af-packet: {interface: %3$s}}
                  - {name: up, type: af_packet, if-index: 2, netns: %1$s, mac: "%4$s", mode: l3, \
                    af-packet: {interface: %5$s}}
                routes:
                  - {prefix: "%6$s/32", via: "%6$s", port: vm}
                  - {prefix: "10.255.0.0/16", via: "%8$s", port: up}
                neighbours:
                  - {address: "%6$s", mac: "%7$s", port: vm}
                  - {address: "%8$s", mac: "%9$s", port: up}
                sflow:
                  sampling-rate: 0
                  usersock-groups: {psample: 24, net-dm: 25, counters: 26}
                control-socket: %10$s
                metrics: {port: 0}
                clove:
                  vtep: %11$s
                  encap: geneve
                  vni: 100
                  mode: ecn
                  paths: 4
                  flowlet-gap-us: 500
                  ecn-window-us: 40
                  probe: {first-port: 49152, candidates: 32, max-ttl: 3, interval: 600, settle-ms: 1500}
                  destinations:
                    - {vtep: %12$s, prefixes: ["%13$s"]}
                """.formatted(ns(name), macVm, vm, macUp, upDev, host, hostMac, leaf, leafMac,
                tmp.resolve(name + ".sock"), vtep, peerVtep, peerPrefix);
        Path f = tmp.resolve(name + ".yaml");
        Files.writeString(f, y);
        return DataplaneConfig.load(f);
    }

    /**
     * Waits (≤ 20 s) until hv1's probes found four ports whose second hop is each spine once; returns the port per
     * spine.
     */
    private static int[] awaitPaths(Clove.Destination d) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        String last = "";
        while (System.nanoTime() < end) {
            int[] ports = d.ports();
            int[] bySpine = new int[SPINES + 1];
            boolean complete = ports.length == SPINES;
            StringBuilder seen = new StringBuilder();
            for (int p : ports) {
                String sig = d.signature(p);
                seen.append(p).append(": ").append(sig).append("; ");
                String[] hops = sig == null ? new String[0] : sig.split(" > ");
                if (hops.length < 2 || !hops[0].equals("10.255.1.1") || !hops[1].matches("10\\.1\\.[1-4]\\.2")) {
                    complete = false;
                    continue;
                }
                int k = hops[1].charAt(5) - '0';
                complete &= bySpine[k] == 0;
                bySpine[k] = p;
            }
            last = seen.toString();
            if (complete) {
                return bySpine;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("probes did not map four ports to the four spines within 20 s: " + last);
    }

    @Test
    void cloveEcnMovesWeightOffTheCongestedSpine() throws Exception {
        topology();
        DataplaneAssembly hv1 = DataplaneAssembly.open(config("hv1", dev("vm1"), dev("up1"), MAC_HV1_VM, MAC_HV1_UP,
                H1, MAC_H1, "10.255.1.1", MAC_LEAF1, VTEP1, VTEP2, "10.0.2.0/24"), System.err::println, true);
        DataplaneAssembly hv2 = null;
        ExecutorService pool = Executors.newCachedThreadPool();
        boolean started = false;
        try {
            hv2 = DataplaneAssembly.open(config("hv2", dev("vm2"), dev("up2"), MAC_HV2_VM, MAC_HV2_UP, H2, MAC_H2,
                    "10.255.2.1", MAC_LEAF2, VTEP2, VTEP1, "10.0.1.0/24"), System.err::println, true);
            hv1.dataplane().start();
            hv2.dataplane().start();
            started = true;
            Clove c1 = hv1.dataplane().plugin(Clove.class), c2 = hv2.dataplane().plugin(Clove.class);
            Clove.Destination toHv2 = c1.destination(0);

            int[] portOfSpine = awaitPaths(toHv2);
            Set<Integer> distinct = new HashSet<>();
            for (int k = 1; k <= SPINES; k++) {
                distinct.add(portOfSpine[k]);
            }
            assertThat(distinct).as("one port per spine").hasSize(SPINES);
            assertThat(toHv2.weights()).containsOnly(1.0);
            assertThat(c1.totals().probesSent).isEqualTo(32 * 3);
            assertThat(c2.totals().probesReceived).as("probes with TTL 3 reach no further than leaf2").isZero();

            congestSpine3();
            AtomicLong received = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            ServerSocket server = NetNamespace.callIn(ns("h2"), () -> {
                ServerSocket s = new ServerSocket();
                s.bind(new InetSocketAddress(H2, PORT), CONNECTIONS);
                return s;
            });
            List<Future<?>> tasks = new ArrayList<>();
            tasks.add(pool.submit(() -> {
                for (int i = 0; i < CONNECTIONS; i++) {
                    Socket s = server.accept();
                    pool.submit(() -> {
                        try (s; InputStream in = s.getInputStream()) {
                            byte[] b = new byte[65536];
                            for (int r; (r = in.read(b)) > 0; ) {
                                received.addAndGet(r);
                            }
                        }
                        return null;
                    });
                }
                return null;
            }));
            AtomicLong sent = new AtomicLong();
            List<Socket> clients = NetNamespace.callIn(ns("h1"), () -> {
                List<Socket> l = new ArrayList<>();
                for (int i = 0; i < CONNECTIONS; i++) {
                    Socket s = new Socket();
                    s.setSoTimeout(20_000);
                    s.connect(new InetSocketAddress(H2, PORT), 10_000);
                    l.add(s);
                }
                return l;
            });
            for (Socket s : clients) {
                tasks.add(pool.submit(() -> {
                    byte[] chunk = new byte[CHUNK];
                    try (s; OutputStream o = s.getOutputStream()) {
                        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                        while (!stop.get() && System.nanoTime() < until) {
                            o.write(chunk); // a burst, then a gap longer than the flowlet gap
                            o.flush();
                            sent.addAndGet(chunk.length);
                            Thread.sleep(3);
                        }
                    }
                    return null;
                }));
            }
            long t0 = System.nanoTime();
            int congestedPath = indexOf(toHv2.ports(), portOfSpine[3]);
            long end = t0 + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < end && toHv2.weights()[congestedPath] >= 0.3) {
                Thread.sleep(100);
            }
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            Thread.sleep(1000); // keep going: the weight must stay down while the others only gain
            stop.set(true);
            for (Future<?> f : tasks) {
                f.get(60, TimeUnit.SECONDS);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (received.get() < sent.get() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            server.close();

            double[] w = toHv2.weights();
            String show1 = ControlClient.send(tmp.resolve("hv1.sock"), "show clove", Duration.ofSeconds(10)).text();
            String show2 = ControlClient.send(tmp.resolve("hv2.sock"), "show clove", Duration.ofSeconds(10)).text();
            String why = "after " + ms + " ms\nhv1:\n" + show1 + "hv2:\n" + show2;
            System.err.println("CloveNamespaceTest: spine3 weight below 0.3 " + why);
            assertThat(w[congestedPath]).as("spine3's weight " + why).isLessThan(0.3);
            double total = 0;
            for (int i = 0; i < w.length; i++) {
                total += w[i];
                if (i != congestedPath) {
                    assertThat(w[i]).as("path " + i + " is never cut, only gains " + why).isGreaterThan(1.0);
                }
            }
            assertThat(total).as("weights keep their sum").isCloseTo(4.0, org.assertj.core.data.Offset.offset(1e-6));
            Clove.Counters t1 = c1.totals(), t2 = c2.totals();
            assertThat(t2.ceReceived).as("hv2 saw CE from spine3 " + why).isPositive();
            assertThat(t2.feedbackSent).as("hv2 relayed marks " + why).isPositive();
            assertThat(t1.feedbackReceived).as("hv1 got them " + why).isPositive();
            assertThat(t1.weightCuts).isEqualTo(toHv2.cuts()).isPositive();
            assertThat(t1.newFlowlets).as("bursts with 3 ms gaps are flowlets").isGreaterThan(CONNECTIONS * 10L);
            assertThat(t1.errors + t2.errors).isZero();
            assertThat(sent.get()).isPositive();
            assertThat(received.get()).as("every byte arrived").isEqualTo(sent.get());
            assertThat(show1).contains("destination " + VTEP2, "via 10.255.1.1 > 10.1.3.2 > 10.2.3.1");
        } finally {
            pool.shutdownNow();
            if (started) {
                hv2.dataplane().stop();
                hv1.dataplane().stop();
            }
            if (hv2 != null) {
                hv2.close();
            }
            hv1.close();
        }
    }

    private static int indexOf(int[] a, int v) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == v) {
                return i;
            }
        }
        throw new AssertionError(v + " not among the paths");
    }
}
