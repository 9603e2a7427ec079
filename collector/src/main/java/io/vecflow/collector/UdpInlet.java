package io.vecflow.collector;

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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The collector's UDP listener (Netty). On Linux with epoll it opens {@code threads} sockets on the same port with
 * SO_REUSEPORT, one per event loop, so the kernel spreads datagrams over threads; elsewhere one NIO socket. Each
 * thread has its own {@link DatagramProcessor}; datagrams up to 65535 bytes are received whole.
 */
public final class UdpInlet implements AutoCloseable {
    private final EventLoopGroup group;
    private final List<Channel> channels = new ArrayList<>();
    private final InetSocketAddress bound;

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
        this(bind, threads, receiveBufferBytes, DEFAULT_MAX_DATAGRAM_BYTES, DEFAULT_BATCH, processors);
    }

    /** Default largest datagram received whole with batched reads, bytes (jumbo frames; hsflowd allows 8192). */
    public static final int DEFAULT_MAX_DATAGRAM_BYTES = 9216;
    /** Default datagrams read per system call (recvmmsg). */
    public static final int DEFAULT_BATCH = 64;

    /**
     * Binds and starts receiving. With epoll and {@code maxDatagramBytes} below 65507, each read takes up to
     * {@code batch} datagrams in one {@code recvmmsg(2)} (Netty's {@code MAX_DATAGRAM_PAYLOAD_SIZE}), which more than
     * halves the per-datagram system-call and wake-up cost; a datagram longer than {@code maxDatagramBytes} is then
     * cut to that length (and fails to decode, counted as TRUNCATED). {@code maxDatagramBytes} 65507 reads one
     * datagram per call, any size.
     *
     * @param maxDatagramBytes largest datagram received whole, bytes (1500..65507)
     * @param batch datagrams per read (1..1024)
     */
    public UdpInlet(InetSocketAddress bind, int threads, int receiveBufferBytes, int maxDatagramBytes, int batch,
            Supplier<DatagramProcessor> processors) throws InterruptedException, java.net.BindException {
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
        int n = epoll ? Math.max(1, threads) : 1;
        group = new MultiThreadIoEventLoopGroup(n, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        InetSocketAddress addr = bind;
        try {
            if (bind.isUnresolved()) {
                throw new java.net.BindException("cannot bind udp " + bind.getHostString() + ":" + bind.getPort()
                        + ": the address does not resolve");
            }
            if (epoll && n > 1 && bind.getPort() != 0) {
                // SO_REUSEPORT would let a second collector silently share the port (and half the traffic):
                // prove the port is free with a plain bind first.
                try (java.net.DatagramSocket probe = new java.net.DatagramSocket(bind)) {
                    probe.getLocalPort();
                } catch (java.net.SocketException e) {
                    throw new java.net.BindException("cannot bind udp " + bind + ": " + e.getMessage()
                            + " (another collector or sFlow tool is listening there)");
                }
            }
            for (int i = 0; i < n; i++) {
                DatagramProcessor proc = processors.get();
                Bootstrap b = new Bootstrap().group(group)
                        .channel(epoll ? EpollDatagramChannel.class : NioDatagramChannel.class)
                        .option(ChannelOption.SO_RCVBUF, receiveBufferBytes)
                        .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(
                                batched ? maxDatagramBytes * batch : 65536))
                        .handler(new Handler(proc));
                if (epoll && n > 1) {
                    b.option(EpollChannelOption.SO_REUSEPORT, true);
                }
                if (batched) {
                    b.option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, maxDatagramBytes);
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

    /** @return the bound address (with the real port when 0 was asked). */
    public InetSocketAddress localAddress() {
        return bound;
    }

    private static final class Handler extends SimpleChannelInboundHandler<DatagramPacket> {
        private final DatagramProcessor proc;
        private final byte[] buf = new byte[65536];
        private final byte[] peer16 = new byte[16];

        Handler(DatagramProcessor proc) {
            this.proc = proc;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
            long now = EpochNanos.now();
            ByteBuf c = p.content();
            int len = c.readableBytes();
            c.getBytes(c.readerIndex(), buf, 0, len);
            InetSocketAddress s = p.sender();
            mapped(s.getAddress(), peer16);
            proc.process(buf, 0, len, now, peer16, s.getPort());
        }
    }

    /** Writes an address as 16 bytes, IPv4 mapped to ::ffff:a.b.c.d. */
    static void mapped(InetAddress a, byte[] out) {
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
