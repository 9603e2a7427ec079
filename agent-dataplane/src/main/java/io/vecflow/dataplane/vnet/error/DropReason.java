package io.vecflow.dataplane.vnet.error;

import io.vecflow.dataplane.graph.BufferPool;

/**
 * Why the dataplane dropped a packet: the registry of error counters every dropping node names (VPP's per-node error
 * strings, e.g. {@code "ip4 ttl expired"}), each mapped to the sFlow discard reason code carried in a discarded-packet
 * sample (sFlow sflow_drops.txt, discarded_packet 0:5 {@code reason}; names as in sflow-v5 {@code DiscardReasons}).
 * 256 ({@code unknown}) is used only where no standard code fits.
 *
 * <p>A buffer's reason travels in {@link BufferPool#dropReason} as the constant's {@link #ordinal()}.
 */
public enum DropReason {
    /** No reason recorded (a node sent the packet to error-drop without naming one). */
    UNKNOWN("unknown", 256, "NOT_SPECIFIED", null),
    /** Frame shorter than an Ethernet header (14 bytes). */
    ETHERNET_RUNT("ethernet runt", 324, "PKT_TOO_SMALL", null),
    /** Routed (L3) port received a frame that is neither IPv4 nor IPv6 (ARP is not needed: neighbours are static). */
    BAD_ETHERTYPE("bad ethertype", 270, null, "non_ip"),
    /** L2 port received a frame but has no cross-connect. */
    L2_NO_XCONNECT("l2 no xconnect", 267, null, "port_list_is_empty"),
    /** IPv4 header malformed: version, IHL, total length beyond the frame. */
    IP4_BAD_HEADER("ip4 bad header", 275, null, "ip_header_corrupted"),
    /** IPv4 header checksum wrong (RFC 791). */
    IP4_BAD_CHECKSUM("ip4 bad checksum", 275, null, "ip_header_corrupted"),
    /** IPv4 TTL ≤ 1 on a packet to forward (RFC 1812 §5.3.1). */
    IP4_TTL_EXPIRED("ip4 ttl expired", 257, null, "ttl_value_is_too_small"),
    /** No IPv4 route covers the destination. */
    IP4_NO_ROUTE("ip4 no route", 0, "IP_INNOROUTES", null),
    /** IPv6 header malformed: version, payload length beyond the frame. */
    IP6_BAD_HEADER("ip6 bad header", 275, null, "ip_header_corrupted"),
    /** IPv6 hop limit ≤ 1 on a packet to forward (RFC 8200 §3). */
    IP6_HOP_LIMIT_EXCEEDED("ip6 hop limit exceeded", 257, null, "ttl_value_is_too_small"),
    /** No IPv6 route covers the destination. */
    IP6_NO_ROUTE("ip6 no route", 0, "IP_INNOROUTES", null),
    /** Connected route but no static neighbour (no ARP/ND in this dataplane) for the destination. */
    NO_NEIGHBOUR("no neighbour", 279, "NEIGH_FAILED", "unresolved_neigh"),
    /** Frame larger than the output interface MTU (no fragmentation). */
    MTU_EXCEEDED("mtu exceeded", 262, "PKT_TOO_BIG", "mtu_value_is_too_small"),
    /** Receive queue full: the kernel ring dropped frames or no free buffer (counted at the port). */
    RX_QUEUE_FULL("rx queue full", 259, "FULL_RING", "tail_drop", true),
    /**
     * The output port's transmit ring had no free slot (VPP af_packet's "tx frame not ready"); counted at the port as
     * a transmit discard.
     */
    TX_QUEUE_FULL("tx queue full", 259, "FULL_RING", "tail_drop", true),
    /** Output interface is down or unknown. */
    INTERFACE_DOWN("interface down", 267, null, "port_list_is_empty"),
    /** Load balancer: the VIP has no usable backend. */
    LB_NO_BACKEND("lb no backend", 1, "IP_INADDRERRORS", null),
    /** Load balancer: packet to a VIP on a protocol/port it does not serve. */
    LB_NO_VIP("lb no vip", 3, "NO_SOCKET", null),
    /** SRLB: the last candidate refused or the SRH was malformed. */
    SRLB_REJECTED("srlb rejected", 282, null, "decap_error"),
    /** Dropped by an access-control rule. */
    ACL_DENY("acl deny", 258, "NETFILTER_DROP", "ingress_flow_action_drop"),
    /** CLOVE: a tunnel packet to this endpoint that cannot be decapsulated (malformed, another VNI, refused). */
    CLOVE_DECAP_ERROR("clove decap error", 282, null, "decap_error"),
    /** CLOVE: addressed to this endpoint but neither a tunnel packet nor a reply to one of its probes. */
    CLOVE_NOT_TUNNEL("clove not tunnel", 3, "NO_SOCKET", null),
    /**
     * CLOVE in edge-flowlet mode: outer CE on a Not-ECT inner packet, dropped as RFC 6040 §4.2 says (Linux
     * {@code SKB_DROP_REASON_IP_TUNNEL_ECN}); in ECN mode the mark is CLOVE's own signal and the packet goes on.
     */
    CLOVE_CE_NOT_ECT("clove ce on not-ect", 282, "IP_TUNNEL_ECN", "decap_error"),
    /**
     * The output port cannot send a frame this long: above the interface MTU + 14 (+ 4 with a VLAN tag), or above a
     * transmit slot; counted at the port as a transmit error.
     */
    TX_FRAME_TOO_LONG("tx frame too long", 262, "PKT_TOO_BIG", "mtu_value_is_too_small", true),
    /** The output port was handed a frame shorter than an Ethernet header; counted at the port as a transmit error. */
    TX_FRAME_TOO_SHORT("tx frame too short", 324, "PKT_TOO_SMALL", null, true),
    /**
     * The kernel refused the output port's send for good (VPP af_packet's "tx sendto fatal failure": any errno but
     * EAGAIN/ENOBUFS/EINTR, e.g. ENETDOWN when the interface is down): the frames waiting in the transmit ring are
     * taken back and dropped; counted at the port as transmit errors.
     */
    TX_SENDTO_FATAL("tx sendto fatal failure", 331, "DEV_READY", null, true),
    /**
     * A received GSO/GRO super-frame the port cannot cut into segments (cut by a ring block too small for it, a
     * segment longer than a buffer, a GSO type or header it does not handle); counted at the port as a receive error.
     */
    GSO_SEGMENTATION_ERROR("gso segmentation error", 334, "SKB_GSO_SEG", null, true);

