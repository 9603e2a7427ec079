package io.vecflow.dataplane.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.FeatureArc;
import io.vecflow.dataplane.graph.Graph;
import io.vecflow.dataplane.graph.Node;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.vnet.interfaces.Port;
import io.vecflow.dataplane.vnet.interfaces.PortInputNode;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import io.vecflow.packet.PcapFile;
import io.vecflow.packet.PcapReader;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The pcap replay port on tcpreplay's test capture (179 packets; testdata/SOURCES.md). */
class PcapReplayPortTest {
    private static final Path CAPTURE = Path.of("..", "testdata", "traffic", "tcpreplay-test.pcap");

    /** A sink that records, per worker, the flow hash of every packet it forwarded. */
    private static final class Recorder extends Node {
        final Set<Long> flows = new HashSet<>();
        long packets;
        long bytes;
        private final ParsedPacket pp = new ParsedPacket();

        Recorder() {
            super("l2-xconnect");
        }

        @Override
        protected void process(Worker w, PacketVector v) {
            BufferPool pool = w.pool();
            for (int i = 0; i < v.count; i++) {
                int b = v.buffers[i];
                PacketParser.parse(pool.data(), pool.offset(b), pool.length[b], LinkType.ETHERNET, pp);
                if (pp.ipVersion() != 0) {
                    flows.add(pp.flowHash());
                }
                packets++;
                bytes += pool.length[b];
                assertThat(pool.rxIfIndex[b]).isEqualTo(3);
            }
            pool.free(v);
        }
    }

    private static Worker worker(PcapReplayPort port, int index, Recorder[] recorders) {
        FeatureArc arc = new FeatureArc("device-input", "l2-xconnect");
        Graph g = new Graph().arc(arc)
                .register(PortInputNode.NAME, i -> new PortInputNode(i, new Port[] {port}, arc))
                .register("l2-xconnect", i -> recorders[i] = new Recorder());
        return new Worker(index, g, new BufferPool(512, 2048));
    }

    @Test
    void flowsStayOnOneWorkerAndEveryPacketIsReplayedLoopsTimes() throws Exception {
        PcapFile cap = PcapReader.readAll(CAPTURE);
        long bytes = cap.packets().stream().mapToLong(p -> p.data().length).sum();
        try (PcapReplayPort port = new PcapReplayPort(cap, 3, 2, 4, 0)) {
            assertThat(port.queueLength(0) + port.queueLength(1)).isEqualTo(179);
            assertThat(port.queueLength(0)).isPositive();
            assertThat(port.queueLength(1)).isPositive();
            Recorder[] rec = new Recorder[2];
            for (int w = 0; w < 2; w++) {
                Worker wk = worker(port, w, rec);
                wk.run();
                assertThat(wk.pool().freeCount()).isEqualTo(512);
            }
            assertThat(rec[0].packets + rec[1].packets).isEqualTo(4 * 179);
            assertThat(rec[0].bytes + rec[1].bytes).isEqualTo(4 * bytes);
            Set<Long> both = new HashSet<>(rec[0].flows);
            both.retainAll(rec[1].flows);
            assertThat(both).as("a 5-tuple is served by one worker only (RSS)").isEmpty();
        }
    }

    @Test
    void replayedBytesAreTheCaptureBytes() throws Exception {
        PcapFile cap = PcapReader.readAll(CAPTURE);
        Map<Integer, Integer> byLength = new HashMap<>();
        cap.packets().forEach(p -> byLength.merge(p.data().length, 1, Integer::sum));
        Map<Integer, Integer> seen = new HashMap<>();
        try (PcapReplayPort port = new PcapReplayPort(cap, 3, 1, 1, 0)) {
            FeatureArc arc = new FeatureArc("device-input", "l2-xconnect");
            Graph g = new Graph().arc(arc)
                    .register(PortInputNode.NAME, i -> new PortInputNode(i, new Port[] {port}, arc))
                    .register("l2-xconnect", i -> new Node("l2-xconnect") {
                        private int k;

                        @Override
                        protected void process(Worker w, PacketVector v) {
                            for (int j = 0; j < v.count; j++) {
                                int b = v.buffers[j];
                                byte[] expect = cap.packets().get(k++).data();
                                byte[] got = w.pool().data().asSlice(w.pool().offset(b), w.pool().length[b])
                                        .toArray(ValueLayout.JAVA_BYTE);
                                assertThat(got).isEqualTo(expect);
                                seen.merge(got.length, 1, Integer::sum);
                            }
                            w.pool().free(v);
                        }
                    });
            new Worker(0, g, new BufferPool(300, 2048)).run();
        }
        assertThat(seen).isEqualTo(byLength);
    }

    @Test
    void pacingHoldsTheRateDown() throws Exception {
        PcapFile cap = PcapReader.readAll(CAPTURE);
        try (PcapReplayPort port = new PcapReplayPort(cap, 3, 1, 2, 1000)) {
            Recorder[] rec = new Recorder[1];
            Worker wk = worker(port, 0, rec);
            long t0 = System.nanoTime();
            wk.run();
            double seconds = (System.nanoTime() - t0) / 1e9;
            // 358 packets at 1,000 packets/s cannot finish in less than ~0.357 s (a lower bound only).
            assertThat(seconds).isGreaterThan(0.3);
            assertThat(rec[0].packets).isEqualTo(358);
        }
    }

    @Test
    void nonEthernetCapturesAreRejectedClearly() throws Exception {
        PcapFile cooked = PcapReader.readAll(Path.of("..", "testdata", "traffic", "mptcp-v1.pcap"));
        assertThat(cooked.linkType()).isEqualTo(LinkType.LINUX_SLL);
        assertThatThrownBy(() -> new PcapReplayPort(cooked, 1, 1, 1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Ethernet");
    }

    @Test
    void graphNamesMissingNextNodes() {
        Graph g = new Graph().register("a", i -> new Node("a", "nope") {
            @Override
            protected void process(Worker w, PacketVector v) {}
        });
        assertThatThrownBy(() -> new Worker(0, g, new BufferPool(4, 64)))
                .hasMessageContaining("node a names unknown next node nope");
        assertThatThrownBy(() -> g.register("a", i -> null)).hasMessageContaining("already registered: a");
    }
}
