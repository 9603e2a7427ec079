package io.vecflow.dataplane.plugins.lb.encap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.dataplane.ThreadAllocation;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import io.vecflow.dataplane.plugins.srlb.state.SrlbSid;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket.Encapsulation;
import io.vecflow.packet.ParsedPacket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every encapsulation parsed back by the packet module's parser and decoded by tshark, and undone by {@link Decap}.
 */
class EncapTest {
    private static final int BUF_BYTES = 2048;
    private static final long BUF = 3 * BUF_BYTES; // the 4th buffer of a pool: offsets are absolute
    private static final String LB4 = "192.0.2.1", BACKEND4 = "10.1.2.3";
    private static final String LB6 = "2001:db8:1b::1", BACKEND6 = "2001:db8:be::3";
    private static final String CLIENT4 = "198.51.100.7", VIP4 = "203.0.113.10";
    private static final String CLIENT6 = "2001:db8:c::7", VIP6 = "2001:db8:ff::80";

    private final MemorySegment seg = Arena.ofAuto().allocate(8L * BUF_BYTES, 64);
    private final Encap encap = new Encap(BUF_BYTES, Encap.DEFAULT_TTL, LbPackets.v4int(LB4),
            LbPackets.hi(LbPackets.v6(LB6)), LbPackets.lo(LbPackets.v6(LB6)));
    private final Decap decap = new Decap();
    private final ParsedPacket pp = new ParsedPacket();

    private static byte[] tcp4(int vlan) {
        return LbPackets.ipv4Frame(CLIENT4, VIP4, 6, 40000, 80, FlowKey.TCP_SYN, 12, true, vlan);
    }

    private static byte[] tcp6(int vlan) {
        return LbPackets.ipv6Frame(CLIENT6, VIP6, 6, 40000, 80, FlowKey.TCP_SYN, 12, vlan);
    }

    private static int l3(byte[] f) {
        return (f[12] & 0xFF) == 0x81 ? 18 : 14;
    }

    /** The IP packet of a test frame (without Ethernet padding). */
    private static byte[] ipPacket(byte[] f) {
        int l3 = l3(f);
        int len = (f[l3] >>> 4 & 0xF) == 4 ? LbPackets.u16(f, l3 + 2) : 40 + LbPackets.u16(f, l3 + 4);
        return Arrays.copyOfRange(f, l3, l3 + len);
    }

    private byte[] run(byte[] frame, java.util.function.IntUnaryOperator op) {
        seg.fill((byte) 0);
        LbPackets.load(seg, BUF, frame);
        int len = op.applyAsInt(frame.length);
        assertThat(len).as("result code").isPositive();
        return LbPackets.bytes(seg, BUF, len);
    }

    private void parse(byte[] out) {
        assertThat(PacketParser.parse(out, 0, out.length, LinkType.ETHERNET, pp)).as(pp.toString())
                .isEqualTo(ParsedPacket.OK);
    }

    private void assertInnerIsTheOriginal(byte[] original) {
        assertThat(pp.innerSrcAddressString()).isEqualTo(pp.innerIpVersion() == 4 ? CLIENT4 : "2001:db8:c::7");
        assertThat(pp.innerDstAddressString()).isEqualTo(pp.innerIpVersion() == 4 ? VIP4 : "2001:db8:ff::80");
        assertThat(pp.innerProtocol()).isEqualTo(6);
        assertThat(pp.innerSrcPort()).isEqualTo(40000);
        assertThat(pp.innerDstPort()).isEqualTo(80);
        assertThat(pp.innerTcpFlags()).isEqualTo(FlowKey.TCP_SYN);
        assertThat(pp.innerTtl()).isEqualTo(pp.innerIpVersion() == 4 ? 61 : 59);
        assertThat(pp.innerIpVersion()).isEqualTo(original[l3(original)] >>> 4 & 0xF);
    }

    private static void assertIpv4HeaderChecksumValid(byte[] out) {
        assertThat(LbPackets.checksum(out, 14, 20, 0)).as("IPv4 header checksum verifies to 0").isZero();
    }

