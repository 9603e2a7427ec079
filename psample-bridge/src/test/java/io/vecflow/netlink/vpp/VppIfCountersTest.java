package io.vecflow.netlink.vpp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkWriter;
import io.vecflow.netlink.TestBytes;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * VPP USERSOCK IF_COUNTERS: golden bytes built by hand from spec §3's attribute table (ascending ids, as VPP's
 * {@code sflow_usersock.c} sends them), decoded and re-encoded; type 2 is IF_COUNTERS, not NLMSG_ERROR.
 */
class VppIfCountersTest {
    static final byte[] MAC = {0x02, 0x42, (byte) 0xAC, 0x11, 0x00, 0x02};

    /**
     * IF_COUNTERS for "GigabitEthernet0/8/0" (20 bytes, no NUL), sw_if_index 1, OSINDEX {@code osIndex} (omitted
     * when negative), 10 Gb/s, type 6, full duplex, up/up, counters 1000 + id, MAC, SEQ {@code seq}.
     */
    static byte[] golden(int nlmsgSeq, int pid, long osIndex, long seq) {
        TestBytes b = TestBytes.le();
        int len = 16 + 24 + 8 + 8 + 12 + 8 + 8 + 8 + 12 * 12 + 12 + (osIndex >= 0 ? 8 : 0) + 8;
        b.u32(len)                       // nlmsg_len
                .u16(2)                  // nlmsg_type: IF_COUNTERS (2) — NLMSG_ERROR's number, not an error here
                .u16(0)                  // nlmsg_flags 0
                .u32(nlmsgSeq)
                .u32(pid)                // nlmsg_pid: getpid()
                .u16(24).u16(0).raw("GigabitEthernet0/8/0".getBytes())   // PORTNAME (0): 20 bytes, no NUL
                .u16(8).u16(1).u32(1)                                     // IFINDEX (1): sw_if_index 1
                .u16(8).u16(2).u32(6)                                     // IFTYPE (2): ethernetCsmacd
                .u16(12).u16(3).u64(10_000_000_000L)                      // IFSPEED (3): u64 bits/s
                .u16(8).u16(4).u32(1)                                     // IFDIRECTION (4): full duplex
                .u16(8).u16(5).u32(1)                                     // OPER_UP (5)
                .u16(8).u16(6).u32(1);                                    // ADMIN_UP (6)
        for (int id = 7; id <= 18; id++) {
            b.u16(12).u16(id).u64(1000 + id);                             // RX_OCTETS (7) .. TX_ERRORS (18): u64
        }
        b.u16(10).u16(19).raw(MAC).zeros(2);                              // HW_ADDRESS (19): 6 bytes + 2 pad
        if (osIndex >= 0) {
            b.u16(8).u16(21).u32(osIndex);                                // OSINDEX (21): Linux ifindex
        }
        b.u16(8).u16(23).u32(seq);                                        // SEQ (23)
        byte[] out = b.bytes();
        if (out.length != len) {
            throw new AssertionError("golden length " + out.length + " != " + len);
        }
        return out;
    }

    static VppIfCounters goldenHolder(long osIndex, long seq) {
        VppIfCounters c = new VppIfCounters().portName("GigabitEthernet0/8/0").ifIndex(1).ifType(6)
                .ifSpeed(10_000_000_000L).ifDirection(1).operUp(1).adminUp(1).hwAddress(MAC).seq(seq);
        for (int id = 7; id <= 18; id++) {
            c.counter(id, 1000 + id);
        }
        return osIndex >= 0 ? c.osIndex(osIndex) : c;
    }

