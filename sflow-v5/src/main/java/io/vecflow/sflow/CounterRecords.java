package io.vecflow.sflow;

/**
 * Holders and decoders for the counter records of sFlow v5 counters samples (0:2 / 0:4), one mutable class per record
 * and one {@code has...} flag per record. Every record is decoded inside its declared length: a record shorter than
 * its structure fails with TRUNCATED (the decoder counts it and keeps the sample), bytes beyond the structure are
 * ignored (structures grow at their end), counts are checked against fixed capacities and the bytes left
 * (COUNT_OUT_OF_BOUNDS), strings against their declared maximum (LENGTH_OUT_OF_BOUNDS). u32 values are held in longs,
 * u64 ("unsigned hyper") in longs read as unsigned, sFlow {@code percentage} (signed int, hundredths of a percent) in
 * ints, strings and variable opaques as {@link ByteView}s into the datagram (valid only during the visitor call).
 *
 * <p>Records and sources: generic interface 0:1, ethernet 0:2, token ring 0:3, 100BaseVG 0:4, VLAN 0:5, processor
 * 0:1001 (sflow_version_5.txt "Counter Data"); LACP 0:7 (sflow_lag.txt), SFP 0:10 (sflow_optics.txt), port name
 * 0:1005 (sflow_openflow.txt); host 0:2000-2006 and virtual host 0:2100-2104 (sflow_host.txt); MIB-II IP/ICMP/TCP/UDP
 * 0:2007-2010 (sflow_host_ip.txt); JVM 0:2105-2106 (sflow_jvm.txt). Field order, sizes and the length-dependent
 * tails were checked against the reference decoder sflowtool ({@code src/sflow.h}, {@code src/sflowtool.c}).
 * Any other counter record stays raw in {@link CounterSample}.
 *
 * <p>A record that appears twice in one sample counts in {@link CounterSample#duplicateRecords}; the last copy is
 * kept. A record that fails to decode leaves its flag cleared (its holder may be partly overwritten).
 */
public final class CounterRecords {
    // data_format of each decoded record (enterprise 0, so the full 32-bit value equals the format number).
    /** if_counters (0:1). */
    public static final int IF_COUNTERS = 1;
    /** ethernet_counters (0:2). */
    public static final int ETHERNET = 2;
    /** tokenring_counters (0:3). */
    public static final int TOKEN_RING = 3;
    /** vg_counters (0:4). */
    public static final int VG = 4;
    /** vlan_counters (0:5). */
    public static final int VLAN = 5;
    /** lacp (0:7). */
    public static final int LACP = 7;
    /** sfp (0:10). */
    public static final int SFP = 10;
    /** processor (0:1001). */
    public static final int PROCESSOR = 1001;
    /** port_name (0:1005). */
    public static final int PORT_NAME = 1005;
    /** host_descr (0:2000). */
    public static final int HOST_DESCR = 2000;
    /** host_adapters (0:2001). */
    public static final int HOST_ADAPTERS = 2001;
    /** host_parent (0:2002). */
    public static final int HOST_PARENT = 2002;
    /** host_cpu (0:2003). */
    public static final int HOST_CPU = 2003;
    /** host_memory (0:2004). */
    public static final int HOST_MEMORY = 2004;
    /** host_disk_io (0:2005). */
    public static final int HOST_DISK_IO = 2005;
    /** host_net_io (0:2006). */
    public static final int HOST_NET_IO = 2006;
    /** mib2_ip_group (0:2007). */
    public static final int MIB2_IP = 2007;
    /** mib2_icmp_group (0:2008). */
    public static final int MIB2_ICMP = 2008;
    /** mib2_tcp_group (0:2009). */
    public static final int MIB2_TCP = 2009;
    /** mib2_udp_group (0:2010). */
    public static final int MIB2_UDP = 2010;
    /** virt_node (0:2100). */
    public static final int VIRT_NODE = 2100;
    /** virt_cpu (0:2101). */
    public static final int VIRT_CPU = 2101;
    /** virt_memory (0:2102). */
    public static final int VIRT_MEMORY = 2102;
    /** virt_disk_io (0:2103). */
    public static final int VIRT_DISK_IO = 2103;
    /** virt_net_io (0:2104). */
    public static final int VIRT_NET_IO = 2104;
    /** jvm_runtime (0:2105). */
    public static final int JVM_RUNTIME = 2105;
    /** jvm_statistics (0:2106). */
    public static final int JVM_STATISTICS = 2106;

    /** host_adapters: most adapters accepted per record. */
    public static final int MAX_ADAPTERS = 64;
    /** host_adapters: most MAC addresses accepted per adapter. */
    public static final int MAX_MACS_PER_ADAPTER = 16;
    /** sfp: most lanes accepted per record. */
    public static final int MAX_SFP_LANES = 16;
    /** sfp: bytes of one lane record (10 u32). */
    public static final int SFP_LANE_BYTES = 40;
    /** port_name: longest name accepted, bytes (sflowtool {@code SFL_MAX_PORTNAME_LEN}). */
    public static final int MAX_PORT_NAME = 255;
    /** host_descr: longest hostname, bytes ({@code string hostname<64>}). */
    public static final int MAX_HOSTNAME = 64;
    /** host_descr: longest os_release, bytes ({@code string os_release<32>}). */
    public static final int MAX_OS_RELEASE = 32;
    /** jvm_runtime: longest vm_name, bytes. */
    public static final int MAX_VM_NAME = 64;
    /** jvm_runtime: longest vm_vendor, bytes. */
    public static final int MAX_VM_VENDOR = 32;
    /** jvm_runtime: longest vm_version, bytes. */
    public static final int MAX_VM_VERSION = 32;


    /**
     * @param format a counter record data_format (enterprise 0)
     * @return the holder of that record if the last decoded sample had it, else null (for generic printers)
     */
    public Object holder(int format) {
        return switch (format) {
            case IF_COUNTERS -> hasIfCounters ? ifCounters : null;
            case ETHERNET -> hasEthernet ? ethernet : null;
            case TOKEN_RING -> hasTokenRing ? tokenRing : null;
            case VG -> hasVg ? vg : null;
            case VLAN -> hasVlan ? vlan : null;
            case LACP -> hasLacp ? lacp : null;
            case SFP -> hasSfp ? sfp : null;
            case PROCESSOR -> hasProcessor ? processor : null;
            case PORT_NAME -> hasPortName ? portName : null;
            case HOST_DESCR -> hasHostDescr ? hostDescr : null;
            case HOST_ADAPTERS -> hasHostAdapters ? hostAdapters : null;
            case HOST_PARENT -> hasHostParent ? hostParent : null;
            case HOST_CPU -> hasHostCpu ? hostCpu : null;
            case HOST_MEMORY -> hasHostMemory ? hostMemory : null;
            case HOST_DISK_IO -> hasHostDiskIo ? hostDiskIo : null;
            case HOST_NET_IO -> hasHostNetIo ? hostNetIo : null;
            case MIB2_IP -> hasMib2Ip ? mib2Ip : null;
            case MIB2_ICMP -> hasMib2Icmp ? mib2Icmp : null;
            case MIB2_TCP -> hasMib2Tcp ? mib2Tcp : null;
            case MIB2_UDP -> hasMib2Udp ? mib2Udp : null;
            case VIRT_NODE -> hasVirtNode ? virtNode : null;
            case VIRT_CPU -> hasVirtCpu ? virtCpu : null;
            case VIRT_MEMORY -> hasVirtMemory ? virtMemory : null;
            case VIRT_DISK_IO -> hasVirtDiskIo ? virtDiskIo : null;
            case VIRT_NET_IO -> hasVirtNetIo ? virtNetIo : null;
            case JVM_RUNTIME -> hasJvmRuntime ? jvmRuntime : null;
            case JVM_STATISTICS -> hasJvmStatistics ? jvmStatistics : null;
            default -> null;
        };
    }

    /**
     * @param format a counter record data_format
     * @return the structure's name in the sFlow texts (e.g. "if_counters", "host_cpu"), or "enterprise:format"
     */
    public static String name(int format) {
        String n = knownName(format);
        return n != null ? n : SflowFormats.enterprise(format) + ":" + SflowFormats.format(format);
    }

    /** @return true for a counter record format vecflow decodes into a holder. */
    public static boolean isKnown(int format) {
        return knownName(format) != null;
    }

    private static String knownName(int format) {
        return switch (format) {
            case IF_COUNTERS -> "if_counters";
            case ETHERNET -> "ethernet_counters";
            case TOKEN_RING -> "tokenring_counters";
            case VG -> "vg_counters";
            case VLAN -> "vlan_counters";
            case LACP -> "lacp_counters";
            case SFP -> "sfp";
            case PROCESSOR -> "processor";
            case PORT_NAME -> "port_name";
            case HOST_DESCR -> "host_descr";
            case HOST_ADAPTERS -> "host_adapters";
            case HOST_PARENT -> "host_parent";
            case HOST_CPU -> "host_cpu";
            case HOST_MEMORY -> "host_memory";
            case HOST_DISK_IO -> "host_disk_io";
            case HOST_NET_IO -> "host_net_io";
            case MIB2_IP -> "mib2_ip_group";
            case MIB2_ICMP -> "mib2_icmp_group";
            case MIB2_TCP -> "mib2_tcp_group";
            case MIB2_UDP -> "mib2_udp_group";
            case VIRT_NODE -> "virt_node";
            case VIRT_CPU -> "virt_cpu";
            case VIRT_MEMORY -> "virt_memory";
            case VIRT_DISK_IO -> "virt_disk_io";
            case VIRT_NET_IO -> "virt_net_io";
            case JVM_RUNTIME -> "jvm_runtime";
            case JVM_STATISTICS -> "jvm_statistics";
            default -> null;
        };
    }

