package io.vecflow.lab.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PcapFile;
import io.vecflow.packet.PcapPacket;
import io.vecflow.packet.PcapReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Kernel → agent (issue 9, check 1): the kernel's own PSAMPLE, made by tc {@code act_sample}, through vecflow's
 * hsflowd-compatible agent ({@code psample { group=5 transport=genl }}) to the collector.
 *
 * <p>Setup: veth pair {@value #TX} ↔ {@value #RX} (IPv6 off, so nothing but our frames crosses it), {@code tc qdisc
 * add dev RX clsact}, {@code tc filter add dev RX ingress matchall action sample rate N group 5 trunc 128}.
 * ProbeFrames: {@code testdata/traffic/tcpreplay-test.pcap} (179 Ethernet frames, tcpreplay's test capture) sent
 * unchanged out of TX with an AF_PACKET socket ({@link PacketSender}), so they enter RX.
 * <ol>
 *   <li>rate 1: every frame is sampled. The agent's samples are exactly the capture in order: source 0:ifindex(RX),
 *       input ifindex(RX), output 0, rate 1, pool = 1, 2, …, drops 0, header_protocol 1, frame_length = frame + 4
 *       (FCS, stripped 4), header = the frame's first min(128, length) bytes. The judge ({@code psample_judge.py})
 *       checks the kernel's own message layout on the way (IIFINDEX u16, GROUP_SEQ from 0, PROTO = the ethertype,
 *       DATA = 128 bytes at most).</li>
 *   <li>rate {@value #RATE_N}: the filter is replaced (the kernel's group is re-created, its GROUP_SEQ restarts at 0,
 *       which the agent must treat as a producer restart, not a gap) and the capture is sent 3 times; act_sample
 *       draws at random, so the samples are checked as an in-order subsequence of the 537 frames with rate N and a
 *       pool growing by N per sample; a marker frame sampled at rate 1 afterwards tells when all have arrived.</li>
 *   <li>the collector's JSON-lines rows: one per sample, same source, input, rate, pool, frame length, MACs and
 *       ethertype as the frames.</li>
 * </ol>
 */
public final class KernelToAgentCheck implements GuestCheck {
    static final String TX = "vflab1a";
    static final String RX = "vflab1b";
    static final int GROUP = 5;
    static final int RATE_N = 8;
    static final int REPEATS = 3;

    @Override
    public String name() {
        return "kernel-to-agent";
    }