    /** Decapsulates {@code out} and checks that the original IP packet comes back at {@code l3Off} = 14. */
    private void assertDecapRestores(byte[] out, byte[] original) {
        byte[] back = run(out, len -> decap.tunnel(seg, BUF, len, 14));
        byte[] ip = ipPacket(original);
        assertThat(back.length).isEqualTo(14 + ip.length);
        assertThat(Arrays.copyOfRange(back, 14, back.length)).isEqualTo(ip);
        assertThat(LbPackets.u16(back, 12)).isEqualTo(ip[0] >>> 4 == 4 ? 0x0800 : 0x86DD);
    }

    @Test
    void gre4CarriesIpv4AndIpv6() {
        for (byte[] in : List.of(tcp4(-1), tcp4(100), tcp6(-1))) {
            byte[] out = run(in, len -> encap.gre4(seg, BUF, 0, len, l3(in), LbPackets.v4int(BACKEND4)));
            int innerLen = ipPacket(in).length;
            assertThat(out.length).isEqualTo(14 + 24 + innerLen);
            parse(out);
            assertThat(pp.vlanCount()).isZero();
            assertThat(pp.ipVersion()).isEqualTo(4);
            assertThat(pp.srcAddressString()).isEqualTo(LB4);
            assertThat(pp.dstAddressString()).isEqualTo(BACKEND4);
            assertThat(pp.protocol()).isEqualTo(47);
            assertThat(pp.ttl()).isEqualTo(64);
            assertThat(pp.ipTotalLength()).isEqualTo(24 + innerLen);
            assertThat(pp.tos()).isEqualTo(in[l3(in)] >>> 4 == 4 ? 0xB8 : 0x2E);
            assertThat(pp.encapsulation()).isEqualTo(Encapsulation.GRE);
            assertThat(pp.greProtocol()).isEqualTo(in[l3(in)] >>> 4 == 4 ? 0x0800 : 0x86DD);
            assertThat(pp.greKeyPresent() || pp.greChecksumPresent() || pp.greSequencePresent()).isFalse();
            assertIpv4HeaderChecksumValid(out);
            assertThat(LbPackets.u16(out, 14 + 6)).as("flags: DF (copied from IPv4, always for IPv6)")
                    .isEqualTo(0x4000);
            assertThat(LbPackets.u16(out, 14 + 4)).as("ID copied from IPv4, 0 for IPv6")
                    .isEqualTo(in[l3(in)] >>> 4 == 4 ? 0x1234 : 0);
            assertInnerIsTheOriginal(in);
            assertDecapRestores(out, in);
        }
    }

    @Test
    void outerDfFollowsAnIpv4InnerPacket() {
        byte[] in = LbPackets.ipv4Frame(CLIENT4, VIP4, 17, 5000, 53, 0, 30, false, -1);
        byte[] out = run(in, len -> encap.ipip4(seg, BUF, 0, len, 14, LbPackets.v4int(BACKEND4)));
        assertThat(LbPackets.u16(out, 14 + 6)).as("flags and offset").isZero();
        assertThat(LbPackets.u16(out, 14 + 4)).as("identification").isEqualTo(0x1234);
        assertIpv4HeaderChecksumValid(out);
    }

