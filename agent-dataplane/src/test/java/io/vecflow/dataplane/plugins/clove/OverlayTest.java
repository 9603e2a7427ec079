package io.vecflow.dataplane.plugins.clove;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.graph.mem.Bytes;
import io.vecflow.dataplane.plugins.clove.path.PathDiscovery;
import io.vecflow.dataplane.plugins.lb.encap.LbPackets;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CLOVE's Geneve/VXLAN encapsulation decoded by tshark (field by field) and undone by {@link Overlay#decap}, the
 * feedback option round trip, RFC 6040 CE handling, and malformed tunnels rejected with the offset of the bad field.
 */
class OverlayTest {
    private static final int BUF_BYTES = 2048;
    private static final long BUF = 2 * BUF_BYTES;
    private static final String A = "10.255.1.2", B = "10.255.2.2";
    private final MemorySegment seg = Arena.ofAuto().allocate(4L * BUF_BYTES, 64);
    private final Overlay geneveA = new Overlay(true, BUF_BYTES, 64, LbPackets.v4int(A), 100);
    private final Overlay geneveB = new Overlay(true, BUF_BYTES, 64, LbPackets.v4int(B), 100);
    private final Overlay vxlanA = new Overlay(false, BUF_BYTES, 64, LbPackets.v4int(A), 7);
    private final Overlay vxlanB = new Overlay(false, BUF_BYTES, 64, LbPackets.v4int(B), 7);

    @TempDir
    Path tmp;

    private static byte[] tcp4() {
        return LbPackets.ipv4Frame("10.0.1.1", "10.0.2.1", 6, 40000, 5001, FlowKey.TCP_ACK, 100, true, -1);
    }

    private int load(byte[] f) {
        seg.fill((byte) 0);
        LbPackets.load(seg, BUF, f);
        return f.length;
    }

    private static byte[] ip(byte[] f) {
        return Arrays.copyOfRange(f, 14, 14 + LbPackets.u16(f, 16));
    }

    @Test
    void geneveWithFeedbackDecodesInTsharkAndComesBack() throws Exception {
        byte[] in = tcp4();
        int len = load(in);
        int r = geneveA.encap(seg, BUF, 0, len, 14, LbPackets.v4int(B), 49153, true, new int[] {49152, 49155},
                new int[] {3, 70000}, 2);
        assertThat(r).isEqualTo(14 + 20 + 8 + 8 + 4 + 8 + ip(in).length);
        byte[] out = LbPackets.bytes(seg, BUF, r);
        assertThat(LbPackets.checksum(out, 14, 20, 0)).as("outer IPv4 checksum").isZero();
        LbPackets.writePcap(tmp.resolve("g.pcap"), List.of(out));
        List<String> t = LbPackets.tshark(tmp.resolve("g.pcap"), "-e", "ip.src", "-e", "ip.dst", "-e",
                "ip.dsfield.dscp", "-e", "ip.dsfield.ecn", "-e", "ip.ttl", "-e", "ip.flags.df", "-e", "udp.srcport",
                "-e", "udp.dstport", "-e", "udp.length", "-e", "geneve.version", "-e", "geneve.vni", "-e",
                "geneve.proto_type", "-e", "geneve.option.class", "-e", "geneve.option.type", "-e",
                "geneve.option.length", "-e", "geneve.option.unknown.data", "-e", "tcp.srcport", "-e", "tcp.dstport",
                "-e", "tcp.checksum.status", "-o", "tcp.check_checksum:TRUE");
        assertThat(t).hasSize(1);
        String[] f = t.getFirst().split("\\|", -1);
        // the first ip.* values are the outer header's (tshark lists both, comma separated)
        assertThat(f[0]).startsWith(A + ",10.0.1.1");
        assertThat(f[1]).startsWith(B + ",10.0.2.1");
        assertThat(f[2]).startsWith("46,46");
        assertThat(f[3]).as("ECT(0) on the outer header, inner Not-ECT").startsWith("2,0");
        assertThat(f[4]).startsWith("64,61");
        assertThat(f[5]).startsWith("1,1");
        assertThat(f[6]).isEqualTo("49153");
        assertThat(f[7]).isEqualTo("6081");
        assertThat(Integer.parseInt(f[8])).isEqualTo(8 + 8 + 12 + ip(in).length);
        assertThat(f[9]).isEqualTo("0");
        assertThat(Integer.decode(f[10])).isEqualTo(100);
        assertThat(f[11]).isEqualTo("0x0800");
        assertThat(f[12]).isEqualTo("0xff56");
        assertThat(Integer.decode(f[13])).isEqualTo(1);
        assertThat(f[14]).as("option length, bytes, with its 4-byte header").startsWith("12");
        assertThat(f[15].replace(":", "")).as("entries: 49152 × 3, 49155 × 65535 (saturated)")
                .isEqualTo("c0000003c003ffff");
        assertThat(f[16]).isEqualTo("40000");
        assertThat(f[17]).isEqualTo("5001");
        assertThat(f[18]).as("inner TCP checksum still good (1 = good)").isEqualTo("1");

        int back = geneveB.decap(seg, BUF, r, 14, LbPackets.v4int(B));
        assertThat(back).isEqualTo(14 + ip(in).length);
        byte[] dec = LbPackets.bytes(seg, BUF, back);
        assertThat(ip(dec)).isEqualTo(ip(in));
        assertThat(LbPackets.u16(dec, 12)).isEqualTo(0x0800);
        assertThat(geneveB.outerSource()).isEqualTo(LbPackets.v4int(A));
        assertThat(geneveB.outerSourcePort()).isEqualTo(49153);
        assertThat(geneveB.outerEcn()).isEqualTo(2);
        assertThat(geneveB.vni()).isEqualTo(100);
        assertThat(geneveB.feedbackCount()).isEqualTo(2);
        assertThat(new int[] {geneveB.feedbackPort(0), geneveB.feedbackMarks(0), geneveB.feedbackPort(1),
            geneveB.feedbackMarks(1)}).containsExactly(49152, 3, 49155, 65535);
    }