    @Override
    public void run() throws Exception {
        Path pcap = Path.of(System.getProperty("vflab.root", "."), "testdata/traffic/tcpreplay-test.pcap");
        PcapFile capture = PcapReader.readAll(pcap);
        Check.equal("link type of " + pcap, LinkType.ETHERNET, capture.linkType());
        List<PcapPacket> frames = capture.packets();
        Check.equal("frames in " + pcap, 179, frames.size());
        Sh.run(false, "ip", "link", "del", TX);
        try {
            Net.vethPair(TX, RX);
            int rx = Sh.ifindex(RX);
            Sh.run("tc", "qdisc", "add", "dev", RX, "clsact");
            sample(1);
            Check.log("veth %s (ifindex %d) → %s (ifindex %d), tc matchall sample rate 1 group %d trunc 128 on %s "
                    + "ingress",
                    TX, Sh.ifindex(TX), RX, rx, GROUP, RX);
            try (AgentUnderTest a = new AgentUnderTest(name(), "sampling = 1\n  headerBytes = 128\n  psample { group = "
                    + GROUP + " transport = genl }");
                 PacketSender tx = new PacketSender(TX)) {
                // ---- phase 1: rate 1, exact ----
                Check.log("agent and collector started");
                List<PsampleJudge.Message> kernelMsgs;
                try (PsampleJudge judge = PsampleJudge.start(frames.size(), 0, 120)) {
                    for (PcapPacket p : frames) {
                        tx.send(p.data(), 0, p.capturedLength());
                    }
                    Check.log("%d frames sent", frames.size());
                    kernelMsgs = judge.await();
                }
                Check.equal("kernel PSAMPLE messages the judge saw", frames.size(), kernelMsgs.size());
                checkKernelLayout(kernelMsgs, frames, rx);
                List<SeenSample> seen = a.awaitSamples(s -> !s.discard(), frames.size());
                Check.log("agent samples: %d", seen.size());
                Check.equal("flow samples from the agent (rate 1)", frames.size(), seen.size());
                for (int i = 0; i < frames.size(); i++) {
                    SeenSample s = seen.get(i);
                    String w = "rate-1 sample " + i;
                    checkCommon(w, s, rx, frames.get(i));
                    Check.equal(w + " sampling_rate", 1L, s.samplingRate());
                    Check.equal(w + " sample_pool", i + 1L, s.samplePool());
                    Check.equal(w + " sequence", i + 1L, s.sequence());
                }
                Check.log("rate 1: %d frames → %d kernel samples → %d agent samples, all exact%n",
                        frames.size(), kernelMsgs.size(), seen.size());

                // ---- phase 2: rate N, random draw ----
                Sh.run("tc", "filter", "del", "dev", RX, "ingress");
                sample(RATE_N);
                for (int r = 0; r < REPEATS; r++) {
                    for (PcapPacket p : frames) {
                        tx.send(p.data(), 0, p.capturedLength());
                    }
                }
                Sh.run("tc", "filter", "del", "dev", RX, "ingress");
                sample(1);
                byte[] marker = marker(Sh.mac(RX), Sh.mac(TX));
                tx.send(marker, 0, marker.length);
                List<SeenSample> all = a.awaitSamples(s -> Arrays.equals(s.header(), marker), 1);
                int markerAt = -1;
                for (int i = frames.size(); i < all.size(); i++) {
                    if (Arrays.equals(all.get(i).header(), marker)) {
                        markerAt = i;
                        break;
                    }
                }
                Check.that("the marker frame sampled at rate 1 reached the agent", markerAt > 0);
                List<SeenSample> rateN = all.subList(frames.size(), markerAt);
                long expected = (long) REPEATS * frames.size() / RATE_N;
                // binomial(537, 1/8): mean 67, sd 7.7; outside 20..140 has a probability far below 1e-9
                Check.between("samples at rate " + RATE_N + " of " + REPEATS * frames.size() + " frames (mean "
                        + expected + ")", 20, 140, rateN.size());
                int next = 0; // index into the capture repeated REPEATS times
                long pool = frames.size(); // phase 1 left the pool at 179
                for (int i = 0; i < rateN.size(); i++) {
                    SeenSample s = rateN.get(i);
                    String w = "rate-" + RATE_N + " sample " + i;
                    while (next < REPEATS * frames.size() && !isHeaderOf(s, frames.get(next % frames.size()))) {
                        next++;
                    }
                    Check.that(w + ": header " + Check.hex(s.header(), 0, Math.min(32, s.header().length))
                            + "… is no later frame of the capture (in order)", next < REPEATS * frames.size());
                    checkCommon(w, s, rx, frames.get(next % frames.size()));
                    Check.equal(w + " sampling_rate", RATE_N, s.samplingRate());
                    pool += RATE_N;
                    Check.equal(w + " sample_pool", pool, s.samplePool());
                    Check.equal(w + " sequence", frames.size() + i + 1L, s.sequence());
                    next++;
                }
                Check.log("rate %d: %d frames → %d agent samples (expected ~%d), each an in-order frame of "
                        + "the capture%n", RATE_N, REPEATS * frames.size(), rateN.size(), expected);
                Check.equal("agent: sequence-gap drops", 0L, a.agent().sequenceGapDrops());
                Check.equal("agent: PSAMPLE decode errors", 0L, a.daemon().subscriber().decodeErrors());

                // ---- the collector ----
                List<JsonNode> rows = a.stopAndReadRows();
                List<SeenSample> sent = a.samples();
                Check.equal("collector rows (= agent samples)", sent.size(), rows.size());
                for (int i = 0; i < rows.size(); i++) {
                    JsonNode row = rows.get(i);
                    SeenSample s = sent.get(i);
                    String w = "collector row " + i;
                    Check.equal(w + " sample_type", "flow", row.get("sample_type").asText());
                    Check.equal(w + " source_id", "0:" + rx, row.get("source_id").asText());
                    Check.equal(w + " input", rx, row.get("input").asLong());
                    Check.equal(w + " output", 0L, row.get("output").asLong());
                    Check.equal(w + " sampling_rate", s.samplingRate(), row.get("sampling_rate").asLong());
                    Check.equal(w + " sample_pool", s.samplePool(), row.get("sample_pool").asLong());
                    Check.equal(w + " frame_length", s.frameLength(), row.get("frame_length").asLong());
                    Check.equal(w + " dst_mac", mac(s.header(), 0), row.get("dst_mac").asText());
                    Check.equal(w + " src_mac", mac(s.header(), 6), row.get("src_mac").asText());
                }
                Check.log("collector: %d rows, each matching its sample%n", rows.size());
                Check.equal("agent datagrams that did not decode", 0L, a.datagramsDecodeFailed());
            }
        } finally {
            Sh.run(false, "ip", "link", "del", TX);
        }
    }

    private static void sample(int rate) {
        Sh.run("tc", "filter", "add", "dev", RX, "ingress", "matchall", "action", "sample", "rate",
                Integer.toString(rate), "group", Integer.toString(GROUP), "trunc", "128");
    }

