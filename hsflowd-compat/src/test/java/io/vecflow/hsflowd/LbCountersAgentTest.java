package io.vecflow.hsflowd;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.netlink.vpp.LbCounters;
import io.vecflow.sflow.ByteView;
import io.vecflow.sflow.CounterSample;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.DecodeStats;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.LbCountersRecord;
import io.vecflow.sflow.SflowDecodeException;
import io.vecflow.sflow.SflowDecoder;
import io.vecflow.sflow.SflowVisitor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The agent's side of the LB counters: LB_COUNTERS messages (as the bridge decodes them) become counters samples 0:4
 * for the documented data sources, each with one "vecflow LB counters" record under the configured enterprise; what
 * reaches a real UDP socket is decoded with SflowDecoder and LbCountersRecord and checked field by field.
 */
class LbCountersAgentTest {
    private static final int ENTERPRISE = 4_242;

    private static LbCounters message(int role, int vip, int backendIndex, long base) {
        LbCounters c = new LbCounters();
        c.role = role;
        c.vipIndex = vip;
        c.vip(true, 0x2001_0db8_ffff_0000L, 1);
        c.protocol = 6;
        c.port = 80;
        c.backendIndex = backendIndex;
        if (backendIndex > 0) {
            c.backend(true, 0xfc00_0000_0000_0000L | (long) backendIndex << 32, 0);
        }
        for (int i = 0; i < LbCounters.COUNTERS; i++) {
            c.counters[i] = base + i;
        }
        return c;
    }

    record Got(long sourceType, long sourceIndex, long seq, int format, String record) {}

    private static List<Got> receive(DatagramChannel ch, int want) throws Exception {
        List<Got> out = new ArrayList<>();
        ByteBuffer b = ByteBuffer.allocate(65536);
        SflowDecoder dec = new SflowDecoder(new DecodeStats());
        LbCountersRecord r = new LbCountersRecord();
        long deadline = System.nanoTime() + 3_000_000_000L;
        while (out.size() < want && System.nanoTime() < deadline) {
            b.clear();
            if (ch.receive(b) == null) {
                Thread.sleep(10);
                continue;
            }
            SflowDecodeException e = dec.decode(b.array(), 0, b.position(), new SflowVisitor() {
                @Override
                public void onDatagram(DatagramHeader h) {}

                @Override
                public void onFlowSample(DatagramHeader h, FlowSample s) {}

                @Override
                public void onCounterSample(DatagramHeader h, CounterSample s) {
                    assertThat(s.recordCount).isEqualTo(1);
                    ByteView v = s.unknownBodies[0];
                    try {
                        assertThat(r.decode(v.array, v.offset, v.length)).isTrue();
                    } catch (SflowDecodeException x) {
                        throw new AssertionError(x.getMessage());
                    }
                    out.add(new Got(s.sourceIdType, s.sourceIdIndex, s.sequenceNumber, s.unknownFormats[0],
                            r.toString()));
                }
            });
            assertThat(e).isNull();
        }
        return out;
    }

    @Test
    void lbCountersBecomeVendorCounterSamplesPerVipAndBackend() throws Exception {
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            ch.configureBlocking(false);
            int port = ((InetSocketAddress) ch.getLocalAddress()).getPort();
            HsflowdConfig c = HsflowdConfig.parse("sflow {\n agentIP = 192.0.2.1\n psample { lbEnterprise = "
                    + ENTERPRISE + " }\n vpp { lbSourceBase = 3000000000 }\n collector { ip = 127.0.0.1 udpport = "
                    + port + " }\n}\n");
            assertThat(c.vpp.lbCounters).isTrue();
            assertThat(c.vpp.lbSourceBase).isEqualTo(3_000_000_000L);
            try (SflowAgent agent = new SflowAgent(c, InetAddress.getByName("192.0.2.1"))) {
                agent.onLbCounters(message(LbCounters.ROLE_SRLB_LB, 3, 0, 100));   // VIP totals
                agent.onLbCounters(message(LbCounters.ROLE_SRLB_LB, 3, 2, 200));   // backend slot 1
                agent.onLbCounters(message(LbCounters.ROLE_SRLB_LB, 3, 0, 300));   // the VIP again: seq 2
                agent.onLbCounters(message(LbCounters.ROLE_SRLB_AGENT, 1, 0, 400)); // an agent VIP
                agent.onLbCounters(message(LbCounters.ROLE_SRLB_AGENT, 16, 0, 0));  // out of range: ignored
                agent.onLbCounters(message(LbCounters.ROLE_MAGLEV, 0, 8192, 0));    // out of range: ignored
                agent.flush();
                List<Got> got = receive(ch, 4);
                int format = ENTERPRISE << 12 | 2;
                String vip = "2001:db8:ffff::1";
                assertThat(got).containsExactly(
                        new Got(0, 3_000_000_000L + 3 * 8192, 1, format, "vecflow_lb_counters{role 2 srlb, vip #3 "
                                + vip + " port 80 proto 6, backend #0 , new 100, first 101, second 102, rejects 103, "
                                + "sticky 104, full 105}"),
                        new Got(0, 3_000_000_000L + 3 * 8192 + 2, 1, format, "vecflow_lb_counters{role 2 srlb, vip #3 "
                                + vip + " port 80 proto 6, backend #2 fc00:2::, new 200, first 201, second 202, "
                                + "rejects 203, sticky 204, full 205}"),
                        new Got(0, 3_000_000_000L + 3 * 8192, 2, format, "vecflow_lb_counters{role 2 srlb, vip #3 "
                                + vip + " port 80 proto 6, backend #0 , new 300, first 301, second 302, rejects 303, "
                                + "sticky 304, full 305}"),
                        new Got(0, 3_000_000_000L + 257 * 8192, 1, format, "vecflow_lb_counters{role 3 srlb-agent, "
                                + "vip #1 " + vip + " port 80 proto 6, backend #0 , new 400, first 401, second 402, "
                                + "rejects 403, sticky 404, full 405}"));
                assertThat(agent.lbCountersSent()).isEqualTo(4);
                assertThat(agent.lbCountersIgnored()).isEqualTo(2);
            }
        }
    }

    @Test
    void offOrWithoutAVppBlockNothingIsSent() throws Exception {
        HsflowdConfig off = HsflowdConfig.parse("sflow {\n agentIP = 192.0.2.1\n vpp { lbCounters = off }\n"
                + " collector { ip = 127.0.0.1 udpport = 9 }\n}\n");
        try (SflowAgent agent = new SflowAgent(off, InetAddress.getByName("192.0.2.1"))) {
            agent.onLbCounters(message(LbCounters.ROLE_MAGLEV, 0, 0, 1));
            assertThat(agent.lbCountersSent()).isZero();
            assertThat(agent.lbCountersIgnored()).isEqualTo(1);
        }
        HsflowdConfig none = HsflowdConfig.parse("sflow {\n agentIP = 192.0.2.1\n"
                + " collector { ip = 127.0.0.1 udpport = 9 }\n}\n");
        try (SflowAgent agent = new SflowAgent(none, InetAddress.getByName("192.0.2.1"))) {
            agent.onLbCounters(message(LbCounters.ROLE_MAGLEV, 0, 0, 1));
            assertThat(agent.lbCountersIgnored()).isEqualTo(1);
        }
    }
}
