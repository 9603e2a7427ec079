package io.vecflow.dataplane.plugins.lb.encap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.dataplane.ThreadAllocation;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link IcmpTooBig}: RFC 1191 / RFC 4443 §3.2 replies checked by the packet parser and by tshark. */
class IcmpTooBigTest {
    private static final int BUF_BYTES = 2048;
    private static final long BUF = BUF_BYTES; // second buffer of a pool
    private final MemorySegment seg = Arena.ofAuto().allocate(4L * BUF_BYTES, 64);
    private final IcmpTooBig ptb = new IcmpTooBig(BUF_BYTES, 64);
    private final ParsedPacket pp = new ParsedPacket();

    /** A 1500-byte IPv4 TCP packet (DF as given) in an Ethernet frame. */
    private static byte[] big4(boolean df, int vlan) {
        return LbPackets.ipv4Frame("198.51.100.7", "203.0.113.10", 6, 40000, 443, 0x10, 1500 - 40, df, vlan);
    }

    private static byte[] big6(int ipLen) {
        return LbPackets.ipv6Frame("2001:db8:c::7", "2001:db8:ff::80", 6, 40000, 443, 0x10, ipLen - 60, -1);
    }

    private byte[] reply(byte[] frame, int l3Off, int mtu, int overhead) {
        LbPackets.load(seg, BUF, frame);
        int len = ptb.check(seg, BUF, frame.length, l3Off, mtu, overhead);
        assertThat(len).as("reply length").isPositive();
        return LbPackets.bytes(seg, BUF, len);
    }

    @Test
    void ipv4FragmentationNeededQuotes548BytesWithValidChecksums() {
        byte[] in = big4(true, -1);
        byte[] out = reply(in, 14, 1500, Encap.GRE4_OVERHEAD);
        assertThat(out.length).isEqualTo(14 + 576);
        assertThat(PacketParser.parse(out, 0, out.length, LinkType.ETHERNET, pp)).isEqualTo(ParsedPacket.OK);
        assertThat(pp.srcAddressString()).isEqualTo("203.0.113.10");
        assertThat(pp.dstAddressString()).isEqualTo("198.51.100.7");
        assertThat(pp.protocol()).isEqualTo(1);
        assertThat(pp.icmpType()).isEqualTo(3);
        assertThat(pp.icmpCode()).isEqualTo(4);
        assertThat(pp.ttl()).isEqualTo(64);
        assertThat(pp.ipTotalLength()).isEqualTo(576);
        assertThat(pp.dstMac()).isEqualTo(0x020000000002L); // MACs swapped: back to the client's side
        assertThat(pp.srcMac()).isEqualTo(0x020000000001L);
        assertThat(LbPackets.u16(out, 14 + 20 + 6)).as("next-hop MTU").isEqualTo(1476);
        assertThat(LbPackets.checksum(out, 14, 20, 0)).isZero();
        assertThat(LbPackets.checksum(out, 34, 576 - 20, 0)).isZero();
        assertThat(Arrays.copyOfRange(out, 14 + 28, out.length)).as("quote = first 548 bytes of the original")
                .isEqualTo(Arrays.copyOfRange(in, 14, 14 + 548));
        assertThat(ptb.counter(IcmpTooBig.SENT_IPV4)).isEqualTo(1);
    }

