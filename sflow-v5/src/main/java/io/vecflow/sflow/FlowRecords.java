package io.vecflow.sflow;

/**
 * Holders for the flow records of sFlow v5 (flow_sample 0:1, 0:3 and discarded_packet 0:5), one mutable class per
 * record, named and laid out as in sFlow v5 "Flow Data" (sflow_version_5.txt), sflow_tunnels.txt, sflow_drops.txt and
 * host-sflow's {@code src/sflow/sflow.h} (1041–1043). u32 values are longs; strings and opaques are {@link ByteView}s
 * into the datagram; arrays have fixed capacities (the decoder rejects longer ones).
 */
public final class FlowRecords {
    private FlowRecords() {}

    /** Capacity of label and VLAN stacks. */
    public static final int MAX_STACK = 64;
    /** Capacity of AS-path entries (all segments together) and of communities (peer sanity cap). */
    public static final int MAX_AS_PATH = 1000;
    /** Capacity of AS-path segments. */
    public static final int MAX_AS_SEGMENTS = 256;
    /** Longest string accepted in a record, bytes. */
    public static final int MAX_STRING = 4096;

    /**
     * @param format a flow record data_format
     * @return the structure's name in the sFlow texts (e.g. "sampled_header", "extended_switch"), or null for a
     *         format vecflow does not decode
     */
    public static String name(int format) {
        return switch (format) {
            case SflowFormats.SAMPLED_HEADER -> "sampled_header";
            case SflowFormats.SAMPLED_ETHERNET -> "sampled_ethernet";
            case SflowFormats.SAMPLED_IPV4 -> "sampled_ipv4";
            case SflowFormats.SAMPLED_IPV6 -> "sampled_ipv6";
            case SflowFormats.EXTENDED_SWITCH -> "extended_switch";
            case SflowFormats.EXTENDED_ROUTER -> "extended_router";
            case SflowFormats.EXTENDED_GATEWAY -> "extended_gateway";
            case SflowFormats.EXTENDED_USER -> "extended_user";
            case SflowFormats.EXTENDED_URL -> "extended_url";
            case SflowFormats.EXTENDED_MPLS -> "extended_mpls";
            case SflowFormats.EXTENDED_NAT -> "extended_nat";
            case SflowFormats.EXTENDED_VLAN_TUNNEL -> "extended_vlantunnel";
            case SflowFormats.EXTENDED_EGRESS_QUEUE -> "extended_egress_queue";
            case SflowFormats.EXTENDED_ACL -> "extended_acl";
            case SflowFormats.EXTENDED_FUNCTION -> "extended_function";
            case SflowFormats.EXTENDED_TRANSIT -> "extended_transit";
            case SflowFormats.EXTENDED_QUEUE -> "extended_queue";
            case SflowFormats.EXTENDED_HW_TRAP -> "extended_hw_trap";
            case SflowFormats.EXTENDED_LINUX_DROP_REASON -> "extended_linux_drop_reason";
            case SflowFormats.EXTENDED_TIMESTAMP -> "extended_timestamp";
            default -> null;
        };
    }

    /** sampled_header (0:1). */
    public static final class SampledHeader {
        /** header_protocol (1 Ethernet, 11 IPv4, 12 IPv6, ...). */
        public int headerProtocol;
        /** frame_length: original length in bytes, FCS included for L2. */
        public long frameLength;
        /** stripped: bytes removed before capture (FCS, tags). */
        public long stripped;
        /** The captured header bytes. */
        public final ByteView header = new ByteView();
    }

    /** sampled_ethernet (0:2): 24 bytes (MACs padded to 8), or 20 from agents that do not pad. */
    public static final class SampledEthernet {
        /** length: MAC packet length in bytes. */
        public long length;
        /** Source and destination MAC as 48-bit values. */
        public long srcMac, dstMac;
        /** type: ethertype. */
        public long type;
    }

