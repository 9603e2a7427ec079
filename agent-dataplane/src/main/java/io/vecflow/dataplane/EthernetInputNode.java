package io.vecflow.dataplane;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * {@code ethernet-input}: reads the Ethernet II header, walks up to 4 VLAN tags (802.1Q 0x8100, 802.1ad 0x88A8, 0x9100)
 * and records the inner ethertype and L3 offset in the buffer metadata (IEEE 802.3, 802.1Q). Runts (< 14 bytes) go to
 * the drop next node; everything else to the next node.
 */
public final class EthernetInputNode extends Node {
    /** Node name. */
    public static final String NAME = "ethernet-input";
    private static final ValueLayout.OfShort BE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int NEXT_FORWARD = 0, NEXT_DROP = 1;

    private volatile long ip4, ip6, other, runts;

    /**
     * @param next the node that takes parsed frames (e.g. {@code "sflow"})
     * @param drop the node that takes runts (e.g. {@code "error-drop"})
     */
    public EthernetInputNode(String next, String drop) {
        super(NAME, next, drop);
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
            w.enqueue(next(NEXT_FORWARD), b, 0);
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
