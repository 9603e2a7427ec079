package io.vecflow.lab.kernel;

/** Network setup shared by the checks (guest only: it changes the guest's network configuration). */
final class Net {
    private Net() {}

    /**
     * Creates veth pair {@code a} ↔ {@code b}, MTU 9000 (the capture's largest frames fit), IPv6 off on both before
     * they come up (no router solicitations or DAD frames), both up.
     */
    static void vethPair(String a, String b) {
        Sh.run("sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1", "net.ipv6.conf.all.disable_ipv6=1");
        Sh.run("ip", "link", "add", a, "mtu", "9000", "type", "veth", "peer", "name", b, "mtu", "9000");
        Sh.run("ip", "link", "set", a, "up");
        Sh.run("ip", "link", "set", b, "up");
    }
}
