package io.vecflow.dataplane.port;

import static io.vecflow.dataplane.port.PacketSys.*;
import static io.vecflow.dataplane.port.RxFrames.BE_SHORT;

import io.vecflow.common.Errno;
import io.vecflow.common.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * {@link AfPacketPort}'s socket setup at open time: interface index, MTU and MAC by ioctl, socket options, the
 * TPACKET_V3 ring requests, the bind and the drop-all filter held while the fanout group forms. Errors name the call
 * and the errno. May allocate (in the port's arena); never on the packet path.
 */
@SuppressWarnings("restricted")
final class AfPacketSockets {
    private final Arena arena;

    AfPacketSockets(Arena arena) {
        this.arena = arena;
    }

    static IOException fail(String where, String call, MemorySegment st, String hint) {
        return new IOException(where + ": " + call + " failed: " + Errno.describe(Libc.errno(st)) + hint);
    }

    int ifreq(AfPacketPort.Queue s, String w, long request, String ifName) throws IOException {
        MemorySegment ifr = arena.allocate(IFREQ, 8);
        byte[] n = ifName.getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(n, 0, ifr, ValueLayout.JAVA_BYTE, 0, n.length);
        if (PacketSys.ioctl(s.callState, s.fd, request, ifr) < 0) {
            int e = Libc.errno(s.callState);
            String call = request == SIOCGIFINDEX ? "ioctl(SIOCGIFINDEX)" : "ioctl(SIOCGIFMTU)";
            throw new IOException(w + ": " + call + " for interface '" + ifName + "' failed: " + Errno.describe(e)
                    + (e == Errno.ENODEV ? ": no such interface in this network namespace" : ""));
        }
        return ifr.get(ValueLayout.JAVA_INT, IFNAMSIZ);
    }

    /**
     * SIOCGIFHWADDR on the socket, so in the socket's network namespace (where /sys/class/net may show another one).
     *
     * @return the 48-bit MAC (first octet most significant), or 0 when the device is not Ethernet (ARPHRD_ETHER)
     */
    long hwaddr(AfPacketPort.Queue s, String w, String ifName) throws IOException {
        MemorySegment ifr = arena.allocate(IFREQ, 8);
        byte[] n = ifName.getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(n, 0, ifr, ValueLayout.JAVA_BYTE, 0, n.length);
        if (PacketSys.ioctl(s.callState, s.fd, SIOCGIFHWADDR, ifr) < 0) {
            throw fail(w, "ioctl(SIOCGIFHWADDR) for interface '" + ifName + "'", s.callState, "");
        }
        if ((ifr.get(ValueLayout.JAVA_SHORT, IFNAMSIZ) & 0xffff) != ARPHRD_ETHER) {
            return 0;
        }
        long mac = 0;
        for (int i = 0; i < 6; i++) {
            mac = mac << 8 | ifr.get(ValueLayout.JAVA_BYTE, IFNAMSIZ + 2 + i) & 0xff;
        }
        return mac;
    }

    void setInt(AfPacketPort.Queue s, String w, int option, String what, int value) throws IOException {
        MemorySegment v = arena.allocate(ValueLayout.JAVA_INT);
        v.set(ValueLayout.JAVA_INT, 0, value);
        if (Libc.setsockopt(s.callState, s.fd, SOL_PACKET, option, v, 4) < 0) {
            throw fail(w, "setsockopt(SOL_PACKET, " + what + ")", s.callState, "");
        }
    }

    void ring(AfPacketPort.Queue s, String w, int option, String what, int blockSize, int blocks, int frames,
            int frameSize, int timeoutMs) throws IOException {
        MemorySegment req = arena.allocate(TPACKET_REQ3, 4);
        req.set(ValueLayout.JAVA_INT, 0, blockSize); // tp_block_size
        req.set(ValueLayout.JAVA_INT, 4, blocks); // tp_block_nr
        req.set(ValueLayout.JAVA_INT, 8, frameSize); // tp_frame_size
        req.set(ValueLayout.JAVA_INT, 12, frames); // tp_frame_nr
        req.set(ValueLayout.JAVA_INT, 16, timeoutMs); // tp_retire_blk_tov (must be 0 for the TX ring)
        // tp_sizeof_priv = 0, tp_feature_req_word = 0
        if (Libc.setsockopt(s.callState, s.fd, SOL_PACKET, option, req, TPACKET_REQ3) < 0) {
            throw fail(w, "setsockopt(SOL_PACKET, " + what + ", " + blocks + " × " + blockSize + " B blocks, "
                    + frames + " × " + frameSize + " B frames)", s.callState, "");
        }
    }

    void bind(AfPacketPort.Queue s, String w, int ifx) throws IOException {
        MemorySegment ll = arena.allocate(SOCKADDR_LL, 4);
        ll.set(ValueLayout.JAVA_SHORT, 0, (short) AF_PACKET); // sll_family
        ll.set(BE_SHORT, 2, (short) ETH_P_ALL); // sll_protocol, network order
        ll.set(ValueLayout.JAVA_INT, 4, ifx); // sll_ifindex
        if (Libc.bind(s.callState, s.fd, ll, SOCKADDR_LL) < 0) {
            throw fail(w, "bind(AF_PACKET, ETH_P_ALL, ifindex " + ifx + ")", s.callState, "");
        }
    }

    /** SO_ATTACH_FILTER with a one-instruction classic BPF "ret #0" (drop all), or SO_DETACH_FILTER. */
    void filter(AfPacketPort.Queue s, String w, boolean dropAll) throws IOException {
        final int solSocket = 1;
        final int soAttachFilter = 26;
        final int soDetachFilter = 27;
        if (dropAll) {
            MemorySegment insn = arena.allocate(8, 8); // struct sock_filter {u16 code; u8 jt; u8 jf; u32 k}
            insn.set(ValueLayout.JAVA_SHORT, 0, (short) 0x06); // BPF_RET | BPF_K
            insn.set(ValueLayout.JAVA_INT, 4, 0); // k = 0: keep 0 bytes = drop
            MemorySegment prog = arena.allocate(16, 8); // struct sock_fprog {u16 len; (pad); struct sock_filter *}
            prog.set(ValueLayout.JAVA_SHORT, 0, (short) 1);
            prog.set(ValueLayout.ADDRESS, 8, insn);
            if (Libc.setsockopt(s.callState, s.fd, solSocket, soAttachFilter, prog, 16) < 0) {
                throw fail(w, "setsockopt(SO_ATTACH_FILTER)", s.callState, "");
            }
        } else {
            MemorySegment v = arena.allocate(ValueLayout.JAVA_INT);
            if (Libc.setsockopt(s.callState, s.fd, solSocket, soDetachFilter, v, 4) < 0) {
                throw fail(w, "setsockopt(SO_DETACH_FILTER)", s.callState, "");
            }
        }
    }
}