    @Test
    void gre6CarriesIpv4AndIpv6WithAFlowLabel() {
        byte[] b6 = LbPackets.v6(BACKEND6);
        for (byte[] in : List.of(tcp4(-1), tcp6(7))) {
            byte[] out = run(in, len -> encap.gre6(seg, BUF, 0, len, l3(in), LbPackets.hi(b6), LbPackets.lo(b6),
                    0x0123_4567_89AB_CDEFL));
            int innerLen = ipPacket(in).length;
            assertThat(out.length).isEqualTo(14 + 44 + innerLen);
            parse(out);
            assertThat(pp.ipVersion()).isEqualTo(6);
            assertThat(pp.srcAddressString()).isEqualTo("2001:db8:1b::1");
            assertThat(pp.dstAddressString()).isEqualTo("2001:db8:be::3");
            assertThat(pp.protocol()).isEqualTo(47);
            assertThat(pp.ttl()).isEqualTo(64);
            assertThat(LbPackets.u16(out, 14 + 4)).as("payload length").isEqualTo(4 + innerLen);
            long h = 0x0123_4567_89AB_CDEFL;
            assertThat(((out[15] & 0xF) << 16) | LbPackets.u16(out, 16))
                    .isEqualTo((int) (h ^ h >>> 20 ^ h >>> 40) & 0xFFFFF);
            assertThat(pp.encapsulation()).isEqualTo(Encapsulation.GRE);
            assertInnerIsTheOriginal(in);
            assertDecapRestores(out, in);
        }
    }

    @Test
    void ipInIpv4AndIpInIpv6() {
        byte[] b6 = LbPackets.v6(BACKEND6);
        for (byte[] in : List.of(tcp4(-1), tcp6(-1))) {
            int v = in[l3(in)] >>> 4;
            byte[] out4 = run(in, len -> encap.ipip4(seg, BUF, 0, len, l3(in), LbPackets.v4int(BACKEND4)));
            assertThat(out4.length).isEqualTo(14 + 20 + ipPacket(in).length);
            parse(out4);
            assertThat(pp.protocol()).isEqualTo(v == 4 ? 4 : 41);
            assertThat(pp.dstAddressString()).isEqualTo(BACKEND4);
            assertThat(pp.encapsulation()).isEqualTo(Encapsulation.IP_IN_IP);
            assertIpv4HeaderChecksumValid(out4);
            assertInnerIsTheOriginal(in);
            assertDecapRestores(out4, in);

            byte[] out6 = run(in, len -> encap.ipip6(seg, BUF, 0, len, l3(in), LbPackets.hi(b6), LbPackets.lo(b6), 5));
            assertThat(out6.length).isEqualTo(14 + 40 + ipPacket(in).length);
            parse(out6);
            assertThat(pp.protocol()).isEqualTo(v == 4 ? 4 : 41);
            assertThat(pp.dstAddressString()).isEqualTo("2001:db8:be::3");
            assertThat(pp.encapsulation()).isEqualTo(Encapsulation.IP_IN_IP);
            assertInnerIsTheOriginal(in);
            assertDecapRestores(out6, in);
        }
    }

    @Test
    void srv6EncapsWithOneSegment() {
        byte[] sid = LbPackets.v6("fc00:0:be::d6");
        for (byte[] in : List.of(tcp4(-1), tcp6(-1))) {
            int v = in[l3(in)] >>> 4;
            byte[] out = run(in, len -> encap.srv6Encaps(seg, BUF, 0, len, l3(in), LbPackets.hi(sid),
                    LbPackets.lo(sid), 9));
            assertThat(out.length).isEqualTo(14 + 64 + ipPacket(in).length);
            parse(out);
            assertThat(pp.dstAddressString()).isEqualTo("fc00:0:be::d6");
            assertThat(pp.srhPresent()).isTrue();
            assertThat(pp.srhSegmentsLeft()).isZero();
            assertThat(pp.srhLastEntry()).isZero();
            assertThat(pp.srhSegmentCount()).isEqualTo(1);
            assertThat(pp.srhSegmentString(0)).isEqualTo("fc00:0:be::d6");
            assertThat(pp.encapsulation()).isEqualTo(Encapsulation.SRV6);
            assertThat(out[14 + 40]).as("SRH next header").isEqualTo((byte) (v == 4 ? 4 : 41));
            assertInnerIsTheOriginal(in);
            assertDecapRestores(out, in);
        }
    }

