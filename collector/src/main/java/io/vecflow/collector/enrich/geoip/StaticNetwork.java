package io.vecflow.collector.enrich.geoip;

import java.util.Objects;

/**
 * One configured network (Akvorado's {@code networks}): a prefix and the attributes it gives the addresses inside it.
 * Empty or null text means "not set here": the address then takes the value of an enclosing prefix, or of the GeoIP
 * databases. Checked when the table is built ({@link NetworkTableBuilder}), where errors name {@link #source()}.
 *
 * @param prefix "10.0.0.0/8" or "2001:db8::/32" (host bits must be zero)
 * @param name network name ({@code Src/DstNetName})
 * @param role role
 * @param site site
 * @param region region
 * @param tenant tenant
 * @param country ISO 3166-1 alpha-2 code (two letters, upper-cased when built)
 * @param asn AS number, 0 = not set (else 1..4294967295)
 * @param source where it was written, for messages (e.g. "networks.csv line 12")
 */
public record StaticNetwork(String prefix, String name, String role, String site, String region, String tenant,
        String country, long asn, String source) {
    /** Null text becomes empty; a null source becomes "networks". */
    public StaticNetwork {
        prefix = Objects.requireNonNullElse(prefix, "");
        name = Objects.requireNonNullElse(name, "");
        role = Objects.requireNonNullElse(role, "");
        site = Objects.requireNonNullElse(site, "");
        region = Objects.requireNonNullElse(region, "");
        tenant = Objects.requireNonNullElse(tenant, "");
        country = Objects.requireNonNullElse(country, "");
        source = Objects.requireNonNullElse(source, "networks");
    }

    /**
     * A network with only a name.
     *
     * @param prefix the prefix text
     * @param name network name
     * @return the network (source "networks")
     */
    public static StaticNetwork named(String prefix, String name) {
        return new StaticNetwork(prefix, name, "", "", "", "", "", 0, "networks");
    }
}
