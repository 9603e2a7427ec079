package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.sflow.SampleFifo;
import io.vecflow.dataplane.sflow.SampleRecord;
import io.vecflow.dataplane.sflow.SflowMainThread;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.hsflowd.dropmon.DropmonModule;
import io.vecflow.hsflowd.dropmon.DropmonSettings;
import io.vecflow.netlink.netdm.NetDm;
import io.vecflow.netlink.netdm.NetDmEmitter;
import io.vecflow.netlink.netdm.NetDmSubscriber;
import io.vecflow.netlink.netdm.NetDmTransport;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Every dataplane drop reason, sent by the dataplane's main thread as a NET_DM alert over a real NETLINK_USERSOCK
 * socket (both IN_PORT conventions), and classified by the agent's real dropmon module (hsflowd's lookup chain:
 * REASON, then trap name), comes out as the sFlow discard code the registry promises, with the packet's input
 * interface.
 */
class DropReasonAgentMappingTest {
    @Test
    void everyReasonReachesTheAgentAsItsSflowCode() throws Exception {
        for (NetDm.Convention convention : NetDm.Convention.values()) {
            SampleFifo discards = new SampleFifo(64);
            List<long[]> got = new ArrayList<>();
            DropmonSettings settings = new DropmonSettings();
            settings.limit = 10_000; // the default quota (10 per 100 ms) would rate-limit this burst
            DropmonModule agent = new DropmonModule(settings, 128, s -> {
                got.add(new long[] {s.reason, s.input});
                return true;
            }, System::nanoTime, null);
            int group = 26;
            try (NetDmSubscriber sub = NetDmSubscriber.open(NetDmTransport.USERSOCK, group);
                    NetDmEmitter em = NetDmEmitter.openUsersock(group, convention);
                    PsampleEmitter unused = PsampleEmitter.openUnicast(1, Psample.Convention.VPP)) {
                SflowMainThread.Duties d = new SflowMainThread.Duties();
                d.discardFifos = List.of(discards);
                d.netDm = em;
                SflowMainThread main = new SflowMainThread(List.of(new SampleFifo(2)), unused, 3, 64, d);
                for (DropReason r : DropReason.values()) {
                    SampleRecord rec = discards.claim();
                    byte[] frame = GraphFrames.udp4(r.ordinal());
                    System.arraycopy(frame, 0, rec.header, 0, frame.length);
                    rec.headerLength = frame.length;
                    rec.frameLength = frame.length;
                    rec.inputIfIndex = 10 + r.ordinal();
                    rec.dropReason = r.ordinal();
                    rec.direction = 2;
                    discards.publish(rec);
                }
                assertThat(main.drainDiscards()).isEqualTo(DropReason.count());
                assertThat(main.discardsSent()).isEqualTo(DropReason.count());
                long end = System.currentTimeMillis() + 5_000;
                while (got.size() < DropReason.count() && System.currentTimeMillis() < end) {
                    sub.poll(Duration.ofMillis(50), agent::onAlert);
                }
            }
            Map<String, Long> want = new TreeMap<>(), have = new TreeMap<>();
            for (DropReason r : DropReason.values()) {
                want.put(r.name(), (long) r.sflowCode());
            }
            for (long[] g : got) {
                have.put(DropReason.of((int) g[1] - 10).name(), g[0]);
            }
            assertThat(have).as("agent's code per reason, IN_PORT " + convention).isEqualTo(want);
        }
    }

    /** Minimal frames for the alerts' payload. */
    static final class GraphFrames {
        static byte[] udp4(int n) {
            byte[] f = new byte[60];
            f[12] = 0x08;
            f[14] = 0x45;
            f[17] = 46;
            f[22] = 64;
            f[23] = 17;
            f[33] = (byte) n;
            return f;
        }
    }
}
