package io.vecflow.collector.inlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.epoll.Epoll;
import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.sink.RawSink;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
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
    /**
     * An inlet started while datagrams already arrive (a restart under load), with two SO_REUSEPORT sockets: what
     * the first socket queued before the second was bound is older than what the kernel then moves to the second,
     * so each source's datagrams must still reach the sinks in the order sent — even when the first socket's thread
     * is slow with its first datagram (class loading, opening the spool). The fault matrix's inlet kill found an
     * agent's first datagrams after the restart reordered (counted lost and late by the loss accounting).
     */
    @Test
    void startingUnderLoadKeepsEachSourcesOrderAcrossTheSockets() throws Exception {
        assertThat(Epoll.isAvailable()).as("epoll (SO_REUSEPORT sockets) is what this test is about").isTrue();
        int port;
        try (DatagramSocket probe = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        int sources = 16;
        long[] sent = new long[sources];
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread sender = new Thread(() -> {
            DatagramSocket[] socks = new DatagramSocket[sources];
            try {
                for (int i = 0; i < sources; i++) {
                    socks[i] = new DatagramSocket(0, InetAddress.getLoopbackAddress());
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!stop.get() && System.nanoTime() < deadline) {
                    for (int i = 0; i < sources; i++) {
                        byte[] p = java.nio.ByteBuffer.allocate(8).putInt(i).putInt((int) ++sent[i]).array();
                        socks[i].send(new DatagramPacket(p, 8, InetAddress.getLoopbackAddress(), port));
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(100_000);
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            } finally {
                for (DatagramSocket d : socks) {
                    if (d != null) {
                        d.close();
                    }
                }
            }
        }, "udp-order-sender");
        sender.start();
        Thread.sleep(100); // datagrams already flow (to a closed port) when the inlet binds
        CollectorStats stats = new CollectorStats();
        Keep keep = new Keep();
        AtomicInteger made = new AtomicInteger();
        Supplier<DatagramProcessor> processors = () -> {
            RawSink sink = keep;
            if (made.getAndIncrement() == 0) {
                // The first socket's thread: slow with its first datagram.
                sink = new RawSink() {
                    boolean first = true;

                    @Override
                    public void accept(byte[] data, int off, int len, long receivedNanos, byte[] peer16,
                            int peerPort) {
                        if (first) {
                            first = false;
                            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                        }
                        keep.accept(data, off, len, receivedNanos, peer16, peerPort);
                    }

                    @Override public void flush() {}
                    @Override public long written() { return 0; }
                    @Override public long failed() { return 0; }
                    @Override public String name() { return "slow-first"; }
                    @Override public void close() {}
                };
            }
            return new DatagramProcessor(stats.decode, stats, List.of(sink), List.of());
        };
        try (UdpInlet inlet = new UdpInlet(new InetSocketAddress("127.0.0.1", port), 2, 1 << 20, 1500, 64,
                stats.datagramsTruncated, processors)) {
            Thread.sleep(500);
        } finally {
            stop.set(true);
            sender.join(10_000);
        }
        long[] last = new long[sources];
        int backwards = 0;
        List<byte[]> seen;
        synchronized (keep.seen) {
            seen = new ArrayList<>(keep.seen);
        }
        for (byte[] d : seen) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(d);
            int src = b.getInt();
            long seq = b.getInt() & 0xFFFFFFFFL;
            if (seq < last[src]) {
                backwards++;
            }
            last[src] = Math.max(last[src], seq);
        }
        System.out.printf("%d datagrams from %d sources received, %d went back in their source's sequence%n",
                seen.size(), sources, backwards);
        assertThat(seen.size()).as("datagrams received").isGreaterThan(1000);
        assertThat(backwards).as("datagrams behind an earlier one of their source").isZero();
    }
}