    @Test
    void decodesVppBytesAndEncodesThemBack() throws Exception {
        VppIfCountersCodec codec = new VppIfCountersCodec();
        byte[] g = golden(9, 777, 5, 41);
        VppIfCounters out = new VppIfCounters();
        assertThat(codec.decode(MemorySegment.ofArray(g), 0, g.length, out)).isTrue();
        assertThat(out.portNameString()).isEqualTo("GigabitEthernet0/8/0");
        assertThat(out.ifIndex()).isEqualTo(1);
        assertThat(out.ifType()).isEqualTo(6);
        assertThat(out.ifSpeed()).isEqualTo(10_000_000_000L);
        assertThat(out.ifDirection()).isEqualTo(1);
        assertThat(out.operUp()).isEqualTo(1);
        assertThat(out.adminUp()).isEqualTo(1);
        assertThat(out.counter(VppUsersock.ATTR_RX_OCTETS)).isEqualTo(1007);
        assertThat(out.counter(VppUsersock.ATTR_TX_ERRORS)).isEqualTo(1018);
        assertThat(out.hwAddress()).containsExactly(MAC);
        assertThat(out.has(VppUsersock.ATTR_OSINDEX)).isTrue();
        assertThat(out.osIndex()).isEqualTo(5);
        assertThat(out.seq()).isEqualTo(41);

        NetlinkWriter w = new NetlinkWriter(MemorySegment.ofArray(new byte[512]));
        int len = codec.encode(goldenHolder(5, 41), w, 9, 777);
        assertThat(TestBytes.toArray(w.segment(), len)).containsExactly(g);

        // without a linux-cp pair VPP omits OSINDEX: absent, not 0
        byte[] noOs = golden(10, 777, -1, 42);
        assertThat(codec.decode(MemorySegment.ofArray(noOs), 0, noOs.length, out)).isTrue();
        assertThat(out.has(VppUsersock.ATTR_OSINDEX)).isFalse();
        w.reset();
        assertThat(TestBytes.toArray(w.segment(), codec.encode(goldenHolder(-1, 42), w, 10, 777)))
                .containsExactly(noOs);
        // STATUS (type 1, NLMSG_NOOP's number) is not IF_COUNTERS
        byte[] st = VppStatusTest.goldenStatus(1, 2);
        assertThat(codec.decode(MemorySegment.ofArray(st), 0, st.length, out)).isFalse();
    }

    @Test
    void badWidthsNameTheAttributeAndOffset() {
        VppIfCountersCodec codec = new VppIfCountersCodec();
        byte[] bad = golden(1, 1, 5, 1);
        bad[56] = 8; // IFSPEED nla_len 12 → 8: a 4-byte payload for a u64
        assertThatThrownBy(() -> codec.decode(MemorySegment.ofArray(bad), 0, bad.length, new VppIfCounters()))
                .isInstanceOf(NetlinkFormatException.class)
                .hasMessageContaining("SFLOW_VPP_ATTR_IFSPEED (3)").hasMessageContaining("offset 56");
        byte[] mac = golden(1, 1, 5, 1);
        int macAt = 16 + 24 + 8 + 8 + 12 + 8 + 8 + 8 + 12 * 12;
        mac[macAt] = 9; // HW_ADDRESS nla_len 10 → 9
        assertThatThrownBy(() -> codec.decode(MemorySegment.ofArray(mac), 0, mac.length, new VppIfCounters()))
                .isInstanceOf(NetlinkFormatException.class)
                .hasMessageContaining("SFLOW_VPP_ATTR_HW_ADDRESS (19)").hasMessageContaining("offset " + macAt);
    }

    @Test
    void emitterAndSubscriberCarryIfCountersAndStatusOnOneGroup() throws Exception {
        int group = 27; // a private test group (VPP uses 29)
        try (VppUsersockSubscriber sub = VppUsersockSubscriber.open(group);
             VppUsersockEmitter em = VppUsersockEmitter.open(group)) {
            long marker = 0xBEEF_0000L | (System.nanoTime() & 0xFFFF);
            assertThat(em.emitIfCounters(goldenHolder(5, marker))).isTrue();
            assertThat(em.emitStatus(new VppStatus().uptimeS(3).drops(7).seq(marker + 1))).isTrue();
            assertThat(em.emitIfCounters(goldenHolder(-1, marker + 2))).isTrue();
            List<String> got = new ArrayList<>();
            VppUsersockHandler h = new VppUsersockHandler() {
                @Override
                public void onStatus(VppStatus s) {
                    if (s.seq() == marker + 1) {
                        got.add("status drops=" + s.drops());
                    }
                }

                @Override
                public void onIfCounters(VppIfCounters c) {
                    if (c.seq() == marker || c.seq() == marker + 2) {
                        got.add(c.portNameString() + " " + c.ifIndex() + " os="
                                + (c.has(VppUsersock.ATTR_OSINDEX) ? c.osIndex() : "-") + " rx="
                                + c.counter(VppUsersock.ATTR_RX_OCTETS));
                    }
                }
            };
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (got.size() < 3 && System.nanoTime() < deadline) {
                sub.poll(Duration.ofMillis(200), h);
            }
            assertThat(got).containsExactly("GigabitEthernet0/8/0 1 os=5 rx=1007", "status drops=7",
                    "GigabitEthernet0/8/0 1 os=- rx=1007");
            assertThat(sub.decodeErrors()).isZero();
        }
    }
}
