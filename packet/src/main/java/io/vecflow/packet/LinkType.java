package io.vecflow.packet;

/**
 * Link-layer header types this module can parse, with their pcap {@code LINKTYPE_} numbers.
 *
 * <p>Source: <a href="https://www.tcpdump.org/linktypes.html">tcpdump.org link-layer header
 * types</a> (the registry referenced by draft-ietf-opsawg-pcap); Linux cooked v1 is described at
 * <a href="https://www.tcpdump.org/linktypes/LINKTYPE_LINUX_SLL.html">LINKTYPE_LINUX_SLL</a>.
 */
public enum LinkType {
    /** {@code LINKTYPE_ETHERNET} (1): IEEE 802.3 / Ethernet II frame without preamble and FCS. */
    ETHERNET(1, "Ethernet"),
    /** {@code LINKTYPE_LINUX_SLL} (113): Linux "cooked" capture v1, 16-byte pseudo header. */
    LINUX_SLL(113, "Linux cooked v1"),
    /**
     * {@code LINKTYPE_RAW} (101): raw IP, the version is taken from the first nibble. The legacy
     * {@code DLT_RAW} values 12 and 14 found in old files are read as this type too.
     */
    RAW(101, "raw IP"),
    /** {@code LINKTYPE_IPV4} (228): raw IPv4, no link-layer header. */
    IPV4(228, "raw IPv4"),
    /** {@code LINKTYPE_IPV6} (229): raw IPv6, no link-layer header. */
    IPV6(229, "raw IPv6");

    /** Offset of the {@code network} (LinkType) field in the 24-byte pcap file header. */
    static final long NETWORK_FIELD_OFFSET = 20;

    private final int pcapNumber;
    private final String description;

    LinkType(int pcapNumber, String description) {
        this.pcapNumber = pcapNumber;
        this.description = description;
    }

    /**
     * The canonical pcap {@code LINKTYPE_} number written to files (1, 113, 101, 228 or 229).
     *
     * @return the link-type number
     */
    public int pcapNumber() {
        return pcapNumber;
    }

    /**
     * A short human-readable name, e.g. "Linux cooked v1".
     *
     * @return the description
     */
    public String description() {
        return description;
    }

    /**
     * Maps the {@code network} (LinkType) field of a pcap file header to a link type.
     *
     * <p>Only the low 16 bits are the link-layer type; the upper bits carry the optional FCS
     * length and flags (draft-ietf-opsawg-pcap §4, "LinkType and additional information") and are
     * ignored here.
     *
     * @param linktype the unsigned 32-bit field value
     * @return the link type, never null
     * @throws PcapFormatException if the type is not supported; the message names the number, a
     *     well-known name if there is one, the field offset (20) and the supported types, e.g.
     *     "unsupported pcap link type 9 (PPP) at offset 20; supported: Ethernet (1), Linux cooked
     *     v1 (113), raw IPv4/IPv6 (101, 228, 229)"
     */
    public static LinkType fromPcap(long linktype) throws PcapFormatException {
        int type = (int) (linktype & 0xFFFF);
        return switch (type) {
            case 1 -> ETHERNET;
            case 113 -> LINUX_SLL;
            case 101, 12, 14 -> RAW;
            case 228 -> IPV4;
            case 229 -> IPV6;
            default -> throw new PcapFormatException(
                    "unsupported pcap link type " + type + " (" + wellKnownName(type) + ") at offset "
                            + NETWORK_FIELD_OFFSET
                            + "; supported: Ethernet (1), Linux cooked v1 (113), raw IPv4/IPv6 (101, 228, 229)",
                    NETWORK_FIELD_OFFSET);
        };
    }

    /**
     * Maps the {@code header_protocol} of an sFlow v5 {@code sampled_header} flow record to the
     * link type the parser should start with.
     *
     * <p>Source: sFlow version 5 (sflow.org/sflow_version_5.txt), {@code enum header_protocol}:
     * 1 = ETHERNET-ISO88023, 11 = IPv4, 12 = IPv6.
     *
     * @param headerProtocol the {@code header_protocol} value
     * @return {@link #ETHERNET}, {@link #IPV4} or {@link #IPV6}; null for any other value
     *     (token ring, FDDI, PPP, MPLS, ...), which this module does not parse
     */
    public static LinkType fromSflowHeaderProtocol(int headerProtocol) {
        return switch (headerProtocol) {
            case 1 -> ETHERNET;
            case 11 -> IPV4;
            case 12 -> IPV6;
            default -> null;
        };
    }

    private static String wellKnownName(int type) {
        return switch (type) {
            case 0 -> "BSD loopback";
            case 6 -> "IEEE 802.5 token ring";
            case 9 -> "PPP";
            case 10 -> "FDDI";
            case 50 -> "PPP in HDLC framing";
            case 51 -> "PPPoE";
            case 104 -> "Cisco HDLC";
            case 105 -> "IEEE 802.11";
            case 108 -> "OpenBSD loopback";
            case 127 -> "IEEE 802.11 radiotap";
            case 192 -> "PPI";
            case 220 -> "USB Linux mmapped";
            case 239 -> "Linux NFLOG";
            case 253 -> "Linux netlink";
            case 276 -> "Linux cooked v2";
            default -> "unknown";
        };
    }
}