    @Test
    void ipv4FitsOrDfClearOrNoIcmpAllowed() {
        byte[] in = big4(true, -1);
        LbPackets.load(seg, BUF, in);
        assertThat(ptb.check(seg, BUF, in.length, 14, 1524, Encap.GRE4_OVERHEAD)).isEqualTo(IcmpTooBig.FITS);
        byte[] noDf = big4(false, -1);
        LbPackets.load(seg, BUF, noDf);
        assertThat(ptb.check(seg, BUF, noDf.length, 14, 1500, 24)).isEqualTo(IcmpTooBig.DROP_DF_CLEAR);
        assertThat(LbPackets.bytes(seg, BUF, noDf.length)).as("frame untouched").isEqualTo(noDf);
        assertThat(ptb.counter(IcmpTooBig.DROPPED_DF_CLEAR)).isEqualTo(1);
        // an ICMP error (type 3) is never answered with an ICMP error
        byte[] icmpErr = big4(true, -1);
        icmpErr[14 + 9] = 1;
        icmpErr[14 + 20] = 3;
        icmpErr[14 + 10] = 0;
        icmpErr[14 + 11] = 0;
        LbPackets.put16(icmpErr, 14 + 10, LbPackets.checksum(icmpErr, 14, 20, 0));
        LbPackets.load(seg, BUF, icmpErr);
        assertThat(ptb.check(seg, BUF, icmpErr.length, 14, 1500, 24)).isEqualTo(IcmpTooBig.DROP_NO_ICMP);
        // a multicast source
        byte[] mcast = LbPackets.ipv4Frame("224.0.0.9", "203.0.113.10", 17, 1, 2, 0, 1500 - 28, true, -1);
        LbPackets.load(seg, BUF, mcast);
        assertThat(ptb.check(seg, BUF, mcast.length, 14, 1500, 24)).isEqualTo(IcmpTooBig.DROP_NO_ICMP);
        assertThat(ptb.counter(IcmpTooBig.DROPPED_NO_ICMP)).isEqualTo(2);
        LbPackets.load(seg, BUF, in);
        assertThat(ptb.check(seg, BUF, 30, 14, 1500, 24)).isEqualTo(IcmpTooBig.ERR_TRUNCATED);
        assertThat(ptb.check(seg, BUF, 600, 14, 1500, 24)).isEqualTo(IcmpTooBig.ERR_MALFORMED);
        assertThat(ptb.counter(IcmpTooBig.ERRORS)).isEqualTo(2);
    }

    @Test
    void ipv6PacketTooBigRespects1280() {
        byte[] in = big6(1500);
        byte[] out = reply(in, 14, 1500, Encap.GRE6_OVERHEAD);
        assertThat(out.length).isEqualTo(14 + 1280);
        assertThat(PacketParser.parse(out, 0, out.length, LinkType.ETHERNET, pp)).isEqualTo(ParsedPacket.OK);
        assertThat(pp.srcAddressString()).isEqualTo("2001:db8:ff::80");
        assertThat(pp.dstAddressString()).isEqualTo("2001:db8:c::7");
        assertThat(pp.protocol()).isEqualTo(58);
        assertThat(pp.icmpType()).isEqualTo(2);
        assertThat(pp.icmpCode()).isZero();
        assertThat(LbPackets.u16(out, 14 + 4)).as("payload length").isEqualTo(1240);
        assertThat(LbPackets.u16(out, 14 + 44) << 16 | LbPackets.u16(out, 14 + 46)).as("MTU").isEqualTo(1456);
        // MTU below 1280 + overhead: report 1280 for a big packet, drop a packet of ≤ 1280 bytes
        byte[] out2 = reply(big6(1400), 14, 1300, Encap.SRV6_ENCAPS_OVERHEAD);
        assertThat(LbPackets.u16(out2, 14 + 44) << 16 | LbPackets.u16(out2, 14 + 46)).isEqualTo(1280);
        assertThat(out2.length).isEqualTo(14 + 40 + 8 + 1232);
        byte[] small = big6(1280);
        LbPackets.load(seg, BUF, small);
        assertThat(ptb.check(seg, BUF, small.length, 14, 1300, 64)).isEqualTo(IcmpTooBig.DROP_BELOW_IPV6_MINIMUM);
        assertThat(ptb.counter(IcmpTooBig.SENT_IPV6)).isEqualTo(2);
        assertThat(ptb.counter(IcmpTooBig.DROPPED_BELOW_IPV6_MINIMUM)).isEqualTo(1);
    }

