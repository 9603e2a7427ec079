package io.vecflow.netlink.psample;

import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkSocket;
import io.vecflow.netlink.ChannelSubscriber;
import io.vecflow.netlink.NetlinkSubscriber;
import java.lang.foreign.MemorySegment;

/**
 * Agent side of the PSAMPLE channel: joins the "packets" group (GENL) or a NETLINK_USERSOCK group, or takes
 * USERSOCK unicasts, and decodes samples into one reused {@link PsampleSample}.
 *
 * <p>{@link #poll} reads one datagram into a preallocated off-heap buffer
 * ({@value NetlinkSubscriber#READ_BUFFER_BYTES} bytes) and walks every message in it; nothing is allocated per
 * message. A malformed message is counted in {@link #decodeErrors()} (text in {@link #lastDecodeError()}, naming
 * field and offset) and skipped; a receive-buffer overrun (ENOBUFS) is counted in {@link #overruns()}; messages of
 * other types or other PSAMPLE commands are counted in {@link #ignored()}. The subscriber keeps going after all of
 * these. Like hsflowd's mod_psample the socket gets an 8 MB receive buffer (SO_RCVBUFFORCE as root).
 * Single-threaded.
 */
public final class PsampleSubscriber extends ChannelSubscriber<PsampleHandler, PsampleTransport, PsampleSample> {
    /** Receive buffer requested at open, bytes (hsflowd uses the same). */
    public static final int DEFAULT_RECEIVE_BUFFER_BYTES = 8 * 1024 * 1024;

    private final PsampleCodec codec = new PsampleCodec();

    private PsampleSubscriber(NetlinkSocket socket, PsampleTransport transport, int nlmsgType, int groupId,
                              int dataCapacity) throws NetlinkException {
        super(socket, transport, nlmsgType, groupId, new PsampleSample(dataCapacity), DEFAULT_RECEIVE_BUFFER_BYTES,
                "PSAMPLE subscriber");
    }

    /**
     * Opens a multicast subscriber.
     *
     * @param transport     GENL: resolve "psample" and join "packets"; USERSOCK: join {@code usersockGroup}
     * @param usersockGroup USERSOCK group 1..32 (default {@link Psample#USERSOCK_DEFAULT_GROUP}); ignored for GENL
     * @throws io.vecflow.netlink.GenlFamilyNotFoundException GENL without the psample module (message names
     *         {@code modprobe psample} and {@code --transport usersock})
     * @throws NetlinkException EPERM when joining without root/CAP_NET_ADMIN; other socket errors
     */
    public static PsampleSubscriber open(PsampleTransport transport, int usersockGroup) throws NetlinkException {
        return open(transport, usersockGroup, PsampleSample.DEFAULT_DATA_CAPACITY);
    }

    /**
     * Like {@link #open(PsampleTransport, int)} with a chosen DATA capacity for the reused holder (longer DATA is
     * truncated and counted in {@link #dataTruncated()}).
     */
    public static PsampleSubscriber open(PsampleTransport transport, int usersockGroup, int dataCapacity)
            throws NetlinkException {
        Factory<PsampleSubscriber> f = (s, type, group) -> new PsampleSubscriber(s, transport, type, group,
                dataCapacity);
        return transport == PsampleTransport.GENL
                ? openGenl(Psample.GENL_NAME, Psample.MCGRP_PACKETS, f)
                : openUsersock(usersockGroup, Psample.USERSOCK_MSG_TYPE, f);
    }

    /**
     * Opens an unprivileged NETLINK_USERSOCK unicast subscriber: binds without groups (the kernel assigns a port
     * id); publish {@link #portId()} to the emitter ({@link PsampleEmitter#openUnicast}).
     *
     * @throws NetlinkException socket errors
     */
    public static PsampleSubscriber openUnicast() throws NetlinkException {
        return openUsersockUnicast(Psample.USERSOCK_MSG_TYPE, (s, type, group) -> new PsampleSubscriber(s,
                PsampleTransport.USERSOCK, type, group, PsampleSample.DEFAULT_DATA_CAPACITY));
    }

    @Override
    protected boolean decode(MemorySegment buf, long offset, int length, PsampleSample sample)
            throws NetlinkFormatException {
        return codec.decode(buf, offset, length, sample);
    }

    @Override
    protected boolean wasTruncated(PsampleSample sample) {
        return sample.dataTruncated();
    }

    @Override
    protected void deliver(PsampleHandler handler, PsampleSample sample) {
        handler.onSample(sample);
    }

    /** Samples decoded and delivered. */
    public long samples() {
        return delivered();
    }

    /** Samples whose DATA exceeded the holder capacity and was truncated. */
    public long dataTruncated() {
        return truncated();
    }
}
