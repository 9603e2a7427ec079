package io.vecflow.bench;

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
import io.netty.channel.socket.DatagramPacket;
import io.vecflow.collector.inlet.DatagramProcessor;
import java.net.InetSocketAddress;

/**
 * PROTOTYPE, bench only: the collector's inlet ({@code io.vecflow.collector.inlet.UdpInlet}) with one change — Netty's
 * epoll transport reads with {@code recvmmsg(2)}, up to {@code slots} datagrams per system call, instead of one
 * {@code recvmsg(2)} per datagram. Netty does this when {@link EpollChannelOption#MAX_DATAGRAM_PAYLOAD_SIZE} is set
 * and the receive buffer holds several such slots. The price: a datagram longer than {@code slotBytes} is truncated
 * (sFlow agents send at most 1400–1500 bytes by default; hsflowd allows up to 8192), where UdpInlet receives up to
 * 65535 bytes. One socket, one event loop (the peer comparison's 1-core setup). The handler is UdpInlet's.
 */
final class RecvmmsgInlet implements AutoCloseable {
    private final EventLoopGroup group;
    private final Channel channel;

    RecvmmsgInlet(InetSocketAddress bind, int receiveBufferBytes, int slots, int slotBytes, DatagramProcessor proc)
            throws InterruptedException {
        if (!Epoll.isAvailable()) {
            throw new IllegalStateException("recvmmsg inlet needs Netty's native epoll transport: "
                    + Epoll.unavailabilityCause());
        }
        group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        Bootstrap b = new Bootstrap().group(group).channel(EpollDatagramChannel.class)
                .option(ChannelOption.SO_RCVBUF, receiveBufferBytes)
                .option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, slotBytes)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(slots * slotBytes))
                .handler(new Handler(proc));
        var f = b.bind(bind).await();
        if (!f.isSuccess()) {
            group.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).sync();
            throw new IllegalStateException("cannot bind udp " + bind, f.cause());
        }
        channel = f.channel();
    }

    InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** UdpInlet's handler, unchanged. */
    private static final class Handler extends SimpleChannelInboundHandler<DatagramPacket> {
        private final DatagramProcessor proc;
        private final byte[] buf = new byte[65536];
        private final byte[] peer16 = new byte[16];
        private static final long ANCHOR_EPOCH, ANCHOR_NANO;

        static {
            java.time.Instant i = java.time.Instant.now();
            ANCHOR_NANO = System.nanoTime();
            ANCHOR_EPOCH = i.getEpochSecond() * 1_000_000_000L + i.getNano();
        }

        Handler(DatagramProcessor proc) {
            this.proc = proc;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
            long now = ANCHOR_EPOCH + (System.nanoTime() - ANCHOR_NANO);
            ByteBuf c = p.content();
            int len = c.readableBytes();
            c.getBytes(c.readerIndex(), buf, 0, len);
            InetSocketAddress s = p.sender();
            io.vecflow.collector.inlet.UdpInlet.mapped(s.getAddress(), peer16);
            proc.process(buf, 0, len, now, peer16, s.getPort());
        }
    }

    @Override
    public void close() throws InterruptedException {
        channel.close().sync();
        group.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).sync();
    }
}