    /**
     * With headroom, Geneve (with and without feedback) and VXLAN write their headers in front of the packet, which
     * stays where it was; the output from {@code BUF + shift()} is byte for byte the moved one, MACs aside (VXLAN's
     * inner MACs included). Without enough headroom the packet moves (shift 0).
     */
    @Test
    void prependsIntoTheHeadroomInsteadOfMovingThePacket() {
        byte[] in = tcp4();
        byte[] ip = ip(in);
        int[] fbPorts = {49152, 49155}, fbMarks = {3, 9};
        for (Overlay o : List.of(geneveA, vxlanA)) {
            for (int fb = 0; fb <= (o.geneve() ? 2 : 0); fb++) {
                int entries = fb;
                int len = load(in);
                int moved = o.encap(seg, BUF, 0, len, 14, LbPackets.v4int(B), 49153, true, fbPorts, fbMarks, entries);
                assertThat(o.shift()).isZero();
                byte[] expected = LbPackets.bytes(seg, BUF, moved);
                int need = o.overhead(entries);
                len = load(in);
                int r = o.encap(seg, BUF, 128, len, 14, LbPackets.v4int(B), 49153, true, fbPorts, fbMarks, entries);
                assertThat(r).isEqualTo(moved).isEqualTo(14 + need + ip.length);
                assertThat(o.shift()).as("geneve %s, %d entries", o.geneve(), entries).isEqualTo(-need);
                byte[] out = LbPackets.bytes(seg, BUF + o.shift(), r);
                assertThat(Arrays.copyOfRange(out, 12, r)).isEqualTo(Arrays.copyOfRange(expected, 12, r));
                assertThat(LbPackets.bytes(seg, BUF + 14, ip.length)).as("inner packet in place").isEqualTo(ip);
                len = load(in);
                assertThat(o.encap(seg, BUF, need - 1, len, 14, LbPackets.v4int(B), 49153, true, fbPorts, fbMarks,
                        entries)).isEqualTo(moved);
                assertThat(o.shift()).isZero();
            }
        }
    }

