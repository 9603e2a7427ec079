package io.vecflow.dataplane.plugins.lb;

import static io.vecflow.dataplane.plugins.lb.LoadBalancer.BACKEND_COUNTERS;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;

/** A backend as the control thread keeps it (address in both forms, VIP, draining, counter bases). */
final class BackendState {
    final InetAddress address;
    final boolean six;
    final int v4;
    final long hi, lo;
    final int vip;
    boolean draining;
    long[] base = new long[BACKEND_COUNTERS];

    BackendState(InetAddress a, int vip) {
        this.address = a;
        this.vip = vip;
        ByteBuffer bb = ByteBuffer.wrap(a.getAddress());
        if (a instanceof Inet4Address) {
            six = false;
            v4 = bb.getInt();
            hi = 0;
            lo = 0x0000_FFFF_0000_0000L | (v4 & 0xFFFF_FFFFL);
        } else {
            six = true;
            v4 = 0;
            hi = bb.getLong();
            lo = bb.getLong();
        }
    }
}
