package io.vecflow.dataplane.vnet.ip;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.graph.mem.Bytes;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.error.ErrorDropNode;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceOutputNode;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code ip4-rewrite} / {@code ip6-rewrite}: forwards a looked-up packet to its adjacency (RFC 1812 §5.3.1, RFC 8200
 * §3): drops TTL/hop limit ≤ 1 ({@link DropReason#IP4_TTL_EXPIRED} / {@link DropReason#IP6_HOP_LIMIT_EXCEEDED}),
 * resolves a connected route's neighbour from the static table ({@link DropReason#NO_NEIGHBOUR}), drops packets larger
 * than the output MTU ({@link DropReason#MTU_EXCEEDED}; no fragmentation), decrements the TTL with an incremental
 * checksum update (RFC 1624), and writes a new Ethernet header (next-hop MAC, output port MAC, ethertype; VLAN tags of
 * the received frame are removed and Ethernet padding trimmed). Then sets the transmit ifIndex and hands the frame to
 * {@code interface-output}.
 */
public final class IpRewriteNode extends Node {
    /** IPv4 node name. */
    public static final String IP4 = "ip4-rewrite";
    /** IPv6 node name. */
    public static final String IP6 = "ip6-rewrite";

    private final boolean ip6;
    private final AtomicReference<Forwarding> forwarding;
    private final InterfaceTable interfaces;

    /**
     * @param ip6 true for ip6-rewrite
     * @param forwarding the current forwarding state (adjacencies, neighbours)
     * @param interfaces port MACs and MTUs
     */
    public IpRewriteNode(boolean ip6, AtomicReference<Forwarding> forwarding, InterfaceTable interfaces) {
        super(ip6 ? IP6 : IP4, InterfaceOutputNode.NAME, ErrorDropNode.NAME);
        this.ip6 = ip6;
        this.forwarding = forwarding;
        this.interfaces = interfaces;
    }

    @Override
    protected void process(Worker w, PacketVector v) {
        BufferPool pool = w.pool();
        MemorySegment d = pool.data();
        Forwarding f = forwarding.get();
        int out = next(0), drop = next(1);
        // the output interface's facts, looked up once per run of packets to the same interface (a vector mostly
        // goes to one): up (has a port), MTU, MAC
        int lastTx = Integer.MIN_VALUE, mtu = 0;
        long srcMac = 0;
        boolean up = false;
        for (int i = 0, n = v.count; i < n; i++) {
            int b = v.buffers[i];
            int l3 = pool.l3Offset[b];
            long buf = pool.offset(b);
            long base = buf + l3;
            int adj = pool.adjacency[b];
            int tx = f.adjacencyIfIndex(adj);
            int ipLen;
            int ttlOff;
            if (ip6) {
                ipLen = 40 + Bytes.u16(d, base + 4);
                ttlOff = 7;
            } else {
                ipLen = Bytes.u16(d, base + 2);
                ttlOff = 8;
            }
            int ttlWord = ip6 ? 0 : d.get(Bytes.BE32, base + 8); // TTL, protocol, header checksum
            int ttl = ip6 ? Bytes.u8(d, base + ttlOff) : ttlWord >>> 24;
            if (ttl <= 1) {
                pool.dropReason[b] = (ip6 ? DropReason.IP6_HOP_LIMIT_EXCEEDED : DropReason.IP4_TTL_EXPIRED).ordinal();
                w.enqueue(drop, b, 0);
                continue;
            }
            long mac;
            if (f.adjacencyKind(adj) == Forwarding.REWRITE) {
                mac = f.adjacencyMac(adj);
            } else {
                mac = ip6 ? f.neighbour6(d.get(Bytes.BE64, base + 24), d.get(Bytes.BE64, base + 32))
                        : f.neighbour4(d.get(Bytes.BE32, base + 16));
            }
            if (mac < 0) {
                pool.dropReason[b] = DropReason.NO_NEIGHBOUR.ordinal();
                w.enqueue(drop, b, 0);
                continue;
            }
            if (tx != lastTx) {
                lastTx = tx;
                up = interfaces.port(tx) != null;
                mtu = up ? interfaces.mtu(tx) : 0;
                srcMac = up ? interfaces.mac(tx) : 0;
            }
            if (!up) {
                pool.dropReason[b] = DropReason.INTERFACE_DOWN.ordinal();
                w.enqueue(drop, b, 0);
                continue;
            }
            if (ipLen > mtu) {
                pool.dropReason[b] = DropReason.MTU_EXCEEDED.ordinal();
                w.enqueue(drop, b, 0);
                continue;
            }
            if (ip6) {
                d.set(java.lang.foreign.ValueLayout.JAVA_BYTE, base + 7, (byte) (ttl - 1));
            } else {
                int oldWord = ttlWord >>> 16;
                int newWord = oldWord - 0x100;
                d.set(Bytes.BE32, base + 8, newWord << 16 | Bytes.updateChecksum(ttlWord & 0xFFFF, oldWord, newWord));
            }
            if (l3 != 14) {
                MemorySegment.copy(d, base, d, buf + 14, ipLen);
                pool.l3Offset[b] = 14;
            }
            d.set(Bytes.BE64, buf, mac << 16 | srcMac >>> 32); // next-hop MAC, then the port MAC's first 2 bytes
            d.set(Bytes.BE32, buf + 8, (int) srcMac);
            Bytes.put16(d, buf + 12, ip6 ? 0x86DD : 0x0800);
            pool.length[b] = 14 + ipLen;
            pool.txIfIndex[b] = tx;
            w.enqueue(out, b, 0);
        }
    }
}