    /** if_counters (0:1). */
    public final IfCounters ifCounters = new IfCounters();
    /** Presence of if_counters in the current sample. */
    public boolean hasIfCounters;
    /** ethernet_counters (0:2). */
    public final EthernetCounters ethernet = new EthernetCounters();
    /** Presence of ethernet_counters in the current sample. */
    public boolean hasEthernet;
    /** tokenring_counters (0:3). */
    public final TokenRingCounters tokenRing = new TokenRingCounters();
    /** Presence of tokenring_counters in the current sample. */
    public boolean hasTokenRing;
    /** vg_counters (0:4). */
    public final VgCounters vg = new VgCounters();
    /** Presence of vg_counters in the current sample. */
    public boolean hasVg;
    /** vlan_counters (0:5). */
    public final VlanCounters vlan = new VlanCounters();
    /** Presence of vlan_counters in the current sample. */
    public boolean hasVlan;
    /** lacp (0:7). */
    public final LacpCounters lacp = new LacpCounters();
    /** Presence of lacp in the current sample. */
    public boolean hasLacp;
    /** sfp (0:10). */
    public final SfpCounters sfp = new SfpCounters();
    /** Presence of sfp in the current sample. */
    public boolean hasSfp;
    /** processor (0:1001). */
    public final ProcessorCounters processor = new ProcessorCounters();
    /** Presence of processor in the current sample. */
    public boolean hasProcessor;
    /** port_name (0:1005). */
    public final PortName portName = new PortName();
    /** Presence of port_name in the current sample. */
    public boolean hasPortName;
    /** host_descr (0:2000). */
    public final HostDescr hostDescr = new HostDescr();
    /** Presence of host_descr in the current sample. */
    public boolean hasHostDescr;
    /** host_adapters (0:2001). */
    public final HostAdapters hostAdapters = new HostAdapters();
    /** Presence of host_adapters in the current sample. */
    public boolean hasHostAdapters;
    /** host_parent (0:2002). */
    public final HostParent hostParent = new HostParent();
    /** Presence of host_parent in the current sample. */
    public boolean hasHostParent;
    /** host_cpu (0:2003). */
    public final HostCpu hostCpu = new HostCpu();
    /** Presence of host_cpu in the current sample. */
    public boolean hasHostCpu;
    /** host_memory (0:2004). */
    public final HostMemory hostMemory = new HostMemory();
    /** Presence of host_memory in the current sample. */
    public boolean hasHostMemory;
    /** host_disk_io (0:2005). */
    public final HostDiskIo hostDiskIo = new HostDiskIo();
    /** Presence of host_disk_io in the current sample. */
    public boolean hasHostDiskIo;
    /** host_net_io (0:2006). */
    public final HostNetIo hostNetIo = new HostNetIo();
    /** Presence of host_net_io in the current sample. */
    public boolean hasHostNetIo;
    /** mib2_ip_group (0:2007). */
    public final Mib2IpGroup mib2Ip = new Mib2IpGroup();
    /** Presence of mib2_ip_group in the current sample. */
    public boolean hasMib2Ip;
    /** mib2_icmp_group (0:2008). */
    public final Mib2IcmpGroup mib2Icmp = new Mib2IcmpGroup();
    /** Presence of mib2_icmp_group in the current sample. */
    public boolean hasMib2Icmp;
    /** mib2_tcp_group (0:2009). */
    public final Mib2TcpGroup mib2Tcp = new Mib2TcpGroup();
    /** Presence of mib2_tcp_group in the current sample. */
    public boolean hasMib2Tcp;
    /** mib2_udp_group (0:2010). */
    public final Mib2UdpGroup mib2Udp = new Mib2UdpGroup();
    /** Presence of mib2_udp_group in the current sample. */
    public boolean hasMib2Udp;
    /** virt_node (0:2100). */
    public final VirtNode virtNode = new VirtNode();
    /** Presence of virt_node in the current sample. */
    public boolean hasVirtNode;
    /** virt_cpu (0:2101). */
    public final VirtCpu virtCpu = new VirtCpu();
    /** Presence of virt_cpu in the current sample. */
    public boolean hasVirtCpu;
    /** virt_memory (0:2102). */
    public final VirtMemory virtMemory = new VirtMemory();
    /** Presence of virt_memory in the current sample. */
    public boolean hasVirtMemory;
    /** virt_disk_io (0:2103). */
    public final VirtDiskIo virtDiskIo = new VirtDiskIo();
    /** Presence of virt_disk_io in the current sample. */
    public boolean hasVirtDiskIo;
    /** virt_net_io (0:2104). */
    public final VirtNetIo virtNetIo = new VirtNetIo();
    /** Presence of virt_net_io in the current sample. */
    public boolean hasVirtNetIo;
    /** jvm_runtime (0:2105). */
    public final JvmRuntime jvmRuntime = new JvmRuntime();
    /** Presence of jvm_runtime in the current sample. */
    public boolean hasJvmRuntime;
    /** jvm_statistics (0:2106). */
    public final JvmStatistics jvmStatistics = new JvmStatistics();
    /** Presence of jvm_statistics in the current sample. */
    public boolean hasJvmStatistics;

    /**
     * Generic interface counters (0:1), 88 bytes; RFC 2233 ifTable/ifXTable values.
     * Source: sflow_version_5.txt "Counter Data".
     */
    public static final class IfCounters {
        /** ifIndex of the interface. */
        public long ifIndex;
        /** ifType (IANAifType, e.g. 6 ethernetCsmacd, 117 gigabitEthernet). */
        public long ifType;
        /** ifSpeed in bit/s (u64; 400 Gb/s = 400000000000). */
        public long ifSpeed;
        /** ifDirection: 0 unknown, 1 full-duplex, 2 half-duplex, 3 in, 4 out. */
        public long ifDirection;
        /** ifStatus bits: bit 0 ifAdminStatus up, bit 1 ifOperStatus up. */
        public long ifStatus;
        /** ifInOctets, bytes (u64). */
        public long inOctets;
        /** ifInUcastPkts, packets. */
        public long inUcastPkts;
        /** ifInMulticastPkts, packets. */
        public long inMulticastPkts;
        /** ifInBroadcastPkts, packets. */
        public long inBroadcastPkts;
        /** ifInDiscards, packets. */
        public long inDiscards;
        /** ifInErrors, packets. */
        public long inErrors;
        /** ifInUnknownProtos, packets. */
        public long inUnknownProtos;
        /** ifOutOctets, bytes (u64). */
        public long outOctets;
        /** ifOutUcastPkts, packets. */
        public long outUcastPkts;
        /** ifOutMulticastPkts, packets. */
        public long outMulticastPkts;
        /** ifOutBroadcastPkts, packets. */
        public long outBroadcastPkts;
        /** ifOutDiscards, packets. */
        public long outDiscards;
        /** ifOutErrors, packets. */
        public long outErrors;
        /** ifPromiscuousMode (TruthValue: 1 true, 2 false). */
        public long promiscuousMode;
    }

    /**
     * Ethernet interface counters (0:2), 52 bytes: 13 dot3Stats counters of RFC 2358 (EtherLike-MIB), frames.
     * Source: sflow_version_5.txt "Counter Data".
     */
    public static final class EthernetCounters {
        /** dot3StatsAlignmentErrors, frames. */
        public long alignmentErrors;
        /** dot3StatsFCSErrors, frames. */
        public long fcsErrors;
        /** dot3StatsSingleCollisionFrames, frames. */
        public long singleCollisionFrames;
        /** dot3StatsMultipleCollisionFrames, frames. */
        public long multipleCollisionFrames;
        /** dot3StatsSQETestErrors, frames. */
        public long sqeTestErrors;
        /** dot3StatsDeferredTransmissions, frames. */
        public long deferredTransmissions;
        /** dot3StatsLateCollisions, frames. */
        public long lateCollisions;
        /** dot3StatsExcessiveCollisions, frames. */
        public long excessiveCollisions;
        /** dot3StatsInternalMacTransmitErrors, frames. */
        public long internalMacTransmitErrors;
        /** dot3StatsCarrierSenseErrors, frames. */
        public long carrierSenseErrors;
        /** dot3StatsFrameTooLongs, frames. */
        public long frameTooLongs;
        /** dot3StatsInternalMacReceiveErrors, frames. */
        public long internalMacReceiveErrors;
        /** dot3StatsSymbolErrors, frames. */
        public long symbolErrors;
    }

    /**
     * Token ring counters (0:3), 72 bytes: 18 dot5Stats counters of RFC 1748, events.
     * Source: sflow_version_5.txt "Counter Data".
     */
    public static final class TokenRingCounters {
        /** dot5StatsLineErrors, count. */
        public long lineErrors;
        /** dot5StatsBurstErrors, count. */
        public long burstErrors;
        /** dot5StatsACErrors, count. */
        public long acErrors;
        /** dot5StatsAbortTransErrors, count. */
        public long abortTransErrors;
        /** dot5StatsInternalErrors, count. */
        public long internalErrors;
        /** dot5StatsLostFrameErrors, count. */
        public long lostFrameErrors;
        /** dot5StatsReceiveCongestions, count. */
        public long receiveCongestions;
        /** dot5StatsFrameCopiedErrors, count. */
        public long frameCopiedErrors;
        /** dot5StatsTokenErrors, count. */
        public long tokenErrors;
        /** dot5StatsSoftErrors, count. */
        public long softErrors;
        /** dot5StatsHardErrors, count. */
        public long hardErrors;
        /** dot5StatsSignalLoss, count. */
        public long signalLoss;
        /** dot5StatsTransmitBeacons, count. */
        public long transmitBeacons;
        /** dot5StatsRecoverys, count. */
        public long recoverys;
        /** dot5StatsLobeWires, count. */
        public long lobeWires;
        /** dot5StatsRemoves, count. */
        public long removes;
        /** dot5StatsSingles, count. */
        public long singles;
        /** dot5StatsFreqErrors, count. */
        public long freqErrors;
    }

    /**
     * 100BaseVG interface counters (0:4), 80 bytes: dot12 counters of RFC 2020.
     * Source: sflow_version_5.txt "Counter Data".
     */
    public static final class VgCounters {
        /** dot12InHighPriorityFrames, frames. */
        public long inHighPriorityFrames;
        /** dot12InHighPriorityOctets, bytes (u64). */
        public long inHighPriorityOctets;
        /** dot12InNormPriorityFrames, frames. */
        public long inNormPriorityFrames;
        /** dot12InNormPriorityOctets, bytes (u64). */
        public long inNormPriorityOctets;
        /** dot12InIPMErrors, frames. */
        public long inIpmErrors;
        /** dot12InOversizeFrameErrors, frames. */
        public long inOversizeFrameErrors;
        /** dot12InDataErrors, frames. */
        public long inDataErrors;
        /** dot12InNullAddressedFrames, frames. */
        public long inNullAddressedFrames;
        /** dot12OutHighPriorityFrames, frames. */
        public long outHighPriorityFrames;
        /** dot12OutHighPriorityOctets, bytes (u64). */
        public long outHighPriorityOctets;
        /** dot12TransitionIntoTrainings, count. */
        public long transitionIntoTrainings;
        /** dot12HCInHighPriorityOctets, bytes (u64). */
        public long hcInHighPriorityOctets;
        /** dot12HCInNormPriorityOctets, bytes (u64). */
        public long hcInNormPriorityOctets;
        /** dot12HCOutHighPriorityOctets, bytes (u64). */
        public long hcOutHighPriorityOctets;
    }

    /**
     * VLAN counters (0:5), 28 bytes.
     * Source: sflow_version_5.txt "Counter Data".
     */
    public static final class VlanCounters {
        /** vlan_id: 802.1Q VLAN id. */
        public long vlanId;
        /** octets, bytes (u64). */
        public long octets;
        /** ucastPkts, packets. */
        public long ucastPkts;
        /** multicastPkts, packets. */
        public long multicastPkts;
        /** broadcastPkts, packets. */
        public long broadcastPkts;
        /** discards, packets. */
        public long discards;
    }

