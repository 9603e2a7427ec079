package io.vecflow.hsflowd;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.hsflowd.config.HsflowdConfig;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * The agent's hot path: {@code onSample} (and the sends it triggers) must not allocate per sample. Measured on the
 * calling thread with {@link com.sun.management.ThreadMXBean#getThreadAllocatedBytes(long)}; the collector is a real
 * UDP socket on 127.0.0.1.
 */
class AgentAllocationTest {
    private static final int WARMUP = 300_000;
    private static final int MEASURED = 100_000;

    @Test
    void onSampleAllocatesLessThan1KiBPer1000Samples() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertThat(mx.isThreadAllocatedMemorySupported()).isTrue();
        mx.setThreadAllocatedMemoryEnabled(true);
        try (UdpReceiver rx = new UdpReceiver()) {
            HsflowdConfig c = HsflowdConfig.parse("sflow { sampling = 100 collector { ip = 127.0.0.1 udpport = "
                    + rx.port()
                    + " } psample { group = 1 egress = on } }");
            try (SflowAgent a = new SflowAgent(c, InetAddress.getByName("10.0.0.1"))) {
                byte[] data = SflowAgentTest.frame(256, 1);
                // ifIndexes below and above the 4096-entry array, VPP-style offsets, ingress and egress
                long[] ifs = {1, 2, 4095, 4096, 70_000, 1_000_000_001L, 1_000_000_002L, 0xFFFFFFF0L};
                long[] seq = {0, 0};
                long tid = Thread.currentThread().threadId();
                run(a, data, ifs, seq, WARMUP);
                long before = mx.getThreadAllocatedBytes(tid);
                long datagramsBefore = a.datagramSequence();
                run(a, data, ifs, seq, MEASURED);
                long allocated = mx.getThreadAllocatedBytes(tid) - before;
                long datagrams = a.datagramSequence() - datagramsBefore;
                double perThousand = allocated * 1000.0 / MEASURED;
                System.out.printf("agent hot path: %d bytes allocated for %d samples (%.1f B per 1000 samples), "
                        + "%d datagrams sent%n", allocated, MEASURED, perThousand, datagrams);
                assertThat(datagrams).isGreaterThan(MEASURED / 8);
                assertThat(a.sendFailures()).isZero();
                assertThat(perThousand).as("bytes allocated per 1000 samples").isLessThan(1024);
            }
        }
    }

    private static void run(SflowAgent a, byte[] data, long[] ifs, long[] seq, int n) {
        for (int i = 0; i < n; i++) {
            long ifIndex = ifs[i & 7];
            int len = 64 + (i & 127);
            if ((i & 3) == 3) {
                a.onSample(2, ++seq[1], 5, ifIndex, 1000, 100, data, i & 15, len);
            } else {
                a.onSample(1, ++seq[0], ifIndex, 0, 1000, 100, data, i & 15, len);
            }
        }
    }
}
