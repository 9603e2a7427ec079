package io.vecflow.dataplane.sflow;

import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.interfaces.Port;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;
import io.vecflow.netlink.netdm.NetDm;
import io.vecflow.netlink.netdm.NetDmDropPoint;
import io.vecflow.netlink.netdm.NetDmEmitter;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.vpp.VppIfCounters;
import io.vecflow.netlink.vpp.VppUsersock;
import io.vecflow.netlink.vpp.VppUsersockEmitter;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntToLongFunction;

/**
 * The main thread of the sFlow feature (VPP's {@code sflow} process node): wakes every ~1 ms, drains every worker's
 * sample FIFO into PSAMPLE messages and discard FIFO into NET_DM PACKET_ALERTs, and on its schedule sends each
 * interface's IF_COUNTERS (at start before any sample, then every polling interval, staggered by ifIndex) and a
 * STATUS every second on
 * NETLINK_USERSOCK group 29 in VPP's format (docs/netlink.md §3–§4).
 *
 * <p>PSAMPLE fields: IIFINDEX/OIFINDEX (u32, VPP convention), ORIGSIZE = frame length without FCS, SAMPLE_GROUP =
 * the ingress group (VPP: 3) or egress group (VPP: 4) by the record's direction, SAMPLE_RATE = N in force when
 * sampled, DATA = the header bytes, GROUP_SEQ = a sequence per group that starts at 1; the ingress group's sequence
 * also advances by every sample the FIFOs dropped since the previous message, so the agent sees FIFO drops as a
 * sequence gap — the standard PSAMPLE way to report lost samples — in order with the samples (the FIFO is shared by
 * both directions; its drops are carried on the ingress group). Drops before the first message ride on the second,
 * since the first is the agent's baseline. A failed send also leaves a gap.
 *
 * <p>NET_DM alerts (one per discard record): ORIGIN 0 (software), IN_PORT = the packet's own receive port (nested,
 * the kernel's convention: the port's OSINDEX from {@link Duties#osIndexOf}; flat, VPP's: its ifIndex),
 * HW_TRAP_GROUP_NAME "vecflow", HW_TRAP_NAME and REASON from the {@link DropReason} (so an hsflowd-style agent maps
 * them to the reason's sFlow code), PROTO = the ethertype, ORIG_LEN, TRUNC_LEN = header bytes, TIMESTAMP, PAYLOAD. A
 * token bucket (discards/s, 0 = unlimited) bounds them; the excess is counted, not sent.
 *
 * <p>IF_COUNTERS per port: PORTNAME, IFINDEX, OSINDEX (when {@link Duties#osIndexAttributeOf} gives one), IFTYPE 6,
 * IFSPEED
 * (bits/s), IFDIRECTION 1, OPER/ADMIN up, RX/TX octets and packets from the port's counters, RX_DISCARDS = port
 * receive discards + packets the graph dropped that were received on the port, except for reasons a port already
 * counts ({@link DropReason#countedByPort()}: its rx errors, tx discards and errors) (RFC 2863 ifInDiscards; VPP puts
 * its /if/drops in TX_DISCARDS instead), TX_DISCARDS, RX/TX errors, HW_ADDRESS, SEQ (shared with STATUS). STATUS:
 * UPTIME_S, DROPS = PSAMPLE send failures + sample FIFO drops (VPP's definition), SEQ.
 *
 * <p>LB_COUNTERS (vecflow's own message type 0x4C42 on the same channel and group, layout in
 * {@link io.vecflow.netlink.vpp.LbCounters}; VPP's IF_COUNTERS is unchanged): each polling interval, and once more
 * with the final counters, every {@link Duties#lbCounters} source sends one message per VIP (totals) and one per VIP
 * backend — role, stable VIP index, VIP, protocol, port, backend index and address, new flows, first/second-choice
 * accepts, rejects, sticky hits, table full — stamped with the shared channel SEQ. Nothing is allocated per sample,
 * alert or counter message.
 */
