package io.vecflow.dataplane.plugins.lb;

import java.net.InetAddress;
import java.util.Locale;
import java.util.Objects;

/**
 * Identifies a VIP as VPP's lb does ({@code lb_vip_find_index}): prefix, and protocol + port for a per-port VIP.
 *
 * @param prefix       network address (host bits zero), IPv4 or IPv6
 * @param prefixLength 0..32 (IPv4) or 0..128 (IPv6)
 * @param protocol     TCP or UDP for a per-port VIP; {@code null} for an all-port VIP
 * @param port         1..65535 for a per-port VIP; 0 for an all-port VIP
 */
public record VipKey(InetAddress prefix, int prefixLength, Protocol protocol, int port) {
    /** @throws IllegalArgumentException inconsistent fields */
    public VipKey {
        Objects.requireNonNull(prefix, "prefix");
        int max = prefix.getAddress().length * 8;
        if (prefixLength < 0 || prefixLength > max) {
            throw new IllegalArgumentException("prefix length " + prefixLength + " outside 0.." + max);
        }
        if ((protocol == null) != (port == 0) || port < 0 || port > 65535) {
            throw new IllegalArgumentException("protocol " + protocol + " with port " + port
                    + ": a per-port VIP needs both (port 1..65535), an all-port VIP neither");
        }
    }

    @Override
    public String toString() {
        byte[] a = prefix.getAddress(); // RFC 5952 text for IPv6 (2001:db8::1, not 2001:db8:0:0:0:0:0:1)
        return io.vecflow.common.IpAddresses.toString(a, 0, a.length) + "/" + prefixLength
                + (protocol == null ? "" : " protocol " + protocol.name().toLowerCase(Locale.ROOT) + " port " + port);
    }
}
