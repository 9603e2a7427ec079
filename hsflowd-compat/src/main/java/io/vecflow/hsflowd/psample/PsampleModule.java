package io.vecflow.hsflowd.psample;

import io.vecflow.common.LongObjectMap;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.hsflowd.datagram.PendingDatagram;
import io.vecflow.hsflowd.datagram.SamplerState;
import io.vecflow.hsflowd.datagram.Samplers;
import io.vecflow.hsflowd.vpp.VppModule;
import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.psample.LbDecisionCookie;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.sflow.DatagramBuilder;
import io.vecflow.sflow.LbDecisionRecord;
import io.vecflow.sflow.SflowFormats;
import io.vecflow.sflow.XdrWriter;
import java.util.Objects;

/**
 * The psample module: turns packet samples (PSAMPLE messages, or samples handed in directly) into expanded flow
 * samples (0:3) in the pending datagram.
 *
 * <p>Follows hsflowd's conventions (docs/netlink.md §5 "hsflowd conventions"): one expanded flow sample (0:3) per
 * packet sample with one sampled_header record (0:1, header_protocol 1, frame_length = ORIGSIZE + 4, stripped = 4,
 * header ≤ headerBytes); source 0:ifIndex of the input port; sample_pool += N per incoming sample (an estimate, as in
 * hsflowd); a source sampling more often than {@code sampling=} is sub-sampled to it (each sample kept with probability
 * N / sampling, reported rate = sampling); a PSAMPLE group sequence gap adds to the sampler's drops (a gap above
 * 0x7FFFFFFF counts as 1); datagram sequence numbers start at 1; uptime = ms since the agent was created; a datagram is
 * flushed when the next sample would exceed datagramBytes, or when its oldest sample is 1 s old.
 *
 * <p>Samples are taken from the {@code psample { group= }} group (ingress, source = input port) and, with
 * {@code egress=on}, from group + 1 (source = output port); other groups are ignored and counted. Without a
 * {@code psample} block every group is taken as ingress (hsflowd itself would read no samples then: it needs the
 * block to load mod_psample). A sampled header longer than an otherwise empty datagram can hold (only possible with a
 * small datagramBytes, e.g. 128 header bytes in 200-byte datagrams) is cut to fit, where hsflowd drops the sample.
 *
 * <p>PSAMPLE conventions ({@link #onPsample}; docs/netlink.md §2): the kernel's (u16 ifindexes omitted when 0, PROTO =
 * an ethertype, GROUP_SEQ from 0) and VPP's (u32 ifindexes, PROTO = 1, GROUP_SEQ from 1, groups 3/4) are both taken.
 * PROTO below 0x600 from a user-space producer is an sFlow header_protocol (VPP) and is used as such; from the kernel
 * (nlmsg_pid 0) PROTO is {@code skb->protocol} — an ethertype, or ETH_P_802_2 (4) / ETH_P_802_3 (1) for 802.3
 * length-field frames such as STP (seen in the kernel lab) — and the header starts at the MAC header, header_protocol
 * 1. Sequence gaps are tracked per (group, producer nlmsg_pid), so two producers sharing a group never see each other's
 * numbers as gaps; a backwards jump to 0 or 1 is a producer restart (no drop). One sampler per port (docs/netlink.md §6
 * rule 6, host-sflow PR #91): with a {@code vpp {}} block, a port VPP reports with a Linux OSINDEX takes flow samples
 * only from VPP's groups 3/4 (a tc {@code sample} on its linux-cp tap would double them); otherwise the first producer
 * (nlmsg_pid) to sample a port owns it until it has been silent for {@value #OWNER_LAPSE_MS} ms (a restarted producer
 * takes over). Refused samples are counted in {@link #duplicateSamples()}. An egress sample without an input ifindex
 * (locally originated) gets input 0x3FFFFFFF (internal, sFlow v5 "interface format 0").
 *
 * <p>Load-balancer decisions (vecflow extension; README "Load-balancer decisions"): a PSAMPLE sample whose
 * USER_COOKIE is an {@link LbDecisionCookie} gets a second flow record after its sampled_header, the "vecflow LB
 * decision" record ({@link LbDecisionRecord}, data_format = {@code psample { lbEnterprise }} &lt;&lt; 12 | 1, default
 * enterprise {@value io.vecflow.sflow.LbDecisionRecord#DEFAULT_ENTERPRISE}); {@code lbDecisions = off} leaves it out.
 * A cookie that is not a valid decision is counted ({@link #lbCookieErrors()}) and the sample goes out without the
 * record. Allocation-free.
 *
 * <p>After warm-up, {@link #onSample} allocates nothing per sample (state is keyed by primitive ifIndex and group;
 * new sources allocate their state once). Not thread-safe: the agent calls it under its lock.
 */
public final class PsampleModule {
    private static final long U32 = 0xFFFFFFFFL;

    /** sFlow "internal" interface value (the packet starts or ends in the device itself). */
    public static final long INTERNAL_INTERFACE = 0x3FFFFFFFL;
    /** A port owner silent this long loses the port to another producer (ms). */
    public static final long OWNER_LAPSE_MS = 5000;

