package io.vecflow.dataplane.plugins.lb;

import static io.vecflow.dataplane.plugins.lb.LoadBalancer.VIP_COUNTERS;

import io.vecflow.dataplane.plugins.lb.maglev.MaglevTable;
import io.vecflow.dataplane.plugins.srlb.state.CandidateTable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** A VIP as the control thread keeps it (slot, key, encapsulation, Maglev ring, backends, counter bases). */
final class VipState {
    final int slot;
    final VipKey key;
    final EncapType encap;
    final int newLength;
    MaglevTable ring;
    CandidateTable cht;
    final List<Integer> backends = new ArrayList<>(); // backend slots, in the order added
    long[] base = new long[VIP_COUNTERS];
    /** The VIP prefix's address for counter reports: IPv6 hi/lo, or the IPv4 address in lo. */
    final boolean six;
    final long hi, lo;

    VipState(int slot, VipKey key, EncapType encap, int newLength) {
        this.slot = slot;
        this.key = key;
        this.encap = encap;
        this.newLength = newLength;
        ByteBuffer bb = ByteBuffer.wrap(key.prefix().getAddress());
        six = key.prefix() instanceof java.net.Inet6Address;
        hi = six ? bb.getLong() : 0;
        lo = six ? bb.getLong() : bb.getInt() & 0xFFFF_FFFFL;
    }
}
