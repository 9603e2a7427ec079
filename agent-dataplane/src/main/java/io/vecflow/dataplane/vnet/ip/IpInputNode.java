package io.vecflow.dataplane.vnet.ip;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.FeatureArc;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.graph.mem.Bytes;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.error.ErrorDropNode;
import java.lang.foreign.MemorySegment;

/**
 * {@code ip4-input} / {@code ip6-input}: checks the IP header, then sends good packets into the family's unicast
 * feature arc ({@code ip4-unicast} / {@code ip6-unicast}, keyed on the receive ifIndex; load-balancer features sit
 * there; the arcs end at {@code ip4-lookup} / {@code ip6-lookup}).
 * <ul>
 *   <li>IPv4 (RFC 791; RFC 1812 §5.2.2): version 4, IHL ≥ 5, header and total length within the frame
 *       ({@link DropReason#IP4_BAD_HEADER}), header checksum ({@link DropReason#IP4_BAD_CHECKSUM});</li>
 *   <li>IPv6 (RFC 8200 §3): version 6, the 40-byte header and the payload length within the frame
 *       ({@link DropReason#IP6_BAD_HEADER}).</li>
 * </ul>
 */
public final class IpInputNode extends Node {
    /** IPv4 node name. */
    public static final String IP4 = "ip4-input";
    /** IPv6 node name. */
    public static final String IP6 = "ip6-input";

    private final boolean ip6;
    private final FeatureArc unicast;

    /**
     * @param ip6 true for ip6-input
     * @param unicast the family's unicast arc
     */
    public IpInputNode(boolean ip6, FeatureArc unicast) {
        super(ip6 ? IP6 : IP4, ErrorDropNode.NAME);
        this.ip6 = ip6;
        this.unicast = unicast;
    }

    @Override
    protected void process(Worker w, PacketVector v) {
        BufferPool pool = w.pool();
        MemorySegment d = pool.data();
        int drop = next(0);
        for (int i = 0, n = v.count; i < n; i++) {
            int b = v.buffers[i];
            int l3 = pool.l3Offset[b];
            int avail = pool.length[b] - l3;
            long base = pool.offset(b) + l3;
            int bad = ip6 ? check6(d, base, avail) : check4(d, base, avail);
            if (bad >= 0) {
                pool.dropReason[b] = bad;
                w.enqueue(drop, b, 0);
            } else {
                unicast.start(w, b, pool.rxIfIndex[b]);
            }
        }
    }

    /** @return -1 for a good IPv4 header, else the {@link DropReason#ordinal()} */
    public static int check4(MemorySegment d, long base, int avail) {
        if (avail >= 20) {
            // the common header (IHL 5) in three reads: version/IHL/TOS/length/ID/flags, TTL/protocol/checksum/source,
            // destination; the RFC 1071 sum over its five 32-bit words must fold to 0xFFFF
            long w0 = d.get(Bytes.BE64, base), w1 = d.get(Bytes.BE64, base + 8);
            if ((int) (w0 >>> 56) == 0x45) {
                int total = (int) (w0 >>> 32) & 0xFFFF;
                if (total < 20 || total > avail) {
                    return DropReason.IP4_BAD_HEADER.ordinal();
                }
                long sum = (w0 >>> 32) + (w0 & 0xFFFF_FFFFL) + (w1 >>> 32) + (w1 & 0xFFFF_FFFFL)
                        + (d.get(Bytes.BE32, base + 16) & 0xFFFF_FFFFL);
                sum = (sum & 0xFFFF) + (sum >>> 16);
                sum = (sum & 0xFFFF) + (sum >>> 16);
                sum = (sum & 0xFFFF) + (sum >>> 16);
                return sum != 0xFFFF ? DropReason.IP4_BAD_CHECKSUM.ordinal() : -1;
            }
        }
        int vihl = avail >= 20 ? Bytes.u8(d, base) : 0;
        int ihl = (vihl & 0xF) * 4;
        if (vihl >>> 4 != 4 || ihl < 20 || ihl > avail) {
            return DropReason.IP4_BAD_HEADER.ordinal();
        }
        int total = Bytes.u16(d, base + 2);
        if (total < ihl || total > avail) {
            return DropReason.IP4_BAD_HEADER.ordinal();
        }
        return Bytes.sum16(d, base, ihl) != 0xFFFF ? DropReason.IP4_BAD_CHECKSUM.ordinal() : -1;
    }

    /** @return -1 for a good IPv6 header, else the {@link DropReason#ordinal()} */
    private static int check6(MemorySegment d, long base, int avail) {
        boolean ok = avail >= 40 && Bytes.u8(d, base) >>> 4 == 6 && 40 + Bytes.u16(d, base + 4) <= avail;
        return ok ? -1 : DropReason.IP6_BAD_HEADER.ordinal();
    }
}
