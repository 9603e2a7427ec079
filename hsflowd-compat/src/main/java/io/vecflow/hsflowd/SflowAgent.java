package io.vecflow.hsflowd;

import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.hsflowd.counters.CounterPoller;
import io.vecflow.hsflowd.datagram.PendingDatagram;
import io.vecflow.hsflowd.datagram.Samplers;
import io.vecflow.hsflowd.net.CollectorSocket;
import io.vecflow.hsflowd.net.DatagramListener;
import io.vecflow.hsflowd.net.DatagramSender;
import io.vecflow.hsflowd.psample.PsampleModule;
import io.vecflow.hsflowd.vpp.VppModule;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.vpp.VppIfCounters;
import io.vecflow.netlink.vpp.VppStatus;
import io.vecflow.sflow.CounterSample;
import io.vecflow.sflow.DatagramBuilder;
import io.vecflow.sflow.FlowSample;
import java.io.IOException;
import java.net.InetAddress;
import java.util.Arrays;

/**
 * The hsflowd-compatible agent core: turns packet samples (from PSAMPLE) into sFlow v5 datagrams and sends them to
 * every collector.
 *
 * <p>The agent holds the state its modules share — the datagram being filled ({@link PendingDatagram}: sequence
 * numbers, uptime, the 1 s flush), the per-source samplers ({@link Samplers}), the sender ({@link DatagramSender}) —
 * and hands each message to its module: PSAMPLE samples to the psample module ({@link PsampleModule}: hsflowd's flow
 * sampling conventions, sequence gaps, one sampler per port, LB decision records), VPP's USERSOCK messages to the vpp
 * module ({@link VppModule}: port mapping, IF_COUNTERS, STATUS drops, LB counters); the dropmon and counters modules
 * add their samples through {@link #addDiscardSample} and {@link #onCounterSample}.
 *
 * <p>Sub-agent, as hsflowd 2.x ({@link #subAgentIdOf}): {@code subAgentId} (default 100000) when the config names a
 * packet source (psample, vpp or dropmon), counter samples then riding in the same datagrams; {@code subAgentId + 1}
 * (100001) for a counters-only config.
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
public final class SflowAgent implements CounterPoller.Sink, AutoCloseable {
    /** sFlow "internal" interface value (the packet starts or ends in the device itself). */
    public static final long INTERNAL_INTERFACE = PsampleModule.INTERNAL_INTERFACE;
    /** A port owner silent this long loses the port to another producer (ms). */
    public static final long OWNER_LAPSE_MS = PsampleModule.OWNER_LAPSE_MS;
    /** VPP's PSAMPLE group of ingress samples (FDio/vpp sflow.h SFLOW_VPP_PSAMPLE_GROUP_INGRESS). */
    public static final int VPP_GROUP_INGRESS = VppModule.GROUP_INGRESS;
    /** VPP's PSAMPLE group of egress samples. */
    public static final int VPP_GROUP_EGRESS = VppModule.GROUP_EGRESS;

    private final HsflowdConfig config;
    private byte[] agentAddress;
    private final DatagramSender sender;
    private final PendingDatagram pending;
    private final Samplers samplers = new Samplers();
    private final VppModule vpp;
    private final PsampleModule psample;
    private long agentAddressChanges;

    /**
     * @param config the parsed hsflowd.conf
     * @param agentAddress the agent address to put in datagrams (IPv4 or IPv6)
     * @throws IOException if the UDP socket cannot be opened or a collector name does not resolve; for a collector
     *         with {@code dev} or {@code namespace}, if its own socket cannot be opened ({@link CollectorSocket#open}:
     *         the message names the collector's line and the reason, e.g. no such namespace or device). Construct
     *         the agent while still root: those sockets need CAP_SYS_ADMIN / CAP_NET_RAW.
     */
    public SflowAgent(HsflowdConfig config, InetAddress agentAddress) throws IOException {
        this(config, agentAddress, System::nanoTime);
    }

    /**
     * As {@link #SflowAgent(HsflowdConfig, InetAddress)} on a given monotonic clock: the 1 s flush of a datagram's
     * oldest sample, the datagram uptime and the samplers' ownership lapse follow it.
     *
     * @param nanoClock nanoseconds, monotonic ({@link System#nanoTime()} in the daemon; tests step their own)
     * @throws IOException as the two-argument constructor
     */
    public SflowAgent(HsflowdConfig config, InetAddress agentAddress, java.util.function.LongSupplier nanoClock)
            throws IOException {
        this.config = config;
        this.agentAddress = agentAddress.getAddress();
        long subAgent = subAgentIdOf(config);
        DatagramBuilder builder = new DatagramBuilder(config.datagramBytes, this.agentAddress, subAgent);
        this.sender = new DatagramSender(config, builder.buffer().length);
        this.pending = new PendingDatagram(builder, config.datagramBytes, subAgent, sender, nanoClock);
        this.vpp = new VppModule(config, samplers, pending);
        this.psample = new PsampleModule(config, samplers, pending, vpp, nanoClock);
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
        agentAddress = a;
        pending.restart(a);
        agentAddressChanges++;
        return true;
    }

    /** Adds an observer of every datagram sent. */
    public synchronized void addListener(DatagramListener l) {
        sender.addListener(l);
    }

    /**
     * @return the UDP source port datagrams leave from to collectors without {@code dev} or {@code namespace} (each
     *         collector with one has its own socket: {@link #collectorSocket(int)})
     */
    public int localPort() {
        return sender.localPort();
    }

    /**
     * @param index position of the collector in {@link HsflowdConfig#collectors}
     * @return the collector's own socket (bound to its {@code dev}, created in its {@code namespace}), or null when it
     *         names neither and shares the agent's socket
     * @throws IndexOutOfBoundsException if there is no such collector
     */
    public CollectorSocket collectorSocket(int index) {
        return sender.collectorSocket(index);
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
        psample.onSample(group, groupSeq, inputIfIndex, outputIfIndex, origSize, samplingRate, data, offset, length);
    }

    /**
     * Takes one decoded PSAMPLE message, in either convention ({@link PsampleModule}): group, GROUP_SEQ and the
     * producer's nlmsg_pid for gap accounting, ifindexes (absent = 0), ORIGSIZE, SAMPLE_RATE, PROTO and DATA (truncated
     * to {@code headerBytes}). Allocation-free.
     */
    public synchronized void onPsample(PsampleSample s) {
        psample.onPsample(s);
    }

    /**
     * Adds one discarded_packet sample (0:5, sflow_drops.txt) built by the dropmon module to the pending datagram,
     * flushing first when it does not fit; the sample rides in the same datagrams (and datagram sequence) as the flow
     * samples, and its oldest-sample time starts the 1 s flush like theirs. The caller owns the sample's sequence
     * number, source and drops fields; with {@code vpp { osIndex = off }} the source, input and output are put into
     * VPP's own numbers first ({@code VppModule#mapDiscard}).
     *
     * @param s a 0:5 holder (its views must be valid during the call; not kept)
     * @return false, counted in {@link #discardsRefused()}, if the encoder refuses it or it does not fit even an empty
     *         datagram of {@code datagramBytes}
     */
    public synchronized boolean addDiscardSample(FlowSample s) {
        vpp.mapDiscard(s); // vpp { osIndex = off }: into VPP's numbers, as hsflowd's mod_vpp
        return pending.addDiscardSample(s);
    }

    /** @return discarded_packet samples put into datagrams. */
    public synchronized long discardsSent() {
        return pending.discardsSent();
    }

    /** @return discarded_packet samples refused (encoder refusal or larger than a datagram). */
    public synchronized long discardsRefused() {
        return pending.discardsRefused();
    }

    /**
     * Takes one VPP STATUS message: DROPS becomes an increment (see {@link VppModule}) owed to the next VPP flow
     * sample. Messages without DROPS are ignored. Allocation-free.
     */
    public synchronized void onVppStatus(VppStatus st) {
        vpp.onStatus(st);
    }

    /**
     * Takes one VPP IF_COUNTERS message: updates the port table and appends one expanded counters sample (0:4 with
     * records 0:1005, 0:1) to the pending datagram. A message without IFINDEX, or IFINDEX 0, is ignored
     * and counted. Without a {@code vpp {}} block every message is ignored. Allocation-free after the port's first
     * message.
     */
    public synchronized void onVppIfCounters(VppIfCounters c) {
        vpp.onIfCounters(c);
    }

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
        vpp.onLbCounters(c);
    }

    /** @return LB counters samples put into datagrams. */
    public synchronized long lbCountersSent() {
        return vpp.lbCountersSent();
    }

    /** @return LB_COUNTERS messages ignored (no vpp block, lbCounters off, or indexes out of range). */
    public synchronized long lbCountersIgnored() {
        return vpp.lbCountersIgnored();
    }

    /**
     * Adds one counters sample (0:2 or 0:4, with its records; e.g. from
     * {@link io.vecflow.hsflowd.counters.CounterPoller}) to the pending datagram, flushing it first when
     * the sample does not fit; the sample then waits at most 1 s like a flow sample. The sample's own sequence number
     * and source are sent as given. Allocation-free.
     *
     * @param s the sample (read during the call only)
     * @return false, with nothing added (counted in {@link #counterSamplesRefused()}), if the sample cannot be encoded
     *         or is larger than an empty datagram
     */
    @Override
    public synchronized boolean onCounterSample(CounterSample s) {
        return pending.addCounterSample(s);
    }

    /** @return counters samples put into datagrams. */
    public synchronized long counterSamplesSent() {
        return pending.counterSamplesSent();
    }

    /** @return counters samples refused (unencodable, or larger than an empty datagram). */
    public synchronized long counterSamplesRefused() {
        return pending.counterSamplesRefused();
    }

    /** @return samples dropped by sub-sampling to the configured {@code sampling} rate. */
    public synchronized long subSampledOut() {
        return psample.subSampledOut();
    }

    /** Flushes the pending datagram if its oldest sample is at least 1 s old. Call at least every 100 ms. */
    public synchronized void tick() {
        pending.tick();
    }

    /** Sends the pending datagram now, if it holds any sample. */
    public synchronized void flush() {
        pending.flush();
    }

    /** @return samples received from the PSAMPLE source. */
    public synchronized long samplesIn() {
        return psample.samplesIn();
    }

    /** @return samples ignored (group not configured). */
    public synchronized long samplesIgnored() {
        return psample.samplesIgnored();
    }

    /** @return flow samples that carried a "vecflow LB decision" record. */
    public synchronized long lbDecisionsSent() {
        return psample.lbDecisionsSent();
    }

    /** @return PSAMPLE user cookies that were not a valid LB decision (the sample went out without the record). */
    public synchronized long lbCookieErrors() {
        return psample.lbCookieErrors();
    }

    /** @return the LB decision record's data_format ({@code lbEnterprise << 12 | 1}). */
    public int lbDecisionDataFormat() {
        return psample.lbDecisionDataFormat();
    }

    /**
     * @return flow records made from the kernel's optional PSAMPLE attributes (OUT_TC → 0:1036, OUT_TC_OCC → 0:1040,
     *     LATENCY → 0:1039, TIMESTAMP → 0:1043), as hsflowd's mod_psample adds them ahead of the sampled header
     */
    public synchronized long extendedRecordsSent() {
        return psample.extendedRecordsSent();
    }

    /** @return samples put into datagrams. */
    public synchronized long samplesSent() {
        return psample.samplesSent();
    }

    /** @return drops added from PSAMPLE group sequence gaps. */
    public synchronized long sequenceGapDrops() {
        return psample.sequenceGapDrops();
    }

    /** @return datagrams sent (one per collector). */
    public synchronized long datagramsSent() {
        return sender.datagramsSent();
    }

    /** @return datagram sends that failed. */
    public synchronized long sendFailures() {
        return sender.sendFailures();
    }

    /** @return bytes sent in datagrams. */
    public synchronized long bytesSent() {
        return sender.bytesSent();
    }

    /** @return the drops field of the last flow sample built. */
    public synchronized long lastDropsField() {
        return psample.lastDropsField();
    }

    /** @return the last datagram sequence number used. */
    public synchronized long datagramSequence() {
        return pending.datagramSequence();
    }

    /**
     * The sub-agent id in the agent's datagrams, as hsflowd 2.1 chooses it: hsflowd runs two sFlow agents on one
     * address, one for packets ({@code subAgentId}, default 100000) and one for polling ({@code subAgentId + 1};
     * host-sflow src/Linux/hsflowd.c {@code sp->poll_agent}), and when a packet source is configured its counter
     * samples travel in the packet agent's datagrams (observed on hsflowd 2.1.25, docs/netlink.md §5 "Agents and
     * datagrams"). So: {@code subAgentId} with a psample, vpp or dropmon block, {@code subAgentId + 1} for a
     * counters-only config.
     *
     * @param config the configuration
     * @return the sub-agent id of every datagram the agent sends
     */
    public static long subAgentIdOf(HsflowdConfig config) {
        return config.datagramSubAgentId();
    }

    /** @return flow samples refused because another producer owns their port (one sampler per port). */
    public synchronized long duplicateSamples() {
        return psample.duplicateSamples();
    }

    /** @return counter samples that could not be encoded (e.g. larger than an empty datagram). */
    public synchronized long counterSamplesDropped() {
        return vpp.counterSamplesDropped();
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
    @Override
    public synchronized boolean vppCountsInterface(long ifIndex) {
        return vpp.countsInterface(ifIndex);
    }

    /** @return IF_COUNTERS messages ignored (no vpp block, or no / zero IFINDEX). */
    public synchronized long vppCountersIgnored() {
        return vpp.countersIgnored();
    }

    /** @return STATUS messages taken. */
    public synchronized long vppStatusMessages() {
        return vpp.statusMessages();
    }

    /** @return drops VPP reported in STATUS since the baseline (increments summed). */
    public synchronized long vppDropsReported() {
        return vpp.dropsReported();
    }

    /** @return VPP-reported drops added to flow samples beyond those already seen as sequence gaps. */
    public synchronized long vppDropsCharged() {
        return vpp.dropsCharged();
    }

    /** @return VPP sample indexes that were not (yet) in the port table (mapped to 0, unknown). */
    public synchronized long vppUnknownPorts() {
        return vpp.unknownPorts();
    }

    /**
     * Whether a PSAMPLE message is a VPP sample whose sampling port IF_COUNTERS have not named yet (it would not be
     * exported, as hsflowd's mod_vpp): the daemon reads VPP's channel first then, in case the port's IF_COUNTERS are
     * already queued. Allocation-free.
     *
     * @param s the decoded message
     * @return true for a VPP-group sample of a port not known yet
     */
    public synchronized boolean unknownVppSampler(PsampleSample s) {
        return vpp.unknownSampler((int) s.sampleGroup(), s.iifIndex() & 0xFFFFFFFFL, s.oifIndex() & 0xFFFFFFFFL);
    }

    /**
     * @return VPP packet samples not exported because their sampling port was not known from IF_COUNTERS or was
     *     inactive (with the default {@code vpp { }}: sent without OSINDEX), as hsflowd's mod_vpp
     */
    public synchronized long vppInactiveSamples() {
        return vpp.inactiveSamples();
    }

    /** @return GROUP_SEQ restarts seen (a jump back to 0 or 1). */
    public synchronized long producerRestarts() {
        return psample.producerRestarts();
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
            sender.close();
        }
    }
}
