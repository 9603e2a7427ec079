package io.vecflow.netlink.vpp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkWriter;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * vecflow's LB_COUNTERS message: the exact bytes of the documented layout ({@link LbCounters}), decode of those
 * bytes, width checks naming the attribute, and live as root over a private USERSOCK group — emitter SEQ shared with
 * IF_COUNTERS, subscriber dispatch to {@link VppUsersockHandler#onLbCounters}, IF_COUNTERS still decoded alongside.
 */
class LbCountersTest {
    private static final int GROUP = 19; // a private test group no other test uses

    static LbCounters holder() {
        LbCounters c = new LbCounters();
        c.role = LbCounters.ROLE_SRLB_LB;
        c.vipIndex = 2;
        c.vip(true, 0x2001_0db8_0000_0000L, 0x100L);
        c.protocol = 6;
        c.port = 80;
        c.backendIndex = 4;
        c.backend(false, 0, 0x0A00_0102L);
        for (int i = 0; i < LbCounters.COUNTERS; i++) {
            c.counters[i] = 10L * (i + 1);
        }
        c.counters[LbCounters.STICKY_HITS] = 0x1_0000_0000L;
        c.seq = 77;
        return c;
    }

    /** The expected message, built attribute by attribute from the layout table (host order = little endian). */
    static byte[] golden(int nlmsgSeq, int pid) {
        ByteBuffer b = ByteBuffer.allocate(512).order(ByteOrder.LITTLE_ENDIAN);
        b.position(16);
        u32(b, 1, 2);
        u32(b, 2, 2);
        b.putShort((short) 20).putShort((short) 3).putLong(Long.reverseBytes(0x2001_0db8_0000_0000L))
                .putLong(Long.reverseBytes(0x100L));
        u32(b, 4, 6);
        u32(b, 5, 80);
        u32(b, 6, 4);
        b.putShort((short) 8).putShort((short) 7).put(new byte[] {10, 0, 1, 2});
        for (int i = 0; i < 6; i++) {
            b.putShort((short) 12).putShort((short) (8 + i)).putLong(i == 4 ? 0x1_0000_0000L : 10L * (i + 1));
        }
        u32(b, 14, 77);
        int len = b.position();
        b.putInt(0, len).putShort(4, (short) 0x4C42).putShort(6, (short) 0).putInt(8, nlmsgSeq).putInt(12, pid);
        byte[] out = new byte[len];
        b.get(0, out);
        return out;
    }

    private static void u32(ByteBuffer b, int type, int v) {
        b.putShort((short) 8).putShort((short) type).putInt(v);
    }

    @Test
    void exactBytesAndDecode() throws Exception {
        NetlinkWriter w = new NetlinkWriter(MemorySegment.ofArray(new byte[512]));
        int n = new LbCountersCodec().encode(holder(), w, 3, 4242);
        byte[] got = new byte[n];
        MemorySegment.copy(w.segment(), java.lang.foreign.ValueLayout.JAVA_BYTE, 0, got, 0, n);
        assertThat(got).containsExactly(golden(3, 4242));
        assertThat(n).isEqualTo(16 + 8 + 8 + 20 + 8 + 8 + 8 + 8 + 6 * 12 + 8);

        LbCounters d = new LbCounters();
        assertThat(new LbCountersCodec().decode(MemorySegment.ofArray(got), 0, n, d)).isTrue();
        assertThat(d.role).isEqualTo(LbCounters.ROLE_SRLB_LB);
        assertThat(d.vipIndex).isEqualTo(2);
        assertThat(d.vipLength).isEqualTo(16);
        assertThat(d.vip[0]).isEqualTo((byte) 0x20);
        assertThat(d.vip[15]).isEqualTo((byte) 0x00);
        assertThat(d.vip[14]).isEqualTo((byte) 0x01);
        assertThat(d.backendLength).isEqualTo(4);
        assertThat(d.backend).startsWith(10, 0, 1, 2);
        assertThat(d.protocol).isEqualTo(6);
        assertThat(d.port).isEqualTo(80);
        assertThat(d.backendIndex).isEqualTo(4);
        assertThat(d.counters).containsExactly(10, 20, 30, 40, 0x1_0000_0000L, 60);
        assertThat(d.seq).isEqualTo(77);

        // IF_COUNTERS bytes are not LB_COUNTERS
        assertThat(new LbCountersCodec().decode(MemorySegment.ofArray(VppIfCountersTest.golden(1, 1, 5, 1)), 0,
                VppIfCountersTest.golden(1, 1, 5, 1).length, d)).isFalse();

        // a 5-byte VIP: named with its offset
        byte[] bad = got.clone();
        bad[32] = 9; // nla_len of LB_ATTR_VIP (at offset 32): 9 → a 5-byte payload
        assertThatThrownBy(() -> new LbCountersCodec().decode(MemorySegment.ofArray(bad), 0, n, new LbCounters()))
                .isInstanceOf(NetlinkFormatException.class).hasMessageContaining("LB_ATTR_VIP")
                .hasMessageContaining("32");
    }

    @Test
    void liveEmitterToSubscriberSharesTheChannelSeq() throws Exception {
        try (VppUsersockSubscriber sub = VppUsersockSubscriber.open(GROUP);
             VppUsersockEmitter em = VppUsersockEmitter.open(GROUP)) {
            assertThat(em.sendIfCounters(VppIfCountersTest.goldenHolder(5, 0))).isTrue(); // channel SEQ 1
            LbCounters c = holder();
            assertThat(em.sendLbCounters(c)).isTrue();                                   // SEQ 2
            assertThat(c.seq).isEqualTo(2);
            List<String> got = new ArrayList<>();
            VppUsersockHandler h = new VppUsersockHandler() {
                @Override
                public void onStatus(VppStatus s) {}

                @Override
                public void onIfCounters(VppIfCounters x) {
                    got.add("if " + x.seq());
                }

                @Override
                public void onLbCounters(LbCounters x) {
                    got.add("lb " + x.seq + " vip#" + x.vipIndex + " be#" + x.backendIndex + " new "
                            + x.counter(LbCounters.NEW_FLOWS) + " full " + x.counter(LbCounters.TABLE_FULL));
                }
            };
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (got.size() < 2 && System.nanoTime() < deadline) {
                sub.poll(Duration.ofMillis(200), h);
            }
            assertThat(got).containsExactly("if 1", "lb 2 vip#2 be#4 new 10 full 60");
            assertThat(sub.lbCounterMessages()).isEqualTo(1);
            assertThat(sub.decodeErrors()).isZero();
            assertThat(em.lbCountersSent()).isEqualTo(1);
            assertThat(em.lbCountersFailed()).isZero();
        }
    }
}
