package io.vecflow.dataplane.vnet.interfaces;

import io.vecflow.dataplane.graph.FeatureArc;
import java.util.ArrayList;
import java.util.List;

/**
 * The dataplane's interfaces by ifIndex (VPP's hardware/software interface pools, simplified: one software interface
 * per port): the port, its MAC address, MTU, whether it routes (L3), its L2 cross-connect peer and the OS ifIndex it is
 * known by outside the dataplane, if configured. Shared by every
 * worker; configured before the workers start, except the cross-connect and L3 mode which the control thread may
 * change (plain array writes, seen by workers within a dispatch round or so).
 */
public final class InterfaceTable {
    /** hsflowd's default {@code vpp { ifOffset }}: the OSINDEX of port i without a configured one is this + i. */
    public static final long DEFAULT_IF_OFFSET = 1_000_000_000L;

    private final Port[] ports;
    private final long[] mac;
    private final int[] mtu;
    private final boolean[] l3;
    private final int[] xconnect;
    private final long[] osIndex;
    private final String[] names;
    private final int maxIfIndex;
    private final List<Port> list = new ArrayList<>();

    /**
     * @param maxIfIndex largest ifIndex any port will have (1..{@link FeatureArc#MAX_IF_INDEX})
     */
    public InterfaceTable(int maxIfIndex) {
        if (maxIfIndex < 1 || maxIfIndex > FeatureArc.MAX_IF_INDEX) {
            throw new IllegalArgumentException("maxIfIndex must be 1.." + FeatureArc.MAX_IF_INDEX);
        }
        this.maxIfIndex = maxIfIndex;
        ports = new Port[maxIfIndex + 1];
        mac = new long[maxIfIndex + 1];
        mtu = new int[maxIfIndex + 1];
        l3 = new boolean[maxIfIndex + 1];
        xconnect = new int[maxIfIndex + 1];
        osIndex = new long[maxIfIndex + 1];
        names = new String[maxIfIndex + 1];
    }

    /**
     * Adds a port.
     *
     * @param p the port (its ifIndex must be free and ≤ maxIfIndex)
     * @param macAddress the port's MAC (48 bits), the source MAC of routed frames it sends
     * @param mtuBytes L3 MTU in bytes (IP packet size; 1500 typical)
     * @param routed true: IPv4/IPv6 frames go to the IP nodes; false: the port is L2 (cross-connect)
     * @throws IllegalArgumentException for a taken or out-of-range ifIndex
     */
    public void add(Port p, long macAddress, int mtuBytes, boolean routed) {
        add(p, p.name(), macAddress, mtuBytes, routed);
    }

    /**
     * Adds a port under an interface name of its own (e.g. the config's {@code eth0} for an AF_PACKET socket on
     * {@code veth-dp0}).
     *
     * @param p the port
     * @param name interface name for {@code show interfaces}, {@code sflow enable}, IF_COUNTERS PORTNAME (unique)
     * @param macAddress the port's MAC (48 bits)
     * @param mtuBytes L3 MTU in bytes
     * @param routed true for an L3 port
     * @throws IllegalArgumentException for a taken or out-of-range ifIndex or a taken name
     */
    public synchronized void add(Port p, String name, long macAddress, int mtuBytes, boolean routed) {
        if (port(name) != null) {
            throw new IllegalArgumentException("interface name " + name + " is used twice");
        }
        int i = p.ifIndex();
        if (i > maxIfIndex) {
            throw new IllegalArgumentException("port " + p.name() + ": ifIndex " + i + " above " + maxIfIndex);
        }
        if (ports[i] != null) {
            throw new IllegalArgumentException("port " + p.name() + ": ifIndex " + i + " already used by "
                    + ports[i].name());
        }
        ports[i] = p;
        names[i] = name;
        mac[i] = macAddress;
        mtu[i] = mtuBytes;
        l3[i] = routed;
        list.add(p);
    }

    /**
     * Cross-connects two ports both ways (VPP {@code set interface l2 xconnect}).
     *
     * @throws IllegalArgumentException if either is not a port
     */
    public void xconnect(int a, int b) {
        check(a);
        check(b);
        xconnect[a] = b;
        xconnect[b] = a;
    }

    private void check(int i) {
        if (i < 1 || i > maxIfIndex || ports[i] == null) {
            throw new IllegalArgumentException("no interface with ifIndex " + i);
        }
    }

    /** @return the port with this ifIndex, or null. */
    public Port port(int ifIndex) {
        return ifIndex > 0 && ifIndex <= maxIfIndex ? ports[ifIndex] : null;
    }

    /**
     * @param name interface name
     * @return the port, or null
     */
    public Port port(String name) {
        for (Port p : list) {
            if (names[p.ifIndex()].equals(name)) {
                return p;
            }
        }
        return null;
    }

    /** @return the interface name of {@code ifIndex}, or null. */
    public String name(int ifIndex) {
        return ifIndex > 0 && ifIndex <= maxIfIndex ? names[ifIndex] : null;
    }

    /** @return every port, in the order added. */
    public List<Port> ports() {
        return List.copyOf(list);
    }

    /** @return the cross-connect peer of {@code ifIndex}, 0 when none. */
    public int xconnectPeer(int ifIndex) {
        return ifIndex > 0 && ifIndex <= maxIfIndex ? xconnect[ifIndex] : 0;
    }

    /**
     * Sets the OS ifIndex a port is known by outside the dataplane (VPP's linux-cp pair: the Linux ifindex of the
     * port's netdev, as the agent's host sees it), reported as IF_COUNTERS OSINDEX and as NET_DM IN_PORT. Configure
     * before the dataplane is built.
     *
     * @param ifIndex the port
     * @param os the OS ifIndex, 1..4294967295, or 0 for none (then {@code Dataplane#osIndex} derives one)
     * @throws IllegalArgumentException if there is no such port or {@code os} is outside the u32 range
     */
    public void setOsIndex(int ifIndex, long os) {
        check(ifIndex);
        if (os < 0 || os > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("os-index " + os + " of ifIndex " + ifIndex + " outside 0..4294967295");
        }
        osIndex[ifIndex] = os;
    }

    /** @return the OS ifIndex configured for {@code ifIndex} ({@link #setOsIndex}), 0 when none. */
    public long osIndex(int ifIndex) {
        return ifIndex > 0 && ifIndex <= maxIfIndex ? osIndex[ifIndex] : 0;
    }

    /** @return true when {@code ifIndex} is a routed (L3) port. */
    public boolean routed(int ifIndex) {
        return ifIndex > 0 && ifIndex <= maxIfIndex && l3[ifIndex];
    }

    /** @return the MAC of {@code ifIndex} (48 bits). */
    public long mac(int ifIndex) {
        return mac[ifIndex];
    }

    /** @return the L3 MTU of {@code ifIndex}, bytes. */
    public int mtu(int ifIndex) {
        return mtu[ifIndex];
    }

    /** @return the largest ifIndex this table can hold. */
    public int maxIfIndex() {
        return maxIfIndex;
    }
}
