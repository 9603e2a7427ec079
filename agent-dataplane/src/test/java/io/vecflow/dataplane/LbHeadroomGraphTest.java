package io.vecflow.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.plugins.lb.EncapType;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The buffer headroom (BufferPool pre-data) under hostile inputs, in the graph: VLAN-tagged client frames (1, 2 and 4
 * tags: l3 offset 18, 22, 30) through lb4 with every encapsulation, a buffer re-used by a plain routed packet right
 * after it carried a prepended one, and an ICMP too-big reply built from a tagged frame. The expected outputs are
 * written out byte by byte from the input frames.
 */
class LbHeadroomGraphTest extends LbGraphFixture {
    private static final int CLIENT = 0xC6336405; // 198.51.100.5


    /** An IPv4/UDP frame from the client with {@code tags} 802.1Q tags; IP packet of 28 + payload bytes. */
    static byte[] udp4(int tags, int dst, int sport, int payload, boolean df) {
        ByteBuffer b = ByteBuffer.allocate(14 + 4 * tags + 28 + payload);
        b.putShort((short) (MAC_C >>> 32)).putInt((int) MAC_C).putShort((short) 0x0200).putInt(0x99);
        for (int i = 0; i < tags; i++) {
            b.putShort((short) 0x8100).putShort((short) (100 + i));
        }
        b.putShort((short) 0x0800);
        int l3 = b.position();
        b.put((byte) 0x45).put((byte) 0xB8).putShort((short) (28 + payload)).putShort((short) 0x1234)
                .putShort((short) (df ? 0x4000 : 0)).put((byte) 60).put((byte) 17).putShort((short) 0).putInt(CLIENT)
                .putInt(dst);
        b.putShort((short) sport).putShort((short) 5678).putShort((short) (8 + payload)).putShort((short) 0);
        for (int i = 0; i < payload; i++) {
            b.put((byte) (i * 7 + sport));
        }
        byte[] a = b.array();
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += (a[l3 + i] & 0xFF) << 8 | a[l3 + i + 1] & 0xFF;
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        a[l3 + 10] = (byte) (~sum >>> 8);
        a[l3 + 11] = (byte) ~sum;
        return a;
    }

    private static byte[] ipPacket(byte[] frame, int tags) {
        return Arrays.copyOfRange(frame, 14 + 4 * tags, frame.length);
    }

    /** Checks one encapsulated frame: rewritten MACs, outer ethertype, and the inner IP packet unchanged. */
    private static void assertTunnelled(byte[] o, byte[] inner, int etherType, int outerBytes, String what) {
        ByteBuffer bb = ByteBuffer.wrap(o);
        assertThat(bb.getLong(0) >>> 16).as(what + ": next-hop MAC").isEqualTo(NH_S);
        assertThat(ByteBuffer.wrap(o, 6, 8).getLong() >>> 16).as(what + ": port MAC").isEqualTo(MAC_S);
        assertThat(bb.getShort(12) & 0xFFFF).as(what + ": outer ethertype").isEqualTo(etherType);
        assertThat(o.length).as(what + ": frame length").isEqualTo(14 + outerBytes + inner.length);
        assertThat(Arrays.copyOfRange(o, 14 + outerBytes, o.length)).as(what + ": inner packet").isEqualTo(inner);
        if (etherType == 0x0800) {
            assertThat(GraphForwardingTest.ip4HeaderSum(o)).as(what + ": outer checksum").isEqualTo(0xFFFF);
            assertThat(bb.getShort(16) & 0xFFFF).as(what + ": outer total length").isEqualTo(outerBytes
                    + inner.length);
        } else {
            assertThat(bb.getShort(18) & 0xFFFF).as(what + ": outer payload length").isEqualTo(outerBytes - 40
                    + inner.length);
        }
    }