public final class SflowMainThread implements Runnable {
    /** Optional duties beyond PSAMPLE; fields may be left null/0. */
    public static final class Duties {
        /** Discard FIFOs, one per worker (empty: no discards). */
        public List<SampleFifo> discardFifos = List.of();
        /** Where NET_DM alerts go (null: discards are drained and counted as not sent). */
        public NetDmEmitter netDm;
        /** Discard alerts per second at most (0 = unlimited). */
        public int discardLimitPerSecond;
        /** Where IF_COUNTERS and STATUS go (null: none). */
        public VppUsersockEmitter vpp;
        /** Ports whose counters are polled. */
        public List<Port> ports = List.of();
        /** Graph drops of packets received on an ifIndex (for RX_DISCARDS). */
        public IntToLongFunction graphDropsOn = i -> 0;
        /**
         * ifIndex → the port's number outside the dataplane ({@code Dataplane#osIndex}), sent as the nested NET_DM
         * IN_PORT; 0 = none (IN_PORT = the ifIndex).
         */
        public IntToLongFunction osIndexOf = i -> 0;
        /**
         * ifIndex → the IF_COUNTERS OSINDEX attribute ({@code Dataplane#osIndexAttribute}: the port's Linux netdev,
         * as VPP with linux-cp sends it); 0 = the attribute is left out, as VPP does for a port without a netdev.
         */
        public IntToLongFunction osIndexAttributeOf = i -> 0;
        /** PSAMPLE group of egress samples (ingress uses the constructor's group). */
        public int egressGroup = 4;
        /** Initial counter polling interval, seconds (≥ 1). */
        public int pollingIntervalSeconds = 20;
        /**
         * Load-balancing components whose per-VIP / per-backend decision counters go out as vecflow LB_COUNTERS
         * messages on the IF_COUNTERS cadence (empty: none).
         */
        public List<LbCounterSource> lbCounters = List.of();
    }

    /** One pre-encoded NET_DM drop point per {@link DropReason}: group "vecflow", its trap name and Linux reason. */
    private static final NetDmDropPoint[] DROP_POINTS = dropPoints();

    private static NetDmDropPoint[] dropPoints() {
        NetDmDropPoint[] p = new NetDmDropPoint[DropReason.count()];
        for (DropReason r : DropReason.values()) {
            p[r.ordinal()] = NetDmDropPoint.devlink("error-drop", "vecflow", r.trapName(), r.linuxReason());
        }
        return p;
    }

    private final List<SampleFifo> fifos;
    private final PsampleEmitter emitter;
    private final int sampleGroup;
    private final Duties duties;
    private final PsampleSample msg = new PsampleSample(SampleRecord.MAX_HEADER_BYTES);
    private final VppIfCounters ifc = new VppIfCounters();
    private final io.vecflow.netlink.vpp.LbCounters lbc = new io.vecflow.netlink.vpp.LbCounters();
    private final LbCounterSource.Sink lbSink = this::sendLb;
    private long nextLbPollNanos;
    private final byte[] macBytes = new byte[6];
    private final long[] droppedSeen;
    private final int maxPerWake;
    private final long startNanos = System.nanoTime();
    private final long[] nextPollNanos;
    private volatile int pollingIntervalSeconds;
    private volatile boolean running = true;
    private volatile boolean finished;
    private long groupSeq, egressSeq;
    private boolean egressStarted;
    private long nextStatusNanos = startNanos;
    private double tokens;
    private long lastRefillNanos = startNanos;
    private volatile long emitted, emitFailed, fifoDropsCarried;
    private volatile long discardsSent, discardsFailed, discardsLimited, ifCountersSent, statusSent, vppFailed;
    private volatile long lbCountersSent;

    /**
     * PSAMPLE only (ingress group; egress records go to group 4).
     *
     * @param fifos one FIFO per worker
     * @param emitter where samples go (its counters record netlink successes and failures)
     * @param sampleGroup PSAMPLE group for ingress samples (hsflowd's default is 1, VPP uses 3)
     * @param maxPerWake samples drained per FIFO per wake at most (bounds the time away from other duties)
     */
    public SflowMainThread(List<SampleFifo> fifos, PsampleEmitter emitter, int sampleGroup, int maxPerWake) {
        this(fifos, emitter, sampleGroup, maxPerWake, new Duties());
    }