    @Test
    void vxlanCarriesTheInnerEthernetFrame() throws Exception {
        byte[] in = tcp4();
        int len = load(in);
        int r = vxlanA.encap(seg, BUF, 0, len, 14, LbPackets.v4int(B), 50000, false, null, null, 0);
        assertThat(r).isEqualTo(14 + 50 + ip(in).length);
        byte[] out = LbPackets.bytes(seg, BUF, r);
        LbPackets.writePcap(tmp.resolve("v.pcap"), List.of(out));
        List<String> t = LbPackets.tshark(tmp.resolve("v.pcap"), "-e", "udp.srcport", "-e", "udp.dstport", "-e",
                "vxlan.vni", "-e", "eth.src", "-e", "ip.dsfield.ecn", "-e", "tcp.dstport");
        String[] f = t.getFirst().split("\\|", -1);
        assertThat(f[0]).isEqualTo("50000");
        assertThat(f[1]).isEqualTo("4789");
        assertThat(Integer.decode(f[2])).isEqualTo(7);
        String innerSrcMac = String.format("%02x:%02x:%02x:%02x:%02x:%02x", in[6], in[7], in[8], in[9], in[10],
                in[11]);
        assertThat(f[3]).as("inner Ethernet source = the frame's own").endsWith("," + innerSrcMac);
        assertThat(f[4]).as("ECN copied (RFC 6040 normal mode): Not-ECT stays Not-ECT").startsWith("0,0");
        assertThat(f[5]).isEqualTo("5001");
        int back = vxlanB.decap(seg, BUF, r, 14, LbPackets.v4int(B));
        assertThat(ip(LbPackets.bytes(seg, BUF, back))).isEqualTo(ip(in));
        assertThat(vxlanB.feedbackCount()).isZero();
    }