    /**
     * LAG port statistics (0:7), 56 bytes: IEEE8023-LAG-MIB dot3adAggPort values for one LACP member port.
     * Source: sflow_lag.txt; field order and sizes as sflowtool src/sflow.h {@code SFLLACP_counters} (XDR size 56).
     */
    public static final class LacpCounters {
        /** dot3adAggPortActorSystemID: 48-bit MAC (6 bytes + 2 zero pad on the wire). */
        public long actorSystemId;
        /** dot3adAggPortPartnerOperSystemID: 48-bit MAC (6 bytes + 2 zero pad on the wire). */
        public long partnerSystemId;
        /** dot3adAggPortAttachedAggID: ifIndex of the aggregator the port is attached to. */
        public long attachedAggId;
        /**
         * Port state: four LACP state octets (bit fields, 0..255) packed in one XDR word, in wire order actor admin,
         * actor oper, partner admin, partner oper (dot3adAggPortActorAdminState ... PartnerOperState).
         */
        public int actorAdminState, actorOperState, partnerAdminState, partnerOperState;
        /** dot3adAggPortStatsLACPDUsRx, MarkerPDUsRx, MarkerResponsePDUsRx, UnknownRx, IllegalRx: frames received. */
        public long lacpdusRx, markerPdusRx, markerResponsePdusRx, unknownRx, illegalRx;
        /** dot3adAggPortStatsLACPDUsTx, MarkerPDUsTx, MarkerResponsePDUsTx: frames sent. */
        public long lacpdusTx, markerPdusTx, markerResponsePdusTx;
    }

    /**
     * Optical SFP/QSFP module metrics (0:10): module_id, module_total_lanes, module_supply_voltage,
     * module_temperature, then {@code lanes<>} of 40-byte lane records; at most
     * {@link CounterRecords#MAX_SFP_LANES} lanes are accepted. Source: sflow_optics.txt; field order, sizes and units
     * as sflowtool src/sflow.h {@code SFLSFP_counters}/{@code SFLLane}.
     */
    public static final class SfpCounters {
        /** module_id: module identifier. */
        public long moduleId;
        /** module_total_lanes: lanes in the module. */
        public long moduleTotalLanes;
        /** module_supply_voltage: supply voltage, millivolts. */
        public long moduleSupplyVoltage;
        /** module_temperature: signed, thousandths of a degree Celsius. */
        public int moduleTemperature;
        /** Number of valid entries in {@link #lanes} (the lanes reported). */
        public int lanesCount;
        /** The reported lanes; entries from {@link #lanesCount} on are stale. */
        public final Lane[] lanes = new Lane[MAX_SFP_LANES];

        /** Creates the holder with its lane entries. */
        public SfpCounters() {
            for (int i = 0; i < lanes.length; i++) {
                lanes[i] = new Lane();
            }
        }

        /** One lane record (sflowtool {@code SFLLane}), 40 bytes. */
        public static final class Lane {
            /** lane_index: index of the lane in the module, from 1. */
            public long laneIndex;
            /** tx_bias_current: transmit bias current, microamps. */
            public long txBiasCurrent;
            /** tx_power, tx_power_min, tx_power_max: transmit power and its thresholds, microwatts. */
            public long txPower, txPowerMin, txPowerMax;
            /** tx_wavelength: transmit wavelength, nanometres. */
            public long txWavelength;
            /** rx_power, rx_power_min, rx_power_max: receive power and its thresholds, microwatts. */
            public long rxPower, rxPowerMin, rxPowerMax;
            /** rx_wavelength: receive wavelength, nanometres. */
            public long rxWavelength;
        }
    }

    /**
     * Processor information (0:1001), 28 bytes. CPU values are sFlow {@code percentage}: a signed int in hundredths of
     * a percent (5000 = 50%), -1 = unknown.
     * Source: sflow_version_5.txt "Counter Data".
     */
    public static final class ProcessorCounters {
        /** 5s_cpu: 5-second average CPU utilisation, hundredths of a percent; -1 unknown. */
        public int cpu5s;
        /** 1m_cpu: 1-minute average CPU utilisation, hundredths of a percent; -1 unknown. */
        public int cpu1m;
        /** 5m_cpu: 5-minute average CPU utilisation, hundredths of a percent; -1 unknown. */
        public int cpu5m;
        /** total_memory, bytes (u64). */
        public long totalMemory;
        /** free_memory, bytes (u64). */
        public long freeMemory;
    }

    /**
     * Port name (0:1005): {@code string name<255>}, e.g. the Linux or VPP interface name hsflowd reports.
     * Source: sflow_openflow.txt; maximum length as sflowtool src/sflow.h {@code SFL_MAX_PORTNAME_LEN}.
     */
    public static final class PortName {
        /**
         * name: the port name bytes (at most {@link CounterRecords#MAX_PORT_NAME}); a view into the datagram when
         * decoded.
         */
        public final ByteView name = new ByteView();
    }

    /**
     * Physical or virtual host description (0:2000): {@code string hostname<64>}, uuid, machine_type, os_name,
     * {@code string os_release<32>}. The uuid is read as 16 fixed bytes: sflow_host.txt writes {@code opaque
     * uuid<16>}, but sflowtool ({@code readCounters_host_hid}) and real hsflowd datagrams (tcpdump
     * {@code tests/sflow_multiple_counter_30_pdus.pcap}) carry no length word. Source: sflow_host.txt.
     */
    public static final class HostDescr {
        /**
         * hostname (at most {@link CounterRecords#MAX_HOSTNAME} bytes; empty if unknown); a view into the datagram when
         * decoded.
         */
        public final ByteView hostname = new ByteView();
        /** uuid: 16 bytes, binary (all zero if unknown); copied out of the datagram. */
        public final byte[] uuid = new byte[16];
        /**
         * machine_type: 0 unknown, 1 other, 2 x86, 3 x86_64, 4 ia64, 5 sparc, 6 alpha, 7 powerpc, 8 m68k, 9 mips,
         * 10 arm, 11 hppa, 12 s390.
         */
        public long machineType;
        /**
         * os_name: 0 unknown, 1 other, 2 linux, 3 windows, 4 darwin, 5 hpux, 6 aix, 7 dragonfly, 8 freebsd,
         * 9 netbsd, 10 openbsd, 11 osf, 12 solaris.
         */
        public long osName;
        /**
         * os_release, e.g. {@code 2.6.18-194.el5} (at most {@link CounterRecords#MAX_OS_RELEASE} bytes; empty if
         * unknown).
         */
        public final ByteView osRelease = new ByteView();
    }

    /**
     * Adapters of a host (0:2001): {@code adapter adapters<>}, each {ifIndex, {@code mac mac_address<>}} with every
     * MAC taking 8 bytes (6 + 2 zero pad). Capacities: {@link CounterRecords#MAX_ADAPTERS} adapters,
     * {@link CounterRecords#MAX_MACS_PER_ADAPTER} MACs each; larger counts, or counts the record cannot hold, fail
     * with COUNT_OUT_OF_BOUNDS.
     * Source: sflow_host.txt; sflowtool {@code readCounters_adaptors}.
     */
    public static final class HostAdapters {
        /** Number of valid entries in {@link #adapters}. */
        public int count;
        /** The adapters; entries from {@link #count} on are stale. */
        public final Adapter[] adapters = new Adapter[MAX_ADAPTERS];

        /** Creates the holder with its adapter entries. */
        public HostAdapters() {
            for (int i = 0; i < adapters.length; i++) {
                adapters[i] = new Adapter();
            }
        }

        /** One adapter. */
        public static final class Adapter {
            /** ifIndex of the adapter (0 if unknown). */
            public long ifIndex;
            /** Number of valid entries in {@link #macs}. */
            public int macsCount;
            /**
             * MAC addresses as 48-bit values (first byte in bits 47..40); entries from {@link #macsCount} on are stale.
             */
            public final long[] macs = new long[MAX_MACS_PER_ADAPTER];
        }
    }

    /**
     * Containment hierarchy (0:2002), 8 bytes: the sFlowDataSource that contains this entity.
     * Source: sflow_host.txt.
     */
    public static final class HostParent {
        /** container_type: sFlowDataSource type (0 ifIndex, 1 VLAN, 2 entPhysicalEntry, 3 logical entity). */
        public long containerType;
        /** container_index: sFlowDataSource index. */
        public long containerIndex;
    }

    /**
     * Physical server CPU (0:2003): 68 bytes, or 80 bytes since December 2014 (steal, guest, guest_nice appended; read
     * only when the record is longer than 68 bytes, as sflowtool {@code readCounters_host_cpu} does).
     * Source: sflow_host.txt, sflowtool src/sflow.h.
     */
    public static final class HostCpu {
        /** load_one: 1-minute load average (IEEE-754 single). */
        public float loadOne;
        /** load_five: 5-minute load average. */
        public float loadFive;
        /** load_fifteen: 15-minute load average. */
        public float loadFifteen;
        /** proc_run: running processes (threads). */
        public long procRun;
        /** proc_total: total processes (threads). */
        public long procTotal;
        /** cpu_num: number of CPUs (cores). */
        public long cpuNum;
        /** cpu_speed: CPU speed, MHz. */
        public long cpuSpeed;
        /** uptime: seconds since last reboot. */
        public long uptime;
        /** cpu_user: time in user mode, ms. */
        public long cpuUser;
        /** cpu_nice: time in niced processes, ms. */
        public long cpuNice;
        /** cpu_system: time in kernel mode, ms. */
        public long cpuSystem;
        /** cpu_idle: idle time, ms. */
        public long cpuIdle;
        /** cpu_wio: time waiting for I/O, ms. */
        public long cpuWio;
        /** cpu_intr: time servicing interrupts, ms. */
        public long cpuIntr;
        /** cpu_sintr: time servicing soft interrupts, ms. */
        public long cpuSintr;
        /** interrupts: interrupt count. */
        public long interrupts;
        /** contexts: context switch count. */
        public long contexts;
        /**
         * True if the record carries cpu_steal, cpu_guest and cpu_guest_nice (80-byte form); the encoder then writes 80
         * bytes, else 68.
         */
        public boolean hasStealGuest;
        /** cpu_steal: time spent in other OS instances (virtual environments), ms; only if {@link #hasStealGuest}. */
        public long cpuSteal;
        /** cpu_guest: time running a vCPU for guest OSes, ms; only if {@link #hasStealGuest}. */
        public long cpuGuest;
        /** cpu_guest_nice: time running a vCPU for niced guest OSes, ms; only if {@link #hasStealGuest}. */
        public long cpuGuestNice;
    }

    /**
     * Physical server memory (0:2004), 72 bytes.
     * Source: sflow_host.txt.
     */
    public static final class HostMemory {
        /** mem_total, bytes (u64). */
        public long memTotal;
        /** mem_free, bytes (u64). */
        public long memFree;
        /** mem_shared, bytes (u64). */
        public long memShared;
        /** mem_buffers, bytes (u64). */
        public long memBuffers;
        /** mem_cached, bytes (u64). */
        public long memCached;
        /** swap_total, bytes (u64). */
        public long swapTotal;
        /** swap_free, bytes (u64). */
        public long swapFree;
        /** page_in: pages paged in, count. */
        public long pageIn;
        /** page_out: pages paged out, count. */
        public long pageOut;
        /** swap_in: pages swapped in, count. */
        public long swapIn;
        /** swap_out: pages swapped out, count. */
        public long swapOut;
    }

