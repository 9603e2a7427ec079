package io.vecflow.dataplane.lb;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Every LB encapsulation and the CLOVE overlay with every headroom from 0 to 128 bytes, tagged (l3 18) and untagged
 * input, short (padded) and long IPv4/IPv6 packets: the output frame (at {@code bufStart + shift()}) decapsulates to
 * the same inner IP packet, and nothing is written outside [bufStart − headroom, bufStart + bufferBytes).
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