    @Test
    void srlbHuntingSrhFollowsTheSidLayoutAndIsUndoneByTheServerAgent() {
        byte[] in = tcp6(-1);
        long c1Hi = LbPackets.hi(LbPackets.v6("fc00:1::")), c1Lo = LbPackets.lo(LbPackets.v6("fc00:1::"));
        long c2Hi = LbPackets.hi(LbPackets.v6("fc00:2::")), c2Lo = LbPackets.lo(LbPackets.v6("fc00:2::"));
        long lbHi = LbPackets.hi(LbPackets.v6("fc00:1b::")), lbPrefixLo = LbPackets.lo(LbPackets.v6("fc00:1b::"));
        long lbLo = SrlbSid.lo(lbPrefixLo, 0, 0, 3, 0xDEADBEEF);
        byte[] out = run(in, len -> encap.srlbHunt2(seg, BUF, 0, len, 14, c1Hi, c1Lo, c2Hi, c2Lo, lbHi, lbLo, true));
        assertThat(out.length).isEqualTo(in.length + 72);
        parse(out);
        assertThat(pp.srhSegmentsLeft()).isEqualTo(3);
        assertThat(pp.srhLastEntry()).isEqualTo(3);
        assertThat(pp.srhSegmentCount()).isEqualTo(4);
        // Segment List[0] = VIP, [1] = LB SID (fn 0, core 3, entry), [2] = candidate 2 (fn 0, offset 2),
        // [3] = candidate 1 (fn 0, offset 3) = the destination
        assertThat(pp.srhSegmentString(0)).isEqualTo("2001:db8:ff::80");
        assertThat(pp.srhSegmentString(1)).isEqualTo("fc00:1b::3:dead:beef");
        assertThat(pp.srhSegmentString(2)).isEqualTo("fc00:2::200:0:0"); // byte 10 = 0x02, byte 11 = 0
        assertThat(pp.srhSegmentString(3)).isEqualTo("fc00:1::300:0:0");
        assertThat(pp.dstAddressString()).isEqualTo("fc00:1::300:0:0");
        assertThat(SrlbSid.offset(pp.srhSegmentLo(3))).isEqualTo(3);
        assertThat(SrlbSid.function(pp.srhSegmentLo(2))).isEqualTo(SrlbSid.FN_CONNECT_IF_AVAILABLE);
        assertThat(SrlbSid.core(pp.srhSegmentLo(1))).isEqualTo(3);
        assertThat(SrlbSid.entry(pp.srhSegmentLo(1))).isEqualTo(0xDEADBEEF);
        // the VIP sits at segments_left − offset for the candidate being visited
        assertThat(pp.srhSegmentsLeft() - SrlbSid.offset(pp.srhSegmentLo(pp.srhSegmentsLeft()))).isZero();
        assertThat(pp.protocol()).isEqualTo(6);
        assertThat(pp.srcPort()).isEqualTo(40000);
        assertThat(pp.tcpFlags()).isEqualTo(FlowKey.TCP_SYN);

        // not a SYN: RECOVER_STICKINESS
        byte[] rec = run(in, len -> encap.srlbHunt(seg, BUF, 0, len, 14, new long[] {c1Hi, c1Lo, c2Hi, c2Lo}, 2,
                lbHi, lbLo, false));
        parse(rec);
        assertThat(SrlbSid.function(pp.srhSegmentLo(3))).isEqualTo(SrlbSid.FN_RECOVER_STICKINESS);
        assertThat(SrlbSid.function(pp.srhSegmentLo(2))).isEqualTo(SrlbSid.FN_RECOVER_STICKINESS);

        // candidate 1 passes: segments_left 2, destination candidate 2; candidate 2 accepts: SRH gone, dst = VIP
        byte[] passed = run(out, len -> decap.srhAdvance(seg, BUF, len, 14));
        parse(passed);
        assertThat(pp.srhSegmentsLeft()).isEqualTo(2);
        assertThat(pp.dstAddressString()).isEqualTo("fc00:2::200:0:0");
        byte[] accepted = run(passed, len -> decap.srhPop(seg, BUF, len, 14));
        assertThat(accepted).isEqualTo(ipPacketFrame(in));
        // one more advance past the last candidate reaches the LB SID, then the VIP; below 0 is refused
        byte[] atLb = run(passed, len -> decap.srhAdvance(seg, BUF, len, 14));
        parse(atLb);
        assertThat(pp.dstAddressString()).isEqualTo("fc00:1b::3:dead:beef");
        LbPackets.load(seg, BUF, atLb);
        assertThat(decap.srhAdvance(seg, BUF, atLb.length, 14)).isEqualTo(atLb.length);
        assertThat(decap.srhAdvance(seg, BUF, atLb.length, 14)).isEqualTo(Decap.ERR_NOT_LAST);
        assertThat(decap.errorOffset()).isEqualTo(43);
    }