    /**
     * The kernel's messages, as the judge saw them: one per frame, in order, in the layout docs/kernel-lab.md §4
     * records (IIFINDEX u16, ORIGSIZE, SAMPLE_GROUP, GROUP_SEQ from 0, SAMPLE_RATE, DATA ≤ 128, PROTO = ethertype).
     */
    private static void checkKernelLayout(List<PsampleJudge.Message> msgs, List<PcapPacket> frames, int rx) {
        PsampleJudge.Message first = msgs.getFirst();
        StringBuilder layout = new StringBuilder();
        for (PsampleJudge.Attr at : first.attrs()) {
            layout.append(' ').append(at.type()).append('/').append(at.length());
        }
        Check.log("kernel PSAMPLE message: nlmsg_pid " + first.pid() + ", flags " + first.flags()
                + ", genl cmd " + first.cmd() + " version " + first.version() + ", attributes (id/payload bytes):"
                + layout);
        for (int i = 0; i < msgs.size(); i++) {
            PsampleJudge.Message m = msgs.get(i);
            byte[] f = frames.get(i).data();
            int len = frames.get(i).capturedLength();
            String w = "kernel message " + i;
            Check.equal(w + " nlmsg_pid (kernel)", 0L, m.pid());
            Check.equal(w + " IIFINDEX width (u16)", 2, m.attr(0).length());
            Check.equal(w + " IIFINDEX", rx, m.attr(0).value());
            Check.equal(w + " ORIGSIZE", len, m.attr(2).value());
            Check.equal(w + " SAMPLE_GROUP", GROUP, m.attr(3).value());
            Check.equal(w + " GROUP_SEQ (from 0)", i, m.attr(4).value());
            Check.equal(w + " SAMPLE_RATE", 1L, m.attr(5).value());
            byte[] data = m.attr(6).payload();
            Check.equal(w + " DATA", Check.hex(f, 0, Math.min(128, len)), Check.hex(data, 0, data.length));
            Check.equal(w + " PROTO (skb->protocol)", skbProtocol(f), m.attr(14).value());
        }
    }

    /**
     * {@code skb->protocol} of an Ethernet frame as {@code eth_type_trans} sets it (Linux net/ethernet/eth.c): the
     * ethertype when ≥ 0x600, else ETH_P_802_3 (1) for a payload starting FF FF (raw 802.3), else ETH_P_802_2 (4).
     */
    static long skbProtocol(byte[] f) {
        int type = (f[12] & 0xFF) << 8 | f[13] & 0xFF;
        if (type >= 0x600) {
            return type;
        }
        return (f[14] & 0xFF) == 0xFF && (f[15] & 0xFF) == 0xFF ? 1 : 4;
    }

    private static void checkCommon(String w, SeenSample s, int rx, PcapPacket frame) {
        int len = frame.capturedLength();
        Check.equal(w + " is a flow sample", false, s.discard());
        Check.equal(w + " source_id", "0:" + rx, s.sourceIdType() + ":" + s.sourceIdIndex());
        Check.equal(w + " input", rx, s.input());
        Check.equal(w + " output", 0L, s.output());
        Check.equal(w + " drops", 0L, s.drops());
        Check.equal(w + " header_protocol", 1, s.headerProtocol());
        Check.equal(w + " frame_length (frame + 4-byte FCS)", len + 4L, s.frameLength());
        Check.equal(w + " stripped", 4L, s.stripped());
        Check.equal(w + " header", Check.hex(frame.data(), 0, Math.min(128, len)),
                Check.hex(s.header(), 0, s.header().length));
    }

    private static boolean isHeaderOf(SeenSample s, PcapPacket frame) {
        int n = Math.min(128, frame.capturedLength());
        return s.header().length == n && Arrays.equals(s.header(), 0, n, frame.data(), 0, n);
    }

    /** An Ethernet frame of the local experimental ethertype 0x88B5 carrying "vflab marker". */
    static byte[] marker(byte[] dst, byte[] src) {
        byte[] text = "vflab marker: all rate-N frames were sent before this one".getBytes(StandardCharsets.US_ASCII);
        byte[] f = new byte[14 + text.length];
        System.arraycopy(dst, 0, f, 0, 6);
        System.arraycopy(src, 0, f, 6, 6);
        f[12] = (byte) 0x88;
        f[13] = (byte) 0xB5;
        System.arraycopy(text, 0, f, 14, text.length);
        return f;
    }

    static String mac(byte[] b, int off) {
        return String.format("%02x:%02x:%02x:%02x:%02x:%02x", b[off] & 0xFF, b[off + 1] & 0xFF, b[off + 2] & 0xFF,
                b[off + 3] & 0xFF, b[off + 4] & 0xFF, b[off + 5] & 0xFF);
    }
}
