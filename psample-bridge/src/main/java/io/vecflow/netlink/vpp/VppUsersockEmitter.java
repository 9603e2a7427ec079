package io.vecflow.netlink.vpp;

import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkEmitter;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkSocket;

/**
 * Sends VPP-format USERSOCK messages (STATUS and IF_COUNTERS) to a NETLINK_USERSOCK multicast group (default
 * {@link VppUsersock#GROUP} = 29), as VPP's sflow plugin does: nlmsg_pid = the process id, nlmsg_seq incrementing.
 * Sending needs no privilege. Like VPP, a multicast ECONNREFUSED counts as sent. {@link #emitStatus} and
 * {@link #emitIfCounters} send the holder as given; {@link #sendStatus} and {@link #sendIfCounters} also stamp
 * SFLOW_VPP_ATTR_SEQ from the channel sequence that STATUS and IF_COUNTERS share, pre-incremented from 1 as VPP's
 * {@code unixsock_seq} (FDio/vpp {@code src/plugins/sflow/sflow.c}; spec {@code docs/netlink.md} §3). All of them
 * allocate nothing and never throw; failures are counted overall and per message type. Single-threaded; counters may
 * be read from other threads (values may lag).
 */
public final class VppUsersockEmitter extends NetlinkEmitter {
    private static final int BUFFER_BYTES = 4096;

    private final VppStatusCodec codec = new VppStatusCodec();
    private final VppIfCountersCodec ifCodec = new VppIfCountersCodec();
    private final LbCountersCodec lbCodec = new LbCountersCodec();
    private final int pid = (int) ProcessHandle.current().pid();
    private final VppStatus status = new VppStatus();
    private long channelSeq;
    private volatile long statusSent, statusFailed, ifCountersSent, ifCountersFailed, lbCountersSent, lbCountersFailed;

    private VppUsersockEmitter(NetlinkSocket socket, int groupId) throws NetlinkException {
        super(socket, BUFFER_BYTES, groupId, 0, 0);
    }

    /**
     * Opens an emitter for USERSOCK multicast group {@code groupId} (1..32; VPP and hsflowd use 29).
     *
     * @throws NetlinkException socket errors
     * @throws IllegalArgumentException a group outside 1..32
     */
    public static VppUsersockEmitter open(int groupId) throws NetlinkException {
        Netlink.groupMask(groupId);
        return NetlinkSocket.openThen(Netlink.NETLINK_USERSOCK, s -> new VppUsersockEmitter(s, groupId));
    }

    /**
     * Encodes and multicasts one STATUS message.
     *
     * @return {@code true} if sent (counted in {@link #sent()}), {@code false} otherwise ({@link #sendFailed()})
     */
    public boolean emitStatus(VppStatus status) {
        boolean ok = send(codec.encode(status, writer(), nextSeq(), pid));
        if (ok) {
            statusSent++;
        } else {
            statusFailed++;
        }
        return ok;
    }

    /**
     * Sends the 1 s STATUS with the next channel SEQ.
     *
     * @param uptimeS seconds since sFlow was enabled (u32; VPP's {@code now_mono_S})
     * @param drops   cumulative PSAMPLE send failures + worker sample-FIFO drops (u32, wraps; not discard-FIFO or
     *                NET_DM failures, spec §3)
     * @return as {@link #emitStatus}
     */
    public boolean sendStatus(long uptimeS, long drops) {
        status.clear().uptimeS(uptimeS & 0xFFFF_FFFFL).drops(drops & 0xFFFF_FFFFL).seq(nextChannelSeq());
        return emitStatus(status);
    }

    /**
     * Sends one IF_COUNTERS after setting its SEQ to the next channel SEQ (the holder is modified).
     *
     * @return as {@link #emitIfCounters}
     */
    public boolean sendIfCounters(VppIfCounters counters) {
        counters.seq(nextChannelSeq());
        return emitIfCounters(counters);
    }

    /**
     * Sends one vecflow LB_COUNTERS message ({@link LbCounters}: nlmsg_type 0x4C42, a vecflow extension on the same
     * channel) after setting its SEQ to the next channel SEQ (the holder is modified). Allocation-free; never throws.
     *
     * @return true if handed to the kernel ({@link #lbCountersSent()}), false otherwise ({@link #lbCountersFailed()})
     */
    public boolean sendLbCounters(LbCounters counters) {
        counters.seq = nextChannelSeq();
        int len;
        try {
            len = lbCodec.encode(counters, writer(), nextSeq(), pid);
        } catch (RuntimeException e) { // a holder without a VIP; counted, never thrown
            lbCountersFailed++;
            return encodeFailed();
        }
        boolean ok = send(len);
        if (ok) {
            lbCountersSent++;
        } else {
            lbCountersFailed++;
        }
        return ok;
    }

    /** LB_COUNTERS messages handed to the kernel. */
    public long lbCountersSent() {
        return lbCountersSent;
    }

    /** LB_COUNTERS messages that could not be encoded or sent. */
    public long lbCountersFailed() {
        return lbCountersFailed;
    }

    private long nextChannelSeq() {
        channelSeq = (channelSeq + 1) & 0xFFFF_FFFFL;
        return channelSeq;
    }

    /** The last channel SEQ stamped by {@link #sendStatus} / {@link #sendIfCounters} (0 before the first). */
    public long channelSeq() {
        return channelSeq;
    }

    /** STATUS messages handed to the kernel. */
    public long statusSent() {
        return statusSent;
    }

    /** STATUS messages that failed. */
    public long statusFailed() {
        return statusFailed;
    }

    /** IF_COUNTERS messages handed to the kernel. */
    public long ifCountersSent() {
        return ifCountersSent;
    }

    /** IF_COUNTERS messages that could not be encoded or sent (VPP's {@code csample_send_drops}). */
    public long ifCountersFailed() {
        return ifCountersFailed;
    }

    /**
     * Encodes and multicasts one IF_COUNTERS message (VPP's format, {@link VppIfCountersCodec}).
     *
     * @return {@code true} if sent (counted in {@link #sent()}), {@code false} otherwise ({@link #sendFailed()})
     */
    public boolean emitIfCounters(VppIfCounters counters) {
        int len;
        int seq = nextSeq();
        try {
            len = ifCodec.encode(counters, writer(), seq, pid);
        } catch (RuntimeException e) { // cannot happen with a 255-byte name in 4 KiB; counted, never thrown
            ifCountersFailed++;
            return encodeFailed();
        }
        boolean ok = send(len);
        if (ok) {
            ifCountersSent++;
        } else {
            ifCountersFailed++;
        }
        return ok;
    }

    /** nlmsg_pid of the messages (the process id, as VPP does). */
    public int nlmsgPid() {
        return pid;
    }
}