    /**
     * Physical server disk I/O (0:2005), 52 bytes.
     * Source: sflow_host.txt.
     */
    public static final class HostDiskIo {
        /** disk_total: total disk size, bytes (u64). */
        public long diskTotal;
        /** disk_free: total free space, bytes (u64). */
        public long diskFree;
        /**
         * part_max_used: utilisation of the fullest partition, sFlow percentage (signed, hundredths of a percent; -1
         * unknown).
         */
        public int partMaxUsed;
        /** reads: reads issued, count. */
        public long reads;
        /** bytes_read, bytes (u64). */
        public long bytesRead;
        /** read_time: time spent reading, ms. */
        public long readTime;
        /** writes: writes completed, count. */
        public long writes;
        /** bytes_written, bytes (u64). */
        public long bytesWritten;
        /** write_time: time spent writing, ms. */
        public long writeTime;
    }

    /**
     * Physical server network I/O (0:2006), 40 bytes: totals over all interfaces.
     * Source: sflow_host.txt.
     */
    public static final class HostNetIo {
        /** bytes_in: bytes received (u64). */
        public long bytesIn;
        /** pkts_in: packets received. */
        public long pktsIn;
        /** errs_in: receive errors, packets. */
        public long errsIn;
        /** drops_in: receive drops, packets. */
        public long dropsIn;
        /** bytes_out: bytes sent (u64). */
        public long bytesOut;
        /** packets_out: packets sent. */
        public long pktsOut;
        /** errs_out: send errors, packets. */
        public long errsOut;
        /** drops_out: send drops, packets. */
        public long dropsOut;
    }

    /**
     * MIB-II IP group (0:2007), 76 bytes: 19 u32 values of RFC 1213 ip.
     * Source: sflow_host_ip.txt; field order as sflowtool src/sflow.h ({@code SFLHost_*_counters}).
     */
    public static final class Mib2IpGroup {
        /** ipForwarding: 1 forwarding (router), 2 not forwarding (host). */
        public long ipForwarding;
        /** ipDefaultTTL: default IP TTL, hops. */
        public long ipDefaultTTL;
        /** ipInReceives, datagrams (MIB-II counter). */
        public long ipInReceives;
        /** ipInHdrErrors, datagrams (MIB-II counter). */
        public long ipInHdrErrors;
        /** ipInAddrErrors, datagrams (MIB-II counter). */
        public long ipInAddrErrors;
        /** ipForwDatagrams, datagrams (MIB-II counter). */
        public long ipForwDatagrams;
        /** ipInUnknownProtos, datagrams (MIB-II counter). */
        public long ipInUnknownProtos;
        /** ipInDiscards, datagrams (MIB-II counter). */
        public long ipInDiscards;
        /** ipInDelivers, datagrams (MIB-II counter). */
        public long ipInDelivers;
        /** ipOutRequests, datagrams (MIB-II counter). */
        public long ipOutRequests;
        /** ipOutDiscards, datagrams (MIB-II counter). */
        public long ipOutDiscards;
        /** ipOutNoRoutes, datagrams (MIB-II counter). */
        public long ipOutNoRoutes;
        /** ipReasmTimeout: reassembly timeout, seconds. */
        public long ipReasmTimeout;
        /** ipReasmReqds, datagrams (MIB-II counter). */
        public long ipReasmReqds;
        /** ipReasmOKs, datagrams (MIB-II counter). */
        public long ipReasmOKs;
        /** ipReasmFails, datagrams (MIB-II counter). */
        public long ipReasmFails;
        /** ipFragOKs, datagrams (MIB-II counter). */
        public long ipFragOKs;
        /** ipFragFails, datagrams (MIB-II counter). */
        public long ipFragFails;
        /** ipFragCreates, datagrams (MIB-II counter). */
        public long ipFragCreates;
    }

    /**
     * MIB-II ICMP group (0:2008), 100 bytes: 25 u32 counters of RFC 1213 icmp (no icmpInTimestampReps: the sFlow
     * structure omits it), messages.
     * Source: sflow_host_ip.txt; field order as sflowtool src/sflow.h ({@code SFLHost_*_counters}).
     */
    public static final class Mib2IcmpGroup {
        /** icmpInMsgs, messages. */
        public long icmpInMsgs;
        /** icmpInErrors, messages. */
        public long icmpInErrors;
        /** icmpInDestUnreachs, messages. */
        public long icmpInDestUnreachs;
        /** icmpInTimeExcds, messages. */
        public long icmpInTimeExcds;
        /** icmpInParamProbs, messages. */
        public long icmpInParamProbs;
        /** icmpInSrcQuenchs, messages. */
        public long icmpInSrcQuenchs;
        /** icmpInRedirects, messages. */
        public long icmpInRedirects;
        /** icmpInEchos, messages. */
        public long icmpInEchos;
        /** icmpInEchoReps, messages. */
        public long icmpInEchoReps;
        /** icmpInTimestamps, messages. */
        public long icmpInTimestamps;
        /** icmpInAddrMasks, messages. */
        public long icmpInAddrMasks;
        /** icmpInAddrMaskReps, messages. */
        public long icmpInAddrMaskReps;
        /** icmpOutMsgs, messages. */
        public long icmpOutMsgs;
        /** icmpOutErrors, messages. */
        public long icmpOutErrors;
        /** icmpOutDestUnreachs, messages. */
        public long icmpOutDestUnreachs;
        /** icmpOutTimeExcds, messages. */
        public long icmpOutTimeExcds;
        /** icmpOutParamProbs, messages. */
        public long icmpOutParamProbs;
        /** icmpOutSrcQuenchs, messages. */
        public long icmpOutSrcQuenchs;
        /** icmpOutRedirects, messages. */
        public long icmpOutRedirects;
        /** icmpOutEchos, messages. */
        public long icmpOutEchos;
        /** icmpOutEchoReps, messages. */
        public long icmpOutEchoReps;
        /** icmpOutTimestamps, messages. */
        public long icmpOutTimestamps;
        /** icmpOutTimestampReps, messages. */
        public long icmpOutTimestampReps;
        /** icmpOutAddrMasks, messages. */
        public long icmpOutAddrMasks;
        /** icmpOutAddrMaskReps, messages. */
        public long icmpOutAddrMaskReps;
    }

    /**
     * MIB-II TCP group (0:2009), 60 bytes: 14 u32 values of RFC 1213 tcp plus tcpInCsumErrors
     * (as Linux /proc/net/snmp reports it).
     * Source: sflow_host_ip.txt; field order as sflowtool src/sflow.h ({@code SFLHost_*_counters}).
     */
    public static final class Mib2TcpGroup {
        /** tcpRtoAlgorithm: 1 other, 2 constant, 3 rsre, 4 vanj. */
        public long tcpRtoAlgorithm;
        /** tcpRtoMin: minimum retransmission timeout, ms. */
        public long tcpRtoMin;
        /** tcpRtoMax: maximum retransmission timeout, ms. */
        public long tcpRtoMax;
        /** tcpMaxConn: connection limit (0xFFFFFFFF = dynamic, i.e. -1 in the MIB). */
        public long tcpMaxConn;
        /** tcpActiveOpens, count (MIB-II counter). */
        public long tcpActiveOpens;
        /** tcpPassiveOpens, count (MIB-II counter). */
        public long tcpPassiveOpens;
        /** tcpAttemptFails, count (MIB-II counter). */
        public long tcpAttemptFails;
        /** tcpEstabResets, count (MIB-II counter). */
        public long tcpEstabResets;
        /** tcpCurrEstab: connections now ESTABLISHED or CLOSE-WAIT (gauge). */
        public long tcpCurrEstab;
        /** tcpInSegs, count (MIB-II counter). */
        public long tcpInSegs;
        /** tcpOutSegs, count (MIB-II counter). */
        public long tcpOutSegs;
        /** tcpRetransSegs, count (MIB-II counter). */
        public long tcpRetransSegs;
        /** tcpInErrs, count (MIB-II counter). */
        public long tcpInErrs;
        /** tcpOutRsts, count (MIB-II counter). */
        public long tcpOutRsts;
        /** tcpInCsumErrors, count (MIB-II counter). */
        public long tcpInCsumErrors;
    }

    /**
     * MIB-II UDP group (0:2010), 28 bytes: 7 u32 counters, datagrams: the four of RFC 1213 udp plus
     * udpRcvbufErrors, udpSndbufErrors and udpInCsumErrors (as Linux /proc/net/snmp reports them).
     * Source: sflow_host_ip.txt; field order as sflowtool src/sflow.h ({@code SFLHost_*_counters}).
     */
    public static final class Mib2UdpGroup {
        /** udpInDatagrams, datagrams. */
        public long udpInDatagrams;
        /** udpNoPorts, datagrams. */
        public long udpNoPorts;
        /** udpInErrors, datagrams. */
        public long udpInErrors;
        /** udpOutDatagrams, datagrams. */
        public long udpOutDatagrams;
        /** udpRcvbufErrors, datagrams. */
        public long udpRcvbufErrors;
        /** udpSndbufErrors, datagrams. */
        public long udpSndbufErrors;
        /** udpInCsumErrors, datagrams. */
        public long udpInCsumErrors;
    }

    /**
     * Virtual node statistics (0:2100), 28 bytes: the hypervisor.
     * Source: sflow_host.txt.
     */
    public static final class VirtNode {
        /** mhz: expected CPU frequency, MHz. */
        public long mhz;
        /** cpus: number of active CPUs. */
        public long cpus;
        /** memory: memory size, bytes (u64). */
        public long memory;
        /** memory_free: unassigned memory, bytes (u64). */
        public long memoryFree;
        /** num_domains: number of active domains. */
        public long numDomains;
    }

    /**
     * Virtual domain CPU statistics (0:2101), 12 bytes.
     * Source: sflow_host.txt.
     */
    public static final class VirtCpu {
        /** state: virDomainState (0 no state, 1 running, 2 blocked, 3 paused, 4 shutdown, 5 shutoff, 6 crashed). */
        public long state;
        /** cpuTime: CPU time used, ms. */
        public long cpuTime;
        /** nrVirtCpu: number of virtual CPUs of the domain. */
        public long nrVirtCpu;
    }

    /**
     * Virtual domain memory statistics (0:2102), 16 bytes.
     * Source: sflow_host.txt.
     */
    public static final class VirtMemory {
        /** memory: memory used by the domain, bytes (u64). */
        public long memory;
        /** maxMemory: memory allowed, bytes (u64). */
        public long maxMemory;
    }

    /**
     * Virtual domain disk statistics (0:2103), 52 bytes.
     * Source: sflow_host.txt.
     */
    public static final class VirtDiskIo {
        /** capacity: logical size, bytes (u64). */
        public long capacity;
        /** allocation: current allocation, bytes (u64). */
        public long allocation;
        /** available: remaining free space, bytes (u64). */
        public long available;
        /** rd_req: read requests, count. */
        public long rdReq;
        /** rd_bytes: bytes read (u64). */
        public long rdBytes;
        /** wr_req: write requests, count. */
        public long wrReq;
        /** wr_bytes: bytes written (u64). */
        public long wrBytes;
        /** errs: read/write errors, count. */
        public long errs;
    }