    /** The frame as it should come back from srhPop: the original without Ethernet padding. */
    private static byte[] ipPacketFrame(byte[] f) {
        return Arrays.copyOf(f, l3(f) + ipPacket(f).length);
    }

    @Test
    void tsharkDecodesEveryEncapsulation(@TempDir Path dir) throws Exception {
        byte[] b6 = LbPackets.v6(BACKEND6);
        byte[] sid = LbPackets.v6("fc00:0:be::d6");
        long c1Hi = LbPackets.hi(LbPackets.v6("fc00:1::")), c2Hi = LbPackets.hi(LbPackets.v6("fc00:2::"));
        long lbHi = LbPackets.hi(LbPackets.v6("fc00:1b::"));
        List<byte[]> frames = new ArrayList<>();
        byte[] v4 = tcp4(-1), v6 = tcp6(-1);
        frames.add(run(v4, len -> encap.gre4(seg, BUF, 0, len, 14, LbPackets.v4int(BACKEND4))));
        frames.add(run(v6, len -> encap.gre6(seg, BUF, 0, len, 14, LbPackets.hi(b6), LbPackets.lo(b6), 1)));
        frames.add(run(v4, len -> encap.ipip4(seg, BUF, 0, len, 14, LbPackets.v4int(BACKEND4))));
        frames.add(run(v6, len -> encap.ipip6(seg, BUF, 0, len, 14, LbPackets.hi(b6), LbPackets.lo(b6), 1)));
        frames.add(run(v4, len -> encap.srv6Encaps(seg, BUF, 0, len, 14, LbPackets.hi(sid), LbPackets.lo(sid), 1)));
        frames.add(run(v6, len -> encap.srlbHunt2(seg, BUF, 0, len, 14, c1Hi, 0, c2Hi, 0, lbHi,
                SrlbSid.lo(0, 0, 0, 1, 42), true)));
        Path pcap = dir.resolve("encap.pcap");
        LbPackets.writePcap(pcap, frames);
        List<String> lines = LbPackets.tshark(pcap, "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE",
                "-e", "eth.type", "-e", "ip.src", "-e", "ip.dst", "-e", "ip.ttl", "-e", "ip.proto",
                "-e", "ip.checksum.status", "-e", "gre.proto", "-e", "ipv6.src", "-e", "ipv6.dst", "-e", "ipv6.hlim",
                "-e", "ipv6.nxt", "-e", "ipv6.routing.segleft", "-e", "ipv6.routing.srh.last_entry",
                "-e", "ipv6.routing.srh.addr", "-e", "tcp.dstport", "-e", "tcp.checksum.status");
        // checksum status 1 = good (Wireshark's PROTO_CHECKSUM_E_GOOD); the inner TCP checksum stays good
        // everywhere, for SRLB because it uses the final destination, the VIP (RFC 8200 §8.1)
        assertThat(lines).containsExactly(
                "0x0800|192.0.2.1,198.51.100.7|10.1.2.3,203.0.113.10|64,61|47,6|1,1|0x0800||||||||80|1",
                "0x86dd||||||0x86dd|2001:db8:1b::1,2001:db8:c::7|2001:db8:be::3,2001:db8:ff::80|64,59|47,6||||80|1",
                "0x0800|192.0.2.1,198.51.100.7|10.1.2.3,203.0.113.10|64,61|4,6|1,1|||||||||80|1",
                "0x86dd|||||||2001:db8:1b::1,2001:db8:c::7|2001:db8:be::3,2001:db8:ff::80|64,59|41,6||||80|1",
                "0x86dd|198.51.100.7|203.0.113.10|61|6|1||2001:db8:1b::1|fc00:0:be::d6|64|43|0|0|fc00:0:be::d6|80|1",
                "0x86dd|||||||2001:db8:c::7|fc00:1::300:0:0|59|43|3|3"
                        + "|2001:db8:ff::80,fc00:1b::1:0:2a,fc00:2::200:0:0,fc00:1::300:0:0|80|1");
    }

