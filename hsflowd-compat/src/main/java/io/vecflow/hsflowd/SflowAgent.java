package io.vecflow.hsflowd;

import io.vecflow.sflow.DatagramBuilder;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.FlowSampleEncoder;
import io.vecflow.sflow.LongObjectMap;
import io.vecflow.sflow.SflowFormats;
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
 * <p>After warm-up, {@link #onSample} allocates nothing per sample (state is keyed by primitive ifIndex and group; new
 * sources allocate their state once). Times come from {@link System#nanoTime()}, so wall-clock steps change neither
 * uptime nor the 1 s flush.
 *
 * <p>Thread-safe: every public method locks the agent.
 */
public final class SflowAgent implements AutoCloseable {
    private static final long U32 = 0xFFFFFFFFL;

    private final HsflowdConfig config;
    private final DatagramBuilder builder;
    private final byte[] agentAddress;
    private final InetSocketAddress[] collectors;
    private final DatagramChannel channel;
    private final ByteBuffer sendView;
    private final long startNanos = System.nanoTime();
    private final LongObjectMap<SamplerState> samplers = new LongObjectMap<>(64);
    private final SamplerState[] smallSamplers = new SamplerState[4096];
    /** Last PSAMPLE GROUP_SEQ per sample group (each group counts on its own). */
    private final LongObjectMap<GroupSequence> groups = new LongObjectMap<>(8);
    /** Copy-on-write, iterated by index: no iterator per datagram. */
    private DatagramListener[] listeners = new DatagramListener[0];
    private long datagramSequence;
    private long rng = System.nanoTime() | 1;
    private long subSampledOut;
    private long oldestSampleNanos;

    /** PSAMPLE GROUP_SEQ of the last sample seen in one group (u32). */
    private static final class GroupSequence {
        long last;
    }

    private long samplesIn, samplesIgnored, sequenceGapDrops, datagramsSent, sendFailures, samplesSent, bytesSent;
    private long lastDropsField;
    private long discardsSent, discardsRefused;

    /**
     * @param config the parsed hsflowd.conf
     * @param agentAddress the agent address to put in datagrams (IPv4 or IPv6)
     * @throws IOException if the UDP socket cannot be opened or a collector name does not resolve
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
        this.channel = DatagramChannel.open();
        channel.bind(null);
        this.sendView = ByteBuffer.wrap(builder.buffer());
    }

    /** Adds an observer of every datagram sent. */
    public synchronized void addListener(DatagramListener l) {
        DatagramListener[] next = Arrays.copyOf(listeners, listeners.length + 1);
        next[listeners.length] = Objects.requireNonNull(l);
        listeners = next;
    }

    /** @return the UDP source port datagrams leave from. */
    public int localPort() {
        try {
            return ((InetSocketAddress) channel.getLocalAddress()).getPort();
        } catch (IOException e) {
            return 0;
        }
    }

    /** @return the agent address placed in datagrams. */
    public InetAddress agentAddress() {
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
        samplesIn++;
        HsflowdConfig.Psample ps = config.psample;
        boolean ingress = ps == null || (ps.ingress && group == ps.group);
        boolean egress = ps != null && ps.egress && group == ps.group + 1;
        if (!ingress && !egress) {
            samplesIgnored++;
            return;
        }
        long ifIndex = (ingress ? inputIfIndex : outputIfIndex) & U32;
        SamplerState s = sampler(ifIndex);
        GroupSequence gs = groups.get(group);
        if (gs != null) {
            long gap = (groupSeq - gs.last - 1) & U32;
            if (gap != 0) {
                long add = gap > 0x7FFFFFFFL ? 1 : gap; // hsflowd: a jump back (or huge jump) counts as 1
                s.drops += add;
                sequenceGapDrops += add;
            }
        } else {
            gs = groups.computeIfAbsent(group, g -> new GroupSequence()); // the first sample of a group is no gap
        }
        gs.last = groupSeq & U32;

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
        headerLength = Math.min(headerLength, builder.maxHeaderLength());
        int need = DatagramBuilder.flowSampleExpandedBytes(headerLength);
        if (!builder.fits(need)) {
            flush();
        }
        if (builder.isEmpty()) {
            oldestSampleNanos = System.nanoTime();
        }
        // Always fits: the header was capped to what an empty datagram holds, and a full one was flushed above.
        builder.addFlowSampleExpanded(s.sequence, SflowFormats.SOURCE_IFINDEX, ifIndex & U32, rate,
                s.samplePool, s.drops & U32, SflowFormats.IF_FORMAT_SINGLE, inputIfIndex & U32,
                SflowFormats.IF_FORMAT_SINGLE, outputIfIndex & U32, SflowFormats.HEADER_PROTOCOL_ETHERNET,
                (origSize + 4) & U32, 4, data, offset, headerLength);
        lastDropsField = s.drops & U32;
        samplesSent++;
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
            sendView.clear().limit(len);
            boolean ok;
            try {
                ok = channel.send(sendView, c) == len;
            } catch (IOException e) {
                ok = false;
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

    /** @return the configuration in force. */
    public HsflowdConfig config() {
        return config;
    }

    @Override
    public synchronized void close() throws IOException {
        flush();
        channel.close();
    }
}