    /** sampled_ipv4 (0:3) and sampled_ipv6 (0:4). */
    public static final class SampledIp {
        /** length: IP packet length in bytes. */
        public long length;
        /** protocol. */
        public long protocol;
        /** Source and destination address (4 bytes for 0:3, 16 for 0:4). */
        public final SflowAddress src = new SflowAddress(), dst = new SflowAddress();
        /** Ports, TCP flags. */
        public long srcPort, dstPort, tcpFlags;
        /** tos (IPv4) or priority (IPv6). */
        public long tos;
    }

    /** extended_switch (0:1001). 0xFFFFFFFF = unknown (errata). */
    public static final class ExtendedSwitch {
        /** VLANs and 802.1p priorities. */
        public long srcVlan, srcPriority, dstVlan, dstPriority;
    }

    /** extended_router (0:1002). */
    public static final class ExtendedRouter {
        /** Next-hop router. */
        public final SflowAddress nextHop = new SflowAddress();
        /** Prefix lengths in bits. */
        public long srcMaskLen, dstMaskLen;
    }

    /** extended_gateway (0:1003). */
    public static final class ExtendedGateway {
        /** BGP next hop. */
        public final SflowAddress nextHop = new SflowAddress();
        /** The router's own AS, the source AS, the source peer AS. */
        public long as, srcAs, srcPeerAs;
        /** Number of dst_as_path segments. */
        public int segments;
        /** Per segment: type (1 AS_SET, 2 AS_SEQUENCE) and number of ASNs. */
        public final int[] segmentType = new int[MAX_AS_SEGMENTS], segmentLength = new int[MAX_AS_SEGMENTS];
        /** All ASNs of all segments in order. */
        public final long[] asPath = new long[MAX_AS_PATH];
        /** Number of ASNs in {@link #asPath}. */
        public int asPathLength;
        /** Communities. */
        public final long[] communities = new long[MAX_AS_PATH];
        /** Number of communities. */
        public int communityCount;
        /** localpref. */
        public long localPref;

        /** @return the last ASN of the destination path (the destination AS), or 0 when the path is empty. */
        public long lastAs() {
            return asPathLength == 0 ? 0 : asPath[asPathLength - 1];
        }
    }

    /** extended_user (0:1004). */
    public static final class ExtendedUser {
        /** Character sets (IANA MIBEnum; 106 = UTF-8). */
        public long srcCharset, dstCharset;
        /** User names. */
        public final ByteView srcUser = new ByteView(), dstUser = new ByteView();
    }

    /** extended_url (0:1005). */
    public static final class ExtendedUrl {
        /** direction: 1 source, 2 destination. */
        public long direction;
        /** url and host. */
        public final ByteView url = new ByteView(), host = new ByteView();
    }

    /** extended_mpls (0:1006). */
    public static final class ExtendedMpls {
        /** Next hop. */
        public final SflowAddress nextHop = new SflowAddress();
        /** Label stack entries (RFC 3032 encoding), top first. */
        public final long[] inStack = new long[MAX_STACK], outStack = new long[MAX_STACK];
        /** Stack depths. */
        public int inDepth, outDepth;
    }

    /** extended_nat (0:1007). */
    public static final class ExtendedNat {
        /** Translated source and destination. */
        public final SflowAddress src = new SflowAddress(), dst = new SflowAddress();
    }

    /** extended_vlantunnel (0:1012): stripped TPID/TCI pairs, outermost first. */
    public static final class ExtendedVlanTunnel {
        /** Stack entries. */
        public final long[] stack = new long[MAX_STACK];
        /** Depth. */
        public int depth;
    }

    /** extended_acl (0:1037). */
    public static final class ExtendedAcl {
        /** ACL number; direction 0 unknown, 1 ingress, 2 egress. */
        public long number, direction;
        /** ACL name. */
        public final ByteView name = new ByteView();
    }

    /** extended_hw_trap (0:1041): devlink trap group and name. */
    public static final class ExtendedHwTrap {
        /** Group and trap names. */
        public final ByteView group = new ByteView(), trap = new ByteView();
    }
}
