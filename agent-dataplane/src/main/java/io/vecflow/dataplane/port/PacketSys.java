package io.vecflow.dataplane.port;

import io.vecflow.common.Libc;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Constants of AF_PACKET sockets and TPACKET rings ({@code include/uapi/linux/if_packet.h}, {@code linux/if_ether.h},
 * {@code linux/sockios.h}, {@code linux/if.h}, {@code sys/mman.h}; Linux x86_64 values), and the libc calls {@link
 * Libc} does not offer: {@code mmap}, {@code munmap}, {@code ioctl}, through {@code java.lang.foreign} only.
 *
 * <p>Every call takes a caller-owned call-state segment ({@link Libc#newCallState}) into which the linker captures
 * {@code errno}; results follow libc ({@code -1} / {@code MAP_FAILED} on failure, then {@link Libc#errno}).
 */
@SuppressWarnings("restricted")
final class PacketSys {
    private PacketSys() {}

    // <sys/socket.h>, <linux/if_ether.h>
    static final int AF_PACKET = 17;
    static final int SOCK_RAW = 3;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_PACKET = 263;
    static final int ETH_P_ALL = 0x0003;
    static final int MSG_DONTWAIT = 0x40;

    // <linux/if_packet.h> socket options (level SOL_PACKET)
    static final int PACKET_ADD_MEMBERSHIP = 1;
    static final int PACKET_RX_RING = 5;
    static final int PACKET_STATISTICS = 6;
    static final int PACKET_VERSION = 10;
    static final int PACKET_TX_RING = 13;
    static final int PACKET_LOSS = 14;
    /** Prepend a struct virtio_net_hdr to every frame of the rings (receive: GSO/checksum state; transmit: read). */
    static final int PACKET_VNET_HDR = 15;
    static final int PACKET_FANOUT = 18;
    static final int PACKET_QDISC_BYPASS = 20;
    static final int PACKET_IGNORE_OUTGOING = 23;

    static final int TPACKET_V3 = 2;
    static final int PACKET_MR_PROMISC = 1;
    static final int PACKET_FANOUT_HASH = 0;
    static final int PACKET_FANOUT_FLAG_UNIQUEID = 0x2000;
    static final int PACKET_FANOUT_FLAG_IGNORE_OUTGOING = 0x4000;
    static final int PACKET_FANOUT_FLAG_DEFRAG = 0x8000;

    // tp_status / block_status bits, receive side
    static final int TP_STATUS_KERNEL = 0;
    static final int TP_STATUS_USER = 1;
    static final int TP_STATUS_LOSING = 1 << 2;
    static final int TP_STATUS_CSUMNOTREADY = 1 << 3;
    static final int TP_STATUS_VLAN_VALID = 1 << 4;
    static final int TP_STATUS_VLAN_TPID_VALID = 1 << 6;
    // tp_status, transmit side
    static final int TP_STATUS_AVAILABLE = 0;
    static final int TP_STATUS_SEND_REQUEST = 1;
    static final int TP_STATUS_WRONG_FORMAT = 1 << 2;

    /** struct tpacket_block_desc (V3): version u32, offset_to_priv u32, then struct tpacket_hdr_v1. */
    static final long BLOCK_STATUS = 8;
    static final long BLOCK_NUM_PKTS = 12;
    static final long BLOCK_OFFSET_TO_FIRST_PKT = 16;

    /** struct tpacket3_hdr field offsets; sizeof = 48 (already a multiple of TPACKET_ALIGNMENT = 16). */
    static final long TP_NEXT_OFFSET = 0;
    static final long TP_SNAPLEN = 12;
    static final long TP_LEN = 16;
    static final long TP_STATUS = 20;
    static final long TP_MAC = 24;
    static final long TP_VLAN_TCI = 32;
    static final long TP_VLAN_TPID = 36;
    static final int TPACKET3_HDR = 48;
    /** sizeof(struct sockaddr_ll); TPACKET3_HDRLEN = TPACKET_ALIGN(48) + 20 = 68 (if_packet.h). */
    static final int SOCKADDR_LL = 20;
    /**
     * Where the kernel reads a transmit frame's data in a V3 TX ring slot: {@code tp_hdrlen − sizeof(sockaddr_ll)} =
     * 48 (net/packet/af_packet.c tpacket_snd without PACKET_TX_HAS_OFF).
     */
    static final int TX_DATA_OFFSET = TPACKET3_HDR;
    static final int TPACKET_ALIGNMENT = 16;

    /**
     * struct virtio_net_hdr ({@code include/uapi/linux/virtio_net.h}): u8 flags, u8 gso_type, then u16 hdr_len,
     * gso_size, csum_start, csum_offset in the host's byte order (little-endian here: af_packet uses
     * {@code vio_le()}); with PACKET_VNET_HDR the kernel writes it right before the frame's MAC header on receive and
     * reads it at the start of a TX ring slot's data.
     */
    static final int VNET_HDR = 10;
    static final long VNET_FLAGS = 0;
    static final long VNET_GSO_TYPE = 1;
    static final long VNET_GSO_SIZE = 4;
    static final long VNET_CSUM_START = 6;
    static final int VIRTIO_NET_HDR_F_NEEDS_CSUM = 1;
    static final int VIRTIO_NET_HDR_GSO_NONE = 0;
    static final int VIRTIO_NET_HDR_GSO_TCPV4 = 1;
    static final int VIRTIO_NET_HDR_GSO_UDP = 3;
    static final int VIRTIO_NET_HDR_GSO_TCPV6 = 4;
    static final int VIRTIO_NET_HDR_GSO_UDP_L4 = 5;
    static final int VIRTIO_NET_HDR_GSO_ECN = 0x80;

    /** struct tpacket_req3: 7 × u32. */
    static final int TPACKET_REQ3 = 28;
    /** struct packet_mreq: int ifindex, u16 type, u16 alen, u8 address[8]. */
    static final int PACKET_MREQ = 16;
    /** struct tpacket_stats_v3: tp_packets, tp_drops, tp_freeze_q_cnt (u32 each). */
    static final int TPACKET_STATS_V3 = 12;

    // <linux/sockios.h>, struct ifreq = char ifr_name[16] + 24-byte union
    static final long SIOCGIFINDEX = 0x8933;
    static final long SIOCGIFMTU = 0x8921;
    /** ifr_hwaddr: struct sockaddr at offset 16 (u16 sa_family = ARPHRD_*, then the address in sa_data). */
    static final long SIOCGIFHWADDR = 0x8927;
    /** {@code <linux/if_arp.h>} ARPHRD_ETHER: sa_family of an Ethernet device's hardware address. */
    static final int ARPHRD_ETHER = 1;
    static final int IFREQ = 40;
    static final int IFNAMSIZ = 16;

    // <sys/mman.h>
    static final int PROT_READ = 1;
    static final int PROT_WRITE = 2;
    static final int MAP_SHARED = 1;
    static final int MAP_POPULATE = 0x8000;

    private static final ValueLayout.OfInt C_INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong C_LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout PTR = ValueLayout.ADDRESS;

    // void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
    private static final MethodHandle MMAP =
            Libc.downcall("mmap", FunctionDescriptor.of(PTR, PTR, C_LONG, C_INT, C_INT, C_INT, C_LONG));
    // int munmap(void *addr, size_t len)
    private static final MethodHandle MUNMAP = Libc.downcall("munmap", FunctionDescriptor.of(C_INT, PTR, C_LONG));
    // int ioctl(int fd, unsigned long request, ...): the third argument is variadic
    private static final MethodHandle IOCTL = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("ioctl")
                    .orElseThrow(() -> new UnsatisfiedLinkError("libc symbol not found: ioctl")),
            FunctionDescriptor.of(C_INT, C_INT, C_LONG, PTR),
            Linker.Option.captureCallState("errno"), Linker.Option.firstVariadicArg(2));

    // ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *dst, socklen_t dlen),
    // once without errno capture (the hot kick) and once with it (only after a failed kick)
    private static final FunctionDescriptor SENDTO_FD =
            FunctionDescriptor.of(C_LONG, C_INT, PTR, C_LONG, C_INT, PTR, C_INT);
    private static final MethodHandle SENDTO_PLAIN = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("sendto")
                    .orElseThrow(() -> new UnsatisfiedLinkError("libc symbol not found: sendto")), SENDTO_FD);
    private static final MethodHandle SENDTO = Libc.downcall("sendto", SENDTO_FD);

    /**
     * {@code sendto(fd, NULL, 0, MSG_DONTWAIT, NULL, 0)} without errno capture: tells the kernel to send the frames
     * marked {@code TP_STATUS_SEND_REQUEST} in the socket's TX ring (packet_mmap.rst). The errno-capturing downcall
     * slices its state segment on every call, a 40-byte temporary that only C2's escape analysis removes, and not when
     * the call is inlined deep in a worker loop; this one allocates nothing whatever the JIT does.
     *
     * @return bytes sent, or −1 (errno unknown: call {@link #kickCapturingErrno})
     */
    static long kick(int fd) {
        try {
            return (long) SENDTO_PLAIN.invokeExact(fd, MemorySegment.NULL, 0L, MSG_DONTWAIT, MemorySegment.NULL, 0);
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    /** As {@link #kick} with errno captured into {@code state} (the error path). */
    static long kickCapturingErrno(MemorySegment state, int fd) {
        try {
            return (long) SENDTO.invokeExact(state, fd, MemorySegment.NULL, 0L, MSG_DONTWAIT, MemorySegment.NULL, 0);
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    /** mmap(2); the mapping's address, or {@code MAP_FAILED} (address −1; errno in {@code state}). */
    static MemorySegment mmap(MemorySegment state, long len, int prot, int flags, int fd, long off) {
        try {
            return (MemorySegment) MMAP.invokeExact(state, MemorySegment.NULL, len, prot, flags, fd, off);
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    /** @return true when {@code addr} is mmap's {@code MAP_FAILED} ((void *) −1). */
    static boolean mapFailed(MemorySegment addr) {
        return addr.address() == -1L;
    }

    /** munmap(2); 0, or −1 (errno in {@code state}). */
    static int munmap(MemorySegment state, MemorySegment addr, long len) {
        try {
            return (int) MUNMAP.invokeExact(state, addr, len);
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    /** ioctl(2) with a pointer argument; ≥ 0, or −1 (errno in {@code state}). */
    static int ioctl(MemorySegment state, int fd, long request, MemorySegment arg) {
        try {
            return (int) IOCTL.invokeExact(state, fd, request, arg);
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }
}
