package io.vecflow.cli;

import static io.vecflow.cli.PeerJudges.toText;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.vecflow.collector.Collector;
import io.vecflow.collector.schema.FlowRow;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * pmacct's sfacctd and nfdump's sfcapd as judges of the collector: every sFlow datagram of every capture in
 * testdata/sflow goes to all three; the flows they report equal vecflow's rows — interfaces, MACs, VLANs, addresses,
 * ports, protocol, packets — and their byte counts equal vecflow's for the byte rule each of them uses.
 */
class PeerCaptureJudgeTest {
    @TempDir
    Path tmp;

    @Test
    void sfacctdAndSfcapdReportTheSameFlows() throws Exception {
        List<JsonNode> decoded = new ArrayList<>();
        List<byte[]> datagrams = PeerJudges.datagrams(decoded);

        PeerJudges.Judge pm = PeerJudges.startSfacctd(tmp);
        PeerJudges.Judge nf = PeerJudges.startSfcapd(tmp);
        PeerJudges.Keep keep = new PeerJudges.Keep();
        Collector.Settings cs = new Collector.Settings();
        cs.bindAddress = "127.0.0.1";
        cs.port = 0;
        cs.threads = 1;
        cs.extraFlowSinks.add(keep);
        try (Collector c = new Collector(cs)) {
            PeerJudges.waitUdp(pm.port());
            PeerJudges.waitUdp(nf.port());
            try (DatagramSocket s = new DatagramSocket()) {
                InetAddress lo = InetAddress.getLoopbackAddress();
                for (byte[] d : datagrams) {
                    for (int port : new int[] {pm.port(), nf.port(), c.localAddress().getPort()}) {
                        s.send(new DatagramPacket(d, d.length, lo, port));
                    }
                    Thread.sleep(2);
                }
            }
            long end = System.currentTimeMillis() + 10_000;
            while (c.stats().datagramsReceived.sum() < datagrams.size() && System.currentTimeMillis() < end) {
                Thread.sleep(20);
            }
            assertThat(c.stats().datagramsReceived.sum()).isEqualTo(datagrams.size());
            PeerJudges.awaitRead(pm.port());
            PeerJudges.awaitRead(nf.port());
        } finally {
            PeerJudges.stopBoth(pm, nf);
        }
        List<FlowRow> rows = keep.rows.stream().filter(r -> r.sampleType == FlowRow.FLOW).toList();
        assertThat(rows).hasSize(23);

        List<Map<String, long[]>> ours = PeerJudges.expected(rows, decoded);
        assertThat(toText(PeerJudges.sfacctd(pm.output()))).isEqualTo(toText(ours.get(0)));
        assertThat(toText(PeerJudges.sfcapd(nf.output()))).isEqualTo(toText(ours.get(1)));
    }
}