    @Test
    void tsharkVerifiesTheIcmpChecksumsAndTheQuotedPacket(@TempDir Path dir) throws Exception {
        List<byte[]> frames = new ArrayList<>();
        frames.add(reply(big4(true, -1), 14, 1500, Encap.GRE4_OVERHEAD));
        frames.add(reply(big4(true, 100), 18, 1400, Encap.IPIP4_OVERHEAD)); // VLAN-tagged, 1400-byte tunnel
        // a short original (tunnel MTU 100): the whole packet is quoted
        byte[] small4 = LbPackets.ipv4Frame("198.51.100.7", "203.0.113.10", 17, 5000, 53, 0, 100, true, -1);
        frames.add(reply(small4, 14, 100, Encap.GRE4_OVERHEAD));
        frames.add(reply(big6(1500), 14, 1500, Encap.GRE6_OVERHEAD));
        byte[] small6 = LbPackets.ipv6Frame("2001:db8:c::7", "2001:db8:ff::80", 17, 5000, 53, 0, 1300, -1);
        frames.add(reply(small6, 14, 1300, Encap.IPIP6_OVERHEAD));
        Path pcap = dir.resolve("ptb.pcap");
        LbPackets.writePcap(pcap, frames);
        List<String> lines = LbPackets.tshark(pcap, "-o", "ip.check_checksum:TRUE",
                "-e", "vlan.id", "-e", "ip.src", "-e", "ip.dst", "-e", "ip.len", "-e", "ip.checksum.status",
                "-e", "icmp.type", "-e", "icmp.code", "-e", "icmp.mtu", "-e", "icmp.checksum.status",
                "-e", "ipv6.src", "-e", "ipv6.dst", "-e", "ipv6.plen", "-e", "ipv6.hlim", "-e", "icmpv6.type",
                "-e", "icmpv6.mtu", "-e", "icmpv6.checksum.status", "-e", "tcp.srcport", "-e", "udp.srcport");
        // checksum status 1 = good; the quoted header is decoded too (second occurrence of ip.* / ipv6.*)
        assertThat(lines).containsExactly(
                "|203.0.113.10,198.51.100.7|198.51.100.7,203.0.113.10|576,1500|1,1|3|4|1476|1||||||||40000|",
                "100|203.0.113.10,198.51.100.7|198.51.100.7,203.0.113.10|576,1500|1,1|3|4|1380|1||||||||40000|",
                "|203.0.113.10,198.51.100.7|198.51.100.7,203.0.113.10|156,128|1,1|3|4|76|1|||||||||5000",
                "|||||||||2001:db8:ff::80,2001:db8:c::7|2001:db8:c::7,2001:db8:ff::80|1240,1460|64,59|2|1456|1|40000|",
                "|||||||||2001:db8:ff::80,2001:db8:c::7|2001:db8:c::7,2001:db8:ff::80|1240,1308|64,59|2|1280|1||5000");
    }

    @Test
    void repliesAllocateNothing() {
        byte[] in4 = big4(true, -1);
        byte[] in6 = big6(1500);
        long[] sink = {0};
        Runnable round = () -> {
            for (int i = 0; i < 20_000; i++) {
                LbPackets.load(seg, BUF, (i & 1) == 0 ? in4 : in6);
                sink[0] += ptb.check(seg, BUF, (i & 1) == 0 ? in4.length : in6.length, 14, 1500, 44);
            }
        };
        long best = ThreadAllocation.leastPerRound(round, 10, 5);
        assertThat(best).as("bytes allocated for 20k replies (the probe itself costs < 1 KiB)").isLessThan(1024);
        assertThat(sink[0] % (14 + 576 + 14 + 1280)).isZero();
    }

    @Test
    void rejectsBadConfiguration() {
        assertThatThrownBy(() -> new IcmpTooBig(1024, 64)).hasMessageContaining("got 1024");
        assertThatThrownBy(() -> new IcmpTooBig(2048, 256)).hasMessageContaining("got 256");
        assertThatThrownBy(() -> ptb.counter(6)).hasMessageContaining("got 6");
    }

}
