package io.vecflow.hsflowd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.netlink.psample.LbDecisionCookie;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.sflow.LbDecisionRecord;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import org.junit.jupiter.api.Test;

/**
 * The agent side of LB decision telemetry: a PSAMPLE sample with an {@link LbDecisionCookie} goes out as a 0:3 flow
 * sample with two records — sampled_header, then the "vecflow LB decision" record under {@code lbEnterprise} — checked
 * word by word; a bad cookie is counted and the sample sent without it; {@code lbDecisions = off} and the config
 * range are honoured.
 */
class LbDecisionAgentTest {

    private static ByteBuffer oneDatagram(String psampleBlock, PsampleSample s, long[] counts) throws Exception {
        try (DatagramChannel rx = DatagramChannel.open()) {
            rx.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = ((InetSocketAddress) rx.getLocalAddress()).getPort();
            HsflowdConfig c = HsflowdConfig.parse("sflow {\n agentIP = 192.0.2.10\n sampling = 1\n " + psampleBlock
                    + "\n collector { ip = 127.0.0.1 udpport = " + port + " }\n}\n");
            try (SflowAgent a = new SflowAgent(c, InetAddress.getByName("192.0.2.10"))) {
                a.onPsample(s);
                a.flush();
                counts[0] = a.lbDecisionsSent();
                counts[1] = a.lbCookieErrors();
            }
            ByteBuffer b = ByteBuffer.allocate(2048);
            rx.receive(b);
            return b.flip();
        }
    }

    private static PsampleSample sample(byte[] cookie, int cookieLength) {
        byte[] frame = new byte[60];
        frame[12] = 0x08;
        PsampleSample s = new PsampleSample(256).iifIndex(3).origSize(60).sampleGroup(1).groupSeq(1).sampleRate(1)
                .data(frame, 0, 60);
        return cookie == null ? s : s.userCookie(cookie, 0, cookieLength);
    }

    @Test
    void aCookieBecomesTheEnterpriseRecordAfterTheHeader() throws Exception {
        LbDecisionCookie d = new LbDecisionCookie().kind(LbDecisionCookie.Kind.SRLB_ACCEPT_FIRST)
                .vip(new byte[] {10, 0, 0, 100}).backend(new byte[] {10, 0, 1, 1})
                .addCandidate(new byte[] {10, 0, 1, 1}).addCandidate(new byte[] {10, 0, 1, 2}).choiceIndex(1)
                .flow(6, 80).policyMetric(2000);
        byte[] cookie = new byte[LbDecisionCookie.MAX_BYTES];
        int n = d.encode(cookie, 0);
        long[] counts = new long[2];
        ByteBuffer b = oneDatagram("psample { group = 1 lbEnterprise = 0x1092 }", sample(cookie, n), counts);
        assertThat(counts).containsExactly(1, 0);
        assertThat(b.getInt(24)).as("samples").isEqualTo(1);
        int p = 28;
        assertThat(b.getInt(p)).as("0:3").isEqualTo(3);
        int sampleLen = b.getInt(p + 4);
        assertThat(b.getInt(p + 8 + 40)).as("flow_records").isEqualTo(2);
        int r = p + 8 + 44;
        assertThat(b.getInt(r)).as("0:1 sampled_header").isEqualTo(1);
        r += 8 + b.getInt(r + 4);
        assertThat(b.getInt(r)).as("data_format 4242:1").isEqualTo(0x1092 << 12 | 1);
        int len = b.getInt(r + 4);
        assertThat(len).isEqualTo(16 + 16 + 4 + 16 + 20);
        int[] words = new int[len / 4];
        for (int i = 0; i < words.length; i++) {
            words[i] = b.getInt(r + 8 + 4 * i);
        }
        assertThat(words).containsExactly(1, 4, 6, 80, 1, 0x0A000064, 1, 0x0A000101, 2, 1, 0x0A000101, 1, 0x0A000102,
                1, 2000, 0, 0, 0);
        assertThat(r + 8 + len).as("the record ends the sample").isEqualTo(p + 8 + sampleLen);
        assertThat(b.limit()).isEqualTo(p + 8 + sampleLen);
    }

    @Test
    void aBadCookieIsCountedAndTheSampleStillGoesOut() throws Exception {
        long[] counts = new long[2];
        ByteBuffer b = oneDatagram("psample { group = 1 }", sample(new byte[] {1, 2, 3}, 3), counts);
        assertThat(counts).containsExactly(0, 1);
        assertThat(b.getInt(28 + 8 + 40)).as("flow_records").isEqualTo(1);
    }

    @Test
    void lbDecisionsOffLeavesTheRecordOutAndTheRangeIsChecked() throws Exception {
        byte[] cookie = new byte[40];
        int n = new LbDecisionCookie().kind(LbDecisionCookie.Kind.MAGLEV_NEW).vip(new byte[] {10, 0, 0, 1})
                .backend(new byte[] {10, 0, 0, 2}).encode(cookie, 0);
        long[] counts = new long[2];
        ByteBuffer b = oneDatagram("psample { group = 1 lbDecisions = off }", sample(cookie, n), counts);
        assertThat(counts).containsExactly(0, 0);
        assertThat(b.getInt(28 + 8 + 40)).isEqualTo(1);
        assertThat(HsflowdConfig.parse("sflow { collector { ip = 127.0.0.1 } psample { } }").psample.lbEnterprise)
                .isEqualTo(LbDecisionRecord.DEFAULT_ENTERPRISE).isEqualTo(32473);
        assertThatThrownBy(() ->
                HsflowdConfig.parse("sflow { collector { ip = 127.0.0.1 } psample { lbEnterprise = 0 } }"))
                .hasMessageContaining("lbEnterprise").hasMessageContaining("out of range 1..1048575");
        assertThatThrownBy(() ->
                HsflowdConfig.parse("sflow { collector { ip = 127.0.0.1 } psample { lbEnterprise = 1048576 } }"))
                .hasMessageContaining("out of range 1..1048575");
    }
}
