package io.vecflow.dataplane.port;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.packet.LinkType;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link GsoSegmenter} on hand-built super-frames, judged by the packet module's parser and an independent checksum
 * sum: every segment a valid frame of its own (lengths, IPv4 header checksum, TCP/UDP checksum over the
 * pseudo-header), sequence numbers and IPv4 ids advancing, TCP flags split as the kernel splits them, the payloads
 * together the super-frame's payload; and every shape it must refuse refused with its cause.
 */
class GsoSegmenterTest {
    private static final int TCPV4 = PacketSys.VIRTIO_NET_HDR_GSO_TCPV4, TCPV6 = PacketSys.VIRTIO_NET_HDR_GSO_TCPV6;
    private static final int UDP_L4 = PacketSys.VIRTIO_NET_HDR_GSO_UDP_L4;
    private static final int CWR = 0x80, ACK = 0x10, PSH = 0x08, FIN = 0x01;

    private static byte[] payload(int n) {
        byte[] p = new byte[n];
        for (int i = 0; i < n; i++) {
            p[i] = (byte) (i * 13 + i / 251);
        }
        return p;
    }

    /**
     * An Ethernet frame: MACs, {@code tags} in-frame 802.1Q tags, then IPv4 (with {@code ip4Options} bytes of options)
     * or IPv6, then a TCP header with 12 bytes of options (timestamps) or a UDP header, then {@code data}. Lengths are
     * those of the whole super-frame and the L4 checksum holds rubbish, as in a GSO skb (the segmenter must not care).
     */
    static byte[] superFrame(boolean ipv6, boolean tcp, int tags, int ip4Options, int id, int seq, int flags,
            byte[] data) {
        int l3 = 14 + 4 * tags;
        int ipHdr = ipv6 ? 40 : 20 + ip4Options;
        int l4Hdr = tcp ? 32 : 8;
        ByteBuffer b = ByteBuffer.allocate(l3 + ipHdr + l4Hdr + data.length);
        b.putShort((short) 0x0200).putInt(0x000000b1).putShort((short) 0x0200).putInt(0x000000a1);
        for (int t = 0; t < tags; t++) {
            b.putShort((short) 0x8100).putShort((short) (100 + t));
        }
        b.putShort((short) (ipv6 ? 0x86DD : 0x0800));
        int proto = tcp ? 6 : 17;
        if (ipv6) {
            b.putInt(0x60000000).putShort((short) (l4Hdr + data.length)).put((byte) proto).put((byte) 64)
                    .putLong(0xfd31000000000000L).putLong(1).putLong(0xfd31000000000000L).putLong(2);
        } else {
            b.put((byte) (0x40 | ipHdr / 4)).put((byte) 0).putShort((short) (ipHdr + l4Hdr + data.length))
                    .putShort((short) id).putShort((short) 0x4000).put((byte) 64).put((byte) proto)
                    .putShort((short) 0x1234).putInt(0x0a1f0001).putInt(0x0a1f0002);
            for (int i = 0; i < ip4Options; i++) {
                b.put((byte) 1); // NOP options
            }
        }
        if (tcp) {
            b.putShort((short) 40000).putShort((short) 5001).putInt(seq).putInt(0x01020304)
                    .put((byte) (8 << 4)).put((byte) flags).putShort((short) 502).putShort((short) 0xbeef)
                    .putShort((short) 0);
            b.put(new byte[] {1, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 9}); // NOP NOP timestamps
        } else {
            b.putShort((short) 40000).putShort((short) 5002).putShort((short) (8 + data.length))
                    .putShort((short) 0xbeef);
        }
        b.put(data);
        return b.array();
    }

    private static long words(byte[] f, int from, int n) {
        long s = 0;
        for (int i = from; i < from + n; i += 2) {
            s += (f[i] & 0xff) << 8 | (i + 1 < from + n ? f[i + 1] & 0xff : 0);
        }
        return s;
    }

