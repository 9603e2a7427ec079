package io.vecflow.dataplane.plugins.lb.encap;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.plugins.clove.Overlay;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Every LB encapsulation, the SRLB SRH insertions and the CLOVE overlay with every headroom from 0 to 128 bytes,
 * tagged (l3 18) and untagged input, short (padded) and long IPv4/IPv6 packets: the output frame (at {@code bufStart +
 * shift()}) decapsulates to the same inner IP packet, and nothing is written outside [bufStart − headroom, bufStart +
 * bufferBytes).
 */
class HeadroomRoundTripTest {
    private static final int BUF_BYTES = 2048;
    private static final long BUF = 4096; // the frame's first byte; the headroom lies before it
    private static final byte GUARD = (byte) 0xA5;
    private final MemorySegment seg = Arena.ofAuto().allocate(4L * BUF_BYTES + BUF, 64);

    private static byte[][] frames() {
        return new byte[][] {
                LbPackets.ipv4Frame("10.0.1.1", "10.0.2.1", 17, 1, 2, 0, 0, true, -1),
                LbPackets.ipv4Frame("10.0.1.1", "10.0.2.1", 6, 1, 2, FlowKey.TCP_ACK, 1400, true, 5),
                LbPackets.ipv6Frame("2001:db8::1", "2001:db8::2", 17, 1, 2, 0, 3, 7),
                LbPackets.ipv6Frame("2001:db8::1", "2001:db8::2", 6, 1, 2, FlowKey.TCP_ACK, 1300, -1)};
    }

    private static byte[] ipOf(byte[] f) {
        int l3 = (f[12] & 0xFF) == 0x81 ? 18 : 14;
        int len = (f[l3] & 0xFF) >>> 4 == 4 ? LbPackets.u16(f, l3 + 2) : 40 + LbPackets.u16(f, l3 + 4);
        return Arrays.copyOfRange(f, l3, l3 + len);
    }

    private int load(byte[] f) {
        seg.fill(GUARD);
        MemorySegment.copy(f, 0, seg, ValueLayout.JAVA_BYTE, BUF, f.length);
        return f.length;
    }

    private void assertGuards(int headroom, String what) {
        for (long i = 0; i < seg.byteSize(); i++) {
            if ((i < BUF - headroom || i >= BUF + BUF_BYTES) && seg.get(ValueLayout.JAVA_BYTE, i) != GUARD) {
                throw new AssertionError(what + ": byte " + (i - BUF) + " from the frame start written, outside "
                        + "the headroom and data area");
            }
        }
    }

    @Test
    void lbEncapsulationsRoundTripThroughDecapWithAnyHeadroom() {
        Encap e = new Encap(BUF_BYTES, 64, LbPackets.v4int("10.9.0.1"), 0x20010db800090000L, 1);
        Decap dc = new Decap();
        for (byte[] f : frames()) {
            int l3 = (f[12] & 0xFF) == 0x81 ? 18 : 14;
            byte[] inner = ipOf(f);
            for (int kind = 0; kind < 5; kind++) {
                for (int room = 0; room <= 128; room += 1) {
                    int len = load(f);
                    int r = switch (kind) {
                        case 0 -> e.gre4(seg, BUF, room, len, l3, LbPackets.v4int("10.1.0.1"));
                        case 1 -> e.ipip4(seg, BUF, room, len, l3, LbPackets.v4int("10.1.0.1"));
                        case 2 -> e.gre6(seg, BUF, room, len, l3, 0x20010db800010000L, 5, 99);
                        case 3 -> e.ipip6(seg, BUF, room, len, l3, 0x20010db800010000L, 5, 99);
                        default -> e.srv6Encaps(seg, BUF, room, len, l3, 0x20010db800010000L, 5, 99);
                    };
                    String what = "kind " + kind + " l3 " + l3 + " inner " + inner.length + " headroom " + room;
                    assertThat(r).as(what).isPositive();
                    int shift = e.shift();
                    assertThat(-shift).as(what).isBetween(0, room);
                    assertGuards(room, what);
                    long start = BUF + shift;
                    int d = dc.tunnel(seg, start, r, 14);
                    assertThat(d).as(what + " decap " + Decap.errorName(d)).isEqualTo(14 + inner.length);
                    assertThat(LbPackets.bytes(seg, start + 14, inner.length)).as(what).isEqualTo(inner);
                }
            }
        }
    }

