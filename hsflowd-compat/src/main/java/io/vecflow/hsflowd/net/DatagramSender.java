package io.vecflow.hsflowd.net;

import io.vecflow.hsflowd.config.HsflowdConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Sends each datagram to every collector, in order. Collectors with neither {@code dev} nor {@code namespace} share
 * one UDP socket ({@link #localPort()}); each one with either gets a socket of its own, opened by the constructor
 * ({@link CollectorSocket}: created inside the namespace, bound to the device), so the sender must be constructed
 * before root is dropped. Every datagram is also handed to the {@link DatagramListener}s. Allocation-free per
 * datagram. Not thread-safe (the agent calls it under its lock).
 */
public final class DatagramSender implements AutoCloseable {
    private final InetSocketAddress[] collectors;
    private final DatagramChannel channel;
    /** Per collector: its own socket when it names a dev or namespace, else null (it uses {@link #channel}). */
    private final CollectorSocket[] collectorSockets;
    private byte[] viewed;
    private ByteBuffer sendView;
    /** Copy-on-write, iterated by index: no iterator per datagram. */
    private DatagramListener[] listeners = new DatagramListener[0];
    private long datagramsSent, sendFailures, bytesSent;

    /**
     * @param config the parsed hsflowd.conf (its collectors)
     * @param bufferBytes size of the datagram buffer (the collector sockets' send size)
     * @throws IOException if the UDP socket cannot be opened or a collector name does not resolve; for a collector
     *         with {@code dev} or {@code namespace}, if its own socket cannot be opened ({@link CollectorSocket#open}:
     *         the message names the collector's line and the reason, e.g. no such namespace or device). Construct
     *         it while still root: those sockets need CAP_SYS_ADMIN / CAP_NET_RAW.
     */
    public DatagramSender(HsflowdConfig config, int bufferBytes) throws IOException {
        List<InetSocketAddress> cs = new ArrayList<>();
        for (HsflowdConfig.Collector c : config.collectors) {
            InetSocketAddress a = new InetSocketAddress(c.ip, c.udpPort);
            if (a.isUnresolved()) {
                throw new IOException("collector address '" + c.ip + "' does not resolve");
            }
            cs.add(a);
        }
        this.collectors = cs.toArray(new InetSocketAddress[0]);
        this.collectorSockets = new CollectorSocket[collectors.length];
        this.channel = DatagramChannel.open();
        try {
            channel.bind(null);
            for (int i = 0; i < collectors.length; i++) {
                HsflowdConfig.Collector c = config.collectors.get(i);
                if (c.dev != null || c.namespace != null) {
                    collectorSockets[i] = CollectorSocket.open(c, collectors[i], bufferBytes);
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            close();
            throw e;
        } catch (InterruptedException e) {
            close();
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while opening collector sockets");
        }
    }

    /** Adds an observer of every datagram sent. */
    public void addListener(DatagramListener l) {
        DatagramListener[] next = Arrays.copyOf(listeners, listeners.length + 1);
        next[listeners.length] = Objects.requireNonNull(l);
        listeners = next;
    }

    /**
     * @return the UDP source port datagrams leave from to collectors without {@code dev} or {@code namespace} (each
     *         collector with one has its own socket: {@link #collectorSocket(int)})
     */
    public int localPort() {
        try {
            return ((InetSocketAddress) channel.getLocalAddress()).getPort();
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * @param index position of the collector in {@link HsflowdConfig#collectors}
     * @return the collector's own socket (bound to its {@code dev}, created in its {@code namespace}), or null when it
     *         names neither and shares the shared socket
     * @throws IndexOutOfBoundsException if there is no such collector
     */
    public CollectorSocket collectorSocket(int index) {
        return collectorSockets[index];
    }

    /**
     * Sends one datagram to every collector and hands it to every listener; failures are counted.
     *
     * @param buffer the datagram from offset 0 (the same buffer from call to call, but for a new datagram builder)
     * @param len its length in bytes
     */
    public void send(byte[] buffer, int len) {
        if (buffer != viewed) { // a new builder (agent address change): wrap its buffer once
            viewed = buffer;
            sendView = ByteBuffer.wrap(buffer);
        }
        for (int ci = 0; ci < collectors.length; ci++) { // indexed: no iterator on the hot path
            InetSocketAddress c = collectors[ci];
            CollectorSocket own = collectorSockets[ci];
            boolean ok;
            if (own != null) {
                ok = own.send(buffer, len);
            } else {
                sendView.clear().limit(len);
                try {
                    ok = channel.send(sendView, c) == len;
                } catch (IOException e) {
                    ok = false;
                }
            }
            if (ok) {
                datagramsSent++;
                bytesSent += len;
            } else {
                sendFailures++;
            }
            for (int li = 0; li < listeners.length; li++) {
                listeners[li].onDatagram(buffer, len, c, ok);
            }
        }
    }

    /** @return datagrams sent (one per collector). */
    public long datagramsSent() {
        return datagramsSent;
    }

    /** @return datagram sends that failed. */
    public long sendFailures() {
        return sendFailures;
    }

    /** @return bytes sent in datagrams. */
    public long bytesSent() {
        return bytesSent;
    }

    /** Closes the collectors' own sockets and the shared one. */
    @Override
    public void close() throws IOException {
        for (CollectorSocket s : collectorSockets) {
            if (s != null) {
                s.close();
            }
        }
        channel.close();
    }
}
