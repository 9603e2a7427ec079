package io.vecflow.collector;

import io.vecflow.sflow.DatagramBuilder;
import io.vecflow.sflow.LbDecisionRecord;
import io.vecflow.sflow.XdrWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The data the console's tests browse: every capture of testdata/sflow (flows, counters, the goflow2 discard samples)
 * plus {@link #lbDecisionDatagrams()}, sent over UDP to a real collector.
 */
public final class ConsoleFixture {
    /** The load balancer's agent address in {@link #lbDecisionDatagrams()}. */
    public static final String LB_AGENT = "192.0.2.77";
    /** Decisions per Maglev backend 10.0.0.1 .. 10.0.0.4 of VIP 192.0.2.10:80: 4, 3, 2, 1. */
    public static final int[] MAGLEV_FLOWS = {4, 3, 2, 1};
    /** SRLB decisions for VIP 2001:db8:100::1:443: accepted by the first candidate, then by the second. */
    public static final int SRLB_FIRST = 3, SRLB_SECOND = 2;

    private ConsoleFixture() {}

    /** @return every capture's datagrams, then the load-balancer datagrams (new arrays). */
    public static List<byte[]> datagrams() throws Exception {
        List<byte[]> d = new ArrayList<>();
        for (String capture : Captures.all()) {
            d.addAll(Captures.udpPayloads(capture));
        }
        d.addAll(lbDecisionDatagrams());
        return d;
    }

    /**
     * A load balancer's decisions as the hsflowd-compatible agent sends them: one expanded flow sample per decision
     * (sampling rate 1, a 54-byte Ethernet/IPv4/TCP or 74-byte Ethernet/IPv6/TCP header to the VIP) carrying the
     * "vecflow LB decision" record under {@link LbDecisionRecord#DEFAULT_ENTERPRISE}: Maglev new flows for VIP
     * 192.0.2.10:80 ({@link #MAGLEV_FLOWS} per backend), SRLB accepts for 2001:db8:100::1:443 ({@link #SRLB_FIRST}
     * by the first candidate 2001:db8:200::1, {@link #SRLB_SECOND} by the second 2001:db8:200::2), in as many
     * datagrams as 1400 bytes take.
     *
     * @return the datagrams
     */
    public static List<byte[]> lbDecisionDatagrams() {
        List<LbDecisionRecord> maglev = new ArrayList<>();
        for (int b = 0; b < MAGLEV_FLOWS.length; b++) {
            for (int k = 0; k < MAGLEV_FLOWS[b]; k++) {
                LbDecisionRecord r = new LbDecisionRecord();
                r.kind = LbDecisionRecord.MAGLEV_NEW;
                r.protocol = 6;
                r.vipPort = 80;
                r.vip.set(ip("192.0.2.10"));
                r.backend.set(ip("10.0.0." + (b + 1)));
                maglev.add(r);
            }
        }
        List<LbDecisionRecord> srlb = new ArrayList<>();
        for (int k = 0; k < SRLB_FIRST + SRLB_SECOND; k++) {
            boolean first = k < SRLB_FIRST;
            LbDecisionRecord r = new LbDecisionRecord();
            r.kind = first ? LbDecisionRecord.SRLB_ACCEPT_FIRST : LbDecisionRecord.SRLB_ACCEPT_SECOND;
            r.protocol = 6;
            r.vipPort = 443;
            r.vip.set(ip("2001:db8:100::1"));
            r.candidates[0].set(ip("2001:db8:200::1"));
            r.candidates[1].set(ip("2001:db8:200::2"));
            r.candidateCount = 2;
            r.backend.set(ip(first ? "2001:db8:200::1" : "2001:db8:200::2"));
            r.choiceIndex = first ? 1 : 2;
            r.policyMetric = 250 + 100L * k;
            srlb.add(r);
        }
        DatagramBuilder b = new DatagramBuilder(1400, ip(LB_AGENT), 0);
        XdrWriter w = new XdrWriter(LbDecisionRecord.MAX_BYTES);
        int format = LbDecisionRecord.dataFormat(LbDecisionRecord.DEFAULT_ENTERPRISE);
        List<byte[]> out = new ArrayList<>();
        long seq = 0;
        long datagramSeq = 0;
        for (List<LbDecisionRecord> group : List.of(maglev, srlb)) { // SRLB in datagrams of its own
            b.reset();
            for (LbDecisionRecord r : group) {
                w.seek(0);
                r.encode(w);
                byte[] h = header(r.vip.bytes, r.vip.type == 2, (int) r.vipPort, (int) seq);
                seq++;
                for (int attempt = 0; !b.addFlowSampleExpanded(seq, 0, 3, 1, seq, 0, 0, 3, 0, 4, 1, h.length + 4, 4,
                        h, 0, h.length, format, w.buffer(), w.position()); attempt++) {
                    if (attempt > 0) {
                        throw new IllegalStateException("decision " + seq + " does not fit a 1400-byte datagram");
                    }
                    datagramSeq++;
                    out.add(Arrays.copyOf(b.buffer(), b.finish(datagramSeq, datagramSeq * 1000)));
                    b.reset();
                }
            }
            datagramSeq++;
            out.add(Arrays.copyOf(b.buffer(), b.finish(datagramSeq, datagramSeq * 1000)));
        }
        return out;
    }

    /** Ethernet II + IPv4 (or IPv6) + TCP SYN from 198.51.100.7 (2001:db8:1::7) port 40000+n to the VIP. */
    private static byte[] header(byte[] vip, boolean v6, int port, int n) {
        byte[] h = new byte[v6 ? 74 : 54];
        h[0] = 0x02;
        h[6] = 0x02;
        h[11] = 1;
        int l4;
        if (v6) {
            h[12] = (byte) 0x86;
            h[13] = (byte) 0xDD;
            h[14] = 0x60;
            h[19] = 20; // payload length
            h[20] = 6;
            h[21] = 64;
            System.arraycopy(ip("2001:db8:1::7"), 0, h, 22, 16);
            System.arraycopy(vip, 0, h, 38, 16);
            l4 = 54;
        } else {
            h[12] = 0x08;
            h[14] = 0x45;
            h[17] = 40; // total length
            h[22] = 64;
            h[23] = 6;
            System.arraycopy(ip("198.51.100.7"), 0, h, 26, 4);
            System.arraycopy(vip, 0, h, 30, 4);
            l4 = 34;
        }
        int sport = 40_000 + n;
        h[l4] = (byte) (sport >>> 8);
        h[l4 + 1] = (byte) sport;
        h[l4 + 2] = (byte) (port >>> 8);
        h[l4 + 3] = (byte) port;
        h[l4 + 12] = 0x50;
        h[l4 + 13] = 0x02; // SYN
        return h;
    }

    static byte[] ip(String s) {
        try {
            return InetAddress.getByName(s).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(s, e);
        }
    }

    /**
     * A collector on 127.0.0.1 (any free port, one thread) writing the embedded store {@code file}.
     *
     * @param file the DuckDB file
     * @return the settings, to adjust before {@link #replay}
     */
    public static Collector.Settings embedded(Path file) {
        Collector.Settings s = new Collector.Settings();
        s.bindAddress = "127.0.0.1";
        s.port = 0;
        s.threads = 1;
        s.duckdbPath = file;
        return s;
    }

    /**
     * Starts a collector, sends the datagrams paced over UDP, waits until it has taken every one, flushes and closes
     * it: every row is stored when this returns.
     *
     * @param s the collector's settings
     * @param datagrams what to send
     */
    public static void replay(Collector.Settings s, List<byte[]> datagrams) throws Exception {
        try (Collector c = new Collector(s); TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            tx.sendPaced(datagrams, 16, () -> c.stats().datagramsReceived.sum());
            final long n = datagrams.size();
            TestSupport.await("all datagrams processed", Duration.ofSeconds(15),
                    () -> c.stats().datagramsReceived.sum() == n);
            c.flush();
        }
    }
}
