package io.vecflow.hsflowd.counters;

import io.vecflow.sflow.CounterRecords;
import io.vecflow.sflow.CounterSample;
import io.vecflow.sflow.SflowFormats;

/**
 * Turns one interface of an RTM_GETLINK dump into an expanded counters sample (0:4, sflow_version_5.txt "Counter
 * Sample") for data source 0:ifIndex with the records port_name (0:1005, sflow_openflow.txt), ethernet_counters
 * (0:2, for ARPHRD_ETHER interfaces only) and if_counters (0:1), in that order: hsflowd's wire order (its sFlow
 * library prepends each record, host-sflow {@code sflow_api.h} {@code SFLADD_ELEMENT}, so 0:1 added first leaves
 * last). hsflowd sends no 0:2; vecflow adds it where Linux counts the IEEE 802.3 errors (README "Differences from
 * hsflowd"). Allocation-free.
 *
 * <p>The counter values are those of the {@code stats} array the caller passes: the agent's poller passes totals
 * since the interface was first seen ({@link CounterAccumulator}), as hsflowd reports them.
 *
 * <p>Mapping from {@code struct rtnl_link_stats64} ({@code include/uapi/linux/if_link.h}, whose comments give the
 * IEEE 802.3 equivalents used for 0:2); "unknown" is the sFlow unknown counter value 0xFFFFFFFF (sflow_version_5.txt
 * "Counter Data"):
 * <ul>
 * <li>ifType 6 (ethernetCsmacd) for every interface, as hsflowd ("assume ethernet"; host-sflow hsflowd.c
 * {@code sendInterfaceCounterSample});
 * ifSpeed and ifDirection as given (from /sys/class/net, see {@link SysNet}); ifStatus bit 0 = IFF_UP, bit 1 =
 * IFLA_OPERSTATE up (6), or unknown (0) with IFF_RUNNING as on loopback; ifPromiscuousMode 1 if IFF_PROMISC else
 * 2.</li>
 * <li>in: octets = rx_bytes, ucast = rx_packets − multicast, multicast = multicast, broadcast unknown, discards =
 * rx_dropped + rx_missed_errors (the "drop" column of /proc/net/dev), errors = rx_errors, unknown protos =
 * rx_nohandler.</li>
 * <li>out: octets = tx_bytes, ucast = tx_packets (Linux does not count sent multicast/broadcast), multicast and
 * broadcast unknown, discards = tx_dropped, errors = tx_errors.</li>
 * <li>0:2: alignment = rx_frame_errors, FCS = rx_crc_errors, SQE test = tx_heartbeat_errors, late collisions =
 * tx_window_errors, excessive collisions = tx_aborted_errors, carrier sense = tx_carrier_errors; the others
 * (single/multiple collision frames, deferred, internal MAC tx/rx, frame too long, symbol) unknown.</li>
 * </ul>
 */
public final class InterfaceCounters {
    /** The sFlow "unknown" value of a 32-bit counter. */
    public static final long UNKNOWN = 0xFFFFFFFFL;
    /** ARPHRD_ETHER ({@code include/uapi/linux/if_arp.h}). */
    public static final int ARPHRD_ETHER = 1;
    /** ARPHRD_LOOPBACK. */
    public static final int ARPHRD_LOOPBACK = 772;
    /** IFF_UP ({@code include/uapi/linux/if.h}). */
    public static final int IFF_UP = 0x1;
    /** IFF_LOOPBACK. */
    public static final int IFF_LOOPBACK = 0x8;
    /** IFF_RUNNING. */
    public static final int IFF_RUNNING = 0x40;
    /** IFF_PROMISC. */
    public static final int IFF_PROMISC = 0x100;
    /** IFF_MASTER (bond master). */
    public static final int IFF_MASTER = 0x400;
    /** IF_OPER_UP (RFC 2863 operStatus up, {@code include/uapi/linux/if.h}). */
    public static final int IF_OPER_UP = 6;
    /** IF_OPER_UNKNOWN. */
    public static final int IF_OPER_UNKNOWN = 0;

    private InterfaceCounters() {}

    /**
     * Fills {@code s} with the counters sample of {@code l} reporting the link's own (absolute) counters: {@link
     * #fill(LinkTable.Link, long[], long, int, long, CounterSample)} with {@code l.stats}.
     */
    public static void fill(LinkTable.Link l, long speedBps, int direction, long sequence, CounterSample s) {
        fill(l, l.stats, speedBps, direction, sequence, s);
    }

