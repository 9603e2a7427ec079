package io.vecflow.dataplane.plugins.lb;

import java.util.Objects;

/**
 * A VIP to add.
 *
 * @param key       which VIP
 * @param encap     encapsulation toward the backends
 * @param newLength Maglev lookup-table size M, a prime (VPP's {@code new_len}; default
 *                  {@code CommandParser.DEFAULT_NEW_LEN})
 */
public record Vip(VipKey key, EncapType encap, int newLength) {
    /** Requires non-null fields. */
    public Vip {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(encap, "encap");
    }
}
