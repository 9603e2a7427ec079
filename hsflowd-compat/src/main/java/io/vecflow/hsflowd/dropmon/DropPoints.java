package io.vecflow.hsflowd.dropmon;

import io.vecflow.sflow.DiscardReasons;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Maps a NET_DM drop to an sFlow discard reason code (sflow_drops.txt; {@link DiscardReasons}) the way hsflowd's
 * mod_dropmon does ({@code docs/netlink.md} §5): three tables — Linux drop-reason names (REASON), devlink
 * trap names and groups (HW_TRAP_NAME / HW_TRAP_GROUP_NAME), kernel symbols (SYMBOL) — each with exact entries
 * ({@code ==}, case-sensitive) and glob patterns ({@code *=}, case-insensitive, {@code *} and {@code ?}). The facts
 * (which name maps to which reason, which traps are not drops) are those of host-sflow's {@code dropPoints_rn.h},
 * {@code dropPoints_hw.h} and {@code dropPoints_sw.h}; codes come from {@link DiscardReasons}.
 *
 * <p>A lookup answers a reason code (≥ 0), {@link #IGNORE} (a trap that is not a drop: control traffic such as
 * {@code lldp}, {@code bgp}, {@code skb_queue_purge}), or {@link #NOT_FOUND}. Order: trap name exact, then trap group
 * exact, then trap-name patterns (hw); name exact, then patterns (rn, sw).
 *
 * <p>Where vecflow differs from hsflowd's tables, on purpose:
 * <ul>
 *   <li>Three reason names in hsflowd's rn table do not exist in its own code table ({@code tcp_ofo_merge},
 *       {@code dest_net_unknown}, {@code ip6disabled}), so hsflowd silently reports TCP_OFOMERGE, IP_OUTNOROUTES and
 *       IPV6DISABLED as "unknown"; here they map to tcp_ofomerge (344), dst_net_unknown (6) and ipv6disabled
 *       (326).</li>
 *   <li>DEV_HDR and TC_EGRESS map to 256 unknown rather than hsflowd's 33 / 36 (probable typos for 332 / 366, spec
 *       {@code docs/sflow.md} §7 recommendation); the reason string still travels in record 0:1042.</li>
 *   <li>Pattern hits are not memoised into the exact table (hsflowd does, which grows without bound on arbitrary
 *       symbols); patterns are few and matched without allocating.</li>
 * </ul>
 *
 * <p>Lookups take byte ranges and allocate nothing. Immutable after construction; thread-safe.
 */
public final class DropPoints {
    /** Not a drop: ignore it (a blank reason in hsflowd's tables). */
    public static final int IGNORE = -1;
    /** No entry matched. */
    public static final int NOT_FOUND = -2;
    /** sFlow reason "unknown". */
    public static final int UNKNOWN = 256;

    private static final Map<String, Integer> CODES = codes();

    private final Table rn;
    private final Table hw;
    private final Table sw;

    /**
     * Builds the tables.
     *
     * @param hwUnknown add hsflowd's {@code hw_unknown} catch-all: any other trap name → unknown (otherwise an
     *                  unlisted trap is not reported, as in hsflowd)
     */
    public DropPoints(boolean hwUnknown) {
        rn = new Table("reason");
        for (String[] e : RN) {
            rn.add(e[0], e[1]);
        }
        rn.add("*=*", "unknown");
        hw = new Table("hw");
        for (String[] e : HW) {
            hw.add(e[0], e[1]);
        }
        hw.add("*=vpp_*", "unknown"); // VPP error-drop traps (docs/netlink.md §5: 256 with the strings in 0:1041)
        if (hwUnknown) {
            hw.add("*=*", "unknown");
        }
        sw = new Table("symbol");
        for (String[] e : SW) {
            sw.add(e[0], e[1]);
        }
    }

    /** Code for a Linux drop-reason name (REASON), or IGNORE / NOT_FOUND. */
    public int reason(byte[] name, int length) {
        return rn.lookup(name, length);
    }

    /**
     * Code for a devlink trap: trap name exact, then group exact, then trap-name patterns.
     *
     * @param group group name bytes (may be empty: {@code groupLength} 0)
     */
    public int hwTrap(byte[] group, int groupLength, byte[] trap, int trapLength) {
        int c = hw.exact(trap, trapLength);
        if (c != NOT_FOUND) {
            return c;
        }
        if (groupLength > 0) {
            c = hw.exact(group, groupLength);
            if (c != NOT_FOUND) {
                return c;
            }
        }
        return hw.pattern(trap, trapLength);
    }