    @Test
    void taggedClientFramesThroughEveryEncapsulationCarryTheWholeInnerPacket() {
        record Case(EncapType encap, String backend, int etherType, int outer) {}
        List<Case> cases = List.of(new Case(EncapType.GRE4, "10.1.0.1", 0x0800, 24),
                new Case(EncapType.IPIP, "10.1.0.2", 0x0800, 20), new Case(EncapType.GRE6, "2001:db8:1::3", 0x86DD, 44),
                new Case(EncapType.SRV6, "2001:db8:1::4", 0x86DD, 64),
                new Case(EncapType.IPIP, "2001:db8:1::5", 0x86DD, 40));
        for (Case k : cases) {
            lb.addVip(KEY, k.encap, 7);
            lb.addBackends(KEY, List.of(InetAddress.ofLiteral(k.backend)));
            List<byte[]> in = new ArrayList<>();
            int[] tagCounts = {0, 1, 2, 4, 4};
            int[] payloads = {10, 100, 1400, 1400, 0};
            for (int i = 0; i < tagCounts.length; i++) {
                in.add(udp4(tagCounts[i], VIP, 1000 + i, payloads[i] > 1000 ? payloads[i] - k.outer : payloads[i],
                        true));
            }
            s.sent.clear();
            c.inject(in);
            run();
            assertThat(s.sent).as(k.toString()).hasSize(in.size());
            for (int i = 0; i < in.size(); i++) {
                assertTunnelled(s.sent.get(i), ipPacket(in.get(i), tagCounts[i]), k.etherType, k.outer,
                        k + " tags " + tagCounts[i]);
            }
            lb.delVip(KEY);
        }
    }

    @Test
    void aBufferReusedAfterAPrependCarriesTheNextFrameFromItsDataArea() {
        lb.addVip(KEY, EncapType.GRE4, 7);
        lb.addBackends(KEY, List.of(InetAddress.ofLiteral("10.1.0.1")));
        // alternate VIP (prepended) and plain routed frames, tagged and not, over several rounds: the LIFO free list
        // hands the prepended buffers straight back out
        for (int round = 0; round < 3; round++) {
            List<byte[]> in = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                int tags = i % 3;
                in.add(i % 2 == 0 ? udp4(tags, VIP, 2000 + i, 60, true) : udp4(tags, 0x0A010009, 2000 + i, 60, true));
            }
            s.sent.clear();
            c.inject(in);
            run();
            assertThat(s.sent).hasSize(8);
            for (int i = 0; i < 8; i++) {
                byte[] o = s.sent.get(i), p = ipPacket(in.get(i), i % 3);
                if (i % 2 == 0) {
                    assertTunnelled(o, p, 0x0800, 24, "round " + round + " vip " + i);
                } else {
                    assertThat(o.length).as("plain " + i).isEqualTo(14 + p.length);
                    assertThat(o[22] & 0xFF).as("TTL 60 - 1").isEqualTo(59);
                    assertThat(Arrays.copyOfRange(o, 26, o.length)).as("plain " + i)
                            .isEqualTo(Arrays.copyOfRange(p, 12, p.length));
                }
            }
        }
    }

    @Test
    void aTaggedTooBigFrameGetsAnIcmpReplyQuotingItsIpPacket() {
        lb.addVip(KEY, EncapType.GRE4, 7);
        lb.addBackends(KEY, List.of(InetAddress.ofLiteral("10.1.0.1")));
        byte[] big = udp4(2, VIP, 999, 1500 - 28, true);
        // first a VIP frame that prepends (and frees its buffer), then the too-big frame in the same buffer
        c.inject(List.of(udp4(0, VIP, 998, 20, true)));
        run();
        assertThat(s.sent).hasSize(1);
        c.inject(List.of(big));
        run();
        assertThat(c.sent).hasSize(1);
        byte[] r = c.sent.get(0);
        ByteBuffer bb = ByteBuffer.wrap(r);
        assertThat(bb.getLong(0) >>> 16).isEqualTo(NH_C);
        assertThat(bb.getShort(12) & 0xFFFF).isEqualTo(0x0800);
        assertThat(r.length).isEqualTo(14 + 576);
        assertThat(bb.getInt(26)).isEqualTo(VIP);
        assertThat(bb.getInt(30)).isEqualTo(CLIENT);
        assertThat(r[34]).isEqualTo((byte) 3);
        assertThat(r[35]).isEqualTo((byte) 4);
        assertThat(bb.getShort(40) & 0xFFFF).isEqualTo(1476);
        assertThat(GraphForwardingTest.ip4HeaderSum(r)).isEqualTo(0xFFFF);
        byte[] p = ipPacket(big, 2);
        assertThat(Arrays.copyOfRange(r, 42, r.length)).as("quote").isEqualTo(Arrays.copyOf(p, 576 - 28));
    }
}
