package io.vecflow.lab.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import io.vecflow.netlink.NetlinkWriter;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleCodec;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.psample.PsampleTransport;
import io.vecflow.packet.PcapPacket;
import io.vecflow.packet.PcapReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Dataplane → kernel group (issue 9, check 2): vecflow's PSAMPLE emitter on the genl transport
 * ({@link PsampleEmitter#open} with {@link PsampleTransport#GENL}, VPP convention — as agent-dataplane's
 * SflowMainThread uses it) sends into the real kernel's "packets" group; two independent receivers get every sample
 * unchanged:
 * <ul>
 *   <li>the judge ({@code psample_judge.py}, plain python sockets): each message byte-for-byte equal to what
 *       {@link PsampleCodec} encodes for it (nlmsg_pid = the emitter's port id, nlmsg_seq 1, 2, …, flags 0), in
 *       order;</li>
 *   <li>vecflow's hsflowd-compatible agent ({@code psample { group=1 transport=genl }}) and the collector: one flow
 *       sample per message with the input port (u32 ifindex, some above 65535), rate, pool, sequence, frame length and
 *       header (cut to headerBytes 128) of the message.</li>
 * </ul>
 * Samples: {@value #COUNT} frames of {@code testdata/traffic/tcpreplay-test.pcap}, header = the first 200 bytes at
 * most (SflowMainThread sends up to 256), GROUP_SEQ from 1 as SflowMainThread numbers them, two input ports.
 */
public final class DataplaneToKernelCheck implements GuestCheck {
    static final int GROUP = 1;
    static final int COUNT = 64;
    static final int RATE = 1000;
    static final int HEADER = 200;
    static final long[] PORTS = {7, 100_000};

    @Override
    public String name() {
        return "dataplane-to-kernel";
    }

    @Override
    public void run() throws Exception {
        List<PcapPacket> frames = PcapReader.readAll(Path.of(System.getProperty("vflab.root", "."),
                "testdata/traffic/tcpreplay-test.pcap")).packets();
        PsampleSample[] samples = new PsampleSample[COUNT];
        for (int i = 0; i < COUNT; i++) {
            PcapPacket f = frames.get(i);
            samples[i] = new PsampleSample(256).iifIndex(PORTS[i % 2]).oifIndex(0).origSize(f.capturedLength())
                    .sampleGroup(GROUP).groupSeq(i + 1L).sampleRate(RATE)
                    .data(f.data(), 0, Math.min(HEADER, f.capturedLength()));
        }
        try (PsampleEmitter em = PsampleEmitter.open(PsampleTransport.GENL, 0, Psample.Convention.VPP);
             AgentUnderTest a = new AgentUnderTest(name(), "sampling = 1\n  headerBytes = 128\n  psample { group = "
                     + GROUP + " transport = genl }")) {
            Check.log("emitter: psample family %d, packets group %d, port id %d", em.nlmsgType(), em.groupId(),
                    em.portId());
            List<PsampleJudge.Message> judged;
            try (PsampleJudge judge = PsampleJudge.start(COUNT, em.portId(), 120)) {
                for (int i = 0; i < COUNT; i++) {
                    Check.that("emit " + i + " accepted by the kernel (errno " + em.lastErrno() + ")",
                            em.emit(samples[i]));
                }
                Check.log("%d samples emitted", COUNT);
                judged = judge.await();
            }
            Check.equal("emitter sent", (long) COUNT, em.sent());
            Check.equal("emitter send failures", 0L, em.sendFailed());
            Check.equal("messages the judge received from the emitter's port id", COUNT, judged.size());
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment buf = arena.allocate(PsampleEmitter.BUFFER_BYTES, 8);
                PsampleCodec codec = new PsampleCodec();
                for (int i = 0; i < COUNT; i++) {
                    int len = codec.encode(samples[i], new NetlinkWriter(buf), em.nlmsgType(), i + 1, em.portId(),
                            Psample.Convention.VPP);
                    byte[] want = buf.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE);
                    PsampleJudge.Message m = judged.get(i);
                    Check.equal("judge message " + i + " bytes", Check.hex(want, 0, want.length),
                            Check.hex(m.raw(), 0, m.raw().length));
                }
            }
            Check.log("judge: %d messages, each byte-for-byte as encoded (nlmsg_seq 1..%d, pid %d, flags 0)", COUNT,
                    COUNT, em.portId());

            List<SeenSample> seen = a.awaitSamples(s -> !s.discard(), COUNT);
            Check.equal("agent flow samples", COUNT, seen.size());
            Map<Long, Long> seqPerPort = new HashMap<>();
            for (int i = 0; i < COUNT; i++) {
                SeenSample s = seen.get(i);
                PsampleSample m = samples[i];
                String w = "agent sample " + i;
                long port = m.iifIndex();
                long seq = seqPerPort.merge(port, 1L, Long::sum);
                Check.equal(w + " source_id", "0:" + port, s.sourceIdType() + ":" + s.sourceIdIndex());
                Check.equal(w + " input", port, s.input());
                Check.equal(w + " output", 0L, s.output());
                Check.equal(w + " sampling_rate", (long) RATE, s.samplingRate());
                Check.equal(w + " sample_pool", seq * RATE, s.samplePool());
                Check.equal(w + " sequence", seq, s.sequence());
                Check.equal(w + " drops", 0L, s.drops());
                Check.equal(w + " header_protocol", 1, s.headerProtocol());
                Check.equal(w + " frame_length", m.origSize() + 4, s.frameLength());
                Check.equal(w + " header", Check.hex(m.data(), 0, Math.min(128, m.dataLength())),
                        Check.hex(s.header(), 0, s.header().length));
            }
            Check.equal("agent: sequence-gap drops", 0L, a.agent().sequenceGapDrops());
            List<JsonNode> rows = a.stopAndReadRows();
            Check.equal("collector rows", COUNT, rows.size());
            for (int i = 0; i < COUNT; i++) {
                JsonNode row = rows.get(i);
                SeenSample s = seen.get(i);
                String w = "collector row " + i;
                Check.equal(w + " source_id", "0:" + s.sourceIdIndex(), row.get("source_id").asText());
                Check.equal(w + " input", s.input(), row.get("input").asLong());
                Check.equal(w + " sampling_rate", (long) RATE, row.get("sampling_rate").asLong());
                Check.equal(w + " sample_pool", s.samplePool(), row.get("sample_pool").asLong());
                Check.equal(w + " frame_length", s.frameLength(), row.get("frame_length").asLong());
                Check.equal(w + " src_mac", KernelToAgentCheck.mac(s.header(), 6), row.get("src_mac").asText());
            }
            Check.log("agent: %d samples as emitted; collector: %d rows", seen.size(), rows.size());
        }
    }
}
