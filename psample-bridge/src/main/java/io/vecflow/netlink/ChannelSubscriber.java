package io.vecflow.netlink;

import java.lang.foreign.MemorySegment;

/**
 * A {@link NetlinkSubscriber} for a channel that carries one kind of message under one nlmsg_type (the
 * generic-netlink family id, or a fixed type on NETLINK_USERSOCK: PSAMPLE, NET_DM; spec {@code docs/netlink.md}
 * §2, §4), decoded into one reused holder. Messages of another type, and those {@link #decode} declines (another
 * command), are ignored; each decoded holder is counted in {@link #delivered()}, and in {@link #truncated()} when its
 * payload was cut to the holder's capacity. Nothing is allocated per message.
 *
 * @param <H> handler type
 * @param <T> transport enum (GENL or USERSOCK)
 * @param <S> holder type
 */
public abstract class ChannelSubscriber<H, T, S> extends NetlinkSubscriber<H> {
    private final T transport;
    private final int nlmsgType;
    private final S holder;
    private long delivered;
    private long truncated;

    /**
     * @param socket             bound (and joined) socket; owned from here on
     * @param transport          the transport it was opened with
     * @param nlmsgType          nlmsg_type of accepted messages
     * @param groupId            joined group, 0 for unicast
     * @param holder             the reused holder
     * @param receiveBufferBytes SO_RCVBUF(FORCE) request, bytes
     * @param what               names the subscriber in a receive error, e.g. {@code "PSAMPLE subscriber"}
     * @throws NetlinkException setting the receive buffer or reading the port id failed
     */
    protected ChannelSubscriber(NetlinkSocket socket, T transport, int nlmsgType, int groupId, S holder,
            int receiveBufferBytes, String what) throws NetlinkException {
        super(socket, groupId, receiveBufferBytes, what);
        this.transport = transport;
        this.nlmsgType = nlmsgType;
        this.holder = holder;
    }

    /**
     * Decodes one message of the accepted nlmsg_type into {@code holder}.
     *
     * @return {@code false} for another command of the family (ignored)
     * @throws NetlinkFormatException malformed content (field and offset named)
     */
    protected abstract boolean decode(MemorySegment buf, long offset, int length, S holder)
            throws NetlinkFormatException;

    /** Whether the holder's payload was cut to its capacity by the last decode. */
    protected abstract boolean wasTruncated(S holder);

    /** Passes the decoded holder to the handler. */
    protected abstract void deliver(H handler, S holder);

    @Override
    protected final boolean onMessage(int type, MemorySegment buf, long offset, int length, H handler)
            throws NetlinkFormatException {
        if (type != nlmsgType || !decode(buf, offset, length, holder)) {
            return false; // ACKs, control traffic, other users of the group; another command of the family
        }
        delivered++;
        if (wasTruncated(holder)) {
            truncated++;
        }
        deliver(handler, holder);
        return true;
    }

    /** Holders decoded and delivered. */
    protected final long delivered() {
        return delivered;
    }

    /** Delivered holders whose payload exceeded the capacity and was cut. */
    protected final long truncated() {
        return truncated;
    }

    /** nlmsg_type of accepted messages: the family id (GENL) or the channel's USERSOCK type. */
    public final int nlmsgType() {
        return nlmsgType;
    }

    /** The transport. */
    public final T transport() {
        return transport;
    }
}
