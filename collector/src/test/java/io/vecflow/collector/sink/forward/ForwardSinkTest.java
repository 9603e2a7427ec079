package io.vecflow.collector.sink.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.Captures;
import io.vecflow.collector.TestSupport;
import java.lang.management.ManagementFactory;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@link ForwardSink}: the real captures' datagrams reach plain UDP receivers on 127.0.0.1 and ::1 byte for byte,
 * counters are exact, a refusing target is counted (not thrown), target text errors name the entry, and the send path
 * allocates nothing.
 */
class ForwardSinkTest {
    private static final byte[] PEER = new byte[16];

    /** Every datagram of every bundled capture, in order. */
    private static List<byte[]> captures() throws Exception {
        List<byte[]> out = new ArrayList<>();
        for (String c : Captures.all()) {
            out.addAll(Captures.udpPayloads(c));
        }
        return out;
    }

    /** A UDP socket whose thread keeps every datagram it receives, until closed. */
    static final class Receiver implements AutoCloseable {
        final DatagramSocket socket;
        final List<byte[]> got = new CopyOnWriteArrayList<>();
        final Thread thread;
        final String host;

        /** @param host address text, e.g. 127.0.0.1 or ::1 */
        Receiver(String host) throws Exception {
            this.host = host;
            socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(host), 0));
            socket.setReceiveBufferSize(4 << 20);
            socket.setSoTimeout(100);
            thread = Thread.ofPlatform().daemon().start(() -> {
                byte[] buf = new byte[65536];
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                while (!socket.isClosed()) {
                    try {
                        p.setLength(buf.length);
                        socket.receive(p);
                        got.add(Arrays.copyOfRange(buf, 0, p.getLength()));
                    } catch (SocketTimeoutException e) {
                        // poll the closed flag
                    } catch (Exception e) {
                        return;
                    }
                }
            });
        }

        String target() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + socket.getLocalPort();
        }

        void awaitCount(int n) {
            TestSupport.await(n + " datagrams at " + target(), java.time.Duration.ofSeconds(10),
                    () -> got.size() >= n, () -> "(got " + got.size() + ")");
        }

        @Override
        public void close() {
            socket.close();
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void capturesArriveUnchangedAtIpv4AndIpv6ReceiversWithExactCounters() throws Exception {
        List<byte[]> datagrams = captures();
        long totalBytes = datagrams.stream().mapToLong(d -> d.length).sum();
        try (Receiver v4 = new Receiver("127.0.0.1");
                Receiver v6 = new Receiver("::1");
                ForwardSink f = new ForwardSink(List.of(v4.target(), " " + v6.target() + " "))) {
            assertThat(v6.target()).startsWith("[::1]:");
            byte[] buf = new byte[70_000];
            int sent = 0;
            for (byte[] d : datagrams) {
                // At an offset inside a dirty buffer, as the inlet hands it over.
                Arrays.fill(buf, (byte) 0x5A);
                System.arraycopy(d, 0, buf, 7, d.length);
                f.accept(buf, 7, d.length, 1L, PEER, 6343);
                sent++;
                if (sent % 32 == 0) { // keep the receivers' socket buffers from overflowing
                    v4.awaitCount(sent);
                    v6.awaitCount(sent);
                }
            }
            v4.awaitCount(datagrams.size());
            v6.awaitCount(datagrams.size());
            Thread.sleep(100); // nothing more arrives
            for (Receiver r : List.of(v4, v6)) {
                assertThat(r.got).hasSize(datagrams.size());
                for (int i = 0; i < datagrams.size(); i++) {
                    assertThat(r.got.get(i)).as(r.target() + " datagram " + i).isEqualTo(datagrams.get(i));
                }
            }
            assertThat(f.targets()).containsExactly(
                    new ForwardSink.TargetStats(v4.target(), new InetSocketAddress("127.0.0.1", v4.socket
                            .getLocalPort()), datagrams.size(), totalBytes, 0, null),
                    new ForwardSink.TargetStats(v6.target(), new InetSocketAddress("::1", v6.socket
                            .getLocalPort()), datagrams.size(), totalBytes, 0, null));
            assertThat(f.written()).isEqualTo(2L * datagrams.size());
            assertThat(f.failed()).isZero();
            assertThat(f.name()).isEqualTo("forward:" + v4.target() + "," + v6.target());
            assertThatThrownBy(() -> f.targets().clear()).isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Test
    void refusingTargetIsCountedAsDroppedAndTheOtherTargetGetsEverything() throws Exception {
        int closed;
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        try (Receiver live = new Receiver("127.0.0.1");
                ForwardSink f = new ForwardSink(List.of("127.0.0.1:" + closed, live.target()))) {
            byte[] d = {0, 0, 0, 5, 1, 2, 3, 4, 5};
            for (int i = 0; i < 10; i++) {
                f.accept(d, 0, d.length, 1L, PEER, 6343); // must not throw
                Thread.sleep(30); // the ICMP port unreachable comes back before the next send
            }
            live.awaitCount(10);
            ForwardSink.TargetStats refused = f.targets().get(0);
            ForwardSink.TargetStats ok = f.targets().get(1);
            // Linux: the ICMP answer to datagram 1 fails send 2 (which is not sent), datagram 3 goes out, and so on.
            assertThat(refused.datagramsSent()).isEqualTo(5);
            assertThat(refused.bytesSent()).isEqualTo(5 * 9);
            assertThat(refused.datagramsDropped()).isEqualTo(5);
            assertThat(refused.lastError()).contains("PortUnreachableException");
            assertThat(ok.datagramsSent()).isEqualTo(10);
            assertThat(ok.bytesSent()).isEqualTo(90);
            assertThat(ok.datagramsDropped()).isZero();
            assertThat(ok.lastError()).isNull();
            assertThat(f.written()).isEqualTo(15);
            assertThat(f.failed()).isEqualTo(5);
        }
    }

    @Test
    void oversizedAndAfterCloseAreDroppedNotThrown() throws Exception {
        try (Receiver r = new Receiver("127.0.0.1")) {
            ForwardSink f = new ForwardSink(List.of(r.target()));
            byte[] big = new byte[ForwardSink.MAX_PAYLOAD_BYTES + 1];
            f.accept(big, 0, big.length, 1L, PEER, 6343);
            f.accept(big, 0, ForwardSink.MAX_PAYLOAD_BYTES, 1L, PEER, 6343); // the largest that fits
            r.awaitCount(1);
            f.close();
            f.accept(big, 0, 10, 1L, PEER, 6343);
            ForwardSink.TargetStats t = f.targets().getFirst();
            assertThat(t.datagramsSent()).isEqualTo(1);
            assertThat(t.bytesSent()).isEqualTo(ForwardSink.MAX_PAYLOAD_BYTES);
            assertThat(t.datagramsDropped()).isEqualTo(2);
            assertThat(t.lastError()).contains("ClosedChannelException");
            assertThat(r.got.getFirst()).hasSize(ForwardSink.MAX_PAYLOAD_BYTES);
        }
    }

    @Test
    void concurrentSendersKeepTheirDatagramsWholeAndCountsExact() throws Exception {
        try (Receiver r = new Receiver("127.0.0.1");
                ForwardSink f = new ForwardSink(List.of(r.target()))) {
            int perThread = 300;
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                byte fill = (byte) (t + 1);
                threads.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < perThread; i++) {
                        byte[] d = new byte[100 + fill * 50];
                        Arrays.fill(d, fill);
                        d[0] = (byte) i;
                        f.accept(d, 0, d.length, 1L, PEER, 6343);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join(10_000);
            }
            r.awaitCount(2 * perThread);
            ForwardSink.TargetStats t = f.targets().getFirst();
            assertThat(t.datagramsSent()).isEqualTo(2 * perThread);
            assertThat(t.bytesSent()).isEqualTo(perThread * 150L + perThread * 200L);
            assertThat(t.datagramsDropped()).isZero();
            int[] next = new int[3];
            for (byte[] d : r.got) {
                int who = d[1];
                assertThat(d).hasSize(100 + who * 50);
                assertThat(d[0]).isEqualTo((byte) next[who]++); // each sender's datagrams in its order
                for (int i = 1; i < d.length; i++) {
                    assertThat(d[i]).isEqualTo((byte) who);
                }
            }
            assertThat(next[1]).isEqualTo(perThread);
            assertThat(next[2]).isEqualTo(perThread);
        }
    }

    @Test
    void sendPathAllocatesNothingPerDatagram() throws Exception {
        byte[][] datagrams = captures().toArray(byte[][]::new); // indexed below: no iterator per pass
        int perRound = 50 * datagrams.length;
        try (DatagramSocket a = new DatagramSocket(0, InetAddress.getLoopbackAddress());
                DatagramSocket b = new DatagramSocket(new InetSocketAddress("::1", 0));
                ForwardSink f = new ForwardSink(List.of("127.0.0.1:" + a.getLocalPort(), "[::1]:"
                        + b.getLocalPort()))) {
            // Nobody reads: the receivers' buffers fill and the kernel drops there, which costs the sender nothing.
            Runnable round = () -> {
                for (int i = 0; i < 50; i++) {
                    for (int j = 0; j < datagrams.length; j++) {
                        f.accept(datagrams[j], 0, datagrams[j].length, 1L, PEER, 6343);
                    }
                }
            };
            int rounds = 0;
            for (; rounds < 8; rounds++) {
                round.run();
            }
            long best = Long.MAX_VALUE;
            for (int i = 0; i < 5; i++, rounds++) {
                long before = allocated();
                round.run();
                best = Math.min(best, allocated() - before);
            }
            System.out.printf("forward send path: %d B allocated for %d datagrams to 2 targets%n", best, perRound);
            // Reading the allocation counter costs up to ~800 bytes; one 16-byte object per datagram would be 54 KB.
            assertThat(best).as("bytes allocated forwarding %d datagrams to 2 targets", perRound).isLessThan(1024);
            assertThat(f.failed()).isZero();
            assertThat(f.written()).isEqualTo(2L * rounds * perRound);
        }
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().threadId());
    }

    @Test
    void targetsParse() {
        assertThat(ForwardSink.parseTarget("127.0.0.1:6343"))
                .isEqualTo(new InetSocketAddress(InetAddress.getLoopbackAddress(), 6343));
        assertThat(ForwardSink.parseTarget(" [::1]:9995 ")).isEqualTo(new InetSocketAddress("::1", 9995));
        assertThat(ForwardSink.parseTarget("localhost:1").getAddress().isLoopbackAddress()).isTrue();
        assertThat(ForwardSink.parseTarget("[2001:db8::1]:65535")).isEqualTo(
                new InetSocketAddress("2001:db8::1", 65535));
    }

    @Test
    void badTargetsAreNamed() {
        String[][] cases = {
            {"", "empty forward target"},
            {"   ", "empty forward target"},
            {"127.0.0.1", "'127.0.0.1': missing port, write 127.0.0.1:6343"},
            {"127.0.0.1:", "'127.0.0.1:': missing port after ':'"},
            {":6343", "':6343': empty host"},
            {"[]:6343", "'[]:6343': empty host"},
            {"[::1]", "'[::1]': missing port"},
            {"[::1]6343", "'[::1]6343': expected ':port' after ']'"},
            {"[::1:6343", "missing ']'"},
            {"::1:6343", "'::1:6343': an IPv6 address goes in brackets"},
            {"[zz::1]:6343", "'zz::1' is not an IPv6 address"},
            {"[127.0.0.1]:6343", "'127.0.0.1' is not an IPv6 address"},
            {"127.0.0.1:0", "port 0 is out of range 1..65535"},
            {"127.0.0.1:65536", "port 65536 is out of range 1..65535"},
            {"127.0.0.1:123456", "port '123456' is not a number 1..65535"},
            {"127.0.0.1:-1", "port '-1' is not a number"},
            {"127.0.0.1:63 43", "port '63 43' is not a number"},
            {"no host.invalid:6343", "'no host.invalid' is not a host name or IPv4 address"},
            {"nonexistent.invalid:6343", "host 'nonexistent.invalid' does not resolve"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> ForwardSink.parseTarget(c[0])).as(c[0])
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(c[1]);
        }
        assertThatThrownBy(() -> ForwardSink.parseTarget(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void badTargetListsAreNamed() {
        assertThatThrownBy(() -> new ForwardSink(List.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one target");
        assertThatThrownBy(() -> new ForwardSink(List.of("127.0.0.1:6343", "127.0.0.1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("forward target 2: forward target '127.0.0.1': missing port, write 127.0.0.1:6343");
        assertThatThrownBy(() -> new ForwardSink(List.of("127.0.0.1:6343", "[::1]:6343", "127.0.0.1:6343")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("forward target 3 (127.0.0.1:6343) repeats an earlier target");
        assertThatThrownBy(() -> ForwardSink.toAddresses(List.of(InetSocketAddress.createUnresolved("x", 1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("forward target 1");
    }

    @Test
    void addressesGetCanonicalLabels() throws Exception {
        try (ForwardSink f = ForwardSink.toAddresses(List.of(new InetSocketAddress("127.0.0.1", 6343),
                new InetSocketAddress("::1", 6343)))) {
            assertThat(f.targets()).extracting(ForwardSink.TargetStats::target)
                    .containsExactly("127.0.0.1:6343", "[::1]:6343");
        }
    }
}
