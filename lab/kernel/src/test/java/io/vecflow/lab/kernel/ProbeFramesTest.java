package io.vecflow.lab.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.packet.LinkType;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import org.junit.jupiter.api.Test;

/** The drop check's probe frames, read back with vecflow's packet parser and checked against RFC 1071. */
class ProbeFramesTest {
    private static final byte[] DST = {0x02, 0, 0, 0, 0, 0x0b};
    private static final byte[] SRC = {0x02, 0, 0, 0, 0, 0x0a};

    @Test
    void udpProbeParsesWithAValidHeaderChecksum() {
        byte[] f = ProbeFrames.udp4(DST, SRC, ProbeFrames.ip4("10.99.0.2"), ProbeFrames.ip4("198.51.100.7"), 41003,
                40003,
                "vflab drop probe: UDP to an unroutable destination");
        assertThat(f).hasSize(14 + 20 + 8 + 50);
        assertThat(ProbeFrames.ipChecksum(f, 14, 20)).as("checksum over a header holding its checksum").isZero();
        ParsedPacket p = new ParsedPacket();
        PacketParser.parse(f, 0, f.length, LinkType.ETHERNET, p);
        assertThat(p.srcPort()).isEqualTo(41003);
        assertThat(p.dstPort()).isEqualTo(40003);
        assertThat(p.protocol()).isEqualTo(17);
        assertThat(p.ttl()).isEqualTo(64);
    }

    @Test
    void shortProbesArePaddedToTheEthernetMinimum() {
        byte[] f = ProbeFrames.udp4(DST, SRC, ProbeFrames.ip4("10.99.0.2"), ProbeFrames.ip4("10.99.0.1"), 1, 9, "x");
        assertThat(f).hasSize(ProbeFrames.MIN_FRAME);
        assertThat((f[16] & 0xFF) << 8 | f[17] & 0xFF).as("IPv4 total length covers the padding").isEqualTo(46);
        assertThat((f[38] & 0xFF) << 8 | f[39] & 0xFF).as("UDP length").isEqualTo(26);
    }

    /** RFC 1071 §3 example words 0001 f203 f4f5 f6f7: sum ddf2, checksum 220d. */
    @Test
    void checksumMatchesRfc1071Example() {
        byte[] b = {0x00, 0x01, (byte) 0xf2, 0x03, (byte) 0xf4, (byte) 0xf5, (byte) 0xf6, (byte) 0xf7};
        assertThat(ProbeFrames.ipChecksum(b, 0, 8)).isEqualTo(0x220d);
    }

    /** skb->protocol as eth_type_trans sets it (net/ethernet/eth.c). */
    @Test
    void skbProtocolOfEthernetIIAnd8023Frames() {
        byte[] f = new byte[60];
        f[12] = 0x08;
        assertThat(KernelToAgentCheck.skbProtocol(f)).isEqualTo(0x0800);
        f[12] = 0x00;
        f[13] = 0x26;
        f[14] = 0x42;
        f[15] = 0x42;
        assertThat(KernelToAgentCheck.skbProtocol(f)).as("802.2 LLC (STP)").isEqualTo(4);
        f[14] = (byte) 0xFF;
        f[15] = (byte) 0xFF;
        assertThat(KernelToAgentCheck.skbProtocol(f)).as("raw 802.3").isEqualTo(1);
    }
}
