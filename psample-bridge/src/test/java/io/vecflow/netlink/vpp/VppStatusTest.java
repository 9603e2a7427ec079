package io.vecflow.netlink.vpp;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkSocket;
import io.vecflow.netlink.NetlinkWriter;
import io.vecflow.netlink.TestBytes;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** VPP USERSOCK STATUS: golden bytes (spec §3) and a live round trip on a USERSOCK group. */
class VppStatusTest {

    static byte[] goldenStatus(int nlmsgSeq, int pid) {
        return TestBytes.le()
                .u32(40)                 // nlmsg_len: 16 + 3 * 8
                .u16(1)                  // nlmsg_type: STATUS (1) — not NLMSG_NOOP on this channel
                .u16(0)                  // nlmsg_flags
                .u32(nlmsgSeq)           // nlmsg_seq
                .u32(pid)                // nlmsg_pid: getpid()
                .u16(8).u16(20).u32(3600)    // SFLOW_VPP_ATTR_UPTIME_S (20): 3600 s
                .u16(8).u16(22).u32(17)      // SFLOW_VPP_ATTR_DROPS (22): 17
                .u16(8).u16(23).u32(123456)  // SFLOW_VPP_ATTR_SEQ (23)
                .bytes();
    }

    @Test
    void statusEncodesTheGoldenBytesAndDecodesBack() throws Exception {
        VppStatusCodec codec = new VppStatusCodec();
        NetlinkWriter w = new NetlinkWriter(MemorySegment.ofArray(new byte[128]));
        int len = codec.encode(new VppStatus().uptimeS(3600).drops(17).seq(123456), w, 5, 4242);
        assertThat(TestBytes.toArray(w.segment(), len)).containsExactly(goldenStatus(5, 4242));
        VppStatus out = new VppStatus();
        assertThat(codec.decode(w.segment(), 0, len, out)).isTrue();
        assertThat(out.uptimeS()).isEqualTo(3600);
        assertThat(out.drops()).isEqualTo(17);
        assertThat(out.seq()).isEqualTo(123456);
        assertThat(out.hasUptimeS() && out.hasDrops() && out.hasSeq()).isTrue();
        // an IF_COUNTERS message (type 2 = NLMSG_ERROR's number) is not STATUS and not an error
        byte[] ifc = goldenStatus(5, 4242);
        ifc[4] = 2;
        assertThat(codec.decode(MemorySegment.ofArray(ifc), 0, ifc.length, out)).isFalse();
    }

    @Test
    void statusRoundTripOverUsersockGroup() throws Exception {
        int group = 28; // a test group near VPP's 29, so a live hsflowd on 29 is not disturbed
        try (Arena arena = Arena.ofConfined();
             VppUsersockSubscriber sub = VppUsersockSubscriber.open(group);
             VppUsersockEmitter em = VppUsersockEmitter.open(group);
             NetlinkSocket raw = NetlinkSocket.open(Netlink.NETLINK_USERSOCK)) {
            raw.bind(0, 0);
            long marker = 0xC0DE_0000L | (System.nanoTime() & 0xFFFF);
            VppStatus in = new VppStatus().uptimeS(12).drops(3).seq(marker);
            assertThat(em.emitStatus(in)).isTrue();
            assertThat(em.emitStatus(in.uptimeS(13).seq(marker + 1))).isTrue();
            assertThat(em.sent()).isEqualTo(2);

            // a raw IF_COUNTERS-typed message (type 2) and a malformed STATUS share the channel
            byte[] ifc = goldenStatus(1, raw.portId());
            ifc[4] = VppUsersock.MSG_IF_COUNTERS;
            raw.send(TestBytes.nativeCopy(arena, ifc), ifc.length, 0, Netlink.groupMask(group));
            byte[] bad = goldenStatus(1, raw.portId());
            bad[24] = 3; // DROPS nla_len 3
            raw.send(TestBytes.nativeCopy(arena, bad), bad.length, 0, Netlink.groupMask(group));
            VppStatus after = new VppStatus().uptimeS(14).drops(3).seq(marker + 2);
            assertThat(em.emitStatus(after)).isTrue();

            List<long[]> statuses = new ArrayList<>();
            List<Long> ifCounterSeqs = new ArrayList<>();
            VppUsersockHandler h = new VppUsersockHandler() {
                @Override
                public void onStatus(VppStatus s) {
                    if (s.seq() >= marker && s.seq() <= marker + 2) {
                        statuses.add(new long[] {s.uptimeS(), s.drops(), s.seq()});
                    }
                }

                @Override
                public void onIfCounters(VppIfCounters c) {
                    ifCounterSeqs.add(c.seq());
                }
            };
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (statuses.size() < 3 && System.nanoTime() < deadline) {
                sub.poll(Duration.ofMillis(300), h);
            }
            assertThat(statuses).containsExactly(
                    new long[] {12, 3, marker}, new long[] {13, 3, marker + 1}, new long[] {14, 3, marker + 2});
            // type 2 is read as IF_COUNTERS (not NLMSG_ERROR): its SEQ is decoded, UPTIME_S/DROPS skipped
            assertThat(ifCounterSeqs).contains(123456L);
            assertThat(sub.ifCounterMessages()).isGreaterThanOrEqualTo(1);
            assertThat(sub.decodeErrors()).isEqualTo(1);
            assertThat(sub.lastDecodeError()).isEqualTo("nlattr SFLOW_VPP_ATTR_DROPS (22) at offset 24: "
                    + "nla_len 3 is smaller than the 4-byte header");
        }
    }
}