    /**
     * The SRLB SRH insertions (a steered client packet, 56 bytes; a hunt over two candidates, 72 bytes): with room
     * for the SRH, the L2 + IPv6 headers move back into the headroom ({@code shift} = −SRH bytes); otherwise the
     * payload moves forward (shift 0). Either way the L2 header (and its
     * VLAN tag) and the payload arrive unchanged around the SRH, and the server agent's pop gives back the client's
     * exact IPv6 packet.
     */
    @Test
    void srlbSrhInsertionsRoundTripThroughThePopWithAnyHeadroom() {
        Encap e = new Encap(BUF_BYTES, 64, 0, 0, 0);
        Decap dc = new Decap();
        long lbHi = 0xfd00_00ff_0000_0000L, lbLo = 1L << 48, saHi = 0xfc00_0001_0000_0000L;
        int prepended = 0;
        for (byte[] f : frames()) {
            byte[] ip = ipOf(f);
            if ((ip[0] & 0xF0) != 0x60) {
                continue;
            }
            int l3 = (f[12] & 0xFF) == 0x81 ? 18 : 14;
            for (int kind = 0; kind < 2; kind++) {
                int srh = kind == 0 ? 56 : 72;
                for (int room = 0; room <= 128; room++) {
                    int len = load(f);
                    int r = kind == 0 ? e.srlbToServer(seg, BUF, room, len, l3, saHi, 0x1234, lbHi, lbLo)
                            : e.srlbHunt(seg, BUF, room, len, l3, new long[] {saHi, 1, saHi + 1, 2}, 2, lbHi, lbLo,
                                    true);
                    String what = (kind == 0 ? "to-server" : "hunt") + " l3 " + l3 + " ip " + ip.length
                            + " headroom " + room;
                    assertThat(r).as(what).isEqualTo(l3 + srh + ip.length);
                    boolean prepend = srh <= room;
                    int shift = e.shift();
                    assertThat(shift).as(what).isEqualTo(prepend ? -srh : 0);
                    prepended += prepend ? 1 : 0;
                    assertGuards(room, what);
                    long start = BUF + shift;
                    assertThat(LbPackets.bytes(seg, start, l3)).as(what + ": L2 header").isEqualTo(
                            Arrays.copyOf(f, l3));
                    assertThat(LbPackets.bytes(seg, start + l3 + 24, 8)).as(what + ": destination = first SID")
                            .isEqualTo(LbPackets.bytes(MemorySegment.ofArray(new long[] {Long.reverseBytes(saHi)}), 0,
                                    8));
                    assertThat(LbPackets.bytes(seg, start + l3 + 40 + srh, ip.length - 40)).as(what + ": payload")
                            .isEqualTo(Arrays.copyOfRange(ip, 40, ip.length));
                    int d = dc.srhPop(seg, start, r, l3);
                    assertThat(d).as(what + " pop " + Decap.errorName(d)).isEqualTo(l3 + ip.length);
                    assertThat(LbPackets.bytes(seg, start + l3, ip.length)).as(what + ": popped").isEqualTo(ip);
                }
            }
        }
        assertThat(prepended).as("2 IPv6 frames × (129 − 56 + 129 − 72) headrooms with room for the SRH")
                .isEqualTo(2 * (73 + 57));
    }

    @Test
    void overlayRoundTripsThroughDecapWithAnyHeadroom() {
        int a = LbPackets.v4int("10.255.1.2"), b = LbPackets.v4int("10.255.2.2");
        for (boolean geneve : new boolean[] {true, false}) {
            Overlay tx = new Overlay(geneve, BUF_BYTES, 64, a, 100), rx = new Overlay(geneve, BUF_BYTES, 64, b, 100);
            for (byte[] f : frames()) {
                int l3 = (f[12] & 0xFF) == 0x81 ? 18 : 14;
                byte[] inner = ipOf(f);
                for (int fb = 0; fb <= Overlay.MAX_FEEDBACK; fb++) {
                    for (int room = 0; room <= 128; room++) {
                        int len = load(f);
                        int r = tx.encap(seg, BUF, room, len, l3, b, 49153, false, new int[] {1, 2, 3, 4},
                                new int[] {5, 6, 7, 8}, fb);
                        String what = (geneve ? "geneve" : "vxlan") + " fb " + fb + " l3 " + l3 + " inner "
                                + inner.length + " headroom " + room;
                        assertThat(r).as(what).isPositive();
                        int shift = tx.shift();
                        assertThat(-shift).as(what).isBetween(0, room);
                        assertGuards(room, what);
                        long start = BUF + shift;
                        if (!geneve) {
                            assertThat(LbPackets.bytes(seg, start + 50, 12)).as(what + ": inner MACs")
                                    .isEqualTo(Arrays.copyOf(f, 12));
                        }
                        int d = rx.decap(seg, start, r, 14, b);
                        assertThat(d).as(what + " decap").isEqualTo(14 + inner.length);
                        assertThat(LbPackets.bytes(seg, start + 14, inner.length)).as(what).isEqualTo(inner);
                        assertThat(rx.feedbackCount()).as(what).isEqualTo(geneve ? fb : 0);
                    }
                }
            }
        }
    }
}
