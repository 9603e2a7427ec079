package io.vecflow.collector.enrich.geoip;

import io.vecflow.collector.schema.Label;

/**
 * The attributes one prefix of one source sets: a null label or an AS number of -1 is "not set" (the value then
 * comes from an enclosing prefix). The AS name is not here: it follows the AS number (the ASN databases' name).
 *
 * @param name network name
 * @param role role
 * @param site site
 * @param region region
 * @param tenant tenant
 * @param country ISO 3166-1 alpha-2 code
 * @param asn AS number, -1 not set
 */
record Attrs(Label name, Label role, Label site, Label region, Label tenant, Label country, long asn) {
    /** Sets nothing. */
    static final Attrs NONE = new Attrs(null, null, null, null, null, null, -1);

    /** @return these attributes where set, else the parent's */
    Attrs over(Attrs parent) {
        if (parent == NONE) {
            return this;
        }
        return new Attrs(name != null ? name : parent.name, role != null ? role : parent.role,
                site != null ? site : parent.site, region != null ? region : parent.region,
                tenant != null ? tenant : parent.tenant, country != null ? country : parent.country,
                asn >= 0 ? asn : parent.asn);
    }

    /** @return only an AS number */
    static Attrs asn(long asn) {
        return new Attrs(null, null, null, null, null, null, asn);
    }

    /** @return only a country */
    static Attrs country(Label country) {
        return new Attrs(null, null, null, null, null, country, -1);
    }
}
