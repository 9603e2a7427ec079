package io.vecflow.lab.kernel;

import io.vecflow.common.Libc;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteOrder;

/**
 * Sends whole Ethernet frames out of one network device with an AF_PACKET raw socket ({@code packet(7)}), through
 * {@code java.lang.foreign} and psample-bridge's {@link Libc} handles. The frame goes out unchanged (no padding, no
 * checksum fix-up); on a veth it arrives at the peer's ingress, where tc and the IP stack see it.
 *
 * <p>{@code socket(AF_PACKET, SOCK_RAW, 0)} (protocol 0: the socket receives nothing), {@code sendto} with a 20-byte
 * {@code sockaddr_ll} (Linux {@code include/uapi/linux/if_packet.h}: u16 family, be16 protocol, s32 ifindex, u16
 * hatype, u8 pkttype, u8 halen, u8 addr[8]); sll_protocol is the frame's own ethertype. Needs CAP_NET_RAW.
 * Single-threaded; {@link #send} allocates nothing.
 */
public final class PacketSender implements AutoCloseable {
    private static final int AF_PACKET = 17;
    private static final int SOCK_RAW = 3;
    private static final int SOCKADDR_LL_BYTES = 20;
    /** Largest frame accepted, bytes (the device MTU still applies: EMSGSIZE above MTU + 14). */
    public static final int MAX_FRAME = 65_536;
    private static final MethodHandle IF_NAMETOINDEX =
            Libc.downcall("if_nametoindex", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment state = Libc.newCallState(arena);
    private final MemorySegment addr = arena.allocate(SOCKADDR_LL_BYTES, 4);
    private final MemorySegment frame = arena.allocate(MAX_FRAME, 8);
    private final int fd;
    private final int ifindex;
    private long sent;

    /**
     * @param device interface name, e.g. {@code "vflab0a"}
     * @throws IllegalStateException the device does not exist or the socket cannot be opened (errno named; EPERM
     *         without CAP_NET_RAW)
     */
    public PacketSender(String device) {
        try {
            int idx;
            try {
                idx = (int) IF_NAMETOINDEX.invokeExact(state, arena.allocateFrom(device));
            } catch (Throwable t) {
                throw Libc.rethrow(t);
            }
            if (idx == 0) {
                throw new IllegalStateException("if_nametoindex(" + device + "): errno " + Libc.errno(state));
            }
            ifindex = idx;
            fd = Libc.socket(state, AF_PACKET, SOCK_RAW, 0);
            if (fd < 0) {
                throw new IllegalStateException("socket(AF_PACKET, SOCK_RAW): errno " + Libc.errno(state));
            }
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
        addr.set(ValueLayout.JAVA_SHORT, 0, (short) AF_PACKET);
        addr.set(ValueLayout.JAVA_INT, 4, ifindex);
    }

    /** @return the device's ifindex. */
    public int ifindex() {
        return ifindex;
    }

    /** @return frames sent. */
    public long sent() {
        return sent;
    }

    /**
     * Sends one frame (destination MAC first).
     *
     * @param data frame bytes, at least 14 (an Ethernet header)
     * @throws IllegalArgumentException shorter than 14 or longer than {@link #MAX_FRAME} bytes
     * @throws IllegalStateException sendto failed or sent fewer bytes (errno named)
     */
    public void send(byte[] data, int off, int len) {
        if (len < 14 || len > MAX_FRAME) {
            throw new IllegalArgumentException("frame of " + len + " bytes: need 14.." + MAX_FRAME);
        }
        MemorySegment.copy(data, off, frame, ValueLayout.JAVA_BYTE, 0, len);
        // sll_protocol = the frame's ethertype, already in network byte order at offset 12
        addr.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 2,
                (short) ((data[off + 12] & 0xFF) << 8 | data[off + 13] & 0xFF));
        long n = Libc.sendto(state, fd, frame, len, 0, addr, SOCKADDR_LL_BYTES);
        if (n != len) {
            throw new IllegalStateException("sendto(AF_PACKET, ifindex " + ifindex + ", " + len + " bytes) = " + n
                    + (n < 0 ? ", errno " + Libc.errno(state) : ""));
        }
        sent++;
    }

    @Override
    public void close() {
        Libc.close(state, fd);
        arena.close();
    }
}
