package io.vecflow.hsflowd;

import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.psample.LbDecisionCookie;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.vpp.VppIfCounters;
import io.vecflow.netlink.vpp.VppStatus;
import io.vecflow.netlink.vpp.VppUsersock;
import io.vecflow.sflow.CounterRecords;
import io.vecflow.sflow.CounterSample;
import io.vecflow.sflow.DatagramBuilder;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.FlowSampleEncoder;
import io.vecflow.sflow.LbDecisionRecord;
import io.vecflow.common.LongObjectMap;
import io.vecflow.sflow.SflowFormats;
import io.vecflow.sflow.XdrWriter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The hsflowd-compatible agent core: turns packet samples (from PSAMPLE) into sFlow v5 datagrams and sends them to
 * every collector.
 *
 * <p>Follows hsflowd's conventions (project notes "hsflowd conventions"): one expanded flow sample (0:3) per packet
 * sample with one sampled_header record (0:1, header_protocol 1, frame_length = ORIGSIZE + 4, stripped = 4, header ≤
 * headerBytes); source 0:ifIndex of the input port; sample_pool += N per incoming sample (an estimate, as in
 * hsflowd); a source sampling more often than {@code sampling=} is sub-sampled to it (each sample kept with
 * probability N / sampling, reported rate = sampling); a
 * PSAMPLE group sequence gap adds to the sampler's drops (a gap above 0x7FFFFFFF counts as 1); datagram sequence
 * numbers start at 1; uptime = ms since the agent was created; a datagram is flushed when the next sample would exceed
 * datagramBytes, or when its oldest sample is 1 s old.
 *
 * <p>Samples are taken from the {@code psample { group= }} group (ingress, source = input port) and, with
 * {@code egress=on}, from group + 1 (source = output port); other groups are ignored and counted. Without a
 * {@code psample} block every group is taken as ingress (hsflowd itself would read no samples then: it needs the
 * block to load mod_psample). A sampled header longer than an otherwise empty datagram can hold (only possible with a
 * small datagramBytes, e.g. 128 header bytes in 200-byte datagrams) is cut to fit, where hsflowd drops the sample.
 *
 * <p>PSAMPLE conventions ({@link #onPsample}; spec §2): the kernel's (u16 ifindexes omitted when 0, PROTO = an
 * ethertype, GROUP_SEQ from 0) and VPP's (u32 ifindexes, PROTO = 1, GROUP_SEQ from 1, groups 3/4) are both taken.
 * PROTO below 0x600 from a user-space producer is an sFlow header_protocol (VPP) and is used as such; from the kernel
 * (nlmsg_pid 0) PROTO is {@code skb->protocol} — an ethertype, or ETH_P_802_2 (4) / ETH_P_802_3 (1) for 802.3
 * length-field frames such as STP (seen in the kernel lab) — and the header starts at the MAC header, header_protocol
 * 1. Sequence gaps are tracked per (group, producer nlmsg_pid), so two
 * producers sharing a group never see each other's numbers as gaps; a backwards jump to 0 or 1 is a producer restart
 * (no drop). One sampler per port (spec fault #6, host-sflow PR #91): with a {@code vpp {}} block, a port VPP reports
 * with a Linux OSINDEX takes flow samples only from VPP's groups 3/4 (a tc {@code sample} on its linux-cp tap would
 * double them); otherwise the first producer (nlmsg_pid) to sample a port owns it until it has been silent for
 * {@value #OWNER_LAPSE_MS} ms (a restarted producer takes over). Refused samples are counted in
 * {@link #duplicateSamples()}. An egress sample without an input ifindex (locally originated) gets input
 * 0x3FFFFFFF (internal, sFlow v5 "interface format 0").
 *
 * <p>The vpp module ({@code vpp { ifOffset= osIndex= }}, {@link #onVppIfCounters}, {@link #onVppStatus}): VPP's
 * groups 3 (ingress) and 4 (egress) are taken whenever the block is present (even without {@code psample {}}, fault
 * #8), their hw_if_index mapped through {@link VppPorts}. Each IF_COUNTERS sends at once (into the pending datagram)
 * one expanded counters sample 0:4 for source 0:ifIndex with 0:1 generic (VPP's absolute counters, ifType and
 * ifSpeed passed through — fault #16; InUcast = rx packets − multicast − broadcast; counters VPP does not report are
 * all ones, the sFlow "unknown"), 0:2 ethernet (all unknown) and 0:1005 port name. STATUS DROPS (cumulative: PSAMPLE
 * send failures + worker FIFO drops) is turned into increments against a baseline taken at the first STATUS (reset
 * when VPP restarts); since a failed PSAMPLE send also shows as a GROUP_SEQ gap, drops already counted from gaps are
 * subtracted, and what remains is added once, to the next VPP flow sample's sampler — never re-added per sample as
 * hsflowd does (fault #13).
 *
 * <p>Load-balancer decisions (vecflow extension; README "Load-balancer decisions"): a PSAMPLE sample whose
 * USER_COOKIE is an {@link LbDecisionCookie} gets a second flow record after its sampled_header, the "vecflow LB
 * decision" record ({@link LbDecisionRecord}, data_format = {@code psample { lbEnterprise }} &lt;&lt; 12 | 1, default
 * enterprise {@value io.vecflow.sflow.LbDecisionRecord#DEFAULT_ENTERPRISE}); {@code lbDecisions = off} leaves it out.
 * A cookie that is not a valid decision is counted ({@link #lbCookieErrors()}) and the sample goes out without the
 * record. Allocation-free.
 *
 * <p>The agent address may change ({@link #setAgentAddress}): the pending datagram leaves with the old address, then
 * the datagram sequence restarts at 1 and uptime at 0 (sFlow v5: a collector must see a new agent instance).
 *
 * <p>Collectors: one datagram goes to every collector in order. Collectors with neither {@code dev} nor
 * {@code namespace} share one UDP socket ({@link #localPort()}); each one with either gets a socket of its own,
 * opened by the constructor ({@link CollectorSocket}: created inside the namespace, bound to the device), so the
 * agent must be constructed before root is dropped.
 *
 * <p>After warm-up, {@link #onSample} allocates nothing per sample (state is keyed by primitive ifIndex and group; new
 * sources allocate their state once). Times come from {@link System#nanoTime()}, so wall-clock steps change neither
 * uptime nor the 1 s flush.
 *
 * <p>Thread-safe: every public method locks the agent.
 */
public final class SflowAgent implements AutoCloseable {
    private static final long U32 = 0xFFFFFFFFL;

    /** sFlow "internal" interface value (the packet starts or ends in the device itself). */
    public static final long INTERNAL_INTERFACE = 0x3FFFFFFFL;
    /** A port owner silent this long loses the port to another producer (ms). */
    public static final long OWNER_LAPSE_MS = 5000;
    private static final long UNKNOWN_U32 = 0xFFFFFFFFL;

    private final HsflowdConfig config;
    private DatagramBuilder builder;
    private byte[] agentAddress;
    private final InetSocketAddress[] collectors;
    private final DatagramChannel channel;
    /** Per collector: its own socket when it names a dev or namespace, else null (it uses {@link #channel}). */
    private final CollectorSocket[] collectorSockets;
    private ByteBuffer sendView;
    private long startNanos = System.nanoTime();
    private final VppPorts vpp;
    private final CounterSample counterSample = new CounterSample();
    private long vppDropsReported, vppGapDrops, vppDropsCharged;
    private long vppLastDrops = -1, vppLastUptime = -1;
    private long duplicateSamples, counterSamplesSent, counterSamplesDropped, vppStatusMessages, vppCountersIgnored;
    private long producerRestarts, agentAddressChanges;
    private final LongObjectMap<SamplerState> samplers = new LongObjectMap<>(64);
    private final SamplerState[] smallSamplers = new SamplerState[4096];
    /** Last PSAMPLE GROUP_SEQ per (sample group, producer nlmsg_pid): key group << 32 | pid. */
    private final LongObjectMap<GroupSequence> groups = new LongObjectMap<>(8);
    /** Copy-on-write, iterated by index: no iterator per datagram. */
    private DatagramListener[] listeners = new DatagramListener[0];
    private long datagramSequence;
    private long rng = System.nanoTime() | 1;
    private long subSampledOut;
    private long oldestSampleNanos;

    /** PSAMPLE GROUP_SEQ of the last sample seen from one producer in one group (u32). */
    private static final class GroupSequence {
        long last;
    }

    private long samplesIn, samplesIgnored, sequenceGapDrops, datagramsSent, sendFailures, samplesSent, bytesSent;
    private long counterSamplesRefused;
    private long lbDecisionsSent, lbCookieErrors;
    private final boolean lbDecisions;
    private final int lbDataFormat;
    private final LbDecisionCookie lbCookie = new LbDecisionCookie();
    private final LbDecisionRecord lbRecord = new LbDecisionRecord();
    private final XdrWriter lbBody = new XdrWriter(LbDecisionRecord.MAX_BYTES);
    private final byte[] lbAddr4 = new byte[4];
    private final byte[] lbAddr16 = new byte[16];
    private long lastDropsField;
    private final int lbCountersDataFormat;
    private final CounterSample lbSample = new CounterSample();
    private final io.vecflow.sflow.LbCountersRecord lbCountersRecord = new io.vecflow.sflow.LbCountersRecord();
    private final XdrWriter lbCountersBody = new XdrWriter(io.vecflow.sflow.LbCountersRecord.MAX_BYTES);
    private long lbCountersSent, lbCountersIgnored;
    private long discardsSent, discardsRefused;

    /**
     * @param config the parsed hsflowd.conf
     * @param agentAddress the agent address to put in datagrams (IPv4 or IPv6)
     * @throws IOException if the UDP socket cannot be opened or a collector name does not resolve; for a collector
     *         with {@code dev} or {@code namespace}, if its own socket cannot be opened ({@link CollectorSocket#open}:
     *         the message names the collector's line and the reason, e.g. no such namespace or device). Construct
     *         the agent while still root: those sockets need CAP_SYS_ADMIN / CAP_NET_RAW.
     */
    public SflowAgent(HsflowdConfig config, InetAddress agentAddress) throws IOException {
        this.config = config;
        this.agentAddress = agentAddress.getAddress();
        this.builder = new DatagramBuilder(config.datagramBytes, this.agentAddress, config.subAgentId);
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
                    collectorSockets[i] = CollectorSocket.open(c, collectors[i], builder.buffer().length);
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            closeSockets();
            throw e;
        } catch (InterruptedException e) {
            closeSockets();
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while opening collector sockets");
        }
        this.sendView = ByteBuffer.wrap(builder.buffer());
        this.vpp = config.vpp != null ? new VppPorts(config.vpp) : null;
        this.lbDecisions = config.psample == null || config.psample.lbDecisions;
        this.lbDataFormat = LbDecisionRecord.dataFormat(config.psample != null ? config.psample.lbEnterprise
                : LbDecisionRecord.DEFAULT_ENTERPRISE);
        this.lbCountersDataFormat = io.vecflow.sflow.LbCountersRecord.dataFormat(config.psample != null
                ? config.psample.lbEnterprise : LbDecisionRecord.DEFAULT_ENTERPRISE);
    }

    /**
     * Changes the agent address. When it differs from the current one, the pending datagram is sent with the old
     * address, and the datagram sequence number and uptime restart (the next datagram has sequence 1, uptime from 0),
     * as sFlow v5 requires of a new agent instance. Sample sequence numbers and pools continue.
     *
     * @param address the new agent address (IPv4 or IPv6)
     * @return true if the address changed
     */
    public synchronized boolean setAgentAddress(InetAddress address) {
        byte[] a = address.getAddress();
        if (Arrays.equals(a, agentAddress)) {
            return false;
        }
        flush();
        agentAddress = a;
        builder = new DatagramBuilder(config.datagramBytes, a, config.subAgentId);
        sendView = ByteBuffer.wrap(builder.buffer());
        datagramSequence = 0;
        startNanos = System.nanoTime();
        agentAddressChanges++;
        return true;
    }

    /** Adds an observer of every datagram sent. */
    public synchronized void addListener(DatagramListener l) {
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
     *         names neither and shares the agent's socket
     * @throws IndexOutOfBoundsException if there is no such collector
     */
    public CollectorSocket collectorSocket(int index) {
        return collectorSockets[index];
    }

    /** @return the agent address placed in datagrams. */
    public synchronized InetAddress agentAddress() {
        try {
            return InetAddress.getByAddress(agentAddress);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Takes one packet sample.
     *
     * @param group PSAMPLE sample group
     * @param groupSeq PSAMPLE per-group sequence number (u32)
     * @param inputIfIndex input ifIndex (0 = unknown)
     * @param outputIfIndex output ifIndex (0 = unknown / ingress)
     * @param origSize original frame length in bytes without FCS
     * @param samplingRate N of 1-in-N
     * @param data array holding the header bytes (from the start of the frame)
     * @param offset offset of the header bytes in {@code data}
     * @param length header bytes available
     * @throws IndexOutOfBoundsException if {@code offset}/{@code length} do not lie within {@code data} (nothing is
     *         counted or changed then)
     */
    public synchronized void onSample(int group, long groupSeq, long inputIfIndex, long outputIfIndex, long origSize,
            long samplingRate, byte[] data, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, data.length);
        take(group, groupSeq, 0, inputIfIndex, outputIfIndex, origSize, samplingRate,
                SflowFormats.HEADER_PROTOCOL_ETHERNET, data, offset, length, 0);
    }

    /**
     * Takes one decoded PSAMPLE message, in either convention (class comment): group, GROUP_SEQ and the producer's
     * nlmsg_pid for gap accounting, ifindexes (absent = 0), ORIGSIZE, SAMPLE_RATE, PROTO and DATA (truncated to
     * {@code headerBytes}). Allocation-free.
     */
    public synchronized void onPsample(PsampleSample s) {
        int proto = s.proto();
        // The kernel's PROTO is skb->protocol: an ethertype, or for 802.3 length-field frames ETH_P_802_2 (4) /
        // ETH_P_802_3 (1) (eth_type_trans), with DATA from the MAC header either way — never a header_protocol.
        // Only a user-space producer (nlmsg_pid != 0, VPP's convention) sends an sFlow header_protocol there.
        int headerProtocol = s.nlmsgPid() != 0 && proto > 0 && proto < 0x600 ? proto
                : SflowFormats.HEADER_PROTOCOL_ETHERNET;
        int extra = lbDecisions && s.has(Psample.ATTR_USER_COOKIE) ? lbRecordBody(s) : 0;
        take((int) s.sampleGroup(), s.groupSeq(), s.nlmsgPid(), s.iifIndex(), s.oifIndex(), s.origSize(),
                s.sampleRate(), headerProtocol, s.data(), 0, s.dataLength(), extra);
    }

    /**
     * Turns the sample's cookie into the LB decision record body in {@link #lbBody}.
     *
     * @return the body length in bytes, 0 when the cookie is not a valid decision (counted)
     */
    private int lbRecordBody(PsampleSample s) {
        try {
            lbCookie.decode(s.userCookie(), 0, s.userCookieLength());
        } catch (NetlinkFormatException e) {
            lbCookieErrors++;
            return 0;
        }
        LbDecisionCookie c = lbCookie;
        LbDecisionRecord r = lbRecord.clear();
        r.kind = c.kind().code();
        r.protocol = c.protocol();
        r.vipPort = c.vipPort();
        address(r.vip, c.vip(), 0, c.addressLength());
        if (c.hasBackend()) {
            address(r.backend, c.backend(), 0, c.addressLength());
        }
        r.candidateCount = c.candidateCount();
        for (int i = 0; i < c.candidateCount(); i++) {
            address(r.candidates[i], c.candidates(), 16 * i, c.addressLength());
        }
        r.choiceIndex = c.choiceIndex();
        r.policyMetric = c.policyMetric();
        r.flowletId = c.flowletId();
        r.pathWeight = c.pathWeight();
        r.pathId = c.pathId();
        lbBody.reset(0);
        r.encode(lbBody);
        return lbBody.position();
    }

    /** Sets an sFlow address from {@code n} (4 or 16) bytes without allocating. */
    private void address(io.vecflow.sflow.SflowAddress a, byte[] src, int off, int n) {
        byte[] tmp = n == 4 ? lbAddr4 : lbAddr16;
        System.arraycopy(src, off, tmp, 0, n);
        a.set(tmp);
    }

    private void take(int group, long groupSeq, int pid, long inputIfIndex, long outputIfIndex, long origSize,
            long samplingRate, int headerProtocol, byte[] data, int offset, int length, int lbBodyLength) {
        samplesIn++;
        HsflowdConfig.Psample ps = config.psample;
        boolean vppGroup = vpp != null && (group == VPP_GROUP_INGRESS || group == VPP_GROUP_EGRESS);
        boolean ingress;
        boolean egress;
        if (vppGroup) {
            ingress = group == VPP_GROUP_INGRESS;
            egress = !ingress;
        } else {
            ingress = ps == null || (ps.ingress && group == ps.group);
            egress = ps != null && ps.egress && group == ps.group + 1;
        }
        if (!ingress && !egress) {
            samplesIgnored++;
            return;
        }
        long in = inputIfIndex & U32;
        long out = outputIfIndex & U32;
        if (vppGroup) {
            in = vpp.map(in);
            out = vpp.map(out);
        }
        if (egress && in == 0) {
            in = INTERNAL_INTERFACE; // locally originated (kernel omits IIFINDEX; VPP's local0 is 0)
        }
        long ifIndex = ingress ? in : out;
        long gap = sequenceGap(group, pid, groupSeq);
        long now = System.nanoTime();
        SamplerState s = sampler(ifIndex);
        if ((s.vppPort && !vppGroup) || (s.ownerSet && s.ownerPid != pid
                && now - s.ownerLastNanos < OWNER_LAPSE_MS * 1_000_000L)) {
            duplicateSamples++; // one sampler per port: another producer owns this one
            return;
        }
        s.ownerSet = true;
        s.ownerPid = pid;
        s.ownerLastNanos = now;
        if (gap != 0) {
            s.drops += gap;
            sequenceGapDrops += gap;
            if (vppGroup) {
                vppGapDrops += gap;
            }
        }
        if (vppGroup) {
            long owed = vppDropsReported - vppGapDrops - vppDropsCharged;
            if (owed > 0) { // VPP's STATUS drops not already seen as gaps: added once
                s.drops += owed;
                vppDropsCharged += owed;
            }
        }

        long rate = samplingRate & U32;
        // Every incoming sample stands for `rate` packets the source could have sampled.
        s.samplePool = (s.samplePool + rate) & U32;
        long configured = config.sampling & U32;
        if (configured > rate && rate > 0) {
            // hsflowd sub-samples a source that samples more often than `sampling=`: keep each sample with
            // probability rate / configured, and report the configured rate.
            if ((((nextRandom() >>> 32) * configured) >>> 32) >= rate) {
                subSampledOut++;
                return;
            }
            rate = configured;
        }
        s.sequence = (s.sequence + 1) & U32;
        int headerLength = Math.min(length, config.headerBytes);
        int extraBytes = lbBodyLength == 0 ? 0 : 8 + lbBodyLength;
        headerLength = Math.min(headerLength, (builder.maxHeaderLength() - extraBytes) & ~3);
        int need = DatagramBuilder.flowSampleExpandedBytes(headerLength, extraBytes);
        if (!builder.fits(need)) {
            flush();
        }
        if (builder.isEmpty()) {
            oldestSampleNanos = now;
        }
        // Always fits: the header was capped to what an empty datagram holds, and a full one was flushed above.
        builder.addFlowSampleExpanded(s.sequence, SflowFormats.SOURCE_IFINDEX, ifIndex & U32, rate,
                s.samplePool, s.drops & U32, SflowFormats.IF_FORMAT_SINGLE, in,
                SflowFormats.IF_FORMAT_SINGLE, out, headerProtocol,
                (origSize + 4) & U32, 4, data, offset, headerLength, lbDataFormat, lbBody.buffer(), lbBodyLength);
        lastDropsField = s.drops & U32;
        samplesSent++;
        if (lbBodyLength > 0) {
            lbDecisionsSent++;
        }
    }

    /**
     * Adds one discarded_packet sample (0:5, sflow_drops.txt) built by the dropmon module to the pending datagram,
     * flushing first when it does not fit; the sample rides in the same datagrams (and datagram sequence) as the flow
     * samples, and its oldest-sample time starts the 1 s flush like theirs. The caller owns the sample's sequence
     * number, source and drops fields.
     *
     * @param s a 0:5 holder (its views must be valid during the call; not kept)
     * @return false, counted in {@link #discardsRefused()}, if the encoder refuses it or it does not fit even an empty
     *         datagram of {@code datagramBytes}
     */
    public synchronized boolean addDiscardSample(FlowSample s) {
        int need = FlowSampleEncoder.encodedBytes(s);
        if (need < 0) {
            discardsRefused++;
            return false;
        }
        if (!builder.fits(need)) {
            flush();
            if (!builder.fits(need)) {
                discardsRefused++;
                return false;
            }
        }
        if (builder.isEmpty()) {
            oldestSampleNanos = System.nanoTime();
        }
        builder.addFlowSample(s);
        discardsSent++;
        return true;
    }

    /** @return discarded_packet samples put into datagrams. */
    public synchronized long discardsSent() {
        return discardsSent;
    }

    /** @return discarded_packet samples refused (encoder refusal or larger than a datagram). */
    public synchronized long discardsRefused() {
        return discardsRefused;
    }

    /** VPP's PSAMPLE group of ingress samples (FDio/vpp sflow.h SFLOW_VPP_PSAMPLE_GROUP_INGRESS). */
    public static final int VPP_GROUP_INGRESS = 3;
    /** VPP's PSAMPLE group of egress samples. */
    public static final int VPP_GROUP_EGRESS = 4;

    /**
     * Drops revealed by GROUP_SEQ for one (group, producer): hsflowd's rule (a gap adds to drops; a jump above
     * 0x7FFFFFFF counts as 1), except that a jump back to 0 or 1 is a producer restart (kernel sequences start at 0,
     * VPP's at 1) and adds nothing. The first message of a (group, producer) is no gap.
     */
    private long sequenceGap(int group, int pid, long groupSeq) {
        long key = (group & U32) << 32 | (pid & U32);
        GroupSequence gs = groups.get(key);
        long seq = groupSeq & U32;
        if (gs == null) {
            gs = groups.computeIfAbsent(key, g -> new GroupSequence());
            gs.last = seq;
            return 0;
        }
        long gap = (seq - gs.last - 1) & U32;
        gs.last = seq;
        if (gap == 0) {
            return 0;
        }
        if (gap > 0x7FFFFFFFL) {
            if (seq <= 1) {
                producerRestarts++;
                return 0;
            }
            return 1;
        }
        return gap;
    }

    /**
     * Takes one VPP STATUS message: DROPS becomes an increment (see the class comment) owed to the next VPP flow
     * sample. Messages without DROPS are ignored. Allocation-free.
     */
    public synchronized void onVppStatus(VppStatus st) {
        vppStatusMessages++;
        if (!st.hasDrops()) {
            return;
        }
        long d = st.drops();
        boolean restart = st.hasUptimeS() && vppLastUptime >= 0 && st.uptimeS() < vppLastUptime;
        if (st.hasUptimeS()) {
            vppLastUptime = st.uptimeS();
        }
        if (vppLastDrops < 0) {
            vppLastDrops = d; // baseline: drops before this agent listened are not in its samples
            return;
        }
        long delta = restart || d < vppLastDrops ? d : d - vppLastDrops;
        vppLastDrops = d;
        vppDropsReported += delta;
    }

    /**
     * Takes one VPP IF_COUNTERS message: updates the port table and appends one expanded counters sample (0:4 with
     * records 0:1, 0:2, 0:1005) to the pending datagram. A message without IFINDEX, or IFINDEX 0, is ignored and
     * counted. Without a {@code vpp {}} block every message is ignored. Allocation-free after the port's first
     * message.
     */
    public synchronized void onVppIfCounters(VppIfCounters c) {
        if (vpp == null || !c.has(VppUsersock.ATTR_IFINDEX) || c.ifIndex() == 0) {
            vppCountersIgnored++;
            return;
        }
        VppPorts.Port p = vpp.update(c);
        if (p.previousDsIndex >= 0 && p.previousDsIndex != p.dsIndex) {
            SamplerState was = sampler(p.previousDsIndex); // the port moved (OSINDEX learned or changed)
            was.vppPort = false;
            was.vppCounters = false;
        }
        SamplerState st = sampler(p.dsIndex);
        st.vppPort = p.hasOsIndex && p.osIndex != 0 && config.vpp.osIndex;
        st.vppCounters = true;
        st.counterSequence = (st.counterSequence + 1) & U32;
        fillCounterSample(c, p, st);
        if (!builder.addCounterSample(counterSample)) {
            flush();
            if (!builder.addCounterSample(counterSample)) {
                counterSamplesDropped++;
                return;
            }
        }
        if (builder.sampleCount() == 1) {
            oldestSampleNanos = System.nanoTime();
        }
        counterSamplesSent++;
    }

    private void fillCounterSample(VppIfCounters c, VppPorts.Port p, SamplerState st) {
        CounterSample cs = counterSample;
        cs.kind = SflowFormats.COUNTERS_SAMPLE_EXPANDED;
        cs.expanded = true;
        cs.sequenceNumber = st.counterSequence;
        cs.sourceIdType = SflowFormats.SOURCE_IFINDEX;
        cs.sourceIdIndex = p.dsIndex;
        cs.recordFormats[0] = CounterRecords.IF_COUNTERS;
        cs.recordFormats[1] = CounterRecords.ETHERNET;
        cs.recordFormats[2] = CounterRecords.PORT_NAME;
        cs.recordCount = cs.recordsListed = 3;
        CounterRecords r = cs.records;
        CounterRecords.IfCounters g = r.ifCounters;
        g.ifIndex = p.dsIndex;
        g.ifType = c.has(VppUsersock.ATTR_IFTYPE) ? c.ifType() : 0;
        g.ifSpeed = c.ifSpeed();
        g.ifDirection = c.ifDirection();
        g.ifStatus = (c.adminUp() != 0 ? 1 : 0) | (c.operUp() != 0 ? 2 : 0);
        long rxPkts = ctr(c, VppUsersock.ATTR_RX_PKTS);
        long rxM = ctr(c, VppUsersock.ATTR_RX_MCASTS);
        long rxB = ctr(c, VppUsersock.ATTR_RX_BCASTS);
        long txPkts = ctr(c, VppUsersock.ATTR_TX_PKTS);
        long txM = ctr(c, VppUsersock.ATTR_TX_MCASTS);
        long txB = ctr(c, VppUsersock.ATTR_TX_BCASTS);
        g.inOctets = ctr64(c, VppUsersock.ATTR_RX_OCTETS);
        g.inUcastPkts = ucast(c, VppUsersock.ATTR_RX_PKTS, rxPkts, rxM, rxB);
        g.inMulticastPkts = rxM & U32;
        g.inBroadcastPkts = rxB & U32;
        g.inDiscards = ctr(c, VppUsersock.ATTR_RX_DISCARDS) & U32;
        g.inErrors = ctr(c, VppUsersock.ATTR_RX_ERRORS) & U32;
        g.inUnknownProtos = UNKNOWN_U32;
        g.outOctets = ctr64(c, VppUsersock.ATTR_TX_OCTETS);
        g.outUcastPkts = ucast(c, VppUsersock.ATTR_TX_PKTS, txPkts, txM, txB);
        g.outMulticastPkts = txM & U32;
        g.outBroadcastPkts = txB & U32;
        g.outDiscards = ctr(c, VppUsersock.ATTR_TX_DISCARDS) & U32;
        g.outErrors = ctr(c, VppUsersock.ATTR_TX_ERRORS) & U32;
        g.promiscuousMode = 0;
        r.hasIfCounters = true;
        CounterRecords.EthernetCounters e = r.ethernet;
        e.alignmentErrors = e.fcsErrors = e.singleCollisionFrames = e.multipleCollisionFrames = e.sqeTestErrors =
                e.deferredTransmissions = e.lateCollisions = e.excessiveCollisions = e.internalMacTransmitErrors =
                e.carrierSenseErrors = e.frameTooLongs = e.internalMacReceiveErrors = e.symbolErrors = UNKNOWN_U32;
        r.hasEthernet = true;
        r.portName.name.set(p.name, 0, p.nameLength);
        r.hasPortName = true;
    }

    /** A u32 counter VPP sent (low 32 bits), or all ones (sFlow "unknown") when absent. */
    private static long ctr(VppIfCounters c, int id) {
        return c.has(id) ? c.counter(id) : -1L;
    }

    /** A u64 counter VPP sent, or all ones when absent. */
    private static long ctr64(VppIfCounters c, int id) {
        return c.has(id) ? c.counter(id) : -1L;
    }

    /** Unicast = packets − multicast − broadcast (clamped at 0), u32; unknown when VPP sent no packet count. */
    private static long ucast(VppIfCounters c, int pktsId, long pkts, long m, long b) {
        if (!c.has(pktsId)) {
            return UNKNOWN_U32;
        }
        long u = pkts - (m == -1L ? 0 : m) - (b == -1L ? 0 : b);
        return (u < 0 ? 0 : u) & U32;
    }

    /** VIP index span per role in the LB data-source range: the LB's 256 slots, then an SRLB agent's 16 VIPs. */
    private static final int LB_AGENT_VIP_BASE = 256, LB_BACKEND_SPAN = 8192;

    /**
     * Takes one vecflow LB_COUNTERS message (the dataplane's per-VIP / per-backend load-balancer counters, README
     * "Load-balancer counters") and appends one expanded counters sample 0:4 for data source
     * {@code 0:(vpp.lbSourceBase + vipIndex × 8192 + backendIndex)} — an SRLB agent's (role 3) VIPs at vipIndex
     * 256 + n — carrying the single "vecflow LB counters" record ({@link io.vecflow.sflow.LbCountersRecord},
     * data_format = {@code psample { lbEnterprise }} &lt;&lt; 12 | 2) with the message's values. Each source has its
     * own sample sequence. Ignored and counted ({@link #lbCountersIgnored()}) without a {@code vpp {}} block, with
     * {@code vpp { lbCounters = off }}, or for a VIP index, role or backend index outside the range above.
     * Allocation-free after a source's first message.
     */
    public synchronized void onLbCounters(io.vecflow.netlink.vpp.LbCounters c) {
        HsflowdConfig.Vpp v = config.vpp;
        int vipSlot = c.role == io.vecflow.netlink.vpp.LbCounters.ROLE_SRLB_AGENT ? LB_AGENT_VIP_BASE + (int) c.vipIndex
                : (int) c.vipIndex;
        if (v == null || !v.lbCounters || c.role < 1 || c.role > 3 || c.vipIndex < 0
                || c.vipIndex >= (c.role == io.vecflow.netlink.vpp.LbCounters.ROLE_SRLB_AGENT ? 16 : 256)
                || c.backendIndex < 0 || c.backendIndex >= LB_BACKEND_SPAN) {
            lbCountersIgnored++;
            return;
        }
        long index = v.lbSourceBase + (long) vipSlot * LB_BACKEND_SPAN + c.backendIndex;
        io.vecflow.sflow.LbCountersRecord r = lbCountersRecord.clear();
        r.role = c.role;
        r.vipIndex = c.vipIndex;
        r.protocol = c.protocol;
        r.vipPort = c.port;
        address(r.vip, c.vip, 0, c.vipLength);
        r.backendIndex = c.backendIndex;
        if (c.backendLength > 0) {
            address(r.backend, c.backend, 0, c.backendLength);
        }
        long[] k = c.counters;
        r.newFlows = k[io.vecflow.netlink.vpp.LbCounters.NEW_FLOWS];
        r.firstChoiceAccepts = k[io.vecflow.netlink.vpp.LbCounters.FIRST_CHOICE];
        r.secondChoiceAccepts = k[io.vecflow.netlink.vpp.LbCounters.SECOND_CHOICE];
        r.rejects = k[io.vecflow.netlink.vpp.LbCounters.REJECTS];
        r.stickyHits = k[io.vecflow.netlink.vpp.LbCounters.STICKY_HITS];
        r.tableFull = k[io.vecflow.netlink.vpp.LbCounters.TABLE_FULL];
        lbCountersBody.reset(0);
        r.encode(lbCountersBody);
        SamplerState st = sampler(index);
        st.counterSequence = (st.counterSequence + 1) & U32;
        CounterSample cs = lbSample;
        cs.kind = SflowFormats.COUNTERS_SAMPLE_EXPANDED;
        cs.expanded = true;
        cs.sequenceNumber = st.counterSequence;
        cs.sourceIdType = SflowFormats.SOURCE_IFINDEX;
        cs.sourceIdIndex = index;
        cs.recordFormats[0] = lbCountersDataFormat;
        cs.recordCount = cs.recordsListed = 1;
        cs.unknownFormats[0] = lbCountersDataFormat;
        cs.unknownBodies[0].set(lbCountersBody.buffer(), 0, lbCountersBody.position());
        cs.unknownRecords = 1;
        if (onCounterSample(cs)) {
            lbCountersSent++;
        }
    }

    /** @return LB counters samples put into datagrams. */
    public synchronized long lbCountersSent() {
        return lbCountersSent;
    }

    /** @return LB_COUNTERS messages ignored (no vpp block, lbCounters off, or indexes out of range). */
    public synchronized long lbCountersIgnored() {
        return lbCountersIgnored;
    }

    /**
     * Adds one counters sample (0:2 or 0:4, with its records; e.g. from
     * {@link io.vecflow.hsflowd.counters.CounterPoller}) to the pending datagram, flushing it first when the sample
     * does not fit; the sample then waits at most 1 s like a flow sample. The sample's own sequence number and
     * source are sent as given. Allocation-free.
     *
     * @param s the sample (read during the call only)
     * @return false, with nothing added (counted in {@link #counterSamplesRefused()}), if the sample cannot be encoded
     *         or is larger than an empty datagram
     */
    public synchronized boolean onCounterSample(CounterSample s) {
        boolean wasEmpty = builder.isEmpty();
        if (!builder.addCounterSample(s)) {
            if (wasEmpty) {
                counterSamplesRefused++;
                return false;
            }
            flush();
            wasEmpty = true;
            if (!builder.addCounterSample(s)) {
                counterSamplesRefused++;
                return false;
            }
        }
        if (wasEmpty) {
            oldestSampleNanos = System.nanoTime();
        }
        counterSamplesSent++;
        return true;
    }

    /** @return counters samples put into datagrams. */
    public synchronized long counterSamplesSent() {
        return counterSamplesSent;
    }

    /** @return counters samples refused (unencodable, or larger than an empty datagram). */
    public synchronized long counterSamplesRefused() {
        return counterSamplesRefused;
    }

    /** xorshift64* step: 64 random bits for sub-sampling (no allocation, no lock beyond the agent's). */
    private long nextRandom() {
        long x = rng;
        x ^= x >>> 12;
        x ^= x << 25;
        x ^= x >>> 27;
        rng = x;
        return x * 0x2545F4914F6CDD1DL;
    }

    /** @return samples dropped by sub-sampling to the configured {@code sampling} rate. */
    public synchronized long subSampledOut() {
        return subSampledOut;
    }

    private SamplerState sampler(long ifIndex) {
        if (ifIndex >= 0 && ifIndex < smallSamplers.length) {
            SamplerState s = smallSamplers[(int) ifIndex];
            if (s == null) {
                s = smallSamplers[(int) ifIndex] = new SamplerState(ifIndex);
            }
            return s;
        }
        return samplers.computeIfAbsent(ifIndex, SamplerState::new);
    }

    /** Flushes the pending datagram if its oldest sample is at least 1 s old. Call at least every 100 ms. */
    public synchronized void tick() {
        if (!builder.isEmpty() && System.nanoTime() - oldestSampleNanos >= 1_000_000_000L) {
            flush();
        }
    }

    /** Sends the pending datagram now, if it holds any sample. */
    public synchronized void flush() {
        if (builder.isEmpty()) {
            return;
        }
        datagramSequence = (datagramSequence + 1) & U32;
        int len = builder.finish(datagramSequence, ((System.nanoTime() - startNanos) / 1_000_000L) & U32);
        for (int ci = 0; ci < collectors.length; ci++) { // indexed: no iterator on the hot path
            InetSocketAddress c = collectors[ci];
            CollectorSocket own = collectorSockets[ci];
            boolean ok;
            if (own != null) {
                ok = own.send(builder.buffer(), len);
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
                listeners[li].onDatagram(builder.buffer(), len, c, ok);
            }
        }
        builder.reset();
    }

    /** @return samples received from the PSAMPLE source. */
    public synchronized long samplesIn() {
        return samplesIn;
    }

    /** @return samples ignored (group not configured). */
    public synchronized long samplesIgnored() {
        return samplesIgnored;
    }

    /** @return flow samples that carried a "vecflow LB decision" record. */
    public synchronized long lbDecisionsSent() {
        return lbDecisionsSent;
    }

    /** @return PSAMPLE user cookies that were not a valid LB decision (the sample went out without the record). */
    public synchronized long lbCookieErrors() {
        return lbCookieErrors;
    }

    /** @return the LB decision record's data_format ({@code lbEnterprise << 12 | 1}). */
    public int lbDecisionDataFormat() {
        return lbDataFormat;
    }

    /** @return samples put into datagrams. */
    public synchronized long samplesSent() {
        return samplesSent;
    }

    /** @return drops added from PSAMPLE group sequence gaps. */
    public synchronized long sequenceGapDrops() {
        return sequenceGapDrops;
    }

    /** @return datagrams sent (one per collector). */
    public synchronized long datagramsSent() {
        return datagramsSent;
    }

    /** @return datagram sends that failed. */
    public synchronized long sendFailures() {
        return sendFailures;
    }

    /** @return bytes sent in datagrams. */
    public synchronized long bytesSent() {
        return bytesSent;
    }

    /** @return the drops field of the last flow sample built. */
    public synchronized long lastDropsField() {
        return lastDropsField;
    }

    /** @return the last datagram sequence number used. */
    public synchronized long datagramSequence() {
        return datagramSequence;
    }

    /** @return flow samples refused because another producer owns their port (one sampler per port). */
    public synchronized long duplicateSamples() {
        return duplicateSamples;
    }

    /** @return counter samples that could not be encoded (e.g. larger than an empty datagram). */
    public synchronized long counterSamplesDropped() {
        return counterSamplesDropped;
    }

    /**
     * Whether a VPP port's IF_COUNTERS already report {@code ifIndex} (its OSINDEX is that Linux ifindex, or its
     * ifOffset number is): the counters module then sends no counter sample of its own for it, as hsflowd's mod_vpp
     * stops the /proc/net/dev poll of such an adaptor — otherwise the port would appear twice under one ifIndex.
     * Allocation-free.
     *
     * @param ifIndex an interface's ifIndex (u32)
     * @return true when the vpp module owns the interface's counters
     */
    public synchronized boolean vppCountsInterface(long ifIndex) {
        if (vpp == null) {
            return false;
        }
        SamplerState s = ifIndex >= 0 && ifIndex < smallSamplers.length ? smallSamplers[(int) ifIndex]
                : samplers.get(ifIndex);
        return s != null && s.vppCounters;
    }

    /** @return IF_COUNTERS messages ignored (no vpp block, or no / zero IFINDEX). */
    public synchronized long vppCountersIgnored() {
        return vppCountersIgnored;
    }

    /** @return STATUS messages taken. */
    public synchronized long vppStatusMessages() {
        return vppStatusMessages;
    }

    /** @return drops VPP reported in STATUS since the baseline (increments summed). */
    public synchronized long vppDropsReported() {
        return vppDropsReported;
    }

    /** @return VPP-reported drops added to flow samples beyond those already seen as sequence gaps. */
    public synchronized long vppDropsCharged() {
        return vppDropsCharged;
    }

    /** @return VPP sample indexes that were not (yet) in the port table (mapped to ifOffset + index). */
    public synchronized long vppUnknownPorts() {
        return vpp == null ? 0 : vpp.unknownLookups;
    }

    /** @return GROUP_SEQ restarts seen (a jump back to 0 or 1). */
    public synchronized long producerRestarts() {
        return producerRestarts;
    }

    /** @return how often the agent address changed (each restarts the datagram sequence and uptime). */
    public synchronized long agentAddressChanges() {
        return agentAddressChanges;
    }

    /** @return the configuration in force. */
    public HsflowdConfig config() {
        return config;
    }

    @Override
    public synchronized void close() throws IOException {
        try {
            flush();
        } finally {
            closeSockets();
        }
    }

    private void closeSockets() throws IOException {
        for (CollectorSocket s : collectorSockets) {
            if (s != null) {
                s.close();
            }
        }
        channel.close();
    }
}