    /** Code for a kernel symbol (SYMBOL), or IGNORE / NOT_FOUND. */
    public int symbol(byte[] name, int length) {
        return sw.lookup(name, length);
    }

    /** String convenience for tests and tools (allocates). */
    public int reason(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return reason(b, b.length);
    }

    /** String convenience (allocates). */
    public int hwTrap(String group, String trap) {
        byte[] g = group == null ? new byte[0] : group.getBytes(StandardCharsets.UTF_8);
        byte[] t = trap.getBytes(StandardCharsets.UTF_8);
        return hwTrap(g, g.length, t, t.length);
    }

    /** String convenience (allocates). */
    public int symbol(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return symbol(b, b.length);
    }

    /** Reason name → code from {@link DiscardReasons}, plus "" → IGNORE. */
    private static Map<String, Integer> codes() {
        Map<String, Integer> m = new HashMap<>();
        for (int c = 0; c < 1024; c++) {
            if (DiscardReasons.known(c)) {
                m.putIfAbsent(DiscardReasons.name(c), c);
            }
        }
        m.put("", IGNORE);
        return m;
    }

    /** One table: exact names in an open-addressing hash over bytes, then glob patterns in order. */
    private static final class Table {
        private final String what;
        private byte[][] keys = new byte[256][];
        private int[] values = new int[256];
        private int size;
        private final List<byte[]> patterns = new ArrayList<>();
        private final List<Integer> patternCodes = new ArrayList<>();
        private byte[][] pat = new byte[0][];
        private int[] patCode = new int[0];

        Table(String what) {
            this.what = what;
        }

        /** {@code "*=glob"} adds a pattern, anything else an exact name; reason "" = IGNORE. */
        void add(String key, String reasonName) {
            Integer code = CODES.get(reasonName);
            if (code == null) {
                throw new IllegalStateException("drop point " + what + " '" + key + "': no sFlow reason named '"
                        + reasonName + "'");
            }
            if (key.startsWith("*=")) {
                patterns.add(key.substring(2).getBytes(StandardCharsets.UTF_8));
                patternCodes.add(code);
                pat = patterns.toArray(new byte[0][]);
                patCode = patternCodes.stream().mapToInt(Integer::intValue).toArray();
                return;
            }
            byte[] k = key.getBytes(StandardCharsets.UTF_8);
            if (size * 2 >= keys.length) {
                throw new IllegalStateException("drop point table " + what + " is full");
            }
            int i = slot(k, k.length);
            while (keys[i] != null) {
                if (java.util.Arrays.equals(keys[i], k)) {
                    throw new IllegalStateException("duplicate drop point " + what + " '" + key + "'");
                }
                i = (i + 1) & (keys.length - 1);
            }
            keys[i] = k;
            values[i] = code;
            size++;
        }

        int lookup(byte[] name, int length) {
            int c = exact(name, length);
            return c != NOT_FOUND ? c : pattern(name, length);
        }

        int exact(byte[] name, int length) {
            int i = slot(name, length);
            for (int probes = 0; probes < keys.length; probes++) {
                byte[] k = keys[i];
                if (k == null) {
                    return NOT_FOUND;
                }
                if (k.length == length && java.util.Arrays.equals(k, 0, length, name, 0, length)) {
                    return values[i];
                }
                i = (i + 1) & (keys.length - 1);
            }
            return NOT_FOUND;
        }

        int pattern(byte[] name, int length) {
            for (int p = 0; p < pat.length; p++) {
                if (Glob.matches(pat[p], name, length)) {
                    return patCode[p];
                }
            }
            return NOT_FOUND;
        }

        private int slot(byte[] b, int n) {
            int h = 0x811C9DC5;
            for (int i = 0; i < n; i++) {
                h = (h ^ (b[i] & 0xFF)) * 0x01000193;
            }
            return (h ^ (h >>> 16)) & (keys.length - 1);
        }
    }

    /** Case-insensitive (ASCII) glob with {@code *} and {@code ?}, as fnmatch(FNM_CASEFOLD); iterative, no alloc. */
    static final class Glob {
        private Glob() {}

        static boolean matches(byte[] p, byte[] s, int n) {
            int pi = 0;
            int si = 0;
            int starP = -1;
            int starS = 0;
            while (si < n) {
                if (pi < p.length && (p[pi] == '?' || lower(p[pi]) == lower(s[si]))) {
                    pi++;
                    si++;
                } else if (pi < p.length && p[pi] == '*') {
                    starP = pi++;
                    starS = si;
                } else if (starP >= 0) {
                    pi = starP + 1;
                    si = ++starS;
                } else {
                    return false;
                }
            }
            while (pi < p.length && p[pi] == '*') {
                pi++;
            }
            return pi == p.length;
        }

