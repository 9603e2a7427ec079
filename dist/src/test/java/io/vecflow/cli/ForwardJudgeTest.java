package io.vecflow.cli;

import static io.vecflow.cli.PeerJudges.toText;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.inlet.DatagramProcessor;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.sink.forward.ForwardSink;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collector's forward sink judged by pmacct's sfacctd and nfdump's sfcapd: every sFlow datagram of every capture
 * in testdata/sflow goes through the collector's per-datagram pipeline ({@link DatagramProcessor}, as the UDP inlet
 * runs it) with a {@link ForwardSink} to sfacctd, sfcapd and two plain UDP receivers (127.0.0.1 and ::1). The plain
 * receivers get every datagram byte for byte; sfacctd and sfcapd report the same flows as vecflow's own rows, by the
 * rules of {@link PeerCaptureJudgeTest}; the sink's per-target counters are exact.
 */
class ForwardJudgeTest {
    @TempDir
    Path tmp;

    /** A plain UDP socket whose thread keeps every datagram it receives. */
    private static final class Receiver implements AutoCloseable {
        final DatagramSocket socket;
        final List<byte[]> got = new CopyOnWriteArrayList<>();
        final Thread thread;

        Receiver(String host) throws Exception {
            socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(host), 0));
            socket.setSoTimeout(100);
            thread = Thread.ofPlatform().daemon().start(() -> {
                byte[] buf = new byte[65536];
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                while (!socket.isClosed()) {
                    try {
                        p.setLength(buf.length);
                        socket.receive(p);
                        got.add(Arrays.copyOf(buf, p.getLength()));
                    } catch (SocketTimeoutException e) {
                        // poll the closed flag
                    } catch (Exception e) {
                        return;
                    }
                }
            });
        }

        @Override
        public void close() {
            socket.close();
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void sfacctdAndSfcapdSeeTheForwardedFlowsAsVecflowDecodesThem() throws Exception {
        List<JsonNode> decoded = new ArrayList<>();
        List<byte[]> datagrams = PeerJudges.datagrams(decoded);
        long totalBytes = datagrams.stream().mapToLong(d -> d.length).sum();

        PeerJudges.Judge pm = PeerJudges.startSfacctd(tmp);
        PeerJudges.Judge nf = PeerJudges.startSfcapd(tmp);
        PeerJudges.Keep keep = new PeerJudges.Keep();
        CollectorStats stats = new CollectorStats();
        List<String> targets;
        List<ForwardSink.TargetStats> counts;
        try (Receiver v4 = new Receiver("127.0.0.1"); Receiver v6 = new Receiver("::1")) {
            targets = List.of("127.0.0.1:" + pm.port(), "127.0.0.1:" + nf.port(),
                    "127.0.0.1:" + v4.socket.getLocalPort(), "[::1]:" + v6.socket.getLocalPort());
            try (ForwardSink forward = new ForwardSink(targets)) {
                DatagramProcessor proc = new DatagramProcessor(stats.decode, stats, List.of(forward), List.of(keep));
                PeerJudges.waitUdp(pm.port());
                PeerJudges.waitUdp(nf.port());
                byte[] peer16 = new byte[16]; // the datagrams "came from" 127.0.0.1:6343 (IPv4 mapped)
                peer16[10] = (byte) 0xFF;
                peer16[11] = (byte) 0xFF;
                peer16[12] = 127;
                peer16[15] = 1;
                byte[] buf = new byte[65536];
                for (byte[] d : datagrams) {
                    // In a reused buffer at an offset, as the inlet hands datagrams over.
                    Arrays.fill(buf, (byte) 0xA5);
                    System.arraycopy(d, 0, buf, 3, d.length);
                    proc.process(buf, 3, d.length, System.currentTimeMillis() * 1_000_000L, peer16, 6343);
                    Thread.sleep(2);
                }
                long end = System.currentTimeMillis() + 10_000;
                while ((v4.got.size() < datagrams.size() || v6.got.size() < datagrams.size())
                        && System.currentTimeMillis() < end) {
                    Thread.sleep(20);
                }
                PeerJudges.awaitRead(pm.port()); // sfacctd and sfcapd have read theirs too
                PeerJudges.awaitRead(nf.port());
                counts = forward.targets();
            } finally {
                PeerJudges.stopBoth(pm, nf);
            }
            for (Receiver r : List.of(v4, v6)) {
                assertThat(r.got).as("datagrams at " + r.socket.getLocalSocketAddress()).hasSize(datagrams.size());
                for (int i = 0; i < datagrams.size(); i++) {
                    assertThat(r.got.get(i)).as("datagram " + i + " at " + r.socket.getLocalSocketAddress())
                            .isEqualTo(datagrams.get(i));
                }
            }
        }
        assertThat(stats.datagramsReceived.sum()).isEqualTo(datagrams.size());
        assertThat(stats.sinkErrors.sum()).isZero();
        assertThat(counts).extracting(ForwardSink.TargetStats::target).containsExactlyElementsOf(targets);
        for (ForwardSink.TargetStats t : counts) {
            assertThat(t.datagramsSent()).as(t.target()).isEqualTo(datagrams.size());
            assertThat(t.bytesSent()).as(t.target()).isEqualTo(totalBytes);
            assertThat(t.datagramsDropped()).as(t.target()).isZero();
        }

        List<FlowRow> rows = keep.rows.stream().filter(r -> r.sampleType == FlowRow.FLOW).toList();
        assertThat(rows).hasSize(23);
        List<Map<String, long[]>> ours = PeerJudges.expected(rows, decoded);
        assertThat(toText(PeerJudges.sfacctd(pm.output()))).isEqualTo(toText(ours.get(0)));
        assertThat(toText(PeerJudges.sfcapd(nf.output()))).isEqualTo(toText(ours.get(1)));
    }
}
