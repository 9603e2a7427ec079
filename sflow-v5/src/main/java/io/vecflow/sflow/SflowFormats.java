package io.vecflow.sflow;

/**
 * sFlow v5 {@code data_format} numbers and other protocol constants.
 *
 * <p>A {@code data_format} is {@code enterprise << 12 | format} (sFlow v5 "Data Format"); the same numbers are reused
 * across contexts (0:1 is flow_sample, sampled_header and if_counters), so decoders dispatch on the context and the
 * full 32-bit value. Source: sflow.org/sflow_version_5.txt, sflow_drops.txt; sflowtool {@code src/sflow.h}.
 */
public final class SflowFormats {
    private SflowFormats() {}

    /** The only datagram version this package handles. */
    public static final int VERSION_5 = 5;
    /** Default collector UDP port (sFlow v5 §"Transport"). */
    public static final int DEFAULT_PORT = 6343;

    /** Agent address types (datagram header). */
    public static final int ADDRESS_UNKNOWN = 0, ADDRESS_IPV4 = 1, ADDRESS_IPV6 = 2;

    // Sample types (enterprise 0).
    public static final int FLOW_SAMPLE = 1;
    public static final int COUNTERS_SAMPLE = 2;
    public static final int FLOW_SAMPLE_EXPANDED = 3;
    public static final int COUNTERS_SAMPLE_EXPANDED = 4;
    public static final int DISCARDED_PACKET = 5;

    // Flow records (enterprise 0).
    public static final int SAMPLED_HEADER = 1;
    public static final int SAMPLED_ETHERNET = 2;
    public static final int SAMPLED_IPV4 = 3;
    public static final int SAMPLED_IPV6 = 4;
    public static final int EXTENDED_SWITCH = 1001;
    public static final int EXTENDED_ROUTER = 1002;
    public static final int EXTENDED_GATEWAY = 1003;
    public static final int EXTENDED_USER = 1004;
    public static final int EXTENDED_URL = 1005;
    public static final int EXTENDED_MPLS = 1006;
    public static final int EXTENDED_NAT = 1007;
    public static final int EXTENDED_VLAN_TUNNEL = 1012;
    public static final int EXTENDED_EGRESS_QUEUE = 1036;
    public static final int EXTENDED_ACL = 1037;
    public static final int EXTENDED_FUNCTION = 1038;
    public static final int EXTENDED_TRANSIT = 1039;
    public static final int EXTENDED_QUEUE = 1040;
    public static final int EXTENDED_HW_TRAP = 1041;
    public static final int EXTENDED_LINUX_DROP_REASON = 1042;
    public static final int EXTENDED_TIMESTAMP = 1043;

    // sampled_header header_protocol values (sFlow v5 "header_protocol").
    public static final int HEADER_PROTOCOL_ETHERNET = 1;
    public static final int HEADER_PROTOCOL_IPV4 = 11;
    public static final int HEADER_PROTOCOL_IPV6 = 12;

    /** Interface formats: top two bits of a compact interface, or the format word of an expanded one. */
    public static final int IF_FORMAT_SINGLE = 0, IF_FORMAT_DISCARD = 1, IF_FORMAT_MULTIPLE = 2;
    /** Compact interface value for "internal" (the packet starts or ends in the device itself). */
    public static final long IF_INTERNAL = 0x3FFFFFFFL;

    /** Source id types ({@code source_id >>> 24} in compact form). */
    public static final int SOURCE_IFINDEX = 0, SOURCE_VLAN = 1, SOURCE_ENTITY = 2;

    /** Datagram header length in bytes with an IPv4 agent (28) or an IPv6 agent (40). */
    public static final int HEADER_BYTES_IPV4 = 28, HEADER_BYTES_IPV6 = 40;

    /** @return {@code enterprise << 12 | format} as an unsigned 32-bit value in an int. */
    public static int dataFormat(int enterprise, int format) {
        return enterprise << 12 | (format & 0xFFF);
    }

    /** @return the 20-bit enterprise of a data_format. */
    public static int enterprise(int dataFormat) {
        return dataFormat >>> 12;
    }

    /** @return the 12-bit format of a data_format. */
    public static int format(int dataFormat) {
        return dataFormat & 0xFFF;
    }

    /** @return {@code n} rounded up to a multiple of 4 (XDR padding). */
    public static int pad4(int n) {
        return (n + 3) & ~3;
    }
}
