package io.vecflow.netlink.vpp;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkSocket;
import io.vecflow.netlink.TestBytes;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * VppUsersockEmitter live as root on a private USERSOCK group: sendIfCounters / sendStatus put VPP's exact bytes on
 * the wire (golden vectors of VppIfCountersTest / VppStatusTest) with one channel SEQ shared by both types, starting
 * at 1 (VPP's pre-incremented {@code unixsock_seq}); per-type counters; no allocation per message.
 */
class VppUsersockEmitterTest {
    private static final int GROUP = 26;

    private static byte[] receiveFrom(NetlinkSocket raw, MemorySegment buf, int pid) throws Exception {
        long deadline = System.nanoTime() + 3_000_000_000L;
        while (System.nanoTime() < deadline) {
            int n = raw.receive(buf);
            if (n >= 16 && buf.get(ValueLayout.JAVA_INT_UNALIGNED, 12) == pid) {
                return TestBytes.toArray(buf, n);
            }
        }
        throw new AssertionError("no datagram with nlmsg_pid " + pid + " within 3 s");
    }

    @Test
    void sharedChannelSeqAndVppBytesOnTheWire() throws Exception {
        try (Arena arena = Arena.ofConfined();
             NetlinkSocket raw = NetlinkSocket.open(Netlink.NETLINK_USERSOCK);
             VppUsersockEmitter em = VppUsersockEmitter.open(GROUP)) {
            raw.bind(0, 0);
            raw.joinGroup(GROUP);
            raw.setReceiveTimeout(Duration.ofMillis(200));
            int pid = em.nlmsgPid();
            assertThat(pid).isEqualTo((int) ProcessHandle.current().pid());
            MemorySegment buf = arena.allocate(8192);

            VppIfCounters c = VppIfCountersTest.goldenHolder(5, 999);
            assertThat(em.sendIfCounters(c)).isTrue();                  // channel SEQ 1, nlmsg_seq 1
            assertThat(c.seq()).isEqualTo(1);
            assertThat(receiveFrom(raw, buf, pid)).containsExactly(VppIfCountersTest.golden(1, pid, 5, 1));

            assertThat(em.sendStatus(3600, 17)).isTrue();               // channel SEQ 2, nlmsg_seq 2
            byte[] st = receiveFrom(raw, buf, pid);
            byte[] want = VppStatusTest.goldenStatus(2, pid);
            want[want.length - 4] = 2; // SEQ attribute value 2 (the golden has 123456)
            want[want.length - 3] = 0;
            want[want.length - 2] = 0;
            assertThat(st).containsExactly(want);

            assertThat(em.sendIfCounters(VppIfCountersTest.goldenHolder(-1, 0))).isTrue(); // SEQ 3, no OSINDEX
            assertThat(receiveFrom(raw, buf, pid)).containsExactly(VppIfCountersTest.golden(3, pid, -1, 3));
            assertThat(em.channelSeq()).isEqualTo(3);
            assertThat(em.ifCountersSent()).isEqualTo(2);
            assertThat(em.statusSent()).isEqualTo(1);
            assertThat(em.sent()).isEqualTo(3);
            assertThat(em.ifCountersFailed() + em.statusFailed() + em.sendFailed()).isZero();
        }
    }

    @Test
    void sendsAllocateNothingPerMessage() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        try (VppUsersockEmitter em = VppUsersockEmitter.open(GROUP)) {
            VppIfCounters c = VppIfCountersTest.goldenHolder(5, 0);
            int n = 20_000;
            long best = Long.MAX_VALUE;
            for (int round = 0; round < 15 && best >= 1024; round++) {
                long before = mx.getThreadAllocatedBytes(tid);
                for (int i = 0; i < n; i++) {
                    c.counter(VppUsersock.ATTR_RX_OCTETS, i);
                    em.sendIfCounters(c);
                    em.sendStatus(i, i);
                }
                long allocated = mx.getThreadAllocatedBytes(tid) - before;
                System.out.printf("VPP USERSOCK allocation round %d: %d bytes for %d × 2 messages%n", round,
                        allocated, n);
                best = Math.min(best, allocated);
            }
            assertThat(em.sendFailed()).isZero();
            // a per-message allocation would be ≥ 16 B × 40,000; allow the measuring calls' own few bytes
            assertThat(best).as("bytes allocated by the best round of %d × 2 messages", n).isLessThan(1024);
        }
    }
}
