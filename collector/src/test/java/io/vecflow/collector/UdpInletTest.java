package io.vecflow.collector;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.epoll.Epoll;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The inlet on a real UDP socket on 127.0.0.1: with batched reads (recvmmsg) a datagram longer than
 * {@code maxDatagramBytes} arrives cut by the kernel; it must be detected, counted and dropped before any sink sees
 * it, while datagrams up to the limit pass whole. With one datagram per read, any size passes whole.
 */
class UdpInletTest {
    /** Keeps a copy of every datagram handed to the raw sinks. */
    static final class Keep implements RawSink {
        final List<byte[]> seen = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void accept(byte[] data, int off, int len, long receivedNanos, byte[] peer16, int peerPort) {
            seen.add(Arrays.copyOfRange(data, off, off + len));
        }

        @Override
        public void flush() {}

        @Override
        public long written() {
            return seen.size();
        }

        @Override
        public long failed() {
            return 0;
        }

        @Override
        public String name() {
            return "keep";
        }

        @Override
        public void close() {}
    }

    private static byte[] payload(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 7 + n);
        }
        return b;
    }

    /** Sends datagrams of the given sizes to the inlet and waits (at most 10 s) until each is received or dropped. */
    private static void send(UdpInlet inlet, CollectorStats stats, int... sizes) throws Exception {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            for (int n : sizes) {
                byte[] p = payload(n);
                s.send(new DatagramPacket(p, n, InetAddress.getLoopbackAddress(), inlet.localAddress().getPort()));
            }
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (stats.datagramsReceived.sum() + stats.datagramsTruncated.sum() < sizes.length
                && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    @Test
    void aDatagramLongerThanTheLimitIsCountedAndDroppedNotCut() throws Exception {
        assertThat(Epoll.isAvailable()).as("epoll (batched reads) is what this test is about").isTrue();
        CollectorStats stats = new CollectorStats();
        Keep keep = new Keep();
        try (UdpInlet inlet = new UdpInlet(new InetSocketAddress("127.0.0.1", 0), 1, 1 << 20, 1500, 64,
                stats.datagramsTruncated, () -> new DatagramProcessor(stats.decode, stats, List.of(keep), List.of()))) {
            send(inlet, stats, 1500, 1501, 4000, 100);
            assertThat(stats.datagramsTruncated.sum()).isEqualTo(2);
            assertThat(inlet.truncatedDatagrams()).isEqualTo(2);
            assertThat(stats.datagramsReceived.sum()).isEqualTo(2);
            assertThat(keep.seen).hasSize(2);
            assertThat(keep.seen.get(0)).as("a datagram of exactly the limit passes whole").isEqualTo(payload(1500));
            assertThat(keep.seen.get(1)).isEqualTo(payload(100));
        }
    }

    @Test
    void oneDatagramPerReadTakesAnySizeWhole() throws Exception {
        CollectorStats stats = new CollectorStats();
        Keep keep = new Keep();
        try (UdpInlet inlet = new UdpInlet(new InetSocketAddress("127.0.0.1", 0), 1, 1 << 20, 1500, 1,
                stats.datagramsTruncated, () -> new DatagramProcessor(stats.decode, stats, List.of(keep), List.of()))) {
            send(inlet, stats, 4000, 1501);
            assertThat(stats.datagramsTruncated.sum()).isZero();
            assertThat(keep.seen).hasSize(2);
            assertThat(keep.seen.get(0)).isEqualTo(payload(4000));
            assertThat(keep.seen.get(1)).isEqualTo(payload(1501));
        }
    }
}
