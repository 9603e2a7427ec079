package io.vecflow.dataplane;

import java.lang.foreign.MemorySegment;

/**
 * {@code ip6-input}: checks the IPv6 header (RFC 8200 §3): version 6, 40-byte header and payload length within the
 * frame. Good packets enter the {@code ip6-unicast} arc keyed on the receive ifIndex (ends at {@code ip6-lookup});
 * bad ones go to error-drop with {@link DropReason#IP6_BAD_HEADER}.
 */
public final class Ip6InputNode extends Node {
    /** Node name. */
    public static final String NAME = "ip6-input";

    private final FeatureArc unicast;

    /** @param unicast the ip6-unicast arc */
    public Ip6InputNode(FeatureArc unicast) {
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
            if (avail < 40 || Frames.u8(d, base) >>> 4 != 6 || 40 + Frames.u16(d, base + 4) > avail) {
                pool.dropReason[b] = DropReason.IP6_BAD_HEADER.ordinal();
                w.enqueue(drop, b, 0);
                continue;
            }
            unicast.start(w, b, pool.rxIfIndex[b]);
        }
    }
}