    private static int folded(long s) {
        while (s > 0xffff) {
            s = (s & 0xffff) + (s >>> 16);
        }
        return (int) s;
    }

    private static int u16(byte[] f, int at) {
        return (f[at] & 0xff) << 8 | f[at + 1] & 0xff;
    }

    private static int u32(byte[] f, int at) {
        return u16(f, at) << 16 | u16(f, at + 2);
    }

    /** Asserts the segment is a valid frame on its own; returns its L4 payload. */
    private static byte[] assertValid(byte[] f, ParsedPacket p) {
        assertThat(PacketParser.parse(MemorySegment.ofArray(f), 0, f.length, LinkType.ETHERNET, p))
                .isEqualTo(ParsedPacket.OK);
        int l3 = p.l3Offset(), l4 = p.l4Offset(), l4Len = f.length - l4;
        long pseudo;
        if (p.ipVersion() == 4) {
            int ihl = (f[l3] & 0x0f) * 4;
            assertThat(folded(words(f, l3, ihl))).as("IPv4 header checksum").isEqualTo(0xffff);
            assertThat(u16(f, l3 + 2)).as("IPv4 total length").isEqualTo(f.length - l3);
            pseudo = words(f, l3 + 12, 8);
        } else {
            assertThat(u16(f, l3 + 4)).as("IPv6 payload length").isEqualTo(f.length - l3 - 40);
            pseudo = words(f, l3 + 8, 32);
        }
        pseudo += p.protocol() + l4Len;
        assertThat(folded(pseudo + words(f, l4, l4Len))).as("TCP/UDP checksum").isEqualTo(0xffff);
        int hdr = p.protocol() == 6 ? ((f[l4 + 12] & 0xff) >>> 4) * 4 : 8;
        if (p.protocol() == 17) {
            assertThat(u16(f, l4 + 4)).as("UDP length").isEqualTo(l4Len);
        }
        return Arrays.copyOfRange(f, l4 + hdr, f.length);
    }

