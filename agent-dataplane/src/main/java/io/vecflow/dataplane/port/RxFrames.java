package io.vecflow.dataplane.port;

import static io.vecflow.dataplane.port.PacketSys.TP_STATUS_VLAN_TPID_VALID;
import static io.vecflow.dataplane.port.PacketSys.TP_STATUS_VLAN_VALID;
import static io.vecflow.dataplane.port.PacketSys.TP_VLAN_TCI;
import static io.vecflow.dataplane.port.PacketSys.TP_VLAN_TPID;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * What {@link AfPacketPort}'s receive path does to a frame on its way from the ring into a buffer: the outer VLAN tag
 * the kernel stripped put back, and the partial UDP/TCP checksum of a virtio-net header frame completed. Pure
 * functions over memory segments; allocation-free.
 */
final class RxFrames {
    static final ValueLayout.OfShort BE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final int ETH_HEADER = 14;
    static final int MACS = 12;
    static final int VLAN_TAG = 4;
    static final int TPID_8021Q = 0x8100;
    static final int TPID_8021AD = 0x88A8;

    private RxFrames() {}

    /**
     * Copies the frame at ring offset {@code src} ({@code snap} bytes; header at {@code h}) to {@code dst[d, …)}, at
     * most {@code bufBytes}, putting back the outer VLAN tag the kernel stripped.
     *
     * @return bytes copied
     */
    static int copyFrame(MemorySegment ring, long h, long src, int snap, int status, MemorySegment dst, long d,
            int bufBytes) {
        if ((status & TP_STATUS_VLAN_VALID) == 0) {
            int copied = Math.min(snap, bufBytes);
            MemorySegment.copy(ring, src, dst, d, copied);
            return copied;
        }
        int tpid = (status & TP_STATUS_VLAN_TPID_VALID) != 0
                ? ring.get(ValueLayout.JAVA_SHORT, h + TP_VLAN_TPID) & 0xffff : TPID_8021Q;
        int tci = ring.get(ValueLayout.JAVA_INT, h + TP_VLAN_TCI) & 0xffff;
        MemorySegment.copy(ring, src, dst, d, MACS);
        dst.set(BE_SHORT, d + MACS, (short) tpid);
        dst.set(BE_SHORT, d + MACS + 2, (short) tci);
        int rest = Math.min(snap - MACS, bufBytes - MACS - VLAN_TAG);
        MemorySegment.copy(ring, src + MACS, dst, d + MACS + VLAN_TAG, rest);
        return MACS + VLAN_TAG + rest;
    }

    /**
     * Finishes the partial UDP/TCP checksum of the frame at {@code d} ({@code len} bytes): sums the L4 header (whose
     * checksum field holds the pseudo-header sum) and payload, stores the complement (a UDP zero as 0xFFFF).
     *
     * @return true when a checksum was written; false for other protocols, IPv4 fragments, IPv6 extension headers
     *     or a segment not wholly in the buffer (left as is)
     */
    static boolean completeChecksum(MemorySegment m, long d, int len) {
        int l3 = ETH_HEADER;
        int type = m.get(BE_SHORT, d + MACS) & 0xffff;
        for (int tags = 0; (type == TPID_8021Q || type == TPID_8021AD) && tags < 2; tags++) {
            if (l3 + VLAN_TAG > len) {
                return false;
            }
            type = m.get(BE_SHORT, d + l3 + 2) & 0xffff;
            l3 += VLAN_TAG;
        }
        int proto;
        int l4;
        int end;
        if (type == 0x0800 && l3 + 20 <= len) {
            int ihl = (m.get(ValueLayout.JAVA_BYTE, d + l3) & 0x0f) * 4;
            int frag = m.get(BE_SHORT, d + l3 + 6) & 0x3fff; // MF + fragment offset
            proto = m.get(ValueLayout.JAVA_BYTE, d + l3 + 9) & 0xff;
            l4 = l3 + ihl;
            end = l3 + (m.get(BE_SHORT, d + l3 + 2) & 0xffff);
            if (ihl < 20 || frag != 0) {
                return false;
            }
        } else if (type == 0x86DD && l3 + 40 <= len) {
            proto = m.get(ValueLayout.JAVA_BYTE, d + l3 + 6) & 0xff;
            l4 = l3 + 40;
            end = l4 + (m.get(BE_SHORT, d + l3 + 4) & 0xffff);
        } else {
            return false;
        }
        int field = proto == 6 ? 16 : proto == 17 ? 6 : -1;
        if (field < 0 || end > len || l4 + field + 2 > end) {
            return false;
        }
        long sum = 0;
        long p = d + l4;
        long stop = d + end;
        for (; p + 1 < stop; p += 2) {
            sum += m.get(BE_SHORT, p) & 0xffff;
        }
        if (p < stop) {
            sum += (m.get(ValueLayout.JAVA_BYTE, p) & 0xff) << 8;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        int c = (int) (~sum & 0xffff);
        if (c == 0 && proto == 17) {
            c = 0xffff;
        }
        m.set(BE_SHORT, d + l4 + field, (short) c);
        return true;
    }
}