    /**
     * Virtual domain network statistics (0:2104), 40 bytes.
     * Source: sflow_host.txt.
     */
    public static final class VirtNetIo {
        /** rx_bytes: bytes received (u64). */
        public long rxBytes;
        /** rx_packets: packets received. */
        public long rxPackets;
        /** rx_errs: receive errors, packets. */
        public long rxErrs;
        /** rx_drop: receive drops, packets. */
        public long rxDrop;
        /** tx_bytes: bytes sent (u64). */
        public long txBytes;
        /** tx_packets: packets sent. */
        public long txPackets;
        /** tx_errs: send errors, packets. */
        public long txErrs;
        /** tx_drop: send drops, packets. */
        public long txDrop;
    }

    /**
     * Java virtual machine identity (0:2105): {@code string vm_name<64>}, {@code string vm_vendor<32>},
     * {@code string vm_version<32>}. Source: sflow_jvm.txt ({@code jvm_runtime}); sflowtool {@code readCounters_JVM}.
     */
    public static final class JvmRuntime {
        /** vm_name (at most {@link CounterRecords#MAX_VM_NAME} bytes); a view into the datagram when decoded. */
        public final ByteView vmName = new ByteView();
        /** vm_vendor (at most {@link CounterRecords#MAX_VM_VENDOR} bytes). */
        public final ByteView vmVendor = new ByteView();
        /** vm_version (at most {@link CounterRecords#MAX_VM_VERSION} bytes). */
        public final ByteView vmVersion = new ByteView();
    }

    /**
     * Java virtual machine statistics (0:2106): 108 bytes, or 100 from agents without the file-descriptor counts (read
     * only when the record is longer than 100 bytes, as sflowtool {@code readCounters_JMX} does).
     * Source: sflow_jvm.txt, sflowtool src/sflow.h.
     */
    public static final class JvmStatistics {
        /** heap_initial: initial heap requested, bytes (u64). */
        public long heapInitial;
        /** heap_used: heap in use, bytes (u64). */
        public long heapUsed;
        /** heap_committed: heap committed, bytes (u64). */
        public long heapCommitted;
        /** heap_max: maximum heap, bytes (u64). */
        public long heapMax;
        /** non_heap_initial: initial non-heap requested, bytes (u64). */
        public long nonHeapInitial;
        /** non_heap_used: non-heap in use, bytes (u64). */
        public long nonHeapUsed;
        /** non_heap_committed: non-heap committed, bytes (u64). */
        public long nonHeapCommitted;
        /** non_heap_max: maximum non-heap, bytes (u64). */
        public long nonHeapMax;
        /** gc_count: garbage collections, count. */
        public long gcCount;
        /** gc_time: accumulated collection time, ms. */
        public long gcTime;
        /** classes_loaded: classes currently loaded. */
        public long classesLoaded;
        /** classes_total: classes loaded since start. */
        public long classesTotal;
        /** classes_unloaded: classes unloaded since start. */
        public long classesUnloaded;
        /** compilation_time: accumulated JIT compilation time, ms. */
        public long compilationTime;
        /** thread_num_live: live threads. */
        public long threadNumLive;
        /** thread_num_daemon: live daemon threads. */
        public long threadNumDaemon;
        /** thread_num_started: threads started since start. */
        public long threadNumStarted;
        /**
         * True if the record carries fd_open_count and fd_max_count (108-byte form); the encoder then writes 108 bytes,
         * else 100.
         */
        public boolean hasFdCounts;
        /** fd_open_count: open file descriptors; only if {@link #hasFdCounts}. */
        public long fdOpenCount;
        /** fd_max_count: file-descriptor limit; only if {@link #hasFdCounts}. */
        public long fdMaxCount;
    }

    /** Creates every holder, all absent. */
    public CounterRecords() {}

    /** Clears every presence flag. */
    public void reset() {
        hasIfCounters = false;
        hasEthernet = false;
        hasTokenRing = false;
        hasVg = false;
        hasVlan = false;
        hasLacp = false;
        hasSfp = false;
        hasProcessor = false;
        hasPortName = false;
        hasHostDescr = false;
        hasHostAdapters = false;
        hasHostParent = false;
        hasHostCpu = false;
        hasHostMemory = false;
        hasHostDiskIo = false;
        hasHostNetIo = false;
        hasMib2Ip = false;
        hasMib2Icmp = false;
        hasMib2Tcp = false;
        hasMib2Udp = false;
        hasVirtNode = false;
        hasVirtCpu = false;
        hasVirtMemory = false;
        hasVirtDiskIo = false;
        hasVirtNetIo = false;
        hasJvmRuntime = false;
        hasJvmStatistics = false;
    }

    /**
     * Tells whether a counter record format has a holder here.
     *
     * @param dataFormat a counter record's full data_format ({@code enterprise << 12 | format})
     * @return true if this class decodes it into a holder (false: the decoder keeps it raw)
     */
    public static boolean isDecoded(int dataFormat) {
        return switch (dataFormat) {
            case IF_COUNTERS, ETHERNET, TOKEN_RING, VG, VLAN, LACP,
                 SFP, PROCESSOR, PORT_NAME, HOST_DESCR, HOST_ADAPTERS, HOST_PARENT,
                 HOST_CPU, HOST_MEMORY, HOST_DISK_IO, HOST_NET_IO, MIB2_IP, MIB2_ICMP,
                 MIB2_TCP, MIB2_UDP, VIRT_NODE, VIRT_CPU, VIRT_MEMORY, VIRT_DISK_IO,
                 VIRT_NET_IO, JVM_RUNTIME, JVM_STATISTICS -> true;
            default -> false;
        };
    }