        private static int lower(byte b) {
            return b >= 'A' && b <= 'Z' ? b + 32 : b;
        }
    }

    // ---- the facts (host-sflow src/Linux/dropPoints_*.h), as {name, sFlow reason name} ----

    /** Linux drop reasons (enum skb_drop_reason without "SKB_DROP_REASON_"), exact. */
    private static final String[][] RN = {
        {"NOT_DROPPED_YET", ""}, {"NOT_SPECIFIED", "unknown"},
        {"NO_SOCKET", "port_unreachable"}, {"PKT_TOO_SMALL", "pkt_too_small"}, {"TCP_CSUM", "tcp_parsing"},
        {"SOCKET_FILTER", "socket_filter"}, {"UDP_CSUM", "udp_parsing"}, {"NETFILTER_DROP", "acl"},
        {"OTHERHOST", "dst_host_unknown"}, {"IP_CSUM", "ip_1_parsing"}, {"IP_INHDR", "ip_1_parsing"},
        {"IP_RPFILTER", "reverse_path_forwarding"}, {"UNICAST_IN_L2_MULTICAST", "uc_dip_over_mc_dmac"},
        {"XFRM_POLICY", "xfrm_policy"}, {"IP_NOPROTO", "ip_noproto"}, {"SOCKET_RCVBUFF", "no_buffer_space"},
        {"PROTO_MEM", "no_buffer_space"}, {"TCP_MD5NOTFOUND", "tcp_md5notfound"},
        {"TCP_MD5UNEXPECTED", "tcp_md5unexpected"}, {"TCP_MD5FAILURE", "tcp_md5failure"},
        {"SOCKET_BACKLOG", "no_buffer_space"}, {"TCP_FLAGS", "tcp_flags"}, {"TCP_ZEROWINDOW", "tcp_zerowindow"},
        {"TCP_OLD_DATA", "tcp_old_data"}, {"TCP_OVERWINDOW", "tcp_overwindow"},
        {"TCP_OFOMERGE", "tcp_ofomerge"}, // hsflowd: "tcp_ofo_merge" (not in its code table → unknown)
        {"TCP_RFC7323_PAWS", "tcp_rfc7323_paws"}, {"TCP_INVALID_SEQUENCE", "tcp_invalid_sequence"},
        {"TCP_RESET", "tcp_reset"}, {"TCP_INVALID_SYN", "tcp_invalid_syn"}, {"TCP_CLOSE", "tcp_close"},
        {"TCP_FASTOPEN", "tcp_fastopen"}, {"TCP_OLD_ACK", "tcp_old_ack"}, {"TCP_TOO_OLD_ACK", "tcp_too_old_ack"},
        {"TCP_ACK_UNSENT_DATA", "tcp_ack_unsent_data"}, {"TCP_OFO_QUEUE_PRUNE", "tcp_ofo_queue_prune"},
        {"TCP_OFO_DROP", "tcp_ofo_drop"},
        {"IP_OUTNOROUTES", "dst_net_unknown"}, // hsflowd: "dest_net_unknown" (not in its code table → unknown)
        {"BPF_CGROUP_EGRESS", "bpf_cgroup_egress"},
        {"IPV6DISABLED", "ipv6disabled"}, // hsflowd: "ip6disabled" (not in its code table → unknown)
        {"NEIGH_CREATEFAIL", "unresolved_neigh"}, {"NEIGH_FAILED", "unresolved_neigh"},
        {"NEIGH_QUEUEFULL", "unresolved_neigh"}, {"NEIGH_DEAD", "unresolved_neigh"},
        {"TC_EGRESS", "unknown"}, // hsflowd: tc_egress = 36 (docs/sflow.md §7: report 256 + the 0:1042 string)
        {"QDISC_DROP", "traffic_shaping"}, {"CPU_BACKLOG", "cpu_backlog"}, {"XDP", "xdp"},
        {"TC_INGRESS", "tc_ingress"}, {"UNHANDLED_PROTO", "unhandled_proto"}, {"SKB_CSUM", "skb_csum"},
        {"SKB_GSO_SEG", "skb_gso_seg"}, {"SKB_UCOPY_FAULT", "skb_ucopy_fault"},
        {"DEV_HDR", "unknown"}, // hsflowd: dev_hdr = 33 (docs/sflow.md §7)
        {"DEV_READY", "dev_ready"}, {"FULL_RING", "no_buffer_space"}, {"NOMEM", "no_buffer_space"},
        {"HDR_TRUNC", "pkt_too_small"}, {"TAP_FILTER", "tap_filter"}, {"TAP_TXFILTER", "tap_txfilter"},
        {"ICMP_CSUM", "icmp_parsing"}, {"INVALID_PROTO", "invalid_proto"}, {"IP_INADDRERRORS", "host_unreachable"},
        {"IP_INNOROUTES", "net_unreachable"}, {"PKT_TOO_BIG", "pkt_too_big"}, {"DUP_FRAG", "dup_frag"},
        {"FRAG_REASM_TIMEOUT", "frag_needed"}, {"FRAG_TOO_FAR", "frag_needed"}, {"TCP_MINTTL", "tcp_minttl"},
        {"IPV6_BAD_EXTHDR", "ipv6_bad_exthdr"}, {"IPV6_NDISC_FRAG", "ipv6_ndisc_frag"},
        {"IPV6_NDISC_HOP_LIMIT", "ipv6_ndisc_hop_limit"}, {"IPV6_NDISC_BAD_CODE", "ipv6_ndisc_bad_code"},
        {"IPV6_NDISC_BAD_OPTIONS", "ipv6_ndisc_bad_options"}, {"IPV6_NDISC_NS_OTHERHOST", "ipv6_ndisc_ns_otherhost"},
    };

