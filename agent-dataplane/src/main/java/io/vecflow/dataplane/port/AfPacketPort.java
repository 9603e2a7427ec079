package io.vecflow.dataplane.port;

import static io.vecflow.dataplane.port.PacketSys.*;
import static io.vecflow.dataplane.port.RxFrames.*;

import io.vecflow.common.Errno;
import io.vecflow.common.Libc;
import io.vecflow.common.NetNamespace;
import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.interfaces.Port;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A {@link Port} on a Linux interface through AF_PACKET sockets (packet(7), {@code Documentation/networking/
 * packet_mmap.rst}), VPP's {@code af_packet} device class done the same way:
 *
 * <ul>
 *   <li>one {@code AF_PACKET SOCK_RAW} socket per queue (worker), bound to the interface (resolved by name with
 *       {@code SIOCGIFINDEX} in the network namespace the socket is opened in; see {@link #open(String, String, int,
 *       int, AfPacketOptions)} for another namespace) for {@code ETH_P_ALL};</li>
 *   <li>a {@code TPACKET_V3} receive ring per socket ({@code PACKET_RX_RING}, {@link AfPacketOptions#blockSize} ×
 *       {@link AfPacketOptions#blockCount}, block retire timeout {@link AfPacketOptions#blockTimeoutMs}), mmap'd
 *       and read in place; {@link #rx} never makes a system call on the fast path and never blocks;</li>
 *   <li>all sockets of the port in one {@code PACKET_FANOUT} group of type {@code PACKET_FANOUT_HASH} (the kernel's
 *       symmetric flow hash, {@code __skb_get_hash_symmetric}: both directions of a flow reach one queue), with
 *       {@code PACKET_FANOUT_FLAG_DEFRAG} optional ({@link AfPacketOptions#defrag}, <b>off</b> by default: with it
 *       the kernel reassembles IP fragments before the hash and hands one frame larger than the MTU, which a forwarding
 *       dataplane cannot send on — fragments are forwarded as they arrived; without it a datagram's fragments may
 *       reach different workers, and its non-first fragments hash on addresses only) and
 *       {@code PACKET_FANOUT_FLAG_IGNORE_OUTGOING}; the group id is chosen by the kernel
 *       ({@code PACKET_FANOUT_FLAG_UNIQUEID});</li>
 *   <li>{@code PACKET_IGNORE_OUTGOING} (and the fanout flag of the same name): frames sent on the interface, by this
 *       port or by the host, never come back on {@link #rx};</li>
 *   <li>promiscuous mode ({@code PACKET_ADD_MEMBERSHIP} / {@code PACKET_MR_PROMISC}, undone by the kernel when the
 *       socket closes), {@link AfPacketOptions#promiscuous};</li>
 *   <li>transmit through a {@code PACKET_TX_RING} per socket ({@link AfPacketOptions#txFrames} slots of
 *       {@link AfPacketOptions#txFrameSize} bytes) and one {@code sendto(fd, NULL, 0, MSG_DONTWAIT)} per vector to
 *       kick it, with {@code PACKET_LOSS} so the kernel skips a malformed slot instead of stalling the ring (none
 *       is: frames are checked against the MTU and the slot before they are queued);</li>
 *   <li>{@code PACKET_VNET_HDR}: a virtio_net_hdr per frame, for offloaded frames ("Offloads" below);</li>
 *   <li>{@code PACKET_STATISTICS} ({@code tp_drops}: frames the kernel dropped because the ring was full) added to
 *       {@link PortCounters#RX_DISCARDS} whenever a retired block carries {@code TP_STATUS_LOSING}, and on
 *       {@link #refreshStatistics(int)};</li>
 *   <li>VLAN tag restoration: the kernel strips the outer 802.1Q/802.1ad tag of every received frame into
 *       {@code tp_vlan_tci} / {@code tp_vlan_tpid} ({@code TP_STATUS_VLAN_VALID}, {@code TP_STATUS_VLAN_TPID_VALID},
 *       {@code __netif_receive_skb_core → skb_vlan_untag}); {@link #rx} puts it back after the MAC addresses, so the
 *       graph sees the frame as it was on the wire.</li>
 * </ul>
 *
 * <p><b>Why a TX ring and not sendmmsg.</b> Both cost one system call per vector. The ring needs no per-frame
 * {@code mmsghdr}/{@code iovec} bookkeeping, the kernel builds each skb straight from the ring pages
 * ({@code tpacket_fill_skb} attaches them as fragments instead of copying from user memory), and a slot is handed back
 * asynchronously when the skb is freed, so a vector is never waited on: a full ring is a counted drop
 * ({@link PortCounters#TX_DISCARDS}, {@link DropReason#TX_QUEUE_FULL}). It is also what VPP's af_packet does (TX ring +
 * {@code sendto} kick).
 *
 * <p><b>Offloads.</b> Frames the Linux stack sends on a veth (or any interface with checksum offload or GSO), and
 * frames a NIC aggregated with GRO, reach AF_PACKET before any NIC finished or split them. The sockets set
 * {@code PACKET_VNET_HDR} ({@link AfPacketOptions#vnetHeader}, on by default; VPP's af_packet does the same), so the
 * kernel writes a {@code struct virtio_net_hdr} in front of each received frame ({@code virtio_net_hdr_from_skb}:
 * gso_type, gso_size, checksum flags and start). (1) A GSO super-frame (TCPv4, TCPv6, UDP_L4 up to 64 KiB) is cut on
 * receive into the segments the wire would have carried, each in its own buffer ({@link GsoSegmenter}: headers copied,
 * IPv4 id and lengths, TCP sequence and flags, full checksums), so the graph, sFlow and the counters see ordinary
 * frames. A super-frame it cannot cut (GSO over tunnels never arrives: the kernel drops those itself, counted in
 * {@code tp_drops}; a ring block too small for it; a segment longer than a buffer; IPv6 extension headers) goes to
 * error-drop as {@link DropReason#GSO_SEGMENTATION_ERROR} and counts as RX_ERRORS. (2) The UDP/TCP checksum of a
 * non-GSO frame may be partial ({@code TP_STATUS_CSUMNOTREADY}; the field holds the folded pseudo-header sum,
 * {@code CHECKSUM_PARTIAL} in {@code include/linux/skbuff.h}): with {@link AfPacketOptions#completeChecksums} (default)
 * {@link #rx} finishes it as the NIC would, the ones' complement sum from the L4 header to the end of the IP payload
 * (RFC 1071), for IPv4 and IPv6 without extension headers, under up to two VLAN tags; counted by
 * {@link #checksumsCompleted()}. The interface's own offload settings (ethtool features) are left as they are: on a
 * veth the sender's TSO decides, which the receiving end cannot switch off, and turning GRO off on a NIC would be a
 * host-wide change outliving the port. Transmit slots carry a zero virtio_net_hdr (no offload asked: every frame is
 * complete and at most MTU-sized); with it the kernel no longer checks the MTU itself, the port's own check does.
 *
 * <p><b>Threads.</b> Queue {@code q} ({@link #rx}, {@link #tx}, {@link #refreshStatistics}) is used only by worker
 * {@code q}; queues share nothing mutable. Counters are readable from any thread.
 *
 * <p><b>Allocation.</b> Nothing is allocated per frame or per call of {@link #rx}/{@link #tx}: ring slots are read and
 * written through preallocated segments and downcall handles with preallocated errno state.
 *
 * <p><b>Counters.</b> Every frame is counted once per counter set: in the port's counters below and, when dropped
 * here, under one {@link DropReason} (error-drop, {@code show errors}, a discard sample; such reasons are
 * {@link DropReason#countedByPort()}, so they are not added to the receive interface's ifInDiscards too). rx:
 * RX_PACKETS and RX_OCTETS (the frame's length on the wire including a restored VLAN tag, without FCS; for a
 * super-frame each segment) per frame delivered; RX_ERRORS per frame truncated (longer than the pool's buffer; still
 * delivered, cut) and per super-frame that cannot be segmented (not delivered: error-drop); RX_DISCARDS = kernel
 * {@code tp_drops}. tx: TX_PACKETS / TX_OCTETS per frame the kernel took from the ring (counted after the kick that
 * sent it); TX_DISCARDS per frame not queued because the ring had no free slot ({@link DropReason#TX_QUEUE_FULL});
 * TX_ERRORS per frame shorter than 14 bytes ({@link DropReason#TX_FRAME_TOO_SHORT}) or longer than the interface MTU
 * allows (MTU + 14, + 4 when 802.1Q/802.1ad-tagged; MTU read at open) or a slot holds
 * ({@link DropReason#TX_FRAME_TOO_LONG}), and per frame taken back from the ring after a kick failed with a lasting
 * errno ({@link DropReason#TX_SENDTO_FATAL}, e.g. ENETDOWN: the interface is down). A kick that fails with
 * ENOBUFS/EAGAIN/EINTR loses nothing: tpacket_snd leaves the frame it could not queue as SEND_REQUEST
 * ({@code net/packet/af_packet.c}), and frames left in the ring go out with the next {@link #rx} or {@link #tx} call
 * of the queue.
 */
@SuppressWarnings("restricted")
public final class AfPacketPort extends Port {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    /** virtio_net_hdr fields: host order (little-endian on the platforms this runs on, af_packet's vio_le()). */
    private static final ValueLayout.OfShort HOST_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.nativeOrder());

    /** Per-queue state, touched only by the queue's worker. */
    static final class Queue {
        int fd = -1;
        MemorySegment map; // raw mmap address (for munmap)
        MemorySegment ring; // the same, bounded and tied to the port's arena
        MemorySegment callState;
        MemorySegment stats;
        MemorySegment statsLen;
        int block; // next receive block
        int remaining; // frames left in the current block
        long packet; // ring offset of the next frame header
        boolean statsPending;
        int txHead; // next transmit slot
        boolean txPending; // frames left in the ring (SEND_REQUEST) after the last kick
        boolean txFatal; // the last kick failed with a lasting errno: frames are taken back by the next tx
        int unconfirmed; // frames queued (SEND_REQUEST) not yet seen taken by the kernel, before txHead
        long unconfirmedOctets;
        int txErrno; // errno of the last failed kick
        int[] slotRxIfIndex; // receive ifIndex of the frame in each TX slot (for a frame taken back)
        long checksumsCompleted;
        final GsoSegmenter gso = new GsoSegmenter();
        int segNext; // next segment of the super-frame at `packet` (0: not started)
        long gsoFrames;
        long gsoSegments;
        long gsoErrors;
        int gsoLastCause;
        // padding against false sharing between queues' objects
        long p0, p1, p2, p3, p4, p5, p6, p7;
    }

    private final Arena arena = Arena.ofShared();
    private final AfPacketSockets sockets = new AfPacketSockets(arena);
    private final Queue[] q;
    private final int linuxIfIndex;
    private final int mtu;
    private final long hardwareAddress;
    private final int fanoutId;
    private final long speed;
    private final int blockSize;
    private final int blockCount;
    private final long rxRingBytes;
    private final int txFrameSize;
    private final int txFramesPerBlock;
    private final int txFrameCount;
    private final long mapBytes;
    private final boolean completeChecksums;
    private final int vnet; // bytes of virtio_net_hdr in front of each frame (0 or 10)
    private volatile boolean closed;

    private AfPacketPort(String name, int ifIndex, int queues, AfPacketOptions o, long speed) throws IOException {
        super(name, ifIndex, queues);
        String where = "afpacket port " + name;
        o.validate(where);
        this.speed = speed;
        this.blockSize = o.blockSize;
        this.blockCount = o.blockCount;
        this.rxRingBytes = (long) o.blockSize * o.blockCount;
        this.completeChecksums = o.completeChecksums;
        this.vnet = o.vnetHeader ? VNET_HDR : 0;
        this.txFrameSize = o.txFrameSize;
        this.txFramesPerBlock = o.blockSize / o.txFrameSize;
        int txBlocks = (o.txFrames + txFramesPerBlock - 1) / txFramesPerBlock;
        this.txFrameCount = txBlocks * txFramesPerBlock;
        this.mapBytes = rxRingBytes + (long) txBlocks * o.blockSize;
        this.q = new Queue[queues];
        int ifx = 0;
        int m = 0;
        long hw = 0;
        int group = 0;
        try {
            for (int i = 0; i < queues; i++) {
                Queue s = new Queue();
                q[i] = s;
                s.callState = Libc.newCallState(arena);
                s.stats = arena.allocate(TPACKET_STATS_V3, 4);
                s.statsLen = arena.allocate(ValueLayout.JAVA_INT);
                s.slotRxIfIndex = new int[txFrameCount];
                String w = where + " queue " + i;
                MemorySegment st = s.callState;
                s.fd = Libc.socket(st, AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
                if (s.fd < 0) {
                    throw AfPacketSockets.fail(w, "socket(AF_PACKET, SOCK_RAW)", st, " (needs root / CAP_NET_RAW)");
                }
                if (i == 0) {
                    ifx = sockets.ifreq(s, w, SIOCGIFINDEX, name);
                    m = sockets.ifreq(s, w, SIOCGIFMTU, name);
                    hw = sockets.hwaddr(s, w, name);
                }
                sockets.setInt(s, w, PACKET_VERSION, "PACKET_VERSION=TPACKET_V3", TPACKET_V3);
                sockets.setInt(s, w, PACKET_LOSS, "PACKET_LOSS", 1);
                sockets.setInt(s, w, PACKET_IGNORE_OUTGOING, "PACKET_IGNORE_OUTGOING", 1);
                if (o.qdiscBypass) {
                    sockets.setInt(s, w, PACKET_QDISC_BYPASS, "PACKET_QDISC_BYPASS", 1);
                }
                if (vnet != 0) {
                    sockets.setInt(s, w, PACKET_VNET_HDR, "PACKET_VNET_HDR", 1); // before the rings (EBUSY after)
                }
                sockets.ring(s, w, PACKET_RX_RING, "PACKET_RX_RING", o.blockSize, o.blockCount,
                        o.blockSize / o.frameSize * o.blockCount, o.frameSize, o.blockTimeoutMs);
                sockets.ring(s, w, PACKET_TX_RING, "PACKET_TX_RING", o.blockSize, txBlocks, txFrameCount, o.txFrameSize,
                        0);
                s.map = PacketSys.mmap(st, mapBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, s.fd, 0);
                if (PacketSys.mapFailed(s.map)) {
                    s.map = null;
                    throw AfPacketSockets.fail(w, "mmap(" + mapBytes + " bytes of rings)", st, "");
                }
                s.ring = s.map.reinterpret(mapBytes, arena, null);
                for (int k = 0; vnet != 0 && k < txFrameCount; k++) {
                    s.ring.asSlice(txSlot(k) + TX_DATA_OFFSET, vnet).fill((byte) 0); // kernel pages are zeroed too
                }
                if (i > 0) {
                    // until this socket joins the group it would also get frames on its own (bind registers its
                    // hook): drop everything meanwhile, so no frame is delivered twice during setup
                    sockets.filter(s, w, true);
                }
                sockets.bind(s, w, ifx);
                if (i == 0 && o.promiscuous) {
                    MemorySegment mreq = arena.allocate(PACKET_MREQ, 4);
                    mreq.set(ValueLayout.JAVA_INT, 0, ifx);
                    mreq.set(ValueLayout.JAVA_SHORT, 4, (short) PACKET_MR_PROMISC);
                    if (Libc.setsockopt(st, s.fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, mreq, PACKET_MREQ) < 0) {
                        throw AfPacketSockets.fail(w, "setsockopt(PACKET_ADD_MEMBERSHIP, PACKET_MR_PROMISC)", st, "");
                    }
                }
                int flags = PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_IGNORE_OUTGOING
                        | (o.defrag ? PACKET_FANOUT_FLAG_DEFRAG : 0);
                if (i == 0) {
                    sockets.setInt(s, w, PACKET_FANOUT, "PACKET_FANOUT(HASH, UNIQUEID)",
                            (flags | PACKET_FANOUT_FLAG_UNIQUEID) << 16);
                    MemorySegment len = s.statsLen;
                    len.set(ValueLayout.JAVA_INT, 0, 4);
                    if (Libc.getsockopt(st, s.fd, SOL_PACKET, PACKET_FANOUT, s.stats, len) < 0) {
                        throw AfPacketSockets.fail(w, "getsockopt(PACKET_FANOUT)", st, "");
                    }
                    group = s.stats.get(ValueLayout.JAVA_INT, 0) & 0xffff;
                } else {
                    sockets.setInt(s, w, PACKET_FANOUT, "PACKET_FANOUT(HASH, id " + group + ")", group | flags << 16);
                    sockets.filter(s, w, false);
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            close();
            throw e;
        }
        this.linuxIfIndex = ifx;
        this.mtu = m;
        this.hardwareAddress = hw;
        this.fanoutId = group;
    }

    /**
     * Opens the port on interface {@code linuxName} of the calling thread's network namespace.
     *
     * @param linuxName the Linux interface name (e.g. {@code veth0}), also the port's name
     * @param ifIndex the dataplane's ifIndex of this port (≥ 1; not necessarily the Linux ifindex)
     * @param queues sockets = receive/transmit queues = workers, 1..256 (the fanout group limit)
     * @param options ring and socket settings
     * @return the open port
     * @throws IOException a system call failed; the message names the interface, queue, call and errno (ENODEV: no
     *     such interface; EPERM: not root)
     * @throws IllegalArgumentException bad options or queue count
     */
    public static AfPacketPort open(String linuxName, int ifIndex, int queues, AfPacketOptions options)
            throws IOException {
        if (linuxName == null || linuxName.isEmpty() || linuxName.getBytes(StandardCharsets.UTF_8).length >= IFNAMSIZ) {
            throw new IllegalArgumentException("afpacket port: interface name must be 1..15 bytes, got '" + linuxName
                    + "'");
        }
        if (queues < 1 || queues > 256) {
            throw new IllegalArgumentException("afpacket port " + linuxName + ": queues must be in 1..256, got "
                    + queues);
        }
        return new AfPacketPort(linuxName, ifIndex, queues, options, sysfsSpeed(linuxName));
    }

    /**
     * Opens the port on interface {@code linuxName} of network namespace {@code netns} (an {@code ip netns} name; null
     * = the calling thread's): the sockets are created on a thread that entered the namespace ({@link NetNamespace})
     * and stay there for their life, while {@link #rx}/{@link #tx} run on any thread.
     *
     * @param netns network namespace name, or null
     * @param linuxName the interface name inside that namespace
     * @param ifIndex the dataplane's ifIndex (≥ 1)
     * @param queues queues = workers, 1..256
     * @param options ring and socket settings
     * @return the open port
     * @throws IOException no such namespace, setns failed, or a socket call failed (message names it)
     * @throws InterruptedException interrupted while waiting for the namespace thread
     */
    public static AfPacketPort open(String netns, String linuxName, int ifIndex, int queues, AfPacketOptions options)
            throws IOException, InterruptedException {
        if (netns == null) {
            return open(linuxName, ifIndex, queues, options);
        }
        return NetNamespace.callIn(netns, () -> {
            AfPacketPort p = open(linuxName, ifIndex, queues, options);
            return p;
        });
    }

    private static long sysfsSpeed(String name) {
        // /sys shows the namespace sysfs was mounted in; only meaningful for the JVM's own namespace
        try {
            Path p = Path.of("/sys/class/net", name, "speed");
            if (!Files.isReadable(p)) {
                return 0;
            }
            long mbps = Long.parseLong(Files.readString(p).trim());
            return mbps > 0 ? mbps * 1_000_000L : 0;
        } catch (IOException | NumberFormatException e) {
            return 0; // reading speed of a virtual or down link fails with EINVAL: unknown
        }
    }

    // ---- data path ----------------------------------------------------------------------------------------

    /**
     * Receives up to {@code max} frames of queue {@code queue}'s ring (see {@link Port#rx}). Frames stay in the ring
     * when the pool is empty (the kernel then drops, counted by {@code PACKET_STATISTICS}). A GSO/GRO super-frame
     * (virtio_net_hdr gso_type set) is cut into segments, one buffer each ({@link GsoSegmenter}); when the vector or
     * the pool runs out part-way, the rest of its segments come with the next call. A super-frame that cannot be cut
     * is appended with {@link BufferPool#dropReason} = {@link DropReason#GSO_SEGMENTATION_ERROR} (its first bytes, for
     * the discard sample) and counted as RX_ERRORS, not RX_PACKETS. All frames of one call get the same
     * {@code timestampNanos} (one System.nanoTime per call). Looks at each ring block at most once per call. Also
     * kicks the transmit ring when frames are left in it (a kick that sent part of them).
     */
    @Override
    public int rx(int queue, BufferPool pool, PacketVector out, int max) {
        Queue s = q[queue];
        if (s.txPending && !s.txFatal) {
            kick(s, queue, null, null);
        }
        MemorySegment ring = s.ring;
        MemorySegment dst = pool.data();
        int bufBytes = pool.bufferBytes();
        int ifIndex = ifIndex();
        int n = 0;
        int delivered = 0;
        int errors = 0;
        long octets = 0;
        long now = 0;
        int blocksOpened = 0;
        while (n < max) {
            if (s.remaining == 0) {
                if (blocksOpened == blockCount) {
                    break;
                }
                long blk = (long) s.block * blockSize;
                int status = (int) INT.getAcquire(ring, blk + BLOCK_STATUS);
                if ((status & TP_STATUS_USER) == 0) {
                    break;
                }
                blocksOpened++;
                if ((status & TP_STATUS_LOSING) != 0) {
                    s.statsPending = true;
                }
                int pkts = ring.get(ValueLayout.JAVA_INT, blk + BLOCK_NUM_PKTS);
                int first = ring.get(ValueLayout.JAVA_INT, blk + BLOCK_OFFSET_TO_FIRST_PKT);
                if (pkts <= 0 || first < 0 || first >= blockSize) {
                    releaseBlock(s, ring, blk);
                    continue;
                }
                s.remaining = pkts;
                s.packet = blk + first;
                s.segNext = 0;
            }
            long blk = (long) s.block * blockSize;
            long h = s.packet;
            int snap = ring.get(ValueLayout.JAVA_INT, h + TP_SNAPLEN);
            int len = ring.get(ValueLayout.JAVA_INT, h + TP_LEN);
            int status = ring.get(ValueLayout.JAVA_INT, h + TP_STATUS);
            int mac = ring.get(ValueLayout.JAVA_SHORT, h + TP_MAC) & 0xffff;
            int next = ring.get(ValueLayout.JAVA_INT, h + TP_NEXT_OFFSET);
            long src = h + mac;
            if (snap < ETH_HEADER || src + snap > blk + blockSize || mac < vnet) {
                errors++; // a slot the kernel never writes this way: skip it
            } else {
                int gsoType = vnet != 0 ? ring.get(ValueLayout.JAVA_BYTE, src - VNET_HDR + VNET_GSO_TYPE) & 0xff
                        : VIRTIO_NET_HDR_GSO_NONE;
                boolean tagged = (status & TP_STATUS_VLAN_VALID) != 0;
                if (gsoType == VIRTIO_NET_HDR_GSO_NONE) {
                    int b = pool.alloc();
                    if (b < 0) {
                        break;
                    }
                    long d = pool.offset(b);
                    int copied = copyFrame(ring, h, src, snap, status, dst, d, bufBytes);
                    int wire = tagged ? len + VLAN_TAG : len;
                    if (copied < wire) {
                        errors++;
                    }
                    if ((status & TP_STATUS_CSUMNOTREADY) != 0 && completeChecksums
                            && completeChecksum(dst, d, copied)) {
                        s.checksumsCompleted++;
                    }
                    if (now == 0) {
                        now = System.nanoTime();
                    }
                    pool.length[b] = copied;
                    pool.rxIfIndex[b] = ifIndex;
                    pool.txIfIndex[b] = 0;
                    pool.timestampNanos[b] = now;
                    out.add(b);
                    n++;
                    delivered++;
                    octets += wire;
                } else {
                    GsoSegmenter g = s.gso;
                    int cause = GsoSegmenter.OK;
                    if (s.segNext == 0) {
                        long vh = src - VNET_HDR;
                        int flags = ring.get(ValueLayout.JAVA_BYTE, vh + VNET_FLAGS) & 0xff;
                        int gsoSize = ring.get(HOST_SHORT, vh + VNET_GSO_SIZE) & 0xffff;
                        int csumStart = ring.get(HOST_SHORT, vh + VNET_CSUM_START) & 0xffff;
                        int tpid = (status & TP_STATUS_VLAN_TPID_VALID) != 0
                                ? ring.get(ValueLayout.JAVA_SHORT, h + TP_VLAN_TPID) & 0xffff : TPID_8021Q;
                        int tci = ring.get(ValueLayout.JAVA_INT, h + TP_VLAN_TCI) & 0xffff;
                        cause = snap < len ? GsoSegmenter.TRUNCATED
                                : g.parse(ring, src, snap, gsoType, gsoSize,
                                        (flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) != 0, csumStart, tagged, tpid, tci,
                                        bufBytes);
                    }
                    if (now == 0) {
                        now = System.nanoTime();
                    }
                    if (cause != GsoSegmenter.OK) {
                        int b = pool.alloc();
                        if (b < 0) {
                            break;
                        }
                        pool.length[b] = copyFrame(ring, h, src, snap, status, dst, pool.offset(b), bufBytes);
                        pool.rxIfIndex[b] = ifIndex;
                        pool.txIfIndex[b] = 0;
                        pool.timestampNanos[b] = now;
                        pool.dropReason[b] = DropReason.GSO_SEGMENTATION_ERROR.ordinal();
                        out.add(b);
                        n++;
                        errors++;
                        s.gsoErrors++;
                        s.gsoLastCause = cause;
                    } else {
                        int k = s.segNext;
                        int total = g.segments();
                        while (k < total && n < max) {
                            int b = pool.alloc();
                            if (b < 0) {
                                break;
                            }
                            int l = g.write(ring, src, k, dst, pool.offset(b));
                            pool.length[b] = l;
                            pool.rxIfIndex[b] = ifIndex;
                            pool.txIfIndex[b] = 0;
                            pool.timestampNanos[b] = now;
                            out.add(b);
                            n++;
                            delivered++;
                            octets += l;
                            k++;
                        }
                        if (k < total) {
                            s.segNext = k; // the rest with the next call: the block stays ours meanwhile
                            break;
                        }
                        s.segNext = 0;
                        s.gsoFrames++;
                        s.gsoSegments += total;
                    }
                }
            }
            if (--s.remaining == 0) {
                releaseBlock(s, ring, blk);
            } else if (next <= 0 || h + next >= blk + blockSize) {
                s.remaining = 0; // a broken chain: give the block back
                releaseBlock(s, ring, blk);
            } else {
                s.packet = h + next;
            }
        }
        PortCounters c = counters();
        if (delivered > 0) {
            c.add(queue, PortCounters.RX_PACKETS, delivered);
            c.add(queue, PortCounters.RX_OCTETS, octets);
        }
        if (errors > 0) {
            c.add(queue, PortCounters.RX_ERRORS, errors);
        }
        if (s.statsPending) {
            refreshStatistics(queue);
        }
        return n;
    }

    /**
     * @return frames whose partial UDP/TCP checksum {@link #rx} completed, over all queues (read racily from other
     *     threads: a recent value)
     */
    public long checksumsCompleted() {
        long n = 0;
        for (Queue s : q) {
            n += s.checksumsCompleted;
        }
        return n;
    }

    private void releaseBlock(Queue s, MemorySegment ring, long blk) {
        INT.setRelease(ring, blk + BLOCK_STATUS, TP_STATUS_KERNEL);
        s.block = s.block + 1 == blockCount ? 0 : s.block + 1;
    }

    /**
     * Reads (and thereby resets) the kernel's {@code PACKET_STATISTICS} of queue {@code queue}'s socket and adds
     * {@code tp_drops} (frames dropped because the ring was full) to {@link PortCounters#RX_DISCARDS}. {@link #rx}
     * calls it when a block reports {@code TP_STATUS_LOSING}; call it from the queue's worker now and then (e.g. every
     * second) so drops after the last block are counted too. One system call, no allocation.
     *
     * @param queue the queue (call from its worker only)
     * @return {@code tp_drops} just added, or −1 if getsockopt failed (counted as nothing)
     */
    public long refreshStatistics(int queue) {
        Queue s = q[queue];
        s.statsPending = false;
        s.statsLen.set(ValueLayout.JAVA_INT, 0, TPACKET_STATS_V3);
        if (Libc.getsockopt(s.callState, s.fd, SOL_PACKET, PACKET_STATISTICS, s.stats, s.statsLen) < 0) {
            return -1;
        }
        long drops = s.stats.get(ValueLayout.JAVA_INT, 4) & 0xffffffffL;
        if (drops > 0) {
            counters().add(queue, PortCounters.RX_DISCARDS, drops);
        }
        return drops;
    }

    /**
     * Copies every frame of {@code v} into queue {@code queue}'s transmit ring, kicks the kernel once with
     * {@code sendto(MSG_DONTWAIT)}, then frees all buffers (see {@link Port#tx}; counters in the class comment);
     * frames the port cannot send are counted and freed. An empty vector still kicks frames left in the ring.
     */
    @Override
    public void tx(int queue, BufferPool pool, PacketVector v) {
        tx(queue, pool, v, null);
    }

    /**
     * As {@link #tx(int, BufferPool, PacketVector)}, with every frame that cannot be sent appended to {@code rejected}
     * (see {@link Port#tx(int, BufferPool, PacketVector, PacketVector)}) with its reason: shorter than 14 bytes
     * ({@link DropReason#TX_FRAME_TOO_SHORT}), longer than the MTU or a slot allows
     * ({@link DropReason#TX_FRAME_TOO_LONG}), no free slot ({@link DropReason#TX_QUEUE_FULL}), and, after a kick that
     * failed for good, the frames taken back from the ring ({@link DropReason#TX_SENDTO_FATAL}; copied from their slots
     * into fresh buffers, as many as {@code rejected} and the pool have room for, the rest with the next call).
     */
    @Override
    public void tx(int queue, BufferPool pool, PacketVector v, PacketVector rejected) {
        Queue s = q[queue];
        MemorySegment ring = s.ring;
        MemorySegment src = pool.data();
        int[] lengths = pool.length;
        int[] bufs = v.buffers;
        int count = v.count;
        int queued = 0;
        int discards = 0;
        int errors = 0;
        long octets = 0;
        int slotMax = txFrameSize - TX_DATA_OFFSET - vnet;
        int maxUntagged = Math.min(mtu + ETH_HEADER, slotMax);
        int maxTagged = Math.min(mtu + ETH_HEADER + VLAN_TAG, slotMax);
        for (int i = 0; i < count; i++) {
            int b = bufs[i];
            int len = lengths[b];
            long off = pool.offset(b);
            if (len < ETH_HEADER) {
                errors++;
                reject(pool, rejected, b, DropReason.TX_FRAME_TOO_SHORT);
                continue;
            }
            int type = src.get(BE_SHORT, off + MACS) & 0xffff;
            if (len > (type == TPID_8021Q || type == TPID_8021AD ? maxTagged : maxUntagged)) {
                errors++;
                reject(pool, rejected, b, DropReason.TX_FRAME_TOO_LONG);
                continue;
            }
            int slot = s.txHead;
            long f = txSlot(slot);
            int status = (int) INT.getAcquire(ring, f + TP_STATUS);
            if (status != TP_STATUS_AVAILABLE && status != TP_STATUS_WRONG_FORMAT) {
                discards++; // ring full (the slot may come free for a later frame of the vector)
                reject(pool, rejected, b, DropReason.TX_QUEUE_FULL);
                continue;
            }
            // the virtio_net_hdr in front (vnet bytes) stays all zeros, zeroed at open: no offload asked
            MemorySegment.copy(src, off, ring, f + TX_DATA_OFFSET + vnet, len);
            ring.set(ValueLayout.JAVA_INT, f + TP_NEXT_OFFSET, 0);
            ring.set(ValueLayout.JAVA_INT, f + TP_LEN, vnet + len);
            ring.set(ValueLayout.JAVA_INT, f + TP_SNAPLEN, vnet + len);
            s.slotRxIfIndex[slot] = pool.rxIfIndex[b];
            INT.setRelease(ring, f + TP_STATUS, TP_STATUS_SEND_REQUEST);
            s.txHead = slot + 1 == txFrameCount ? 0 : slot + 1;
            queued++;
            octets += len;
            pool.free(b);
        }
        v.count = 0;
        s.unconfirmed += queued;
        s.unconfirmedOctets += octets;
        PortCounters c = counters();
        if (discards > 0) {
            c.add(queue, PortCounters.TX_DISCARDS, discards);
        }
        if (errors > 0) {
            c.add(queue, PortCounters.TX_ERRORS, errors);
        }
        if (queued > 0 || s.txPending) {
            kick(s, queue, pool, rejected);
        }
    }

    private static void reject(BufferPool pool, PacketVector rejected, int b, DropReason reason) {
        if (rejected != null && rejected.count < PacketVector.CAPACITY) {
            pool.dropReason[b] = reason.ordinal();
            rejected.add(b);
        } else {
            pool.free(b);
        }
    }

    /** @return ring offset of transmit slot {@code slot}. */
    private long txSlot(int slot) {
        return rxRingBytes + (long) (slot / txFramesPerBlock) * blockSize + (long) (slot % txFramesPerBlock)
                * txFrameSize;
    }

    private int prevSlot(int slot) {
        return slot == 0 ? txFrameCount - 1 : slot - 1;
    }

    /**
     * One {@code sendto} kick of the TX ring, then settles the counters: frames the kernel took (no longer
     * SEND_REQUEST) become TX_PACKETS/TX_OCTETS; frames still SEND_REQUEST (a kick stopped by the socket's send buffer,
     * a qdisc drop — tpacket_snd gives that frame back as SEND_REQUEST — or an error) stay pending and are kicked
     * again by the next {@link #rx}/{@link #tx}. A kick failing with a lasting errno (not EAGAIN/ENOBUFS/EINTR) takes
     * the pending frames back ({@link #reclaim}) when called from {@link #tx} ({@code pool} given).
     */
    private void kick(Queue s, int queue, BufferPool pool, PacketVector rejected) {
        if (PacketSys.kick(s.fd) < 0) {
            // Rare path. The plain call does not capture errno: kick once more with capture (it sends what is left)
            // so that a lasting failure (ENETDOWN, ...) is told apart from back-pressure (ENOBUFS, EAGAIN).
            if (PacketSys.kickCapturingErrno(s.callState, s.fd) < 0) {
                int e = Libc.errno(s.callState);
                s.txErrno = e;
                if (e != Errno.ENOBUFS && e != Errno.EAGAIN && e != Errno.EINTR) {
                    s.txFatal = true;
                    if (pool != null) {
                        reclaim(s, queue, pool, rejected);
                    }
                    settle(s, queue);
                    return;
                }
            }
        }
        s.txFatal = false;
        settle(s, queue);
    }

    /** Counts the frames the kernel took since the last settle; the rest (SEND_REQUEST before txHead) stay pending. */
    private void settle(Queue s, int queue) {
        int pending = 0;
        long pendingOctets = 0;
        MemorySegment ring = s.ring;
        int slot = s.txHead;
        for (int i = 0; i < s.unconfirmed; i++) {
            slot = prevSlot(slot);
            long f = txSlot(slot);
            if ((int) INT.getAcquire(ring, f + TP_STATUS) != TP_STATUS_SEND_REQUEST) {
                break; // the kernel takes frames in ring order: everything before this was taken too
            }
            pending++;
            pendingOctets += ring.get(ValueLayout.JAVA_INT, f + TP_LEN) - vnet;
        }
        int took = s.unconfirmed - pending;
        if (took > 0) {
            PortCounters c = counters();
            c.add(queue, PortCounters.TX_PACKETS, took);
            c.add(queue, PortCounters.TX_OCTETS, s.unconfirmedOctets - pendingOctets);
        }
        s.unconfirmed = pending;
        s.unconfirmedOctets = pendingOctets;
        s.txPending = pending > 0;
    }

    /**
     * Takes back the frames still waiting (SEND_REQUEST) in the TX ring after a kick failed for good, newest first:
     * the kernel takes slots in ring order from its head and stopped at the oldest of them, so marking them
     * TP_STATUS_AVAILABLE and moving {@code txHead} back to the first one keeps its head and ours in step (only this
     * worker kicks this socket, so no tpacket_snd runs meanwhile). Each becomes a TX_ERRORS and, with
     * {@code rejected}, a buffer with {@link DropReason#TX_SENDTO_FATAL} and the frame's receive ifIndex; without it
     * (3-argument {@link #tx}) it is only counted. Stops when {@code rejected} or the pool is full.
     */
    private void reclaim(Queue s, int queue, BufferPool pool, PacketVector rejected) {
        MemorySegment ring = s.ring;
        int n = 0;
        long now = 0;
        while (s.unconfirmed > 0 && (rejected == null || rejected.count < PacketVector.CAPACITY)) {
            int slot = prevSlot(s.txHead);
            long f = txSlot(slot);
            if ((int) INT.getAcquire(ring, f + TP_STATUS) != TP_STATUS_SEND_REQUEST) {
                break;
            }
            int len = ring.get(ValueLayout.JAVA_INT, f + TP_LEN) - vnet;
            if (rejected != null) {
                int b = pool.alloc();
                if (b < 0) {
                    break;
                }
                if (now == 0) {
                    now = System.nanoTime();
                }
                int keep = Math.min(len, pool.bufferBytes());
                MemorySegment.copy(ring, f + TX_DATA_OFFSET + vnet, pool.data(), pool.offset(b), keep);
                pool.length[b] = keep;
                pool.rxIfIndex[b] = s.slotRxIfIndex[slot];
                pool.txIfIndex[b] = ifIndex();
                pool.timestampNanos[b] = now;
                pool.dropReason[b] = DropReason.TX_SENDTO_FATAL.ordinal();
                rejected.add(b);
            }
            INT.setRelease(ring, f + TP_STATUS, TP_STATUS_AVAILABLE);
            s.txHead = slot;
            s.unconfirmed--;
            s.unconfirmedOctets -= len;
            n++;
        }
        if (n > 0) {
            counters().add(queue, PortCounters.TX_ERRORS, n);
        }
    }

    // ---- information --------------------------------------------------------------------------------------

    /**
     * @return GSO/GRO super-frames {@link #rx} cut into segments, over all queues (racy read from other threads: a
     *     recent value)
     */
    public long gsoFramesSegmented() {
        long n = 0;
        for (Queue s : q) {
            n += s.gsoFrames;
        }
        return n;
    }

    /** @return segments {@link #rx} made of super-frames (each also one RX_PACKETS), over all queues. */
    public long gsoSegments() {
        long n = 0;
        for (Queue s : q) {
            n += s.gsoSegments;
        }
        return n;
    }

    /**
     * @return super-frames that could not be segmented (each a RX_ERRORS and a
     *     {@link DropReason#GSO_SEGMENTATION_ERROR} drop), over all queues
     */
    public long gsoErrors() {
        long n = 0;
        for (Queue s : q) {
            n += s.gsoErrors;
        }
        return n;
    }

    /** @return true when the sockets carry a virtio_net_hdr per frame ({@link AfPacketOptions#vnetHeader}). */
    public boolean vnetHeader() {
        return vnet != 0;
    }

    /**
     * @return one line on what the port does with offloaded frames and what it did so far, e.g. {@code "vnet-hdr on:
     *     gso super-frames 12 -> 530 segments, 0 not segmentable, 3 checksums completed, tx errno 0"} (for logs and
     *     {@code show interfaces}-style diagnostics; allocates)
     */
    public String offloadSummary() {
        int cause = 0;
        int errno = 0;
        for (Queue s : q) {
            cause = s.gsoLastCause != 0 ? s.gsoLastCause : cause;
            errno = s.txErrno != 0 ? s.txErrno : errno;
        }
        return (vnet != 0 ? "vnet-hdr on: gso super-frames " : "vnet-hdr off: gso super-frames ")
                + gsoFramesSegmented() + " -> " + gsoSegments() + " segments, " + gsoErrors() + " not segmentable"
                + (cause != 0 ? " (last: " + GsoSegmenter.describe(cause) + ")" : "") + ", " + checksumsCompleted()
                + " checksums completed" + (errno != 0 ? ", last failed tx kick " + Errno.describe(errno) : "");
    }

    /** @return the interface's Linux ifindex in its network namespace (SIOCGIFINDEX at open). */
    public int linuxIfIndex() {
        return linuxIfIndex;
    }

    /** @return the interface MTU in bytes read at open (SIOCGIFMTU); transmit frames are checked against it. */
    public int mtu() {
        return mtu;
    }

    /**
     * @return the device's MAC (48 bits, first octet most significant) read at open with SIOCGIFHWADDR in the port's
     *     network namespace, or 0 when the device is not Ethernet
     */
    public long hardwareAddress() {
        return hardwareAddress;
    }

    /** @return the kernel-chosen PACKET_FANOUT group id (16 bits) of this port's sockets. */
    public int fanoutId() {
        return fanoutId;
    }

    /** @return the longest frame (bytes) a transmit slot holds: txFrameSize − 48, − 10 more with the vnet header. */
    public int maxTxFrameBytes() {
        return txFrameSize - TX_DATA_OFFSET - vnet;
    }

    /**
     * @return {@code /sys/class/net/NAME/speed} × 10⁶ read at open when the port lives in the JVM's network namespace,
     *     else 0 (unknown)
     */
    @Override
    public long speedBitsPerSecond() {
        return speed;
    }

    /**
     * Closes every socket (the kernel leaves the fanout group and drops the promiscuous membership) and unmaps the
     * rings. Call after the workers stopped; idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = Libc.newCallState(a);
            if (arena.scope().isAlive()) {
                // ring segments die first, so a late rx/tx fails cleanly instead of touching unmapped pages
                arena.close();
            }
            for (Queue s : q) {
                if (s == null) {
                    continue;
                }
                if (s.map != null) {
                    PacketSys.munmap(st, s.map, mapBytes);
                    s.map = null;
                }
                if (s.fd >= 0) {
                    Libc.close(st, s.fd);
                    s.fd = -1;
                }
            }
        }
    }

    @Override
    public String toString() {
        return "afpacket " + name() + " (ifindex " + linuxIfIndex + ", " + queues() + " queues, fanout " + fanoutId
                + ")";
    }
}
