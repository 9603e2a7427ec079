package io.vecflow.collector.schema;

import java.util.Objects;

/**
 * What the collector knows of the network an address belongs to: the attributes of the longest matching prefix of
 * the configured networks (columns {@code Src/DstNet{Name,Role,Site,Region,Tenant}}), its country
 * ({@code Src/DstCountry}, ISO 3166-1 alpha-2) and AS number with its name, each from the networks list where it
 * sets them, else from the GeoIP databases. Immutable and shared: one instance per distinct attribute set.
 *
 * @param name network name
 * @param role network role
 * @param site site
 * @param region region
 * @param tenant tenant
 * @param country ISO 3166-1 alpha-2 country code, or empty
 * @param asn AS number (0 unknown)
 * @param asName the AS's name (organisation), or empty
 */
public record NetworkInfo(Label name, Label role, Label site, Label region, Label tenant, Label country, long asn,
        Label asName) {
    /** Nothing known. */
    public static final NetworkInfo EMPTY = new NetworkInfo(Label.EMPTY, Label.EMPTY, Label.EMPTY, Label.EMPTY,
            Label.EMPTY, Label.EMPTY, 0, Label.EMPTY);

    /**
     * Null labels become {@link Label#EMPTY}.
     *
     * @throws IllegalArgumentException for an AS number outside 0..2^32−1
     */
    public NetworkInfo {
        name = Objects.requireNonNullElse(name, Label.EMPTY);
        role = Objects.requireNonNullElse(role, Label.EMPTY);
        site = Objects.requireNonNullElse(site, Label.EMPTY);
        region = Objects.requireNonNullElse(region, Label.EMPTY);
        tenant = Objects.requireNonNullElse(tenant, Label.EMPTY);
        country = Objects.requireNonNullElse(country, Label.EMPTY);
        asName = Objects.requireNonNullElse(asName, Label.EMPTY);
        if (asn < 0 || asn > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("AS number " + asn + " (need 0..4294967295)");
        }
    }
}