    /** devlink trap groups and trap names (Documentation/networking/devlink/devlink-trap.rst), exact. */
    private static final String[][] HW = {
        // groups (fallback after the trap name)
        {"acl_drops", "acl"}, {"l2_drops", "unknown_l2"}, {"l3_drops", "unknown_l3"},
        {"l3_exceptions", "unknown_l3_exception"}, {"tunnel_drops", "unknown_tunnel"},
        {"buffer_drops", "unknown_buffer"},
        // groups that are not drops
        {"stp", ""}, {"lacp", ""}, {"lldp", ""}, {"mc_snooping", ""}, {"dhcp", ""}, {"neigh_discovery", ""},
        {"bfd", ""}, {"ospf", ""}, {"bgp", ""}, {"vrrp", ""}, {"pim", ""}, {"uc_loopback", ""},
        {"local_delivery", ""}, {"external_delivery", ""}, {"ipv6", ""}, {"ptp_event", ""}, {"ptp_general", ""},
        {"acl_sample", ""}, {"acl_trap", ""}, {"parser_error_drops", ""}, {"eapol", ""},
        // trap names
        {"source_mac_is_multicast", "src_mac_is_multicast"}, {"vlan_tag_mismatch", "vlan_tag_mismatch"},
        {"ingress_vlan_filter", "ingress_vlan_filter"}, {"ingress_spanning_tree_filter",
                "ingress_spanning_tree_filter"},
        {"port_list_is_empty", "port_list_is_empty"}, {"port_loopback_filter", "port_loopback_filter"},
        {"blackhole_route", "blackhole_route"}, {"ttl_value_is_too_small", "ttl_exceeded"},
        {"tail_drop", "no_buffer_space"}, {"non_ip", "non_ip"}, {"uc_dip_over_mc_dmac", "uc_dip_over_mc_dmac"},
        {"dip_is_loopback_address", "dip_is_loopback_address"}, {"sip_is_mc", "sip_is_mc"},
        {"sip_is_loopback_address", "sip_is_loopback_address"}, {"ip_header_corrupted", "ip_header_corrupted"},
        {"ipv4_sip_is_limited_bc", "ipv4_sip_is_limited_bc"},
        {"ipv6_mc_dip_reserved_scope", "ipv6_mc_dip_reserved_scope"},
        {"ipv6_mc_dip_interface_local_scope", "ipv6_mc_dip_interface_local_scope"},
        {"mtu_value_is_too_small", "pkt_too_big"}, {"unresolved_neigh", "unresolved_neigh"},
        {"mc_reverse_path_forwarding", "mc_reverse_path_forwarding"}, {"reject_route", "dst_net_prohibited"},
        {"ipv4_lpm_miss", "dst_net_unknown"}, {"ipv6_lpm_miss", "dst_net_unknown"},
        {"non_routable_packet", "non_routable_packet"}, {"decap_error", "decap_error"},
        {"overlay_smac_is_mc", "overlay_smac_is_mc"}, {"ingress_flow_action_drop", "acl"},
        {"egress_flow_action_drop", "acl"}, {"sip_is_unspecified", "sip_is_unspecified"},
        {"mlag_port_isolation", "mlag_port_isolation"}, {"blackhole_arp_neigh", "blackhole_arp_neigh"},
        {"src_mac_is_dmac", "src_mac_is_dmac"}, {"dmac_is_reserved", "dmac_is_reserved"},
        {"sip_is_class_e", "sip_is_class_e"}, {"mc_dmac_mismatch", "mc_dmac_mismatch"}, {"sip_is_dip", "sip_is_dip"},
        {"dip_is_local_network", "dip_is_local_network"}, {"dip_is_link_local", "dip_is_link_local"},
        {"overlay_smac_is_dmac", "overlay_smac_is_dmac"},
        // control traps: not drops
        {"igmp_query", ""}, {"igmp_v1_report", ""}, {"igmp_v2_report", ""}, {"igmp_v3_report", ""},
        {"igmp_v2_leave", ""}, {"mld_query", ""}, {"mld_v1_report", ""}, {"mld_v2_report", ""}, {"mld_v1_done", ""},
        {"ipv4_dhcp", ""}, {"ipv6_dhcp", ""}, {"arp_request", ""}, {"arp_response", ""}, {"arp_overlay", ""},
        {"ipv6_neigh_solicit", ""}, {"ipv6_neigh_advert", ""}, {"ipv4_bfd", ""}, {"ipv6_bfd", ""},
        {"ipv4_ospf", ""}, {"ipv6_ospf", ""}, {"ipv4_bgp", ""}, {"ipv6_bgp", ""}, {"ipv4_vrrp", ""},
        {"ipv6_vrrp", ""}, {"ipv4_pim", ""}, {"ipv6_pim", ""}, {"local_route", ""}, {"external_route", ""},
        {"ipv6_uc_dip_link_local_scope", ""}, {"ipv6_dip_all_nodes", ""}, {"ipv6_dip_all_routers", ""},
        {"ipv6_router_solicit", ""}, {"ipv6_router_advert", ""}, {"ipv6_redirect", ""}, {"ipv4_router_alert", ""},
        {"ipv6_router_alert", ""}, {"flow_action_sample", ""}, {"flow_action_trap", ""},
        // more drops
        {"early_drop", "red"}, {"vxlan_parsing", "vxlan_parsing"}, {"llc_snap_parsing", "llc_snap_parsing"},
        {"vlan_parsing", "vlan_parsing"}, {"pppoe_ppp_parsing", "pppoe_ppp_parsing"}, {"mpls_parsing", "mpls_parsing"},
        {"arp_parsing", "arp_parsing"}, {"ip_1_parsing", "ip_1_parsing"}, {"ip_n_parsing", "ip_n_parsing"},
        {"gre_parsing", "gre_parsing"}, {"udp_parsing", "udp_parsing"}, {"tcp_parsing", "tcp_parsing"},
        {"ipsec_parsing", "ipsec_parsing"}, {"sctp_parsing", "sctp_parsing"}, {"dccp_parsing", "dccp_parsing"},
        {"gtp_parsing", "gtp_parsing"}, {"esp_parsing", "esp_parsing"}, {"blackhole_nexthop", "blackhole_nexthop"},
        {"dmac_filter", "dmac_filter"}, {"locked_port", "locked_port"},
    };

    /** Kernel symbols of kfree_skb call sites: patterns only (first match wins). */
    private static final String[][] SW = {
        {"*=tcp_*", "unknown_l4"}, {"*=udp_*", "unknown_l4"}, {"*=__udp4_*", "unknown_l4"},
        {"*=__udp6_*", "unknown_l4"}, {"*=icmp_*", "unknown_l4"}, {"*=icmpv6_*", "unknown_l4"},
        {"*=ip_*", "unknown_l3"}, {"*=ipv4_*", "unknown_l3"}, {"*=ip6_*", "unknown_l3"}, {"*=ipv6_*", "unknown_l3"},
        {"*=br_*", "unknown_l2"}, {"*=__br_*", "unknown_l2"},
        {"*=sk_stream_kill_queues*", ""}, // socket teardown, not a drop
        {"*=skb_release_data*", ""},      // normal fragmentation/reassembly
        {"*=skb_queue_purge*", ""},       // normal socket teardown
        {"*=*", "unknown"},
    };
}
