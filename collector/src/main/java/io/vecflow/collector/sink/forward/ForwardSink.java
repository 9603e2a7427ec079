package io.vecflow.collector.sink.forward;

import io.vecflow.collector.sink.RawSink;
import io.vecflow.common.IpAddresses;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-exports every raw datagram, byte for byte, to a list of UDP targets (another sFlow collector: nProbe/ntopng,
 * Akvorado, sfacctd, sflowtool, ...). The UDP payload is sent unchanged (sFlow v5, sflow.org/sflow_version_5.txt,
 * carries its agent address inside the datagram, so receivers attribute it to the original agent; the UDP source
 * address becomes this collector's).
 *
 * <p>One non-blocking {@link DatagramChannel} per target, connected to it, so that the kernel reports an ICMP port
 * unreachable from the target on a later send. The caller (an inlet thread) is never blocked: a send that fails
 * (error, ICMP-reported refusal, closed sink) or would block (socket send buffer full) is counted as a drop for that
 * target and the datagram is not retried. Because a refusal is only learnt from the ICMP answer to an earlier
 * datagram, a target with nothing listening typically alternates one datagram "sent" (left the host, lost there) and
 * one dropped. Targets are independent: a failing one does not affect the others.
 *
 * <p>The send path allocates nothing: each calling thread copies the payload once into its own direct buffer, which
 * is written to every target. Thread-safe: several inlet threads may call {@link #accept} at once.
 *
 * <p>Counters per target ({@link #targets()}): datagrams sent, UDP payload bytes sent, datagrams dropped.
 */
public final class ForwardSink implements RawSink {
    private static final Logger log = LoggerFactory.getLogger(ForwardSink.class);
    /** Largest UDP payload over IPv4 (65535 - 20 - 8), bytes; larger datagrams are dropped. */
    public static final int MAX_PAYLOAD_BYTES = 65507;
    private static final long LOG_INTERVAL_NANOS = 10_000_000_000L;

    /**
     * Counters of one target at one moment.
     *
     * @param target the target as configured, e.g. {@code 127.0.0.1:6343}, {@code [::1]:6343}, {@code host:6343}
     * @param address the resolved address datagrams go to
     * @param datagramsSent datagrams handed to the kernel whole
     * @param bytesSent UDP payload bytes of those datagrams (no IP/UDP headers)
     * @param datagramsDropped datagrams not sent: send error, ICMP-reported refusal, would block, too long, closed
     * @param lastError the last send error's text, or null if none
     */
    public record TargetStats(String target, InetSocketAddress address, long datagramsSent, long bytesSent,
            long datagramsDropped, String lastError) {}

    private static final class Target {
        final String label;
        final InetSocketAddress address;
        final DatagramChannel channel;
        final LongAdder sent = new LongAdder(), bytes = new LongAdder(), dropped = new LongAdder();
        volatile Exception lastError;
        final AtomicLong lastLog = new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS);

        Target(String label, InetSocketAddress address, DatagramChannel channel) {
            this.label = label;
            this.address = address;
            this.channel = channel;
        }
    }

    private final Target[] targets;
    private final String name;
    private final ThreadLocal<ByteBuffer> buffers =
            ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(MAX_PAYLOAD_BYTES));

    /**
     * Opens one connected, non-blocking UDP channel per target.
     *
     * @param targets at least one target, each as {@link #parseTarget(String)} reads it ({@code host:port},
     *     {@code a.b.c.d:port}, {@code [v6]:port})
     * @throws IllegalArgumentException if the list is empty, an entry does not parse or resolve, or two entries name
     * the     same address and port; the message names the entry and its position (1-based)
     * @throws IOException if a channel cannot be opened or connected (the message names the target); channels already
     *     opened are closed
     */
    public ForwardSink(List<String> targets) throws IOException {
        this(parseAll(targets), targets.stream().map(String::trim).toList());
    }

    /**
     * Opens one connected, non-blocking UDP channel per resolved target address.
     *
     * @param addresses at least one resolved address with a port 1..65535
     * @return the sink; target labels are {@code a.b.c.d:port} or {@code [v6]:port}
     * @throws IllegalArgumentException if the list is empty, an address is unresolved or has port 0, or two are equal
     * @throws IOException if a channel cannot be opened or connected (the message names the target)
     */
    public static ForwardSink toAddresses(List<InetSocketAddress> addresses) throws IOException {
        List<String> labels = new ArrayList<>();
        for (int i = 0; i < addresses.size(); i++) {
            InetSocketAddress a = addresses.get(i);
            if (a == null || a.isUnresolved() || a.getPort() < 1) {
                throw new IllegalArgumentException("forward target " + (i + 1) + " (" + a + ") must be a resolved "
                        + "address with a port 1..65535");
            }
            labels.add(label(a));
        }
        return new ForwardSink(addresses, labels);
    }

    private ForwardSink(List<InetSocketAddress> addresses, List<String> labels) throws IOException {
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("forward needs at least one target (host:port)");
        }
        Set<InetSocketAddress> seen = new HashSet<>();
        for (int i = 0; i < addresses.size(); i++) {
            if (!seen.add(addresses.get(i))) {
                throw new IllegalArgumentException("forward target " + (i + 1) + " (" + labels.get(i)
                        + ") repeats an earlier target: each datagram would be sent to " + addresses.get(i)
                        + " twice");
            }
        }
        Target[] t = new Target[addresses.size()];
        try {
            for (int i = 0; i < t.length; i++) {
                InetSocketAddress a = addresses.get(i);
                DatagramChannel ch = DatagramChannel.open(a.getAddress() instanceof java.net.Inet6Address
                        ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
                try {
                    ch.configureBlocking(false);
                    ch.connect(a);
                } catch (IOException | RuntimeException e) {
                    ch.close();
                    throw new IOException("cannot open a UDP socket to forward target " + labels.get(i) + " (" + a
                            + "): " + e.getMessage(), e);
                }
                t[i] = new Target(labels.get(i), a, ch);
            }
        } catch (IOException | RuntimeException e) {
            for (Target x : t) {
                if (x != null) {
                    closeQuietly(x.channel);
                }
            }
            throw e;
        }
        this.targets = t;
        this.name = "forward:" + String.join(",", labels);
    }

    private static List<InetSocketAddress> parseAll(List<String> targets) {
        List<InetSocketAddress> out = new ArrayList<>(targets.size());
        for (int i = 0; i < targets.size(); i++) {
            try {
                out.add(parseTarget(targets.get(i)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("forward target " + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    /**
     * Reads one forward target: {@code host:port}, {@code a.b.c.d:port} or {@code [ipv6]:port} (IPv6 in brackets, as
     * in RFC 3986 URIs; a numeric zone index may follow {@code %}). Surrounding white space is ignored. A host name is
     * resolved now (first address).
     *
     * @param text the target
     * @return the resolved address
     * @throws IllegalArgumentException naming the entry, for: null or empty text, an empty host, a missing port, a port
     *     that is not a number in 1..65535, an unbracketed IPv6 address, a bad IPv6 literal, a name that does not
     *     resolve
     */
    public static InetSocketAddress parseTarget(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty forward target: expected host:port, a.b.c.d:port or [v6]:port");
        }
        String s = text.trim();
        String host;
        String port;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("forward target '" + s + "': missing ']' after the IPv6 address");
            }
            host = s.substring(1, close);
            String rest = s.substring(close + 1);
            if (rest.isEmpty()) {
                throw new IllegalArgumentException("forward target '" + s + "': missing port, write [" + host
                        + "]:6343");
            }
            if (rest.charAt(0) != ':') {
                throw new IllegalArgumentException("forward target '" + s + "': expected ':port' after ']'");
            }
            port = rest.substring(1);
            if (host.isEmpty()) {
                throw new IllegalArgumentException("forward target '" + s + "': empty host between [ and ]");
            }
        } else {
            int colon = s.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("forward target '" + s + "': missing port, write " + s + ":6343");
            }
            if (s.indexOf(':') != colon) {
                throw new IllegalArgumentException("forward target '" + s + "': an IPv6 address goes in brackets, "
                        + "e.g. [::1]:6343");
            }
            host = s.substring(0, colon);
            port = s.substring(colon + 1);
            if (host.isEmpty()) {
                throw new IllegalArgumentException("forward target '" + s + "': empty host before ':" + port + "'");
            }
        }
        int p = port(s, port);
        InetAddress a;
        if (s.startsWith("[")) {
            try {
                a = java.net.Inet6Address.ofLiteral(host);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("forward target '" + s + "': '" + host
                        + "' is not an IPv6 address", e);
            }
        } else {
            for (int i = 0; i < host.length(); i++) {
                char c = host.charAt(i);
                if (Character.isWhitespace(c) || c == '/' || c == '[' || c == ']' || c == '@') {
                    throw new IllegalArgumentException("forward target '" + s + "': '" + host
                            + "' is not a host name or IPv4 address");
                }
            }
            try {
                a = InetAddress.getByName(host);
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("forward target '" + s + "': host '" + host
                        + "' does not resolve", e);
            }
        }
        return new InetSocketAddress(a, p);
    }

    private static int port(String target, String port) {
        if (port.isEmpty()) {
            throw new IllegalArgumentException("forward target '" + target + "': missing port after ':'");
        }
        int v = 0;
        for (int i = 0; i < port.length(); i++) {
            char c = port.charAt(i);
            if (c < '0' || c > '9' || i >= 5) {
                throw new IllegalArgumentException("forward target '" + target + "': port '" + port
                        + "' is not a number 1..65535");
            }
            v = v * 10 + (c - '0');
        }
        if (v < 1 || v > 65535) {
            throw new IllegalArgumentException("forward target '" + target + "': port " + v + " is out of range "
                    + "1..65535");
        }
        return v;
    }

    private static String label(InetSocketAddress a) {
        byte[] b = a.getAddress().getAddress();
        String h = IpAddresses.toString(b, 0, b.length); // RFC 5952 text for IPv6
        return (b.length == 16 ? "[" + (h.isEmpty() ? "::" : h) + "]" : h) + ":" + a.getPort();
    }

    /**
     * Sends the payload to every target. Never blocks and never throws for a send problem: each target that cannot
     * take the datagram now counts a drop.
     *
     * @param data buffer
     * @param off payload offset
     * @param len payload length in bytes (over {@value #MAX_PAYLOAD_BYTES} it is dropped for every target)
     * @param receivedNanos unused
     * @param peer16 unused (receivers see this collector as the UDP source)
     * @param peerPort unused
     */
    @Override
    public void accept(byte[] data, int off, int len, long receivedNanos, byte[] peer16, int peerPort) {
        if (len < 0 || len > MAX_PAYLOAD_BYTES) {
            for (Target t : targets) {
                t.dropped.increment();
            }
            return;
        }
        ByteBuffer b = buffers.get();
        b.clear();
        b.put(data, off, len);
        for (int i = 0; i < targets.length; i++) {
            Target t = targets[i];
            b.limit(len).position(0);
            try {
                if (t.channel.write(b) == len) {
                    t.sent.increment();
                    t.bytes.add(len);
                } else {
                    t.dropped.increment(); // 0: would block (send buffer full)
                }
            } catch (IOException | RuntimeException e) {
                // PortUnreachableException (ICMP from an earlier datagram), ClosedChannelException, ENOBUFS, ...
                t.dropped.increment();
                t.lastError = e;
                logDrop(t, e);
            }
        }
    }

    private static void logDrop(Target t, Exception e) {
        long now = System.nanoTime();
        long last = t.lastLog.get();
        if (now - last >= LOG_INTERVAL_NANOS && t.lastLog.compareAndSet(last, now)) {
            log.warn("forward to {} failed ({} dropped so far): {}", t.label, t.dropped.sum(), e.toString());
        }
    }

    /** Nothing is buffered: each datagram is handed to the kernel (or counted as dropped) in {@link #accept}. */
    @Override
    public void flush() {}

    /** @return datagrams sent, summed over targets (a datagram sent to two targets counts 2). */
    @Override
    public long written() {
        long n = 0;
        for (Target t : targets) {
            n += t.sent.sum();
        }
        return n;
    }

    /** @return datagrams dropped, summed over targets. */
    @Override
    public long failed() {
        long n = 0;
        for (Target t : targets) {
            n += t.dropped.sum();
        }
        return n;
    }

    /** @return {@code forward:} and the targets, comma-separated. */
    @Override
    public String name() {
        return name;
    }

    /**
     * @return an immutable snapshot of every target's counters, in configuration order (for reports and metrics such
     *     as {@code vecflow_forward_datagrams_total{target=...}})
     */
    public List<TargetStats> targets() {
        List<TargetStats> out = new ArrayList<>(targets.length);
        for (Target t : targets) {
            Exception e = t.lastError;
            out.add(new TargetStats(t.label, t.address, t.sent.sum(), t.bytes.sum(), t.dropped.sum(),
                    e == null ? null : e.toString()));
        }
        return List.copyOf(out);
    }

    /** Closes every target's socket; later datagrams are counted as dropped. */
    @Override
    public void close() {
        for (Target t : targets) {
            closeQuietly(t.channel);
        }
    }

    private static void closeQuietly(DatagramChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            log.debug("closing forward socket: {}", e.toString());
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