    private static List<byte[]> segment(GsoSegmenter g, byte[] frame, int gsoType, int mss, boolean stripped,
            int bufferBytes, int expectCause) {
        MemorySegment m = MemorySegment.ofArray(frame);
        int cause = g.parse(m, 0, frame.length, gsoType, mss, false, 0, stripped, 0x8100, 0x0123, bufferBytes);
        assertThat(GsoSegmenter.describe(cause)).isEqualTo(GsoSegmenter.describe(expectCause));
        List<byte[]> out = new ArrayList<>();
        if (cause != GsoSegmenter.OK) {
            return out;
        }
        MemorySegment dst = MemorySegment.ofArray(new byte[bufferBytes + 64]);
        for (int k = 0; k < g.segments(); k++) {
            int len = g.write(m, 0, k, dst, 32);
            out.add(dst.asSlice(32, len).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
        return out;
    }

    @Test
    void tcp4SuperFrameBecomesMssSegmentsWithTheKernelsSequenceIdsAndFlags() {
        byte[] data = payload(5000);
        byte[] f = superFrame(false, true, 0, 0, 0xfffe, 0xfffff000, CWR | ACK | PSH | FIN, data);
        GsoSegmenter g = new GsoSegmenter();
        List<byte[]> segs = segment(g, f, TCPV4 | PacketSys.VIRTIO_NET_HDR_GSO_ECN, 1448, false, 2048,
                GsoSegmenter.OK);
        assertThat(segs).hasSize(4);
        assertThat(segs.stream().map(s -> s.length)).containsExactly(1514, 1514, 1514, 14 + 20 + 32 + 656);
        ParsedPacket p = new ParsedPacket();
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        for (int k = 0; k < 4; k++) {
            byte[] s = segs.get(k);
            joined.writeBytes(assertValid(s, p));
            assertThat(u16(s, 18)).as("IPv4 id, wrapping").isEqualTo((0xfffe + k) & 0xffff);
            assertThat(u16(s, 20)).as("DF kept").isEqualTo(0x4000);
            assertThat(u32(s, 34 + 4)).as("sequence number, wrapping").isEqualTo(0xfffff000 + 1448 * k);
            assertThat(u32(s, 34 + 8)).as("ack number").isEqualTo(0x01020304);
            int flags = s[34 + 13] & 0xff;
            assertThat(flags & ACK).isEqualTo(ACK);
            assertThat(flags & CWR).as("CWR on the first segment only").isEqualTo(k == 0 ? CWR : 0);
            assertThat(flags & (PSH | FIN)).as("PSH, FIN on the last only").isEqualTo(k == 3 ? PSH | FIN : 0);
            assertThat(Arrays.copyOfRange(s, 54, 66)).as("TCP options copied")
                    .isEqualTo(Arrays.copyOfRange(f, 54, 66));
            assertThat(Arrays.copyOfRange(s, 0, 14)).isEqualTo(Arrays.copyOfRange(f, 0, 14));
        }
        assertThat(joined.toByteArray()).isEqualTo(data);
        assertThat(g.segmentPayload()).isEqualTo(1448);
    }

    @Test
    void tcp6SegmentsGetTheStrippedVlanTagBack() {
        byte[] data = payload(4000);
        byte[] f = superFrame(true, true, 0, 0, 0, 1000, ACK | PSH, data);
        List<byte[]> segs = segment(new GsoSegmenter(), f, TCPV6, 1428, true, 2048, GsoSegmenter.OK);
        assertThat(segs).hasSize(3);
        ParsedPacket p = new ParsedPacket();
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        for (int k = 0; k < 3; k++) {
            byte[] s = segs.get(k);
            assertThat(u16(s, 12)).isEqualTo(0x8100);
            assertThat(u16(s, 14)).as("TCI").isEqualTo(0x0123);
            assertThat(u16(s, 16)).isEqualTo(0x86DD);
            joined.writeBytes(assertValid(s, p));
            assertThat(p.vlanCount()).isEqualTo(1);
            assertThat(u32(s, 18 + 40 + 4)).isEqualTo(1000 + 1428 * k);
            assertThat(s[18 + 40 + 13] & PSH).isEqualTo(k == 2 ? PSH : 0);
        }
        assertThat(segs.get(0)).hasSize(18 + 40 + 32 + 1428);
        assertThat(joined.toByteArray()).isEqualTo(data);
    }

    @Test
    void udpL4OverTaggedIpv4WithOptionsBecomesDatagramsOfGsoSize() {
        byte[] data = payload(3001);
        byte[] f = superFrame(false, false, 2, 4, 7, 0, 0, data); // QinQ in the frame, IHL 6
        List<byte[]> segs = segment(new GsoSegmenter(), f, UDP_L4, 1000, false, 2048, GsoSegmenter.OK);
        assertThat(segs).hasSize(4);
        assertThat(segs.get(3)).as("the odd last datagram: one byte").hasSize(22 + 24 + 8 + 1);
        ParsedPacket p = new ParsedPacket();
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        for (int k = 0; k < 4; k++) {
            byte[] s = segs.get(k);
            joined.writeBytes(assertValid(s, p));
            assertThat(p.vlanCount()).isEqualTo(2);
            assertThat(u16(s, 22 + 4)).isEqualTo(7 + k);
            assertThat(u16(s, 22 + 24 + 6)).as("UDP checksum present").isNotZero();
        }
        assertThat(joined.toByteArray()).isEqualTo(data);
        // IPv6 UDP the same way
        byte[] six = superFrame(true, false, 0, 0, 0, 0, 0, payload(2500));
        List<byte[]> s6 = segment(new GsoSegmenter(), six, UDP_L4, 1200, false, 2048, GsoSegmenter.OK);
        assertThat(s6).hasSize(3);
        s6.forEach(s -> assertValid(s, p));
    }

    @Test
    void segmentingAllocatesNothing() {
        byte[] f = superFrame(false, true, 0, 0, 1, 1, ACK, payload(64_000));
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment ring = arena.allocate(f.length);
            MemorySegment.copy(f, 0, ring, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, f.length);
            MemorySegment buf = arena.allocate(2048);
            GsoSegmenter g = new GsoSegmenter();
            long[] bytes = new long[1];
            Runnable round = () -> {
                for (int i = 0; i < 1_000; i++) {
                    if (g.parse(ring, 0, f.length, TCPV4, 1448, true, 34, true, 0x8100, 5, 2048) != GsoSegmenter.OK) {
                        throw new AssertionError("refused");
                    }
                    for (int k = 0; k < g.segments(); k++) {
                        bytes[0] += g.write(ring, 0, k, buf, 0);
                    }
                }
            };
            long best = io.vecflow.dataplane.ThreadAllocation.leastPerRound(round, 10, 5);
            assertThat(best).as("bytes allocated for 1,000 super-frames of 45 segments (the probe costs < 1 KiB)")
                    .isLessThan(1024);
            assertThat(bytes[0]).isPositive();
        }
    }

    @Test
    void shapesItCannotSegmentAreRefusedWithTheirCause() {
        GsoSegmenter g = new GsoSegmenter();
        byte[] tcp4 = superFrame(false, true, 0, 0, 1, 1, ACK, payload(3000));
        segment(g, tcp4, PacketSys.VIRTIO_NET_HDR_GSO_UDP, 1448, false, 2048, GsoSegmenter.BAD_GSO_TYPE); // UFO
        segment(g, tcp4, 0x20 | TCPV4, 1448, false, 2048, GsoSegmenter.BAD_GSO_TYPE); // a UDP tunnel bit
        segment(g, tcp4, TCPV4, 0, false, 2048, GsoSegmenter.BAD_GSO_TYPE); // gso_size 0
        segment(g, tcp4, TCPV6, 1448, false, 2048, GsoSegmenter.BAD_L3); // type says IPv6, frame is IPv4
        segment(g, tcp4, UDP_L4, 1448, false, 2048, GsoSegmenter.BAD_L3); // type says UDP, frame is TCP
        segment(g, tcp4, TCPV4, 1448, false, 1000, GsoSegmenter.TOO_BIG); // 1514-byte segments, 1000-byte buffers
        byte[] frag = tcp4.clone();
        frag[20] |= 0x20; // MF
        segment(g, frag, TCPV4, 1448, false, 2048, GsoSegmenter.BAD_L3);
        byte[] doff = tcp4.clone();
        doff[34 + 12] = 0x40; // data offset 4 words
        segment(g, doff, TCPV4, 1448, false, 2048, GsoSegmenter.BAD_L4);
        byte[] six = superFrame(true, true, 0, 0, 0, 0, ACK, payload(3000));
        six[14 + 6] = 0; // next header: hop-by-hop options
        segment(g, six, TCPV6, 1428, false, 2048, GsoSegmenter.BAD_L3);
        byte[] arp = tcp4.clone();
        arp[12] = 0x08;
        arp[13] = 0x06;
        segment(g, arp, TCPV4, 1448, false, 2048, GsoSegmenter.BAD_L3);
        byte[] headersOnly = Arrays.copyOf(tcp4, 14 + 20 + 32);
        segment(g, headersOnly, TCPV4, 1448, false, 2048, GsoSegmenter.BAD_L4);
        // checksum start (virtio_net_hdr csum_start with NEEDS_CSUM) must be the L4 header
        MemorySegment m = MemorySegment.ofArray(tcp4);
        assertThat(g.parse(m, 0, tcp4.length, TCPV4, 1448, true, 34, false, 0, 0, 2048)).isEqualTo(GsoSegmenter.OK);
        assertThat(g.parse(m, 0, tcp4.length, TCPV4, 1448, true, 38, false, 0, 0, 2048))
                .isEqualTo(GsoSegmenter.BAD_L4);
        assertThat(GsoSegmenter.describe(GsoSegmenter.TRUNCATED)).isEqualTo("truncated by the ring");
    }
}