    @Test
    void outerCeBecomesInnerCeOnlyForEctPackets() {
        for (int innerEcn : new int[] {0, 1, 2, 3}) {
            byte[] in = tcp4();
            in[15] = (byte) (in[15] & 0xFC | innerEcn);
            in[24] = 0;
            in[25] = 0;
            LbPackets.put16(in, 24, LbPackets.checksum(in, 14, 20, 0));
            int len = load(in);
            int r = geneveA.encap(seg, BUF, 0, len, 14, LbPackets.v4int(B), 49152, true, null, null, 0);
            // the fabric marks CE (and fixes the outer checksum, as a router does)
            long o = BUF + 14;
            int tos = seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, o + 1) | 3;
            seg.set(java.lang.foreign.ValueLayout.JAVA_BYTE, o + 1, (byte) tos);
            Bytes.put16(seg, o + 10, 0);
            Bytes.put16(seg, o + 10, Bytes.ipv4HeaderChecksum(seg, o));
            int back = geneveB.decap(seg, BUF, r, 14, LbPackets.v4int(B));
            byte[] dec = LbPackets.bytes(seg, BUF, back);
            assertThat(geneveB.outerEcn()).isEqualTo(3);
            int expect = innerEcn == 0 ? 0 : 3;
            assertThat(dec[15] & 3).as("inner ECN for inner " + innerEcn).isEqualTo(expect);
            assertThat(geneveB.innerCe()).isEqualTo(innerEcn == 0 ? -1 : innerEcn == 3 ? 0 : 1);
            assertThat(LbPackets.checksum(dec, 14, 20, 0)).as("inner IPv4 checksum after CE").isZero();
        }
    }

    @Test
    void malformedTunnelsNameTheField() {
        byte[] in = tcp4();
        int len = load(in);
        int r = geneveA.encap(seg, BUF, 0, len, 14, LbPackets.v4int(B), 49152, true, new int[] {1}, new int[] {1}, 1);
        byte[] good = LbPackets.bytes(seg, BUF, r);
        // Geneve version 1
        byte[] bad = good.clone();
        bad[14 + 28] = (byte) (bad[14 + 28] | 0x40);
        assertThat(decap(bad)).isEqualTo(Overlay.ERR_MALFORMED);
        assertThat(geneveB.errorOffset()).isEqualTo(28);
        // option length running past Opt Len
        bad = good.clone();
        bad[14 + 36 + 3] = 5;
        assertThat(decap(bad)).isEqualTo(Overlay.ERR_MALFORMED);
        assertThat(geneveB.errorOffset()).isEqualTo(36 + 3);
        // UDP length larger than the IP payload
        bad = good.clone();
        LbPackets.put16(bad, 14 + 24, 4000);
        assertThat(decap(bad)).isEqualTo(Overlay.ERR_MALFORMED);
        assertThat(geneveB.errorOffset()).isEqualTo(24);
        // a probe: UDP payload shorter than a tunnel header
        bad = good.clone();
        LbPackets.put16(bad, 14 + 24, 8 + 3);
        assertThat(decap(bad)).isEqualTo(Overlay.PROBE);
        // to another endpoint or port: not ours
        bad = good.clone();
        LbPackets.put16(bad, 14 + 22, 4789);
        assertThat(decap(bad)).isEqualTo(Overlay.NOT_TUNNEL);
        assertThat(geneveA.decap(seg, BUF, load(good), 14, LbPackets.v4int(A))).isEqualTo(Overlay.NOT_TUNNEL);
        // inner protocol type that is not IP
        bad = good.clone();
        LbPackets.put16(bad, 14 + 28 + 2, 0x88CC);
        assertThat(decap(bad)).isEqualTo(Overlay.ERR_NOT_IP);
    }

    private int decap(byte[] f) {
        return geneveB.decap(seg, BUF, load(f), 14, LbPackets.v4int(B));
    }

    @Test
    void encapRefusesWhatDoesNotFit() {
        byte[] in = LbPackets.ipv4Frame("10.0.1.1", "10.0.2.1", 17, 1, 2, 0, BUF_BYTES - 14 - 28 - 20, true, -1);
        int len = load(in);
        assertThat(geneveA.encap(seg, BUF, 0, len, 14, 1, 1, true, null, null, 0)).isEqualTo(Overlay.ERR_NO_ROOM);
        assertThat(geneveA.overhead(0)).isEqualTo(36);
        assertThat(geneveA.overhead(2)).isEqualTo(48);
        assertThat(vxlanA.overhead(0)).isEqualTo(50);
    }

    /**
     * 200,000 seeded mutations of Geneve and VXLAN frames (bytes flipped, lengths and Opt Len rewritten, frames cut),
     * each decapsulated in a segment exactly as long as the frame: a read or write outside the frame throws, so the
     * test shows every access is bounded by the frame; results are a frame length within it or a code.
     */
    @Test
    void mutatedTunnelsNeverReachOutsideTheFrame() {
        java.util.Random rnd = new java.util.Random(6081);
        byte[] in = tcp4();
        int len = load(in);
        int gl = geneveA.encap(seg, BUF, 0, len, 14, LbPackets.v4int(B), 49152, true, new int[] {1, 2},
                new int[] {3, 4}, 2);
        byte[] geneve = LbPackets.bytes(seg, BUF, gl);
        len = load(in);
        int vl = vxlanA.encap(seg, BUF, 0, len, 14, LbPackets.v4int(B), 49152, false, null, null, 0);
        byte[] vxlan = LbPackets.bytes(seg, BUF, vl);
        int[] outcomes = new int[10];
        for (int i = 0; i < 200_000; i++) {
            boolean g = (i & 1) == 0;
            byte[] f = (g ? geneve : vxlan).clone();
            int n = f.length;
            for (int m = rnd.nextInt(4); m >= 0; m--) {
                switch (rnd.nextInt(5)) {
                    case 0 -> f[14 + rnd.nextInt(f.length - 14)] ^= (byte) (1 << rnd.nextInt(8));
                    case 1 -> LbPackets.put16(f, 14 + 2, rnd.nextInt(0x10000)); // IPv4 Total Length
                    case 2 -> LbPackets.put16(f, 14 + 24, rnd.nextInt(0x10000)); // UDP Length
                    case 3 -> f[14 + 28] = (byte) rnd.nextInt(256); // Geneve Ver/Opt Len
                    default -> n = 14 + rnd.nextInt(n - 14 + 1); // cut short
                }
            }
            MemorySegment frame = MemorySegment.ofArray(Arrays.copyOf(f, n));
            Overlay o = g ? geneveB : vxlanB;
            int r = o.decap(frame, 0, n, 14, LbPackets.v4int(B));
            if (r >= 0) {
                assertThat(r).isBetween(14 + 20, n);
                assertThat(o.feedbackCount()).isBetween(0, Overlay.MAX_FEEDBACK);
                outcomes[0]++;
            } else {
                assertThat(r).isBetween(Overlay.ERR_REFUSED, Overlay.ERR_TRUNCATED);
                outcomes[-r]++;
            }
        }
        assertThat(outcomes[0]).as("some mutations still decapsulate").isPositive();
        assertThat(outcomes[-Overlay.ERR_MALFORMED]).as("some are malformed").isPositive();
        assertThat(outcomes[-Overlay.NOT_TUNNEL]).isPositive();
    }
    /** A Geneve frame from A to B without options: outer IPv4 at 14, UDP at 34, Geneve at 42, inner IPv4 at 50. */
    private byte[] geneveFrame(byte[] inner) {
        int r = geneveA.encap(seg, BUF, 0, load(inner), 14, LbPackets.v4int(B), 49152, true, null, null, 0);
        return LbPackets.bytes(seg, BUF, r);
    }

    @Test
    void otherVniControlPacketsAndUnknownCriticalOptionsAreNotForwarded() {
        byte[] good = geneveFrame(tcp4());
        assertThat(decap(good)).isPositive();
        // RFC 8926 §3.4 / RFC 7348 §4: a VNI this endpoint does not serve is another network's packet
        byte[] bad = good.clone();
        bad[42 + 6] = 99;
        assertThat(decap(bad)).isEqualTo(Overlay.ERR_REFUSED);
        assertThat(geneveB.errorOffset()).isEqualTo(28 + 4);
        // RFC 8926 §3.4: O bit, a control packet: "tunnel endpoints MUST NOT forward the payload"
        bad = good.clone();
        bad[42 + 1] = (byte) 0x80;
        assertThat(decap(bad)).isEqualTo(Overlay.ERR_REFUSED);
        assertThat(geneveB.errorOffset()).isEqualTo(28 + 1);
        // RFC 8926 §3.5: an option we do not know with the critical bit (type bit 7) must drop the packet
        byte[] in = tcp4();
        int r = geneveA.encap(seg, BUF, 0, load(in), 14, LbPackets.v4int(B), 49152, true, new int[] {1}, new int[] {1},
                1);
        byte[] withOption = LbPackets.bytes(seg, BUF, r);
        assertThat(decap(withOption)).isPositive();
        bad = withOption.clone();
        LbPackets.put16(bad, 50, 0x0101); // another option class
        bad[50 + 2] = (byte) 0x81; // critical
        bad[42 + 1] = 0x40; // C bit
        assertThat(decap(bad)).isEqualTo(Overlay.ERR_REFUSED);
        assertThat(geneveB.errorOffset()).isEqualTo(36 + 2);
        // the same option without the critical bit is skipped
        bad[50 + 2] = 0x01;
        bad[42 + 1] = 0;
        assertThat(decap(bad)).isPositive();
        assertThat(geneveB.feedbackCount()).isZero();
        // VXLAN with another VNI
        r = vxlanA.encap(seg, BUF, 0, load(tcp4()), 14, LbPackets.v4int(B), 49152, false, null, null, 0);
        byte[] vx = LbPackets.bytes(seg, BUF, r);
        assertThat(vxlanB.decap(seg, BUF, load(vx), 14, LbPackets.v4int(B))).isPositive();
        vx[42 + 6] = 8;
        assertThat(vxlanB.decap(seg, BUF, load(vx), 14, LbPackets.v4int(B))).isEqualTo(Overlay.ERR_REFUSED);
    }

    @Test
    void outerFragmentsAreNotDecapsulated() {
        byte[] good = geneveFrame(tcp4());
        // RFC 7348 §4.3 (and RFC 8926 §4.1.1): no reassembly here, so a fragment is dropped, never read as a tunnel
        byte[] later = good.clone();
        LbPackets.put16(later, 14 + 6, 0x0003); // fragment offset 24 bytes, DF/MF clear
        assertThat(decap(later)).isEqualTo(Overlay.ERR_MALFORMED);
        assertThat(geneveB.errorOffset()).isEqualTo(6);
        byte[] first = good.clone();
        LbPackets.put16(first, 14 + 6, 0x2000); // MF
        assertThat(decap(first)).isEqualTo(Overlay.ERR_MALFORMED);
        assertThat(geneveB.errorOffset()).isEqualTo(6);
    }

    @Test
    void probesOfEveryTtlAreProbesNotErrors() {
        for (int ttl = 1; ttl <= PathDiscovery.MAX_TTL; ttl++) {
            int udpLen = PathDiscovery.udpLength(ttl);
            byte[] f = new byte[14 + 20 + udpLen];
            LbPackets.put16(f, 12, 0x0800);
            LbPackets.put32(f, 14, 0x4500_0000 | 20 + udpLen);
            LbPackets.put32(f, 18, 0x4000);
            LbPackets.put32(f, 22, 2 << 24 | 17 << 16);
            System.arraycopy(LbPackets.v4(A), 0, f, 26, 4);
            System.arraycopy(LbPackets.v4(B), 0, f, 30, 4);
            LbPackets.put16(f, 34, 49152);
            LbPackets.put16(f, 36, Overlay.GENEVE_PORT);
            LbPackets.put16(f, 38, udpLen);
            assertThat(decap(f)).as("probe with TTL " + ttl).isEqualTo(Overlay.PROBE);
        }
    }

    @Test
    void malformedInnerIpv4IsNotForwarded() {
        byte[] good = geneveFrame(tcp4());
        // IHL 2
        byte[] bad = good.clone();
        bad[50] = 0x42;
        assertThat(decap(bad)).isEqualTo(Overlay.ERR_MALFORMED);
        assertThat(geneveB.errorOffset()).isEqualTo(36);
        // total length past the tunnel payload
        bad = good.clone();
        LbPackets.put16(bad, 50 + 2, 1400);
        assertThat(decap(bad)).isEqualTo(Overlay.ERR_MALFORMED);
        assertThat(geneveB.errorOffset()).isEqualTo(36 + 2);
        // header checksum (RFC 1812 §5.2.2, as ip4-input checks it)
        bad = good.clone();
        bad[50 + 10] ^= 0x55;
        assertThat(decap(bad)).isEqualTo(Overlay.ERR_MALFORMED);
        assertThat(geneveB.errorOffset()).isEqualTo(36 + 10);
        // trailing bytes after the inner packet are not forwarded: the frame ends at the inner total length
        byte[] padded = java.util.Arrays.copyOf(good, good.length + 6);
        LbPackets.put16(padded, 14 + 2, LbPackets.u16(good, 14 + 2) + 6);
        LbPackets.put16(padded, 14 + 24, LbPackets.u16(good, 14 + 24) + 6);
        assertThat(decap(padded)).isEqualTo(14 + LbPackets.u16(good, 50 + 2));
    }

    @Test
    void outerEct1TurnsInnerEct0IntoEct1() {
        // RFC 6040 §4.2, decapsulation table: inner ECT(0) under outer ECT(1) leaves as ECT(1)
        byte[] in = tcp4();
        in[15] = (byte) (in[15] & 0xFC | 2);
        in[24] = 0;
        in[25] = 0;
        LbPackets.put16(in, 24, LbPackets.checksum(in, 14, 20, 0));
        byte[] f = geneveFrame(in);
        f[14 + 1] = (byte) (f[14 + 1] & 0xFC | 1);
        int back = decap(f);
        byte[] dec = LbPackets.bytes(seg, BUF, back);
        assertThat(dec[15] & 3).isEqualTo(1);
        assertThat(LbPackets.checksum(dec, 14, 20, 0)).isZero();
        // ECT(1) outer over a Not-ECT inner: unchanged (Not-ECT)
        f = geneveFrame(tcp4());
        f[14 + 1] = (byte) (f[14 + 1] & 0xFC | 1);
        dec = LbPackets.bytes(seg, BUF, decap(f));
        assertThat(dec[15] & 3).isZero();
    }
}
