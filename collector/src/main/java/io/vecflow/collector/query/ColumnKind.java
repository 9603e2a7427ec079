package io.vecflow.collector.query;

import java.util.List;

/**
 * What kind of values a queryable column holds, which decides the filter operators that apply to it, how its
 * literals are written and how it is shown (docs/console-filter.md, "Operators per kind").
 */
public enum ColumnKind {
    /** An address (16 bytes, IPv4 mapped): {@code = != << !<< IN NOTIN} with addresses and subnets. */
    IP("ip", List.of("=", "!=", "<<", "!<<", "IN", "NOTIN")),
    /** A list of addresses: {@code =} contains, {@code !=} does not contain. */
    IP_ARRAY("ip[]", List.of("=", "!=")),
    /** Text: {@code = != LIKE ILIKE UNLIKE IUNLIKE IN NOTIN}. */
    STRING("string", List.of("=", "!=", "LIKE", "ILIKE", "UNLIKE", "IUNLIKE", "IN", "NOTIN")),
    /** An unsigned integer: comparisons with a number or another integer column, lists. */
    UINT("uint", List.of("=", "!=", "<", "<=", ">", ">=", "IN", "NOTIN")),
    /** A floating-point number: comparisons with a number. */
    FLOAT("float", List.of("=", "!=", "<", "<=", ">", ">=")),
    /** An AS number: as {@link #UINT}, values {@code AS123} or {@code 123}; shown as {@code AS123 Name}. */
    ASN("asn", List.of("=", "!=", "<", "<=", ">", ">=", "IN", "NOTIN")),
    /** A list of AS numbers (an AS path): {@code =} contains, {@code !=} does not contain. */
    ASN_ARRAY("asn[]", List.of("=", "!=")),
    /** An interface boundary: {@code external}, {@code internal}, {@code undefined}. */
    BOUNDARY("boundary", List.of("=", "!=", "IN", "NOTIN")),
    /** Where the packet was sampled: {@code ingress}, {@code egress}, {@code undefined}. */
    DIRECTION("direction", List.of("=", "!=", "IN", "NOTIN")),
    /** The EtherType: {@code IPv4}, {@code IPv6} or a number. */
    ETYPE("etype", List.of("=", "!=", "IN", "NOTIN")),
    /** A MAC address (a 48-bit number): {@code = != IN NOTIN} with {@code 00:fe:c8:99:05:47} (or dashes). */
    MAC("mac", List.of("=", "!=", "IN", "NOTIN")),
    /** The IP protocol: a number or a name ({@code tcp}, {@code udp}, {@code icmp} ...); shown by name. */
    PROTO("proto", List.of("=", "!=", "<", "<=", ">", ">=", "IN", "NOTIN"));

    private final String label;
    private final List<String> operators;

    ColumnKind(String label, List<String> operators) {
        this.label = label;
        this.operators = operators;
    }

    /** @return the kind's name in the API ({@code ip}, {@code string}, {@code uint} ...) */
    public String label() {
        return label;
    }

    /** @return the filter operators that apply, upper case ({@code =}, {@code LIKE}, {@code IN} ...) */
    public List<String> operators() {
        return operators;
    }

    /** @return true for the kinds whose values are unsigned integers ({@link #UINT}, {@link #ASN}, {@link #PROTO}) */
    public boolean integral() {
        return this == UINT || this == ASN || this == PROTO || this == ETYPE;
    }
}
