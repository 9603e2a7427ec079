package io.vecflow.dataplane.vnet.ethernet;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.error.ErrorDropNode;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.dataplane.vnet.ip.IpInputNode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * {@code ethernet-input}: reads the Ethernet II header, walks up to 4 VLAN tags (802.1Q 0x8100, 802.1ad 0x88A8, 0x9100)
 * and records the inner ethertype and L3 offset in the buffer metadata (IEEE 802.3, 802.1Q). Runts (< 14 bytes) go to
 * error-drop ({@link DropReason#ETHERNET_RUNT}).
 *
 * <p>With an {@link InterfaceTable} it then classifies as VPP's ethernet-input does per interface mode: frames of a
 * cross-connected (L2) port go to {@code l2-xconnect}; on a routed (L3) port IPv4 goes to {@code ip4-input}, IPv6 to
 * {@code ip6-input}, anything else is dropped ({@link DropReason#BAD_ETHERTYPE}); a port that is neither drops
 * ({@link DropReason#L2_NO_XCONNECT}). Without a table (the two-argument constructor) every frame goes to the one
 * next node.
 */
public final class EthernetInputNode extends Node {
    /** Node name. */
    public static final String NAME = "ethernet-input";
    private static final ValueLayout.OfShort BE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int NEXT_FORWARD = 0, NEXT_DROP = 1, NEXT_L2 = 2, NEXT_IP4 = 3, NEXT_IP6 = 4;

    private final InterfaceTable interfaces;
    private volatile long ip4, ip6, other, runts;

    /**
     * @param next the node that takes parsed frames (e.g. {@code "sflow"})
     * @param drop the node that takes runts (e.g. {@code "error-drop"})
     */
    public EthernetInputNode(String next, String drop) {
        super(NAME, next, drop);
        this.interfaces = null;
    }

    /**
     * A classifying ethernet-input (next nodes {@code error-drop}, {@code l2-xconnect}, {@code ip4-input},
     * {@code ip6-input}).
     *
     * @param interfaces interface modes
     */
    public EthernetInputNode(InterfaceTable interfaces) {
        super(NAME, ErrorDropNode.NAME, ErrorDropNode.NAME, L2XconnectNode.NAME, IpInputNode.IP4, IpInputNode.IP6);
        this.interfaces = interfaces;
    }

    @Override
    protected void process(Worker w, PacketVector v) {
        BufferPool pool = w.pool();
        MemorySegment data = pool.data();
        long v4 = 0, v6 = 0, oth = 0, runt = 0;
        for (int i = 0, n = v.count; i < n; i++) {
            int b = v.buffers[i];
            int len = pool.length[b];
            long base = pool.offset(b);
            if (len < 14) {
                runt++;
                pool.etherType[b] = 0;
                pool.l3Offset[b] = -1;
                pool.dropReason[b] = DropReason.ETHERNET_RUNT.ordinal();
                w.enqueue(next(NEXT_DROP), b, 0);
                continue;
            }
            int off = 12;
            int type = data.get(BE_SHORT, base + off) & 0xFFFF;
            for (int tags = 0; tags < 4 && (type == 0x8100 || type == 0x88A8 || type == 0x9100) && off + 6 <= len;
                    tags++) {
                off += 4;
                type = data.get(BE_SHORT, base + off) & 0xFFFF;
            }
            pool.etherType[b] = type;
            pool.l3Offset[b] = off + 2;
            if (type == 0x0800) {
                v4++;
            } else if (type == 0x86DD) {
                v6++;
            } else {
                oth++;
            }
            if (interfaces == null) {
                w.enqueue(next(NEXT_FORWARD), b, 0);
                continue;
            }
            int rx = pool.rxIfIndex[b];
            if (interfaces.xconnectPeer(rx) != 0) {
                w.enqueue(next(NEXT_L2), b, 0);
            } else if (!interfaces.routed(rx)) {
                pool.dropReason[b] = DropReason.L2_NO_XCONNECT.ordinal();
                w.enqueue(next(NEXT_DROP), b, 0);
            } else if (type == 0x0800) {
                w.enqueue(next(NEXT_IP4), b, 0);
            } else if (type == 0x86DD) {
                w.enqueue(next(NEXT_IP6), b, 0);
            } else {
                pool.dropReason[b] = DropReason.BAD_ETHERTYPE.ordinal();
                w.enqueue(next(NEXT_DROP), b, 0);
            }
        }
        ip4 += v4;
        ip6 += v6;
        other += oth;
        runts += runt;
    }

    /** @return IPv4 frames seen. */
    public long ip4() {
        return ip4;
    }

    /** @return IPv6 frames seen. */
    public long ip6() {
        return ip6;
    }

    /** @return frames with any other ethertype (ARP, MPLS, ...). */
    public long other() {
        return other;
    }

    /** @return frames shorter than an Ethernet header, dropped. */
    public long runts() {
        return runts;
    }
}
