package io.vecflow.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.common.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Real AF_NETLINK sockets: binding, port ids, unicast, timeouts, errno reporting, overruns. */
class NetlinkSocketTest {

    @Test
    void unicastRoundTripBetweenTwoUsersockSockets() throws Exception {
        try (Arena arena = Arena.ofConfined();
             NetlinkSocket rx = NetlinkSocket.open(Netlink.NETLINK_USERSOCK);
             NetlinkSocket tx = NetlinkSocket.open(Netlink.NETLINK_USERSOCK)) {
            rx.bind(0, 0);
            tx.bind(0, 0);
            int rxPid = rx.portId();
            assertThat(rxPid).isNotZero();
            assertThat(tx.portId()).isNotZero().isNotEqualTo(rxPid);

            MemorySegment msg = arena.allocate(64);
            NetlinkWriter w = new NetlinkWriter(msg);
            w.beginMessage(0x33, 0, 99, tx.portId()).putU32(1, 0xCAFEBABE);
            int len = w.end();
            assertThat(tx.send(msg, len, rxPid, 0)).isEqualTo(len);

            MemorySegment buf = arena.allocate(4096);
            rx.setReceiveTimeout(Duration.ofSeconds(2));
            int n = rx.receive(buf);
            assertThat(n).isEqualTo(len);
            assertThat(TestBytes.toArray(buf, n)).containsExactly(TestBytes.toArray(msg, len));
        }
    }

    @Test
    void datagramLongerThanTheBufferIsCutAndCounted() throws Exception {
        try (Arena arena = Arena.ofConfined();
             NetlinkSocket rx = NetlinkSocket.open(Netlink.NETLINK_USERSOCK);
             NetlinkSocket tx = NetlinkSocket.open(Netlink.NETLINK_USERSOCK)) {
            rx.bind(0, 0);
            MemorySegment msg = arena.allocate(256);
            NetlinkWriter w = new NetlinkWriter(msg);
            w.beginMessage(0x33, 0, 1, 0).putBytes(1, new byte[180], 0, 180);
            int len = w.end();
            tx.send(msg, len, rx.portId(), 0);
            rx.setReceiveTimeout(Duration.ofSeconds(1));
            MemorySegment small = arena.allocate(64);
            assertThat(rx.receive(small)).isEqualTo(64);
            assertThat(rx.truncatedDatagrams()).isEqualTo(1);
            NetlinkReader r = new NetlinkReader().reset(small, 64);
            assertThatThrownBy(r::next).hasMessageContaining("nlmsg_len at offset 0: value " + len);
        }
    }

    @Test
    void receiveTimeoutReturnsZero() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetlinkSocket rx = NetlinkSocket.open(Netlink.NETLINK_USERSOCK)) {
            rx.bind(0, 0);
            rx.setReceiveTimeout(Duration.ofMillis(50));
            long t0 = System.nanoTime();
            assertThat(rx.receive(arena.allocate(1024))).isZero();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(ms).isBetween(30L, 2000L);
            assertThat(rx.receive(arena.allocate(1024), Netlink.MSG_DONTWAIT)).isZero();
            assertThat(rx.tryReceive(arena.allocate(1024), Duration.ZERO)).isZero();
        }
    }

    @Test
    void unicastToNobodyReportsEconnrefusedWithCallAndHint() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetlinkSocket tx = NetlinkSocket.open(Netlink.NETLINK_USERSOCK)) {
            tx.bind(0, 0);
            MemorySegment msg = arena.allocate(16);
            new NetlinkWriter(msg).beginMessage(0x33, 0, 1, 0).end();
            int nobody = 0x7EAD_BEEF;
            assertThatThrownBy(() -> tx.send(msg, 16, nobody, 0))
                    .isInstanceOfSatisfying(NetlinkException.class, e -> {
                        assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED);
                        assertThat(e.call()).startsWith("sendto(NETLINK_USERSOCK, 16 bytes, pid=" + nobody);
                    })
                    .hasMessageContaining("ECONNREFUSED (Connection refused)")
                    .hasMessageContaining("no socket is bound to netlink port id " + nobody);
            assertThat(tx.trySend(msg, 16, nobody, 0, 0)).isEqualTo(-Errno.ECONNREFUSED);
            // multicast with nobody at pid 0: ECONNREFUSED counts as sent
            assertThat(tx.send(msg, 16, 0, Netlink.groupMask(28))).isEqualTo(16);
        }
    }

    @Test
    void bindingATakenPortIdIsEaddrinuse() throws Exception {
        try (NetlinkSocket a = NetlinkSocket.open(Netlink.NETLINK_USERSOCK);
             NetlinkSocket b = NetlinkSocket.open(Netlink.NETLINK_USERSOCK)) {
            a.bind(0, 0);
            int pid = a.portId();
            assertThatThrownBy(() -> b.bind(pid, 0))
                    .isInstanceOf(NetlinkException.class)
                    .hasMessageContaining("bind(NETLINK_USERSOCK, pid=" + Integer.toUnsignedString(pid))
                    .hasMessageContaining("EADDRINUSE");
        }
    }

    @Test
    void closedSocketIsEbadf() throws Exception {
        NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_USERSOCK);
        s.close();
        s.close(); // idempotent
        assertThatThrownBy(s::portId).isInstanceOf(NetlinkException.class).hasMessageContaining("EBADF");
    }

    @Test
    void receiveBufferOverrunIsReportedAsEnobufsAndTheSocketKeepsWorking() throws Exception {
        int group = 23;
        try (Arena arena = Arena.ofConfined();
             NetlinkSocket rx = NetlinkSocket.open(Netlink.NETLINK_USERSOCK);
             NetlinkSocket tx = NetlinkSocket.open(Netlink.NETLINK_USERSOCK)) {
            rx.bind(0, 0);
            rx.joinGroup(group);
            rx.setReceiveBufferSize(4096); // tiny: the kernel floor is ~2 KB (doubled)
            assertThat(rx.receiveBufferSize()).isLessThan(16 * 1024);
            MemorySegment msg = arena.allocate(1024);
            NetlinkWriter w = new NetlinkWriter(msg);
            w.beginMessage(0x33, 0, 1, 0).putBytes(1, new byte[900], 0, 900);
            int len = w.end();
            for (int i = 0; i < 200; i++) {
                tx.send(msg, len, 0, Netlink.groupMask(group));
            }
            MemorySegment buf = arena.allocate(4096);
            rx.setReceiveTimeout(Duration.ofMillis(200));
            assertThatThrownBy(() -> rx.receive(buf))
                    .isInstanceOfSatisfying(NetlinkOverrunException.class,
                            e -> assertThat(e.errno()).isEqualTo(Errno.ENOBUFS))
                    .hasMessageContaining("ENOBUFS (No buffer space available)")
                    .hasMessageContaining("receive buffer overrun");
            assertThat(rx.receive(buf)).isEqualTo(len); // queued messages are still there
        }
    }

    @Test
    void eightMegabyteReceiveBufferIsGrantedToRoot() throws Exception {
        try (NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_USERSOCK)) {
            s.setReceiveBufferSize(8 * 1024 * 1024);
            assertThat(s.receiveBufferSize()).isGreaterThanOrEqualTo(8 * 1024 * 1024); // SO_RCVBUFFORCE, doubled
        }
    }
}