    /**
     * @param fifos one sample FIFO per worker
     * @param emitter where samples go
     * @param sampleGroup PSAMPLE group for ingress samples
     * @param maxPerWake records drained per FIFO per wake at most
     * @param duties discards, counters, egress group
     */
    public SflowMainThread(List<SampleFifo> fifos, PsampleEmitter emitter, int sampleGroup, int maxPerWake,
            Duties duties) {
        this.fifos = List.copyOf(fifos);
        this.emitter = emitter;
        this.sampleGroup = sampleGroup;
        this.maxPerWake = maxPerWake;
        this.duties = duties;
        this.droppedSeen = new long[fifos.size()];
        this.pollingIntervalSeconds = Math.max(1, duties.pollingIntervalSeconds);
        int maxIf = 0;
        for (Port p : duties.ports) {
            maxIf = Math.max(maxIf, p.ifIndex());
        }
        this.nextPollNanos = new long[maxIf + 1];
        java.util.Arrays.fill(nextPollNanos, startNanos); // every interface is polled at once the first time
        this.tokens = duties.discardLimitPerSecond;
        this.nextLbPollNanos = startNanos; // the first LB counters go out at once, as the first IF_COUNTERS
    }

    @Override
    public void run() {
        try {
            // Every port's IF_COUNTERS before the first sample: hsflowd's mod_vpp drops the samples of a port it has
            // not yet heard of in IF_COUNTERS (and, by default, of one without OSINDEX), so the ports are announced
            // first, as their mapping must be known before their samples arrive.
            pollCounters(System.nanoTime());
            while (running) {
                int n = drainOnce();
                n += drainDiscards();
                pollCounters(System.nanoTime());
                if (n == 0) {
                    LockSupport.parkNanos(1_000_000);
                }
            }
            // Final drain after the workers stopped: everything queued goes out.
            while (drainOnce() + drainDiscards() != 0) {
                // keep going
            }
            pollCounters(Long.MAX_VALUE); // final counters so the agent sees the totals
        } finally {
            finished = true;
        }
    }

    /**
     * Drains each sample FIFO once (up to {@code maxPerWake} records each).
     *
     * @return records emitted or attempted
     */
    public int drainOnce() {
        int total = 0;
        for (int w = 0; w < fifos.size(); w++) {
            SampleFifo f = fifos.get(w);
            for (int i = 0; i < maxPerWake; i++) {
                SampleRecord r = f.poll();
                if (r == null) {
                    break;
                }
                emit(r);
                f.release(r);
                total++;
            }
        }
        // a batch goes out at the end of every pass: a sample waits at most one drain interval
        int refused = emitter.flush();
        emitted -= refused;
        emitFailed += refused;
        return total;
    }

    /**
     * Drains each discard FIFO once (up to {@code maxPerWake} records each) into NET_DM alerts.
     *
     * @return records taken
     */
    public int drainDiscards() {
        int total = 0;
        List<SampleFifo> d = duties.discardFifos;
        for (int w = 0; w < d.size(); w++) {
            SampleFifo f = d.get(w);
            for (int i = 0; i < maxPerWake; i++) {
                SampleRecord r = f.poll();
                if (r == null) {
                    break;
                }
                alert(r);
                f.release(r);
                total++;
            }
        }
        return total;
    }

    private void emit(SampleRecord r) {
        long seq;
        int group;
        if (r.direction == SflowNode.Direction.EGRESS.ordinal()) {
            group = duties.egressGroup;
            egressSeq = egressStarted ? (egressSeq + 1) & 0xFFFFFFFFL : 1;
            egressStarted = true;
            seq = egressSeq;
        } else {
            group = sampleGroup;
            if (emitted + emitFailed == 0 || groupSeq == 0) {
                // The first message is the agent's baseline (seq 1, as VPP starts): drops before it ride on the next.
                groupSeq = 1;
            } else {
                long gap = 0;
                for (int i = 0; i < droppedSeen.length; i++) {
                    long dropped = fifos.get(i).dropped();
                    gap += dropped - droppedSeen[i];
                    droppedSeen[i] = dropped;
                }
                fifoDropsCarried += gap;
                groupSeq = (groupSeq + 1 + gap) & 0xFFFFFFFFL;
            }
            seq = groupSeq;
        }
        msg.clear()
                .iifIndex(r.inputIfIndex & 0xFFFFFFFFL)
                .oifIndex(r.outputIfIndex & 0xFFFFFFFFL)
                .origSize(r.frameLength)
                .sampleGroup(group)
                .groupSeq(seq)
                .sampleRate(r.samplingRate)
                .data(r.header, 0, r.headerLength);
        if (r.cookieLength > 0) {
            msg.userCookie(r.cookie, 0, r.cookieLength); // a load-balancer decision (LbDecisionCookie)
        }
        if (emitter.emit(msg)) {
            emitted++;
        } else {
            emitFailed++;
        }
    }