    private static final DropReason[] VALUES = values();

    private final String counterName;
    private final int sflowCode;
    private final String linuxReason;
    private final String devlinkTrap;
    private final boolean countedByPort;

    DropReason(String counterName, int sflowCode, String linuxReason, String devlinkTrap) {
        this(counterName, sflowCode, linuxReason, devlinkTrap, false);
    }

    DropReason(String counterName, int sflowCode, String linuxReason, String devlinkTrap, boolean countedByPort) {
        this.counterName = counterName;
        this.sflowCode = sflowCode;
        this.linuxReason = linuxReason;
        this.devlinkTrap = devlinkTrap;
        this.countedByPort = countedByPort;
    }

    /**
     * @return true for drops a port raises and counts in its own interface counters (receive errors, transmit
     *         discards or errors); they are not added again to the receive interface's ifInDiscards (the graph drops of
     *         {@code show interfaces} and IF_COUNTERS), so every frame is counted once per counter set
     */
    public boolean countedByPort() {
        return countedByPort;
    }

    /**
     * @return the NET_DM REASON string: the Linux drop reason ({@code enum skb_drop_reason} without the prefix,
     *         include/net/dropreason-core.h) whose standard sFlow mapping (hsflowd's sflow_drop.h table) gives
     *         {@link #sflowCode()}, or this constant's name when no Linux reason maps to that code (receivers then fall
     *         back to the trap name)
     */
    public String linuxReason() {
        return linuxReason != null ? linuxReason : name();
    }

    /**
     * @return the NET_DM HW_TRAP_NAME: the devlink trap name (Documentation/networking/devlink/devlink-trap.rst) whose
     *         standard sFlow mapping gives {@link #sflowCode()}, or {@code "vecflow_" + counter name} (spaces →
     *         '_') when none does
     */
    public String trapName() {
        return devlinkTrap != null ? devlinkTrap : "vecflow_" + counterName.replace(' ', '_');
    }

    /** @return the error counter name shown by {@code show errors} (VPP style, e.g. "ip4 ttl expired"). */
    public String counterName() {
        return counterName;
    }

    /** @return the sFlow discard reason code (sflow_drops.txt) this reason maps to. */
    public int sflowCode() {
        return sflowCode;
    }

    /**
     * @param ordinal a {@link #ordinal()} stored in {@link BufferPool#dropReason}
     * @return the reason, {@link #UNKNOWN} for an out-of-range value
     */
    public static DropReason of(int ordinal) {
        return ordinal >= 0 && ordinal < VALUES.length ? VALUES[ordinal] : UNKNOWN;
    }

    /** @return number of reasons (for per-reason counter arrays). */
    public static int count() {
        return VALUES.length;
    }
}