    /** One LB encapsulation of a frame at {@code at} with {@code room} bytes of headroom. */
    private interface EncapCall {
        int apply(long at, int room, int len, int l3);
    }

    /**
     * With headroom, every LB encapsulation writes its headers in front of the packet and leaves the inner packet
     * where it was; the output (from {@code bufStart + shift()}) is byte for byte the frame the moving path writes,
     * MACs aside. Without enough headroom it moves the packet as before (shift 0).
     */
    @Test
    void prependsIntoTheHeadroomInsteadOfMovingThePacket() {
        byte[] b6 = LbPackets.v6(BACKEND6);
        int d4 = LbPackets.v4int(BACKEND4);
        long hi = LbPackets.hi(b6), lo = LbPackets.lo(b6);
        List<EncapCall> all = List.of(
                (at, room, len, l3) -> encap.gre4(seg, at, room, len, l3, d4),
                (at, room, len, l3) -> encap.gre6(seg, at, room, len, l3, hi, lo, 7),
                (at, room, len, l3) -> encap.ipip4(seg, at, room, len, l3, d4),
                (at, room, len, l3) -> encap.ipip6(seg, at, room, len, l3, hi, lo, 7),
                (at, room, len, l3) -> encap.srv6Encaps(seg, at, room, len, l3, hi, lo, 7));
        int[] overhead = {Encap.GRE4_OVERHEAD, Encap.GRE6_OVERHEAD, Encap.IPIP4_OVERHEAD, Encap.IPIP6_OVERHEAD,
            Encap.SRV6_ENCAPS_OVERHEAD};
        int checked = 0;
        for (byte[] in : List.of(tcp4(-1), tcp4(100), tcp6(-1), tcp6(100))) {
            int l3 = l3(in);
            byte[] ip = ipPacket(in);
            for (int e = 0; e < all.size(); e++) {
                EncapCall enc = all.get(e);
                byte[] moved = run(in, len -> enc.apply(BUF, 0, len, l3));
                assertThat(encap.shift()).isZero();
                int need = 14 + overhead[e] - l3;
                // enough headroom: prepended, the inner packet not moved
                seg.fill((byte) 0);
                LbPackets.load(seg, BUF, in);
                int len = enc.apply(BUF, 128, in.length, l3);
                assertThat(len).isEqualTo(14 + overhead[e] + ip.length);
                assertThat(encap.shift()).as("encap %d of a frame with l3 at %d", e, l3).isEqualTo(-need);
                byte[] prepended = LbPackets.bytes(seg, BUF + encap.shift(), len);
                assertThat(Arrays.copyOfRange(prepended, 12, len)).isEqualTo(Arrays.copyOfRange(moved, 12, len));
                assertThat(LbPackets.bytes(seg, BUF + l3, ip.length)).as("inner packet in place").isEqualTo(ip);
                // one byte too little headroom: moved instead
                seg.fill((byte) 0);
                LbPackets.load(seg, BUF, in);
                assertThat(enc.apply(BUF, need - 1, in.length, l3)).isEqualTo(len);
                assertThat(encap.shift()).isZero();
                assertThat(Arrays.copyOfRange(LbPackets.bytes(seg, BUF, len), 12, len))
                        .isEqualTo(Arrays.copyOfRange(moved, 12, len));
                checked++;
            }
        }
        assertThat(checked).isEqualTo(20);
        // the output frame stays within bufferBytes whichever way it is written
        byte[] big = LbPackets.ipv4Frame(CLIENT4, VIP4, 17, 1, 2, 0, 2000 - 28, true, -1);
        LbPackets.load(seg, BUF, big);
        assertThat(encap.srv6Encaps(seg, BUF, 128, big.length, 14, 0, 1, 0)).isEqualTo(Encap.ERR_NO_ROOM);
    }

