package io.vecflow.hsflowd.net;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * Chooses the sFlow agent address as hsflowd does (sflow/host-sflow {@code src/Linux/hsflowconfig.c}
 * {@code agentAddressPriority}, {@code priorityHigher}, {@code selectAgentAddress}; docs/netlink.md §6 rule 11):
 * <ol>
 *   <li>{@code agentIP=}: that address, whether or not it is configured locally;</li>
 *   <li>otherwise every usable local address gets a class priority — from lowest: class E, multicast, IPv6
 *       loopback, IPv4 loopback, IPv4 self-assigned (169.254/16), IPv6 link-local, IPv6 on a VLAN, IPv4 on a VLAN,
 *       IPv6 unique-local (fc00::/7), IPv6 global, IPv4 RFC 1918, IPv4 global (so IPv4 is preferred) — boosted by
 *       {@code agent.cidr=} (the first matching entry; entries earlier in the file boost more; a {@code !prefix} entry
 *       excludes the address) and by {@code agent=DEV} (addresses on that device win their class);</li>
 *   <li>ties go to the lower ifIndex, then to the address listed first.</li>
 * </ol>
 * Tentative, deprecated and DAD-failed IPv6 addresses are skipped; multicast addresses are never chosen. Pure
 * function of its inputs; the caller re-runs it when addresses change (an address that disappears is no longer a
 * candidate, so the next best is chosen).
 */
public final class AgentAddressSelector {
    private AgentAddressSelector() {}

    static final int NONE = 0;
    static final int CLASS_E = 1;
    static final int MULTICAST = 2;
    static final int LOOPBACK6 = 3;
    static final int LOOPBACK4 = 4;
    static final int SELFASSIGNED4 = 5;
    static final int IP6_LINK = 6;
    static final int VLAN6 = 7;
    static final int VLAN4 = 8;
    static final int IP6_UNIQUE = 9;
    static final int IP6_GLOBAL = 10;
    static final int IP4_RFC1918 = 11;
    static final int IP4 = 12;
    static final int NUM_PRIORITIES = 13;

    /**
     * The selection.
     *
     * @param address the agent address
     * @param device  the interface it is on, or null (agentIP not configured locally)
     * @param reason  why it was chosen: {@code agentIP}, {@code agent.cidr}, {@code agent device}, {@code priority}
     */
    public record Choice(InetAddress address, String device, String reason) {}

