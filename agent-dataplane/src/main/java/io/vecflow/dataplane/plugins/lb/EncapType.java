package io.vecflow.dataplane.plugins.lb;

import java.util.Locale;

/**
 * How a VIP's packets reach the chosen backend. VPP's lb has gre4, gre6, l3dsr, nat4 and nat6; vecflow implements
 * the GRE pair plus IP-in-IP, SRv6 and SRLB (issue 6; docs/load-balancing.md).
 */
public enum EncapType {
    /** GRE in an outer IPv4 header (VPP {@code encap gre4}, its default). */
    GRE4,
    /** GRE in an outer IPv6 header (VPP {@code encap gre6}). */
    GRE6,
    /** IPv4-in-IPv4 or IPv6-in-IPv6, the backend's family (Katran's default). */
    IPIP,
    /** SRv6 H.Encaps with a one-segment SRH (the backend's SID). */
    SRV6,
    /** SRv6 service hunting (6LB): SRH [candidate 1, candidate 2, LB SID, VIP]. */
    SRLB;

    /** The CLI word, e.g. gre4. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }
}