    /**
     * Fills {@code s} (cleared first) with the counters sample of {@code l}.
     *
     * @param l the interface (its stats must be present: {@code l.hasStats})
     * @param stats the counters to report, indexed as {@link LinkTable.Link#stats} (the link's own, or totals since
     *        first seen)
     * @param speedBps ifSpeed in bit/s (0 unknown)
     * @param direction ifDirection (0 unknown, 1 full duplex, 2 half duplex)
     * @param sequence the sample's sequence_number for source 0:ifIndex (u32)
     * @param s the holder to fill
     */
    public static void fill(LinkTable.Link l, long[] stats, long speedBps, int direction, long sequence,
            CounterSample s) {
        s.reset();
        s.kind = SflowFormats.COUNTERS_SAMPLE_EXPANDED;
        s.expanded = true;
        s.sequenceNumber = sequence & 0xFFFFFFFFL;
        s.sourceIdType = SflowFormats.SOURCE_IFINDEX;
        s.sourceIdIndex = Integer.toUnsignedLong(l.ifIndex);
        CounterRecords r = s.records;
        long[] st = stats;

        CounterRecords.IfCounters c = r.ifCounters;
        c.ifIndex = Integer.toUnsignedLong(l.ifIndex);
        c.ifType = 6; // hsflowd: "assume ethernet", whatever the device
        c.ifSpeed = speedBps;
        c.ifDirection = direction;
        boolean operUp = l.operState == IF_OPER_UP
                || (l.operState == IF_OPER_UNKNOWN && (l.flags & IFF_RUNNING) != 0);
        c.ifStatus = ((l.flags & IFF_UP) != 0 ? 1 : 0) | (operUp ? 2 : 0);
        c.inOctets = st[LinkTable.RX_BYTES];
        long mcast = st[LinkTable.MULTICAST];
        long rx = st[LinkTable.RX_PACKETS];
        c.inUcastPkts = Long.compareUnsigned(rx, mcast) >= 0 ? rx - mcast : 0;
        c.inMulticastPkts = mcast;
        c.inBroadcastPkts = UNKNOWN;
        c.inDiscards = (st[LinkTable.RX_DROPPED] + st[LinkTable.RX_MISSED_ERRORS]) & UNKNOWN;
        c.inErrors = st[LinkTable.RX_ERRORS];
        c.inUnknownProtos = st[LinkTable.RX_NOHANDLER];
        c.outOctets = st[LinkTable.TX_BYTES];
        c.outUcastPkts = st[LinkTable.TX_PACKETS];
        c.outMulticastPkts = UNKNOWN;
        c.outBroadcastPkts = UNKNOWN;
        c.outDiscards = st[LinkTable.TX_DROPPED];
        c.outErrors = st[LinkTable.TX_ERRORS];
        c.promiscuousMode = (l.flags & IFF_PROMISC) != 0 ? 1 : 2;
        r.hasIfCounters = true;
        int n = 0;
        r.portName.name.set(l.name, 0, l.nameLength);
        r.hasPortName = true;
        s.recordFormats[n++] = CounterRecords.PORT_NAME;
        if (l.arpType == ARPHRD_ETHER) {
            CounterRecords.EthernetCounters e = r.ethernet;
            e.alignmentErrors = st[LinkTable.RX_FRAME_ERRORS];
            e.fcsErrors = st[LinkTable.RX_CRC_ERRORS];
            e.singleCollisionFrames = UNKNOWN;
            e.multipleCollisionFrames = UNKNOWN;
            e.sqeTestErrors = st[LinkTable.TX_HEARTBEAT_ERRORS];
            e.deferredTransmissions = UNKNOWN;
            e.lateCollisions = st[LinkTable.TX_WINDOW_ERRORS];
            e.excessiveCollisions = st[LinkTable.TX_ABORTED_ERRORS];
            e.internalMacTransmitErrors = UNKNOWN;
            e.carrierSenseErrors = st[LinkTable.TX_CARRIER_ERRORS];
            e.frameTooLongs = UNKNOWN;
            e.internalMacReceiveErrors = UNKNOWN;
            e.symbolErrors = UNKNOWN;
            r.hasEthernet = true;
            s.recordFormats[n++] = CounterRecords.ETHERNET;
        }

        s.recordFormats[n++] = CounterRecords.IF_COUNTERS;
        s.recordsListed = n;
        s.recordCount = n;
    }
}