    /** A parsed {@code agent.cidr} entry. */
    record Cidr(byte[] network, int prefix, boolean not) {
        boolean matches(InetAddress a) {
            byte[] b = a.getAddress();
            if (b.length != network.length) {
                return false;
            }
            int full = prefix / 8;
            for (int i = 0; i < full; i++) {
                if (b[i] != network[i]) {
                    return false;
                }
            }
            int rest = prefix % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xFF << (8 - rest)) & 0xFF;
            return (b[full] & mask) == (network[full] & mask);
        }
    }

    /**
     * Parses an {@code agent.cidr} value: {@code [!]ADDRESS/PREFIX} (IPv4 or IPv6 literal).
     *
     * @throws IllegalArgumentException naming the value and what is wrong
     */
    static Cidr parseCidr(String value) {
        String v = value.trim();
        boolean not = v.startsWith("!");
        if (not) {
            v = v.substring(1);
        }
        int slash = v.indexOf('/');
        if (slash <= 0) {
            throw new IllegalArgumentException("agent.cidr '" + value + "' is not ADDRESS/PREFIX");
        }
        String addr = v.substring(0, slash);
        if (!addr.matches("[0-9A-Fa-f.:]+")) {
            throw new IllegalArgumentException("agent.cidr '" + value + "': '" + addr + "' is not an IP literal");
        }
        byte[] net;
        try {
            net = InetAddress.getByName(addr).getAddress(); // a literal: no lookup
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("agent.cidr '" + value + "': '" + addr + "' is not an IP literal");
        }
        int prefix;
        try {
            prefix = Integer.parseInt(v.substring(slash + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("agent.cidr '" + value + "': prefix is not a number");
        }
        if (prefix < 0 || prefix > net.length * 8) {
            throw new IllegalArgumentException("agent.cidr '" + value + "': prefix " + prefix + " outside 0.."
                    + net.length * 8);
        }
        return new Cidr(net, prefix, not);
    }

    /** hsflowd's class priority of one address (before boosts). */
    static int classPriority(LocalAddress la) {
        InetAddress a = la.address();
        if (a.isMulticastAddress()) {
            return NONE;
        }
        if (a instanceof Inet4Address) {
            byte[] b = a.getAddress();
            int b0 = b[0] & 0xFF;
            int b1 = b[1] & 0xFF;
            if (la.loopback() || b0 == 127) {
                return LOOPBACK4;
            }
            if (b0 == 169 && b1 == 254) {
                return SELFASSIGNED4;
            }
            if (la.vlan()) {
                return VLAN4;
            }
            if (b0 == 10 || (b0 == 172 && (b1 & 0xF0) == 16) || (b0 == 192 && b1 == 168)) {
                return IP4_RFC1918;
            }
            if (b0 >= 240) {
                return CLASS_E;
            }
            return IP4;
        }
        if (a instanceof Inet6Address) {
            byte[] b = a.getAddress();
            if (la.loopback() || a.isLoopbackAddress()) {
                return LOOPBACK6;
            }
            if (a.isLinkLocalAddress()) {
                return IP6_LINK;
            }
            if ((b[0] & 0xFE) == 0xFC) {
                return IP6_UNIQUE;
            }
            if (la.vlan()) {
                return VLAN6;
            }
            return IP6_GLOBAL;
        }
        return NONE;
    }

    /**
     * Chooses the agent address.
     *
     * @param agentIP     {@code agentIP=} or null
     * @param cidrs       {@code agent.cidr=} values in file order (may be empty)
     * @param agentDevice {@code agent=} or null
     * @param addresses   local addresses (e.g. {@link RtnetlinkAddresses#read()}), in discovery order
     * @return the choice, or null when no address qualifies
     * @throws IllegalArgumentException for an invalid agentIP literal or agent.cidr
     */
    public static Choice select(String agentIP, List<String> cidrs, String agentDevice, List<LocalAddress> addresses) {
        if (agentIP != null) {
            InetAddress a;
            try {
                a = InetAddress.getByName(agentIP);
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("agentIP '" + agentIP + "' does not resolve");
            }
            String dev = null;
            for (LocalAddress la : addresses) {
                if (la.address().equals(a)) {
                    dev = la.device();
                    break;
                }
            }
            return new Choice(a, dev, "agentIP");
        }
        List<Cidr> parsed = new ArrayList<>();
        for (String c : cidrs) {
            parsed.add(parseCidr(c));
        }
        LocalAddress best = null;
        int bestPriority = 0;
        String bestReason = null;
        for (LocalAddress la : addresses) {
            if (!la.usable()) {
                continue;
            }
            int p = classPriority(la);
            if (p == NONE) {
                continue;
            }
            String reason = "priority";
            for (int i = 0; i < parsed.size(); i++) {
                Cidr c = parsed.get(i);
                if (c.matches(la.address())) {
                    if (c.not()) {
                        p = NONE;
                    } else {
                        p += (parsed.size() - i) * NUM_PRIORITIES; // earlier in the file boosts more
                        reason = "agent.cidr";
                    }
                    break;
                }
            }
            if (p == NONE) {
                continue;
            }
            if (agentDevice != null && agentDevice.equals(la.device())) {
                p += NUM_PRIORITIES;
                reason = "agent device";
            }
            if (best == null || p > bestPriority || (p == bestPriority && la.ifIndex() < best.ifIndex())) {
                best = la;
                bestPriority = p;
                bestReason = reason;
            }
        }
        return best == null ? null : new Choice(best.address(), best.device(), bestReason);
    }
}
