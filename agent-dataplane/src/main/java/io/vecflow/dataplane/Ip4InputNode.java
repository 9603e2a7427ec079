package io.vecflow.dataplane;

import java.lang.foreign.MemorySegment;

/**
 * {@code ip4-input}: checks the IPv4 header (RFC 791; RFC 1812 §5.2.2): version 4, IHL ≥ 5, header and total length
 * within the frame, header checksum. Good packets enter the {@code ip4-unicast} feature arc keyed on the receive
 * ifIndex (load-balancer features sit there; the arc ends at {@code ip4-lookup}); bad ones go to error-drop with
 * {@link DropReason#IP4_BAD_HEADER} or {@link DropReason#IP4_BAD_CHECKSUM}.
 */
public final class Ip4InputNode extends Node {
    /** Node name. */
    public static final String NAME = "ip4-input";

    private final FeatureArc unicast;

    /** @param unicast the ip4-unicast arc */
    public Ip4InputNode(FeatureArc unicast) {
        super(NAME, ErrorDropNode.NAME);
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
            int vihl = avail >= 20 ? Frames.u8(d, base) : 0;
            int ihl = (vihl & 0xF) * 4;
            if (vihl >>> 4 != 4 || ihl < 20 || ihl > avail) {
                pool.dropReason[b] = DropReason.IP4_BAD_HEADER.ordinal();
                w.enqueue(drop, b, 0);
                continue;
            }
            int total = Frames.u16(d, base + 2);
            if (total < ihl || total > avail) {
                pool.dropReason[b] = DropReason.IP4_BAD_HEADER.ordinal();
                w.enqueue(drop, b, 0);
                continue;
            }
            if (Frames.sum16(d, base, ihl) != 0xFFFF) {
                pool.dropReason[b] = DropReason.IP4_BAD_CHECKSUM.ordinal();
                w.enqueue(drop, b, 0);
                continue;
            }
            unicast.start(w, b, pool.rxIfIndex[b]);
        }
    }
}