    private void alert(SampleRecord r) {
        NetDmEmitter e = duties.netDm;
        if (e == null) {
            discardsFailed++;
            return;
        }
        int limit = duties.discardLimitPerSecond;
        if (limit > 0) {
            long now = System.nanoTime();
            tokens = Math.min(limit, tokens + (now - lastRefillNanos) * 1e-9 * limit);
            lastRefillNanos = now;
            if (tokens < 1) {
                discardsLimited++;
                return;
            }
            tokens -= 1;
        }
        int ethertype = r.headerLength >= 14 ? (r.header[12] & 0xFF) << 8 | (r.header[13] & 0xFF) : 0;
        // Nested (kernel) IN_PORT is an OS ifindex, which hsflowd's mod_dropmon uses unmapped: the port's OSINDEX, the
        // number its samples and counters get. VPP's flat u32 stays VPP's interface index (which hsflowd reads as 0).
        long inPort = r.inputIfIndex & 0xFFFFFFFFL;
        long os = e.convention() == NetDm.Convention.KERNEL ? duties.osIndexOf.applyAsLong(r.inputIfIndex) : 0;
        boolean ok = e.emitDrop(DROP_POINTS[DropReason.of(r.dropReason).ordinal()], os != 0 ? os : inPort,
                ethertype == 0 ? 0x0800 : ethertype, r.frameLength, r.header, r.headerLength, r.headerLength, 0);
        if (ok) {
            discardsSent++;
        } else {
            discardsFailed++;
        }
    }

    /**
     * Sends the IF_COUNTERS that are due and, every second, a STATUS.
     *
     * @param now System.nanoTime ({@code Long.MAX_VALUE}: send every interface's counters now)
     */
    void pollCounters(long now) {
        VppUsersockEmitter vpp = duties.vpp;
        if (vpp == null) {
            return;
        }
        boolean flush = now == Long.MAX_VALUE;
        long t = flush ? System.nanoTime() : now;
        if (flush || t - nextStatusNanos >= 0) {
            long fifoDrops = 0;
            for (SampleFifo f : fifos) {
                fifoDrops += f.dropped();
            }
            if (vpp.sendStatus((t - startNanos) / 1_000_000_000L, emitFailed + fifoDrops)) {
                statusSent++;
            } else {
                vppFailed++;
            }
            nextStatusNanos = t + 1_000_000_000L;
        }
        long interval = pollingIntervalSeconds * 1_000_000_000L;
        for (Port p : duties.ports) {
            int i = p.ifIndex();
            if (!flush && t - nextPollNanos[i] < 0) {
                continue;
            }
            sendCounters(vpp, p);
            // Staggered as VPP does: interface i is next due when (elapsed seconds + i) is a multiple of the interval.
            long elapsedS = (t - startNanos) / 1_000_000_000L;
            long intervalS = interval / 1_000_000_000L;
            long waitS = intervalS - ((elapsedS + i) % intervalS);
            nextPollNanos[i] = startNanos + (elapsedS + waitS) * 1_000_000_000L;
        }
        if (flush || t - nextLbPollNanos >= 0) {
            for (int k = 0, n = duties.lbCounters.size(); k < n; k++) {
                duties.lbCounters.get(k).reportCounters(lbc, lbSink);
            }
            nextLbPollNanos = t + interval;
        }
    }

    private boolean sendLb(io.vecflow.netlink.vpp.LbCounters c) {
        if (duties.vpp.sendLbCounters(c)) {
            lbCountersSent++;
            return true;
        }
        vppFailed++;
        return false;
    }