    @Test
    void refusesWhatItCannotEncapsulateAndNamesTheField() {
        byte[] in = tcp4(-1);
        LbPackets.load(seg, BUF, in);
        assertThat(encap.gre4(seg, BUF, 0, 14 + 10, 14, 1)).isEqualTo(Encap.ERR_TRUNCATED);
        assertThat(encap.srlbHunt2(seg, BUF, 0, in.length, 14, 0, 0, 0, 0, 0, 0, true)).isEqualTo(Encap.ERR_NOT_IP);
        // total length larger than the frame
        assertThat(encap.gre4(seg, BUF, 0, 14 + 30, 14, 1)).isEqualTo(Encap.ERR_MALFORMED);
        assertThat(encap.errorOffset()).isEqualTo(2);
        // a 2000-byte packet does not fit in 2048 with 14 + 64 bytes in front
        byte[] big = LbPackets.ipv4Frame(CLIENT4, VIP4, 17, 1, 2, 0, 2000 - 28, true, -1);
        LbPackets.load(seg, BUF, big);
        assertThat(encap.srv6Encaps(seg, BUF, 0, big.length, 14, 0, 1, 0)).isEqualTo(Encap.ERR_NO_ROOM);
        assertThat(encap.gre4(seg, BUF, 0, big.length, 14, 1)).isEqualTo(14 + 24 + 2000);
        assertThat(Encap.errorName(Encap.ERR_NO_ROOM)).isEqualTo("no-room");
        // decapsulation: a plain TCP packet is not a tunnel; a bad IPv4 checksum is malformed
        LbPackets.load(seg, BUF, in);
        assertThat(decap.tunnel(seg, BUF, in.length, 14)).isEqualTo(Decap.ERR_NOT_TUNNEL);
        assertThat(decap.errorOffset()).isEqualTo(9);
        seg.set(java.lang.foreign.ValueLayout.JAVA_BYTE, BUF + 14 + 10, (byte) 0);
        assertThat(decap.tunnel(seg, BUF, in.length, 14)).isEqualTo(Decap.ERR_MALFORMED);
        assertThat(decap.errorOffset()).isEqualTo(10);
        assertThatThrownBy(() -> new Encap(2048, 0, 0, 0, 0)).hasMessageContaining("got 0");
        assertThatThrownBy(() -> encap.srlbHunt(seg, BUF, 0, in.length, 14, new long[2], 2, 0, 0, true))
                .hasMessageContaining("k 2 with 2 longs");
    }

    @Test
    void encapsulationAndDecapsulationAllocateNothing() {
        byte[] in = tcp4(-1);
        int dst = LbPackets.v4int(BACKEND4);
        long[] sink = {0, 0};
        Runnable round = () -> {
            for (int i = 0; i < 200_000; i++) {
                sink[1]++;
                int len = encap.gre4(seg, BUF, 0, in.length, 14, dst);
                len = decap.tunnel(seg, BUF, len, 14);
                len = encap.srv6Encaps(seg, BUF, 0, len, 14, 1, 2, i);
                len = decap.tunnel(seg, BUF, len, 14);
                sink[0] += len;
            }
        };
        LbPackets.load(seg, BUF, in);
        long best = ThreadAllocation.leastPerRound(round, 5, 5);
        assertThat(best).as("bytes allocated for 800k encap/decap calls (the probe itself costs < 1 KiB)")
                .isLessThan(1024);
        assertThat(sink[0]).as("every round trip restores the frame length").isEqualTo(
                sink[1] * (14 + ipPacket(in).length));
    }

}
