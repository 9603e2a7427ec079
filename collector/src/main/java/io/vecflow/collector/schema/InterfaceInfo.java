package io.vecflow.collector.schema;

import java.util.List;
import java.util.Objects;

/**
 * What the collector knows of one interface of an exporter after enrichment: columns
 * {@code InIf/OutIf{Name,Description,Speed,Boundary,Provider,Connectivity}} (Akvorado's names; docs/enrichment.md).
 * Immutable; shared by every row through that interface until its metadata changes.
 *
 * @param name ifName (static config, SNMP ifName, or the agent's 0:1005 port name)
 * @param description ifAlias, else ifDescr when it differs from the name (SNMP), or static
 * @param speedMbps speed in Mb/s (SNMP ifHighSpeed, static, or the agent's 0:1 ifSpeed / 10^6); 0 unknown
 * @param boundary {@link #UNDEFINED}, {@link #EXTERNAL} or {@link #INTERNAL} (interface classifier)
 * @param provider provider (interface classifier)
 * @param connectivity connectivity, e.g. transit, pni, ix (interface classifier)
 */
public record InterfaceInfo(Label name, Label description, long speedMbps, int boundary, Label provider,
        Label connectivity) {
    /** {@link #boundary}: not classified. */
    public static final int UNDEFINED = 0;
    /** {@link #boundary}: faces another network (transit, peering, customers). */
    public static final int EXTERNAL = 1;
    /** {@link #boundary}: inside the network. */
    public static final int INTERNAL = 2;
    /** Names of the boundary values, indexed by {@link #boundary} (the {@code Enum8} of the Boundary columns). */
    public static final List<String> BOUNDARIES = List.of("undefined", "external", "internal");
    /** Nothing known. */
    public static final InterfaceInfo EMPTY = new InterfaceInfo(Label.EMPTY, Label.EMPTY, 0, UNDEFINED, Label.EMPTY,
            Label.EMPTY);

    /**
     * Null labels become {@link Label#EMPTY}.
     *
     * @throws IllegalArgumentException for a boundary outside 0..2 or a negative speed
     */
    public InterfaceInfo {
        name = Objects.requireNonNullElse(name, Label.EMPTY);
        description = Objects.requireNonNullElse(description, Label.EMPTY);
        provider = Objects.requireNonNullElse(provider, Label.EMPTY);
        connectivity = Objects.requireNonNullElse(connectivity, Label.EMPTY);
        if (boundary < 0 || boundary >= BOUNDARIES.size()) {
            throw new IllegalArgumentException("boundary " + boundary + " (need 0 undefined, 1 external, 2 internal)");
        }
        if (speedMbps < 0) {
            throw new IllegalArgumentException("speed " + speedMbps + " Mb/s");
        }
    }
}
