package io.vecflow.dataplane.port;

import io.vecflow.common.Errno;
import io.vecflow.common.Libc;
import io.vecflow.common.NetNamespace;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * A plain AF_PACKET socket that sends whole frames with one {@code sendto} each (packet(7), no ring, no fanout): an
 * independent sender for the receive tests. Opened inside a namespace with {@link NetNamespace#callIn}.
 */
final class RawSender implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment st = Libc.newCallState(arena);
    private final MemorySegment buf = arena.allocate(65536, 64);
    private final String ifName;
    private final int fd;

    RawSender(String ifName) throws IOException {
        this.ifName = ifName;
        fd = Libc.socket(st, PacketSys.AF_PACKET, PacketSys.SOCK_RAW | PacketSys.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw new IOException("socket(AF_PACKET): " + Errno.describe(Libc.errno(st)));
        }
        MemorySegment ifr = arena.allocate(PacketSys.IFREQ, 8);
        byte[] n = ifName.getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(n, 0, ifr, ValueLayout.JAVA_BYTE, 0, n.length);
        if (PacketSys.ioctl(st, fd, PacketSys.SIOCGIFINDEX, ifr) < 0) {
            throw new IOException(ifName + ": SIOCGIFINDEX: " + Errno.describe(Libc.errno(st)));
        }
        MemorySegment ll = arena.allocate(PacketSys.SOCKADDR_LL, 4);
        ll.set(ValueLayout.JAVA_SHORT, 0, (short) PacketSys.AF_PACKET);
        ll.set(ValueLayout.JAVA_INT, 4, ifr.get(ValueLayout.JAVA_INT, 16));
        if (Libc.bind(st, fd, ll, PacketSys.SOCKADDR_LL) < 0) { // protocol 0: send only, receive nothing
            throw new IOException(ifName + ": bind: " + Errno.describe(Libc.errno(st)));
        }
    }

    void send(byte[] frame) throws IOException {
        MemorySegment.copy(frame, 0, buf, ValueLayout.JAVA_BYTE, 0, frame.length);
        long rc = Libc.sendto(st, fd, buf, frame.length, 0, MemorySegment.NULL, 0);
        if (rc != frame.length) {
            throw new IOException(ifName + ": sendto of " + frame.length + " bytes returned " + rc + ": "
                    + Errno.describe(Libc.errno(st)));
        }
    }

    @Override
    public void close() {
        Libc.close(st, fd);
        arena.close();
    }
}
