package io.vecflow.hsflowd.net;

import java.net.InetAddress;

/**
 * One address configured on a local interface, as read from rtnetlink (RTM_GETADDR joined with RTM_GETLINK).
 *
 * @param ifIndex   Linux ifindex of the interface
 * @param device    interface name (IFLA_IFNAME)
 * @param address   the address (IFA_LOCAL, else IFA_ADDRESS)
 * @param prefixLength ifa_prefixlen, bits
 * @param loopback  the interface has IFF_LOOPBACK
 * @param vlan      the interface is a VLAN sub-interface (IFLA_INFO_KIND "vlan")
 * @param usable    false for IPv6 addresses that are tentative, deprecated or failed DAD (hsflowd skips them)
 */
public record LocalAddress(int ifIndex, String device, InetAddress address, int prefixLength, boolean loopback,
        boolean vlan, boolean usable) {
}
