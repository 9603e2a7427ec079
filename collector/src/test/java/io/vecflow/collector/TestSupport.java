package io.vecflow.collector;

import io.vecflow.collector.inlet.UdpInlet;
import io.vecflow.collector.metrics.CollectorMetrics;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.sink.FlowSink;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Shared test helpers: service locations, bounded waits, a UDP sender, a row-copying sink. */
public final class TestSupport {
    private TestSupport() {}

    public static final String CLICKHOUSE_ENV = "VECFLOW_TEST_CLICKHOUSE_URL";
    public static final String KAFKA_ENV = "VECFLOW_TEST_KAFKA";

    /** @return the test ClickHouse URL; fails loudly (never skips) when the variable is missing. */
    public static String clickhouseUrl() {
        return required(CLICKHOUSE_ENV);
    }

    /** @return the test Kafka bootstrap; fails loudly (never skips) when the variable is missing. */
    public static String kafkaBootstrap() {
        return required(KAFKA_ENV);
    }

    private static String required(String name) {
        String v = System.getenv(name);
        if (v == null || v.isBlank()) {
            throw new AssertionError("set " + name + " — run scripts/test.sh, which starts the services");
        }
        return v.trim();
    }

    /** @return 8 random hex characters, for per-class database and topic names. */
    public static String suffix() {
        byte[] b = new byte[4];
        ThreadLocalRandom.current().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** Polls {@code cond} every 5 ms until true; fails after {@code max} (callers keep it at most 15 s). */
    public static void await(String what, Duration max, BooleanSupplier cond) {
        await(what, max, cond, () -> "");
    }

    /** As {@link #await(String, Duration, BooleanSupplier)}, with a state description for the failure message. */
    public static void await(String what, Duration max, BooleanSupplier cond, Supplier<String> state) {
        if (max.compareTo(Duration.ofSeconds(15)) > 0) {
            throw new IllegalArgumentException("waits are bounded to 15 s: " + max);
        }
        long deadline = System.nanoTime() + max.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + max.toMillis() + " ms waiting for " + what + " "
                        + state.get());
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }

    /** @return a TCP port on 127.0.0.1 that was free a moment ago (nothing listens on it). */
    public static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * A TCP relay on 127.0.0.1:{@code port} to a real server: tests stop it to make that server "go away" for the
     * code under test (connections cut, new ones refused) without touching the shared server, and start a new relay
     * on the same port for "it came back".
     */
    /** The collector's Prometheus text, as {@code /metrics} serves it (a metrics server on a free loopback port). */
    public static String scrape(Collector c) throws Exception {
        try (CollectorMetrics m = new CollectorMetrics(c, InetAddress.getLoopbackAddress(), 0)) {
            return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + m.port() + "/metrics")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        }
    }

    public static final class TcpRelay implements AutoCloseable {
        private final ServerSocket server;
        private final List<java.net.Socket> open = java.util.Collections.synchronizedList(new ArrayList<>());
        private final Thread acceptor;

        public TcpRelay(int port, String host, int targetPort) throws IOException {
            server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        java.net.Socket in = server.accept();
                        java.net.Socket out = new java.net.Socket(host, targetPort);
                        open.add(in);
                        open.add(out);
                        pump(in, out);
                        pump(out, in);
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "tcp-relay-" + port);
            acceptor.setDaemon(true);
            acceptor.start();
        }

        private static void pump(java.net.Socket from, java.net.Socket to) {
            Thread t = new Thread(() -> {
                byte[] b = new byte[65536];
                try {
                    int n;
                    while ((n = from.getInputStream().read(b)) > 0) {
                        to.getOutputStream().write(b, 0, n);
                    }
                } catch (IOException e) {
                    // closed
                } finally {
                    try {
                        from.close();
                        to.close();
                    } catch (IOException e) {
                        // closed
                    }
                }
            }, "tcp-relay-pump");
            t.setDaemon(true);
            t.start();
        }

        /** @return the relay's port. */
        int port() {
            return server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
            synchronized (open) {
                for (java.net.Socket s : open) {
                    s.close();
                }
                open.clear();
            }
        }
    }

    /** Sends UDP datagrams from one socket on 127.0.0.1 (so the kernel keeps them on one inlet socket, in order). */
    public static final class Sender implements AutoCloseable {
        private final DatagramSocket socket;
        private final InetSocketAddress target;

        public Sender(InetSocketAddress target) throws IOException {
            this.socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            this.target = target;
        }

        int localPort() {
            return socket.getLocalPort();
        }

        void send(byte[] payload) throws IOException {
            socket.send(new DatagramPacket(payload, payload.length, target));
        }

        /**
         * Sends each payload, at most {@code window} ahead of {@code received}, waiting (bounded) for the receiver to
         * catch up so the loopback socket buffer never overflows.
         */
        public void sendPaced(List<byte[]> payloads, int window, java.util.function.LongSupplier received)
                throws IOException {
            long base = received.getAsLong();
            int sent = 0;
            for (byte[] p : payloads) {
                if (sent - (received.getAsLong() - base) >= window) {
                    final int s = sent;
                    await("receiver to catch up with " + s + " datagrams", Duration.ofSeconds(15),
                            () -> s - (received.getAsLong() - base) < window,
                            () -> "(received " + (received.getAsLong() - base) + ")");
                }
                send(p);
                sent++;
            }
        }

        @Override
        public void close() {
            socket.close();
        }
    }

    /** A {@link FlowSink} that copies every row into a list. */
    public static class CopyingSink implements FlowSink {
        private final List<FlowRow> rows = new ArrayList<>();
        boolean closed;

        @Override
        public synchronized void accept(FlowRow row) {
            rows.add(copy(row));
        }

        public synchronized List<FlowRow> rows() {
            return List.copyOf(rows);
        }

        synchronized int size() {
            return rows.size();
        }

        @Override
        public void flush() {}

        @Override
        public synchronized long rowsWritten() {
            return rows.size();
        }

        @Override
        public long rowsFailed() {
            return 0;
        }

        @Override
        public String name() {
            return "copy";
        }

        @Override
        public synchronized void close() {
            closed = true;
        }
    }

    /** @return a deep copy of a row (the collector reuses its row objects). */
    public static FlowRow copy(FlowRow r) {
        return new FlowRow().copyFrom(r);
    }

    /** @return a 16-byte address as text (IPv4-mapped shown as a dotted quad, all-zero as ""). */
    public static String addr(byte[] a16) {
        return io.vecflow.common.IpAddresses.toString(a16, 0, 16);
    }

    /** @return a 16-byte address from text (IPv4 mapped to ::ffff:a.b.c.d). */
    public static byte[] addr16(String text) {
        try {
            byte[] out = new byte[16];
            UdpInlet.mapped(InetAddress.getByName(text), out);
            return out;
        } catch (IOException e) {
            throw new IllegalArgumentException(text, e);
        }
    }
}