    /**
     * Decodes one counter record into its holder.
     *
     * @param r the reader over the datagram
     * @param format the record's data_format
     * @param p first byte of the record body
     * @param end end of the record body (declared length)
     * @param s the sample (for duplicate accounting)
     * @return false if the format is not one vecflow decodes (the caller keeps it raw)
     * @throws SflowDecodeException if the body is malformed (the caller counts it and skips the record)
     */
    boolean decode(XdrReader r, int format, int p, int end, CounterSample s) throws SflowDecodeException {
        switch (format) {
            case IF_COUNTERS -> {
                s.duplicateRecords += hasIfCounters ? 1 : 0;
                hasIfCounters = false;
                decodeIfCounters(r, p, end, ifCounters);
                hasIfCounters = true;
            }
            case ETHERNET -> {
                s.duplicateRecords += hasEthernet ? 1 : 0;
                hasEthernet = false;
                decodeEthernet(r, p, end, ethernet);
                hasEthernet = true;
            }
            case TOKEN_RING -> {
                s.duplicateRecords += hasTokenRing ? 1 : 0;
                hasTokenRing = false;
                decodeTokenRing(r, p, end, tokenRing);
                hasTokenRing = true;
            }
            case VG -> {
                s.duplicateRecords += hasVg ? 1 : 0;
                hasVg = false;
                decodeVg(r, p, end, vg);
                hasVg = true;
            }
            case VLAN -> {
                s.duplicateRecords += hasVlan ? 1 : 0;
                hasVlan = false;
                decodeVlan(r, p, end, vlan);
                hasVlan = true;
            }
            case LACP -> {
                s.duplicateRecords += hasLacp ? 1 : 0;
                hasLacp = false;
                decodeLacp(r, p, end, lacp);
                hasLacp = true;
            }
            case SFP -> {
                s.duplicateRecords += hasSfp ? 1 : 0;
                hasSfp = false;
                decodeSfp(r, p, end, sfp);
                hasSfp = true;
            }
            case PROCESSOR -> {
                s.duplicateRecords += hasProcessor ? 1 : 0;
                hasProcessor = false;
                decodeProcessor(r, p, end, processor);
                hasProcessor = true;
            }
            case PORT_NAME -> {
                s.duplicateRecords += hasPortName ? 1 : 0;
                hasPortName = false;
                decodePortName(r, p, end, portName);
                hasPortName = true;
            }
            case HOST_DESCR -> {
                s.duplicateRecords += hasHostDescr ? 1 : 0;
                hasHostDescr = false;
                decodeHostDescr(r, p, end, hostDescr);
                hasHostDescr = true;
            }
            case HOST_ADAPTERS -> {
                s.duplicateRecords += hasHostAdapters ? 1 : 0;
                hasHostAdapters = false;
                decodeHostAdapters(r, p, end, hostAdapters);
                hasHostAdapters = true;
            }
            case HOST_PARENT -> {
                s.duplicateRecords += hasHostParent ? 1 : 0;
                hasHostParent = false;
                decodeHostParent(r, p, end, hostParent);
                hasHostParent = true;
            }
            case HOST_CPU -> {
                s.duplicateRecords += hasHostCpu ? 1 : 0;
                hasHostCpu = false;
                decodeHostCpu(r, p, end, hostCpu);
                hasHostCpu = true;
            }
            case HOST_MEMORY -> {
                s.duplicateRecords += hasHostMemory ? 1 : 0;
                hasHostMemory = false;
                decodeHostMemory(r, p, end, hostMemory);
                hasHostMemory = true;
            }
            case HOST_DISK_IO -> {
                s.duplicateRecords += hasHostDiskIo ? 1 : 0;
                hasHostDiskIo = false;
                decodeHostDiskIo(r, p, end, hostDiskIo);
                hasHostDiskIo = true;
            }
            case HOST_NET_IO -> {
                s.duplicateRecords += hasHostNetIo ? 1 : 0;
                hasHostNetIo = false;
                decodeHostNetIo(r, p, end, hostNetIo);
                hasHostNetIo = true;
            }
            case MIB2_IP -> {
                s.duplicateRecords += hasMib2Ip ? 1 : 0;
                hasMib2Ip = false;
                decodeMib2Ip(r, p, end, mib2Ip);
                hasMib2Ip = true;
            }
            case MIB2_ICMP -> {
                s.duplicateRecords += hasMib2Icmp ? 1 : 0;
                hasMib2Icmp = false;
                decodeMib2Icmp(r, p, end, mib2Icmp);
                hasMib2Icmp = true;
            }
            case MIB2_TCP -> {
                s.duplicateRecords += hasMib2Tcp ? 1 : 0;
                hasMib2Tcp = false;
                decodeMib2Tcp(r, p, end, mib2Tcp);
                hasMib2Tcp = true;
            }
            case MIB2_UDP -> {
                s.duplicateRecords += hasMib2Udp ? 1 : 0;
                hasMib2Udp = false;
                decodeMib2Udp(r, p, end, mib2Udp);
                hasMib2Udp = true;
            }
            case VIRT_NODE -> {
                s.duplicateRecords += hasVirtNode ? 1 : 0;
                hasVirtNode = false;
                decodeVirtNode(r, p, end, virtNode);
                hasVirtNode = true;
            }
            case VIRT_CPU -> {
                s.duplicateRecords += hasVirtCpu ? 1 : 0;
                hasVirtCpu = false;
                decodeVirtCpu(r, p, end, virtCpu);
                hasVirtCpu = true;
            }
            case VIRT_MEMORY -> {
                s.duplicateRecords += hasVirtMemory ? 1 : 0;
                hasVirtMemory = false;
                decodeVirtMemory(r, p, end, virtMemory);
                hasVirtMemory = true;
            }
            case VIRT_DISK_IO -> {
                s.duplicateRecords += hasVirtDiskIo ? 1 : 0;
                hasVirtDiskIo = false;
                decodeVirtDiskIo(r, p, end, virtDiskIo);
                hasVirtDiskIo = true;
            }
            case VIRT_NET_IO -> {
                s.duplicateRecords += hasVirtNetIo ? 1 : 0;
                hasVirtNetIo = false;
                decodeVirtNetIo(r, p, end, virtNetIo);
                hasVirtNetIo = true;
            }
            case JVM_RUNTIME -> {
                s.duplicateRecords += hasJvmRuntime ? 1 : 0;
                hasJvmRuntime = false;
                decodeJvmRuntime(r, p, end, jvmRuntime);
                hasJvmRuntime = true;
            }
            case JVM_STATISTICS -> {
                s.duplicateRecords += hasJvmStatistics ? 1 : 0;
                hasJvmStatistics = false;
                decodeJvmStatistics(r, p, end, jvmStatistics);
                hasJvmStatistics = true;
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    /** Reads a {@code mac}: 6 bytes plus 2 pad bytes, as a 48-bit value. */
    private static long mac(XdrReader r, int p, int end, String field) throws SflowDecodeException {
        r.need(p, 8, end, field);
        byte[] b = r.buffer();
        long m = 0;
        for (int i = 0; i < 6; i++) {
            m = m << 8 | (b[p + i] & 0xFF);
        }
        return m;
    }

    private static void decodeIfCounters(XdrReader r, int p, int end, IfCounters c) throws SflowDecodeException {
        c.ifIndex = r.u32(p, end, "if_counters.ifIndex");
        c.ifType = r.u32(p + 4, end, "if_counters.ifType");
        c.ifSpeed = r.u64(p + 8, end, "if_counters.ifSpeed");
        c.ifDirection = r.u32(p + 16, end, "if_counters.ifDirection");
        c.ifStatus = r.u32(p + 20, end, "if_counters.ifStatus");
        c.inOctets = r.u64(p + 24, end, "if_counters.ifInOctets");
        c.inUcastPkts = r.u32(p + 32, end, "if_counters.ifInUcastPkts");
        c.inMulticastPkts = r.u32(p + 36, end, "if_counters.ifInMulticastPkts");
        c.inBroadcastPkts = r.u32(p + 40, end, "if_counters.ifInBroadcastPkts");
        c.inDiscards = r.u32(p + 44, end, "if_counters.ifInDiscards");
        c.inErrors = r.u32(p + 48, end, "if_counters.ifInErrors");
        c.inUnknownProtos = r.u32(p + 52, end, "if_counters.ifInUnknownProtos");
        c.outOctets = r.u64(p + 56, end, "if_counters.ifOutOctets");
        c.outUcastPkts = r.u32(p + 64, end, "if_counters.ifOutUcastPkts");
        c.outMulticastPkts = r.u32(p + 68, end, "if_counters.ifOutMulticastPkts");
        c.outBroadcastPkts = r.u32(p + 72, end, "if_counters.ifOutBroadcastPkts");
        c.outDiscards = r.u32(p + 76, end, "if_counters.ifOutDiscards");
        c.outErrors = r.u32(p + 80, end, "if_counters.ifOutErrors");
        c.promiscuousMode = r.u32(p + 84, end, "if_counters.ifPromiscuousMode");
    }

    private static void decodeEthernet(XdrReader r, int p, int end, EthernetCounters c) throws SflowDecodeException {
        c.alignmentErrors = r.u32(p, end, "ethernet_counters.dot3StatsAlignmentErrors");
        c.fcsErrors = r.u32(p + 4, end, "ethernet_counters.dot3StatsFCSErrors");
        c.singleCollisionFrames = r.u32(p + 8, end, "ethernet_counters.dot3StatsSingleCollisionFrames");
        c.multipleCollisionFrames = r.u32(p + 12, end, "ethernet_counters.dot3StatsMultipleCollisionFrames");
        c.sqeTestErrors = r.u32(p + 16, end, "ethernet_counters.dot3StatsSQETestErrors");
        c.deferredTransmissions = r.u32(p + 20, end, "ethernet_counters.dot3StatsDeferredTransmissions");
        c.lateCollisions = r.u32(p + 24, end, "ethernet_counters.dot3StatsLateCollisions");
        c.excessiveCollisions = r.u32(p + 28, end, "ethernet_counters.dot3StatsExcessiveCollisions");
        c.internalMacTransmitErrors = r.u32(p + 32, end, "ethernet_counters.dot3StatsInternalMacTransmitErrors");
        c.carrierSenseErrors = r.u32(p + 36, end, "ethernet_counters.dot3StatsCarrierSenseErrors");
        c.frameTooLongs = r.u32(p + 40, end, "ethernet_counters.dot3StatsFrameTooLongs");
        c.internalMacReceiveErrors = r.u32(p + 44, end, "ethernet_counters.dot3StatsInternalMacReceiveErrors");
        c.symbolErrors = r.u32(p + 48, end, "ethernet_counters.dot3StatsSymbolErrors");
    }

    private static void decodeTokenRing(XdrReader r, int p, int end, TokenRingCounters c) throws SflowDecodeException {
        c.lineErrors = r.u32(p, end, "tokenring_counters.dot5StatsLineErrors");
        c.burstErrors = r.u32(p + 4, end, "tokenring_counters.dot5StatsBurstErrors");
        c.acErrors = r.u32(p + 8, end, "tokenring_counters.dot5StatsACErrors");
        c.abortTransErrors = r.u32(p + 12, end, "tokenring_counters.dot5StatsAbortTransErrors");
        c.internalErrors = r.u32(p + 16, end, "tokenring_counters.dot5StatsInternalErrors");
        c.lostFrameErrors = r.u32(p + 20, end, "tokenring_counters.dot5StatsLostFrameErrors");
        c.receiveCongestions = r.u32(p + 24, end, "tokenring_counters.dot5StatsReceiveCongestions");
        c.frameCopiedErrors = r.u32(p + 28, end, "tokenring_counters.dot5StatsFrameCopiedErrors");
        c.tokenErrors = r.u32(p + 32, end, "tokenring_counters.dot5StatsTokenErrors");
        c.softErrors = r.u32(p + 36, end, "tokenring_counters.dot5StatsSoftErrors");
        c.hardErrors = r.u32(p + 40, end, "tokenring_counters.dot5StatsHardErrors");
        c.signalLoss = r.u32(p + 44, end, "tokenring_counters.dot5StatsSignalLoss");
        c.transmitBeacons = r.u32(p + 48, end, "tokenring_counters.dot5StatsTransmitBeacons");
        c.recoverys = r.u32(p + 52, end, "tokenring_counters.dot5StatsRecoverys");
        c.lobeWires = r.u32(p + 56, end, "tokenring_counters.dot5StatsLobeWires");
        c.removes = r.u32(p + 60, end, "tokenring_counters.dot5StatsRemoves");
        c.singles = r.u32(p + 64, end, "tokenring_counters.dot5StatsSingles");
        c.freqErrors = r.u32(p + 68, end, "tokenring_counters.dot5StatsFreqErrors");
    }

    private static void decodeVg(XdrReader r, int p, int end, VgCounters c) throws SflowDecodeException {
        c.inHighPriorityFrames = r.u32(p, end, "vg_counters.dot12InHighPriorityFrames");
        c.inHighPriorityOctets = r.u64(p + 4, end, "vg_counters.dot12InHighPriorityOctets");
        c.inNormPriorityFrames = r.u32(p + 12, end, "vg_counters.dot12InNormPriorityFrames");
        c.inNormPriorityOctets = r.u64(p + 16, end, "vg_counters.dot12InNormPriorityOctets");
        c.inIpmErrors = r.u32(p + 24, end, "vg_counters.dot12InIPMErrors");
        c.inOversizeFrameErrors = r.u32(p + 28, end, "vg_counters.dot12InOversizeFrameErrors");
        c.inDataErrors = r.u32(p + 32, end, "vg_counters.dot12InDataErrors");
        c.inNullAddressedFrames = r.u32(p + 36, end, "vg_counters.dot12InNullAddressedFrames");
        c.outHighPriorityFrames = r.u32(p + 40, end, "vg_counters.dot12OutHighPriorityFrames");
        c.outHighPriorityOctets = r.u64(p + 44, end, "vg_counters.dot12OutHighPriorityOctets");
        c.transitionIntoTrainings = r.u32(p + 52, end, "vg_counters.dot12TransitionIntoTrainings");
        c.hcInHighPriorityOctets = r.u64(p + 56, end, "vg_counters.dot12HCInHighPriorityOctets");
        c.hcInNormPriorityOctets = r.u64(p + 64, end, "vg_counters.dot12HCInNormPriorityOctets");
        c.hcOutHighPriorityOctets = r.u64(p + 72, end, "vg_counters.dot12HCOutHighPriorityOctets");
    }

    private static void decodeVlan(XdrReader r, int p, int end, VlanCounters c) throws SflowDecodeException {
        c.vlanId = r.u32(p, end, "vlan_counters.vlan_id");
        c.octets = r.u64(p + 4, end, "vlan_counters.octets");
        c.ucastPkts = r.u32(p + 12, end, "vlan_counters.ucastPkts");
        c.multicastPkts = r.u32(p + 16, end, "vlan_counters.multicastPkts");
        c.broadcastPkts = r.u32(p + 20, end, "vlan_counters.broadcastPkts");
        c.discards = r.u32(p + 24, end, "vlan_counters.discards");
    }

    private static void decodeLacp(XdrReader r, int p, int end, LacpCounters c) throws SflowDecodeException {
        c.actorSystemId = mac(r, p, end, "lacp.actorSystemID");
        c.partnerSystemId = mac(r, p + 8, end, "lacp.partnerSystemID");
        c.attachedAggId = r.u32(p + 16, end, "lacp.attachedAggID");
        int state = r.i32(p + 20, end, "lacp.portState");
        c.actorAdminState = state >>> 24;
        c.actorOperState = (state >>> 16) & 0xFF;
        c.partnerAdminState = (state >>> 8) & 0xFF;
        c.partnerOperState = state & 0xFF;
        c.lacpdusRx = r.u32(p + 24, end, "lacp.LACPDUsRx");
        c.markerPdusRx = r.u32(p + 28, end, "lacp.markerPDUsRx");
        c.markerResponsePdusRx = r.u32(p + 32, end, "lacp.markerResponsePDUsRx");
        c.unknownRx = r.u32(p + 36, end, "lacp.unknownRx");
        c.illegalRx = r.u32(p + 40, end, "lacp.illegalRx");
        c.lacpdusTx = r.u32(p + 44, end, "lacp.LACPDUsTx");
        c.markerPdusTx = r.u32(p + 48, end, "lacp.markerPDUsTx");
        c.markerResponsePdusTx = r.u32(p + 52, end, "lacp.markerResponsePDUsTx");
    }

    private static void decodeSfp(XdrReader r, int p, int end, SfpCounters c) throws SflowDecodeException {
        c.moduleId = r.u32(p, end, "sfp.module_id");
        c.moduleTotalLanes = r.u32(p + 4, end, "sfp.module_total_lanes");
        c.moduleSupplyVoltage = r.u32(p + 8, end, "sfp.module_supply_voltage");
        c.moduleTemperature = r.i32(p + 12, end, "sfp.module_temperature");
        long n = r.u32(p + 16, end, "sfp.lanes");
        int q = p + 20;
        if (n > MAX_SFP_LANES || n * SFP_LANE_BYTES > end - q) {
            throw r.fail(DecodeError.COUNT_OUT_OF_BOUNDS, "sfp.lanes", p + 16, n);
        }
        for (int i = 0; i < n; i++, q += SFP_LANE_BYTES) {
            SfpCounters.Lane l = c.lanes[i];
            l.laneIndex = r.u32(q, end, "sfp.lane.lane_index");
            l.txBiasCurrent = r.u32(q + 4, end, "sfp.lane.tx_bias_current");
            l.txPower = r.u32(q + 8, end, "sfp.lane.tx_power");
            l.txPowerMin = r.u32(q + 12, end, "sfp.lane.tx_power_min");
            l.txPowerMax = r.u32(q + 16, end, "sfp.lane.tx_power_max");
            l.txWavelength = r.u32(q + 20, end, "sfp.lane.tx_wavelength");
            l.rxPower = r.u32(q + 24, end, "sfp.lane.rx_power");
            l.rxPowerMin = r.u32(q + 28, end, "sfp.lane.rx_power_min");
            l.rxPowerMax = r.u32(q + 32, end, "sfp.lane.rx_power_max");
            l.rxWavelength = r.u32(q + 36, end, "sfp.lane.rx_wavelength");
        }
        c.lanesCount = (int) n;
    }

    private static void decodeProcessor(XdrReader r, int p, int end, ProcessorCounters c) throws SflowDecodeException {
        c.cpu5s = r.i32(p, end, "processor.5s_cpu");
        c.cpu1m = r.i32(p + 4, end, "processor.1m_cpu");
        c.cpu5m = r.i32(p + 8, end, "processor.5m_cpu");
        c.totalMemory = r.u64(p + 12, end, "processor.total_memory");
        c.freeMemory = r.u64(p + 20, end, "processor.free_memory");
    }

    private static void decodePortName(XdrReader r, int p, int end, PortName c) throws SflowDecodeException {
        r.opaque(p, end, "port_name.name", MAX_PORT_NAME, c.name);
    }

    private static void decodeHostDescr(XdrReader r, int p, int end, HostDescr c) throws SflowDecodeException {
        int q = r.opaque(p, end, "host_descr.hostname", MAX_HOSTNAME, c.hostname);
        r.need(q, 16, end, "host_descr.uuid");
        System.arraycopy(r.buffer(), q, c.uuid, 0, 16);
        c.machineType = r.u32(q + 16, end, "host_descr.machine_type");
        c.osName = r.u32(q + 20, end, "host_descr.os_name");
        r.opaque(q + 24, end, "host_descr.os_release", MAX_OS_RELEASE, c.osRelease);
    }

    private static void decodeHostAdapters(XdrReader r, int p, int end, HostAdapters c) throws SflowDecodeException {
        long n = r.u32(p, end, "host_adapters.adapters");
        int q = p + 4;
        if (n > MAX_ADAPTERS || n * 8 > end - q) { // an adapter takes >= 8 bytes (ifIndex + MAC count)
            throw r.fail(DecodeError.COUNT_OUT_OF_BOUNDS, "host_adapters.adapters", p, n);
        }
        for (int i = 0; i < n; i++) {
            HostAdapters.Adapter a = c.adapters[i];
            a.ifIndex = r.u32(q, end, "host_adapters.adapter.ifIndex");
            long m = r.u32(q + 4, end, "host_adapters.adapter.mac_address");
            q += 8;
            if (m > MAX_MACS_PER_ADAPTER || m * 8 > end - q) {
                throw r.fail(DecodeError.COUNT_OUT_OF_BOUNDS, "host_adapters.adapter.mac_address", q - 4, m);
            }
            for (int k = 0; k < m; k++, q += 8) {
                a.macs[k] = mac(r, q, end, "host_adapters.adapter.mac_address");
            }
            a.macsCount = (int) m;
        }
        c.count = (int) n;
    }

    private static void decodeHostParent(XdrReader r, int p, int end, HostParent c) throws SflowDecodeException {
        c.containerType = r.u32(p, end, "host_parent.container_type");
        c.containerIndex = r.u32(p + 4, end, "host_parent.container_index");
    }

    private static void decodeHostCpu(XdrReader r, int p, int end, HostCpu c) throws SflowDecodeException {
        c.loadOne = r.f32(p, end, "host_cpu.load_one");
        c.loadFive = r.f32(p + 4, end, "host_cpu.load_five");
        c.loadFifteen = r.f32(p + 8, end, "host_cpu.load_fifteen");
        c.procRun = r.u32(p + 12, end, "host_cpu.proc_run");
        c.procTotal = r.u32(p + 16, end, "host_cpu.proc_total");
        c.cpuNum = r.u32(p + 20, end, "host_cpu.cpu_num");
        c.cpuSpeed = r.u32(p + 24, end, "host_cpu.cpu_speed");
        c.uptime = r.u32(p + 28, end, "host_cpu.uptime");
        c.cpuUser = r.u32(p + 32, end, "host_cpu.cpu_user");
        c.cpuNice = r.u32(p + 36, end, "host_cpu.cpu_nice");
        c.cpuSystem = r.u32(p + 40, end, "host_cpu.cpu_system");
        c.cpuIdle = r.u32(p + 44, end, "host_cpu.cpu_idle");
        c.cpuWio = r.u32(p + 48, end, "host_cpu.cpu_wio");
        c.cpuIntr = r.u32(p + 52, end, "host_cpu.cpu_intr");
        c.cpuSintr = r.u32(p + 56, end, "host_cpu.cpu_sintr");
        c.interrupts = r.u32(p + 60, end, "host_cpu.interrupts");
        c.contexts = r.u32(p + 64, end, "host_cpu.contexts");
        c.hasStealGuest = end - p > 68;
        if (!c.hasStealGuest) {
            c.cpuSteal = 0;
            c.cpuGuest = 0;
            c.cpuGuestNice = 0;
            return;
        }
        c.cpuSteal = r.u32(p + 68, end, "host_cpu.cpu_steal");
        c.cpuGuest = r.u32(p + 72, end, "host_cpu.cpu_guest");
        c.cpuGuestNice = r.u32(p + 76, end, "host_cpu.cpu_guest_nice");
    }

    private static void decodeHostMemory(XdrReader r, int p, int end, HostMemory c) throws SflowDecodeException {
        c.memTotal = r.u64(p, end, "host_memory.mem_total");
        c.memFree = r.u64(p + 8, end, "host_memory.mem_free");
        c.memShared = r.u64(p + 16, end, "host_memory.mem_shared");
        c.memBuffers = r.u64(p + 24, end, "host_memory.mem_buffers");
        c.memCached = r.u64(p + 32, end, "host_memory.mem_cached");
        c.swapTotal = r.u64(p + 40, end, "host_memory.swap_total");
        c.swapFree = r.u64(p + 48, end, "host_memory.swap_free");
        c.pageIn = r.u32(p + 56, end, "host_memory.page_in");
        c.pageOut = r.u32(p + 60, end, "host_memory.page_out");
        c.swapIn = r.u32(p + 64, end, "host_memory.swap_in");
        c.swapOut = r.u32(p + 68, end, "host_memory.swap_out");
    }

    private static void decodeHostDiskIo(XdrReader r, int p, int end, HostDiskIo c) throws SflowDecodeException {
        c.diskTotal = r.u64(p, end, "host_disk_io.disk_total");
        c.diskFree = r.u64(p + 8, end, "host_disk_io.disk_free");
        c.partMaxUsed = r.i32(p + 16, end, "host_disk_io.part_max_used");
        c.reads = r.u32(p + 20, end, "host_disk_io.reads");
        c.bytesRead = r.u64(p + 24, end, "host_disk_io.bytes_read");
        c.readTime = r.u32(p + 32, end, "host_disk_io.read_time");
        c.writes = r.u32(p + 36, end, "host_disk_io.writes");
        c.bytesWritten = r.u64(p + 40, end, "host_disk_io.bytes_written");
        c.writeTime = r.u32(p + 48, end, "host_disk_io.write_time");
    }

    private static void decodeHostNetIo(XdrReader r, int p, int end, HostNetIo c) throws SflowDecodeException {
        c.bytesIn = r.u64(p, end, "host_net_io.bytes_in");
        c.pktsIn = r.u32(p + 8, end, "host_net_io.pkts_in");
        c.errsIn = r.u32(p + 12, end, "host_net_io.errs_in");
        c.dropsIn = r.u32(p + 16, end, "host_net_io.drops_in");
        c.bytesOut = r.u64(p + 20, end, "host_net_io.bytes_out");
        c.pktsOut = r.u32(p + 28, end, "host_net_io.packets_out");
        c.errsOut = r.u32(p + 32, end, "host_net_io.errs_out");
        c.dropsOut = r.u32(p + 36, end, "host_net_io.drops_out");
    }

    private static void decodeMib2Ip(XdrReader r, int p, int end, Mib2IpGroup c) throws SflowDecodeException {
        c.ipForwarding = r.u32(p, end, "mib2_ip_group.ipForwarding");
        c.ipDefaultTTL = r.u32(p + 4, end, "mib2_ip_group.ipDefaultTTL");
        c.ipInReceives = r.u32(p + 8, end, "mib2_ip_group.ipInReceives");
        c.ipInHdrErrors = r.u32(p + 12, end, "mib2_ip_group.ipInHdrErrors");
        c.ipInAddrErrors = r.u32(p + 16, end, "mib2_ip_group.ipInAddrErrors");
        c.ipForwDatagrams = r.u32(p + 20, end, "mib2_ip_group.ipForwDatagrams");
        c.ipInUnknownProtos = r.u32(p + 24, end, "mib2_ip_group.ipInUnknownProtos");
        c.ipInDiscards = r.u32(p + 28, end, "mib2_ip_group.ipInDiscards");
        c.ipInDelivers = r.u32(p + 32, end, "mib2_ip_group.ipInDelivers");
        c.ipOutRequests = r.u32(p + 36, end, "mib2_ip_group.ipOutRequests");
        c.ipOutDiscards = r.u32(p + 40, end, "mib2_ip_group.ipOutDiscards");
        c.ipOutNoRoutes = r.u32(p + 44, end, "mib2_ip_group.ipOutNoRoutes");
        c.ipReasmTimeout = r.u32(p + 48, end, "mib2_ip_group.ipReasmTimeout");
        c.ipReasmReqds = r.u32(p + 52, end, "mib2_ip_group.ipReasmReqds");
        c.ipReasmOKs = r.u32(p + 56, end, "mib2_ip_group.ipReasmOKs");
        c.ipReasmFails = r.u32(p + 60, end, "mib2_ip_group.ipReasmFails");
        c.ipFragOKs = r.u32(p + 64, end, "mib2_ip_group.ipFragOKs");
        c.ipFragFails = r.u32(p + 68, end, "mib2_ip_group.ipFragFails");
        c.ipFragCreates = r.u32(p + 72, end, "mib2_ip_group.ipFragCreates");
    }

    private static void decodeMib2Icmp(XdrReader r, int p, int end, Mib2IcmpGroup c) throws SflowDecodeException {
        c.icmpInMsgs = r.u32(p, end, "mib2_icmp_group.icmpInMsgs");
        c.icmpInErrors = r.u32(p + 4, end, "mib2_icmp_group.icmpInErrors");
        c.icmpInDestUnreachs = r.u32(p + 8, end, "mib2_icmp_group.icmpInDestUnreachs");
        c.icmpInTimeExcds = r.u32(p + 12, end, "mib2_icmp_group.icmpInTimeExcds");
        c.icmpInParamProbs = r.u32(p + 16, end, "mib2_icmp_group.icmpInParamProbs");
        c.icmpInSrcQuenchs = r.u32(p + 20, end, "mib2_icmp_group.icmpInSrcQuenchs");
        c.icmpInRedirects = r.u32(p + 24, end, "mib2_icmp_group.icmpInRedirects");
        c.icmpInEchos = r.u32(p + 28, end, "mib2_icmp_group.icmpInEchos");
        c.icmpInEchoReps = r.u32(p + 32, end, "mib2_icmp_group.icmpInEchoReps");
        c.icmpInTimestamps = r.u32(p + 36, end, "mib2_icmp_group.icmpInTimestamps");
        c.icmpInAddrMasks = r.u32(p + 40, end, "mib2_icmp_group.icmpInAddrMasks");
        c.icmpInAddrMaskReps = r.u32(p + 44, end, "mib2_icmp_group.icmpInAddrMaskReps");
        c.icmpOutMsgs = r.u32(p + 48, end, "mib2_icmp_group.icmpOutMsgs");
        c.icmpOutErrors = r.u32(p + 52, end, "mib2_icmp_group.icmpOutErrors");
        c.icmpOutDestUnreachs = r.u32(p + 56, end, "mib2_icmp_group.icmpOutDestUnreachs");
        c.icmpOutTimeExcds = r.u32(p + 60, end, "mib2_icmp_group.icmpOutTimeExcds");
        c.icmpOutParamProbs = r.u32(p + 64, end, "mib2_icmp_group.icmpOutParamProbs");
        c.icmpOutSrcQuenchs = r.u32(p + 68, end, "mib2_icmp_group.icmpOutSrcQuenchs");
        c.icmpOutRedirects = r.u32(p + 72, end, "mib2_icmp_group.icmpOutRedirects");
        c.icmpOutEchos = r.u32(p + 76, end, "mib2_icmp_group.icmpOutEchos");
        c.icmpOutEchoReps = r.u32(p + 80, end, "mib2_icmp_group.icmpOutEchoReps");
        c.icmpOutTimestamps = r.u32(p + 84, end, "mib2_icmp_group.icmpOutTimestamps");
        c.icmpOutTimestampReps = r.u32(p + 88, end, "mib2_icmp_group.icmpOutTimestampReps");
        c.icmpOutAddrMasks = r.u32(p + 92, end, "mib2_icmp_group.icmpOutAddrMasks");
        c.icmpOutAddrMaskReps = r.u32(p + 96, end, "mib2_icmp_group.icmpOutAddrMaskReps");
    }

    private static void decodeMib2Tcp(XdrReader r, int p, int end, Mib2TcpGroup c) throws SflowDecodeException {
        c.tcpRtoAlgorithm = r.u32(p, end, "mib2_tcp_group.tcpRtoAlgorithm");
        c.tcpRtoMin = r.u32(p + 4, end, "mib2_tcp_group.tcpRtoMin");
        c.tcpRtoMax = r.u32(p + 8, end, "mib2_tcp_group.tcpRtoMax");
        c.tcpMaxConn = r.u32(p + 12, end, "mib2_tcp_group.tcpMaxConn");
        c.tcpActiveOpens = r.u32(p + 16, end, "mib2_tcp_group.tcpActiveOpens");
        c.tcpPassiveOpens = r.u32(p + 20, end, "mib2_tcp_group.tcpPassiveOpens");
        c.tcpAttemptFails = r.u32(p + 24, end, "mib2_tcp_group.tcpAttemptFails");
        c.tcpEstabResets = r.u32(p + 28, end, "mib2_tcp_group.tcpEstabResets");
        c.tcpCurrEstab = r.u32(p + 32, end, "mib2_tcp_group.tcpCurrEstab");
        c.tcpInSegs = r.u32(p + 36, end, "mib2_tcp_group.tcpInSegs");
        c.tcpOutSegs = r.u32(p + 40, end, "mib2_tcp_group.tcpOutSegs");
        c.tcpRetransSegs = r.u32(p + 44, end, "mib2_tcp_group.tcpRetransSegs");
        c.tcpInErrs = r.u32(p + 48, end, "mib2_tcp_group.tcpInErrs");
        c.tcpOutRsts = r.u32(p + 52, end, "mib2_tcp_group.tcpOutRsts");
        c.tcpInCsumErrors = r.u32(p + 56, end, "mib2_tcp_group.tcpInCsumErrors");
    }

    private static void decodeMib2Udp(XdrReader r, int p, int end, Mib2UdpGroup c) throws SflowDecodeException {
        c.udpInDatagrams = r.u32(p, end, "mib2_udp_group.udpInDatagrams");
        c.udpNoPorts = r.u32(p + 4, end, "mib2_udp_group.udpNoPorts");
        c.udpInErrors = r.u32(p + 8, end, "mib2_udp_group.udpInErrors");
        c.udpOutDatagrams = r.u32(p + 12, end, "mib2_udp_group.udpOutDatagrams");
        c.udpRcvbufErrors = r.u32(p + 16, end, "mib2_udp_group.udpRcvbufErrors");
        c.udpSndbufErrors = r.u32(p + 20, end, "mib2_udp_group.udpSndbufErrors");
        c.udpInCsumErrors = r.u32(p + 24, end, "mib2_udp_group.udpInCsumErrors");
    }

    private static void decodeVirtNode(XdrReader r, int p, int end, VirtNode c) throws SflowDecodeException {
        c.mhz = r.u32(p, end, "virt_node.mhz");
        c.cpus = r.u32(p + 4, end, "virt_node.cpus");
        c.memory = r.u64(p + 8, end, "virt_node.memory");
        c.memoryFree = r.u64(p + 16, end, "virt_node.memory_free");
        c.numDomains = r.u32(p + 24, end, "virt_node.num_domains");
    }

    private static void decodeVirtCpu(XdrReader r, int p, int end, VirtCpu c) throws SflowDecodeException {
        c.state = r.u32(p, end, "virt_cpu.state");
        c.cpuTime = r.u32(p + 4, end, "virt_cpu.cpuTime");
        c.nrVirtCpu = r.u32(p + 8, end, "virt_cpu.nrVirtCpu");
    }

    private static void decodeVirtMemory(XdrReader r, int p, int end, VirtMemory c) throws SflowDecodeException {
        c.memory = r.u64(p, end, "virt_memory.memory");
        c.maxMemory = r.u64(p + 8, end, "virt_memory.maxMemory");
    }

    private static void decodeVirtDiskIo(XdrReader r, int p, int end, VirtDiskIo c) throws SflowDecodeException {
        c.capacity = r.u64(p, end, "virt_disk_io.capacity");
        c.allocation = r.u64(p + 8, end, "virt_disk_io.allocation");
        c.available = r.u64(p + 16, end, "virt_disk_io.available");
        c.rdReq = r.u32(p + 24, end, "virt_disk_io.rd_req");
        c.rdBytes = r.u64(p + 28, end, "virt_disk_io.rd_bytes");
        c.wrReq = r.u32(p + 36, end, "virt_disk_io.wr_req");
        c.wrBytes = r.u64(p + 40, end, "virt_disk_io.wr_bytes");
        c.errs = r.u32(p + 48, end, "virt_disk_io.errs");
    }

    private static void decodeVirtNetIo(XdrReader r, int p, int end, VirtNetIo c) throws SflowDecodeException {
        c.rxBytes = r.u64(p, end, "virt_net_io.rx_bytes");
        c.rxPackets = r.u32(p + 8, end, "virt_net_io.rx_packets");
        c.rxErrs = r.u32(p + 12, end, "virt_net_io.rx_errs");
        c.rxDrop = r.u32(p + 16, end, "virt_net_io.rx_drop");
        c.txBytes = r.u64(p + 20, end, "virt_net_io.tx_bytes");
        c.txPackets = r.u32(p + 28, end, "virt_net_io.tx_packets");
        c.txErrs = r.u32(p + 32, end, "virt_net_io.tx_errs");
        c.txDrop = r.u32(p + 36, end, "virt_net_io.tx_drop");
    }

    private static void decodeJvmRuntime(XdrReader r, int p, int end, JvmRuntime c) throws SflowDecodeException {
        int q = r.opaque(p, end, "jvm_runtime.vm_name", MAX_VM_NAME, c.vmName);
        q = r.opaque(q, end, "jvm_runtime.vm_vendor", MAX_VM_VENDOR, c.vmVendor);
        r.opaque(q, end, "jvm_runtime.vm_version", MAX_VM_VERSION, c.vmVersion);
    }

    private static void decodeJvmStatistics(XdrReader r, int p, int end, JvmStatistics c) throws SflowDecodeException {
        c.heapInitial = r.u64(p, end, "jvm_statistics.heap_initial");
        c.heapUsed = r.u64(p + 8, end, "jvm_statistics.heap_used");
        c.heapCommitted = r.u64(p + 16, end, "jvm_statistics.heap_committed");
        c.heapMax = r.u64(p + 24, end, "jvm_statistics.heap_max");
        c.nonHeapInitial = r.u64(p + 32, end, "jvm_statistics.non_heap_initial");
        c.nonHeapUsed = r.u64(p + 40, end, "jvm_statistics.non_heap_used");
        c.nonHeapCommitted = r.u64(p + 48, end, "jvm_statistics.non_heap_committed");
        c.nonHeapMax = r.u64(p + 56, end, "jvm_statistics.non_heap_max");
        c.gcCount = r.u32(p + 64, end, "jvm_statistics.gc_count");
        c.gcTime = r.u32(p + 68, end, "jvm_statistics.gc_time");
        c.classesLoaded = r.u32(p + 72, end, "jvm_statistics.classes_loaded");
        c.classesTotal = r.u32(p + 76, end, "jvm_statistics.classes_total");
        c.classesUnloaded = r.u32(p + 80, end, "jvm_statistics.classes_unloaded");
        c.compilationTime = r.u32(p + 84, end, "jvm_statistics.compilation_time");
        c.threadNumLive = r.u32(p + 88, end, "jvm_statistics.thread_num_live");
        c.threadNumDaemon = r.u32(p + 92, end, "jvm_statistics.thread_num_daemon");
        c.threadNumStarted = r.u32(p + 96, end, "jvm_statistics.thread_num_started");
        c.hasFdCounts = end - p > 100;
        if (!c.hasFdCounts) {
            c.fdOpenCount = 0;
            c.fdMaxCount = 0;
            return;
        }
        c.fdOpenCount = r.u32(p + 100, end, "jvm_statistics.fd_open_count");
        c.fdMaxCount = r.u32(p + 104, end, "jvm_statistics.fd_max_count");
    }
}
