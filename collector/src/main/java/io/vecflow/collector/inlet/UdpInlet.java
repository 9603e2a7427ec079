package io.vecflow.collector.inlet;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.vecflow.collector.decode.CollectorStats;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The collector's UDP listener (Netty). On Linux with epoll it opens {@code threads} sockets on the same port with
 * SO_REUSEPORT, one per event loop, so the kernel spreads datagrams over threads; elsewhere one NIO socket. Each
 * thread has its own {@link DatagramProcessor}. With batched reads (below) a datagram longer than
 * {@code maxDatagramBytes} cannot be received whole: it is detected, dropped before any sink sees it, and counted
 * (see {@link #truncatedDatagrams()}); otherwise datagrams up to 65507 bytes are received whole.
 */
public final class UdpInlet implements AutoCloseable {
    private final EventLoopGroup group;
    private final List<Channel> channels = new ArrayList<>();
    private final InetSocketAddress bound;
    private final LongAdder truncated;

    /**
     * Binds and starts receiving.
     *
     * @param bind address and port to bind (port 0 picks a free one)
     * @param threads number of sockets/event loops (epoll only; NIO uses 1)
     * @param receiveBufferBytes SO_RCVBUF per socket in bytes
     * @param processors makes one processor per socket
     * @throws InterruptedException if interrupted while binding
     * @throws java.net.BindException if the address cannot be bound (port taken, address not local); the message
     *     names the address. Sockets already opened and the event loops are closed first
     */
    public UdpInlet(InetSocketAddress bind, int threads, int receiveBufferBytes, Supplier<DatagramProcessor> processors)
            throws InterruptedException, java.net.BindException {
        this(bind, threads, receiveBufferBytes, DEFAULT_MAX_DATAGRAM_BYTES, DEFAULT_BATCH, new LongAdder(),
                processors);
    }

    /** Default largest datagram received whole with batched reads, bytes (jumbo frames; hsflowd allows 8192). */
    public static final int DEFAULT_MAX_DATAGRAM_BYTES = 9216;
    /** Default datagrams read per system call (recvmmsg). */
    public static final int DEFAULT_BATCH = 64;

    /**
     * As {@link #UdpInlet(InetSocketAddress, int, int, int, int, LongAdder, Supplier)} with a counter of its own for
     * datagrams dropped as too long ({@link #truncatedDatagrams()}).
     */
    public UdpInlet(InetSocketAddress bind, int threads, int receiveBufferBytes, int maxDatagramBytes, int batch,
            Supplier<DatagramProcessor> processors) throws InterruptedException, java.net.BindException {
        this(bind, threads, receiveBufferBytes, maxDatagramBytes, batch, new LongAdder(), processors);
    }

    /**
     * Binds and starts receiving. With epoll and {@code maxDatagramBytes} below 65507, each read takes up to
     * {@code batch} datagrams in one {@code recvmmsg(2)} (Netty's {@code MAX_DATAGRAM_PAYLOAD_SIZE}), which more than
     * halves the per-datagram system-call and wake-up cost. Each datagram then gets a slot of
     * {@code maxDatagramBytes + 1} bytes, so one longer than {@code maxDatagramBytes} — which the kernel would cut to
     * the slot without a word — arrives with more than {@code maxDatagramBytes} bytes and is known cut: it is
     * <b>dropped</b> (no sink sees it, so the raw topic only ever holds whole datagrams and no row comes from a cut
     * sample) and counted in {@code truncated}; the agent's datagram sequence shows it as lost. Raise
     * {@code maxDatagramBytes} to receive it. {@code maxDatagramBytes} 65507 (or {@code batch} 1, or NIO) reads one
     * datagram per call, any size, whole.
     *
     * @param maxDatagramBytes largest datagram received whole, bytes (1500..65507)
     * @param batch datagrams per read (1..1024)
     * @param truncated counts datagrams dropped because they were longer than {@code maxDatagramBytes} (e.g.
     *     {@link CollectorStats#datagramsTruncated})
     * @throws IllegalArgumentException if {@code maxDatagramBytes} or {@code batch} is out of range
     */
    public UdpInlet(InetSocketAddress bind, int threads, int receiveBufferBytes, int maxDatagramBytes, int batch,
            LongAdder truncated, Supplier<DatagramProcessor> processors)
            throws InterruptedException, java.net.BindException {
        this.truncated = truncated;
        if (maxDatagramBytes < 1500 || maxDatagramBytes > 65507 || batch < 1 || batch > 1024) {
            throw new IllegalArgumentException("maxDatagramBytes must be 1500..65507 and batch 1..1024");
        }
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            // Datagram buffers are released by the handler on every path; the leak detector's sampling costs
            // ~18 % of the per-datagram garbage on the receive path.
            io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.DISABLED);
        }
        boolean epoll = Epoll.isAvailable();
        boolean batched = epoll && maxDatagramBytes < 65507 && batch > 1;
        // One byte more than the limit per datagram: a datagram that fills it was longer than the limit (cut).
        int slot = maxDatagramBytes + 1;
        int limit = batched ? maxDatagramBytes : Integer.MAX_VALUE;
        int n = epoll ? Math.max(1, threads) : 1;
        group = new MultiThreadIoEventLoopGroup(n, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        InetSocketAddress addr = bind;
        try {
            if (bind.isUnresolved()) {
                throw new java.net.BindException("cannot bind udp " + bind.getHostString() + ":" + bind.getPort()
                        + ": the address does not resolve");
            }
            if (epoll && n > 1) {
                // SO_REUSEPORT would let a second collector silently share the port (and half the traffic):
                // prove the port is free with a plain bind first.
                requireFree(bind);
            }
            for (int i = 0; i < n; i++) {
                DatagramProcessor proc = processors.get();
                Handler handler = new Handler(proc, limit, truncated);
                Bootstrap b = new Bootstrap().group(group)
                        .channel(epoll ? EpollDatagramChannel.class : NioDatagramChannel.class)
                        .option(ChannelOption.SO_RCVBUF, receiveBufferBytes)
                        .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(
                                batched ? slot * batch : 65536))
                        .handler(handler);
                if (epoll && n > 1) {
                    b.option(EpollChannelOption.SO_REUSEPORT, true);
                    b.option(ChannelOption.AUTO_READ, false); // read in socket order once all are bound (below)
                }
                if (batched) {
                    b.option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, slot);
                }
                io.netty.channel.ChannelFuture f = b.bind(addr).await();
                if (!f.isSuccess()) {
                    java.net.BindException e = new java.net.BindException("cannot bind udp " + addr + ": "
                            + f.cause().getMessage());
                    e.initCause(f.cause());
                    throw e;
                }
                Channel ch = f.channel();
                channels.add(ch);
                addr = (InetSocketAddress) ch.localAddress(); // later sockets bind the port the first one got
            }
            if (epoll && n > 1) {
                startReadingInOrder();
            }
        } catch (Throwable t) {
            // A failed bind (port taken, bad address) must not leave sockets or event-loop threads behind.
            try {
                close();
            } catch (Throwable suppressed) {
                t.addSuppressed(suppressed);
            }
            throw t;
        }
        bound = addr;
    }

    /**
     * Proves a UDP address is free with a plain bind (no SO_REUSEPORT), so that a second collector on the same port
     * is refused instead of silently sharing the traffic.
     *
     * @throws java.net.BindException naming the address if it is taken (port 0 always passes)
     */
    public static void requireFree(InetSocketAddress bind) throws java.net.BindException {
        if (bind.getPort() == 0 || bind.isUnresolved()) {
            return;
        }
        try (java.net.DatagramSocket probe = new java.net.DatagramSocket(bind)) {
            probe.getLocalPort();
        } catch (java.net.SocketException e) {
            throw new java.net.BindException("cannot bind udp " + bind + ": " + e.getMessage()
                    + " (another collector or sFlow tool is listening there)");
        }
    }

    /** Longest wait for a socket's backlog to be handed on before the next socket starts reading, ms. */
    static final long STAGE_WAIT_MS = 1000;

    /**
     * Starts reading the SO_REUSEPORT sockets one after the other, each once the previous one has handed on what it
     * held when they were all bound. When a socket joins the group the kernel moves some sources to it (the socket
     * of a 4-tuple is {@code reciprocal_scale(hash, sockets)}, which only grows as sockets are added), so what a
     * source sent while the group was smaller waits in a lower-numbered socket and is older than all of its
     * datagrams in later ones. Reading every socket at once let a later socket's thread hand on a source's new
     * datagrams before an earlier one's thread its old ones: an inlet (re)started under load reordered each agent's
     * first datagrams, which the loss accounting counts as lost and late. A socket's backlog is handed on once its
     * receive queue ({@code rx_queue} in {@code /proc/net/udp}) was seen empty and a task queued behind the I/O on
     * the socket's event loop has run;
     * at most {@link #STAGE_WAIT_MS} per socket (a busier socket may never look empty: then it is not waited for).
     */
    private void startReadingInOrder() throws InterruptedException {
        for (int i = 0; i < channels.size(); i++) {
            Channel ch = channels.get(i);
            ch.config().setAutoRead(true);
            if (i == channels.size() - 1 || !(ch instanceof EpollDatagramChannel e)) {
                continue;
            }
            long inode = SocketDrops.inodeOfFd(e.fd().intValue());
            long deadline = System.nanoTime() + STAGE_WAIT_MS * 1_000_000L;
            while (inode >= 0 && System.nanoTime() < deadline) {
                if (SocketDrops.rxQueue(inode) == 0) {
                    // Dequeued, but maybe not handed on yet: the read loop that took it off the socket may still be
                    // running its handlers (the first datagrams can take tens of ms: class loading, the spool).
                    // The event loop runs a task only after the I/O it is processing, so a no-op task that has run
                    // means that loop has finished. (Waiting on the handler's own flag missed a loop that had
                    // dequeued but not yet called it: one datagram per agent came 16 rounds late.)
                    long left = deadline - System.nanoTime();
                    if (left > 0) {
                        ch.eventLoop().submit(() -> { }).await(left, java.util.concurrent.TimeUnit.NANOSECONDS);
                    }
                    break;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(200_000);
            }
        }
    }

    /** @return the bound address (with the real port when 0 was asked). */
    public InetSocketAddress localAddress() {
        return bound;
    }

    /**
     * @return datagrams the kernel dropped at this inlet's sockets because their receive buffers were full (the
     *     {@code drops} of {@code /proc/net/udp} and {@code udp6} for this process's sockets on the bound port)
     */
    public long socketDrops() {
        return SocketDrops.ofPort(bound.getPort());
    }

    /** @return datagrams dropped because they were longer than {@code maxDatagramBytes} (batched reads only). */
    public long truncatedDatagrams() {
        return truncated.sum();
    }

    private static final class Handler extends SimpleChannelInboundHandler<DatagramPacket> {
        private final DatagramProcessor proc;
        private final int limit;
        private final LongAdder truncated;
        private final byte[] buf = new byte[65536];
        private final byte[] peer16 = new byte[16];

        Handler(DatagramProcessor proc, int limit, LongAdder truncated) {
            this.proc = proc;
            this.limit = limit;
            this.truncated = truncated;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
            long now = EpochNanos.now();
            ByteBuf c = p.content();
            int len = c.readableBytes();
            if (len > limit) {
                truncated.increment(); // cut by the kernel to the slot: dropped, never half-decoded
                return;
            }
            c.getBytes(c.readerIndex(), buf, 0, len);
            InetSocketAddress s = p.sender();
            mapped(s.getAddress(), peer16);
            proc.process(buf, 0, len, now, peer16, s.getPort());
        }
    }

    /**
     * Writes an address as 16 bytes, IPv4 mapped to ::ffff:a.b.c.d (RFC 4291 §2.5.5.2), the collector's form.
     *
     * @param a the address
     * @param out 16 bytes, overwritten
     */
    public static void mapped(InetAddress a, byte[] out) {
        byte[] b = a.getAddress();
        if (b.length == 16) {
            System.arraycopy(b, 0, out, 0, 16);
        } else {
            java.util.Arrays.fill(out, 0, 10, (byte) 0);
            out[10] = (byte) 0xFF;
            out[11] = (byte) 0xFF;
            System.arraycopy(b, 0, out, 12, 4);
        }
    }

    @Override
    public void close() throws InterruptedException {
        for (Channel ch : channels) {
            ch.close().sync();
        }
        group.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).sync();
    }
}
