package io.vecflow.hsflowd;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.hsflowd.UdpReceiver.Counters;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.hsflowd.counters.CounterPoller;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * hsflowd's most common deployment: an hsflowd.conf with collectors and no psample block. hsflowd runs it and sends
 * host and interface counters from its poll agent, sub-agent subAgentId + 1 (host-sflow src/Linux/hsflowd.c:
 * {@code sp->poll_agent = initAgent(sp, &sp->agentIP, sp->subAgentId+1)}); so does vecflow's agent.
 */
class CountersOnlyAgentTest {
    @Test
    void aConfigWithoutPsampleRunsAndSendsHostAndInterfaceCountersFromSubAgent100001() throws Exception {
        try (UdpReceiver rx = new UdpReceiver()) {
            HsflowdConfig c = HsflowdConfig.parse("sflow {\n polling = 1\n agentIP = 192.0.2.7\n"
                    + " collector { ip = 127.0.0.1 udpport = " + rx.port() + " }\n}\n");
            assertThat(c.psample).isNull();
            assertThat(c.runChecks()).isEmpty();
            SflowAgent agent = new SflowAgent(c, InetAddress.getByName("192.0.2.7"));
            assertThat(HsflowdDaemon.openSubscriber(c)).isNull();
            HsflowdDaemon d = new HsflowdDaemon(agent, null, null, null, CounterPoller.open(c, agent));
            try {
                // polling = 1: the host sample is due at second 0 and every second; the 1 s tick sends it
                assertThat(rx.awaitCounters(1, 5000)).isGreaterThanOrEqualTo(1);
            } finally {
                d.close();
            }
            assertThat(d.failure()).isNull();
            List<Counters> cs = rx.counterSamples();
            assertThat(cs).extracting(Counters::sourceType).contains(2); // the host, 2:1
            assertThat(cs).filteredOn(x -> x.sourceType() == 2).first().extracting(Counters::sourceIndex)
                    .isEqualTo(1L);
            assertThat(rx.datagrams).isNotEmpty();
            assertThat(rx.datagrams).extracting(UdpReceiver.Datagram::subAgentId).containsOnly(100001L);
            assertThat(rx.datagrams.getFirst().sequence()).isEqualTo(1);
            assertThat(agent.samplesIn()).isZero();
        }
    }

    @Test
    void theSubAgentIdInTheDatagramHeaderIsSubAgentIdPlusOneOnlyForACountersOnlyConfig() throws Exception {
        // sFlow v5 datagram header: version, address type 1 (IPv4), 4 address bytes, sub_agent_id, sequence
        ByteBuffer countersOnly = ByteBuffer.wrap(oneDatagram("sflow {\n subAgentId = 4242\n agentIP = 192.0.2.7\n"));
        assertThat(countersOnly.getInt(0)).isEqualTo(5);
        assertThat(countersOnly.getInt(12)).as("hsflowd's poll agent").isEqualTo(4243);
        assertThat(countersOnly.getInt(16)).isEqualTo(1);
        assertThat(countersOnly.getInt(28)).as("a counters sample").isEqualTo(4);
        for (String source : List.of("psample { group = 1 }", "vpp { }", "dropmon { start = off }")) {
            ByteBuffer withSource = ByteBuffer.wrap(oneDatagram("sflow {\n subAgentId = 4242\n agentIP = 192.0.2.7\n "
                    + source + "\n"));
            assertThat(withSource.getInt(12)).as("counters ride in the packet agent's datagrams with %s", source)
                    .isEqualTo(4242);
        }
    }

    /** The one datagram an agent of {@code head} (a config without its collector and closing brace) sends. */
    private static byte[] oneDatagram(String head) throws Exception {
        try (UdpReceiver rx = new UdpReceiver()) {
            HsflowdConfig c = HsflowdConfig.parse(head + " collector { ip = 127.0.0.1 udpport = " + rx.port()
                    + " }\n}\n");
            List<byte[]> sent = new java.util.ArrayList<>();
            try (SflowAgent agent = new SflowAgent(c, InetAddress.getByName("192.0.2.7"))) {
                agent.addListener((buf, len, to, ok) -> sent.add(java.util.Arrays.copyOf(buf, len)));
                io.vecflow.sflow.CounterSample s = new io.vecflow.sflow.CounterSample();
                new io.vecflow.hsflowd.counters.HostCounters().fill(new io.vecflow.hsflowd.counters.LinkTable(), 1, s);
                assertThat(agent.onCounterSample(s)).isTrue();
                agent.flush();
                assertThat(agent.datagramSequence()).isEqualTo(1);
            }
            assertThat(sent).hasSize(1);
            return sent.getFirst();
        }
    }
}
