package io.vecflow.hsflowd;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.netlink.psample.PsampleSample;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The kernel's optional PSAMPLE attributes become the flow records hsflowd's mod_psample makes of them, ahead of the
 * sampled_header (docs/netlink.md §5 and §9: "samples in the kernel's format carry a 0:1043 timestamp record ahead of
 * the others"); layouts as docs/sflow.md gives them. Byte-level on the datagram the agent sends.
 */
class PsampleExtendedRecordsTest {
    @Test
    void timestampQueueAndLatencyGoAheadOfTheSampledHeaderByteByByte() throws Exception {
        HsflowdConfig c = HsflowdConfig.parse("sflow {\n sampling = 1\n headerBytes = 64\n agentIP = 192.0.2.1\n"
                + " psample { group = 1 }\n collector { ip = 127.0.0.1 udpport = 9 }\n}\n");
        List<byte[]> sent = new ArrayList<>();
        byte[] frame = NetlinkGoldenAgentTest.frame(64);
        long ts = 1_764_660_000_123_456_789L;
        try (SflowAgent agent = new SflowAgent(c, InetAddress.getByName("192.0.2.1"))) {
            agent.addListener((buf, len, to, ok) -> sent.add(Arrays.copyOf(buf, len)));
            PsampleSample s = new PsampleSample().sampleGroup(1).groupSeq(0).iifIndex(3).origSize(1000)
                    .sampleRate(1).data(frame, 0, 64).proto(0x0800).timestampNs(ts);
            agent.onPsample(s);
            PsampleSample all = new PsampleSample().sampleGroup(1).groupSeq(1).iifIndex(3).origSize(1000)
                    .sampleRate(1).data(frame, 0, 64).proto(0x0800).outTc(7).outTcOccBytes(0x1_0000_2222L)
                    .latencyNs(33_333).timestampNs(ts + 1);
            agent.onPsample(all);
            PsampleSample none = new PsampleSample().sampleGroup(1).groupSeq(2).iifIndex(3).origSize(1000)
                    .sampleRate(1).data(frame, 0, 64).proto(0x0800);
            agent.onPsample(none);
            agent.flush();
            assertThat(agent.extendedRecordsSent()).isEqualTo(5);
        }
        assertThat(sent).hasSize(1);
        ByteBuffer b = ByteBuffer.wrap(sent.getFirst());
        assertThat(b.getInt(24)).as("samples").isEqualTo(3);
        // first sample at 28: tag 0:3, length, then 11 words of the expanded header; flow_records at 28 + 8 + 40
        int p = 28;
        assertThat(b.getInt(p)).isEqualTo(3);
        int len1 = b.getInt(p + 4);
        assertThat(b.getInt(p + 8 + 40)).as("flow_records").isEqualTo(2);
        int r = p + 8 + 44;
        assertThat(b.getInt(r)).as("extended_timestamp first").isEqualTo(1043);
        assertThat(b.getInt(r + 4)).isEqualTo(8);
        assertThat(b.getLong(r + 8)).isEqualTo(ts);
        assertThat(b.getInt(r + 16)).as("then the sampled header").isEqualTo(1);
        assertThat(len1).isEqualTo(44 + 16 + 8 + 16 + 64);
        // second sample: 0:1036, 0:1040, 0:1039, 0:1043 in the kernel's attribute order, then 0:1
        p += 8 + len1;
        assertThat(b.getInt(p + 8 + 40)).isEqualTo(5);
        r = p + 8 + 44;
        assertThat(new int[] {b.getInt(r), b.getInt(r + 4), b.getInt(r + 8)}).containsExactly(1036, 4, 7);
        assertThat(new int[] {b.getInt(r + 12), b.getInt(r + 16), b.getInt(r + 20)}).containsExactly(1040, 4, 0x2222);
        assertThat(new int[] {b.getInt(r + 24), b.getInt(r + 28), b.getInt(r + 32)}).containsExactly(1039, 4, 33_333);
        assertThat(new int[] {b.getInt(r + 36), b.getInt(r + 40)}).containsExactly(1043, 8);
        assertThat(b.getLong(r + 44)).isEqualTo(ts + 1);
        assertThat(b.getInt(r + 52)).isEqualTo(1);
        int len2 = b.getInt(p + 4);
        // third: just the header
        p += 8 + len2;
        assertThat(b.getInt(p + 8 + 40)).isEqualTo(1);
        assertThat(b.getInt(p + 8 + 44)).isEqualTo(1);
        assertThat(p + 8 + b.getInt(p + 4)).as("datagram end").isEqualTo(sent.getFirst().length);
    }
}