    private void sendCounters(VppUsersockEmitter vpp, Port p) {
        PortCounters c = p.counters();
        long mac = macOf(p);
        for (int k = 0; k < 6; k++) {
            macBytes[k] = (byte) (mac >>> (40 - 8 * k));
        }
        String name = names.apply(p.ifIndex());
        ifc.clear().portName(name != null ? name : p.name()).ifIndex(p.ifIndex()).ifType(6)
                .ifSpeed(p.speedBitsPerSecond())
                .ifDirection(1).operUp(1).adminUp(1)
                .counter(VppUsersock.ATTR_RX_OCTETS, c.sum(PortCounters.RX_OCTETS))
                .counter(VppUsersock.ATTR_TX_OCTETS, c.sum(PortCounters.TX_OCTETS))
                .counter(VppUsersock.ATTR_RX_PKTS, c.sum(PortCounters.RX_PACKETS))
                .counter(VppUsersock.ATTR_TX_PKTS, c.sum(PortCounters.TX_PACKETS))
                .counter(VppUsersock.ATTR_RX_BCASTS, 0)
                .counter(VppUsersock.ATTR_TX_BCASTS, 0)
                .counter(VppUsersock.ATTR_RX_MCASTS, 0)
                .counter(VppUsersock.ATTR_TX_MCASTS, 0)
                .counter(VppUsersock.ATTR_RX_DISCARDS,
                        c.sum(PortCounters.RX_DISCARDS) + duties.graphDropsOn.applyAsLong(p.ifIndex()))
                .counter(VppUsersock.ATTR_TX_DISCARDS, c.sum(PortCounters.TX_DISCARDS))
                .counter(VppUsersock.ATTR_RX_ERRORS, c.sum(PortCounters.RX_ERRORS))
                .counter(VppUsersock.ATTR_TX_ERRORS, c.sum(PortCounters.TX_ERRORS))
                .hwAddress(macBytes);
        long os = duties.osIndexAttributeOf.applyAsLong(p.ifIndex());
        if (os != 0) {
            ifc.osIndex(os);
        }
        if (vpp.sendIfCounters(ifc)) {
            ifCountersSent++;
        } else {
            vppFailed++;
        }
    }

    private volatile IntToLongFunction macs = i -> 0;

    private long macOf(Port p) {
        return macs.applyAsLong(p.ifIndex());
    }

    private volatile java.util.function.IntFunction<String> names = i -> null;

    /** Sets where interface names come from (ifIndex → name) for IF_COUNTERS PORTNAME; default the port's name. */
    public void names(java.util.function.IntFunction<String> n) {
        this.names = n;
    }

    /** Sets where port MAC addresses come from (ifIndex → 48-bit MAC) for IF_COUNTERS HW_ADDRESS. */
    public void macs(IntToLongFunction m) {
        this.macs = m;
    }

    /**
     * Changes the counter polling interval (VPP {@code sflow polling-interval S}); applies from each interface's next
     * poll.
     *
     * @param seconds ≥ 1
     * @throws IllegalArgumentException for 0 or less (VPP would divide by zero later)
     */
    public void setPollingInterval(int seconds) {
        if (seconds < 1) {
            throw new IllegalArgumentException("polling-interval must be >= 1 s, got " + seconds);
        }
        pollingIntervalSeconds = seconds;
    }

    /** @return the polling interval in force, seconds. */
    public int pollingInterval() {
        return pollingIntervalSeconds;
    }

    /** Asks the thread to finish: it drains what is queued, then returns. */
    public void stop() {
        running = false;
    }

    /** @return true once the thread has drained and returned. */
    public boolean finished() {
        return finished;
    }

    /** @return PSAMPLE messages the kernel accepted. */
    public long emitted() {
        return emitted;
    }

    /** @return PSAMPLE sends that failed (each leaves a sequence gap). */
    public long emitFailed() {
        return emitFailed;
    }

    /** @return FIFO drops carried to the agent as sequence gaps so far. */
    public long fifoDropsCarried() {
        return fifoDropsCarried;
    }

    /** @return the last ingress GROUP_SEQ used. */
    public long groupSeq() {
        return groupSeq;
    }

    /** @return NET_DM alerts sent. */
    public long discardsSent() {
        return discardsSent;
    }

    /** @return NET_DM alerts that failed (no emitter, or send failure). */
    public long discardsFailed() {
        return discardsFailed;
    }

    /** @return discards not sent because of the per-second limit. */
    public long discardsLimited() {
        return discardsLimited;
    }

    /** @return IF_COUNTERS messages sent. */
    public long ifCountersSent() {
        return ifCountersSent;
    }

    /** @return vecflow LB_COUNTERS messages sent. */
    public long lbCountersSent() {
        return lbCountersSent;
    }

    /** @return STATUS messages sent. */
    public long statusSent() {
        return statusSent;
    }

    /** @return IF_COUNTERS/STATUS/LB_COUNTERS sends that failed. */
    public long vppFailed() {
        return vppFailed;
    }
}
