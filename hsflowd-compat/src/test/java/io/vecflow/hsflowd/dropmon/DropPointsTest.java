package io.vecflow.hsflowd.dropmon;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The drop-point tables: host-sflow's facts, hsflowd's lookup order, and vecflow's documented fixes. */
class DropPointsTest {
    private final DropPoints dp = new DropPoints(false);

    @Test
    void linuxReasons() {
        assertThat(dp.reason("NO_SOCKET")).isEqualTo(3);          // port_unreachable
        assertThat(dp.reason("NETFILTER_DROP")).isEqualTo(258);   // acl
        assertThat(dp.reason("NEIGH_FAILED")).isEqualTo(279);     // unresolved_neigh
        assertThat(dp.reason("IP_INNOROUTES")).isZero();          // net_unreachable
        assertThat(dp.reason("NOT_SPECIFIED")).isEqualTo(256);
        assertThat(dp.reason("NOT_DROPPED_YET")).isEqualTo(DropPoints.IGNORE);
        assertThat(dp.reason("SOMETHING_NEW")).as("catch-all").isEqualTo(256);
        // hsflowd's table names that its own code table lacks: mapped to the intended codes here
        assertThat(dp.reason("TCP_OFOMERGE")).isEqualTo(344);
        assertThat(dp.reason("IP_OUTNOROUTES")).isEqualTo(6);
        assertThat(dp.reason("IPV6DISABLED")).isEqualTo(326);
        // hsflowd's 33 / 36 (docs/sflow.md §7): unknown plus the 0:1042 string
        assertThat(dp.reason("DEV_HDR")).isEqualTo(256);
        assertThat(dp.reason("TC_EGRESS")).isEqualTo(256);
        assertThat(dp.reason("no_socket")).as("exact names are case-sensitive; the catch-all takes it")
                .isEqualTo(256);
    }

    @Test
    void hardwareTrapsByNameThenGroupThenPattern() {
        assertThat(dp.hwTrap("l3_drops", "blackhole_route")).isEqualTo(269);
        assertThat(dp.hwTrap("l2_drops", "ttl_value_is_too_small")).isEqualTo(257);
        assertThat(dp.hwTrap("acl_drops", "some_new_acl_trap")).as("group fallback").isEqualTo(258);
        assertThat(dp.hwTrap("bgp", "ipv4_bgp")).isEqualTo(DropPoints.IGNORE);
        assertThat(dp.hwTrap("lldp", "new_lldp_trap")).as("control group").isEqualTo(DropPoints.IGNORE);
        assertThat(dp.hwTrap("vpp_ip4-input", "vpp_ip4_ttl_expired")).isEqualTo(256);
        assertThat(dp.hwTrap("VPP_X", "VPP_Y")).as("patterns are case-insensitive").isEqualTo(256);
        assertThat(dp.hwTrap("mystery", "mystery_trap")).isEqualTo(DropPoints.NOT_FOUND);
        assertThat(new DropPoints(true).hwTrap("mystery", "mystery_trap")).as("hw_unknown").isEqualTo(256);
        assertThat(dp.hwTrap(null, "early_drop")).isEqualTo(260);
    }

    @Test
    void symbolsByPattern() {
        assertThat(dp.symbol("tcp_v4_rcv")).isEqualTo(289);
        assertThat(dp.symbol("__udp4_lib_rcv")).isEqualTo(289);
        assertThat(dp.symbol("ip_rcv_finish")).isEqualTo(285);
        assertThat(dp.symbol("br_handle_frame")).isEqualTo(284);
        assertThat(dp.symbol("skb_queue_purge_reason")).isEqualTo(DropPoints.IGNORE);
        assertThat(dp.symbol("kfree_skb_reason")).isEqualTo(256);
    }

    @Test
    void glob() {
        assertThat(DropPoints.Glob.matches("a*b?c".getBytes(), "aXXbYc".getBytes(), 6)).isTrue();
        assertThat(DropPoints.Glob.matches("a*b?c".getBytes(), "aXXbc".getBytes(), 5)).isFalse();
        assertThat(DropPoints.Glob.matches("*".getBytes(), new byte[0], 0)).isTrue();
        assertThat(DropPoints.Glob.matches("*x*".getBytes(), "aaaaaaaaab".getBytes(), 10)).isFalse();
    }
}
