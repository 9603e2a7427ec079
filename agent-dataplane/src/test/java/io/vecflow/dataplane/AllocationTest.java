package io.vecflow.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.control.DataplaneControl;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.port.PcapReplayPort;
import io.vecflow.dataplane.port.SinkPort;
import io.vecflow.dataplane.sflow.SampleFifo;
import io.vecflow.dataplane.sflow.SampleRecord;
import io.vecflow.dataplane.sflow.SflowNode;
import io.vecflow.dataplane.sflow.TestGraphs;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;
import org.junit.jupiter.api.Test;

/**
 * The worker's dispatch loop (input → ethernet-input → sflow → output, FIFO claim/publish/poll/release) allocates
 * nothing per packet or sample, measured with the JVM's per-thread allocation counter after a warm-up.
 */
class AllocationTest {

    @Test
    void dispatchAndSamplingAllocateNothingPerPacket() {
        SampleFifo fifo = new SampleFifo(4096);
        Worker w = TestGraphs.sflowWorker(0, Long.MAX_VALUE, new int[] {256, 17, 100}, 4, 128, fifo);
        Runnable round = () -> {
            for (int i = 0; i < 2_000; i++) {
                w.runOnce();
                for (SampleRecord r = fifo.poll(); r != null; r = fifo.poll()) {
                    fifo.release(r);
                }
            }
        };
        for (int i = 0; i < 20; i++) {
            round.run(); // warm up: JIT-compile the loop
        }
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5 && best > 0; i++) {
            long before = ThreadAllocation.bytes();
            round.run(); // ≈ 250,000 packets, ≈ 62,000 samples
            best = Math.min(best, ThreadAllocation.bytes() - before);
        }
        assertThat(best).as("bytes allocated for ~250k packets").isLessThan(1024);
        assertThat(((SflowNode) w.node(SflowNode.NAME)).samplesTaken()).isPositive();
    }

    @Test
    void routingSamplingAndDropsAllocateNothingPerPacket() throws Exception {
        java.util.List<io.vecflow.packet.PcapPacket> frames = new java.util.ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            // every 10th packet has TTL 1 (dropped, sampled as a discard); the rest are routed
            frames.add(new io.vecflow.packet.PcapPacket(0, 0, GraphForwardingTest.ip4Udp(0x0200000000C1L, 0x0A090001,
                    0x0A020000 | i, i % 10 == 0 ? 1 : 64, 18 + i % 100)));
        }
        io.vecflow.packet.PcapFile cap = new io.vecflow.packet.PcapFile(io.vecflow.packet.LinkType.ETHERNET, 65535,
                frames);
        DataplaneSpec t = new DataplaneSpec();
        t.workers = 1;
        t.interfaces = new InterfaceTable(4);
        t.interfaces.add(new PcapReplayPort("in", cap, 1, 1, Long.MAX_VALUE, 0), 0x0200000000C1L, 1500, true);
        t.interfaces.add(new SinkPort("out", 2, 1), 0x0200000000C2L, 1500, true);
        Forwarding.Builder fb = new Forwarding.Builder()
                .neighbour("10.0.4.2", "02:aa:00:00:00:02");
        for (int i = 0; i < 1000; i++) {
            fb.route("10." + (i % 200) + "." + (i / 200) + ".0/24", "10.0.4.2", 2);
        }
        t.forwarding = fb.route("10.2.0.0/16", "10.0.4.2", 2).build();
        t.samplingRate = 100;
        t.direction = DataplaneControl.Direction.BOTH;
        t.sflowInterfaces.add("in");
        t.sflowInterfaces.add("out");
        t.dropMonitoring = true;
        try (io.vecflow.netlink.psample.PsampleEmitter em = io.vecflow.netlink.psample.PsampleEmitter.openUnicast(
                        1, io.vecflow.netlink.psample.Psample.Convention.VPP);
                Dataplane dp = new Dataplane(t, em, null, null)) {
            Worker w = dp.workers().get(0);
            Runnable round = () -> {
                for (int i = 0; i < 1_000; i++) {
                    w.runOnce(); // the main thread is not running: full FIFOs drop (counted), which allocates nothing
                }
            };
            for (int i = 0; i < 20; i++) {
                round.run();
            }
            long best = Long.MAX_VALUE;
            for (int i = 0; i < 5 && best > 0; i++) {
                long before = ThreadAllocation.bytes();
                round.run(); // 256,000 packets
                best = Math.min(best, ThreadAllocation.bytes() - before);
            }
            assertThat(best).as("bytes allocated for 256k routed/dropped/sampled packets").isLessThan(1024);
            assertThat(dp.dropped(DropReason.IP4_TTL_EXPIRED)).isPositive();
            assertThat(t.interfaces.port(2).counters().sum(PortCounters.TX_PACKETS))
                    .isPositive();
        }
    }
}