    private final HsflowdConfig config;
    private final Samplers samplers;
    private final PendingDatagram pending;
    private final VppModule vpp;
    /** Last PSAMPLE GROUP_SEQ per (sample group, producer nlmsg_pid): key group << 32 | pid. */
    private final LongObjectMap<GroupSequence> groups = new LongObjectMap<>(8);
    private long rng = System.nanoTime() | 1;
    private final java.util.function.LongSupplier clock;
    private long subSampledOut;
    private long samplesIn, samplesIgnored, sequenceGapDrops, samplesSent;
    private long duplicateSamples, producerRestarts;
    private long lbDecisionsSent, lbCookieErrors;
    private final boolean lbDecisions;
    private final int lbDataFormat;
    private final LbDecisionCookie lbCookie = new LbDecisionCookie();
    private final LbDecisionRecord lbRecord = new LbDecisionRecord();
    private final XdrWriter lbBody = new XdrWriter(LbDecisionRecord.MAX_BYTES);
    private final byte[] lbAddr4 = new byte[4];
    private final byte[] lbAddr16 = new byte[16];
    private long lastDropsField;

    /** PSAMPLE GROUP_SEQ of the last sample seen from one producer in one group (u32). */
    private static final class GroupSequence {
        long last;
    }

    /**
     * @param config the parsed hsflowd.conf ({@code psample}, {@code sampling}, {@code headerBytes})
     * @param samplers the agent's per-source state
     * @param pending the datagram being filled
     * @param vpp the vpp module (VPP's groups 3/4, its port mapping and STATUS drops)
     * @param clock monotonic nanoseconds (the samplers' ownership lapse)
     */
    public PsampleModule(HsflowdConfig config, Samplers samplers, PendingDatagram pending, VppModule vpp,
            java.util.function.LongSupplier clock) {
        this.clock = clock;
        this.config = config;
        this.samplers = samplers;
        this.pending = pending;
        this.vpp = vpp;
        this.lbDecisions = config.psample == null || config.psample.lbDecisions;
        this.lbDataFormat = LbDecisionRecord.dataFormat(config.psample != null ? config.psample.lbEnterprise
                : LbDecisionRecord.DEFAULT_ENTERPRISE);
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
    public void onSample(int group, long groupSeq, long inputIfIndex, long outputIfIndex, long origSize,
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
    public void onPsample(PsampleSample s) {
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
        boolean vppGroup = vpp.isVppGroup(group);
        boolean ingress;
        boolean egress;
        if (vppGroup) {
            ingress = group == VppModule.GROUP_INGRESS;
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
            if (!vpp.active(ingress ? in : out)) {
                sequenceGap(group, pid, groupSeq); // keeps the group's sequence; the sample is not exported
                return;
            }
            in = vpp.map(in);
            out = vpp.map(out);
        } else if (!vpp.exportsNonVppSamples()) {
            return; // vpp { osIndex = off }: only VPP ports are sampled (hsflowd mod_vpp evt_flow_sample)
        }
        if (egress && in == 0) {
            in = INTERNAL_INTERFACE; // locally originated (kernel omits IIFINDEX; VPP's local0 is 0)
        }
        long ifIndex = ingress ? in : out;
        long gap = sequenceGap(group, pid, groupSeq);
        long now = clock.getAsLong();
        SamplerState s = samplers.get(ifIndex);
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
                vpp.gapDrops(gap);
            }
        }
        if (vppGroup) {
            s.drops += vpp.takeOwedDrops(); // VPP's STATUS drops not already seen as gaps: added once
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
        DatagramBuilder builder = pending.builder();
        int headerLength = Math.min(length, config.headerBytes);
        int extraBytes = lbBodyLength == 0 ? 0 : 8 + lbBodyLength;
        headerLength = Math.min(headerLength, (builder.maxHeaderLength() - extraBytes) & ~3);
        int need = DatagramBuilder.flowSampleExpandedBytes(headerLength, extraBytes);
        if (!builder.fits(need)) {
            pending.flush();
        }
        pending.startIfEmpty(now);
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
    public long subSampledOut() {
        return subSampledOut;
    }

    /** @return samples received from the PSAMPLE source. */
    public long samplesIn() {
        return samplesIn;
    }

    /** @return samples ignored (group not configured). */
    public long samplesIgnored() {
        return samplesIgnored;
    }

    /** @return flow samples that carried a "vecflow LB decision" record. */
    public long lbDecisionsSent() {
        return lbDecisionsSent;
    }

    /** @return PSAMPLE user cookies that were not a valid LB decision (the sample went out without the record). */
    public long lbCookieErrors() {
        return lbCookieErrors;
    }

    /** @return the LB decision record's data_format ({@code lbEnterprise << 12 | 1}). */
    public int lbDecisionDataFormat() {
        return lbDataFormat;
    }

    /** @return samples put into datagrams. */
    public long samplesSent() {
        return samplesSent;
    }

    /** @return drops added from PSAMPLE group sequence gaps. */
    public long sequenceGapDrops() {
        return sequenceGapDrops;
    }

    /** @return the drops field of the last flow sample built. */
    public long lastDropsField() {
        return lastDropsField;
    }

    /** @return flow samples refused because another producer owns their port (one sampler per port). */
    public long duplicateSamples() {
        return duplicateSamples;
    }

    /** @return GROUP_SEQ restarts seen (a jump back to 0 or 1). */
    public long producerRestarts() {
        return producerRestarts;
    }
}
