package io.vecflow.dataplane;

import io.vecflow.dataplane.config.DataplaneConfig;
import io.vecflow.dataplane.netns.NetnsLab;
import io.vecflow.dataplane.port.AfPacketPort;
import io.vecflow.dataplane.vnet.interfaces.Port;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The topology of the offload namespace tests ({@link OffloadNamespaceTest}, and the it module's
 * {@code OffloadDropsNamespaceTest} through this module's test-jar): namespaces a, b and dp (prefix {@code vfof}, see
 * {@link NetnsLab}), veth pairs a ↔ p0 and b ↔ p1 with the veth offloads left at their defaults, and the dataplane's
 * YAML with its two AF_PACKET ports p0 and p1 in dp.
 *
 * <pre>
 *  ns a ── a / p0 ──► ns dp (vecflow, 2 workers: l2 xconnect p0↔p1, or routed) ── p1 / b ──► ns b
 * </pre>
 */
final class OffloadLab implements AutoCloseable {
    static final String MAC_A = "02:00:00:00:0f:0a", MAC_B = "02:00:00:00:0f:0b";
    static final String MAC_P0 = "02:00:00:00:0f:10", MAC_P1 = "02:00:00:00:0f:11";
    static final int G_PSAMPLE = 27, G_NETDM = 28, G_COUNTERS = 30;

    final NetnsLab lab;
    final String a, b, dp;
    private final Path tmp;

    /**
     * Creates the namespaces and veth pairs (needs root: fails loudly otherwise); whatever was created is removed if
     * a step fails.
     *
     * @param tmp the test's directory for the dataplane's YAML and control socket
     */
    OffloadLab(Path tmp) throws Exception {
        this.tmp = tmp;
        lab = NetnsLab.open("vfof");
        try {
            a = lab.namespace("a");
            b = lab.namespace("b");
            dp = lab.namespace("dp");
            lab.sysctl(dp, "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1");
            for (String ns : new String[] {a, b}) {
                lab.sysctl(ns, "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0");
            }
            lab.veth(a, lab.dev("a"), dp, lab.dev("p0"));
            lab.veth(b, lab.dev("b"), dp, lab.dev("p1"));
            lab.ip(a, "link", "set", lab.dev("a"), "address", MAC_A, "up");
            lab.ip(b, "link", "set", lab.dev("b"), "address", MAC_B, "up");
            lab.ip(dp, "link", "set", lab.dev("p0"), "address", MAC_P0, "up");
            lab.ip(dp, "link", "set", lab.dev("p1"), "address", MAC_P1, "up");
        } catch (Exception | Error e) {
            lab.close();
            throw e;
        }
    }

    /** Removes every namespace, veth and process of the lab. */
    @Override
    public void close() {
        lab.close();
    }

    DataplaneConfig config(String name, String body) throws IOException {
        return config(name, body, "sampling-rate: 0");
    }

    DataplaneConfig config(String name, String body, String sflow) throws IOException {
        return config(name, body, sflow, "");
    }

    /** @param p0AfPacket more af-packet keys of port p0, e.g. {@code ", ring-block-bytes: 4096"} */
    DataplaneConfig config(String name, String body, String sflow, String p0AfPacket) throws IOException {
        String yaml = """
                workers: 2
                ports:
                  - {name: p0, type: af_packet, if-index: 1, netns: %1$s, mac: "%3$s", mode: %5$s, \
                    af-packet: {interface: %2$sp0%12$s}}
                  - {name: p1, type: af_packet, if-index: 2, netns: %1$s, mac: "%4$s", mode: %5$s, \
                    af-packet: {interface: %2$sp1}}
                sflow:
                  %7$s
                  usersock-groups: {psample: %8$d, net-dm: %9$d, counters: %10$d}
                control-socket: %6$s
                metrics: {port: %11$d}
                """.formatted(dp, lab.dev(""), MAC_P0, MAC_P1, body.startsWith("xconnects") ? "l2" : "l3",
                tmp.resolve(name + ".sock"), sflow.replace("\n", "\n  "), G_PSAMPLE, G_NETDM, G_COUNTERS,
                freePort(), p0AfPacket) + body;
        Path f = tmp.resolve(name + ".yaml");
        Files.writeString(f, yaml);
        return DataplaneConfig.load(f);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static String diagnostics(Dataplane d) {
        StringBuilder sb = new StringBuilder("show errors:\n").append(d.showErrors()).append("show interfaces:\n")
                .append(d.showInterfaces());
        for (Port p : d.interfaces().ports()) {
            if (p instanceof AfPacketPort ap) {
                sb.append(ap.name()).append(": ").append(ap.offloadSummary()).append('\n');
            }
        }
        return sb.toString();
    }
}
