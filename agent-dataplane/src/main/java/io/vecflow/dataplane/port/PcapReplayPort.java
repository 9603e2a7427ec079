package io.vecflow.dataplane.port;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.vnet.interfaces.Port;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import io.vecflow.packet.PcapFile;
import io.vecflow.packet.PcapPacket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * A port that replays a capture: the whole capture is loaded off-heap once, and each packet is assigned to a worker by
 * the hash of its 5-tuple, as a NIC's RSS would assign it to a receive queue (non-IP packets hash on their MAC
 * addresses). Each worker's {@link ReplayInputNode} then replays its own queue {@code loops} times, optionally paced
 * to its share of a packets/s rate. Frames longer than a buffer are truncated and counted as
 * {@link PortCounters#RX_ERRORS}; transmit counts and frees (a replay port sends nowhere).
 */
public final class PcapReplayPort extends Port {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment data;
    private final int workers;
    private final long loops;
    private final double packetsPerSecond;
    private final long[][] offsets;
    private final int[][] lengths;
    private final int totalPackets;
    private final int[] cursor;
    private final long[] loop;
    private final long[] startNanos;
    private final long[] produced;

    /**
     * @param capture the loaded capture; must be Ethernet
     * @param ifIndex the ifIndex packets arrive on
     * @param workers number of workers (RSS queues)
     * @param loops how many times each packet is replayed (≥ 1)
     * @param packetsPerSecond total replay rate over all workers, or 0 for as fast as possible
     * @throws IllegalArgumentException for a non-Ethernet or empty capture, or bad parameters
     */
    public PcapReplayPort(PcapFile capture, int ifIndex, int workers, long loops, double packetsPerSecond) {
        this("pcap" + ifIndex, capture, ifIndex, workers, loops, packetsPerSecond);
    }

    /**
     * @param name interface name
     * @param capture the loaded capture; must be Ethernet
     * @param ifIndex the ifIndex packets arrive on
     * @param workers number of workers (RSS queues)
     * @param loops how many times each packet is replayed (≥ 1)
     * @param packetsPerSecond total replay rate over all workers, or 0 for as fast as possible
     * @throws IllegalArgumentException for a non-Ethernet or empty capture, or bad parameters
     */
    public PcapReplayPort(String name, PcapFile capture, int ifIndex, int workers, long loops,
            double packetsPerSecond) {
        super(name, ifIndex, Math.max(1, workers));
        if (capture.linkType() != LinkType.ETHERNET) {
            throw new IllegalArgumentException("the replay port needs an Ethernet capture; this one has link type "
                    + capture.linkType());
        }
        List<PcapPacket> packets = capture.packets();
        if (packets.isEmpty()) {
            throw new IllegalArgumentException("the capture holds no packets");
        }
        if (workers < 1 || loops < 1 || packetsPerSecond < 0) {
            throw new IllegalArgumentException("workers and loops must be >= 1 and the rate >= 0");
        }
        this.workers = workers;
        this.cursor = new int[workers];
        this.loop = new long[workers];
        this.startNanos = new long[workers];
        this.produced = new long[workers];
        this.loops = loops;
        this.packetsPerSecond = packetsPerSecond;
        this.totalPackets = packets.size();
        long total = 0;
        for (PcapPacket p : packets) {
            total += p.data().length;
        }
        this.data = arena.allocate(Math.max(1, total), 64);
        int[] counts = new int[workers];
        int[] queue = new int[packets.size()];
        ParsedPacket pp = new ParsedPacket();
        for (int i = 0; i < packets.size(); i++) {
            byte[] d = packets.get(i).data();
            PacketParser.parse(d, 0, d.length, LinkType.ETHERNET, pp);
            long h = pp.ipVersion() != 0 ? pp.flowHash() : mix(pp.srcMac() ^ Long.rotateLeft(pp.dstMac(), 17));
            queue[i] = (int) Long.remainderUnsigned(h, workers);
            counts[queue[i]]++;
        }
        offsets = new long[workers][];
        lengths = new int[workers][];
        for (int w = 0; w < workers; w++) {
            offsets[w] = new long[counts[w]];
            lengths[w] = new int[counts[w]];
        }
        int[] fill = new int[workers];
        long off = 0;
        for (int i = 0; i < packets.size(); i++) {
            byte[] d = packets.get(i).data();
            MemorySegment.copy(d, 0, data, ValueLayout.JAVA_BYTE, off, d.length);
            int w = queue[i];
            offsets[w][fill[w]] = off;
            lengths[w][fill[w]] = d.length;
            fill[w]++;
            off += d.length;
        }
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    /** @return packets in the capture. */
    public int capturePackets() {
        return totalPackets;
    }

    /** @return packets queued for worker {@code w} per loop. */
    public int queueLength(int w) {
        return lengths[w].length;
    }

    /** @return total packets the port will deliver (capture × loops). */
    public long totalToReplay() {
        return totalPackets * loops;
    }

    @Override
    public int rx(int queue, BufferPool pool, PacketVector out, int max) {
        long[] offs = offsets[queue];
        int[] lens = lengths[queue];
        if (offs.length == 0 || loop[queue] >= loops) {
            return 0;
        }
        long now = System.nanoTime();
        if (startNanos[queue] == 0) {
            startNanos[queue] = now;
        }
        int budget = max;
        if (packetsPerSecond > 0) {
            double share = packetsPerSecond * offs.length / totalPackets;
            long allowed = (long) ((now - startNanos[queue]) * share / 1e9) + 1 - produced[queue];
            if (allowed <= 0) {
                return 0;
            }
            budget = (int) Math.min(budget, allowed);
        }
        MemorySegment dst = pool.data();
        int bufBytes = pool.bufferBytes();
        int ifIndex = ifIndex();
        int c = cursor[queue];
        long lp = loop[queue];
        int n = 0;
        long bytes = 0, truncated = 0;
        while (n < budget && lp < loops) {
            int b = pool.alloc();
            if (b < 0) {
                break; // nothing taken off the "wire": retried next round, not a loss
            }
            int len = lens[c];
            if (len > bufBytes) {
                truncated++;
                len = bufBytes;
            }
            MemorySegment.copy(data, offs[c], dst, pool.offset(b), len);
            pool.length[b] = len;
            pool.rxIfIndex[b] = ifIndex;
            pool.txIfIndex[b] = 0;
            pool.timestampNanos[b] = now;
            out.add(b);
            bytes += len;
            n++;
            if (++c == offs.length) {
                c = 0;
                lp++;
            }
        }
        cursor[queue] = c;
        loop[queue] = lp;
        produced[queue] += n;
        PortCounters k = counters();
        k.add(queue, PortCounters.RX_PACKETS, n);
        k.add(queue, PortCounters.RX_OCTETS, bytes);
        if (truncated != 0) {
            k.add(queue, PortCounters.RX_ERRORS, truncated);
        }
        return n;
    }

    @Override
    public boolean rxExhausted(int queue) {
        return offsets[queue].length == 0 || loop[queue] >= loops;
    }

    @Override
    public void tx(int queue, BufferPool pool, PacketVector v) {
        long bytes = 0;
        for (int i = 0; i < v.count; i++) {
            bytes += pool.length[v.buffers[i]];
        }
        PortCounters k = counters();
        k.add(queue, PortCounters.TX_PACKETS, v.count);
        k.add(queue, PortCounters.TX_OCTETS, bytes);
        pool.free(v);
    }

    @Override
    public void close() {
        arena.close();
    }
}
